/*
 * cordon(1): argv -> setters -> run -> exit status. All the work is in
 * libcordon; this file parses, reports and maps results to exit codes.
 */
#include "args.h"
#include "hookmain.h"
#include "runcmd.h"
#include "cordon.h"
#include "testhooks.h" /* --test-max-abi only; not the library's API */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_main[] =
	"usage: cordon run [OPTIONS] -- COMMAND [ARG...]   run one command confined\n"
	"       cordon probe [--json]                     what confinement works here\n"
	"       cordon hook AGENT                         an agent's pre-tool hook: the\n"
	"                                                 shell command rewritten to run\n"
	"                                                 under cordon-sh (claude, codex,\n"
	"                                                 gemini, cursor)\n"
	"       cordon --help | --version\n"
	"\n"
	"cordon confines what a command, and everything it spawns, may write:\n"
	"the workspace, the run's temp dir, allowed tool caches and a few devices.\n"
	"See 'cordon run --help' and cordon(1).\n";

static const char usage_run[] =
	"usage: cordon run [OPTIONS] -- COMMAND [ARG...]\n"
	"\n"
	"  -w, --workspace DIR     the tree the command may write (default: current dir)\n"
	"  --cwd DIR               where the command starts (default: the current dir\n"
	"                          when it lies in the workspace, else the workspace)\n"
	"  --sandbox MODE          auto (default): confine, or warn and run unconfined;\n"
	"                          required: confine or refuse (exit 125); off: plain exec\n"
	"  --allow-write PATH      an extra writable tree or file (repeatable)\n"
	"  --allow-socket PATH     a Unix socket outside the writable set the command\n"
	"                          may connect to, or a directory of them (repeatable)\n"
	"  --pass-file FILE        one file outside the writable set the command may\n"
	"                          create and write (made owner-only when missing;\n"
	"                          removed after the run if left empty; repeatable)\n"
	"  --cache LIST            writable tool caches (default cargo,npm,pip,playwright,go;\n"
	"                          also yarn,pnpm,bun,deno,gradle,maven,composer,gem,\n"
	"                          ccache,sccache,huggingface)\n"
	"  --no-caches             no tool cache is writable\n"
	"  --protect PATH          keep PATH inside a writable tree read-only (repeatable)\n"
	"  --no-default-protect    do not guard the workspace's git metadata (hooks,\n"
	"                          config, commondir...: read-only, planted ones moved aside)\n"
	"  --deny-read PATH        the command may not read PATH (repeatable; also inside\n"
	"                          the workspace, e.g. .env)\n"
	"  --allow-read PATH       take PATH out of the default deny-read list (the\n"
	"                          user's secrets: see 'cordon probe')\n"
	"  --no-default-deny-read  leave the user's secrets readable\n"
	"  --network on|off        off: no IP traffic leaves the command's world (loopback\n"
	"                          inside works where a network namespace can be made;\n"
	"                          required mode refuses where off cannot be enforced)\n"
	"  --network allow=LIST    off, but for a proxy of cordon's own that reaches only\n"
	"                          the hosts of LIST (repeatable; name, *.name, **.name,\n"
	"                          an address, each with :PORT; default port 443; presets\n"
	"                          @npm @pypi @crates @go @github); the proxy variables\n"
	"                          are set; required mode refuses where no network\n"
	"                          namespace can be made (auto: the network is off)\n"
	"  --network-allow-file FILE  the same, one pattern a line (# comments)\n"
	"  --network-allow-local   the proxy may reach loopback and private addresses\n"
	"  --network-allow-http    plain HTTP through the proxy (and port 80 by default)\n"
	"  --network-resolve NAME=ADDRESS  the proxy takes NAME to be at ADDRESS (tests,\n"
	"                          private registries; still vetted)\n"
	"  --on-tamper HOW         a run that planted git files: fail (exit 125; default\n"
	"                          in required mode) or neutralise (moved aside, warned)\n"
	"  --state-dir DIR         where per-run temp dirs are made\n"
	"                          (default $XDG_STATE_HOME/cordon or ~/.local/state/cordon)\n"
	"  --status-fd N           write JSON status events to fd N\n"
	"  --status-file PATH      append JSON status events to PATH\n"
	"  --timeout SECONDS       kill the command's process group after SECONDS (exit 124)\n"
	"  --clean-env             pass only PATH HOME USER LOGNAME SHELL LANG LC_* TERM TZ\n"
	"  --env NAME[=VALUE]      set NAME, or pass the caller's NAME (repeatable)\n"
	"  --keep-fd N             let the command keep inherited fd N (repeatable)\n"
	"  --max-procs N           at most N processes and threads in the run\n"
	"  --max-memory SIZE       at most SIZE of memory (512M, 2G): the run's cgroup,\n"
	"                          else each process's (required mode refuses that)\n"
	"  --max-tmp SIZE          the run's temp dir (TMPDIR, /tmp) is a tmpfs of SIZE\n"
	"  --allow-broad           accept /, the home dir or its ancestors as writable\n"
	"  --explain               when the confined command fails, say which errors\n"
	"                          mean \"refused by cordon\" (one line on stderr)\n"
	"  --scratch-home          writes under the home succeed and are discarded at\n"
	"                          the end of the run (caches, workspace stay real)\n"
	"\n"
	"An option that holds one value may be repeated only with the same value\n"
	"(otherwise exit 125); --cache and --no-caches are one such option.\n"
	"\n"
	"Exit status: the command's; 128+N if killed by signal N; 124 on timeout;\n"
	"125 if cordon could not run it; 126 not executable; 127 not found.\n";

