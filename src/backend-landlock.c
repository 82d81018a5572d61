/*
 * Linux backend: Landlock write confinement.
 *
 * One ruleset, built once per run in the parent; the child sets
 * PR_SET_NO_NEW_PRIVS, reduces root's capabilities and restricts itself
 * right before exec. Only write-type rights are handled, so reads and
 * execution are unchanged everywhere.
 */
#include "backend.h"

#if defined(__linux__)

#include "landlock-abi.h"
#include "linux-layers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the trial restriction may take before it counts as blocked. */
#define TRIAL_TIMEOUT_MS 2000

static long ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
	return syscall(LL_SYS_CREATE_RULESET, attr, size, flags);
}

static long ll_add_rule(int fd, const struct ll_path_beneath_attr *attr)
{
	return syscall(LL_SYS_ADD_RULE, fd, LL_RULE_PATH_BENEATH, attr, 0U);
}

static long ll_restrict_self(int fd)
{
	return syscall(LL_SYS_RESTRICT_SELF, fd, 0U);
}

/*
 * Write-type rights each ABI version added. ABI 4 added network rights,
 * ABI 6 scopes and ABI 7 logging flags: none are file rights.
 */
static const uint64_t rights_added_at[LL_ABI_KNOWN + 1] = {
	[1] = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR |
	      LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO |
	      LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM,
	[2] = LL_FS_REFER,
	[3] = LL_FS_TRUNCATE,
	[5] = LL_FS_IOCTL_DEV,
};

static uint64_t handled_for_abi(int abi)
{
	uint64_t r = 0;
	for (int v = 1; v <= abi && v <= LL_ABI_KNOWN; v++)
		r |= rights_added_at[v];
	return r;
}

static void ruleset_attr_for_abi(int abi, struct ll_ruleset_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->handled_access_fs = handled_for_abi(abi);
	/* ABI 6: a scoped process cannot signal processes outside its
	 * Landlock domain, e.g. the agent that started it. */
	if (abi >= 6)
		attr->scoped = LL_SCOPE_SIGNAL;
}

/* The kernel's answer, asked once per process. */
static struct {
	int kernel_abi; /* > 0 when the version query worked */
	int query_err; /* errno of the version query */
	int trial_err; /* 0, an errno of the trial, or -1 (timeout/crash) */
	int mountns_err; /* the mount layer's trial: 0 or errno */
	int seccomp_err; /* the seccomp layer's trial: 0 or errno */
} probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

/*
 * One throw-away child tries everything a run will do, in the run's
 * order: the mount layer, then PR_SET_NO_NEW_PRIVS and a Landlock
 * restriction (a kernel may answer the version query yet refuse the
 * restriction: a container's seccomp filter returning EPERM), then the
 * seccomp filter. It writes the three results into shared memory and
 * only makes system calls. A child that does not answer in time counts
 * as blocked.
 */
struct trial {
	struct ll_ruleset_attr attr;
	const void *prog;
	int res[3]; /* mount layer, Landlock, seccomp: 0 or errno */
};

/* The throw-away child. *t lives in a MAP_SHARED mapping (see
 * ll_probe_start), so the parent reads the results once it has reaped
 * the child, whether child_start shared its memory or copied it. */
static int trial_main(void *arg)
{
	struct trial *t = arg;
	long fd = -1;
	t->res[0] = mountns_trial();
	t->res[1] = 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (fd = ll_create_ruleset(&t->attr, sizeof(t->attr), 0)) < 0 ||
	    ll_restrict_self((int)fd) != 0)
		t->res[1] = errno;
	t->res[2] = t->prog != NULL ? seccomp_apply(t->prog) : ENOSYS;
	_exit(0);
}

/*
 * The trial runs while the parent prepares the run (it is started at the
 * top of cordon_begin and collected when the decision is needed): on two
 * cores the parent's own work hides the child's. Started and collected
 * at most once per process.
 *
 * A helper thread starts the child and reaps it (with the timeout). The
 * child shares the memory of the thread that clones it and runs with
 * that thread's thread pointer, so its failing system calls write that
 * thread's errno: were it cloned from the caller's thread, they could
 * land between a failing call of the caller's (a readlink in realpath)
 * and its errno check, and make that call fail (seen once in a few
 * thousand runs). The helper thread only reaps, which no errno value
 * can mislead.
 */
static struct {
	pthread_mutex_t lock;
	int started;
	struct trial *t; /* at the low end of area; the stack is above it */
	void *area;
	pthread_t thread;
	int have_thread;
	int ok; /* set by the thread: the child ran to its end in time */
} pending = { PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL, 0, 0, 0 };

/* Offset of the stack in the trial's area: past the results, 16-aligned. */
#define TRIAL_HEAD ((sizeof(struct trial) + 15) & ~(size_t)15)

