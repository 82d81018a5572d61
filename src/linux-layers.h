/*
 * The Linux backend's layers, and what they share. backend-linux.c holds
 * the table that orders them; each layer lives in its own file and offers
 * the same steps:
 *
 *   trial    in the probe's throw-away child: can it be applied here?
 *   prepare  in the parent, once per run: its part of the plan
 *   apply    in each command's child, just before exec
 *
 * A layer joins by adding its file and one entry to that table. What the
 * child applies is a struct linux_plan, built whole in the parent: the
 * child only makes system calls with it.
 *
 * Only the Linux backend includes this file.
 */
#ifndef CORDON_LINUX_LAYERS_H
#define CORDON_LINUX_LAYERS_H

#include "internal.h"

#if defined(__linux__)

#include "landlock-abi.h"

/* ---- the plan: everything the child applies ---- */

struct mount_plan {
	int userns; /* not root: a user namespace too */
	int userns_at_clone; /* ... made by the clone that started the child */
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

struct landlock_plan {
	struct ll_ruleset_attr attr;
	int *fds; /* O_PATH fds of the writable entries, close-on-exec */
	uint64_t *rights; /* the rights granted on each */
	size_t n;
	/* Rights on what the child mounts for itself (the private /dev/shm
	 * and /dev/pts), or 0: it grants their roots in its own ruleset. */
	uint64_t own_rights;
};

struct linux_runner; /* backend-linux.c */

struct linux_plan {
	unsigned prepared; /* the layers to apply: bits of enum layer_id */
	struct mount_plan *mount; /* NULL: no mount layer */
	int devpts; /* a devpts instance of its own on /dev/pts */
	int pid_namespace; /* the child is process 1 of a new PID namespace */
	int ipc_namespace;
	int init_fd; /* memfd of the init program, or -1 */
	struct linux_runner *runner; /* the run's thread that starts children */
	int no_new_privs;
	int reduce_caps;
	struct landlock_plan landlock;
	const void *seccomp; /* the filter, or NULL */
};

/* ---- what the probe's trial child gets, made in the parent ---- */

struct linux_trial {
	unsigned passed; /* the trials passed so far: bits of enum layer_id */
	int init_fd; /* memfd of the init program, or -1 */
	int userns;
	char uid_map[48], gid_map[48];
	struct ll_ruleset_attr attr; /* the ABI's handled rights */
	const void *seccomp;
};

/* ---- the layers (one file each) ---- */

/* layer-mountns.c: the command's own mount namespace. */
void mountns_identity(int *userns, char *uid_map, char *gid_map, size_t n);
int mountns_trial(const struct linux_trial *t);
int mountns_prepare(cordon *c, const struct policy *p, const struct decision *d,
		    struct linux_plan *plan);
int mountns_apply(const struct linux_plan *plan);
void mountns_free(struct mount_plan *m);
int devpts_trial(const struct linux_trial *t);
int devpts_prepare(cordon *c, const struct policy *p, const struct decision *d,
		   struct linux_plan *plan);
int devpts_apply(const struct linux_plan *plan);

/* layer-pidns.c: the PID namespace (and cordon-init as its process 1),
 * and the IPC namespace. */
/* A sealed memfd holding the init program (close-on-exec), or -errno. */
int init_memfd(void);
int pidns_trial(const struct linux_trial *t);
int pidns_prepare(cordon *c, const struct policy *p, const struct decision *d,
		  struct linux_plan *plan);
int pidns_apply(const struct linux_plan *plan);
/* In process 1, after every layer: start cmd(cmd_arg) as its child on
 * cmd_stack, then exec the init program with statusfd. Returns only on
 * failure (errno). */
int pidns_become_init(const void *state, int (*cmd)(void *), void *cmd_arg, void *cmd_stack,
		      size_t cmd_stack_size, int statusfd);
int ipcns_trial(const struct linux_trial *t);
int ipcns_prepare(cordon *c, const struct policy *p, const struct decision *d,
		  struct linux_plan *plan);
int ipcns_apply(const struct linux_plan *plan);

/* caps.c: root's capabilities. */
int caps_would_reduce(void);
int caps_prepare(cordon *c, const struct policy *p, const struct decision *d,
		 struct linux_plan *plan);
int caps_apply(const struct linux_plan *plan);

/* landlock.c: the write ruleset, the ABI, and what each ABI covers. */
/* The kernel's ABI version (> 0), or -errno of the version query. */
int landlock_query_abi(void);
/* The handled rights and scopes of an ABI version (capped at what cordon
 * knows). */
void landlock_attr_for_abi(int abi, struct ll_ruleset_attr *attr);
/* Gaps Landlock leaves at abi, with or without the mount layer, and the
 * layers it adds (signal scoping). */
void landlock_coverage(int abi, int mount_layer, struct coverage *cov);
int landlock_trial(const struct linux_trial *t);
int landlock_prepare(cordon *c, const struct policy *p, const struct decision *d,
		     struct linux_plan *plan);
int landlock_apply(const struct linux_plan *plan);
void landlock_free(struct landlock_plan *l);

/* layer-seccomp.c: a short list of denied system call uses. */
/* The filter for this architecture, built once; NULL when cordon has no
 * syscall table for it (the layer is then unavailable). */
const void *seccomp_program(void);
int seccomp_trial(const struct linux_trial *t);
int seccomp_prepare(cordon *c, const struct policy *p, const struct decision *d,
		    struct linux_plan *plan);
int seccomp_apply(const struct linux_plan *plan);

/* linux-probe.c: the probe's throw-away child, run once per process. */
/* Start fn in a child that gets a copy of the n bytes at arg, in memory
 * shared with the caller, while the caller goes on. Once per process. */
void probe_trial_start(int (*fn)(void *), const void *arg, size_t n);
/* Wait for it (2-second timeout): its copy of arg when it ran to its end
 * in time, else NULL. Stays valid for the life of the process. */
const void *probe_trial_collect(void);

#endif
#endif
