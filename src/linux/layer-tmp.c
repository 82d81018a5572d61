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
 * A tree of the run that lies there is carried into the view at its
 * own path: a copy of its mount (with every mount below it: protected
 * paths, deny-read covers, the scratch home's overlay, the writable
 * trees under a home) from the machine's view, taken after every other
 * mount of the layer was made, through an fd opened before the view was
 * bound, one component at a time without following a symlink, on a
 * mount point made the same way in the view. Which trees:
 *
 *   - the writable ones (a workspace, the run's dir, a cache, an
 *     --allow-write path in /tmp), as they are;
 *   - the homes and the working directory outside the writable set
 *     (HOME=/tmp/x, a CI checkout there): read-only, as their mount is
 *     in the layer's namespace, and nodev. Landlock's grant on the
 *     view's root reaches everything below it (its walk up from a mount
 *     goes on past the mount point), so here it is the read-only mount
 *     that refuses writes, creations, removals, renames and metadata
 *     changes, as for a protected path; nodev refuses devices; the
 *     socket supervisor refuses the sockets there (a walk up that leaves
 *     a mount for the run's dir does not count: unix-supervisor.c).
 *     What neither refuses: opening a FIFO there for writing, and, at
 *     Landlock ABI 9 (no supervisor), connecting to a socket there: the
 *     gap tmp_tree_fifos_writable says so for such a run. A home that is
 *     the temp dir itself (HOME=/tmp) is not carried: the run's view
 *     takes its place, empty;
 *   - an --allow-socket outside the writable set: read-only, nodev.
 *
 * A denied path's cover keeps what lies below it out. A writable tree
 * at or above the view (--allow-write /tmp) leaves the machine's, as
 * granted.
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

/* A writable tree at or above the temp dir real (--allow-write /tmp):
 * the machine's stays, writable as granted. */
static int writable_above(const struct policy *p, const char *real)
{
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind != W_DEVICE && path_within(p->w[i].path, real))
			return 1;
	return 0;
}

int tmp_carry_path(const struct tmp_view *v, const struct tmp_carry *t, char *buf, size_t n)
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

/* path, strictly below the view, as a carry of v, unless a carried
 * directory holds it already (its copy has every mount below it). 0 or
 * -1 (memory). */
