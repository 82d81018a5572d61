/*
 * The guards' judgement of a review run's held changes (reviewjudge.c),
 * for cordon apply. Pure but for reading the two files it is given.
 */
#ifndef CORDON_REVIEWJUDGE_H
#define CORDON_REVIEWJUDGE_H

struct judge_in {
	char kind; /* 'a' added, 'm' modified, 'd' deleted, 'p' mode, 'l' symlink */
	char type; /* held: 'f' file, 'd' dir, 'l' symlink, ... */
	const char *cwd; /* the run's working directory below the workspace, or NULL */
	int held_fd; /* the held file, readable, or -1 */
	int real_fd; /* the real file at the same path, readable, or -1 */
	int beside_head; /* a file named HEAD lies in the same directory (held or real) */
	unsigned mode; /* the held mode bits */
};

/* Why a guard would move aside the held change at rel (relative to the
 * workspace): a static reason, or NULL when it may land. */
const char *reviewjudge(const char *rel, const struct judge_in *j);

#endif
