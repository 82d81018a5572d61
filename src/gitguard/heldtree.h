/*
 * A held path recorded at the start of a run and judged at its end
 * (heldtree.c): the way agent configuration that is writable during the
 * run (no mount layer) is put back as it was. Internal.
 */
#ifndef CORDON_HELDTREE_H
#define CORDON_HELDTREE_H

#include "handle.h"

#include <stddef.h>

/* What a run may record, for all its held trees together: past it, a
 * tree is recorded in part (HELD_CHECKED_IN_PART). */
#define HT_ENTRIES_MAX 4096 /* files, directories and symlinks */
#define HT_BYTES_MAX (16u << 20) /* content kept to put back */
#define HT_FILE_MAX (1u << 20) /* a larger file is compared, not kept */
/* At the end: entries looked at past those recorded (what the run may
 * have made) before the tree counts as not checked (listed, unmoved). */
#define HT_NEW_MAX 4096

struct held_budget {
	size_t entries, bytes; /* left for the run */
};

struct heldtree;

/* The tree (a directory, breadth first) or the file or symlink at path:
 * each entry's lstat, a regular file's content and a symlink's target,
 * within what b has left (which it takes). NULL without memory. */
struct heldtree *heldtree_record(const char *path, struct held_budget *b);
/* The budget stopped it: some entries were not recorded. */
int heldtree_partial(const struct heldtree *t);
/* The number of entries recorded. */
size_t heldtree_size(const struct heldtree *t);
/* At the end of the run, path against its record: an entry made, or
 * changed (type, identity, mode; a file's or symlink's size and times),
 * is moved aside (gitguard_put_aside, so listed) and, when it was there at
 * the start, its content put back; one removed is put back. Only paths
 * gitguard_clean() accepts are touched. What cannot be looked at is
 * listed as not moved. */
void heldtree_judge(cordon *c, const char *path, struct heldtree *t);
void heldtree_free(struct heldtree *t);

#endif
