/*
 * PID and IPC namespace layers (Linux).
 *
 * The run's first process is cloned into a new PID namespace (with the
 * mount layer's user namespace when cordon is not root): it is process 1
 * there. It mounts a /proc of that namespace, applies the other layers,
 * starts the command as its child, and then execs cordon-init
 * (src/linux/init/cordon-init.c, embedded here and exec'd from a memfd), which
 * reaps, reports the command's stops and end, and, when the command
 * ends, kills whatever the command left (setsid, nohup, double fork)
 * and exits, which ends the namespace. Its parent death signal ends it
 * when cordon dies, even by SIGKILL. Inside, the command sees and can
 * touch only the run's own processes: no prlimit, renice, ptrace or
 * signal reaches a process outside, and /proc lists only the run.
 *
 * The IPC namespace gives the command its own SysV shared memory,
 * semaphores and message queues, and its own POSIX message queues.
 *
 * Both need the mount layer (the /proc of the namespace, and the
 * capabilities of its user namespace).
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The embedded init program (made by the Makefile from cordon-init.c;
 * empty where cordon has no init for the architecture). */
extern const unsigned char cordon_init_blob[];
extern const size_t cordon_init_blob_len;

#define CORDON_MFD_CLOEXEC 0x0001U
#define CORDON_MFD_ALLOW_SEALING 0x0002U
#define CORDON_MFD_EXEC                                \
	0x0010U /* Linux 6.3: executable even when the \
		   vm.memfd_noexec sysctl defaults to not */
#define CORDON_F_ADD_SEALS 1033
#define CORDON_F_SEAL_SEAL 0x0001
#define CORDON_F_SEAL_SHRINK 0x0002
#define CORDON_F_SEAL_GROW 0x0004
#define CORDON_F_SEAL_WRITE 0x0008

int init_memfd(void)
{
	if (cordon_init_blob_len == 0)
		return -ENOSYS;
	long fd = syscall(SYS_memfd_create, "cordon-init",
			  CORDON_MFD_CLOEXEC | CORDON_MFD_ALLOW_SEALING | CORDON_MFD_EXEC);
	if (fd < 0 && errno == EINVAL) /* before 6.3: no MFD_EXEC */
		fd = syscall(SYS_memfd_create, "cordon-init",
			     CORDON_MFD_CLOEXEC | CORDON_MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	while (off < cordon_init_blob_len) {
		ssize_t n = write((int)fd, cordon_init_blob + off, cordon_init_blob_len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close((int)fd);
			return -e;
		}
		off += (size_t)n;
	}
	/* Sealed: nothing can change the program between here and exec. */
	(void)fcntl((int)fd, CORDON_F_ADD_SEALS,
		    CORDON_F_SEAL_SEAL | CORDON_F_SEAL_SHRINK | CORDON_F_SEAL_GROW |
			    CORDON_F_SEAL_WRITE);
	return (int)fd;
}

/* One sealed memfd for the whole process: the probe's trial and every run
 * exec the same, unchangeable program (a memfd and a copy of the program
 * per run cost more than the rest of the layer's preparation). */
static int shared_fd = -1;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void make_shared(void)
{
	int saved = errno;
	shared_fd = init_memfd();
	errno = saved;
}

int init_memfd_shared(void)
{
	(void)pthread_once(&shared_once, make_shared);
	return shared_fd;
}

/* The namespace's /proc, with the kernel's key lists covered (as Docker
 * masks them): /proc/keys shows every key the reader may view or
 * possesses (its description, owner, length), the user's among them, and
 * /proc/key-users the key counts of every user. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int mount_proc(void)
{
	static const char *const covered[] = { "/proc/keys", "/proc/key-users" };
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) != 0)
		return errno;
	for (size_t i = 0; i < sizeof(covered) / sizeof(covered[0]); i++)
		if (access(covered[i], F_OK) == 0 &&
		    mount("/dev/null", covered[i], NULL, MS_BIND, NULL) != 0)
			return errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int exec_init(int fd, char *const argv[])
{
	static char *const envp[] = { NULL };
	syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	return errno;
}

/* ---- the probe's trial ---- */

struct grandchild {
	int init_fd;
};

/* Process 1 of the trial's namespace: a /proc of its own, then the init
 * program in its trial mode (it exits 0). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int trial_init(void *arg)
{
	const struct grandchild *g = arg;
	static char *const argv[] = { (char *)"cordon-init", (char *)"t", NULL };
	int e = getpid() == 1 ? mount_proc() : EINVAL;
	if (e == 0)
		e = exec_init(g->init_fd, argv);
	_exit(e != 0 ? e : 1);
}

/* After the mount layer's trial (a user and mount namespace): a new PID
 * namespace whose process 1 mounts /proc and runs the init program. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int pidns_trial(const struct linux_trial *t)
{
	char stack[8192] __attribute__((aligned(16)));
	struct grandchild g = { t->init_fd };
	int status = 0;

	if (t->init_fd < 0)
		return ENOSYS;
	/* Only in the mount layer's namespace: its /proc is its own. */
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL;
	if (unshare(CLONE_NEWPID) != 0)
		return errno;
	pid_t pid = clone(trial_init, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &g);
	if (pid < 0)
		return errno;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
	if (!WIFEXITED(status))
		return EIO;
	return WEXITSTATUS(status);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int ipcns_trial(const struct linux_trial *t)
{
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL;
	return unshare(CLONE_NEWIPC) == 0 ? 0 : errno;
}

/* ---- the run ---- */

int pidns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	(void)run;
	int fd = init_memfd_shared();
	if (fd < 0)
		return backend_fail_errno(res, CORDON_ESYS, -fd,
					  "cannot make the init program's memfd");
	plan->init_fd = fd; /* the process's: not closed with the plan */
	plan->pid_namespace = 1;
	return 0;
}

