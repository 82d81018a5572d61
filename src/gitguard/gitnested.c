/*
 * The git guard's check for a repository planted in a directory of the
 * workspace: git started in that directory takes it for a repository of
 * its own (and runs what its config says), while "git status" at the
 * top shows nothing. Two ways: a ".git" there, or the directory itself
 * made a git dir (a valid HEAD, objects and refs, or a commondir naming
 * a dir that has them: git takes a directory without a ".git" for a
 * bare repository).
 *
 * The directories that hold tracked files come from the indexes of the
 * repositories found when the run began (the one holding the workspace
 * and its submodules' checkouts and linked worktrees inside it, or the
 * repositories below a workspace that is in none), read when the run
 * begins, from an fd opened before the command starts, so the run cannot
 * point the check at an index of its own; directories an index gained
 * during the run are added at the end. Reading an index is kept off the
 * path of each run: the lists are kept in the state dir (gitdirs.c) and
 * loaded by a thread of the run while the command runs.
 *
 * At the end each listed directory is looked at once (its change time:
 * a ".git" or a HEAD made in it, or the directory moved in, changes it);
 * one the run changed, and every listed directory below it (a
 * repository moved in with its parent keeps its old ".git"), is checked
 * for a ".git" or a HEAD. A ".git" whose change time is after the run
 * began is moved aside; so is the HEAD of a directory made a git dir
 * whose HEAD, config, commondir or hooks the run made or changed. No
 * part of this walks the workspace: its cost is one system call per
 * tracked directory, and the index's parse when the index changed.
 */
#include "gitnested.h"
#include "agentcfg.h"
#include "gitfmt.h"
#include "gitjudge.h"
#include "path.h"

#include "gitdirs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WALK_MAX 100000L /* entries below a sparse index's directories */

/* The clock a change time is read from: Linux's coarse one (a tick
 * behind CLOCK_REALTIME). macOS has no such clock id: CLOCK_REALTIME
 * there (unverified: if its file systems stamp from a coarser clock, a
 * change in a run's first tick reads as before it). */
#if defined(CLOCK_REALTIME_COARSE)
#define CTIME_CLOCK CLOCK_REALTIME_COARSE
#else
#define CTIME_CLOCK CLOCK_REALTIME
#endif

/* The index of the repository whose ".git" (dotgit, lstat'ed as st) is a
 * dir or a file naming one, into index ("" when its name is too long).
 * 0, or -1 when dotgit is neither. */
static int index_of(const char *dotgit, const struct stat *st, char *index)
{
	char gd[CORDON_PATH_MAX];
	if (S_ISDIR(st->st_mode))
		snprintf(gd, sizeof(gd), "%s", dotgit);
	else if (!S_ISREG(st->st_mode) || gitguard_gitfile_target(dotgit, gd) != 0)
		return -1;
	if (gg_join(index, gd, "index") != 0)
		index[0] = '\0';
	return 0;
}

