/*
 * The policy: which trees and files stay writable, which paths are
 * protected, the homes they are checked against, and the devices.
 * Everything is canonicalised (realpath) and validated here, in the
 * parent, before anything runs. The tool caches are in caches.c.
 */
#include "handle.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* in, canonical when it exists, else lexically normalised, into out
 * (CORDON_PATH_MAX bytes); a relative in from the run's working directory
 * (workdir.c; else the current one). in is shorter than CORDON_PATH_MAX. */
static int home_path(const cordon *c, const char *in, char *out)
{
	char cwd[CORDON_PATH_MAX], abs[CORDON_PATH_MAX];
	if (in[0] != '/') {
		if (c->pol.cwd != NULL ? path_join(cwd, sizeof(cwd), c->pol.cwd, "") != 0
				       : getcwd(cwd, sizeof(cwd)) == NULL)
			return -1;
		if (path_join(abs, sizeof(abs), cwd, in) != 0)
			return -1;
		in = abs;
	}
	if (realpath(in, out) != NULL)
		return 0;
	return path_normalize(NULL, in, out, CORDON_PATH_MAX);
}

/* The password database's home of the real uid, or NULL; *buf is the
 * caller's to free. The entry may be larger than the usual buffer. */
static const char *passwd_home(char **buf)
{
	struct passwd pw, *res = NULL;
	size_t len = 4096; /* grown on ERANGE */
	*buf = NULL;
	for (;;) {
		char *b = realloc(*buf, len);
		if (b == NULL)
			return NULL;
		*buf = b;
		int e = getpwuid_r(getuid(), &pw, b, len, &res);
		if (e == 0)
			return res != NULL ? pw.pw_dir : NULL;
		if (e != ERANGE || len >= ((size_t)1 << 20))
			return NULL;
		len *= 2;
	}
}

/* The user's home directories as cordon sees them: $HOME and the
 * password database's entry, canonicalised when they exist. Looked up
 * once per run (the password lookup alone costs ~0.2 ms). A home too
 * long to be a path is an error: cordon could not tell whether the
 * workspace is the home or an ancestor of it. */
int homes_load(cordon *c)
{
	const char *env = getenv("HOME");
	char *buf;
	int n = 0;

	c->homes[0][0] = c->homes[1][0] = '\0';
	c->nhomes = 0;
	c->home_set = 0;
	if (env != NULL && env[0] != '\0') {
		if (strlen(env) >= CORDON_PATH_MAX)
			return cordon_fail(c, CORDON_EINVAL, "HOME is longer than %d bytes",
					   CORDON_PATH_MAX - 1);
		/* A relative HOME is what the command's tools take it for from
		 * where it starts: the working directory, which is the run's. */
		if (home_path(c, env, c->homes[n]) == 0) {
			c->home_set = 1;
			n++;
		}
	}
	const char *pw = passwd_home(&buf);
	if (pw != NULL && pw[0] == '/') {
		if (strlen(pw) >= CORDON_PATH_MAX) {
			free(buf);
			return cordon_fail(c, CORDON_EINVAL,
					   "the home directory in the password database is longer "
					   "than %d bytes",
					   CORDON_PATH_MAX - 1);
		}
		if (home_path(c, pw, c->homes[n]) == 0 &&
		    (n == 0 || strcmp(c->homes[0], c->homes[1]) != 0))
			n++;
	}
	free(buf);
	c->nhomes = n;
	return 0;
}

int policy_is_broad(const cordon *c, const char *p)
{
	const char *hv[2] = { c->homes[0], c->homes[1] };
	return !c->allow_broad && path_is_broad(p, hv, (size_t)c->nhomes);
}

