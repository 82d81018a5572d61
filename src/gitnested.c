/*
 * The git guard's check for a ".git" planted in a directory of the
 * workspace: git started in that directory takes it for a repository of
 * its own (and runs what its config says), while "git status" at the
 * top shows nothing.
 *
 * The directories that hold tracked files come from the index of the
 * repository that held the workspace when the run began (found then, so
 * the run cannot point the check at an index of its own). A ".git" in
 * one of them whose ctime is after the run began is moved aside. When
 * that index cannot be read whole (a symlink, a split index, malformed,
 * too large) or the repository is new, every directory of the workspace
 * is looked at instead, up to a bound; past it the run counts as
 * tampered, since what was not looked at cannot be called clean.
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

void gitnested_begin(const cordon *c, struct nested_start *s)
{
	char dotgit[CORDON_PATH_MAX], gd[CORDON_PATH_MAX];
	struct stat st;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	/* A step of the file system's coarse clock: 50 ms of slack. */
	s->since_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec - 50000000LL;
	s->top[0] = s->index[0] = '\0';
	char top[CORDON_PATH_MAX];
	if (snprintf(top, sizeof(top), "%s", c->pol.workspace) >= (int)sizeof(top))
		return;
	for (;;) {
		if (gg_join(dotgit, top, ".git") == 0 && lstat(dotgit, &st) == 0)
			break;
		char *slash = strrchr(top, '/');
		if (slash == NULL || slash == top)
			return;
		*slash = '\0';
	}
	if (S_ISDIR(st.st_mode))
		snprintf(gd, sizeof(gd), "%s", dotgit);
	else if (!S_ISREG(st.st_mode) || gitguard_gitfile_target(dotgit, gd) != 0)
		return;
	memcpy(s->top, top, strlen(top) + 1);
	if (gg_join(s->index, gd, "index") != 0)
		s->index[0] = '\0';
}

struct nested {
	cordon *c;
	const char *top;
	long long since_ns;
	long steps;
};

/* dir/.git, when made during the run: moved aside. */
static void check(struct nested *n, const char *dir)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	if (strcmp(dir, n->c->pol.workspace) != 0 && strcmp(dir, n->top) != 0 &&
	    gitguard_clean(&n->c->pol, dir) && gg_join(p, dir, ".git") == 0 && lstat(p, &st) == 0 &&
	    (long long)CTIME(st).tv_sec * 1000000000LL + CTIME(st).tv_nsec >= n->since_ns)
		(void)gitguard_put_aside(n->c, p);
}

static int index_dir(void *ctx, const char *dir)
{
	struct nested *n = ctx;
	char d[CORDON_PATH_MAX];
	if (dir[0] != '\0' && gg_join(d, n->top, dir) == 0 && policy_inside_writable(&n->c->pol, d))
		check(n, d);
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
	check(n, dir);
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
		    strcmp(e->d_name, ".git") == 0)
			continue;
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

void gitnested_end(cordon *c, const struct nested_start *s)
{
	char dotgit[CORDON_PATH_MAX];
	struct stat st;
	struct nested n = { c, s->top[0] ? s->top : c->pol.workspace, s->since_ns, WALK_MAX };
	int whole = 0;
	if (s->index[0] != '\0') {
		size_t len = 0;
		char *buf = gitguard_slurp(s->index, INDEX_MAX, &len);
		int r = -1;
		if (buf != NULL) {
			r = gitfmt_index_dirs((unsigned char *)buf, len, 20, index_dir, &n);
			if (r == -1)
				r = gitfmt_index_dirs((unsigned char *)buf, len, 32, index_dir, &n);
		}
		free(buf);
		whole = r < 0;
	} else {
		/* No repository at the start: one made in the run. */
		whole = gg_join(dotgit, c->pol.workspace, ".git") == 0 && lstat(dotgit, &st) == 0;
	}
	if (whole && walk(&n, c->pol.workspace, 0) != 0)
		(void)tampered_add(c, c->pol.workspace, "");
}
