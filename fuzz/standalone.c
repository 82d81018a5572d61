/*
 * Replays stored fuzz inputs without libFuzzer, so `make replay` runs the
 * corpus under any compiler: each file named on the command line is read
 * whole and passed to LLVMFuzzerTestOneInput once. Silent on success; exits
 * 1 when a file cannot be read (a target that finds a bug aborts).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *name)
{
	FILE *f = fopen(name, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL) {
		fprintf(stderr, "standalone: %s: %s\n", name, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			unsigned char *p = realloc(buf, ncap);
			if (p == NULL) {
				fprintf(stderr, "standalone: %s: out of memory\n", name);
				goto fail;
			}
			buf = p;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "standalone: %s: read error\n", name);
		goto fail;
	}
	fclose(f);
	/* A copy of exactly len bytes lets a memory checker catch overreads. */
	unsigned char *exact = malloc(len ? len : 1);
	if (exact == NULL) {
		free(buf);
		fprintf(stderr, "standalone: %s: out of memory\n", name);
		return -1;
	}
	if (len > 0)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
fail:
	fclose(f);
	free(buf);
	return -1;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (replay(argv[i]) != 0)
			rc = 1;
	return rc;
}
