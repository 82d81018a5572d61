/*
 * --review's record: the walk of the held overlay's upper dirs that makes
 * it at the run's end (O(what the run changed): only the upper dirs are
 * read, and of the real workspace only each changed path's counterpart,
 * and the whole of a real directory the run removed), and its file.
 *
 * In an upper dir (overlayfs's own format): a 0/0 character device is a
 * whiteout (the real path was removed); a directory marked opaque
 * (trusted.overlay.opaque, or user.overlay.opaque with userxattr, "y")
 * replaced the real one (removed, then made again); any other entry is
 * the path as the run left it, whole (metacopy is off). A directory is in
 * the upper dir whenever something below it changed: it is a change of
 * its own only when its mode differs. A file copied up but left with the
 * same bytes and mode (touched, opened for writing) is no change.
 *
 * The record file: NUL-terminated fields, a header then RFIELDS per
 * change, written whole to record.tmp and renamed to record.
 */
#include "review.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/xattr.h>
#endif
#include <unistd.h>

#define RMAGIC "cordon-review 1"
#define RFIELDS 18
#define WALK_DEPTH_MAX 1024

const char *review_kind_name(char kind)
{
	switch (kind) {
	case RK_ADDED:
		return "added";
	case RK_MODIFIED:
		return "modified";
	case RK_DELETED:
		return "deleted";
	case RK_MODE:
		return "mode";
	default:
		return "symlink";
	}
}

static char type_of(mode_t m)
{
	return S_ISREG(m)    ? 'f'
	       : S_ISDIR(m)  ? 'd'
	       : S_ISLNK(m)  ? 'l'
	       : S_ISFIFO(m) ? 'p'
	       : S_ISSOCK(m) ? 's'
			     : 'o';
}

/* FNV-1a over bytes, folded into h. */
static unsigned long long fold(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

static unsigned long long fold_stat(unsigned long long h, const char *name, const struct stat *st)
{
	long long v[7] = { (long long)st->st_mode,	   (long long)st->st_size,
			   (long long)RV_MTIM(*st).tv_sec, (long long)RV_MTIM(*st).tv_nsec,
			   (long long)RV_CTIM(*st).tv_sec, (long long)RV_CTIM(*st).tv_nsec,
			   (long long)st->st_ino };
	h = fold(h, name, strlen(name) + 1);
	return fold(h, v, sizeof(v));
}

/* Every entry below the dir fd (taken), in readdir order, folded. */
static unsigned long long tree_digest(int fd, int depth)
{
	unsigned long long h = 14695981039346656037ULL;
	DIR *d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return h ^ 1;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			h = fold(h, e->d_name, strlen(e->d_name) + 1);
			continue;
		}
		h = fold_stat(h, e->d_name, &st);
		int sub = -1;
		if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH_MAX)
			sub = openat(dirfd(d), e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			unsigned long long t = tree_digest(sub, depth + 1);
			h = fold(h, &t, sizeof(t));
		}
	}
	closedir(d);
	return h;
}

