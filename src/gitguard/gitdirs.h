/*
 * The tracked directories of a working tree, as its index lists them
 * (gitdirs.c): read from the index in pieces, or from a copy kept in the
 * state dir for that very index (its identity: inode, size, times and
 * trailing hash), so a run in a large repository does not read and parse
 * the index again while it stays the same. Internal.
 */
#ifndef CORDON_GITDIRS_H
#define CORDON_GITDIRS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What a directory of the list is. */
#define GD_DIR 0x1 /* holds tracked paths */
#define GD_GITLINK 0x2 /* a submodule's checkout (its .git by right) */
#define GD_SPARSE 0x4 /* a sparse index's entry: all below it is tracked */
#define GD_HEAD 0x8 /* holds a tracked HEAD or commondir */
#define GD_HELD 0x10 /* holds a tracked file or symlink with an agent-configuration name */

/* Sorted (strcmp: a directory before what is below it), no repeats;
 * paths relative to the tree's top, no "." or ".." component. */
struct gitdirs {
	char *buf; /* records: flags byte, path, NUL */
	size_t len, cap;
	size_t *at; /* offset of each record in buf */
	size_t n, capn;
};
static inline const char *gitdirs_path(const struct gitdirs *d, size_t i)
{
	return d->buf + d->at[i] + 1;
}
static inline unsigned gitdirs_flags(const struct gitdirs *d, size_t i)
{
	return (unsigned char)d->buf[d->at[i]];
}
void gitdirs_free(struct gitdirs *d);
/* One more directory (copied); sorted and merged later. 0 or -1. */
int gitdirs_add(struct gitdirs *d, const char *path, unsigned flags);
/* Sort, and merge repeats (their flags ORed). 0 or -1 (out of memory). */
int gitdirs_sort(struct gitdirs *d);
/* Merge src into d (sorted again). 0 or -1. */
int gitdirs_merge(struct gitdirs *d, const struct gitdirs *src);

/* An index file's identity: what changes whenever git writes it. */
struct gitdirs_key {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	unsigned char trailer[32]; /* its last bytes: the hash git writes */
};
/* The key of the open index fd. 0 or -1. */
int gitdirs_key_of(int fd, struct gitdirs_key *k);

/* The directories of the index open on fd (of size bytes; a split
 * index's shared index is opened below gitdir), appended to d. 0, or -1
 * when it cannot be read (malformed, or a shared index missing). */
int gitdirs_read_index(int fd, const char *gitdir, struct gitdirs *d);

/* The copy kept for an index: STATE/git/HEX, where HEX names the index
 * path. 0, or -1 when it does not fit. */
int gitdirs_cache_path(const char *state, const char *index, char *out, size_t outlen);
/* d from the copy at path when it was made for key k: 0, else -1
 * (missing, another index, damaged). */
int gitdirs_cache_load(const char *path, const struct gitdirs_key *k, struct gitdirs *d);
/* Write the copy (a temp file renamed into place; the directory made
 * owner-only when missing). 0 or -1; a failure only costs the next run
 * a parse. */
int gitdirs_cache_save(const char *path, const struct gitdirs_key *k, const struct gitdirs *d);

/* The copy's bytes (pure: unit-tested and fuzzed): encode d into a new
 * buffer (*out, *outlen; the caller frees), decode buf into d when it
 * was made for k. 0 or -1. */
int gitdirs_encode(const struct gitdirs_key *k, const struct gitdirs *d, char **out,
		   size_t *outlen);
int gitdirs_decode(const char *buf, size_t len, const struct gitdirs_key *k, struct gitdirs *d);

#endif
