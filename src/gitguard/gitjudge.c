/*
 * The git guard's judgement of git's own files, and the list of what the
 * run left: below both halves of the guard (gitguard.c, which watches
 * each repository's own git files from the start to the end, and
 * gitnested.c, which looks for a repository planted in a directory of
 * the workspace), and calling neither.
 *
 * Here: reading a file as the guard reads it (gitguard_slurp, never
 * through a symlink, only in a writable tree: gitguard_clean), a ".git"
 * file's gitdir line, the list of the files the guard watches with what
 * they were at the start (struct item), whether git itself would have
 * written a file (acceptable), moving aside what it would not (its
 * content of the start put back), and recording each such path in the
 * list of what the run left (tampered_add), which outlives the run.
 *
 * The state it keeps (struct gitjudge) is the first member of the
 * guard's (struct gitguard, gitguard.c), so that what holds only the
 * handle reaches it from c->gitguard.
 */
#include "gitjudge.h"
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
#include <unistd.h>

/* The judge's part of the guard: the first member of struct gitguard
 * (gitguard.c checks that it is); NULL when there is no guard. */
static struct gitjudge *judge_of(const cordon *c)
{
	return (struct gitjudge *)(void *)c->gitguard;
}

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
DIR *gitguard_open_dir(const char *path)
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
char *gitguard_listing(const char *path, size_t *len)
{
	DIR *d = gitguard_open_dir(path);
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
	DIR *d = gitguard_open_dir(path);
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

/* ---- the list of what the guard watches ---- */

struct item *gitguard_find(const struct gitjudge *g, const char *path)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->v[i].path, path) == 0)
			return &g->v[i];
	return NULL;
}

void gitguard_item_free(struct item *it)
{
	free(it->path);
	free(it->common);
	free(it->content);
}

/* ---- a ".git" file ---- */

/* The target of path's text (a gitdir line, a commondir), resolved
 * against dir, lexically normalised into out. 0 or -1. */
int gitguard_resolve_text(const char *dir, const char *text, char *out)
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
			? gitguard_resolve_text(dir, text, out)
			: -1;
	free(text);
	return r;
}

/* ---- the list of what the run left ---- */

int tampered_add(cordon *c, const char *path, const char *moved)
{
	struct gitjudge *g = judge_of(c);
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
	return gitguard_resolve_text(w->gitdir, value, norm) == 0 &&
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
		char *text =
			S_ISREG(st.st_mode) ? gitguard_slurp(it->path, GG_FILE_MAX, &len) : NULL;
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
			ok = gitguard_resolve_text(dir, text, target) == 0 &&
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
			 gitguard_resolve_text(dir, text, target) == 0 &&
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
		char *now = S_ISDIR(st.st_mode) ? gitguard_listing(it->path, &len) : NULL;
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
	if (gitguard_aside_name(c, path, aside) != 0 || !gitguard_clean(&c->pol, path) ||
	    gitguard_rename(path, aside) != 0)
		return tampered_add(c, path, "");
	if (it != NULL && it->existed && it->content != NULL && it->kind != K_HOOKS)
		(void)gitguard_put_back(path, it->content, it->len, it->st.st_mode);
	return tampered_add(c, path, aside);
}

int gitguard_put_back(const char *path, const char *content, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
	if (fd < 0)
		return -1;
	size_t off = 0;
	while (off < len) {
		ssize_t wr = write(fd, content + off, len - off);
		if (wr < 0 && errno == EINTR)
			continue;
		if (wr <= 0)
			break;
		off += (size_t)wr;
	}
	/* The mode it had, whatever the umask. */
	int ok = off == len && fchmod(fd, mode & 0777) == 0;
	close(fd);
	return ok ? 0 : -1;
}

int gitguard_parent_usable(const char *path)
{
	char dir[CORDON_PATH_MAX];
	struct stat st;
	size_t n = strlen(path);
	const char *slash = strrchr(path, '/');
	if (slash == NULL || slash == path || n >= sizeof(dir))
		return 0;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 0300) != 0300 && chmod(dir, (st.st_mode & 07777) | 0300) == 0;
}

int gitguard_rename(const char *from, const char *to)
{
	if (rename(from, to) == 0)
		return 0;
	if (errno != EACCES && errno != EPERM)
		return -1;
	int fixed = gitguard_parent_usable(from);
	fixed |= gitguard_parent_usable(to);
	return fixed && rename(from, to) == 0 ? 0 : -1;
}

int gitguard_aside_name(const cordon *c, const char *path, char *out)
{
	/* A name the run made already (it may know its run id) is not
	 * renamed over: a directory there would make the rename fail and
	 * leave what it planted in place. */
	for (int i = 0; i < 100; i++) {
		struct stat st;
		int n = i == 0 ? snprintf(out, CORDON_PATH_MAX, "%s.cordon-tampered-%.8s", path,
					  c->run_id)
			       : snprintf(out, CORDON_PATH_MAX, "%s.cordon-tampered-%.8s-%d", path,
					  c->run_id, i);
		if (n <= 0 || n >= CORDON_PATH_MAX)
			return -1;
		if (lstat(out, &st) != 0 && errno == ENOENT)
			return 0;
	}
	return -1;
}

int gitguard_put_aside(cordon *c, const char *path)
{
	return put_aside(c, path, NULL);
}

/* A hooks dir, or one of its entries, made or changed since since_ns (a
 * hook rewritten in place changes its own times only). */
static int hooks_after(const char *path, long long since_ns)
{
	DIR *d = gitguard_open_dir(path);
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

int gitguard_watches(const cordon *c, const char *path)
{
	const struct gitjudge *j = judge_of(c);
	return j != NULL && !j->released && gitguard_find(j, path) != NULL;
}

void gitguard_judge_items(cordon *c)
{
	struct gitjudge *g = judge_of(c);
	for (size_t i = 0; i < g->n; i++) {
		struct item *it = &g->v[i];
		if (changed(it) && !acceptable(&c->pol, it))
			(void)put_aside(c, it->path, it);
	}
}
