/*
 * Git's config and index formats, read just far enough for the git
 * guard (gitfmt.c). Pure: no system calls.
 */
#ifndef CORDON_GITFMT_H
#define CORDON_GITFMT_H

#include <stddef.h>

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
typedef int (*gitfmt_dir_fn)(void *ctx, const char *dir, int kind);

/* Walk an index file (versions 2-4; hashlen 20 for SHA-1, 32 for
 * SHA-256). 0, the callback's stop value, GITFMT_INDEX_PARTIAL for a
 * split index (its entries live in another file), or -1 when malformed. */
#define GITFMT_INDEX_PARTIAL (-2)
int gitfmt_index_dirs(const unsigned char *buf, size_t len, size_t hashlen, gitfmt_dir_fn each,
		      void *ctx);

#endif
