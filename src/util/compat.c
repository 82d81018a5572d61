/*
 * Portability and process helpers: calls Linux has and macOS lacks (each
 * keeps the Linux behaviour and gives other systems the closest
 * fallback), starting a child cheaply, and waiting for one with a
 * deadline.
 */
#include "compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#endif

int random_bytes(void *buf, size_t n)
{
#if defined(__linux__)
	char *p = buf;
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
#else
	arc4random_buf(buf, n);
	return 0;
#endif
}

int pipe_cloexec(int fds[2])
{
#if defined(__linux__)
	return pipe2(fds, O_CLOEXEC);
#else
	/* No pipe2 (macOS): between pipe() and fcntl() a fork in another
	 * thread could inherit the ends; that child's exec closes nothing
	 * of ours, it only holds a copy until it execs or exits. */
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
			int e = errno;
			close(fds[0]);
			close(fds[1]);
			errno = e;
			return -1;
		}
	}
	return 0;
#endif
}

/*
 * Start fn(arg) in a child process that shares the caller's memory
 * (clone with CLONE_VM) and runs on the given stack, instead of fork():
 * fork copies the caller's page tables, which costs ~1.7 ms for a small
 * process on some virtual machines and grows with the caller's size (an
 * agent embedding the library may be large). With wait_exec, the caller
 * sleeps until the child has exec'd or exited (CLONE_VFORK); otherwise
 * both run at once, and the caller keeps the stack until it reaps the
 * child.
 *
 * The child must only make system calls, and write only to memory the
 * caller set aside for it: its stack and what the caller passes in arg
 * for it alone (and does not read until the child has exec'd or exited).
 * Everything it needs is built by the caller beforehand: it shares the
 * caller's heap and globals (an allocation or a formatted string in the
 * child could meet the caller's malloc or locale state mid-change) and,
 * since it runs with the caller's thread pointer, the calling thread's
 * errno: without wait_exec,
 * start it from a thread whose errno nothing else reads while the child
 * runs (the probe's helper thread does). It ends with exec or _exit
 * (clone turns a return from fn into _exit). Elsewhere than
 * Linux this is fork(), which keeps the contract but not the sharing:
 * results the child must hand back go through a MAP_SHARED mapping.
 * Every function fn may reach is marked CHILD, and make lint checks that
 * each calls only marked functions and allowed system calls
 * (tests/lint/child-contract).
 *
 * AddressSanitizer builds use fork() too: ASan does not know a stack
 * that clone() switches to, warns on the child's _exit or exec that it
 * cannot clean up after it, and may then report false errors.
 */
#if defined(__linux__) && !defined(CORDON_ASAN)
#include <sched.h>
#include <signal.h>

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
pid_t child_start(int (*fn)(void *), void *arg, void *stack, size_t size, int wait_exec)
{
	/* Stacks grow down on every architecture Linux runs cordon on. */
	char *top = (char *)stack + (size & ~(size_t)15);
	return clone(fn, top, CLONE_VM | SIGCHLD | (wait_exec ? CLONE_VFORK : 0), arg);
}
#else
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
pid_t child_start(int (*fn)(void *), void *arg, void *stack, size_t size, int wait_exec)
{
	(void)stack;
	(void)size;
	(void)wait_exec;
#if defined(__linux__)
	/* A raw clone, not fork(): started from a process that a raw clone
	 * made (the PID namespace's process 1 in sanitizer builds), fork()
	 * could wait forever on a libc lock another thread held. */
	long pid = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, 0L);
	if (pid == 0)
		_exit(fn(arg));
	return (pid_t)pid;
#else
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return pid;
#endif
}
#endif

/* ---- closing fds ---- */

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int close_fd_range(unsigned first, unsigned last)
{
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, first, last, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
#endif
	struct rlimit rl;
	unsigned max = 65536;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < max)
		max = (unsigned)rl.rlim_cur;
	for (unsigned fd = first; fd <= last && fd < max; fd++)
		(void)close((int)fd);
	return 0;
}

/* Close every fd above 2 that is not in the sorted keep list. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int close_fds_except(const int *keep, size_t nkeep)
{
	unsigned next = 3;
	for (size_t i = 0; i < nkeep; i++) {
		unsigned k = (unsigned)keep[i];
		if (k < next)
			continue;
		if (k > next && close_fd_range(next, k - 1) != 0)
			return -1;
		next = k + 1;
	}
	return close_fd_range(next, ~0U);
}

/* ---- /proc ---- */

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
const char *proc_field(const char *path, const char *key, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	const char *p = strstr(buf, key);
	return p != NULL ? p + strlen(key) : NULL;
}

/* ---- waiting for a child with a deadline ---- */

int become_subreaper(void)
{
#if defined(__linux__)
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1;
#else
	return -1;
#endif
}

long children_of_self(pid_t *pids, size_t max)
{
#if defined(__linux__)
	/* Each thread's own children (a reparented orphan may be any
	 * thread's), from /proc/self/task/TID/children. */
	DIR *d = opendir("/proc/self/task");
	if (d == NULL)
		return -1;
	long n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && (size_t)n < max) {
		char path[64], buf[4096];
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || strlen(e->d_name) > 20)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			n = errno == ENOENT ? n : -1; /* a thread gone meanwhile */
			if (n < 0)
				break;
			continue;
		}
		ssize_t k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[k > 0 ? k : 0] = '\0';
		for (char *p = buf; *p != '\0' && (size_t)n < max;) {
			char *end;
			long v = strtol(p, &end, 10);
			if (end == p)
				break;
			if (v > 0)
				pids[n++] = (pid_t)v;
			p = end;
		}
	}
	closedir(d);
	return n;
#else
	(void)pids;
	(void)max;
	return -1;
#endif
}

int pidfd_of(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
	return (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec */
#else
	(void)pid;
	return -1;
#endif
}

long long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void child_nap(int pidfd, long long ms)
{
	if (ms <= 0)
		return;
	if (ms > INT_MAX)
		ms = INT_MAX;
	if (pidfd >= 0) {
		struct pollfd pfd = { pidfd, POLLIN, 0 };
		(void)poll(&pfd, 1, (int)ms);
		return;
	}
	if (ms > 10)
		ms = 10;
	struct timespec ts = { 0, (long)ms * 1000000L };
	(void)nanosleep(&ts, NULL);
}

int reap_with_timeout(pid_t pid, int *status, int timeout_ms)
{
	int pidfd = pidfd_of(pid);
	long long deadline = monotonic_ms() + timeout_ms;
	int r = -1;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid) {
			r = 0;
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		long long left = deadline - monotonic_ms();
		if (left <= 0) {
			(void)kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		child_nap(pidfd, left);
	}
	if (pidfd >= 0)
		close(pidfd);
	return r;
}
