/*
 * The tracked directories of a working tree (see gitdirs.h).
 *
 * An index of 100,000 entries is about 9 MB; reading it whole costs more
 * than a run. It is read in pieces through a buffer of 64 KiB, and the
 * list of directories it gives (one entry per directory, ~10x smaller)
 * is kept in the state dir, named after the index's path and stamped
 * with the index's identity: inode, size, modification and change times
 * and its trailing hash. Git writes the index through a new file renamed
 * into place (a new inode, a new hash), and a write in place changes the
 * change time, which no one can set back; a stamp that matches means
 * the same index. The state dir is the user's and no confined command
 * may write it; a copy that does not decode whole is ignored.
 */
#include "gitdirs.h"
#include "agentcfg.h"
#include "gitfmt.h"
#include "base.h"
#include "compat.h"
#include "fsutil.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_BUF ((size_t)64 * 1024)
#define CACHE_MAX ((size_t)256 << 20) /* a larger copy is not read */
static const char magic[16] = "cordon-gitdirs3\n"; /* 3: GD_HELD */

void gitdirs_free(struct gitdirs *d)
{
	free(d->buf);
	free(d->at);
	memset(d, 0, sizeof(*d));
}

static int reserve(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return -1;
		c *= 2;
	}
	void *n = realloc(*p, c * size);
	if (n == NULL)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}

int gitdirs_add(struct gitdirs *d, const char *path, unsigned flags)
{
	size_t n = strlen(path);
	if (reserve((void **)&d->buf, &d->cap, d->len + n + 2, 1) != 0 ||
	    reserve((void **)&d->at, &d->capn, d->n + 1, sizeof(size_t)) != 0)
		return -1;
	d->at[d->n++] = d->len;
	d->buf[d->len] = (char)flags;
	memcpy(d->buf + d->len + 1, path, n + 1);
	d->len += n + 2;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a + 1, *(const char *const *)b + 1);
}

int gitdirs_sort(struct gitdirs *d)
{
	if (d->n == 0)
		return 0;
	char **recs = malloc(d->n * sizeof(*recs));
	char *buf = malloc(d->len);
	if (recs == NULL || buf == NULL) {
		free(recs);
		free(buf);
		return -1;
	}
	for (size_t i = 0; i < d->n; i++)
		recs[i] = d->buf + d->at[i];
	qsort(recs, d->n, sizeof(*recs), by_path);
	size_t len = 0, n = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (n > 0 && strcmp(buf + d->at[n - 1] + 1, recs[i] + 1) == 0) {
			buf[d->at[n - 1]] = (char)(buf[d->at[n - 1]] | recs[i][0]);
			continue;
		}
		size_t k = strlen(recs[i] + 1) + 2;
		memcpy(buf + len, recs[i], k);
		d->at[n++] = len;
		len += k;
	}
	free(recs);
	free(d->buf);
	d->buf = buf;
	d->cap = d->len;
	d->len = len;
	d->n = n;
	return 0;
}

int gitdirs_merge(struct gitdirs *d, const struct gitdirs *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (gitdirs_add(d, gitdirs_path(src, i), gitdirs_flags(src, i)) != 0)
			return -1;
	return gitdirs_sort(d);
}

/* ---- reading an index ---- */

static int collect(void *ctx, const char *dir, int kind)
{
	unsigned flags = kind == GITFMT_GITLINK	     ? GD_DIR | GD_GITLINK
			 : kind == GITFMT_SPARSE_DIR ? GD_SPARSE
			 : kind == GITFMT_HEAD_FILE  ? GD_HEAD
			 : kind == GITFMT_LEAF_NAMED ? GD_HELD
						     : GD_DIR;
	return gitdirs_add(ctx, dir, flags) == 0 ? 0 : GITFMT_UNSAFE + 1;
}

/* Feed the index on fd (size bytes) with one hash length. The walk's
 * end: 0, GITFMT_INDEX_PARTIAL (*ix says where the link extension
 * starts), -1 malformed or unreadable, or the callback's out of memory. */
static int feed_all(int fd, uint64_t size, size_t hashlen, unsigned char *buf,
		    struct gitfmt_index *ix, struct gitdirs *d)
{
	size_t have = 0;
	uint64_t at = 0;
	gitfmt_index_start(ix, hashlen, size);
	ix->leaf_names = agentcfg_names;
	ix->nleaf = agentcfg_nnames;
	for (;;) {
		size_t want = READ_BUF - have;
		if ((uint64_t)want > size - at)
			want = (size_t)(size - at);
		ssize_t got = want > 0 ? pread(fd, buf + have, want, (off_t)at) : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || (got == 0 && want > 0))
			return -1; /* shorter than it said */
		have += (size_t)got;
		at += (uint64_t)got;
		size_t used = 0;
		int r = gitfmt_index_feed(ix, buf, have, &used, collect, d);
		if (r != 0)
			return r;
		if (ix->stage == GITFMT_INDEX_DONE)
			return 0;
		if (at == size && used == 0)
			return -1;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
}

