/*
 * `cordon hook AGENT`, its pure part: an agent's pre-tool hook JSON in,
 * the agent's answer out. Nothing here touches the system, so the unit
 * tests and the fuzzer feed it directly; cli/hookmain.c reads stdin,
 * chooses the workspace and the options, and prints the answer.
 *
 * The agents (their formats: docs/cli-reference.en.md, cordon hook):
 *   claude  Claude Code, PreToolUse, tool "Bash", tool_input.command
 *   codex   Codex CLI, PreToolUse, tool "Bash", tool_input.command
 *   gemini  Gemini CLI, BeforeTool, tool "run_shell_command", tool_input.command
 *   cursor  Cursor, beforeShellExecution, command at the top level
 */
#ifndef CORDON_CLI_HOOK_H
#define CORDON_CLI_HOOK_H

#include <stddef.h>

#include "jsonparse.h"

enum hook_agent { HOOK_CLAUDE, HOOK_CODEX, HOOK_GEMINI, HOOK_CURSOR, HOOK_UNKNOWN };

/* The agent by its name on the command line; HOOK_UNKNOWN when none. */
enum hook_agent hook_agent_parse(const char *name);

/* The largest hook input read (bytes) and its deepest nesting. */
#define HOOK_MAX_INPUT (16u << 20)
#define HOOK_MAX_DEPTH 64
/* The longest single argument Linux passes to a program (MAX_ARG_STRLEN,
 * its NUL included): the command, and the command line that wraps it. */
#define HOOK_MAX_ARG 131072u

struct hook_call {
	struct jp_doc doc;
	int shell; /* a shell command to confine; 0: a tool left alone */
	size_t input; /* the tool's input object (Cursor: the whole object) */
	size_t command; /* its command string */
	const char *cwd; /* the JSON's "cwd" (NUL-free), or NULL */
	/* The project directories the JSON names (Cursor's workspace_roots,
	 * NUL-free strings), in order. */
	const char *roots[8];
	size_t nroots;
};

/* Reads the agent's hook input. 0, with call->shell saying whether it is
 * a shell command to confine, or -1 with a reason in err (the agent's
 * block answer gives it to the model). Free with hook_call_free either
 * way. */
int hook_read(enum hook_agent a, const char *json, size_t len, struct hook_call *call, char *err,
	      size_t errlen);
void hook_call_free(struct hook_call *call);

/* cmd[0..len) as one shell word: in single quotes, each ' written '\''.
 * Byte-exact for every byte but NUL. */
void hook_quote(struct jbuf *b, const char *s, size_t len);

/* For an agent that carries a `cd` from one call to the next in its own
 * shell (Claude Code): the file through which the command's final
 * directory comes back, dir/name, with name cordon-cd- and 32 hex digits
 * (a fresh random one per call). */
/* rm by absolute path, in the line's tail; without it no cd is carried. */
#define HOOK_RM "/bin/rm"

struct hook_cd {
	const char *dir; /* the agent's TMPDIR, else /tmp; no trailing slash */
	const char *name;
};

/* The command line that runs cmd[0..len) confined:
 *   'SH' --workspace 'WS' -c 'CMD'
 * and with cd (Claude Code), F its file:
 *   'SH' --workspace 'WS' --cd-file 'F' -c 'CMD'; __cordon_s=$?;
 *   [ -s 'F' ] && cd -- "$(< 'F')"; /bin/rm -f -- 'F'; (exit $__cordon_s)
 * (one line), so the agent's shell enters the directory the command
 * ended in (cordon-sh keeps it inside the workspace) and its own cwd
 * tracking sees it. When cmd is already exactly such a line for some
 * inner command (a hook that ran twice; with cd, for a file name this
 * function could have chosen in cd->dir), cmd itself is returned and
 * *already set: such a line runs the same inner command under the same
 * options. Anything else, however much it looks like cordon, is wrapped
 * again. NULL when out of memory. */
char *hook_wrap(const char *sh, const char *ws, const struct hook_cd *cd, const char *cmd,
		size_t len, int *already);

struct hook_answer {
	int exit_code;
	char *out; /* for stdout (NULL: nothing) */
	char *err; /* for stderr (NULL: nothing) */
	/* A block answer is written here, so that it never needs memory. */
	char fixed_out[1024], fixed_err[1024];
};

/* The agent's answer that lets the call run with its command replaced by
 * cmd; every other field of the tool's input is kept as it came. 0, or -1
 * when out of memory. */
int hook_allow(enum hook_agent a, const struct hook_call *call, const char *cmd,
	       struct hook_answer *ans);
/* The agent's answer that blocks the call, with reason for the model.
 * Claude Code, Gemini CLI and an unknown agent: exit 2 and the reason on
 * stderr; Codex: permissionDecision "deny"; Cursor: permission "deny". */
void hook_block(enum hook_agent a, const char *reason, struct hook_answer *ans);
/* No opinion (a tool that is not a shell): exit 0, nothing written, and
 * for Cursor, which wants JSON, an empty object. */
void hook_pass(enum hook_agent a, struct hook_answer *ans);
void hook_answer_free(struct hook_answer *ans);

#endif
