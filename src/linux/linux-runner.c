/*
 * The run's thread, and the namespaces a run keeps (Linux).
 *
 * With a PID namespace, every command of the run is started by one
 * thread that lives exactly as long as the run: the run's process 1
 * holds a parent death signal, which the kernel sends when the thread
 * that started it ends, not the process. Started from the caller's
 * thread, a command would die with that thread (a worker thread of the
 * caller that spawns and exits). The run's thread only clones; its
 * children share memory with it (CLONE_VM|CLONE_VFORK), so it is
 * suspended until each has exec'd.
 *
 * One set of namespaces per run. The run's first spawn makes them: the
 * user namespace (when not root), the mount namespace with its view (the
 * read-only mounts, the binds, the covers, /dev/shm, the devpts), the IPC
 * namespace and, with --network off, the network namespace. The run's
 * thread opens them through /proc/PID/ns of its process 1 as soon as
 * that has exec'd the init program (its own child, not yet reaped: the
 * pid cannot have been reused), while the command's process waits at a
 * gate (runner_gate_wait): process 1 ends with the command, and a quick
 * command ended before the spawn had returned would leave nothing to
 * open, the next spawn then making namespaces of its own, with an empty
 * --max-tmp tmpfs. The spawn keeps them once its command has exec'd (a
 * spawn that fails drops them; a process 1 gone for another reason
 * leaves nothing, and the next spawn makes its own and tries again), and
 * the run holds them until it ends. The gate is a word of a shared
 * mapping, so sanitizer builds, whose children are copies that share no
 * other memory with the thread (linux_clone_child), wait on it too.
 *
 * Each later spawn joins them instead of making them again: a first
 * child (join_main) enters them with setns(2) and starts the command's
 * process 1 as a sibling (CLONE_PARENT, so the parent waits for it as
 * for any other), in a PID namespace of its own, then exits. The PID
 * namespace stays per spawn: its process 1 ends with its command, and each
 * command's /proc shows its own processes only, so process 1 also takes
 * a copy of the run's mount namespace to hold that /proc (mountns_join)
 * and a devpts instance of its own (its ptys are its own, as before).
 *
 * A spawn whose stdio is a terminal gets namespaces of its own as
 * before: the run's view holds a devpts of its own, where the caller's
 * terminal cannot be reopened read-only. Joining that fails (the held
 * namespaces refused) falls back the same way.
 */
#include "linux-layers.h"
#include "testhooks.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The namespaces a run holds, in the order a joining child enters them
 * (the user namespace first: it gives the capabilities for the rest). */
enum { NS_USER, NS_MNT, NS_IPC, NS_NET, NS_COUNT };
static const int ns_type[NS_COUNT] = { CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET };
static const char *const ns_name[NS_COUNT] = { "user", "mnt", "ipc", "net" };

#define JOIN_STACK_SIZE ((size_t)64 * 1024)

struct linux_runner {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct linux_plan *plan; /* set by runner_adopt; the thread never reads it */
	/* What the thread sets up first: the supervisor's threads (or NULL),
	 * then the run's filter of these groups (0: none). */
	struct supervisor *sup;
	unsigned groups;
	int ready, init_err; /* its own setup done */
	int stop;
	/* A child it started may still run before its exec on this thread's
	 * memory and thread pointer (the PID namespace's command waits for
	 * the init program): no other child until the spawn says it is done. */
	int busy;
	/* one request at a time */
	int pending, done;
	int (*fn)(void *);
	void *arg, *stack;
	size_t size;
	unsigned long flags;
	pid_t pid;
	int err;
	/* The run's namespaces: fds (-1: not held), and what the current
	 * spawn does (read by its child: set before it starts, fixed until
	 * after_exec). */
	int held[NS_COUNT], nheld;
	int joining, want_ns;
	unsigned made; /* the namespaces the current spawn makes (ns_made) */
	/* Non-zero while the command of the spawn that makes the namespaces
	 * must wait (runner_gate_wait): until the thread has opened them. A
	 * word of a shared mapping, so that children that are copies
	 * (sanitizer builds) wait on it too; NULL: no gate could be had. */
	int *gate;
	int res[2]; /* the joining child's report: the pid it started, errno */
	void *join_stack;
};

