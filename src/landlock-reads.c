/*
 * Landlock: the read layer, for runs without a mount layer (no user
 * namespace) where nothing can cover a denied path.
 *
 * Landlock only grants, so the layer is a ruleset of its own that
 * handles reads and grants them on everything but the denied paths: on
 * the way down from / to each denied path, every entry beside the way
 * is granted (a directory with all beneath it), the way itself is not.
 * The names of ~/.ssh that stay readable are granted one by one. The
 * parent builds it once per run; each child restricts itself with it
 * just before the write ruleset. Two Landlock layers: an access must be
 * allowed by both, and each handles what the other does not.
 *
 * What it costs the command: a directory on the way (/, /home, the
 * home, ~/.config ...) cannot be listed, and a name that appears in
 * one during the run cannot be read. What it cannot hold: a denied
 * path inside a writable tree (the tree is granted whole: the policy
 * reports it), the same file reached through another mount of its tree
 * or another hard link. The rules are bounded (READS_MAX_GRANTS): past
 * that the layer is not built and the paths are reported readable.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_DIR_RIGHTS (LL_FS_READ_FILE | LL_FS_READ_DIR)

/* The denied paths the layer keeps out: those it can hold, but not one
 * inside another (~/.ssh/id_rsa named with --deny-read, ~/.ssh by the
 * default list), whose way would pass through the outer one. */
static int is_target(const struct policy *p, size_t i)
{
	const struct deny_entry *d = &p->deny[i];
	if (!deny_grant_holds(p, d))
		return 0;
	for (size_t k = 0; k < p->ndeny; k++)
		if (k != i && p->deny[k].is_dir && strcmp(p->deny[k].path, d->path) != 0 &&
		    path_within(p->deny[k].path, d->path) && deny_grant_holds(p, &p->deny[k]))
			return 0;
	return 1;
}

/* A name the walk does not grant in its directory: a step of the way
 * (walked in turn), or a target (t). */
struct stop {
	char *dir; /* the directory it is in */
	const char *name; /* points into dir's allocation: after its NUL */
	const struct deny_entry *t; /* NULL: a step of the way */
};

struct walk {
	struct stop *v;
	size_t n;
};

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].dir);
	free(w->v);
}

static int has_stop(const struct walk *w, const char *path)
{
	char j[CORDON_PATH_MAX];
	for (size_t i = 0; i < w->n; i++)
		if (path_join(j, sizeof(j), w->v[i].dir, w->v[i].name) == 0 && strcmp(j, path) == 0)
			return 1;
	return 0;
}

/* path split at its last slash into a new stop. */
static int add_stop(struct walk *w, const char *path, const struct deny_entry *t)
{
	const char *slash = strrchr(path, '/');
	if (slash == NULL || slash[1] == '\0')
		return 0; /* "/": no directory holds it */
	size_t dl = slash == path ? 1 : (size_t)(slash - path), nl = strlen(slash + 1);
	struct stop *v = realloc(w->v, (w->n + 1) * sizeof(*v));
	if (v == NULL)
		return CORDON_ENOMEM;
	w->v = v;
	struct stop *st = &v[w->n];
	st->dir = malloc(dl + 1 + nl + 1);
	if (st->dir == NULL)
		return CORDON_ENOMEM;
	memcpy(st->dir, path, dl);
	st->dir[dl] = '\0';
	memcpy(st->dir + dl + 1, slash + 1, nl + 1);
	st->name = st->dir + dl + 1;
	st->t = t;
	w->n++;
	return 0;
}

/* Every target, and every step of the way down to it from /, once. */
static int plan_walk(const struct policy *p, struct walk *w)
{
	char buf[CORDON_PATH_MAX];
	for (size_t i = 0; i < p->ndeny; i++) {
		if (!is_target(p, i))
			continue;
		size_t len = strlen(p->deny[i].path);
		if (len >= sizeof(buf))
			return CORDON_ENOMEM;
		if (add_stop(w, p->deny[i].path, &p->deny[i]) != 0)
			return CORDON_ENOMEM;
		memcpy(buf, p->deny[i].path, len + 1);
		for (char *slash; (slash = strrchr(buf, '/')) != NULL && slash != buf;) {
			*slash = '\0';
			if (!has_stop(w, buf) && add_stop(w, buf, NULL) != 0)
				return CORDON_ENOMEM;
		}
	}
	return 0;
}

/* Each entry of the directory dirpath (open as dfd) but its stops; a
 * target's readable names instead. */