static int add_tree(struct nested_start *s, const char *top, const char *index)
{
	struct nested_tree *v = realloc(s->trees, (s->ntrees + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	s->trees = v;
	memset(&v[s->ntrees], 0, sizeof(v[0]));
	v[s->ntrees].fd = -1;
	v[s->ntrees].top = strdup(top);
	v[s->ntrees].index = strdup(index);
	if (v[s->ntrees].top == NULL || v[s->ntrees].index == NULL) {
		free(v[s->ntrees].top);
		free(v[s->ntrees].index);
		return -1;
	}
	s->ntrees++;
	return 0;
}

int gitnested_begin(const cordon *c, struct nested_start *s)
{
	char dotgit[CORDON_PATH_MAX], index[CORDON_PATH_MAX];
	struct stat st;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	/* A step of the file system's coarse clock: 50 ms of slack. */
	s->since_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec - 50000000LL;
	/* The agent-config guard's: the coarse clock itself (what a change
	 * time is read from, or later), so that a held name the user made
	 * just before the run (an agent's edit, then a command) is not
	 * taken for the run's but within one tick. */
	clock_gettime(CTIME_CLOCK, &now);
	s->cfg_since_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
	s->repo = 0;
	/* The lists' copies go beside the runs' dirs: STATE/runs/XXXXXX. */
	if (runtmp_state_of_run(c, s->state, sizeof(s->state)) != 0)
		s->state[0] = '\0';
	char top[CORDON_PATH_MAX];
	if (snprintf(top, sizeof(top), "%s", c->pol.workspace) >= (int)sizeof(top))
		return 0;
	for (;;) {
		if (gg_join(dotgit, top, ".git") == 0 && lstat(dotgit, &st) == 0)
			break;
		char *slash = strrchr(top, '/');
		if (slash == NULL || slash == top)
			return 0;
		*slash = '\0';
	}
	if (index_of(dotgit, &st, index) != 0)
		return 0;
	if (add_tree(s, top, index) != 0)
		return -1;
	s->repo = 1;
	return 0;
}

int gitnested_add(struct nested_start *s, const char *top, const char *index)
{
	for (size_t i = 0; i < s->ntrees; i++)
		if (strcmp(s->trees[i].top, top) == 0)
			return 0;
	return add_tree(s, top, index);
}

int gitnested_add_repo(struct nested_start *s, const char *top)
{
	char dotgit[CORDON_PATH_MAX], index[CORDON_PATH_MAX];
	struct stat st;
	if (gg_join(dotgit, top, ".git") != 0 || lstat(dotgit, &st) != 0 ||
	    index_of(dotgit, &st, index) != 0)
		return 0; /* a ".git" that names no git dir: nothing tracked */
	return gitnested_add(s, top, index);
}

/* The git dir an index lies in (a split index's shared one is there). */
static int gitdir_of(const char *index, char *out)
{
	const char *slash = strrchr(index, '/');
	if (slash == NULL || (size_t)(slash - index) >= CORDON_PATH_MAX)
		return -1;
	memcpy(out, index, (size_t)(slash - index));
	out[slash - index] = '\0';
	return 0;
}

/* The directories of the index open on fd: the state dir's copy when it
 * was made for this very index, else the index read (and the copy made
 * for the next run). 1 listed, -1 unreadable. */
static int list_index(const char *state, const char *index, int fd, struct gitdirs_key *key,
		      struct gitdirs *d)
{
	char cache[CORDON_PATH_MAX], gd[CORDON_PATH_MAX];
	int have_cache =
		state[0] != '\0' && gitdirs_cache_path(state, index, cache, sizeof(cache)) == 0;
	if (gitdirs_key_of(fd, key) != 0)
		return -1;
	if (have_cache && gitdirs_cache_load(cache, key, d) == 0)
		return 1;
	if (gitdir_of(index, gd) != 0 || gitdirs_read_index(fd, gd, d) != 0) {
		gitdirs_free(d);
		return -1;
	}
	if (have_cache)
		(void)gitdirs_cache_save(cache, key, d);
	return 1;
}

static void load_all(struct nested_start *s)
{
	for (size_t i = 0; i < s->ntrees; i++) {
		struct nested_tree *t = &s->trees[i];
		if (t->fd < 0)
			continue;
		t->listed = list_index(s->state, t->index, t->fd, &t->key, &t->start);
		close(t->fd);
		t->fd = -1;
	}
}

static void *loader(void *arg)
{
	load_all(arg);
	return NULL;
}

void gitnested_load(const cordon *c, struct nested_start *s)
{
	(void)c;
	/* Opened now, before the command starts: what is read is the
	 * index as it was, whatever the command then does to the file. */
	for (size_t i = 0; i < s->ntrees; i++) {
		struct nested_tree *t = &s->trees[i];
		t->fd = t->index[0] != '\0' ? open(t->index, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
					    : -1;
		/* None (a repository without a commit): nothing tracked. An
		 * index there that cannot be opened is unreadable. */
		t->listed = t->fd >= 0 || errno == ENOENT ? 0 : -1;
	}
	/* As root the kernel can tell which directories the run touches:
	 * the end then looks at those only; and where the run made or
	 * changed agent configuration, at any depth (agentcfg.c). */
	struct strv extra = { 0 };
	const char *t;
	int ok = 1;
	for (size_t k = 1; ok && (t = policy_project_tree(&c->pol, k)) != NULL; k++)
		ok = strv_push(&extra, t) == 0; /* the --allow-write dirs (0: the workspace) */
	s->watch = ok ? gitwatch_start(c->pol.workspace, &extra) : NULL;
	strv_free(&extra);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->loading = pthread_create(&s->loader, NULL, loader, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void load_wait(struct nested_start *s)
{
	if (s->loading)
		(void)pthread_join(s->loader, NULL);
	else
		load_all(s); /* no thread to be had: here */
	s->loading = 0;
}

void gitnested_free(struct nested_start *s)
{
	load_wait(s);
	gitwatch_free(s->watch);
	s->watch = NULL;
	for (size_t i = 0; i < s->ntrees; i++) {
		free(s->trees[i].top);
		free(s->trees[i].index);
		if (s->trees[i].fd >= 0)
			close(s->trees[i].fd);
		gitdirs_free(&s->trees[i].start);
	}
	free(s->trees);
	s->trees = NULL;
	s->ntrees = 0;
}

struct nested {
	cordon *c;
	const struct nested_start *s;
	const char *top;
	long steps;
	/* The kernel's account of what the run touched (root), or NULL:
	 * then each directory's change time is looked at. */
	const struct gitwatch *told;
};

/* st was made or changed during the run. */
static int recent(const struct nested *n, const struct stat *st)
{
	return gg_since(st, n->s->since_ns);
}

/* dir/name exists and was made or changed during the run. */
static int made_in_run(const struct nested *n, const char *dir, const char *name)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	return gg_join(p, dir, name) == 0 && lstat(p, &st) == 0 && recent(n, &st);
}

/* dir/name exists. */
static int has(const char *dir, const char *name)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	return gg_join(p, dir, name) == 0 && lstat(p, &st) == 0;
}

/* dir, or a directory above it below the tree's top, made or changed
 * during the run: a repository kept elsewhere may have been moved into
 * place with it (a rename changes the moved directory's ctime only). */
static int moved_in(const struct nested *n, const char *dir)
{
	char a[CORDON_PATH_MAX];
	if (snprintf(a, sizeof(a), "%s", dir) >= (int)sizeof(a))
		return 1;
	while (strcmp(a, n->top) != 0 && path_within(n->top, a)) {
		if (made_in_run(n, a, "."))
			return 1;
		char *slash = strrchr(a, '/');
		if (slash == NULL || slash == a)
			break;
		*slash = '\0';
	}
	return 0;
}

/* The ".git" (dotgit, lstat'ed as st) of a gitlink's checkout that no
 * .gitmodules names (an embedded repository, or one the run moved in
 * and added to the index): its git dir was not watched from the start,
 * yet "git status" above runs git in it. Judged whole when the run
 * changed the checkout, its ".git" or the git dir's files. */
static void embedded(struct nested *n, const char *dir, const char *dotgit, const struct stat *st)
{
	char gd[CORDON_PATH_MAX];
	struct stat ds;
	if (S_ISDIR(st->st_mode)) {
		if (snprintf(gd, sizeof(gd), "%s", dotgit) >= (int)sizeof(gd))
			return;
	} else if (!S_ISREG(st->st_mode) || gitguard_gitfile_target(dotgit, gd) != 0) {
		return;
	}
	int changed = recent(n, st) || lstat(dir, &ds) != 0 || recent(n, &ds);
	gitguard_judge_embedded(n->c, gd, n->s->since_ns, changed);
}

/* dir/.git made during the run, or found in a directory the run
 * changed, or below one (made, or moved into place with a repository
 * that was elsewhere, whose ".git" keeps its old times): moved aside. A
 * ".git" symlink made during the run: moved aside anywhere. A
 * submodule's directory (gitlink) is changed by ordinary work in it and
 * holds its ".git" by right: there only a new ".git" counts. Without a
 * ".git", dir itself a git dir (a HEAD, and objects and refs or a
 * commondir) whose HEAD, config, commondir or hooks, or dir itself, were
 * made or changed during the run: its HEAD moved aside, without which
 * git does not take it for one. */
static void check(struct nested *n, const char *dir, int gitlink)
{
	static const char *const marks[] = { "HEAD", "config", "commondir", "hooks", "." };
	char p[CORDON_PATH_MAX];
	if (!gitguard_clean(&n->c->pol, dir) || gg_join(p, dir, ".git") != 0)
		return;
	/* A submodule's checkout or a worktree found at the start, when the
	 * walk (not an index) comes across it. */
	for (size_t i = 0; !gitlink && i < n->s->ntrees; i++)
		gitlink = strcmp(n->s->trees[i].top, dir) == 0;
	/* One lstat for the common case (no ".git", no HEAD): a run looks
	 * at every tracked directory. */
	struct stat gst;
	if (lstat(p, &gst) == 0) {
		int fresh = recent(n, &gst);
		/* A symlink: git follows it, anywhere. A submodule's ".git"
		 * file the guard watches was judged by what it names ("git
		 * submodule update" writes one). */
		int link = S_ISLNK(gst.st_mode) && fresh;
		/* A gitlink's ".git" dir changes with every commit made in
		 * it: what is in it is judged instead (embedded()). */
		int planted = strcmp(dir, n->c->pol.workspace) != 0 && strcmp(dir, n->top) != 0 &&
			      !(gitlink && (gitguard_watches(n->c, p) || S_ISDIR(gst.st_mode))) &&
			      (fresh || (!gitlink && moved_in(n, dir)));
		if (link || planted)
			(void)gitguard_put_aside(n->c, p);
		if (lstat(p, &gst) == 0) {
			if (gitlink && !gitguard_watches(n->c, p))
				embedded(n, dir, p, &gst);
			return; /* git stops at a ".git" */
		}
	}
	/* Without a HEAD, objects and refs (of its own or of its
	 * commondir) a dir is no git dir. */
	if (!has(dir, "HEAD") ||
	    !(has(dir, "commondir") || (has(dir, "objects") && has(dir, "refs"))) ||
	    gg_join(p, dir, "HEAD") != 0)
		return;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (made_in_run(n, dir, marks[i])) {
			(void)gitguard_put_aside(n->c, p);
			return;
		}
}

/* An lstat or open that failed for another reason than the name being
 * gone (or not a directory any more): what is there was not seen. */
static int unseen(int err)
{
	return err != ENOENT && err != ENOTDIR && err != ELOOP;
}

/* Every directory below dir, without following symlinks or entering a
 * ".git". 0, or -1 past the bound or where it could not read. */
static int walk(struct nested *n, const char *dir, int depth)
{
	if (depth > 256)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return unseen(e) ? -1 : 0;
	}
	check(n, dir, 0);
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(d)) != NULL) {
		char sub[CORDON_PATH_MAX];
		struct stat st;
		if (--n->steps < 0) {
			r = -1;
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0 ||
		    strstr(e->d_name, ".cordon-tampered-") != NULL)
			continue; /* what the guard moved aside stays as it was */
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || gg_join(sub, dir, e->d_name) != 0)
			continue;
		r = walk(n, sub, depth + 1);
	}
	closedir(d);
	return r;
}

