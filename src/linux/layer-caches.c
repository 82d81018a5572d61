/*
 * The tool caches seen through overlays, a part of the mount layer (the
 * shared layers themselves, their run dirs and the merge at the run's
 * end: src/core/cachelayer.c).
 *
 * In the command's mount namespace each such cache is an overlay mounted
 * on the cache's own path:
 *
 *   lower  STATE/layers/NAME/shared (cordon's layer: what earlier
 *          confined runs added), then the user's cache itself. Overlayfs
 *          never writes a lower layer: no write of the run reaches the
 *          user's cache, which unconfined programs later run, link or
 *          load from.
 *   upper  STATE/layers/NAME/.run-ID/sK/upper, with its work dir beside
 *          it: K is the first number free, made by the child itself, so
 *          two mount namespaces (two runs, or two spawns of a run that
 *          made namespaces of their own) never share an upper dir.
 *
 * In mountns_apply's order (layer-mountns.c): after the writable binds,
 * before --review's overlay on the workspace (a cache inside the
 * workspace is then hidden by it, and its writes held with the
 * workspace's), the scratch home's overlay (which binds these over
 * itself, as it does the writable trees under the home) and the covers.
 * Each is one of overlay.c's held overlays (ovl_held_mount): the run's
 * dir .run-ID bound read-write for a moment, the slot sK made in it, the
 * overlay mounted from there with its layers named relative to sK
 * ("../../shared" leaves the bind through its mount point: the layer
 * dir), the bind unmounted again: the command never reaches the state
 * dir.
 *
 * Options: nosuid, nodev (the cache keeps its programs runnable: npx and
 * Playwright run from theirs); metacopy=off and index=off, so the upper
 * dir holds whole files the merge can move into a lower layer; volatile
 * (Linux 5.10): an overlay's unmount syncs its upper file system whole
 * (ovl_sync_fs), a cost that grows with everything dirty on the state
 * dir's file system, not with the run; an upper dir is never mounted
 * again, so the only loss is durability after a crash of the machine
 * (a file of the layer may be left truncated: remove STATE/layers);
 * redirect_dir=nofollow (the default with userxattr, which refuses "off"):
 * renaming a directory the run did not make fails with EXDEV and tools
 * copy instead; in a user namespace userxattr (the overlay's marks are
 * user.overlay.* xattrs). Landlock rules are made on inodes, and the
 * overlay's differ from the cache's: the child grants each overlay's
 * root in its own ruleset, after mounting it (landlock.c); the parent
 * grants the cache itself nothing.
 *
 * Whether overlays can be made with their upper dirs where the state dir
 * is (not on NFS, an overlay, or a tmpfs without user xattrs...) is tried
 * once per file system and user namespace mode, in a throw-away child,
 * and the answer kept in STATE/layers (cachemount_usable).
 */
#include "linux-layers.h"
#include "path.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#define CORDON_SYS_mount_setattr 442
#define CORDON_MOUNT_ATTR_RDONLY 0x00000001ULL

struct caches_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* ---- pure ---- */

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int cachemount_options(const char *cache, int userns, char *out, size_t size)
{
	size_t at = 0;
	if (size == 0)
		return -1;
	out[0] = '\0';
	if (ovl_put(out, size, &at, "lowerdir=../../shared:") != 0 ||
	    ovl_put_escaped(out, size, &at, cache) != 0 ||
	    ovl_put(out, size, &at,
		    ",upperdir=upper,workdir=work,metacopy=off,index=off,volatile") != 0 ||
	    ovl_put(out, size, &at, userns ? ",userxattr" : ",redirect_dir=nofollow") != 0)
		return -1;
	return 0;
}

/* ---- parent: the plan ---- */