void review_real_state(int dirfd, const char *name, int with_tree, struct rstate *rs)
{
	struct stat st;
	memset(rs, 0, sizeof(*rs));
	rs->type = '-';
	if (dirfd < 0 || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	rs->type = type_of(st.st_mode);
	rs->size = (long long)st.st_size;
	rs->mtime_s = (long long)RV_MTIM(st).tv_sec;
	rs->mtime_ns = (long long)RV_MTIM(st).tv_nsec;
	rs->ctime_s = (long long)RV_CTIM(st).tv_sec;
	rs->ctime_ns = (long long)RV_CTIM(st).tv_nsec;
	rs->ino = (unsigned long long)st.st_ino;
	rs->dev = (unsigned long long)st.st_dev;
	if (with_tree && rs->type == 'd') {
		int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rs->tree = fd >= 0 ? tree_digest(fd, 0) : 1;
	}
}

int review_same_state(const struct rstate *a, const struct rstate *b)
{
	if (a->type != b->type)
		return 0;
	if (a->type == '-')
		return 1;
	return a->size == b->size && a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns && a->ino == b->ino &&
	       a->dev == b->dev && a->tree == b->tree;
}

/* ---- the walk ---- */

struct walk {
	struct rrecord *rec;
	const char *slot;
	char rel[CORDON_PATH_MAX];
	int err;
};

static struct rchange *add(struct walk *w, char kind, char type, const struct stat *ust)
{
	struct rrecord *r = w->rec;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct rchange *v = realloc(r->v, cap * sizeof(*v));
		if (v == NULL) {
			w->err = ENOMEM;
			return NULL;
		}
		r->v = v;
		r->cap = cap;
	}
	struct rchange *c = &r->v[r->n];
	memset(c, 0, sizeof(*c));
	if ((c->path = strdup(w->rel)) == NULL) {
		w->err = ENOMEM;
		return NULL;
	}
	r->n++;
	c->kind = kind;
	c->type = type;
	snprintf(c->slot, sizeof(c->slot), "%s", w->slot);
	if (ust != NULL) {
		c->size = (long long)ust->st_size;
		c->mode = (unsigned)(ust->st_mode & 07777);
		c->uino = (unsigned long long)ust->st_ino;
		c->udev = (unsigned long long)ust->st_dev;
	}
	return c;
}

static int opaque(int ufd, const char *name)
{
	static const char *const names[] = { "user.overlay.opaque", "trusted.overlay.opaque" };
	char v[4];
	int fd = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int r = 0;
#if defined(__linux__)
	for (size_t i = 0; !r && i < 2; i++)
		r = fgetxattr(fd, names[i], v, sizeof(v)) == 1 && v[0] == 'y';
#else
	(void)names;
	(void)v;
#endif
	close(fd);
	return r;
}