/* A listed directory the run may have planted in: a ".git" there, or
 * (when the run changed the directory, or it holds a tracked HEAD) a
 * HEAD, is checked whole; the common case costs one lstat. -1 when it
 * could not be looked into (made unsearchable: a ".git" may be there). */
static int candidate(struct nested *n, const char *dir, unsigned flags, int changed)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	if (gg_join(p, dir, ".git") != 0)
		return 0;
	int there = lstat(p, &st) == 0;
	if (!there && unseen(errno))
		return -1;
	if (there ||
	    ((changed || (flags & GD_HEAD)) && gg_join(p, dir, "HEAD") == 0 && lstat(p, &st) == 0))
		check(n, dir, (flags & GD_GITLINK) != 0);
	return 0;
}

/* A listed directory: 1 one, 0 gone or not followed (a symlink), -1
 * made so that it cannot be looked at: listed as tampered (what is below
 * it was not seen). */
static int listed_dir(struct nested *n, const char *abs, struct stat *sb)
{
	if (lstat(abs, sb) == 0)
		return S_ISDIR(sb->st_mode) ? 1 : 0;
	if (!unseen(errno))
		return 0;
	(void)tampered_add(n->c, abs, "");
	return -1;
}

/* An ancestor on the way down the sorted list. */
struct level {
	size_t idx; /* its place in the list */
	size_t len; /* of its relative path */
	int below; /* what is below it is a candidate: it, or one above it,
		      was changed (moved in, when the kernel tells) */
	int gone; /* it is not a directory any more: nothing below it */
	int held; /* it lies in an agent-configuration name's entry (it, or
		     one above it, has such a name: every ancestor is listed) */
};

