/*
 * The git guard's lists of tracked directories (src/gitguard/gitdirs.c): sorting
 * and merging, the copy kept in the state dir (its bytes, and that any
 * damage or another index's stamp is refused), and reading an index in
 * pieces (src/gitguard/gitfmt.c's gitfmt_index_feed) the same as whole.
 */
#include "gitdirs.h"
#include "gitfmt.h"
#include "tap.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_sort(void)
{
	struct gitdirs d = { 0 };
	static const char *const in[] = { "src/x", "a-b", "src", "a", "a/b", "src" };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		gitdirs_add(&d, in[i], i == 5 ? GD_HEAD : GD_DIR);
	is_int(gitdirs_sort(&d), 0, "sort");
	is_int(d.n, 5, "a repeat is merged");
	static const char *const want[] = { "a", "a-b", "a/b", "src", "src/x" };
	int same = d.n == 5;
	for (size_t i = 0; same && i < 5; i++)
		same = strcmp(gitdirs_path(&d, i), want[i]) == 0;
	ok(same, "sorted by bytes: a directory before what is below it");
	is_int(gitdirs_flags(&d, 3), GD_DIR | GD_HEAD, "the repeat's flags are joined");
	struct gitdirs e = { 0 };
	gitdirs_add(&e, "b", GD_GITLINK | GD_DIR);
	gitdirs_add(&e, "a", GD_DIR);
	is_int(gitdirs_merge(&d, &e), 0, "merge");
	is_int(d.n, 6, "merge: the new one added, the repeat merged");
	is_str(gitdirs_path(&d, 3), "b", "merge: in its place");
	gitdirs_free(&e);
	gitdirs_free(&d);
}

static void test_copy(void)
{
	struct gitdirs d = { 0 }, out = { 0 };
	struct gitdirs_key k, other;
	memset(&k, 0, sizeof(k));
	k.dev = 8;
	k.ino = 1234;
	k.size = 99;
	k.ctime_s = 1700000000;
	memcpy(k.trailer, "0123456789abcdef0123456789abcdef", 32);
	gitdirs_add(&d, "lib", GD_DIR);
	gitdirs_add(&d, "lib/sub", GD_DIR | GD_GITLINK);
	gitdirs_add(&d, "t/fixture", GD_HEAD);
	gitdirs_sort(&d);
	char *buf = NULL;
	size_t len = 0;
	is_int(gitdirs_encode(&k, &d, &buf, &len), 0, "encode");
	is_int(gitdirs_decode(buf, len, &k, &out), 0, "decode: the same stamp");
	is_int(out.n, 3, "decode: every directory");
	is_str(out.n == 3 ? gitdirs_path(&out, 1) : "", "lib/sub", "decode: paths");
	is_int(out.n == 3 ? gitdirs_flags(&out, 1) : 0, GD_DIR | GD_GITLINK, "decode: flags");
	gitdirs_free(&out);
	other = k;
	other.ctime_ns = 1;
	is_int(gitdirs_decode(buf, len, &other, &out), -1, "another index's stamp: refused");
	/* Any byte changed, or any cut, is refused (the checksum). */
	int bad = 0;
	for (size_t i = 0; i < len; i++) {
		buf[i] ^= 0x20;
		if (gitdirs_decode(buf, len, &k, &out) == 0)
			bad++;
		buf[i] ^= 0x20;
		gitdirs_free(&out);
	}
	for (size_t cut = 0; cut < len; cut++) {
		if (gitdirs_decode(buf, cut, &k, &out) == 0)
			bad++;
		gitdirs_free(&out);
	}
	is_int(bad, 0, "every damaged or cut copy is refused");
	free(buf);
	/* What the index reader never gives is refused, even checksummed. */
	static const char *const wrong[] = { "../up", "a/../b", "/abs", "a//b", "a/", ".", "b\0" };
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		struct gitdirs w = { 0 };
		gitdirs_add(&w, wrong[i], GD_DIR);
		gitdirs_encode(&k, &w, &buf, &len);
		is_int(gitdirs_decode(buf, len, &k, &out), i == 6 ? 0 : -1, "a copy holding '%s'",
		       wrong[i]);
		gitdirs_free(&out);
		gitdirs_free(&w);
		free(buf);
	}
	struct gitdirs u = { 0 };
	gitdirs_add(&u, "b", GD_DIR);
	gitdirs_add(&u, "a", GD_DIR); /* not sorted */
	gitdirs_encode(&k, &u, &buf, &len);
	is_int(gitdirs_decode(buf, len, &k, &out), -1, "a copy out of order is refused");
	free(buf);
	gitdirs_free(&u);
	/* Through the file system. */
	char dir[] = "/tmp/cordon-gitdirs.XXXXXX", path[256];
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
	} else {
		is_int(gitdirs_cache_path(dir, "/r/.git/index", path, sizeof(path)), 0,
		       "cache path");
		ok(strncmp(path, dir, strlen(dir)) == 0 && strstr(path, "/git/") != NULL,
		   "... below STATE/git/");
		is_int(gitdirs_cache_save(path, &k, &d), 0, "save (its directory made)");
		is_int(gitdirs_cache_load(path, &k, &out), 0, "load");
		is_int(out.n, 3, "... every directory");
		gitdirs_free(&out);
		is_int(gitdirs_cache_load(path, &other, &out), -1,
		       "load for another index: refused");
		unlink(path);
		char up[300];
		snprintf(up, sizeof(up), "%s/git", dir);
		rmdir(up);
		rmdir(dir);
	}
	gitdirs_free(&d);
}

