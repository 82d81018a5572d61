/*
 * Tool caches: where each allowed tool keeps its cache, which tools are
 * present, and the writable entries for the run (design section 4).
 *
 * A tool counts as present when its own variable names the cache, when
 * the cache (or, for cargo, CARGO_HOME) already exists, or when one of
 * its programs is on PATH. The PATH check looks for an executable file by
 * name and runs nothing; relative PATH entries are ignored (they would
 * name the workspace).
 *
 * A present tool's missing cache is made where its variable names it, or
 * inside the tool's own directory where that exists (~/.cargo). A missing
 * default one is never made in the home (the command may never run the
 * tool): it is moved to STATE/caches/NAME by the tool's variable, set in
 * the command's environment; where no variable moves it alone, it is not
 * granted. With HOME unset the locations under the home have no path.
 */
#include "cachelayer.h"
#include "caches.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int on_path(const char *prog)
{
	const char *p = getenv("PATH");
	char buf[CORDON_PATH_MAX];
	struct stat st;

	for (; p != NULL && *p != '\0';) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		size_t plen = strlen(prog);
		if (n > 0 && p[0] == '/' && n + 1 + plen + 1 <= sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = '/';
			memcpy(buf + n + 1, prog, plen + 1);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return 1;
		}
		if (e == NULL)
			break;
		p = e + 1;
	}
	return 0;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* A tool outside the default counts as present: the caller named it. */
static int tool_present(const struct cache_loc *locs, size_t n, unsigned bit)
{
	if (!(bit & CORDON_CACHE_DEFAULT))
		return 1;
	for (size_t i = 0; i < n; i++) {
		if (locs[i].bit != bit)
			continue;
		if (locs[i].from_var || exists(locs[i].path))
			return 1;
		/* cargo: CARGO_HOME (rustup's ~/.cargo) before any download. */
		if (bit == CORDON_CACHE_CARGO) {
			char base[CORDON_PATH_MAX];
			if (path_join(base, sizeof(base), locs[i].path, "") == 0) {
				char *slash = strrchr(base, '/');
				if (slash != NULL && slash != base) {
					*slash = '\0';
					if (exists(base))
						return 1;
				}
			}
		}
	}
	for (const char *const *p = caches_tool_programs(bit); *p != NULL; p++)
		if (on_path(*p))
			return 1;
	return 0;
}

/* The parent of path (a file to create) and the file, owner-only. One
 * that a concurrent run made first is taken (the caller checks what it
 * is). */
static int make_file(const char *path)
{
	char parent[CORDON_PATH_MAX];
	if (path_join(parent, sizeof(parent), path, "") != 0)
		return -1;
	char *slash = strrchr(parent, '/');
	if (slash != NULL && slash != parent)
		*slash = '\0';
	if (mkdir_p(parent) != 0)
		return -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	close(fd);
	return 0;
}

/* Make the missing real (a directory, or a file) and check that what
 * was made is what was checked. 0 or -1. */
static int make_checked(const struct policy *p, const char *real, int is_dir)
{
	char again[CORDON_PATH_MAX];
	if ((is_dir ? mkdir_p(real) : make_file(real)) != 0)
		return -1;
	if (policy_resolve_untampered(p, real, again, sizeof(again)) != 0 ||
	    strcmp(again, real) != 0)
		return -1;
	return 0;
}

static int push_entry(struct policy *p, enum cache_tool tool, const char *path,
		      enum cache_state state, struct cache_entry **out)
{
	struct cache_entry *e;
	if (p->ncaches >= sizeof(p->caches) / sizeof(p->caches[0]))
		return 0;
	e = &p->caches[p->ncaches];
	memset(e, 0, sizeof(*e));
	e->tool = tool;
	e->state = state;
	e->how = CACHE_HOW_COUNT;
	if (path != NULL && (e->path = strdup(path)) == NULL)
		return CORDON_ENOMEM;
	p->ncaches++;
	*out = e;
	return 0;
}

