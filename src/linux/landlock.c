/*
 * Landlock: the write ruleset (Linux).
 *
 * Only write-type rights are handled, so reads and execution are
 * unchanged everywhere (without the mount layer, the read layer of
 * landlock-reads.c keeps the denied paths out, as a layer of its own);
 * every handled right is granted on the writable set except device node
 * creation. The parent opens each writable entry once per run (O_PATH, close-on-exec) and decides
 * its rights; each command's child builds its own ruleset from those fds and restricts itself, as
 * its last step but seccomp. A ruleset of its own lets the child add its private /dev/shm, which
 * exists only in its mount namespace, without touching anything another child uses.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

int landlock_query_abi(void)
{
	long v = ll_create_ruleset(NULL, 0, LL_CREATE_RULESET_VERSION);
	return v > 0 ? (int)v : -errno;
}

/*
 * Write-type rights each ABI version added. ABI 4 added network rights,
 * ABI 6 scopes, ABI 7 logging flags and ABI 8 thread synchronisation:
 * none are file rights. ABI 9's RESOLVE_UNIX is not a write but reaches
 * a daemon that writes for the caller, so it is handled like one.
 */
static const uint64_t rights_added_at[LL_ABI_KNOWN + 1] = {
	[1] = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR |
	      LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO |
	      LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM,
	[2] = LL_FS_REFER,
	[3] = LL_FS_TRUNCATE,
	[5] = LL_FS_IOCTL_DEV,
	[9] = LL_FS_RESOLVE_UNIX,
};

void landlock_attr_for_abi(int abi, struct ll_ruleset_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	for (int v = 1; v <= abi && v <= LL_ABI_KNOWN; v++)
		attr->handled_access_fs |= rights_added_at[v];
	/* ABI 6: a scoped process cannot signal processes outside its
	 * Landlock domain, e.g. the agent that started it, nor connect or
	 * send to an abstract Unix socket bound outside it (X11, D-Bus,
	 * other agents' sockets); its own abstract sockets keep working. */
	if (abi >= 6)
		attr->scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET;
}

uint64_t landlock_net_rights(int abi)
{
	uint64_t r = 0;
	if (abi >= LL_ABI_NET_TCP)
		r |= LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if (abi >= LL_ABI_NET_UDP)
		r |= LL_NET_BIND_UDP | LL_NET_CONNECT_UDP;
	return r;
}

void landlock_coverage(int abi, int mount_layer, struct coverage *cov)
{
	/* Below ABI 3 truncate(2) is unchecked by Landlock; the mount
	 * layer's read-only mounts still refuse it outside. */
	if (abi < 3 && !mount_layer)
		cov->gaps |= 1ull << GAP_TRUNCATE;
	if (abi < 5)
		cov->gaps |= 1ull << GAP_DEVICE_IOCTL;
	if (abi >= 6)
		cov->layers |= 1u << LAYER_SIGNAL_SCOPE | 1u << LAYER_ABSTRACT_SCOPE;
	else
		cov->gaps |= 1ull << GAP_SIGNALS | 1ull << GAP_ABSTRACT_SOCKETS;
	if (abi >= 9)
		cov->layers |= 1u << LAYER_UNIX_LANDLOCK;
	/* TCP bind and connect (ABI 4), used by --network off without a
	 * network namespace. */
	if (landlock_net_rights(abi) != 0)
		cov->layers |= 1u << LAYER_NET_LANDLOCK;
}

/* Restricting with the ABI's empty ruleset shows the kernel allows it
 * (no_new_privs was set by the trial's previous layer). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int landlock_trial(const struct linux_trial *t)
{
	long fd = ll_create_ruleset(&t->attr, sizeof(t->attr), 0);
	if (fd < 0 || ll_restrict_self((int)fd) != 0)
		return errno;
	return 0;
}

/* The path of the k-th rule landlock_prepare made (caches seen through
 * overlays have none). */
static const char *rule_path(const struct policy *p, size_t k)
{
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].layer == NULL && k-- == 0)
			return p->w[i].path;
	return k < p->nsockets ? p->sockets[k] : "?";
}

