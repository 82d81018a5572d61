/*
 * Fuzz target for cli_parse: the input split on NUL bytes is argv[1..]
 * (argv[0] is "cordon"; a final segment without a NUL counts too).
 * Beyond memory safety it checks the parser's promises: success leaves a
 * consistent result, failure leaves a message that is one line whenever
 * the arguments are. The options go to a handle (cordon_set_option), whose
 * configuration is checked; no input names --network-allow-file, whose
 * file would be read (a FIFO would block).
 */
#include "args.h"
#include "handle.h"
#include "options.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* run and options: the handle's configuration within what cordon.h
 * promises, and its options' text one line per option or comment. */
static void check_handle(const struct cli_args *a)
{
	const cordon *c = a->c;
	if (c == NULL || a->status_fd < -1 || a->max_abi < 0 ||
	    (c->caches & ~CORDON_CACHE_ALL) != 0)
		abort();
	if (c->max_procs > OPT_MAX_PROCS ||
	    (c->max_memory != 0 &&
	     (c->max_memory < OPT_SIZE_MIN || c->max_memory > OPT_SIZE_MAX)) ||
	    (c->max_tmp != 0 && (c->max_tmp < OPT_SIZE_MIN || c->max_tmp > OPT_SIZE_MAX)))
		abort();
	for (size_t i = 0; i < c->envspec.n; i++)
		if (c->envspec.v[i][0] == '\0' || c->envspec.v[i][0] == '=')
			abort();
	for (size_t i = 0; i < c->nkeep; i++)
		if (c->keep_fds[i] < 0)
			abort();
	char *t = cordon_options_text(c);
	if (t == NULL)
		abort();
	for (const char *l = t; *l != '\0'; l = strchr(l, '\n') + 1)
		if (strchr(l, '\n') == NULL || (*l != '#' && (*l < 'a' || *l > 'z')))
			abort();
	free(t);
}

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
		check_handle(a);
		break;
	case CLI_OPTIONS:
		check_handle(a);
		break;
	case CLI_PROBE:
		if (a->json != 0 && a->json != 1)
			abort();
		break;
	case CLI_HELP:
		if (a->help_topic != NULL && strcmp(a->help_topic, "run") != 0 &&
		    strcmp(a->help_topic, "probe") != 0 && strcmp(a->help_topic, "options") != 0 &&
		    strcmp(a->help_topic, "profile") != 0)
			abort();
		break;
	case CLI_PROFILE:
		if (strcmp(a->profile_action, "list") != 0 &&
		    cordon_profile_text(a->profile_name) == NULL)
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

	if (buf == NULL || memmem(data, size, "allow-file", 10) != NULL) {
		free(buf);
		return 0;
	}
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