/* e's path becomes a copy of path: 0 or CORDON_ENOMEM (e unchanged). */
static int entry_path(struct cache_entry *e, const char *path)
{
	char *dup = strdup(path);
	if (dup == NULL)
		return CORDON_ENOMEM;
	free(e->path);
	e->path = dup;
	return 0;
}

/* e's path is real (canonical, there): granted, unless it is not of its
 * kind (a file for a directory) or is broad. Its writes go to real
 * itself (how): cordon's own directory, or a lock file. */
static int grant(cordon *c, struct cache_entry *e, const char *real, int is_dir, enum cache_how how)
{
	struct stat st;
	if (stat(real, &st) != 0 || (S_ISDIR(st.st_mode) ? 1 : 0) != is_dir)
		return 0;
	if (entry_path(e, real) != 0)
		return CORDON_ENOMEM;
	if (policy_is_broad(c, real)) {
		e->state = CACHE_REFUSED;
		return 0;
	}
	int r = policy_add_writable(&c->pol, real, is_dir, W_CACHE);
	if (r != 0)
		return r;
	e->state = e->created ? CACHE_CREATED : CACHE_EXISTING;
	e->how = how;
	return 0;
}

/* NAME=dir in the command's environment, once per name. */
static int set_env(struct policy *p, const char *name, const char *dir)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < p->cache_env.n; i++)
		if (strncmp(p->cache_env.v[i], name, n) == 0 && p->cache_env.v[i][n] == '=')
			return 0;
	size_t len = n + 1 + strlen(dir) + 1;
	char *s = malloc(len);
	if (s == NULL)
		return CORDON_ENOMEM;
	snprintf(s, len, "%s=%s", name, dir);
	return strv_take(&p->cache_env, s);
}

/* How a location is moved under the state dir: var set to
 * STATE/caches/name, the location at STATE/caches/name[/tail]. */
struct move {
	const char *var, *name, *tail;
};

/* A location moved under the state dir: to STATE/caches/NAME[/tail],
 * made there (the state dir is cordon's own, which no command may write:
 * only the location itself is granted) and named to the command by the
 * variable. from: the cache that exists (or that a variable names) in
 * its place, which the run does not use, or NULL. */
