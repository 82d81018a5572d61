/*
 * Where each tool keeps its cache (design section 4), by the tool's own
 * variables: the pure part of the tool caches (caches.c does the file
 * system's). It reads variables through a lookup function and never
 * touches the file system, so it is unit-tested and fuzzed.
 *
 * Each location also says how a run moves it under the state dir: the
 * variable that moves it where it does not exist (move_var, which may
 * move the tool's whole directory), and the variable that names this
 * location alone (alone_var), by which a run without a mount layer points
 * the tool at cordon's own copy of a cache that exists.
 */
#include "caches.h"
#include "path.h"

#include <string.h>
static const char *var(cache_getenv_fn get, void *ctx, const char *name)
{
	const char *v = get(ctx, name);
	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* The first of two names that is set, and in *name the name it is set
 * by (b when neither is). */
static const char *var2(cache_getenv_fn get, void *ctx, const char *a, const char *b,
			const char **name)
{
	const char *v = var(get, ctx, a);
	*name = v != NULL ? a : b;
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
	/* In the tool's own directory: at its default place, or where its
	 * variable names it. */
	if ((flags & L_OWN) || ((flags & L_VAR) && leaf != NULL)) {
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
static struct cache_loc *moved_by(struct cache_loc *e, const char *var, const char *name)
{
	if (e != NULL) {
		e->move_var = var;
		e->move_name = name;
	}
	return e;
}

/* A location (e, when added) that var names alone: a run moves it to
 * STATE/caches/name by setting var there. */
static void alone(struct cache_loc *e, const char *var, const char *name)
{
	if (e != NULL) {
		e->alone_var = var;
		e->alone_name = name;
	}
}

/* A directory named by the tool's variable v (set by the name vname),
 * else home/sub, which var moves to STATE/caches/name. */
static void add_var_or_home(struct locator *l, unsigned bit, const char *v, const char *vname,
			    const char *sub, const char *var, const char *name)
{
	if (v != NULL)
		alone(add(l, bit, L_DIR | L_VAR, v, "", NULL), vname, name);
	else
		alone(moved_by(add(l, bit, L_DIR, l->home, sub, NULL), var, name), var, name);
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

/* The directory the variable var names (value v), else base/sub/leaf,
 * which var moves to STATE/caches/name: var names it alone either way. */
static void var_or(struct locator *l, unsigned bit, const char *v, const char *var,
		   struct cache_base b, const char *leaf, const char *name)
{
	if (v != NULL)
		alone(add(l, bit, L_DIR | L_VAR, v, "", NULL), var, name);
	else
		alone(moved_by(add(l, bit, L_DIR, b.base, b.sub, leaf), var, name), var, name);
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
	if (v == NULL || v[0] == '/')
		var_or(l, bit, v, "GOCACHE", cb, "go-build", "go-build");
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
	/* GOPATH (~/go, or its first entry) where it does not exist: moved
	 * whole. */
	const char *mv = "GOPATH";
	v = var(get, ctx, "GOMODCACHE");
	if (v != NULL && v[0] == '/')
		alone(add(l, bit, L_DIR | L_VAR, v, "", NULL), "GOMODCACHE", "go/pkg/mod");
	else if (v == NULL && has_gopath)
		alone(moved_by(add(l, bit, gflags, gp, gsub, "pkg/mod"), mv, "go"), "GOMODCACHE",
		      "go/pkg/mod");
	if (has_gopath)
		moved_by(add(l, bit, gflags, gp, gsub, "pkg/sumdb"), mv, "go");
}

/* yarn: classic's cache (YARN_CACHE_FOLDER, which Berry's cacheFolder
 * also reads) and Berry's global folder (its global cache, metadata). */
static void locate_yarn(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base cb)
{
	const unsigned bit = CORDON_CACHE_YARN;
	var_or(l, bit, var(get, ctx, "YARN_CACHE_FOLDER"), "YARN_CACHE_FOLDER", cb,
	       is_macos() ? "Yarn" : "yarn", "yarn");
	const char *x = var(get, ctx, "XDG_DATA_HOME");
	struct cache_base data = { x != NULL ? x : l->home, x != NULL ? "yarn" : ".yarn" };
	var_or(l, bit, var(get, ctx, "YARN_GLOBAL_FOLDER"), "YARN_GLOBAL_FOLDER", data, "berry",
	       "yarn-berry");
}

/* pnpm: the store (store-dir) and the metadata cache (cache-dir). A
 * missing default one is moved with the pnpm_config_ names (pnpm 10 and
 * later read them): npm warns about npm_config_ names it does not know. */
#define PNPM_STORE "pnpm_config_store_dir"
static void locate_pnpm(struct locator *l, cache_getenv_fn get, void *ctx, struct cache_base any)
{
	const unsigned bit = CORDON_CACHE_PNPM;
	const char *name;
	const char *v = var2(get, ctx, "npm_config_store_dir", PNPM_STORE, &name);
	const char *x = var(get, ctx, "XDG_DATA_HOME");
	if (v != NULL)
		alone(add(l, bit, L_DIR | L_VAR, v, "", NULL), name, "pnpm-store");
	else if ((v = var(get, ctx, "PNPM_HOME")) != NULL)
		alone(add(l, bit, L_DIR | L_VAR, v, "store", NULL), PNPM_STORE, "pnpm-store");
	else
		var_or(l, bit, NULL, PNPM_STORE,
		       (struct cache_base){ x != NULL ? x : l->home,
					    x != NULL	 ? "pnpm"
					    : is_macos() ? "Library/pnpm"
							 : ".local/share/pnpm" },
		       "store", "pnpm-store");
	v = var2(get, ctx, "npm_config_cache_dir", "pnpm_config_cache_dir", &name);
	var_or(l, bit, v, name, any, "pnpm", "pnpm");
}

/* bun: BUN_INSTALL_CACHE_DIR, $BUN_INSTALL/install/cache,
 * $XDG_CACHE_HOME/.bun/install/cache, ~/.bun/install/cache, in that
 * order (bun's own). */
static void locate_bun(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_BUN;
	const char *v = var(get, ctx, "BUN_INSTALL_CACHE_DIR");
	const char *x = var(get, ctx, "XDG_CACHE_HOME");
	if (v == NULL && (v = var(get, ctx, "BUN_INSTALL")) != NULL)
		alone(add(l, bit, L_DIR | L_VAR, v, "install/cache", NULL), "BUN_INSTALL_CACHE_DIR",
		      "bun");
	else
		var_or(l, bit, v, "BUN_INSTALL_CACHE_DIR",
		       (struct cache_base){ x != NULL ? x : l->home, ".bun" }, "install/cache",
		       "bun");
}

/* Gradle: in GRADLE_USER_HOME (~/.gradle) its caches, the wrapper's
 * distributions, the daemon's registry and logs, and native libraries;
 * not gradle.properties (credentials) nor init.d (scripts every later
 * build runs). No variable names one of them alone. */
static void locate_gradle(struct locator *l, cache_getenv_fn get, void *ctx)
{
	static const char *const parts[] = { "caches", "wrapper", "daemon", "native" };
	const unsigned bit = CORDON_CACHE_GRADLE;
	const char *v = var(get, ctx, "GRADLE_USER_HOME");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		moved_by(add(l, bit, L_DIR | (v != NULL ? L_VAR : L_OWN), v != NULL ? v : l->home,
			     v != NULL ? "" : ".gradle", parts[i]),
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
	if (v == NULL && (v = var(get, ctx, "COMPOSER_HOME")) != NULL) {
		alone(add(l, bit, L_DIR | L_VAR, v, "cache", NULL), "COMPOSER_CACHE_DIR",
		      "composer");
		return;
	}
	if (v == NULL && !is_macos())
		alone(add(l, bit, L_DIR | L_LEGACY, l->home, ".composer/cache", NULL),
		      "COMPOSER_CACHE_DIR", "composer");
	var_or(l, bit, v, "COMPOSER_CACHE_DIR", cb, "composer", "composer");
}

/* gem: Bundler's cache (BUNDLE_USER_CACHE, $BUNDLE_USER_HOME/cache,
 * ~/.bundle/cache) and RubyGems' spec cache (GEM_SPEC_CACHE, ~/.gem/specs
 * where it exists, else $XDG_CACHE_HOME/gem/specs or ~/.cache/gem/specs).
 * Not GEM_HOME: installing gems is installing code, not caching. */
static void locate_gem(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_GEM;
	const char *v = var(get, ctx, "BUNDLE_USER_CACHE");
	if (v == NULL && (v = var(get, ctx, "BUNDLE_USER_HOME")) != NULL)
		alone(add(l, bit, L_DIR | L_VAR, v, "cache", NULL), "BUNDLE_USER_CACHE", "bundle");
	else
		var_or(l, bit, v, "BUNDLE_USER_CACHE", (struct cache_base){ l->home, ".bundle" },
		       "cache", "bundle");
	v = var(get, ctx, "GEM_SPEC_CACHE");
	if (v == NULL)
		alone(add(l, bit, L_DIR | L_LEGACY, l->home, ".gem/specs", NULL), "GEM_SPEC_CACHE",
		      "gem-specs");
	const char *x = var(get, ctx, "XDG_CACHE_HOME");
	var_or(l, bit, v, "GEM_SPEC_CACHE",
	       (struct cache_base){ x ? x : l->home, x ? "" : ".cache" }, "gem/specs", "gem-specs");
}

/* Hugging Face: the hub's cache, its Xet chunk cache and the datasets
 * library's, each by its variable, else under HF_HOME (default
 * $XDG_CACHE_HOME/huggingface or ~/.cache/huggingface on every system);
 * not HF_HOME itself, which holds the token. A default HF_HOME that does
 * not exist holds no token: it is moved whole. */
static void locate_hf(struct locator *l, cache_getenv_fn get, void *ctx)
{
	static const struct {
		const char *var, *alt, *leaf, *name;
	} parts[] = { { "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "hub", "huggingface/hub" },
		      { "HF_XET_CACHE", NULL, "xet", "huggingface/xet" },
		      { "HF_DATASETS_CACHE", NULL, "datasets", "huggingface/datasets" } };
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
		const char *name = parts[i].var;
		const char *v = parts[i].alt ? var2(get, ctx, parts[i].var, parts[i].alt, &name)
					     : var(get, ctx, parts[i].var);
		if (v != NULL)
			alone(add(l, bit, L_DIR | L_VAR, v, "", NULL), name, parts[i].name);
		else
			alone(moved_by(add(l, bit, hflags, hf, hsub, parts[i].leaf), "HF_HOME",
				       "huggingface"),
			      parts[i].var, parts[i].name);
	}
}

/* cargo: registry, git and the package-cache lock in CARGO_HOME (default
 * ~/.cargo, which CARGO_HOME moves whole where it does not exist). No
 * variable names one of them alone. */
static void locate_cargo(struct locator *l, cache_getenv_fn get, void *ctx)
{
	const unsigned bit = CORDON_CACHE_CARGO;
	const char *v = var(get, ctx, "CARGO_HOME");
	const char *base = v ? v : l->home, *sub = v ? "" : ".cargo";
	unsigned f = v ? L_VAR : L_OWN;
	moved_by(add(l, bit, L_DIR | f, base, sub, "registry"), "CARGO_HOME", "cargo");
	moved_by(add(l, bit, L_DIR | f, base, sub, "git"), "CARGO_HOME", "cargo");
	moved_by(add(l, bit, f, base, sub, ".package-cache"), "CARGO_HOME", "cargo");
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

/* The default tools but cargo and go (their own functions). */
static void locate_defaults(struct locator *l, unsigned mask, cache_getenv_fn get, void *ctx,
			    struct cache_base cb)
{
	const char *name;
	if (mask & CORDON_CACHE_NPM) {
		const char *v = var2(get, ctx, "npm_config_cache", "NPM_CONFIG_CACHE", &name);
		add_var_or_home(l, CORDON_CACHE_NPM, v, v ? name : NULL, ".npm", "npm_config_cache",
				"npm");
	}
	if (mask & CORDON_CACHE_PIP)
		var_or(l, CORDON_CACHE_PIP, var(get, ctx, "PIP_CACHE_DIR"), "PIP_CACHE_DIR", cb,
		       "pip", "pip");
	if (mask & CORDON_CACHE_PLAYWRIGHT) {
		const char *v = var(get, ctx, "PLAYWRIGHT_BROWSERS_PATH");
		/* "0" means browsers live in node_modules, inside the workspace. */
		if (v == NULL || strcmp(v, "0") != 0)
			var_or(l, CORDON_CACHE_PLAYWRIGHT, v, "PLAYWRIGHT_BROWSERS_PATH", cb,
			       "ms-playwright", "ms-playwright");
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
	const char *xdg = var(get, ctx, "XDG_CACHE_HOME");
	if (xdg != NULL && xdg[0] != '/')
		xdg = NULL; /* the XDG spec ignores relative values */
	/* The system's cache directory; "any": also $XDG_CACHE_HOME on macOS. */
	struct cache_base cb = user_cache(&l, xdg, 0), any = user_cache(&l, xdg, 1);
	locate_defaults(&l, mask, get, ctx, cb);
	if (mask & CORDON_CACHE_GO)
		locate_go(&l, get, ctx, cb);
	if (mask & CORDON_CACHE_YARN)
		locate_yarn(&l, get, ctx, cb);
	if (mask & CORDON_CACHE_PNPM)
		locate_pnpm(&l, get, ctx, any);
	if (mask & CORDON_CACHE_BUN)
		locate_bun(&l, get, ctx);
	if (mask & CORDON_CACHE_DENO)
		var_or(&l, CORDON_CACHE_DENO, var(get, ctx, "DENO_DIR"), "DENO_DIR", cb, "deno",
		       "deno");
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
		var_or(&l, CORDON_CACHE_SCCACHE, v, "SCCACHE_DIR", cb,
		       is_macos() ? "Mozilla.sccache" : "sccache", "sccache");
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
const char *caches_env_lookup(void *ctx, const char *name)
{
	const char *const *env = ctx;
	size_t n = strlen(name);
	for (size_t i = 0; env != NULL && env[i] != NULL; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}