/* The same bytes in both files. */
static int same_bytes(int ufd, int rfd, const char *name)
{
	int a = openat(ufd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int b = rfd >= 0 ? openat(rfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	int same = a >= 0 && b >= 0;
	char x[16384], y[16384];
	while (same) {
		ssize_t n = read(a, x, sizeof(x));
		ssize_t m = n > 0 ? read(b, y, (size_t)n) : read(b, y, 1);
		if (n < 0 || m != (n > 0 ? n : 0) || (n > 0 && memcmp(x, y, (size_t)n) != 0))
			same = 0;
		if (n <= 0)
			break;
	}
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return same;
}

static int same_link(int ufd, int rfd, const char *name)
{
	char x[CORDON_PATH_MAX], y[CORDON_PATH_MAX];
	ssize_t n = readlinkat(ufd, name, x, sizeof(x));
	ssize_t m = rfd >= 0 ? readlinkat(rfd, name, y, sizeof(y)) : -1;
	return n >= 0 && n == m && memcmp(x, y, (size_t)n) == 0;
}

/* The change of a non-directory entry, if any. */
static void leaf(struct walk *w, int ufd, int rfd, const char *name, const struct stat *ust)
{
	struct rstate rs;
	char t = type_of(ust->st_mode);
	if (S_ISCHR(ust->st_mode) && ust->st_rdev == 0) { /* a whiteout */
		review_real_state(rfd, name, 1, &rs);
		struct rchange *c = add(w, RK_DELETED, '-', NULL);
		if (c != NULL)
			c->real = rs;
		return;
	}
	review_real_state(rfd, name, 1, &rs);
	char kind = rs.type == '-' ? RK_ADDED : RK_MODIFIED;
	if (t == 'l') {
		if (rs.type == 'l' && same_link(ufd, rfd, name))
			return;
		kind = RK_SYMLINK;
	} else if (t == 'f' && rs.type == 'f' && rs.size == (long long)ust->st_size &&
		   same_bytes(ufd, rfd, name)) {
		struct stat real;
		if (fstatat(rfd, name, &real, AT_SYMLINK_NOFOLLOW) != 0 ||
		    (real.st_mode & 07777) == (ust->st_mode & 07777))
			return; /* times only */
		kind = RK_MODE;
	}
	struct rchange *c = add(w, kind, t, ust);
	if (c == NULL)
		return;
	c->real = rs;
	c->replaced = rs.type == 'd' || (rs.type != '-' && rs.type != t && t != 'f' && t != 'l');
	if (t == 'l') {
		char x[CORDON_PATH_MAX];
		ssize_t n = readlinkat(ufd, name, x, sizeof(x));
		c->size = n > 0 ? n : 0;
	}
}

static void walk_dir(struct walk *w, int ufd, int rfd, int depth);

/* A directory entry: its own change, then what is below it. */
static void dir_entry(struct walk *w, int ufd, int rfd, const char *name, const struct stat *ust,
		      int depth)
{
	struct rstate rs;
	int op = opaque(ufd, name);
	review_real_state(rfd, name, op, &rs);
	struct rchange *c = NULL;
	if (rs.type != 'd' || op) {
		c = add(w, RK_ADDED, 'd', ust);
		if (c != NULL)
			c->replaced = rs.type != '-';
	} else {
		struct stat real;
		if (fstatat(rfd, name, &real, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (real.st_mode & 07777) != (ust->st_mode & 07777))
			c = add(w, RK_MODE, 'd', ust);
	}
	if (c != NULL)
		c->real = rs;
	if (w->err != 0)
		return;
	int usub = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rsub = rs.type == 'd' && !op
			   ? openat(rfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			   : -1;
	if (usub < 0)
		w->err = errno;
	else
		walk_dir(w, usub, rsub, depth + 1);
	if (usub >= 0)
		close(usub);
	if (rsub >= 0)
		close(rsub);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the dir fd, sorted (caller frees), or NULL with w->err. */
static char **names_of(struct walk *w, int fd, size_t *n)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (d == NULL) {
		w->err = errno;
		if (dfd >= 0)
			close(dfd);
		return NULL;
	}
	rewinddir(d);
	struct dirent *e;
	while (w->err == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				w->err = ENOMEM;
			else
				v = nv;
		}
		if (w->err == 0 && (v[*n] = strdup(e->d_name)) == NULL)
			w->err = ENOMEM;
		else if (w->err == 0)
			(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static void walk_dir(struct walk *w, int ufd, int rfd, int depth)
{
	size_t n, len = strlen(w->rel);
	if (depth > WALK_DEPTH_MAX) {
		w->err = ELOOP;
		return;
	}
	char **names = names_of(w, ufd, &n);
	for (size_t i = 0; i < n; i++) {
		struct stat ust;
		if (w->err != 0) {
			/* stopped: the names are freed below */
		} else if (len + strlen(names[i]) + 2 > sizeof(w->rel)) {
			w->err = ENAMETOOLONG;
		} else if (fstatat(ufd, names[i], &ust, AT_SYMLINK_NOFOLLOW) != 0) {
			w->err = errno;
		} else {
			snprintf(w->rel + len, sizeof(w->rel) - len, "%s%s", len ? "/" : "",
				 names[i]);
			if (S_ISDIR(ust.st_mode))
				dir_entry(w, ufd, rfd, names[i], &ust, depth);
			else
				leaf(w, ufd, rfd, names[i], &ust);
			w->rel[len] = '\0';
		}
		free(names[i]);
	}
	free(names);
}

int review_walk(const char *dir, const char *ws, struct rrecord *rec)
{
	struct walk w = { .rec = rec };
	size_t n, nonempty = 0;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	char **slots = names_of(&w, dfd, &n);
	for (size_t i = 0; i < n; i++) {
		char up[64];
		size_t before = rec->n;
		int slot_named = slots[i][0] == 's' && strlen(slots[i]) < 16 &&
				 strspn(slots[i] + 1, "0123456789") == strlen(slots[i] + 1);
		snprintf(up, sizeof(up), "%.15s/upper", slots[i]);
		int ufd = slot_named && w.err == 0
				  ? openat(dfd, up, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				  : -1;
		int rfd = ufd >= 0 ? open(ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (ufd >= 0) {
			w.slot = slots[i];
			w.rel[0] = '\0';
			walk_dir(&w, ufd, rfd, 0);
			close(ufd);
		}
		if (rfd >= 0)
			close(rfd);
		nonempty += rec->n > before;
		free(slots[i]);
	}
	free(slots);
	close(dfd);
	rec->split = nonempty > 1;
	if (w.err != 0)
		errno = w.err;
	return w.err != 0 ? -1 : 0;
}

int review_parent_fd(int root_fd, const char *rel, const char **leaf)
{
	int d = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	const char *s = rel;
	for (;;) {
		const char *slash = strchr(s, '/');
		if (d < 0 || slash == NULL)
			break;
		char comp[256];
		size_t n = (size_t)(slash - s);
		if (n == 0 || n >= sizeof(comp)) {
			close(d);
			errno = n == 0 ? EINVAL : ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		int nd = openat(d, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(d);
		if (nd < 0) {
			errno = e;
			return -1;
		}
		d = nd;
		s = slash + 1;
	}
	*leaf = s;
	return d;
}

/* ---- the file ---- */

static int put_field(FILE *f, const char *s)
{
	return fputs(s, f) < 0 || fputc('\0', f) == EOF ? -1 : 0;
}

static int put_num(FILE *f, long long v)
{
	char b[32];
	snprintf(b, sizeof(b), "%lld", v);
	return put_field(f, b);
}

static int put_change(FILE *f, const struct rchange *c)
{
	char k[2] = { c->kind, 0 }, t[2] = { c->type, 0 }, rt[2] = { c->real.type, 0 };
	long long nums[] = { c->replaced,
			     c->size,
			     (long long)c->mode,
			     (long long)c->uino,
			     (long long)c->udev,
			     c->real.size,
			     c->real.mtime_s,
			     c->real.mtime_ns,
			     c->real.ctime_s,
			     c->real.ctime_ns,
			     (long long)c->real.ino,
			     (long long)c->real.dev,
			     (long long)c->real.tree };
	int r = put_field(f, c->path) | put_field(f, k) | put_field(f, t) | put_field(f, c->slot) |
		put_field(f, rt);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		r |= put_num(f, nums[i]);
	return r;
}

int review_record_write(const char *dir, const struct rrecord *rec)
{
	char tmp[CORDON_PATH_MAX], fin[CORDON_PATH_MAX];
	if (path_join(tmp, sizeof(tmp), dir, "record.tmp") != 0 ||
	    path_join(fin, sizeof(fin), dir, "record") != 0)
		return -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int r = put_field(f, RMAGIC) | put_field(f, rec->workspace) |
		put_field(f, rec->cwd != NULL ? rec->cwd : "\x01") | put_num(f, rec->ended) |
		put_num(f, rec->split) | put_num(f, (long long)rec->protect.n);
	for (size_t i = 0; i < rec->protect.n; i++)
		r |= put_field(f, rec->protect.v[i]);
	r |= put_num(f, (long long)rec->n);
	for (size_t i = 0; i < rec->n; i++)
		r |= put_change(f, &rec->v[i]);
	r |= fflush(f) != 0 || fsync(fileno(f)) != 0;
	r |= fclose(f) != 0;
	if (r != 0 || rename(tmp, fin) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The file's fields: pointers into buf (split on NUL). */
static char **split_fields(char *buf, size_t len, size_t *n)
{
	size_t k = 0;
	for (size_t i = 0; i < len; i++)
		k += buf[i] == '\0';
	char **v = calloc(k + 1, sizeof(*v));
	if (v == NULL)
		return NULL;
	*n = 0;
	for (size_t i = 0, start = 0; i < len; i++)
		if (buf[i] == '\0') {
			v[(*n)++] = buf + start;
			start = i + 1;
		}
	return v;
}

static int get_change(char **f, struct rchange *c)
{
	long long nums[13];
	for (int i = 0; i < 13; i++) {
		char *end;
		nums[i] = strtoll(f[5 + i], &end, 10);
		if (*end != '\0')
			return -1;
	}
	if (strlen(f[1]) != 1 || strlen(f[2]) != 1 || strlen(f[4]) != 1 ||
	    strlen(f[3]) >= sizeof(c->slot) || (c->path = strdup(f[0])) == NULL)
		return -1;
	c->kind = f[1][0];
	c->type = f[2][0];
	if (strchr("amdpl", c->kind) == NULL || strchr("fdlpso-", c->type) == NULL ||
	    strchr("fdlpso-", f[4][0]) == NULL || c->path[0] == '\0' || c->path[0] == '/')
		return -1;
	snprintf(c->slot, sizeof(c->slot), "%s", f[3]);
	c->real.type = f[4][0];
	c->replaced = (int)nums[0];
	c->size = nums[1];
	c->mode = (unsigned)nums[2];
	c->uino = (unsigned long long)nums[3];
	c->udev = (unsigned long long)nums[4];
	c->real.size = nums[5];
	c->real.mtime_s = nums[6];
	c->real.mtime_ns = nums[7];
	c->real.ctime_s = nums[8];
	c->real.ctime_ns = nums[9];
	c->real.ino = (unsigned long long)nums[10];
	c->real.dev = (unsigned long long)nums[11];
	c->real.tree = (unsigned long long)nums[12];
	return 0;
}

/* The header: magic, workspace, cwd ("\1": none), end, split, the
 * protected paths (a count, then each), the number of changes. */
static int parse(char **f, size_t nf, struct rrecord *rec)
{
	if (nf < 7 || strcmp(f[0], RMAGIC) != 0)
		return -1;
	long long np = strtoll(f[5], NULL, 10);
	if (np < 0 || (size_t)np > nf - 7)
		return -1;
	size_t at = 6 + (size_t)np;
	long long n = strtoll(f[at], NULL, 10);
	at++;
	if (n < 0 || (size_t)n != (nf - at) / RFIELDS || (nf - at) % RFIELDS != 0)
		return -1;
	rec->ended = strtoll(f[3], NULL, 10);
	rec->split = (int)strtoll(f[4], NULL, 10);
	if ((rec->workspace = strdup(f[1])) == NULL ||
	    (strcmp(f[2], "\x01") != 0 && (rec->cwd = strdup(f[2])) == NULL))
		return -1;
	for (size_t i = 0; i < (size_t)np; i++)
		if (f[6 + i][0] == '\0' || f[6 + i][0] == '/' ||
		    strv_push(&rec->protect, f[6 + i]) != 0)
			return -1;
	if (n > 0 && (rec->v = calloc((size_t)n, sizeof(*rec->v))) == NULL)
		return -1;
	rec->cap = (size_t)n;
	for (size_t i = 0; i < (size_t)n; i++) {
		if (get_change(f + at + i * RFIELDS, &rec->v[i]) != 0)
			return -1;
		rec->n++;
	}
	return 0;
}

int review_record_read(const char *dir, struct rrecord *rec)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	memset(rec, 0, sizeof(*rec));
	if (path_join(p, sizeof(p), dir, "record") != 0)
		return -1;
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *buf = NULL;
	size_t got = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (buf = malloc((size_t)st.st_size + 1)))
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
	close(fd);
	int r = buf != NULL && got == (size_t)st.st_size ? review_record_parse(buf, got, rec) : -1;
	free(buf);
	if (r != 0)
		errno = EINVAL;
	return r;
}

int review_record_parse(char *buf, size_t len, struct rrecord *rec)
{
	size_t nf = 0;
	memset(rec, 0, sizeof(*rec));
	char **f = split_fields(buf, len, &nf);
	int r = f != NULL ? parse(f, nf, rec) : -1;
	free(f);
	if (r != 0)
		review_record_free(rec);
	return r;
}

void review_record_free(struct rrecord *rec)
{
	for (size_t i = 0; i < rec->n; i++)
		free(rec->v[i].path);
	free(rec->v);
	free(rec->workspace);
	free(rec->cwd);
	strv_free(&rec->protect);
	memset(rec, 0, sizeof(*rec));
}
