/*
 * The shared layers of the tool caches. Where the mount layer exists, a
 * run sees each granted cache that exists through an overlay (made by
 * src/linux/layer-caches.c): the user's cache is its lowest layer, only
 * read (overlayfs never writes a lower layer); cordon's shared layer of
 * that cache lies above it, read-only to the run; the run's writes go to
 * an upper dir of its own. So no write of a confined run reaches the
 * user's cache (a file an unconfined program later runs, links or
 * loads), and confined runs keep a warm cache: they read all the user's
 * cache holds, and what one run added is seen by the later ones.
 *
 * STATE/layers/NAME, one per cache path (NAME: cachelayer_name):
 *
 *   shared/   the layer: what confined runs added, whiteouts of what they
 *             removed, opaque dirs where they replaced a directory
 *   source    the cache's path (another path of the same NAME is refused)
 *   lock      flock'd while a merge writes shared/
 *   .run-ID/  a run's own, locked (flock on the dir) while it lasts:
 *             sK/upper and sK/work for each mount namespace it made (the
 *             child makes them: two overlays never share an upper dir)
 *
 * At the run's end, once every process of it is gone, each sK/upper is
 * merged into shared/ under the lock and .run-ID is removed. The merge
 * walks the upper dir only (O(what the run changed)), renames entries in
 * without following a symlink, and keeps overlayfs's marks as they are:
 * whiteouts (0/0 character devices) and opaque dirs (the xattr
 * trusted.overlay.opaque, or user.overlay.opaque when not root: the
 * overlay is mounted with userxattr in a user namespace), which
 * overlayfs honours in a lower layer. A .run dir nobody locks belongs to
 * a run that died: the next run of that cache moves it into STATE/runs/,
 * whose sweep removes it (runtmp.c); its writes are discarded.
 */
#include "cachelayer.h"
#include "handle.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/xattr.h>
#endif

/* ---- pure ---- */

