/*
 * The run's own /tmp and /var/tmp, made by the mount layer (Linux).
 *
 * Programs write /tmp by name, whatever TMPDIR says: glibc's tmpfile(3)
 * (P_tmpdir), Lua's os.tmpname(), scripts that write /tmp/foo. With the
 * mount layer the run's dir (the command's TMPDIR) is bound on /tmp and
 * on /var/tmp in the run's mount namespace: one directory of the run's
 * own under three names, writable, empty at the start, removed with the
 * run. Landlock grants it already (its rule is on the directory, which
 * is each bind's root), and so does the socket supervisor (by identity).
 * A library run's spawns share it. What the user's other processes keep
 * in the real /tmp is neither visible nor writable inside.
 *
 * A tree of the run that lies there (a workspace in /tmp, the run's dir
 * itself, an --allow-write path, an --allow-socket outside the writable
 * set) is carried into the view at its own path: a copy of its mount
 * (with the binds below it) from the machine's view, taken through an fd
 * opened before the view was bound, one component at a time without
 * following a symlink, on a mount point made the same way in the view.
 * Only trees the run may write are carried (and sockets it may connect
 * to, read-only and nodev): the view's root is granted, and Landlock's
 * walk up from a carried tree reaches it, so whatever is carried is
 * writable by Landlock's rules and must be so by the policy too. A home
 * or the working directory there outside the writable set would have to
 * be carried read-only under that grant: the view is not made then, and
 * the run reports tmp_shared_read_only, as without the mount layer. A
 * writable tree at or above the view (--allow-write /tmp) leaves the
 * machine's, as granted.
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
#include <sys/syscall.h>
#include <unistd.h>

/* open_tree(2) and move_mount(2), Linux 5.2; mount_setattr(2), 5.12.
 * The mount layer needs Landlock ABI 2 (5.19), so they exist wherever it
 * runs. Our own definitions: libc may lack them. */
#define CORDON_SYS_open_tree 428
#define CORDON_SYS_move_mount 429
#define CORDON_SYS_mount_setattr 442
#define CORDON_OPEN_TREE_CLONE 1u
#define CORDON_AT_EMPTY_PATH 0x1000
#define CORDON_AT_RECURSIVE 0x8000
#define CORDON_MOVE_MOUNT_F_EMPTY_PATH 0x4u
#define CORDON_MOVE_MOUNT_T_EMPTY_PATH 0x40u
#define CORDON_MOUNT_ATTR_RDONLY 0x1ULL
#define CORDON_MOUNT_ATTR_NODEV 0x4ULL

struct tmp_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* In the order of TMP_SHARED_TMP and TMP_SHARED_VAR_TMP's bits. */
static const char *const tmp_dirs[] = { "/tmp", "/var/tmp" };
#define NTMP (sizeof(tmp_dirs) / sizeof(tmp_dirs[0]))

/* ---- parent ---- */

enum tmp_choice { TMP_PRIVATE, TMP_WRITABLE, TMP_SHARED };

/* What becomes of the machine's temp dir real (canonical). */
static enum tmp_choice choose(const struct run_spec *run, const struct mount_plan *m,
			      const char *real)
{
	const struct policy *p = run->pol;
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind != W_DEVICE && path_within(p->w[i].path, real))
			return TMP_WRITABLE;
	/* Covered whole by a denied path: neither the machine's nor a view. */
	for (size_t i = 0; i < p->ndeny; i++)
		if (!p->deny[i].left_open && path_within(p->deny[i].path, real))
			return TMP_SHARED;
	/* What the run reads there must stay visible; it is not carried
	 * (see above). */
	for (int i = 0; i < run->nhomes; i++)
		if (path_within(real, run->homes[i]) && !policy_inside_writable(p, run->homes[i]))
			return TMP_SHARED;
	if (m->cwd != NULL && path_within(real, m->cwd) && !policy_inside_writable(p, m->cwd))
		return TMP_SHARED;
	return TMP_PRIVATE;
}

/* The path of carry t of view v in buf: 0, or -1 when it does not fit. */
static int carry_path(const struct tmp_view *v, const struct tmp_carry *t, char *buf, size_t n)
{
	size_t len = strlen(v->view);
	if (len >= n)
		return -1;
	memcpy(buf, v->view, len + 1);
	for (size_t j = 0; j < t->ncomps; j++) {
		size_t cl = strlen(t->comps[j]);
		if (len + cl + 2 > n)
			return -1;
		if (len == 0 || buf[len - 1] != '/')
			buf[len++] = '/';
		memcpy(buf + len, t->comps[j], cl + 1);
		len += cl;
	}
	return 0;
}