int policy_add_writable(struct policy *p, const char *path, int is_dir, enum wkind kind)
{
	for (size_t i = 0; i < p->nw; i++) {
		if (strcmp(p->w[i].path, path) == 0 ||
		    (p->w[i].is_dir && path_within(p->w[i].path, path)))
			return 0; /* already covered */
	}
	if (is_dir) {
		size_t k = 0;
		for (size_t i = 0; i < p->nw; i++) {
			if (path_within(path, p->w[i].path)) {
				free(p->w[i].path);
				cache_layer_free(p->w[i].layer);
			} else
				p->w[k++] = p->w[i];
		}
		p->nw = k;
	}
	if (p->nw == p->capw) {
		size_t cap = p->capw ? p->capw * 2 : 16;
		struct wentry *w = realloc(p->w, cap * sizeof(*w));
		if (w == NULL)
			return CORDON_ENOMEM;
		p->w = w;
		p->capw = cap;
	}
	char *dup = strdup(path);
	if (dup == NULL)
		return CORDON_ENOMEM;
	p->w[p->nw].path = dup;
	p->w[p->nw].is_dir = is_dir;
	p->w[p->nw].kind = kind;
	p->w[p->nw].layer = NULL;
	p->nw++;
	return 0;
}

void cache_layer_free(struct cache_layer *l)
{
	if (l == NULL)
		return;
	if (l->lock_fd >= 0)
		close(l->lock_fd);
	free(l->layer);
	free(l->rundir);
	free(l);
}

int policy_add_layered(struct policy *p, const char *path, struct cache_layer *layer)
{
	size_t n = p->nw;
	int r = policy_add_writable(p, path, 1, W_CACHE);
	if (r != 0 || p->nw == n || strcmp(p->w[p->nw - 1].path, path) != 0) {
		cache_layer_free(layer);
		return r != 0 ? r : 1;
	}
	p->w[p->nw - 1].layer = layer;
	return 0;
}

void policy_drop_caches(struct policy *p)
{
	size_t k = 0;
	for (size_t i = 0; i < p->nw; i++) {
		if (p->w[i].kind != W_CACHE) {
			p->w[k++] = p->w[i];
			continue;
		}
		free(p->w[i].path);
		cache_layer_free(p->w[i].layer);
	}
	p->nw = k;
	for (size_t i = 0; i < p->ncaches; i++) {
		free(p->caches[i].path);
		free(p->caches[i].layer);
		free(p->caches[i].from);
	}
	p->ncaches = 0;
	strv_free(&p->cache_env);
}