static int resolve_moved(cordon *c, struct cache_entry *e, struct move mv, int is_dir,
			 const char *from)
{
	char dir[CORDON_PATH_MAX], path[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	struct stat st;
	if (runtmp_caches_dir(c, real, sizeof(real)) != 0 ||
	    path_join(dir, sizeof(dir), real, mv.name) != 0 ||
	    path_join(path, sizeof(path), dir, mv.tail != NULL ? mv.tail : "") != 0)
		return 0;
	if (from != NULL && (e->from = strdup(from)) == NULL)
		return CORDON_ENOMEM;
	if (entry_path(e, path) != 0)
		return CORDON_ENOMEM;
	e->created = 0;
	int rr = policy_resolve_untampered(&c->pol, path, real, sizeof(real));
	if (rr == POLICY_REDIRECTED)
		e->state = CACHE_REDIRECTED;
	if (rr != 0 || strcmp(real, path) != 0)
		return 0;
	if (lstat(path, &st) != 0) {
		if (make_checked(&c->pol, path, is_dir) != 0)
			return 0;
		e->created = 1;
	}
	int r = grant(c, e, path, is_dir, CACHE_MOVED);
	if (r != 0 || (e->state != CACHE_CREATED && e->state != CACHE_EXISTING))
		return r;
	e->variable = mv.var;
	return set_env(&c->pol, mv.var, dir);
}

/* The name under STATE/caches a location is moved to: name itself for a
 * default location; for one the user's variable names, name and a hash
 * of path (the tool's directory, or the location), so that two caches of
 * the user's never share cordon's copy. NULL when it does not fit. */
static const char *moved_name(char *buf, size_t size, const char *name, const struct cache_loc *loc,
			      const char *path)
{
	if (!loc->from_var)
		return name;
	return cachelayer_name(name, path, buf, size) == 0 ? buf : NULL;
}

/* The tool's own directory of loc (CARGO_HOME) into own: 0, or -1 when
 * it has none. */
static int own_dir(const struct cache_loc *loc, char own[CORDON_PATH_MAX])
{
	if (loc->own_len == 0 || loc->own_len >= CORDON_PATH_MAX)
		return -1;
	memcpy(own, loc->path, loc->own_len);
	own[loc->own_len] = '\0';
	return 0;
}

/* Whether the missing location loc (at real) is made where it is: where
 * the tool's variable names it (never in a home that does not exist:
 * HOME=/nonexistent), or in the tool's own directory where that exists.
 * A default location elsewhere (in the home, or an XDG directory) is
 * not: a run makes nothing there that its command may never use. */
static int made_in_place(const struct cache_loc *loc, const char *missing_home, const char *real)
{
	char own[CORDON_PATH_MAX];
	struct stat st;
	if (loc->from_var)
		return missing_home == NULL || !path_within(missing_home, real);
	return own_dir(loc, own) == 0 && stat(own, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A writable tree other than a cache lies strictly inside path: an
 * overlay there would hide it. */
static int holds_writable(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind != W_DEVICE && p->w[i].kind != W_CACHE &&
		    strcmp(p->w[i].path, path) != 0 && path_within(path, p->w[i].path))
			return 1;
	return 0;
}

/* The user's cache directory real (there): seen through an overlay when
 * the run can make one (layered), else moved to cordon's own by the
 * variable that names it alone, else left read-only. */
static int resolve_user_dir(cordon *c, struct cache_entry *e, const struct cache_loc *loc,
			    const char *real, int layered)
{
	struct cache_layer *l = NULL;
	if (entry_path(e, real) != 0)
		return CORDON_ENOMEM;
	if (policy_is_broad(c, real)) {
		e->state = CACHE_REFUSED;
		return 0;
	}
	if (layered && !holds_writable(&c->pol, real) &&
	    cachelayer_open(c, loc->tool, real, &l) == 0) {
		char *layer = strdup(l->layer);
		int r = layer != NULL ? policy_add_layered(&c->pol, real, l) : CORDON_ENOMEM;
		if (layer == NULL)
			cache_layer_free(l);
		if (r != 0) {
			free(layer);
			return r == CORDON_ENOMEM ? r : 0;
		}
		e->layer = layer;
		e->state = e->created ? CACHE_CREATED : CACHE_EXISTING;
		e->how = CACHE_OVERLAY;
		return 0;
	}
	char buf[96];
	const char *name = moved_name(buf, sizeof(buf), loc->alone_name, loc, real);
	if (loc->alone_var != NULL && name != NULL)
		return resolve_moved(c, e, (struct move){ loc->alone_var, name, NULL }, 1, real);
	e->state = CACHE_READ_ONLY;
	return 0;
}

/* Without overlays, a missing location the user's variable names (or in
 * a tool's directory that exists): no directory is made there. Moved
 * whole with the tool's directory where that does not exist either (it
 * holds no configuration then: CARGO_HOME), else by the variable that
 * names it alone, else not granted; a file (cargo's lock, which holds
 * nothing) is made in place (1). */
static int move_missing(cordon *c, struct cache_entry *e, const struct cache_loc *loc,
			const char *real)
{
	char own[CORDON_PATH_MAX], buf[96];
	struct stat st;
	const char *from = loc->from_var ? real : NULL, *name;
	e->state = CACHE_MISSING;
	if (loc->move_var != NULL && own_dir(loc, own) == 0 && lstat(own, &st) != 0 &&
	    (name = moved_name(buf, sizeof(buf), loc->move_name, loc, own)) != NULL)
		return resolve_moved(c, e, (struct move){ loc->move_var, name, loc->tail },
				     loc->is_dir, from);
	if (!loc->is_dir)
		return 1;
	if (loc->alone_var == NULL ||
	    (name = moved_name(buf, sizeof(buf), loc->alone_name, loc, real)) == NULL)
		return 0;
	return resolve_moved(c, e, (struct move){ loc->alone_var, name, NULL }, 1, from);
}

/* A location in a writable tree: written there directly, or through the
 * overlay of the cache that holds it. */
static int resolve_inside(const struct policy *p, struct cache_entry *e, const char *real)
{
	e->state = CACHE_INSIDE;
	e->how = CACHE_DIRECT;
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].layer != NULL && path_within(p->w[i].path, real)) {
			e->how = CACHE_OVERLAY;
			if ((e->layer = strdup(p->w[i].layer->layer)) == NULL)
				return CORDON_ENOMEM;
		}
	return entry_path(e, real);
}

