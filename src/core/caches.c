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

static const char *var(cache_getenv_fn get, void *ctx, const char *name)
{
	const char *v = get(ctx, name);
	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* The first of two names that is set. */
static const char *var2(cache_getenv_fn get, void *ctx, const char *a, const char *b)
{
	const char *v = var(get, ctx, a);
	return v != NULL ? v : var(get, ctx, b);
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
	const char *home;
};

/* How a location is added. L_OWN: base/sub is the tool's own directory
 * at its default place, leaf a location in it. */
enum { L_DIR = 1, L_VAR = 2, L_LEGACY = 4, L_OWN = 8 };

/* The location base/sub[/leaf], or NULL when it has no path (too long,
 * or no room). base NULL: under the home, and there is none. */
static struct cache_loc *add(struct locator *l, unsigned bit, unsigned flags, const char *base,
			     const char *sub, const char *leaf)
{
	struct cache_loc *e = &l->out[l->n];
	char own[CORDON_PATH_MAX];
	if (l->n >= CACHE_LOC_MAX)
		return NULL;
	memset(e, 0, sizeof(*e));
	if (base == NULL) {
		e->homeless = 1;
	} else if (join3(e->path, l->cwd, base, sub, leaf) != 0) {
		*l->too_long |= bit;
		return NULL;
	}
	e->tool = cache_tool_of_bit(bit);
	e->bit = bit;
	e->is_dir = (flags & L_DIR) != 0;
	e->from_var = (flags & L_VAR) != 0;
	e->legacy = (flags & L_LEGACY) != 0;
	if (flags & L_OWN) {
		e->tail = leaf;
		if (base != NULL && join3(own, l->cwd, base, sub, NULL) == 0 &&
		    path_within(own, e->path))
			e->own_len = strlen(own);
	}
	l->n++;
	return e;
}

/* A default location (e, when added) that var moves: to
 * STATE/caches/name, or under it when e is in the tool's own directory. */
static void moved_by(struct cache_loc *e, const char *var, const char *name)
{
	if (e != NULL) {
		e->move_var = var;
		e->move_name = name;
	}
}

/* A directory named by the tool's variable v, else home/sub, which var
 * moves to STATE/caches/name. */
static void add_var_or_home(struct locator *l, unsigned bit, const char *v, const char *sub,
			    const char *var, const char *name)
{
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else
		moved_by(add(l, bit, L_DIR, l->home, sub, NULL), var, name);
}

/* Where a tool's per-user cache directory is when no variable of its own
 * names it: $XDG_CACHE_HOME (absolute; the XDG spec ignores relative
 * values) else ~/.cache on Linux, ~/Library/Caches on macOS. xdg_apple:
 * the tool honours $XDG_CACHE_HOME on macOS too. */
struct cache_base {
	const char *base, *sub;
};

static struct cache_base user_cache(const struct locator *l, const char *xdg, int xdg_apple)
{
	struct cache_base b = { l->home, ".cache" };
#if defined(__APPLE__)
	b.sub = "Library/Caches";
	if (!xdg_apple)
		return b;
#else
	(void)xdg_apple;
#endif
	if (xdg != NULL) {
		b.base = xdg;
		b.sub = "";
	}
	return b;
}

static int is_macos(void)
{
#if defined(__APPLE__)
	return 1;
#else
	return 0;
#endif
}

/*
 * go: GOCACHE (default: os.UserCacheDir()/go-build), GOMODCACHE (default
 * $GOPATH/pkg/mod, GOPATH's first entry, default ~/go) and the checksum
 * database's cache $GOPATH/pkg/sumdb, which GOMODCACHE does not move.
 * The go command refuses relative values and GOCACHE=off (nothing to
 * grant then). A location set only in the go env file (go env -w) is
 * not read.
 */
static void locate_go(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base cb)
{
	const unsigned bit = CORDON_CACHE_GO;
	const char *v = var(get, ctx, "GOCACHE");
	if (v == NULL)
		moved_by(add(l, bit, L_DIR, cb.base, cb.sub, "go-build"), "GOCACHE", "go-build");
	else if (v[0] == '/')
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	char gopath[CORDON_PATH_MAX];
	const char *gp = l->home, *gsub = "go";
	unsigned gflags = L_DIR | L_OWN;
	int has_gopath = 1; /* a location in GOPATH: not when it is relative */
	v = var(get, ctx, "GOPATH");
	if (v != NULL) {
		size_t n = strcspn(v, ":");
		has_gopath = 0;
		if (n >= sizeof(gopath)) {
			*l->too_long |= bit;
		} else if (v[0] == '/') {
			memcpy(gopath, v, n);
			gopath[n] = '\0';
			gp = gopath;
			gsub = "";
			gflags = L_DIR | L_VAR;
			has_gopath = 1;
		}
	}
	/* The default GOPATH (~/go) where it does not exist: moved whole. */
	const char *mv = gflags & L_VAR ? NULL : "GOPATH";
	v = var(get, ctx, "GOMODCACHE");
	if (v != NULL && v[0] == '/')
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else if (v == NULL && has_gopath)
		moved_by(add(l, bit, gflags, gp, gsub, "pkg/mod"), mv, "go");
	if (has_gopath)
		moved_by(add(l, bit, gflags, gp, gsub, "pkg/sumdb"), mv, "go");
}

/* yarn: classic's cache (YARN_CACHE_FOLDER, which Berry's cacheFolder
 * also reads) and Berry's global folder (its global cache, metadata). */
static void locate_yarn(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base cb)
{
	const unsigned bit = CORDON_CACHE_YARN;
	const char *v = var(get, ctx, "YARN_CACHE_FOLDER");
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else
		moved_by(add(l, bit, L_DIR, cb.base, cb.sub, is_macos() ? "Yarn" : "yarn"),
			 "YARN_CACHE_FOLDER", "yarn");
	v = var(get, ctx, "YARN_GLOBAL_FOLDER");
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else if ((v = var(get, ctx, "XDG_DATA_HOME")) != NULL)
		moved_by(add(l, bit, L_DIR, v, "yarn/berry", NULL), "YARN_GLOBAL_FOLDER",
			 "yarn-berry");
	else
		moved_by(add(l, bit, L_DIR, l->home, ".yarn/berry", NULL), "YARN_GLOBAL_FOLDER",
			 "yarn-berry");
}

/* pnpm: the store (store-dir) and the metadata cache (cache-dir). A
 * missing default one is moved with the pnpm_config_ names (pnpm 10 and
 * later read them): npm warns about npm_config_ names it does not know. */
#define PNPM_STORE "pnpm_config_store_dir"
static void locate_pnpm(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base any)
{
	const unsigned bit = CORDON_CACHE_PNPM;
	const char *v = var2(get, ctx, "npm_config_store_dir", "pnpm_config_store_dir");
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else if ((v = var(get, ctx, "PNPM_HOME")) != NULL)
		add(l, bit, L_DIR | L_VAR, v, "store", NULL);
	else if ((v = var(get, ctx, "XDG_DATA_HOME")) != NULL)
		moved_by(add(l, bit, L_DIR, v, "pnpm/store", NULL), PNPM_STORE, "pnpm-store");
	else
		moved_by(add(l, bit, L_DIR, l->home,
			     is_macos() ? "Library/pnpm/store" : ".local/share/pnpm/store", NULL),
			 PNPM_STORE, "pnpm-store");
	v = var2(get, ctx, "npm_config_cache_dir", "pnpm_config_cache_dir");
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else
		moved_by(add(l, bit, L_DIR, any.base, any.sub, "pnpm"), "pnpm_config_cache_dir",
			 "pnpm");
}

/* bun: BUN_INSTALL_CACHE_DIR, $BUN_INSTALL/install/cache,
 * $XDG_CACHE_HOME/.bun/install/cache, ~/.bun/install/cache, in that
 * order (bun's own). */
static void locate_bun(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_BUN;
	const char *v = var(get, ctx, "BUN_INSTALL_CACHE_DIR");
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else if ((v = var(get, ctx, "BUN_INSTALL")) != NULL)
		add(l, bit, L_DIR | L_VAR, v, "install/cache", NULL);
	else if ((v = var(get, ctx, "XDG_CACHE_HOME")) != NULL)
		moved_by(add(l, bit, L_DIR, v, ".bun/install/cache", NULL), "BUN_INSTALL_CACHE_DIR",
			 "bun");
	else
		moved_by(add(l, bit, L_DIR, l->home, ".bun/install/cache", NULL),
			 "BUN_INSTALL_CACHE_DIR", "bun");
}

/* Gradle: in GRADLE_USER_HOME (~/.gradle) its caches, the wrapper's
 * distributions, the daemon's registry and logs, and native libraries;
 * not gradle.properties (credentials) nor init.d (scripts every later
 * build runs). */
static void locate_gradle(struct locator *l, cache_getenv_fn get, void *ctx)
{
	static const char *const parts[] = { "caches", "wrapper", "daemon", "native" };
	const unsigned bit = CORDON_CACHE_GRADLE;
	const char *v = var(get, ctx, "GRADLE_USER_HOME");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (v != NULL)
			add(l, bit, L_DIR | L_VAR, v, "", parts[i]);
		else
			moved_by(add(l, bit, L_DIR | L_OWN, l->home, ".gradle", parts[i]),
				 "GRADLE_USER_HOME", "gradle");
}

/* Maven: the local repository ~/.m2/repository (moved only in
 * settings.xml or by -Dmaven.repo.local, which cordon does not read) and
 * the Maven Wrapper's distributions ($MAVEN_USER_HOME/wrapper); not
 * ~/.m2/settings.xml. Nothing moves them: where ~/.m2 does not exist,
 * they are not granted. */
static void locate_maven(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_MAVEN;
	add(l, bit, L_DIR | L_OWN, l->home, ".m2", "repository");
	const char *v = var(get, ctx, "MAVEN_USER_HOME");
	add(l, bit, L_DIR | (v ? L_VAR : L_OWN), v ? v : l->home, v ? "" : ".m2", "wrapper");
}

/* Composer: COMPOSER_CACHE_DIR, $COMPOSER_HOME/cache, else on macOS
 * ~/Library/Caches/composer; elsewhere ~/.composer/cache where it exists
 * (an older home), else the XDG cache's composer. */
static void locate_composer(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base cb)
{
	const unsigned bit = CORDON_CACHE_COMPOSER;
	const char *v = var(get, ctx, "COMPOSER_CACHE_DIR");
	if (v != NULL) {
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	} else if ((v = var(get, ctx, "COMPOSER_HOME")) != NULL) {
		add(l, bit, L_DIR | L_VAR, v, "cache", NULL);
	} else {
		if (!is_macos())
			add(l, bit, L_DIR | L_LEGACY, l->home, ".composer/cache", NULL);
		moved_by(add(l, bit, L_DIR, cb.base, cb.sub, "composer"), "COMPOSER_CACHE_DIR",
			 "composer");
	}
}

/* gem: Bundler's cache (BUNDLE_USER_CACHE, $BUNDLE_USER_HOME/cache,
 * ~/.bundle/cache) and RubyGems' spec cache (GEM_SPEC_CACHE, ~/.gem/specs
 * where it exists, else $XDG_CACHE_HOME/gem/specs or ~/.cache/gem/specs).
 * Not GEM_HOME: installing gems is installing code, not caching. */
static void locate_gem(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_GEM;
	const char *v = var(get, ctx, "BUNDLE_USER_CACHE");
	if (v != NULL)
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	else if ((v = var(get, ctx, "BUNDLE_USER_HOME")) != NULL)
		add(l, bit, L_DIR | L_VAR, v, "cache", NULL);
	else
		moved_by(add(l, bit, L_DIR, l->home, ".bundle/cache", NULL), "BUNDLE_USER_CACHE",
			 "bundle");
	v = var(get, ctx, "GEM_SPEC_CACHE");
	if (v != NULL) {
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
		return;
	}
	add(l, bit, L_DIR | L_LEGACY, l->home, ".gem/specs", NULL);
	v = var(get, ctx, "XDG_CACHE_HOME");
	moved_by(add(l, bit, L_DIR, v ? v : l->home, v ? "" : ".cache", "gem/specs"),
		 "GEM_SPEC_CACHE", "gem-specs");
}

/* Hugging Face: the hub's cache, its Xet chunk cache and the datasets
 * library's, each by its variable, else under HF_HOME (default
 * $XDG_CACHE_HOME/huggingface or ~/.cache/huggingface on every system);
 * not HF_HOME itself, which holds the token. A default HF_HOME that does
 * not exist holds no token: it is moved whole. */
static void locate_hf(struct locator *l, cache_getenv_fn get, void *ctx)
{
	static const struct {
		const char *var, *alt, *leaf;
	} parts[] = { { "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "hub" },
		      { "HF_XET_CACHE", NULL, "xet" },
		      { "HF_DATASETS_CACHE", NULL, "datasets" } };
	const unsigned bit = CORDON_CACHE_HUGGINGFACE;
	const char *hf = var(get, ctx, "HF_HOME"), *hsub = "";
	unsigned hflags = L_DIR | L_VAR;
	if (hf == NULL) {
		hf = var(get, ctx, "XDG_CACHE_HOME");
		hsub = hf != NULL ? "huggingface" : ".cache/huggingface";
		if (hf == NULL)
			hf = l->home;
		hflags = L_DIR | L_OWN;
	}
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *v = parts[i].alt ? var2(get, ctx, parts[i].var, parts[i].alt)
					     : var(get, ctx, parts[i].var);
		if (v != NULL)
			add(l, bit, L_DIR | L_VAR, v, "", NULL);
		else
			moved_by(add(l, bit, hflags, hf, hsub, parts[i].leaf),
				 hflags & L_VAR ? NULL : "HF_HOME", "huggingface");
	}
}

/* cargo: registry, git and the package-cache lock in CARGO_HOME (default
 * ~/.cargo, which CARGO_HOME moves whole where it does not exist). */
static void locate_cargo(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_CARGO;
	const char *v = var(get, ctx, "CARGO_HOME");
	const char *base = v ? v : l->home, *sub = v ? "" : ".cargo";
	unsigned f = v ? L_VAR : L_OWN;
	const char *mv = v ? NULL : "CARGO_HOME";
	moved_by(add(l, bit, L_DIR | f, base, sub, "registry"), mv, "cargo");
	moved_by(add(l, bit, L_DIR | f, base, sub, "git"), mv, "cargo");
	moved_by(add(l, bit, f, base, sub, ".package-cache"), mv, "cargo");
}

/* ccache: CCACHE_DIR, else ~/.ccache where it exists, else the cache
 * directory ($XDG_CACHE_HOME on every system). Not moved: CCACHE_DIR
 * also moves ccache's configuration file. */
static void locate_ccache(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base any)
{
	const unsigned bit = CORDON_CACHE_CCACHE;
	const char *v = var(get, ctx, "CCACHE_DIR");
	if (v != NULL) {
		add(l, bit, L_DIR | L_VAR, v, "", NULL);
	} else {
		add(l, bit, L_DIR | L_LEGACY, l->home, ".ccache", NULL);
		add(l, bit, L_DIR, any.base, any.sub, "ccache");
	}
}

size_t caches_locate(unsigned mask, cache_getenv_fn get, void *ctx, const char *home,
		     const char *cwd, struct cache_loc out[CACHE_LOC_MAX], unsigned *too_long)
{
	struct locator l = { out, 0, too_long, cwd, home };
	const char *v;

	*too_long = 0;
	if (mask & CORDON_CACHE_CARGO)
		locate_cargo(&l, get, ctx);
	if (mask & CORDON_CACHE_NPM)
		add_var_or_home(&l, CORDON_CACHE_NPM,
				var2(get, ctx, "npm_config_cache", "NPM_CONFIG_CACHE"), ".npm",
				"npm_config_cache", "npm");
	const char *xdg = var(get, ctx, "XDG_CACHE_HOME");
	if (xdg != NULL && xdg[0] != '/')
		xdg = NULL; /* the XDG spec ignores relative values */
	/* The system's cache directory; "any": also $XDG_CACHE_HOME on macOS. */
	struct cache_base cb = user_cache(&l, xdg, 0), any = user_cache(&l, xdg, 1);
	if (mask & CORDON_CACHE_PIP) {
		v = var(get, ctx, "PIP_CACHE_DIR");
		if (v != NULL)
			add(&l, CORDON_CACHE_PIP, L_DIR | L_VAR, v, "", NULL);
		else
			moved_by(add(&l, CORDON_CACHE_PIP, L_DIR, cb.base, cb.sub, "pip"),
				 "PIP_CACHE_DIR", "pip");
	}
	if (mask & CORDON_CACHE_PLAYWRIGHT) {
		v = var(get, ctx, "PLAYWRIGHT_BROWSERS_PATH");
		/* "0" means browsers live in node_modules, inside the workspace. */
		if (v != NULL && strcmp(v, "0") != 0)
			add(&l, CORDON_CACHE_PLAYWRIGHT, L_DIR | L_VAR, v, "", NULL);
		else if (v == NULL)
			moved_by(add(&l, CORDON_CACHE_PLAYWRIGHT, L_DIR, cb.base, cb.sub,
				     "ms-playwright"),
				 "PLAYWRIGHT_BROWSERS_PATH", "ms-playwright");
	}
	if (mask & CORDON_CACHE_GO)
		locate_go(&l, get, ctx, cb);
	if (mask & CORDON_CACHE_YARN)
		locate_yarn(&l, get, ctx, cb);
	if (mask & CORDON_CACHE_PNPM)
		locate_pnpm(&l, get, ctx, any);
	if (mask & CORDON_CACHE_BUN)
		locate_bun(&l, get, ctx);
	if (mask & CORDON_CACHE_DENO) {
		v = var(get, ctx, "DENO_DIR");
		if (v != NULL)
			add(&l, CORDON_CACHE_DENO, L_DIR | L_VAR, v, "", NULL);
		else
			moved_by(add(&l, CORDON_CACHE_DENO, L_DIR, cb.base, cb.sub, "deno"),
				 "DENO_DIR", "deno");
	}
	if (mask & CORDON_CACHE_GRADLE)
		locate_gradle(&l, get, ctx);
	if (mask & CORDON_CACHE_MAVEN)
		locate_maven(&l, get, ctx);
	if (mask & CORDON_CACHE_COMPOSER)
		locate_composer(&l, get, ctx, cb);
	if (mask & CORDON_CACHE_GEM)
		locate_gem(&l, get, ctx);
	if (mask & CORDON_CACHE_CCACHE)
		locate_ccache(&l, get, ctx, any);
	if (mask & CORDON_CACHE_SCCACHE) {
		v = var(get, ctx, "SCCACHE_DIR");
		if (v != NULL)
			add(&l, CORDON_CACHE_SCCACHE, L_DIR | L_VAR, v, "", NULL);
		else
			moved_by(add(&l, CORDON_CACHE_SCCACHE, L_DIR, cb.base, cb.sub,
				     is_macos() ? "Mozilla.sccache" : "sccache"),
				 "SCCACHE_DIR", "sccache");
	}
	if (mask & CORDON_CACHE_HUGGINGFACE)
		locate_hf(&l, get, ctx);
	return l.n;
}

const char *const *caches_tool_programs(unsigned bit)
{
	static const char *const cargo[] = { "cargo", NULL };
	static const char *const npm[] = { "npm", "npx", NULL };
	static const char *const pip[] = { "pip", "pip3", NULL };
	static const char *const playwright[] = { "playwright", NULL };
	static const char *const go[] = { "go", NULL };
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
	case CORDON_CACHE_GO:
		return go;
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
 * kind (a file for a directory) or is broad. */
static int grant(cordon *c, struct cache_entry *e, const char *real, int is_dir)
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

/* A default location that does not exist, moved by its variable: to
 * STATE/caches/NAME[/tail], made there (the state dir is cordon's own,
 * which no command may write: only the location itself is granted) and
 * named to the command by the variable. */
static int resolve_moved(cordon *c, struct cache_entry *e, const struct cache_loc *loc)
{
	char dir[CORDON_PATH_MAX], path[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	struct stat st;
	if (runtmp_caches_dir(c, real, sizeof(real)) != 0 ||
	    path_join(dir, sizeof(dir), real, loc->move_name) != 0 ||
	    path_join(path, sizeof(path), dir, loc->tail != NULL ? loc->tail : "") != 0)
		return 0;
	if (entry_path(e, path) != 0)
		return CORDON_ENOMEM;
	int rr = policy_resolve_untampered(&c->pol, path, real, sizeof(real));
	if (rr == POLICY_REDIRECTED)
		e->state = CACHE_REDIRECTED;
	if (rr != 0 || strcmp(real, path) != 0)
		return 0;
	if (lstat(path, &st) != 0) {
		if (make_checked(&c->pol, path, loc->is_dir) != 0)
			return 0;
		e->created = 1;
	}
	int r = grant(c, e, path, loc->is_dir);
	if (r != 0 || (e->state != CACHE_CREATED && e->state != CACHE_EXISTING))
		return r;
	e->variable = loc->move_var;
	return set_env(&c->pol, loc->move_var, dir);
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
	if (loc->own_len == 0 || loc->own_len >= sizeof(own))
		return 0;
	memcpy(own, loc->path, loc->own_len);
	own[loc->own_len] = '\0';
	return stat(own, &st) == 0 && S_ISDIR(st.st_mode);
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
	char real[CORDON_PATH_MAX];
	struct stat st;
	int r = push_entry(p, loc->tool, loc->homeless ? NULL : loc->path, CACHE_UNAVAILABLE, &e);
	if (r != 0 || e == NULL)
		return r;
	e->is_dir = loc->is_dir;
	if (loc->homeless) {
		e->state = CACHE_MISSING;
		return loc->move_var != NULL ? resolve_moved(c, e, loc) : 0;
	}
	int rr = policy_resolve_untampered(p, loc->path, real, sizeof(real));
	if (rr == 0 && policy_inside_writable(p, real))
		e->state = CACHE_INSIDE;
	else if (rr == POLICY_REDIRECTED)
		e->state = CACHE_REDIRECTED;
	if (rr != 0 || e->state == CACHE_INSIDE) {
		if (rr == 0 || rr == POLICY_REDIRECTED)
			(void)entry_path(e, real); /* out of memory: the name stays */
		return 0;
	}
	if (lstat(real, &st) != 0) {
		if (!made_in_place(loc, missing_home, real)) {
			e->state = CACHE_MISSING;
			return loc->move_var != NULL ? resolve_moved(c, e, loc) : 0;
		}
		if (make_checked(p, real, loc->is_dir) != 0) {
			e->created = lstat(real, &st) == 0;
			return 0;
		}
		e->created = 1;
	}
	return grant(c, e, real, loc->is_dir);
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
			if ((r = resolve_one(c, &locs[i], missing_home)) != 0)
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

int caches_resolve(cordon *c)
{
	int r = resolve(c);
	return r == CORDON_ENOMEM ? cordon_fail(c, r, "out of memory") : r;
}

_Static_assert(sizeof(((struct policy *)0)->caches) / sizeof(struct cache_entry) >=
		       CACHE_LOC_MAX + CACHE_TOOL_COUNT,
	       "room for every location and one unavailable entry per tool");
