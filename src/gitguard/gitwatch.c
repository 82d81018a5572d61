/*
 * What the run changed in the file systems of the git guard's trees,
 * told by the kernel as it happens (Linux, fanotify filesystem marks):
 * the end of the run then checks only the directories the run touched,
 * whatever the repository's size.
 *
 * A filesystem mark needs CAP_SYS_ADMIN in the user namespace that owns
 * the file system (root, for a disk's), and dirent events (an entry
 * made, moved or removed) are reported only for filesystem and inode
 * marks: a mount mark, which a user namespace may own, does not get
 * them (EINVAL). So this works as root; anywhere else gitwatch_start
 * says no and the guard looks at every tracked directory's change time
 * (gitnested.c). Every file system below the trees' tops (the mounts
 * there) is marked, or none.
 *
 * Each event names a directory (its file handle) and an entry in it. A
 * thread of the run reads them while the command runs (the queue is
 * unbounded, root's FAN_UNLIMITED_QUEUE, so that nothing is dropped
 * while the thread lags; an overflow all the same, FAN_Q_OVERFLOW, and
 * the end trusts nothing it said), and turns each directory's handle into its path
 * once (open_by_handle_at, as root, then the fd's link in /proc). An
 * event on an agent-configuration name (agentcfg.c), or inside one, at
 * any depth, is noted by its directory's handle, looked up again at the
 * end (where it is then): the agent-config guard moves it aside
 * (agentcfg_depth). The
 * events are queued by the system call that made the change, before it
 * returns: once every process of the run is gone, reading the queue dry
 * gives every change the run made.
 */
#include "gitwatch.h"
#include "agentcfg.h"
#include "base.h"
#include "compat.h"
#include "fsutil.h"
#include "strv.h"
#include "path.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef FAN_REPORT_DIR_FID
#define FAN_REPORT_DIR_FID 0x00000400
#endif
#ifndef FAN_REPORT_NAME
#define FAN_REPORT_NAME 0x00000800
#endif
#ifndef FAN_EVENT_INFO_TYPE_DFID_NAME
#define FAN_EVENT_INFO_TYPE_DFID_NAME 2
#endif
#ifndef FAN_EVENT_INFO_TYPE_DFID
#define FAN_EVENT_INFO_TYPE_DFID 3
#endif
#ifndef FAN_MARK_FILESYSTEM
#define FAN_MARK_FILESYSTEM 0x00000100
#endif
#ifndef FAN_CREATE
#define FAN_CREATE 0x00000100
#endif
#ifndef FAN_MOVED_TO
#define FAN_MOVED_TO 0x00000080
#endif

/* An entry made or moved in, its metadata changed, or a file written:
 * what can plant (a removal cannot). */
#define EVENTS (FAN_CREATE | FAN_MOVED_TO | FAN_ATTRIB | FAN_CLOSE_WRITE | FAN_ONDIR)

/* A directory's handle, and the path it was found at ("" outside the
 * trees, or gone). */
struct known {
	unsigned char *key;
	size_t klen;
	char *path;
	size_t held; /* path lies in a held name's entry: its length (agentcfg_topmost) */
	int noted; /* noted as such (once is enough: the end looks it up again) */
	int listed; /* in touched already (one path a directory, not one an event) */
};

/* An event on an agent-configuration entry: the directory's handle (the
 * end finds where it is then: a directory moved after the event) and
 * the held name made or changed in it, or NULL when the directory lies
 * in a held name's entry. */
struct note {
	unsigned char *key; /* the directory's fsid and file handle */
	size_t klen;
	char *name;
};

struct gitwatch {
	int fd; /* the fanotify group */
	/* Each file system marked (the workspace's, then those mounted
	 * below it): its fsid and a directory of it, for open_by_handle_at,
	 * which finds a handle only on the file system of the fd it is
	 * given (a directory: it takes no O_PATH fd). */
	struct marked {
		__kernel_fsid_t fsid;
		int fd;
	} * fs;
	size_t nfs;
	/* The workspace, then each --allow-write directory watched: paths
	 * outside them are not kept. */
	struct strv roots;
	int partial; /* an --allow-write directory could not be watched */
	int stop[2];
	pthread_t thread;
	int running;
	pthread_mutex_t lock; /* guards below, until the thread is joined */
	int broken; /* an overflow or an error: nothing it said counts */
	struct known *memo; /* open addressing, size a power of two */
	size_t nmemo, capmemo;
	struct strv touched, moved;
	struct note *notes;
	size_t nnotes, capnotes;
	struct strv named; /* the notes' entries where they are at the end */
};

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static struct known *memo_find(struct gitwatch *w, const unsigned char *k, size_t n)
{
	if (w->capmemo == 0)
		return NULL;
	for (size_t i = (size_t)fnv(k, n) & (w->capmemo - 1);; i = (i + 1) & (w->capmemo - 1)) {
		struct known *e = &w->memo[i];
		if (e->key == NULL)
			return e;
		if (e->klen == n && memcmp(e->key, k, n) == 0)
			return e;
	}
}

