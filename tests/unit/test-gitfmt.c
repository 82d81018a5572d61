/* Unit tests for git's formats as the git guard reads them (src/gitguard/gitfmt.c). */
#include "gitfmt.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wt_inside(void *ctx, const char *value)
{
	(void)ctx;
	return strcmp(value, "../../../sub") == 0;
}

static int check(const char *text)
{
	return gitfmt_config_check(text, strlen(text), wt_inside, NULL);
}

/* The first entry of a config text, into ctx (64 bytes). */
static int first_entry(void *ctx, const char *entry, int safe)
{
	(void)safe;
	char *out = ctx;
	if (out[0] == '\0')
		snprintf(out, 64, "%s", entry);
	return 0;
}

static void test_config(void)
{
	/* What git init, clone and submodule write. */
	is_int(check("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
		     "\tbare = false\n\tlogallrefupdates = true\n"),
	       GITFMT_SAFE, "config: git init's file is safe");
	is_int(check("[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../sub\n"
		     "[remote \"origin\"]\n\turl = /tmp/up\n"
		     "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
		     "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"),
	       GITFMT_SAFE, "config: a submodule clone's file is safe");
	is_int(check("# comment\n; comment\n[user]\n\tname = \"A \\\"B\\\" C\" # trailing\n"),
	       GITFMT_SAFE, "config: comments, quotes and escapes");
	is_int(check("[Core]\n\tRepositoryFormatVersion = 0\n"), GITFMT_SAFE,
	       "config: section and key names are case-insensitive");
	is_int(check("[core] bare = false\n"), GITFMT_SAFE, "config: a key after ] on one line");
	is_int(check("[submodule \"x\"]\n\tactive\n"), GITFMT_SAFE, "config: a bare boolean");
	is_int(check(""), GITFMT_SAFE, "config: empty");
	/* A UTF-8 byte order mark: git skips one at the start only. */
	is_int(check("\xef\xbb\xbf[core]\n\tbare = false\n"), GITFMT_SAFE,
	       "config: a byte order mark at the start is skipped");
	is_int(check("\xef\xbb\xbf[core]\n\tfsmonitor = touch /tmp/x\n"), GITFMT_UNSAFE,
	       "config: ... and what follows it is judged");
	is_int(check("[core]\n\xef\xbb\xbf\tbare = false\n"), GITFMT_UNSAFE,
	       "config: a byte order mark elsewhere is not git's syntax");
	{
		static const char gm[] = "\xef\xbb\xbf[submodule \"m\"]\n\tpath = lib/m\n";
		char got[64] = "";
		is_int(gitfmt_config_entries(gm, sizeof(gm) - 1, first_entry, got, NULL, NULL),
		       GITFMT_SAFE, "entries: a .gitmodules with a byte order mark is read");
		is_str(got, "submodule.m.path=lib/m", "entries: ... its path entry seen");
	}

	/* What runs a program, or reads another file. */
	static const char *const unsafe[] = {
		"[core]\n\tfsmonitor = touch /tmp/x\n",
		"[core]\n\thooksPath = /tmp/evil\n",
		"[core]\n\tpager = sh -c x\n",
		"[core]\n\tsshCommand = x\n",
		"[alias]\n\tst = !x\n",
		"[filter \"lfs\"]\n\tclean = x\n",
		"[diff \"x\"]\n\tcommand = x\n",
		"[credential]\n\thelper = !x\n",
		"[include]\n\tpath = ../evil\n",
		"[includeIf \"gitdir:/\"]\n\tpath = ../evil\n",
		"[remote \"o\"]\n\turl = ext::sh -c x\n",
		"[remote \"o\"]\n\tuploadpack = x\n",
		"[submodule \"x\"]\n\tupdate = !sh -c x\n",
		"[core]\n\tworktree = /elsewhere\n",
		"[core.x]\n\tfsmonitor = y\n",
		"[user]\n\tname = a\n\\\n\tfsmonitor = x\n",
	};
	for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
		is_int(check(unsafe[i]), GITFMT_UNSAFE, "config: unsafe %zu", i);
	/* git drops a CR before the LF: so does the reader (a core.worktree
	 * value ending in CR would name another directory for git). */
	is_int(check("[core]\r\n\tworktree = ../../../sub\r\n"), GITFMT_SAFE,
	       "config: CRLF lines read as git reads them");
	is_int(check("[core]\n\tworktree = \"../../../sub\r\"\n"), GITFMT_UNSAFE,
	       "config: a quoted CR stays in the value");
	/* A continuation hides nothing: the next line is part of the value. */
	is_int(check("[user]\n\tname = a \\\n fsmonitor = x\n"), GITFMT_SAFE,
	       "config: a continued value stays a value");
	/* Syntax this reader does not follow is unsafe. */
	static const char *const odd[] = {
		"key = outside a section\n",
		"[core\n\tbare = false\n",
		"[core]\n\t= value\n",
		"[core]\n\tbare = \"open quote\n",
		"[core]\n\tbare = \\q\n",
		"[ \"x\"]\n",
		"[remote \"o]\n",
	};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		is_int(check(odd[i]), GITFMT_UNSAFE, "config: malformed %zu", i);
	/* A value longer than the reader keeps is not judged safe. */
	size_t n = 9000;
	char *big = malloc(n + 32);
	if (big == NULL)
		abort();
	strcpy(big, "[user]\n\tname = ");
	memset(big + strlen(big), 'a', n);
	strcpy(big + strlen("[user]\n\tname = ") + n, "\n");
	is_int(check(big), GITFMT_UNSAFE, "config: an overlong value");
	free(big);
}

