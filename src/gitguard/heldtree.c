/*
 * A held path that stays writable during the run (no mount layer: Landlock
 * cannot take a right away below a tree it grants) is recorded when the
 * run starts and judged when it ends, the way the git guard judges git's
 * config (gitjudge.c): what the run made or changed there is moved aside,
 * what it removed or changed is put back as the start had it.
 *
 * The record is breadth first, so a tree's top (settings.json, hooks/)
 * comes before what lies deep in it, within a budget shared by the run's
 * trees (heldtree.h): past it, the rest is not recorded and the tree is
 * held in part. A regular file's content is kept up to HT_FILE_MAX (a
 * larger one is compared, and moved aside when changed, but cannot be put
 * back); a symlink's target always.
 *
 * What is moved aside from inside a tree goes to a tree beside it,
 * ROOT.cordon-tampered-RUN/REL, never next to where it was: a directory
 * moved aside inside .claude/skills/ would still be a skill there.
 *
 * Everything here runs in cordon's own process after every process of the
 * run has ended, on names the command chose: only paths gitguard_clean()
 * accepts are renamed or made, nothing is followed through a symlink.
 */
#include "heldtree.h"
#include "fsutil.h"
#include "gitjudge.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hent {
	char *rel; /* "" for the root, else "a/b" */
	struct stat st;
	char *data; /* a file's content or a symlink's target; NULL: not kept */
	size_t len;
	int opened; /* a directory the start read */
	int listed; /* ... and recorded every entry of */
	int seen; /* the end found it unchanged */
};

struct heldtree {
	struct hent *v; /* breadth first: a directory before what it holds */
	size_t n, cap;
	int partial;
	struct href {
		struct hent *e;
	} * order; /* v by rel, for the end's lookups */
};

/* out = a "/" b, or b when a is "" (a root's entries' rel) or a when b
 * is "" (the root's path). 0, or -1 when it does not fit. */
static int rel_join(char *out, size_t outlen, const char *a, const char *b)
{
	int n = a[0] == '\0'   ? snprintf(out, outlen, "%s", b)
		: b[0] == '\0' ? snprintf(out, outlen, "%s", a)
			       : snprintf(out, outlen, "%s/%s", a, b);
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

/* A regular file's whole content, NUL-terminated, read through dirfd and
 * name without following a symlink; NULL when it is not the file st
 * describes any more, or cannot be read whole. */
static char *read_at(int dirfd, const char *name, const struct stat *st, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat now;
	size_t size = (size_t)st->st_size, got = 0;
	char *buf = NULL;
	if (fstat(fd, &now) == 0 && S_ISREG(now.st_mode) && now.st_ino == st->st_ino &&
	    now.st_dev == st->st_dev && now.st_size == st->st_size &&
	    (buf = malloc(size + 1)) != NULL) {
		while (got < size) {
			ssize_t r = read(fd, buf + got, size - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got != size) {
			free(buf);
			buf = NULL;
		} else {
			buf[got] = '\0';
			*len = got;
		}
	}
	close(fd);
	return buf;
}

/* Records dirfd/name as rel: 0 (also when it vanished: not recorded), or
 * -1 without memory. */
static int add(struct heldtree *t, const char *rel, int dirfd, const char *name,
	       struct held_budget *b)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct hent *v = realloc(t->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	struct hent *e = &t->v[t->n];
	memset(e, 0, sizeof(*e));
	if (fstatat(dirfd, name, &e->st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	if ((e->rel = strdup(rel)) == NULL)
		return -1;
	if (S_ISREG(e->st.st_mode) && e->st.st_size >= 0 && (size_t)e->st.st_size <= HT_FILE_MAX &&
	    (size_t)e->st.st_size <= b->bytes) {
		if ((e->data = read_at(dirfd, name, &e->st, &e->len)) != NULL)
			b->bytes -= e->len;
	} else if (S_ISLNK(e->st.st_mode)) {
		char target[CORDON_PATH_MAX];
		ssize_t k = readlinkat(dirfd, name, target, sizeof(target) - 1);
		if (k >= 0) {
			target[k] = '\0';
			e->data = strdup(target); /* NULL: compared, not put back */
			e->len = (size_t)k;
		}
	}
	t->n++;
	return 0;
}

/* The entries of the recorded directory v[i], while the budget lasts. */
static int record_dir(struct heldtree *t, const char *root, size_t i, struct held_budget *b)
{
	char full[CORDON_PATH_MAX], rel[CORDON_PATH_MAX];
	DIR *d = rel_join(full, sizeof(full), root, t->v[i].rel) == 0 ? gitguard_open_dir(full)
								      : NULL;
	if (d == NULL) {
		t->partial = 1; /* not read: what it holds is not recorded */
		return 0;
	}
	t->v[i].opened = 1;
	int complete = 1, r = 0;
	struct dirent *e;
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (b->entries == 0 || rel_join(rel, sizeof(rel), t->v[i].rel, e->d_name) != 0) {
			complete = 0;
			break;
		}
		r = add(t, rel, dirfd(d), e->d_name, b);
		b->entries--;
	}
	closedir(d);
	t->v[i].listed = complete && r == 0;
	if (!complete)
		t->partial = 1;
	return r;
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct href *)a)->e->rel, ((const struct href *)b)->e->rel);
}

