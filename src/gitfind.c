/*
 * The repositories of a workspace that is in none (-w ~/src, a checkout
 * of many repositories): the git guard guards each of them as it guards
 * the one holding a workspace. They are found breadth first: a directory
 * holding a ".git" (a dir, or a file naming one) is a repository's top
 * and is not looked into (what is below it is that repository's, checked
 * through its index); symlinks are not followed; node_modules is not
 * looked into (a package manager's tree: no repository to run git in).
 * At most FIND_MAX directories are read, so the search costs the same in
 * a workspace of any size; the directories left unread are reported, and
 * the repositories below them are not guarded.
 */
#include "gitguard.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIND_MAX 4096 /* directories read, per search */

static int skipped(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, ".git") == 0 ||
	       strcmp(name, "node_modules") == 0;
}

/* Read dir: 1 when it holds a ".git" (its subdirectories then left out),
 * else its subdirectories appended to q; -1 out of memory, 0 else. */
static int read_dir(const char *dir, struct strv *q)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return 0; /* gone, or not the user's to read: nothing to guard */
	}
	size_t mark = q->n;
	int repo = 0, err = 0;
	struct dirent *e;
	while (!repo && !err && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".git") == 0) {
			repo = 1;
			break;
		}
		if (skipped(e->d_name))
			continue;
		struct stat st;
		if (e->d_type != DT_DIR &&
		    (e->d_type != DT_UNKNOWN ||
		     fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		     !S_ISDIR(st.st_mode)))
			continue;
		char sub[CORDON_PATH_MAX];
		if (gg_join(sub, dir, e->d_name) == 0)
			err = strv_push(q, sub) != 0;
	}
	closedir(d);
	if (repo) {
		/* Its subdirectories are the repository's own. */
		while (q->n > mark) {
			free(q->v[--q->n]);
			q->v[q->n] = NULL;
		}
	}
	return err ? -1 : repo;
}

int gitfind_repos(const char *workspace, struct strv *tops, struct strv *unread)
{
	struct strv q = { 0 };
	size_t head = 0;
	int r = 0, reads = 0;
	if (strv_push(&q, workspace) != 0)
		return -1;
	while (head < q.n) {
		const char *dir = q.v[head];
		if (reads == FIND_MAX) {
			if (strv_push(unread, dir) != 0)
				r = -1;
			head++;
			if (r != 0)
				break;
			continue;
		}
		reads++;
		int k = read_dir(dir, &q);
		/* The workspace itself is the caller's (it holds no ".git"
		 * when this is asked). */
		if (k < 0 || (k == 1 && head > 0 && strv_push(tops, dir) != 0)) {
			r = -1;
			break;
		}
		head++;
	}
	strv_free(&q);
	return r;
}
