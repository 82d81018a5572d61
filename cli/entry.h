/*
 * What the agents' entry points share (cordon hook: hookmain.c; cordon-sh:
 * cordon-sh.c): which workspace, which options, where cordon-sh is.
 */
#ifndef CORDON_CLI_ENTRY_H
#define CORDON_CLI_ENTRY_H

#include <stddef.h>

#include "cordon.h"

/*
 * The workspace of an entry point, canonical, into out (outlen bytes):
 *  1. configured (cordon-sh --workspace, else CORDON_WORKSPACE): an
 *     absolute path, as it is;
 *  2. else the agent's project directory (projects[], in order: the
 *     first that contains cwd, else the first that exists);
 *  3. else cwd.
 * Where the command starts is decided by the run: cwd when it lies in the
 * workspace, else the workspace. So a directory an earlier command chose
 * (a `cd` an agent carried to its next call) can move where a command
 * starts, but never what it may write, once the agent names its project
 * or the user names the workspace. Empty or NULL entries are skipped.
 * 0, or -1 with err.
 */
int entry_workspace(const char *configured, const char *const projects[], size_t nprojects,
		    const char *cwd, char *out, size_t outlen, char *err, size_t errlen);

/* The options both entry points run with: the workspace, mode
 * "required", then the user's agent options (cordon_use_agent_policy:
 * CORDON_PROFILE / CORDON_POLICY, else ~/.config/cordon/agent.policy, else
 * the profile agent), whose own "sandbox" line wins. 0, or -1 with the
 * reason in err ("FILE:LINE: what" for a bad policy file). */
int entry_configure(cordon *c, const char *workspace, char *err, size_t errlen);

/* The mode c will run in ("auto", "required", "off"), after
 * cordon_probe(); NULL when unknown. Static text. */
const char *entry_mode(const cordon *c);

/* The caller's temp dir as a path (TMPDIR when absolute, else /tmp), no
 * trailing slash, into out. 0 or -1. */
int entry_tmpdir(char *out, size_t outlen);

/* prefix and 32 random hex digits, into out. 0 or -1. */
int entry_random_name(const char *prefix, char *out, size_t outlen);

/* The absolute path of cordon-sh beside this program, into out. 0 or -1. */
int entry_sh_path(char *out, size_t outlen);

#endif
