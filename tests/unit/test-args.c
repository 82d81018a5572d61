/* Unit tests for the command-line parser (cli/args.c). */
#include "args.h"
#include "handle.h"
#include "options.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* argv with argv[0] = "cordon", NULL-terminated. */
#define ARGV(...) ((char *[]){ "cordon", __VA_ARGS__, NULL })

static int parse(struct cli_args *a, char **argv)
{
	int argc = 0;
	while (argv[argc] != NULL)
		argc++;
	return cli_parse(argc, argv, a);
}

/* Parse must fail with a one-line message containing want. */
static void fails(char **argv, const char *want, const char *name)
{
	struct cli_args a;
	int r = parse(&a, argv);
	int one_line = a.err[0] != '\0' && strchr(a.err, '\n') == NULL;
	ok(r == -1 && one_line && strstr(a.err, want) != NULL, "error: %s", name);
	if (r != -1 || strstr(a.err, want) == NULL)
		diag("got %d '%s', want -1 with '%s'", r, a.err, want);
	cli_args_free(&a);
}

static int command_is(struct cli_args *a, const char *const *want)
{
	size_t i;
	if (a->command == NULL)
		return 0;
	for (i = 0; want[i] != NULL; i++)
		if (a->command[i] == NULL || strcmp(a->command[i], want[i]) != 0)
			return 0;
	return a->command[i] == NULL;
}

static void test_defaults(void)
{
	struct cli_args a;
	const char *const cmd[] = { "true", NULL };
	/* a.command points into argv: it must outlive the checks. */
	char **argv = ARGV("run", "--", "true");

	is_int(parse(&a, argv), 0, "run -- true parses");
	is_int(a.cmd, CLI_RUN, "default: command is run");
	ok(a.c->workspace_opt == NULL && a.c->state_dir_opt == NULL && a.c->status_file == NULL,
	   "default: no workspace, state dir or status file");
	is_int(a.c->mode, CORDON_MODE_AUTO, "default: sandbox auto");
	is_int(a.c->caches, CORDON_CACHE_DEFAULT, "default: caches");
	is_int(a.status_fd, -1, "default: no status fd");
	is_int(a.c->timeout_ms, 0, "default: no timeout");
	ok(a.c->allow_write.n == 0 && a.c->protect.n == 0 && a.c->envspec.n == 0 && a.c->nkeep == 0,
	   "default: empty lists");
	ok(!a.c->clean_env && !a.c->allow_broad && a.c->default_protect && a.max_abi == 0 &&
		   !a.json,
	   "default: flags off");
	ok(a.help_topic == NULL, "default: no help topic");
	ok(command_is(&a, cmd), "default: command is [true]");
	cli_args_free(&a);
}