static const char usage_hook[] =
	"usage: cordon hook AGENT        (AGENT: claude, codex, gemini or cursor)\n"
	"\n"
	"Reads the agent's pre-tool hook JSON on stdin and answers in its format:\n"
	"a shell command is rewritten to run under cordon-sh, every other field\n"
	"kept; another tool is left alone. Any problem blocks the call with the\n"
	"reason (Claude Code, Gemini CLI: exit 2; Codex, Cursor: a deny answer).\n"
	"Workspace: CORDON_WORKSPACE, else the agent's project dir, else its cwd.\n"
	"See cordon(1), HOOKS.\n";

static const char usage_probe[] =
	"usage: cordon probe [--json]\n"
	"\n"
	"Report which confinement works on this machine and, if none, why.\n"
	"Exit status: 0 when confinement is available, 1 when it is not.\n";

#define die(...)                                  \
	do {                                      \
		cli_msg("cordon: ", __VA_ARGS__); \
		exit(CLI_EXIT_CORDON);            \
	} while (0)

static void print_list(const char *label, const char *const *l)
{
	printf("%-9s", label);
	if (l[0] == NULL)
		printf(" (none)");
	for (size_t i = 0; l[i] != NULL; i++)
		printf(" %s", l[i]);
	printf("\n");
}

static int cmd_probe(const struct cli_args *a)
{
	cordon *c = cordon_new();
	if (c == NULL)
		die("out of memory");
	if (a->max_abi > 0)
		cordon_test_set_max_abi(c, a->max_abi);
	cordon_set_mode(c, CORDON_MODE_AUTO);
	if (cordon_probe(c) != 0)
		die("%s", cordon_last_error(c));
	int ok = cordon_applied(c);
	if (a->json) {
		char *j = cordon_probe_json(c);
		if (j == NULL)
			die("out of memory");
		printf("%s\n", j);
		free(j);
	} else {
		printf("backend   %s\n", cordon_backend_name(c));
		printf("available %s\n", ok ? "yes" : "no");
		if (!ok)
			printf("reason    %s: %s\n", cordon_reason(c),
			       cordon_reason_text(cordon_reason(c)));
		if (cordon_reason_detail(c) != NULL)
			printf("detail    %s\n", cordon_reason_detail(c));
		if (cordon_abi(c) > 0)
			printf("abi       %d\n", cordon_abi(c));
		print_list("layers", cordon_layers(c));
		print_list("gaps", cordon_gaps(c));
		print_list("deny-read", cordon_default_deny_read());
		printf("          (of ~/.ssh, known_hosts*, config and *.pub stay readable)\n");
		print_list("deny-env", cordon_default_deny_env());
	}
	cordon_free(c);
	return ok ? 0 : 1;
}

static void check(cordon *c, int r)
{
	if (r != 0)
		die("%s", cordon_last_error(c));
}

