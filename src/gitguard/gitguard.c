/*
 * The git guard: what a confined run leaves in the workspace's git
 * metadata must not run, or redirect, a later unconfined git command.
 *
 * Git runs programs named in its config (core.fsmonitor, core.hooksPath,
 * core.pager, filter and diff drivers, aliases, credential helpers...)
 * and the hooks in its hooks dir; a few files move where it reads those
 * from (commondir, config.worktree with extensions.worktreeConfig, a
 * ".git" file's gitdir line, core.worktree); info/attributes turns
 * filters on. Those files, in the workspace's git dir, its worktrees'
 * dirs and its submodules' dirs (modules/, at any depth), are:
 *
 *   - when they exist at the start: protected (read-only with the mount
 *     layer), and their state recorded;
 *   - at the end of the run, compared with that record: a file that
 *     appeared or changed is accepted only when git itself would have
 *     written it (a config of keys git writes on init/clone/submodule/
 *     worktree with harmless values, a commondir naming the common dir,
 *     a hooks dir of *.sample files); anything else is moved aside under
 *     a name git never reads (NAME.cordon-tampered-RUN) and, when it
 *     existed before, its recorded content put back.
 *
 * A ".git" planted in a directory that holds tracked files is a
 * repository of its own for a git command started in that directory,
 * and "git status" at the top does not show it: the directories of the
 * index are checked at the end for a ".git" made during the run.
 *
 * Everything here runs in cordon's own process, before the command
 * starts and after every process of the run has ended.
 */
#include "gitguard.h"
#include "gitfmt.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SNAP_MAX (1u << 20) /* content kept to put back, per file */
#define FILE_MAX (4u << 20) /* a larger config or index is not read */
#define DEPTH_MAX 8 /* submodules inside submodules */
#define GITDIRS_MAX 1024 /* git dirs in one workspace */
#define STEPS_MAX 100000L /* files and dirs looked at, per walk */
#define TOPS_MAX 512 /* repositories guarded below a workspace in none */
#define UNREAD_NAMED 16 /* dirs the end's search could not read, listed */

enum kind { K_CONFIG, K_COMMONDIR, K_HOOKS, K_ATTRIBUTES, K_GITFILE };

struct item {
	char *path;
	enum kind kind;
	char *common; /* K_COMMONDIR: the common dir it must name */
	int existed;
	int err; /* why lstat failed at the start (0: it did not) */
	struct stat st;
	int prefix; /* K_GITFILE: common names a dir it must lie below */
	char *content; /* files that existed, to put back; K_HOOKS: listing */
	size_t len;
};

struct gitguard {
	struct item *v;
	size_t n, cap;
	struct nested_start nested;
	int begun; /* 0: the end has nothing to compare against */
	int over; /* a walk gave up: too many git dirs or files */
	char *unread; /* a .gitmodules that could not be read as git reads it */
	/* A workspace in no repository: the repositories found below it
	 * at the start (gitfind.c), those guarded (up to TOPS_MAX), and the
	 * directories left unsearched (and repositories past TOPS_MAX). */
	struct strv found, tops, unsearched;
	int searched; /* the start searched the workspace */
	size_t reads; /* directories the start's search read */
	/* The run's guard is released (gitguard_release): only the list of
	 * what the run left stays, until the next run or the handle's end. */
	int released;
	struct tamper *tampered;
	size_t ntampered;
};

/* ---- small helpers ---- */

/* A whole file of at most max bytes, NUL-terminated; NULL otherwise. */
char *gitguard_slurp(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max &&
	    (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		buf[got] = '\0';
		*len = got;
	}
	close(fd);
	return buf;
}

/* 1 when path is normalised, lies in a writable tree, and no directory
 * on the way down to it inside a writable tree is a symlink. The guard
 * runs unconfined on names the command chose: it touches nothing else.
 * (Its last component may be a symlink: lstat, rename and O_NOFOLLOW
 * opens do not follow it.) */
int gitguard_clean(const struct policy *pol, const char *path)
{
	char norm[CORDON_PATH_MAX];
	if (path[0] != '/' || path_normalize(NULL, path, norm, sizeof(norm)) != 0 ||
	    strcmp(norm, path) != 0 || !policy_inside_writable(pol, path))
		return 0;
	for (char *s = norm + 1; (s = strchr(s, '/')) != NULL; s++) {
		struct stat st;
		*s = '\0';
		int bad = policy_inside_writable(pol, norm) && lstat(norm, &st) == 0 &&
			  !S_ISDIR(st.st_mode);
		*s = '/';
		if (bad)
			return 0;
	}
	return 1;
}

