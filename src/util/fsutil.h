/*
 * File system helpers (fsutil.c).
 */
#ifndef CORDON_FSUTIL_H
#define CORDON_FSUTIL_H

#include <dirent.h>
#include <stddef.h>

/* mkdir -p; directories it makes are owner-only (0700). 0 or -1/errno. */
int mkdir_p(const char *path);
/* A stream over the dir open on fd, from its first entry (close-on-exec;
 * fd stays open), or NULL. */
DIR *dir_stream(int fd);
/* What a removal may do, and what came of it. Each entry met takes one
 * unit of left (so does each name of its queue found taken); once *stop
 * (when stop is not NULL) is set by another thread and unstoppable units
 * are done, the removal stops at the next entry. */
struct rm_budget {
	unsigned long left;
	unsigned long unstoppable;
	const int *stop;
	unsigned long done; /* units taken */
	int out; /* it stopped: left ran out, or *stop */
	int failed; /* an entry could not be removed (immutable, a mount, ...) */
};
/* Remove name below parent_fd and everything in it, never following a
 * symlink out of it, with a bounded number of fds whatever its depth, in
 * O(entries). top_fd: the dir already open (or -1); queue_fd: where the
 * dirs met are moved to be emptied (a dir outside the tree, or -1: the
 * tree's top). 0 when it is gone, else -1 (see b->out and b->failed). */
int remove_tree_at(int parent_fd, const char *name, int top_fd, int queue_fd, struct rm_budget *b);
/* The path of what fd is open on (its canonical name; on Linux,
 * /proc/self/fd/N, which ends in " (deleted)" once it has no name) into
 * out: 0, or -1 (no /proc, not a name in a file system: a pipe, a
 * socket). */
int fd_path(int fd, char *out, size_t len);

#endif
