/* Unit tests for where the tool caches are (src/core/caches.c, the pure part). */
#include "caches.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t locate(unsigned mask, const char *const *env, struct cache_loc *out,
		     unsigned *too_long)
{
	return caches_locate(mask, caches_env_lookup, (void *)env, "/home/u", "/work/proj", out,
			     too_long);
}

/* The paths of the locations of one tool, space-separated ("" when none),
 * a legacy one marked with a leading '?'. */
static const char *paths_of(unsigned bit, const char *const *env)
{
	static char buf[8192];
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(bit, env, l, &tl);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (l[i].bit != bit)
			return "(another tool's location)";
		if (i > 0)
			strcat(buf, " ");
		if (l[i].legacy)
			strcat(buf, "?");
		strcat(buf, l[i].path);
	}
	return buf;
}

/* Whether every location of the tool is named by its own variable. */
static int all_from_var(unsigned bit, const char *const *env)
{
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(bit, env, l, &tl);
	int all = n > 0;
	for (size_t i = 0; i < n; i++)
		all &= l[i].from_var;
	return all;
}

static void test_defaults(void)
{
	static const char *const env[] = { NULL };
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(CORDON_CACHE_DEFAULT, env, l, &tl);
	is_int(n, 9, "the five default tools: nine locations");
	is_int(tl, 0, "nothing too long");
	is_str(l[0].path, "/home/u/.cargo/registry", "cargo registry");
	is_str(l[1].path, "/home/u/.cargo/git", "cargo git");
	is_str(l[2].path, "/home/u/.cargo/.package-cache", "cargo package-cache lock");
	is_int(l[2].is_dir, 0, "the lock is a file");
	is_str(l[3].path, "/home/u/.npm", "npm");
#if defined(__APPLE__)
	is_str(l[4].path, "/home/u/Library/Caches/pip", "pip");
	is_str(l[5].path, "/home/u/Library/Caches/ms-playwright", "playwright");
	is_str(l[6].path, "/home/u/Library/Caches/go-build", "go's build cache");
#else
	is_str(l[4].path, "/home/u/.cache/pip", "pip");
	is_str(l[5].path, "/home/u/.cache/ms-playwright", "playwright");
	is_str(l[6].path, "/home/u/.cache/go-build", "go's build cache");
#endif
	is_str(l[7].path, "/home/u/go/pkg/mod", "go's module cache: ~/go/pkg/mod");
	is_str(l[8].path, "/home/u/go/pkg/sumdb", "go's checksum database cache");
	for (size_t i = 0; i < n; i++)
		ok(!l[i].from_var && !l[i].legacy, "%s: no variable names it, not legacy",
		   l[i].path);
	n = locate(CORDON_CACHE_ALL, env, l, &tl);
	is_int(n, CACHE_LOC_MAX, "every tool: CACHE_LOC_MAX locations, the most there are");
	is_int(tl, 0, "... none too long");
	ok(CORDON_CACHE_DEFAULT == (CORDON_CACHE_CARGO | CORDON_CACHE_NPM | CORDON_CACHE_PIP |
				    CORDON_CACHE_PLAYWRIGHT | CORDON_CACHE_GO),
	   "the default: cargo, npm, pip, playwright, go");
}