/* The agent-config guard's share of the listed directory abs (held: it
 * lies in a held name's entry). A tracked file or symlink with a held
 * name there: changed in place, or its target changed (neither changes
 * the directory). A held tree (also with the kernel's account: a file
 * written through a hard link elsewhere is told by its other name), or,
 * without that account, a directory the run changed: what it holds. */
static void held_here(const struct nested *n, const char *abs, unsigned flags, int changed,
		      int held)
{
	cordon *c = n->c;
	if ((flags & GD_HELD) != 0)
		agentcfg_depth_held(c, abs, n->s->cfg_since_ns);
	if (((n->told == NULL && changed) || held) && strcmp(abs, c->pol.workspace) != 0)
		agentcfg_depth_dir(c, abs, n->s->cfg_since_ns);
}

/* Each directory of the list l (below n->top), once. Without the
 * kernel's account its change time says whether the run changed it (an
 * entry made or moved in, or the directory itself moved: the two cannot
 * be told apart), and a changed one and everything below it are
 * candidates; with it, a directory the run touched is one, and what is
 * below a directory moved in. Directories outside the writable set are
 * the command's to change in no way, and are passed by. */
static void pass(struct nested *n, const struct gitdirs *l)
{
	const char *ws = n->c->pol.workspace;
	int all_inside = path_within(ws, n->top);
	int top_held = agentcfg_topmost(ws, n->top) > 0; /* a tree inside one */
	struct level *st = NULL;
	size_t depth = 0, cap = 0;
	char abs[CORDON_PATH_MAX];
	for (size_t i = 0; i < l->n; i++) {
		const char *rel = gitdirs_path(l, i);
		size_t len = strlen(rel);
		unsigned flags = gitdirs_flags(l, i);
		/* The list is sorted: the ancestors of rel are on the stack. */
		while (depth > 0 &&
		       !(len > st[depth - 1].len && rel[st[depth - 1].len] == '/' &&
			 strncmp(rel, gitdirs_path(l, st[depth - 1].idx), st[depth - 1].len) == 0))
			depth--;
		int above_below = depth > 0 && st[depth - 1].below;
		int above_gone = depth > 0 && st[depth - 1].gone;
		if (depth == cap) {
			size_t c2 = cap ? cap * 2 : 64;
			struct level *v = realloc(st, c2 * sizeof(*v));
			if (v == NULL) {
				(void)tampered_add(n->c, n->top, ""); /* unchecked: not clean */
				break;
			}
			st = v;
			cap = c2;
		}
		struct level *me = &st[depth++];
		me->idx = i;
		me->len = len;
		me->below = above_below;
		me->gone = above_gone;
		const char *base = strrchr(rel, '/');
		base = base != NULL ? base + 1 : rel;
		me->held = (depth > 1 ? st[depth - 2].held : top_held) ||
			   agentcfg_is_name(base, strlen(base));
		if (above_gone || gg_join(abs, n->top, rel) != 0)
			continue;
		if (!all_inside && !path_within(ws, abs))
			continue; /* not the command's to change */
		int changed;
		struct stat sb;
		if (n->told != NULL && (flags & GD_SPARSE) == 0) {
			changed = gitwatch_touched(n->told, abs);
			me->below |= gitwatch_moved(n->told, abs);
		} else if (listed_dir(n, abs, &sb) <= 0) {
			me->gone = 1; /* nothing below it looked at */
			continue;
		} else {
			changed = recent(n, &sb);
			me->below |= changed;
		}
		if ((flags & GD_SPARSE) != 0) {
			/* Everything below is tracked and not listed: looked at
			 * when the run changed it (absent in a sparse checkout,
			 * so what is there the run made). */
			if ((changed || me->below) && walk(n, abs, 0) != 0)
				(void)tampered_add(n->c, abs, "");
			continue;
		}
		held_here(n, abs, flags, changed, me->held);
		/* A gitlink's git dir may have been changed in place. */
		if ((changed || me->below || (flags & (GD_HEAD | GD_GITLINK)) != 0) &&
		    candidate(n, abs, flags, changed || me->below) != 0) {
			me->gone = 1;
			(void)tampered_add(n->c, abs, "");
		}
	}
	free(st);
}