/* A location that does not exist (at real). Never made where the tool
 * would not make it; made empty where it would, when the run sees it
 * through an overlay (an empty directory runs nothing); else moved. */
static int resolve_missing(cordon *c, struct cache_entry *e, const struct cache_loc *loc,
			   const char *real, const char *missing_home, int layered)
{
	char own[CORDON_PATH_MAX], buf[96];
	struct move mv = { loc->move_var, loc->move_name, loc->tail };
	if (!made_in_place(loc, missing_home, real)) {
		e->state = CACHE_MISSING;
		if (mv.var != NULL)
			mv.name = moved_name(buf, sizeof(buf), mv.name, loc,
					     own_dir(loc, own) == 0 ? own : real);
		return mv.var != NULL && mv.name != NULL
			       ? resolve_moved(c, e, mv, loc->is_dir, NULL)
			       : 0;
	}
	int r = layered ? 1 : move_missing(c, e, loc, real);
	if (r != 1)
		return r;
	if (make_checked(&c->pol, real, loc->is_dir) != 0) {
		struct stat st;
		e->created = lstat(real, &st) == 0;
		return 0;
	}
	e->created = 1;
	return 1;
}

/* One cache location. It is resolved without following a symlink that
 * lies in a writable tree (policy_resolve_untampered): a run with
 * CARGO_HOME in its workspace could otherwise replace .cargo/registry
 * with a link and have the next run grant whatever it names. A location
 * inside a writable tree is writable already and gets no grant (nor a
 * directory made for it) of its own. A file (cargo's package-cache lock,
 * which cargo only locks) is written where it is. */