/* path, strictly below the view, as a carry of v. 0 or -1 (memory). */
static int add_carry(struct tmp_view *v, const char *path, int is_dir, int readonly)
{
	for (size_t i = 0; i < v->ncarry; i++) {
		char buf[CORDON_PATH_MAX];
		/* Below a carried tree (sockets come after the trees). */
		if (v->carry[i].is_dir && carry_path(v, &v->carry[i], buf, sizeof(buf)) == 0 &&
		    path_within(buf, path))
			return 0;
	}
	struct tmp_carry *nc = realloc(v->carry, (v->ncarry + 1) * sizeof(*nc));
	if (nc == NULL)
		return -1;
	v->carry = nc;
	struct tmp_carry *t = &nc[v->ncarry++];
	memset(t, 0, sizeof(*t));
	t->is_dir = is_dir;
	t->readonly = readonly;
	const char *rel = path + strlen(v->view);
	while (*rel == '/')
		rel++;
	for (const char *s = rel; *s != '\0';) {
		const char *e = strchr(s, '/');
		size_t len = e != NULL ? (size_t)(e - s) : strlen(s);
		char **comps = realloc(t->comps, (t->ncomps + 1) * sizeof(char *));
		if (comps == NULL)
			return -1;
		t->comps = comps;
		if ((comps[t->ncomps] = strndup(s, len)) == NULL)
			return -1;
		t->ncomps++;
		s += len;
		while (*s == '/')
			s++;
	}
	return t->ncomps > 0 ? 0 : -1;
}

/* The run's trees in view v: the writable ones, then the sockets. */
static int add_carries(const struct policy *p, struct tmp_view *v)
{
	for (size_t i = 0; i < p->nw; i++) {
		const struct wentry *w = &p->w[i];
		if (w->kind != W_DEVICE && strcmp(w->path, v->view) != 0 &&
		    path_within(v->view, w->path) && add_carry(v, w->path, w->is_dir, 0) != 0)
			return -1;
	}
	for (size_t i = 0; i < p->nsockets; i++) {
		const char *s = p->sockets[i];
		struct stat st;
		if (!path_within(v->view, s) || strcmp(s, v->view) == 0 ||
		    policy_inside_writable(p, s) || stat(s, &st) != 0)
			continue;
		if (add_carry(v, s, S_ISDIR(st.st_mode), 1) != 0)
			return -1;
	}
	return 0;
}

int tmp_layer_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *p = run->pol;
	struct mount_plan *m = plan->mount;
	/* The views are recorded in res for the status event (the core
	 * copies them into its policy). */
	res->tmp_planned = 1;
	if (m == NULL || run->rundir == NULL)
		return 0; /* no mount layer (its prepare runs first): no views */
	if ((m->rundir = strdup(run->rundir)) == NULL ||
	    (m->views = calloc(NTMP, sizeof(*m->views))) == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; i < NTMP; i++) {
		char real[CORDON_PATH_MAX];
		struct stat st;
		int dup = 0;
		if (realpath(tmp_dirs[i], real) == NULL || stat(real, &st) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue; /* none here: nothing to hide or replace */
		for (size_t k = 0; k < m->nviews; k++)
			dup |= m->views[k].view != NULL && strcmp(m->views[k].view, real) == 0;
		enum tmp_choice ch = dup ? TMP_WRITABLE : choose(run, m, real);
		if (ch == TMP_SHARED)
			res->tmp_shared |= 1u << i;
		if (ch != TMP_PRIVATE)
			continue;
		struct tmp_view *v = &m->views[m->nviews++];
		struct private_tmp *pt = &res->ptmp[res->nptmp++];
		if ((v->view = strdup(real)) == NULL || (pt->view = strdup(real)) == NULL ||
		    (pt->src = strdup(run->rundir)) == NULL || add_carries(p, v) != 0)
			return backend_fail(res, CORDON_ENOMEM, "out of memory");
	}
	return 0;
}

void tmp_free(struct mount_plan *m)
{
	for (size_t i = 0; i < m->nviews; i++) {
		struct tmp_view *v = &m->views[i];
		for (size_t k = 0; k < v->ncarry; k++) {
			for (size_t j = 0; j < v->carry[k].ncomps; j++)
				free(v->carry[k].comps[j]);
			free(v->carry[k].comps);
		}
		free(v->carry);
		free(v->view);
	}
	free(m->views);
	free(m->rundir);
}

/* ---- child: system calls only, on what the parent prepared ---- */

