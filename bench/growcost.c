/*
 * growcost - the floors of the growth rows of bench/run: what a cost
 * that grows with the user's world is made of on this machine, each part
 * measured alone.
 *
 *   growcost lstat [-r R] LIST   lstat of each path of LIST (one a line,
 *                                relative to the current dir): the git
 *                                guard's end check looks at each tracked
 *                                directory once where fanotify cannot tell
 *                                it what the run touched
 *   growcost rules [-r R] DIR    for each entry of DIR, openat(O_PATH) and
 *                                landlock_add_rule into one ruleset that
 *                                handles reads (the Landlock read layer's
 *                                rule per entry beside the way to a
 *                                secret), then landlock_restrict_self with
 *                                that ruleset in a child (the kernel copies
 *                                the rules into each child's domain)
 *   growcost notif [-r R] N      N sendmsg() calls on a datagram socketpair,
 *                                plainly, then under a seccomp filter that
 *                                hands each sendmsg to another thread of
 *                                this process (a user notification), which
 *                                lets it go on (SECCOMP_USER_NOTIF_FLAG_
 *                                CONTINUE): the least any supervisor of a
 *                                call costs, a notification and its answer.
 *                                cordon's supervisor does more (it makes the
 *                                call itself on what it checked), never less
 *   growcost rss COMMAND [ARG...]
 *                                run COMMAND (its output to /dev/null) and
 *                                report the peak resident size wait4 gives
 *                                for it: the largest of its own and those of
 *                                the descendants it waited for. Started
 *                                with posix_spawn from this small process,
 *                                so the figure is not a large caller's:
 *                                exec keeps the caller's peak for the
 *                                process that execs
 *
 * Prints one JSON object; times are the median of R repetitions (9 by
 * default) in microseconds, for all of LIST or DIR.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define REPS_MAX 1000
#define BATCH 256

extern char **environ;

/* Struct layouts of the Landlock ABI (linux/landlock.h, packed). */
struct ruleset_attr {
	uint64_t handled_access_fs;
};
struct path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct strs {
	char **v;
	unsigned char *dir; /* rules: the entry is a directory */
	size_t n, cap;
};

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "growcost: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void strs_free(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->dir);
}

static void push(struct strs *s, const char *str, size_t len, int is_dir)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		s->dir = realloc(s->dir, s->cap);
		if (s->v == NULL || s->dir == NULL)
			die("realloc");
	}
	s->v[s->n] = strndup(str, len);
	if (s->v[s->n] == NULL)
		die("strndup");
	s->dir[s->n++] = (unsigned char)is_dir;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int lstat_mode(const char *list, int reps)
{
	FILE *f = fopen(list, "r");
	if (f == NULL)
		die(list);
	struct strs s = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		if (len > 0)
			push(&s, line, (size_t)len, 0);
	}
	free(line);
	fclose(f);
	double t[REPS_MAX] = { 0 };
	size_t missing = 0;
	for (int r = 0; r < reps; r++) {
		struct stat st;
		double t0 = now_us();
		for (size_t i = 0; i < s.n; i++)
			if (lstat(s.v[i], &st) != 0)
				missing++;
		t[r] = now_us() - t0;
	}
	double m = median(t, reps);
	printf("{\"n\": %zu, \"reps\": %d, \"median_us\": %.1f, \"per_call_us\": %.3f, "
	       "\"missing\": %zu}\n",
	       s.n, reps, m, s.n ? m / (double)s.n : 0.0, missing / (size_t)reps);
	strs_free(&s);
	return 0;
}

/* landlock_restrict_self with ruleset rs in a child; the microseconds the
 * call took there, or -1. */
