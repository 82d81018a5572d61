/*
 * Tool caches: where each allowed tool keeps its cache, which tools are
 * present, and the writable entries for the run (design section 4).
 *
 * A tool counts as present when its own variable names the cache, when
 * the cache (or, for cargo, CARGO_HOME) already exists, or when one of
 * its programs is on PATH. Only a present tool's missing cache is
 * created, so a machine without npm gets no ~/.npm. The PATH check looks
 * for an executable file by name and runs nothing; relative PATH entries
 * are ignored (they would name the workspace).
 */
#include "caches.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static const char *var(cache_getenv_fn get, void *ctx, const char *name)
{
	const char *v = get(ctx, name);
	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* base/sub[/leaf], made absolute against cwd, normalised. -1: too long. */
static int join3(char *out, const char *cwd, const char *base, const char *sub, const char *leaf)
{
	char a[CORDON_PATH_MAX], b[CORDON_PATH_MAX];
	if (path_join(a, sizeof(a), base, sub) != 0 ||
	    path_join(b, sizeof(b), a, leaf != NULL ? leaf : "") != 0)
		return -1;
	return path_normalize(cwd, b, out, CORDON_PATH_MAX);
}

struct locator {
	struct cache_loc *out;
	size_t n;
	unsigned *too_long;
	const char *cwd;
};

static void add(struct locator *l, unsigned bit, int is_dir, int from_var, const char *base,
		const char *sub, const char *leaf)
{
	struct cache_loc *e = &l->out[l->n];
	if (l->n >= CACHE_LOC_MAX)
		return;
	if (join3(e->path, l->cwd, base, sub, leaf) != 0) {
		*l->too_long |= bit;
		return;
	}
	e->tool = cache_tool_of_bit(bit);
	e->bit = bit;
	e->is_dir = is_dir;
	e->from_var = from_var;
	l->n++;
}

size_t caches_locate(unsigned mask, cache_getenv_fn get, void *ctx, const char *home,
		     const char *cwd, struct cache_loc out[CACHE_LOC_MAX], unsigned *too_long)
{
	struct locator l = { out, 0, too_long, cwd };
	const char *v;

	*too_long = 0;
	if (mask & CORDON_CACHE_CARGO) {
		v = var(get, ctx, "CARGO_HOME");
		const char *base = v ? v : home;
		const char *sub = v ? "" : ".cargo";
		add(&l, CORDON_CACHE_CARGO, 1, v != NULL, base, sub, "registry");
		add(&l, CORDON_CACHE_CARGO, 1, v != NULL, base, sub, "git");
		add(&l, CORDON_CACHE_CARGO, 0, v != NULL, base, sub, ".package-cache");
	}
	if (mask & CORDON_CACHE_NPM) {
		v = var(get, ctx, "npm_config_cache");
		if (v == NULL)
			v = var(get, ctx, "NPM_CONFIG_CACHE");
		add(&l, CORDON_CACHE_NPM, 1, v != NULL, v ? v : home, v ? "" : ".npm", NULL);
	}
#if defined(__APPLE__)
	const char *cache_home = NULL;
	const char *cache_sub = "Library/Caches";
#else
	const char *cache_home = var(get, ctx, "XDG_CACHE_HOME");
	const char *cache_sub = ".cache";
	if (cache_home != NULL && cache_home[0] != '/')
		cache_home = NULL; /* the XDG spec ignores relative values */
#endif
	const char *cbase = cache_home ? cache_home : home;
	const char *csub = cache_home ? "" : cache_sub;
	if (mask & CORDON_CACHE_PIP) {
		v = var(get, ctx, "PIP_CACHE_DIR");
		if (v != NULL)
			add(&l, CORDON_CACHE_PIP, 1, 1, v, "", NULL);
		else
			add(&l, CORDON_CACHE_PIP, 1, 0, cbase, csub, "pip");
	}
	if (mask & CORDON_CACHE_PLAYWRIGHT) {
		v = var(get, ctx, "PLAYWRIGHT_BROWSERS_PATH");
		/* "0" means browsers live in node_modules, inside the workspace. */
		if (v != NULL && strcmp(v, "0") != 0)
			add(&l, CORDON_CACHE_PLAYWRIGHT, 1, 1, v, "", NULL);
		else if (v == NULL)
			add(&l, CORDON_CACHE_PLAYWRIGHT, 1, 0, cbase, csub, "ms-playwright");
	}
	return l.n;
}

const char *const *caches_tool_programs(unsigned bit)
{
	static const char *const cargo[] = { "cargo", NULL };
	static const char *const npm[] = { "npm", "npx", NULL };
	static const char *const pip[] = { "pip", "pip3", NULL };
	static const char *const playwright[] = { "playwright", NULL };
	static const char *const none[] = { NULL };
	switch (bit) {
	case CORDON_CACHE_CARGO:
		return cargo;
	case CORDON_CACHE_NPM:
		return npm;
	case CORDON_CACHE_PIP:
		return pip;
	case CORDON_CACHE_PLAYWRIGHT:
		return playwright;
	default:
		return none;
	}
}

/* ---- the file system part ---- */

const char *caches_env_lookup(void *ctx, const char *name)
{
	const char *const *env = ctx;
	size_t n = strlen(name);
	for (size_t i = 0; env != NULL && env[i] != NULL; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

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

static int tool_present(const struct cache_loc *locs, size_t n, unsigned bit)
{
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

/* The parent of path (a file to create) and the file, owner-only. */
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
		return -1;
	close(fd);
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
	if (path != NULL && (e->path = strdup(path)) == NULL)
		return CORDON_ENOMEM;
	p->ncaches++;
	*out = e;
	return 0;
}

/* One cache location. It is resolved without following a symlink that
 * lies in a writable tree (policy_resolve_untampered): a run with
 * CARGO_HOME in its workspace could otherwise replace .cargo/registry
 * with a link and have the next run grant whatever it names. A location
 * inside a writable tree is writable already and gets no grant (nor a
 * directory made for it) of its own. */
static int resolve_one(cordon *c, const struct cache_loc *loc, const char *missing_home)
{
	struct policy *p = &c->pol;
	struct cache_entry *e = NULL;
	char real[CORDON_PATH_MAX], again[CORDON_PATH_MAX];
	struct stat st;
	int r = push_entry(p, loc->tool, loc->path, CACHE_UNAVAILABLE, &e);
	if (r != 0 || e == NULL)
		return r;
	e->is_dir = loc->is_dir;
	int rr = policy_resolve_untampered(p, loc->path, real, sizeof(real));
	if (rr == 0 && policy_inside_writable(p, real))
		e->state = CACHE_INSIDE;
	else if (rr == POLICY_REDIRECTED)
		e->state = CACHE_REDIRECTED;
	if (rr != 0 || e->state == CACHE_INSIDE) {
		char *dup = rr == 0 || rr == POLICY_REDIRECTED ? strdup(real) : NULL;
		if (dup != NULL) {
			free(e->path);
			e->path = dup;
		}
		return 0;
	}
	if (lstat(real, &st) != 0) {
		/* A home that does not exist (HOME=/nonexistent) is not made
		 * for a cache: the cache is reported unavailable. */
		if (missing_home != NULL && path_within(missing_home, real))
			return 0;
		if ((loc->is_dir ? mkdir_p(real) : make_file(real)) != 0)
			return 0;
		e->created = 1;
		/* What was made is what was checked. */
		if (policy_resolve_untampered(p, real, again, sizeof(again)) != 0 ||
		    strcmp(again, real) != 0)
			return 0;
	}
	if (stat(real, &st) != 0 || (S_ISDIR(st.st_mode) ? 1 : 0) != loc->is_dir)
		return 0;
	char *dup = strdup(real);
	if (dup == NULL)
		return CORDON_ENOMEM;
	free(e->path);
	e->path = dup;
	if (policy_is_broad(c, real)) {
		e->state = CACHE_REFUSED;
		return 0;
	}
	if ((r = policy_add_writable(p, real, loc->is_dir, W_CACHE)) != 0)
		return r;
	e->state = e->created ? CACHE_CREATED : CACHE_EXISTING;
	return 0;
}

/* The home the default caches are under: $HOME as given (homes_load
 * checked its length), else the password database's home. -1: none. */
static int cache_home(const cordon *c, char home[CORDON_PATH_MAX])
{
	if (c->nhomes == 0)
		return -1;
	const char *h = getenv("HOME");
	return path_join(home, CORDON_PATH_MAX, h != NULL && h[0] == '/' ? h : c->homes[0], "");
}

/* The run's cache locations for the tools in mask; 0 when there is no
 * home (the default caches then have no location). */
static size_t locate(const cordon *c, unsigned mask, struct cache_loc locs[CACHE_LOC_MAX],
		     unsigned *too_long)
{
	char home[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX];
	if (mask == 0 || cache_home(c, home) != 0)
		return 0;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0'; /* relative variables then name no location */
	return caches_locate(mask, caches_env_lookup, environ, home, cwd[0] ? cwd : NULL, locs,
			     too_long);
}

static int resolve(cordon *c)
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
	for (unsigned bit = 1; bit <= CORDON_CACHE_DEFAULT; bit <<= 1) {
		if (!(c->caches & bit))
			continue;
		int present = (too_long & bit) || tool_present(locs, n, bit);
		for (size_t i = 0; i < n; i++)
			if (locs[i].bit == bit && present &&
			    (r = resolve_one(c, &locs[i], missing_home)) != 0)
				return r;
		/* A location that cannot be a path: reported, never granted. */
		if ((too_long & bit) && (r = push_entry(&c->pol, cache_tool_of_bit(bit), NULL,
							CACHE_UNAVAILABLE, &e)) != 0)
			return r;
	}
	return 0;
}

/* Every cache location of the tools cordon knows, present or not: a
 * command of some run may write there, so cordon follows no symlink in
 * them when it resolves its own paths (policy.untrusted). */
int caches_untrusted(cordon *c)
{
	struct cache_loc locs[CACHE_LOC_MAX];
	char real[CORDON_PATH_MAX];
	unsigned too_long = 0;
	size_t n = locate(c, CORDON_CACHE_DEFAULT, locs, &too_long);
	for (size_t i = 0; i < n; i++) {
		if (policy_add_untrusted(&c->pol, locs[i].path) != 0)
			return CORDON_ENOMEM;
		if (policy_resolve_untampered(&c->pol, locs[i].path, real, sizeof(real)) == 0 &&
		    strcmp(real, locs[i].path) != 0 && policy_add_untrusted(&c->pol, real) != 0)
			return CORDON_ENOMEM;
	}
	return 0;
}

int caches_resolve(cordon *c)
{
	int r = resolve(c);
	return r == CORDON_ENOMEM ? cordon_fail(c, r, "out of memory") : r;
}
