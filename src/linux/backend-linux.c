/*
 * Linux backend: Landlock and the layers around it, as one ordered table.
 *
 * Each layer is prepared in the parent once per run and applied in each
 * command's child in the table's order, the last steps before exec. A
 * layer nobody has tried in this process is assumed to work: the run's
 * first child is its trial (cordon.c: first_spawn). When a child fails
 * to apply one, every layer is tried in one throw-away child
 * (linux-probe.c, at most once per process; cordon probe always does);
 * a layer found unavailable is left out and its gaps reported; without
 * an essential one there is no confinement at all. A child that fails
 * to apply a layer never runs the command: it never runs with less than
 * the status event says.
 *
 * The order matters: the mount layer needs CAP_SYS_ADMIN (in its new
 * user namespace, or as root), so it comes before no_new_privs and the
 * capability reduction; Landlock forbids mount changes once applied, and
 * the seccomp filter needs no_new_privs.
 */
#include "backend.h"

#if defined(__linux__)

#include "linux-layers.h"
#include "testhooks.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int nnp_trial(const struct linux_trial *t)
{
	(void)t;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
}

static int nnp_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	(void)run;
	(void)res;
	plan->no_new_privs = 1;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int nnp_apply(const struct linux_plan *plan)
{
	if (plan->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	return 0;
}

/* A layer whose work is done outside the child (the supervisor's). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int nothing_to_apply(const struct linux_plan *plan)
{
	(void)plan;
	return 0;
}

struct linux_layer {
	enum layer_id id; /* reported in layers when applied */
	int essential; /* no confinement without it */
	uint64_t gaps_without; /* reported in gaps when it is not */
	/* The probe's child: 0 when it could be applied, or errno. NULL
	 * only where apply cannot fail: such a layer is taken to work, so
	 * a child failing it would fail every run, whose start event said
	 * it was applied. */
	int (*trial)(const struct linux_trial *t);
	/* Parent, once per run: its part of the plan. 0 or CORDON_E*. */
	int (*prepare)(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
	/* Child: async-signal-safe; 0 or errno. */
	int (*apply)(const struct linux_plan *plan);
};

/* The layers, in the order the child applies them. The PID and IPC
 * namespaces need the mount layer (its user namespace, and a /proc of
 * their own). */
static const struct linux_layer layers[] = {
	{ LAYER_MOUNTNS, 0, 1ull << GAP_METADATA, mountns_trial, mountns_prepare, mountns_apply },
	{ LAYER_PRIVATE_TMP, 0, 1ull << GAP_TMP_SHARED, tmp_trial, tmp_layer_prepare, tmp_apply },
	{ LAYER_DEVPTS, 0, 0, devpts_trial, devpts_prepare, devpts_apply },
	/* Made by the mount layer's apply (its place among the mounts). */
	{ LAYER_SCRATCH_HOME, 0, 0, scratchhome_trial, scratchhome_prepare, nothing_to_apply },
	{ LAYER_PIDNS, 0, 1ull << GAP_PROCESSES | 1ull << GAP_SURVIVORS | 1ull << GAP_KEY_LIST,
	  pidns_trial, pidns_prepare, pidns_apply },
	{ LAYER_IPCNS, 0, 1ull << GAP_IPC, ipcns_trial, ipcns_prepare, ipcns_apply },
	{ LAYER_NETNS, 0, 0, netns_trial, netns_prepare, netns_apply },
	{ LAYER_NO_NEW_PRIVS, 1, 0, nnp_trial, nnp_prepare, nnp_apply },
	/* Not essential: without it (capset refused) the run reports the
	 * gap when there are capabilities to reduce, and "required"
	 * refuses (cordon.c), since root's capabilities reach past
	 * Landlock; "auto" keeps what the other layers hold. */
	{ LAYER_CAPABILITIES, 0, 1ull << GAP_CAPABILITIES, caps_trial, caps_prepare, caps_apply },
	{ LAYER_LANDLOCK, 1, 0, landlock_trial, landlock_prepare, landlock_apply },
	/* Before seccomp's trial, whose filter refuses openat2. */
	{ LAYER_UNIX_SUPERVISOR, 0, 0, supervisor_trial, supervisor_prepare, nothing_to_apply },
	{ LAYER_SECCOMP, 0, 1ull << GAP_TERMINAL | 1ull << GAP_SETID | 1ull << GAP_KEYRINGS,
	  seccomp_trial, seccomp_prepare, seccomp_apply },
	/* After seccomp: its limit or, where there is none, its filter. */
	{ LAYER_USERNS, 0, 1ull << GAP_USERNS, userns_trial, userns_prepare, userns_apply },
};
#define NLAYERS (sizeof(layers) / sizeof(layers[0]))

/* ---- the probe ---- */

struct trial_io {
	struct linux_trial in;
	int res[NLAYERS]; /* 0 or errno, per layer */
	int current; /* the layer being tried, -1 before the first */
	int done; /* every trial ran */
};

/* The throw-away child: every layer's trial, in order (later trials rely
 * on earlier ones, e.g. seccomp on no_new_privs). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int trial_main(void *arg)
{
	struct trial_io *io = arg;
	for (size_t i = 0; i < NLAYERS; i++) {
		io->current = (int)i;
		io->res[i] = layers[i].trial != NULL ? layers[i].trial(&io->in) : 0;
		if (io->res[i] == 0)
			io->in.passed |= 1u << layers[i].id;
	}
	io->done = 1;
	_exit(0);
}

/* What this process knows of the kernel. A layer is known once a child
 * applied it before exec (confirm) or the trial child tried it (settle);
 * until then it is assumed to work. */
static struct {
	pthread_mutex_t lock;
	int kernel_abi; /* > 0, or -errno of the version query */
	unsigned known; /* bit i: layers[i]'s answer is in res[i] */
	int res[NLAYERS]; /* 0, or errno; -1: the trial child did not end */
} probed = { PTHREAD_MUTEX_INITIALIZER, 0, 0, { 0 } };
static pthread_once_t query_once = PTHREAD_ONCE_INIT;
static pthread_once_t trial_once = PTHREAD_ONCE_INIT;
static pthread_once_t settle_once = PTHREAD_ONCE_INIT;
static int trial_started;
static int trial_settled; /* its answer is in (settle_now ran) */

static void query(void)
{
	int saved = errno;
	probed.kernel_abi = landlock_query_abi();
	errno = saved;
}

/* The trial child, started (once per process); settle_now waits for it. */
static void start_trial(void)
{
	static struct trial_io io;
	int saved = errno;
	(void)pthread_once(&query_once, query);
	/* ABI 1 is not used (see ll_probe): nothing to try. */
	if (probed.kernel_abi >= 2) {
		int abi = probed.kernel_abi < LL_ABI_KNOWN ? probed.kernel_abi : LL_ABI_KNOWN;
		mountns_identity(&io.in.userns, io.in.uid_map, io.in.gid_map,
				 sizeof(io.in.uid_map));
		/* The process's (the trial child may still run when the
		 * probe gives up on it). */
		io.in.init_fd = init_memfd_shared();
		landlock_attr_for_abi(abi, &io.in.attr);
		io.in.seccomp = seccomp_program();
		io.in.ptrace_blocked = supervisor_ptrace_blocked();
		io.in.reduce_caps = caps_would_reduce();
		for (size_t i = 0; i < NLAYERS; i++)
			io.res[i] = -1;
		io.current = -1;
		probe_trial_start(trial_main, &io, sizeof(io));
		pthread_mutex_lock(&probed.lock);
		trial_started = 1;
		pthread_mutex_unlock(&probed.lock);
	}
	errno = saved;
}

static void settle_now(void)
{
	(void)pthread_once(&trial_once, start_trial);
	pthread_mutex_lock(&probed.lock);
	int started = trial_started;
	pthread_mutex_unlock(&probed.lock);
	int timed_out = 0;
	const struct trial_io *got = started ? probe_trial_collect(&timed_out) : NULL;
	pthread_mutex_lock(&probed.lock);
	for (size_t i = 0; i < NLAYERS; i++) {
		if (layers[i].trial == NULL || (probed.known & (1u << i)))
			continue; /* a child applied it: it works, whatever came now */
		/* What the child wrote counts, whether or not it could be reaped
		 * (a caller that ignores SIGCHLD reaps it first). A child that
		 * did not finish: the layers before the one it was trying are
		 * known; that one was refused by its death (a filter that kills
		 * on a call), unless it was only too slow (killed at the
		 * timeout); those after it stay unknown, for the run's first
		 * child to try. No answer is never a refusal. */
		int refused_here = got == NULL ? !started /* no trial at all: Landlock too old */
					       : (int)i == got->current && !got->done && !timed_out;
		if (got != NULL && (got->done || (int)i < got->current))
			probed.res[i] = got->res[i];
		else if (refused_here)
			probed.res[i] = -1;
		else
			continue; /* unknown (no memory for the answer, or not reached) */
		probed.known |= 1u << i;
	}
	trial_settled = 1;
	pthread_mutex_unlock(&probed.lock);
}

static void ll_settle(void)
{
	(void)pthread_once(&settle_once, settle_now);
}

/* A /proc file holds "want" right after key ("": at its start). */
static int proc_says(const char *path, const char *key, const char *want)
{
	char buf[4096];
	const char *v = proc_field(path, key, buf, sizeof(buf));
	return v != NULL && strncmp(v, want, strlen(want)) == 0;
}

/* Whether this process is likely to meet a refusal: it runs under a
 * seccomp filter already (a container's: Docker's refuses namespaces), or
 * the system turns user namespaces off or keeps their capabilities from
 * unprivileged users. A hint only: it decides when the trial child runs
 * (at once, beside the caller's own work, as a per-run probe did), never
 * what is applied; the trial decides that. Without a hint, the run's
 * first child is the trial. The tests' cordon_test_first_child_trial()
 * (testhooks.h) ignores the hint. */
static int first_child_trial;

void cordon_test_first_child_trial(int on)
{
	first_child_trial = on != 0;
}

static int refusal_likely(void)
{
	if (first_child_trial)
		return 0;
	if (proc_says("/proc/self/status", "\nSeccomp:", "\t2"))
		return 1;
	if (proc_says("/proc/sys/user/max_user_namespaces", "", "0\n"))
		return 1;
	return geteuid() != 0 &&
	       (proc_says("/proc/sys/kernel/unprivileged_userns_clone", "", "0\n") ||
		proc_says("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "", "1\n"));
}

/* The hint is read once per process: every later run knows more. */
static void early_trial(void)
{
	if (refusal_likely())
		(void)pthread_once(&trial_once, start_trial);
}

static void ll_probe_start(void)
{
	static pthread_once_t hint_once = PTHREAD_ONCE_INIT;
	int saved = errno;
	(void)pthread_once(&hint_once, early_trial);
	errno = saved;
}

static void ll_confirm(unsigned applied)
{
	pthread_mutex_lock(&probed.lock);
	for (size_t i = 0; i < NLAYERS; i++)
		if (layers[i].trial != NULL && (applied & (1u << layers[i].id)) &&
		    !(probed.known & (1u << i))) {
			probed.res[i] = 0;
			probed.known |= 1u << i;
		}
	pthread_mutex_unlock(&probed.lock);
}

/* Whether layers[i] works: known to, or assumed (unsure). The namespaces
 * that need the mount layer's work only with it. Called with the lock. */
static int layer_ok(size_t i, unsigned *unsure)
{
	if (layers[i].trial != NULL) {
		if (!(probed.known & (1u << i)))
			*unsure |= 1u << layers[i].id;
		else if (probed.res[i] != 0)
			return 0;
	}
	if (layers[i].id == LAYER_PIDNS || layers[i].id == LAYER_IPCNS ||
	    layers[i].id == LAYER_DEVPTS || layers[i].id == LAYER_PRIVATE_TMP ||
	    layers[i].id == LAYER_SCRATCH_HOME)
		return layer_ok(0, unsure); /* layers[0] is the mount layer */
	return 1;
}

static void ll_probe(int max_abi, struct backend_probe *out)
{
	(void)pthread_once(&query_once, query);
	pthread_mutex_lock(&probed.lock);
	int early = trial_started;
	pthread_mutex_unlock(&probed.lock);
	if (early) /* started early on a hint: its answer decides */
		ll_settle();
	memset(out, 0, sizeof(*out));
	out->kernel_abi = probed.kernel_abi > 0 ? probed.kernel_abi : 0;
	if (probed.kernel_abi <= 0) {
		/* ENOSYS: not compiled into this kernel. EOPNOTSUPP: compiled in
		 * but not enabled (missing from the lsm= boot list). Anything
		 * else (EPERM from a container's seccomp filter) is a block. */
		if (probed.kernel_abi == -ENOSYS)
			out->reason = REASON_LANDLOCK_NOT_BUILT_IN;
		else if (probed.kernel_abi == -EOPNOTSUPP)
			out->reason = REASON_LANDLOCK_DISABLED;
		else
			out->reason = REASON_LANDLOCK_BLOCKED;
		return;
	}
	int abi = probed.kernel_abi < LL_ABI_KNOWN ? probed.kernel_abi : LL_ABI_KNOWN;
	if (max_abi > 0 && max_abi < abi)
		abi = max_abi;
	out->abi = abi;
	/* ABI 1 always denies renames and links across directories (REFER
	 * cannot be granted), which breaks git, npm and cargo. */
	if (abi < 2) {
		out->reason = REASON_LANDLOCK_ABI_TOO_OLD;
		return;
	}
	unsigned unsure = 0;
	int blocked = 0;
	pthread_mutex_lock(&probed.lock);
	for (size_t i = 0; i < NLAYERS; i++)
		blocked |= layers[i].essential && !layer_ok(i, &unsure);
	pthread_mutex_unlock(&probed.lock);
	if (blocked) {
		out->reason = REASON_LANDLOCK_BLOCKED;
		return;
	}
	out->available = 1;
}

static void ll_coverage(int abi, struct coverage *out)
{
	int mount_layer = 0;
	unsigned ok = 0, unsure = 0;
	int reduce_caps = caps_would_reduce();
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&probed.lock);
	for (size_t i = 0; i < NLAYERS; i++) {
		unsigned u = 0;
		if (layer_ok(i, &u))
			ok |= 1u << i;
		unsure |= u;
	}
	pthread_mutex_unlock(&probed.lock);
	for (size_t i = 0; i < NLAYERS; i++) {
		/* Root's capabilities are reduced only when there are some. */
		if (layers[i].id == LAYER_CAPABILITIES && !reduce_caps)
			continue;
		if (!(ok & (1u << i))) {
			out->gaps |= layers[i].gaps_without;
			continue;
		}
		/* From ABI 9 Landlock checks Unix socket paths itself. */
		if (layers[i].id == LAYER_UNIX_SUPERVISOR && abi >= 9)
			continue;
		out->layers |= 1u << layers[i].id;
		out->unsure |= unsure & (1u << layers[i].id);
		mount_layer |= layers[i].id == LAYER_MOUNTNS;
		/* What the seccomp layer's rule groups hold, named apart. */
		if (layers[i].id == LAYER_SECCOMP)
			out->layers |=
				1u << LAYER_SETID | 1u << LAYER_KEYRINGS | 1u << LAYER_NET_SECCOMP;
	}
	landlock_coverage(abi, mount_layer, out);
	if (!(out->layers & (1u << LAYER_UNIX_SUPERVISOR | 1u << LAYER_UNIX_LANDLOCK)))
		out->gaps |= 1ull << GAP_UNIX_SOCKETS;
	/* The supervisor refuses abstract names the run did not bind, on
	 * every ABI. */
	if (out->layers & (1u << LAYER_UNIX_SUPERVISOR))
		out->gaps &= ~(1ull << GAP_ABSTRACT_SOCKETS);
	/* Not restricted by any layer yet. */
	out->gaps |= 1ull << GAP_READS | 1ull << GAP_NETWORK;
	/* Protected paths are read-only binds of the mount layer, and denied
	 * reads its covers; without it, what the Landlock read layer does
	 * not grant. */
	out->protects = mount_layer;
	out->denies_reads = mount_layer ? DENY_BY_MOUNT : DENY_BY_LANDLOCK;
	/* The network layers, used for --network off only. With a namespace
	 * of its own, Landlock's TCP rights are not used: they would refuse
	 * loopback inside too. The namespace and the seccomp rules refuse
	 * every network socket; Landlock's only TCP. */
	const unsigned netns = 1u << LAYER_NETNS;
	out->net_layers =
		out->layers & (netns | 1u << LAYER_NET_SECCOMP | 1u << LAYER_NET_LANDLOCK);
	out->net_off = out->net_layers;
	if (out->net_off & netns)
		out->net_off &= ~(1u << LAYER_NET_LANDLOCK);
	out->net_whole = (out->net_off & (netns | 1u << LAYER_NET_SECCOMP)) != 0;
	out->net_own_loopback = (out->net_off & netns) != 0;
}

static void ll_probe_with(const struct probe_opts *o, struct backend_probe *out)
{
	if (o->early)
		ll_probe_start();
	if (o->confirmed != 0)
		ll_confirm(o->confirmed);
	if (o->settle)
		ll_settle();
	if (out == NULL || o->early)
		return;
	ll_probe(o->max_abi, out);
	if (out->available)
		ll_coverage(out->abi, &out->cov);
	/* The trial made an overlay; whether one can be made on this home
	 * is the home's own (mounts below it). */
	if (out->available && o->scratch_home != NULL &&
	    (out->cov.layers & (1u << LAYER_SCRATCH_HOME)) && !scratchhome_home_ok(o->scratch_home))
		out->cov.layers &= ~(1u << LAYER_SCRATCH_HOME);
}

/* ---- the run ---- */

static void plan_free(void *state)
{
	struct linux_plan *plan = state;
	if (plan == NULL)
		return;
	runner_free(plan->runner);
	supervisor_free(plan->supervisor);
	limits_free(&plan->limits);
	mountns_free(plan->mount);
	devpts_free(plan);
	landlock_free(&plan->landlock);
	for (size_t i = 0; i < plan->nmqueue; i++)
		free(plan->mqueue[i]);
	free(plan->mqueue);
	free(plan);
}

/* ---- the run's thread, started early ---- */

/* The filter the run's thread carries for a decision's layers (as
 * ll_prepare selects them and their prepare functions set the plan: the
 * same groups as the plan's supervisor and seccomp_groups); it holds
 * SCG_UNIX_NOTIFY exactly when the run has the supervisor. *need:
 * whether the run has that thread (a PID namespace or the supervisor). */
static unsigned run_groups(unsigned layers_on, int network_off, int *need)
{
	int pidns = (layers_on & (1u << LAYER_PIDNS)) != 0;
	int sup = (layers_on & (1u << LAYER_UNIX_SUPERVISOR)) != 0;
	int netns = (layers_on & (1u << LAYER_NETNS)) != 0 && network_off;
	*need = pidns || sup;
	unsigned g = sup ? SCG_UNIX_NOTIFY | SCG_IO_URING : 0;
	if (layers_on & (1u << LAYER_SECCOMP))
		g |= seccomp_groups_for(pidns, network_off, netns, userns_by_filter(layers_on));
	return g;
}

/* The run's thread and its supervisor, started at the top of the run:
 * their setup (two threads, a keyring, the filter the kernel compiles:
 * 0.5-0.9 ms on a slow machine) needs nothing of the run's policy, so it
 * runs beside the parent's own preparation (home, policy, the run's
 * dir), and prepare adopts it when the decision is still the one it was
 * made for. Not while a trial child started early has not been collected:
 * deciding would wait for it (plan() tries again once its decide has the
 * answer; the process's later runs start it at their top). */
struct early_run {
	struct linux_runner *runner;
	struct supervisor *sup;
	unsigned groups;
};

static void ll_prestart_free(void *v)
{
	struct early_run *e = v;
	if (e == NULL)
		return;
	runner_free(e->runner);
	supervisor_free(e->sup);
	free(e);
}

static void *ll_prestart(int max_abi, int network_off)
{
	pthread_mutex_lock(&probed.lock);
	int trial = trial_started && !trial_settled;
	pthread_mutex_unlock(&probed.lock);
	if (trial)
		return NULL;
	struct backend_probe pr;
	struct coverage cov;
	ll_probe(max_abi, &pr);
	if (!pr.available)
		return NULL;
	ll_coverage(pr.abi, &cov);
	int need = 0;
	unsigned groups = run_groups(cov.layers, network_off, &need);
	struct early_run *e = need ? calloc(1, sizeof(*e)) : NULL;
	if (e == NULL)
		return NULL;
	e->groups = groups;
	if ((groups & SCG_UNIX_NOTIFY) && (e->sup = supervisor_new()) == NULL) {
		free(e);
		return NULL;
	}
	if ((e->runner = runner_launch(e->sup, groups)) == NULL) {
		ll_prestart_free(e);
		return NULL;
	}
	return e;
}

/* The child's hook: every prepared layer, in the table's order. A child
 * that joined the run's namespaces (linux-runner.c) finds the mount
 * layer's view, the IPC and network namespaces made: it copies the view
 * for a /proc (mountns_join mounts it) and a devpts of its own. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int apply_all(const void *state)
{
	const struct linux_plan *plan = state;
	int joined = runner_joining(plan);
	/* Into the run's cgroups before anything else: nothing of the run
	 * runs, or forks, outside them. */
	int e = limits_enter(plan);
	if (e != 0)
		return e;
	for (size_t i = 0; i < NLAYERS; i++) {
		enum layer_id id = layers[i].id;
		/* The rlimits once the namespaces are made (RLIMIT_NPROC counts
		 * in the run's user namespace, and bounds it from the outside
		 * by what the creator's limit was). */
		if (id == LAYER_NO_NEW_PRIVS && (e = limits_apply(plan)) != 0)
			return e;
		if (!(plan->prepared & (1u << id)))
			continue;
		if (joined && id == LAYER_MOUNTNS)
			e = mountns_join(plan);
		else if (joined && (id == LAYER_PIDNS || id == LAYER_IPCNS || id == LAYER_NETNS ||
				    id == LAYER_PRIVATE_TMP))
			e = 0;
		else
			e = layers[i].apply(plan);
		if (e != 0)
			return e;
	}
	return 0;
}

static int ll_prepare(const struct run_spec *run, struct run_result *res)
{
	const struct policy *p = run->pol;
	const struct decision *d = run->dec;
	struct launch *out = &res->launch;
	struct linux_plan *plan = calloc(1, sizeof(*plan));
	if (plan == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	plan->init_fd = -1;
	plan->landlock.read_fd = -1;
	plan->proxy_sock = -1;
	out->state = plan;
	out->release = plan_free;
	out->hook = apply_all;
	/* The run's thread started early, if it was made for these layers
	 * (the same groups: the same filter, and a supervisor, which is the
	 * plan's, when the groups notify): supervisor_prepare fills it in. */
	struct early_run *early = run->started;
	int need = 0;
	unsigned groups = run_groups(d->cov.layers, p->network_off, &need);
	res->started_taken = 1;
	if (early != NULL && need && early->groups == groups) {
		plan->supervisor = early->sup;
		plan->runner = early->runner;
		res->started_adopted = 1;
		free(early);
	} else {
		ll_prestart_free(early);
	}
	for (size_t i = 0; i < NLAYERS; i++) {
		/* Only the layers the decision reports; Landlock and
		 * no_new_privs always (the decision needs them). */
		if (!layers[i].essential && !(d->cov.layers & (1u << layers[i].id)))
			continue;
		int r = layers[i].prepare(run, res, plan);
		if (r != 0)
			return r;
		plan->prepared |= 1u << layers[i].id;
	}
	int r = limits_prepare(run, res, plan);
	if (r != 0)
		return r;
	/* The child needs the writable entries' fds until its hook ran, the
	 * run's cgroups' and process 1 the init program's. */
	out->keep_fds = calloc(plan->landlock.n + 3 + LIMITS_MAX_CGROUPS, sizeof(int));
	if (out->keep_fds == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	memcpy(out->keep_fds, plan->landlock.fds, plan->landlock.n * sizeof(int));
	out->nkeep = plan->landlock.n;
	for (size_t i = 0; i < plan->limits.ndirs; i++)
		out->keep_fds[out->nkeep++] = plan->limits.procs_fd[i];
	if (plan->init_fd >= 0)
		out->keep_fds[out->nkeep++] = plan->init_fd;
	if (plan->landlock.read_fd >= 0)
		out->keep_fds[out->nkeep++] = plan->landlock.read_fd;
	if ((plan->prepared & (1u << LAYER_NETNS)) && plan->proxy_sock >= 0)
		out->keep_fds[out->nkeep++] = plan->proxy_sock; /* the listener goes over it */
	if (need) {
		plan->seccomp_on_runner = plan->seccomp.len > 0;
		int e = plan->runner != NULL ? runner_adopt(plan->runner, plan) : 0;
		if (plan->runner == NULL &&
		    (plan->runner = runner_new(plan, plan->supervisor, groups)) == NULL)
			e = errno;
		if (e != 0)
			return backend_fail_errno(res, CORDON_ESYS, e,
						  "cannot start the run's thread");
		out->start = runner_start;
		out->after_exec = runner_after_exec;
	}
	if (plan->pid_namespace) {
		if (plan->mount != NULL)
			plan->mount->userns_at_clone = plan->mount->userns;
		out->init = pidns_become_init;
	}
	return 0;
}

const struct backend cordon_backend_landlock = {
	.id = BACKEND_LANDLOCK,
	.probe = ll_probe_with,
	.prepare = ll_prepare,
	.start = ll_prestart,
	.release = ll_prestart_free,
	.cache_layers = cachemount_usable,
};

#else
/* Not Linux: no Landlock code at all in this build. */
typedef int cordon_no_landlock_here;
#endif
