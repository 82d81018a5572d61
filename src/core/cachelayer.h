/*
 * The shared layers of the tool caches (cachelayer.c): the pure parts,
 * for the unit tests, and the merge of a run's upper dir into a layer.
 */
#ifndef CORDON_CACHELAYER_H
#define CORDON_CACHELAYER_H

#include <stddef.h>

/* The name of a cache's layer dir under STATE/layers: "TOOL-" and 16 hex
 * digits of the FNV-1a 64-bit hash of its path. 0, or -1 when it does
 * not fit in size bytes. */
int cachelayer_name(const char *tool, const char *path, char *out, size_t size);

/* The layer and its kind of entry under a name, for the merge. */
enum layer_kind { LK_NONE, LK_DIR, LK_OTHER };

/* What the merge does with an entry of the run's upper dir. */
enum merge_step {
	MERGE_RENAME, /* renamed into the layer (replacing a non-directory there) */
	MERGE_REPLACE, /* the layer's entry put aside, then renamed in */
	MERGE_INTO /* both are directories: the upper one's entries merged into it */
};

/* The step for an upper entry (a directory or not; an opaque directory
 * hides what lies below it) over the layer's entry of that name. Pure. */
enum merge_step cachelayer_step(int up_dir, int up_opaque, enum layer_kind shared);

/* Directories deeper than this below a layer's root are not merged into
 * a directory the layer has (a new directory is renamed in whole, at any
 * depth): their changes are dropped. Each level holds two fds. */
#define MERGE_DEPTH 64

struct merge_count {
	unsigned long moved; /* entries renamed into the layer */
	unsigned long dropped; /* entries left out (too deep, or a rename failed) */
};

/* Merge the upper dir open on up into the layer's dir open on shared:
 * every entry renamed in, never through a symlink, whiteouts and opaque
 * directories (the xattr opaque_xattr "y") kept as they are; what it
 * replaces is renamed under a fresh name into trash/ of the dir open on
 * trash_at (same file system; trash/ made when first needed). 0, or -1
 * when up cannot be read. */
int cachelayer_merge(int up, int shared, int trash_at, const char *opaque_xattr,
		     struct merge_count *n);

#endif