#if !defined(__APPLE__)
/* Each opt-in tool where nothing names it, then by each variable. */
static void test_opt_in(void)
{
	static const char *const none[] = { NULL };
	static const char *const xdg[] = { "XDG_CACHE_HOME=/xc", "XDG_DATA_HOME=/xd", NULL };
	is_str(paths_of(CORDON_CACHE_YARN, none), "/home/u/.cache/yarn /home/u/.yarn/berry",
	       "yarn: classic's ~/.cache/yarn, Berry's ~/.yarn/berry");
	is_str(paths_of(CORDON_CACHE_YARN, xdg), "/xc/yarn /xd/yarn/berry",
	       "yarn: XDG_CACHE_HOME and XDG_DATA_HOME");
	static const char *const yv[] = { "YARN_CACHE_FOLDER=yc", "YARN_GLOBAL_FOLDER=/yg",
					  "XDG_DATA_HOME=/xd", NULL };
	is_str(paths_of(CORDON_CACHE_YARN, yv), "/work/proj/yc /yg",
	       "yarn: YARN_CACHE_FOLDER (relative: against cwd), YARN_GLOBAL_FOLDER first");
	ok(all_from_var(CORDON_CACHE_YARN, yv), "yarn: the variables are its own");

	is_str(paths_of(CORDON_CACHE_PNPM, none),
	       "/home/u/.local/share/pnpm/store /home/u/.cache/pnpm",
	       "pnpm: ~/.local/share/pnpm/store and ~/.cache/pnpm");
	is_str(paths_of(CORDON_CACHE_PNPM, xdg), "/xd/pnpm/store /xc/pnpm",
	       "pnpm: XDG_DATA_HOME/pnpm/store, XDG_CACHE_HOME/pnpm");
	static const char *const pv[] = { "PNPM_HOME=/ph", "XDG_DATA_HOME=/xd", NULL };
	is_str(paths_of(CORDON_CACHE_PNPM, pv), "/ph/store /home/u/.cache/pnpm",
	       "pnpm: $PNPM_HOME/store before XDG_DATA_HOME");
	static const char *const pv2[] = { "npm_config_store_dir=/s", "PNPM_HOME=/ph",
					   "pnpm_config_cache_dir=/c", NULL };
	is_str(paths_of(CORDON_CACHE_PNPM, pv2), "/s /c",
	       "pnpm: npm_config_store_dir first; pnpm_config_cache_dir");

	is_str(paths_of(CORDON_CACHE_BUN, none), "/home/u/.bun/install/cache", "bun: default");
	is_str(paths_of(CORDON_CACHE_BUN, xdg), "/xc/.bun/install/cache",
	       "bun: XDG_CACHE_HOME/.bun/install/cache");
	static const char *const bv[] = { "BUN_INSTALL=/bi", "XDG_CACHE_HOME=/xc", NULL };
	is_str(paths_of(CORDON_CACHE_BUN, bv), "/bi/install/cache",
	       "bun: $BUN_INSTALL/install/cache before XDG_CACHE_HOME");
	static const char *const bv2[] = { "BUN_INSTALL=/bi", "BUN_INSTALL_CACHE_DIR=/bc", NULL };
	is_str(paths_of(CORDON_CACHE_BUN, bv2), "/bc", "bun: BUN_INSTALL_CACHE_DIR first");

	is_str(paths_of(CORDON_CACHE_DENO, none), "/home/u/.cache/deno", "deno: ~/.cache/deno");
	static const char *const dv[] = { "DENO_DIR=/dd", "XDG_CACHE_HOME=/xc", NULL };
	is_str(paths_of(CORDON_CACHE_DENO, dv), "/dd", "deno: DENO_DIR");

	is_str(paths_of(CORDON_CACHE_GRADLE, none),
	       "/home/u/.gradle/caches /home/u/.gradle/wrapper /home/u/.gradle/daemon "
	       "/home/u/.gradle/native",
	       "gradle: caches, wrapper, daemon, native of ~/.gradle (not gradle.properties, "
	       "init.d)");
	static const char *const gv[] = { "GRADLE_USER_HOME=/g", NULL };
	is_str(paths_of(CORDON_CACHE_GRADLE, gv), "/g/caches /g/wrapper /g/daemon /g/native",
	       "gradle: GRADLE_USER_HOME");
	ok(all_from_var(CORDON_CACHE_GRADLE, gv), "gradle: GRADLE_USER_HOME is its own");

	is_str(paths_of(CORDON_CACHE_MAVEN, none), "/home/u/.m2/repository /home/u/.m2/wrapper",
	       "maven: ~/.m2/repository and the wrapper's ~/.m2/wrapper");
	static const char *const mv[] = { "MAVEN_USER_HOME=/mu", "MAVEN_OPTS=-Dmaven.repo.local=/r",
					  NULL };
	is_str(paths_of(CORDON_CACHE_MAVEN, mv), "/home/u/.m2/repository /mu/wrapper",
	       "maven: MAVEN_USER_HOME moves the wrapper; MAVEN_OPTS is not read");

	is_str(paths_of(CORDON_CACHE_COMPOSER, none),
	       "?/home/u/.composer/cache /home/u/.cache/composer",
	       "composer: ~/.composer/cache where it exists, else ~/.cache/composer");
	static const char *const cv[] = { "COMPOSER_HOME=/ch", "XDG_CACHE_HOME=/xc", NULL };
	is_str(paths_of(CORDON_CACHE_COMPOSER, cv), "/ch/cache", "composer: $COMPOSER_HOME/cache");
	static const char *const cv2[] = { "COMPOSER_HOME=/ch", "COMPOSER_CACHE_DIR=/cc", NULL };
	is_str(paths_of(CORDON_CACHE_COMPOSER, cv2), "/cc", "composer: COMPOSER_CACHE_DIR first");

	is_str(paths_of(CORDON_CACHE_GEM, none),
	       "/home/u/.bundle/cache ?/home/u/.gem/specs /home/u/.cache/gem/specs",
	       "gem: Bundler's ~/.bundle/cache; ~/.gem/specs where it exists, else "
	       "~/.cache/gem/specs");
	static const char *const ev[] = { "BUNDLE_USER_HOME=/bh", "GEM_SPEC_CACHE=/gs",
					  "GEM_HOME=/gh", NULL };
	is_str(paths_of(CORDON_CACHE_GEM, ev), "/bh/cache /gs",
	       "gem: $BUNDLE_USER_HOME/cache, GEM_SPEC_CACHE; never GEM_HOME");
	static const char *const ev2[] = { "BUNDLE_USER_HOME=/bh", "BUNDLE_USER_CACHE=/bc", NULL };
	is_str(paths_of(CORDON_CACHE_GEM, ev2), "/bc ?/home/u/.gem/specs /home/u/.cache/gem/specs",
	       "gem: BUNDLE_USER_CACHE first");

	is_str(paths_of(CORDON_CACHE_CCACHE, none), "?/home/u/.ccache /home/u/.cache/ccache",
	       "ccache: ~/.ccache where it exists, else ~/.cache/ccache");
	static const char *const ccv[] = { "CCACHE_DIR=/cd", NULL };
	is_str(paths_of(CORDON_CACHE_CCACHE, ccv), "/cd", "ccache: CCACHE_DIR");
	is_str(paths_of(CORDON_CACHE_SCCACHE, xdg), "/xc/sccache", "sccache: XDG_CACHE_HOME");
	static const char *const scv[] = { "SCCACHE_DIR=/sd", NULL };
	is_str(paths_of(CORDON_CACHE_SCCACHE, scv), "/sd", "sccache: SCCACHE_DIR");

	is_str(paths_of(CORDON_CACHE_HUGGINGFACE, none),
	       "/home/u/.cache/huggingface/hub /home/u/.cache/huggingface/xet "
	       "/home/u/.cache/huggingface/datasets",
	       "huggingface: hub, xet, datasets of ~/.cache/huggingface (not its token)");
	is_str(paths_of(CORDON_CACHE_HUGGINGFACE, xdg),
	       "/xc/huggingface/hub /xc/huggingface/xet /xc/huggingface/datasets",
	       "huggingface: XDG_CACHE_HOME/huggingface");
	static const char *const hv[] = { "HF_HOME=/hf", "HUGGINGFACE_HUB_CACHE=/old",
					  "HF_DATASETS_CACHE=/ds", NULL };
	is_str(paths_of(CORDON_CACHE_HUGGINGFACE, hv), "/old /hf/xet /ds",
	       "huggingface: HF_HOME, the older HUGGINGFACE_HUB_CACHE, HF_DATASETS_CACHE");
	static const char *const hv2[] = { "HF_HUB_CACHE=/new", "HUGGINGFACE_HUB_CACHE=/old",
					   "HF_XET_CACHE=/x", NULL };
	is_str(paths_of(CORDON_CACHE_HUGGINGFACE, hv2),
	       "/new /x /home/u/.cache/huggingface/datasets",
	       "huggingface: HF_HUB_CACHE before HUGGINGFACE_HUB_CACHE; HF_XET_CACHE");
}

