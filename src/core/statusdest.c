/*
 * Where the status events go: the status fd and the status file
 * (cordon_set_status_fd, cordon_set_status_file), checked when a run
 * begins.
 *
 * The events are what a caller trusts to learn what a run did (its exit
 * code, what it planted). A file the command can write, rename or
 * replace is not such a place: with the status file in the workspace a
 * command renamed it and left a forged exit event at its name, while
 * cordon's true events went to the renamed inode. Landlock alone cannot
 * keep one file of a writable tree from being renamed (it grants whole
 * trees), so such a destination is refused, on every host alike, rather
 * than protected where a mount layer could: a regular file or FIFO
 * inside any tree a command of some run may write (the workspace,
 * --allow-write paths, the tool caches' locations, the state dir's
 * runs/ and caches/), whether named by --status-file or open on the
 * status fd (its path from /proc/self/fd, F_GETPATH on macOS), and one
 * with other names (st_nlink > 1) on the file system of such a tree,
 * which cordon cannot find without a walk. A status fd the command is
 * given itself (--keep-fd) is refused too. Pipes, sockets, terminals
 * and other devices have no name a command could replace.
 */
#include "handle.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file a command could write or replace: a regular file or a FIFO
 * (both named in a file system), or nothing yet (st NULL). */
static int replaceable_kind(const struct stat *st)
{
	return st == NULL || S_ISREG(st->st_mode) || S_ISFIFO(st->st_mode);
}

/* The i-th tree some run's command may write (0 first): the writable
 * set (a file entry is a tree of one), the caches' locations, the state
 * dir's runs/ (the run's own dir and those of other runs, in buf);
 * "" for an entry that is none (a device), NULL past the last. */
static const char *tree_at(const cordon *c, size_t i, char *buf, size_t len)
{
	const struct policy *p = &c->pol;
	if (i < p->nw)
		return p->w[i].kind == W_DEVICE ? "" : p->w[i].path;
	i -= p->nw;
	if (i < p->nuntrusted)
		return p->untrusted != NULL ? p->untrusted[i] : "";
	if (i > p->nuntrusted)
		return NULL;
	const char *slash = c->rundir != NULL ? strrchr(c->rundir, '/') : NULL;
	if (slash == NULL || (size_t)(slash - c->rundir) >= len)
		return "";
	memcpy(buf, c->rundir, (size_t)(slash - c->rundir));
	buf[slash - c->rundir] = '\0';
	return buf;
}

/* The tree that holds path (canonical), or NULL. */
static const char *writable_holder(const cordon *c, const char *path, char *buf, size_t len)
{
	const char *t;
	for (size_t i = 0; (t = tree_at(c, i, buf, len)) != NULL; i++)
		if (t[0] != '\0' && path_within(t, path))
			return t;
	return NULL;
}

/* A tree on the file system dev, or NULL. */
static const char *writable_on_dev(const cordon *c, dev_t dev, char *buf, size_t len)
{
	const char *t;
	struct stat st;
	for (size_t i = 0; (t = tree_at(c, i, buf, len)) != NULL; i++)
		if (t[0] != '\0' && stat(t, &st) == 0 && st.st_dev == dev)
			return t;
	return NULL;
}

/* The open file on fd (the status fd, or the opened status file, named
 * what): refused when a command could reach it by a name. 0 or an
 * error with its message. */
static int check_open_file(cordon *c, int fd, const char *what)
{
	char path[CORDON_PATH_MAX], buf[CORDON_PATH_MAX];
	const char *tree;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "%s", what);
	if (!replaceable_kind(&st) || st.st_nlink == 0)
		return 0; /* no name a command could use */
	int named = fd_path(fd, path, sizeof(path)) == 0;
	if (!named && S_ISFIFO(st.st_mode))
		return 0; /* a pipe ("pipe:[N]"), not a FIFO with a name */
	if (!named)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing %s: cannot tell where its file lies (no /proc?), "
				   "and it may lie in a tree the command may write",
				   what);
	if ((tree = writable_holder(c, path, buf, sizeof(buf))) != NULL)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing %s: its file %s lies inside %s, which the command "
				   "may write (it could replace the file and forge the events); "
				   "write the events outside every writable tree",
				   what, path, tree);
	/* A name removed while another stays: the kernel names the removed
	 * one, " (deleted)"; the other may lie anywhere. */
	size_t n = strlen(path);
	int renamed = n > 10 && strcmp(path + n - 10, " (deleted)") == 0;
	if ((st.st_nlink > 1 || renamed) &&
	    (tree = writable_on_dev(c, st.st_dev, buf, sizeof(buf))) != NULL)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing %s: its file %s has %lu names, on the file system of "
				   "%s, which the command may write (another name may lie there)",
				   what, path, (unsigned long)st.st_nlink, tree);
	return 0;
}

