/*
 * The caches' shared layers (src/core/cachelayer.c) and their overlays
 * (src/linux/layer-caches.c), the pure parts and the merge: a layer's
 * name, what the merge does with each entry of a run's upper dir, the
 * overlay's options (escaped: no path adds an option or a layer), and a
 * merge of a real upper dir into a layer, checked entry by entry.
 */
#include "cachelayer.h"
#include "linux-layers.h"
#include "strv.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/xattr.h>
#endif

static void test_name(void)
{
	char a[96], b[96], small[8];
	is_int(cachelayer_name("npm", "/home/u/.npm", a, sizeof(a)), 0, "a layer's name");
	ok(strncmp(a, "npm-", 4) == 0 && strlen(a) == 4 + 16, "npm- and 16 hex digits: %s", a);
	cachelayer_name("npm", "/home/v/.npm", b, sizeof(b));
	ok(strcmp(a, b) != 0, "another path, another layer");
	cachelayer_name("npm", "/home/u/.npm", b, sizeof(b));
	is_str(a, b, "the same path, the same layer (runs share it)");
	/* FNV-1a 64 of "" is its offset basis. */
	cachelayer_name("go", "", b, sizeof(b));
	is_str(b, "go-cbf29ce484222325", "the hash is FNV-1a 64");
	is_int(cachelayer_name("npm", "/home/u/.npm", small, sizeof(small)), -1,
	       "a name that does not fit: refused");
}

static void test_steps(void)
{
	is_int(cachelayer_step(0, 0, LK_NONE), MERGE_RENAME, "a new file: renamed in");
	is_int(cachelayer_step(0, 0, LK_OTHER), MERGE_RENAME,
	       "a file over the layer's file (or whiteout): renamed over it");
	is_int(cachelayer_step(0, 0, LK_DIR), MERGE_REPLACE,
	       "a file (or whiteout) over the layer's directory: the directory put aside");
	is_int(cachelayer_step(1, 0, LK_NONE), MERGE_RENAME, "a new directory: renamed in whole");
	is_int(cachelayer_step(1, 1, LK_NONE), MERGE_RENAME,
	       "an opaque directory the layer lacks: renamed in whole, opaque mark and all");
	is_int(cachelayer_step(1, 0, LK_DIR), MERGE_INTO,
	       "a directory over the layer's: merged into it, entry by entry");
	is_int(cachelayer_step(1, 1, LK_DIR), MERGE_REPLACE,
	       "an opaque directory over the layer's: the layer's put aside (it hid it)");
	is_int(cachelayer_step(1, 0, LK_OTHER), MERGE_REPLACE,
	       "a directory over the layer's file: the file put aside");
}

#if defined(__linux__)
static void test_options(void)
{
	char out[4096];
	is_int(cachemount_options("/home/u/.npm", 0, out, sizeof(out)), 0, "root's options");
	is_str(out,
	       "lowerdir=../../shared:/home/u/.npm,upperdir=upper,workdir=work,metacopy=off,"
	       "index=off,volatile,redirect_dir=nofollow",
	       "root: cordon's layer above the cache; no metacopy, index or redirects");
	is_int(cachemount_options("/home/u/.npm", 1, out, sizeof(out)), 0, "a user namespace");
	is_str(out,
	       "lowerdir=../../shared:/home/u/.npm,upperdir=upper,workdir=work,metacopy=off,"
	       "index=off,volatile,userxattr",
	       "a user namespace: userxattr (which means no redirects)");
	is_int(cachemount_options("/c/a,upperdir=/x:/y\\z", 1, out, sizeof(out)), 0,
	       "a cache with , : and \\");
	is_str(out,
	       "lowerdir=../../shared:/c/a\\,upperdir=/x\\:/y\\\\z,upperdir=upper,workdir=work,"
	       "metacopy=off,index=off,volatile,userxattr",
	       "',', ':' and '\\' are escaped: no option or layer of the path's own");
	char small[40];
	is_int(cachemount_options("/home/u/.npm", 1, small, sizeof(small)), -1,
	       "options that do not fit: refused, never cut");
	static char longpath[4200];
	longpath[0] = '/';
	memset(longpath + 1, 'a', sizeof(longpath) - 2);
	is_int(cachemount_options(longpath, 0, out, sizeof(out)), -1,
	       "a cache longer than a page of options: refused");
}

/* ---- a merge on disk ---- */

