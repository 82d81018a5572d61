/*
 * File system helpers: making a directory chain owner-only, and removing
 * a tree without ever following a symlink out of it (openat/unlinkat on
 * directory fds, O_NOFOLLOW), whatever the command left in it, however
 * deep.
 */
#include "fsutil.h"
#include "base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * Removing a tree. Directories met below the top are moved into a queue
 * directory (the top itself, or one the caller gives) under names of
 * their own, and emptied from there one at a time: a few fds whatever
 * the depth, each entry handled once (unlinked, or moved once, opened
 * once and removed), so the work is O(entries). Every open is O_NOFOLLOW
 * from a directory fd and a symlink is only ever unlinked, so nothing
 * outside the tree is touched. A dir the command made unreadable or
 * unwritable is made 0700 when an operation on it is refused. The work
 * is bounded by the caller's budget, and a dir that keeps filling while
 * it is emptied is left (see clear()).
 */

/* A removal's state. Queued dirs are named tag + n, head <= n < tail; the
 * tag (pid and a count) is new for each removal, so what an interrupted
 * removal left queued never collides with a later one's names. */
struct rm {
	int q;
	char tag[64];
	size_t taglen;
	unsigned long head, tail;
	struct rm_budget *b;
};

/* A directory being emptied: fd for operations, s to read it (on fd, or
 * on a dup of it for the top), whether it was made 0700 already, whether
 * s was read already. */
struct dir {
	int fd;
	DIR *s;
	int opened, read;
};

static void open_up(struct dir *d)
{
	d->opened = 1;
	(void)fchmod(d->fd, 0700);
}

/* 1 when the budget is spent, or when the caller asked to stop and the
 * part it may not stop is done. */
static int halted(struct rm *rm)
{
	struct rm_budget *b = rm->b;
	if (!b->out && (b->left == 0 || (b->stop != NULL && b->done >= b->unstoppable &&
					 __atomic_load_n(b->stop, __ATOMIC_RELAXED))))
		b->out = 1;
	return b->out;
}

/* Take one unit of the budget (an entry met): 1 when halted instead. */
static int spent(struct rm *rm)
{
	if (halted(rm))
		return 1;
	rm->b->left--;
	rm->b->done++;
	return 0;
}

static void qname(const struct rm *rm, unsigned long n, char *out, size_t len)
{
	snprintf(out, len, "%s%lu", rm->tag, n);
}

/* name below pfd as a directory, never through a symlink; one the command
 * made unreadable is made 0700 first. -1 with errno. */