/* The namespaces this plan makes, as a mask of 1 << NS_*. */
static unsigned ns_made(const struct linux_plan *plan)
{
	unsigned m = 0;
	if (plan->mount == NULL || !plan->pid_namespace)
		return 0;
	if (plan->mount->userns)
		m |= 1u << NS_USER;
	m |= 1u << NS_MNT;
	if (plan->prepared & (1u << LAYER_IPCNS))
		m |= 1u << NS_IPC;
	if ((plan->prepared & (1u << LAYER_NETNS)) && plan->net_namespace)
		m |= 1u << NS_NET;
	return m;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
pid_t linux_clone_child(int (*fn)(void *), void *arg, void *stack, size_t size, unsigned long flags)
{
#if defined(CORDON_ASAN)
	/* Sanitizer builds start children by copying (see compat.c). */
	(void)stack;
	(void)size;
	long pid = syscall(SYS_clone, (unsigned long)(flags | SIGCHLD), NULL, NULL, NULL, 0L);
	if (pid == 0)
		_exit(fn(arg));
	return (pid_t)pid;
#else
	char *top = (char *)stack + (size & ~(size_t)15);
	return clone(fn, top, (int)(flags | CLONE_VM | CLONE_VFORK | SIGCHLD), arg);
#endif
}

/* ---- joining the run's namespaces ---- */

/* The joining child: enters the run's namespaces, starts the command's
 * process 1 (a sibling, in a PID namespace of its own), reports its pid
 * and ends. Async-signal-safe: it shares the run's thread's memory. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int join_main(void *v)
{
	const struct linux_runner *r = v;
	int msg[2] = { -1, 0 };
	for (int i = 0; i < NS_COUNT && msg[1] == 0; i++)
		if (r->held[i] >= 0 && setns(r->held[i], ns_type[i]) != 0)
			msg[1] = errno;
	if (msg[1] == 0) {
		pid_t pid = linux_clone_child(r->fn, r->arg, r->stack, r->size,
					      CLONE_NEWPID | CLONE_PARENT);
		msg[0] = (int)pid;
		msg[1] = pid < 0 ? errno : 0;
	}
	ssize_t w = write(r->res[1], msg, sizeof(msg));
	_exit(w == (ssize_t)sizeof(msg) ? 0 : 1);
}

/* On the run's thread: the joining child, then its report. */
static pid_t join_start(struct linux_runner *r)
{
	pid_t a = linux_clone_child(join_main, r, r->join_stack, JOIN_STACK_SIZE, 0);
	if (a < 0)
		return -1;
	int msg[2];
	ssize_t n;
	do
		n = read(r->res[0], msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	while (waitpid(a, NULL, __WALL) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(msg)) {
		errno = EIO;
		return -1;
	}
	if (msg[0] < 0) {
		errno = msg[1] != 0 ? msg[1] : EIO;
		return -1;
	}
	return (pid_t)msg[0];
}

static void drop_held(struct linux_runner *r)
{
	for (int i = 0; i < NS_COUNT; i++) {
		if (r->held[i] >= 0)
			close(r->held[i]);
		r->held[i] = -1;
	}
	r->nheld = 0;
}

/* The run's thread, once the process 1 of a spawn that made the
 * namespaces has exec'd (sanitizer builds: the parent, after the
 * command's exec): its namespaces, through /proc. All of them or none. */
static void collect(struct linux_runner *r, pid_t pid, int reached)
{
	unsigned m = r->made;
	int fds[NS_COUNT] = { -1, -1, -1, -1 }, ok = reached && pid > 0;
	for (int i = 0; ok && i < NS_COUNT; i++) {
		char path[64];
		if (!(m & (1u << i)))
			continue;
		(void)snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, ns_name[i]);
		ok = (fds[i] = open(path, O_RDONLY | O_CLOEXEC)) >= 0;
	}
	for (int i = 0; i < NS_COUNT; i++) {
		if (!ok && fds[i] >= 0)
			close(fds[i]);
		r->held[i] = ok ? fds[i] : -1;
		r->nheld += ok && fds[i] >= 0;
	}
}

/* Whether the child of this spawn may join: namespaces held, and no
 * terminal among the fds the command gets as 0-2 (tty; the run's view
 * cannot reach it again). */
static int may_join(const struct linux_runner *r, const struct linux_plan *plan, int tty,
		    int stdin_fd)
{
	/* A file on fd 0 that the run's view hides: reopened read-only by
	 * the mount layer before its private mounts, which a joiner finds
	 * made already. */
	if (plan->mount != NULL && mountns_hides_stdin(plan->mount, stdin_fd))
		return 0;
	return r->nheld > 0 && !tty;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int runner_joining(const struct linux_plan *plan)
{
	return plan->runner != NULL && plan->runner->joining;
}

/* The command's process of the spawn that makes the namespaces, before
 * anything of the command: waits until the run's thread has opened them
 * (its process 1 lives as long as this process). A futex on the thread's
 * memory, which this process shares; errno is left to the thread until
 * it has opened the gate (this reads none). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
void runner_gate_wait(const struct linux_plan *plan)
{
	struct linux_runner *r = plan->runner;
	if (r == NULL || r->gate == NULL)
		return;
	while (*(volatile int *)r->gate != 0)
		(void)syscall(SYS_futex, r->gate, FUTEX_WAIT, 1, NULL, NULL, 0);
}

#if defined(CORDON_ASAN)
/* Sanitizer builds start process 1 without waiting for its exec
 * (linux_clone_child): wait until it has made each namespace of the
 * spawn (its own differs from this thread's), or has ended, at most
 * about 10 s. */
static void made_wait(const struct linux_runner *r, pid_t pid)
{
	for (int tries = 0; pid > 0 && tries < 10000; tries++) {
		int all = 1;
		for (int i = 0; all && i < NS_COUNT; i++) {
			char theirs[64], ours[64];
			struct stat st, so;
			if (!(r->made & (1u << i)))
				continue;
			(void)snprintf(theirs, sizeof(theirs), "/proc/%ld/ns/%s", (long)pid,
				       ns_name[i]);
			(void)snprintf(ours, sizeof(ours), "/proc/thread-self/ns/%s", ns_name[i]);
			if (stat(theirs, &st) != 0 || stat(ours, &so) != 0)
				return; /* gone: nothing to hold */
			all = st.st_ino != so.st_ino || st.st_dev != so.st_dev;
		}
		siginfo_t si;
		si.si_pid = 0;
		if (all || (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == pid))
			return;
		(void)usleep(1000);
	}
}
#endif

/* On the run's thread, once a spawn's process 1 has exec'd or ended:
 * what a gated spawn made, opened, then its command let go. */
static void open_gate(struct linux_runner *r)
{
	if (r->gate == NULL || !*r->gate)
		return;
#if defined(CORDON_ASAN)
	made_wait(r, r->pid);
#endif
	collect(r, r->pid, r->pid > 0);
	__atomic_store_n(r->gate, 0, __ATOMIC_RELEASE);
	(void)syscall(SYS_futex, r->gate, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* ---- the thread ---- */

static void *runner_main(void *v)
{
	struct linux_runner *r = v;
	/* This thread, and so every command it starts, carries the run's
	 * filter: the supervisor's notifying rules and the seccomp layer's. */
	int e = r->sup != NULL	 ? supervisor_start(r->sup, r->groups)
		: r->groups != 0 ? seccomp_start_run(r->groups, NULL)
				 : 0;
	pthread_mutex_lock(&r->lock);
	r->init_err = e;
	r->ready = 1;
	pthread_cond_broadcast(&r->cond);
	if (e != 0) {
		pthread_mutex_unlock(&r->lock);
		return NULL;
	}
	for (;;) {
		while (!r->pending && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		if (!r->pending)
			break;
		r->pid = r->joining ? join_start(r)
				    : linux_clone_child(r->fn, r->arg, r->stack, r->size, r->flags);
		r->err = r->pid < 0 ? errno : 0;
		open_gate(r);
		r->pending = 0;
		r->done = 1;
		pthread_cond_broadcast(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void runner_destroy(struct linux_runner *r)
{
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	drop_held(r);
	for (int i = 0; i < 2; i++)
		if (r->res[i] >= 0)
			close(r->res[i]);
	free(r->join_stack);
	if (r->gate != NULL)
		(void)munmap(r->gate, sizeof(*r->gate));
	free(r);
}

struct linux_runner *runner_launch(struct supervisor *sup, unsigned groups)
{
	struct linux_runner *r = calloc(1, sizeof(*r));
	sigset_t all, old;
	if (r == NULL)
		return NULL;
	void *gate =
		mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	r->gate = gate == MAP_FAILED ? NULL : gate;
	r->sup = sup;
	r->groups = groups;
	r->res[0] = r->res[1] = -1;
	for (int i = 0; i < NS_COUNT; i++)
		r->held[i] = -1;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	/* It takes no signal meant for the caller. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&r->thread, NULL, runner_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		runner_destroy(r);
		errno = e;
		return NULL;
	}
	return r;
}

int runner_adopt(struct linux_runner *r, struct linux_plan *plan)
{
	/* The namespaces to keep: only where a spawn makes them. Without
	 * the pipe or the stack every spawn makes its own, as before. */
	if (ns_made(plan) != 0) {
		if (pipe2(r->res, O_CLOEXEC) != 0)
			r->res[0] = r->res[1] = -1;
		r->join_stack = malloc(JOIN_STACK_SIZE);
	}
	pthread_mutex_lock(&r->lock);
	r->plan = plan;
	while (!r->ready)
		pthread_cond_wait(&r->cond, &r->lock);
	int e = r->init_err;
	pthread_mutex_unlock(&r->lock);
	return e;
}

struct linux_runner *runner_new(struct linux_plan *plan, struct supervisor *sup, unsigned groups)
{
	struct linux_runner *r = runner_launch(sup, groups);
	if (r == NULL)
		return NULL;
	int e = runner_adopt(r, plan);
	if (e != 0) {
		runner_free(r);
		errno = e;
		return NULL;
	}
	return r;
}

/* Ends the run's thread; a process of the run still alive dies with it
 * (its parent death signal). The namespaces go with their last process. */
void runner_free(struct linux_runner *r)
{
	if (r == NULL)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	(void)pthread_join(r->thread, NULL);
	runner_destroy(r);
}

/* launch.start: the child, started by the run's thread, as process 1 of
 * a new PID namespace (in a new user namespace unless root), or joining
 * the run's namespaces. */
pid_t runner_start(const void *state, int (*fn)(void *), void *arg, void *stack, size_t size,
		   int tty, int stdin_fd)
{
	const struct linux_plan *plan = state;
	struct linux_runner *r = plan->runner;
	unsigned long flags = 0;
	if (plan->pid_namespace)
		flags |= CLONE_NEWPID;
	if (plan->pid_namespace && plan->mount != NULL && plan->mount->userns)
		flags |= CLONE_NEWUSER;
	pthread_mutex_lock(&r->lock);
	while (r->pending || r->done || r->busy) /* another spawn's request */
		pthread_cond_wait(&r->cond, &r->lock);
	r->fn = fn;
	r->arg = arg;
	r->stack = stack;
	r->size = size;
	r->flags = flags;
	int can_join = r->join_stack != NULL && r->res[0] >= 0;
	r->joining = can_join && may_join(r, plan, tty, stdin_fd);
	r->want_ns = can_join && r->nheld == 0;
	r->made = ns_made(plan);
	if (r->gate != NULL)
		*r->gate = r->want_ns && !r->joining;
	pid_t pid;
	int err;
	for (;;) {
		r->pending = 1;
		pthread_cond_broadcast(&r->cond);
		while (!r->done)
			pthread_cond_wait(&r->cond, &r->lock);
		pid = r->pid;
		err = r->err;
		r->done = 0;
		if (pid > 0 || !r->joining)
			break;
		/* The held namespaces refused: a spawn of its own, as the first. */
		drop_held(r);
		r->joining = 0;
		r->want_ns = 0;
		if (r->gate != NULL)
			*r->gate = 0;
	}
	r->busy = pid > 0;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	errno = err;
	return pid;
}

/* The tests' cordon_test_first_spawn_waits_end() (testhooks.h). */
static int first_spawn_waits_end;

void cordon_test_first_spawn_waits_end(int on)
{
	first_spawn_waits_end = on != 0;
}

/* launch.after_exec: the child runs on nobody's memory any more. */
void runner_after_exec(const void *state, pid_t pid, int reached)
{
	struct linux_runner *r = ((const struct linux_plan *)state)->runner;
	/* The test hook: process 1 of the spawn that makes the namespaces
	 * gone (left for cordon_wait to reap) before the run goes on. */
	if (first_spawn_waits_end && r->want_ns && !r->joining && pid > 0) {
		siginfo_t si;
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR)
			;
	}
	pthread_mutex_lock(&r->lock);
	/* Kept by the gate (open_gate) when the spawn reached its exec;
	 * without a gate (no shared mapping could be had) opened now. */
	if (r->want_ns && !r->joining && !reached)
		drop_held(r);
	else if (r->want_ns && !r->joining && r->nheld == 0)
		collect(r, pid, reached);
	r->joining = r->want_ns = 0;
	r->busy = 0;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

#else
typedef int cordon_no_linux_runner_here;
#endif
