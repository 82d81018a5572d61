/*
 * Command-line parsing for cordon(1). Pure: no system calls, no global
 * state, so unit tests and the fuzzer feed it argv directly. Strings in
 * the result point into argv.
 */
#ifndef CORDON_CLI_ARGS_H
#define CORDON_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "cordon.h"

enum cli_cmd { CLI_RUN, CLI_PROBE, CLI_HELP, CLI_VERSION };

/* At least the number of options args.c knows (it checks). */
#define CLI_NOPTS 40

struct cli_args {
	enum cli_cmd cmd;
	const char *help_topic; /* "run", "probe" or NULL */
	/* run */
	const char *workspace;
	const char *cwd; /* --cwd */
	enum cordon_mode mode;
	const char **allow_write;
	size_t nallow_write;
	const char **allow_socket;
	size_t nallow_socket;
	unsigned caches;
	const char **protect;
	size_t nprotect;
	int no_default_protect;
	const char **deny_read;
	size_t ndeny_read;
	const char **allow_read;
	size_t nallow_read;
	int no_default_deny_read;
	const char *state_dir;
	enum cordon_on_tamper on_tamper;
	enum cordon_network network;
	/* --network allow=LIST (each LIST as given), --network-allow-file,
	 * --network-resolve, --network-allow-local, --network-allow-http */
	const char **network_allow;
	size_t nnetwork_allow;
	const char **network_allow_file;
	size_t nnetwork_allow_file;
	const char **network_resolve;
	size_t nnetwork_resolve;
	int network_allow_local, network_allow_http;
	int status_fd; /* -1: none */
	const char *status_file;
	uint64_t timeout_ms; /* 0: none */
	uint64_t max_procs, max_memory, max_tmp; /* 0: none */
	int clean_env;
	const char **env;
	size_t nenv;
	int *keep_fds;
	size_t nkeep;
	int allow_broad;
	int explain;
	int scratch_home; /* --scratch-home */
	int allow_userns; /* --allow-userns */
	int max_abi; /* testing knob; 0: none */
	char *const *command; /* after "--", NULL-terminated */
	/* probe */
	int json;
	char err[512]; /* the message when parsing fails */
	/* Internal: the text each single-valued option was first given as. */
	const char *given[CLI_NOPTS];
};

/* 0 on success; -1 with a["err"] set. Free with cli_args_free either way.
 * A single-valued option (or --cache/--no-caches) given again with a
 * different value fails; with the same value it is accepted. */
int cli_parse(int argc, char *const argv[], struct cli_args *a);
void cli_args_free(struct cli_args *a);

/* The --timeout range: 0.001 s (one millisecond) to this many seconds. */
#define CLI_TIMEOUT_MAX_S 100000000ULL
/* Decimal seconds ("1", "0.25") to milliseconds, within the range. */
int cli_parse_timeout(const char *s, uint64_t *ms);
/* The bounds of --max-procs, --max-memory and --max-tmp (cordon.h). */
#define CLI_MAX_PROCS 4194304ULL
#define CLI_SIZE_MIN (1ULL << 20)
#define CLI_SIZE_MAX (1ULL << 62)
/* A size: decimal digits, then optionally K, M, G or T (powers of 1024,
 * either case), optionally followed by "B" or "iB" ("512M", "2GiB",
 * "1048576"), from min to max. 0 or -1. */
int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A non-negative decimal int no larger than max. */
int cli_parse_uint(const char *s, long max, long *out);

#endif
