/*
 * Linux backend: Landlock and the layers around it, as one ordered table.
 *
 * Each layer is probed once per process (all in one throw-away child,
 * linux-probe.c), prepared in the parent once per run, and applied in
 * each command's child in the table's order, the last steps before exec.
 * A layer the probe found unavailable is left out and its gaps reported;
 * without an essential one there is no confinement at all. A layer the
 * probe allowed but the child then fails to apply stops the child: the
 * command never runs with less than the status event says.
 *
 * The order matters: the mount layer needs CAP_SYS_ADMIN (in its new
 * user namespace, or as root), so it comes before no_new_privs and the
 * capability reduction; Landlock forbids mount changes once applied, and
 * the seccomp filter needs no_new_privs.
 */
#include "backend.h"

#if defined(__linux__)

#include "linux-layers.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int nnp_trial(const struct linux_trial *t)
{
	(void)t;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
}

static int nnp_prepare(cordon *c, const struct policy *p, const struct decision *d,
		       struct linux_plan *plan)
{
	(void)c;
	(void)p;
	(void)d;
	plan->no_new_privs = 1;
	return 0;
}

static int nnp_apply(const struct linux_plan *plan)
{
	if (plan->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	return 0;
}

struct linux_layer {
	enum layer_id id; /* reported in layers when applied */
	unsigned gaps_without; /* reported in gaps when it is not */
	int essential; /* no confinement without it */
	/* The probe's child: 0 when it could be applied, or errno. NULL:
	 * nothing to try (it is decided in prepare). */
	int (*trial)(const struct linux_trial *t);
	/* Parent, once per run: its part of the plan. 0 or CORDON_E*. */
	int (*prepare)(cordon *c, const struct policy *p, const struct decision *d,
		       struct linux_plan *plan);
	/* Child: async-signal-safe; 0 or errno. */
	int (*apply)(const struct linux_plan *plan);
};

/* The layers, in the order the child applies them. */
static const struct linux_layer layers[] = {
	{ LAYER_MOUNTNS, 1u << GAP_METADATA, 0, mountns_trial, mountns_prepare, mountns_apply },
	{ LAYER_NO_NEW_PRIVS, 0, 1, nnp_trial, nnp_prepare, nnp_apply },
	{ LAYER_CAPABILITIES, 0, 0, NULL, caps_prepare, caps_apply },
	{ LAYER_LANDLOCK, 0, 1, landlock_trial, landlock_prepare, landlock_apply },
	{ LAYER_SECCOMP, 1u << GAP_TERMINAL, 0, seccomp_trial, seccomp_prepare, seccomp_apply },
};
#define NLAYERS (sizeof(layers) / sizeof(layers[0]))

/* ---- the probe ---- */

struct trial_io {
	struct linux_trial in;
	int res[NLAYERS]; /* 0 or errno, per layer */
};

/* The throw-away child: every layer's trial, in order (later trials rely
 * on earlier ones, e.g. seccomp on no_new_privs). */
static int trial_main(void *arg)
{
	struct trial_io *io = arg;
	for (size_t i = 0; i < NLAYERS; i++)
		io->res[i] = layers[i].trial != NULL ? layers[i].trial(&io->in) : 0;
	_exit(0);
}

/* The kernel's answer, asked once per process. */
static struct {
	int kernel_abi; /* > 0, or -errno of the version query */
	int ran; /* the trial child ran to its end in time */
	int res[NLAYERS];
} probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void start(void)
{
	int saved = errno;
	probed.kernel_abi = landlock_query_abi();
	/* ABI 1 is not used (see ll_probe): nothing to try. */
	if (probed.kernel_abi >= 2) {
		struct trial_io io;
		memset(&io, 0, sizeof(io));
		int abi = probed.kernel_abi < LL_ABI_KNOWN ? probed.kernel_abi : LL_ABI_KNOWN;
		mountns_identity(&io.in.userns, io.in.uid_map, io.in.gid_map,
				 sizeof(io.in.uid_map));
		landlock_attr_for_abi(abi, &io.in.attr);
		io.in.seccomp = seccomp_program();
		for (size_t i = 0; i < NLAYERS; i++)
			io.res[i] = -1;
		probe_trial_start(trial_main, &io, sizeof(io));
	}
	errno = saved;
}

static void collect(void)
{
	(void)pthread_once(&start_once, start); /* when nobody started it early */
	const struct trial_io *io = probe_trial_collect();
	probed.ran = io != NULL;
	for (size_t i = 0; i < NLAYERS; i++)
		probed.res[i] = io != NULL ? io->res[i] : -1;
}

static void ll_probe_start(void)
{
	(void)pthread_once(&start_once, start);
}

static int layer_ok(size_t i)
{
	return layers[i].trial == NULL || probed.res[i] == 0;
}

static void ll_probe(int max_abi, struct backend_probe *out)
{
	(void)pthread_once(&probe_once, collect);
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
	for (size_t i = 0; i < NLAYERS; i++)
		if (layers[i].essential && (!probed.ran || !layer_ok(i))) {
			out->reason = REASON_LANDLOCK_BLOCKED;
			return;
		}
	out->available = 1;
}

static void ll_coverage(int abi, struct coverage *out)
{
	int mount_layer = 0;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < NLAYERS; i++) {
		if (!layer_ok(i)) {
			out->gaps |= layers[i].gaps_without;
			continue;
		}
		/* Root's capabilities are reduced only when there are some. */
		if (layers[i].id == LAYER_CAPABILITIES && !caps_would_reduce())
			continue;
		out->layers |= 1u << layers[i].id;
		mount_layer |= layers[i].id == LAYER_MOUNTNS;
	}
	landlock_coverage(abi, mount_layer, out);
	/* Not restricted by any layer yet. */
	out->gaps |= 1u << GAP_UNIX_SOCKETS | 1u << GAP_READS | 1u << GAP_NETWORK;
	/* Protected paths are read-only binds of the mount layer. */
	out->protects = mount_layer;
}