int cachemount_prepare(const struct run_spec *run, struct run_result *res, struct mount_plan *m)
{
	const struct policy *p = run->pol;
	size_t n = 0;
	for (size_t i = 0; i < p->nw; i++)
		n += p->w[i].layer != NULL;
	if (n == 0)
		return 0;
	if ((m->cmounts = calloc(n, sizeof(*m->cmounts))) == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nw; i++) {
		const struct wentry *w = &p->w[i];
		char opts[4096];
		struct stat st;
		if (w->layer == NULL)
			continue;
		struct ovl_held *cm = &m->cmounts[m->ncmounts++];
		if (stat(w->path, &st) != 0 || !S_ISDIR(st.st_mode))
			return backend_fail(res, CORDON_ESYS, "the tool cache %s changed", w->path);
		cm->mode = st.st_mode & 07777;
		cm->uid = st.st_uid;
		cm->gid = st.st_gid;
		/* A mount's options fit in a page. */
		if (cachemount_options(w->path, m->userns, opts, sizeof(opts)) != 0)
			return backend_fail(res, CORDON_EINVAL,
					    "the tool cache's path is too long for an overlay's "
					    "options: %s (--cache without it)",
					    w->path);
		if ((cm->target = strdup(w->path)) == NULL ||
		    (cm->rundir = strdup(w->layer->rundir)) == NULL ||
		    (cm->opts = strdup(opts)) == NULL)
			return backend_fail(res, CORDON_ENOMEM, "out of memory");
	}
	return 0;
}

void cachemount_free(struct mount_plan *m)
{
	for (size_t i = 0; i < m->ncmounts; i++) {
		free(m->cmounts[i].target);
		free(m->cmounts[i].rundir);
		free(m->cmounts[i].opts);
	}
	free(m->cmounts);
	m->cmounts = NULL;
	m->ncmounts = 0;
}

/* ---- child ---- */

/* Each overlay from a fresh slot of its run dir (overlay.c). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int cachemount_apply(const struct mount_plan *m)
{
	int e = 0;
	for (size_t i = 0; e == 0 && i < m->ncmounts; i++)
		e = ovl_held_mount(&m->cmounts[i]);
	return e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int cachemount_grant(const struct linux_plan *plan, int ruleset, uint64_t rights)
{
	const struct mount_plan *m = plan->mount;
	for (size_t i = 0; m != NULL && rights != 0 && i < m->ncmounts; i++) {
		int e = landlock_grant_path(m->cmounts[i].target, ruleset, rights);
		if (e != 0)
			return e;
	}
	return 0;
}

/* ---- whether overlays work where the state dir is ---- */

struct usable_trial {
	int userns;
	char uid_map[48], gid_map[48];
	struct ovl_held cm; /* lower/ of the trial dir, seen through an overlay */
	char file[CORDON_PATH_MAX], dir[CORDON_PATH_MAX], inner[CORDON_PATH_MAX],
		made[CORDON_PATH_MAX];
};

