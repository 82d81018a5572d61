/*
 * cordon_spawn_stdio's contract (the commands' own output from threads at
 * once is tests/t0210-spawn-stdio.sh's, as root and as nobody): bad
 * arguments are refused with CORDON_EINVAL and leave no fd open, the
 * caller's pipe ends come back close-on-exec, -1 when the spawn failed,
 * a borrowed fd is never closed, the first spawn refused for an fd does
 * not settle the run's decision, and NULL is cordon_spawn().
 */
#include "cordon.h"
#include "tap.h"
#include "fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static cordon *begun(enum cordon_network net)
{
	cordon *c = cordon_new();
	if (c == NULL || cordon_set_workspace(c, ws) != 0 || cordon_set_state_dir(c, state) != 0 ||
	    cordon_set_network(c, net) != 0 || cordon_begin(c) != 0)
		exit(2);
	return c;
}

static struct cordon_stdio pipes(void)
{
	struct cordon_stdio io = { { CORDON_STDIO_PIPE, CORDON_STDIO_PIPE, CORDON_STDIO_PIPE },
				   { 7, 7, 7 } };
	return io;
}

/* Reads fd to its end into buf; the number of bytes. */
static size_t slurp(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t k;
	while (n + 1 < size && (k = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	return n;
}

static void bad_arguments(void)
{
	const char *argv[] = { "true", NULL };
	cordon_proc *p = NULL;
	struct cordon_result r;
	cordon *c = begun(CORDON_NETWORK_ON);
	/* The run's first spawn makes what the run keeps (its namespaces). */
	if (cordon_spawn(c, argv, &p) != 0 || cordon_wait(p, &r) != 0)
		exit(2);
	p = NULL;
	int before = open_fds();

	struct cordon_stdio io = pipes();
	io.how[2] = 9;
	is_int(cordon_spawn_stdio(c, argv, &io, &p), CORDON_EINVAL,
	       "an unknown how: CORDON_EINVAL");
	ok(strstr(cordon_last_error(c), "unknown way 9") != NULL, "... named: %s",
	   cordon_last_error(c));
	ok(io.fd[0] == -1 && io.fd[1] == -1, "... the pipes made before it are not handed back");
	is_int(open_fds(), before, "... and none is left open");

	io = pipes();
	io.how[0] = CORDON_STDIO_STDOUT;
	is_int(cordon_spawn_stdio(c, argv, &io, &p), CORDON_EINVAL,
	       "CORDON_STDIO_STDOUT for fd 0: CORDON_EINVAL");

	io = pipes();
	io.how[1] = CORDON_STDIO_FD;
	io.fd[1] = 1000;
	is_int(cordon_spawn_stdio(c, argv, &io, &p), CORDON_EINVAL,
	       "an fd that is not open: CORDON_EINVAL");
	is_int(open_fds(), before, "... no fd left open");
	ok(p == NULL, "no process handed out by a failed spawn");

	io = pipes();
	const char *nothing[] = { "cordon-no-such-command", NULL };
	is_int(cordon_spawn_stdio(c, nothing, &io, &p), CORDON_EEXEC,
	       "a command not found: CORDON_EEXEC");
	ok(io.fd[0] == -1 && io.fd[1] == -1 && io.fd[2] == -1, "... its pipes' ends are -1");
	is_int(open_fds(), before, "... and closed");
	cordon_end(c);
	cordon_free(c);

	c = cordon_new();
	io = pipes();
	is_int(cordon_spawn_stdio(c, argv, &io, &p), CORDON_ESTATE,
	       "before cordon_begin: CORDON_ESTATE");
	is_int(cordon_spawn_stdio(NULL, argv, &io, &p), CORDON_EINVAL, "no handle: CORDON_EINVAL");
	cordon_free(c);
}

static void ends_and_borrowed(void)
{
	cordon *c = begun(CORDON_NETWORK_ON);
	int mine[2];
	if (pipe(mine) != 0)
		exit(2);
	struct cordon_stdio io = { { CORDON_STDIO_PIPE, CORDON_STDIO_FD, CORDON_STDIO_NULL },
				   { -1, mine[1], 7 } };
	const char *argv[] = { "sh", "-c", "read x; echo \"got $x\"; echo lost >&2", NULL };
	cordon_proc *p = NULL;
	is_int(cordon_spawn_stdio(c, argv, &io, &p), 0, "pipe, fd and /dev/null: spawned");
	ok(io.fd[0] >= 0 && (fcntl(io.fd[0], F_GETFD) & FD_CLOEXEC), "fd 0's end is close-on-exec");
	ok((fcntl(io.fd[0], F_GETFL) & O_ACCMODE) == O_WRONLY, "... and the write end");
	is_int(io.fd[1], mine[1], "the fd given is left as it was in io");
	is_int(io.fd[2], 7, "/dev/null: io.fd[2] not written");
	ok(fcntl(mine[1], F_GETFD) >= 0, "the borrowed fd is still open");
	close(mine[1]);
	if (write(io.fd[0], "x\n", 2) != 2)
		diag("write: %s", strerror(errno));
	close(io.fd[0]);
	char buf[64];
	slurp(mine[0], buf, sizeof(buf));
	close(mine[0]);
	is_str(buf, "got x\n", "the command read the pipe and wrote the fd given");
	struct cordon_result r;
	is_int(cordon_wait(p, &r), 0, "waited");
	is_int(r.exit_code, 0, "exit status 0");

	/* 2>&1 with the caller's own fd 1: both go where the caller's does. */
	int out[2];
	if (pipe(out) != 0)
		exit(2);
	int saved = dup(1);
	dup2(out[1], 1);
	close(out[1]);
	struct cordon_stdio both = {
		{ CORDON_STDIO_NULL, CORDON_STDIO_INHERIT, CORDON_STDIO_STDOUT }, { -1, -1, -1 }
	};
	const char *argv2[] = { "sh", "-c", "echo one; echo two >&2", NULL };
	fflush(stdout);
	int e = cordon_spawn_stdio(c, argv2, &both, &p);
	dup2(saved, 1);
	close(saved);
	is_int(e, 0, "2>&1 with the caller's own fd 1");
	is_int(cordon_wait(p, &r), 0, "waited");
	slurp(out[0], buf, sizeof(buf));
	close(out[0]);
	is_str(buf, "one\ntwo\n", "... stderr went to the caller's fd 1");
	cordon_end(c);
	cordon_free(c);
}

/* A NULL io is cordon_spawn(): the caller's own fds. */
static void null_is_spawn(void)
{
	cordon *c = begun(CORDON_NETWORK_ON);
	const char *argv[] = { "sh", "-c", "exit 7", NULL };
	cordon_proc *p = NULL;
	struct cordon_result r;
	is_int(cordon_spawn_stdio(c, argv, NULL, &p), 0, "NULL io: spawned");
	is_int(cordon_wait(p, &r), 0, "waited");
	is_int(r.exit_code, 7, "its exit status");
	cordon_end(c);
	cordon_free(c);
}

/* The first spawn refused for an fd ran no child: the next spawn is the
 * trial, and the run goes on. */
static void refused_first_spawn(void)
{
	cordon *c = begun(CORDON_NETWORK_OFF);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct cordon_stdio io = { { CORDON_STDIO_FD, CORDON_STDIO_PIPE, CORDON_STDIO_INHERIT },
				   { s, -1, -1 } };
	const char *argv[] = { "sh", "-c", "echo ran", NULL };
	cordon_proc *p = NULL;
	if (!cordon_applied(c)) {
		skip("confinement not applied here");
		cordon_free(c);
		close(s);
		return;
	}
	is_int(cordon_spawn_stdio(c, argv, &io, &p), CORDON_EREFUSED,
	       "a network socket with --network off: CORDON_EREFUSED");
	is_int(io.fd[1], -1, "... its stdout pipe not handed back");
	close(s);
	io.how[0] = CORDON_STDIO_NULL;
	is_int(cordon_spawn_stdio(c, argv, &io, &p), 0, "the next spawn runs");
	char buf[32];
	slurp(io.fd[1], buf, sizeof(buf));
	close(io.fd[1]);
	is_str(buf, "ran\n", "... its output");
	struct cordon_result r;
	cordon_wait(p, &r);
	is_int(cordon_end(c), 0, "the run ends well");
	cordon_free(c);
}

int main(void)
{
	setup("/tmp/cordon-spawnio.XXXXXX");
	bad_arguments();
	ends_and_borrowed();
	null_is_spawn();
	refused_first_spawn();
	teardown();
	return done_testing();
}