int cachelayer_name(const char *tool, const char *path, char *out, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	int n = snprintf(out, size, "%s-%016llx", tool, (unsigned long long)h);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

enum merge_step cachelayer_step(int up_dir, int up_opaque, enum layer_kind shared)
{
	if (shared == LK_NONE)
		return MERGE_RENAME;
	if (!up_dir)
		/* A rename replaces a non-directory; a directory is put aside. */
		return shared == LK_DIR ? MERGE_REPLACE : MERGE_RENAME;
	/* An opaque directory hides all below it: the layer's goes. A plain
	 * one over a non-directory: the run saw only its own (that entry
	 * came after its start, from another run's merge). */
	return up_opaque || shared != LK_DIR ? MERGE_REPLACE : MERGE_INTO;
}

/* ---- the merge ---- */

#if defined(__linux__)

struct merger {
	int trash_at, trash; /* trash/ in trash_at, made when first needed (-1) */
	const char *xattr;
	unsigned long ntrash;
	struct merge_count *n;
};

/* "/proc/self/fd/N": what acts on an O_PATH fd's own file by name. */
static void proc_fd_name(char *buf, size_t size, int fd)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

/* The directory name in dir, owner-writable and searchable for the time
 * of a rename (a directory changes its ".." when it moves: it must be
 * writable then; Go makes its module dirs read-only). An O_PATH fd and
 * its mode in *mode, or -1. */
static int dir_writable(int dir, const char *name, mode_t *mode)
{
	char p[64];
	struct stat st;
	int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	proc_fd_name(p, sizeof(p), fd);
	if (fstat(fd, &st) != 0 ||
	    ((st.st_mode & 0700) != 0700 && chmod(p, (st.st_mode | 0700) & 07777) != 0)) {
		close(fd);
		return -1;
	}
	*mode = st.st_mode & 07777;
	return fd;
}

static void dir_restore(int fd, mode_t mode)
{
	char p[64];
	if (fd < 0)
		return;
	proc_fd_name(p, sizeof(p), fd);
	(void)chmod(p, mode);
	close(fd);
}

/* Whether the directory name in dir is opaque (its xattr is "y"). */
static int opaque(const struct merger *m, int dir, const char *name)
{
	char p[64], v[4];
	int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	proc_fd_name(p, sizeof(p), fd);
	ssize_t n = getxattr(p, m->xattr, v, sizeof(v));
	close(fd);
	return n == 1 && v[0] == 'y';
}

/* name from up into shared, the layer's entry of that name first put
 * aside when aside. 0 or -1. */
static int move_in(struct merger *m, int up, int shared, const char *name, int is_dir, int aside)
{
	mode_t mode = 0;
	int fd = -1, r = 0;
	if (aside && m->trash < 0) {
		if (mkdirat(m->trash_at, "trash", 0700) != 0 && errno != EEXIST)
			return -1;
		m->trash = openat(m->trash_at, "trash",
				  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (m->trash < 0)
			return -1;
	}
	if (aside) {
		char t[32];
		snprintf(t, sizeof(t), "t%lu", m->ntrash++);
		mode_t smode = 0;
		int sfd = dir_writable(shared, name, &smode); /* -1: not a directory */
		r = renameat(shared, name, m->trash, t);
		dir_restore(sfd, smode);
	}
	if (r == 0 && is_dir && (fd = dir_writable(up, name, &mode)) < 0)
		r = -1;
	if (r == 0)
		r = renameat(up, name, shared, name);
	dir_restore(fd, mode);
	return r;
}

/* The names in the dir open on fd (a copy: the merge renames them away). */
static int list_names(int fd, struct strv *out)
{
	DIR *d = dir_stream(fd);
	if (d == NULL)
		return -1;
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			r = strv_push(out, e->d_name);
	closedir(d);
	return r == 0 ? 0 : -1;
}

static int merge_dir(struct merger *m, int up, int shared, int depth);

/* Both are directories: the upper one's entries into the layer's, which
 * takes the upper one's mode (the one the run saw). */
static void merge_into(struct merger *m, int up, int shared, const char *name, int depth)
{
	mode_t umode = 0, smode = 0;
	int ufd = dir_writable(up, name, &umode);
	int sfd = ufd >= 0 ? dir_writable(shared, name, &smode) : -1;
	int u = ufd >= 0 ? openat(ufd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	int s = sfd >= 0 ? openat(sfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (u < 0 || s < 0 || depth >= MERGE_DEPTH || merge_dir(m, u, s, depth + 1) != 0)
		m->n->dropped++;
	if (u >= 0)
		close(u);
	if (s >= 0)
		close(s);
	if (ufd >= 0)
		close(ufd);
	dir_restore(sfd, sfd >= 0 ? umode : 0);
}

static int merge_dir(struct merger *m, int up, int shared, int depth)
{
	struct strv names = { 0 };
	if (list_names(up, &names) != 0) {
		strv_free(&names);
		return -1;
	}
	for (size_t i = 0; i < names.n; i++) {
		const char *name = names.v[i];
		struct stat u, s;
		if (fstatat(up, name, &u, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		int is_dir = S_ISDIR(u.st_mode) ? 1 : 0;
		enum layer_kind k = fstatat(shared, name, &s, AT_SYMLINK_NOFOLLOW) != 0 ? LK_NONE
				    : S_ISDIR(s.st_mode)				? LK_DIR
											: LK_OTHER;
		int op = is_dir && k != LK_NONE && opaque(m, up, name);
		enum merge_step step = cachelayer_step(is_dir, op, k);
		if (step == MERGE_INTO) {
			merge_into(m, up, shared, name, depth);
			continue;
		}
		if (move_in(m, up, shared, name, is_dir, step == MERGE_REPLACE) == 0)
			m->n->moved++;
		else
			m->n->dropped++;
	}
	strv_free(&names);
	return 0;
}

int cachelayer_merge(int up, int shared, int trash_at, const char *opaque_xattr,
		     struct merge_count *n)
{
	struct merger m = { trash_at, -1, opaque_xattr, 0, n };
	int r = merge_dir(&m, up, shared, 0);
	if (m.trash >= 0)
		close(m.trash);
	return r;
}

#else

int cachelayer_merge(int up, int shared, int trash_at, const char *opaque_xattr,
		     struct merge_count *n)
{
	(void)up, (void)shared, (void)trash_at, (void)opaque_xattr, (void)n;
	return -1; /* no overlay here: nothing to merge */
}

#endif

/* ---- a run's layers (with the handle) ---- */

/* A directory name in at, made 0700 when missing, opened: the caller's
 * own, not a symlink, closed to group and others. fd, or -1. */
static int own_dir_at(int at, const char *name)
{
	struct stat st;
	if (mkdirat(at, name, 0700) != 0 && errno != EEXIST)
		return -1;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* The file "source" in the layer's dir names path (written when new):
 * 0, or -1 when another cache has this layer (a hash collision) or it
 * cannot be read or written. */
static int same_source(int key, const char *path)
{
	char buf[CORDON_PATH_MAX + 2];
	size_t n = strlen(path);
	int fd = openat(key, "source", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		memcpy(buf, path, n);
		buf[n] = '\n';
		int ok = write(fd, buf, n + 1) == (ssize_t)(n + 1);
		close(fd);
		return ok ? 0 : -1;
	}
	if (errno != EEXIST || (fd = openat(key, "source", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	ssize_t got = read(fd, buf, sizeof(buf));
	close(fd);
	return got == (ssize_t)(n + 1) && memcmp(buf, path, n) == 0 && buf[n] == '\n' ? 0 : -1;
}

/* The dir name in at, open on fd, locked now by fd and still there under
 * that name (not one a sweep moved away meanwhile). */
static int locked_here(int at, const char *name, int fd, int nonblock)
{
	struct stat a, b;
	return flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0)) == 0 && fstat(fd, &a) == 0 &&
	       fstatat(at, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

/* The runs' dirs (STATE/runs, the parent of the run's dir), open, or -1. */
static int runs_dir(const cordon *c)
{
	char runs[CORDON_PATH_MAX];
	const char *slash = c->rundir != NULL ? strrchr(c->rundir, '/') : NULL;
	if (slash == NULL || (size_t)(slash - c->rundir) >= sizeof(runs))
		return -1;
	memcpy(runs, c->rundir, (size_t)(slash - c->rundir));
	runs[slash - c->rundir] = '\0';
	return open(runs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The .run dirs of dead runs in the layer's dir key (none holds its
 * lock) moved into STATE/runs, whose sweep removes them (runtmp.c), or
 * removed here (a budget's worth) when they cannot be moved there. Each
 * is the run's writes, discarded: it never finished. */
static void sweep_dead(const cordon *c, int key, const char *own, const char *keyname)
{
	DIR *d = dir_stream(key);
	int runs = -1;
	struct dirent *e;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, ".run-", 5) != 0 || strcmp(e->d_name, own) == 0)
			continue;
		int fd = openat(key, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (locked_here(key, e->d_name, fd, 1)) {
			char to[NAME_MAX + 1];
			snprintf(to, sizeof(to), "layer%.40s-%.120s", e->d_name + 5, keyname);
			if (runs < 0)
				runs = runs_dir(c);
			if (runs < 0 || renameat(key, e->d_name, runs, to) != 0) {
				struct rm_budget b = { 65536, 0, NULL, 0, 0, 0 };
				(void)remove_tree_at(key, e->d_name, -1, -1, &b);
			}
		}
		close(fd);
	}
	closedir(d);
	if (runs >= 0)
		close(runs);
}

/* The run's .run-ID in the layer's dir key, made and locked: its fd, or
 * -1. Made again by a plan made again in the same run. */
static int run_dir(int key, const char *name)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		if (mkdirat(key, name, 0700) != 0 && errno != EEXIST)
			return -1;
		int fd = openat(key, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue; /* a sweep took it meanwhile */
		if (locked_here(key, name, fd, 1))
			return fd;
		close(fd);
	}
	return -1;
}

/* STATE/layers, made and checked: 0, or -1. */
static int layers_path(const cordon *c, char *out, size_t size)
{
	char state[CORDON_PATH_MAX];
	if (runtmp_state_of_run(c, state, sizeof(state)) != 0 ||
	    path_join(out, size, state, "layers") != 0)
		return -1;
	int fd = open(state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int l = own_dir_at(fd, "layers");
	close(fd);
	if (l < 0)
		return -1;
	close(l);
	return 0;
}

int cachelayer_usable(cordon *c)
{
	char dir[CORDON_PATH_MAX];
	const struct backend *be = c->dec.backend;
	if (!c->dec.applied || be == NULL || be->cache_layers == NULL ||
	    layers_path(c, dir, sizeof(dir)) != 0)
		return 0;
	return be->cache_layers(&c->dec, dir);
}

int cachelayer_open(cordon *c, enum cache_tool tool, const char *path, struct cache_layer **out)
{
	char dir[CORDON_PATH_MAX], name[96], runname[48], key_path[CORDON_PATH_MAX],
		run_path[CORDON_PATH_MAX];
	int lfd = -1, key = -1, sh = -1, r = -1;
	*out = NULL;
	snprintf(runname, sizeof(runname), ".run-%s", c->run_id);
	if (layers_path(c, dir, sizeof(dir)) != 0 ||
	    cachelayer_name(cordon_cache_tool_ids[tool].id, path, name, sizeof(name)) != 0 ||
	    path_join(key_path, sizeof(key_path), dir, name) != 0 ||
	    path_join(run_path, sizeof(run_path), key_path, runname) != 0)
		return -1;
	if ((lfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (key = own_dir_at(lfd, name)) < 0 || (sh = own_dir_at(key, "shared")) < 0 ||
	    same_source(key, path) != 0)
		goto out;
	sweep_dead(c, key, runname, name);
	struct cache_layer *l = calloc(1, sizeof(*l));
	if (l == NULL)
		goto out;
	l->lock_fd = run_dir(key, runname);
	l->layer = strdup(key_path);
	l->rundir = strdup(run_path);
	if (l->lock_fd < 0 || l->layer == NULL || l->rundir == NULL) {
		cache_layer_free(l);
		goto out;
	}
	*out = l;
	r = 0;
out:
	if (sh >= 0)
		close(sh);
	if (key >= 0)
		close(key);
	if (lfd >= 0)
		close(lfd);
	return r;
}

/* The xattr overlayfs marks an opaque directory with: the mount layer
 * mounts with userxattr in a user namespace, which it makes when cordon
 * is not root (layer-mountns.c). */
#if defined(__linux__)
static const char *opaque_xattr(void)
{
	return geteuid() == 0 ? "trusted.overlay.opaque" : "user.overlay.opaque";
}
#endif

/* Each upper dir of the run (sK/upper, K from 0) merged into shared, in
 * the order the mount namespaces were made. */
static void merge_uppers(int run, int shared, int trash, struct merge_count *n)
{
#if defined(__linux__)
	for (unsigned k = 0;; k++) {
		char s[16];
		mode_t mode;
		snprintf(s, sizeof(s), "s%u", k);
		int sk = openat(run, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sk < 0)
			return;
		int up = -1, w = dir_writable(sk, "upper", &mode);
		if (w >= 0)
			up = openat(w, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up >= 0 && cachelayer_merge(up, shared, trash, opaque_xattr(), n) != 0)
			n->dropped++;
		if (up >= 0)
			close(up);
		if (w >= 0)
			close(w);
		close(sk);
	}
#else
	(void)run, (void)shared, (void)trash, (void)n; /* no overlay here */
#endif
}

/* The run dir as a merge leaves it (each sK's empty upper dir and the
 * work dir of a volatile overlay) removed name by name: a few calls
 * instead of a tree removal's. 0, or -1 when it holds anything else (a
 * whiteout's inode in work/, what the merge dropped, its trash/): then
 * remove_tree_at. */
static int remove_known(int key, const char *runname, int run)
{
	static const char *const names[] = { "work/work/incompat/volatile/dirty",
					     "work/work/incompat/volatile",
					     "work/work/incompat",
					     "work/work",
					     "work",
					     "upper" };
	for (unsigned k = 0;; k++) {
		char s[16];
		snprintf(s, sizeof(s), "s%u", k);
		int sk = openat(run, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sk < 0)
			break;
		/* overlayfs makes work/work owner-inaccessible (0000): its
		 * dirs opened up first, innermost last (a failure shows as the
		 * run dir's removal failing). */
		for (size_t i = 4; i-- > 1;)
			if (fchmodat(sk, names[i], 0700, 0) != 0)
				break;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (unlinkat(sk, names[i], i == 0 ? 0 : AT_REMOVEDIR) != 0 &&
			    errno != ENOENT)
				break;
		close(sk);
		if (unlinkat(run, s, AT_REMOVEDIR) != 0)
			return -1;
	}
	return unlinkat(key, runname, AT_REMOVEDIR);
}

/* The run's writes to one cache into its layer, then its .run dir gone. */
static void merge_layer(const struct cache_layer *l)
{
	struct merge_count n = { 0, 0 };
	const char *runname = strrchr(l->rundir, '/') + 1;
	int key = open(l->layer, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (key < 0)
		return;
	int shared = openat(key, "shared", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int lock = openat(key, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (shared >= 0 && lock >= 0 && flock(lock, LOCK_EX) == 0) {
		merge_uppers(l->lock_fd, shared, l->lock_fd, &n);
		(void)flock(lock, LOCK_UN);
	}
	if (shared >= 0)
		close(shared);
	if (lock >= 0)
		close(lock);
	/* What is left past the budget is a dead run's, for a sweep. */
	struct rm_budget b = { 4194304ul, 0, NULL, 0, 0, 0 };
	if (remove_known(key, runname, l->lock_fd) != 0)
		(void)remove_tree_at(key, runname, -1, -1, &b);
	close(key);
}

void cachelayer_end(cordon *c)
{
	struct policy *p = &c->pol;
	for (size_t i = 0; i < p->nw; i++) {
		if (p->w[i].layer == NULL)
			continue;
		merge_layer(p->w[i].layer);
		cache_layer_free(p->w[i].layer);
		p->w[i].layer = NULL;
	}
}