int landlock_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *p = run->pol;
	const struct decision *d = run->dec;
	struct landlock_plan *l = &plan->landlock;
	landlock_attr_for_abi(d->abi, &l->attr);
	/* Everything handled is granted on the writable set except device
	 * node creation: a block device made in the workspace would give
	 * root raw writes to a disk. */
	uint64_t dir_rights = l->attr.handled_access_fs & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
	/* A rule on a file may only carry file rights (EINVAL otherwise). */
	uint64_t file_rights = dir_rights & LL_FS_FILE_RIGHTS;

	if (d->cov.layers & (1u << LAYER_MOUNTNS))
		l->own_rights = dir_rights;
	/* --network off without a network namespace: every TCP (ABI 10:
	 * and UDP) bind and connect refused, nothing granted. Beside the
	 * seccomp layer's refusal of IP sockets, for a kernel or architecture
	 * without it. */
	if (p->network_off && !plan->net_namespace)
		l->attr.handled_access_net = landlock_net_rights(d->abi);
	l->read_fd = -1;
	if (d->cov.denies_reads == DENY_BY_LANDLOCK) {
		int r = reads_prepare(p, l, res);
		if (r != 0)
			return r;
	}
	/* --allow-socket entries carry only RESOLVE_UNIX (ABI 9); below,
	 * the socket supervisor holds them. */
	size_t nsock = (l->attr.handled_access_fs & LL_FS_RESOLVE_UNIX) ? p->nsockets : 0;
	l->fds = calloc(p->nw + nsock + 1, sizeof(*l->fds));
	l->rights = calloc(p->nw + nsock + 1, sizeof(*l->rights));
	if (l->fds == NULL || l->rights == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nw + nsock; i++) {
		int is_sock = i >= p->nw;
		/* A cache seen through an overlay: the child grants the
		 * overlay's root (layer-caches.c), nothing the cache itself. */
		if (!is_sock && p->w[i].layer != NULL)
			continue;
		const char *path = is_sock ? p->sockets[i - p->nw] : p->w[i].path;
		struct stat st;
		int fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return backend_fail_errno(res, CORDON_ESYS, errno, "cannot open %s path %s",
						  is_sock ? "--allow-socket" : "writable", path);
		l->fds[l->n] = fd;
		if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode) ||
		    (!is_sock && (S_ISDIR(st.st_mode) ? 1 : 0) != (p->w[i].is_dir ? 1 : 0)))
			return backend_fail(res, CORDON_ESYS, "path changed while preparing: %s",
					    path);
		l->rights[l->n++] = is_sock	     ? LL_FS_RESOLVE_UNIX
				    : p->w[i].is_dir ? dir_rights
						     : file_rights;
	}
	/* One trial rule now: a path the kernel refuses is an error here, in
	 * the parent, not a confinement failure in every child. */
	long rs = ll_create_ruleset(&l->attr, sizeof(l->attr), 0);
	if (rs < 0)
		return backend_fail_errno(res, CORDON_ESYS, errno, "landlock_create_ruleset");
	for (size_t i = 0; i < l->n; i++) {
		struct ll_path_beneath_attr pb = { .allowed_access = l->rights[i],
						   .parent_fd = l->fds[i] };
		if (ll_add_rule((int)rs, &pb) != 0) {
			int e = errno;
			close((int)rs);
			return backend_fail_errno(res, CORDON_ESYS, e, "landlock_add_rule %s",
						  rule_path(p, i));
		}
	}
	close((int)rs);
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int landlock_apply(const struct linux_plan *plan)
{
	const struct landlock_plan *l = &plan->landlock;
	if (l->read_fd >= 0 && ll_restrict_self(l->read_fd) != 0)
		return errno;
	long rs = ll_create_ruleset(&l->attr, sizeof(l->attr), 0);
	int e = 0;
	if (rs < 0)
		return errno;
	for (size_t i = 0; e == 0 && i < l->n; i++) {
		struct ll_path_beneath_attr pb = { .allowed_access = l->rights[i],
						   .parent_fd = l->fds[i] };
		if (ll_add_rule((int)rs, &pb) != 0)
			e = errno;
	}
	/* The private /dev/shm and /dev/pts exist only in this child's mount
	 * namespace, so the parent cannot name them: the child grants the
	 * root of the tmpfs or devpts it has just mounted, in its own
	 * ruleset. (A symlinked /dev/shm is followed as the mount followed
	 * it.) */
	if (e == 0 && plan->mount != NULL && !plan->mount->shm_kept && l->own_rights != 0)
		e = landlock_grant_path("/dev/shm", (int)rs, l->own_rights);
	/* The private /tmp and /var/tmp: Landlock walks up from a bind
	 * mount's root past its mount point, so the root needs the rule. */
	for (size_t i = 0;
	     e == 0 && plan->mount != NULL && l->own_rights != 0 && i < plan->mount->nviews; i++)
		e = landlock_grant_path(plan->mount->views[i].view, (int)rs, l->own_rights);
	/* --max-tmp: the tmpfs on the run's dir (the parent's rule is on the
	 * directory under it). */
	if (e == 0 && plan->mount != NULL && plan->mount->tmpfs_on != NULL && l->own_rights != 0)
		e = landlock_grant_path(plan->mount->tmpfs_on, (int)rs, l->own_rights);
	/* The caches' overlays (layer-caches.c), likewise. */
	if (e == 0)
		e = cachemount_grant(plan, (int)rs, l->own_rights);
	/* The scratch home's overlay (layer-scratchhome.c), likewise. */
	if (e == 0 && scratchhome_path(plan) != NULL && l->own_rights != 0)
		e = landlock_grant_path(scratchhome_path(plan), (int)rs, l->own_rights);
	/* --review's overlay on the workspace (layer-review.c), likewise. */
	if (e == 0 && l->own_rights != 0)
		e = review_grant(plan, (int)rs, l->own_rights);
	/* /dev/ptmx is a bind of the private devpts's ptmx: Landlock walks
	 * up from a bind mount's root past its mount point, so the file
	 * itself needs the rule. */
	if (e == 0 && plan->devpts && l->own_rights != 0)
		e = landlock_grant_path("/dev/pts", (int)rs, l->own_rights);
	if (e == 0 && plan->devpts && l->own_rights != 0)
		e = landlock_grant_path("/dev/ptmx", (int)rs, l->own_rights & LL_FS_FILE_RIGHTS);
	if (e == 0 && ll_restrict_self((int)rs) != 0)
		e = errno;
	close((int)rs);
	return e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int landlock_nest(int abi)
{
	/* Every layer refuses renames and links across directories unless
	 * a rule of its own grants REFER: this one grants it on the whole
	 * tree, so the outer layer alone decides. It handles nothing else
	 * but block device creation, which the outer layer refuses too. */
	struct ll_ruleset_attr attr = { .handled_access_fs = LL_FS_MAKE_BLOCK | LL_FS_REFER,
					.scoped = abi >= 6 ? LL_SCOPE_SIGNAL : 0 };
	int root = open("/", O_PATH | O_CLOEXEC);
	if (root < 0)
		return errno;
	long fd = ll_create_ruleset(&attr, sizeof(attr), 0);
	int e = fd < 0 ? errno : 0;
	struct ll_path_beneath_attr pb = { .allowed_access = LL_FS_REFER, .parent_fd = root };
	if (e == 0 && ll_add_rule((int)fd, &pb) != 0)
		e = errno;
	if (e == 0 && ll_restrict_self((int)fd) != 0)
		e = errno;
	if (fd >= 0)
		close((int)fd);
	close(root);
	return e;
}

void landlock_free(struct landlock_plan *l)
{
	for (size_t i = 0; i < l->n; i++)
		close(l->fds[i]);
	if (l->read_fd >= 0)
		close(l->read_fd);
	free(l->fds);
	free(l->rights);
	memset(l, 0, sizeof(*l));
	l->read_fd = -1;
}

#else
typedef int cordon_no_landlock_here;
#endif
