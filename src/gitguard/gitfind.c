/*
 * The repositories of a workspace that is in none (-w ~/src, a checkout
 * of many repositories): the git guard guards each of them as it guards
 * the one holding a workspace. They are found breadth first: a directory
 * holding a ".git" (a dir, or a file naming one) is a repository's top
 * and is not looked into (what is below it is that repository's, checked
 * through its index); the workspace's own ".git" (one the run made) is
 * the guard's other check, and the search goes on below it; symlinks are
 * not followed; node_modules is not looked into (a package manager's
 * tree: no repository to run git in). At most a bound of directories
 * are read, so the search costs the same in a workspace of any size; the
 * directories left unread are reported (past the bound, or not readable:
 * what is below them was not seen), and the repositories below them are
 * not guarded.
 */
#include "gitfind.h"
#include "base.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { READ_ERR = -1, READ_DIR, READ_REPO, READ_NOT };

static int skipped(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, ".git") == 0 ||
	       strcmp(name, "node_modules") == 0;
}

/* Read dir: READ_REPO when it holds a ".git" (and is not the workspace;
 * its subdirectories then left out), else its subdirectories appended
 * to q; READ_NOT when it could not be read (or not whole); READ_ERR out
 * of memory. A directory gone, or not one any more (a symlink), has
 * nothing below it to guard. */
static int read_dir(const char *dir, int workspace, struct strv *q)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d == NULL) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return e == ENOENT || e == ENOTDIR || e == ELOOP ? READ_DIR : READ_NOT;
	}
	size_t mark = q->n;
	int repo = 0, err = 0;
	struct dirent *e;
	for (;;) {
		errno = 0;
		if ((e = readdir(d)) == NULL) {
			err = errno != 0 ? READ_NOT : 0;
			break;
		}
		if (strcmp(e->d_name, ".git") == 0 && !workspace) {
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
		if (path_join(sub, sizeof(sub), dir, e->d_name) == 0 && strv_push(q, sub) != 0) {
			err = READ_ERR;
			break;
		}
	}
	closedir(d);
	if (repo) {
		/* Its subdirectories are the repository's own. */
		while (q->n > mark) {
			free(q->v[--q->n]);
			q->v[q->n] = NULL;
		}
	}
	return err != 0 ? err : repo ? READ_REPO : READ_DIR;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int gitfind_has(const char *const *sorted, size_t n, const char *path)
{
	return n > 0 && bsearch(&path, sorted, n, sizeof(*sorted), by_name) != NULL;
}

void gitfind_sort(const char **v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), by_name);
}

int gitfind_repos(const char *workspace, struct gitfind *f, struct strv *tops, struct strv *unread)
{
	struct strv q = { 0 };
	size_t head = 0;
	int r = 0;
	f->reads = 0;
	if (strv_push(&q, workspace) != 0)
		return -1;
	for (; r == 0 && head < q.n; head++) {
		const char *dir = q.v[head];
		/* Left unread by the search this one is compared with. */
		if (gitfind_has(f->skip, f->nskip, dir))
			continue;
		if (f->reads == f->max) {
			r = strv_push(unread, dir) != 0 ? -1 : 0;
			continue;
		}
		f->reads++;
		int k = read_dir(dir, head == 0, &q);
		if (k == READ_ERR || (k == READ_REPO && strv_push(tops, dir) != 0) ||
		    (k == READ_NOT && strv_push(unread, dir) != 0))
			r = -1;
	}
	strv_free(&q);
	return r;
}
