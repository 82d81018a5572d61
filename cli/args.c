#include "args.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_uint(const char *s, long max, long *out)
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

int cli_parse_timeout(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1000;
	const char *p = s;
	int digits = 0;

	if (s == NULL)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > CLI_TIMEOUT_MAX_S) /* about three years */
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

int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
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

static int push(const char ***list, size_t *n, const char *v)
{
	const char **l = realloc(*list, (*n + 1) * sizeof(*l));
	if (l == NULL)
		return -1;
	l[(*n)++] = v;
	*list = l;
	return 0;
}

static int fail(struct cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cli_args *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Options that take a value. */
enum opt {
	O_WORKSPACE,
	O_CWD,
	O_SANDBOX,
	O_ALLOW_WRITE,
	O_ALLOW_SOCKET,
	O_CACHE,
	O_PROTECT,
	O_STATE_DIR,
	O_STATUS_FD,
	O_STATUS_FILE,
	O_TIMEOUT,
	O_ENV,
	O_KEEP_FD,
	O_TEST_MAX_ABI,
	O_ON_TAMPER,
	O_NETWORK,
	O_DENY_READ,
	O_ALLOW_READ,
	O_MAX_PROCS,
	O_MAX_MEMORY,
	O_MAX_TMP,
	O_NETWORK_ALLOW_FILE,
	O_NETWORK_RESOLVE,
	/* flags */
	O_NO_CACHES,
	O_NO_DEFAULT_PROTECT,
	O_NO_DEFAULT_DENY_READ,
	O_CLEAN_ENV,
	O_ALLOW_BROAD,
	O_EXPLAIN,
	O_SCRATCH_HOME,
	O_ALLOW_USERNS,
	O_NETWORK_ALLOW_LOCAL,
	O_NETWORK_ALLOW_HTTP,
	O_HELP,
	O_COUNT
};
#define FIRST_FLAG O_NO_CACHES

static const char *const long_names[O_COUNT] = {
	[O_WORKSPACE] = "workspace",
	[O_CWD] = "cwd",
	[O_SANDBOX] = "sandbox",
	[O_ALLOW_WRITE] = "allow-write",
	[O_ALLOW_SOCKET] = "allow-socket",
	[O_CACHE] = "cache",
	[O_PROTECT] = "protect",
	[O_STATE_DIR] = "state-dir",
	[O_STATUS_FD] = "status-fd",
	[O_STATUS_FILE] = "status-file",
	[O_TIMEOUT] = "timeout",
	[O_ENV] = "env",
	[O_KEEP_FD] = "keep-fd",
	[O_TEST_MAX_ABI] = "test-max-abi",
	[O_ON_TAMPER] = "on-tamper",
	[O_NETWORK] = "network",
	[O_DENY_READ] = "deny-read",
	[O_ALLOW_READ] = "allow-read",
	[O_MAX_PROCS] = "max-procs",
	[O_MAX_MEMORY] = "max-memory",
	[O_MAX_TMP] = "max-tmp",
	[O_NETWORK_ALLOW_FILE] = "network-allow-file",
	[O_NETWORK_RESOLVE] = "network-resolve",
	[O_NO_CACHES] = "no-caches",
	[O_NO_DEFAULT_PROTECT] = "no-default-protect",
	[O_NO_DEFAULT_DENY_READ] = "no-default-deny-read",
	[O_CLEAN_ENV] = "clean-env",
	[O_ALLOW_BROAD] = "allow-broad",
	[O_EXPLAIN] = "explain",
	[O_SCRATCH_HOME] = "scratch-home",
	[O_ALLOW_USERNS] = "allow-userns",
	[O_NETWORK_ALLOW_LOCAL] = "network-allow-local",
	[O_NETWORK_ALLOW_HTTP] = "network-allow-http",
	[O_HELP] = "help",
};

static int find_opt(const char *arg, const char **inline_val)
{
	*inline_val = NULL;
	if (strcmp(arg, "-w") == 0)
		return O_WORKSPACE;
	if (strcmp(arg, "-h") == 0)
		return O_HELP;
	if (strncmp(arg, "--", 2) != 0)
		return -1;
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	for (int i = 0; i < O_COUNT; i++) {
		if (strlen(long_names[i]) == n && strncmp(long_names[i], name, n) == 0) {
			if (eq != NULL)
				*inline_val = eq + 1;
			return i;
		}
	}
	return -1;
}

_Static_assert(O_COUNT <= CLI_NOPTS, "struct cli_args' given[] is too small");

/* What --no-caches stands for in given[O_CACHE]. */
static const char no_caches[] = "--no-caches";

/*
 * Single-valued options (and --cache/--no-caches, one setting): given
 * again with a different value, refused. A wrapper that puts its policy
 * first cannot have it undone by a later flag, and the user learns which
 * of the two cordon would have used. differs compares the parsed values,
 * so "1G" then "1024M" is the same value; it is only read when the option
 * was given before.
 */
static int once(struct cli_args *a, int o, const char *v, int differs)
{
	const char *prev = a->given[o];
	if (prev != NULL && differs) {
		int mixed = o == O_CACHE && (prev == no_caches || v == no_caches);
		return fail(a,
			    "--%s%s given twice (%s, then %s): a later value may not override "
			    "an earlier one; give it once",
			    long_names[o], mixed ? "/--no-caches" : "", prev, v);
	}
	if (prev == NULL)
		a->given[o] = v;
	return 0;
}

static int once_str(struct cli_args *a, int o, const char **slot, const char *v)
{
	if (once(a, o, v, *slot == NULL || strcmp(*slot, v) != 0) != 0)
		return -1;
	*slot = v;
	return 0;
}

static int apply_bound(struct cli_args *a, int o, const char *v)
{
	uint64_t n;
	uint64_t *slot = o == O_MAX_PROCS    ? &a->max_procs
			 : o == O_MAX_MEMORY ? &a->max_memory
					     : &a->max_tmp;
	if (o == O_MAX_PROCS) {
		if (cli_parse_size(v, 1, CLI_MAX_PROCS, &n) != 0 ||
		    strspn(v, "0123456789") != strlen(v))
			return fail(
				a,
				"bad --max-procs '%s' (want a number of processes from 1 to %llu)",
				v, CLI_MAX_PROCS);
	} else if (cli_parse_size(v, CLI_SIZE_MIN, CLI_SIZE_MAX, &n) != 0) {
		return fail(
			a,
			"bad --%s '%s' (want a size from 1M to 4194304T: digits, then K, M, G or "
			"T, e.g. 512M or 2G)",
			long_names[o], v);
	}
	if (once(a, o, v, *slot != n) != 0)
		return -1;
	*slot = n;
	return 0;
}

/* --network allow=LIST (list: the patterns, checked by
 * cordon_set_network_allow) or --network-allow-file (list NULL): the
 * network is "allow", which --network on or off may not undo. */
static int network_allow(struct cli_args *a, const char *given, const char *list)
{
	if (list != NULL && list[0] == '\0')
		return fail(a, "bad --network '%s' (want allow=PATTERN,...)", given);
	if (once(a, O_NETWORK, given, a->network != CORDON_NETWORK_ALLOW) != 0)
		return -1;
	a->network = CORDON_NETWORK_ALLOW;
	return list != NULL ? push(&a->network_allow, &a->nnetwork_allow, list) : 0;
}

/* The allow-list's settings mean nothing without it. */
static int network_settings_alone(struct cli_args *a)
{
	const char *alone = a->network_allow_local    ? "--network-allow-local"
			    : a->network_allow_http   ? "--network-allow-http"
			    : a->nnetwork_resolve > 0 ? "--network-resolve"
						      : NULL;
	if (alone != NULL && a->network != CORDON_NETWORK_ALLOW)
		return fail(a, "%s needs --network allow=LIST (or --network-allow-file)", alone);
	return 0;
}

/* Options whose value is kept as given: once, or added to a list. */
static int apply_string(struct cli_args *a, int o, const char *v)
{
	switch (o) {
	case O_WORKSPACE:
		return once_str(a, o, &a->workspace, v);
	case O_CWD:
		return once_str(a, o, &a->cwd, v);
	case O_STATE_DIR:
		return once_str(a, o, &a->state_dir, v);
	case O_STATUS_FILE:
		if (v[0] == '\0')
			return fail(a, "empty --status-file");
		return once_str(a, o, &a->status_file, v);
	case O_ALLOW_WRITE:
		return push(&a->allow_write, &a->nallow_write, v);
	case O_ALLOW_SOCKET:
		return push(&a->allow_socket, &a->nallow_socket, v);
	case O_DENY_READ:
		return push(&a->deny_read, &a->ndeny_read, v);
	case O_ALLOW_READ:
		return push(&a->allow_read, &a->nallow_read, v);
	case O_PROTECT:
		return push(&a->protect, &a->nprotect, v);
	case O_ENV: /* the name itself is checked by cordon_add_env() */
		if (v[0] == '\0' || v[0] == '=')
			return fail(a, "bad --env '%s' (want NAME or NAME=VALUE)", v);
		return push(&a->env, &a->nenv, v);
	case O_NETWORK_ALLOW_FILE:
		if (v[0] == '\0')
			return fail(a, "empty --network-allow-file");
		if (network_allow(a, "allow (--network-allow-file)", NULL) != 0)
			return -1;
		return push(&a->network_allow_file, &a->nnetwork_allow_file, v);
	case O_NETWORK_RESOLVE: /* checked by cordon_add_network_resolve() */
		if (strchr(v, '=') == NULL)
			return fail(a, "bad --network-resolve '%s' (want NAME=ADDRESS)", v);
		return push(&a->network_resolve, &a->nnetwork_resolve, v);
	default:
		return fail(a, "internal: option %d", o);
	}
}

/* Options whose value is one of a few words (a list of them for
 * --cache), parsed by the library. */
static int apply_choice(struct cli_args *a, int o, const char *v)
{
	switch (o) {
	case O_SANDBOX: {
		enum cordon_mode m;
		if (cordon_parse_mode(v, &m) != 0)
			return fail(a, "unknown --sandbox mode '%s' (want auto, required or off)",
				    v);
		if (once(a, o, v, m != a->mode) != 0)
			return -1;
		a->mode = m;
		return 0;
	}
	case O_CACHE: {
		unsigned mask;
		if (cordon_parse_caches(v, &mask) != 0)
			return fail(
				a,
				"bad --cache list '%s' (want names from cargo,npm,pip,playwright,go,"
				"yarn,pnpm,bun,deno,gradle,maven,composer,gem,ccache,sccache,"
				"huggingface)",
				v);
		if (once(a, o, v, mask != a->caches) != 0)
			return -1;
		a->caches = mask;
		return 0;
	}
	case O_ON_TAMPER: {
		enum cordon_on_tamper t;
		if (cordon_parse_on_tamper(v, &t) != 0)
			return fail(a, "bad --on-tamper '%s' (want fail or neutralise)", v);
		if (once(a, o, v, t != a->on_tamper) != 0)
			return -1;
		a->on_tamper = t;
		return 0;
	}
	default: {
		enum cordon_network net;
		if (strncmp(v, "allow=", 6) == 0)
			return network_allow(a, v, v + 6);
		if (cordon_parse_network(v, &net) != 0)
			return fail(a, "bad --network '%s' (want on, off or allow=LIST)", v);
		if (once(a, o, v, net != a->network) != 0)
			return -1;
		a->network = net;
		return 0;
	}
	}
}

/* Options whose value is a number: a file descriptor, seconds or an ABI
 * version. */
static int apply_number(struct cli_args *a, int o, const char *v)
{
	long n;
	switch (o) {
	case O_STATUS_FD:
		if (cli_parse_uint(v, 1 << 30, &n) != 0)
			return fail(a, "bad --status-fd '%s' (want a file descriptor number)", v);
		if (once(a, o, v, n != a->status_fd) != 0)
			return -1;
		a->status_fd = (int)n;
		return 0;
	case O_TIMEOUT: {
		uint64_t ms;
		if (cli_parse_timeout(v, &ms) != 0)
			return fail(a,
				    "bad --timeout '%s' (want seconds from 0.001 to 100000000, "
				    "e.g. 30 or 1.5)",
				    v);
		if (once(a, o, v, ms != a->timeout_ms) != 0)
			return -1;
		a->timeout_ms = ms;
		return 0;
	}
	case O_KEEP_FD: {
		if (cli_parse_uint(v, 1 << 30, &n) != 0)
			return fail(a, "bad --keep-fd '%s' (want a file descriptor number)", v);
		int *k = realloc(a->keep_fds, (a->nkeep + 1) * sizeof(int));
		if (k == NULL)
			return -1;
		k[a->nkeep++] = (int)n;
		a->keep_fds = k;
		return 0;
	}
	default: /* O_TEST_MAX_ABI */
		if (cli_parse_uint(v, 1000, &n) != 0 || n == 0)
			return fail(a, "bad --test-max-abi '%s' (want a version >= 1)", v);
		if (once(a, o, v, n != a->max_abi) != 0)
			return -1;
		a->max_abi = (int)n;
		return 0;
	}
}

/* An option that takes a value, by the kind of its value. */
static int apply_value(struct cli_args *a, int o, const char *v)
{
	switch (o) {
	case O_SANDBOX:
	case O_CACHE:
	case O_ON_TAMPER:
	case O_NETWORK:
		return apply_choice(a, o, v);
	case O_STATUS_FD:
	case O_TIMEOUT:
	case O_KEEP_FD:
	case O_TEST_MAX_ABI:
		return apply_number(a, o, v);
	case O_MAX_PROCS:
	case O_MAX_MEMORY:
	case O_MAX_TMP:
		return apply_bound(a, o, v);
	default:
		return apply_string(a, o, v);
	}
}

static int apply_flag(struct cli_args *a, int o)
{
	switch (o) {
	case O_NO_CACHES:
		if (once(a, O_CACHE, no_caches, a->caches != 0) != 0)
			return -1;
		a->caches = 0;
		break;
	case O_NO_DEFAULT_PROTECT:
		a->no_default_protect = 1;
		break;
	case O_NO_DEFAULT_DENY_READ:
		a->no_default_deny_read = 1;
		break;
	case O_CLEAN_ENV:
		a->clean_env = 1;
		break;
	case O_ALLOW_BROAD:
		a->allow_broad = 1;
		break;
	case O_EXPLAIN:
		a->explain = 1;
		break;
	case O_SCRATCH_HOME:
		a->scratch_home = 1;
		break;
	case O_ALLOW_USERNS:
		a->allow_userns = 1;
		break;
	case O_NETWORK_ALLOW_LOCAL:
		a->network_allow_local = 1;
		break;
	case O_NETWORK_ALLOW_HTTP:
		a->network_allow_http = 1;
		break;
	default:
		break;
	}
	return 0;
}

static int parse_run(int argc, char *const argv[], int i, struct cli_args *a)
{
	for (; i < argc; i++) {
		const char *arg = argv[i];
		const char *val;
		if (strcmp(arg, "--") == 0) {
			if (i + 1 >= argc)
				return fail(a, "empty command after '--'");
			if (network_settings_alone(a) != 0)
				return -1;
			a->command = argv + i + 1;
			return 0;
		}
		int o = find_opt(arg, &val);
		if (o < 0) {
			if (arg[0] == '-')
				return fail(a, "unknown option '%s' (see cordon run --help)", arg);
			return fail(a, "missing '--' before the command '%s'", arg);
		}
		if (o == O_HELP) {
			if (val != NULL)
				return fail(a, "option '%s' takes no value", arg);
			a->cmd = CLI_HELP;
			a->help_topic = "run";
			return 0;
		}
		if (o == O_TEST_MAX_ABI || o < FIRST_FLAG) {
			if (val == NULL) {
				if (i + 1 >= argc)
					return fail(a, "option '%s' needs a value", arg);
				val = argv[++i];
			}
			if (apply_value(a, o, val) != 0)
				return -1;
		} else {
			if (val != NULL)
				return fail(a, "option '%s' takes no value", arg);
			if (apply_flag(a, o) != 0)
				return -1;
		}
	}
	return fail(a, "missing '--' and command (cordon run [OPTIONS] -- COMMAND [ARG...])");
}

static int parse_probe(int argc, char *const argv[], int i, struct cli_args *a)
{
	for (; i < argc; i++) {
		const char *val;
		if (strcmp(argv[i], "--json") == 0) {
			a->json = 1;
			continue;
		}
		int o = find_opt(argv[i], &val);
		if (o == O_HELP && val == NULL) {
			a->cmd = CLI_HELP;
			a->help_topic = "probe";
			return 0;
		}
		if (o == O_TEST_MAX_ABI) {
			if (val == NULL) {
				if (i + 1 >= argc)
					return fail(a, "option '%s' needs a value", argv[i]);
				val = argv[++i];
			}
			if (apply_value(a, o, val) != 0)
				return -1;
			continue;
		}
		return fail(a, "unknown probe argument '%s' (see cordon probe --help)", argv[i]);
	}
	return 0;
}

int cli_parse(int argc, char *const argv[], struct cli_args *a)
{
	memset(a, 0, sizeof(*a));
	a->status_fd = -1;
	a->caches = CORDON_CACHE_DEFAULT;
	a->mode = CORDON_MODE_AUTO;
	if (argc < 2)
		return fail(a, "missing command (try 'cordon --help')");
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		a->cmd = CLI_HELP;
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		a->cmd = CLI_VERSION;
		return 0;
	}
	if (strcmp(cmd, "run") == 0) {
		a->cmd = CLI_RUN;
		return parse_run(argc, argv, 2, a);
	}
	if (strcmp(cmd, "probe") == 0) {
		a->cmd = CLI_PROBE;
		return parse_probe(argc, argv, 2, a);
	}
	return fail(a, "unknown command '%s' (try 'cordon --help')", cmd);
}

void cli_args_free(struct cli_args *a)
{
	free(a->allow_write);
	free(a->allow_socket);
	free(a->protect);
	free(a->deny_read);
	free(a->allow_read);
	free(a->env);
	free(a->keep_fds);
	free(a->network_allow);
	free(a->network_allow_file);
	free(a->network_resolve);
	a->network_allow = a->network_allow_file = a->network_resolve = NULL;
	a->allow_write = a->allow_socket = a->protect = a->env = NULL;
	a->deny_read = a->allow_read = NULL;
	a->keep_fds = NULL;
}
