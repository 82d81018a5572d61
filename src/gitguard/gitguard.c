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
 * index are checked at the end for a ".git" made during the run
 * (gitnested.c).
 *
 * Whether git would have written a file, moving it aside and the list of
 * what the run left are gitjudge.c's, used by both; this file walks the
 * repositories, keeps what it watches in the judge's list, and runs the
 * nested check.
 *
 * Everything here runs in cordon's own process, before the command
 * starts and after every process of the run has ended.
 */
#include "gitfind.h"
#include "gitfmt.h"
#include "gitjudge.h"
#include "gitnested.h"
#include "gitwatch.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SNAP_MAX (1u << 20) /* content kept to put back, per file */
#define DEPTH_MAX 8 /* submodules inside submodules */
#define GITDIRS_MAX 1024 /* git dirs in one workspace */
#define STEPS_MAX 100000L /* files and dirs looked at, per walk */
#define TOPS_MAX 512 /* repositories guarded below a workspace in none */
#define UNREAD_NAMED 16 /* dirs the end's search could not read, listed */

/* The guard's state. */
struct gitguard {
	/* First: what holds only the handle reaches the judge's state (the
	 * watched files, the list of what the run left) from c->gitguard
	 * (gitjudge.c). */
	struct gitjudge judge;
	struct nested_start nested;
	int on; /* the git guard runs in this run (not only the list, gitguard_open) */
	int begun; /* 0: the end has nothing to compare against */
	int over; /* a walk gave up: too many git dirs or files */
	char *unread; /* a .gitmodules that could not be read as git reads it */
	/* A workspace in no repository: the repositories found below it
	 * at the start (gitfind.c), those guarded (up to TOPS_MAX), and the
	 * directories left unsearched (and repositories past TOPS_MAX). */
	struct strv found, tops, unsearched;
	int searched; /* the start searched the workspace */
	size_t reads; /* directories the start's search read */
};
_Static_assert(offsetof(struct gitguard, judge) == 0, "the judge's state comes first");

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
	if (!step(w) || !gitguard_clean(w->pol, path) || gitguard_find(&g->judge, path) != NULL)
		return;
	struct gitjudge *j = &g->judge;
	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		struct item *v = realloc(j->v, cap * sizeof(*v));
		if (v == NULL) {
			w->err = 1;
			return;
		}
		j->v = v;
		j->cap = cap;
	}
	struct item *it = &j->v[j->n];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->prefix = prefix;
	if ((it->path = strdup(path)) == NULL ||
	    (expected != NULL && (it->common = strdup(expected)) == NULL)) {
		gitguard_item_free(it);
		w->err = 1;
		return;
	}
	j->n++;
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
		it->content = gitguard_listing(path, &it->len);
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
	DIR *d = gitguard_open_dir(dir);
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
	DIR *d = gg_join(p, g, "worktrees") == 0 ? gitguard_open_dir(p) : NULL;
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
			if (back[0] == '/' && gitguard_resolve_text("/", back, target) == 0 &&
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
	char *text = gitguard_slurp(gm, GG_FILE_MAX, &len);
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
	return g != NULL && g->on && !g->judge.released ? &g->unsearched : NULL;
}

int gitguard_depth_partial(const cordon *c)
{
	const struct gitguard *g = c->gitguard;
	return g != NULL && g->begun &&
	       (g->nested.watch == NULL || gitwatch_partial(g->nested.watch));
}

uint64_t gitguard_depth_gaps(const cordon *c)
{
	/* A held run's changes are judged whole by apply (reviewjudge.c);
	 * a --review that holds nothing (review_not_held) judges nothing. */
	if ((c->review && c->rv != NULL) || !gitguard_depth_partial(c))
		return 0;
	/* The profile refuses the names at any depth (Seatbelt), but cannot
	 * see inside a directory moved in whole. */
	if (c->dec.applied && c->dec.cov.holds_below && c->pol.held_names != NULL &&
	    !c->pol.held_depth_unexpressed)
		return 1ull << GAP_AGENT_CONFIG_MOVED_IN;
	return 1ull << GAP_AGENT_CONFIG_DEPTH;
}

size_t gitguard_ntampered(const cordon *c)
{
	return c->gitguard != NULL ? c->gitguard->judge.ntampered : 0;
}

const struct tamper *gitguard_tamper(const cordon *c, size_t i)
{
	return i < gitguard_ntampered(c) ? &c->gitguard->judge.tampered[i] : NULL;
}

static int protect_cb(void *ctx, const char *path)
{
	return policy_add_protect((struct policy *)ctx, path);
}

int gitguard_open(cordon *c)
{
	if (c->gitguard == NULL && (c->gitguard = calloc(1, sizeof(*c->gitguard))) == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

int gitguard_begin(cordon *c)
{
	if (gitguard_open(c) != 0)
		return CORDON_ENOMEM;
	struct gitguard *g = c->gitguard;
	struct walk *w = calloc(1, sizeof(*w));
	if (w == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	g->on = 1;
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
				   g->unread, GG_FILE_MAX);
	g->begun = 1;
	gitnested_load(c, &g->nested);
	return 0;
}

/* ---- the end ---- */

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
		return (int)g->judge.ntampered;
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
	gitguard_judge_items(c);
	if (g->over) /* what was not looked at cannot be called safe */
		(void)tampered_add(c, c->pol.workspace, "");
	if (g->unread != NULL)
		(void)tampered_add(c, g->unread, "");
	gitnested_end(c, &g->nested);
	return (int)g->judge.ntampered;
}

void gitguard_release(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL || g->judge.released)
		return;
	struct gitjudge *j = &g->judge;
	for (size_t i = 0; i < j->n; i++)
		gitguard_item_free(&j->v[i]);
	free(j->v);
	j->v = NULL;
	j->n = j->cap = 0;
	free(g->unread);
	g->unread = NULL;
	strv_free(&g->found);
	strv_free(&g->tops);
	strv_free(&g->unsearched);
	gitnested_free(&g->nested);
	g->begun = 0;
	j->released = 1;
}

void gitguard_free(cordon *c)
{
	struct gitguard *g = c->gitguard;
	if (g == NULL)
		return;
	gitguard_release(c);
	for (size_t i = 0; i < g->judge.ntampered; i++) {
		free(g->judge.tampered[i].path);
		free(g->judge.tampered[i].moved);
	}
	free(g->judge.tampered);
	free(g);
	c->gitguard = NULL;
}
