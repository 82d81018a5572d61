/*
 * Two of git's file formats, read just far enough for the git guard
 * (gitguard.c): a config file's keys, judged against the keys git
 * itself writes when it makes a repository, a clone, a submodule or a
 * worktree; and the index's paths, for the directories git tracks.
 * Pure: buffers in, answers out; unit-tested and fuzzed.
 *
 * Config syntax (git-config(1) "CONFIGURATION FILE"): "[section]",
 * "[section \"subsection\"]", the older "[section.subsection]", then
 * "name = value" or a bare "name" (true). Values may be quoted, hold
 * escapes, and continue on the next line after a backslash; "#" and ";"
 * start comments outside quotes. Anything this reader does not follow is
 * judged unsafe: a planted file gains nothing from odd syntax.
 */
#include "gitfmt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- config ---- */

struct key {
	const char *section; /* lower case */
	const char *name; /* lower case */
	int sub; /* 1: a subsection (any), 0: none */
	enum git_value check;
};

/* What git writes itself: init, clone, submodule init/update/add,
 * worktree add, remote add, branch --set-upstream, config of identity.
 * Nothing here names a program to run or a file to read. */
static const struct key safe_keys[] = {
	{ "core", "repositoryformatversion", 0, GV_ANY },
	{ "core", "filemode", 0, GV_ANY },
	{ "core", "bare", 0, GV_ANY },
	{ "core", "logallrefupdates", 0, GV_ANY },
	{ "core", "ignorecase", 0, GV_ANY },
	{ "core", "precomposeunicode", 0, GV_ANY },
	{ "core", "symlinks", 0, GV_ANY },
	{ "core", "autocrlf", 0, GV_ANY },
	{ "core", "eol", 0, GV_ANY },
	{ "core", "worktree", 0, GV_WORKTREE },
	{ "extensions", "objectformat", 0, GV_ANY },
	{ "extensions", "refstorage", 0, GV_ANY },
	{ "extensions", "worktreeconfig", 0, GV_ANY },
	{ "extensions", "partialclone", 0, GV_ANY },
	{ "remote", "url", 1, GV_URL },
	{ "remote", "pushurl", 1, GV_URL },
	{ "remote", "fetch", 1, GV_ANY },
	{ "remote", "push", 1, GV_ANY },
	{ "remote", "tagopt", 1, GV_ANY },
	{ "remote", "mirror", 1, GV_ANY },
	{ "remote", "promisor", 1, GV_ANY },
	{ "remote", "partialclonefilter", 1, GV_ANY },
	{ "branch", "remote", 1, GV_ANY },
	{ "branch", "merge", 1, GV_ANY },
	{ "branch", "rebase", 1, GV_ANY },
	{ "branch", "pushremote", 1, GV_ANY },
	{ "submodule", "url", 1, GV_URL },
	{ "submodule", "active", 1, GV_ANY },
	{ "submodule", "branch", 1, GV_ANY },
	{ "submodule", "update", 1, GV_UPDATE },
	{ "submodule", "active", 0, GV_ANY },
	{ "user", "name", 0, GV_ANY },
	{ "user", "email", 0, GV_ANY },
	{ "init", "defaultbranch", 0, GV_ANY },
	{ "pull", "rebase", 0, GV_ANY },
	{ "gc", "auto", 0, GV_ANY },
	{ "maintenance", "auto", 0, GV_ANY },
};

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch;
}

static int is_alpha(int ch)
{
	ch = lower(ch);
	return ch >= 'a' && ch <= 'z';
}

static int is_alnum(int ch)
{
	return is_alpha(ch) || (ch >= '0' && ch <= '9');
}

static int eq_lower(const char *a, size_t n, const char *b)
{
	size_t i = 0;
	for (; i < n && b[i] != '\0'; i++)
		if (lower((unsigned char)a[i]) != b[i])
			return 0;
	return i == n && b[i] == '\0';
}