static int resolve_one(cordon *c, const struct cache_loc *loc, const char *missing_home,
		       int layered)
{
	struct policy *p = &c->pol;
	struct cache_entry *e = NULL;
	char real[CORDON_PATH_MAX];
	struct stat st;
	int r = push_entry(p, loc->tool, loc->homeless ? NULL : loc->path, CACHE_UNAVAILABLE, &e);
	if (r != 0 || e == NULL)
		return r;
	e->is_dir = loc->is_dir;
	if (loc->homeless) {
		e->state = CACHE_MISSING;
		struct move mv = { loc->move_var, loc->move_name, loc->tail };
		return mv.var != NULL ? resolve_moved(c, e, mv, loc->is_dir, NULL) : 0;
	}
	int rr = policy_resolve_untampered(p, loc->path, real, sizeof(real));
	if (rr == 0 && policy_inside_writable(p, real))
		return resolve_inside(p, e, real);
	if (rr == POLICY_REDIRECTED) {
		e->state = CACHE_REDIRECTED;
		(void)entry_path(e, real); /* out of memory: the name stays */
	}
	if (rr != 0)
		return 0;
	if (lstat(real, &st) != 0 &&
	    (r = resolve_missing(c, e, loc, real, missing_home, layered)) != 1)
		return r;
	if (!loc->is_dir)
		return grant(c, e, real, 0, CACHE_DIRECT);
	if (lstat(real, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	return resolve_user_dir(c, e, loc, real, layered);
}

/* The home the default caches are under: $HOME as given (homes_load
 * checked its length). -1: none (HOME unset or empty: the password
 * database's home is never used for caches). */
static int cache_home(const cordon *c, char home[CORDON_PATH_MAX])
{
	if (!c->home_set)
		return -1;
	const char *h = getenv("HOME");
	return path_join(home, CORDON_PATH_MAX, h != NULL && h[0] == '/' ? h : c->homes[0], "");
}

/* The run's cache locations for the tools in mask; those under the home
 * are homeless when there is none. */
static size_t locate(const cordon *c, unsigned mask, struct cache_loc locs[CACHE_LOC_MAX],
		     unsigned *too_long)
{
	char home[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX];
	*too_long = 0;
	if (mask == 0)
		return 0;
	/* A relative variable is what the tool takes it for from where it
	 * starts: the run's working directory (workdir.c). */
	if (c->pol.cwd != NULL ? path_join(cwd, sizeof(cwd), c->pol.cwd, "") != 0
			       : getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0'; /* relative variables then name no location */
	return caches_locate(mask, caches_env_lookup, environ,
			     cache_home(c, home) == 0 ? home : NULL, cwd[0] ? cwd : NULL, locs,
			     too_long);
}

static int resolve(cordon *c, int layered)
{
	struct cache_loc locs[CACHE_LOC_MAX];
	unsigned too_long = 0;
	struct cache_entry *e;
	int r;

	size_t n = locate(c, c->caches, locs, &too_long);
	if (n == 0 && too_long == 0)
		return 0;
	char home[CORDON_PATH_MAX];
	struct stat hs;
	const char *missing_home = NULL;
	if (cache_home(c, home) == 0 && (stat(home, &hs) != 0 || !S_ISDIR(hs.st_mode)))
		missing_home = home;
	for (unsigned t = 0; t < CACHE_TOOL_COUNT; t++) {
		unsigned bit = 1u << t;
		if (!(c->caches & bit))
			continue;
		int present = (too_long & bit) || tool_present(locs, n, bit);
		int replaced = 0; /* the next location gave way to a legacy one */
		for (size_t i = 0; i < n && present; i++) {
			if (locs[i].bit != bit)
				continue;
			if (replaced) {
				replaced = 0;
				continue;
			}
			/* An older location the tool still uses where it exists:
			 * then in place of the next one, else not at all. */
			if (locs[i].legacy && !(replaced = exists(locs[i].path)))
				continue;
			if ((r = resolve_one(c, &locs[i], missing_home, layered)) != 0)
				return r;
		}
		/* A location that cannot be a path: reported, never granted. */
		if ((too_long & bit) && (r = push_entry(&c->pol, cache_tool_of_bit(bit), NULL,
							CACHE_UNAVAILABLE, &e)) != 0)
			return r;
	}
	return 0;
}

/* path, and where it leads, in policy.untrusted. 0 or CORDON_ENOMEM. */
static int untrust(cordon *c, const char *path)
{
	char real[CORDON_PATH_MAX];
	if (policy_add_untrusted(&c->pol, path) != 0)
		return CORDON_ENOMEM;
	if (policy_resolve_untampered(&c->pol, path, real, sizeof(real)) == 0 &&
	    strcmp(real, path) != 0 && policy_add_untrusted(&c->pol, real) != 0)
		return CORDON_ENOMEM;
	return 0;
}

/* Every cache location of the tools cordon knows, present or not, and
 * the state dir's caches/ (where missing ones are moved): a command of
 * some run may write there, so cordon follows no symlink in them when it
 * resolves its own paths (policy.untrusted). */
int caches_untrusted(cordon *c)
{
	struct cache_loc locs[CACHE_LOC_MAX];
	char state[CORDON_PATH_MAX], moved[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX];
	unsigned too_long = 0;
	size_t n = locate(c, CORDON_CACHE_ALL, locs, &too_long);
	for (size_t i = 0; i < n; i++)
		if (!locs[i].homeless && untrust(c, locs[i].path) != 0)
			return CORDON_ENOMEM;
	if (runtmp_state_dir(c, state, sizeof(state)) == 0 && getcwd(cwd, sizeof(cwd)) != NULL &&
	    path_join(moved, sizeof(moved), state, "caches") == 0 &&
	    path_normalize(cwd, moved, state, sizeof(state)) == 0)
		return untrust(c, state);
	return 0;
}

int caches_resolve(cordon *c, int layered)
{
	int r = resolve(c, layered);
	return r == CORDON_ENOMEM ? cordon_fail(c, r, "out of memory") : r;
}

_Static_assert(sizeof(((struct policy *)0)->caches) / sizeof(struct cache_entry) >=
		       CACHE_LOC_MAX + CACHE_TOOL_COUNT,
	       "room for every location and one unavailable entry per tool");
