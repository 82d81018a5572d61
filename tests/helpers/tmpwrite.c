/*
 * tmpwrite NAME1 NAME2: what programs do with the machine's temp dirs by
 * name, whatever TMPDIR says: tmpfile(3) (glibc makes it in P_tmpdir,
 * /tmp), then /tmp/NAME1 and /var/tmp/NAME2 written and read back.
 * Prints "ok" (exit 0), or the first step that failed and its error
 * (exit 1). Test helper only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

static int roundtrip(FILE *f, const char *what)
{
	char buf[16] = { 0 };
	if (fputs("tmpwrite\n", f) < 0 || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    fgets(buf, sizeof(buf), f) == NULL || strcmp(buf, "tmpwrite\n") != 0) {
		printf("%s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_named(const char *dir, const char *name)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		printf("%s/%s: name too long\n", dir, name);
		return -1;
	}
	FILE *f = fopen(path, "w+");
	if (f == NULL) {
		printf("%s: %s\n", path, strerror(errno));
		return -1;
	}
	int r = roundtrip(f, path);
	fclose(f);
	return r;
}

int main(int argc, char *argv[])
{
	if (argc != 3) {
		fprintf(stderr, "usage: tmpwrite NAME1 NAME2\n");
		return 2;
	}
	FILE *f = tmpfile();
	if (f == NULL) {
		printf("tmpfile: %s\n", strerror(errno));
		return 1;
	}
	int r = roundtrip(f, "tmpfile");
	fclose(f);
	if (r != 0 || write_named("/tmp", argv[1]) != 0 || write_named("/var/tmp", argv[2]) != 0)
		return 1;
	printf("ok\n");
	return 0;
}