static int memo_grow(struct gitwatch *w)
{
	size_t cap = w->capmemo ? w->capmemo * 2 : 256;
	struct known *old = w->memo;
	size_t oldcap = w->capmemo;
	w->memo = calloc(cap, sizeof(*w->memo));
	if (w->memo == NULL) {
		w->memo = old;
		return -1;
	}
	w->capmemo = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key != NULL)
			*memo_find(w, old[i].key, old[i].klen) = old[i];
	free(old);
	return 0;
}

static const char *root_of(const struct gitwatch *w, const char *path);

/* The path the handle copy leads to through mount fd mfd, into path. */
static void path_through(int mfd, struct file_handle *copy, char *path)
{
	path[0] = '\0';
	int fd = open_by_handle_at(mfd, copy, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return;
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, CORDON_PATH_MAX - 1);
	path[n > 0 ? n : 0] = '\0';
	close(fd);
	if (path[0] != '/')
		path[0] = '\0';
}

/* The path a directory's key (the fsid, then the file handle from its
 * header on: klen bytes) leads to now, into path (CORDON_PATH_MAX bytes;
 * "" when it is gone, or on a file system not marked). A file system
 * mounted more than once (a bind mount below a root) is tried through
 * each mount, and the path in a root is taken. */
static void handle_path(const struct gitwatch *w, const unsigned char *key, size_t klen, char *path)
{
	char other[CORDON_PATH_MAX];
	path[0] = '\0';
	size_t hsz = klen - sizeof(__kernel_fsid_t);
	struct file_handle *copy = klen > sizeof(__kernel_fsid_t) ? malloc(hsz) : NULL;
	if (copy == NULL)
		return;
	memcpy(copy, key + sizeof(__kernel_fsid_t), hsz);
	for (size_t i = 0; i < w->nfs; i++) {
		if (memcmp(&w->fs[i].fsid, key, sizeof(__kernel_fsid_t)) != 0)
			continue;
		path_through(w->fs[i].fd, copy, other);
		if (other[0] != '\0' && (path[0] == '\0' || root_of(w, other) != NULL))
			memcpy(path, other, strlen(other) + 1);
		if (path[0] != '\0' && root_of(w, path) != NULL)
			break;
	}
	free(copy);
}

/* The root path lies in (the first that holds it), or NULL. */
static const char *root_of(const struct gitwatch *w, const char *path)
{
	for (size_t i = 0; path[0] != '\0' && i < w->roots.n; i++)
		if (path_within(w->roots.v[i], path))
			return w->roots.v[i];
	return NULL;
}

/* A directory's entry, by its key k (the fsid, then the file handle:
 * klen bytes; the event's bytes are read with memcpy, the kernel aligning
 * its records to 4 bytes only), its path looked up once ("" when it lies
 * in no root, or is gone). NULL out of memory. */
static struct known *dir_path(struct gitwatch *w, const unsigned char *k, size_t klen)
{
	if ((w->nmemo + 1) * 2 > w->capmemo && memo_grow(w) != 0)
		return NULL;
	struct known *e = memo_find(w, k, klen);
	if (e->key != NULL)
		return e;
	char path[CORDON_PATH_MAX];
	handle_path(w, k, klen, path);
	const char *r = root_of(w, path);
	if (r == NULL)
		path[0] = '\0';
	e->key = malloc(klen);
	e->path = strdup(path);
	if (e->key == NULL || e->path == NULL) {
		free(e->key);
		free(e->path);
		e->key = NULL;
		e->path = NULL;
		return NULL;
	}
	memcpy(e->key, k, klen);
	e->klen = klen;
	e->held = r != NULL ? agentcfg_topmost(r, path) : 0;
	w->nmemo++;
	return e;
}

/* An event on an agent-configuration entry (named: the event names an
 * entry, name), at any depth of the workspace, or anywhere for a held
 * name made or moved in (the end judges only what lies in the writable
 * set): noted. Each directory in a held entry once; a held name once per
 * run of events. */
