/*
 * --review, the run's side: the run's review dir under the state dir
 * (STATE/review/RUN_ID, see review.h), made and locked at the start, where
 * the mount layer's overlay on the workspace keeps its upper dirs
 * (layer-review.c); at the end, once every process of the run is gone,
 * the record of what changed (reviewrec.c) and the exit event's list;
 * and the sweep of held runs that expired or never ended.
 *
 * A run that did not end (cordon SIGKILLed) leaves a dir without a
 * record: nothing in it can land (the command may have been cut off in
 * the middle of a write), and the workspace was never written. It is
 * swept, like an expired one, by a later run of the state dir, once
 * nobody holds its lock.
 */
#include "review.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The exit event lists at most this many changes, and this many bytes
 * of their paths; the rest is counted ("changes_omitted"). */
#define EVENT_CHANGES_MAX 1000
#define EVENT_PATH_BYTES_MAX (256u << 10)
/* Entries a run's sweep of held runs may remove. */
#define SWEEP_BUDGET 65536ul

int review_refused(const struct decision *d)
{
	return !d->applied || !(d->cov.layers & (1u << LAYER_MOUNTNS));
}

enum review_hold review_hold_in(const struct decision *d, enum cordon_mode mode)
{
	if (!review_refused(d))
		return REVIEW_HELD;
	return mode == CORDON_MODE_AUTO ? REVIEW_GAP : REVIEW_REFUSED;
}

enum review_hold review_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	if (!c->review)
		return REVIEW_HELD;
	enum review_hold h = review_hold_in(d, c->mode);
	if (h == REVIEW_HELD) {
		d->cov.layers |= 1u << LAYER_REVIEW;
		return h;
	}
	/* Nothing ran under that dir: nothing to keep. */
	review_release(c);
	d->cov.layers &= ~(1u << LAYER_REVIEW);
	d->cov.gaps |= 1ull << GAP_REVIEW;
	return h;
}

static int valid_id(const char *id)
{
	return id != NULL && strlen(id) == 32 && strspn(id, "0123456789abcdef") == 32;
}

/* STATE/review, checked: a directory of the caller's own, closed to
 * group and others, not a symlink. Made when make. 0 or -1 (errno). */
