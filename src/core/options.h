/*
 * Options by name: the one table of cordon run's options (options.c),
 * used by cordon(1)'s argv parser, policy files and profiles
 * (policyfile.c) and cordon_set_option(). Each option is applied through
 * the public setters; single-valued ones given twice with different
 * values are refused, whatever the sources.
 */
#ifndef CORDON_OPTIONS_H
#define CORDON_OPTIONS_H

#include "cordon.h"
#include "strv.h"

#include <stddef.h>
#include <stdint.h>

/* The --timeout range: 0.001 s (one millisecond) to this many seconds. */
#define OPT_TIMEOUT_MAX_S 100000000ULL
/* The bounds of --max-procs, --max-memory and --max-tmp (cordon.h). */
#define OPT_MAX_PROCS 4194304ULL
#define OPT_SIZE_MIN (1ULL << 20)
#define OPT_SIZE_MAX (1ULL << 62)

/* Decimal seconds ("1", "0.25") to milliseconds, within the range: 0 or
 * -1. */
int opt_parse_timeout(const char *s, uint64_t *ms);
/* A size: decimal digits, then optionally K, M, G or T (powers of 1024,
 * either case), optionally followed by "B" or "iB" ("512M", "2GiB",
 * "1048576"), from min to max. 0 or -1. */
int opt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A non-negative decimal int no larger than max: 0 or -1. */
int opt_parse_uint(const char *s, long max, long *out);

/* Where an option comes from: NULL (given directly: the command line or
 * the caller), or a policy file's line or a profile's. */
struct origin {
	const char *name; /* the file's path as given, or "profile NAME" */
	unsigned line;
	int is_file; /* a file (not a profile): its relative paths */
};

/* Flags of an option (struct optdef). */
#define OPTF_VALUE 0x1u /* takes a value */
#define OPTF_FILE 0x2u /* allowed in a policy file or a profile */
#define OPTF_PATH 0x4u /* its value is a path (resolved as a file says) */
/* its value may be left out (--explain, --explain=full; in a file
 * "explain" or "explain full") */
#define OPTF_OPTVAL 0x8u

struct optdef;
/* The option of this long name (no dashes), or NULL. policy, profile and
 * agent-policy are not in the table (policyfile.c). */
const struct optdef *opt_find(const char *name);
unsigned opt_flags(const struct optdef *d);
const char *opt_name(const struct optdef *d);

/* Apply d with value (NULL for a flag) from o (NULL: given directly):
 * 0, or an error with its message (without o's FILE:LINE: the caller
 * adds it). A path in a file was resolved by the caller already. */
int opt_apply(cordon *c, const struct optdef *d, const char *value, const struct origin *o);

/* What the options given by name recorded on the handle. */
struct optgiven {
	char *canon; /* the parsed value, for comparison */
	char *text; /* as given, for messages */
	char *origin; /* "" when given directly */
};
#define OPT_SLOTS 24
struct optstate {
	struct optgiven given[OPT_SLOTS]; /* single-valued options, by slot */
	/* Every option applied, in order: name, value ("" for a flag) and
	 * origin ("" when given directly), three strings an option. */
	struct strv log;
	/* The policy files loaded (absolute, as given) and the
	 * --network-allow-file files, each with its origin: two strings
	 * each. Checked at cordon_begin() against the writable set. */
	struct strv inputs;
	/* What was loaded, for the start event: "profile NAME" or a file's
	 * absolute path, in order. */
	struct strv sources;
	/* Options that need --network allow, by bit (options.c). */
	unsigned needs_allow;
	/* A policy file, profile or the entry points' lookup failed to load
	 * (its message): cordon_begin() refuses to run with what was half
	 * applied. */
	char *failed;
	/* The first relative path of a file resolved against the workspace
	 * (its FILE:LINE) and that workspace as set then (NULL: none, the
	 * current directory): the workspace may not change afterwards. */
	char *ws_pin_origin, *ws_pin;
};

/* A file the run's policy was read from (path absolute), checked at
 * cordon_begin() (policyfile.c); what names it in messages. */
int opt_add_input(cordon *c, const char *path, const char *what);

/* The handle's state, made when first needed: NULL when out of memory. */
struct optstate *opt_state(cordon *c);
/* Called at cordon_begin(): what only the whole set of options can say
 * (--network-allow-local needs --network allow), and a load that failed.
 * 0 or CORDON_EINVAL. */
int options_check(cordon *c);
void options_free(cordon *c);

#endif
