/*
 * Pure path helpers: no system calls, so they are unit-tested and fuzzed
 * without privileges.
 */
#ifndef CORDON_PATH_H
#define CORDON_PATH_H

#include <stddef.h>

/* 1 when p is base or lies beneath it (component-wise; "/ab" is not
 * beneath "/a"). Both must be normalised absolute paths. */
int path_within(const char *base, const char *p);

/* Lexically normalise in (made absolute against cwd when relative):
 * collapses "//", "." and "..", drops a trailing "/". cwd must be an
 * absolute normalised path when in is relative. Returns 0, or -1 when
 * cwd is unusable or the path does not fit in outlen at any step (a ".."
 * is applied after the component before it was copied). */
int path_normalize(const char *cwd, const char *in, char *out, size_t outlen);

/* out = a "/" b (just a when b is empty; one slash when a ends in one),
 * in outlen bytes. 0, or -1 when it does not fit: never truncated. */
int path_join(char *out, size_t outlen, const char *a, const char *b);

/* 1 when p is "/", one of the homes, or an ancestor of one of them:
 * paths cordon refuses as writable unless told otherwise. Empty or NULL
 * homes are ignored. */
int path_is_broad(const char *p, const char *const *homes, size_t nhomes);

#endif