static int value_ok(enum git_value check, const char *v, size_t n)
{
	switch (check) {
	case GV_ANY:
	case GV_WORKTREE: /* the caller checks where it leads */
		return 1;
	case GV_URL:
		/* ext:: runs a command, fd:: talks to fds: never from a file
		 * a run wrote. */
		return !(n >= 5 && memcmp(v, "ext::", 5) == 0) &&
		       !(n >= 4 && memcmp(v, "fd::", 4) == 0);
	case GV_UPDATE:
		return (n == 8 && memcmp(v, "checkout", 8) == 0) ||
		       (n == 6 && memcmp(v, "rebase", 6) == 0) ||
		       (n == 5 && memcmp(v, "merge", 5) == 0) ||
		       (n == 4 && memcmp(v, "none", 4) == 0);
	}
	return 0;
}

/* The value at *p (after '='), unquoted and unescaped into out (at most
 * outlen-1 bytes kept, *outn its length, -1 when it did not fit), up to
 * the end of its line; continuations followed. 0, or -1 when malformed. */
static int read_value(const char **p, const char *end, char *out, size_t outlen, long *outn)
{
	const char *s = *p;
	int quoted = 0;
	size_t k = 0, trail = 0; /* trail: length without unquoted trailing blanks */
	int overflow = 0;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	for (; s < end; s++) {
		char ch = *s;
		if (ch == '\r' && s + 1 < end && s[1] == '\n' && !quoted)
			continue; /* git drops a CR before the LF */
		if (ch == '\n' && !quoted)
			break;
		if (ch == '\n' || ch == '\0')
			return -1; /* newline inside quotes, NUL: not git's syntax */
		if (!quoted && (ch == '#' || ch == ';')) {
			while (s < end && *s != '\n')
				s++;
			break;
		}
		if (ch == '"') {
			quoted = !quoted;
			continue;
		}
		if (ch == '\\') {
			if (++s >= end)
				return -1;
			if (*s == '\n')
				continue; /* continuation */
			if (*s == 'n')
				ch = '\n';
			else if (*s == 't')
				ch = '\t';
			else if (*s == 'b')
				ch = '\b';
			else if (*s == '\\' || *s == '"')
				ch = *s;
			else
				return -1;
		} else if (!quoted && (ch == ' ' || ch == '\t')) {
			if (k + 1 < outlen)
				out[k] = ch;
			else
				overflow = 1;
			k++;
			continue;
		}
		if (k + 1 < outlen)
			out[k] = ch;
		else
			overflow = 1;
		k++;
		trail = k;
	}
	if (quoted)
		return -1;
	*p = s;
	if (trail < outlen)
		out[trail] = '\0';
	*outn = overflow ? -1 : (long)trail;
	return 0;
}

/* Is key (section, has a subsection, name) with this value one git
 * writes itself? */
static int safe_entry(const char *sec, size_t secn, int has_sub, const char *name, size_t namen,
		      const char *value, long vn, gitfmt_worktree_fn worktree_ok, void *wctx)
{
	for (size_t i = 0; i < sizeof(safe_keys) / sizeof(safe_keys[0]); i++) {
		const struct key *k = &safe_keys[i];
		if (!eq_lower(sec, secn, k->section) || !eq_lower(name, namen, k->name) ||
		    k->sub != has_sub)
			continue;
		if (vn < 0 || !value_ok(k->check, value, (size_t)vn))
			return 0;
		if (k->check == GV_WORKTREE && (worktree_ok == NULL || !worktree_ok(wctx, value)))
			return 0;
		return 1;
	}
	return 0;
}

/* "section.sub.name=value" (section and name in lower case) into out. */
static int entry_text(char *out, size_t outlen, const char *sec, size_t secn, const char *sub,
		      size_t subn, const char *name, size_t namen, const char *value, long vn)
{
	size_t need = secn + 1 + (subn ? subn + 1 : 0) + namen + 1 + (vn > 0 ? (size_t)vn : 0) + 1;
	if (vn < 0 || need > outlen)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < secn; i++)
		out[k++] = (char)lower((unsigned char)sec[i]);
	out[k++] = '.';
	if (subn) {
		memcpy(out + k, sub, subn);
		k += subn;
		out[k++] = '.';
	}
	for (size_t i = 0; i < namen; i++)
		out[k++] = (char)lower((unsigned char)name[i]);
	out[k++] = '=';
	memcpy(out + k, value, (size_t)vn);
	k += (size_t)vn;
	out[k] = '\0';
	return 0;
}