static int review_root(const char *state, char *out, int make)
{
	struct stat st;
	if (path_join(out, CORDON_PATH_MAX, state, "review") != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (make && mkdir(out, 0700) != 0 && errno != EEXIST)
		return -1;
	if (lstat(out, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int review_dir_of(cordon *c, const char *run_id, char *out, int make)
{
	char state[CORDON_PATH_MAX], real[CORDON_PATH_MAX], root[CORDON_PATH_MAX];
	if (!valid_id(run_id))
		return cordon_fail(c, CORDON_EINVAL, "not a run id (32 hex digits): %s",
				   run_id != NULL ? run_id : "(null)");
	if (c->rundir != NULL && runtmp_state_of_run(c, real, sizeof(real)) == 0) {
		/* the run's own state dir, canonical already */
	} else {
		if (c->nhomes == 0 && homes_load(c) != 0)
			return CORDON_EINVAL;
		if (runtmp_state_dir(c, state, sizeof(state)) != 0)
			return cordon_fail(c, CORDON_EINVAL,
					   "no state directory (give --state-dir, or set "
					   "XDG_STATE_HOME or HOME)");
		if (realpath(state, real) == NULL)
			return cordon_fail_errno(c, CORDON_EINVAL, errno, "state directory %s",
						 state);
	}
	/* None yet: no held run there either (review_held_open says so). */
	if (review_root(real, root, make) != 0 && (make || errno != ENOENT))
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "%s/review", real);
	if (path_join(out, CORDON_PATH_MAX, root, run_id) != 0)
		return cordon_fail(c, CORDON_EINVAL, "state directory path too long");
	return 0;
}

/* The run's dir: made under a name of its own, locked, then renamed to
 * RUN_ID, so a sweep never takes a fresh dir for a dead run's. */
int review_begin(cordon *c)
{
	char dir[CORDON_PATH_MAX], tmp[CORDON_PATH_MAX];
	int r = review_dir_of(c, c->run_id, dir, 1);
	if (r != 0)
		return r;
	size_t n = strlen(dir) - 32;
	if (snprintf(tmp, sizeof(tmp), "%.*s.new-%s", (int)n, dir, c->run_id) >= (int)sizeof(tmp))
		return cordon_fail(c, CORDON_EINVAL, "state directory path too long");
	if (mkdir(tmp, 0700) != 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "--review: cannot make %s", tmp);
	int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX) != 0 || rename(tmp, dir) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		rmdir(tmp);
		return cordon_fail_errno(c, CORDON_ESYS, e, "--review: cannot make %s", dir);
	}
	struct review *rv = calloc(1, sizeof(*rv));
	if (rv == NULL) {
		close(fd);
		rmdir(dir);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	memcpy(rv->dir, dir, strlen(dir) + 1);
	rv->fd = fd;
	c->rv = rv;
	return 0;
}

/* The run's working directory below the workspace ("" for its top), or
 * NULL when it lies elsewhere. */
static char *cwd_below(const struct policy *p)
{
	if (p->cwd == NULL || p->workspace == NULL || !path_within(p->workspace, p->cwd))
		return NULL;
	const char *rest = p->cwd + strlen(p->workspace);
	while (*rest == '/')
		rest++;
	return strdup(rest);
}

int review_end(cordon *c)
{
	struct review *rv = c->rv;
	if (rv == NULL || rv->ended)
		return 0;
	struct rrecord *rec = &rv->rec;
	review_record_free(rec);
	rec->ended = (long long)time(NULL);
	if ((rec->workspace = strdup(c->pol.workspace)) == NULL ||
	    (c->pol.cwd != NULL && path_within(c->pol.workspace, c->pol.cwd) &&
	     (rec->cwd = cwd_below(&c->pol)) == NULL))
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->pol.nprot; i++) {
		const char *pp = c->pol.prot[i].path;
		size_t wl = strlen(c->pol.workspace);
		if (path_within(c->pol.workspace, pp) && pp[wl] == '/' &&
		    strv_push(&rec->protect, pp + wl + 1) != 0)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	if (review_walk(rv->dir, rec->workspace, rec) != 0 ||
	    review_record_write(rv->dir, rec) != 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno,
					 "--review: the held changes in %s could not be recorded; "
					 "nothing of them can land (the workspace is unchanged)",
					 rv->dir);
	rv->ended = 1;
	return 0;
}

void review_release(cordon *c)
{
	struct review *rv = c->rv;
	if (rv == NULL)
		return;
	c->rv = NULL;
	if (!rv->ended) {
		/* Refused, failed, or not recorded: nothing to keep. */
		struct rm_budget b = { SWEEP_BUDGET * 64, 0, NULL, 0, 0, 0 };
		char *slash = strrchr(rv->dir, '/');
		*slash = '\0';
		int pfd = open(rv->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		*slash = '/';
		if (pfd >= 0) {
			(void)remove_tree_at(pfd, slash + 1, rv->fd, -1, &b);
			close(pfd);
		}
	}
	close(rv->fd);
	review_record_free(&rv->rec);
	free(rv);
}

static void change_json(struct jbuf *b, const char *path, const char *kind, long long size)
{
	jb_raw(b, "{");
	jb_key(b, "path");
	jb_str(b, path);
	jb_key(b, "kind");
	jb_str(b, kind);
	jb_key(b, "size");
	jb_int(b, size);
	jb_raw(b, "}");
}

void review_exit_fields(struct jbuf *b, const cordon *c)
{
	const struct review *rv = c->rv;
	if (!c->review)
		return;
	jb_key(b, "review");
	if (rv == NULL) {
		jb_raw(b, "null"); /* nothing held: review_not_held, or not run */
		return;
	}
	jb_raw(b, "{");
	jb_key(b, "held");
	jb_bool(b, rv->ended);
	jb_key(b, "dir");
	jb_str(b, rv->dir);
	jb_key(b, "split");
	jb_bool(b, rv->rec.split);
	jb_key(b, "changes");
	jb_raw(b, "[");
	size_t shown = 0, omitted = 0, bytes = 0;
	for (size_t i = 0; i < rv->rec.n; i++) {
		const struct rchange *ch = &rv->rec.v[i];
		size_t len = strlen(ch->path), entries = ch->replaced && ch->type == 'd' ? 2 : 1;
		if (shown + entries > EVENT_CHANGES_MAX || bytes + len > EVENT_PATH_BYTES_MAX) {
			omitted += entries;
			continue;
		}
		if (shown > 0)
			jb_raw(b, ",");
		if (entries == 2) {
			change_json(b, ch->path, "deleted", 0);
			jb_raw(b, ",");
		}
		change_json(b, ch->path, review_kind_name(ch->kind), ch->size);
		shown += entries;
		bytes += len * entries;
	}
	jb_raw(b, "]");
	jb_key(b, "changes_total");
	jb_int(b, (long long)shown + (long long)omitted);
	jb_key(b, "changes_omitted");
	jb_int(b, (long long)omitted);
	jb_raw(b, "}");
}

/* Whether the dir name (open, locked on fd) of root_fd is done with:
 * no record (its run never ended), or a record older than the expiry. */
static int sweepable(int root_fd, const char *name, int fd, time_t now)
{
	struct stat a, b, rec;
	if (fstat(fd, &a) != 0 || fstatat(root_fd, name, &b, AT_SYMLINK_NOFOLLOW) != 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return 0; /* not the dir locked: taken meanwhile */
	/* One a run is making (not locked yet) is left an hour. */
	if (name[0] == '.')
		return a.st_mtime < now - 3600;
	if (fstatat(fd, "record", &rec, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT;
	return rec.st_mtime < now - (time_t)CORDON_REVIEW_EXPIRY_DAYS * 86400;
}

void review_sweep(cordon *c)
{
	char state[CORDON_PATH_MAX], root[CORDON_PATH_MAX];
	if (runtmp_state_of_run(c, state, sizeof(state)) != 0 || review_root(state, root, 0) != 0)
		return;
	int rfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = rfd >= 0 ? dir_stream(rfd) : NULL;
	if (d == NULL) {
		if (rfd >= 0)
			close(rfd);
		return;
	}
	struct rm_budget b = { SWEEP_BUDGET, 0, NULL, 0, 0, 0 };
	time_t now = time(NULL);
	struct dirent *e;
	while (!b.out && (e = readdir(d)) != NULL) {
		const char *name = e->d_name;
		/* A run's dir, or one a run was making when it died. */
		int fresh = strncmp(name, ".new-", 5) == 0 && valid_id(name + 5);
		if ((!valid_id(name) && !fresh) || strcmp(name + (fresh ? 5 : 0), c->run_id) == 0)
			continue;
		int fd = openat(rfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && sweepable(rfd, name, fd, now))
			(void)remove_tree_at(rfd, name, fd, -1, &b);
		close(fd);
	}
	closedir(d);
	close(rfd);
}
