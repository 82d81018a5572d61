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
 * repository that held the workspace when the run began, of its
 * submodules' checkouts and of its linked worktrees inside the workspace
 * (all found then, so the run cannot point the check at an index of its
 * own). A ".git" in one of them whose ctime is after the run began is
 * moved aside; so is the HEAD of one whose HEAD, config or commondir
 * was made or changed during the run. When an index cannot be read
 * whole (a symlink, a split index, malformed, too large) or the
 * repository is new, every directory below its top is looked at
 * instead, up to a bound; past it the run counts as tampered, since
 * what was not looked at cannot be called clean.
 */
#include "gitguard.h"
#include "gitfmt.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INDEX_MAX (256u << 20)
#define WALK_MAX 1000000L /* entries the fallback walk looks at */

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
	s->repo = 0;
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

void gitnested_free(struct nested_start *s)
{
	for (size_t i = 0; i < s->ntrees; i++) {
		free(s->trees[i].top);
		free(s->trees[i].index);
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
	size_t index_left; /* bytes of indexes still to read, all trees */
};

/* st was made or changed during the run. */
static int recent(const struct nested *n, const struct stat *st)
{
	return (long long)CTIME(*st).tv_sec * 1000000000LL + CTIME(*st).tv_nsec >= n->s->since_ns;
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
		int planted = strcmp(dir, n->c->pol.workspace) != 0 && strcmp(dir, n->top) != 0 &&
			      !(gitlink && gitguard_watches(n->c, p)) &&
			      (fresh || (!gitlink && moved_in(n, dir)));
		if (link || planted)
			(void)gitguard_put_aside(n->c, p);
		if (lstat(p, &gst) == 0)
			return; /* git stops at a ".git" */
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

static int walk(struct nested *n, const char *dir, int depth);

static int index_dir(void *ctx, const char *dir, int kind)
{
	struct nested *n = ctx;
	char d[CORDON_PATH_MAX];
	if (dir[0] == '\0' || gg_join(d, n->top, dir) != 0 ||
	    !policy_inside_writable(&n->c->pol, d))
		return 0;
	/* A sparse index's directory: all below it is tracked. */
	if (kind == GITFMT_SPARSE_DIR && walk(n, d, 0) != 0)
		(void)tampered_add(n->c, d, "");
	else if (kind != GITFMT_SPARSE_DIR)
		check(n, d, kind == GITFMT_GITLINK);
	return 0;
}

/* Every directory below dir, without following symlinks or entering a
 * ".git". 0, or -1 past the bound. */
static int walk(struct nested *n, const char *dir, int depth)
{
	if (depth > 256)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return 0;
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

/* One working tree: the directories of its index, or all below its top
 * when the index cannot say. */
static void tree_end(cordon *c, struct nested *n, const char *index, int fresh)
{
	int whole = fresh;
	if (!fresh && index[0] != '\0') {
		size_t len = 0;
		/* One budget for every tree's index: past it, the walk. */
		char *buf = gitguard_slurp(index, n->index_left, &len);
		int r = -1;
		if (buf != NULL) {
			n->index_left -= len;
			r = gitfmt_index_dirs((unsigned char *)buf, len, 20, index_dir, n);
			if (r == -1)
				r = gitfmt_index_dirs((unsigned char *)buf, len, 32, index_dir, n);
		}
		free(buf);
		whole = r < 0;
	} else if (!fresh) {
		whole = 1;
	}
	/* From the tree's top when it lies in the workspace (a submodule,
	 * a worktree), else from the workspace: nothing above it is
	 * writable. */
	const char *from = path_within(c->pol.workspace, n->top) ? n->top : c->pol.workspace;
	if (whole && walk(n, from, 0) != 0)
		(void)tampered_add(c, from, "");
}

void gitnested_end(cordon *c, const struct nested_start *s)
{
	char dotgit[CORDON_PATH_MAX];
	struct stat st;
	struct nested n = { c, s, c->pol.workspace, WALK_MAX, INDEX_MAX };
	/* The workspace itself made a git dir (its ".git" is the guard's). */
	check(&n, c->pol.workspace, 0);
	if (!s->repo) {
		/* No repository at the start: one made in the run, whose
		 * index says which directories it tracks (its untracked ones
		 * are not the guard's, as in any repository). */
		char index[CORDON_PATH_MAX];
		if (gg_join(dotgit, c->pol.workspace, ".git") == 0 && lstat(dotgit, &st) == 0) {
			int ok = index_of(dotgit, &st, index) == 0 && index[0] != '\0';
			tree_end(c, &n, ok ? index : "", !ok);
		}
	}
	for (size_t i = 0; i < s->ntrees; i++) {
		n.top = s->trees[i].top;
		tree_end(c, &n, s->trees[i].index, 0);
	}
}
