/*
 * Fuzz target for path_normalize and friends. The bytes before the first
 * NUL are the cwd ("/" is put in front when it is not absolute), the bytes
 * after it the path; without a NUL the whole input is the path and the cwd
 * is "/". Every successful result must be a normalised absolute path.
 */
#include "path.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OUTLEN 4096

static void check_normal(const char *p)
{
	size_t n = strlen(p);

	if (p[0] != '/')
		abort();
	if (n > 1 && p[n - 1] == '/')
		abort();
	if (strstr(p, "//") != NULL)
		abort();
	/* No "." or ".." component anywhere, including the last. */
	for (const char *c = p + 1; *c != '\0';) {
		size_t len = strcspn(c, "/");
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			abort();
		c += len;
		if (*c == '/')
			c++;
	}
}

static void check_result(const char *cwd, const char *path, const char *out)
{
	static char again[OUTLEN], parent[OUTLEN], small[24];

	check_normal(out);
	if (path_within(out, out) != 1)
		abort();
	/* Idempotent, and independent of cwd once absolute. */
	if (path_normalize(NULL, out, again, sizeof(again)) != 0 || strcmp(again, out) != 0)
		abort();
	if (path_normalize("/elsewhere", out, again, sizeof(again)) != 0 || strcmp(again, out) != 0)
		abort();
	if (path[0] == '/' &&
	    (path_normalize(NULL, path, again, sizeof(again)) != 0 || strcmp(again, out) != 0))
		abort();
	/* The parent contains out and not the other way round. */
	if (strcmp(out, "/") != 0) {
		if (path_normalize(out, "..", parent, sizeof(parent)) != 0)
			abort();
		if (path_within(parent, out) != 1 || path_within(out, parent) != 0)
			abort();
		/* A sibling whose name extends out's is not within it. */
		size_t n = strlen(out);
		if (n + 2 <= sizeof(again)) {
			memcpy(again, out, n);
			memcpy(again + n, "x", 2);
			if (path_within(out, again) != 0 || path_within(again, out) != 0)
				abort();
		}
	}
	const char *const homes[] = { out };
	if (path_is_broad(out, homes, 1) != 1)
		abort();
	/* A small buffer may fail, but never gives a different answer. */
	if (path_normalize(cwd, path, small, sizeof(small)) == 0 && strcmp(small, out) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 2); /* room for a leading '/' and a NUL */
	static char out[OUTLEN];
	const char *cwd = "/", *path;

	if (buf == NULL)
		return 0;
	const uint8_t *nul = memchr(data, '\0', size);
	if (nul == NULL) {
		memcpy(buf, data, size);
		buf[size] = '\0';
		path = buf;
	} else {
		size_t clen = (size_t)(nul - data);
		size_t off = (clen > 0 && data[0] == '/') ? 0 : 1;
		buf[0] = '/';
		memcpy(buf + off, data, size);
		buf[off + size] = '\0';
		cwd = buf;
		path = buf + off + clen + 1;
	}

	if (path_normalize(cwd, path, out, sizeof(out)) == 0) {
		check_result(cwd, path, out);
	} else {
		/* It fails only when the worst case cannot fit. */
		size_t need = (path[0] == '/' ? 0 : strlen(cwd) + 1) + strlen(path) + 1;
		if (need <= sizeof(out))
			abort();
	}
	free(buf);
	return 0;
}