static char top[64];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	FILE *f = fopen(p, "w");
	if (f == NULL)
		abort();
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (mkdir(p, 0755) != 0)
		abort();
}

static const char *get(const char *rel)
{
	static char buf[64];
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	FILE *f = fopen(p, "r");
	if (f == NULL)
		return "(none)";
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static int exists(const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	return lstat(p, &st) == 0;
}

static int open_dir(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	return open(p, O_RDONLY | O_DIRECTORY);
}

static void test_merge(void)
{
	snprintf(top, sizeof(top), "/tmp/cordon-test-cachelayer.XXXXXX");
	if (mkdtemp(top) == NULL)
		abort();
	/* The layer as earlier runs left it. */
	dir("shared");
	dir("shared/keep");
	put("shared/keep/old", "old");
	dir("shared/gone");
	put("shared/gone/x", "x");
	dir("shared/into");
	put("shared/into/a", "a0");
	put("shared/file", "f0");
	dir("shared/ro");
	/* A run's upper dir: new entries, a changed file, a replaced and an
	 * opaque directory, a symlink, a read-only directory (Go's modules). */
	dir("up");
	put("up/new", "n");
	dir("up/newdir");
	put("up/newdir/deep", "d");
	dir("up/into");
	put("up/into/a", "a1");
	put("up/into/b", "b1");
	dir("up/gone");
	put("up/gone/y", "y");
	const char *xattr = "user.overlay.opaque";
	char p[512];
	snprintf(p, sizeof(p), "%s/up/gone", top);
	int have_xattr = setxattr(p, xattr, "y", 1, 0) == 0;
	put("up/file", "f1");
	snprintf(p, sizeof(p), "%s/up/link", top);
	if (symlink("/etc/passwd", p) != 0)
		abort();
	dir("up/ro");
	dir("up/ro/mod@v1");
	put("up/ro/mod@v1/go.mod", "m");
	snprintf(p, sizeof(p), "%s/up/ro/mod@v1", top);
	chmod(p, 0555);
	snprintf(p, sizeof(p), "%s/shared/ro", top);
	chmod(p, 0555);
	dir("runs");

	int up = open_dir("up"), sh = open_dir("shared"), tr = open_dir("runs");
	struct merge_count n = { 0, 0 };
	is_int(cachelayer_merge(up, sh, tr, xattr, &n), 0, "the merge");
	is_str(get("shared/new"), "n", "a new file is in the layer");
	is_str(get("shared/newdir/deep"), "d", "a new directory, whole");
	is_str(get("shared/into/a"), "a1", "a changed file in a directory both have: the run's");
	is_str(get("shared/into/b"), "b1", "... a new one beside it");
	is_str(get("shared/keep/old"), "old", "what the run did not touch stays");
	is_str(get("shared/file"), "f1", "a file replaced");
	struct stat st;
	snprintf(p, sizeof(p), "%s/shared/link", top);
	ok(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "a symlink is moved as a symlink");
	if (have_xattr) {
		ok(!exists("shared/gone/x") && strcmp(get("shared/gone/y"), "y") == 0,
		   "an opaque directory replaces the layer's (its old entry gone)");
		char v[4];
		snprintf(p, sizeof(p), "%s/shared/gone", top);
		ok(getxattr(p, xattr, v, sizeof(v)) == 1 && v[0] == 'y',
		   "... and keeps its opaque mark (it hides the user's cache's too)");
	} else {
		skip("no user xattrs in /tmp: the opaque directory's case");
		skip("no user xattrs in /tmp");
	}
	is_str(get("shared/ro/mod@v1/go.mod"), "m",
	       "a read-only directory moved into a read-only one (Go's module cache)");
	snprintf(p, sizeof(p), "%s/shared/ro/mod@v1", top);
	ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0555, "... its mode kept (0555)");
	snprintf(p, sizeof(p), "%s/shared/ro", top);
	ok(stat(p, &st) == 0 && (st.st_mode & 07777) == 0755,
	   "... the directory it went into takes the run's mode");
	is_int((int)n.dropped, 0, "nothing dropped");
	ok(n.moved >= 7, "entries moved: %lu", n.moved);
	close(up);
	close(sh);
	close(tr);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx %s; rm -rf %s", top, top);
	if (system(cmd) != 0)
		diag("could not remove %s", top);
}
#endif

int main(void)
{
	test_name();
	test_steps();
#if defined(__linux__)
	test_options();
	test_merge();
#endif
	return done_testing();
}
