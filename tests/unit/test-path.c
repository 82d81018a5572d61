/* Unit tests for the pure path helpers (src/util/path.c). */
#include "path.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* Normalise into a buffer of outlen bytes; the result, or NULL on -1. */
static const char *norm(const char *cwd, const char *in, size_t outlen)
{
	static char out[8192];
	if (outlen > sizeof(out))
		abort();
	if (path_normalize(cwd, in, out, outlen) != 0)
		return NULL;
	return out;
}

static void test_within(void)
{
	is_int(path_within("/a", "/a"), 1, "within: a path is within itself");
	is_int(path_within("/a", "/a/b"), 1, "within: child");
	is_int(path_within("/a", "/a/b/c"), 1, "within: grandchild");
	is_int(path_within("/a", "/ab"), 0, "within: /ab is not beneath /a");
	is_int(path_within("/a/b", "/a/bc/d"), 0, "within: sibling with a prefix name");
	is_int(path_within("/a", "/"), 0, "within: parent is not within child");
	is_int(path_within("/a/b", "/a"), 0, "within: ancestor is not within");
	is_int(path_within("/a", "/b"), 0, "within: unrelated");
	is_int(path_within("/a", "/b/a"), 0, "within: same name deeper elsewhere");
	is_int(path_within("/", "/"), 1, "within: root within root");
	is_int(path_within("/", "/x"), 1, "within: anything under root");
	is_int(path_within("/", "/x/y/z"), 1, "within: deep under root");
	is_int(path_within("/home/u", "/home/u/.cache"), 1, "within: dot-named child");
	is_int(path_within("/home/u", "/home/u.bak"), 0, "within: name extended by '.'");
	is_int(path_within("/home/u", "/home/u-old/x"), 0, "within: name extended by '-'");
	is_int(path_within("/a/b/c", "/a/b"), 0, "within: shorter path");
}

static void test_normalize_absolute(void)
{
	is_str(norm(NULL, "/", 4096), "/", "norm: root");
	is_str(norm(NULL, "//", 4096), "/", "norm: // is root");
	is_str(norm(NULL, "///", 4096), "/", "norm: /// is root");
	is_str(norm(NULL, "/a/b", 4096), "/a/b", "norm: already normal");
	is_str(norm(NULL, "//a//b//", 4096), "/a/b", "norm: doubled slashes collapse");
	is_str(norm(NULL, "/a/b/", 4096), "/a/b", "norm: trailing slash dropped");
	is_str(norm(NULL, "/a/b///", 4096), "/a/b", "norm: trailing slashes dropped");
	is_str(norm(NULL, "/./a/./b/.", 4096), "/a/b", "norm: '.' components dropped");
	is_str(norm(NULL, "/a/./", 4096), "/a", "norm: trailing '/./'");
	is_str(norm(NULL, "/a/b/..", 4096), "/a", "norm: trailing '..'");
	is_str(norm(NULL, "/a/b/../c", 4096), "/a/c", "norm: inner '..'");
	is_str(norm(NULL, "/a/../..", 4096), "/", "norm: '..' stops at root");
	is_str(norm(NULL, "/..", 4096), "/", "norm: /.. is root");
	is_str(norm(NULL, "/../../x", 4096), "/x", "norm: leading '..' at root");
	is_str(norm(NULL, "/a/b/c/../../d", 4096), "/a/d", "norm: two '..'");
	is_str(norm(NULL, "/...", 4096), "/...", "norm: '...' is a name");
	is_str(norm(NULL, "/a/..b/.c", 4096), "/a/..b/.c", "norm: dot-prefixed names kept");
	is_str(norm(NULL, "/a/b../c.", 4096), "/a/b../c.", "norm: dot-suffixed names kept");
	is_str(norm("/ignored", "/x", 4096), "/x", "norm: cwd ignored for absolute input");
	is_str(norm("relative", "/x", 4096), "/x", "norm: bad cwd ignored for absolute input");
}

static void test_normalize_relative(void)
{
	is_str(norm("/home/u", "proj", 4096), "/home/u/proj", "rel: joined to cwd");
	is_str(norm("/home/u", "./proj/", 4096), "/home/u/proj", "rel: ./ and trailing /");
	is_str(norm("/home/u", "..", 4096), "/home", "rel: .. of cwd");
	is_str(norm("/home/u", "../..", 4096), "/", "rel: up to root");
	is_str(norm("/home/u", "../../../..", 4096), "/", "rel: beyond root");
	is_str(norm("/home/u", "../v/w", 4096), "/home/v/w", "rel: sideways");
	is_str(norm("/home/u", ".", 4096), "/home/u", "rel: '.' is cwd");
	is_str(norm("/home/u", "", 4096), "/home/u", "rel: empty is cwd");
	is_str(norm("/", "a", 4096), "/a", "rel: cwd is root");
	is_str(norm("/", "..", 4096), "/", "rel: .. from root");
	is_str(norm("/", "", 4096), "/", "rel: empty from root");
	is_str(norm("//x//y/", "z", 4096), "/x/y/z", "rel: cwd normalised too");
	is_str(norm("/x/./y/..", "z", 4096), "/x/z", "rel: cwd dots resolved");
	ok(norm(NULL, "a", 4096) == NULL, "rel: NULL cwd fails");
	ok(norm("", "a", 4096) == NULL, "rel: empty cwd fails");
	ok(norm("home/u", "a", 4096) == NULL, "rel: relative cwd fails");
}

