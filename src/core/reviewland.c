/*
 * cordon apply: the checks before the first change, then the landing of
 * each held change (see reviewapply.c's head for the whole of it).
 */
#include "review.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/xattr.h>
#endif
#include <time.h>
#include <unistd.h>

#define REMOVE_BUDGET 4194304ul

static const char *type_name(char t)
{
	switch (t) {
	case '-':
		return "absent";
	case 'f':
		return "a file";
	case 'd':
		return "a directory";
	case 'l':
		return "a symlink";
	default:
		return "a special file";
	}
}

static int same_link_target(int afd, const char *an, int bfd, const char *bn)
{
	char x[CORDON_PATH_MAX], y[CORDON_PATH_MAX];
	ssize_t n = afd >= 0 ? readlinkat(afd, an, x, sizeof(x)) : -1;
	ssize_t m = bfd >= 0 ? readlinkat(bfd, bn, y, sizeof(y)) : -1;
	return n >= 0 && n == m && memcmp(x, y, (size_t)n) == 0;
}

/* After an apply cut short: the real path is what the change makes. */
static int landed(struct apply *a, const struct rchange *ch, const struct rstate *cur, int pfd,
		  const char *leaf)
{
	const char *ul = "";
	if (ch->kind == RK_DELETED)
		return cur->type == '-';
	if (ch->type == 'd')
		return cur->type == 'd';
	if (ch->type == 'f' && cur->type == 'f' && cur->ino == ch->uino && cur->dev == ch->udev)
		return 1;
	int up = review_upper_parent(a, ch, &ul);
	int r = 0;
	if (ch->type == 'l' && cur->type == 'l')
		r = same_link_target(up, ul, pfd, leaf);
	else if (ch->type == 'f' && cur->type == 'f' && cur->size == ch->size) {
		/* Copied (another file system): the same bytes. */
		int x = up >= 0 ? openat(up, ul, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
		int y = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		char bx[8192], by[8192];
		r = x >= 0 && y >= 0;
		for (ssize_t n; r && (n = read(x, bx, sizeof(bx))) > 0;)
			r = read(y, by, (size_t)n) == n && memcmp(bx, by, (size_t)n) == 0;
		if (x >= 0)
			close(x);
		if (y >= 0)
			close(y);
	} else if (cur->type == ch->type) {
		r = 1; /* a fifo or socket: made */
	}
	if (up >= 0)
		close(up);
	return r;
}

static int conflict(struct apply *a, const struct rchange *ch, const char *what)
{
	return cordon_fail(a->c, CORDON_ECONFLICT,
			   "not applied: the workspace changed meanwhile at %s (%s); nothing "
			   "changed (cordon diff shows the held change, cordon discard drops it)",
			   ch->path, what);
}

/* One change's real counterpart against the record. */
static int check_one(struct apply *a, size_t i)
{
	const struct rchange *ch = &a->h->rec.v[i];
	const char *leaf = "";
	struct rstate cur;
	char what[96];
	int pfd = review_parent_fd(a->ws, ch->path, &leaf);
	if (pfd < 0)
		return conflict(a, ch,
				errno == ENOENT ? "a directory on its way is gone"
						: "a directory on its way is not a directory");
	review_real_state(pfd, leaf, ch->real.tree != 0, &cur);
	int ok = review_same_state(&cur, &ch->real);
	if (!ok && a->applying && landed(a, ch, &cur, pfd, leaf)) {
		a->skip[i] = ch->type == 'd' ? 0 : 2; /* a dir's mode is set again */
		ok = 1;
	}
	close(pfd);
	if (ok)
		return 0;
	if (cur.type != ch->real.type)
		snprintf(what, sizeof(what), "it was %s, it is %s now", type_name(ch->real.type),
			 type_name(cur.type));
	else
		snprintf(what, sizeof(what), "%s changed since the run ended",
			 cur.type == 'd' && ch->real.tree != 0 ? "what is in it" : "it");
	return conflict(a, ch, what);
}

/* The real path at (pfd, leaf) removed, a directory with its tree. */
static int remove_path(int pfd, const char *leaf)
{
	struct stat st;
	struct rm_budget b = { REMOVE_BUDGET, 0, NULL, 0, 0, 0 };
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode))
		return remove_tree_at(pfd, leaf, -1, -1, &b);
	return unlinkat(pfd, leaf, 0) == 0 || errno == ENOENT ? 0 : -1;
}