static int add_carry(struct tmp_view *v, const char *path, int is_dir, enum tmp_carry_kind kind)
{
	for (size_t i = 0; i < v->ncarry; i++) {
		char buf[CORDON_PATH_MAX];
		if (v->carry[i].is_dir && tmp_carry_path(v, &v->carry[i], buf, sizeof(buf)) == 0 &&
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
	t->kind = kind;
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

/* A tree the run may see there, before it is carried. */
struct candidate {
	const char *path;
	int is_dir;
	enum tmp_carry_kind kind;
};

/* Outermost first (a carried tree holds those below it), then by name:
 * one order whatever the policy's. */
static int by_length(const void *a, const void *b)
{
	const char *pa = ((const struct candidate *)a)->path;
	const char *pb = ((const struct candidate *)b)->path;
	size_t la = strlen(pa), lb = strlen(pb);
	return la != lb ? (la < lb ? -1 : 1) : strcmp(pa, pb);
}

/* Whether path, strictly below the view, is one to carry: not hidden
 * by a denied path (its cover lies in the machine's view; a writable
 * tree or the home is never below one). */
static int below_view(const struct policy *p, const char *view, const char *path)
{
	if (!path_within(view, path) || strcmp(view, path) == 0)
		return 0;
	for (size_t i = 0; i < p->ndeny; i++)
		if (!p->deny[i].left_open && path_within(p->deny[i].path, path))
			return 0;
	return 1;
}

/* A home or working directory in the view outside the writable set:
 * shown read-only, or as the scratch home's overlay (writable, its
 * writes thrown away, granted by Landlock wherever it lies). One that is
 * the view itself (HOME=/tmp) is not: the private view takes its
 * place. */
static void read_only_candidate(const struct policy *p, const char *view, const char *path,
				struct candidate *c, size_t *n)
{
	struct stat st;
	if (path == NULL || !below_view(p, view, path) || policy_inside_writable(p, path) ||
	    stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	int scratch = p->scratch_home != NULL && strcmp(p->scratch_home, path) == 0;
	c[(*n)++] = (struct candidate){ path, 1, scratch ? CARRY_WRITABLE : CARRY_READ_ONLY };
}

int tmp_plan_view(const struct run_spec *run, const char *cwd, struct tmp_view *v)
{
	const struct policy *p = run->pol;
	size_t n = 0;
	struct candidate *c = calloc(p->nw + p->nsockets + (size_t)run->nhomes + 2, sizeof(*c));
	if (c == NULL)
		return -1;
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind != W_DEVICE && below_view(p, v->view, p->w[i].path))
			c[n++] = (struct candidate){ p->w[i].path, p->w[i].is_dir, CARRY_WRITABLE };
	for (int i = 0; i < run->nhomes; i++)
		read_only_candidate(p, v->view, run->homes[i], c, &n);
	read_only_candidate(p, v->view, cwd, c, &n);
	for (size_t i = 0; i < p->nsockets; i++) {
		struct stat st;
		const char *s = p->sockets[i];
		if (below_view(p, v->view, s) && !policy_inside_writable(p, s) && stat(s, &st) == 0)
			c[n++] = (struct candidate){ s, S_ISDIR(st.st_mode), CARRY_SOCKET };
	}
	qsort(c, n, sizeof(*c), by_length);
	int r = 0;
	for (size_t i = 0; r == 0 && i < n; i++)
		r = add_carry(v, c[i].path, c[i].is_dir, c[i].kind);
	free(c);
	return r;
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
		if (dup || writable_above(p, real))
			continue;
		struct tmp_view *v = &m->views[m->nviews++];
		struct private_tmp *pt = &res->ptmp[res->nptmp++];
		if ((v->view = strdup(real)) == NULL || (pt->view = strdup(real)) == NULL ||
		    (pt->src = strdup(run->rundir)) == NULL || tmp_plan_view(run, m->cwd, v) != 0)
			return backend_fail(res, CORDON_ENOMEM, "out of memory");
		for (size_t k = 0; k < v->ncarry; k++) {
			char path[CORDON_PATH_MAX];
			res->tmp_read_only_shown |= v->carry[k].kind == CARRY_READ_ONLY;
			if (tmp_carry_path(v, &v->carry[k], path, sizeof(path)) != 0 ||
			    strv_push(&pt->shown, path) != 0)
				return backend_fail(res, CORDON_ENOMEM, "out of memory");
		}
	}
	return 0;
}

void tmp_view_free(struct tmp_view *v)
{
	for (size_t k = 0; k < v->ncarry; k++) {
		for (size_t j = 0; j < v->carry[k].ncomps; j++)
			free(v->carry[k].comps[j]);
		free(v->carry[k].comps);
	}
	free(v->carry);
	free(v->view);
	memset(v, 0, sizeof(*v));
}

void tmp_free(struct mount_plan *m)
{
	for (size_t i = 0; i < m->nviews; i++)
		tmp_view_free(&m->views[i]);
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
	/* What is not writable gets no device: Landlock's grant on the view
	 * reaches it (see the top of this file). A socket's own mount is
	 * read-only too; a read-only tree's mounts keep their own (the
	 * writable trees below it stay writable). */
	if (c->kind != CARRY_WRITABLE) {
		struct tmp_mount_attr a = { CORDON_MOUNT_ATTR_NODEV, 0, 0, 0 };
		if (syscall(CORDON_SYS_mount_setattr, tree, "",
			    CORDON_AT_EMPTY_PATH | CORDON_AT_RECURSIVE, &a, sizeof(a)) != 0)
			e = errno;
	}
	if (e == 0 && c->kind == CARRY_SOCKET) {
		struct tmp_mount_attr a = { CORDON_MOUNT_ATTR_RDONLY, 0, 0, 0 };
		if (syscall(CORDON_SYS_mount_setattr, tree, "", CORDON_AT_EMPTY_PATH, &a,
			    sizeof(a)) != 0)
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
