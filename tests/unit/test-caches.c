/* Unit tests for where the tool caches are (src/caches.c, the pure part). */
#include "caches.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static size_t locate(unsigned mask, const char *const *env, struct cache_loc *out,
		     unsigned *too_long)
{
	return caches_locate(mask, caches_env_lookup, (void *)env, "/home/u", "/work/proj", out,
			     too_long);
}

static void test_defaults(void)
{
	static const char *const env[] = { NULL };
	struct cache_loc l[CACHE_LOC_MAX];
	unsigned tl;
	size_t n = locate(CORDON_CACHE_DEFAULT, env, l, &tl);
	is_int(n, 6, "all four tools: six locations");
	is_int(tl, 0, "nothing too long");
	is_str(l[0].path, "/home/u/.cargo/registry", "cargo registry");
	is_str(l[1].path, "/home/u/.cargo/git", "cargo git");
	is_str(l[2].path, "/home/u/.cargo/.package-cache", "cargo package-cache lock");
	is_int(l[2].is_dir, 0, "the lock is a file");
	is_str(l[3].path, "/home/u/.npm", "npm");
#if defined(__APPLE__)
	is_str(l[4].path, "/home/u/Library/Caches/pip", "pip");
	is_str(l[5].path, "/home/u/Library/Caches/ms-playwright", "playwright");
#else
	is_str(l[4].path, "/home/u/.cache/pip", "pip");
	is_str(l[5].path, "/home/u/.cache/ms-playwright", "playwright");
#endif
	for (size_t i = 0; i < n; i++)
		ok(!l[i].from_var, "%s: no variable names it", l[i].path);
}

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
	size_t n = locate(CORDON_CACHE_DEFAULT, env, l, &tl);
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

static void test_programs(void)
{
	is_str(caches_tool_programs(CORDON_CACHE_NPM)[0], "npm", "npm is found by npm");
	is_str(caches_tool_programs(CORDON_CACHE_PIP)[1], "pip3", "pip also by pip3");
	ok(caches_tool_programs(0)[0] == NULL, "no program for no tool");
}

int main(void)
{
	test_defaults();
	test_variables();
	test_too_long();
	test_programs();
	return done_testing();
}