int policy_scratch_home(cordon *c)
{
	struct stat st;
	free(c->pol.scratch_home);
	c->pol.scratch_home = NULL;
	/* The first home: $HOME, else the password database's. A home in a
	 * writable tree is written for real: nothing to cover. */
	if (!c->scratch_home || c->nhomes == 0 || stat(c->homes[0], &st) != 0 ||
	    !S_ISDIR(st.st_mode) || policy_inside_writable(&c->pol, c->homes[0]))
		return 0;
	if ((c->pol.scratch_home = strdup(c->homes[0])) == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

void policy_free(struct policy *p)
{
	free(p->scratch_home);
	free(p->workspace);
	free(p->cwd);
	for (size_t i = 0; i < p->nw; i++) {
		free(p->w[i].path);
		cache_layer_free(p->w[i].layer);
	}
	free(p->w);
	for (size_t i = 0; i < p->ncaches; i++) {
		free(p->caches[i].path);
		free(p->caches[i].layer);
		free(p->caches[i].from);
	}
	for (size_t i = 0; i < p->nprot; i++)
		free(p->prot[i].path);
	free(p->prot);
	for (size_t i = 0; i < p->nsockets; i++)
		free(p->sockets[i]);
	free(p->sockets);
	for (size_t i = 0; i < p->nuntrusted; i++)
		free(p->untrusted[i]);
	free(p->untrusted);
	for (size_t i = 0; i < p->nabsent; i++)
		free(p->absent[i]);
	free(p->absent);
	for (size_t i = 0; i < p->ndeny; i++) {
		free(p->deny[i].path);
		for (size_t k = 0; k < p->deny[i].nkeep; k++)
			free(p->deny[i].keep[k]);
		free(p->deny[i].keep);
	}
	free(p->deny);
	strv_free(&p->blockdevs);
	strv_free(&p->cache_env);
	strv_free(&p->capturedevs);
	strv_free(&p->agent_opted);
	policy_clear_private_tmp(p);
	memset(p, 0, sizeof(*p));
}

void policy_clear_private_tmp(struct policy *p)
{
	for (size_t i = 0; i < p->nptmp; i++) {
		free(p->ptmp[i].view);
		free(p->ptmp[i].src);
		strv_free(&p->ptmp[i].shown);
	}
	memset(p->ptmp, 0, sizeof(p->ptmp));
	p->nptmp = 0;
	p->tmp_read_only_shown = 0;
}

/* Where policy_resolve_untampered is in its walk: cur[0..cl) is resolved
 * (cur is "" for "/"), r points at what is left of rest. */
struct walk {
	char rest[CORDON_PATH_MAX], cur[CORDON_PATH_MAX];
	size_t cl;
	char *r;
	int links; /* symlinks followed so far */
	int missing; /* a component was missing: the rest is lexical */
};

/* The walk starts at in, made absolute against the cwd: 0 or -1. */
static int walk_start(struct walk *w, const char *in)
{
	w->cl = 0;
	w->links = 0;
	w->missing = 0;
	if (in[0] == '/') {
		if (strlen(in) >= sizeof(w->rest))
			return errno = ENAMETOOLONG, -1;
		memcpy(w->rest, in, strlen(in) + 1);
	} else {
		char cwd[CORDON_PATH_MAX];
		if (getcwd(cwd, sizeof(cwd)) == NULL ||
		    path_join(w->rest, sizeof(w->rest), cwd, in) != 0)
			return errno = ENAMETOOLONG, -1;
	}
	w->cur[0] = '\0';
	w->r = w->rest;
	return 0;
}

/* The component cur names, in the directory cur[0..cl), is a symlink:
 * POLICY_REDIRECTED (out holds it) when that directory is writable,
 * else 0 with the walk going on through its target, or -1. */
static int walk_link(const struct policy *p, struct walk *w, char *out, size_t outlen)
{
	char link[CORDON_PATH_MAX];

	w->cur[w->cl] = '\0';
	if (policy_inside_untrusted(p, w->cl ? w->cur : "/")) {
		w->cur[w->cl] = '/';
		if (snprintf(out, outlen, "%s", w->cur) >= (int)outlen)
			return errno = ENAMETOOLONG, -1;
		return POLICY_REDIRECTED;
	}
	w->cur[w->cl] = '/';
	if (++w->links > 40)
		return errno = ELOOP, -1;
	ssize_t k = readlink(w->cur, link, sizeof(link) - 1);
	if (k < 0)
		return -1;
	link[k] = '\0';
	w->cur[w->cl] = '\0';
	/* The target, then what was left. */
	char next[CORDON_PATH_MAX];
	if (snprintf(next, sizeof(next), "%s/%s", link, w->r) >= (int)sizeof(next))
		return errno = ENAMETOOLONG, -1;
	if (link[0] == '/') {
		w->cl = 0;
		w->cur[0] = '\0';
	}
	memcpy(w->rest, next, strlen(next) + 1);
	w->r = w->rest;
	return 0;
}

/* One component of what is left: 0 (the walk goes on, or is done when
 * *w->r is '\0'), POLICY_REDIRECTED or -1, as walk_link. */
static int walk_step(const struct policy *p, struct walk *w, char *out, size_t outlen)
{
	char *r = w->r;
	while (*r == '/')
		r++;
	w->r = r;
	if (*r == '\0')
		return 0;
	char *end = strchr(r, '/');
	size_t n = end ? (size_t)(end - r) : strlen(r);
	w->r = r + n;
	if ((n == 1 && r[0] == '.') || n == 0)
		return 0;
	if (n == 2 && r[0] == '.' && r[1] == '.') {
		char *slash = strrchr(w->cur, '/');
		w->cl = slash ? (size_t)(slash - w->cur) : 0;
		w->cur[w->cl] = '\0';
		return 0;
	}
	if (w->cl + 1 + n >= sizeof(w->cur))
		return errno = ENAMETOOLONG, -1;
	w->cur[w->cl] = '/';
	memcpy(w->cur + w->cl + 1, r, n);
	w->cur[w->cl + 1 + n] = '\0';
	struct stat st;
	if (w->missing || lstat(w->cur, &st) != 0) {
		if (!w->missing && errno != ENOENT)
			return -1;
		w->missing = 1; /* the rest, lexically */
		w->cl += 1 + n;
		return 0;
	}
	if (!S_ISLNK(st.st_mode)) {
		w->cl += 1 + n;
		return 0;
	}
	return walk_link(p, w, out, outlen);
}

/* realpath, except that a symlink met on the way that lies in a
 * writable tree of p is not followed: a previous run may have planted
 * it to turn this path (a cache, an --allow-write or --protect path, the
 * status file, the state dir) into another place. Symlinks elsewhere are
 * followed (a ~/.cargo that links to another disk keeps working).
 * Components past the first missing one are appended as they are (the
 * caller may create them). in may be relative (to the cwd).
 * 0: out holds the path; POLICY_REDIRECTED: out holds the symlink;
 * -1: errno says why (ENAMETOOLONG, ELOOP, ...). */
int policy_resolve_untampered(const struct policy *p, const char *in, char *out, size_t outlen)
{
	struct walk w;

	if (walk_start(&w, in) != 0)
		return -1;
	while (*w.r != '\0') {
		int r = walk_step(p, &w, out, outlen);
		if (r != 0)
			return r;
	}
	if (snprintf(out, outlen, "%s", w.cl ? w.cur : "/") >= (int)outlen)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* realpath + stat, without following a symlink that lies in a tree
 * already writable (policy_resolve_untampered); what names the path in
 * messages. */
static int canonical(cordon *c, const char *what, const char *in, char *out, int *is_dir)
{
	struct stat st;
	int r = policy_resolve_untampered(&c->pol, in, out, CORDON_PATH_MAX);
	if (r == POLICY_REDIRECTED)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing %s %s: it leads through a symlink inside a writable "
				   "tree (%s), which a confined run may have planted",
				   what, in, out);
	if (r != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "%s: %s", what, in);
	if (stat(out, &st) != 0) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			return cordon_fail(c, CORDON_EINVAL, "%s does not exist: %s", what, in);
		return cordon_fail_errno(c, CORDON_EINVAL, e, "%s: %s", what, in);
	}
	*is_dir = S_ISDIR(st.st_mode) ? 1 : 0;
	return 0;
}

static int refuse_broad(cordon *c, const char *what, const char *path)
{
	if (!policy_is_broad(c, path))
		return 0;
	if (strcmp(path, "/") == 0)
		return cordon_fail(c, CORDON_EREFUSED,
				   "refusing %s /: it is the root (--allow-broad overrides)", what);
	/* Which home: HOME may be relative (resolved against the current
	 * directory) or differ from the passwd entry's. */
	const char *env = getenv("HOME");
	for (int i = 0; i < c->nhomes; i++)
		if (path_within(path, c->homes[i]))
			return cordon_fail(
				c, CORDON_EREFUSED,
				"refusing %s %s: it is %s %s (%s%s; --allow-broad overrides)", what,
				path,
				strcmp(path, c->homes[i]) == 0
					? "the home directory"
					: "an ancestor of the home directory",
				c->homes[i],
				i == 0 && env != NULL && env[0] != '\0' ? "HOME="
									: "the user's passwd entry",
				i == 0 && env != NULL && env[0] != '\0' ? env : "");
	return cordon_fail(c, CORDON_EREFUSED,
			   "refusing %s %s: it is /, the home directory or an ancestor of it "
			   "(--allow-broad overrides)",
			   what, path);
}

/* One entry per path: a second naming ORs its flags in. */
static int add_protect(struct policy *p, const char *path, int explicit_, int absent, int checked)
{
	for (size_t i = 0; i < p->nprot; i++)
		if (strcmp(p->prot[i].path, path) == 0) {
			p->prot[i].explicit_ |= explicit_;
			p->prot[i].checked |= checked;
			return 0;
		}
	struct protect_entry *n = realloc(p->prot, (p->nprot + 1) * sizeof(*n));
	if (n == NULL)
		return CORDON_ENOMEM;
	p->prot = n;
	char *dup = strdup(path);
	if (dup == NULL)
		return CORDON_ENOMEM;
	p->prot[p->nprot] = (struct protect_entry){
		.path = dup, .explicit_ = explicit_, .absent = absent, .checked = checked
	};
	p->nprot++;
	return 0;
}

const char *policy_project_tree(const struct policy *p, size_t k)
{
	if (p->workspace != NULL && k-- == 0)
		return p->workspace;
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind == W_EXTRA && p->w[i].is_dir && k-- == 0)
			return p->w[i].path;
	return NULL;
}

