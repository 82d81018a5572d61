/*
 * cordon apply and cordon discard: a review run's held changes landed in
 * the real workspace, or dropped.
 *
 * Apply checks everything before its first change: the guards' judgement
 * of each held change (reviewjudge.c), then each changed path's real
 * counterpart against what the run's end recorded (type, size, times,
 * inode; a real directory the change removes, every entry below it), and
 * that every directory on the way to it is a real directory (never a
 * symlink) or one an earlier change makes. Then it marks the held run
 * "applying" and lands each change in the record's order (a directory
 * before what is in it), each path reached one component at a time
 * without following a symlink:
 *
 *   a file   linked from the upper dir to a fresh name beside its place
 *            (the same inode: the upper dir lies on the state dir's file
 *            system; another file system: copied, mode and times kept),
 *            the overlay's own xattrs taken off, then renamed into place;
 *   symlink  made with its held target (never followed), renamed into place;
 *   dir      made 0700, its held mode set once everything in it landed;
 *   deleted  the real file removed, or the real directory's tree;
 *   replaced the real path removed first (an opaque dir, another type).
 *
 * An apply cut short leaves "applying": run again, a path whose real
 * counterpart is what the held change makes (the held inode, the held
 * symlink...) counts as landed, one still as recorded is landed now, and
 * anything else is a conflict. Once all landed the held run is removed.
 */
#include "review.h"
#include "reviewjudge.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define REMOVE_BUDGET 4194304ul