static void test_go(void)
{
	static const char *const xdg[] = { "XDG_CACHE_HOME=/xc", NULL };
	is_str(paths_of(CORDON_CACHE_GO, xdg),
	       "/xc/go-build /home/u/go/pkg/mod /home/u/go/pkg/sumdb",
	       "go: GOCACHE under XDG_CACHE_HOME");
	static const char *const list[] = { "GOPATH=/gp1:/gp2", NULL };
	is_str(paths_of(CORDON_CACHE_GO, list),
	       "/home/u/.cache/go-build /gp1/pkg/mod /gp1/pkg/sumdb",
	       "go: GOPATH's first entry of a list");
	ok(!all_from_var(CORDON_CACHE_GO, list), "go: the build cache is not GOPATH's");
	static const char *const all[] = { "GOCACHE=/gc", "GOMODCACHE=/gm", "GOPATH=/gp", NULL };
	is_str(paths_of(CORDON_CACHE_GO, all), "/gc /gm /gp/pkg/sumdb",
	       "go: GOCACHE, GOMODCACHE; the checksum cache stays in GOPATH");
	ok(all_from_var(CORDON_CACHE_GO, all), "go: its variables are its own");
	static const char *const rel[] = { "GOCACHE=rel/c", "GOMODCACHE=rel/m", "GOPATH=rel/p",
					   NULL };
	is_str(paths_of(CORDON_CACHE_GO, rel), "",
	       "go: relative GOCACHE, GOMODCACHE, GOPATH (which go refuses): nothing");
	static const char *const off[] = { "GOCACHE=off", "GOPATH=:/gp", NULL };
	is_str(paths_of(CORDON_CACHE_GO, off), "",
	       "go: GOCACHE=off; a GOPATH list with an empty first entry: nothing");
	static const char *const relxdg[] = { "XDG_CACHE_HOME=rel", "GOPATH=/gp/", NULL };
	is_str(paths_of(CORDON_CACHE_GO, relxdg),
	       "/home/u/.cache/go-build /gp/pkg/mod /gp/pkg/sumdb",
	       "go: a relative XDG_CACHE_HOME is ignored; GOPATH normalised");
}
#endif

