/*
 * Tool caches (design section 4): where each tool keeps its cache, by
 * the tool's own variables, and whether the tool is present at all.
 *
 * caches_locate() (cacheloc.c) is pure: it reads variables through a
 * lookup function and never touches the file system, so it is
 * unit-tested and fuzzed. caches_resolve() (caches.c) does the file
 * system part for a run.
 */
#ifndef CORDON_CACHES_H
#define CORDON_CACHES_H

#include "handle.h"

/* At most this many locations, every tool's (caches.c says which). */
#define CACHE_LOC_MAX 32

struct cache_loc {
	enum cache_tool tool;
	unsigned bit; /* CORDON_CACHE_* */
	char path[CORDON_PATH_MAX]; /* absolute, lexically normalised */
	int is_dir;
	/* The tool's own variable names this location (then the tool counts
	 * as present). */
	int from_var;
	/* An older location the tool uses instead of its next one where it
	 * exists (~/.ccache): granted then, never made. */
	int legacy;
	/* Under the home, but there is none (HOME unset): path is "". */
	int homeless;
	/* The length of the prefix of path that is the tool's own directory
	 * at its default place (~/.cargo, ~/go, ~/.gradle), or where its
	 * variable names it (CARGO_HOME): where that exists, a missing
	 * location is made in it. 0: none. */
	size_t own_len;
	/* The variable that moves a location that does not exist: set to
	 * STATE/caches/move_name, it puts the location at
	 * STATE/caches/move_name[/tail]. It moves the tool's own directory
	 * when own_len is not 0 (only where that does not exist: it holds
	 * nothing then), else the location itself. NULL: none moves it. */
	const char *move_var, *move_name, *tail;
	/* The variable that names this location alone, and the name below
	 * STATE/caches a run points it to when it cannot see the cache
	 * through an overlay (no mount layer): the name the user set it by
	 * when it is set. NULL: no variable moves it alone (CARGO_HOME,
	 * GRADLE_USER_HOME and CCACHE_DIR move a configuration too). */
	const char *alone_var, *alone_name;
};

/* Looks up an environment variable: its value, or NULL when unset. */
typedef const char *(*cache_getenv_fn)(void *ctx, const char *name);

/* A cache_getenv_fn over an environ-style array (ctx: NAME=VALUE
 * strings, NULL-terminated). */
const char *caches_env_lookup(void *ctx, const char *name);

/*
 * The cache locations of the tools in mask, honouring each tool's
 * variable, with home (absolute, or NULL when there is none) as the
 * default base and cwd (absolute) for relative values. Writes at most CACHE_LOC_MAX entries to out
 * and returns their number. A location whose path would not fit in CORDON_PATH_MAX is left out and
 * its tool's bit set in *too_long.
 */
size_t caches_locate(unsigned mask, cache_getenv_fn get, void *ctx, const char *home,
		     const char *cwd, struct cache_loc out[CACHE_LOC_MAX], unsigned *too_long);

/* The programs whose presence on PATH marks a tool as present. */
const char *const *caches_tool_programs(unsigned bit);

/*
 * For a run: locate the caches of c->caches, decide which tools are
 * present (variable set, cache already there, or a program on PATH) and
 * add their caches to the writable set. With layered (the run can see
 * them through overlays: cachelayer_usable), each cache of the user's is
 * an overlay over it (a missing one made empty first where the tool's
 * variable names it or inside the tool's own directory); without, each
 * is moved to cordon's own under the state dir by the variable that
 * names it alone (c->pol.cache_env), or left read-only. A missing
 * default one is moved under the state dir by its variable, never made
 * in the home. 0, or an error with its message.
 */
int caches_resolve(cordon *c, int layered);
/* Adds every tool cache location to c->pol.untrusted. 0 or CORDON_ENOMEM. */
int caches_untrusted(cordon *c);

#endif
