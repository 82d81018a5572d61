/*
 * The scratch home (--scratch-home), a part of the mount layer: in the
 * command's mount namespace the home is an overlay whose lower layer is
 * the real home (never written: overlayfs only reads a lower layer) and
 * whose upper layer is a tmpfs of the run's own, so writes under the
 * home succeed and are gone with the namespace, at the run's end.
 *
 * In mountns_apply's order (layer-mountns.c): after the writable binds,
 * before the protected paths and the deny-read covers, which are then
 * made on the overlay's names:
 *
 *   1. a tmpfs on the run's dir, for a moment: upper/ and work/ in it
 *      (the upper directory's mode and owner are the home's: they are the
 *      overlay root's). Overlayfs refuses an upper layer below its lower
 *      one (the run's dir is under the home by default: ELOOP), and a
 *      tmpfs is a file system of its own.
 *   2. the overlay on the home (nosuid, nodev; noexec when the home was);
 *      it keeps a private clone of the upper mount, so the tmpfs is then
 *      unmounted from the run's dir, reached through the home as it was
 *      before the overlay (an fd opened first, as the cwd).
 *   3. each writable tree or file under the home (the workspace, the run's
 *      dir, the caches, --allow-write) is bound again over the overlay
 *      from the home as it was: they stay the real, writable ones (a
 *      cache seen through an overlay of its own, layer-caches.c, is that
 *      overlay, mounted before this one).
 *
 * Landlock rules are made on inodes, and the overlay's differ from the
 * real home's: the child grants the overlay's root in its own ruleset
 * (landlock.c), after mounting it; the rebound trees keep the rules the
 * parent made on their real inodes. The overlay's own operations on its
 * layers run with the credentials of its mounter, the child before it
 * restricted itself.
 *
 * In a user namespace (not root) the overlay keeps its metadata in
 * "user.overlay.*" xattrs (userxattr), which tmpfs holds from Linux 6.6;
 * before, removing a directory of the real home inside may fail (EIO).
 */
#include "linux-layers.h"
#include "path.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct scratch_home {
	char *home; /* the home, canonical */
	char *tmp; /* where the upper tmpfs is mounted for a moment: the run's dir */
	char *tmp_rel; /* tmp below the home, relative to it, or NULL */
	char *opts; /* the overlay's options */
	unsigned long flags; /* its mount flags */
	mode_t mode; /* the home's mode, owner and group */
	uid_t uid;
	gid_t gid;
	char **rel, **abs; /* writable entries under the home: name below it, path */
	size_t n;
};

int scratchhome_holds(const struct scratch_home *h, const char *path)
{
	return path_within(h->home, path);
}

/* The options of the overlay on home, its upper and work directories
 * named relative to the tmpfs (the child's cwd when it mounts). A mount's
 * options fit in a page. 0 or -1. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int scratchhome_options(const char *home, int userns, char *out, size_t size)
{
	size_t at = 0;
	out[0] = '\0';
	if (ovl_put(out, size, &at, "lowerdir=") != 0 ||
	    ovl_put_escaped(out, size, &at, home) != 0 ||
	    ovl_put(out, size, &at, ",upperdir=upper,workdir=work") != 0 ||
	    (userns && ovl_put(out, size, &at, ",userxattr") != 0))
		return -1;
	return 0;
}

/* The trial (after the mount layer's, in its namespace): an overlay with
 * a tmpfs upper layer, as a run makes on the home, and a file written
 * into a directory of its lower layer (copied up, as writes under a home
 * are). Its lower layer is a directory of the trial's own tmpfs, with
 * nothing mounted below it: not "/", whose mounts below (/proc, /dev...)
 * a user namespace inherits locked, so that the kernel refuses it as a
 * lower layer (EINVAL: clone_private_mount), which no run does. Whether
 * a home has such mounts is the run's own question (scratchhome_home_ok),
 * asked by the run and by the probe alike. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int scratchhome_trial(const struct linux_trial *t)
{
	static const char *const dirs[] = { "/tmp", "/var/tmp", "/mnt", "/run" };
	char opts[64];
	const char *d = NULL;
	struct stat st;
	int e = 0, fd;
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL;
	for (size_t i = 0; d == NULL && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
			d = dirs[i];
	if (d == NULL || scratchhome_options("lower", t->userns, opts, sizeof(opts)) != 0)
		return ENOENT;
	if (mount("cordon-trial", d, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0 ||
	    chdir(d) != 0)
		return errno;
	if (mkdir("lower", 0700) != 0 || mkdir("lower/d", 0700) != 0 || mkdir("upper", 0700) != 0 ||
	    mkdir("work", 0700) != 0 || mkdir("merged", 0700) != 0 ||
	    mount("cordon-trial", "merged", "overlay", MS_NOSUID | MS_NODEV, opts) != 0)
		e = errno;
	if (e == 0 &&
	    (fd = open("merged/d/cordon-trial", O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
		e = errno;
	else if (e == 0)
		close(fd);
	if (chdir("/") != 0 && e == 0)
		e = errno;
	(void)umount2(d, MNT_DETACH);
	return e;
}

/* One mount point of a line of /proc/self/mountinfo (its fifth field,
 * "\ooo" escapes decoded) into out: 0, or -1 when there is none or it
 * does not fit. Pure. */