/* From dir, c's path one component at a time, never following a
 * symlink; with make, each missing component made (directories, and a
 * file as the last one of a file's path). An O_PATH fd, or -errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int walk(int dir, const struct tmp_carry *c, int make)
{
	int d = fcntl(dir, F_DUPFD_CLOEXEC, 3);
	if (d < 0)
		return -errno;
	for (size_t k = 0; k < c->ncomps; k++) {
		int dir_here = k + 1 < c->ncomps || c->is_dir;
		const char *name = c->comps[k];
		int made = !make      ? 0
			   : dir_here ? mkdirat(d, name, 0755)
				      : mknodat(d, name, S_IFREG | 0600, 0);
		if (made != 0 && errno != EEXIST) {
			int e = errno;
			close(d);
			return -e;
		}
		int nd = openat(d, name,
				O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir_here ? O_DIRECTORY : 0));
		int e = errno;
		close(d);
		if (nd < 0)
			return -e;
		d = nd;
	}
	struct stat st;
	if (fstat(d, &st) != 0 || S_ISLNK(st.st_mode) ||
	    (S_ISDIR(st.st_mode) ? 1 : 0) != c->is_dir) {
		close(d);
		return -ELOOP;
	}
	return d;
}

/* A copy of the mount tree at fd (with every mount below it), detached. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int clone_tree(int fd)
{
	long t = syscall(CORDON_SYS_open_tree, fd, "",
			 CORDON_OPEN_TREE_CLONE | O_CLOEXEC | CORDON_AT_EMPTY_PATH |
				 CORDON_AT_RECURSIVE);
	return t < 0 ? -errno : (int)t;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int move_tree(int tree, int to_fd, const char *to_path, unsigned flags)
{
	return syscall(CORDON_SYS_move_mount, tree, "", to_fd, to_path,
		       CORDON_MOVE_MOUNT_F_EMPTY_PATH | flags) == 0
		       ? 0
		       : errno;
}

/* The tree c from the machine's view (real) onto its place in the
 * private view (root). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int carry_in(int real, int root, const struct tmp_carry *c)
{
	int src = walk(real, c, 0);
	if (src < 0)
		return -src;
	int tree = clone_tree(src);
	close(src);
	if (tree < 0)
		return -tree;
	int e = 0;
	if (c->readonly) {
		struct tmp_mount_attr a = { CORDON_MOUNT_ATTR_RDONLY | CORDON_MOUNT_ATTR_NODEV, 0,
					    0, 0 };
		if (syscall(CORDON_SYS_mount_setattr, tree, "",
			    CORDON_AT_EMPTY_PATH | CORDON_AT_RECURSIVE, &a, sizeof(a)) != 0)
			e = errno;
	}
	int dst = e == 0 ? walk(root, c, 1) : -e;
	if (dst < 0)
		e = -dst;
	else
		e = move_tree(tree, dst, "", CORDON_MOVE_MOUNT_T_EMPTY_PATH);
	if (dst >= 0)
		close(dst);
	close(tree);
	return e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static void close_all(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* View v bound from src, and its carries taken from real. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int bind_view(const struct tmp_view *v, int src, int real)
{
	int tree = clone_tree(src);
	if (tree < 0)
		return -tree;
	int e = move_tree(tree, AT_FDCWD, v->view, 0);
	close(tree);
	if (e != 0)
		return e;
	int root = open(v->view, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return errno;
	for (size_t k = 0; e == 0 && k < v->ncarry; k++)
		e = carry_in(real, root, &v->carry[k]);
	close(root);
	return e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int tmp_trial(const struct linux_trial *t)
{
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL; /* in the mount layer's namespace only */
	int fd = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : errno;
	int tree = clone_tree(fd);
	close(fd);
	if (tree < 0)
		return -tree;
	int e = move_tree(tree, AT_FDCWD, "/tmp", 0);
	close(tree);
	return e;
}

/* After the views: the working directory entered again by name when it
 * lies in one (through its carried tree); the mount layer entered it
 * in the machine's view, whose ".." would reach the hidden /tmp. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int enter_cwd(const struct mount_plan *m)
{
	for (size_t i = 0; m->cwd != NULL && i < m->nviews; i++)
		if (path_within(m->views[i].view, m->cwd))
			return chdir(m->cwd) == 0 || chdir("/") == 0 ? 0 : errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int tmp_apply(const struct linux_plan *plan)
{
	const struct mount_plan *m = plan->mount;
	int real[NTMP], e = 0;
	if (m == NULL)
		return EINVAL;
	if (m->nviews == 0)
		return 0;
	for (size_t i = 0; i < NTMP; i++)
		real[i] = -1;
	/* Every directory is opened before any view is bound: a view may
	 * hide the run's dir or another view's place. */
	int run = open(m->rundir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (run < 0)
		return errno;
	for (size_t i = 0; e == 0 && i < m->nviews && i < NTMP; i++)
		if ((real[i] = open(m->views[i].view, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			e = errno;
	for (size_t i = 0; e == 0 && i < m->nviews && i < NTMP; i++)
		e = bind_view(&m->views[i], run, real[i]);
	close(run);
	close_all(real, NTMP);
	return e != 0 ? e : enter_cwd(m);
}

#else
typedef int cordon_no_private_tmp_here;
#endif