/* The overlay's own marks (origin, impure...) are not the run's. */
static void strip_overlay_xattrs(int fd)
{
#if !defined(__linux__)
	(void)fd; /* no overlay there: --review is refused */
#else
	char names[4096];
	ssize_t n = flistxattr(fd, names, sizeof(names));
	for (ssize_t at = 0; n > 0 && at < n; at += (ssize_t)strlen(names + at) + 1)
		if (strncmp(names + at, "trusted.overlay.", 16) == 0 ||
		    strncmp(names + at, "user.overlay.", 13) == 0)
			(void)fremovexattr(fd, names + at);
#endif
}

static int copy_file(int up, const char *ul, int pfd, const char *tmp, unsigned mode)
{
	int in = openat(up, ul, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out = in >= 0 ? openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				   0600)
			  : -1;
	char buf[65536];
	ssize_t n = 0;
	struct stat st;
	int e = out >= 0 ? 0 : errno;
	while (e == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; e == 0 && off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			e = w > 0 ? 0 : errno != 0 ? errno : EIO;
			off += w > 0 ? w : 0;
		}
	if (e == 0 && (n < 0 || fstat(in, &st) != 0 || fchmod(out, mode) != 0))
		e = errno;
	if (e == 0) {
		struct timespec t[2] = { RV_ATIM(st), RV_MTIM(st) };
		(void)futimens(out, t);
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0 && e == 0)
		e = errno;
	if (e != 0 && out >= 0)
		unlinkat(pfd, tmp, 0);
	errno = e;
	return e == 0 ? 0 : -1;
}

