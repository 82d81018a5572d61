/*
 * The run's own dir: STATE_DIR/runs/XXXXXX, made with mkdtemp (0700)
 * before confinement, held with an flock for the life of the run, and
 * removed at its end by remove_tree_at() (fsutil.c): directory fds only
 * (openat/unlinkat with O_NOFOLLOW), so a symlink planted by the command
 * is removed, never followed, however deep the tree.
 *
 * The dirs met in it are moved out of it, into a locked dir of their own
 * beside it (when it holds any): the command's write access (Landlock's
 * rule is on the run's dir) does not follow them, so a process of the run
 * that outlived it can add entries only to the run's dir itself, and
 * cannot keep its removal going (see clear() in fsutil.c).
 *
 * A dir whose lock nobody holds belongs to a run that died (or a removal
 * that stopped). Later runs remove them: a thread of the run, started when
 * runs/ holds such a dir, works while the command runs and is stopped and
 * joined at the end of the run, with a budget of entries per run; the
 * next run goes on where it stopped.
 *
 * It is the command's TMPDIR: one directory per run (each directory made
 * and removed costs a journal transaction on ext4).
 */
#include "handle.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries a run's sweep may remove (it stops sooner at the run's end, but
 * not before it has done SWEEP_LEAST, so that dead runs' dirs go away even
 * when every run is short), and entries the removal of the run's own dir
 * may remove: beyond it what is left is a dead run's dir, for the sweeps.
 * Each entry is a few system calls. */
#define SWEEP_BUDGET 65536ul
#define SWEEP_LEAST 16ul
#define REMOVE_BUDGET 4194304ul

struct runtmp_sweep {
	pthread_t thread;
	pid_t pid; /* the process the thread runs in (not a forked child) */
	int runs_fd;
	int stop;
	char own[16]; /* the run's own dir's name */
};

int runtmp_state_dir(const cordon *c, char *out, size_t outlen)
{
	const char *x = getenv("XDG_STATE_HOME");
	const char *outer = getenv("CORDON_RUN_ID"), *tmp = getenv("TMPDIR");
	int n;

	if (c->state_dir_opt != NULL)
		n = snprintf(out, outlen, "%s", c->state_dir_opt);
	else if (outer != NULL && outer[0] != '\0' && tmp != NULL && tmp[0] == '/')
		/* Inside a confined run (a nested cordon): the outer run's
		 * temp dir, the one place it lets a command keep state; the
		 * home and XDG_STATE_HOME are read-only there. */
		n = snprintf(out, outlen, "%s/cordon", tmp);
	else if (x != NULL && x[0] == '/')
		n = snprintf(out, outlen, "%s/cordon", x);
	else if (c->home_set) {
		/* $HOME's only (with HOME unset, the password database's home
		 * is not where the caller lets cordon write), and never one
		 * that does not exist (HOME=/nonexistent): cordon would make
		 * it. */
		struct stat st;
		if (stat(c->homes[0], &st) != 0 || !S_ISDIR(st.st_mode))
			return -3;
		n = snprintf(out, outlen, "%s/.local/state/cordon", c->homes[0]);
	} else
		return -1;
	return n > 0 && (size_t)n < outlen ? 0 : -2;
}

/* The dir name in runs/, open on fd, locked now by this fd: nobody else
 * holds its lock, and it is still there under its name (not a dir that a
 * sweep removed, whose name a new run has taken since). */
