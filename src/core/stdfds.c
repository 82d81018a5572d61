/*
 * fds 0-2 that point outside the writable set (a side door: the command
 * holds them without any path check). Decided in the parent for each
 * command, applied in its child after confinement, before exec:
 *
 *   - a directory outside is replaced by /dev/null: through it (fchmod,
 *     /proc/self/fd/N/...) the command could change outside metadata or
 *     create files, and no command reads or writes a directory on stdio;
 *   - a regular file outside on fd 0 is the mount layer's: it opens the
 *     file again, read-only, by its path in the command's view while that
 *     view is still the machine's made read-only, before any private
 *     mount (the private /tmp, /var/tmp, /dev/shm, the scratch home, the
 *     covers) hides the path (layer-mountns.c, reopen_stdin_file), so
 *     its mode, owner, times and xattrs cannot change (EROFS). A file it
 *     cannot reach so (no name left, another file at its name) keeps its
 *     metadata changeable, and the start event says so
 *     (stdio_metadata_not_restricted): metadata_gap asks the same
 *     question of the same view;
 *   - a regular file outside on fd 1 or 2 stays: the caller sent output
 *     there. Its metadata can still be changed through it, which the
 *     start event reports (stdio_metadata_not_restricted) when it
 *     applies.
 * Pipes, sockets, terminals and files inside the writable set stay as
 * they are (devices and FIFOs are reopened by the mount layer too).
 *
 * A spawn may give the command fds of its own for 0-2 (cordon_spawn_stdio,
 * struct spawn_io): they are judged the same way, each as the fd it
 * becomes, and the child puts them in place (stdio_take) before anything
 * of the above. One that would need a gap the start event does not name
 * (it was written for the caller's own fds) is refused instead
 * (stdio_refusal): the events never say less than what holds.
 */
#include "handle.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* What fd needs as the command's fd (any slot: a regular file on 0 is
 * the mount layer's to reopen). */