/* The index of rel's entry, or -1. */
static long find(const struct heldtree *t, const char *rel)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->order[mid].e->rel, rel);
		if (c == 0)
			return (long)(t->order[mid].e - t->v);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct heldtree *heldtree_record(const char *path, struct held_budget *b)
{
	struct heldtree *t = calloc(1, sizeof(*t));
	if (t == NULL || add(t, "", AT_FDCWD, path, b) != 0 || t->n == 0) {
		heldtree_free(t);
		return NULL;
	}
	if (b->entries > 0)
		b->entries--;
	for (size_t i = 0; i < t->n; i++) {
		if (!S_ISDIR(t->v[i].st.st_mode))
			continue;
		if (b->entries == 0) {
			t->partial = 1;
			break;
		}
		if (record_dir(t, path, i, b) != 0) {
			heldtree_free(t);
			return NULL;
		}
	}
	if ((t->order = malloc(t->n * sizeof(*t->order))) == NULL) {
		heldtree_free(t);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++)
		t->order[i].e = &t->v[i]; /* v is not moved any more */
	qsort(t->order, t->n, sizeof(*t->order), by_rel);
	return t;
}

int heldtree_partial(const struct heldtree *t)
{
	return t != NULL && t->partial;
}

size_t heldtree_size(const struct heldtree *t)
{
	return t != NULL ? t->n : 0;
}

void heldtree_free(struct heldtree *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].rel);
		free(t->v[i].data);
	}
	free(t->v);
	free(t->order);
	free(t);
}

/* ---- the end ---- */

/* Not as the start recorded it: another type or file, another mode, and
 * for what is not a directory (whose times change with its entries) its
 * size or times; rewriting a file in place changes its change time. */
static int differs(const struct stat *a, const struct stat *b)
{
	if (a->st_mode != b->st_mode || a->st_ino != b->st_ino || a->st_dev != b->st_dev)
		return 1;
	if (S_ISDIR(a->st_mode))
		return 0;
	return a->st_size != b->st_size || MTIME(*a).tv_sec != MTIME(*b).tv_sec ||
	       MTIME(*a).tv_nsec != MTIME(*b).tv_nsec || CTIME(*a).tv_sec != CTIME(*b).tv_sec ||
	       CTIME(*a).tv_nsec != CTIME(*b).tv_nsec;
}

struct judging {
	cordon *c;
	const char *root;
	struct heldtree *t;
	size_t looked, max; /* entries looked at, and how many may be */
	int over;
	char top[CORDON_PATH_MAX]; /* the tree beside root, once made ("" before) */
};

/* Moves root/rel aside into the tree beside root, made on first use
 * under a name nothing was at (gitguard_aside_name: not one the run made),
 * and records it; what cannot be moved is recorded as not moved. */
static void put_aside_rel(struct judging *j, const char *full, const char *rel)
{
	char aside[CORDON_PATH_MAX], dir[CORDON_PATH_MAX];
	if (j->top[0] == '\0' && (gitguard_aside_name(j->c, j->root, j->top) != 0 ||
				  !gitguard_clean(&j->c->pol, j->top) || mkdir(j->top, 0700) != 0))
		j->top[0] = '\0';
	int ok = j->top[0] != '\0' && path_join(aside, sizeof(aside), j->top, rel) == 0;
	if (ok) {
		memcpy(dir, aside, strlen(aside) + 1);
		*strrchr(dir, '/') = '\0'; /* aside lies below top: it has a "/" */
	}
	/* Its directories, inside the tree made here, then the move. */
	if (!ok || !gitguard_clean(&j->c->pol, full) || mkdir_p(dir) != 0 ||
	    !gitguard_clean(&j->c->pol, aside) || gitguard_rename(full, aside) != 0) {
		(void)tampered_add(j->c, full, "");
		return;
	}
	(void)tampered_add(j->c, full, aside);
}