/* A config text being read: the callbacks, and the section of the keys
 * that follow (sec NULL before the first header). */
struct cfg_read {
	gitfmt_entry_fn each;
	void *ctx;
	gitfmt_worktree_fn worktree_ok;
	void *wctx;
	const char *sec;
	size_t secn, subn;
	int has_sub;
	char sub[1024]; /* lower case in the older form, else as quoted */
};

/* A section header at *pp ("["), up to its "]": "[section]",
 * "[section \"sub\"]" or the older "[section.sub]". GITFMT_SAFE, or
 * GITFMT_UNSAFE when malformed. */
static int read_section(const char **pp, const char *end, struct cfg_read *rd)
{
	const char *p = *pp + 1, *sec = p;
	while (p < end && (is_alnum((unsigned char)*p) || *p == '-' || *p == '.'))
		p++;
	size_t secn = (size_t)(p - sec), subn = 0;
	if (secn == 0)
		return GITFMT_UNSAFE;
	const char *dot = memchr(sec, '.', secn);
	int has_sub = dot != NULL;
	if (dot != NULL) { /* [section.sub], the older form */
		subn = secn - (size_t)(dot - sec) - 1;
		if (subn == 0 || subn >= sizeof(rd->sub))
			return GITFMT_UNSAFE;
		for (size_t i = 0; i < subn; i++)
			rd->sub[i] = (char)lower((unsigned char)dot[1 + i]);
		secn = (size_t)(dot - sec);
	}
	if (p < end && (*p == ' ' || *p == '\t')) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end || *p != '"' || has_sub)
			return GITFMT_UNSAFE;
		for (p++; p < end && *p != '"'; p++) {
			if (*p == '\n' || *p == '\0')
				return GITFMT_UNSAFE;
			if (*p == '\\' && ++p >= end)
				return GITFMT_UNSAFE;
			if (subn + 1 >= sizeof(rd->sub))
				return GITFMT_UNSAFE;
			rd->sub[subn++] = *p;
		}
		if (p >= end)
			return GITFMT_UNSAFE;
		p++;
		has_sub = 1;
	}
	if (p >= end || *p != ']')
		return GITFMT_UNSAFE;
	rd->sec = sec;
	rd->secn = secn;
	rd->subn = subn;
	rd->has_sub = has_sub;
	*pp = p + 1;
	return GITFMT_SAFE;
}

/* A key at *pp, "name [= value]" to the end of its line, judged and
 * given to the callback. GITFMT_SAFE to go on, GITFMT_UNSAFE when
 * malformed, or the callback's stop value. */
static int read_key(const char **pp, const char *end, const struct cfg_read *rd)
{
	const char *p = *pp;
	char value[4096], text[4096 + 1024 + 256];
	if (rd->sec == NULL || !is_alpha((unsigned char)*p))
		return GITFMT_UNSAFE;
	const char *name = p;
	while (p < end && (is_alnum((unsigned char)*p) || *p == '-'))
		p++;
	size_t namen = (size_t)(p - name);
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	long vn = 0;
	value[0] = '\0';
	if (p < end && *p == '=') {
		p++;
		if (read_value(&p, end, value, sizeof(value), &vn) != 0)
			return GITFMT_UNSAFE;
	} else if (p < end && *p != '\n' && *p != '#' && *p != ';') {
		return GITFMT_UNSAFE;
	} else {
		while (p < end && *p != '\n')
			p++;
	}
	*pp = p;
	int safe = safe_entry(rd->sec, rd->secn, rd->has_sub, name, namen, value, vn,
			      rd->worktree_ok, rd->wctx);
	if (entry_text(text, sizeof(text), rd->sec, rd->secn, rd->sub, rd->subn, name, namen, value,
		       vn) != 0)
		return GITFMT_UNSAFE;
	return rd->each(rd->ctx, text, safe);
}

