/*
 * A spawn's own fds 0-2 (cordon_spawn_stdio): the caller names, for each
 * of the command's stdin, stdout and stderr, its own fd, a pipe cordon
 * makes, /dev/null or the caller's own fd 0-2. Nothing of the process
 * changes: the fds are made here, judged and planned in the parent
 * (stdfds.c: struct spawn_io) and put in place by the child alone, so
 * spawns from several threads at once each get theirs.
 *
 * What cordon makes (the pipes, /dev/null) is close-on-exec from its
 * birth (on macOS, without pipe2, a pipe a moment after: see
 * pipe_cloexec): another thread's command never inherits it. The command's ends
 * are closed here once the spawn returned (the child has its copies);
 * the caller's ends are handed back, or closed when the spawn failed.
 */
#include "handle.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* What this spawn made: the command's ends (closed when it returns) and
 * the caller's ends of the pipes (handed back on success). */
struct made {
	int theirs[3], ours[3];
};

static void made_close(int *v)
{
	for (int i = 0; i < 3; i++) {
		if (v[i] >= 0)
			close(v[i]);
		v[i] = -1;
	}
}

/* io checked, the pipes and /dev/null made, the fds each slot gets in
 * sio. 0, or an error with its message (what was made is in m). */
static int stdio_make(cordon *c, const struct cordon_stdio *io, struct spawn_io *sio,
		      struct made *m)
{
	spawn_io_inherit(sio);
	for (int fd = 0; fd <= 2; fd++) {
		int how = io->how[fd], p[2];
		switch (how) {
		case CORDON_STDIO_INHERIT:
			continue;
		case CORDON_STDIO_FD:
			if (io->fd[fd] < 0 || fcntl(io->fd[fd], F_GETFD) < 0)
				return cordon_fail(c, CORDON_EINVAL,
						   "stdio: fd %d given for the command's fd %d is "
						   "not open",
						   io->fd[fd], fd);
			sio->src[fd] = io->fd[fd];
			break;
		case CORDON_STDIO_PIPE:
			if (pipe_cloexec(p) != 0)
				return cordon_fail_errno(c, CORDON_ESYS, errno, "stdio: pipe");
			/* fd 0 reads what the caller writes; 1 and 2 the reverse. */
			m->theirs[fd] = p[fd == 0 ? 0 : 1];
			m->ours[fd] = p[fd == 0 ? 1 : 0];
			sio->src[fd] = m->theirs[fd];
			break;
		case CORDON_STDIO_NULL:
			if ((m->theirs[fd] = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
				return cordon_fail_errno(c, CORDON_ESYS, errno,
							 "stdio: cannot open /dev/null");
			sio->src[fd] = m->theirs[fd];
			break;
		case CORDON_STDIO_STDOUT:
			if (fd != 2)
				return cordon_fail(c, CORDON_EINVAL,
						   "stdio: CORDON_STDIO_STDOUT is for fd 2 only");
			sio->src[2] = sio->src[1]; /* the caller's own fd 1 too */
			break;
		default:
			return cordon_fail(c, CORDON_EINVAL,
					   "stdio: unknown way %d for the command's fd %d", how,
					   fd);
		}
		sio->own |= 1u << fd;
	}
	return 0;
}

int cordon_spawn_stdio(cordon *c, const char *const argv[], struct cordon_stdio *io,
		       cordon_proc **out)
{
	struct spawn_io sio;
	struct made m = { { -1, -1, -1 }, { -1, -1, -1 } };
	if (c == NULL)
		return CORDON_EINVAL;
	int r = spawn_check(c, argv, out);
	if (r != 0)
		return r;
	if (io == NULL) {
		spawn_io_inherit(&sio);
		return spawn_run(c, argv, &sio, out);
	}
	r = stdio_make(c, io, &sio, &m);
	if (r == 0)
		r = spawn_run(c, argv, &sio, out);
	made_close(m.theirs);
	if (r != 0)
		made_close(m.ours);
	for (int fd = 0; fd <= 2; fd++)
		if (io->how[fd] == CORDON_STDIO_PIPE)
			io->fd[fd] = m.ours[fd];
	return r;
}
