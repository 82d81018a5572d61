/*
 * What cordon(1)'s run and cordon-sh share: the one-line messages, fds
 * 0-2 made safe at start, and one command run under a configured handle
 * (begin, spawn, signals forwarded to the command, wait, end) mapped to
 * the exit status `cordon run` documents.
 */
#ifndef CORDON_CLI_RUNCMD_H
#define CORDON_CLI_RUNCMD_H

#include "cordon.h"

#define CLI_EXIT_CORDON 125

/* prefix, then the message on one line (bytes that would break it
 * escaped), on stderr. */
void cli_msg(const char *prefix, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* fds 0-2 closed at start get /dev/null, so cordon's own files never
 * take their numbers. The set of those that were closed (bit fd). */
unsigned cli_sanitize_std_fds(void);

/* Runs argv under c (configured, not begun) and frees c. Every problem
 * is one "cordon: ..." line. The command's exit status, 128+N for signal
 * N, 124 on timeout, 125 when cordon could not run it or the run left
 * git files behind in fail mode. */
int cli_run(cordon *c, const char *const argv[]);

/* Sends sig to the process group of cli_run's command, as a signal
 * cordon receives is passed on; before the command has started, it is
 * sent once it starts (SIGKILL wins over another one pending). Safe from
 * any thread and from a signal handler. */
void cli_run_signal(int sig);

/* cli/held.c: after a --review run ended, the line naming its held
 * changes' run id (nothing for another run). */
void cli_review_note(const cordon *c);

#endif