static void test_value_options(void)
{
	struct cli_args a;
	const char *const cmd[] = { "x", NULL };
	char **flags =
		ARGV("run", "--clean-env", "--allow-broad", "--no-default-protect", "--", "x");

	is_int(parse(&a, ARGV("run", "--workspace", "/w", "--", "x")), 0, "--workspace V");
	is_str(a.c->workspace_opt, "/w", "--workspace V sets workspace");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--workspace=/w2", "--", "x")), 0, "--workspace=V");
	is_str(a.c->workspace_opt, "/w2", "--workspace=V sets workspace");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "-w", "/w3", "--", "x")), 0, "-w V");
	is_str(a.c->workspace_opt, "/w3", "-w V sets workspace");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "-w", "/a", "--workspace=/a", "--", "x")), 0,
	       "-w and --workspace, the same value");
	is_str(a.c->workspace_opt, "/a", "... sets it");
	cli_args_free(&a);
	fails(ARGV("run", "--workspace=", "--", "x"), "empty workspace", "--workspace= (empty)");
	/* --cwd is resolved at once (cordon_set_cwd): directories that exist. */
	is_int(parse(&a, ARGV("run", "--cwd", "/", "--", "x")), 0, "--cwd V");
	ok(a.c->cwd_opt != NULL && strcmp(a.c->cwd_opt, "/") == 0 && a.c->workspace_opt == NULL,
	   "--cwd V sets cwd, not the workspace");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--cwd=/usr/.", "--", "x")), 0, "--cwd=V");
	is_str(a.c->cwd_opt, "/usr", "--cwd=V sets cwd (canonical)");
	cli_args_free(&a);
	fails(ARGV("run", "--cwd", "/nonexistent-cordon-dir", "--", "x"),
	      "working directory /nonexistent-cordon-dir", "--cwd of a missing directory");

	is_int(parse(&a, ARGV("run", "--sandbox", "required", "--", "x")), 0, "--sandbox V");
	is_int(a.c->mode, CORDON_MODE_REQUIRED, "--sandbox required");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--sandbox=off", "--", "x")), 0, "--sandbox=V");
	is_int(a.c->mode, CORDON_MODE_OFF, "--sandbox=off");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--sandbox=off", "--sandbox", "off", "--", "x")), 0,
	       "--sandbox twice, the same value");
	is_int(a.c->mode, CORDON_MODE_OFF, "... sets it");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--allow-write", "/a", "--allow-write=/b", "--", "x")), 0,
	       "--allow-write both forms");
	ok(a.c->allow_write.n == 2 && strcmp(a.c->allow_write.v[0], "/a") == 0 &&
		   strcmp(a.c->allow_write.v[1], "/b") == 0,
	   "--allow-write collects [/a, /b] in order");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--allow-socket", "/s", "--allow-socket=/d", "--", "x")), 0,
	       "--allow-socket both forms");
	ok(a.c->allow_socket.n == 2 && strcmp(a.c->allow_socket.v[0], "/s") == 0 &&
		   strcmp(a.c->allow_socket.v[1], "/d") == 0,
	   "--allow-socket collects [/s, /d] in order");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--allow-socket")), -1, "--allow-socket without a value");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--pass-file", "/p", "--pass-file=/q", "--", "x")), 0,
	       "--pass-file both forms");
	ok(a.c->pass_file.n == 2 && strcmp(a.c->pass_file.v[0], "/p") == 0 &&
		   strcmp(a.c->pass_file.v[1], "/q") == 0,
	   "--pass-file collects [/p, /q] in order");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--pass-file")), -1, "--pass-file without a value");
	cli_args_free(&a);

	is_int(parse(&a,
		     ARGV("run", "--protect", "/p", "--protect=/q", "--protect", "/r", "--", "x")),
	       0, "--protect both forms");
	ok(a.c->protect.n == 3 && strcmp(a.c->protect.v[0], "/p") == 0 &&
		   strcmp(a.c->protect.v[1], "/q") == 0 && strcmp(a.c->protect.v[2], "/r") == 0,
	   "--protect collects [/p, /q, /r] in order");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--allow-agent-config", ".claude",
			      "--allow-agent-config=.vscode", "--", "x")),
	       0, "--allow-agent-config both forms");
	ok(a.c->allow_agent_config.n == 2 && strcmp(a.c->allow_agent_config.v[0], ".claude") == 0 &&
		   strcmp(a.c->allow_agent_config.v[1], ".vscode") == 0,
	   "--allow-agent-config collects [.claude, .vscode] in order");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--allow-agent-config")), -1,
	       "--allow-agent-config without a value");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--cache", "npm,pip", "--", "x")), 0, "--cache V");
	is_int(a.c->caches, CORDON_CACHE_NPM | CORDON_CACHE_PIP, "--cache npm,pip");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--cache=cargo", "--", "x")), 0, "--cache=V");
	is_int(a.c->caches, CORDON_CACHE_CARGO, "--cache=cargo");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--cache=playwright,cargo,go,npm,pip", "--", "x")), 0,
	       "--cache all five");
	is_int(a.c->caches, CORDON_CACHE_DEFAULT, "--cache all five is the default mask");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--cache", "yarn,huggingface,gem", "--", "x")), 0,
	       "--cache of opt-in tools");
	is_int(a.c->caches, CORDON_CACHE_YARN | CORDON_CACHE_HUGGINGFACE | CORDON_CACHE_GEM,
	       "--cache yarn,huggingface,gem");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--no-caches", "--", "x")), 0, "--no-caches");
	is_int(a.c->caches, 0, "--no-caches sets caches 0");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--no-caches", "--no-caches", "--", "x")), 0,
	       "--no-caches twice");
	is_int(a.c->caches, 0, "... sets caches 0");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--state-dir", "/s", "--", "x")), 0, "--state-dir V");
	is_str(a.c->state_dir_opt, "/s", "--state-dir V sets it");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--state-dir=/s2", "--", "x")), 0, "--state-dir=V");
	is_str(a.c->state_dir_opt, "/s2", "--state-dir=V sets it");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--", "x")), 0, "no --on-tamper");
	is_int(a.c->on_tamper, CORDON_TAMPER_DEFAULT, "no --on-tamper: the mode's default");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--on-tamper", "neutralise", "--", "x")), 0,
	       "--on-tamper neutralise");
	is_int(a.c->on_tamper, CORDON_TAMPER_NEUTRALISE, "--on-tamper neutralise sets it");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--on-tamper=fail", "--", "x")), 0, "--on-tamper=fail");
	is_int(a.c->on_tamper, CORDON_TAMPER_FAIL, "--on-tamper=fail sets it");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--on-tamper", "maybe", "--", "x")), -1, "--on-tamper maybe");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--status-fd", "3", "--", "x")), 0, "--status-fd V");
	is_int(a.status_fd, 3, "--status-fd 3");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--status-fd=0", "--", "x")), 0, "--status-fd=V");
	is_int(a.status_fd, 0, "--status-fd=0");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--status-file", "/f", "--", "x")), 0, "--status-file V");
	is_str(a.c->status_file, "/f", "--status-file V sets it");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--status-file=/g", "--", "x")), 0, "--status-file=V");
	is_str(a.c->status_file, "/g", "--status-file=V sets it");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--timeout", "30", "--", "x")), 0, "--timeout V");
	is_int(a.c->timeout_ms, 30000, "--timeout 30 is 30000 ms");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--timeout=1.5", "--", "x")), 0, "--timeout=V");
	is_int(a.c->timeout_ms, 1500, "--timeout=1.5 is 1500 ms");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--timeout", "0.001", "--", "x")), 0, "--timeout 0.001");
	is_int(a.c->timeout_ms, 1, "--timeout 0.001 is 1 ms");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--env", "A=1", "--env=B", "--env", "C=x=y", "--", "x")), 0,
	       "--env both forms");
	ok(a.c->envspec.n == 3 && strcmp(a.c->envspec.v[0], "A=1") == 0 &&
		   strcmp(a.c->envspec.v[1], "B") == 0 && strcmp(a.c->envspec.v[2], "C=x=y") == 0,
	   "--env collects [A=1, B, C=x=y] in order");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--keep-fd", "3", "--keep-fd=7", "--", "x")), 0,
	       "--keep-fd both forms");
	ok(a.c->nkeep == 2 && a.c->keep_fds[0] == 3 && a.c->keep_fds[1] == 7,
	   "--keep-fd collects [3, 7]");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--test-max-abi", "2", "--", "x")), 0, "--test-max-abi V");
	is_int(a.max_abi, 2, "--test-max-abi 2");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--test-max-abi=4", "--", "x")), 0, "--test-max-abi=V");
	is_int(a.max_abi, 4, "--test-max-abi=4");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--", "x")), 0, "no --scratch-home");
	is_int(a.c->scratch_home, 0, "the scratch home is off by default");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--scratch-home", "--", "x")), 0, "--scratch-home");
	is_int(a.c->scratch_home, 1, "--scratch-home sets it");
	cli_args_free(&a);
	fails(ARGV("run", "--scratch-home=yes", "--", "x"), "takes no value", "--scratch-home=");
	is_int(parse(&a, ARGV("run", "--", "x")), 0, "no --allow-userns");
	is_int(a.c->allow_userns, 0, "user namespaces are refused by default");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--allow-userns", "--allow-userns", "--", "x")), 0,
	       "--allow-userns (twice)");
	is_int(a.c->allow_userns, 1, "--allow-userns sets it");
	cli_args_free(&a);
	fails(ARGV("run", "--allow-userns=1", "--", "x"), "takes no value", "--allow-userns=");

	is_int(parse(&a, flags), 0, "flags");
	ok(a.c->clean_env == 1 && a.c->allow_broad == 1 && !a.c->default_protect,
	   "--clean-env --allow-broad --no-default-protect set");
	ok(command_is(&a, cmd), "flags: command is [x]");
	cli_args_free(&a);
}

