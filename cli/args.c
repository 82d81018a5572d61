/*
 * cordon(1)'s argv: commands, then options split into name and value
 * and applied by the library (cordon_set_option), which holds the one
 * table of options.
 */
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

static int fail(struct cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cli_args *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* --test-max-abi: cordon(1)'s own testing knob, not a library option. */
static int test_max_abi(struct cli_args *a, const char *v)
{
	long n;
	if (cli_parse_uint(v, 1000, &n) != 0 || n == 0)
		return fail(a, "bad --test-max-abi '%s' (want a version >= 1)", v);
	if (a->max_abi_given != NULL && n != a->max_abi)
		return fail(a,
			    "--test-max-abi given twice (%s, then %s): a later value may not "
			    "override an earlier one; give it once",
			    a->max_abi_given, v);
	if (a->max_abi_given == NULL)
		a->max_abi_given = v;
	a->max_abi = (int)n;
	return 0;
}

/* arg as an option: its long name into name ("-w" is workspace, "-h"
 * help) and the value after '=' in *inline_val. 0, or -1 when arg is no
 * option's form. */
static int split_opt(const char *arg, char *name, size_t n, const char **inline_val)
{
	*inline_val = NULL;
	if (strcmp(arg, "-w") == 0 || strcmp(arg, "-h") == 0) {
		snprintf(name, n, "%s", arg[1] == 'w' ? "workspace" : "help");
		return 0;
	}
	if (strncmp(arg, "--", 2) != 0)
		return -1;
	const char *s = arg + 2, *eq = strchr(s, '=');
	size_t len = eq != NULL ? (size_t)(eq - s) : strlen(s);
	if (len == 0 || len >= n)
		return -1;
	memcpy(name, s, len);
	name[len] = '\0';
	if (eq != NULL)
		*inline_val = eq + 1;
	return 0;
}

/* 1 when the option takes a value, 0 when not, 2 when it may be given
 * after '=' only (--explain=full), -1 when unknown. */
static int takes_value(const char *name)
{
	if (strcmp(name, "help") == 0)
		return 0;
	if (strcmp(name, "test-max-abi") == 0)
		return 1;
	int tv = cordon_option_takes_value(name);
	return tv < 0 ? -1 : tv;
}

/* Loads wait for the other options: their relative paths need the
 * workspace. Each one's name (static) and value. */
struct later {
	const char *name, *val;
};

static const char *deferred(const char *name)
{
	static const char *const loads[] = { "policy", "profile", "agent-policy" };
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		if (strcmp(name, loads[i]) == 0)
			return loads[i];
	return NULL;
}

/* One option with its value (NULL for a flag) applied: 0, 1 when it
 * asked for help, or -1. */
static int apply(struct cli_args *a, const char *name, const char *val)
{
	if (strcmp(name, "help") == 0)
		return 1;
	if (strcmp(name, "test-max-abi") == 0)
		return test_max_abi(a, val);
	if (cordon_set_option(a->c, name, val) != 0)
		return fail(a, "%s", cordon_last_error(a->c));
	long n;
	if (strcmp(name, "status-fd") == 0 && cli_parse_uint(val, 1 << 30, &n) == 0)
		a->status_fd = (int)n;
	return 0;
}

/* The options of run (a command after "--") or options (none), from
 * argv[i]; loads are kept in later[] until the others are in. 0, 1 for
 * help, or -1. */
static int parse_opts(int argc, char *const argv[], int i, struct cli_args *a, struct later *later,
		      int *nlater)
{
	int run = a->cmd == CLI_RUN;
	for (; i < argc; i++) {
		const char *arg = argv[i], *val;
		char name[48];
		if (strcmp(arg, "--") == 0) {
			if (!run)
				return fail(a, "cordon options takes no command (no '--')");
			if (i + 1 >= argc)
				return fail(a, "empty command after '--'");
			a->command = argv + i + 1;
			return 0;
		}
		int tv = split_opt(arg, name, sizeof(name), &val) == 0 ? takes_value(name) : -1;
		if (tv < 0 && (arg[0] == '-' || !run))
			return fail(a, "unknown option '%s' (see cordon %s --help)", arg,
				    run ? "run" : "options");
		if (tv < 0)
			return fail(a, "missing '--' before the command '%s'", arg);
		if (tv == 0 && val != NULL)
			return fail(a, "option '%s' takes no value", arg);
		if (tv == 1 && val == NULL) {
			if (i + 1 >= argc)
				return fail(a, "option '%s' needs a value", arg);
			val = argv[++i];
		}
		if (deferred(name) != NULL) {
			later[*nlater].name = deferred(name);
			later[(*nlater)++].val = val;
			continue;
		}
		int r = apply(a, name, val);
		if (r != 0)
			return r;
	}
	if (run)
		return fail(a,
			    "missing '--' and command (cordon run [OPTIONS] -- COMMAND [ARG...])");
	return 0;
}

static int parse_run(int argc, char *const argv[], int i, struct cli_args *a)
{
	int nlater = 0;
	struct later *later = calloc((size_t)argc, sizeof(*later));
	if (later == NULL)
		return fail(a, "out of memory");
	a->c = cordon_new();
	int r = a->c == NULL ? fail(a, "out of memory")
			     : parse_opts(argc, argv, i, a, later, &nlater);
	if (r == 1) {
		a->help_topic = a->cmd == CLI_RUN ? "run" : "options";
		a->cmd = CLI_HELP;
		nlater = r = 0;
	}
	for (int k = 0; r == 0 && k < nlater; k++)
		r = apply(a, later[k].name, later[k].val);
	free(later);
	return r;
}

static int parse_probe(int argc, char *const argv[], int i, struct cli_args *a)
{
	for (; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			a->json = 1;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			a->cmd = CLI_HELP;
			a->help_topic = "probe";
			return 0;
		}
		const char *v = NULL;
		if (strcmp(argv[i], "--test-max-abi") == 0) {
			if (i + 1 >= argc)
				return fail(a, "option '%s' needs a value", argv[i]);
			v = argv[++i];
		} else if (strncmp(argv[i], "--test-max-abi=", 15) == 0) {
			v = argv[i] + 15;
		}
		if (v == NULL)
			return fail(a, "unknown probe argument '%s' (see cordon probe --help)",
				    argv[i]);
		if (test_max_abi(a, v) != 0)
			return -1;
	}
	return 0;
}

