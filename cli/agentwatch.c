#include "agentwatch.h"
#include "runcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <poll.h>
#include <sys/syscall.h>
#elif defined(__APPLE__)
#include <sys/event.h>
#include <sys/sysctl.h>
#endif

int agent_is_shell(const char *comm)
{
	/* The shells an agent, a terminal or a script starts commands
	 * through (comm is the name of the program exec'd, at most 15
	 * bytes on Linux; a login shell's starts with '-'). */
	static const char *const shells[] = { "sh",    "bash", "dash", "zsh",	  "ksh",
					      "ksh93", "mksh", "ash",  "busybox", "fish",
					      "tcsh",  "csh",  "yash", "posh" };
	if (comm[0] == '-')
		comm++;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(comm, shells[i]) == 0)
			return 1;
	return 0;
}

int agent_parse_stat(const char *buf, size_t len, pid_t *ppid, char *state, char *comm,
		     size_t commlen)
{
	/* "PID (COMM) STATE PPID ...": COMM may hold any byte but NUL, ')'
	 * and blanks included, so it ends at the last ')'. */
	const char *open = memchr(buf, '(', len), *close = NULL;
	for (size_t i = len; i > 0 && close == NULL; i--)
		if (buf[i - 1] == ')')
			close = buf + i - 1;
	if (open == NULL || close == NULL || close < open || commlen == 0)
		return -1;
	size_t n = (size_t)(close - open - 1);
	if (n >= commlen)
		n = commlen - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	/* " S PPID ": one state letter, then the parent's pid. */
	const char *p = close + 1, *end = buf + len;
	if (end - p < 5 || p[0] != ' ' || p[2] != ' ')
		return -1;
	*state = p[1];
	p += 3;
	long v = 0;
	int digits = 0;
	for (; p < end && *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
		v = v * 10 + (*p - '0');
	if (digits == 0 || p >= end || *p != ' ')
		return -1;
	*ppid = (pid_t)v;
	return 0;
}

/* The parent of pid and pid's name. 0 or -1. */
static int proc_parent(pid_t pid, pid_t *ppid, char *comm, size_t commlen)
{
#if defined(__linux__)
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	char state;
	return n > 0 ? agent_parse_stat(buf, (size_t)n, ppid, &state, comm, commlen) : -1;
#elif defined(__APPLE__)
	struct kinfo_proc kp;
	size_t size = sizeof(kp);
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid };
	memset(&kp, 0, sizeof(kp));
	if (sysctl(mib, 4, &kp, &size, NULL, 0) != 0 || size == 0)
		return -1;
	*ppid = kp.kp_eproc.e_ppid;
	snprintf(comm, commlen, "%s", kp.kp_proc.p_comm);
	return 0;
#else
	(void)pid;
	(void)ppid;
	(void)comm;
	(void)commlen;
	return -1;
#endif
}

pid_t agent_find(pid_t from, char *name, size_t namelen)
{
	pid_t pid = from, ppid;
	char comm[64];
	/* A chain longer than this is a loop read while it changed. */
	for (int depth = 0; depth < 4096; depth++) {
		if (proc_parent(pid, &ppid, comm, sizeof(comm)) != 0)
			return -1;
		if (pid != from && !agent_is_shell(comm)) {
			snprintf(name, namelen, "%s", comm);
			return pid;
		}
		if (pid <= 1 || ppid <= 0)
			return 0;
		pid = ppid;
	}
	return -1;
}

struct watch {
	pid_t pid;
	int fd; /* Linux: a pidfd, -1 when the kernel has none; macOS: a kqueue */
};

/* Returns once w->pid is gone. */
static void wait_gone(const struct watch *w)
{
#if defined(__linux__)
	if (w->fd >= 0) {
		struct pollfd pfd = { w->fd, POLLIN, 0 };
		while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			;
		return;
	}
	/* No pidfd (Linux before 5.3): look now and then. A zombie is
	 * gone too (its parent has not reaped it yet). */
	for (;;) {
		pid_t ppid;
		char comm[64], path[64], buf[512], state;
		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)w->pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0 ||
		    agent_parse_stat(buf, (size_t)n, &ppid, &state, comm, sizeof(comm)) != 0 ||
		    state == 'Z' || state == 'X')
			return;
		struct timespec ts = { 0, 200L * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
#elif defined(__APPLE__)
	struct kevent ev;
	while (kevent(w->fd, NULL, 0, &ev, 1, NULL) < 0 && errno == EINTR)
		;
#else
	(void)w;
#endif
}

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	wait_gone(w);
	cli_run_signal(SIGHUP);
	struct timespec ts = { AGENT_GRACE_MS / 1000, (AGENT_GRACE_MS % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	cli_run_signal(SIGKILL);
	return NULL;
}

/* The watch's fd for pid (see struct watch). 0, or -1 with errno. */
static int watch_open(struct watch *w)
{
#if defined(__linux__)
#ifdef SYS_pidfd_open
	w->fd = (int)syscall(SYS_pidfd_open, w->pid, 0);
#else
	errno = ENOSYS;
	w->fd = -1;
#endif
	if (w->fd < 0 && errno != ENOSYS)
		return -1;
	if (w->fd < 0 && kill(w->pid, 0) != 0 && errno == ESRCH)
		return -1;
	return 0;
#elif defined(__APPLE__)
	struct kevent ev;
	w->fd = kqueue();
	if (w->fd < 0)
		return -1;
	EV_SET(&ev, w->pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
	if (kevent(w->fd, &ev, 1, NULL, 0, NULL) != 0) {
		int e = errno;
		close(w->fd);
		errno = e;
		return -1;
	}
	return 0;
#else
	errno = ENOSYS;
	return -1;
#endif
}

int agent_watch(pid_t pid)
{
	static struct watch w; /* the thread's until the process ends */
	pthread_t t;
	sigset_t all, old;
	w.pid = pid;
	if (watch_open(&w) != 0)
		return -1;
	/* The thread takes no signal: those sent to cordon-sh stay with the
	 * thread that forwards them (cli_run's). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&t, NULL, watch_main, &w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		if (w.fd >= 0)
			close(w.fd);
		errno = r;
		return -1;
	}
	pthread_detach(t);
	return 0;
}