static void test_dashdash(void)
{
	struct cli_args a;
	const char *const cmd1[] = { "cmd", "--workspace", "/x", "--", "-w", NULL };
	const char *const cmd2[] = { "true", NULL };
	const char *const cmd3[] = { "--help", NULL };
	char **argv1 = ARGV("run", "--", "cmd", "--workspace", "/x", "--", "-w");
	char **argv2 = ARGV("run", "--workspace", "--", "--", "true");
	char **argv3 = ARGV("run", "--", "--help");

	is_int(parse(&a, argv1), 0, "options after '--' belong to the command");
	ok(command_is(&a, cmd1) && a.c->workspace_opt == NULL,
	   "command keeps its own options and '--'");
	cli_args_free(&a);

	is_int(parse(&a, argv2), 0, "a value option takes '--' as its value");
	is_str(a.c->workspace_opt, "--", "workspace is '--'");
	ok(command_is(&a, cmd2), "command after the second '--'");
	cli_args_free(&a);

	is_int(parse(&a, argv3), 0, "--help after '--' is the command");
	ok(a.cmd == CLI_RUN && command_is(&a, cmd3), "command is [--help]");
	cli_args_free(&a);

	fails(ARGV("run"), "missing '--'", "run with nothing");
	fails(ARGV("run", "true"), "missing '--' before the command 'true'", "missing '--'");
	fails(ARGV("run", "-w", "/x", "ls", "-l"), "'ls'", "missing '--' after options");
	fails(ARGV("run", "--"), "empty command after '--'", "empty command after '--'");
	fails(ARGV("run", "-w", "/x", "--"), "empty command", "empty command after options");
	fails(ARGV("run", "--clean-env"), "missing '--'", "flags only");
}

