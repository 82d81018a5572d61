/*
 * Fuzz target for the git guard's readers (src/gitfmt.c). Any input, as a
 * config text and as an index file (both hash lengths), must be read
 * without a fault. A config judged safe must stay safe when a comment
 * line is added, and never be safe once a key that runs a program is
 * appended to a section of its own.
 */
#include "gitfmt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(void *ctx, const char *dir, int kind)
{
	if (dir[0] == '\0' || dir[strlen(dir) - 1] == '/')
		abort(); /* a directory is never empty or "/"-terminated */
	if (kind != 0 && kind != GITFMT_GITLINK && kind != GITFMT_SPARSE_DIR)
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