static void test_variables(void)
{
	static const char *const env[] = {
		"CARGO_HOME=rel/cargo",
		"NPM_CONFIG_CACHE=/n2",
		"npm_config_cache=/n1",
		"PIP_CACHE_DIR=/p/../pipc",
		"XDG_CACHE_HOME=/x",
		"PLAYWRIGHT_BROWSERS_PATH=",
		NULL,
	};
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(CORDON_CACHE_DEFAULT & ~CORDON_CACHE_GO, env, l, &tl);
	is_int(n, 6, "six locations");
	is_str(l[0].path, "/work/proj/rel/cargo/registry", "relative CARGO_HOME: against cwd");
	ok(l[0].from_var, "CARGO_HOME counts as the tool's own variable");
	is_str(l[3].path, "/n1", "npm_config_cache wins over NPM_CONFIG_CACHE");
	is_str(l[4].path, "/pipc", "PIP_CACHE_DIR, normalised");
#if !defined(__APPLE__)
	is_str(l[5].path, "/x/ms-playwright",
	       "an empty variable is unset; XDG_CACHE_HOME honoured");
#endif
	ok(!l[5].from_var, "an empty PLAYWRIGHT_BROWSERS_PATH is not the tool's variable");

	static const char *const pw0[] = { "PLAYWRIGHT_BROWSERS_PATH=0", "XDG_CACHE_HOME=rel",
					   NULL };
	n = locate(CORDON_CACHE_PLAYWRIGHT | CORDON_CACHE_PIP, pw0, l, &tl);
	is_int(n, 1, "PLAYWRIGHT_BROWSERS_PATH=0: browsers in node_modules, no location");
#if !defined(__APPLE__)
	is_str(l[0].path, "/home/u/.cache/pip", "a relative XDG_CACHE_HOME is ignored");
#endif
	n = locate(CORDON_CACHE_NPM, pw0, l, &tl);
	is_int(n, 1, "only the tools in the mask");
	is_int(locate(0, pw0, l, &tl), 0, "empty mask: nothing");
}