static void *trial_thread(void *arg)
{
	(void)arg;
	int status = 0;
	pid_t pid = child_start(trial_main, pending.t, (char *)pending.area + TRIAL_HEAD,
				CHILD_STACK_SIZE - TRIAL_HEAD, 0);
	pending.ok = pid > 0 && reap_with_timeout(pid, &status, TRIAL_TIMEOUT_MS) == 0 &&
		     WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return NULL;
}

static void ll_probe_start(void)
{
	int saved = errno;
	pthread_mutex_lock(&pending.lock);
	if (!pending.started) {
		pending.started = 1;
		long v = ll_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
		if (v < 0) {
			probed.query_err = errno;
		} else {
			probed.kernel_abi = (int)v;
			int abi = (int)v < LL_ABI_KNOWN ? (int)v : LL_ABI_KNOWN;
			/* One shared anonymous mapping holds the results and the
			 * child's stack: shared under clone(CLONE_VM) and also under
			 * the fork() that sanitizer builds use (see child_start). */
			void *area = abi >= 2 ? mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
						     MAP_SHARED | MAP_ANONYMOUS, -1, 0)
					      : MAP_FAILED;
			if (area != MAP_FAILED) {
				pending.area = area;
				pending.t = area;
				ruleset_attr_for_abi(abi, &pending.t->attr);
				pending.t->prog = seccomp_program();
				pending.t->res[0] = pending.t->res[1] = pending.t->res[2] = -1;
				/* The thread takes no signal meant for the caller. */
				sigset_t all, old;
				sigfillset(&all);
				pthread_sigmask(SIG_SETMASK, &all, &old);
				pending.have_thread = pthread_create(&pending.thread, NULL,
								     trial_thread, NULL) == 0;
				pthread_sigmask(SIG_SETMASK, &old, NULL);
			}
		}
	}
	pthread_mutex_unlock(&pending.lock);
	errno = saved;
}

static void probe_kernel(void)
{
	ll_probe_start(); /* when nobody started it early */
	if (pending.have_thread)
		(void)pthread_join(pending.thread, NULL);
	else if (pending.area != NULL)
		(void)trial_thread(NULL); /* no thread to be had: here, waiting */
	int ok = pending.ok;
	probed.mountns_err = probed.trial_err = probed.seccomp_err = -1;
	if (ok) {
		probed.mountns_err = pending.t->res[0];
		probed.trial_err = pending.t->res[1];
		probed.seccomp_err = pending.t->res[2];
	}
	/* Reaped (or never started): nobody runs on the stack now. */
	if (pending.area != NULL)
		(void)munmap(pending.area, CHILD_STACK_SIZE);
	pending.area = NULL;
	pending.t = NULL;
}

static void ll_probe(int max_abi, struct backend_probe *out)
{
	pthread_once(&probe_once, probe_kernel);
	memset(out, 0, sizeof(*out));
	out->kernel_abi = probed.kernel_abi;
	if (probed.kernel_abi <= 0) {
		/* ENOSYS: not compiled into this kernel. EOPNOTSUPP: compiled in
		 * but not enabled (missing from the lsm= boot list). Anything
		 * else (EPERM from a container's seccomp filter) is a block. */
		if (probed.query_err == ENOSYS)
			out->reason = "landlock_not_built_in";
		else if (probed.query_err == EOPNOTSUPP)
			out->reason = "landlock_disabled";
		else
			out->reason = "landlock_blocked";
		return;
	}
	int abi = probed.kernel_abi < LL_ABI_KNOWN ? probed.kernel_abi : LL_ABI_KNOWN;
	if (max_abi > 0 && max_abi < abi)
		abi = max_abi;
	out->abi = abi;
	/* ABI 1 always denies renames and links across directories (REFER
	 * cannot be granted), which breaks git, npm and cargo. */
	if (abi < 2) {
		out->reason = "landlock_abi_too_old";
		return;
	}
	if (probed.trial_err != 0) {
		out->reason = "landlock_blocked";
		return;
	}
	out->available = 1;
}

static void ll_coverage(int abi, unsigned *layers, unsigned *gaps)
{
	*layers = 1u << LAYER_LANDLOCK | 1u << LAYER_NO_NEW_PRIVS;
	*gaps = 1u << GAP_UNIX_SOCKETS | 1u << GAP_READS | 1u << GAP_NETWORK;
	/* The optional layers, as the probe found them. */
	if (probed.mountns_err == 0)
		*layers |= 1u << LAYER_MOUNTNS;
	else
		*gaps |= 1u << GAP_METADATA;
	if (probed.seccomp_err == 0)
		*layers |= 1u << LAYER_SECCOMP;
	else
		*gaps |= 1u << GAP_TERMINAL;
	/* Below ABI 3 truncate(2) is unchecked by Landlock; the mount
	 * layer's read-only mounts still refuse it outside. */
	if (abi < 3 && probed.mountns_err != 0)
		*gaps |= 1u << GAP_TRUNCATE;
	if (abi < 5)
		*gaps |= 1u << GAP_DEVICE_IOCTL;
	if (abi >= 6)
		*layers |= 1u << LAYER_SIGNAL_SCOPE;
	else
		*gaps |= 1u << GAP_SIGNALS;
}