int gitfmt_config_entries(const char *buf, size_t len, gitfmt_entry_fn each, void *ctx,
			  gitfmt_worktree_fn worktree_ok, void *wctx)
{
	const char *p = buf, *end = buf + len;
	struct cfg_read rd;
	rd.each = each;
	rd.ctx = ctx;
	rd.worktree_ok = worktree_ok;
	rd.wctx = wctx;
	rd.sec = NULL;
	rd.secn = rd.subn = 0;
	rd.has_sub = 0;

	/* A UTF-8 byte order mark at the start: git skips it. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p >= end)
			break;
		if (*p == '#' || *p == ';') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		/* After a header, a key may follow on the same line. */
		int r = *p == '[' ? read_section(&p, end, &rd) : read_key(&p, end, &rd);
		if (r != GITFMT_SAFE)
			return r;
	}
	return GITFMT_SAFE;
}

static int only_safe(void *ctx, const char *entry, int safe)
{
	(void)ctx;
	(void)entry;
	return safe ? 0 : GITFMT_UNSAFE;
}

int gitfmt_config_check(const char *buf, size_t len, gitfmt_worktree_fn worktree_ok, void *ctx)
{
	return gitfmt_config_entries(buf, len, only_safe, NULL, worktree_ok, ctx);
}

/* ---- index ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A path git itself would put in an index: relative, no empty, "." or
 * ".." component (a sparse index's directory entry ends with "/"). */
static int verified(const char *p, size_t n)
{
	if (n == 0 || p[0] == '/')
		return 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && p[j] != '/')
			j++;
		size_t k = j - i;
		if (k == 0 || (k == 1 && p[i] == '.') || (k == 2 && p[i] == '.' && p[i + 1] == '.'))
			return 0;
		i = j + 1;
		if (j + 1 == n)
			break; /* the trailing "/" of a directory entry */
	}
	return 1;
}

void gitfmt_index_start(struct gitfmt_index *ix, size_t hashlen, uint64_t total)
{
	memset(ix, 0, sizeof(*ix));
	ix->hashlen = hashlen;
	ix->total = total;
}

/* A version 4 entry's path at buf + *off: a varint's worth stripped
 * from the previous path, then the rest up to a NUL. Into path (*pn its
 * length), *off past it. 0, -1 malformed, 1 when avail does not hold it
 * whole. */
static int path_v4(const struct gitfmt_index *ix, const unsigned char *buf, size_t avail,
		   size_t *off, char *path, size_t *pn)
{
	size_t strip = 0, o = *off;
	unsigned char ch;
	int guard = 0;
	do {
		if (o >= avail)
			return 1;
		if (++guard > 9)
			return -1;
		ch = buf[o++];
		strip = (strip << 7) | (ch & 0x7f);
		if (ch & 0x80)
			strip++;
	} while (ch & 0x80);
	if (strip > ix->prevn)
		return -1;
	const unsigned char *nul = memchr(buf + o, '\0', avail - o);
	if (nul == NULL)
		return avail - o >= GITFMT_PATH_MAX ? -1 : 1;
	size_t add = (size_t)(nul - (buf + o));
	*pn = ix->prevn - strip + add;
	if (*pn >= GITFMT_PATH_MAX)
		return -1;
	memcpy(path, ix->prev, ix->prevn - strip);
	memcpy(path + ix->prevn - strip, buf + o, add);
	*off = o + add + 1;
	return 0;
}

/* An entry's path before version 4 at buf + *off, up to a NUL; the
 * entry padded with 1-8 NULs to a multiple of 8. Into path (*pn its
 * length), *off past the padding. 0, -1 malformed, 1 when avail does not
 * hold it whole. */
static int path_padded(const unsigned char *buf, size_t avail, size_t *off, char *path, size_t *pn)
{
	const unsigned char *nul = memchr(buf + *off, '\0', avail - *off);
	if (nul == NULL)
		return avail - *off >= GITFMT_PATH_MAX ? -1 : 1;
	*pn = (size_t)(nul - (buf + *off));
	if (*pn >= GITFMT_PATH_MAX)
		return -1;
	memcpy(path, buf + *off, *pn);
	size_t total = *off + *pn + 1;
	total = (total + 7) & ~(size_t)7;
	if (total > avail)
		return 1;
	*off = total;
	return 0;
}