/* An index (version 2) of the given sorted paths, SHA-1, with a
 * trailing hash of zeros; a path ending in "@" is a submodule. */
static size_t make_index(unsigned char *buf, const char *const *paths, int n)
{
	size_t off = 12;
	memcpy(buf, "DIRC\0\0\0\2\0\0\0", 11);
	buf[11] = (unsigned char)n;
	for (int i = 0; i < n; i++) {
		size_t start = off, len = strlen(paths[i]);
		int link = paths[i][len - 1] == '@';
		len -= (size_t)link;
		memset(buf + off, 0, 62);
		buf[off + 26] = link ? 0xe0 : 0x81;
		buf[off + 27] = link ? 0x00 : 0xa4;
		buf[off + 61] = (unsigned char)len;
		off += 62;
		memcpy(buf + off, paths[i], len);
		off += len;
		size_t total = ((off - start) + 8) & ~(size_t)7;
		memset(buf + off, 0, start + total - off);
		off = start + total;
	}
	memset(buf + off, 0, 20);
	return off + 20;
}

struct seen {
	char all[1024];
};

static int record(void *ctx, const char *dir, int kind)
{
	struct seen *s = ctx;
	size_t k = strlen(s->all);
	snprintf(s->all + k, sizeof(s->all) - k, "%s:%d ", dir, kind);
	return 0;
}

static void test_feed(void)
{
	static const char *const paths[] = { "HEAD",	  "a.txt", "fix/bare/HEAD", "lib/x.c",
					     "lib/y/z.c", "mod@",  "src/m.c" };
	unsigned char buf[4096];
	size_t len = make_index(buf, paths, 7);
	struct seen whole = { "" };
	is_int(gitfmt_index_dirs(buf, len, 20, record, &whole), 0, "index read whole");
	is_str(whole.all, "fix:0 fix/bare:0 fix/bare:3 lib:0 lib/y:0 mod:1 src:0 ",
	       "... its directories, a submodule, and a tracked HEAD below the top");
	/* Fed a few bytes at a time, as a file is read in pieces. */
	for (size_t piece = 1; piece <= 64; piece *= 2) {
		struct gitfmt_index ix;
		struct seen s = { "" };
		unsigned char window[4096];
		size_t have = 0, at = 0;
		int r = 0;
		gitfmt_index_start(&ix, 20, len);
		while (r == 0 && ix.stage != GITFMT_INDEX_DONE) {
			size_t k = at + piece <= len ? piece : len - at;
			memcpy(window + have, buf + at, k);
			have += k;
			at += k;
			size_t used = 0;
			r = gitfmt_index_feed(&ix, window, have, &used, record, &s);
			memmove(window, window + used, have - used);
			have -= used;
			if (k == 0 && used == 0 && ix.stage != GITFMT_INDEX_DONE)
				r = -1;
		}
		is_int(r, 0, "fed %zu bytes at a time: read", piece);
		is_str(s.all, whole.all, "fed %zu bytes at a time: the same directories", piece);
	}
}

/* An index on disk, read through a file descriptor. */
static void test_read_fd(void)
{
	static const char *const paths[] = { "a/b/c.txt", "d/e.txt" };
	unsigned char buf[1024];
	size_t len = make_index(buf, paths, 2);
	char path[] = "/tmp/cordon-index.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		ok(0, "a temp index");
		return;
	}
	struct gitdirs d = { 0 };
	is_int(gitdirs_read_index(fd, "/nonexistent", &d), 0, "read an index from its fd");
	is_int(d.n, 3, "... three directories");
	struct gitdirs_key k1, k2;
	is_int(gitdirs_key_of(fd, &k1), 0, "its stamp");
	lseek(fd, 0, SEEK_SET);
	buf[len - 1] = 1; /* another trailing hash */
	(void)!write(fd, buf, len);
	gitdirs_key_of(fd, &k2);
	ok(memcmp(&k1, &k2, sizeof(k1)) != 0, "a rewritten index has another stamp");
	gitdirs_free(&d);
	/* Unnamed entries belong to a split index only. */
	memset(buf, 0, sizeof(buf));
	static const char *const none[] = { "x" };
	len = make_index(buf, none, 1);
	buf[12 + 61] = 0; /* the name's length */
	buf[12 + 62] = 0;
	lseek(fd, 0, SEEK_SET);
	(void)!ftruncate(fd, 0);
	(void)!write(fd, buf, len);
	is_int(gitdirs_read_index(fd, "/nonexistent", &d), -1,
	       "an unnamed entry outside a split index: refused");
	gitdirs_free(&d);
	close(fd);
	unlink(path);
}

int main(void)
{
	test_sort();
	test_copy();
	test_feed();
	test_read_fd();
	return done_testing();
}