int policy_inside_writable(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].is_dir ? path_within(p->w[i].path, path)
				   : strcmp(p->w[i].path, path) == 0)
			return 1;
	return 0;
}

/* An --allow-socket path: a socket, or a directory whose sockets (at any
 * depth) are allowed. It must exist: the run checks sockets by identity. */
static int add_socket(cordon *c, struct policy *p, const char *in)
{
	char real[CORDON_PATH_MAX];
	struct stat st;
	int is_dir = 0;
	int r = canonical(c, "--allow-socket path", in, real, &is_dir);
	if (r != 0)
		return r;
	if (stat(real, &st) != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "--allow-socket path: %s", in);
	if (!S_ISSOCK(st.st_mode) && !S_ISDIR(st.st_mode))
		return cordon_fail(c, CORDON_EINVAL,
				   "--allow-socket path is neither a socket nor a directory: %s",
				   in);
	if (is_dir && (r = refuse_broad(c, "--allow-socket directory", real)) != 0)
		return r;
	for (size_t i = 0; i < p->nsockets; i++)
		if (strcmp(p->sockets[i], real) == 0)
			return 0;
	char **v = realloc(p->sockets, (p->nsockets + 1) * sizeof(*v));
	if (v == NULL)
		return CORDON_ENOMEM;
	p->sockets = v;
	if ((v[p->nsockets] = strdup(real)) == NULL)
		return CORDON_ENOMEM;
	p->nsockets++;
	return 0;
}