static void test_too_long(void)
{
	size_t len = CORDON_PATH_MAX + 100;
	char *v = malloc(len + sizeof("CARGO_HOME=/"));
	if (v == NULL)
		abort();
	strcpy(v, "CARGO_HOME=/");
	memset(v + strlen(v), 'a', len);
	v[sizeof("CARGO_HOME=/") - 1 + len] = '\0';
	const char *env[] = { v, NULL };
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(CORDON_CACHE_CARGO | CORDON_CACHE_NPM, env, l, &tl);
	is_int(n, 1, "a CARGO_HOME longer than a path yields no cargo location");
	is_int(tl, CORDON_CACHE_CARGO, "... and is reported as too long");
	is_str(l[0].path, "/home/u/.npm", "other tools are unaffected");
	free(v);

	/* Just fits: the longest base whose registry path still fits. */
	size_t base = CORDON_PATH_MAX - 1 - strlen("/registry") - 1;
	char *w = malloc(base + sizeof("CARGO_HOME=/"));
	if (w == NULL)
		abort();
	strcpy(w, "CARGO_HOME=/");
	memset(w + strlen(w), 'b', base);
	w[sizeof("CARGO_HOME=/") - 1 + base] = '\0';
	env[0] = w;
	n = locate(CORDON_CACHE_CARGO, env, l, &tl);
	ok(n >= 1 && strlen(l[0].path) == CORDON_PATH_MAX - 1, "a path of 4095 bytes fits");
	is_int(tl, CORDON_CACHE_CARGO, "the longer .package-cache does not");
	free(w);
}

/* The locations of go and the first of npm and cargo, with how a
 * missing one is moved: "path[own=N][>VAR:name/tail]", space-separated. */
static const char *moves_of(unsigned mask, const char *const *env, const char *home)
{
	static char buf[8192];
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = caches_locate(mask, caches_env_lookup, (void *)env, home, "/work/proj", l, &tl);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char one[600];
		snprintf(one, sizeof(one), "%s%s%s", i > 0 ? " " : "",
			 l[i].homeless ? "(no home)" : l[i].path, l[i].from_var ? "!" : "");
		strcat(buf, one);
		if (l[i].own_len > 0) {
			snprintf(one, sizeof(one), "[own=%zu]", l[i].own_len);
			strcat(buf, one);
		}
		if (l[i].move_var != NULL) {
			snprintf(one, sizeof(one), ">%s:%s%s%s", l[i].move_var, l[i].move_name,
				 l[i].tail != NULL ? "/" : "", l[i].tail != NULL ? l[i].tail : "");
			strcat(buf, one);
		}
	}
	return buf;
}

