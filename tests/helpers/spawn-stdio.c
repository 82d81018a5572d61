/*
 * tests/helpers/spawn-stdio: one library run whose spawns get fds 0-2 of
 * their own (cordon_spawn_stdio), for tests/t0210-spawn-stdio.sh.
 *
 *   spawn-stdio [OPTIONS] threads N ROUNDS
 *       N threads, started together, each spawning ROUNDS commands one
 *       after the other, each with its own stdin, stdout and stderr (pipes
 *       of cordon's, a pipe of the thread's own given as an fd, 2>&1,
 *       /dev/null), writing its stdin and reading its output while it
 *       runs. Prints "ok T.R" or "not ok T.R: why" for each command, then
 *       "stdio kept" when this process's own fds 0-2 are still what they
 *       were, "end R" with cordon_end's return code.
 *   spawn-stdio [OPTIONS] fd SLOT KIND PATH -- CMD...
 *       One spawn whose fd SLOT is PATH opened as KIND (r: read-only,
 *       a: append, dir: a directory, tcp: a TCP socket, PATH ignored);
 *       fds 1 and 2 otherwise go to this process's. Prints "exit N" or
 *       "spawn error R: message".
 * OPTIONS: --mode auto|required|off, --network on|off, --state DIR,
 * -w DIR (the workspace), --status-fd N. Test helper only.
 */
#include "cordon.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static cordon *c;
static pthread_barrier_t start_line;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int rounds;

/* "ok T.R", or "not ok T.R: what why" */
static void say(int t, int r, const char *what, const char *why)
{
	pthread_mutex_lock(&out_lock);
	if (what == NULL)
		printf("ok %d.%d\n", t, r);
	else
		printf("not ok %d.%d: %s%s\n", t, r, what, why);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

/* Everything of fd until its end, appended to buf (NUL-terminated). */
struct sink {
	int fd;
	char buf[256];
	size_t n;
};

/* Reads every sink until each ends (poll: the command may fill either
 * pipe first). 0, or -1 on an error or after 20 s. */
static int drain(struct sink *s, int ns)
{
	for (int open_ = ns; open_ > 0;) {
		struct pollfd p[2];
		for (int i = 0; i < ns; i++)
			p[i] = (struct pollfd){ s[i].fd, POLLIN, 0 };
		int r = poll(p, (nfds_t)ns, 20000);
		if (r <= 0)
			return -1;
		for (int i = 0; i < ns; i++) {
			if (s[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t k = read(s[i].fd, s[i].buf + s[i].n, sizeof(s[i].buf) - 1 - s[i].n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				close(s[i].fd);
				s[i].fd = -1;
				open_--;
				continue;
			}
			s[i].n += (size_t)k;
			s[i].buf[s[i].n] = '\0';
		}
	}
	return 0;
}

/* One command of thread t, round r; its variant by t: 0 pipes of
 * cordon's for all three, 1 stdout a pipe of the thread's own given as
 * an fd, 2 stderr with stdout (2>&1), 3 stdin /dev/null. */
static void one(int t, int r)
{
	char arg[32], want_out[160], want_err[64], line[64];
	int variant = t % 4, own[2] = { -1, -1 };
	struct cordon_stdio io = { { CORDON_STDIO_PIPE, CORDON_STDIO_PIPE, CORDON_STDIO_PIPE },
				   { -1, -1, -1 } };
	snprintf(arg, sizeof(arg), "%d.%d", t, r);
	if (variant == 1) {
		if (pipe2(own, O_CLOEXEC) != 0) {
			say(t, r, "pipe", "");
			return;
		}
		io.how[1] = CORDON_STDIO_FD;
		io.fd[1] = own[1];
	} else if (variant == 2) {
		io.how[2] = CORDON_STDIO_STDOUT;
	} else if (variant == 3) {
		io.how[0] = CORDON_STDIO_NULL;
	}
	const char *argv[] = {
		"sh",
		"-c",
		"read x; echo \"out-$1-$x\"; echo \"err-$1\" >&2; exit $(( ${1%.*} + 1 ))",
		"sh",
		arg,
		NULL
	};
	cordon_proc *p = NULL;
	if (cordon_spawn_stdio(c, argv, &io, &p) != 0) {
		say(t, r, "spawn: ", cordon_last_error(c));
		return;
	}
	if (own[1] >= 0)
		close(own[1]); /* the caller may close what it gave */
	if (io.how[0] == CORDON_STDIO_PIPE) {
		snprintf(line, sizeof(line), "in-%s\n", arg);
		if (write(io.fd[0], line, strlen(line)) < 0)
			say(t, r, "write stdin", "");
		close(io.fd[0]);
	}
	struct sink s[2] = { { variant == 1 ? own[0] : io.fd[1], "", 0 },
			     { variant == 2 ? -1 : io.fd[2], "", 0 } };
	int bad = drain(s, variant == 2 ? 1 : 2);
	struct cordon_result res;
	if (cordon_wait(p, &res) != 0) {
		say(t, r, "wait: ", cordon_last_error(c));
		return;
	}
	if (variant == 3) /* stdin at its end at once */
		snprintf(want_out, sizeof(want_out), "out-%s-\n", arg);
	else
		snprintf(want_out, sizeof(want_out), "out-%s-in-%s\n", arg, arg);
	snprintf(want_err, sizeof(want_err), "err-%s\n", arg);
	if (variant == 2) /* both, in the order written */
		memcpy(want_out + strlen(want_out), want_err, strlen(want_err) + 1);
	if (bad)
		say(t, r, "reading its output (no end within 20 s)", "");
	else if (strcmp(s[0].buf, want_out) != 0)
		say(t, r, "stdout ", s[0].buf);
	else if (variant != 2 && strcmp(s[1].buf, want_err) != 0)
		say(t, r, "stderr ", s[1].buf);
	else if (res.exit_code != t + 1)
		say(t, r, "exit status ", res.exit_code == 0 ? "0" : "wrong");
	else
		say(t, r, NULL, NULL);
}

static void *thread_main(void *v)
{
	int t = (int)(long)v;
	pthread_barrier_wait(&start_line);
	for (int r = 0; r < rounds; r++)
		one(t, r);
	return NULL;
}

static int same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int threads(int n)
{
	pthread_t th[64];
	struct stat before[3], after[3];
	if (n < 1 || n > 64)
		return 2;
	for (int fd = 0; fd <= 2; fd++)
		if (fstat(fd, &before[fd]) != 0)
			memset(&before[fd], 0, sizeof(before[fd]));
	pthread_barrier_init(&start_line, NULL, (unsigned)n);
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)i) != 0)
			return 2;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	int kept = 1;
	for (int fd = 0; fd <= 2; fd++)
		kept &= fstat(fd, &after[fd]) == 0 && same(&before[fd], &after[fd]);
	printf("stdio %s\n", kept ? "kept" : "CHANGED");
	return 0;
}

