/*
 * File system helpers: making a directory chain owner-only, and removing
 * a tree without ever following a symlink out of it (openat/unlinkat on
 * directory fds, O_NOFOLLOW), whatever the command left in it.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p with owner-only modes for what it creates. */
int mkdir_p(const char *path)
{
	char tmp[CORDON_PATH_MAX];
	size_t len = strlen(path);
	if (len == 0 || len >= sizeof(tmp)) {
		errno = len == 0 ? ENOENT : ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, len + 1);
	for (char *s = tmp + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Deeper directories are moved up to the top of the tree being removed,
 * so removal needs a bounded number of open directories. */
#define MAX_DEPTH 48

struct rm_ctx {
	int top_fd; /* the tree's root, where deep dirs are moved */
	unsigned long moved;
	int progress;
};

static int remove_at(struct rm_ctx *rc, int pfd, const char *name, int depth);

/* Empty the directory open on fd. Returns 0 when it is empty. */
static int empty_dir(struct rm_ctx *rc, int fd, int depth)
{
	for (int pass = 0; pass < 64; pass++) {
		unsigned long moved_before = rc->moved;
		int dfd = dup(fd);
		if (dfd < 0)
			return -1;
		DIR *d = fdopendir(dfd);
		if (d == NULL) {
			close(dfd);
			return -1;
		}
		rewinddir(d);
		int left = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (remove_at(rc, fd, e->d_name, depth + 1) != 0)
				left++;
		}
		closedir(d);
		/* At the top, dirs moved up during this pass need another. */
		if (left == 0 && (depth > 0 || rc->moved == moved_before))
			return 0;
		if (!rc->progress)
			return -1;
		rc->progress = 0;
	}
	return -1;
}

static int remove_at(struct rm_ctx *rc, int pfd, const char *name, int depth)
{
	struct stat st;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(pfd, name, 0) != 0)
			return errno == ENOENT ? 0 : -1;
		rc->progress = 1;
		return 0;
	}
	if (depth >= MAX_DEPTH && rc->top_fd >= 0) {
		char up[64];
		snprintf(up, sizeof(up), ".cordon-deep-%lu", rc->moved++);
		if (renameat(pfd, name, rc->top_fd, up) != 0)
			return -1;
		rc->progress = 1;
		return 1; /* removed on a later pass over the top */
	}
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* The command may have made its own directory unreadable. */
		if (fchmodat(pfd, name, 0700, AT_SYMLINK_NOFOLLOW) != 0)
			return -1;
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -1;
	(void)fchmod(fd, 0700); /* entries of a read-only dir cannot be unlinked */
	int r = empty_dir(rc, fd, depth);
	close(fd);
	if (r != 0)
		return -1;
	if (unlinkat(pfd, name, AT_REMOVEDIR) != 0)
		return errno == ENOENT ? 0 : -1;
	rc->progress = 1;
	return 0;
}

int remove_tree_at(int parent_fd, const char *name)
{
	struct rm_ctx rc = { -1, 0, 0 };
	int top = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return remove_at(&rc, parent_fd, name, 0);
	rc.top_fd = top;
	(void)fchmod(top, 0700);
	int r = empty_dir(&rc, top, 0);
	close(top);
	if (r != 0)
		return -1;
	return unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}