static void configure(cordon *c, const struct cli_args *a)
{
	check(c, cordon_set_mode(c, a->mode));
	if (a->workspace != NULL)
		check(c, cordon_set_workspace(c, a->workspace));
	if (a->cwd != NULL)
		check(c, cordon_set_cwd(c, a->cwd));
	for (size_t i = 0; i < a->nallow_write; i++)
		check(c, cordon_add_allow_write(c, a->allow_write[i]));
	for (size_t i = 0; i < a->nallow_socket; i++)
		check(c, cordon_add_allow_socket(c, a->allow_socket[i]));
	for (size_t i = 0; i < a->npass_file; i++)
		check(c, cordon_add_pass_file(c, a->pass_file[i]));
	check(c, cordon_set_caches(c, a->caches));
	for (size_t i = 0; i < a->nprotect; i++)
		check(c, cordon_add_protect(c, a->protect[i]));
	check(c, cordon_set_default_protect(c, !a->no_default_protect));
	for (size_t i = 0; i < a->ndeny_read; i++)
		check(c, cordon_add_deny_read(c, a->deny_read[i]));
	for (size_t i = 0; i < a->nallow_read; i++)
		check(c, cordon_add_allow_read(c, a->allow_read[i]));
	check(c, cordon_set_default_deny_read(c, !a->no_default_deny_read));
	check(c, cordon_set_on_tamper(c, a->on_tamper));
	check(c, cordon_set_network(c, a->network));
	for (size_t i = 0; i < a->nnetwork_allow; i++)
		check(c, cordon_set_network_allow(c, a->network_allow[i]));
	for (size_t i = 0; i < a->nnetwork_allow_file; i++)
		check(c, cordon_set_network_allow_file(c, a->network_allow_file[i]));
	for (size_t i = 0; i < a->nnetwork_resolve; i++)
		check(c, cordon_add_network_resolve(c, a->network_resolve[i]));
	if (a->network_allow_local)
		check(c, cordon_set_network_allow_local(c, 1));
	if (a->network_allow_http)
		check(c, cordon_set_network_allow_http(c, 1));
	if (a->state_dir != NULL)
		check(c, cordon_set_state_dir(c, a->state_dir));
	if (a->status_fd >= 0)
		check(c, cordon_set_status_fd(c, a->status_fd));
	if (a->status_file != NULL)
		check(c, cordon_set_status_file(c, a->status_file));
	check(c, cordon_set_timeout_ms(c, a->timeout_ms));
	check(c, cordon_set_max_procs(c, a->max_procs));
	check(c, cordon_set_max_memory(c, a->max_memory));
	check(c, cordon_set_max_tmp(c, a->max_tmp));
	check(c, cordon_set_clean_env(c, a->clean_env));
	for (size_t i = 0; i < a->nenv; i++)
		check(c, cordon_add_env(c, a->env[i]));
	for (size_t i = 0; i < a->nkeep; i++)
		check(c, cordon_add_keep_fd(c, a->keep_fds[i]));
	check(c, cordon_set_allow_broad(c, a->allow_broad));
	check(c, cordon_set_foreground(c, 1));
	check(c, cordon_set_reap_all(c, 1));
	check(c, cordon_set_explain(c, a->explain));
	check(c, cordon_set_scratch_home(c, a->scratch_home));
	if (a->max_abi > 0)
		check(c, cordon_test_set_max_abi(c, a->max_abi));
}

static int cmd_run(const struct cli_args *a)
{
	cordon *c = cordon_new();
	if (c == NULL)
		die("out of memory");
	configure(c, a);
	return cli_run(c, (const char *const *)a->command);
}

int main(int argc, char *argv[])
{
	struct cli_args a;

	unsigned closed = cli_sanitize_std_fds();
	/* The hook answers every problem, its arguments' too, with the
	 * agent's block answer (exit 125 would let the command run). */
	if (argc >= 2 && strcmp(argv[1], "hook") == 0) {
		if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
			fputs(usage_hook, stdout);
			return 0;
		}
		return cmd_hook(argc == 3 ? argv[2] : argc < 3 ? "" : "(more than one argument)");
	}
	if (cli_parse(argc, argv, &a) != 0)
		die("%s", a.err);
	/* A status fd that was closed when cordon started is /dev/null now:
	 * the events would vanish. Refuse it like any other closed fd. */
	if (a.cmd == CLI_RUN && a.status_fd >= 0 && a.status_fd <= 2 &&
	    (closed & (1u << a.status_fd)))
		die("status fd %d is not open for writing", a.status_fd);
	int rc;
	switch (a.cmd) {
	case CLI_HELP:
		fputs(a.help_topic == NULL		 ? usage_main
		      : strcmp(a.help_topic, "run") == 0 ? usage_run
							 : usage_probe,
		      stdout);
		rc = 0;
		break;
	case CLI_VERSION:
		printf("cordon %s\n", cordon_version());
		rc = 0;
		break;
	case CLI_PROBE:
		rc = cmd_probe(&a);
		break;
	case CLI_RUN:
	default:
		rc = cmd_run(&a);
		break;
	}
	cli_args_free(&a);
	return rc;
}
