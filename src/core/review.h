/*
 * --review: a run's held workspace changes (review.c: the run's side,
 * reviewrec.c: the record, reviewapply.c: apply and discard, reviewshow.c:
 * the list and the diff). Internal.
 *
 * STATE/review/RUN_ID/ (0700), locked (flock) by the run while it lives
 * and by apply or discard while they work, holds:
 *   sK/upper, sK/work  the overlay's dirs (layer-review.c), one slot per
 *                      mount namespace of the run (normally s0 only);
 *   record             written at the run's end: what changed, and what
 *                      each changed path's real counterpart was then;
 *   applying           made before an apply's first change.
 * A dir without a record belongs to a run that did not end (killed): it
 * holds nothing that can land, and is swept once unlocked; a record older
 * than CORDON_REVIEW_EXPIRY_DAYS days is swept likewise.
 */
#ifndef CORDON_REVIEW_H
#define CORDON_REVIEW_H

#include "handle.h"
#include "json.h"

#include <stdint.h>
#include <sys/types.h>

#if defined(__APPLE__)
#define RV_MTIM(st) ((st).st_mtimespec)
#define RV_CTIM(st) ((st).st_ctimespec)
#define RV_ATIM(st) ((st).st_atimespec)
#else
#define RV_MTIM(st) ((st).st_mtim)
#define RV_CTIM(st) ((st).st_ctim)
#define RV_ATIM(st) ((st).st_atim)
#endif

/* What one held change does (kind) and what it holds (type). */
enum rkind { RK_ADDED = 'a', RK_MODIFIED = 'm', RK_DELETED = 'd', RK_MODE = 'p', RK_SYMLINK = 'l' };
/* Types: 'f' file, 'd' dir, 'l' symlink, 'p' fifo, 's' socket, 'o' other,
 * '-' none (a deletion held; the real path absent). */

/* A path's state as lstat saw it (the real counterpart at the run's end,
 * or now). */
struct rstate {
	char type;
	long long size;
	long long mtime_s, mtime_ns, ctime_s, ctime_ns;
	unsigned long long ino, dev;
	/* A real dir the change removes (deleted, replaced): every entry
	 * below it, folded (review_tree_digest); else 0. */
	unsigned long long tree;
};

struct rchange {
	char *path; /* relative to the workspace, no leading '/' */
	char kind; /* enum rkind */
	char type; /* what the upper dir holds at path */
	int replaced; /* the real path goes first: an opaque dir, or another type */
	char slot[16]; /* "sK" */
	long long size; /* held bytes (symlink: target length) */
	unsigned mode; /* held mode bits (07777) */
	unsigned long long uino, udev; /* the held inode (a landed link is it) */
	struct rstate real; /* the real counterpart at the run's end */
};

struct rrecord {
	char *workspace; /* canonical */
	char *cwd; /* the run's working directory below the workspace ("" its top), or NULL */
	/* The run's protected paths below the workspace (--protect, the
	 * guards' held names), relative: nothing at or below one lands. */
	struct strv protect;
	long long ended; /* seconds since the epoch */
	struct rchange *v;
	size_t n, cap;
	int split; /* more than one slot holds changes */
};

/* The run's side (review.c): STATE/review/RUN_ID made and locked (the
 * backend's run_spec names it), the sweep of expired and dead ones. */
struct review {
	char dir[CORDON_PATH_MAX];
	int fd; /* the dir, locked while the run lives */
	int ended; /* the record is written */
	struct rrecord rec;
	size_t omitted; /* changes the exit event left out */
};

int review_begin(cordon *c);
/* The run's end (every process gone): the upper dirs walked, the record
 * written. 0 or an error (the held changes are then kept unrecorded). */
int review_end(cordon *c);
/* The run is over: the lock let go; a dir with no record removed. */
void review_release(cordon *c);
/* The exit event's "review" field. */
void review_exit_fields(struct jbuf *b, const cordon *c);
/* Expired and dead held runs of the state dir removed (locked each). */
void review_sweep(cordon *c);
/* 1 when --review cannot be held in this run's decision (no mount
 * layer, confinement off or unavailable). Pure. */
