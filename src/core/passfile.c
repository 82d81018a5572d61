/*
 * Pass files (cordon_add_pass_file, --pass-file): single files outside
 * the writable set that the command may create and write, at their own
 * path, such as the file in which Claude Code's shell string leaves its
 * final directory (`pwd -P >| /tmp/claude-XXXX-cwd`).
 *
 * Before the run each is made here, owner-only, or found: never through
 * a symlink (its directory is resolved, its last component opened with
 * O_NOFOLLOW), a regular file of the caller's with one link, in a
 * directory no other user may rename it in (not writable by group or
 * others, or sticky). Its canonical path then joins the writable set as
 * a file (policy.c), where each layer grants it as it grants a file of
 * --allow-write: bound at its path in the run's private /tmp, granted by
 * Landlock, by the Seatbelt profile. After the run, a file made here that
 * the command left empty is removed, so that a caller that looks for it
 * finds what it would have found had the command not run: no file.
 */
#include "handle.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct passfile {
	char path[CORDON_PATH_MAX]; /* canonical */
	dev_t dev;
	ino_t ino;
	int made; /* made by this run */
};

/* The directory part of given (resolved) and its last component. */
static int split(cordon *c, const char *given, char *dir, const char **base)
{
	char tmp[CORDON_PATH_MAX];
	const char *slash = strrchr(given, '/');
	const char *b = slash != NULL ? slash + 1 : given;
	*base = b;
	if (b[0] == '\0' || strcmp(b, ".") == 0 || strcmp(b, "..") == 0)
		return cordon_fail(c, CORDON_EINVAL, "--pass-file %s does not name a file", given);
	if (slash == NULL)
		strcpy(tmp, ".");
	else if (slash == given)
		strcpy(tmp, "/");
	else
		snprintf(tmp, sizeof(tmp), "%.*s", (int)(slash - given), given);
	if (realpath(tmp, dir) == NULL)
		return cordon_fail(c, CORDON_EINVAL, "--pass-file %s: its directory: %s", given,
				   strerror(errno));
	return 0;
}

/* The directory no other user may rename a file in: not writable by
 * group or others, or sticky. 0 or an error. */
static int dir_safe(cordon *c, const char *given, const char *dir, int dfd)
{
	struct stat ds;
	if (fstat(dfd, &ds) != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "--pass-file %s", given);
	if ((ds.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (ds.st_mode & S_ISVTX) == 0)
		return cordon_fail(
			c, CORDON_EREFUSED,
			"refusing --pass-file %s: its directory %s is writable by others "
			"and not sticky (another user could replace the file)",
			given, dir);
	return 0;
}

/* The file base in the directory dfd, made when missing, checked as the
 * head comment says. 0 or an error; a file made here that fails the
 * checks is removed again. */
static int open_checked(cordon *c, const char *given, int dfd, const char *base,
			struct passfile *pf)
{
	struct stat st;
	pf->made = 1;
	int fd = openat(dfd, base, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		pf->made = 0;
		fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			return cordon_fail(c, CORDON_EREFUSED,
					   "refusing --pass-file %s: it is a symlink", given);
		return cordon_fail_errno(c, CORDON_EINVAL, e, "--pass-file %s", given);
	}
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		 st.st_nlink == 1;
	close(fd);
	if (!ok) {
		if (pf->made)
			(void)unlinkat(dfd, base, 0);
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing --pass-file %s: not a regular file of this user's "
				   "with one link",
				   given);
	}
	pf->dev = st.st_dev;
	pf->ino = st.st_ino;
	return 0;
}

/* One pass file: its directory resolved and checked (not in the state
 * dir, whose files cordon trusts), the file made or found. */
static int prepare_one(cordon *c, const char *given, struct passfile *pf)
{
	char dir[CORDON_PATH_MAX], state[CORDON_PATH_MAX], sreal[CORDON_PATH_MAX];
	const char *base = NULL;
	int r = split(c, given, dir, &base);
	if (r != 0)
		return r;
	if (snprintf(pf->path, sizeof(pf->path), "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/",
		     base) >= (int)sizeof(pf->path))
		return cordon_fail(c, CORDON_EINVAL, "--pass-file %s: path too long", given);
	if (runtmp_state_dir(c, state, sizeof(state)) == 0 && realpath(state, sreal) != NULL &&
	    path_within(sreal, pf->path))
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing --pass-file %s: it is in cordon's state directory",
				   given);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "--pass-file %s", given);
	if ((r = dir_safe(c, given, dir, dfd)) == 0)
		r = open_checked(c, given, dfd, base, pf);
	close(dfd);
	return r;
}

int passfile_prepare(cordon *c)
{
	if (c->pass_file.n == 0)
		return 0;
	c->passfiles = calloc(c->pass_file.n, sizeof(*c->passfiles));
	if (c->passfiles == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->pass_file.n; i++) {
		int r = prepare_one(c, c->pass_file.v[i], &c->passfiles[i]);
		if (r != 0)
			return r;
		c->npassfiles = i + 1;
	}
	return 0;
}

size_t passfile_count(const cordon *c)
{
	return c->npassfiles;
}

const char *passfile_path(const cordon *c, size_t i)
{
	return c->passfiles[i].path;
}

void passfile_release(cordon *c)
{
	struct stat st;
	for (size_t i = 0; i < c->npassfiles; i++) {
		const struct passfile *pf = &c->passfiles[i];
		/* Still the file made here (no one else may rename it in its
		 * directory, and the run's processes are gone), and empty. */
		if (pf->made && lstat(pf->path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_dev == pf->dev && st.st_ino == pf->ino && st.st_size == 0)
			(void)unlink(pf->path);
	}
	free(c->passfiles);
	c->passfiles = NULL;
	c->npassfiles = 0;
}