static int read_one(int fd, const char *gitdir, struct gitdirs *d, int shared);

/* A split index: its entries live in the shared index the link
 * extension names (sharedindex.HEX below the git dir), and its own
 * entries replace or add to them. Both lists are taken whole: a
 * directory of either is looked at (a deleted entry's too: looking at
 * more is never less safe). */
static int read_shared(int fd, const struct gitfmt_index *ix, const char *gitdir, struct gitdirs *d)
{
	unsigned char link[8 + 32];
	char name[sizeof("sharedindex.") + 64], path[CORDON_PATH_MAX];
	size_t want = 8 + ix->hashlen;
	if (gitdir == NULL || pread(fd, link, want, (off_t)ix->off) != (ssize_t)want)
		return -1;
	int k = snprintf(name, sizeof(name), "sharedindex.");
	for (size_t i = 0; i < ix->hashlen; i++)
		k += snprintf(name + k, sizeof(name) - (size_t)k, "%02x", link[8 + i]);
	if (path_join(path, sizeof(path), gitdir, name) != 0)
		return -1;
	int sfd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (sfd < 0)
		return -1;
	int r = read_one(sfd, NULL, d, 1);
	close(sfd);
	return r;
}

static int read_one(int fd, const char *gitdir, struct gitdirs *d, int shared)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	unsigned char *buf = malloc(READ_BUF);
	struct gitfmt_index *ix = malloc(sizeof(*ix));
	int r = -1;
	if (buf != NULL && ix != NULL) {
		size_t before = d->n, len = d->len;
		r = feed_all(fd, (uint64_t)st.st_size, 20, buf, ix, d);
		if (r == -1) {
			/* Not SHA-1 throughout: a SHA-256 repository's. */
			d->n = before;
			d->len = len;
			r = feed_all(fd, (uint64_t)st.st_size, 32, buf, ix, d);
		}
		if (r == GITFMT_INDEX_PARTIAL && !shared)
			r = read_shared(fd, ix, gitdir, d);
		else if (r != 0)
			r = -1;
	}
	free(ix);
	free(buf);
	return r == 0 ? 0 : -1;
}

int gitdirs_read_index(int fd, const char *gitdir, struct gitdirs *d)
{
	if (read_one(fd, gitdir, d, 0) != 0)
		return -1;
	return gitdirs_sort(d);
}

int gitdirs_key_of(int fd, struct gitdirs_key *k)
{
	struct stat st;
	memset(k, 0, sizeof(*k));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = (uint64_t)st.st_size;
#if defined(__APPLE__)
	k->mtime_s = st.st_mtimespec.tv_sec;
	k->mtime_ns = st.st_mtimespec.tv_nsec;
	k->ctime_s = st.st_ctimespec.tv_sec;
	k->ctime_ns = st.st_ctimespec.tv_nsec;
#else
	k->mtime_s = st.st_mtim.tv_sec;
	k->mtime_ns = st.st_mtim.tv_nsec;
	k->ctime_s = st.st_ctim.tv_sec;
	k->ctime_ns = st.st_ctim.tv_nsec;
#endif
	size_t n = st.st_size < 32 ? (size_t)st.st_size : 32;
	if (n > 0 && pread(fd, k->trailer, n, (off_t)(st.st_size - (off_t)n)) != (ssize_t)n)
		return -1;
	return 0;
}

/* ---- the copy in the state dir ---- */

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}
#define FNV_START 0xcbf29ce484222325ULL

/* The copy's checksum: FNV-1a's steps over 8 bytes at a time (the byte
 * form took a millisecond for the 767 KB of 50,000 directories). */
static uint64_t sum64(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = FNV_START;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return fnv(s + i, n - i, h);
}

int gitdirs_cache_path(const char *state, const char *index, char *out, size_t outlen)
{
	int n = snprintf(out, outlen, "%s/git/%016llx", state,
			 (unsigned long long)fnv(index, strlen(index), FNV_START));
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

static void put64(char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (char)(v >> (8 * i));
}

static uint64_t get64(const char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)(unsigned char)p[i] << (8 * i);
	return v;
}

/* The key as bytes, the same on every run of this machine. */
#define KEY_BYTES (7 * 8 + 32)
static void key_bytes(const struct gitdirs_key *k, char *out)
{
	put64(out, k->dev);
	put64(out + 8, k->ino);
	put64(out + 16, k->size);
	put64(out + 24, (uint64_t)k->mtime_s);
	put64(out + 32, (uint64_t)k->mtime_ns);
	put64(out + 40, (uint64_t)k->ctime_s);
	put64(out + 48, (uint64_t)k->ctime_ns);
	memcpy(out + 56, k->trailer, 32);
}

/* magic, key, count, records' length, records, checksum */
#define HEAD_BYTES (sizeof(magic) + KEY_BYTES + 16)