static void test_normalize_length(void)
{
	char big[5000];

	ok(norm(NULL, "/", 1) == NULL, "len: outlen 1 fails");
	ok(norm(NULL, "/", 0) == NULL, "len: outlen 0 fails");
	is_str(norm(NULL, "/", 2), "/", "len: root fits in 2");
	is_str(norm(NULL, "/abc", 5), "/abc", "len: exact fit (4 chars + NUL)");
	ok(norm(NULL, "/abcd", 5) == NULL, "len: one byte too long");
	ok(norm(NULL, "/ab/cd", 6) == NULL, "len: second component too long");
	is_str(norm(NULL, "/ab/cd", 7), "/ab/cd", "len: second component exact fit");
	is_str(norm(NULL, "//a//b//", 5), "/a/b", "len: slashes do not count");
	is_str(norm("/abc", "d", 7), "/abc/d", "len: relative exact fit");
	ok(norm("/abc", "de", 7) == NULL, "len: relative one too long");
	ok(norm("/abcdefgh", "x", 6) == NULL, "len: cwd itself too long");

	/* A path longer than the buffer, whether the overflow is a long
	 * name or many short components. */
	big[0] = '/';
	memset(big + 1, 'n', sizeof(big) - 2);
	big[sizeof(big) - 1] = '\0';
	ok(norm(NULL, big, 4096) == NULL, "len: 4999-byte name in 4096 fails");
	for (size_t i = 0; i + 1 < sizeof(big); i += 2) {
		big[i] = '/';
		big[i + 1] = 'x';
	}
	big[sizeof(big) - 1] = '\0';
	ok(norm(NULL, big, 4096) == NULL, "len: 2500 components in 4096 fails");
	const char *r = norm(NULL, big, 8192);
	ok(r != NULL && strlen(r) == 4998, "len: same path fits in 8192");
}

static void test_is_broad(void)
{
	const char *const homes[] = { "/home/alice", "/root" };
	const char *const none[] = { NULL, "" };
	const char *const relhome[] = { "home/alice" };

	is_int(path_is_broad("/", NULL, 0), 1, "broad: / with no homes");
	is_int(path_is_broad("/", homes, 2), 1, "broad: /");
	is_int(path_is_broad("/home/alice", homes, 2), 1, "broad: the home itself");
	is_int(path_is_broad("/home", homes, 2), 1, "broad: parent of a home");
	is_int(path_is_broad("/root", homes, 2), 1, "broad: second home");
	is_int(path_is_broad("/home/alice/proj", homes, 2), 0, "broad: inside home is fine");
	is_int(path_is_broad("/home/al", homes, 2), 0, "broad: prefix-named sibling");
	is_int(path_is_broad("/home/alice2", homes, 2), 0, "broad: extended-name sibling");
	is_int(path_is_broad("/hom", homes, 2), 0, "broad: prefix of an ancestor");
	is_int(path_is_broad("/ro", homes, 2), 0, "broad: prefix of /root");
	is_int(path_is_broad("/home/bob", homes, 2), 0, "broad: other user's home");
	is_int(path_is_broad("/tmp", homes, 2), 0, "broad: unrelated");
	is_int(path_is_broad("/home", homes, 1), 1, "broad: nhomes limits the list (1)");
	is_int(path_is_broad("/root", homes, 1), 0, "broad: nhomes limits the list (2)");
	is_int(path_is_broad("/home", none, 2), 0, "broad: NULL and empty homes ignored");
	is_int(path_is_broad("/", none, 2), 1, "broad: / even with ignored homes");
	is_int(path_is_broad("/home", relhome, 1), 0, "broad: relative home ignored");
}

static void test_join(void)
{
	char out[8];
	is_int(path_join(out, sizeof(out), "/a", "b"), 0, "join: fits");
	is_str(out, "/a/b", "join: one slash between");
	is_int(path_join(out, sizeof(out), "/", "tmp"), 0, "join: under /");
	is_str(out, "/tmp", "join: / and a name: no double slash");
	is_int(path_join(out, sizeof(out), "/a", ""), 0, "join: empty name");
	is_str(out, "/a", "join: empty name leaves a");
	is_int(path_join(out, sizeof(out), "/ab", "cde"), 0, "join: exactly the room");
	is_str(out, "/ab/cde", "join: 8 bytes with its NUL");
	is_int(path_join(out, sizeof(out), "/ab", "cdef"), -1, "join: one byte too long fails");
}

int main(void)
{
	test_join();
	test_within();
	test_normalize_absolute();
	test_normalize_relative();
	test_normalize_length();
	test_is_broad();
	return done_testing();
}
