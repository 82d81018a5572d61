/*
 * Fuzz target for what cordon builds from environment values: the
 * command's environment (env_build) and the tool cache locations
 * (caches_locate). The input split on NUL bytes gives: one flags segment
 * (bit 0: --clean-env, bit 1: a run temp dir, bits 2-5: the cache mask,
 * bit 6: the default secret list; a segment of three bytes or more: its
 * second and third bytes are the whole cache mask, every tool's bit),
 * the parent environment's entries up to a segment "--", then the --env
 * specs. Values may be far longer than any path: nothing may overflow,
 * and every cache location must be an absolute, normalised path that
 * fits CORDON_PATH_MAX.
 */
#include "caches.h"
#include "cordon.h"
#include "env.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A spec names the n bytes of name. */
static int spec_names(const char *const *specs, size_t nspecs, const char *name, size_t n)
{
	for (size_t k = 0; k < nspecs; k++)
		if (strcspn(specs[k], "=") == n && strncmp(specs[k], name, n) == 0)
			return 1;
	return 0;
}

static void check_env(char **out, int clean, const char *tmpdir, const char *const *specs,
		      size_t nspecs, int drop, const struct strv *removed)
{
	size_t ntmp = 0;
	if (out == NULL)
		abort(); /* only out of memory may fail */
	/* Removed: secret names, none of them named by a spec, none twice,
	 * never a value. */
	for (size_t i = 0; i < removed->n; i++) {
		const char *r = removed->v[i];
		if (!drop || strchr(r, '=') != NULL || !env_name_secret(r, strlen(r)) ||
		    spec_names(specs, nspecs, r, strlen(r)))
			abort();
		for (size_t k = 0; k < i; k++)
			if (strcmp(removed->v[k], r) == 0)
				abort();
	}
	for (size_t i = 0; out[i] != NULL; i++) {
		const char *eq = strchr(out[i], '=');
		/* An inherited entry without a name ("=x") passes through as a
		 * plain exec would pass it; never with --clean-env. */
		if (eq == NULL || (eq == out[i] && clean))
			abort();
		size_t n = (size_t)(eq - out[i]);
		if (n == 6 && strncmp(out[i], "TMPDIR", 6) == 0)
			ntmp++;
		/* A secret's name reaches the command only when a spec names it. */
		if (drop && env_name_secret(out[i], n) && !spec_names(specs, nspecs, out[i], n))
			abort();
		if (clean) {
			/* Clean: an allow-listed name, an LC_ name, TMPDIR or a spec's. */
			int named = spec_names(specs, nspecs, out[i], n);
			static const char *const allowed[] = { "PATH",	  "HOME",  "USER",
							       "LOGNAME", "SHELL", "LANG",
							       "TERM",	  "TZ",	   "TMPDIR" };
			for (size_t k = 0; k < sizeof(allowed) / sizeof(allowed[0]); k++)
				named |= strlen(allowed[k]) == n &&
					 strncmp(allowed[k], out[i], n) == 0;
			named |= strncmp(out[i], "LC_", 3) == 0;
			if (!named)
				abort();
		}
	}
	/* cordon's TMPDIR is the only one unless a spec names TMPDIR (inherited
	 * duplicates otherwise pass through, as a plain exec passes them). */
	int tmp_named = 0;
	for (size_t k = 0; k < nspecs; k++)
		tmp_named |= strncmp(specs[k], "TMPDIR", 6) == 0 &&
			     (specs[k][6] == '\0' || specs[k][6] == '=');
	if (tmpdir != NULL && !tmp_named && ntmp != 1)
		abort();
}

static void check_path(const char *p)
{
	size_t n = strlen(p);
	if (p[0] != '/' || n >= CORDON_PATH_MAX || strstr(p, "//") != NULL ||
	    strstr(p, "/./") != NULL || strstr(p, "/../") != NULL || (n > 1 && p[n - 1] == '/'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	const char **seg = calloc(size + 2, sizeof(*seg));
	size_t nseg = 0;
	if (buf == NULL || seg == NULL) {
		free(buf);
		free(seg);
		return 0;
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size;) {
		seg[nseg++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	unsigned flags = nseg > 0 && seg[0][0] != '\0' ? (unsigned char)seg[0][0] : 0;
	const char **parent = seg + 1;
	size_t np = 0;
	while (1 + np < nseg && strcmp(parent[np], "--") != 0)
		np++;
	const char **specs = parent + np + (1 + np < nseg ? 1 : 0);
	size_t nspecs = (size_t)(seg + nseg - specs);
	/* Specs must be valid ones (cordon_add_env checks them first). */
	size_t k = 0;
	for (size_t i = 0; i < nspecs; i++)
		if (env_spec_valid(specs[i]))
			specs[k++] = specs[i];
	nspecs = k;
	parent[np] = NULL; /* the "--" (or the slot past the end) */

	int clean = flags & 1;
	const char *tmpdir = (flags & 2) ? "/state/runs/AbCdEf" : NULL;
	struct env_opts o = { .clean = clean,
			      .drop_secrets = (flags >> 6) & 1,
			      .specs = specs,
			      .nspecs = nspecs,
			      .tmpdir = tmpdir };
	struct strv removed = { 0 };
	char **out = env_build(parent, &o, &removed);
	check_env(out, clean, tmpdir, specs, nspecs, o.drop_secrets, &removed);
	env_free(out);
	strv_free(&removed);

	/* The caches the same environment names, HOME as the base. */
	const char *home = caches_env_lookup((void *)parent, "HOME");
	if (home == NULL || home[0] != '/' || strlen(home) >= CORDON_PATH_MAX)
		home = "/home/u";
	unsigned mask = (flags >> 2) & 0xfu;
	if (nseg > 0 && strlen(seg[0]) >= 3)
		mask = ((unsigned char)seg[0][1] | (unsigned)(unsigned char)seg[0][2] << 8) &
		       CORDON_CACHE_ALL;
	struct cache_loc locs[CACHE_LOC_MAX];
	unsigned too_long;
	size_t n = caches_locate(mask, caches_env_lookup, (void *)parent, home, "/work/proj", locs,
				 &too_long);
	if (n > CACHE_LOC_MAX || (too_long & ~mask) != 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		check_path(locs[i].path);
		if ((locs[i].bit & mask) == 0 || locs[i].bit != 1u << locs[i].tool)
			abort();
		/* A legacy location is followed by the one it stands for. */
		if (locs[i].legacy && !(too_long & locs[i].bit) &&
		    (i + 1 >= n || locs[i + 1].bit != locs[i].bit))
			abort();
	}
	free(seg);
	free(buf);
	return 0;
}