static int note_named(struct gitwatch *w, struct known *k, const unsigned char *key, size_t klen,
		      const char *name, int named)
{
	const char *nm = NULL;
	if (k->held > 0) {
		if (k->noted)
			return 0;
		k->noted = 1;
	} else if (named && agentcfg_is_name(name, strlen(name))) {
		nm = name;
	} else {
		return 0;
	}
	const struct note *last = w->nnotes > 0 ? &w->notes[w->nnotes - 1] : NULL;
	if (last != NULL && nm != NULL && last->name != NULL && last->klen == klen &&
	    memcmp(last->key, key, klen) == 0 && strcmp(last->name, nm) == 0)
		return 0;
	if (klen <= sizeof(__kernel_fsid_t))
		return 0; /* no handle: nothing to find it by */
	if (w->notes == NULL || w->nnotes == w->capnotes) {
		size_t cap = w->capnotes ? w->capnotes * 2 : 16;
		struct note *v = realloc(w->notes, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		w->notes = v;
		w->capnotes = cap;
	}
	struct note *n = &w->notes[w->nnotes];
	n->klen = klen;
	n->key = malloc(klen);
	n->name = nm != NULL ? strdup(nm) : NULL;
	if (n->key == NULL || (nm != NULL && n->name == NULL)) {
		free(n->key);
		free(n->name);
		return -1;
	}
	memcpy(n->key, key, klen);
	w->nnotes++;
	return 0;
}

/* The notes' entries, where they are now (every process of the run
 * gone): the topmost held name on the way down to each, below the
 * workspace, or the name noted. */
static void resolve_notes(struct gitwatch *w)
{
	char dir[CORDON_PATH_MAX], p[CORDON_PATH_MAX];
	for (size_t i = 0; i < w->nnotes; i++) {
		const struct note *n = &w->notes[i];
		handle_path(w, n->key, n->klen, dir);
		if (dir[0] == '\0')
			continue; /* gone, with what was in it */
		const char *r = root_of(w, dir);
		size_t t = r != NULL ? agentcfg_topmost(r, dir) : 0;
		if (t == 0 && (n->name == NULL || path_join(p, sizeof(p), dir, n->name) != 0))
			continue; /* moved out of every held name */
		if (t > 0) {
			memcpy(p, dir, t);
			p[t] = '\0';
		}
		if (strv_push(&w->named, p) != 0)
			w->broken = 1;
	}
}

/* One event: the directory it names touched; an entry that is a
 * directory touched too (made, moved in, its metadata changed), and
 * recorded as moved in when it was. */
static void take(struct gitwatch *w, const struct fanotify_event_metadata *m,
		 const unsigned char *ev)
{
	if (m->mask & FAN_Q_OVERFLOW) {
		w->broken = 1;
		return;
	}
	const unsigned char *p = ev + m->metadata_len, *end = ev + m->event_len;
	struct fanotify_event_info_header h;
	struct file_handle fh;
	while (p + sizeof(h) <= end) {
		memcpy(&h, p, sizeof(h));
		if (h.len < sizeof(h) || p + h.len > end)
			break;
		if (h.info_type != FAN_EVENT_INFO_TYPE_DFID_NAME &&
		    h.info_type != FAN_EVENT_INFO_TYPE_DFID) {
			p += h.len;
			continue;
		}
		/* header, fsid, then the file handle and (DFID_NAME) a name */
		const unsigned char *key = p + sizeof(h);
		const unsigned char *hp = key + sizeof(__kernel_fsid_t);
		if (hp + sizeof(fh) > p + h.len) {
			w->broken = 1;
			return;
		}
		memcpy(&fh, hp, sizeof(fh));
		const unsigned char *name = hp + sizeof(fh) + fh.handle_bytes;
		if (name > p + h.len) {
			w->broken = 1;
			return;
		}
		struct known *k = dir_path(w, key, (size_t)(name - key));
		int named = h.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME &&
			    memchr(name, '\0', (size_t)(p + h.len - name)) != NULL;
		if (k == NULL ||
		    note_named(w, k, key, (size_t)(name - key), (const char *)name, named) != 0) {
			w->broken = 1;
			return;
		}
		const char *dir = k->path;
		if (dir[0] == '\0')
			return;
		if (!k->listed && strv_push(&w->touched, dir) != 0) {
			w->broken = 1;
			return;
		}
		k->listed = 1;
		char sub[CORDON_PATH_MAX];
		if (named && (m->mask & FAN_ONDIR) && strcmp((const char *)name, ".") != 0 &&
		    path_join(sub, sizeof(sub), dir, (const char *)name) == 0 &&
		    (strv_push(&w->touched, sub) != 0 ||
		     ((m->mask & FAN_MOVED_TO) && strv_push(&w->moved, sub) != 0)))
			w->broken = 1;
		return;
	}
}

/* Read what is queued: 1 something read, 0 nothing, -1 an error. */
static int drain(struct gitwatch *w)
{
	char buf[16384] __attribute__((aligned(8)));
	ssize_t n = read(w->fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	pthread_mutex_lock(&w->lock);
	struct fanotify_event_metadata m;
	for (size_t off = 0; off + sizeof(m) <= (size_t)n;) {
		memcpy(&m, buf + off, sizeof(m));
		if (m.vers != FANOTIFY_METADATA_VERSION || m.event_len < sizeof(m) ||
		    m.metadata_len < sizeof(m) || m.event_len > (size_t)n - off) {
			w->broken = 1;
			break;
		}
		take(w, &m, (const unsigned char *)buf + off);
		if (m.fd >= 0)
			close(m.fd);
		off += m.event_len;
	}
	pthread_mutex_unlock(&w->lock);
	return n > 0;
}

static void *watch(void *arg)
{
	struct gitwatch *w = arg;
	for (;;) {
		struct pollfd p[2] = { { w->fd, POLLIN, 0 }, { w->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN) {
			if (drain(w) < 0)
				break;
			continue;
		}
		if (p[1].revents != 0)
			return NULL; /* the end reads the rest itself */
	}
	pthread_mutex_lock(&w->lock);
	w->broken = 1;
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The mount points below dir (its file systems other than its own), from
 * /proc/self/mountinfo, into v. 0 or -1. */
static int mounts_below(const char *dir, struct strv *v)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return -1;
	char line[8192];
	int r = 0;
	while (r == 0 && fgets(line, sizeof(line), f) != NULL) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... (octal escapes) */
		char *s = line;
		for (int field = 0; field < 4 && s != NULL; field++)
			s = strchr(s, ' ') != NULL ? strchr(s, ' ') + 1 : NULL;
		if (s == NULL)
			continue;
		char mp[CORDON_PATH_MAX];
		size_t k = 0;
		for (; *s != '\0' && *s != ' ' && k + 1 < sizeof(mp); s++) {
			if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
			    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
				mp[k++] = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
						 (s[3] - '0'));
				s += 3;
			} else {
				mp[k++] = *s;
			}
		}
		mp[k] = '\0';
		if (path_within(dir, mp) && strcmp(dir, mp) != 0)
			r = strv_push(v, mp);
	}
	fclose(f);
	return r;
}

