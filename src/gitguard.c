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
#include "internal.h"
#include "gitfmt.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__APPLE__)
#define CTIME(st) ((st).st_ctimespec)
#define MTIME(st) ((st).st_mtimespec)
#else
#define CTIME(st) ((st).st_ctim)
#define MTIME(st) ((st).st_mtim)
#endif

#define SNAP_MAX (1u << 20) /* content kept to put back, per file */
#define FILE_MAX (4u << 20) /* a larger config or index is not read */
#define DEPTH_MAX 8 /* submodules inside submodules */

enum kind { K_CONFIG, K_COMMONDIR, K_HOOKS, K_ATTRIBUTES, K_GITFILE };

struct item {
	char *path;
	enum kind kind;
	char *common; /* K_COMMONDIR: the common dir it must name */
	int existed;
	struct stat st;
	unsigned long long digest; /* K_HOOKS: the entries */
	char *content; /* files that existed, to put back */
	size_t len;
};

struct gitguard {
	struct item *v;
	size_t n, cap;
	struct timespec start;
	int begun; /* 0: the end has nothing to compare against */
};

/* ---- small helpers ---- */

static int join(char *out, const char *a, const char *b)
{
	return path_join(out, CORDON_PATH_MAX, a, b);
}

/* A whole file of at most max bytes, NUL-terminated; NULL otherwise. */
static char *slurp(const char *path, size_t max, size_t *len)
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

/* A directory's entries, as one number: names, inodes, sizes, times. */
static unsigned long long dir_digest(const char *path)
{
	unsigned long long h = 1469598103934665603ULL;
	DIR *d = opendir(path);
	if (d == NULL)
		return 0;
	struct dirent *e;
	int fd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		unsigned long long x = 0;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue; /* ".." changes with every commit */
		for (const char *s = e->d_name; *s; s++)
			x = (x ^ (unsigned char)*s) * 1099511628211ULL;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			x ^= (unsigned long long)st.st_ino * 31 +
			     (unsigned long long)st.st_size * 17 +
			     (unsigned long long)MTIME(st).tv_nsec +
			     (unsigned long long)st.st_mode +
			     (unsigned long long)CTIME(st).tv_sec * 7;
		h += x * 0x9e3779b97f4a7c15ULL; /* order of entries does not count */
	}
	closedir(d);
	return h;
}

/* A hooks dir git made itself: only *.sample files. */
static int only_samples(const char *path)
{
	DIR *d = opendir(path);
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
};

/* Watch path when it lies in a writable tree (elsewhere the command
 * cannot write it at all). */
static void watch(struct walk *w, const char *path, enum kind kind, const char *common, int protect)
{
	struct gitguard *g = w->g;
	if (w->err || !policy_inside_writable(w->pol, path) || find(g, path) != NULL)
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
	if ((it->path = strdup(path)) == NULL ||
	    (common != NULL && (it->common = strdup(common)) == NULL)) {
		item_free(it);
		w->err = 1;
		return;
	}
	g->n++;
	if (!w->at_start || lstat(path, &it->st) != 0)
		return; /* new at the end, or absent at the start */
	it->existed = 1;
	if (kind == K_HOOKS)
		it->digest = dir_digest(path);
	else if (S_ISREG(it->st.st_mode))
		it->content = slurp(path, SNAP_MAX, &it->len);
	if (protect && w->protect != NULL && w->protect(w->ctx, path) != 0)
		w->err = 1;
}

/* A git dir and what hangs from it: its worktrees' dirs and its
 * submodules' git dirs (which are git dirs of their own). */
static void gitdir(struct walk *w, const char *g, int depth, int module);