/* A directory opened without following a symlink at its name. */
static DIR *open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (d == NULL)
		close(fd);
	return d;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's entries as text, one line each: name, inode, size,
 * mode, times; sorted. NULL when it cannot be read. */
static char *dir_listing(const char *path, size_t *len)
{
	DIR *d = open_dir(path);
	if (d == NULL)
		return NULL;
	char **lines = NULL, *out = NULL;
	size_t n = 0, total = 1;
	int ok = 1;
	struct dirent *e;
	while (ok && (e = readdir(d)) != NULL) {
		struct stat st;
		char line[512];
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue; /* ".." changes with every commit */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			memset(&st, 0, sizeof(st));
		int k = snprintf(line, sizeof(line), "%s %llu %lld %o %lld.%ld %lld.%ld\n",
				 e->d_name, (unsigned long long)st.st_ino, (long long)st.st_size,
				 (unsigned)st.st_mode, (long long)MTIME(st).tv_sec,
				 (long)MTIME(st).tv_nsec, (long long)CTIME(st).tv_sec,
				 (long)CTIME(st).tv_nsec);
		char **v = realloc(lines, (n + 1) * sizeof(*v));
		ok = k > 0 && v != NULL;
		if (v != NULL)
			lines = v;
		if (ok && (lines[n] = strdup(line)) != NULL)
			total += strlen(lines[n++]);
		else
			ok = 0;
	}
	closedir(d);
	if (ok && n < 100000) {
		if (n > 0)
			qsort(lines, n, sizeof(*lines), by_name);
		if ((out = malloc(total)) != NULL) {
			size_t k = 0;
			for (size_t i = 0; i < n; i++) {
				size_t m = strlen(lines[i]);
				memcpy(out + k, lines[i], m);
				k += m;
			}
			out[k] = '\0';
			*len = k;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return out;
}

/* A hooks dir git made itself: only *.sample files. */
static int only_samples(const char *path)
{
	DIR *d = open_dir(path);
	if (d == NULL)
		return 0;
	struct dirent *e;
	int ok = 1;
	while (ok && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		size_t n = strlen(e->d_name);
		struct stat st;
		ok = n > 7 && strcmp(e->d_name + n - 7, ".sample") == 0 &&
		     fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		     S_ISREG(st.st_mode);
	}
	closedir(d);
	return ok;
}

/* ---- the list ---- */

static struct item *find(struct gitguard *g, const char *path)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].path, path) == 0)
			return &g->v[i];
	return NULL;
}

static void item_free(struct item *it)
{
	free(it->path);
	free(it->common);
	free(it->content);
}

struct walk {
	struct gitguard *g;
	const struct policy *pol;
	int at_start;
	int (*protect)(void *ctx, const char *path);
	void *ctx;
	int err; /* out of memory */
	long steps; /* left before the walk gives up (over) */
	struct {
		dev_t dev;
		ino_t ino;
	} seen[GITDIRS_MAX]; /* git dirs walked: each once */
	size_t nseen;
};

static int step(struct walk *w)
{
	if (w->steps <= 0) {
		w->g->over = 1;
		return 0;
	}
	w->steps--;
	return !w->err;
}

/* Watch path when it lies in a writable tree (elsewhere the command
 * cannot write it at all) and is gitguard_clean(). expected: what a K_COMMONDIR
 * or K_GITFILE must name (prefix: a dir below it). */
static void watch(struct walk *w, const char *path, enum kind kind, const char *expected,
		  int prefix, int protect)
{
	struct gitguard *g = w->g;
	if (!step(w) || !gitguard_clean(w->pol, path) || find(g, path) != NULL)
		return;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		struct item *v = realloc(g->v, cap * sizeof(*v));
		if (v == NULL) {
			w->err = 1;
			return;
		}
		g->v = v;
		g->cap = cap;
	}
	struct item *it = &g->v[g->n];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->prefix = prefix;
	if ((it->path = strdup(path)) == NULL ||
	    (expected != NULL && (it->common = strdup(expected)) == NULL)) {
		item_free(it);
		w->err = 1;
		return;
	}
	g->n++;
	if (!w->at_start)
		return; /* new at the end */
	if (lstat(path, &it->st) != 0) {
		it->err = errno;
		/* Absent at the start. Where git never makes it in a run
		 * (commondir of a main git dir, config.worktree, info/
		 * attributes), a backend that can refuse its creation by
		 * name (Seatbelt) does. */
		size_t n = strlen(path);
		if (w->protect != NULL &&
		    (kind == K_ATTRIBUTES || (kind == K_COMMONDIR && expected == NULL) ||
		     (n > 16 && strcmp(path + n - 16, "/config.worktree") == 0)) &&
		    policy_add_absent((struct policy *)w->ctx, path) != 0)
			w->err = 1;
		return;
	}
	it->existed = 1;
	if (kind == K_HOOKS)
		it->content = dir_listing(path, &it->len);
	else if (S_ISREG(it->st.st_mode))
		it->content = gitguard_slurp(path, SNAP_MAX, &it->len);
	if (protect && w->protect != NULL && w->protect(w->ctx, path) != 0)
		w->err = 1;
}