struct seen {
	char dirs[16][64];
	int n;
};

static int record(void *ctx, const char *dir, int kind)
{
	struct seen *s = ctx;
	if (s->n < 16)
		snprintf(s->dirs[s->n++], sizeof(s->dirs[0]), "%s%s", dir,
			 kind == GITFMT_GITLINK	     ? "@"
			 : kind == GITFMT_SPARSE_DIR ? "/..."
						     : "");
	return 0;
}

/* An index of the given version holding paths (sorted), SHA-1; a path
 * ending in "@" is a submodule (gitlink), written without the "@". */
static size_t make_index(unsigned char *buf, int version, const char *const *given, int n)
{
	char names[16][64];
	const char *paths[16];
	int link[16];
	for (int i = 0; i < n && i < 16; i++) {
		size_t k = strlen(given[i]);
		link[i] = k > 0 && given[i][k - 1] == '@';
		snprintf(names[i], sizeof(names[i]), "%.*s", (int)(k - (size_t)link[i]), given[i]);
		paths[i] = names[i];
	}
	size_t off = 12;
	const char *prev = "";
	memcpy(buf, "DIRC", 4);
	buf[4] = buf[5] = buf[6] = 0;
	buf[7] = (unsigned char)version;
	buf[8] = buf[9] = buf[10] = 0;
	buf[11] = (unsigned char)n;
	for (int i = 0; i < n; i++) {
		size_t start = off, len = strlen(paths[i]);
		memset(buf + off, 0, 62);
		buf[off + 24] = 0x00; /* mode 0100644 or 0160000, big-endian */
		buf[off + 25] = 0x00;
		buf[off + 26] = link[i] ? 0xe0 : 0x81;
		buf[off + 27] = link[i] ? 0x00 : 0xa4;
		buf[off + 60] = (unsigned char)(len >> 8);
		buf[off + 61] = (unsigned char)len;
		off += 62;
		if (version == 4) {
			size_t common = 0;
			while (prev[common] && prev[common] == paths[i][common])
				common++;
			buf[off++] = (unsigned char)(strlen(prev) - common); /* < 128 here */
			memcpy(buf + off, paths[i] + common, len - common + 1);
			off += len - common + 1;
		} else {
			memcpy(buf + off, paths[i], len);
			off += len;
			size_t total = ((off - start) + 8) & ~(size_t)7;
			memset(buf + off, 0, start + total - off);
			off = start + total;
		}
		prev = paths[i];
	}
	return off;
}

