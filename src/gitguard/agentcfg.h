/*
 * The agent-config guard's pure parts (agentcfg.c), for its unit test:
 * the names it holds and the directories it holds them in. Its life
 * cycle (agentcfg_begin, _hold, _end) is declared in handle.h.
 */
#ifndef CORDON_AGENTCFG_H
#define CORDON_AGENTCFG_H

#include "handle.h"

#include <stddef.h>

/* What agents and editors read from a project and run code from: each a
 * name in a directory (the CLI reference's table says who reads it). */
extern const char *const agentcfg_names[];
extern const size_t agentcfg_nnames;

/* The directories the names are held in, each once: the workspace, each
 * --allow-write directory, and each directory from the one of those that
 * holds the run's working directory down to it (agents read a project's
 * configuration where they start, and Codex in every directory from the
 * project's top down to there). Appended to out: 0 or CORDON_ENOMEM. */
int agentcfg_levels(const struct policy *pol, struct strv *out);

#endif