/* A git dir and what hangs from it: its worktrees' dirs and its
 * submodules' git dirs (which are git dirs of their own). */
static void gitdir(struct walk *w, const char *g, int depth, int module);
static void repository_at(struct walk *w, const char *top, int depth);

static void modules(struct walk *w, const char *dir, int depth)
{
	char sub[CORDON_PATH_MAX], head[CORDON_PATH_MAX];
	if (depth > DEPTH_MAX || !step(w))
		return;
	DIR *d = open_dir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    gg_join(sub, dir, e->d_name) != 0 || lstat(sub, &st) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue; /* a submodule's name may start with "." */
		/* A submodule's name may hold "/": a dir without HEAD is a
		 * step of such a name. */
		if (gg_join(head, sub, "HEAD") == 0 && lstat(head, &st) == 0)
			gitdir(w, sub, depth + 1, 1);
		else
			modules(w, sub, depth + 1);
	}
	closedir(d);
}

/* The target of path's text (a gitdir line, a commondir), resolved
 * against dir, lexically normalised into out. 0 or -1. */
static int resolve_text(const char *dir, const char *text, char *out)
{
	char p[CORDON_PATH_MAX];
	if (text[0] == '\0' || strpbrk(text, "\r\t") != NULL)
		return -1;
	if (text[0] == '/')
		return path_normalize(NULL, text, out, CORDON_PATH_MAX);
	return gg_join(p, dir, text) == 0 ? path_normalize(NULL, p, out, CORDON_PATH_MAX) : -1;
}

/* A ".git" file's gitdir line (its text after "gitdir: "), NULL when it
 * has none. The caller frees it. */
static char *gitdir_line(const char *file)
{
	size_t len = 0;
	char *s = gitguard_slurp(file, 4096, &len);
	if (s == NULL || strncmp(s, "gitdir: ", 8) != 0) {
		free(s);
		return NULL;
	}
	s[strcspn(s, "\n")] = '\0';
	memmove(s, s + 8, strlen(s + 8) + 1);
	return s;
}

/* The gitdir line of a ".git" file, resolved against its directory. */
int gitguard_gitfile_target(const char *file, char *out)
{
	char *text = gitdir_line(file);
	char up[CORDON_PATH_MAX], dir[CORDON_PATH_MAX];
	int r = text != NULL && gg_join(up, file, "..") == 0 &&
				path_normalize(NULL, up, dir, sizeof(dir)) == 0
			? resolve_text(dir, text, out)
			: -1;
	free(text);
	return r;
}

/* At the start: the working tree whose ".git" is dotgit (a submodule's
 * checkout, a linked worktree), when it lies in the workspace, for the
 * nested check, with the index of its git dir gd. */
static void tree_at_start(struct walk *w, const char *dotgit, const char *gd)
{
	char top[CORDON_PATH_MAX], index[CORDON_PATH_MAX];
	size_t n = strlen(dotgit);
	if (!w->at_start || n <= 5 || strcmp(dotgit + n - 5, "/.git") != 0 ||
	    n - 5 >= sizeof(top) || gg_join(index, gd, "index") != 0)
		return;
	memcpy(top, dotgit, n - 5);
	top[n - 5] = '\0';
	if (gitguard_clean(w->pol, top) && gitnested_add(&w->g->nested, top, index) != 0)
		w->err = 1;
}

