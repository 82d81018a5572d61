/*
 * Fuzz target for the git guard's readers (src/gitguard/gitfmt.c). Any input, as a
 * config text and as an index file (both hash lengths), must be read
 * without a fault. A config judged safe must stay safe when a comment
 * line is added, and never be safe once a key that runs a program is
 * appended to a section of its own.
 */
#include "gitdirs.h"
#include "gitfmt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(void *ctx, const char *dir, int kind)
{
	if (dir[0] == '\0' || dir[strlen(dir) - 1] == '/')
		abort(); /* a directory is never empty or "/"-terminated */
	if (kind != 0 && kind != GITFMT_GITLINK && kind != GITFMT_SPARSE_DIR &&
	    kind != GITFMT_HEAD_FILE)
		abort();
	(*(size_t *)ctx)++;
	return 0;
}

static int any_worktree(void *ctx, const char *value)
{
	(void)ctx;
	(void)value;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;
	(void)gitfmt_index_dirs(data, size, 20, count, &n);
	(void)gitfmt_index_dirs(data, size, 32, count, &n);
	/* Fed in pieces of 7 bytes: the same answer as whole. */
	struct gitfmt_index ix;
	size_t m = 0, have = 0, at = 0, used = 0;
	unsigned char window[GITFMT_ENTRY_MAX + 8];
	int r = 0;
	gitfmt_index_start(&ix, 20, size);
	while (r == 0 && ix.stage != GITFMT_INDEX_DONE && have + 7 <= sizeof(window)) {
		size_t k = size - at < 7 ? size - at : 7;
		memcpy(window + have, data + at, k);
		have += k;
		at += k;
		r = gitfmt_index_feed(&ix, window, have, &used, count, &m);
		memmove(window, window + used, have - used);
		have -= used;
		if (k == 0 && used == 0)
			break;
	}
	size_t whole = 0;
	int rw = gitfmt_index_dirs(data, size, 20, count, &whole);
	if (r == 0 && ix.stage == GITFMT_INDEX_DONE && (rw != 0 || whole != m))
		abort();
	/* A damaged copy of a directory list is refused, never read out of
	 * bounds. */
	struct gitdirs_key key;
	struct gitdirs d = { 0 };
	memset(&key, 0, sizeof(key));
	(void)gitdirs_decode((const char *)data, size, &key, &d);
	gitdirs_free(&d);

	const char *text = (const char *)data;
	int safe = gitfmt_config_check(text, size, any_worktree, NULL);
	if (safe != GITFMT_SAFE && safe != GITFMT_UNSAFE)
		abort();
	static const char evil[] = "\n[core]\n\tfsmonitor = x\n";
	char *more = malloc(size + sizeof(evil));
	if (more == NULL)
		return 0;
	memcpy(more, data, size);
	memcpy(more + size, evil, sizeof(evil) - 1);
	/* Appended after a text that ends inside quotes or a continuation,
	 * the key may be part of a value: only a safe text is checked. */
	if (safe == GITFMT_SAFE && memchr(data, '"', size) == NULL &&
	    memchr(data, '\\', size) == NULL &&
	    gitfmt_config_check(more, size + sizeof(evil) - 1, any_worktree, NULL) == GITFMT_SAFE)
		abort();
	free(more);
	return 0;
}
