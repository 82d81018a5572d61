/*
 * The git guard's judgement of git's own files and the list of what the
 * run left (gitjudge.c), used by both halves of the guard (gitguard.c,
 * gitnested.c). Internal.
 */
#ifndef CORDON_GITJUDGE_H
#define CORDON_GITJUDGE_H

#include "handle.h"
#include "path.h"

#include <dirent.h>
#include <stddef.h>

#include <sys/stat.h>

#if defined(__APPLE__)
#define CTIME(st) ((st).st_ctimespec)
#define MTIME(st) ((st).st_mtimespec)
#else
#define CTIME(st) ((st).st_ctim)
#define MTIME(st) ((st).st_mtim)
#endif

#define GG_FILE_MAX (4u << 20) /* a larger config or index is not read */

/* What a watched file is to git. */
enum kind { K_CONFIG, K_COMMONDIR, K_HOOKS, K_ATTRIBUTES, K_GITFILE };

/* A file the guard watches, and what it was at the start. */
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

/* The judge's state: the first member of struct gitguard (gitguard.c). */
struct gitjudge {
	struct item *v; /* the files the guard watches */
	size_t n, cap;
	/* The run's guard is released (gitguard_release): only the list of
	 * what the run left stays, until the next run or the handle's end. */
	int released;
	struct tamper *tampered;
	size_t ntampered;
};

/* out = a "/" b in CORDON_PATH_MAX bytes: 0, or -1 when it does not fit. */
static inline int gg_join(char *out, const char *a, const char *b)
{
	return path_join(out, CORDON_PATH_MAX, a, b);
}
/* st made or changed at or after since_ns (its change time). */
static inline int gg_since(const struct stat *st, long long since_ns)
{
	return (long long)CTIME(*st).tv_sec * 1000000000LL + CTIME(*st).tv_nsec >= since_ns;
}

/* A whole regular file (not followed through a symlink) of at most max
 * bytes, NUL-terminated; NULL otherwise. */
char *gitguard_slurp(const char *path, size_t max, size_t *len);
/* 1 when path is normalised, lies in a writable tree, and no directory
 * on the way down to it inside a writable tree is a symlink. */
int gitguard_clean(const struct policy *pol, const char *path);
/* A directory opened without following a symlink at its name. */
DIR *gitguard_open_dir(const char *path);
/* A directory's entries as text, one sorted line each; NULL when it
 * cannot be read. */
char *gitguard_listing(const char *path, size_t *len);
/* The watched file at path, or NULL. */
struct item *gitguard_find(const struct gitjudge *g, const char *path);
void gitguard_item_free(struct item *it);
/* text (a gitdir line, a commondir) resolved against dir, lexically
 * normalised into out (CORDON_PATH_MAX bytes). 0 or -1. */
int gitguard_resolve_text(const char *dir, const char *text, char *out);
/* The gitdir line of a ".git" file, resolved against its directory. */
int gitguard_gitfile_target(const char *file, char *out);

/* Records that the run left path (moved to moved, "" when not). */
int tampered_add(cordon *c, const char *path, const char *moved);
/* Where path is moved aside: path.cordon-tampered-RUN, or, when the run
 * made that name, path.cordon-tampered-RUN-N: a name nothing is at (out:
 * CORDON_PATH_MAX bytes). 0, or -1 when none fits. */
int gitguard_aside_name(const cordon *c, const char *path, char *out);
/* The directory holding path is the caller's and lacks write or search
 * for its owner (a run may take them away to keep what it planted there
 * from being seen or moved): given back. 1 when it was. */
int gitguard_parent_usable(const char *path);
/* rename(2), and once more when it was refused because a directory of
 * the caller's, on either side, had lost its owner's write or search
 * bits (given back first): the run may have taken them away. 0 or -1. */
int gitguard_rename(const char *from, const char *to);
/* Move path aside (recorded with tampered_add). */
int gitguard_put_aside(cordon *c, const char *path);
/* Make path, which must not exist, a regular file of that mode (its
 * permission bits) holding content: what the start held, put back. 0, or
 * -1 when it could not be made whole. */
int gitguard_put_back(const char *path, const char *content, size_t len, mode_t mode);
/* The end's judgement of every watched file: one changed since the
 * start that git would not have written is moved aside (and its content
 * of the start put back). */
void gitguard_judge_items(cordon *c);
/* 1 when the guard watches path (a submodule's or worktree's ".git"
 * file, judged by what it names). */
int gitguard_watches(const cordon *c, const char *path);
/* The git dir gd of an embedded repository: a gitlink of an index with
 * no .gitmodules entry, so none of its files was watched from the
 * start, while "git status" above it still runs git in it. When the run
 * changed its checkout (changed), or any of its config, commondir, hooks
 * or info/attributes (change time at or after since_ns), each of those
 * is judged as if git had just made it, and what git would not have
 * written is put aside. */
void gitguard_judge_embedded(cordon *c, const char *gd, long long since_ns, int changed);

#endif