/* path, cut at its byte at (restored after), given to each as a
 * directory of this kind: 0, or the stop value to return. */
static int report(char *path, size_t at, int kind, gitfmt_dir_fn each, void *ctx)
{
	char was = path[at];
	path[at] = '\0';
	int r = each(ctx, path, kind);
	path[at] = was;
	if (r != 0)
		return r == 1 || r == -1 ? GITFMT_INDEX_STOPPED : r;
	return 0;
}

/* The directories of path (pn bytes, verified) reported: those the
 * previous path did not have (the index is sorted: a directory's
 * entries are together), then a sparse index's directory entry (which
 * stands for everything below it, not listed) or a submodule's own
 * directory, then the directory of a tracked HEAD or commondir below the
 * top (it may be a git dir of its own already: a bare repository kept as
 * a test fixture). 0, or the stop value to return. */
static int report_dirs(const struct gitfmt_index *ix, char *path, size_t pn, uint32_t mode,
		       gitfmt_dir_fn each, void *ctx)
{
	int sparse = path[pn - 1] == '/';
	size_t dn = sparse ? pn - 1 : pn; /* the path without that "/" */
	size_t common = 0;
	int r;
	for (size_t j = 0; j < pn && j < ix->prevn && path[j] == ix->prev[j]; j++)
		if (path[j] == '/')
			common = j + 1;
	for (size_t j = common; j < dn; j++)
		if (path[j] == '/' && (r = report(path, j, 0, each, ctx)) != 0)
			return r;
	if ((sparse || (mode & 0170000) == 0160000) &&
	    (r = report(path, dn, sparse ? GITFMT_SPARSE_DIR : GITFMT_GITLINK, each, ctx)) != 0)
		return r;
	const char *base = strrchr(path, '/');
	if (!sparse && base != NULL &&
	    (strcmp(base + 1, "HEAD") == 0 || strcmp(base + 1, "commondir") == 0) &&
	    (r = report(path, (size_t)(base - path), GITFMT_HEAD_FILE, each, ctx)) != 0)
		return r;
	for (size_t k = 0; !sparse && base != NULL && k < ix->nleaf; k++)
		if (strcmp(base + 1, ix->leaf_names[k]) == 0)
			return report(path, (size_t)(base - path), GITFMT_LEAF_NAMED, each, ctx);
	return 0;
}

/* One entry at buf (avail bytes): its directories reported. The entry's
 * length into *n; 0, -1 malformed, 1 when avail does not hold it whole,
 * or the callback's stop value (> 1 or negative other than -1 are the
 * callback's, passed on as they are). */
static int index_entry(struct gitfmt_index *ix, const unsigned char *buf, size_t avail, size_t *n,
		       gitfmt_dir_fn each, void *ctx)
{
	char path[GITFMT_PATH_MAX];
	size_t fixed = 40 + ix->hashlen + 2, off = fixed, pn = 0;
	if (avail < fixed)
		return 1;
	uint32_t mode = be32(buf + 24);
	unsigned flags = (unsigned)buf[40 + ix->hashlen] << 8 | buf[41 + ix->hashlen];
	if ((flags & 0x4000) != 0) {
		if (ix->version < 3)
			return -1;
		if (avail < off + 2)
			return 1;
		off += 2;
	}
	int r = ix->version == 4 ? path_v4(ix, buf, avail, &off, path, &pn)
				 : path_padded(buf, avail, &off, path, &pn);
	if (r != 0)
		return r;
	*n = off;
	path[pn] = '\0';
	if (pn == 0) {
		/* A split index's entry that replaces one of its shared
		 * index: the path is the shared entry's (valid only there). */
		ix->unnamed = 1;
		return 0;
	}
	if (!verified(path, pn))
		return -1;
	if ((r = report_dirs(ix, path, pn, mode, each, ctx)) != 0)
		return r;
	memcpy(ix->prev, path, pn + 1);
	ix->prevn = pn;
	return 0;
}

/* The header ("DIRC", version, count) at buf: 0 with *off past it, or
 * with nothing taken when buf does not hold it yet; -1 malformed. */
