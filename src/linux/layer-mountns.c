/*
 * Mount layer (the Linux layer table's first entry): the command runs in its own mount namespace
 * (inside a new user namespace when cordon is not root) where
 *
 *   - every mount is read-only (recursively: /proc/sys, /sys and every
 *     submount included), so metadata changes outside the writable set
 *     (chmod, chown, utimes, setxattr, chattr) fail with EROFS, which
 *     Landlock alone does not stop;
 *   - each writable tree or file is bound onto itself and made read-write
 *     again (mounts nested inside it stay read-only);
 *   - each protected path is bound onto itself read-only, and every
 *     directory between its writable tree and it is bound onto itself
 *     too: a mount point cannot be renamed or removed (EBUSY), so
 *     "mv .git .git.old && mkdir -p .git/hooks" cannot swap in a writable
 *     copy;
 *   - /dev/shm is a fresh, empty tmpfs of the command's own (POSIX shared
 *     memory and semaphores work, nothing reaches the host's /dev/shm);
 *     the child grants it in its own Landlock ruleset (landlock.c).
 *
 * Landlock is applied after this, and Landlock forbids a restricted
 * process to change mounts, so the command cannot undo any of it; as root
 * it has also lost CAP_SYS_ADMIN by then. Mappings are identity (the
 * command keeps its uid and gid, and creates files as the real user).
 * Mount propagation is private, so nothing reaches the caller's mounts.
 */
#include "linux-layers.h"
#include "fsutil.h"
#include "path.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* mount_setattr(2), Linux 5.12; Landlock ABI 2 needs 5.19, so it exists
 * wherever this layer can run. Our own definitions: libc may lack them. */
#define CORDON_SYS_mount_setattr 442
#define CORDON_MOUNT_ATTR_RDONLY 0x00000001ULL
#define CORDON_AT_RECURSIVE 0x8000

struct cordon_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int set_readonly(const char *path, int ro, int recursive)
{
	struct cordon_mount_attr a = { 0, 0, 0, 0 };
	if (ro)
		a.attr_set = CORDON_MOUNT_ATTR_RDONLY;
	else
		a.attr_clr = CORDON_MOUNT_ATTR_RDONLY;
	if (syscall(CORDON_SYS_mount_setattr, AT_FDCWD, path, recursive ? CORDON_AT_RECURSIVE : 0,
		    &a, sizeof(a)) != 0)
		return errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int mountns_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	int e = w == (ssize_t)n ? 0 : (w < 0 ? errno : EIO);
	close(fd);
	return e;
}

/* A new mount namespace (and user namespace unless root, unless the
 * clone that started this process made it already), private; with
 * limit_userns, a user namespace allowing none below it. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int enter(int userns, int userns_made, const char *uid_map, const char *gid_map,
		 int limit_userns)
{
	int e;
	if (unshare(CLONE_NEWNS | (userns && !userns_made ? CLONE_NEWUSER : 0)) != 0)
		return errno;
	if (userns) {
		/* setgroups must be denied before an unprivileged gid_map. */
		if ((e = mountns_write_file("/proc/self/setgroups", "deny")) != 0 ||
		    (e = mountns_write_file("/proc/self/uid_map", uid_map)) != 0 ||
		    (e = mountns_write_file("/proc/self/gid_map", gid_map)) != 0)
			return e;
		/* While this process holds CAP_SYS_RESOURCE in the namespace,
		 * and before /proc/sys is read-only. */
		if (limit_userns)
			userns_limit();
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return errno;
	return set_readonly("/", 1, 1);
}

/* Parent: the identity mappings (the command keeps its uid and gid) and
 * whether a user namespace is needed (not root). */