static void test_errors(void)
{
	fails(ARGV("run", "--bogus", "--", "x"), "unknown option '--bogus'", "unknown option");
	fails(ARGV("run", "--bogus=1", "--", "x"), "unknown option '--bogus=1'",
	      "unknown option with value");
	fails(ARGV("run", "-x", "--", "x"), "unknown option '-x'", "unknown short option");
	fails(ARGV("run", "-", "--", "x"), "unknown option '-'", "lone dash");
	fails(ARGV("run", "-w=/x", "--", "x"), "unknown option '-w=/x'", "-w=V is not a form");
	fails(ARGV("run", "--work", "/x", "--", "x"), "unknown option '--work'",
	      "no prefix abbreviation");
	fails(ARGV("run", "--json", "--", "x"), "unknown option '--json'", "--json is probe-only");
	fails(ARGV("run", "--=x", "--", "x"), "unknown option", "--=x");

	fails(ARGV("run", "--sandbox", "maybe", "--", "x"), "unknown --sandbox mode 'maybe'",
	      "unknown sandbox mode");
	fails(ARGV("run", "--sandbox=", "--", "x"), "unknown --sandbox mode", "empty sandbox mode");
	fails(ARGV("run", "--sandbox", "AUTO", "--", "x"), "unknown --sandbox mode",
	      "sandbox mode is case-sensitive");

	fails(ARGV("run", "--cache", "npm,bogus", "--", "x"), "bad --cache list 'npm,bogus'",
	      "unknown cache name");
	fails(ARGV("run", "--cache=", "--", "x"), "bad --cache list", "empty cache list");
	fails(ARGV("run", "--cache", "npm,", "--", "x"), "bad --cache list", "trailing comma");
	fails(ARGV("run", "--cache", ",npm", "--", "x"), "bad --cache list", "leading comma");
	fails(ARGV("run", "--cache", "npm pip", "--", "x"), "bad --cache list", "space separated");

	static const char *const bad_timeouts[] = {
		"abc", "0",  "0.0", "-1",   "0.0001", "",     ".",	   "1.5s",
		"1e3", " 1", "1 ",  "1..5", "+1",     "0x10", "100000001",
	};
	for (size_t i = 0; i < sizeof(bad_timeouts) / sizeof(bad_timeouts[0]); i++) {
		char name[64];
		snprintf(name, sizeof(name), "--timeout '%s' rejected", bad_timeouts[i]);
		fails(ARGV("run", "--timeout", (char *)bad_timeouts[i], "--", "x"), "bad --timeout",
		      name);
	}

	fails(ARGV("run", "--keep-fd", "-1", "--", "x"), "bad --keep-fd '-1'", "negative keep-fd");
	fails(ARGV("run", "--keep-fd=x", "--", "x"), "bad --keep-fd 'x'", "non-numeric keep-fd");
	fails(ARGV("run", "--keep-fd=", "--", "x"), "bad --keep-fd", "empty keep-fd");
	fails(ARGV("run", "--keep-fd", "1073741825", "--", "x"), "bad --keep-fd",
	      "keep-fd above 2^30");
	fails(ARGV("run", "--status-fd", "x1", "--", "x"), "bad --status-fd 'x1'", "bad status-fd");
	fails(ARGV("run", "--status-file=", "--", "x"), "empty --status-file", "empty status-file");
	fails(ARGV("run", "--test-max-abi", "0", "--", "x"), "bad --test-max-abi",
	      "test-max-abi 0");
	fails(ARGV("run", "--test-max-abi=1001", "--", "x"), "bad --test-max-abi",
	      "test-max-abi above 1000");

	fails(ARGV("run", "--env", "", "--", "x"), "bad --env ''", "--env empty");
	fails(ARGV("run", "--env=", "--", "x"), "bad --env ''", "--env= empty");
	fails(ARGV("run", "--env", "=x", "--", "x"), "bad --env '=x'", "--env =x");

	fails(ARGV("run", "--no-caches=1", "--", "x"), "option '--no-caches=1' takes no value",
	      "--no-caches=1");
	fails(ARGV("run", "--clean-env=yes", "--", "x"), "takes no value", "--clean-env=yes");
	fails(ARGV("run", "--allow-broad=", "--", "x"), "takes no value", "--allow-broad=");
	fails(ARGV("run", "--no-default-protect=0", "--", "x"), "takes no value",
	      "--no-default-protect=0");

	fails(ARGV("run", "--workspace"), "option '--workspace' needs a value",
	      "value option at the end");
	fails(ARGV("run", "-w"), "option '-w' needs a value", "-w at the end");
	fails(ARGV("run", "--cwd"), "option '--cwd' needs a value", "--cwd at the end");
	fails(ARGV("run", "--timeout"), "needs a value", "--timeout at the end");

	fails(ARGV("frob"), "unknown command 'frob'", "unknown command");
	fails(ARGV("RUN"), "unknown command 'RUN'", "commands are case-sensitive");
	fails(ARGV(""), "unknown command ''", "empty command");

	struct cli_args a;
	char *argv0[] = { "cordon", NULL };
	int r = cli_parse(1, argv0, &a);
	ok(r == -1 && strstr(a.err, "missing command") != NULL, "error: no command at all");
	cli_args_free(&a);

	/* An overlong argument is cut to fit, never overflows err. */
	char *big = malloc(2000);
	if (big == NULL)
		abort();
	memset(big, 'z', 1999);
	big[1999] = '\0';
	r = parse(&a, ARGV("run", "--sandbox", big, "--", "x"));
	ok(r == -1 && strlen(a.err) == sizeof(a.err) - 1 && strstr(a.err, "unknown --sandbox"),
	   "error: an overlong value is truncated to fit");
	cli_args_free(&a);
	free(big);
}

static void test_timeout(void)
{
	static const struct {
		const char *s;
		uint64_t ms;
	} good[] = {
		{ "1", 1000 },
		{ "30", 30000 },
		{ "1.5", 1500 },
		{ "0.001", 1 },
		{ "0.0015", 1 },
		{ ".25", 250 },
		{ "2.", 2000 },
		{ "0.999", 999 },
		{ "007", 7000 },
		{ "1.2345", 1234 },
		{ "100000000", 100000000000ULL },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t ms = 0;
		int r = opt_parse_timeout(good[i].s, &ms);
		ok(r == 0 && ms == good[i].ms, "timeout '%s' is %llu ms", good[i].s,
		   (unsigned long long)good[i].ms);
	}
	uint64_t ms = 42;
	is_int(opt_parse_timeout(NULL, &ms), -1, "timeout NULL rejected");
	is_int(opt_parse_timeout("99999999999999999999", &ms), -1, "timeout overflow rejected");
}

static void test_uint(void)
{
	long v = -7;

	ok(cli_parse_uint("0", 10, &v) == 0 && v == 0, "uint: 0");
	ok(cli_parse_uint("10", 10, &v) == 0 && v == 10, "uint: max itself");
	ok(cli_parse_uint("007", 10, &v) == 0 && v == 7, "uint: leading zeros");
	ok(cli_parse_uint("999999999999999999", 999999999999999999L, &v) == 0 &&
		   v == 999999999999999999L,
	   "uint: 18 digits");
	v = -7;
	is_int(cli_parse_uint("11", 10, &v), -1, "uint: above max");
	is_int(cli_parse_uint("1000000000000000000", 2000000000000000000L, &v), -1,
	       "uint: 19 digits rejected");
	is_int(cli_parse_uint("", 10, &v), -1, "uint: empty");
	is_int(cli_parse_uint(NULL, 10, &v), -1, "uint: NULL");
	is_int(cli_parse_uint("-1", 10, &v), -1, "uint: negative");
	is_int(cli_parse_uint("+1", 10, &v), -1, "uint: plus sign");
	is_int(cli_parse_uint(" 1", 10, &v), -1, "uint: leading space");
	is_int(cli_parse_uint("1x", 10, &v), -1, "uint: trailing junk");
	is_int(v, -7, "uint: out untouched on failure");
}

