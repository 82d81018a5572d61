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
 *
 * A path compared with paths misses a second view of the same directory:
 * a bind mount of the workspace (a container's volume, an fstab entry)
 * gives the file a name outside every tree while the command reaches it
 * through the workspace. On Linux each name is also compared where it
 * lies in its file system: the root of its mount (from
 * /proc/self/mountinfo, found by the mount id statx(2) gives) joined with
 * its path below the mount point; a file whose file system holds a tree
 * (same st_dev) at or above that place is refused too. One read of
 * mountinfo per check, only when a status destination is a named file.
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

#if defined(__linux__) && defined(STATX_MNT_ID)
/* A mountinfo field decoded (the kernel writes space, tab, newline and
 * backslash as \ooo) into out. 0, or -1 when it does not fit. */
static int mi_field(const char *f, size_t n, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = f[i];
		if (ch == '\\' && i + 3 < n && f[i + 1] >= '0' && f[i + 1] <= '3') {
			ch = (char)((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 +
				    (f[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= len)
			return -1;
		out[o++] = ch;
	}
	out[o] = '\0';
	return 0;
}

/* The id of the mount path lies on: 0, or -1. */
static int mount_id(const char *path, unsigned long long *id)
{
	struct statx sx;
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) != 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return -1;
	*id = sx.stx_mnt_id;
	return 0;
}

/* Where path (canonical, on mount mnt) lies in its file system, in out:
 * its mount's root joined with its path below the mount point. 0, or
 * -1. */
static int fs_place(const char *path, unsigned long long mnt, char *out, size_t len)
{
	char line[3 * CORDON_PATH_MAX], root[CORDON_PATH_MAX], point[CORDON_PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return -1;
	int r = -1;
	while (r != 0 && fgets(line, sizeof(line), f) != NULL) {
		/* ID PARENT MAJ:MIN ROOT POINT ... */
		char *id_end, *w[5] = { NULL, NULL, NULL, NULL, NULL };
		unsigned long long id = strtoull(line, &id_end, 10);
		if (id_end == line || id != mnt)
			continue;
		w[0] = line;
		for (int k = 1; k < 5 && w[k - 1] != NULL; k++) {
			char *sp = strchr(w[k - 1], ' ');
			w[k] = sp != NULL ? sp + 1 : NULL;
		}
		char *end = w[4] != NULL ? strchr(w[4], ' ') : NULL;
		if (end == NULL ||
		    mi_field(w[3], (size_t)(w[4] - 1 - w[3]), root, sizeof(root)) != 0 ||
		    mi_field(w[4], (size_t)(end - w[4]), point, sizeof(point)) != 0 ||
		    !path_within(point, path))
			break;
		const char *below = path + (strcmp(point, "/") == 0 ? 0 : strlen(point));
		int n = snprintf(out, len, "%s%s", strcmp(root, "/") == 0 ? "" : root, below);
		r = n > 0 && (size_t)n < len ? 0 : -1;
		if (r == 0 && out[0] == '\0')
			memcpy(out, "/", 2);
		break;
	}
	fclose(f);
	return r;
}

/* A tree that holds path in its file system through another name (a
 * bind mount of it, or of a directory below it), or NULL. A tree on
 * path's own mount was judged by its path already (writable_holder):
 * mountinfo is read only for one on another mount of path's file system
 * (dev), so a run without such a bind reads none. */
static const char *writable_alias(const cordon *c, const char *path, dev_t dev, char *buf,
				  size_t len)
{
	char place[CORDON_PATH_MAX], tplace[CORDON_PATH_MAX];
	unsigned long long pmnt, tmnt;
	const char *t;
	struct stat st;
	int have = 0;
	if (mount_id(path, &pmnt) != 0)
		return NULL;
	for (size_t i = 0; (t = tree_at(c, i, buf, len)) != NULL; i++) {
		if (t[0] == '\0' || stat(t, &st) != 0 || st.st_dev != dev ||
		    mount_id(t, &tmnt) != 0 || tmnt == pmnt)
			continue;
		if (!have && fs_place(path, pmnt, place, sizeof(place)) != 0)
			return NULL;
		have = 1;
		if (fs_place(t, tmnt, tplace, sizeof(tplace)) == 0 && path_within(tplace, place))
			return t;
	}
	return NULL;
}
#else
static const char *writable_alias(const cordon *c, const char *path, dev_t dev, char *buf,
				  size_t len)
{
	(void)c, (void)path, (void)dev, (void)buf, (void)len;
	return NULL; /* macOS: no bind mounts of a user's (nullfs is not offered) */
}
#endif

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
	if ((tree = writable_alias(c, path, st.st_dev, buf, sizeof(buf))) != NULL)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing %s: its file %s is a second view (a bind mount) of a "
				   "place inside %s, which the command may write (it could replace "
				   "the file and forge the events); write the events outside every "
				   "writable tree",
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
	r = c->mode == CORDON_MODE_OFF ? 0 : check_open_file(c, c->status_file_fd, what);
	/* Refused after the open (a second view of a writable tree): the
	 * file this open made goes again, if it is still the one. */
	struct stat now;
	if (r != 0 && !exists && fstat(c->status_file_fd, &st) == 0 && lstat(full, &now) == 0 &&
	    now.st_dev == st.st_dev && now.st_ino == st.st_ino)
		(void)unlink(full);
	return r;
}