static int walk_dir(const struct walk *w, const char *dirpath, int dfd, reads_grant_fn fn,
		    void *arg, size_t *count, size_t max)
{
	/* The stops in this directory (few: compared with every name). */
	const struct stop *here[64];
	size_t nhere = 0;
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i].dir, dirpath) == 0) {
			if (nhere == sizeof(here) / sizeof(here[0]))
				return 1; /* a bound of its own: reported unbuilt */
			here[nhere++] = &w->v[i];
		}
	int lfd = dup(dfd);
	DIR *dir = lfd < 0 ? NULL : fdopendir(lfd);
	if (dir == NULL) {
		int e = errno;
		if (lfd >= 0)
			close(lfd);
		return -e;
	}
	struct dirent *e;
	int r = 0;
	errno = 0;
	while (r == 0 && (e = readdir(dir)) != NULL) {
		const char *n = e->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		const struct stop *s = NULL;
		for (size_t i = 0; s == NULL && i < nhere; i++)
			if (strcmp(here[i]->name, n) == 0)
				s = here[i];
		if (s != NULL && s->t != NULL && s->t->nkeep > 0) {
			int tfd = openat(dfd, n, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			for (size_t k = 0; tfd >= 0 && r == 0 && k < s->t->nkeep; k++)
				r = ++*count > max ? 1 : fn(arg, tfd, s->t->keep[k], DT_UNKNOWN);
			if (tfd >= 0)
				close(tfd);
		} else if (s == NULL) {
			r = ++*count > max ? 1 : fn(arg, dfd, n, e->d_type);
		}
		errno = 0;
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(dir);
	return r;
}

int reads_walk(const struct policy *p, size_t max, reads_grant_fn fn, void *arg)
{
	struct walk w = { NULL, 0 };
	size_t count = 0;
	int r = plan_walk(p, &w);
	/* The directories walked: "/" and every step of the way. */
	for (size_t i = 0; r == 0 && i <= w.n; i++) {
		char path[CORDON_PATH_MAX] = "/";
		if (i < w.n && (w.v[i].t != NULL ||
				path_join(path, sizeof(path), w.v[i].dir, w.v[i].name) != 0))
			continue;
		if (i == w.n && w.n == 0)
			break; /* no target: nothing to walk */
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0) {
			r = -errno;
			break;
		}
		r = walk_dir(&w, path, dfd, fn, arg, &count, max);
		close(dfd);
	}
	walk_free(&w);
	return r;
}

/* The fds a batch of rules used, closed together: a run of consecutive
 * numbers (this process's own, all opened here) in one close_range. */
#define GRANT_BATCH 256

struct grant_ctx {
	long ruleset;
	int fds[GRANT_BATCH];
	size_t n;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void close_batch(struct grant_ctx *g)
{
	qsort(g->fds, g->n, sizeof(g->fds[0]), cmp_int);
	for (size_t i = 0; i < g->n;) {
		size_t j = i;
		while (j + 1 < g->n && g->fds[j + 1] == g->fds[j] + 1)
			j++;
		(void)close_fd_range((unsigned)g->fds[i], (unsigned)g->fds[j]);
		i = j + 1;
	}
	g->n = 0;
}

/* Grant reads on name in dfd: a directory with all beneath it, a file
 * alone; a symlink is not followed (its target is checked where it
 * leads). 0, or -errno when the kernel refused the rule. */
static int grant(void *arg, int dfd, const char *name, unsigned char type)
{
	struct grant_ctx *g = arg;
	if (type == DT_LNK)
		return 0;
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone since the listing: nothing to grant */
	int is_dir = type == DT_DIR, r = 0;
	if (type == DT_UNKNOWN) {
		struct stat st;
		if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
			close(fd);
			return 0;
		}
		is_dir = S_ISDIR(st.st_mode);
	}
	struct ll_path_beneath_attr pb = { .allowed_access =
						   is_dir ? READ_DIR_RIGHTS : LL_FS_READ_FILE,
					   .parent_fd = fd };
	if (ll_add_rule((int)g->ruleset, &pb) != 0)
		r = -errno;
	g->fds[g->n++] = fd;
	if (g->n == GRANT_BATCH)
		close_batch(g);
	return r;
}

int reads_prepare(cordon *c, const struct policy *p, struct landlock_plan *l)
{
	l->read_fd = -1;
	c->pol.reads_unbuilt = 0;
	int any = 0;
	for (size_t i = 0; i < p->ndeny; i++)
		any |= deny_grant_holds(p, &p->deny[i]);
	if (!any)
		return 0;
	/* REFER on the whole tree: the write ruleset alone decides where
	 * renames and links go, and Landlock still refuses one that would
	 * give a file more read rights where it lands. */
	struct ll_ruleset_attr attr = { .handled_access_fs = READ_DIR_RIGHTS | LL_FS_REFER };
	long rs = ll_create_ruleset(&attr, sizeof(attr), 0);
	if (rs < 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "landlock_create_ruleset (reads)");
	int r = -landlock_grant_path("/", (int)rs, LL_FS_REFER);
	/* The writable set is read whole, whatever lies on its way (a
	 * device the machine lacks: nothing to grant). */
	for (size_t i = 0; r == 0 && i < p->nw; i++)
		r = -landlock_grant_path(p->w[i].path, (int)rs,
					 p->w[i].is_dir ? READ_DIR_RIGHTS : LL_FS_READ_FILE);
	struct grant_ctx *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		close((int)rs);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	g->ruleset = rs;
	if (r == 0)
		r = reads_walk(p, READS_MAX_GRANTS, grant, g);
	close_batch(g);
	free(g);
	if (r != 0) {
		close((int)rs);
		/* Too many rules, or a directory on the way the caller cannot
		 * list: not built, and the paths are reported readable. */
		if (r == 1 || r == -EACCES || r == -EPERM) {
			c->pol.reads_unbuilt = 1;
			return 0;
		}
		return cordon_fail_errno(c, CORDON_ESYS, -r, "cannot build the read layer");
	}
	l->read_fd = (int)rs;
	return 0;
}

#else
typedef int cordon_no_landlock_reads_here;
#endif