static void test_help_probe(void)
{
	struct cli_args a;

	is_int(parse(&a, ARGV("--help")), 0, "--help");
	ok(a.cmd == CLI_HELP && a.help_topic == NULL, "--help: general help");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("-h")), 0, "-h");
	ok(a.cmd == CLI_HELP && a.help_topic == NULL, "-h: general help");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("help")), 0, "help");
	ok(a.cmd == CLI_HELP && a.help_topic == NULL, "help: general help");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("--version")), 0, "--version");
	is_int(a.cmd, CLI_VERSION, "--version: version");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("run", "--help")), 0, "run --help");
	ok(a.cmd == CLI_HELP && a.help_topic != NULL && strcmp(a.help_topic, "run") == 0,
	   "run --help: help on run");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "-w", "/x", "--cache", "npm", "-h", "--", "y")), 0,
	       "run ... -h ...");
	ok(a.cmd == CLI_HELP && a.help_topic != NULL && strcmp(a.help_topic, "run") == 0,
	   "-h among run options: help on run");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("probe")), 0, "probe");
	ok(a.cmd == CLI_PROBE && a.json == 0, "probe: text output");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("probe", "--json")), 0, "probe --json");
	ok(a.cmd == CLI_PROBE && a.json == 1, "probe --json: JSON output");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("probe", "--test-max-abi", "3", "--json")), 0,
	       "probe --test-max-abi 3 --json");
	ok(a.cmd == CLI_PROBE && a.json == 1 && a.max_abi == 3, "probe: both set");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("probe", "--test-max-abi=2")), 0, "probe --test-max-abi=2");
	is_int(a.max_abi, 2, "probe: --test-max-abi=2");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("probe", "--help")), 0, "probe --help");
	ok(a.cmd == CLI_HELP && a.help_topic != NULL && strcmp(a.help_topic, "probe") == 0,
	   "probe --help: help on probe");
	cli_args_free(&a);

	fails(ARGV("probe", "--bogus"), "unknown probe argument '--bogus'", "probe --bogus");
	fails(ARGV("probe", "-w", "/x"), "unknown probe argument '-w'", "probe -w");
	fails(ARGV("probe", "--json=1"), "unknown probe argument '--json=1'", "probe --json=1");
	fails(ARGV("probe", "extra"), "unknown probe argument 'extra'", "probe extra");
	fails(ARGV("probe", "--test-max-abi"), "needs a value", "probe --test-max-abi at the end");
	fails(ARGV("probe", "--test-max-abi", "0"), "bad --test-max-abi", "probe bad max abi");
}

/* --max-procs, --max-memory, --max-tmp and their size parser. */
static void test_bounds(void)
{
	struct cli_args a;
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {
		{ "1048576", 1048576 },	    { "1M", 1 << 20 },	  { "1m", 1 << 20 },
		{ "512M", 512ULL << 20 },   { "2G", 2ULL << 30 }, { "2GiB", 2ULL << 30 },
		{ "2GB", 2ULL << 30 },	    { "1024K", 1 << 20 }, { "3T", 3ULL << 40 },
		{ "4194304T", 1ULL << 62 }, { "0001M", 1 << 20 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 0;
		int r = opt_parse_size(good[i].s, OPT_SIZE_MIN, OPT_SIZE_MAX, &v);
		ok(r == 0 && v == good[i].v, "size '%s' is %llu", good[i].s,
		   (unsigned long long)good[i].v);
	}
	static const char *const bad[] = { "",
					   "0",
					   "-1",
					   "1.5G",
					   "12X",
					   "1MM",
					   "M",
					   " 1M",
					   "1M ",
					   "1Mi",
					   "1023K",
					   "4194305T",
					   "99999999999999999999",
					   "18446744073709551617",
					   "1e6",
					   "0x100000" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		ok(opt_parse_size(bad[i], OPT_SIZE_MIN, OPT_SIZE_MAX, &v) == -1 && v == 7,
		   "size '%s' rejected", bad[i]);
	}
	is_int(opt_parse_size(NULL, OPT_SIZE_MIN, OPT_SIZE_MAX, &(uint64_t){ 0 }), -1,
	       "size NULL rejected");

	is_int(parse(&a, ARGV("run", "--max-procs", "50", "--max-memory=512M", "--max-tmp", "1G",
			      "--", "x")),
	       0, "--max-procs, --max-memory, --max-tmp");
	ok(a.c->max_procs == 50 && a.c->max_memory == 512ULL << 20 && a.c->max_tmp == 1ULL << 30,
	   "... their values");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--max-procs", "50", "--max-procs", "50", "--", "x")), 0,
	       "--max-procs twice with the same value");
	cli_args_free(&a);
	static const char *const bad_procs[] = { "0", "-1", "x", "1K", "4194305", "1.5", "" };
	for (size_t i = 0; i < sizeof(bad_procs) / sizeof(bad_procs[0]); i++) {
		char name[64];
		snprintf(name, sizeof(name), "--max-procs '%s' rejected", bad_procs[i]);
		fails(ARGV("run", "--max-procs", (char *)bad_procs[i], "--", "x"),
		      "bad --max-procs", name);
	}
	fails(ARGV("run", "--max-memory", "0", "--", "x"), "bad --max-memory", "--max-memory 0");
	fails(ARGV("run", "--max-memory", "512Q", "--", "x"), "bad --max-memory", "a bad unit");
	fails(ARGV("run", "--max-tmp", "100K", "--", "x"), "bad --max-tmp", "--max-tmp below 1M");
	fails(ARGV("run", "--max-tmp", "99999999999T", "--", "x"), "bad --max-tmp",
	      "--max-tmp past the bound");
	fails(ARGV("run", "--max-procs", "50", "--max-procs", "60", "--", "x"),
	      "--max-procs given twice (50, then 60)", "--max-procs twice");
	is_int(parse(&a, ARGV("run", "--max-tmp", "1G", "--max-tmp=1024M", "--", "x")), 0,
	       "--max-tmp 1G then 1024M: the same size");
	is_int(a.c->max_tmp, 1ULL << 30, "... is 1G");
	cli_args_free(&a);
	fails(ARGV("run", "--max-memory", "1G", "--max-memory=2G", "--", "x"),
	      "--max-memory given twice", "--max-memory twice");
	fails(ARGV("run", "--max-tmp=1G", "--max-tmp", "1024M", "--max-tmp", "2G", "--", "x"),
	      "--max-tmp given twice", "--max-tmp again, another value");
	fails(ARGV("run", "--max-memory"), "needs a value", "--max-memory at the end");
}