static int add_path_rule(cordon *c, int ruleset, const struct wentry *w, uint64_t dir_rights,
			 uint64_t file_rights)
{
	struct stat st;
	int fd = open(w->path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "cannot open writable path %s",
					 w->path);
	if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode) ||
	    (S_ISDIR(st.st_mode) ? 1 : 0) != (w->is_dir ? 1 : 0)) {
		close(fd);
		return cordon_fail(c, CORDON_ESYS, "writable path changed while preparing: %s",
				   w->path);
	}
	/* A rule on a file may only carry file rights (EINVAL otherwise). */
	struct ll_path_beneath_attr pb = {
		.allowed_access = w->is_dir ? dir_rights : file_rights,
		.parent_fd = fd,
	};
	long r = ll_add_rule(ruleset, &pb);
	int err = errno;
	close(fd);
	if (r != 0)
		return cordon_fail_errno(c, CORDON_ESYS, err, "landlock_add_rule %s", w->path);
	return 0;
}

static int ll_prepare(cordon *c, struct prepared *out)
{
	struct ll_ruleset_attr attr;
	int abi = c->dec.abi;

	ruleset_attr_for_abi(abi, &attr);
	/* Everything handled is granted on the writable set except device
	 * node creation: a block device made in the workspace would give
	 * root raw writes to a disk. */
	uint64_t dir_rights = attr.handled_access_fs & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
	uint64_t file_rights = dir_rights & LL_FS_FILE_RIGHTS;

	/* With the mount layer, protected paths are enforced and /dev/shm is
	 * a private tmpfs that the child grants (see ll_apply). */
	if (c->dec.layers & (1u << LAYER_MOUNTNS)) {
		out->shm_rights = dir_rights;
		if ((out->mountns = mountns_prepare(c)) == NULL)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
		for (size_t i = 0; i < c->pol.nprot; i++)
			c->pol.prot[i].enforced = 1;
	}
	if (c->dec.layers & (1u << LAYER_SECCOMP))
		out->seccomp = seccomp_program();

	long fd = ll_create_ruleset(&attr, sizeof(attr), 0);
	if (fd < 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "landlock_create_ruleset");
	for (size_t i = 0; i < c->pol.nw; i++) {
		int r = add_path_rule(c, (int)fd, &c->pol.w[i], dir_rights, file_rights);
		if (r != 0) {
			close((int)fd);
			return r;
		}
	}
	out->ruleset_fd = (int)fd;
	out->abi = abi;
	out->reduce_caps = caps_would_reduce();
	return 0;
}

/*
 * The private /dev/shm exists only in the child's mount namespace, so the
 * parent cannot name it in the ruleset: the child adds that rule itself,
 * on the root of the tmpfs it has just mounted. The ruleset is the run's
 * (shared with later spawns), which then also hold a rule for this
 * tmpfs: harmless, as it is reachable only in this child's namespace and
 * gone with it. No /dev/shm here: nothing to grant.
 */
static int grant_private_shm(const struct prepared *p)
{
	/* Followed like the mount followed it, if /dev/shm is a symlink. */
	int fd = open("/dev/shm", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : errno;
	struct ll_path_beneath_attr pb = { .allowed_access = p->shm_rights, .parent_fd = fd };
	int e = ll_add_rule(p->ruleset_fd, &pb) == 0 ? 0 : errno;
	close(fd);
	return e;
}

/* In order: the mount layer (it needs CAP_SYS_ADMIN, in the new user
 * namespace or as root), no_new_privs, root's capabilities, Landlock
 * (which also freezes the mounts), and the seccomp filter last. */
static int ll_apply(const struct prepared *p)
{
	int e;
	if (p->mountns != NULL) {
		if ((e = mountns_apply(p->mountns)) != 0 || (e = grant_private_shm(p)) != 0)
			return e;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	if (p->reduce_caps && (e = caps_reduce()) != 0)
		return e;
	if (ll_restrict_self(p->ruleset_fd) != 0)
		return errno;
	if (p->seccomp != NULL && (e = seccomp_apply(p->seccomp)) != 0)
		return e;
	return 0;
}

static void ll_release(struct prepared *p)
{
	if (p->ruleset_fd >= 0)
		close(p->ruleset_fd);
	p->ruleset_fd = -1;
	mountns_free(p->mountns);
	p->mountns = NULL;
	p->seccomp = NULL;
}

const struct backend cordon_backend_landlock = {
	.name = "landlock",
	.probe_start = ll_probe_start,
	.probe = ll_probe,
	.coverage = ll_coverage,
	.prepare = ll_prepare,
	.apply = ll_apply,
	.release = ll_release,
};

#else
/* Not Linux: no Landlock code at all in this build. */
typedef int cordon_no_landlock_here;
#endif
