/*
 * Fuzz target for cli_parse: the input split on NUL bytes is argv[1..]
 * (argv[0] is "cordon"; a final segment without a NUL counts too).
 * Beyond memory safety it checks the parser's promises: success leaves a
 * consistent result, failure leaves a message that is one line whenever
 * the arguments are.
 */
#include "args.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int argc, char **argv, int r, const struct cli_args *a)
{
	if (r != 0) {
		int nl_in_args = 0;
		for (int i = 0; i < argc; i++)
			nl_in_args |= strchr(argv[i], '\n') != NULL;
		if (r != -1 || a->err[0] == '\0' || strlen(a->err) >= sizeof(a->err))
			abort();
		if (!nl_in_args && strchr(a->err, '\n') != NULL)
			abort();
		return;
	}
	switch (a->cmd) {
	case CLI_RUN:
		/* The command is the non-empty tail of argv after a "--". */
		if (a->command == NULL || a->command[0] == NULL || a->command <= argv ||
		    a->command >= argv + argc || strcmp(a->command[-1], "--") != 0)
			abort();
		if (a->status_fd < -1 || a->max_abi < 0 || (a->caches & ~CORDON_CACHE_ALL) != 0)
			abort();
		/* The bounds: none, or within the ranges cordon.h promises. */
		if (a->max_procs > CLI_MAX_PROCS ||
		    (a->max_memory != 0 &&
		     (a->max_memory < CLI_SIZE_MIN || a->max_memory > CLI_SIZE_MAX)) ||
		    (a->max_tmp != 0 && (a->max_tmp < CLI_SIZE_MIN || a->max_tmp > CLI_SIZE_MAX)))
			abort();
		if ((a->nallow_write && !a->allow_write) ||
		    (a->nallow_socket && !a->allow_socket) || (a->nprotect && !a->protect) ||
		    (a->nallow_agent_config && !a->allow_agent_config) || (a->nenv && !a->env) ||
		    (a->nkeep && !a->keep_fds))
			abort();
		for (size_t i = 0; i < a->nenv; i++)
			if (a->env[i][0] == '\0' || a->env[i][0] == '=')
				abort();
		for (size_t i = 0; i < a->nkeep; i++)
			if (a->keep_fds[i] < 0)
				abort();
		break;
	case CLI_PROBE:
		if (a->json != 0 && a->json != 1)
			abort();
		break;
	case CLI_HELP:
		if (a->help_topic != NULL && strcmp(a->help_topic, "run") != 0 &&
		    strcmp(a->help_topic, "probe") != 0)
			abort();
		break;
	case CLI_VERSION:
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	size_t nargs = 1;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i < size; i++)
		if (buf[i] == '\0' && i + 1 < size)
			nargs++;
	if (size > 0)
		nargs++;
	char **argv = calloc(nargs + 1, sizeof(*argv));
	if (argv == NULL) {
		free(buf);
		return 0;
	}
	int argc = 0;
	argv[argc++] = (char *)"cordon";
	for (size_t i = 0; i < size;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;

	struct cli_args a;
	int r = cli_parse(argc, argv, &a);
	check(argc, argv, r, &a);
	cli_args_free(&a);
	free(argv);
	free(buf);
	return 0;
}