static void gitdir(struct walk *w, const char *g, int depth, int module)
{
	static const struct {
		const char *name;
		enum kind kind;
	} files[] = {
		{ "config", K_CONFIG },
		{ "config.worktree", K_CONFIG },
		{ "commondir", K_COMMONDIR },
		{ "hooks", K_HOOKS },
		{ "info/attributes", K_ATTRIBUTES },
	};
	char p[CORDON_PATH_MAX], wt[CORDON_PATH_MAX], f[CORDON_PATH_MAX];
	struct stat st;
	if (!step(w) || !gitguard_clean(w->pol, g) || lstat(g, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].dev == st.st_dev && w->seen[i].ino == st.st_ino)
			return;
	if (w->nseen == GITDIRS_MAX) {
		w->g->over = 1;
		return;
	}
	w->seen[w->nseen].dev = st.st_dev;
	w->seen[w->nseen++].ino = st.st_ino;
	/* A main git dir has no commondir: none may appear. A submodule's
	 * config is not made read-only: "git submodule update" writes
	 * core.worktree into it; the end checks what it gained. */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (gg_join(p, g, files[i].name) == 0)
			watch(w, p, files[i].kind, NULL, 0, !(module && files[i].kind == K_CONFIG));
	/* Worktrees: their config.worktree, their commondir (which must
	 * name this dir), and the ".git" file of their working tree. */
	DIR *d = gg_join(p, g, "worktrees") == 0 ? open_dir(p) : NULL;
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    gg_join(wt, p, e->d_name) != 0 || !gitguard_clean(w->pol, wt) ||
		    lstat(wt, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		static const char *const names[] = { "config", "config.worktree", "hooks",
						     "commondir" };
		static const enum kind kinds[] = { K_CONFIG, K_CONFIG, K_HOOKS, K_COMMONDIR };
		for (size_t i = 0; i < 4; i++)
			if (gg_join(f, wt, names[i]) == 0)
				watch(w, f, kinds[i], kinds[i] == K_COMMONDIR ? g : NULL, 0, 1);
		size_t len = 0;
		char *back = gg_join(f, wt, "gitdir") == 0 ? gitguard_slurp(f, 4096, &len) : NULL;
		char target[CORDON_PATH_MAX];
		if (back != NULL) {
			back[strcspn(back, "\n")] = '\0';
			/* the worktree's ".git" file, which must name this dir */
			if (back[0] == '/' && resolve_text("/", back, target) == 0 &&
			    strcmp(target, back) == 0) {
				watch(w, back, K_GITFILE, wt, 0, 1);
				tree_at_start(w, back, wt);
			}
			free(back);
		}
	}
	if (d != NULL)
		closedir(d);
	if (gg_join(p, g, "modules") == 0)
		modules(w, p, depth);
}

struct submodules {
	struct walk *w;
	const char *top;
	const char *gitdir;
	int depth;
};

/* "submodule.NAME.path=PATH" of .gitmodules: its checkout's ".git" file
 * (naming a dir under the git dir's modules/), and what is inside. */
static int submodule_path(void *ctx, const char *entry, int safe)
{
	struct submodules *s = ctx;
	char sub[CORDON_PATH_MAX], norm[CORDON_PATH_MAX], f[CORDON_PATH_MAX], mods[CORDON_PATH_MAX];
	(void)safe;
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : 0;
	if (eq == NULL || n < 15 || strncmp(entry, "submodule.", 10) != 0 ||
	    strncmp(eq - 5, ".path", 5) != 0 || eq[1] == '/' || eq[1] == '\0' ||
	    gg_join(sub, s->top, eq + 1) != 0 ||
	    path_normalize(NULL, sub, norm, sizeof(norm)) != 0 || !path_within(s->top, norm) ||
	    strcmp(s->top, norm) == 0 || !gitguard_clean(s->w->pol, norm))
		return 0;
	if (gg_join(f, norm, ".git") == 0 && s->gitdir != NULL &&
	    gg_join(mods, s->gitdir, "modules") == 0)
		watch(s->w, f, K_GITFILE, mods, 1, 1);
	repository_at(s->w, norm, s->depth + 1);
	return s->w->err || s->w->g->over ? 1 : 0;
}

/* The workspace's repository: its ".git" (a dir, or a file naming one),
 * the submodules' ".git" files named in .gitmodules, and the git dirs. */