static double restrict_in_child(int rs)
{
	int p[2];
	if (pipe(p) != 0)
		die("pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		double d = -1;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
			double t0 = now_us();
			if (syscall(SYS_landlock_restrict_self, rs, 0U) == 0)
				d = now_us() - t0;
		}
		ssize_t w = write(p[1], &d, sizeof(d));
		_exit(w == (ssize_t)sizeof(d) ? 0 : 1);
	}
	close(p[1]);
	double d = -1;
	if (read(p[0], &d, sizeof(d)) != (ssize_t)sizeof(d))
		d = -1;
	close(p[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return d;
}

static int rules_mode(const char *dir, int reps)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (d == NULL)
		die(dir);
	struct strs s = { 0 };
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			push(&s, e->d_name, strlen(e->d_name), e->d_type == DT_DIR);
	/* The fds are closed in batches, off the clock (cordon closes its
	 * own with close_range): open and add_rule are the floor. */
	int fds[BATCH];
	double add[REPS_MAX] = { 0 }, restr[REPS_MAX] = { 0 };
	for (int r = 0; r < reps; r++) {
		struct ruleset_attr attr = { LL_READ_FILE | LL_READ_DIR };
		long rs = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0U);
		if (rs < 0)
			die("landlock_create_ruleset");
		size_t open_n = 0;
		double paused = 0, t0 = now_us();
		for (size_t i = 0; i < s.n; i++) {
			if (open_n == BATCH) {
				double tc = now_us();
				while (open_n > 0)
					close(fds[--open_n]);
				paused += now_us() - tc;
			}
			int fd = openat(dfd, s.v[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				die(s.v[i]);
			fds[open_n++] = fd;
			struct path_beneath pb = { s.dir[i] ? LL_READ_FILE | LL_READ_DIR
							    : LL_READ_FILE,
						   fd };
			if (syscall(SYS_landlock_add_rule, (int)rs, 1, &pb, 0U) != 0)
				die("landlock_add_rule");
		}
		add[r] = now_us() - t0 - paused;
		while (open_n > 0)
			close(fds[--open_n]);
		restr[r] = restrict_in_child((int)rs);
		if (restr[r] < 0) {
			errno = EPERM;
			die("landlock_restrict_self");
		}
		close((int)rs);
	}
	closedir(d);
	double a = median(add, reps), rr = median(restr, reps);
	printf("{\"n\": %zu, \"reps\": %d, \"add_median_us\": %.1f, \"restrict_median_us\": %.1f, "
	       "\"per_entry_add_us\": %.3f}\n",
	       s.n, reps, a, rr, s.n ? a / (double)s.n : 0.0);
	strs_free(&s);
	return 0;
}

static int rss_mode(char **argv)
{
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) != 0)
		die("posix_spawn_file_actions");
	pid_t pid;
	int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	if (err != 0) {
		errno = err;
		die(argv[0]);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("{\"exit\": %d, \"maxrss_kb\": %ld, \"user_s\": %.6f, \"sys_s\": %.6f}\n", code,
	       ru.ru_maxrss, (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
	return code == 0 ? 0 : 1;
}

/* notif: the calls' thread, and the thread that answers them. */
struct notif {
	int n, reps;
	int listener; /* set by the calls' thread once filtered, else -1 */
	int failed;
	double plain[REPS_MAX], notified[REPS_MAX];
};

static void send_loop(int fd, int n)
{
	char b = 0;
	struct iovec iov = { &b, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	for (int i = 0; i < n; i++)
		(void)sendmsg(fd, &mh, MSG_DONTWAIT);
}

static void *notif_calls(void *arg)
{
	struct notif *nt = arg;
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp) != 0) {
		nt->failed = 1;
		__atomic_store_n(&nt->listener, -2, __ATOMIC_RELEASE);
		return NULL;
	}
	/* A full queue makes sendmsg fail with EAGAIN: the call is made
	 * all the same, plainly and notified alike. */
	for (int r = 0; r < nt->reps; r++) {
		double t0 = now_us();
		send_loop(sp[0], nt->n);
		nt->plain[r] = now_us() - t0;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendmsg, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
	int lfd = -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0) {
		nt->failed = 1;
		__atomic_store_n(&nt->listener, -2, __ATOMIC_RELEASE);
		return NULL;
	}
	__atomic_store_n(&nt->listener, lfd, __ATOMIC_RELEASE);
	for (int r = 0; r < nt->reps; r++) {
		double t0 = now_us();
		send_loop(sp[0], nt->n);
		nt->notified[r] = now_us() - t0;
	}
	close(sp[0]);
	close(sp[1]);
	return NULL;
}

static int notif_mode(const char *count, int reps)
{
	char *end;
	long n = strtol(count, &end, 10);
	if (*end != '\0' || n < 1 || n > 10000000)
		die("notif: N");
	static struct notif nt;
	nt.n = (int)n;
	nt.reps = reps;
	nt.listener = -1;
	pthread_t th;
	if (pthread_create(&th, NULL, notif_calls, &nt) != 0)
		die("pthread_create");
	int lfd;
	while ((lfd = __atomic_load_n(&nt.listener, __ATOMIC_ACQUIRE)) == -1)
		usleep(100);
	long answered = 0;
	while (lfd >= 0) {
		struct pollfd pf = { lfd, POLLIN, 0 };
		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			break;
		if (pf.revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
			continue;
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
			answered++;
	}
	pthread_join(th, NULL);
	if (nt.failed)
		die("notif: the filter");
	double p = median(nt.plain, reps), q = median(nt.notified, reps);
	printf("{\"n\": %ld, \"reps\": %d, \"answered\": %ld, \"plain_per_call_us\": %.3f, "
	       "\"notified_per_call_us\": %.3f, \"extra_per_call_us\": %.3f}\n",
	       n, reps, answered, p / (double)n, q / (double)n, (q - p) / (double)n);
	return answered == n * reps ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: growcost lstat [-r R] LIST | rules [-r R] DIR | notif [-r R] N | "
			"rss COMMAND...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	if (strcmp(argv[1], "rss") == 0)
		return rss_mode(argv + 2);
	int reps = 9, i = 2;
	if (strcmp(argv[i], "-r") == 0 && i + 2 < argc) {
		char *end;
		long v = strtol(argv[i + 1], &end, 10);
		reps = *end == '\0' && v > 0 && v <= REPS_MAX ? (int)v : 0;
		i += 2;
	}
	if (reps < 1 || reps > REPS_MAX || i + 1 != argc)
		usage();
	if (strcmp(argv[1], "lstat") == 0)
		return lstat_mode(argv[i], reps);
	if (strcmp(argv[1], "rules") == 0)
		return rules_mode(argv[i], reps);
	if (strcmp(argv[1], "notif") == 0)
		return notif_mode(argv[i], reps);
	usage();
	return 2;
}