static void test_moves(void)
{
	static const char *const none[] = { NULL };
	static const char *const xdg[] = { "XDG_CACHE_HOME=/xc", NULL };
	is_str(moves_of(CORDON_CACHE_NPM | CORDON_CACHE_PIP, xdg, "/home/u"),
	       "/home/u/.npm>npm_config_cache:npm /xc/pip>PIP_CACHE_DIR:pip",
	       "npm, pip: a default location is moved alone by the tool's variable");
	is_str(moves_of(CORDON_CACHE_CARGO, none, "/home/u"),
	       "/home/u/.cargo/registry[own=14]>CARGO_HOME:cargo/registry "
	       "/home/u/.cargo/git[own=14]>CARGO_HOME:cargo/git "
	       "/home/u/.cargo/.package-cache[own=14]>CARGO_HOME:cargo/.package-cache",
	       "cargo: in its own ~/.cargo, which CARGO_HOME moves whole");
	static const char *const gv[] = { "GOMODCACHE=/gm", "XDG_CACHE_HOME=/xc", NULL };
	is_str(moves_of(CORDON_CACHE_GO, gv, "/home/u"),
	       "/xc/go-build>GOCACHE:go-build /gm! /home/u/go/pkg/sumdb[own=10]>GOPATH:go/pkg/sumdb",
	       "go: GOCACHE alone; GOPATH moves ~/go whole; a GOMODCACHE set is not moved");
	static const char *const cv[] = { "CARGO_HOME=/c", "npm_config_cache=/n", NULL };
	is_str(moves_of(CORDON_CACHE_CARGO | CORDON_CACHE_NPM, cv, "/home/u"),
	       "/c/registry![own=2]>CARGO_HOME:cargo/registry /c/git![own=2]>CARGO_HOME:cargo/git "
	       "/c/.package-cache![own=2]>CARGO_HOME:cargo/.package-cache /n!",
	       "a CARGO_HOME that is set is the tool's own directory (moved whole only where it "
	       "does not exist, and the runs cannot see caches through overlays)");
#if !defined(__APPLE__)
	is_str(moves_of(CORDON_CACHE_MAVEN | CORDON_CACHE_CCACHE, none, "/home/u"),
	       "/home/u/.m2/repository[own=11] /home/u/.m2/wrapper[own=11] /home/u/.ccache "
	       "/home/u/.cache/ccache",
	       "maven, ccache: nothing moves them (CCACHE_DIR would move its configuration too)");
	is_str(moves_of(CORDON_CACHE_HUGGINGFACE, none, "/home/u"),
	       "/home/u/.cache/huggingface/hub[own=26]>HF_HOME:huggingface/hub "
	       "/home/u/.cache/huggingface/xet[own=26]>HF_HOME:huggingface/xet "
	       "/home/u/.cache/huggingface/datasets[own=26]>HF_HOME:huggingface/datasets",
	       "huggingface: the default HF_HOME is moved whole");
	static const char *const hv[] = { "HF_HOME=/hf", NULL };
	is_str(moves_of(CORDON_CACHE_HUGGINGFACE, hv, "/home/u"),
	       "/hf/hub![own=3]>HF_HOME:huggingface/hub /hf/xet![own=3]>HF_HOME:huggingface/xet "
	       "/hf/datasets![own=3]>HF_HOME:huggingface/datasets",
	       "huggingface: in an HF_HOME that is set, made where it says (moved whole only "
	       "where it does not exist and no overlay is made)");
	is_str(moves_of(CORDON_CACHE_PNPM | CORDON_CACHE_YARN, none, "/home/u"),
	       "/home/u/.cache/yarn>YARN_CACHE_FOLDER:yarn "
	       "/home/u/.yarn/berry>YARN_GLOBAL_FOLDER:yarn-berry "
	       "/home/u/.local/share/pnpm/store>pnpm_config_store_dir:pnpm-store "
	       "/home/u/.cache/pnpm>pnpm_config_cache_dir:pnpm",
	       "yarn, pnpm: moved by their variables (pnpm's pnpm_config_ names)");
#endif
	/* No home (HOME unset): what lies under it has no path. */
	is_str(moves_of(CORDON_CACHE_NPM | CORDON_CACHE_PIP | CORDON_CACHE_GO, xdg, NULL),
	       "(no home)>npm_config_cache:npm /xc/pip>PIP_CACHE_DIR:pip "
	       "/xc/go-build>GOCACHE:go-build (no home)>GOPATH:go/pkg/mod "
	       "(no home)>GOPATH:go/pkg/sumdb",
	       "no home: the locations under it are homeless, still moved; XDG ones are not");
	static const char *const nv[] = { "npm_config_cache=/n", NULL };
	is_str(moves_of(CORDON_CACHE_NPM | CORDON_CACHE_CARGO, nv, NULL),
	       "(no home)>CARGO_HOME:cargo/registry (no home)>CARGO_HOME:cargo/git "
	       "(no home)>CARGO_HOME:cargo/.package-cache /n!",
	       "no home: a variable still names its place");
}

/* Each location's variable that names it alone and the name a run
 * without a mount layer points it to: "path=VAR:name" ("path=-" when no
 * variable moves it alone), space-separated. */
static const char *alone_of(unsigned mask, const char *const *env)
{
	static char buf[8192];
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(mask, env, l, &tl);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char one[600];
		snprintf(one, sizeof(one), "%s%s=%s%s%s", i > 0 ? " " : "", l[i].path,
			 l[i].alone_var ? l[i].alone_var : "-", l[i].alone_var ? ":" : "",
			 l[i].alone_var ? l[i].alone_name : "");
		strcat(buf, one);
	}
	return buf;
}

