/*
 * The directories a run touched, told by the kernel (gitwatch.c): what
 * lets the git guard's end check only those, as root on Linux. Internal.
 */
#ifndef CORDON_GITWATCH_H
#define CORDON_GITWATCH_H

struct gitwatch;
struct strv;

/* Watch the file systems of the workspace and of every mount below it,
 * and the same for each directory of extra (--allow-write; NULL: none),
 * from now on: NULL when this process cannot (not root, no fanotify, a
 * mark refused), and the guard then looks at every tracked directory. */
struct gitwatch *gitwatch_start(const char *workspace, const struct strv *extra);
/* After every process of the run is gone: read what is left. 0 when
 * the answers below can be trusted; -1 when they cannot (the queue
 * overflowed, an error): then nothing it says counts. */
int gitwatch_end(struct gitwatch *w);
/* dir (absolute, normalised) had an entry made or moved in, its
 * metadata changed or a file in it written, or was itself made, moved
 * in or had its metadata changed. */
int gitwatch_touched(const struct gitwatch *w, const char *dir);
/* dir was moved into place (what is below it came with it). */
int gitwatch_moved(const struct gitwatch *w, const char *dir);
/* The entries with an agent-configuration name (or holding one of the
 * run's changes: the topmost such name on the way), sorted: what the run
 * made or changed there. NULL where there is no watch. */
const struct strv *gitwatch_named(const struct gitwatch *w);
/* The directories the run touched (sorted, each once). */
const struct strv *gitwatch_dirs(const struct gitwatch *w);
/* An --allow-write directory given to gitwatch_start is not watched (its
 * file system refused a mark): 1. */
int gitwatch_partial(const struct gitwatch *w);
void gitwatch_free(struct gitwatch *w);

#endif
