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
	"       cordon options [OPTIONS]                  the options a run would get\n"
	"       cordon profile list | show NAME           the named profiles\n"
	"       cordon changes | diff | apply | discard RUN_ID   a --review run's held changes\n"
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
	"  --cache LIST            writable tool caches (default cargo,npm,pip,playwright,go;\n"
	"                          also yarn,pnpm,bun,deno,gradle,maven,composer,gem,\n"
	"                          ccache,sccache,huggingface)\n"
	"  --no-caches             no tool cache is writable\n"
	"  --protect PATH          keep PATH inside a writable tree read-only; one that does\n"
	"                          not exist yet: what the run makes there is moved aside\n"
	"                          (repeatable)\n"
	"  --no-default-protect    do not guard git's files (hooks, config, commondir...)\n"
	"                          nor agents' (.claude/, .gemini/, .codex/, .cursor/,\n"
	"                          .vscode/, .mcp.json...): read-only, planted ones moved aside\n"
	"  --allow-agent-config PATH  let the command write a held agent-configuration\n"
	"                          path, e.g. .claude (repeatable)\n"
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
	"  --on-tamper HOW         a run that planted git or agent files: fail (exit 125;\n"
	"                          default in required mode) or neutralise (moved aside,\n"
	"                          warned)\n"
	"  --state-dir DIR         where per-run temp dirs are made\n"
	"                          (default $XDG_STATE_HOME/cordon or ~/.local/state/cordon;\n"
	"                          inside a confined run, $TMPDIR/cordon)\n"
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
	"  --explain[=full]        when the confined command fails, say which errors\n"
	"                          mean \"refused by cordon\" (two lines on stderr;\n"
	"                          =full, or a refusal cordon saw: all it knows)\n"
	"  --scratch-home          writes under the home succeed and are discarded at\n"
	"                          the end of the run (caches, workspace stay real)\n"
	"  --review                the command's writes to the workspace are held aside,\n"
	"                          listed in the exit event; the workspace is unchanged\n"
	"                          until 'cordon apply RUN_ID' (Linux with the mount\n"
	"                          layer; elsewhere required mode refuses, and auto\n"
	"                          runs without it: its writes land at once, gap\n"
	"                          review_not_held)\n"
	"  --allow-userns          let the command make user namespaces (a sandbox of\n"
	"                          its own: bwrap, podman, unshare -U); refused by default\n"
	"  --policy FILE           the options of a policy file: one a line, NAME VALUE,\n"
	"                          # comments; relative paths against the workspace;\n"
	"                          refused in a tree the run may write (repeatable)\n"
	"  --profile NAME          the options of a named profile: agent, install,\n"
	"                          verify, default (cordon profile list; repeatable)\n"
	"  --agent-policy          what agents' entry points use: CORDON_PROFILE and/or\n"
	"                          CORDON_POLICY, else ~/.config/cordon/agent.policy,\n"
	"                          else the profile agent\n"
	"\n"
	"An option that holds one value may be repeated only with the same value\n"
	"(otherwise exit 125), from the command line, policy files and profiles\n"
	"alike; --cache and --no-caches are one such option. Lists and flags add up.\n"
	"\n"
	"Exit status: the command's; 128+N if killed by signal N; 124 on timeout;\n"
	"125 if cordon could not run it; 126 not executable; 127 not found.\n";

static const char usage_options[] =
	"usage: cordon options [OPTIONS]\n"
	"\n"
	"Print the options that cordon run with the same OPTIONS (--policy, --profile,\n"
	"--agent-policy among them) would apply, in the policy file format, each group\n"
	"with where it came from; nothing runs. Exit status 0, or 125 on a bad option.\n";

static const char usage_profile[] =
	"usage: cordon profile list          the profiles and what each is for\n"
	"       cordon profile show NAME     a profile's options (policy file format)\n";

static const char usage_held[] =
	"usage: cordon changes [--state-dir DIR] RUN_ID    list a --review run's held changes\n"
	"       cordon diff [--state-dir DIR] RUN_ID       unified diff of its text files\n"
	"       cordon apply [--state-dir DIR] [--drop-guarded] RUN_ID\n"
	"                                                 land them in the workspace\n"
	"       cordon discard [--state-dir DIR] RUN_ID    drop them\n"
	"\n"
	"apply checks every change first: it refuses (exit 125, nothing changed) when\n"
	"the workspace changed meanwhile at a path the run changed, or when the git\n"
	"guard or the agent-config guard would move a held change aside (a hook, a git\n"
	"config that runs programs, an agent's settings); --drop-guarded lands the rest\n"
	"and names those. Held runs expire 7 days after they ended.\n";

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

/* What the CLI sets beyond the options: the run is its process's only
 * one, in the foreground. */
static void configure(cordon *c, const struct cli_args *a)
{
	check(c, cordon_set_foreground(c, 1));
	check(c, cordon_set_reap_all(c, 1));
	if (a->max_abi > 0)
		check(c, cordon_test_set_max_abi(c, a->max_abi));
}

static int cmd_run(struct cli_args *a)
{
	cordon *c = a->c;
	a->c = NULL;
	configure(c, a);
	return cli_run(c, (const char *const *)a->command);
}

/* cordon options: what the options given come to. */
static int cmd_options(const struct cli_args *a)
{
	char *t = cordon_options_text(a->c);
	if (t == NULL)
		die("out of memory");
	fputs(t, stdout);
	free(t);
	return 0;
}

static int cmd_profile(const struct cli_args *a)
{
	if (strcmp(a->profile_action, "show") == 0) {
		fputs(cordon_profile_text(a->profile_name), stdout);
		return 0;
	}
	for (const char *const *n = cordon_profile_names(); *n != NULL; n++) {
		const char *t = cordon_profile_text(*n);
		/* The first comment line says what it is for. */
		size_t len = strcspn(t, "\n");
		printf("%-9s %.*s\n", *n, (int)(len > 2 ? len - 2 : 0), len > 2 ? t + 2 : "");
	}
	return 0;
}

static const char *help_text(const char *topic)
{
	if (topic == NULL)
		return usage_main;
	if (strcmp(topic, "run") == 0)
		return usage_run;
	if (strcmp(topic, "options") == 0)
		return usage_options;
	if (strcmp(topic, "profile") == 0)
		return usage_profile;
	if (strcmp(topic, "held") == 0)
		return usage_held;
	return usage_probe;
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
		fputs(help_text(a.help_topic), stdout);
		rc = 0;
		break;
	case CLI_OPTIONS:
		rc = cmd_options(&a);
		break;
	case CLI_PROFILE:
		rc = cmd_profile(&a);
		break;
	case CLI_VERSION:
		printf("cordon %s\n", cordon_version());
		rc = 0;
		break;
	case CLI_PROBE:
		rc = cmd_probe(&a);
		break;
	case CLI_HELD:
		rc = cli_held(&a);
		break;
	case CLI_RUN:
	default:
		rc = cmd_run(&a);
		break;
	}
	cli_args_free(&a);
	return rc;
}
