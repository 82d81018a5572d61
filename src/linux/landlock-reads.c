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
 * or another hard link.
 *
 * What it costs the run: a rule per entry beside the way, whatever
 * their number (a home of 10,000 entries is as protected as one of
 * ten): an openat and a landlock_add_rule each. A directory's entries
 * are listed first, then granted by up to GRANT_THREADS threads at
 * once (the path lookups run side by side; the kernel serialises only
 * the rule's insertion).
 */
#include "linux-layers.h"

#if defined(__linux__)

#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
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
	size_t *here = malloc((w->n > 0 ? w->n : 1) * sizeof(size_t)); /* indexes */
	size_t nhere = 0;
	if (here == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i].dir, dirpath) == 0)
			here[nhere++] = i;
	int lfd = dup(dfd);
	DIR *dir = lfd < 0 ? NULL : fdopendir(lfd);
	if (dir == NULL) {
		int e = errno;
		if (lfd >= 0)
			close(lfd);
		free(here);
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
			if (strcmp(w->v[here[i]].name, n) == 0)
				s = &w->v[here[i]];
		if (s != NULL && s->t != NULL && s->t->nkeep > 0) {
			int tfd = openat(dfd, n, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			for (size_t k = 0; tfd >= 0 && r == 0 && k < s->t->nkeep; k++)
				r = ++*count > max ? 1 : fn(arg, tfd, s->t->keep[k], DT_UNKNOWN, 1);
			if (tfd >= 0)
				close(tfd);
		} else if (s == NULL) {
			r = ++*count > max ? 1 : fn(arg, dfd, n, e->d_type, 0);
		}
		errno = 0;
	}
	if (r == 0 && errno != 0)
		r = -errno;
	closedir(dir);
	free(here);
	return r;
}

int reads_walk(const struct policy *p, size_t max, reads_grant_fn fn, reads_done_fn done, void *arg)
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
		if (r == 0 && done != NULL)
			r = done(arg, dfd);
		close(dfd);
	}
	walk_free(&w);
	return r;
}

/* A directory's entries, listed, then granted together. */
#define GRANT_THREADS 4
#define GRANT_MIN_SPLIT 256 /* fewer entries: granted by the calling thread */

struct pending {
	char *name; /* in the arena */
	unsigned char type;
};

/* The names' bytes: blocks chained newest first. */
struct arena {
	struct arena *next;
	size_t used, size;
	char bytes[];
};

struct grant_ctx {
	long ruleset;
	struct pending *v;
	size_t n, cap;
	struct arena *arena;
};

/* One thread's share of a directory's entries. */
struct share {
	const struct grant_ctx *g;
	size_t from, to;
	int dfd;
	int err; /* 0, or the errno of a rule the kernel refused */
};

/* Grant reads on each entry of the share: a directory with all beneath
 * it, a file alone; a symlink is not followed (its target is checked
 * where it leads); an entry gone since the listing: nothing to grant.
 * Each fd is closed as soon as its rule is in (the rule holds the inode
 * itself): kept open, a home of 10,000 entries grew the process's fd
 * table a dozen times, and each growth of a table that threads share
 * waits for an RCU grace period (expand_fdtable's synchronize_rcu), about
 * 15 ms here, which made most of the layer's time. */