static void modules(struct walk *w, const char *dir, int depth)
{
	char sub[CORDON_PATH_MAX], head[CORDON_PATH_MAX];
	if (depth > DEPTH_MAX)
		return;
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.' || join(sub, dir, e->d_name) != 0 || lstat(sub, &st) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		/* A submodule's name may hold "/": a dir without HEAD is a
		 * step of such a name. */
		if (join(head, sub, "HEAD") == 0 && lstat(head, &st) == 0)
			gitdir(w, sub, depth + 1, 1);
		else
			modules(w, sub, depth + 1);
	}
	closedir(d);
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
	char p[CORDON_PATH_MAX], wt[CORDON_PATH_MAX];
	/* A main git dir has no commondir: none may appear. A submodule's
	 * config is not made read-only: "git submodule update" writes
	 * core.worktree into it; the end checks what it gained. */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (join(p, g, files[i].name) == 0)
			watch(w, p, files[i].kind, NULL, !(module && files[i].kind == K_CONFIG));
	/* Worktrees: their config.worktree, their commondir (which must
	 * name this dir), and the ".git" file of their working tree. */
	if (join(p, g, "worktrees") == 0) {
		DIR *d = opendir(p);
		struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' || join(wt, p, e->d_name) != 0)
				continue;
			char f[CORDON_PATH_MAX];
			if (join(f, wt, "config") == 0)
				watch(w, f, K_CONFIG, NULL, 1);
			if (join(f, wt, "config.worktree") == 0)
				watch(w, f, K_CONFIG, NULL, 1);
			if (join(f, wt, "hooks") == 0)
				watch(w, f, K_HOOKS, NULL, 1);
			if (join(f, wt, "commondir") == 0)
				watch(w, f, K_COMMONDIR, g, 1);
			size_t len = 0;
			char *back = join(f, wt, "gitdir") == 0 ? slurp(f, 4096, &len) : NULL;
			if (back != NULL) {
				back[strcspn(back, "\n")] = '\0';
				/* the worktree's ".git" file must name this dir */
				if (back[0] == '/')
					watch(w, back, K_GITFILE, wt, 1);
				free(back);
			}
		}
		if (d != NULL)
			closedir(d);
	}
	if (join(p, g, "modules") == 0)
		modules(w, p, depth);
	(void)module;
}

/* The gitdir line of a ".git" file, resolved against its directory. */
static int gitfile_target(const char *file, char *out)
{
	size_t len = 0;
	char *s = slurp(file, 4096, &len);
	int r = -1;
	if (s != NULL && strncmp(s, "gitdir: ", 8) == 0) {
		s[strcspn(s, "\r\n")] = '\0';
		char dir[CORDON_PATH_MAX];
		if (join(dir, file, "..") == 0 &&
		    path_normalize(NULL, s[8] == '/' ? s + 8 : dir, out, CORDON_PATH_MAX) == 0) {
			if (s[8] != '/') {
				char rel[CORDON_PATH_MAX];
				r = join(rel, dir, s + 8) == 0
					    ? path_normalize(NULL, rel, out, CORDON_PATH_MAX)
					    : -1;
			} else {
				r = 0;
			}
		}
	}
	free(s);
	return r;
}

/* The workspace's repository: its ".git" (a dir, or a file naming one),
 * the submodules' ".git" files named in .gitmodules, and the git dirs. */