/* ---- the run ---- */

static void plan_free(void *state)
{
	struct linux_plan *plan = state;
	if (plan == NULL)
		return;
	mountns_free(plan->mount);
	landlock_free(&plan->landlock);
	free(plan);
}

/* The child's hook: every prepared layer, in the table's order. */
static int apply_all(const void *state)
{
	const struct linux_plan *plan = state;
	for (size_t i = 0; i < NLAYERS; i++) {
		if (layers[i].id == LAYER_MOUNTNS && plan->mount == NULL)
			continue;
		int e = layers[i].apply(plan);
		if (e != 0)
			return e;
	}
	return 0;
}

static int ll_prepare(cordon *c, const struct policy *p, const struct decision *d,
		      struct launch *out)
{
	struct linux_plan *plan = calloc(1, sizeof(*plan));
	if (plan == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	out->state = plan;
	out->release = plan_free;
	out->hook = apply_all;
	for (size_t i = 0; i < NLAYERS; i++) {
		/* Only the layers the decision reports; Landlock and
		 * no_new_privs always (the decision needs them). */
		if (!layers[i].essential && layers[i].id != LAYER_CAPABILITIES &&
		    !(d->cov.layers & (1u << layers[i].id)))
			continue;
		int r = layers[i].prepare(c, p, d, plan);
		if (r != 0)
			return r;
	}
	/* The child needs the writable entries' fds until its hook ran. */
	if (plan->landlock.n > 0) {
		out->keep_fds = calloc(plan->landlock.n, sizeof(int));
		if (out->keep_fds == NULL)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
		memcpy(out->keep_fds, plan->landlock.fds, plan->landlock.n * sizeof(int));
		out->nkeep = plan->landlock.n;
	}
	return 0;
}

const struct backend cordon_backend_landlock = {
	.id = BACKEND_LANDLOCK,
	.probe_start = ll_probe_start,
	.probe = ll_probe,
	.coverage = ll_coverage,
	.prepare = ll_prepare,
};

#else
/* Not Linux: no Landlock code at all in this build. */
typedef int cordon_no_landlock_here;
#endif