/* cordon profile list | show NAME */
static int parse_profile(int argc, char *const argv[], struct cli_args *a)
{
	const char *act = argc > 2 ? argv[2] : "";
	if (strcmp(act, "--help") == 0 || strcmp(act, "-h") == 0) {
		a->cmd = CLI_HELP;
		a->help_topic = "profile";
		return 0;
	}
	a->profile_action = act;
	if (strcmp(act, "list") == 0 && argc == 3)
		return 0;
	if (strcmp(act, "show") == 0 && argc == 4) {
		a->profile_name = argv[3];
		if (cordon_profile_text(argv[3]) == NULL)
			return fail(a, "unknown profile '%s' (cordon profile list)", argv[3]);
		return 0;
	}
	return fail(a, "usage: cordon profile list | cordon profile show NAME");
}

/* cordon changes|diff|apply|discard [--state-dir DIR] [--drop-guarded] RUN_ID */
static int parse_held(int argc, char *const argv[], struct cli_args *a)
{
	a->held_cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *s = argv[i];
		if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
			a->cmd = CLI_HELP;
			a->help_topic = "held";
			return 0;
		}
		if (strcmp(s, "--drop-guarded") == 0 && strcmp(a->held_cmd, "apply") == 0) {
			a->drop_guarded = 1;
		} else if (strcmp(s, "--state-dir") == 0 || strncmp(s, "--state-dir=", 12) == 0) {
			const char *v = s[11] == '=' ? s + 12 : i + 1 < argc ? argv[++i] : NULL;
			if (v == NULL || v[0] == '\0')
				return fail(a, "option '--state-dir' needs a value");
			if (a->state_dir != NULL && strcmp(a->state_dir, v) != 0)
				return fail(a, "--state-dir given twice (%s, then %s)",
					    a->state_dir, v);
			a->state_dir = v;
		} else if (s[0] == '-' || a->run_id != NULL) {
			return fail(a,
				    "unexpected '%s' (usage: cordon %s [--state-dir DIR]%s RUN_ID)",
				    s, a->held_cmd,
				    strcmp(a->held_cmd, "apply") == 0 ? " [--drop-guarded]" : "");
		} else {
			a->run_id = s;
		}
	}
	if (a->run_id == NULL)
		return fail(a, "cordon %s needs a RUN_ID (the run id of a --review run)",
			    a->held_cmd);
	return 0;
}

int cli_parse(int argc, char *const argv[], struct cli_args *a)
{
	memset(a, 0, sizeof(*a));
	a->status_fd = -1;
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
	if (strcmp(cmd, "run") == 0 || strcmp(cmd, "options") == 0) {
		a->cmd = cmd[0] == 'r' ? CLI_RUN : CLI_OPTIONS;
		return parse_run(argc, argv, 2, a);
	}
	if (strcmp(cmd, "probe") == 0) {
		a->cmd = CLI_PROBE;
		return parse_probe(argc, argv, 2, a);
	}
	if (strcmp(cmd, "changes") == 0 || strcmp(cmd, "diff") == 0 || strcmp(cmd, "apply") == 0 ||
	    strcmp(cmd, "discard") == 0) {
		a->cmd = CLI_HELD;
		return parse_held(argc, argv, a);
	}
	if (strcmp(cmd, "profile") == 0) {
		a->cmd = CLI_PROFILE;
		return parse_profile(argc, argv, a);
	}
	return fail(a, "unknown command '%s' (try 'cordon --help')", cmd);
}

void cli_args_free(struct cli_args *a)
{
	cordon_free(a->c);
	a->c = NULL;
}