void mountns_identity(int *userns, char *uid_map, char *gid_map, size_t n)
{
	*userns = geteuid() != 0;
	snprintf(uid_map, n, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(gid_map, n, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int mountns_trial(const struct linux_trial *t)
{
	/* Limited: the user namespace layer's trial (after this one) reads
	 * whether the limit took; no later trial makes a user namespace. */
	return enter(t->userns, 0, t->uid_map, t->gid_map, 1);
}

#define CORDON_PIPEFS_MAGIC 0x50495045
#define CORDON_SOCKFS_MAGIC 0x534F434B

/*
 * fds 0-2 on a device or a named FIFO still lie on the caller's mounts,
 * read-write: through them root could chmod or chown the host's
 * /dev/null or the caller's terminal, or change a FIFO outside. Each is
 * opened again by its path in this namespace, where every mount is
 * read-only now (the same inode, checked; the same access mode and
 * flags): reads, writes and ioctls work as before, metadata changes fail
 * with EROFS. Regular files and directories are stdfds.c's; pipes and
 * sockets have no path. A file that cannot be reached again so is an
 * error: it would otherwise keep its metadata changeable unreported.
 * Before the private devpts: the caller's terminal is still there.
 * 0 or errno.
 */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int reopen_stdio_readonly(void)
{
	/* Spelled out: no formatting in the child. */
	static const char *const link[] = { "/proc/self/fd/0", "/proc/self/fd/1",
					    "/proc/self/fd/2" };
	for (int fd = 0; fd <= 2; fd++) {
		struct stat st, now;
		struct statfs sf;
		char path[CORDON_PATH_MAX];
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || (fl & O_PATH) || fstat(fd, &st) != 0 ||
		    !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
			continue; /* closed, O_PATH (stdfds.c), or not a device */
		if (fstatfs(fd, &sf) != 0 || sf.f_type == CORDON_PIPEFS_MAGIC ||
		    sf.f_type == CORDON_SOCKFS_MAGIC)
			continue;
		ssize_t n = readlink(link[fd], path, sizeof(path) - 1);
		if (n <= 0 || (size_t)n >= sizeof(path) - 1 || path[0] != '/')
			return ESTALE;
		path[n] = '\0';
		/* A FIFO's open would wait for its other end: not blocking,
		 * then the flags it had. */
		int nfd = open(path,
			       (fl & (O_ACCMODE | O_APPEND)) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (nfd < 0)
			return errno;
		int e = 0;
		if (fstat(nfd, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino)
			e = ESTALE;
		if (e == 0 && fcntl(nfd, F_SETFL, fl) != 0)
			e = errno;
		if (e == 0 && dup2(nfd, fd) < 0)
			e = errno;
		close(nfd);
		if (e != 0)
			return e;
	}
	return 0;
}

/* p is base or lies below it (both canonical). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int within(const char *base, const char *p)
{
	size_t n = strlen(base);
	if (n == 1 && base[0] == '/')
		return 1;
	return strncmp(base, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/*
 * A regular file on fd 0 outside the writable set: opened again,
 * read-only, by its path in this namespace while every mount of it is
 * still the machine's made read-only, before any private mount (the
 * scratch home, /dev/shm, the covers, the private /tmp and /var/tmp)
 * can hide that path. Through the new fd its mode, owner, times and
 * xattrs cannot change (EROFS); the offset is kept. Only the same inode
 * is taken; a file that cannot be reached so stays as it was, and the
 * parent reports it (stdio_metadata_not_restricted: stdfds.c asks the
 * same question of the same view). 0 or errno.
 */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int reopen_stdin_file(const struct mount_plan *m)
{
	struct stat st, now;
	char path[CORDON_PATH_MAX];
	int fl = fcntl(0, F_GETFL);
	if (fl < 0 || (fl & O_PATH) || fstat(0, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	ssize_t n = readlink("/proc/self/fd/0", path, sizeof(path) - 1);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1 || path[0] != '/')
		return 0;
	path[n] = '\0';
	for (size_t i = 0; i < m->nrw; i++)
		if (within(m->rw[i], path))
			return 0; /* writable anyway: it stays as it is */
	int nfd = open(path, O_RDONLY | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (nfd < 0)
		return 0;
	int e = 0;
	off_t off = lseek(0, 0, SEEK_CUR);
	if (fstat(nfd, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino)
		e = -1;
	else if ((off > 0 && lseek(nfd, off, SEEK_SET) != off) ||
		 fcntl(nfd, F_SETFL, fl & O_NONBLOCK) != 0 || dup2(nfd, 0) < 0)
		e = errno;
	close(nfd);
	return e < 0 ? 0 : e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int bind_self_to(const char *src, const char *dst)
{
	return mount(src, dst, NULL, MS_BIND | MS_REC, NULL) == 0 ? 0 : errno;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int bind_self(const char *path)
{
	return bind_self_to(path, path);
}

/* dir/name, allocated. */
static char *joined(const char *dir, const char *name)
{
	char buf[CORDON_PATH_MAX];
	return path_join(buf, sizeof(buf), dir, name) == 0 ? strdup(buf) : NULL;
}

/* The covers of the denied paths (see struct mount_plan). -1: memory or
 * a path too long. */
static int plan_covers(struct mount_plan *m, const struct policy *pol)
{
	for (size_t i = 0; i < pol->nw && m->scratch == NULL; i++)
		if (pol->w[i].kind == W_TMPDIR && (m->scratch = strdup(pol->w[i].path)) == NULL)
			return -1;
	if ((pol->ndeny == 0 && pol->capturedevs.n == 0) || m->scratch == NULL)
		return 0;
	if ((m->void_dir = joined(m->scratch, "void")) == NULL ||
	    (m->empty_file = joined(m->scratch, "empty")) == NULL ||
	    (m->covers = calloc(pol->ndeny + pol->blockdevs.n + pol->capturedevs.n,
				sizeof(*m->covers))) == NULL)
		return -1;
	/* Each readable disk and capture device: an empty read-only file in
	 * its place. */
	const struct strv *devs[] = { &pol->blockdevs, &pol->capturedevs };
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < devs[k]->n; i++) {
			struct cover *cv = &m->covers[m->ncovers++];
			cv->device = 1;
			if ((cv->target = strdup(devs[k]->v[i])) == NULL ||
			    (cv->src = strdup(m->empty_file)) == NULL)
				return -1;
		}
	for (size_t i = 0; i < pol->ndeny; i++) {
		const struct deny_entry *d = &pol->deny[i];
		if (d->left_open)
			continue;
		struct cover *cv = &m->covers[m->ncovers++];
		char name[32];
		if ((cv->target = strdup(d->path)) == NULL)
			return -1;
		if (!d->is_dir || d->nkeep == 0) {
			cv->src = strdup(d->is_dir ? m->void_dir : m->empty_file);
			if (cv->src == NULL)
				return -1;
			continue;
		}
		snprintf(name, sizeof(name), "keep%zu", i);
		cv->own = 1;
		if ((cv->src = joined(m->scratch, name)) == NULL ||
		    (cv->keep_src = calloc(d->nkeep, sizeof(char *))) == NULL ||
		    (cv->keep_dst = calloc(d->nkeep, sizeof(char *))) == NULL)
			return -1;
		for (size_t k = 0; k < d->nkeep; k++) {
			if ((cv->keep_src[k] = joined(d->path, d->keep[k])) == NULL ||
			    (cv->keep_dst[k] = joined(cv->src, d->keep[k])) == NULL)
				return -1;
			cv->nkeep++;
		}
	}
	return 0;
}

/* An empty file at path, mode 0444. 0 or errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int make_empty(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* After every other bind: each denied path covered from a scratch tmpfs,
 * mounted on the run's dir only while the covers are made. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int cover_denied(const struct mount_plan *m)
{
	int e;
	if (m->ncovers == 0)
		return 0;
	if (mount("cordon-deny", m->scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0755,size=64k") != 0)
		return errno;
	if (mkdir(m->void_dir, 0) != 0 || chmod(m->void_dir, 0) != 0)
		return errno;
	if ((e = make_empty(m->empty_file)) != 0)
		return e;
	for (size_t i = 0; i < m->ncovers; i++) {
		const struct cover *cv = &m->covers[i];
		if (!cv->own)
			continue;
		if (mkdir(cv->src, 0755) != 0)
			return errno;
		for (size_t k = 0; k < cv->nkeep; k++)
			if ((e = make_empty(cv->keep_dst[k])) != 0 ||
			    (e = bind_self_to(cv->keep_src[k], cv->keep_dst[k])) != 0 ||
			    (e = set_readonly(cv->keep_dst[k], 1, 0)) != 0)
				return e;
	}
	/* Read-only before anything is bound out of it. */
	if ((e = set_readonly(m->scratch, 1, 0)) != 0)
		return e;
	/* A bind of a read-only mount is read-only (and the kept files'
	 * binds were made read-only above): one mount call per cover. */
	for (size_t i = 0; i < m->ncovers; i++)
		if ((e = bind_self_to(m->covers[i].src, m->covers[i].target)) != 0 &&
		    !(e == ENOENT && m->covers[i].device))
			return e;
	/* The run's dir is the run's dir again; the covers keep the tmpfs. */
	if (umount2(m->scratch, MNT_DETACH) != 0)
		return errno;
	return 0;
}

/*
 * --max-tmp: the run's dir is a tmpfs of the run's namespace (its files
 * in memory, gone with the namespace); the child grants its root in its
 * Landlock ruleset. /dev/shm, unless the machine's is kept, is a fresh
 * tmpfs of the command's own: with --max-tmp the same tmpfs, so that
 * both draw on one budget (writes past it fail with ENOSPC wherever they
 * land): its directories tmp and shm are bound on the run's dir (over
 * the tmpfs's root, which nothing reaches then) and on /dev/shm.
 */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int private_tmpfs(const struct mount_plan *m)
{
	int shm = !m->shm_kept && access("/dev/shm", F_OK) == 0;
	if (m->tmpfs_on != NULL &&
	    mount("cordon-tmp", m->tmpfs_on, "tmpfs", MS_NOSUID | MS_NODEV, m->tmpfs_opts) != 0)
		return errno;
	if (m->tmpfs_on != NULL && m->tmpfs_shm != NULL) {
		/* mkdir's mode passes the umask: chmod says it. */
		if (mkdir(m->tmpfs_tmp, 0700) != 0 || mkdir(m->tmpfs_shm, 0700) != 0 ||
		    chmod(m->tmpfs_shm, 01777) != 0 ||
		    (shm && mount(m->tmpfs_shm, "/dev/shm", NULL, MS_BIND, NULL) != 0) ||
		    mount(m->tmpfs_tmp, m->tmpfs_on, NULL, MS_BIND, NULL) != 0)
			return errno;
		return 0;
	}
	if (shm && mount("cordon-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		return errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int mountns_apply(const struct linux_plan *plan)
{
	const struct mount_plan *m = plan->mount;
	int e;
	if ((e = enter(m->userns, m->userns_at_clone, m->uid_map, m->gid_map, m->limit_userns)) !=
	    0)
		return e;
	for (size_t i = 0; i < m->nrw; i++)
		if ((e = bind_self(m->rw[i])) != 0 || (e = set_readonly(m->rw[i], 0, 0)) != 0)
			return e;
	/* fds 0-2 reached again by name while the view is still the
	 * machine's, read-only: before anything is mounted over a path (the
	 * caches' overlays and --review's too). A device on fd 1 or 2 that is
	 * covered (a console the caller only writes to) is reached by its
	 * name first. */
	if ((e = reopen_stdio_readonly()) != 0 || (e = reopen_stdin_file(m)) != 0)
		return e;
	if ((e = cachemount_apply(m)) != 0)
		return e;
	if (m->review != NULL && (e = ovl_held_mount(m->review)) != 0)
		return e;
	if (m->home != NULL && (e = scratchhome_mount(m)) != 0)
		return e;
	for (size_t i = 0; i < m->npin; i++)
		if ((e = bind_self(m->pin[i])) != 0)
			return e;
	for (size_t i = 0; i < m->nro; i++)
		if ((e = bind_self(m->ro[i])) != 0 || (e = set_readonly(m->ro[i], 1, 1)) != 0)
			return e;
	if ((e = private_tmpfs(m)) != 0)
		return e;
	if ((e = cover_denied(m)) != 0)
		return e;
	/* The working directory still points into the mounts as they were
	 * (now read-only): enter it again by name, through the new binds.
	 * Gone or unreachable (also deleted before the run: no name at all),
	 * the command starts where it was; but never below a cover, where
	 * the old one would read what it hides ("..": the underlying mount,
	 * not the cover): then in "/". */
	int gone = m->cwd == NULL || chdir(m->cwd) != 0;
	if (gone && m->ncovers > 0 && chdir("/") != 0)
		return errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int mountns_join(const struct linux_plan *plan)
{
	const struct mount_plan *m = plan->mount;
	int e;
	/* setns(2) put this process at the view's root: the cwd is entered
	 * again by name, as after making the view ("/" when it is gone). */
	if (unshare(CLONE_NEWNS) != 0)
		return errno;
	/* Its own /proc first: the view's is the first spawn's, whose PID
	 * namespace may be gone (ESTALE), and stdio is found through it. */
	if ((e = pidns_apply(plan)) != 0)
		return e;
	/* In the run's view: a file on fd 0 that it hides makes the spawn
	 * one of its own namespaces (mountns_hides_stdin), not a joiner. */
	if ((e = reopen_stdio_readonly()) != 0 || (e = reopen_stdin_file(m)) != 0)
		return e;
	if (m->cwd != NULL && chdir(m->cwd) != 0 && chdir("/") != 0)
		return errno;
	return 0;
}

int mountns_hides_stdin(const struct mount_plan *m, int fd)
{
	struct stat st;
	char path[CORDON_PATH_MAX];
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fd_path(fd, path, sizeof(path)) != 0)
		return 0;
	for (size_t i = 0; i < m->nrw; i++)
		if (path_within(m->rw[i], path))
			return 0;
	for (size_t i = 0; i < m->nviews; i++)
		if (path_within(m->views[i].view, path))
			return 1;
	for (size_t i = 0; i < m->ncovers; i++)
		if (path_within(m->covers[i].target, path))
			return 1;
	return (!m->shm_kept && path_within("/dev/shm", path)) ||
	       (m->home != NULL && scratchhome_holds(m->home, path));
}

static int push(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return 0;
	char **nv = realloc(*v, (*n + 1) * sizeof(char *));
	if (nv == NULL)
		return -1;
	*v = nv;
	if ((nv[*n] = strdup(s)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

/* Every directory strictly between root and p, outermost first. */
static int push_ancestors(struct mount_plan *m, const char *root, const char *p)
{
	size_t rlen = strlen(root), plen = strlen(p);
	char buf[CORDON_PATH_MAX];
	if (plen >= sizeof(buf))
		return -1;
	for (size_t i = rlen + 1; i < plen; i++) {
		if (p[i] != '/')
			continue;
		memcpy(buf, p, i);
		buf[i] = '\0';
		if (push(&m->pin, &m->npin, buf) != 0)
			return -1;
	}
	return 0;
}

int mountns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *pol = run->pol;
	struct mount_plan *m = calloc(1, sizeof(*m));
	if (m == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	plan->mount = m;
	mountns_identity(&m->userns, m->uid_map, m->gid_map, sizeof(m->uid_map));
	char shm[CORDON_PATH_MAX];
	int have_shm = realpath("/dev/shm", shm) != NULL;
	for (size_t i = 0; i < pol->nw; i++) {
		/* Device nodes stay writable on a read-only mount; a cache
		 * seen through an overlay is mounted, never bound writable. */
		if (pol->w[i].kind == W_DEVICE || pol->w[i].layer != NULL)
			continue;
		if (push(&m->rw, &m->nrw, pol->w[i].path) != 0)
			return backend_fail(res, CORDON_ENOMEM, "out of memory");
		if (have_shm && path_within(shm, pol->w[i].path))
			m->shm_kept = 1;
	}
	for (size_t i = 0; i < pol->nprot; i++) {
		const char *p = pol->prot[i].path;
		if (pol->prot[i].absent)
			continue; /* nothing to bind: the end moves aside what is made */
		for (size_t j = 0; j < pol->nw; j++) {
			const struct wentry *w = &pol->w[j];
			/* Paths come from realpath: shorter than a path buffer. */
			if (w->is_dir && w->kind != W_DEVICE && path_within(w->path, p) &&
			    push_ancestors(m, w->path, p) != 0)
				return backend_fail(res, CORDON_ENOMEM, "out of memory");
		}
		if (push(&m->ro, &m->nro, p) != 0)
			return backend_fail(res, CORDON_ENOMEM, "out of memory");
	}
	/* A denied path inside a writable tree: the directories above it
	 * there become mount points too, so a run cannot move its directory
	 * away and leave a decoy for the next run to cover. */
	for (size_t i = 0; i < pol->ndeny; i++)
		for (size_t j = 0; j < pol->nw && !pol->deny[i].left_open; j++) {
			const struct wentry *w = &pol->w[j];
			if (w->is_dir && w->kind != W_DEVICE &&
			    path_within(w->path, pol->deny[i].path) &&
			    push_ancestors(m, w->path, pol->deny[i].path) != 0)
				return backend_fail(res, CORDON_ENOMEM, "out of memory");
		}
	if (plan_covers(m, pol) != 0)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	int r = cachemount_prepare(run, res, m);
	if (r == 0)
		r = review_prepare(run, res, m);
	if (r != 0)
		return r;
	/* The run's working directory (workdir.c), entered again after the
	 * mounts; getcwd(NULL, 0) allocates what the path needs. */
	m->cwd = pol->cwd != NULL ? strdup(pol->cwd) : getcwd(NULL, 0);
	return 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void mountns_free(struct mount_plan *m)
{
	if (m == NULL)
		return;
	free_list(m->rw, m->nrw);
	free_list(m->pin, m->npin);
	free_list(m->ro, m->nro);
	for (size_t i = 0; i < m->ncovers; i++) {
		free(m->covers[i].target);
		free(m->covers[i].src);
		free_list(m->covers[i].keep_src, m->covers[i].nkeep);
		free_list(m->covers[i].keep_dst, m->covers[i].nkeep);
	}
	free(m->covers);
	scratchhome_free(m->home);
	cachemount_free(m);
	review_free(m);
	free(m->scratch);
	free(m->void_dir);
	free(m->empty_file);
	free(m->cwd);
	free(m->tmpfs_on);
	free(m->tmpfs_tmp);
	free(m->tmpfs_shm);
	tmp_free(m);
	free(m);
}

#else
typedef int cordon_no_mountns_here;
#endif