int scratchhome_mount_point(const char *line, char *out, size_t size)
{
	const char *p = line;
	for (int field = 0; field < 4; field++) {
		p = strchr(p, ' ');
		if (p == NULL)
			return -1;
		p++;
	}
	size_t n = 0;
	for (; *p != '\0' && *p != ' ' && *p != '\n'; p++) {
		char ch = *p;
		if (ch == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			ch = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		}
		if (n + 1 >= size)
			return -1;
		out[n++] = ch;
	}
	out[n] = '\0';
	return n > 0 && out[0] == '/' ? 0 : -1;
}

int scratchhome_home_ok(const char *home)
{
	int userns;
	char uid_map[48], gid_map[48];
	mountns_identity(&userns, uid_map, gid_map, sizeof(uid_map));
	if (!userns)
		return 1; /* nothing is locked without a user namespace */
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return 1; /* not known: the run's child finds out */
	char *line = NULL, point[CORDON_PATH_MAX];
	size_t cap = 0;
	int ok = 1;
	while (ok && getline(&line, &cap, f) > 0)
		if (scratchhome_mount_point(line, point, sizeof(point)) == 0 &&
		    path_within(home, point) && strcmp(home, point) != 0)
			ok = 0;
	free(line);
	fclose(f);
	return ok;
}

static void free_home(struct scratch_home *h)
{
	if (h == NULL)
		return;
	for (size_t i = 0; i < h->n; i++) {
		free(h->rel[i]);
		free(h->abs[i]);
	}
	free(h->rel);
	free(h->abs);
	free(h->home);
	free(h->tmp);
	free(h->tmp_rel);
	free(h->opts);
	free(h);
}

void scratchhome_free(struct scratch_home *h)
{
	free_home(h);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
const char *scratchhome_path(const struct linux_plan *plan)
{
	return plan->mount != NULL && plan->mount->home != NULL ? plan->mount->home->home : NULL;
}

/* The part of p below home ("" for home itself), allocated. */
static char *below(const char *home, const char *p)
{
	size_t n = strlen(home);
	return strdup(p[n] == '/' ? p + n + 1 : p + n);
}

/* Each of the n trees under the home not inside another one, to be
 * bound again over the overlay. 0 or CORDON_ENOMEM. */
static int rebinds(struct scratch_home *h, const char *const *all, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int nested = !path_within(h->home, all[i]) || strcmp(h->home, all[i]) == 0;
		for (size_t j = 0; j < n && !nested; j++)
			nested = j != i && path_within(all[j], all[i]) &&
				 (strcmp(all[j], all[i]) != 0 || j < i);
		if (nested)
			continue;
		if ((h->rel[h->n] = below(h->home, all[i])) == NULL ||
		    (h->abs[h->n] = strdup(all[i])) == NULL)
			return CORDON_ENOMEM;
		h->n++;
	}
	return 0;
}