static int locked_here(int runs_fd, const char *name, int fd, int nonblock)
{
	struct stat a, b;
	return flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0)) == 0 && fstat(fd, &a) == 0 &&
	       fstatat(runs_fd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* A fresh dir in runs/ (runs: its path), locked: its fd, its path in tmpl.
 * -1 with errno when mkdtemp fails, -2 after too many lost races. */
static int locked_dir(const char *runs, int runs_fd, char *tmpl, size_t len)
{
	for (int attempt = 0; attempt < 16; attempt++) {
		if (snprintf(tmpl, len, "%s/XXXXXX", runs) >= (int)len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (mkdtemp(tmpl) == NULL)
			return -1;
		const char *name = strrchr(tmpl, '/') + 1;
		int fd = openat(runs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* A concurrent sweep may have taken the fresh dir for a dead
		 * run's: once locked, check it is still there under its name. */
		if (locked_here(runs_fd, name, fd, 0))
			return fd;
		close(fd);
	}
	return -2;
}

/* A dir of runs/ opened to be locked. One made unreadable (by its run's
 * command, which may chmod its TMPDIR) is made 0700 first: a dead run's
 * must be swept, and a live run's TMPDIR is its command's to chmod again. */
static int open_run_dir(int runs_fd, const char *name)
{
	int fd = openat(runs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && fchmodat(runs_fd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(runs_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* Whether runs/ holds a dir, other than own, that nobody locks. */
static int any_dead(int runs_fd, const char *own)
{
	DIR *d = dir_stream(runs_fd);
	int found = 0;
	if (d == NULL)
		return 0;
	struct dirent *e;
	while (!found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, own) == 0)
			continue;
		int dfd = open_run_dir(runs_fd, e->d_name);
		if (dfd < 0)
			continue;
		found = flock(dfd, LOCK_EX | LOCK_NB) == 0;
		close(dfd);
	}
	closedir(d);
	return found;
}

/* The sweep: dead runs' dirs removed, each held locked meanwhile, until
 * the run's budget is spent or the run ends. */
static void *sweep_main(void *arg)
{
	struct runtmp_sweep *s = arg;
	/* Not niced: the run's end waits for it, and a thread that must
	 * be joined gets no CPU behind busy ones (a loaded machine). */
	struct rm_budget b = { SWEEP_BUDGET, SWEEP_LEAST, &s->stop, 0, 0, 0 };
	DIR *d = dir_stream(s->runs_fd);
	if (d == NULL)
		return NULL;
	struct dirent *e;
	while (!b.out && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, s->own) == 0)
			continue;
		int dfd = open_run_dir(s->runs_fd, e->d_name);
		if (dfd < 0)
			continue;
		if (locked_here(s->runs_fd, e->d_name, dfd, 1))
			(void)remove_tree_at(s->runs_fd, e->d_name, dfd, -1, &b);
		close(dfd);
	}
	closedir(d);
	return NULL;
}

/* Start the sweep when there is something to sweep (a run that finds only
 * live runs' dirs starts no thread). Takes runs_fd. */
static void sweep_start(cordon *c, int runs_fd, const char *own)
{
	struct runtmp_sweep *s;
	sigset_t all, old;
	if (!any_dead(runs_fd, own) || (s = calloc(1, sizeof(*s))) == NULL) {
		close(runs_fd);
		return;
	}
	s->pid = getpid();
	s->runs_fd = runs_fd;
	snprintf(s->own, sizeof(s->own), "%s", own);
	/* It takes no signal meant for the caller. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&s->thread, NULL, sweep_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		close(runs_fd);
		free(s);
		return;
	}
	c->sweep = s;
}

/* Stop the sweep at its next entry and wait for it. In a child forked
 * while it ran there is no thread: only the memory is freed. */
static void sweep_stop(cordon *c)
{
	struct runtmp_sweep *s = c->sweep;
	if (s == NULL)
		return;
	c->sweep = NULL;
	if (s->pid == getpid()) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
		pthread_join(s->thread, NULL);
	}
	close(s->runs_fd);
	free(s);
}

/* path (or fd, when >= 0) is a directory, not a symlink, owned by the
 * effective user and not writable by group or others. */
static int owned_dir(cordon *c, const char *path, int fd)
{
	struct stat st;
	if ((fd >= 0 ? fstat(fd, &st) : lstat(path, &st)) != 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "state directory %s", path);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing the state directory: %s must be a directory (not a "
				   "symlink) owned by uid %ld and not writable by group or others",
				   path, (long)geteuid());
	return 0;
}

int runtmp_state_of_run(const cordon *c, char *out, size_t outlen)
{
	/* The run's dir is STATE/runs/XXXXXX, STATE canonical. */
	const char *runs = c->rundir != NULL ? strrchr(c->rundir, '/') : NULL;
	size_t n = runs != NULL ? (size_t)(runs - c->rundir) : 0;
	while (n > 0 && c->rundir[n - 1] != '/')
		n--;
	/* n: the length of "STATE/"; STATE "/" is none. */
	if (n < 2 || n > outlen)
		return -1;
	memcpy(out, c->rundir, n - 1);
	out[n - 1] = '\0';
	return 0;
}

int runtmp_caches_dir(const cordon *c, char *out, size_t outlen)
{
	struct stat st;
	char state[CORDON_PATH_MAX];
	if (runtmp_state_of_run(c, state, sizeof(state)) != 0 ||
	    path_join(out, outlen, state, "caches") != 0)
		return -1;
	if (mkdir(out, 0700) != 0 && errno != EEXIST)
		return -1;
	if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0)
		return -1;
	return 0;
}

/* The state dir (--state-dir, XDG_STATE_HOME or the home's), checked
 * and made, canonical into real (CORDON_PATH_MAX bytes). 0 or an error
 * with its message. */
static int state_dir_ready(cordon *c, char *real)
{
	char state[CORDON_PATH_MAX];
	int sr = runtmp_state_dir(c, state, sizeof(state));
	if (sr == -2)
		return cordon_fail(c, CORDON_EINVAL,
				   "the state directory's path would be longer than %d bytes "
				   "(--state-dir, XDG_STATE_HOME or HOME)",
				   CORDON_PATH_MAX - 1);
	if (sr == -3)
		return cordon_fail(
			c, CORDON_EINVAL,
			"no state directory: the home %s does not exist (set --state-dir "
			"or XDG_STATE_HOME)",
			c->homes[0]);
	if (sr != 0) {
		const char *h = getenv("HOME"), *what = "unusable";
		if (h == NULL || h[0] == '\0')
			what = h == NULL ? "unset" : "empty";
		return cordon_fail(c, CORDON_EINVAL,
				   "HOME is %s: give --state-dir DIR or set XDG_STATE_HOME", what);
	}
	/* The state dir is where runs' dirs are made and swept: a command
	 * must not be able to move it (a symlink planted in a writable tree)
	 * or write it (inside a writable tree, or writable by others). */
	int rr = policy_resolve_untampered(&c->pol, state, real, CORDON_PATH_MAX);
	if (rr == POLICY_REDIRECTED)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing the state directory %s: it leads through a symlink "
				   "inside a writable tree (%s)",
				   state, real);
	if (rr != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "state directory %s", state);
	if (policy_inside_untrusted(&c->pol, real))
		return cordon_fail(
			c, CORDON_EREFUSED,
			"refusing the state directory %s: it is inside a tree the command "
			"may write (--state-dir elsewhere)",
			state);
	if (mkdir_p(real) != 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "cannot create state directory %s",
					 state);
	return owned_dir(c, real, -1);
}

int runtmp_create(cordon *c)
{
	char real[CORDON_PATH_MAX], tmpl[CORDON_PATH_MAX];
	int r;

	if ((r = state_dir_ready(c, real)) != 0)
		return r;
	if (snprintf(tmpl, sizeof(tmpl), "%s/runs", real) >= (int)sizeof(tmpl))
		return cordon_fail(c, CORDON_EINVAL, "state directory path too long");
	if (mkdir(tmpl, 0700) != 0 && errno != EEXIST)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "cannot create %s", tmpl);
	int runs_fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (runs_fd < 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "cannot open %s", tmpl);
	if ((r = owned_dir(c, tmpl, runs_fd)) != 0) {
		close(runs_fd);
		return r;
	}

	char runs[CORDON_PATH_MAX];
	memcpy(runs, tmpl, sizeof(runs));
	int fd = locked_dir(runs, runs_fd, tmpl, sizeof(tmpl));
	if (fd < 0) {
		int e = errno;
		close(runs_fd);
		if (fd == -1)
			return cordon_fail_errno(c, CORDON_ESYS, e,
						 "cannot create the run's temp dir in %s", runs);
		return cordon_fail(c, CORDON_ESYS, "cannot create the run's temp dir in %s", runs);
	}
	c->rundir = strdup(tmpl);
	if (c->rundir == NULL) {
		close(fd);
		close(runs_fd);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	c->tmp_lock_fd = fd;
	sweep_start(c, runs_fd, strrchr(tmpl, '/') + 1);
	return 0;
}

int runtmp_remove(cordon *c)
{
	struct rm_budget b = { REMOVE_BUDGET, 0, NULL, 0, 0, 0 };
	char *slash = c->rundir ? strrchr(c->rundir, '/') : NULL;
	int r = 0;

	sweep_stop(c);
	if (slash != NULL) {
		char queue[CORDON_PATH_MAX];
		*slash = '\0';
		int runs_fd = open(c->rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* Dirs are emptied outside the run's dir, out of the command's
		 * reach: in a dir of their own, made when it holds any (a
		 * link count other than 2; btrfs always says 1). */
		struct stat st;
		int qfd = -1;
		if (runs_fd >= 0 && c->tmp_lock_fd >= 0 && fstat(c->tmp_lock_fd, &st) == 0 &&
		    st.st_nlink != 2)
			qfd = locked_dir(c->rundir, runs_fd, queue, sizeof(queue));
		*slash = '/';
		if (runs_fd >= 0) {
			r = remove_tree_at(runs_fd, slash + 1, c->tmp_lock_fd, qfd, &b);
			if (qfd >= 0 &&
			    unlinkat(runs_fd, strrchr(queue, '/') + 1, AT_REMOVEDIR) != 0)
				r = -1;
			close(runs_fd);
		} else {
			r = -1;
		}
		if (qfd >= 0)
			close(qfd);
		if (r != 0 && b.out)
			(void)cordon_fail(
				c, CORDON_ESYS,
				"the run's temp dir %s was not removed entirely: more than "
				"%lu entries; later runs' sweeps go on",
				c->rundir, REMOVE_BUDGET);
		else if (r != 0)
			(void)cordon_fail(
				c, CORDON_ESYS,
				"the run's temp dir %s was not removed entirely: an entry "
				"could not be removed, or entries kept being added; later "
				"runs' sweeps try again",
				c->rundir);
	}
	if (c->tmp_lock_fd >= 0)
		close(c->tmp_lock_fd);
	c->tmp_lock_fd = -1;
	free(c->rundir);
	c->rundir = NULL;
	return r;
}