static int mark(int fd, const char *path)
{
	return fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, EVENTS, AT_FDCWD, path);
}

/* The file system at dir, marked: its fsid and an fd for its handles. */
static int add_fs(struct gitwatch *w, const char *dir)
{
	struct statfs sf;
	struct marked *v = realloc(w->fs, (w->nfs + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	w->fs = v;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sf) != 0) {
		close(fd);
		return -1;
	}
	memcpy(&v[w->nfs].fsid, &sf.f_fsid, sizeof(v[w->nfs].fsid));
	v[w->nfs++].fd = fd;
	return 0;
}

/* Mark root's file system and those mounted below it. 0 or -1. */
static int mark_tree(struct gitwatch *w, const char *root)
{
	struct strv below = { 0 };
	int ok = mark(w->fd, root) == 0 && add_fs(w, root) == 0 && mounts_below(root, &below) == 0;
	for (size_t i = 0; ok && i < below.n; i++)
		ok = mark(w->fd, below.v[i]) == 0 && add_fs(w, below.v[i]) == 0;
	strv_free(&below);
	return ok && strv_push(&w->roots, root) == 0 ? 0 : -1;
}

struct gitwatch *gitwatch_start(const char *workspace, const struct strv *extra)
{
	if (geteuid() != 0)
		return NULL; /* filesystem marks are root's (see above) */
	struct gitwatch *w = calloc(1, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->fd = w->stop[0] = w->stop[1] = -1;
	pthread_mutex_init(&w->lock, NULL);
	int ok = (w->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK |
						FAN_UNLIMITED_QUEUE | FAN_REPORT_DIR_FID |
						FAN_REPORT_NAME,
					O_RDONLY | O_CLOEXEC)) >= 0 &&
		 mark_tree(w, workspace) == 0;
	/* An --allow-write directory whose file system refuses a mark is
	 * not watched (gitwatch_partial); the workspace's still is. */
	for (size_t i = 0; ok && extra != NULL && i < extra->n; i++)
		if (mark_tree(w, extra->v[i]) != 0)
			w->partial = 1;
	if (ok && pipe_cloexec(w->stop) == 0) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		w->running = pthread_create(&w->thread, NULL, watch, w) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!w->running) {
		gitwatch_free(w);
		return NULL;
	}
	return w;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, without repeats (touched holds one per event). */