/* Single-valued options given twice: the same value is harmless, another
 * is refused (a later flag may not undo a wrapper's earlier one). */
static void test_repeats(void)
{
	struct cli_args a;
	static const struct {
		const char *first, *second, *want;
	} differ[] = {
		{ "--sandbox=required", "--sandbox=off",
		  "--sandbox given twice (required, then off): a later value may not override "
		  "an earlier one; give it once" },
		{ "--sandbox=off", "--sandbox=required",
		  "--sandbox given twice (off, then required)" },
		{ "--sandbox=auto", "--sandbox=required",
		  "--sandbox given twice (auto, then required)" },
		{ "--network=off", "--network=on", "--network given twice (off, then on)" },
		{ "-w", "-w", "--workspace given twice (/ws-a, then /ws-b)" },
		{ "--workspace=/ws-a", "--workspace=ws-a",
		  "--workspace given twice (/ws-a, then ws-a)" },
		{ "--cwd=/", "--cwd=/usr", "--cwd given twice (/, then /usr)" },
		{ "--state-dir=/s1", "--state-dir=/s2", "--state-dir given twice (/s1, then /s2)" },
		{ "--status-file=/f1", "--status-file=/f2",
		  "--status-file given twice (/f1, then /f2)" },
		{ "--status-fd=3", "--status-fd=4", "--status-fd given twice (3, then 4)" },
		{ "--timeout=30", "--timeout=3600", "--timeout given twice (30, then 3600)" },
		{ "--on-tamper=fail", "--on-tamper=neutralise",
		  "--on-tamper given twice (fail, then neutralise)" },
		{ "--max-procs=10", "--max-procs=1000", "--max-procs given twice (10, then 1000)" },
		{ "--max-memory=1G", "--max-memory=8G", "--max-memory given twice (1G, then 8G)" },
		{ "--max-tmp=1G", "--max-tmp=2G", "--max-tmp given twice (1G, then 2G)" },
		{ "--cache=npm", "--cache=npm,pip", "--cache given twice (npm, then npm,pip)" },
		{ "--cache=pip", "--no-caches",
		  "--cache/--no-caches given twice (pip, then --no-caches)" },
		{ "--no-caches", "--cache=npm",
		  "--cache/--no-caches given twice (--no-caches, then npm)" },
		{ "--test-max-abi=2", "--test-max-abi=5",
		  "--test-max-abi given twice (2, then 5)" },
	};
	for (size_t i = 0; i < sizeof(differ) / sizeof(differ[0]); i++) {
		char name[128];
		snprintf(name, sizeof(name), "%s then %s: refused", differ[i].first,
			 differ[i].second);
		if (strcmp(differ[i].first, "-w") == 0)
			fails(ARGV("run", "-w", "/ws-a", "-w", "/ws-b", "--", "x"), differ[i].want,
			      name);
		else
			fails(ARGV("run", (char *)differ[i].first, (char *)differ[i].second, "--",
				   "x"),
			      differ[i].want, name);
	}
	fails(ARGV("run", "--network", "off", "--allow-write", "/a", "--network", "on", "--", "x"),
	      "--network given twice (off, then on)", "--network again after other options");
	fails(ARGV("run", "--sandbox", "required", "--sandbox", "required", "--sandbox", "off",
		   "--", "x"),
	      "--sandbox given twice (required, then off)", "a third, different --sandbox");
	fails(ARGV("probe", "--test-max-abi", "1", "--test-max-abi=3"),
	      "--test-max-abi given twice (1, then 3)", "probe: --test-max-abi twice");

	/* The same value again, in any spelling that parses to it. */
	is_int(parse(&a,
		     ARGV("run", "--sandbox", "required", "--network=off", "-w", "/w",
			  "--workspace", "/w", "--network", "off", "--sandbox=required",
			  "--state-dir", "/s", "--state-dir=/s", "--status-file", "/f",
			  "--status-file", "/f", "--status-fd", "3", "--status-fd", "03",
			  "--timeout", "1", "--timeout=1.000", "--on-tamper", "fail", "--on-tamper",
			  "fail", "--cache", "npm,pip", "--cache", "pip,npm", "--max-memory", "1G",
			  "--max-memory", "1GiB", "--cwd", "/", "--cwd=/", "--", "x")),
	       0, "every single-valued option twice with the same value");
	ok(a.c->mode == CORDON_MODE_REQUIRED && a.c->network == CORDON_NETWORK_OFF &&
		   strcmp(a.c->workspace_opt, "/w") == 0 && strcmp(a.c->state_dir_opt, "/s") == 0 &&
		   strcmp(a.c->status_file, "/f") == 0 && a.status_fd == 3 &&
		   a.c->timeout_ms == 1000 && a.c->on_tamper == CORDON_TAMPER_FAIL &&
		   a.c->caches == (CORDON_CACHE_NPM | CORDON_CACHE_PIP) &&
		   a.c->max_memory == 1ULL << 30 && strcmp(a.c->cwd_opt, "/") == 0,
	   "... and the values are those");
	cli_args_free(&a);

	/* Flags without a value: the same switch twice. */
	is_int(parse(&a, ARGV("run", "--clean-env", "--clean-env", "--allow-broad", "--allow-broad",
			      "--explain", "--explain", "--scratch-home", "--scratch-home",
			      "--no-default-protect", "--no-default-protect",
			      "--no-default-deny-read", "--no-default-deny-read", "--", "x")),
	       0, "flags twice");
	ok(a.c->clean_env && a.c->allow_broad && a.c->explain && a.c->scratch_home &&
		   !a.c->default_protect && !a.c->default_deny_read,
	   "... each set");
	cli_args_free(&a);

	/* --explain (short), =short, =full: the fuller one holds. */
	is_int(parse(&a, ARGV("run", "--explain", "--", "x")), 0, "--explain");
	is_int(a.c->explain, 1, "... short");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--explain=full", "--explain", "--", "x")), 0,
	       "--explain=full, then --explain");
	is_int(a.c->explain, 2, "... full holds");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--explain=short", "--", "x")), 0, "--explain=short");
	is_int(a.c->explain, 1, "... short");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--explain=all", "--", "x")), -1, "--explain=all: refused");
	cli_args_free(&a);

	/* Multi-valued options keep every value. */
	is_int(parse(&a, ARGV("run", "--deny-read", "/d1", "--deny-read", "/d2", "--allow-read",
			      "/r1", "--allow-read", "/r2", "--env", "A=1", "--env", "A=2",
			      "--keep-fd", "3", "--keep-fd", "3", "--", "x")),
	       0, "multi-valued options repeated");
	ok(a.c->deny_read.n == 2 && a.c->allow_read.n == 2 && a.c->envspec.n == 2 &&
		   a.c->nkeep == 1,
	   "... accumulate (--env: the last for a name wins later, in cordon_add_env; a kept fd "
	   "once)");
	cli_args_free(&a);
}