int statusdest_check_fd(cordon *c)
{
	char what[64];
	if (c->status_fd < 0 || c->mode == CORDON_MODE_OFF)
		return 0;
	for (size_t i = 0; i < c->nkeep; i++)
		if (c->keep_fds[i] == c->status_fd)
			return cordon_fail(c, CORDON_EINVAL,
					   "refusing status fd %d: it is also a --keep-fd, so the "
					   "command could write events of its own",
					   c->status_fd);
	snprintf(what, sizeof(what), "status fd %d", c->status_fd);
	return check_open_file(c, c->status_fd, what);
}

/* The directory and last component of the status file's name, the
 * directory resolved (not through a symlink a command may have planted)
 * and joined again into full. 0 or an error with its message. */
static int status_file_path(cordon *c, char *full, size_t len)
{
	char dir[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	const char *name = c->status_file;
	const char *slash = strrchr(name, '/');
	const char *base = slash != NULL ? slash + 1 : name;
	size_t dl = slash == NULL ? 0 : slash == name ? 1 : (size_t)(slash - name);
	if (slash == NULL)
		memcpy(dir, ".", 2);
	else {
		memcpy(dir, name, dl); /* dl < strlen(name) < CORDON_PATH_MAX */
		dir[dl] = '\0';
	}
	if (base[0] == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return cordon_fail_errno(c, CORDON_EINVAL, EISDIR, "cannot open status file %s",
					 name);
	int r = policy_resolve_untampered(&c->pol, dir, real, sizeof(real));
	if (r == POLICY_REDIRECTED)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing status file %s: it leads through a symlink inside a "
				   "writable tree (%s), which a confined run may have planted",
				   name, real);
	if (r != 0 || path_join(full, len, real, base) != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, r != 0 ? errno : ENAMETOOLONG,
					 "cannot open status file %s", name);
	return 0;
}

/* The status file, once the writable set is known. Its directory is
 * resolved without following a symlink inside a writable tree; its last
 * component is opened with O_NOFOLLOW wherever it lies, so a symlink there
 * is refused even outside every writable tree of this run (an earlier run
 * with another workspace may have planted it). The events are never
 * appended to a file the name does not itself name. Confined (not in
 * "off"), a file inside a writable tree is refused before it is made. */
int statusdest_open_file(cordon *c)
{
	char full[CORDON_PATH_MAX], buf[CORDON_PATH_MAX], what[CORDON_PATH_MAX + 16];
	const char *name = c->status_file, *tree;
	struct stat st;
	int r;
	if (name == NULL)
		return 0;
	if ((r = status_file_path(c, full, sizeof(full))) != 0)
		return r;
	int exists = lstat(full, &st) == 0;
	if (c->mode != CORDON_MODE_OFF && replaceable_kind(exists ? &st : NULL) &&
	    (tree = writable_holder(c, full, buf, sizeof(buf))) != NULL)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing status file %s: it lies inside %s, which the command "
				   "may write (it could replace the file and forge the events); "
				   "write the events outside every writable tree",
				   name, tree);
	c->status_file_fd =
		open(full, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600);
	if (c->status_file_fd < 0) {
		int e = errno;
		if (e == ELOOP && lstat(full, &st) == 0 && S_ISLNK(st.st_mode))
			return cordon_fail(
				c, CORDON_EREFUSED,
				"refusing status file %s: it is a symlink, which is not followed "
				"(name the file itself, or use --status-fd)",
				name);
		return cordon_fail_errno(c, CORDON_EINVAL, e, "cannot open status file %s", name);
	}
	snprintf(what, sizeof(what), "status file %s", name);
	return c->mode == CORDON_MODE_OFF ? 0 : check_open_file(c, c->status_file_fd, what);
}