static int prepare(const struct policy *p, struct mount_plan *m, struct scratch_home *h)
{
	struct stat st;
	struct statvfs sv;
	char opts[4096];
	if ((h->home = strdup(p->scratch_home)) == NULL)
		return CORDON_ENOMEM;
	if (stat(h->home, &st) != 0 || !S_ISDIR(st.st_mode))
		return CORDON_ESYS;
	h->mode = st.st_mode & 07777;
	h->uid = st.st_uid;
	h->gid = st.st_gid;
	h->flags = MS_NOSUID | MS_NODEV;
	if (statvfs(h->home, &sv) == 0 && (sv.f_flag & ST_NOEXEC))
		h->flags |= MS_NOEXEC;
	if (scratchhome_options(h->home, m->userns, opts, sizeof(opts)) != 0)
		return CORDON_EINVAL;
	if ((h->opts = strdup(opts)) == NULL)
		return CORDON_ENOMEM;
	for (size_t i = 0; i < p->nw && h->tmp == NULL; i++)
		if (p->w[i].kind == W_TMPDIR && (h->tmp = strdup(p->w[i].path)) == NULL)
			return CORDON_ENOMEM;
	if (h->tmp == NULL)
		return CORDON_ESYS;
	if (path_within(h->home, h->tmp) && (h->tmp_rel = below(h->home, h->tmp)) == NULL)
		return CORDON_ENOMEM;
	/* The writable entries under the home, and the caches' overlays
	 * (layer-caches.c, mounted before this one), each once: one inside
	 * another is bound again with it (MS_REC). */
	size_t nall = m->nrw + m->ncmounts;
	const char **all = calloc(nall + 1, sizeof(char *));
	h->rel = calloc(nall + 1, sizeof(char *));
	h->abs = calloc(nall + 1, sizeof(char *));
	if (all == NULL || h->rel == NULL || h->abs == NULL) {
		free(all);
		return CORDON_ENOMEM;
	}
	for (size_t i = 0; i < nall; i++)
		all[i] = i < m->nrw ? m->rw[i] : m->cmounts[i - m->nrw].target;
	int r = rebinds(h, all, nall);
	free(all);
	return r;
}

int scratchhome_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *p = run->pol;
	/* Not asked for, or nothing to cover: the layer does nothing (and
	 * the run does not list it). */
	if (p->scratch_home == NULL || plan->mount == NULL)
		return 0;
	struct scratch_home *h = calloc(1, sizeof(*h));
	if (h == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	plan->mount->home = h;
	switch (prepare(p, plan->mount, h)) {
	case 0:
		return 0;
	case CORDON_ENOMEM:
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	case CORDON_EINVAL:
		return backend_fail(res, CORDON_EINVAL,
				    "--scratch-home: the home's path is too long for an overlay's "
				    "options: %s",
				    p->scratch_home);
	default:
		return backend_fail(res, CORDON_ESYS, "--scratch-home: the home %s changed",
				    p->scratch_home);
	}
}

/* Child, async-signal-safe: see the top of this file. 0 or errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int scratchhome_mount(const struct mount_plan *m)
{
	const struct scratch_home *h = m->home;
	int back = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (back < 0)
		return errno;
	if (mount("cordon-home", h->tmp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0 ||
	    chdir(h->tmp) != 0)
		return errno;
	if (mkdir("upper", 0700) != 0 || chmod("upper", h->mode) != 0 || mkdir("work", 0700) != 0)
		return errno;
	/* The overlay's root is the upper directory: the home's owner
	 * (ssh, for one, checks it). Where it cannot be set (a user
	 * namespace without that id), it stays the command's own. */
	if (chown("upper", h->uid, h->gid) != 0 && errno != EPERM && errno != EINVAL)
		return errno;
	int old = open(h->home, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (old < 0)
		return errno;
	if (mount("cordon-home", h->home, "overlay", h->flags, h->opts) != 0)
		return errno;
	/* From here names under the home are the overlay's; the home as it
	 * was is reached from old. */
	if (fchdir(old) != 0)
		return errno;
	if (umount2(h->tmp_rel != NULL ? h->tmp_rel : h->tmp, MNT_DETACH) != 0)
		return errno;
	for (size_t i = 0; i < h->n; i++)
		if (mount(h->rel[i], h->abs[i], NULL, MS_BIND | MS_REC, NULL) != 0)
			return errno;
	if (fchdir(back) != 0)
		return errno;
	close(old);
	close(back);
	return 0;
}

#else
typedef int cordon_no_scratchhome_here;
#endif