/* The options text of a's handle has this whole line. */
static int has_line(const struct cli_args *a, const char *line)
{
	char *t = cordon_options_text(a->c);
	size_t n = strlen(line);
	int found = 0;
	for (const char *p = t; p != NULL && !found && (p = strstr(p, line)) != NULL; p += n)
		found = (p == t || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0');
	free(t);
	return found;
}

/* --network allow=LIST (repeatable, the lists add up), the file form and
 * the allow-list's settings; on, off and allow do not mix, and the
 * settings need the list (checked when the run begins: a policy file may
 * bring the list). */
static void test_network_allow(void)
{
	struct cli_args a;
	char file[] = "/tmp/cordon-test-args-XXXXXX";
	int fd = mkstemp(file);
	if (fd < 0 || write(fd, "c.test\n", 7) != 7)
		abort();
	close(fd);
	int r = parse(&a,
		      ARGV("run", "--network", "allow=a.test,@npm", "--network=allow=b.test",
			   "--network-allow-file", file, "--network-resolve", "a.test=127.0.0.1",
			   "--network-allow-local", "--network-allow-http", "--", "x"));
	ok(r == 0 && a.c->network == CORDON_NETWORK_ALLOW &&
		   has_line(&a, "network allow=a.test,@npm") &&
		   has_line(&a, "network allow=b.test") &&
		   has_line(&a, "network-resolve a.test=127.0.0.1") &&
		   has_line(&a, "network-allow-local") && has_line(&a, "network-allow-http") &&
		   options_check(a.c) == 0,
	   "--network allow= twice, the file, a resolve entry, local and http");
	cli_args_free(&a);
	r = parse(&a, ARGV("run", "--network-allow-file", file, "--", "x"));
	ok(r == 0 && a.c->network == CORDON_NETWORK_ALLOW && !has_line(&a, "network allow=a.test"),
	   "--network-allow-file alone: the network is allow");
	cli_args_free(&a);
	fails(ARGV("run", "--network", "off", "--network", "allow=a.test", "--", "x"),
	      "--network given twice (off, then allow=a.test)", "off, then allow");
	fails(ARGV("run", "--network", "allow=a.test", "--network", "on", "--", "x"),
	      "--network given twice (allow=a.test, then on)", "allow, then on");
	fails(ARGV("run", "--network-allow-file", file, "--network", "off", "--", "x"),
	      "--network given twice (allow (--network-allow-file), then off)",
	      "the file, then off");
	fails(ARGV("run", "--network", "allow=", "--", "x"), "want allow=PATTERN",
	      "an empty allow list");
	fails(ARGV("run", "--network", "allow", "--", "x"), "want on, off or allow=LIST",
	      "allow without a list");
	static const struct {
		const char *opt, *net, *want;
	} alone[] = {
		{ "--network-allow-local", NULL,
		  "--network-allow-local needs --network allow=LIST" },
		{ "--network-allow-http", "--network=off",
		  "--network-allow-http needs --network allow=LIST" },
		{ "--network-resolve=a.test=10.0.0.1", "--network=on",
		  "--network-resolve needs --network allow=LIST" },
	};
	for (size_t i = 0; i < sizeof(alone) / sizeof(alone[0]); i++) {
		r = alone[i].net != NULL ? parse(&a, ARGV("run", (char *)alone[i].net,
							  (char *)alone[i].opt, "--", "x"))
					 : parse(&a, ARGV("run", (char *)alone[i].opt, "--", "x"));
		ok(r == 0 && options_check(a.c) == CORDON_EINVAL &&
			   strstr(cordon_last_error(a.c), alone[i].want) != NULL,
		   "%s without the list: refused when the run begins", alone[i].opt);
		cli_args_free(&a);
	}
	fails(ARGV("run", "--network-resolve", "a.test", "--network=allow=a.test", "--", "x"),
	      "bad --network-resolve 'a.test' (want NAME=ADDRESS)", "a resolve entry without =");
	fails(ARGV("run", "--network-allow-file=", "--", "x"), "empty --network-allow-file",
	      "an empty file name");
	unlink(file);
}

/* --policy, --profile, --agent-policy, cordon options, cordon profile. */
static void test_policy_cli(void)
{
	struct cli_args a;
	char file[] = "/tmp/cordon-test-args-XXXXXX";
	int fd = mkstemp(file);
	static const char body[] = "protect .env\nscratch-home\n";
	if (fd < 0 || write(fd, body, sizeof(body) - 1) != (ssize_t)sizeof(body) - 1)
		abort();
	close(fd);

	is_int(parse(&a, ARGV("run", "--policy", file, "-w", "/w", "--", "x")), 0,
	       "--policy FILE before -w");
	ok(a.c->protect.n == 1 && strcmp(a.c->protect.v[0], "/w/.env") == 0 && a.c->scratch_home,
	   "... loaded after the other options: its relative path under the workspace");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("run", "--profile", "agent", "--profile=verify", "--network=off",
			      "--", "x")),
	       0, "--profile twice and a flag that agrees");
	ok(a.c->network == CORDON_NETWORK_OFF && a.c->opts->sources.n == 4, "... both applied");
	cli_args_free(&a);
	fails(ARGV("run", "--network", "on", "--profile", "agent", "--", "x"),
	      "profile agent:3: --network given twice (on, then off)",
	      "a profile against the command line");
	fails(ARGV("run", "--profile", "nope", "--", "x"), "unknown profile 'nope'",
	      "an unknown profile");
	fails(ARGV("run", "--policy", "/nonexistent-cordon.policy", "--", "x"),
	      "cannot read the policy file /nonexistent-cordon.policy", "a missing file");
	fails(ARGV("run", "--agent-policy=1", "--", "x"), "takes no value", "--agent-policy=1");
	fails(ARGV("run", "--policy"), "needs a value", "--policy at the end");
	is_int(parse(&a, ARGV("run", "--profile", "nope", "--help", "--", "x")), 0,
	       "--help before the loads");
	ok(a.cmd == CLI_HELP && strcmp(a.help_topic, "run") == 0, "... help, nothing loaded");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("options", "--profile", "install", "--timeout", "5")), 0,
	       "options, no command");
	ok(a.cmd == CLI_OPTIONS && a.command == NULL && has_line(&a, "timeout 5") &&
		   has_line(&a, "# from profile install"),
	   "... its options");
	cli_args_free(&a);
	fails(ARGV("options", "--", "x"), "takes no command", "options with a command");
	fails(ARGV("options", "x"), "unknown option 'x' (see cordon options --help)",
	      "options with an argument");
	is_int(parse(&a, ARGV("options", "--help")), 0, "options --help");
	ok(a.cmd == CLI_HELP && strcmp(a.help_topic, "options") == 0, "... help on options");
	cli_args_free(&a);

	is_int(parse(&a, ARGV("profile", "list")), 0, "profile list");
	ok(a.cmd == CLI_PROFILE && strcmp(a.profile_action, "list") == 0, "... list");
	cli_args_free(&a);
	is_int(parse(&a, ARGV("profile", "show", "agent")), 0, "profile show agent");
	ok(a.cmd == CLI_PROFILE && strcmp(a.profile_name, "agent") == 0, "... show agent");
	cli_args_free(&a);
	fails(ARGV("profile", "show", "nope"), "unknown profile 'nope'", "profile show nope");
	fails(ARGV("profile"), "usage: cordon profile list", "profile alone");
	fails(ARGV("profile", "list", "x"), "usage: cordon profile list", "profile list x");
	is_int(parse(&a, ARGV("profile", "--help")), 0, "profile --help");
	ok(a.cmd == CLI_HELP && strcmp(a.help_topic, "profile") == 0, "... help on profile");
	cli_args_free(&a);
	unlink(file);
}

int main(void)
{
	test_policy_cli();
	test_network_allow();
	test_defaults();
	test_value_options();
	test_dashdash();
	test_errors();
	test_timeout();
	test_uint();
	test_bounds();
	test_repeats();
	test_help_probe();
	return done_testing();
}
