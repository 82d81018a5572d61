/*
 * `cordon hook AGENT`: the hook input read from stdin, the workspace and
 * the options chosen (entry.c), the command wrapped (hook.c), the answer
 * printed. Every failure is the agent's block answer, never an exit
 * status that an agent takes for "run the command anyway".
 */
#ifndef CORDON_CLI_HOOKMAIN_H
#define CORDON_CLI_HOOKMAIN_H

#include <stddef.h>

#include "hook.h"

/* What the hook knows of its process, apart from the JSON. */
struct hook_env {
	const char *agent; /* the name given on the command line */
	const char *sh; /* cordon-sh's absolute path, or NULL when not found */
	const char *workspace; /* CORDON_WORKSPACE */
	const char *projects[2]; /* the agent's project dir variables */
	const char *cwd; /* the hook's own directory: Codex's, or when the JSON names none */
	/* Claude Code: where its command's final directory comes back
	 * (hook.h, struct hook_cd): the agent's temp dir, a fresh name; a NULL
	 * name: not carried. */
	const char *cd_dir, *cd_name;
	int probe; /* 1: a required run that cannot be confined here is blocked now */
};

/* The answer to the hook input in[0..len). Always an answer: a problem is
 * the agent's block answer with its reason. */
void hook_respond(const struct hook_env *env, const char *in, size_t len, struct hook_answer *ans);

/* cordon hook AGENT: stdin in, the answer out. Its exit status. */
int cmd_hook(const char *agent);

#endif
