/*
 * The one table of cordon run's options, by long name: what each takes,
 * whether a policy file may hold it, and how its value is parsed and
 * applied (through the public setters). cordon(1)'s argv, policy files,
 * profiles and cordon_set_option() all come here, so no option is parsed
 * twice. A single-valued option given again with a different value
 * (compared parsed: 1G is 1024M) is refused, whatever the two sources: a
 * wrapper's policy cannot be undone by a later flag, and the result does
 * not depend on the order.
 */
#include "handle.h"
#include "options.h"
#include "path.h"

#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

int opt_parse_uint(const char *s, long max, long *out)
{
	long v = 0;
	if (s == NULL || s[0] == '\0' || strlen(s) > 18)
		return -1;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

int opt_parse_timeout(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1000;
	const char *p = s;
	int digits = 0;

	if (s == NULL)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > OPT_TIMEOUT_MAX_S) /* about three years */
			return -1;
	}
	if (*p == '.') {
		p++;
		for (; *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (*p != '\0' || digits == 0)
		return -1;
	*ms = whole * 1000 + frac;
	return *ms > 0 ? 0 : -1;
}

int opt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const char units[] = "KMGT";
	uint64_t v = 0;
	const char *p = s;
	if (s == NULL || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return -1; /* past max: overflow is never reached */
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p != '\0') {
		const char *u = strchr(units, *p >= 'a' ? *p - 'a' + 'A' : *p);
		if (u == NULL)
			return -1;
		for (long i = 0; i <= u - units; i++) {
			if (v > max / 1024)
				return -1;
			v *= 1024;
		}
		p++;
		if (strcmp(p, "") != 0 && strcmp(p, "B") != 0 && strcmp(p, "iB") != 0)
			return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The slots of the single-valued options (struct optstate's given[]):
 * --no-caches shares --cache's, --network-allow-file --network's. */
enum slot {
	S_NONE = -1,
	S_WORKSPACE,
	S_CWD,
	S_SANDBOX,
	S_CACHE,
	S_STATE_DIR,
	S_STATUS_FD,
	S_STATUS_FILE,
	S_TIMEOUT,
	S_ON_TAMPER,
	S_NETWORK,
	S_MAX_PROCS,
	S_MAX_MEMORY,
	S_MAX_TMP,
	S_COUNT
};
_Static_assert(S_COUNT <= OPT_SLOTS, "struct optstate's given[] is too small");

/* Options that need --network allow (optstate.needs_allow). */
#define NEEDS_LOCAL 0x1u
#define NEEDS_HTTP 0x2u
#define NEEDS_RESOLVE 0x4u

typedef int (*opt_fn)(cordon *c, const struct optdef *d, const char *v, const struct origin *o);

struct optdef {
	const char *name;
	unsigned flags;
	int slot;
	opt_fn apply;
};

/* What --no-caches stands for in --cache's slot. */
static const char no_caches[] = "--no-caches";

struct optstate *opt_state(cordon *c)
{
	if (c->opts == NULL)
		c->opts = calloc(1, sizeof(*c->opts));
	return c->opts;
}

static int oom(cordon *c)
{
	return cordon_fail(c, CORDON_ENOMEM, "out of memory");
}

int opt_add_input(cordon *c, const char *path, const char *what)
{
	struct optstate *s = opt_state(c);
	if (s == NULL || strv_push(&s->inputs, path) != 0 || strv_push(&s->inputs, what) != 0)
		return oom(c);
	return 0;
}

/* --network-allow-file's file, made absolute now (the current directory
 * may change before cordon_begin()). */
static int allow_file_input(cordon *c, const char *path)
{
	char abs[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX];
	if (path[0] == '/')
		return opt_add_input(c, path, "--network-allow-file");
	if (getcwd(cwd, sizeof(cwd)) == NULL || path_join(abs, sizeof(abs), cwd, path) != 0)
		return cordon_fail(c, CORDON_EINVAL, "the --network-allow-file name %s is too long",
				   path);
	return opt_add_input(c, abs, "--network-allow-file");
}

/* " from ORIGIN", or "" for an option given directly. */
static void origin_text(const struct origin *o, char *out, size_t n)
{
	if (o == NULL)
		out[0] = '\0';
	else
		snprintf(out, n, "%s:%u", o->name, o->line);
}

/* Single-valued: refused when the slot holds another value. canon is
 * the parsed value, text the value as given (for the message; a file's
 * line names itself in front of the message). */
static int once_check(cordon *c, const struct optdef *d, const char *canon, const char *text)
{
	struct optstate *s = opt_state(c);
	if (s == NULL)
		return oom(c);
	const struct optgiven *g = &s->given[d->slot];
	if (g->canon == NULL || strcmp(g->canon, canon) == 0)
		return 0;
	int mixed = d->slot == S_CACHE &&
		    (strcmp(g->text, no_caches) == 0 || strcmp(text, no_caches) == 0);
	const char *slot_name = d->slot == S_CACHE     ? "cache"
				: d->slot == S_NETWORK ? "network"
						       : d->name;
	return cordon_fail(c, CORDON_EINVAL,
			   "--%s%s given twice (%s%s%s, then %s): a later value may not override "
			   "an earlier one; give it once",
			   slot_name, mixed ? "/--no-caches" : "", g->text,
			   g->origin[0] ? " from " : "", g->origin, text);
}

/* After the setter took it: the slot holds it (kept as first given). */
static int once_record(cordon *c, const struct optdef *d, const char *canon, const char *text,
		       const struct origin *o)
{
	struct optgiven *g = &opt_state(c)->given[d->slot];
	char here[300];
	if (g->canon != NULL)
		return 0;
	origin_text(o, here, sizeof(here));
	g->canon = strdup(canon);
	g->text = strdup(text);
	g->origin = strdup(here);
	if (g->canon == NULL || g->text == NULL || g->origin == NULL) {
		free(g->canon);
		free(g->text);
		free(g->origin);
		g->canon = g->text = g->origin = NULL;
		return oom(c);
	}
	return 0;
}

/* check, set (r is the setter's result), record. */
#define ONCE(c, d, canon, text, o, set)                                  \
	do {                                                             \
		int r_ = once_check(c, d, canon, text);                  \
		if (r_ == 0)                                             \
			r_ = (set);                                      \
		return r_ != 0 ? r_ : once_record(c, d, canon, text, o); \
	} while (0)

/* workspace, cwd, state-dir, status-file: the text is the value. */
static int o_path_one(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	switch (d->slot) {
	case S_WORKSPACE:
		ONCE(c, d, v, v, o, cordon_set_workspace(c, v));
	case S_CWD:
		ONCE(c, d, v, v, o, cordon_set_cwd(c, v));
	case S_STATE_DIR:
		ONCE(c, d, v, v, o, cordon_set_state_dir(c, v));
	default:
		if (v[0] == '\0')
			return cordon_fail(c, CORDON_EINVAL, "empty --status-file");
		ONCE(c, d, v, v, o, cordon_set_status_file(c, v));
	}
}

static int o_list(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	(void)o;
	if (strcmp(d->name, "pass-file") == 0)
		return cordon_add_pass_file(c, v);
	switch (d->name[0]) {
	case 'p':
		return cordon_add_protect(c, v);
	case 'd':
		return cordon_add_deny_read(c, v);
	case 'e': /* the name itself is checked by cordon_add_env() */
		if (v[0] == '\0' || v[0] == '=')
			return cordon_fail(c, CORDON_EINVAL,
					   "bad --env '%s' (want NAME or NAME=VALUE)", v);
		return cordon_add_env(c, v);
	default:
		break;
	}
	if (strcmp(d->name, "allow-write") == 0)
		return cordon_add_allow_write(c, v);
	if (strcmp(d->name, "allow-socket") == 0)
		return cordon_add_allow_socket(c, v);
	if (strcmp(d->name, "allow-agent-config") == 0)
		return cordon_add_allow_agent_config(c, v);
	return cordon_add_allow_read(c, v);
}

static int o_sandbox(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	enum cordon_mode m;
	if (cordon_parse_mode(v, &m) != 0)
		return cordon_fail(c, CORDON_EINVAL,
				   "unknown --sandbox mode '%s' (want auto, required or off)", v);
	ONCE(c, d, cordon_mode_ids[m].id, v, o, cordon_set_mode(c, m));
}

static int o_cache(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	unsigned mask = 0;
	char canon[16];
	if (v == NULL) {
		v = no_caches;
	} else if (cordon_parse_caches(v, &mask) != 0) {
		return cordon_fail(
			c, CORDON_EINVAL,
			"bad --cache list '%s' (want names from cargo,npm,pip,playwright,"
			"go,yarn,pnpm,bun,deno,gradle,maven,composer,gem,ccache,sccache,"
			"huggingface)",
			v);
	}
	snprintf(canon, sizeof(canon), "%x", mask);
	ONCE(c, d, canon, v, o, cordon_set_caches(c, mask));
}

static int o_on_tamper(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	enum cordon_on_tamper t;
	if (cordon_parse_on_tamper(v, &t) != 0)
		return cordon_fail(c, CORDON_EINVAL,
				   "bad --on-tamper '%s' (want fail or neutralise)", v);
	ONCE(c, d, t == CORDON_TAMPER_FAIL ? "fail" : "neutralise", v, o,
	     cordon_set_on_tamper(c, t));
}

/* --network on|off|allow=LIST and --network-allow-file: the network is
 * allow for both, and allow=LIST adds up. */
static int o_network(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	enum cordon_network net;
	if (d->name[7] != '\0') { /* network-allow-file */
		if (v[0] == '\0')
			return cordon_fail(c, CORDON_EINVAL, "empty --network-allow-file");
		int r = allow_file_input(c, v);
		if (r != 0)
			return r;
		ONCE(c, d, "allow", "allow (--network-allow-file)", o,
		     cordon_set_network_allow_file(c, v));
	}
	if (strncmp(v, "allow=", 6) == 0) {
		if (v[6] == '\0')
			return cordon_fail(c, CORDON_EINVAL,
					   "bad --network '%s' (want allow=PATTERN,...)", v);
		ONCE(c, d, "allow", v, o, cordon_set_network_allow(c, v + 6));
	}
	if (cordon_parse_network(v, &net) != 0)
		return cordon_fail(c, CORDON_EINVAL,
				   "bad --network '%s' (want on, off or allow=LIST)", v);
	ONCE(c, d, v, v, o, cordon_set_network(c, net));
}

/* The allow-list's settings: they need the list (options_check). */
static int o_netsetting(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	(void)o;
	struct optstate *s = opt_state(c);
	int r;
	if (s == NULL)
		return oom(c);
	if (strcmp(d->name, "network-resolve") == 0) {
		if (strchr(v, '=') == NULL)
			return cordon_fail(c, CORDON_EINVAL,
					   "bad --network-resolve '%s' (want NAME=ADDRESS)", v);
		r = cordon_add_network_resolve(c, v);
		s->needs_allow |= r == 0 ? NEEDS_RESOLVE : 0;
	} else if (strcmp(d->name, "network-allow-local") == 0) {
		r = cordon_set_network_allow_local(c, 1);
		s->needs_allow |= r == 0 ? NEEDS_LOCAL : 0;
	} else {
		r = cordon_set_network_allow_http(c, 1);
		s->needs_allow |= r == 0 ? NEEDS_HTTP : 0;
	}
	return r;
}

/* status-fd, keep-fd, timeout and the bounds. */
static int o_number(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	long n;
	uint64_t u;
	char canon[32];
	if (d->slot == S_STATUS_FD || d->slot == S_NONE) { /* status-fd, keep-fd */
		if (opt_parse_uint(v, 1 << 30, &n) != 0)
			return cordon_fail(c, CORDON_EINVAL,
					   "bad --%s '%s' (want a file descriptor number)", d->name,
					   v);
		if (d->slot == S_NONE)
			return cordon_add_keep_fd(c, (int)n);
		snprintf(canon, sizeof(canon), "%ld", n);
		ONCE(c, d, canon, v, o, cordon_set_status_fd(c, (int)n));
	}
	if (d->slot == S_TIMEOUT) {
		if (opt_parse_timeout(v, &u) != 0)
			return cordon_fail(c, CORDON_EINVAL,
					   "bad --timeout '%s' (want seconds from 0.001 to "
					   "100000000, e.g. 30 or 1.5)",
					   v);
		snprintf(canon, sizeof(canon), "%llu", (unsigned long long)u);
		ONCE(c, d, canon, v, o, cordon_set_timeout_ms(c, u));
	}
	if (d->slot == S_MAX_PROCS) {
		if (opt_parse_size(v, 1, OPT_MAX_PROCS, &u) != 0 ||
		    strspn(v, "0123456789") != strlen(v))
			return cordon_fail(
				c, CORDON_EINVAL,
				"bad --max-procs '%s' (want a number of processes from 1 "
				"to %llu)",
				v, OPT_MAX_PROCS);
	} else if (opt_parse_size(v, OPT_SIZE_MIN, OPT_SIZE_MAX, &u) != 0) {
		return cordon_fail(
			c, CORDON_EINVAL,
			"bad --%s '%s' (want a size from 1M to 4194304T: digits, then K, "
			"M, G or T, e.g. 512M or 2G)",
			d->name, v);
	}
	snprintf(canon, sizeof(canon), "%llu", (unsigned long long)u);
	ONCE(c, d, canon, v, o,
	     d->slot == S_MAX_PROCS    ? cordon_set_max_procs(c, u)
	     : d->slot == S_MAX_MEMORY ? cordon_set_max_memory(c, u)
				       : cordon_set_max_tmp(c, u));
}

static int o_flag(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	(void)v;
	(void)o;
	static const struct {
		const char *name;
		int (*set)(cordon *, int);
		int on;
	} flags[] = {
		{ "no-default-protect", cordon_set_default_protect, 0 },
		{ "no-default-deny-read", cordon_set_default_deny_read, 0 },
		{ "clean-env", cordon_set_clean_env, 1 },
		{ "allow-broad", cordon_set_allow_broad, 1 },
		{ "scratch-home", cordon_set_scratch_home, 1 },
		{ "review", cordon_set_review, 1 },
		{ "allow-userns", cordon_set_allow_userns, 1 },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (strcmp(flags[i].name, d->name) == 0)
			return flags[i].set(c, flags[i].on);
	return cordon_fail(c, CORDON_EINVAL, "internal: option %s", d->name);
}

/* --explain (short), --explain=short or --explain=full: given again, the
 * fuller one holds (it only says more). */
static int o_explain(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	(void)d;
	(void)o;
	int how = CORDON_EXPLAIN_SHORT;
	if (v != NULL && strcmp(v, "full") == 0)
		how = CORDON_EXPLAIN_FULL;
	else if (v != NULL && strcmp(v, "short") != 0)
		return cordon_fail(c, CORDON_EINVAL,
				   "bad --explain '%s' (want --explain, --explain=short or "
				   "--explain=full)",
				   v);
	return how > c->explain ? cordon_set_explain(c, how) : 0;
}

#define V OPTF_VALUE
#define F OPTF_FILE
#define P OPTF_PATH

/* The table: cordon run's options but --help and the test knob, and
 * --policy, --profile and --agent-policy (policyfile.c). Not in a file:
 * where the command runs (the caller's), fd numbers (the caller's
 * process). */
static const struct optdef table[] = {
	{ "workspace", V | P, S_WORKSPACE, o_path_one },
	{ "cwd", V | P, S_CWD, o_path_one },
	{ "sandbox", V | F, S_SANDBOX, o_sandbox },
	{ "allow-write", V | F | P, S_NONE, o_list },
	{ "allow-socket", V | F | P, S_NONE, o_list },
	{ "pass-file", V | F | P, S_NONE, o_list },
	{ "cache", V | F, S_CACHE, o_cache },
	{ "no-caches", F, S_CACHE, o_cache },
	{ "protect", V | F | P, S_NONE, o_list },
	{ "no-default-protect", F, S_NONE, o_flag },
	{ "allow-agent-config", V | F | P, S_NONE, o_list },
	{ "deny-read", V | F | P, S_NONE, o_list },
	{ "allow-read", V | F | P, S_NONE, o_list },
	{ "no-default-deny-read", F, S_NONE, o_flag },
	{ "network", V | F, S_NETWORK, o_network },
	{ "network-allow-file", V | F | P, S_NETWORK, o_network },
	{ "network-allow-local", F, S_NONE, o_netsetting },
	{ "network-allow-http", F, S_NONE, o_netsetting },
	{ "network-resolve", V | F, S_NONE, o_netsetting },
	{ "on-tamper", V | F, S_ON_TAMPER, o_on_tamper },
	{ "state-dir", V | F | P, S_STATE_DIR, o_path_one },
	{ "status-fd", V, S_STATUS_FD, o_number },
	{ "status-file", V | F | P, S_STATUS_FILE, o_path_one },
	{ "timeout", V | F, S_TIMEOUT, o_number },
	{ "clean-env", F, S_NONE, o_flag },
	{ "env", V | F, S_NONE, o_list },
	{ "keep-fd", V, S_NONE, o_number },
	{ "max-procs", V | F, S_MAX_PROCS, o_number },
	{ "max-memory", V | F, S_MAX_MEMORY, o_number },
	{ "max-tmp", V | F, S_MAX_TMP, o_number },
	{ "allow-broad", F, S_NONE, o_flag },
	{ "explain", F | OPTF_OPTVAL, S_NONE, o_explain },
	{ "scratch-home", F, S_NONE, o_flag },
	{ "review", F, S_NONE, o_flag },
	{ "allow-userns", F, S_NONE, o_flag },
};

#undef V
#undef F
#undef P

const struct optdef *opt_find(const char *name)
{
	for (size_t i = 0; name != NULL && i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

unsigned opt_flags(const struct optdef *d)
{
	return d->flags;
}

const char *opt_name(const struct optdef *d)
{
	return d->name;
}

/* The applied option in the log, for cordon_options_text(): its source
 * without the line. */
static int opt_log(cordon *c, const char *name, const char *v, const struct origin *o)
{
	struct optstate *s = opt_state(c);
	if (s == NULL || strv_push(&s->log, name) != 0 || strv_push(&s->log, v ? v : "") != 0 ||
	    strv_push(&s->log, o != NULL ? o->name : "") != 0)
		return oom(c);
	return 0;
}

int opt_apply(cordon *c, const struct optdef *d, const char *v, const struct origin *o)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (opt_state(c) == NULL)
		return oom(c);
	if ((d->flags & OPTF_VALUE) && v == NULL)
		return cordon_fail(c, CORDON_EINVAL, "option '--%s' needs a value", d->name);
	if (!(d->flags & (OPTF_VALUE | OPTF_OPTVAL)) && v != NULL)
		return cordon_fail(c, CORDON_EINVAL, "option '--%s' takes no value", d->name);
	if (o != NULL && !(d->flags & OPTF_FILE))
		return cordon_fail(c, CORDON_EINVAL,
				   "%s is not allowed in a policy file or profile (give "
				   "--%s on the command line)",
				   d->name, d->name);
	r = d->apply(c, d, v, o);
	return r != 0 ? r : opt_log(c, d->name, v, o);
}

int options_check(cordon *c)
{
	if (c->opts != NULL && c->opts->failed != NULL)
		return cordon_fail(c, CORDON_EINVAL,
				   "not running with a policy that failed to load (%s)",
				   c->opts->failed);
	if (c->opts == NULL || c->opts->needs_allow == 0 || c->network == CORDON_NETWORK_ALLOW)
		return 0;
	unsigned n = c->opts->needs_allow;
	return cordon_fail(c, CORDON_EINVAL,
			   "--%s needs --network allow=LIST (or --network-allow-file)",
			   n & NEEDS_LOCAL  ? "network-allow-local"
			   : n & NEEDS_HTTP ? "network-allow-http"
					    : "network-resolve");
}

void options_free(cordon *c)
{
	struct optstate *s = c->opts;
	if (s == NULL)
		return;
	for (size_t i = 0; i < OPT_SLOTS; i++) {
		free(s->given[i].canon);
		free(s->given[i].text);
		free(s->given[i].origin);
	}
	strv_free(&s->log);
	strv_free(&s->inputs);
	strv_free(&s->sources);
	free(s->failed);
	free(s->ws_pin_origin);
	free(s->ws_pin);
	free(s);
	c->opts = NULL;
}
