/*
 * The run's own dir: STATE_DIR/runs/XXXXXX, made with mkdtemp (0700)
 * before confinement, held with an flock for the life of the run, and
 * removed at its end by a walk that works on directory fds only
 * (openat/unlinkat with O_NOFOLLOW), so a symlink planted by the command
 * is removed, never followed. A dir whose lock nobody holds belongs to a
 * run that died; the next run removes it.
 *
 * It is the command's TMPDIR: one directory per run (each directory made
 * and removed costs a journal transaction on ext4).
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int runtmp_state_dir(const cordon *c, char *out, size_t outlen)
{
	const char *x = getenv("XDG_STATE_HOME");
	int n;

	if (c->state_dir_opt != NULL)
		n = snprintf(out, outlen, "%s", c->state_dir_opt);
	else if (x != NULL && x[0] == '/')
		n = snprintf(out, outlen, "%s/cordon", x);
	else if (c->nhomes > 0) {
		/* Never under a home that does not exist (HOME=/nonexistent):
		 * cordon would make it. */
		struct stat st;
		if (stat(c->homes[0], &st) != 0 || !S_ISDIR(st.st_mode))
			return -3;
		n = snprintf(out, outlen, "%s/.local/state/cordon", c->homes[0]);
	} else
		return -1;
	return n > 0 && (size_t)n < outlen ? 0 : -2;
}

/* Remove dirs of runs that died: nobody holds their lock. */
static void sweep(int runs_fd, const char *own)
{
	int dfd = dup(runs_fd);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, own) == 0)
			continue;
		int fd =
			openat(runs_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			(void)remove_tree_at(runs_fd, e->d_name);
		close(fd);
	}
	closedir(d);
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

int runtmp_create(cordon *c)
{
	char state[CORDON_PATH_MAX], real[CORDON_PATH_MAX], tmpl[CORDON_PATH_MAX];
	struct stat a, b;
	int r;

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
	if (sr != 0)
		return cordon_fail(c, CORDON_EINVAL, "no state directory: set --state-dir or HOME");
	/* The state dir is where runs' dirs are made and swept: a command
	 * must not be able to move it (a symlink planted in a writable tree)
	 * or write it (inside a writable tree, or writable by others). */
	int rr = policy_resolve_untampered(&c->pol, state, real, sizeof(real));
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
	if ((r = owned_dir(c, real, -1)) != 0)
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

	for (int attempt = 0; attempt < 16; attempt++) {
		if (snprintf(tmpl, sizeof(tmpl), "%s/runs/XXXXXX", real) >= (int)sizeof(tmpl) ||
		    mkdtemp(tmpl) == NULL) {
			int e = errno;
			close(runs_fd);
			return cordon_fail_errno(c, CORDON_ESYS, e,
						 "cannot create the run's temp dir in %s/runs",
						 real);
		}
		const char *name = strrchr(tmpl, '/') + 1;
		int fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* A concurrent sweep may have taken the fresh dir for a dead
		 * run's: once locked, check it is still there under its name. */
		if (flock(fd, LOCK_EX) != 0 || fstat(fd, &a) != 0 ||
		    fstatat(runs_fd, name, &b, AT_SYMLINK_NOFOLLOW) != 0 || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev) {
			close(fd);
			continue;
		}
		c->rundir = strdup(tmpl);
		c->tmp_lock_fd = fd;
		sweep(runs_fd, name);
		close(runs_fd);
		if (c->rundir == NULL)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
		return 0;
	}
	close(runs_fd);
	return cordon_fail(c, CORDON_ESYS, "cannot create the run's temp dir in %s/runs", real);
}

void runtmp_remove(cordon *c)
{
	char *slash = c->rundir ? strrchr(c->rundir, '/') : NULL;
	if (slash != NULL) {
		*slash = '\0';
		int runs_fd = open(c->rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		*slash = '/';
		if (runs_fd >= 0) {
			(void)remove_tree_at(runs_fd, slash + 1);
			close(runs_fd);
		}
	}
	if (c->tmp_lock_fd >= 0)
		close(c->tmp_lock_fd);
	c->tmp_lock_fd = -1;
	free(c->rundir);
	c->rundir = NULL;
}
