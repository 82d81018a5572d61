/*
 * Command-line parsing for cordon(1). The options of `cordon run` are
 * the library's (cordon_set_option(): one table for argv, policy files
 * and profiles): this file splits argv into options and values, asks the
 * library which options take a value, and applies them to a handle it
 * makes. Strings in the result point into argv.
 */
#ifndef CORDON_CLI_ARGS_H
#define CORDON_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "cordon.h"

enum cli_cmd {
	CLI_RUN,
	CLI_PROBE,
	CLI_HELP,
	CLI_VERSION,
	CLI_OPTIONS,
	CLI_PROFILE,
	CLI_HELD /* changes, diff, apply, discard: a held run (cli/held.c) */
};

struct cli_args {
	enum cli_cmd cmd;
	const char *help_topic; /* "run", "probe", "options", "profile" or NULL */
	/* run, options: the handle the options were applied to (freed by
	 * cli_args_free unless taken: set it to NULL) */
	cordon *c;
	int status_fd; /* --status-fd, -1: none (checked against closed fds) */
	int max_abi; /* testing knob; 0: none */
	const char *max_abi_given; /* its text as first given */
	char *const *command; /* run: after "--", NULL-terminated */
	/* probe */
	int json;
	/* changes, diff, apply, discard: which, the run id, --state-dir,
	 * apply's --drop-guarded */
	const char *held_cmd, *run_id, *state_dir;
	int drop_guarded;
	/* profile: "list" or "show", and the name shown */
	const char *profile_action, *profile_name;
	char err[512]; /* the message when parsing fails */
};

/* 0 on success; -1 with a["err"] set. Free with cli_args_free either way.
 * The options of run and options are applied to a->c as given, but
 * --policy, --profile and --agent-policy, which are applied after the
 * others (their relative paths need the workspace), in their order. A
 * single-valued option given again with a different value fails (the
 * library's rule). */
int cli_parse(int argc, char *const argv[], struct cli_args *a);
void cli_args_free(struct cli_args *a);

/* cli/held.c: cordon changes|diff|apply|discard (the exit status). */
int cli_held(const struct cli_args *a);

/* A non-negative decimal int no larger than max. */
int cli_parse_uint(const char *s, long max, long *out);

#endif
