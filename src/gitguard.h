/*
 * The git guard's parts (gitguard.c: git's own files; gitnested.c: a
 * ".git" made in a directory of the workspace). Internal.
 */
#ifndef CORDON_GITGUARD_H
#define CORDON_GITGUARD_H

#include "internal.h"

#include <sys/stat.h>

#if defined(__APPLE__)
#define CTIME(st) ((st).st_ctimespec)
#define MTIME(st) ((st).st_mtimespec)
#else
#define CTIME(st) ((st).st_ctim)
#define MTIME(st) ((st).st_mtim)
#endif

/* What the nested check needs from the start of the run. */
struct nested_start {
	char top[CORDON_PATH_MAX]; /* the repository holding the workspace, "" none */
	char index[CORDON_PATH_MAX]; /* its index file, "" none */
	long long since_ns; /* a ".git" changed after this was made in the run */
};

void gitnested_begin(const cordon *c, struct nested_start *s);
/* Moves aside every ".git" made during the run in a directory of the
 * workspace that holds tracked files (or, when the index cannot say
 * which, in any directory of the workspace). */
void gitnested_end(cordon *c, const struct nested_start *s);

/* Shared helpers of gitguard.c. */
int gitguard_clean(const struct policy *pol, const char *path);
char *gitguard_slurp(const char *path, size_t max, size_t *len);
int gitguard_gitfile_target(const char *file, char *out);
/* Move path aside (recorded in c->tampered). */
int gitguard_put_aside(cordon *c, const char *path);

#endif