/* The trial's child: the mount layer's namespaces and read-only view,
 * the overlay as a run makes it, then what the merge relies on: a file
 * made, one removed (a whiteout), a directory replaced (opaque). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int usable_child(void *arg)
{
	struct usable_trial *t = arg;
	struct caches_mount_attr ro = { CORDON_MOUNT_ATTR_RDONLY, 0, 0, 0 };
	struct mount_plan m;
	int fd;
	if (unshare(CLONE_NEWNS | (t->userns ? CLONE_NEWUSER : 0)) != 0)
		return 10;
	if (t->userns && (mountns_write_file("/proc/self/setgroups", "deny") != 0 ||
			  mountns_write_file("/proc/self/uid_map", t->uid_map) != 0 ||
			  mountns_write_file("/proc/self/gid_map", t->gid_map) != 0))
		return 11;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    syscall(CORDON_SYS_mount_setattr, AT_FDCWD, "/", 0x8000 /* AT_RECURSIVE */, &ro,
		    sizeof(ro)) != 0)
		return 12;
	memset(&m, 0, sizeof(m));
	m.cmounts = &t->cm;
	m.ncmounts = 1;
	if (cachemount_apply(&m) != 0)
		return 13;
	if ((fd = open(t->made, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		return 14;
	close(fd);
	if (unlink(t->file) != 0 || unlink(t->inner) != 0 || rmdir(t->dir) != 0 ||
	    mkdir(t->dir, 0700) != 0)
		return 15;
	return 0;
}

/* What the trial left in the upper dir is what the merge reads: a
 * whiteout for the file, the opaque mark on the directory (in the xattr
 * namespace cordon reads), the new file. */
static int usable_upper(const char *base, int userns)
{
	char up[CORDON_PATH_MAX], p[CORDON_PATH_MAX], v[4];
	struct stat st;
	if (path_join(up, sizeof(up), base, "run/s0/upper") != 0 ||
	    path_join(p, sizeof(p), up, "f") != 0 || lstat(p, &st) != 0 || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != 0)
		return 0;
	if (path_join(p, sizeof(p), up, "d") != 0 ||
	    lgetxattr(p, userns ? "user.overlay.opaque" : "trusted.overlay.opaque", v, sizeof(v)) !=
		    1 ||
	    v[0] != 'y')
		return 0;
	return path_join(p, sizeof(p), up, "n") == 0 && lstat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The trial's tree in base: lower/ (f, d/g), run/, shared/, and the
 * paths the child acts on. 0 or -1. */
static int trial_tree(const char *base, struct usable_trial *t, char *lower, char *run)
{
	char shared[CORDON_PATH_MAX];
	int fd;
	if (path_join(lower, CORDON_PATH_MAX, base, "lower") != 0 ||
	    path_join(run, CORDON_PATH_MAX, base, "run") != 0 ||
	    path_join(shared, sizeof(shared), base, "shared") != 0 ||
	    path_join(t->file, sizeof(t->file), lower, "f") != 0 ||
	    path_join(t->dir, sizeof(t->dir), lower, "d") != 0 ||
	    path_join(t->inner, sizeof(t->inner), t->dir, "g") != 0 ||
	    path_join(t->made, sizeof(t->made), lower, "n") != 0)
		return -1;
	if (mkdir(lower, 0700) != 0 || mkdir(run, 0700) != 0 || mkdir(shared, 0700) != 0 ||
	    mkdir(t->dir, 0700) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if ((fd = open(i ? t->inner : t->file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* The trial in a fresh dir of dir: 1 when it held, 0 when not, -1 when
 * it could not be told (no memory, a timeout: not kept). */
static int usable_try(const char *dir, int userns)
{
	char base[CORDON_PATH_MAX], lower[CORDON_PATH_MAX], run[CORDON_PATH_MAX], opts[4096];
	int r = -1, status;
	if (path_join(base, sizeof(base), dir, ".trial-XXXXXX") != 0 || mkdtemp(base) == NULL)
		return -1;
	struct usable_trial *t = calloc(1, sizeof(*t));
	void *stack = malloc(CHILD_STACK_SIZE);
	if (t != NULL && stack != NULL && trial_tree(base, t, lower, run) == 0 &&
	    cachemount_options(lower, userns, opts, sizeof(opts)) == 0) {
		mountns_identity(&t->userns, t->uid_map, t->gid_map, sizeof(t->uid_map));
		t->userns = userns;
		t->cm = (struct ovl_held){ lower, run, opts, 0700, geteuid(), getegid() };
		pid_t pid = child_start(usable_child, t, stack, CHILD_STACK_SIZE, 0);
		if (pid > 0 && reap_with_timeout(pid, &status, 2000) == 0)
			r = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			    usable_upper(base, userns);
	}
	free(stack);
	free(t);
	struct rm_budget b = { 4096, 0, NULL, 0, 0, 0 };
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		(void)remove_tree_at(dfd, strrchr(base, '/') + 1, -1, -1, &b);
		close(dfd);
	}
	return r;
}

int cachemount_usable(const struct decision *d, const char *dir)
{
	char name[96], want[128], got[128];
	struct stat st;
	struct utsname u;
	int userns;
	char map[48];
	if (!(d->cov.layers & (1u << LAYER_MOUNTNS)) || stat(dir, &st) != 0 || uname(&u) != 0)
		return 0;
	mountns_identity(&userns, map, map, sizeof(map));
	/* Kept per file system and kind of mount (userxattr or not), for
	 * this kernel. */
	snprintf(name, sizeof(name), "%s/.overlay-%llx-%s", dir, (unsigned long long)st.st_dev,
		 userns ? "user" : "root");
	snprintf(want, sizeof(want), "%.100s", u.release);
	int fd = open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, got, sizeof(got) - 1);
		close(fd);
		got[n > 0 ? n : 0] = '\0';
		size_t wl = strlen(want);
		if (n > 2 && strncmp(got, want, wl) == 0 && got[wl] == ' ')
			return got[wl + 1] == '1';
	}
	int r = usable_try(dir, userns);
	if (r < 0)
		return 0;
	if ((fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0) {
		dprintf(fd, "%s %d\n", want, r);
		close(fd);
	}
	return r;
}

#else
typedef int cordon_no_cache_mounts_here;
#endif