static void test_alone(void)
{
	static const char *const none[] = { NULL };
	static const char *const xdg[] = { "XDG_CACHE_HOME=/xc", NULL };
	is_str(alone_of(CORDON_CACHE_DEFAULT, xdg),
	       "/home/u/.cargo/registry=- /home/u/.cargo/git=- /home/u/.cargo/.package-cache=- "
	       "/home/u/.npm=npm_config_cache:npm /xc/pip=PIP_CACHE_DIR:pip "
	       "/xc/ms-playwright=PLAYWRIGHT_BROWSERS_PATH:ms-playwright "
	       "/xc/go-build=GOCACHE:go-build /home/u/go/pkg/mod=GOMODCACHE:go/pkg/mod "
	       "/home/u/go/pkg/sumdb=-",
	       "the default caches: each variable that names one alone (none for cargo's, "
	       "go's sumdb)");
	static const char *const set[] = { "NPM_CONFIG_CACHE=/n", "GOPATH=/gp", "CARGO_HOME=/c",
					   NULL };
	is_str(alone_of(CORDON_CACHE_NPM | CORDON_CACHE_GO | CORDON_CACHE_CARGO, set),
	       "/c/registry=- /c/git=- /c/.package-cache=- /n=NPM_CONFIG_CACHE:npm "
	       "/home/u/.cache/go-build=GOCACHE:go-build /gp/pkg/mod=GOMODCACHE:go/pkg/mod "
	       "/gp/pkg/sumdb=-",
	       "a variable the user set: the name it is set by (NPM_CONFIG_CACHE); GOPATH's "
	       "module cache by GOMODCACHE");
	static const char *const homes[] = {
		"PNPM_HOME=/ph",	"BUN_INSTALL=/bi",	     "COMPOSER_HOME=/ch",
		"BUNDLE_USER_HOME=/bh", "HUGGINGFACE_HUB_CACHE=/hh", NULL
	};
	is_str(alone_of(CORDON_CACHE_PNPM | CORDON_CACHE_BUN | CORDON_CACHE_COMPOSER |
				CORDON_CACHE_GEM | CORDON_CACHE_HUGGINGFACE,
			homes),
	       "/ph/store=pnpm_config_store_dir:pnpm-store "
	       "/home/u/.cache/pnpm=pnpm_config_cache_dir:pnpm "
	       "/bi/install/cache=BUN_INSTALL_CACHE_DIR:bun /ch/cache=COMPOSER_CACHE_DIR:composer "
	       "/bh/cache=BUNDLE_USER_CACHE:bundle /home/u/.gem/specs=GEM_SPEC_CACHE:gem-specs "
	       "/home/u/.cache/gem/specs=GEM_SPEC_CACHE:gem-specs "
	       "/hh=HUGGINGFACE_HUB_CACHE:huggingface/hub "
	       "/home/u/.cache/huggingface/xet=HF_XET_CACHE:huggingface/xet "
	       "/home/u/.cache/huggingface/datasets=HF_DATASETS_CACHE:huggingface/datasets",
	       "a cache in a tool's home (PNPM_HOME, BUN_INSTALL, ...): moved alone by the "
	       "cache's own variable");
#if !defined(__APPLE__)
	is_str(alone_of(CORDON_CACHE_GRADLE | CORDON_CACHE_MAVEN | CORDON_CACHE_CCACHE, none),
	       "/home/u/.gradle/caches=- /home/u/.gradle/wrapper=- /home/u/.gradle/daemon=- "
	       "/home/u/.gradle/native=- /home/u/.m2/repository=- /home/u/.m2/wrapper=- "
	       "/home/u/.ccache=- /home/u/.cache/ccache=-",
	       "gradle, maven, ccache: no variable moves a cache of theirs alone");
#else
	(void)none;
#endif
}

static void test_programs(void)
{
	is_str(caches_tool_programs(CORDON_CACHE_NPM)[0], "npm", "npm is found by npm");
	is_str(caches_tool_programs(CORDON_CACHE_PIP)[1], "pip3", "pip also by pip3");
	is_str(caches_tool_programs(CORDON_CACHE_GO)[0], "go", "go is found by go");
	ok(caches_tool_programs(0)[0] == NULL, "no program for no tool");
	ok(caches_tool_programs(CORDON_CACHE_YARN)[0] == NULL,
	   "an opt-in tool is not looked for (asking for it is enough)");
}

static void test_too_long_go(void)
{
	size_t len = CORDON_PATH_MAX + 10;
	char *v = malloc(len + sizeof("GOPATH=/:/b"));
	if (v == NULL)
		abort();
	strcpy(v, "GOPATH=/");
	memset(v + strlen(v), 'g', len);
	strcpy(v + sizeof("GOPATH=/") - 1 + len, ":/b");
	const char *env[] = { v, "GOCACHE=/gc", NULL };
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(CORDON_CACHE_GO, env, l, &tl);
	is_int(n, 1, "a GOPATH first entry longer than a path: only GOCACHE");
	is_int(tl, CORDON_CACHE_GO, "... and go is reported as too long");
	free(v);
}

int main(void)
{
	test_defaults();
#if !defined(__APPLE__)
	test_opt_in();
	test_go();
#endif
	test_variables();
	test_too_long_go();
	test_too_long();
	test_moves();
	test_alone();
	test_programs();
	return done_testing();
}