static void *grant_share(void *arg)
{
	struct share *sh = arg;
	for (size_t i = sh->from; i < sh->to && sh->err == 0; i++) {
		const struct pending *e = &sh->g->v[i];
		if (e->type == DT_LNK)
			continue;
		int fd = openat(sh->dfd, e->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		int is_dir = e->type == DT_DIR;
		if (e->type == DT_UNKNOWN) {
			struct stat st;
			if (fstat(fd, &st) != 0 || S_ISLNK(st.st_mode)) {
				close(fd);
				continue;
			}
			is_dir = S_ISDIR(st.st_mode);
		}
		struct ll_path_beneath_attr pb = { .allowed_access = is_dir ? READ_DIR_RIGHTS
									    : LL_FS_READ_FILE,
						   .parent_fd = fd };
		if (ll_add_rule((int)sh->g->ruleset, &pb) != 0)
			sh->err = errno;
		close(fd);
	}
	return NULL;
}

/* reads_walk's fn: the entry kept for done; a name inside a denied
 * directory granted now (its fd is open only now). */
static int grant(void *arg, int dfd, const char *name, unsigned char type, int inside)
{
	struct grant_ctx *g = arg;
	if (inside) {
		struct pending one = { (char *)name, type };
		struct share sh = { .g = &(struct grant_ctx){ g->ruleset, &one, 1, 1, NULL },
				    .from = 0,
				    .to = 1,
				    .dfd = dfd };
		(void)grant_share(&sh);
		return -sh.err;
	}
	size_t k = strlen(name) + 1;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		struct pending *v = realloc(g->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		g->v = v;
		g->cap = cap;
	}
	if (g->arena == NULL || g->arena->used + k > g->arena->size) {
		/* A new block for what follows; the entries so far keep
		 * theirs (freed with the directory's batch). */
		size_t size =
			g->arena != NULL && g->arena->size * 2 > 65536 ? g->arena->size * 2 : 65536;
		if (size < k)
			size = k;
		struct arena *a = malloc(sizeof(*a) + size);
		if (a == NULL)
			return -ENOMEM;
		a->next = g->arena;
		a->used = 0;
		a->size = size;
		g->arena = a;
	}
	char *at = g->arena->bytes + g->arena->used;
	memcpy(at, name, k);
	g->arena->used += k;
	g->v[g->n].name = at;
	g->v[g->n++].type = type;
	return 0;
}

static void arena_free(struct grant_ctx *g)
{
	while (g->arena != NULL) {
		struct arena *next = g->arena->next;
		free(g->arena);
		g->arena = next;
	}
}

/* reads_walk's done: the directory's entries granted, by several
 * threads when there are many. 0 or -errno. */
static int grant_all(void *arg, int dfd)
{
	struct grant_ctx *g = arg;
	size_t nt = g->n >= GRANT_MIN_SPLIT ? GRANT_THREADS : 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > 0 && (size_t)cpus < nt)
		nt = (size_t)cpus;
	struct share sh[GRANT_THREADS];
	pthread_t th[GRANT_THREADS];
	int started[GRANT_THREADS] = { 0 };
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t t = 0; t < nt; t++) {
		sh[t] = (struct share){
			.g = g, .from = g->n * t / nt, .to = g->n * (t + 1) / nt, .dfd = dfd
		};
		/* The first share is this thread's; a thread that cannot be
		 * had leaves its share to this one too. */
		started[t] = t > 0 && pthread_create(&th[t], NULL, grant_share, &sh[t]) == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (size_t t = 0; t < nt; t++)
		if (!started[t])
			(void)grant_share(&sh[t]);
	int err = 0;
	for (size_t t = 0; t < nt; t++) {
		if (started[t])
			(void)pthread_join(th[t], NULL);
		if (err == 0)
			err = sh[t].err;
	}
	g->n = 0;
	arena_free(g);
	return -err;
}

int reads_prepare(const struct policy *p, struct landlock_plan *l, struct run_result *res)
{
	l->read_fd = -1;
	res->reads_unbuilt = 0;
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
		return backend_fail_errno(res, CORDON_ESYS, errno,
					  "landlock_create_ruleset (reads)");
	int r = -landlock_grant_path("/", (int)rs, LL_FS_REFER);
	/* The writable set is read whole, whatever lies on its way (a
	 * device the machine lacks: nothing to grant). */
	for (size_t i = 0; r == 0 && i < p->nw; i++)
		r = -landlock_grant_path(p->w[i].path, (int)rs,
					 p->w[i].is_dir ? READ_DIR_RIGHTS : LL_FS_READ_FILE);
	struct grant_ctx *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		close((int)rs);
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	}
	g->ruleset = rs;
	if (r == 0)
		r = reads_walk(p, SIZE_MAX, grant, grant_all, g);
	arena_free(g);
	free(g->v);
	free(g);
	if (r != 0) {
		close((int)rs);
		/* A directory on the way the caller cannot list: not built,
		 * and the paths are reported readable. */
		if (r == -EACCES || r == -EPERM) {
			res->reads_unbuilt = 1;
			return 0;
		}
		return backend_fail_errno(res, CORDON_ESYS, -r, "cannot build the read layer");
	}
	l->read_fd = (int)rs;
	return 0;
}

#else
typedef int cordon_no_landlock_reads_here;
#endif
