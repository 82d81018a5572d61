/*
 * The optional Linux layers around Landlock. Each is probed (in the same
 * throw-away child as the Landlock trial), prepared in the parent and
 * applied in the child; each is reported in the status event's layers,
 * and what is missing without it is reported in its gaps.
 *
 *   mount namespace  everything outside the writable set read-only
 *                    (covers chmod/chown/utimes/xattr/chattr), protected
 *                    paths read-only, a private /dev/shm
 *   seccomp          TIOCSTI/TIOCLINUX denied (no keystroke injection
 *                    into the caller's terminal)
 *
 * Only the Linux backend uses this file.
 */
#ifndef CORDON_LINUX_LAYERS_H
#define CORDON_LINUX_LAYERS_H

#include "internal.h"

#if defined(__linux__)

/* ---- mount namespace (layer-mountns.c) ---- */
struct mount_plan {
	int userns; /* not root: a user namespace too */
	char uid_map[48], gid_map[48];
	char **rw; /* writable trees and files, bound read-write */
	size_t nrw;
	char **pin; /* ancestors of protected paths: made mount
		       points so they cannot be renamed away */
	size_t npin;
	char **ro; /* protected paths, bound read-only */
	size_t nro;
	char *cwd; /* re-entered after mounting, or NULL */
};

/* Child of the probe: 0 when the layer can be set up here, else errno.
 * Async-signal-safe; it changes the calling process's namespaces. */
int mountns_trial(void);
/* Parent: the plan for this run (NULL on allocation failure). */
struct mount_plan *mountns_prepare(cordon *c);
void mountns_free(struct mount_plan *m);
/* Child: async-signal-safe; 0 or errno. */
int mountns_apply(const struct mount_plan *m);

/* ---- seccomp (layer-seccomp.c) ---- */
/* The filter for this architecture, built once; NULL when cordon has no
 * syscall table for it (the layer is then unavailable). */
const void *seccomp_program(void);
/* Child: after PR_SET_NO_NEW_PRIVS. 0 or errno. */
int seccomp_apply(const void *prog);

#endif
#endif
