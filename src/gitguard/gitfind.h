/*
 * One search for the repositories below a workspace in none (gitfind.c):
 * the git guard's, at the run's start and end. Internal.
 */
#ifndef CORDON_GITFIND_H
#define CORDON_GITFIND_H

#include "strv.h"

#include <stddef.h>

#define GITFIND_MAX 4096 /* directories the start's search reads */
struct gitfind {
	size_t max; /* directories read at most */
	const char *const *skip; /* sorted (gitfind_sort): neither read nor pushed */
	size_t nskip;
	size_t reads; /* out: the directories read */
};
/* Their tops into tops, the directories left unread (past f->max, or
 * not readable) into unread. 0, or -1 out of memory. */
int gitfind_repos(const char *workspace, struct gitfind *f, struct strv *tops, struct strv *unread);
/* Sorts v for gitfind_has; 1 when path is one of sorted's n. */
void gitfind_sort(const char **v, size_t n);
int gitfind_has(const char *const *sorted, size_t n, const char *path);

#endif