static void repository_at(struct walk *w, const char *top, int depth)
{
	char dotgit[CORDON_PATH_MAX], g[CORDON_PATH_MAX];
	const char *gd = NULL;
	struct stat st;
	if (depth > DEPTH_MAX || !step(w) || gg_join(dotgit, top, ".git") != 0 ||
	    lstat(dotgit, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		gitdir(w, dotgit, depth, depth > 0);
		gd = dotgit;
		if (depth > 0)
			tree_at_start(w, dotgit, gd);
	} else if (S_ISREG(st.st_mode)) {
		/* The workspace's own ".git" file must keep naming what it
		 * named at the start (a submodule's is watched by its
		 * parent, with the dir it must name). */
		if (depth == 0 && gitguard_gitfile_target(dotgit, g) == 0)
			watch(w, dotgit, K_GITFILE, w->at_start ? g : NULL, 0, 1);
		if (gitguard_gitfile_target(dotgit, g) == 0) {
			gitdir(w, g, depth, depth > 0);
			gd = g;
			if (depth > 0)
				tree_at_start(w, dotgit, gd);
		}
	}
	char gm[CORDON_PATH_MAX];
	size_t len = 0;
	struct stat gst;
	/* Only one the command could have changed, reached without a
	 * symlink; else the guard reads nothing there, as before. */
	if (gg_join(gm, top, ".gitmodules") != 0 || !gitguard_clean(w->pol, gm) ||
	    lstat(gm, &gst) != 0)
		return;
	char *text = gitguard_slurp(gm, FILE_MAX, &len);
	int r = -1;
	if (text != NULL) {
		struct submodules s = { w, top, gd, depth };
		r = gitfmt_config_entries(text, len, submodule_path, &s, NULL, NULL);
	}
	free(text);
	/* Submodules it names that the guard cannot see: what is not looked
	 * at cannot be called clean. */
	if (r != 0 && !w->err && !w->g->over && w->g->unread == NULL &&
	    (w->g->unread = strdup(gm)) == NULL)
		w->err = 1;
}

/* ---- the start ---- */

/* dir holds a ".git" (it is a repository's top). */
static int is_repo(const char *dir)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	return gg_join(p, dir, ".git") == 0 && lstat(p, &st) == 0;
}

const struct strv *gitguard_unsearched(const cordon *c)
{
	const struct gitguard *g = c->gitguard;
	return g != NULL && !g->released ? &g->unsearched : NULL;
}

int tampered_add(cordon *c, const char *path, const char *moved)
{
	struct gitguard *g = c->gitguard;
	struct tamper *t = realloc(g->tampered, (g->ntampered + 1) * sizeof(*t));
	if (t == NULL)
		return CORDON_ENOMEM;
	g->tampered = t;
	t[g->ntampered].path = strdup(path);
	t[g->ntampered].moved = strdup(moved);
	if (t[g->ntampered].path == NULL || t[g->ntampered].moved == NULL) {
		free(t[g->ntampered].path);
		free(t[g->ntampered].moved);
		return CORDON_ENOMEM;
	}
	g->ntampered++;
	return 0;
}

size_t gitguard_ntampered(const cordon *c)
{
	return c->gitguard != NULL ? c->gitguard->ntampered : 0;
}

const struct tamper *gitguard_tamper(const cordon *c, size_t i)
{
	return i < gitguard_ntampered(c) ? &c->gitguard->tampered[i] : NULL;
}

static int protect_cb(void *ctx, const char *path)
{
	return policy_add_protect((struct policy *)ctx, path);
}