static enum stdio_action decide(const cordon *c, int fd)
{
	struct stat st;
	char path[CORDON_PATH_MAX];
#if defined(O_PATH)
	/* A path only (a symlink, say): no stdio at all, and fchownat(fd,
	 * "", AT_EMPTY_PATH) would reach what it names. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_PATH))
		return STDIO_NULL;
#endif
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
		return STDIO_KEEP;
	if (fd_path(fd, path, sizeof(path)) == 0 && policy_inside_writable(&c->pol, path))
		return STDIO_KEEP;
	return STDIO_NULL;
}

void stdio_plan_make(const cordon *c, const struct spawn_io *io, struct stdio_plan *sp)
{
	memset(sp, 0, sizeof(*sp));
	if (!c->dec.applied)
		return;
	for (int fd = 0; fd <= 2; fd++)
		sp->action[fd] = decide(c, io->src[fd]);
}

void spawn_io_inherit(struct spawn_io *io)
{
	for (int fd = 0; fd <= 2; fd++)
		io->src[fd] = fd;
	io->own = 0;
}

/* Whether fd is a socket of a family other than AF_UNIX: a network
 * socket made before the run, outside any namespace of the run's, which
 * the command could connect or send anywhere. */
static int network_socket(int fd)
{
#if defined(SO_DOMAIN)
	int domain = AF_UNIX;
	socklen_t len = sizeof(domain);
	return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain != AF_UNIX;
#else
	(void)fd; /* macOS: Seatbelt mediates every socket's connect and send */
	return 0;
#endif
}

int inherited_network_socket(const cordon *c)
{
	for (int fd = 0; fd <= 2; fd++)
		if (network_socket(fd))
			return 1;
	for (size_t i = 0; i < c->nkeep; i++)
		if (network_socket(c->keep_fds[i]))
			return 1;
	return 0;
}

/* Whether the mount layer reopens fd's file (regular, outside): it can
 * be opened again read-only by its name as the same file, in the
 * machine's view, which is the command's when the mount layer reopens
 * it. */
static int reopened_by_mount_layer(int fd, const struct stat *st)
{
	char path[CORDON_PATH_MAX];
	struct stat now;
	if (fd_path(fd, path, sizeof(path)) != 0)
		return 0;
	int nfd = open(path, O_RDONLY | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (nfd < 0)
		return 0;
	int same = fstat(nfd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
	close(nfd);
	return same;
}

/* Whether fd, as the command's fd slot, keeps an outside file's metadata
 * changeable through it (what stdio_metadata_not_restricted names): on
 * 1 or 2, or on 0 one the mount layer cannot open again by its name. */
static int metadata_gap(const cordon *c, int slot, int fd)
{
	struct stat st;
	char path[CORDON_PATH_MAX];
	if (!c->dec.applied || !(c->dec.cov.layers & (1u << LAYER_MOUNTNS)))
		return 0; /* without it, metadata outside is a gap anyway */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || decide(c, fd) != STDIO_KEEP)
		return 0;
	if (fd_path(fd, path, sizeof(path)) == 0 && policy_inside_writable(&c->pol, path))
		return 0;
	return slot != 0 || !reopened_by_mount_layer(fd, &st);
}

int stdio_metadata_gap(const cordon *c)
{
	for (int fd = 0; fd <= 2; fd++)
		if (metadata_gap(c, fd, fd))
			return 1;
	return 0;
}

int stdio_refusal(cordon *c, const struct spawn_io *io)
{
	const struct decision *d = &c->dec;
	for (int fd = 0; fd <= 2; fd++) {
		if (!(io->own & (1u << fd)))
			continue;
		if (d->network_listed && !(d->cov.gaps & (1ull << GAP_INHERITED_SOCKET)) &&
		    network_socket(io->src[fd]))
			return cordon_fail(c, CORDON_EREFUSED,
					   "refusing fd %d for the command's fd %d: a network "
					   "socket, which the command could connect or send "
					   "anywhere (--network %s); the command was not run",
					   io->src[fd], fd, cordon_network_ids[c->network].id);
		if (!(d->cov.gaps & (1ull << GAP_STDIO)) && metadata_gap(c, fd, io->src[fd]))
			return cordon_fail(c, CORDON_EREFUSED,
					   "refusing fd %d for the command's fd %d: a file outside "
					   "the writable set, whose mode, owner and times the "
					   "command could change through it (give a pipe, or a "
					   "file inside the writable set); the command was not run",
					   io->src[fd], fd);
	}
	return 0;
}

/* The spawn's own fds put in place as 0-2: each first copied above 2 (a
 * source may be one of 0-2 that another replaces), then moved down.
 * Before the fds are closed: the copies are close-on-exec and go at
 * once; the sources are closed with the rest or at exec. 0 or errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int stdio_take(const struct spawn_io *io)
{
	int tmp[3] = { -1, -1, -1 }, e = 0;
	for (int fd = 0; fd <= 2 && e == 0; fd++)
		if ((io->own & (1u << fd)) &&
		    (tmp[fd] = fcntl(io->src[fd], F_DUPFD_CLOEXEC, 3)) < 0)
			e = errno;
	for (int fd = 0; fd <= 2 && e == 0; fd++)
		if (tmp[fd] >= 0 && dup2(tmp[fd], fd) < 0)
			e = errno;
	for (int fd = 0; fd <= 2; fd++)
		if (tmp[fd] >= 0)
			close(tmp[fd]);
	return e;
}

/* Child: async-signal-safe; 0 or errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int stdio_plan_apply(const struct stdio_plan *sp)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (sp->action[fd] != STDIO_NULL)
			continue;
		int nfd = open("/dev/null", (fd == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
		if (nfd < 0)
			return errno;
		int r = dup2(nfd, fd);
		int e = errno;
		close(nfd);
		if (r < 0)
			return e;
	}
	return 0;
}