/* The tree's index now, read when the run changed it (its directories
 * gained during the run join the check). 1 read, 0 the same as at the
 * start or none, -1 changed and unreadable. */
static int end_list(const struct nested_start *s, const struct nested_tree *t, struct gitdirs *end)
{
	if (t->index[0] == '\0')
		return 0;
	int fd = open(t->index, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	struct gitdirs_key now;
	int r;
	if (t->listed == 1 && gitdirs_key_of(fd, &now) == 0 &&
	    memcmp(&now, &t->key, sizeof(now)) == 0)
		r = 0;
	else
		r = list_index(s->state, t->index, fd, &now, end) == 1 ? 1 : -1;
	close(fd);
	return r;
}

/* The directories the index of a repository made in the run lists (its
 * untracked ones are not the guard's, as in any repository). */
static void made_in_run_repo(struct nested *n, const char *top)
{
	char dotgit[CORDON_PATH_MAX], index[CORDON_PATH_MAX], gd[CORDON_PATH_MAX];
	struct stat st;
	if (gg_join(dotgit, top, ".git") != 0 || lstat(dotgit, &st) != 0 ||
	    index_of(dotgit, &st, index) != 0 || index[0] == '\0')
		return;
	struct gitdirs l = { 0 };
	int fd = open(index, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return; /* no commit yet: nothing tracked */
	n->top = top;
	if (gitdir_of(index, gd) == 0 && gitdirs_read_index(fd, gd, &l) == 0)
		pass(n, &l);
	else
		(void)tampered_add(n->c, index, ""); /* unchecked: not clean */
	close(fd);
	gitdirs_free(&l);
}

void gitnested_end_new(cordon *c, struct nested_start *s, const char *top)
{
	struct nested n = { c, s, top, WALK_MAX, NULL };
	made_in_run_repo(&n, top);
}

void gitnested_end(cordon *c, struct nested_start *s)
{
	struct nested n = { c, s, c->pol.workspace, WALK_MAX, NULL };
	const char *tree;
	load_wait(s);
	/* Every process of the run is gone: the kernel's account is whole,
	 * unless it overflowed. */
	if (s->watch != NULL && gitwatch_end(s->watch) == 0)
		n.told = s->watch;
	/* Agent configuration below the held levels: where the kernel told,
	 * each entry it named; else what the tracked directories' change
	 * times tell (pass), and a watch that broke leaves it unchecked. */
	if (n.told != NULL) {
		agentcfg_depth(c, gitwatch_named(n.told));
		agentcfg_depth_links(c, gitwatch_dirs(n.told), s->cfg_since_ns);
	} else if (s->watch != NULL)
		(void)tampered_add(c, c->pol.workspace, ""); /* unchecked: not clean */
	else /* the workspace itself (pass leaves it), each --allow-write dir */
		for (size_t k = 0; (tree = policy_project_tree(&c->pol, k)) != NULL; k++)
			agentcfg_depth_dir(c, tree, s->cfg_since_ns);
	/* The workspace itself made a git dir (its ".git" is the guard's). */
	check(&n, c->pol.workspace, 0);
	/* No repository held the workspace at the start: one made there in
	 * the run. */
	if (!s->repo) {
		const struct gitwatch *told = n.told;
		n.told = NULL; /* every directory of a new repository is new */
		made_in_run_repo(&n, c->pol.workspace);
		n.told = told;
		n.top = c->pol.workspace;
	}
	for (size_t i = 0; i < s->ntrees; i++) {
		struct nested_tree *t = &s->trees[i];
		struct gitdirs end = { 0 };
		n.top = t->top;
		/* What was not looked at cannot be called clean: an index
		 * unreadable at the start, or made so by the run. */
		int e = end_list(s, t, &end);
		if (t->listed < 0 || e < 0)
			(void)tampered_add(c, t->index, "");
		if (e > 0 && gitdirs_merge(&end, &t->start) == 0)
			pass(&n, &end);
		else
			pass(&n, &t->start);
		gitdirs_free(&end);
	}
}