static int index_header(struct gitfmt_index *ix, const unsigned char *buf, size_t len, int last,
			size_t *off)
{
	if (len < 12)
		return last ? -1 : 0;
	if (memcmp(buf, "DIRC", 4) != 0)
		return -1;
	ix->version = be32(buf + 4);
	ix->count = be32(buf + 8);
	if (ix->version < 2 || ix->version > 4)
		return -1;
	*off = 12;
	ix->stage = GITFMT_INDEX_ENTRIES;
	return 0;
}

/* The entries buf holds whole from *off on (*off moves past them), as
 * index_entry; 0 also when the next one is still to come. */
static int index_entries(struct gitfmt_index *ix, const unsigned char *buf, size_t len, int last,
			 size_t *off, gitfmt_dir_fn each, void *ctx)
{
	while (ix->stage == GITFMT_INDEX_ENTRIES && ix->i < ix->count) {
		size_t n = 0;
		int r = index_entry(ix, buf + *off, len - *off, &n, each, ctx);
		if (r == 1) {
			/* An entry is at most GITFMT_ENTRY_MAX bytes. */
			if (last || len - *off >= GITFMT_ENTRY_MAX)
				r = -1;
			else
				break;
		}
		if (r != 0)
			return r;
		*off += n;
		ix->i++;
	}
	if (ix->stage == GITFMT_INDEX_ENTRIES && ix->i == ix->count)
		ix->stage = GITFMT_INDEX_EXTENSIONS;
	return 0;
}

/* Extensions up to the trailing hash, from *off on: a split index
 * ("link") keeps entries in another file, which this reader does not
 * follow (GITFMT_INDEX_PARTIAL). 0, or -1 malformed. */
static int index_extensions(struct gitfmt_index *ix, const unsigned char *buf, size_t len,
			    size_t *off)
{
	while (ix->stage == GITFMT_INDEX_EXTENSIONS) {
		if (ix->skip > 0) {
			size_t k = len - *off < ix->skip ? len - *off : (size_t)ix->skip;
			*off += k;
			ix->skip -= k;
			if (ix->skip > 0)
				break;
			continue;
		}
		uint64_t left = ix->total - ix->off - *off;
		if (left < 8 + ix->hashlen) {
			ix->stage = GITFMT_INDEX_DONE;
			/* Unnamed entries outside a split index. */
			return ix->unnamed ? -1 : 0;
		}
		if (len - *off < 8)
			break;
		uint32_t size = be32(buf + *off + 4);
		if (memcmp(buf + *off, "link", 4) == 0)
			return GITFMT_INDEX_PARTIAL;
		if (size > left - 8 - ix->hashlen)
			return -1;
		*off += 8;
		ix->skip = size;
	}
	return 0;
}

int gitfmt_index_feed(struct gitfmt_index *ix, const unsigned char *buf, size_t len, size_t *used,
		      gitfmt_dir_fn each, void *ctx)
{
	size_t off = 0;
	int r = 0;
	/* Every byte still to come is in buf: a unit that does not fit is
	 * a truncated file. */
	int last = ix->total - ix->off <= len;
	if (ix->hashlen != 20 && ix->hashlen != 32)
		r = -1;
	else if (ix->stage == GITFMT_INDEX_HEADER)
		r = index_header(ix, buf, len, last, &off);
	if (r == 0)
		r = index_entries(ix, buf, len, last, &off, each, ctx);
	if (r == 0)
		r = index_extensions(ix, buf, len, &off);
	ix->off += off;
	*used = off;
	return r;
}

int gitfmt_index_dirs(const unsigned char *buf, size_t len, size_t hashlen, gitfmt_dir_fn each,
		      void *ctx)
{
	struct gitfmt_index *ix = malloc(sizeof(*ix));
	size_t used = 0;
	if (ix == NULL)
		return -1;
	gitfmt_index_start(ix, hashlen, len);
	int r = gitfmt_index_feed(ix, buf, len, &used, each, ctx);
	if (r == 0 && ix->stage != GITFMT_INDEX_DONE)
		r = -1;
	free(ix);
	return r;
}