static void repository(struct walk *w, const char *top, int depth)
{
	char dotgit[CORDON_PATH_MAX], g[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	struct stat st;
	if (depth > DEPTH_MAX || join(dotgit, top, ".git") != 0 || lstat(dotgit, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		gitdir(w, dotgit, depth, depth > 0);
	} else if (S_ISREG(st.st_mode)) {
		watch(w, dotgit, K_GITFILE, NULL, 1);
		if (gitfile_target(dotgit, g) == 0 && realpath(g, real) != NULL)
			gitdir(w, real, depth, depth > 0);
	}
	/* Submodules checked out below top: "path = X" of .gitmodules. */
	char gm[CORDON_PATH_MAX];
	size_t len = 0;
	char *text = join(gm, top, ".gitmodules") == 0 ? slurp(gm, FILE_MAX, &len) : NULL;
	for (char *line = text; line != NULL && *line != '\0';) {
		char *nl = strchr(line, '\n');
		if (nl != NULL)
			*nl = '\0';
		char *s = line + strspn(line, " \t");
		if (strncmp(s, "path", 4) == 0) {
			s += 4 + strspn(s + 4, " \t");
			if (*s == '=') {
				s++;
				s += strspn(s, " \t");
				s[strcspn(s, "\r")] = '\0';
				char sub[CORDON_PATH_MAX], norm[CORDON_PATH_MAX];
				if (s[0] != '\0' && s[0] != '/' && join(sub, top, s) == 0 &&
				    path_normalize(NULL, sub, norm, sizeof(norm)) == 0 &&
				    path_within(top, norm) && strcmp(top, norm) != 0)
					repository(w, norm, depth + 1);
			}
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	free(text);
}

/* ---- the start ---- */

static int protect_cb(void *ctx, const char *path)
{
	return policy_add_protect((struct policy *)ctx, path);
}

int gitguard_begin(cordon *c)
{
	struct gitguard *g = calloc(1, sizeof(*g));
	if (g == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	c->gitguard = g;
	clock_gettime(CLOCK_REALTIME, &g->start);
	struct walk w = { g, &c->pol, 1, protect_cb, &c->pol, 0 };
	repository(&w, c->pol.workspace, 0);
	if (w.err)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	g->begun = 1;
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

/* core.worktree, relative to its git dir: inside a writable tree. */
static int worktree_ok(void *ctx, const char *value)
{
	const struct wt_ctx *w = ctx;
	char p[CORDON_PATH_MAX], norm[CORDON_PATH_MAX];
	if (value[0] == '/')
		return path_normalize(NULL, value, norm, sizeof(norm)) == 0 &&
		       policy_inside_writable(w->pol, norm);
	return join(p, w->gitdir, value) == 0 && path_normalize(NULL, p, norm, sizeof(norm)) == 0 &&
	       policy_inside_writable(w->pol, norm);
}

/* Would git have written this file itself? */
static int acceptable(const struct policy *pol, const struct item *it)
{
	struct stat st;
	size_t len = 0;
	if (lstat(it->path, &st) != 0)
		return 1; /* gone: nothing left to read */
	switch (it->kind) {
	case K_CONFIG: {
		/* Every entry one git writes itself, or one the file had at
		 * the start (a submodule's config keeps the user's own). */
		char *text = S_ISREG(st.st_mode) ? slurp(it->path, FILE_MAX, &len) : NULL;
		char dir[CORDON_PATH_MAX], gd[CORDON_PATH_MAX];
		int ok = 0;
		if (text != NULL && join(dir, it->path, "..") == 0 &&
		    path_normalize(NULL, dir, gd, sizeof(gd)) == 0) {
			struct wt_ctx w = { pol, gd, it };
			ok = gitfmt_config_entries(text, len, known_entry, &w, worktree_ok, &w) ==
			     GITFMT_SAFE;
		}
		free(text);
		return ok;
	}
	case K_COMMONDIR: {
		/* Only a worktree's, naming its own common dir. */
		char *text = it->common != NULL && S_ISREG(st.st_mode) ? slurp(it->path, 4096, &len)
								       : NULL;
		char p[CORDON_PATH_MAX], dir[CORDON_PATH_MAX], a[CORDON_PATH_MAX],
			b[CORDON_PATH_MAX];
		int ok = 0;
		if (text != NULL) {
			text[strcspn(text, "\n")] = '\0';
			ok = join(dir, it->path, "..") == 0 &&
			     (text[0] == '/' ? snprintf(p, sizeof(p), "%s", text) < (int)sizeof(p)
					     : join(p, dir, text) == 0) &&
			     path_normalize(NULL, p, dir, sizeof(dir)) == 0 &&
			     realpath(dir, a) != NULL && realpath(it->common, b) != NULL &&
			     strcmp(a, b) == 0;
		}
		free(text);
		return ok;
	}
	case K_HOOKS:
		return S_ISDIR(st.st_mode) && only_samples(it->path);
	case K_GITFILE: {
		/* A worktree's, naming the worktree's own git dir. */
		char target[CORDON_PATH_MAX], a[CORDON_PATH_MAX], b[CORDON_PATH_MAX];
		return it->common != NULL && gitfile_target(it->path, target) == 0 &&
		       realpath(target, a) != NULL && realpath(it->common, b) != NULL &&
		       strcmp(a, b) == 0;
	}
	case K_ATTRIBUTES:
		return 0;
	}
	return 0;
}

static int changed(const struct item *it)
{
	struct stat st;
	if (lstat(it->path, &st) != 0)
		return 0;
	if (!it->existed)
		return 1;
	if (it->kind == K_HOOKS)
		return !S_ISDIR(st.st_mode) || dir_digest(it->path) != it->digest;
	return st.st_ino != it->st.st_ino || st.st_dev != it->st.st_dev ||
	       st.st_mode != it->st.st_mode || st.st_size != it->st.st_size ||
	       MTIME(st).tv_sec != MTIME(it->st).tv_sec ||
	       MTIME(st).tv_nsec != MTIME(it->st).tv_nsec ||
	       CTIME(st).tv_sec != CTIME(it->st).tv_sec ||
	       CTIME(st).tv_nsec != CTIME(it->st).tv_nsec;
}

/* Move path aside (same directory, a name git never reads) and record
 * it; put back the content it had at the start when there was one. */
static int neutralise(cordon *c, const char *path, const struct item *it)
{
	char aside[CORDON_PATH_MAX];
	int n = snprintf(aside, sizeof(aside), "%s.cordon-tampered-%.8s", path, c->run_id);
	int moved = n > 0 && n < (int)sizeof(aside) && rename(path, aside) == 0;
	if (!moved) {
		/* Cannot be moved (a name too long, ...): removed. */
		char dir[CORDON_PATH_MAX];
		const char *slash = strrchr(path, '/');
		size_t k = slash != NULL ? (size_t)(slash - path) : 0;
		if (slash == NULL || k >= sizeof(dir))
			return -1;
		memcpy(dir, path, k);
		dir[k] = '\0';
		int dfd = open(k ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return -1;
		int r = remove_tree_at(dfd, slash + 1);
		close(dfd);
		if (r != 0)
			return -1;
		aside[0] = '\0';
	}
	if (it != NULL && it->existed && it->content != NULL) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      it->st.st_mode & 0777);
		if (fd >= 0) {
			size_t off = 0;
			while (off < it->len) {
				ssize_t w = write(fd, it->content + off, it->len - off);
				if (w <= 0)
					break;
				off += (size_t)w;
			}
			close(fd);
		}
	}
	return tampered_add(c, path, aside);
}

/* ---- nested ".git" in tracked directories ---- */

struct nested {
	cordon *c;
	const char *top;
	long long since_ns;
	int err;
};

static int nested_dir(void *ctx, const char *dir)
{
	struct nested *n = ctx;
	char d[CORDON_PATH_MAX], p[CORDON_PATH_MAX];
	struct stat st;
	if (dir[0] == '\0' || join(d, n->top, dir) != 0 || strcmp(d, n->top) == 0 ||
	    !policy_inside_writable(&n->c->pol, d) || join(p, d, ".git") != 0 || lstat(p, &st) != 0)
		return 0;
	long long t = (long long)CTIME(st).tv_sec * 1000000000LL + CTIME(st).tv_nsec;
	if (t >= n->since_ns && neutralise(n->c, p, NULL) != 0)
		n->err = 1;
	return 0;
}

static void nested(cordon *c, const struct gitguard *g)
{
	/* The repository holding the workspace: the nearest ".git" above. */
	char top[CORDON_PATH_MAX], dotgit[CORDON_PATH_MAX], gd[CORDON_PATH_MAX],
		idx[CORDON_PATH_MAX];
	struct stat st;
	if (snprintf(top, sizeof(top), "%s", c->pol.workspace) >= (int)sizeof(top))
		return;
	for (;;) {
		if (join(dotgit, top, ".git") == 0 && lstat(dotgit, &st) == 0)
			break;
		char *slash = strrchr(top, '/');
		if (slash == NULL || slash == top)
			return;
		*slash = '\0';
	}
	if (S_ISDIR(st.st_mode))
		snprintf(gd, sizeof(gd), "%s", dotgit);
	else if (gitfile_target(dotgit, gd) != 0)
		return;
	size_t len = 0;
	char *buf = join(idx, gd, "index") == 0 ? slurp(idx, 256u << 20, &len) : NULL;
	if (buf == NULL)
		return;
	/* A clock step of the file system's coarse clock: 50 ms of slack. */
	struct nested n = {
		c, top, (long long)g->start.tv_sec * 1000000000LL + g->start.tv_nsec - 50000000LL, 0
	};
	if (gitfmt_index_dirs((unsigned char *)buf, len, 20, nested_dir, &n) < 0)
		(void)gitfmt_index_dirs((unsigned char *)buf, len, 32, nested_dir, &n);
	free(buf);
}

int gitguard_end(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL || !g->begun)
		return 0;
	g->begun = 0;
	/* What exists now: the start's list, plus git dirs made in the run
	 * (a submodule cloned, a worktree added, a "git init"). */
	struct walk w = { g, &c->pol, 0, NULL, NULL, 0 };
	repository(&w, c->pol.workspace, 0);
	for (size_t i = 0; i < g->n; i++) {
		struct item *it = &g->v[i];
		if (changed(it) && !acceptable(&c->pol, it))
			(void)neutralise(c, it->path, it);
	}
	nested(c, g);
	return (int)c->ntampered;
}

void gitguard_free(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++)
		item_free(&g->v[i]);
	free(g->v);
	free(g);
	c->gitguard = NULL;
}