/* An --protect path. One that does not exist yet (inside a writable
 * tree, reached without a symlink planted in one) is held by its name:
 * what the run makes there is moved aside at the end (agentcfg.c). */
static int resolve_protect(cordon *c, const char *in)
{
	char real[CORDON_PATH_MAX];
	struct stat st;
	int is_dir = 0;
	int r = policy_resolve_untampered(&c->pol, in, real, sizeof(real));
	int absent = r == 0 && lstat(real, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
	if (!absent && (r = canonical(c, "--protect path", in, real, &is_dir)) != 0)
		return r;
	if (!policy_inside_writable(&c->pol, real))
		return cordon_fail(c, CORDON_EINVAL,
				   "--protect path is not inside a writable tree: %s", in);
	return add_protect(&c->pol, real, 1, absent, absent);
}

/* The workspace option, else the current directory into buf. */
static const char *workspace_named(cordon *c, char *buf)
{
	if (c->workspace_opt != NULL)
		return c->workspace_opt;
	if (getcwd(buf, CORDON_PATH_MAX) == NULL) {
		(void)cordon_fail_errno(c, CORDON_EINVAL, errno,
					"cannot get the current directory");
		return NULL;
	}
	return buf;
}

/* The helpers here report CORDON_ENOMEM without a message; the caller
 * adds it (cordon.c). */
int policy_resolve_writable(cordon *c)
{
	struct policy *p = &c->pol;
	char buf[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	const char *ws = workspace_named(c, buf);
	int is_dir = 0, r;

	if (ws == NULL)
		return CORDON_EINVAL;
	if ((r = canonical(c, "workspace", ws, real, &is_dir)) != 0)
		return r;
	if (!is_dir)
		return cordon_fail(c, CORDON_EINVAL, "workspace is not a directory: %s", ws);
	if ((r = refuse_broad(c, "workspace", real)) != 0)
		return r;
	if ((p->workspace = strdup(real)) == NULL)
		return CORDON_ENOMEM;
	if ((r = policy_add_writable(p, real, 1, W_WORKSPACE)) != 0)
		return r;

	for (size_t i = 0; i < c->allow_write.n; i++) {
		if ((r = canonical(c, "--allow-write path", c->allow_write.v[i], real, &is_dir)) !=
		    0)
			return r;
		if ((r = refuse_broad(c, "--allow-write path", real)) != 0)
			return r;
		if ((r = policy_add_writable(p, real, is_dir, W_EXTRA)) != 0)
			return r;
	}
	for (size_t i = 0; i < passfile_count(c); i++) {
		if ((r = canonical(c, "--pass-file path", passfile_path(c, i), real, &is_dir)) != 0)
			return r;
		if ((r = policy_add_writable(p, real, 0, W_EXTRA)) != 0)
			return r;
	}
	return 0;
}

int policy_resolve(cordon *c)
{
	struct policy *p = &c->pol;
	char buf[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	const char *ws = workspace_named(c, buf);
	int is_dir = 0, r;

	if (ws == NULL)
		return CORDON_EINVAL;
	/* Each path was checked against the trees before it: check them all
	 * again against the whole set (a tree named later may hold a
	 * symlink an earlier path goes through), caches' locations too. */
	if ((r = canonical(c, "workspace", ws, real, &is_dir)) != 0 ||
	    strcmp(real, p->workspace) != 0)
		return r != 0 ? r
			      : cordon_fail(
					c, CORDON_EREFUSED,
					"refusing workspace %s: it changed while it was resolved",
					ws);
	for (size_t i = 0; i < c->allow_write.n; i++)
		if ((r = canonical(c, "--allow-write path", c->allow_write.v[i], real, &is_dir)) !=
		    0)
			return r;
	for (size_t i = 0; i < passfile_count(c); i++)
		if ((r = canonical(c, "--pass-file path", passfile_path(c, i), real, &is_dir)) != 0)
			return r;

	for (size_t i = 0; i < c->protect.n; i++)
		if ((r = resolve_protect(c, c->protect.v[i])) != 0)
			return r;

	for (size_t i = 0; i < c->allow_socket.n; i++)
		if ((r = add_socket(c, p, c->allow_socket.v[i])) != 0)
			return r;

	return 0;
}

int policy_inside_untrusted(const struct policy *p, const char *path)
{
	if (policy_inside_writable(p, path))
		return 1;
	for (size_t i = 0; i < p->nuntrusted; i++)
		if (path_within(p->untrusted[i], path))
			return 1;
	return 0;
}

int strlist_push(char ***v, size_t *n, const char *path)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (nv == NULL)
		return CORDON_ENOMEM;
	*v = nv;
	if ((nv[*n] = strdup(path)) == NULL)
		return CORDON_ENOMEM;
	(*n)++;
	return 0;
}

int policy_add_untrusted(struct policy *p, const char *path)
{
	return strlist_push(&p->untrusted, &p->nuntrusted, path);
}

int policy_add_absent(struct policy *p, const char *path)
{
	return strlist_push(&p->absent, &p->nabsent, path);
}

int policy_add_protect(struct policy *p, const char *path)
{
	char real[CORDON_PATH_MAX];
	/* A link (hooks -> ../tools/hooks) protects what it names, when
	 * that is writable at all. */
	if (realpath(path, real) == NULL || !policy_inside_writable(p, real))
		return 0;
	return add_protect(p, real, 0, 0, 1);
}

int policy_add_held(struct policy *p, const char *path, int absent)
{
	return absent ? add_protect(p, path, 0, 1, 1) : policy_add_protect(p, path);
}

/* The devices of design section 4, where this system has them. On macOS
 * the Seatbelt profile names them itself (and /dev/ttysN, which no single
 * path lists); they are listed here for the status event. */
void policy_add_devices(struct policy *p)
{
#if defined(__APPLE__)
	static const char *const devices[] = {
		"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx", "/dev/fd", "/dev/dtracehelper",
	};
#else
	/* Not /dev/pts: only the caller's own terminal (below), so the
	 * command cannot write to, or run stty on, another terminal. */
	static const char *const devices[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	};
#endif
	char real[CORDON_PATH_MAX];
	const char *names[sizeof(devices) / sizeof(devices[0]) + 3];
	size_t n = 0;
	struct stat st;

	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
		names[n++] = devices[i];
#if !defined(__APPLE__)
	/* The caller's terminal on fds 0-2 (one at most: one session). */
	char tty[CORDON_PATH_MAX];
	for (int fd = 0; fd <= 2; fd++)
		if (isatty(fd) && ttyname_r(fd, tty, sizeof(tty)) == 0) {
			names[n++] = tty;
			break;
		}
#endif
	for (size_t i = 0; i < n; i++) {
		if (realpath(names[i], real) == NULL || stat(real, &st) != 0)
			continue;
		if (!path_within("/dev", real))
			continue; /* never widen the set through a link out of /dev */
		if (S_ISCHR(st.st_mode))
			(void)policy_add_writable(p, real, 0, W_DEVICE);
		else if (S_ISDIR(st.st_mode) && strcmp(real, "/dev/fd") == 0)
			(void)policy_add_writable(p, real, 1, W_DEVICE);
	}
}