static void test_index(void)
{
	static const char *const paths[] = { "a.txt", "lib/x.c", "lib/y/z.c", "lib/yy.c",
					     "src/m.c" };
	unsigned char buf[2048];
	for (int v = 2; v <= 4; v++) {
		size_t len = make_index(buf, v, paths, 5);
		struct seen s = { .n = 0 };
		int r = gitfmt_index_dirs(buf, len, 20, record, &s);
		is_int(r, 0, "index v%d: parsed", v);
		is_int(s.n, 3, "index v%d: three directories", v);
		is_str(s.n > 0 ? s.dirs[0] : "", "lib", "index v%d: lib", v);
		is_str(s.n > 1 ? s.dirs[1] : "", "lib/y", "index v%d: lib/y", v);
		is_str(s.n > 2 ? s.dirs[2] : "", "src", "index v%d: src", v);
		/* Every cut of the file is refused or read without overrun. */
		int bad = 0;
		for (size_t cut = 0; cut < len; cut++) {
			struct seen t = { .n = 0 };
			unsigned char *copy = malloc(cut ? cut : 1);
			if (copy == NULL)
				abort();
			memcpy(copy, buf, cut);
			if (gitfmt_index_dirs(copy, cut, 20, record, &t) == 0 && cut < len &&
			    t.n > 3)
				bad = 1;
			free(copy);
		}
		is_int(bad, 0, "index v%d: truncated copies are handled", v);
	}
	/* A split index: its entries live in another file. */
	{
		size_t len = make_index(buf, 2, paths, 5);
		memcpy(buf + len, "link", 4);
		memset(buf + len + 4, 0, 4 + 20 + 20);
		buf[len + 7] = 20; /* the extension's size: a shared index id */
		struct seen t = { .n = 0 };
		is_int(gitfmt_index_dirs(buf, len + 8 + 20 + 20, 20, record, &t),
		       GITFMT_INDEX_PARTIAL, "index: a split index is reported partial");
	}
	/* A submodule: its directory reported as one. */
	{
		static const char *const with_sub[] = { "a.txt", "vendor/lib@", "vendor/x.c" };
		size_t len = make_index(buf, 2, with_sub, 3);
		struct seen t = { .n = 0 };
		is_int(gitfmt_index_dirs(buf, len, 20, record, &t), 0,
		       "index: with a submodule: parsed");
		is_int(t.n, 2, "index: ... two directories reported");
		is_str(t.n > 0 ? t.dirs[0] : "", "vendor", "index: ... vendor");
		is_str(t.n > 1 ? t.dirs[1] : "", "vendor/lib@",
		       "index: ... and the submodule's own");
	}
	/* A sparse index's directory entry: reported as one, whatever is
	 * below it (not listed); in version 4 the next path is compressed
	 * against it, trailing "/" and all. */
	for (int v = 2; v <= 4; v += 2) {
		static const char *const sparse[] = { "a.txt", "docs/deep/", "docs/x.c",
						      "src/m.c" };
		size_t len = make_index(buf, v, sparse, 4);
		struct seen t = { .n = 0 };
		is_int(gitfmt_index_dirs(buf, len, 20, record, &t), 0,
		       "index v%d: with a sparse directory entry: parsed", v);
		is_int(t.n, 3, "index v%d: ... three reported", v);
		is_str(t.n > 0 ? t.dirs[0] : "", "docs", "index v%d: ... docs", v);
		is_str(t.n > 1 ? t.dirs[1] : "", "docs/deep/...", "index v%d: ... the sparse entry",
		       v);
		is_str(t.n > 2 ? t.dirs[2] : "", "src", "index v%d: ... src", v);
	}
	memcpy(buf, "DIRX", 4);
	struct seen s = { .n = 0 };
	is_int(gitfmt_index_dirs(buf, 100, 20, record, &s), -1, "index: bad signature refused");
	is_int(gitfmt_index_dirs(buf, 100, 21, record, &s), -1, "index: bad hash length refused");
}

int main(void)
{
	test_config();
	test_index();
	return done_testing();
}