/* In process 1 (cloned into the namespace by the run's thread), in the
 * mount layer's namespace. Anywhere else the /proc mount would cover the
 * caller's own: refused. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int pidns_apply(const struct linux_plan *plan)
{
	if (getpid() != 1 || plan->mount == NULL)
		return EINVAL;
	return mount_proc();
}

/* A mountinfo field, its \ooo escapes undone, into out (n bytes). */
static int unescape(const char *f, size_t len, char *out, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = f[i];
		if (ch == '\\' && i + 3 < len && f[i + 1] >= '0' && f[i + 1] <= '3') {
			ch = (char)((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 +
				    (f[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= n)
			return -1;
		out[o++] = ch;
	}
	out[o] = '\0';
	return 0;
}

/* Where the caller's mount namespace has mqueue file systems: a POSIX
 * queue of the user's is readable there by path (mq_receive takes its
 * messages), whatever IPC namespace the reader is in. */
static int find_mqueue_mounts(struct linux_plan *plan)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int r = 0;
	if (f == NULL)
		return 0; /* no /proc: nothing known to cover */
	while (r == 0 && getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - ");
		if (sep == NULL || strncmp(sep + 3, "mqueue ", 7) != 0)
			continue;
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		char *field = line;
		for (int k = 0; k < 4 && field != NULL; k++) {
			field = strchr(field, ' ');
			if (field != NULL)
				field++;
		}
		char *end = field != NULL ? strchr(field, ' ') : NULL;
		char path[CORDON_PATH_MAX];
		if (end == NULL || unescape(field, (size_t)(end - field), path, sizeof(path)) != 0)
			continue;
		char **v = realloc(plan->mqueue, (plan->nmqueue + 1) * sizeof(*v));
		if (v == NULL || (v[plan->nmqueue] = strdup(path)) == NULL) {
			if (v != NULL)
				plan->mqueue = v;
			r = -1;
			break;
		}
		plan->mqueue = v;
		plan->nmqueue++;
	}
	free(line);
	fclose(f);
	return r;
}

int ipcns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	(void)run;
	plan->ipc_namespace = 1;
	if (find_mqueue_mounts(plan) != 0)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	return 0;
}

/* The run's own IPC namespace; over each of the caller's mqueue mounts
 * the run's (empty) one, in the mount layer's namespace. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int ipcns_apply(const struct linux_plan *plan)
{
	if (unshare(CLONE_NEWIPC) != 0)
		return errno;
	for (size_t i = 0; i < plan->nmqueue; i++)
		if (mount("mqueue", plan->mqueue[i], "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  NULL) != 0 &&
		    errno != ENOENT)
			return errno;
	return 0;
}

/* n as decimal into buf (room for 24 bytes), without libc's formatting
 * (this runs in a child sharing the caller's memory). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static char *decimal(long n, char *buf)
{
	char tmp[24];
	size_t k = 0;
	do
		tmp[k++] = (char)('0' + n % 10);
	while ((n /= 10) > 0 && k < sizeof(tmp));
	for (size_t i = 0; i < k; i++)
		buf[i] = tmp[k - 1 - i];
	buf[k] = '\0';
	return buf;
}

/* Process 2, before the command: it waits for process 1 to have exec'd
 * the init program (the end of the go pipe: its write end is process 1's
 * alone, close-on-exec), then takes a Landlock domain of its own inside
 * process 1's. If that exec fails, process 1 kills it while it waits:
 * the command runs only under its reaper, and a run whose first child is
 * its trial never runs the command twice.
 *
 * It shares the runner thread's memory and thread pointer (so errno)
 * until its exec, while that thread goes on after process 1's exec: in
 * the spawn that makes the run's namespaces, this process waits at the
 * runner's gate (runner_gate_wait, reading no errno) while the thread
 * opens them through process 1 (which the command's end would take
 * away); otherwise, and once the gate is open, the runner thread only
 * takes locks and waits on a condition (errno untouched; when it
 * started a joining child, it has read that child's report and reaped
 * it, both succeeding), and starts no other child until this one has
 * exec'd or gone (the end of the error pipe: launch.after_exec). A
 * failure here is reported on the error pipe like any before exec. */
struct nested {
	int (*cmd)(void *);
	void *arg;
	int abi;
	int go, go_w; /* the go pipe */
	int errfd;
	const struct linux_plan *plan;
};

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int nested_main(void *v)
{
	const struct nested n = *(const struct nested *)v;
	char byte;
	ssize_t got;
	(void)close(n.go_w);
	do
		got = read(n.go, &byte, 1);
	while (got < 0 && errno == EINTR);
	(void)close(n.go);
	if (got != 0)
		spawn_report_confine(n.errfd, got < 0 ? errno : EIO);
	runner_gate_wait(n.plan);
	if (landlock_nest(n.abi) != 0) /* never the command beside its reaper's domain */
		spawn_report_confine(n.errfd, errno != 0 ? errno : EPERM);
	return n.cmd(n.arg);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static void sort_fds(int *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int pidns_become_init(const void *state, int (*cmd)(void *), void *cmd_arg, void *cmd_stack,
		      size_t cmd_stack_size, int statusfd, int errfd)
{
	const struct linux_plan *plan = state;
	char pidbuf[24], fdbuf[24];
	int go[2];
	if (pipe2(go, O_CLOEXEC) != 0)
		return errno;
	/* On this stack until the command has copied it. */
	struct nested n = { cmd,   cmd_arg, (plan->landlock.attr.scoped & LL_SCOPE_SIGNAL) ? 6 : 2,
			    go[0], go[1],   errfd,
			    plan };

	/* The command: process 2, sharing memory until it execs. */
	pid_t pid = child_start(nested_main, &n, cmd_stack, cmd_stack_size, 0);
	int e = pid < 0 ? errno : 0;
	(void)close(go[0]);
	if (pid < 0) {
		(void)close(go[1]);
		return e;
	}
	/* From here this process is the run's reaper: the parent death
	 * signal (kept across exec) ends the namespace with cordon. */
	struct pollfd gone = { statusfd, POLLOUT, 0 };
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
		e = errno;
	/* Had cordon died before that, no signal would come: only cordon
	 * holds the status pipe's read end, which is closed then. (getppid()
	 * cannot tell: the parent of process 1 is outside its namespace.) */
	else if (poll(&gone, 1, 0) > 0 && (gone.revents & POLLERR))
		e = ESRCH;
	if (e == 0 && fcntl(statusfd, F_SETFD, 0) != 0)
		e = errno;
	/* The init program holds nothing of the command's but stdio (which
	 * it closes) and the status fd; the error pipe and the go pipe are
	 * close-on-exec, open until the exec succeeds. It also keeps the
	 * master of the pty the caller's terminal is bound over, whose node
	 * goes with it (layer-devpts.c); the command's copy is gone at its
	 * exec. */
	int keep[5] = { statusfd, plan->init_fd, errfd, go[1], -1 };
	size_t nkeep = 4;
	if (e == 0 && plan->tty != NULL && plan->tty->held >= 0) {
		keep[nkeep++] = plan->tty->held;
		if (fcntl(plan->tty->held, F_SETFD, 0) != 0)
			e = errno;
	}
	sort_fds(keep, nkeep);
	if (e == 0 && close_fds_except(keep, nkeep) != 0)
		e = errno;
	if (e == 0) {
		char *const argv[] = { (char *)"cordon-init", decimal(pid, pidbuf),
				       decimal(statusfd, fdbuf), NULL };
		e = exec_init(plan->init_fd, argv);
	}
	(void)kill(pid, SIGKILL); /* it is still waiting: the command never ran */
	return e;
}

#else
typedef int cordon_no_pidns_here;
#endif