int gitdirs_encode(const struct gitdirs_key *k, const struct gitdirs *d, char **out, size_t *outlen)
{
	size_t total = HEAD_BYTES + d->len + 8;
	char *b = malloc(total);
	if (b == NULL)
		return -1;
	memcpy(b, magic, sizeof(magic));
	key_bytes(k, b + sizeof(magic));
	put64(b + sizeof(magic) + KEY_BYTES, d->n);
	put64(b + sizeof(magic) + KEY_BYTES + 8, d->len);
	size_t off = HEAD_BYTES;
	for (size_t i = 0; i < d->n; i++) {
		size_t k2 = strlen(d->buf + d->at[i] + 1) + 2;
		memcpy(b + off, d->buf + d->at[i], k2);
		off += k2;
	}
	put64(b + off, sum64(b, off));
	*out = b;
	*outlen = off + 8;
	return 0;
}

/* The length of the record's path at p (before end): a clean relative
 * path (no empty, "." or ".." component) ending in a NUL before end, in
 * one pass; or 0. */
static size_t record_path(const char *p, const char *end)
{
	const char *comp = p;
	for (const char *q = p; q < end; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		size_t k = (size_t)(q - comp);
		if (k == 0 || (k == 1 && comp[0] == '.') ||
		    (k == 2 && comp[0] == '.' && comp[1] == '.'))
			return 0;
		if (*q == '\0')
			return (size_t)(q - p);
		comp = q + 1;
	}
	return 0;
}

int gitdirs_decode(const char *buf, size_t len, const struct gitdirs_key *k, struct gitdirs *d)
{
	char want[KEY_BYTES];
	if (len < HEAD_BYTES + 8 || memcmp(buf, magic, sizeof(magic)) != 0)
		return -1;
	key_bytes(k, want);
	if (memcmp(buf + sizeof(magic), want, KEY_BYTES) != 0)
		return -1;
	uint64_t n = get64(buf + sizeof(magic) + KEY_BYTES);
	uint64_t bytes = get64(buf + sizeof(magic) + KEY_BYTES + 8);
	if (bytes != len - HEAD_BYTES - 8 || get64(buf + len - 8) != sum64(buf, len - 8))
		return -1;
	const char *p = buf + HEAD_BYTES, *end = buf + len - 8;
	/* Each record takes at least 3 bytes: room for all, once; the
	 * records are copied whole, then checked and indexed in one pass. */
	if (n > bytes / 3 || reserve((void **)&d->buf, &d->cap, d->len + (size_t)bytes, 1) != 0 ||
	    reserve((void **)&d->at, &d->capn, d->n + (size_t)n, sizeof(size_t)) != 0)
		return -1;
	size_t before = d->n, blen = d->len;
	if (bytes > 0) /* an empty list has no buffer yet */
		memcpy(d->buf + d->len, p, (size_t)bytes);
	const char *prev = NULL;
	size_t off = 0;
	for (uint64_t i = 0; i < n; i++) {
		const char *r = p + off;
		size_t plen = end - r >= 3 ? record_path(r + 1, end) : 0;
		/* Each path as the index reader gives it, in order, once. */
		if (plen == 0 || r[0] == 0 || (r[0] & ~0xf) != 0 ||
		    (prev != NULL && strcmp(prev, r + 1) >= 0)) {
			d->n = before;
			d->len = blen;
			return -1;
		}
		d->at[d->n++] = blen + off;
		prev = r + 1;
		off += plen + 2;
	}
	if (p + off != end) {
		d->n = before;
		d->len = blen;
		return -1;
	}
	d->len = blen + (size_t)bytes;
	return 0;
}

int gitdirs_cache_load(const char *path, const struct gitdirs_key *k, struct gitdirs *d)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	char *buf = NULL;
	int r = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= CACHE_MAX &&
	    (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		size_t got = 0;
		while (got < (size_t)st.st_size) {
			ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got == (size_t)st.st_size)
			r = gitdirs_decode(buf, got, k, d);
	}
	free(buf);
	close(fd);
	return r;
}

int gitdirs_cache_save(const char *path, const struct gitdirs_key *k, const struct gitdirs *d)
{
	char dir[CORDON_PATH_MAX], tmp[CORDON_PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (slash == NULL || (size_t)(slash - path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	char *bytes = NULL;
	size_t len = 0;
	unsigned tag = 0;
	(void)random_bytes(&tag, sizeof(tag));
	if (snprintf(tmp, sizeof(tmp), "%s.%ld.%08x", path, (long)getpid(), tag) >=
		    (int)sizeof(tmp) ||
	    gitdirs_encode(k, d, &bytes, &len) != 0)
		return -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int ok = fd >= 0;
	for (size_t off = 0; ok && off < len;) {
		ssize_t w = write(fd, bytes + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		off += ok ? (size_t)w : 0;
	}
	if (fd >= 0 && close(fd) != 0)
		ok = 0;
	free(bytes);
	if (!ok || rename(tmp, path) != 0) {
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}
