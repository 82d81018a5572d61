/*
 * Git's config and index formats, read just far enough for the git
 * guard (gitfmt.c). Pure: no system calls.
 */
#ifndef CORDON_GITFMT_H
#define CORDON_GITFMT_H

#include <stddef.h>
#include <stdint.h>

enum git_value { GV_ANY, GV_WORKTREE, GV_URL, GV_UPDATE };

#define GITFMT_SAFE 0
#define GITFMT_UNSAFE 1

/* Asked for a core.worktree value: 1 when it is acceptable. */
typedef int (*gitfmt_worktree_fn)(void *ctx, const char *value);

/* Called for each entry of a config text as "section.sub.name=value"
 * (section and name in lower case, the value unquoted), safe 1 when git
 * writes it itself with a harmless value. A non-zero return stops the
 * walk and is returned. */
typedef int (*gitfmt_entry_fn)(void *ctx, const char *entry, int safe);
/* GITFMT_SAFE after every entry, GITFMT_UNSAFE when the text is not
 * git's syntax (or an entry is too long to judge). */
int gitfmt_config_entries(const char *buf, size_t len, gitfmt_entry_fn each, void *ctx,
			  gitfmt_worktree_fn worktree_ok, void *wctx);

/* GITFMT_SAFE when every key of the config text is one git writes
 * itself (init, clone, submodule, worktree, remote, identity) with a
 * harmless value, else GITFMT_UNSAFE (also for anything unparsable). */
int gitfmt_config_check(const char *buf, size_t len, gitfmt_worktree_fn worktree_ok, void *ctx);

/* Called once per directory that holds a tracked path (its path
 * relative to the top, no trailing "/"; kind 0), once per submodule (a
 * gitlink entry: the directory of its checkout; GITFMT_GITLINK) and once
 * per directory entry of a sparse index (everything below it is tracked
 * and not listed; GITFMT_SPARSE_DIR); a non-zero return stops the walk
 * and is returned. */
#define GITFMT_GITLINK 1
#define GITFMT_SPARSE_DIR 2
/* Once more per directory below the top that holds a tracked file named
 * HEAD or commondir (after its directories were reported). */
#define GITFMT_HEAD_FILE 3
/* Once more per directory below the top that holds a tracked file or
 * symlink whose name is one of the index's leaf_names (when set). */
#define GITFMT_LEAF_NAMED 4
typedef int (*gitfmt_dir_fn)(void *ctx, const char *dir, int kind);

/* Walk an index file (versions 2-4; hashlen 20 for SHA-1, 32 for
 * SHA-256). 0, the callback's stop value, GITFMT_INDEX_PARTIAL for a
 * split index (its entries live in another file), or -1 when malformed.
 * A callback's stop value of 1 or -1 is returned as GITFMT_INDEX_STOPPED. */
#define GITFMT_INDEX_PARTIAL (-2)
#define GITFMT_INDEX_STOPPED (-3)
int gitfmt_index_dirs(const unsigned char *buf, size_t len, size_t hashlen, gitfmt_dir_fn each,
		      void *ctx);

/* The same, read in pieces (a large index need not be in memory whole):
 * start with the file's size, then feed it in order. Each feed reads
 * what buf holds whole and says in *used how many bytes it took; the
 * caller keeps the rest, appends more, and feeds again. A buffer of
 * GITFMT_ENTRY_MAX bytes always holds the next unit. Returns as
 * gitfmt_index_dirs; the walk is complete when stage is
 * GITFMT_INDEX_DONE. */
#define GITFMT_PATH_MAX 4096
#define GITFMT_ENTRY_MAX 8192
enum { GITFMT_INDEX_HEADER, GITFMT_INDEX_ENTRIES, GITFMT_INDEX_EXTENSIONS, GITFMT_INDEX_DONE };
struct gitfmt_index {
	size_t hashlen;
	uint64_t total, off; /* the file's size; bytes taken so far */
	uint32_t version, count, i;
	int stage;
	uint64_t skip; /* bytes of an extension still to pass */
	int unnamed; /* an entry without a path (a split index's) */
	size_t prevn;
	char prev[GITFMT_PATH_MAX];
	/* Names (NULL-terminated; NULL: none) a tracked entry's last
	 * component is reported by (GITFMT_LEAF_NAMED); set after start. */
	const char *const *leaf_names;
	size_t nleaf;
};
void gitfmt_index_start(struct gitfmt_index *ix, size_t hashlen, uint64_t total);
int gitfmt_index_feed(struct gitfmt_index *ix, const unsigned char *buf, size_t len, size_t *used,
		      gitfmt_dir_fn each, void *ctx);

#endif