int gitguard_begin(cordon *c)
{
	struct gitguard *g = calloc(1, sizeof(*g));
	struct walk *w = calloc(1, sizeof(*w));
	if (g == NULL || w == NULL) {
		free(g);
		free(w);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	c->gitguard = g;
	if (gitnested_begin(c, &g->nested) != 0) {
		free(w);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	*w = (struct walk){ .g = g,
			    .pol = &c->pol,
			    .at_start = 1,
			    .protect = protect_cb,
			    .ctx = &c->pol,
			    .steps = STEPS_MAX };
	repository_at(w, c->pol.workspace, 0);
	/* A workspace in no repository may hold many: each is guarded as
	 * the one holding a workspace would be. */
	if (!g->nested.repo && !w->err && !is_repo(c->pol.workspace)) {
		struct gitfind f = { .max = GITFIND_MAX };
		if (gitfind_repos(c->pol.workspace, &f, &g->found, &g->unsearched) != 0)
			w->err = 1;
		g->searched = 1;
		g->reads = f.reads;
		/* Past TOPS_MAX, the rest are named as not searched: the
		 * guard's walk stays within its bounds (GITDIRS_MAX). */
		for (size_t i = 0; !w->err && i < g->found.n; i++)
			w->err = strv_push(i < TOPS_MAX ? &g->tops : &g->unsearched,
					   g->found.v[i]) != 0;
		for (size_t i = 0; !w->err && i < g->tops.n; i++) {
			repository_at(w, g->tops.v[i], 0);
			if (gitnested_add_repo(&g->nested, g->tops.v[i]) != 0)
				w->err = 1;
		}
	}
	int err = w->err;
	free(w);
	if (err)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	if (g->over)
		return cordon_fail(
			c, CORDON_EREFUSED,
			"the workspace's git metadata is too large to guard (over %d git "
			"dirs or %ld entries); --no-default-protect runs without the guard",
			GITDIRS_MAX, STEPS_MAX);
	if (g->unread != NULL)
		return cordon_fail(c, CORDON_EREFUSED,
				   "cannot guard the submodules of %s: not read as git reads it "
				   "(a symlink, over %u bytes, or a line the guard does not "
				   "parse); --no-default-protect runs without the guard",
				   g->unread, FILE_MAX);
	g->begun = 1;
	gitnested_load(c, &g->nested);
	return 0;
}

/* ---- the end ---- */

struct wt_ctx {
	const struct policy *pol;
	const char *gitdir;
	const struct item *it;
};

#define FOUND 2 /* not GITFMT_UNSAFE */

struct wanted {
	const char *entry;
};

static int same_entry(void *ctx, const char *entry, int safe)
{
	(void)safe;
	return strcmp(((const struct wanted *)ctx)->entry, entry) == 0 ? FOUND : 0;
}

static int known_entry(void *ctx, const char *entry, int safe)
{
	const struct wt_ctx *w = ctx;
	if (safe)
		return 0;
	struct wanted want = { entry };
	/* An entry git writes itself, or one of the file's own at the start. */
	if (w->it->existed && w->it->content != NULL &&
	    gitfmt_config_entries(w->it->content, w->it->len, same_entry, &want, NULL, NULL) ==
		    FOUND)
		return 0;
	return GITFMT_UNSAFE;
}

/* core.worktree, relative to its git dir: a directory in a writable
 * tree, reached without a symlink planted in one. */
static int worktree_ok(void *ctx, const char *value)
{
	const struct wt_ctx *w = ctx;
	char norm[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	for (const char *s = value; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return resolve_text(w->gitdir, value, norm) == 0 &&
	       policy_resolve_untampered(w->pol, norm, real, sizeof(real)) == 0 &&
	       policy_inside_writable(w->pol, real);
}

/* path's text names exactly want (or a dir below it, with prefix). */
static int names(const struct policy *pol, const char *target, const char *want, int prefix)
{
	struct stat st;
	return gitguard_clean(pol, target) && lstat(target, &st) == 0 && S_ISDIR(st.st_mode) &&
	       (prefix ? path_within(want, target) && strcmp(want, target) != 0
		       : strcmp(want, target) == 0);
}

/* Whether text (a gitdir line or a commondir, relative to dir) names
 * target when the kernel resolves it, as git does: a symlink followed by
 * ".." leads elsewhere than the lexical reading the guard judged. */
static int physically(const char *dir, const char *text, const char *target)
{
	char joined[CORDON_PATH_MAX], phys[PATH_MAX];
	if (text[0] == '/') {
		if (strlen(text) >= sizeof(joined))
			return 0;
		memcpy(joined, text, strlen(text) + 1);
	} else if (gg_join(joined, dir, text) != 0) {
		return 0;
	}
	return realpath(joined, phys) != NULL && strcmp(phys, target) == 0;
}

/* Would git have written this file itself? */
static int acceptable(const struct policy *pol, const struct item *it)
{
	struct stat st;
	size_t len = 0;
	char up[CORDON_PATH_MAX], dir[CORDON_PATH_MAX], target[CORDON_PATH_MAX];
	if (lstat(it->path, &st) != 0)
		return errno == ENOENT || errno == ENOTDIR; /* gone: nothing left to read */
	if (gg_join(up, it->path, "..") != 0 || path_normalize(NULL, up, dir, sizeof(dir)) != 0)
		return 0;
	switch (it->kind) {
	case K_CONFIG: {
		/* Every entry one git writes itself, or one the file had at
		 * the start (a submodule's config keeps the user's own). */
		char *text = S_ISREG(st.st_mode) ? gitguard_slurp(it->path, FILE_MAX, &len) : NULL;
		struct wt_ctx w = { pol, dir, it };
		int ok = text != NULL && gitfmt_config_entries(text, len, known_entry, &w,
							       worktree_ok, &w) == GITFMT_SAFE;
		free(text);
		return ok;
	}
	case K_COMMONDIR: {
		/* Only a worktree's, naming its own common dir. */
		char *text = it->common != NULL && S_ISREG(st.st_mode)
				     ? gitguard_slurp(it->path, 4096, &len)
				     : NULL;
		int ok = 0;
		if (text != NULL) {
			text[strcspn(text, "\n")] = '\0';
			ok = resolve_text(dir, text, target) == 0 &&
			     names(pol, target, it->common, 0) && physically(dir, text, target);
		}
		free(text);
		return ok;
	}
	case K_HOOKS:
		return S_ISDIR(st.st_mode) && only_samples(it->path);
	case K_GITFILE: {
		/* A worktree's, naming the worktree's own git dir; a
		 * submodule checkout's, naming a dir under modules/ (as the
		 * kernel resolves it, too). */
		char *text = NULL;
		int ok = it->common != NULL && S_ISREG(st.st_mode) &&
			 (text = gitdir_line(it->path)) != NULL &&
			 resolve_text(dir, text, target) == 0 &&
			 names(pol, target, it->common, it->prefix) &&
			 physically(dir, text, target);
		free(text);
		return ok;
	}
	case K_ATTRIBUTES:
		return 0;
	}
	return 0;
}

/* Changed since the start; also when it cannot be looked at now and
 * could then (its dir made unsearchable: it may be there, unseen). */
static int changed(const struct item *it)
{
	struct stat st;
	if (lstat(it->path, &st) != 0)
		return errno != ENOENT && errno != ENOTDIR && errno != it->err;
	if (!it->existed)
		return 1;
	if (it->kind == K_HOOKS) {
		size_t len = 0;
		char *now = S_ISDIR(st.st_mode) ? dir_listing(it->path, &len) : NULL;
		int same = now != NULL && it->content != NULL && len == it->len &&
			   memcmp(now, it->content, len) == 0;
		free(now);
		return !same;
	}
	return st.st_ino != it->st.st_ino || st.st_dev != it->st.st_dev ||
	       st.st_mode != it->st.st_mode || st.st_size != it->st.st_size ||
	       MTIME(st).tv_sec != MTIME(it->st).tv_sec ||
	       MTIME(st).tv_nsec != MTIME(it->st).tv_nsec ||
	       CTIME(st).tv_sec != CTIME(it->st).tv_sec ||
	       CTIME(st).tv_nsec != CTIME(it->st).tv_nsec;
}

/* Move path aside (same directory, a name git never reads) and record
 * it; put back the content it had at the start when there was one. A
 * path that is not gitguard_clean() any more, or cannot be renamed, is recorded
 * as not moved: the run then fails (cordon_end). */
static int put_aside(cordon *c, const char *path, const struct item *it)
{
	char aside[CORDON_PATH_MAX];
	int n = snprintf(aside, sizeof(aside), "%s.cordon-tampered-%.8s", path, c->run_id);
	if (n <= 0 || n >= (int)sizeof(aside) || !gitguard_clean(&c->pol, path) ||
	    rename(path, aside) != 0)
		return tampered_add(c, path, "");
	if (it != NULL && it->existed && it->content != NULL && it->kind != K_HOOKS) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      it->st.st_mode & 0777);
		if (fd >= 0) {
			size_t off = 0;
			while (off < it->len) {
				ssize_t wr = write(fd, it->content + off, it->len - off);
				if (wr <= 0)
					break;
				off += (size_t)wr;
			}
			close(fd);
		}
	}
	return tampered_add(c, path, aside);
}

int gitguard_put_aside(cordon *c, const char *path)
{
	return put_aside(c, path, NULL);
}

/* A hooks dir, or one of its entries, made or changed since since_ns (a
 * hook rewritten in place changes its own times only). */
static int hooks_after(const char *path, long long since_ns)
{
	DIR *d = open_dir(path);
	if (d == NULL)
		return 1; /* there, and not looked into: not clean */
	struct dirent *e;
	struct stat st;
	int r = 0;
	while (!r && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, "..") != 0)
			r = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			    gg_since(&st, since_ns);
	closedir(d);
	return r;
}

static const struct {
	const char *name;
	enum kind kind;
} embedded_files[] = {
	{ "config", K_CONFIG }, { "config.worktree", K_CONFIG },     { "commondir", K_COMMONDIR },
	{ "hooks", K_HOOKS },	{ "info/attributes", K_ATTRIBUTES },
};
#define NEMBEDDED (sizeof(embedded_files) / sizeof(embedded_files[0]))

void gitguard_judge_embedded(cordon *c, const char *gd, long long since_ns, int changed)
{
	char p[NEMBEDDED][CORDON_PATH_MAX];
	struct stat st[NEMBEDDED];
	int there[NEMBEDDED];
	for (size_t i = 0; i < NEMBEDDED; i++) {
		if (gg_join(p[i], gd, embedded_files[i].name) != 0)
			return;
		/* A git dir the guard watches (a submodule's) is its own. */
		if (gitguard_watches(c, p[i]))
			return;
		there[i] = lstat(p[i], &st[i]) == 0;
		if (there[i] && (gg_since(&st[i], since_ns) ||
				 (embedded_files[i].kind == K_HOOKS && S_ISDIR(st[i].st_mode) &&
				  hooks_after(p[i], since_ns))))
			changed = 1;
	}
	if (!changed)
		return;
	/* Judged as new: no content of the start to keep. */
	for (size_t i = 0; i < NEMBEDDED; i++) {
		struct item it = { .path = p[i], .kind = embedded_files[i].kind };
		if (there[i] && !acceptable(&c->pol, &it))
			(void)put_aside(c, p[i], NULL);
	}
}

/* The end's search of a workspace in none, the same way as the start's
 * but for what the start left unread (not read again, nor what is below
 * it), with room for as many directories again as the run may have made:
 * a repository not found at the start is the run's (a clone, a "git
 * init"; or one moved there), its files new, judged as git would have
 * written them. What the end could not read or reach (made unreadable,
 * or past the bound: the run made more directories than the room) may
 * hide such a repository: each is listed as tampered, not moved (what is
 * below it was not seen; it cannot be called clean). */
static void end_search(cordon *c, struct walk *w)
{
	struct gitguard *g = c->gitguard;
	struct strv now = { 0 }, unread = { 0 };
	const char **left = calloc(g->unsearched.n + 1, sizeof(*left));
	const char **known = calloc(g->found.n + 1, sizeof(*known));
	if (left == NULL || known == NULL) {
		w->err = 1;
		goto out;
	}
	/* An empty list's v is NULL: memcpy must not be given it. */
	if (g->unsearched.n > 0)
		memcpy(left, g->unsearched.v, g->unsearched.n * sizeof(*left));
	if (g->found.n > 0)
		memcpy(known, g->found.v, g->found.n * sizeof(*known));
	gitfind_sort(left, g->unsearched.n);
	gitfind_sort(known, g->found.n);
	struct gitfind f = { .max = g->reads + GITFIND_MAX,
			     .skip = left,
			     .nskip = g->unsearched.n };
	if (gitfind_repos(c->pol.workspace, &f, &now, &unread) != 0)
		w->err = 1;
	/* Found now where the start read: not found then, the run's. */
	for (size_t i = 0; i < now.n; i++)
		if (!gitfind_has(known, g->found.n, now.v[i])) {
			repository_at(w, now.v[i], 0);
			gitnested_end_new(c, &g->nested, now.v[i]);
		}
	for (size_t i = 0; i < unread.n && i <= UNREAD_NAMED; i++)
		(void)tampered_add(c, i < UNREAD_NAMED ? unread.v[i] : c->pol.workspace, "");
out:
	free(left);
	free(known);
	strv_free(&now);
	strv_free(&unread);
}

int gitguard_end(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL || !g->begun)
		return 0;
	g->begun = 0;
	/* What exists now: the start's list, plus git dirs made in the run
	 * (a submodule cloned, a worktree added, a "git init"). */
	struct walk *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		(void)tampered_add(c, c->pol.workspace, ""); /* unchecked: not clean */
		return (int)g->ntampered;
	}
	*w = (struct walk){ .g = g, .pol = &c->pol, .steps = STEPS_MAX };
	repository_at(w, c->pol.workspace, 0);
	/* The repositories found at the start, and those the run made
	 * where none was (a clone, a "git init"). */
	for (size_t i = 0; i < g->tops.n; i++)
		repository_at(w, g->tops.v[i], 0);
	if (g->searched)
		end_search(c, w);
	if (w->err)
		(void)tampered_add(c, c->pol.workspace, ""); /* unchecked: not clean */
	free(w);
	for (size_t i = 0; i < g->n; i++) {
		struct item *it = &g->v[i];
		if (changed(it) && !acceptable(&c->pol, it))
			(void)put_aside(c, it->path, it);
	}
	if (g->over) /* what was not looked at cannot be called safe */
		(void)tampered_add(c, c->pol.workspace, "");
	if (g->unread != NULL)
		(void)tampered_add(c, g->unread, "");
	gitnested_end(c, &g->nested);
	return (int)g->ntampered;
}

int gitguard_watches(const cordon *c, const char *path)
{
	return c->gitguard != NULL && !c->gitguard->released && find(c->gitguard, path) != NULL;
}

void gitguard_release(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL || g->released)
		return;
	for (size_t i = 0; i < g->n; i++)
		item_free(&g->v[i]);
	free(g->v);
	g->v = NULL;
	g->n = g->cap = 0;
	free(g->unread);
	g->unread = NULL;
	strv_free(&g->found);
	strv_free(&g->tops);
	strv_free(&g->unsearched);
	gitnested_free(&g->nested);
	g->begun = 0;
	g->released = 1;
}

void gitguard_free(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL)
		return;
	gitguard_release(c);
	for (size_t i = 0; i < g->ntampered; i++) {
		free(g->tampered[i].path);
		free(g->tampered[i].moved);
	}
	free(g->tampered);
	free(g);
	c->gitguard = NULL;
}