int review_held_open(cordon *c, const char *run_id, int need_record, struct held *h)
{
	memset(h, 0, sizeof(*h));
	h->fd = -1;
	int r = review_dir_of(c, run_id, h->dir, 0);
	if (r != 0)
		return r;
	h->fd = open(h->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (h->fd < 0)
		return cordon_fail(
			c, CORDON_EINVAL,
			"no held run %s (applied, discarded, expired, or never held: a run "
			"whose status event has the gap review_not_held wrote the workspace "
			"directly): %s",
			run_id, h->dir);
	if (flock(h->fd, LOCK_EX | LOCK_NB) != 0) {
		review_held_close(h);
		return cordon_fail(c, CORDON_ESTATE,
				   "held run %s is in use (its run goes on, or another apply or "
				   "discard)",
				   run_id);
	}
	if (review_record_read(h->dir, &h->rec) == 0)
		return 0;
	if (!need_record && errno == ENOENT)
		return 0;
	int e = errno;
	review_held_close(h);
	if (e == ENOENT)
		return cordon_fail(
			c, CORDON_EINVAL,
			"run %s did not end (killed?): nothing it held can land; a later "
			"run sweeps it (cordon discard drops it now)",
			run_id);
	return cordon_fail_errno(c, CORDON_ESYS, e, "held run %s: cannot read its record", run_id);
}

void review_held_close(struct held *h)
{
	review_record_free(&h->rec);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

/* The held run's dir removed (its lock held on h->fd). */
int review_held_remove(struct held *h)
{
	struct rm_budget b = { REMOVE_BUDGET, 0, NULL, 0, 0, 0 };
	char *slash = strrchr(h->dir, '/');
	*slash = '\0';
	int pfd = open(h->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	*slash = '/';
	int r = pfd >= 0 ? remove_tree_at(pfd, slash + 1, h->fd, -1, &b) : -1;
	if (pfd >= 0)
		close(pfd);
	return r;
}

int cordon_discard(cordon *c, const char *run_id)
{
	struct held h;
	if (c == NULL)
		return CORDON_EINVAL;
	int r = review_held_open(c, run_id, 0, &h);
	if (r != 0)
		return r;
	r = review_held_remove(&h);
	review_held_close(&h);
	return r == 0 ? 0
		      : cordon_fail(c, CORDON_ESYS, "cordon discard: %s was not removed entirely",
				    h.dir);
}

/* ---- the refusals ---- */

void review_refused_free(cordon *c)
{
	for (size_t i = 0; i < c->nrefused; i++)
		free(c->refused[i].path);
	free(c->refused);
	c->refused = NULL;
	c->nrefused = 0;
}

size_t cordon_apply_refused_count(const cordon *c)
{
	return c != NULL ? c->nrefused : 0;
}

const char *cordon_apply_refused_path(const cordon *c, size_t i)
{
	return c != NULL && i < c->nrefused ? c->refused[i].path : NULL;
}

const char *cordon_apply_refused_reason(const cordon *c, size_t i)
{
	return c != NULL && i < c->nrefused ? c->refused[i].reason : NULL;
}

/* ---- the guards ---- */

static int slot_of(const struct rchange *ch)
{
	char *end;
	long k = ch->slot[0] == 's' && ch->slot[1] != '\0' ? strtol(ch->slot + 1, &end, 10) : -1;
	if (k >= 0 && *end != '\0')
		k = -1;
	return k >= 0 && k < REVIEW_SLOTS ? (int)k : -1;
}

/* The held entry's parent in its upper dir. */
int review_upper_parent(struct apply *a, const struct rchange *ch, const char **leaf)
{
	int k = slot_of(ch);
	if (k < 0 || a->upper[k] < 0) {
		errno = ENOENT;
		return -1;
	}
	return review_parent_fd(a->upper[k], ch->path, leaf);
}

/* Whether a file named HEAD lies beside rel, held or real. */
static int beside_head(struct apply *a, const struct rchange *ch)
{
	const char *leaf = "";
	struct stat st;
	int found = 0;
	int fd = review_upper_parent(a, ch, &leaf);
	if (fd >= 0) {
		found = fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
		close(fd);
	}
	if (!found && (fd = review_parent_fd(a->ws, ch->path, &leaf)) >= 0) {
		found = fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
		close(fd);
	}
	return found;
}

static int open_leaf(int pfd, const char *leaf)
{
	return pfd >= 0 ? openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
}

/* The guards' word on change i, or NULL. */
static const char *judge(struct apply *a, const struct rchange *ch)
{
	const char *ul = "", *rl = "";
	int up = ch->kind != RK_DELETED ? review_upper_parent(a, ch, &ul) : -1;
	int rp = review_parent_fd(a->ws, ch->path, &rl);
	struct judge_in j = { ch->kind, ch->type, a->h->rec.cwd, -1, -1, 0, ch->mode };
	if (ch->type == 'f') {
		j.held_fd = open_leaf(up, ul);
		j.real_fd = open_leaf(rp, rl);
	}
	const char *base = strrchr(ch->path, '/');
	base = base != NULL ? base + 1 : ch->path;
	if (strcmp(base, "config") == 0)
		j.beside_head = beside_head(a, ch);
	const char *why = reviewjudge(ch->path, &j);
	/* A path the run held read-only, or held by name where it could not
	 * be (it did not exist): nothing made there lands. */
	for (size_t i = 0; why == NULL && i < a->h->rec.protect.n; i++)
		if (path_within(a->h->rec.protect.v[i], ch->path))
			why = "a path protected in the run (--protect, or a guard's)";
	if (j.held_fd >= 0)
		close(j.held_fd);
	if (j.real_fd >= 0)
		close(j.real_fd);
	if (up >= 0)
		close(up);
	if (rp >= 0)
		close(rp);
	return why;
}

/* Judge every change: what is dropped (and below a dropped dir) marked. */
/* Whether change i lies below one of the dirs on the stack (indices of
 * earlier changes), popping those it is not below: the record is in the
 * walk's order, so what lies below a dir comes right after it. */
int review_below(const struct rrecord *rec, size_t *stack, size_t *n, size_t i)
{
	while (*n > 0 && !(path_within(rec->v[stack[*n - 1]].path, rec->v[i].path) &&
			   strcmp(rec->v[stack[*n - 1]].path, rec->v[i].path) != 0))
		(*n)--;
	return *n > 0;
}

int review_judge_all(struct apply *a, int drop)
{
	struct rrecord *rec = &a->h->rec;
	size_t *stack = calloc(rec->n + 1, sizeof(*stack)), ns = 0;
	if (stack == NULL)
		return cordon_fail(a->c, CORDON_ENOMEM, "out of memory");
	review_refused_free(a->c);
	for (size_t i = 0; i < rec->n; i++) {
		const struct rchange *ch = &rec->v[i];
		const char *why = review_below(rec, stack, &ns, i)
					  ? "below a directory that is not applied"
					  : judge(a, ch);
		if (why == NULL)
			continue;
		a->skip[i] = 1;
		if (ch->type == 'd')
			stack[ns++] = i;
		struct review_refused *v =
			realloc(a->c->refused, (a->c->nrefused + 1) * sizeof(*v));
		if (v == NULL || (v[a->c->nrefused].path = strdup(ch->path)) == NULL) {
			if (v != NULL)
				a->c->refused = v;
			free(stack);
			return cordon_fail(a->c, CORDON_ENOMEM, "out of memory");
		}
		a->c->refused = v;
		v[a->c->nrefused++].reason = why;
	}
	free(stack);
	if (a->c->nrefused > 0 && !drop)
		return cordon_fail(
			a->c, CORDON_ETAMPERED,
			"not applied: %zu held change%s a guard would move aside (first: "
			"%s: %s); nothing changed (--drop-guarded lands the rest)",
			a->c->nrefused, a->c->nrefused == 1 ? "" : "s", a->c->refused[0].path,
			a->c->refused[0].reason);
	return 0;
}