static int open_kind(const char *kind, const char *path)
{
	if (strcmp(kind, "r") == 0)
		return open(path, O_RDONLY | O_CLOEXEC);
	if (strcmp(kind, "a") == 0)
		return open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (strcmp(kind, "dir") == 0)
		return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (strcmp(kind, "tcp") == 0)
		return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return -1;
}

static int one_fd(int slot, const char *kind, const char *path, const char *const *argv)
{
	struct cordon_stdio io = { { 0, 0, 0 }, { -1, -1, -1 } };
	int fd = open_kind(kind, path);
	if (fd < 0 || slot < 0 || slot > 2) {
		perror(path);
		return 2;
	}
	io.how[slot] = CORDON_STDIO_FD;
	io.fd[slot] = fd;
	cordon_proc *p = NULL;
	int r = cordon_spawn_stdio(c, argv, &io, &p);
	close(fd);
	if (r != 0) {
		printf("spawn error %d: %s\n", r, cordon_last_error(c));
		return 0;
	}
	struct cordon_result res;
	if (cordon_wait(p, &res) != 0)
		return 2;
	printf("exit %d\n", res.exit_code);
	return 0;
}

static int setup(int argc, char **argv, int *i)
{
	enum cordon_mode mode = CORDON_MODE_REQUIRED;
	enum cordon_network net = CORDON_NETWORK_ON;
	for (*i = 1; *i + 1 < argc && argv[*i][0] == '-'; *i += 2) {
		const char *o = argv[*i], *v = argv[*i + 1];
		int r = 0;
		if (strcmp(o, "--mode") == 0)
			r = cordon_parse_mode(v, &mode);
		else if (strcmp(o, "--network") == 0)
			r = cordon_parse_network(v, &net);
		else if (strcmp(o, "--state") == 0)
			r = cordon_set_state_dir(c, v);
		else if (strcmp(o, "-w") == 0)
			r = cordon_set_workspace(c, v);
		else if (strcmp(o, "--status-fd") == 0)
			r = cordon_set_status_fd(c, atoi(v));
		else
			r = -1;
		if (r != 0) {
			fprintf(stderr, "spawn-stdio: %s %s: %s\n", o, v, cordon_last_error(c));
			return 2;
		}
	}
	if (cordon_set_mode(c, mode) != 0 || cordon_set_network(c, net) != 0 ||
	    cordon_begin(c) != 0) {
		fprintf(stderr, "spawn-stdio: %s\n", cordon_last_error(c));
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc;
	if ((c = cordon_new()) == NULL || (rc = setup(argc, argv, &i)) != 0)
		return 2;
	if (i + 2 < argc && strcmp(argv[i], "threads") == 0) {
		rounds = atoi(argv[i + 2]);
		rc = threads(atoi(argv[i + 1]));
	} else if (i + 5 < argc && strcmp(argv[i], "fd") == 0 && strcmp(argv[i + 4], "--") == 0) {
		rc = one_fd(atoi(argv[i + 1]), argv[i + 2], argv[i + 3],
			    (const char *const *)argv + i + 5);
	} else {
		fprintf(stderr, "spawn-stdio: bad usage\n");
		rc = 2;
	}
	int e = cordon_end(c);
	printf("end %d\n", e);
	cordon_free(c);
	return rc;
}
