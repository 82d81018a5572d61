/*
 * nsfloor.h - the least the kernel takes to start a command in namespaces
 * of its own, for the benchmarks (bench/waitwrap.c --ns, bench/confwrap.c
 * --ns, bench/lib-spawn.c ns_spawn): a child cloned sharing the caller's
 * memory (as posix_spawn's is) into new PID, mount and IPC namespaces (and
 * a user namespace when not root; a network namespace when asked), which
 * makes its mounts private, mounts a /proc of its PID namespace and execs
 * the command as its process 1. Nothing reaps orphans, nothing is
 * confined: a floor for cordon's every-layer figures, not a sandbox.
 */
#ifndef CORDON_BENCH_NSFLOOR_H
#define CORDON_BENCH_NSFLOOR_H

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

/* The child's exit codes when a step fails before the command runs. */
enum { NSFLOOR_EPRIVATE = 121, NSFLOOR_EPROC = 122, NSFLOOR_EEXEC = 127 };

/* In the child: its mounts private, a /proc of its PID namespace. 0, or
 * the exit code of the step that failed. */
static inline int nsfloor_mounts(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return NSFLOOR_EPRIVATE;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return NSFLOOR_EPROC;
	return 0;
}

static inline int nsfloor_child(void *arg)
{
	char *const *argv = arg;
	int e = nsfloor_mounts();
	if (e != 0)
		_exit(e);
	execvp(argv[0], argv);
	_exit(NSFLOOR_EEXEC);
}

/* fn(arg) as process 1 of the new namespaces; its pid, or -1 (errno set). */
static inline pid_t nsfloor_clone(int (*fn)(void *), void *arg, int network)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	int flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_VM | CLONE_VFORK | SIGCHLD;
	if (geteuid() != 0)
		flags |= CLONE_NEWUSER;
	if (network)
		flags |= CLONE_NEWNET;
	return clone(fn, stack + sizeof(stack), flags, arg);
}

/* The command as process 1 of the new namespaces; the child's pid, or -1. */
static inline pid_t nsfloor_spawn(char *const argv[], int network)
{
	return nsfloor_clone(nsfloor_child, (void *)argv, network);
}

#endif
