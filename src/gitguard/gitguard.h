/*
 * The git guard's parts (gitguard.c: git's own files; gitnested.c: a
 * ".git" made in a directory of the workspace). Internal.
 */
#ifndef CORDON_GITGUARD_H
#define CORDON_GITGUARD_H

#include "gitdirs.h"
#include "gitfind.h"
#include "gitwatch.h"
#include "handle.h"
#include "path.h"

#include <pthread.h>

#include <sys/stat.h>

#if defined(__APPLE__)
#define CTIME(st) ((st).st_ctimespec)
#define MTIME(st) ((st).st_mtimespec)
#else
#define CTIME(st) ((st).st_ctim)
#define MTIME(st) ((st).st_mtim)
#endif

/* A working tree whose tracked directories the nested check looks at:
 * its top and its index file, both found at the start of the run. */
struct nested_tree {
	char *top;
	char *index;
	int fd; /* the index, opened when the run began; -1 once read */
	/* Its directories as the index had them when the run began, loaded
	 * by the run's thread (gitnested_load) while the command runs. */
	struct gitdirs start;
	struct gitdirs_key key;
	int listed; /* 1: start holds them; 0: no index; -1: unreadable */
};

/* What the nested check needs from the start of the run. */
struct nested_start {
	int repo; /* trees[0] is the repository holding the workspace */
	struct nested_tree *trees; /* then its submodules' and worktrees' */
	size_t ntrees;
	long long since_ns; /* a ".git" changed after this was made in the run */
	char state[CORDON_PATH_MAX]; /* where the lists are kept ("": nowhere) */
	pthread_t loader;
	int loading; /* the loader thread runs (joined at the end) */
	/* What the run touched, told by the kernel (root), or NULL. */
	struct gitwatch *watch;
};

/* The repository holding the workspace (none: s->repo 0). 0, or -1 out
 * of memory. */
int gitnested_begin(const cordon *c, struct nested_start *s);
/* One more working tree (a submodule's checkout, a linked worktree)
 * inside the workspace, with its index. 0, or -1 out of memory. */
int gitnested_add(struct nested_start *s, const char *top, const char *index);
/* A repository found below a workspace in none (its top holds a
 * ".git"), with its index. 0, or -1 out of memory. */
int gitnested_add_repo(struct nested_start *s, const char *top);
/* The end's check of a repository the run made at top (where none was):
 * the directories its index lists. */
void gitnested_end_new(cordon *c, struct nested_start *s, const char *top);
/* Once every tree is known: each index opened now (before the command
 * starts), its directories loaded by a thread while the command runs. */
void gitnested_load(const cordon *c, struct nested_start *s);
/* Moves aside every ".git" made during the run in a directory of the
 * workspace that holds tracked files of those trees, and the HEAD of
 * such a directory made a git dir of its own (a bare repository for git
 * started there). */
void gitnested_end(cordon *c, struct nested_start *s);
void gitnested_free(struct nested_start *s);

/* Shared helpers of gitguard.c. */
/* 1 when path is normalised, lies in a writable tree, and no directory
 * on the way down to it inside a writable tree is a symlink. */
int gitguard_clean(const struct policy *pol, const char *path);
/* A whole regular file (not followed through a symlink) of at most max
 * bytes, NUL-terminated; NULL otherwise. */
char *gitguard_slurp(const char *path, size_t max, size_t *len);
/* The gitdir line of a ".git" file, resolved against its directory. */
int gitguard_gitfile_target(const char *file, char *out);

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
/* Records that the run left path (moved to moved, "" when not). */
int tampered_add(cordon *c, const char *path, const char *moved);
/* Move path aside (recorded with tampered_add). */
int gitguard_put_aside(cordon *c, const char *path);
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