static void tidy(struct strv *v)
{
	if (v->n == 0)
		return;
	qsort(v->v, v->n, sizeof(*v->v), by_str);
	size_t k = 1;
	for (size_t i = 1; i < v->n; i++) {
		if (strcmp(v->v[i], v->v[k - 1]) == 0)
			free(v->v[i]);
		else
			v->v[k++] = v->v[i];
	}
	v->n = k;
	v->v[k] = NULL;
}

int gitwatch_end(struct gitwatch *w)
{
	if (w->running) {
		char b = 1;
		(void)!write(w->stop[1], &b, 1);
		(void)pthread_join(w->thread, NULL);
		w->running = 0;
	}
	/* Every process of the run is gone: the queue holds the rest. */
	int r;
	while ((r = drain(w)) > 0)
		;
	if (r < 0)
		w->broken = 1;
	(void)fanotify_mark(w->fd, FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM, 0, AT_FDCWD,
			    w->roots.v[0]);
	tidy(&w->touched);
	tidy(&w->moved);
	resolve_notes(w);
	tidy(&w->named);
	return w->broken ? -1 : 0;
}

static int in_sorted(const struct strv *v, const char *path)
{
	return v->n > 0 && bsearch(&path, v->v, v->n, sizeof(*v->v), by_str) != NULL;
}

int gitwatch_touched(const struct gitwatch *w, const char *dir)
{
	return in_sorted(&w->touched, dir);
}

int gitwatch_moved(const struct gitwatch *w, const char *dir)
{
	return in_sorted(&w->moved, dir);
}

const struct strv *gitwatch_named(const struct gitwatch *w)
{
	return &w->named;
}

const struct strv *gitwatch_dirs(const struct gitwatch *w)
{
	return &w->touched;
}

int gitwatch_partial(const struct gitwatch *w)
{
	return w->partial;
}

void gitwatch_free(struct gitwatch *w)
{
	if (w == NULL)
		return;
	if (w->running) {
		char b = 1;
		(void)!write(w->stop[1], &b, 1);
		(void)pthread_join(w->thread, NULL);
	}
	for (size_t i = 0; i < w->capmemo; i++) {
		free(w->memo[i].key);
		free(w->memo[i].path);
	}
	free(w->memo);
	strv_free(&w->touched);
	strv_free(&w->moved);
	strv_free(&w->named);
	for (size_t i = 0; i < w->nnotes; i++) {
		free(w->notes[i].key);
		free(w->notes[i].name);
	}
	free(w->notes);
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nfs; i++)
		close(w->fs[i].fd);
	free(w->fs);
	if (w->stop[0] >= 0) {
		close(w->stop[0]);
		close(w->stop[1]);
	}
	pthread_mutex_destroy(&w->lock);
	strv_free(&w->roots);
	free(w);
}

#else

struct gitwatch *gitwatch_start(const char *workspace, const struct strv *extra)
{
	(void)workspace;
	(void)extra;
	return NULL;
}
int gitwatch_end(struct gitwatch *w)
{
	(void)w;
	return -1;
}
int gitwatch_touched(const struct gitwatch *w, const char *dir)
{
	(void)w;
	(void)dir;
	return 0;
}
int gitwatch_moved(const struct gitwatch *w, const char *dir)
{
	(void)w;
	(void)dir;
	return 0;
}
const struct strv *gitwatch_named(const struct gitwatch *w)
{
	(void)w;
	return NULL;
}
const struct strv *gitwatch_dirs(const struct gitwatch *w)
{
	(void)w;
	return NULL;
}
int gitwatch_partial(const struct gitwatch *w)
{
	(void)w;
	return 1;
}
void gitwatch_free(struct gitwatch *w)
{
	(void)w;
}

#endif
