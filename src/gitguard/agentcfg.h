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

/* name (len bytes, not NUL-terminated) is one of agentcfg_names. */
int agentcfg_is_name(const char *name, size_t len);
/* The length of path's prefix down to its first component below root
 * that is a held name (path lies in that entry, or is it); 0 when none
 * (or path is not below root). */
size_t agentcfg_topmost(const char *root, const char *path);

/* Below the levels (the kernel's account, or a directory's change time):
 * each path of paths (absolute, a held name's entry the run made or
 * changed, as agentcfg_topmost cuts it) is moved aside at the end, but
 * one held at a level (agentcfg_end judges those) or opted out. */
void agentcfg_depth(cordon *c, const struct strv *paths);
/* dir (in the workspace) the run changed: each held name in it made or
 * changed since since_ns is moved aside; and when dir lies in a held
 * name's tree, that entry is, if dir or an entry of it changed. */
void agentcfg_depth_dir(cordon *c, const char *dir, long long since_ns);
/* With the kernel's account: in each directory of dirs (the ones the run
 * touched) a symlink the run made that leads into cordon's state dir
 * (its caches and layers outlive the run) is moved aside; without it
 * agentcfg_depth_dir does the same in what it looks at. */
/* dir holds a tracked file or symlink with a held name (the index says):
 * one made or changed since since_ns, or a symlink whose target the run
 * changed, is moved aside. */
void agentcfg_depth_held(cordon *c, const char *dir, long long since_ns);
void agentcfg_depth_links(cordon *c, const struct strv *dirs, long long since_ns);

#endif