int review_refused(const struct decision *d);
/* What --review gets from a decision in a mode: held aside (the mount
 * layer); else a gap where auto runs without it (the writes land at
 * once: Landlock alone, confinement unavailable, macOS), a refusal in
 * required mode and off (which holds nothing). Pure. */
enum review_hold { REVIEW_HELD, REVIEW_GAP, REVIEW_REFUSED };
enum review_hold review_hold_in(const struct decision *d, enum cordon_mode mode);
/* --review in the run's decision as it is now: the layer review where it
 * is held; else the gap review_not_held, and the run's review dir (made
 * by a plan that assumed a mount layer) dropped. REVIEW_HELD without
 * --review. */
enum review_hold review_coverage(cordon *c);

/* reviewrec.c: the record, and the walk that makes it. */
/* Walk the slots of dir against the real workspace ws, into rec. 0 or
 * -1 with errno. */
int review_walk(const char *dir, const char *ws, struct rrecord *rec);
/* The state of the real path at (dirfd, name); dirfd -1: absent. For a
 * dir the change removes (with_tree), its tree digest too. */
void review_real_state(int dirfd, const char *name, int with_tree, struct rstate *st);
int review_same_state(const struct rstate *a, const struct rstate *b);
int review_record_write(const char *dir, const struct rrecord *rec);
int review_record_read(const char *dir, struct rrecord *rec);
/* The record's text (len bytes of buf, which it may change) into rec:
 * 0, or -1 with rec empty. */
int review_record_parse(char *buf, size_t len, struct rrecord *rec);
void review_record_free(struct rrecord *rec);
/* The kind's name ("added"...). */
const char *review_kind_name(char kind);
/* The dir holding rel (relative, below root_fd), each component opened
 * without following a symlink: an fd (close-on-exec), *leaf pointing at
 * rel's last component; -1 with errno. */
int review_parent_fd(int root_fd, const char *rel, const char **leaf);

/* reviewapply.c / reviewshow.c: a held run opened for cordon apply,
 * discard, changes and diff: its dir locked (fd), its record read
 * (rec.workspace NULL when need_record is 0 and there is none). 0, or
 * an error with its message. */
struct held {
	char dir[CORDON_PATH_MAX];
	int fd;
	struct rrecord rec;
};
int review_held_open(cordon *c, const char *run_id, int need_record, struct held *h);
void review_held_close(struct held *h);
/* The held run's dir removed (its lock held): 0 or -1. */
int review_held_remove(struct held *h);
/* One apply's state (reviewland.c), judged by reviewapply.c. */
#define REVIEW_SLOTS 8
struct apply {
	cordon *c;
	struct held *h;
	int ws; /* the real workspace */
	int upper[REVIEW_SLOTS]; /* each slot's upper dir, by K, or -1 */
	int applying; /* an earlier apply was cut short */
	char *skip; /* per change: 1 dropped (a guard's), 2 landed already */
	unsigned long tmpseq;
};
/* The guards' judgement of every held change: those dropped marked in
 * a->skip and listed in c->refused. CORDON_ETAMPERED (nothing changed)
 * when any is and drop is 0. */
int review_judge_all(struct apply *a, int drop);
/* Change i lies below one of the dirs stacked (earlier changes' indices;
 * those it is not below are popped): O(1) amortised in the record's
 * order. */
int review_below(const struct rrecord *rec, size_t *stack, size_t *n, size_t i);
/* The held entry's parent dir in its upper dir (review_parent_fd). */
int review_upper_parent(struct apply *a, const struct rchange *ch, const char **leaf);
/* The last apply's refusals (cordon_apply_refused_*) freed. */
void review_refused_free(cordon *c);
struct review_refused {
	char *path;
	const char *reason; /* static */
};

/* STATE/review/RUN_ID of the handle's state dir into out (made when
 * make): 0, -1 (bad id, too long, no state dir: the message set). */
int review_dir_of(cordon *c, const char *run_id, char *out, int make);

#endif