/* What the change holds, made at a fresh name tmp beside leaf. */
static int make_beside(struct apply *a, const struct rchange *ch, int pfd, const char *tmp)
{
	const char *ul = "";
	char target[CORDON_PATH_MAX];
	int up = review_upper_parent(a, ch, &ul), r = -1;
	if (up < 0)
		return -1;
	if (ch->type == 'f') {
		r = linkat(up, ul, pfd, tmp, 0);
		if (r != 0 && (errno == EXDEV || errno == EPERM || errno == EMLINK))
			r = copy_file(up, ul, pfd, tmp, ch->mode);
		int fd = r == 0 ? openat(pfd, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (fd >= 0) {
			strip_overlay_xattrs(fd);
			close(fd);
		}
	} else if (ch->type == 'l') {
		ssize_t n = readlinkat(up, ul, target, sizeof(target) - 1);
		if (n >= 0) {
			target[n] = '\0';
			r = symlinkat(target, pfd, tmp);
		}
	} else {
#if defined(__linux__)
		mode_t t = ch->type == 'p' ? S_IFIFO : S_IFSOCK;
		r = mknodat(pfd, tmp, t | (ch->mode & 07777), 0);
#else
		errno = ENOTSUP; /* no held run there: --review is refused */
#endif
	}
	int e = errno;
	close(up);
	errno = e;
	return r;
}

static int land_one(struct apply *a, const struct rchange *ch)
{
	const char *leaf = "";
	char tmp[64];
	int pfd = review_parent_fd(a->ws, ch->path, &leaf), r = 0;
	if (pfd < 0)
		return -1;
	if (ch->kind == RK_DELETED) {
		r = remove_path(pfd, leaf);
	} else if (ch->type == 'd') {
		struct stat st;
		if (ch->kind == RK_ADDED && ch->replaced)
			r = remove_path(pfd, leaf);
		if (r == 0 && ch->kind == RK_ADDED && mkdirat(pfd, leaf, 0700) != 0 &&
		    !(errno == EEXIST && fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		      S_ISDIR(st.st_mode)))
			r = -1;
	} else {
		snprintf(tmp, sizeof(tmp), ".cordon-apply-%.8s-%lu", strrchr(a->h->dir, '/') + 1,
			 a->tmpseq++);
		(void)unlinkat(pfd, tmp, 0); /* a cut-short apply's */
		r = make_beside(a, ch, pfd, tmp);
		if (r == 0 && ch->replaced)
			r = remove_path(pfd, leaf);
		if (r == 0)
			r = renameat(pfd, tmp, pfd, leaf);
		if (r != 0) {
			int e = errno;
			(void)unlinkat(pfd, tmp, 0);
			errno = e;
		}
	}
	int e = errno;
	close(pfd);
	errno = e;
	return r;
}

/* The held modes of the directories made or changed, innermost first
 * (a read-only directory is filled before it is made so). */
static int dir_modes(struct apply *a)
{
	const struct rrecord *rec = &a->h->rec;
	for (size_t i = rec->n; i-- > 0;) {
		const struct rchange *ch = &rec->v[i];
		const char *leaf = "";
		if (a->skip[i] == 1 || ch->type != 'd' || ch->kind == RK_DELETED)
			continue;
		int pfd = review_parent_fd(a->ws, ch->path, &leaf);
		int fd = pfd >= 0 ? openat(pfd, leaf,
					   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				  : -1;
		int r = fd >= 0 ? fchmod(fd, ch->mode) : -1;
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (pfd >= 0)
			close(pfd);
		if (r != 0)
			return cordon_fail_errno(a->c, CORDON_ESYS, e,
						 "apply stopped at %s (its mode); run cordon apply "
						 "again to go on",
						 ch->path);
	}
	return 0;
}

static int land_all(struct apply *a)
{
	const struct rrecord *rec = &a->h->rec;
	size_t done = 0;
	for (size_t i = 0; i < rec->n; i++) {
		if (a->skip[i] != 0)
			continue;
		if (land_one(a, &rec->v[i]) != 0)
			return cordon_fail_errno(
				a->c, CORDON_ESYS, errno,
				"apply stopped at %s after %zu of %zu changes; run "
				"cordon apply again to go on (what landed is "
				"recognised)",
				rec->v[i].path, done, rec->n);
		done++;
	}
	return dir_modes(a);
}

static int mark_applying(struct apply *a)
{
	int fd = openat(a->h->fd, "applying", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fsync(fd) != 0 || fsync(a->h->fd) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return cordon_fail_errno(a->c, CORDON_ESYS, e, "cannot mark %s as applying",
					 a->h->dir);
	}
	close(fd);
	return 0;
}

static int prepare(struct apply *a, int drop)
{
	const struct rrecord *rec = &a->h->rec;
	if (rec->split)
		return cordon_fail(
			a->c, CORDON_ESTATE,
			"not applied: the run's commands saw separate views of the "
			"workspace (commands that could not share the run's namespaces); "
			"cordon diff shows each, cordon discard drops them");
	a->ws = open(rec->workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (a->ws < 0)
		return cordon_fail_errno(a->c, CORDON_ECONFLICT, errno,
					 "not applied: the workspace %s", rec->workspace);
	for (int k = 0; k < REVIEW_SLOTS; k++) {
		char up[32];
		snprintf(up, sizeof(up), "s%d/upper", k);
		a->upper[k] = openat(a->h->fd, up, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	a->applying = faccessat(a->h->fd, "applying", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	if ((a->skip = calloc(rec->n + 1, 1)) == NULL)
		return cordon_fail(a->c, CORDON_ENOMEM, "out of memory");
	int r = review_judge_all(a, drop);
	/* A change below a dir an earlier change makes or replaces: that
	 * change's tree digest covers its real state. */
	size_t *stack = r == 0 ? calloc(rec->n + 1, sizeof(*stack)) : NULL, ns = 0;
	if (r == 0 && stack == NULL)
		r = cordon_fail(a->c, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; r == 0 && i < rec->n; i++) {
		const struct rchange *ch = &rec->v[i];
		int below = review_below(rec, stack, &ns, i);
		if (a->skip[i] == 1)
			continue;
		if (ch->type == 'd' && ch->kind == RK_ADDED)
			stack[ns++] = i;
		if (!below)
			r = check_one(a, i);
	}
	free(stack);
	return r;
}

int cordon_apply(cordon *c, const char *run_id, int drop_guarded)
{
	struct held h;
	struct apply a = { .c = c, .h = &h, .ws = -1 };
	if (c == NULL)
		return CORDON_EINVAL;
	for (int k = 0; k < REVIEW_SLOTS; k++)
		a.upper[k] = -1;
	review_refused_free(c);
	int r = review_held_open(c, run_id, 1, &h);
	if (r != 0)
		return r;
	if ((r = prepare(&a, drop_guarded)) == 0 && (r = mark_applying(&a)) == 0 &&
	    (r = land_all(&a)) == 0 && review_held_remove(&h) != 0)
		r = cordon_fail(c, CORDON_ESYS,
				"applied; but the held run %s was not removed entirely (a later "
				"run sweeps it)",
				h.dir);
	for (int k = 0; k < REVIEW_SLOTS; k++)
		if (a.upper[k] >= 0)
			close(a.upper[k]);
	if (a.ws >= 0)
		close(a.ws);
	free(a.skip);
	review_held_close(&h);
	return r;
}
