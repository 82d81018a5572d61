/*
 * The git guard's check for a repository planted in a directory of the
 * workspace (gitnested.c), run by the guard (gitguard.c). Internal.
 */
#ifndef CORDON_GITNESTED_H
#define CORDON_GITNESTED_H

#include "gitdirs.h"
#include "gitwatch.h"
#include "handle.h"
#include "path.h"

#include <pthread.h>

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
	long long cfg_since_ns; /* agent configuration: the coarse clock at the start */
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

#endif
