/*
 * --review, a part of the mount layer: in the command's mount namespace
 * the workspace is a held overlay (overlay.c) whose lower layer is the
 * real workspace and whose upper dir lies in the run's review dir under
 * the state dir (STATE/review/RUN_ID/sK/upper, on the state dir's file
 * system, out of the command's reach). The core (src/core/review.c)
 * reads the upper dirs at the run's end; cordon apply lands them.
 *
 * In mountns_apply's order (layer-mountns.c): after the writable binds
 * (the workspace's own bind is the lower layer; a writable tree inside
 * the workspace is hidden by the overlay, and so held too), before the
 * scratch home's overlay (which binds the workspace again from the home
 * as it was: the held overlay, the topmost mount there) and before the
 * protected paths, the pins and the deny-read covers, which are then made
 * on the overlay's names. The private /tmp carries the overlay (the
 * topmost mount at the workspace) when the workspace lies in /tmp.
 *
 * Options: nosuid, nodev; index=off and metacopy=off, so the upper dir
 * holds whole files and no index; redirect_dir=nofollow (with userxattr
 * the kernel's only choice): renaming a directory the run did not make
 * fails with EXDEV and tools copy instead, so the upper dir holds no
 * redirect to read. In a user namespace (not root) userxattr: the
 * overlay's marks are user.overlay.* xattrs, whiteouts 0/0 character
 * devices. Landlock rules are made on inodes and the overlay's differ
 * from the workspace's: the child grants the overlay's root in its own
 * ruleset, after mounting it (landlock.c).
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int review_options(const char *workspace, int userns, char *out, size_t size)
{
	size_t at = 0;
	if (size == 0)
		return -1;
	out[0] = '\0';
	if (ovl_put(out, size, &at, "lowerdir=") != 0 ||
	    ovl_put_escaped(out, size, &at, workspace) != 0 ||
	    ovl_put(out, size, &at, ",upperdir=upper,workdir=work,index=off,metacopy=off") != 0 ||
	    ovl_put(out, size, &at, userns ? ",userxattr" : ",redirect_dir=nofollow") != 0)
		return -1;
	return 0;
}

/* File systems overlayfs refuses as an upper layer (or where it would
 * misbehave): the name, or NULL for one that is not known to. Pure. */
const char *review_upper_unfit(long f_type)
{
	static const struct {
		long magic;
		const char *name;
	} unfit[] = {
		{ 0x794c7630, "overlayfs" }, { 0x6969, "NFS" },
		{ 0x65735546, "FUSE" },	     { (long)0xff534d42, "CIFS" },
		{ 0xfe534d42, "SMB2" },	     { 0x01021997, "9p" },
		{ 0x517b, "SMB" },	     { 0x73717368, "squashfs" },
		{ 0x9660, "ISO 9660" },
	};
	for (size_t i = 0; i < sizeof(unfit) / sizeof(unfit[0]); i++)
		if (unfit[i].magic == f_type)
			return unfit[i].name;
	return NULL;
}

int review_prepare(const struct run_spec *run, struct run_result *res, struct mount_plan *m)
{
	const struct policy *p = run->pol;
	char opts[4096];
	struct stat st;
	if (run->review_dir == NULL)
		return 0;
	struct statfs sf;
	const char *unfit =
		statfs(run->review_dir, &sf) == 0 ? review_upper_unfit((long)sf.f_type) : NULL;
	if (p->workspace == NULL || stat(p->workspace, &st) != 0 || !S_ISDIR(st.st_mode))
		return backend_fail(res, CORDON_ESYS, "--review: the workspace %s changed",
				    p->workspace != NULL ? p->workspace : "");
	if (unfit != NULL)
		return backend_fail(
			res, CORDON_EINVAL,
			"--review: the state dir's file system (%s, under %s) cannot hold "
			"an overlay's upper layer; give --state-dir on a local file "
			"system",
			unfit, run->review_dir);
	/* A mount's options fit in a page. */
	if (review_options(p->workspace, m->userns, opts, sizeof(opts)) != 0)
		return backend_fail(res, CORDON_EINVAL,
				    "--review: the workspace's path is too long for an overlay's "
				    "options: %s",
				    p->workspace);
	struct ovl_held *o = calloc(1, sizeof(*o));
	if (o == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	m->review = o;
	o->mode = st.st_mode & 07777;
	o->uid = st.st_uid;
	o->gid = st.st_gid;
	if ((o->target = strdup(p->workspace)) == NULL ||
	    (o->rundir = strdup(run->review_dir)) == NULL || (o->opts = strdup(opts)) == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	return 0;
}

void review_free(struct mount_plan *m)
{
	if (m->review == NULL)
		return;
	free(m->review->target);
	free(m->review->rundir);
	free(m->review->opts);
	free(m->review);
	m->review = NULL;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int review_grant(const struct linux_plan *plan, int ruleset, uint64_t rights)
{
	const struct mount_plan *m = plan->mount;
	if (m == NULL || m->review == NULL || rights == 0)
		return 0;
	return landlock_grant_path(m->review->target, ruleset, rights);
}

#else
typedef int cordon_no_review_layer_here;
#endif