/* Puts back entry e at full, as the start had it, when its parent is as
 * the start had it too (made before, breadth first). */
static void put_back(const struct policy *pol, const struct hent *e, const char *full)
{
	if (!gitguard_clean(pol, full))
		return;
	if (S_ISDIR(e->st.st_mode)) {
		if (mkdir(full, 0700) == 0)
			(void)chmod(full, e->st.st_mode & 07777);
	} else if (S_ISREG(e->st.st_mode) && e->data != NULL) {
		(void)gitguard_put_back(full, e->data, e->len, e->st.st_mode);
	} else if (S_ISLNK(e->st.st_mode) && e->data != NULL) {
		(void)!symlink(e->data, full);
	}
}

/* Every entry the end did not find as it was: put back. */
static void put_back_unseen(struct judging *j)
{
	char full[CORDON_PATH_MAX];
	for (size_t i = 0; i < j->t->n; i++)
		if (!j->t->v[i].seen && rel_join(full, sizeof(full), j->root, j->t->v[i].rel) == 0)
			put_back(&j->c->pol, &j->t->v[i], full);
}

/* One entry of the directory v[di] found at the end. Returns the index
 * of a directory to look into next, or -1. */
static long judge_entry(struct judging *j, int dfd, size_t di, const char *name)
{
	char rel[CORDON_PATH_MAX], full[CORDON_PATH_MAX];
	struct stat st;
	const struct hent *de = &j->t->v[di];
	if (rel_join(rel, sizeof(rel), de->rel, name) != 0 ||
	    rel_join(full, sizeof(full), j->root, rel) != 0) {
		(void)tampered_add(j->c, j->root, ""); /* a name it cannot handle */
		return -1;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	long k = find(j->t, rel);
	if (k < 0) {
		/* Made in the run, where the start knew every entry. */
		if (de->listed)
			put_aside_rel(j, full, rel);
		return -1;
	}
	if (differs(&j->t->v[k].st, &st)) {
		put_aside_rel(j, full, rel); /* and put back below, being unseen */
		return -1;
	}
	j->t->v[k].seen = 1;
	return S_ISDIR(st.st_mode) && j->t->v[k].opened ? k : -1;
}

/* Breadth first through the directories recorded as they were. */
static void judge_walk(struct judging *j)
{
	size_t *queue = j->t->n > 0 ? malloc(j->t->n * sizeof(*queue)) : NULL, head = 0, tail = 0;
	char full[CORDON_PATH_MAX];
	if (queue == NULL) {
		(void)tampered_add(j->c, j->root, ""); /* not checked: not clean */
		return;
	}
	queue[tail++] = 0;
	while (head < tail && !j->over) {
		size_t di = queue[head++];
		const char *rel = j->t->v[di].rel;
		int named = rel_join(full, sizeof(full), j->root, rel) == 0;
		DIR *d = named ? gitguard_open_dir(full) : NULL;
		if (d == NULL) {
			/* Read then, not now: not checked, not clean. */
			(void)tampered_add(j->c, named ? full : j->root, "");
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (++j->looked > j->max) {
				j->over = 1;
				break;
			}
			long k = judge_entry(j, dirfd(d), di, e->d_name);
			if (k >= 0 && tail < j->t->n)
				queue[tail++] = (size_t)k;
		}
		closedir(d);
	}
	free(queue);
	if (j->over) /* the run made more than the end may look at */
		(void)tampered_add(j->c, j->root, "");
}

void heldtree_judge(cordon *c, const char *path, struct heldtree *t)
{
	struct judging j = { c, path, t, 0, t->n + HT_NEW_MAX, 0, "" };
	struct stat st;
	for (size_t i = 0; i < t->n; i++)
		t->v[i].seen = 0;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			(void)tampered_add(c, path, ""); /* cannot be looked at now */
		else
			put_back_unseen(&j); /* removed: all of it back */
		return;
	}
	if (differs(&t->v[0].st, &st)) {
		(void)gitguard_put_aside(c, path);
		put_back_unseen(&j);
		return;
	}
	t->v[0].seen = 1;
	if (S_ISDIR(st.st_mode) && t->v[0].opened)
		judge_walk(&j);
	put_back_unseen(&j);
}