static int open_dir(int pfd, const char *name)
{
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && fchmodat(pfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

DIR *dir_stream(int fd)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return NULL;
	DIR *d = fdopendir(dfd);
	if (d == NULL) {
		close(dfd);
		return NULL;
	}
	rewinddir(d); /* the dup shares fd's offset */
	return d;
}

static int is_dot(const char *n)
{
	return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

static void clear_dir(struct rm *rm, int pfd, const char *name);

/* Move the dir name below d into the queue. */
static void enqueue(struct rm *rm, struct dir *d, const char *name)
{
	char to[96];
	int retried = 0;
	for (;;) {
		qname(rm, rm->tail, to, sizeof(to));
		if (renameat(d->fd, name, rm->q, to) == 0) {
			rm->tail++;
			return;
		}
		switch (errno) {
		case ENOENT:
			return; /* gone meanwhile */
		case EEXIST:
		case ENOTEMPTY:
		case ENOTDIR:
		case EISDIR: /* the name is taken: the next one */
			rm->tail++;
			if (spent(rm))
				return;
			continue;
		case EACCES:
			/* Moving a dir to another parent writes its "..": it
			 * must be writable, as the dir it leaves. */
			if (!retried) {
				retried = 1;
				open_up(d);
				(void)!fchmodat(d->fd, name, 0700, AT_SYMLINK_NOFOLLOW);
				continue;
			}
			break;
		default:
			break;
		}
		rm->b->failed = 1;
		return;
	}
}

/* A dir met in d: emptied where it is when d is the queue, else queued. */
static void dir_met(struct rm *rm, struct dir *d, const char *name)
{
	if (d->fd == rm->q)
		clear_dir(rm, d->fd, name);
	else
		enqueue(rm, d, name);
}

static int is_dir_at(int fd, const char *name)
{
	struct stat st;
	return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static void remove_entry(struct rm *rm, struct dir *d, const char *name, unsigned char type)
{
	if (type == DT_UNKNOWN) {
		struct stat st;
		if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				rm->b->failed = 1;
			return;
		}
		type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
	}
	if (type == DT_DIR) {
		dir_met(rm, d, name);
		return;
	}
	for (;;) {
		if (unlinkat(d->fd, name, 0) == 0 || errno == ENOENT)
			return;
		/* A dir put in its place meanwhile (Linux says EISDIR,
		 * others EPERM). */
		if ((errno == EISDIR || errno == EPERM) && is_dir_at(d->fd, name)) {
			dir_met(rm, d, name);
			return;
		}
		if (errno != EACCES || d->opened)
			break;
		open_up(d);
	}
	rm->b->failed = 1; /* immutable, append-only, ... */
}

/* A name in the queue, not emptied yet: drain() has it. */
static int queued(const struct rm *rm, const char *name)
{
	char *end;
	if (strncmp(name, rm->tag, rm->taglen) != 0 || name[rm->taglen] < '0' ||
	    name[rm->taglen] > '9')
		return 0;
	errno = 0;
	unsigned long n = strtoul(name + rm->taglen, &end, 10);
	return errno == 0 && *end == '\0' && n >= rm->head && n < rm->tail;
}

/* Remove what d holds, at most limit entries (*full then says the limit
 * was reached). The queue's pending names are left to drain(). The
 * number of entries met. */
static unsigned long scan(struct rm *rm, struct dir *d, unsigned long limit, int *full)
{
	unsigned long met = 0;
	struct dirent *e;

	*full = 0;
	if (d->read)
		rewinddir(d->s);
	d->read = 1;
	while ((e = readdir(d->s)) != NULL) {
		if (is_dot(e->d_name) || (d->fd == rm->q && queued(rm, e->d_name)))
			continue;
		if (met == limit) {
			*full = 1;
			break;
		}
		if (spent(rm))
			break;
		met++;
		remove_entry(rm, d, e->d_name, e->d_type);
	}
	return met;
}

/* Empty every queued dir, including those queued meanwhile. */
static void drain(struct rm *rm)
{
	char name[96];
	while (rm->head < rm->tail && !halted(rm)) {
		qname(rm, rm->head++, name, sizeof(name));
		clear_dir(rm, rm->q, name);
	}
}

/*
 * Empty d (name below pfd) and remove it; the top also drains the queue.
 * A scan normally leaves the dir empty. When it does not (a process that
 * outlived the run still adds entries, or some cannot be removed) it is
 * scanned again only while each scan meets at most half as many entries
 * as the one before, and the first meets at most limit: what a process
 * adds can cost at most about twice what was there. 0 when removed.
 */
static int clear(struct rm *rm, struct dir *d, int pfd, const char *name, unsigned long limit,
		 int top)
{
	for (;;) {
		int full;
		unsigned long met = scan(rm, d, limit, &full);
		if (top)
			drain(rm);
		if (unlinkat(pfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if ((errno != ENOTEMPTY && errno != EEXIST) || rm->b->out || full || met == 0)
			break;
		limit = met / 2;
	}
	rm->b->failed |= !rm->b->out;
	return -1;
}

/* Empty the dir name below pfd (a queued one, or one met in the queue)
 * and remove it; what is not a dir (any more) is unlinked. */
static void clear_dir(struct rm *rm, int pfd, const char *name)
{
	struct dir d = { open_dir(pfd, name), NULL, 0, 0 };
	if (d.fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP) {
			if (unlinkat(pfd, name, 0) == 0 || errno == ENOENT)
				return;
		} else if (errno == ENOENT) {
			return;
		}
		rm->b->failed = 1;
		return;
	}
	d.s = fdopendir(d.fd);
	if (d.s == NULL) {
		close(d.fd);
		rm->b->failed = 1;
		return;
	}
	(void)clear(rm, &d, pfd, name, ULONG_MAX, 0);
	closedir(d.s);
}

/* How many entries the dir holds. Reading outpaces any process that adds
 * entries one system call each, so this ends. */
static unsigned long count(struct dir *d)
{
	unsigned long n = 0;
	d->read = 1;
	while (readdir(d->s) != NULL)
		n++;
	return n >= 2 ? n - 2 : 0;
}

int remove_tree_at(int parent_fd, const char *name, int top_fd, int queue_fd, struct rm_budget *b)
{
	static unsigned long removals;
	struct rm rm = { 0 };
	int own = -1;

	rm.b = b;
	if (top_fd < 0) {
		top_fd = own = open_dir(parent_fd, name);
		if (own < 0) {
			if (errno == ENOTDIR || errno == ELOOP)
				return unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT ? 0
											    : -1;
			return errno == ENOENT ? 0 : -1;
		}
	}
	(void)fchmod(top_fd, 0700); /* the queue when none is given */
	rm.q = queue_fd >= 0 ? queue_fd : top_fd;
	snprintf(rm.tag, sizeof(rm.tag), ".cordon-rm.%ld.%lu.", (long)getpid(),
		 __atomic_add_fetch(&removals, 1, __ATOMIC_RELAXED));
	rm.taglen = strlen(rm.tag);
	struct dir d = { top_fd, dir_stream(top_fd), 1, 0 };
	int r = -1;
	if (d.s != NULL) {
		/* The top is the dir a process that outlived the run may
		 * still be in: its first scan meets at most what is there
		 * now (and some). */
		r = clear(&rm, &d, parent_fd, name, count(&d) + 64, 1);
		closedir(d.s);
	} else {
		b->failed = 1;
	}
	if (own >= 0)
		close(own);
	return r == 0 && !b->failed && !b->out ? 0 : -1;
}

/* The canonical path of what fd is open on, in out; 0, or -1. */
int fd_path(int fd, char *out, size_t len)
{
#if defined(__linux__)
	char link[32];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, out, len - 1);
	if (n <= 0 || (size_t)n >= len - 1 || out[0] != '/')
		return -1;
	out[n] = '\0';
	return 0;
#else
	if (len < CORDON_PATH_MAX || fcntl(fd, F_GETPATH, out) != 0)
		return -1;
	return 0;
#endif
}
