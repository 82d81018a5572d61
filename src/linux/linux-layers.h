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

#include "backend.h"
#include "compat.h"
#include "fsutil.h"
#include "strv.h"

#if defined(__linux__)

#include "landlock-abi.h"

#include <dirent.h>
#include <linux/capability.h>
#include <pthread.h>
#include <linux/filter.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- the plan: everything the child applies ---- */

struct mount_plan {
	int userns; /* not root: a user namespace too */
	int userns_at_clone; /* ... made by the clone that started the child */
	int limit_userns; /* ... which allows none below it (layer-userns.c) */
	char uid_map[48], gid_map[48];
	char **rw; /* writable trees and files, bound read-write */
	size_t nrw;
	char **pin; /* ancestors of protected paths: made mount
		       points so they cannot be renamed away */
	size_t npin;
	char **ro; /* protected paths, bound read-only */
	size_t nro;
	char *cwd; /* re-entered after mounting, or NULL */
	/* What the command must not read (secrets.c), covered after every
	 * other bind from a scratch tmpfs mounted for a moment on the run's
	 * dir: an empty directory nobody may enter (void), an empty
	 * read-only file (empty), or a directory holding only the names
	 * that stay readable, each bound from the original. */
	char *scratch, *void_dir, *empty_file;
	struct cover *covers;
	size_t ncovers;
	struct scratch_home *home; /* --scratch-home (layer-scratchhome.c), or NULL */
	/* The tool caches seen through overlays (layer-caches.c), mounted
	 * after the writable binds, before --review's and the scratch home. */
	struct ovl_held *cmounts;
	size_t ncmounts;
	/* --review (layer-review.c): the workspace as a held overlay, mounted
	 * after the writable binds and the caches' overlays, before the
	 * scratch home; or NULL. */
	struct ovl_held *review;
	/* The run's temp dirs (layer-tmp.c): the run's dir, bound on the
	 * private /tmp and /var/tmp. */
	char *rundir;
	struct tmp_view *views;
	size_t nviews;
	/* --max-tmp (limits.c): a tmpfs with these options on tmpfs_on (the
	 * run's dir), mounted after the binds; NULL: none. */
	char *tmpfs_on;
	char tmpfs_opts[96];
	/* ... and, unless shm_kept, one budget for the temp dir and /dev/shm:
	 * the directories tmp and shm made at the tmpfs's root, bound on the
	 * run's dir (over the root) and on /dev/shm; NULL: /dev/shm is a
	 * tmpfs of its own. */
	char *tmpfs_tmp, *tmpfs_shm;
	/* A writable tree of the run lies in the machine's /dev/shm (a
	 * state dir there, a workspace): no private /dev/shm over it, which
	 * would hide the tree; the machine's stays, read-only outside the
	 * writable set. */
	int shm_kept;
};

/* An overlay over a real tree whose writes are held under the state dir
 * (overlay.c): --review's workspace, a tool cache (its lower layers
 * cordon's shared layer, then the cache). */
struct ovl_held {
	char *target; /* the real tree: the mount point and the lowest layer */
	char *rundir; /* under the state dir: the child makes sK/{upper,work} in it */
	char *opts; /* the overlay's options, upper and work relative to sK */
	mode_t mode; /* the tree's mode, owner and group: its overlay root's */
	uid_t uid;
	gid_t gid;
};

/* A private temp dir: the run's dir, bound on view; each carry is a tree
 * of the run that lies in the machine's view (the workspace in /tmp),
 * shown there at its own path. */
struct tmp_view {
	char *view; /* canonical: "/tmp" */
	struct tmp_carry *carry;
	size_t ncarry;
};

/* What a carried tree is to the run, and so which mount attributes its
 * copy gets (layer-tmp.c). */
enum tmp_carry_kind {
	CARRY_WRITABLE, /* a writable tree or file: its copy as it is */
	/* A home or the working directory outside the writable set: its
	 * copy nodev, whole (it is read-only already, as its mount is, but
	 * for the writable trees below it, which stay so). */
	CARRY_READ_ONLY,
	CARRY_SOCKET /* an --allow-socket outside the writable set: read-only, nodev */
};

struct tmp_carry {
	char **comps; /* its path below the view, one component each */
	size_t ncomps;
	int is_dir;
	enum tmp_carry_kind kind;
};

struct cover {
	char *target; /* the denied path */
	char *src; /* void_dir, empty_file or its own scratch directory */
	int own; /* src is its own directory, made with keep_dst in it */
	int device; /* a device: gone since the scan (unplugged), nothing to cover */
	char **keep_src, **keep_dst; /* the readable names: original -> scratch */
	size_t nkeep;
};

/* The caller's terminal, /dev/pts/N on one of fds 0-2, bound over the
 * pty N of the run's own devpts (layer-devpts.c). */
struct devpts_tty {
	char name[32]; /* "/dev/pts/N" */
	unsigned index; /* N */
	dev_t dev, rdev;
	ino_t ino; /* the node, as the parent saw it */
	/* The child's scratch (one child at a time: the run's thread starts
	 * them): the masters of the instance's ptys 0..N, then the one of
	 * pty N that process 1 keeps, or -1. */
	int *masters;
	int held;
};

struct landlock_plan {
	struct ll_ruleset_attr attr;
	int *fds; /* O_PATH fds of the writable entries, close-on-exec */
	uint64_t *rights; /* the rights granted on each */
	size_t n;
	/* Rights on what the child mounts for itself (the private /dev/shm
	 * and /dev/pts), or 0: it grants their roots in its own ruleset. */
	uint64_t own_rights;
	/* The read layer (landlock-reads.c), restricted with before the
	 * write ruleset, or -1. */
	int read_fd;
};

/* The run's resource bounds (limits.c): its cgroups (one per hierarchy
 * used: v1 has one per controller), which each child joins first, and
 * the rlimits it sets. */
#define LIMITS_MAX_CGROUPS 2
struct limits_plan {
	char *dirs[LIMITS_MAX_CGROUPS]; /* made for the run, removed at its end */
	int procs_fd[LIMITS_MAX_CGROUPS]; /* their cgroup.procs, close-on-exec */
	size_t ndirs;
	uint64_t nproc; /* RLIMIT_NPROC, or 0 */
	uint64_t data; /* RLIMIT_DATA, or 0 */
};

struct linux_runner; /* backend-linux.c */

/* Room for the seccomp filter of every group (a bound the builder keeps;
 * the kernel's own is BPF_MAXINSNS, 4096). */
#define SECCOMP_MAX_INSNS 1024

struct linux_plan {
	unsigned prepared; /* the layers to apply: bits of enum layer_id */
	struct mount_plan *mount; /* NULL: no mount layer */
	int devpts; /* a devpts instance of its own on /dev/pts */
	struct devpts_tty *tty; /* the caller's terminal, named there too, or NULL */
	int pid_namespace; /* the child is process 1 of a new PID namespace */
	int ipc_namespace;
	int net_namespace; /* --network off: a network namespace, lo up */
	/* --network allow: the proxy's listener the child makes there,
	 * 127.0.0.1:proxy_port, sent over proxy_sock (SCM_RIGHTS) to the
	 * parent, which serves it; proxy_sock -1: none. */
	unsigned proxy_port;
	int proxy_sock;
	char **mqueue; /* the caller's mqueue mounts: covered by the run's */
	size_t nmqueue;
	int init_fd; /* memfd of the init program, or -1 */
	struct linux_runner *runner; /* the run's thread that starts children */
	struct supervisor *supervisor; /* Unix socket supervisor, or NULL */
	int no_new_privs;
	int reduce_caps;
	struct limits_plan limits;
	struct landlock_plan landlock;
	unsigned seccomp_groups; /* enum seccomp_group bits of the filter */
	/* The run's thread carries the filter (seccomp_start_run): every
	 * child inherits it, none installs its own. */
	int seccomp_on_runner;
	/* The filter; .len 0: none. .filter points into seccomp_insns. */
	struct sock_fprog seccomp;
	struct sock_filter seccomp_insns[SECCOMP_MAX_INSNS];
	/* The command's user namespaces refused (layer-userns.c): in the
	 * run's user namespace by its limit, else by the run's filter
	 * (SCG_USERNS); userns_filter is SCG_USERNS alone, the child's own
	 * when the limit could not be set. */
	int userns_refused;
	struct sock_fprog userns_filter;
	struct sock_filter userns_insns[160];
};

/* ---- what the probe's trial child gets, made in the parent ---- */

struct linux_trial {
	unsigned passed; /* the trials passed so far: bits of enum layer_id */
	int init_fd; /* memfd of the init program, or -1 */
	int userns;
	char uid_map[48], gid_map[48];
	struct ll_ruleset_attr attr; /* the ABI's handled rights */
	const struct sock_fprog *seccomp; /* seccomp_program() */
	int ptrace_blocked; /* supervisor_ptrace_blocked() */
	int reduce_caps; /* caps_would_reduce() */
};

/* ---- the layers (one file each) ---- */

/* layer-mountns.c: the command's own mount namespace. */
void mountns_identity(int *userns, char *uid_map, char *gid_map, size_t n);
int mountns_trial(const struct linux_trial *t);
int mountns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int mountns_apply(const struct linux_plan *plan);
/* text written to the file at path (a /proc/self id map): 0 or an
 * errno. CHILD-safe. */
int mountns_write_file(const char *path, const char *text);
/* In a child that joined the run's namespaces: a copy of the run's mount
 * namespace with its own /proc (pidns_apply), stdio reopened in it, the
 * cwd entered. */
int mountns_join(const struct linux_plan *plan);
/* Parent: fd (what the command gets as 0) is a regular file outside the
 * writable set that the run's view hides (the private /tmp, /var/tmp or
 * /dev/shm, the scratch home, a cover): a spawn cannot join the run's
 * namespaces and reach it again. */
int mountns_hides_stdin(const struct mount_plan *m, int fd);
void mountns_free(struct mount_plan *m);
/* layer-tmp.c: the run's own /tmp and /var/tmp (after the mount layer,
 * in its namespace). */
int tmp_trial(const struct linux_trial *t);
/* Parent: the views of this run (res->ptmp, plan->mount->views).
 * 0 or CORDON_E*. */
int tmp_layer_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
/* The carries of view v (v->view set, canonical) for this run's policy,
 * homes and working directory cwd (or NULL); sockets are looked at
 * (stat), nothing else. 0, or -1 without memory. */
int tmp_plan_view(const struct run_spec *run, const char *cwd, struct tmp_view *v);
/* The path of carry t of view v in buf: 0, or -1 when it does not fit.
 * Pure. */
int tmp_carry_path(const struct tmp_view *v, const struct tmp_carry *t, char *buf, size_t n);
void tmp_view_free(struct tmp_view *v);
/* Child, after the mount layer: each view bound, the trees carried into
 * it, the cwd entered again. 0 or errno. */
int tmp_apply(const struct linux_plan *plan);
void tmp_free(struct mount_plan *m);
/* layer-devpts.c: the command's own devpts (after the mount layer, in
 * its namespace). */
int devpts_trial(const struct linux_trial *t);
int devpts_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int devpts_apply(const struct linux_plan *plan);
void devpts_free(struct linux_plan *plan);
/* N when name is "/dev/pts/N" (N in decimal, no leading zero) and
 * (maj, min) is the device of that pty's slave; else -1. Pure. */
long devpts_tty_number(const char *name, unsigned maj, unsigned min);

/* layer-scratchhome.c: --scratch-home, an overlay on the home made by
 * the mount layer's apply (after the writable binds, before the covers). */
struct scratch_home;
/* The overlay's options for home (upper and work directories relative to
 * the cwd; userxattr in a user namespace) in size bytes: 0, or -1 when
 * they do not fit. Pure. */
int scratchhome_options(const char *home, int userns, char *out, size_t size);
int scratchhome_trial(const struct linux_trial *t);
/* path lies in the home the overlay covers. */
int scratchhome_holds(const struct scratch_home *h, const char *path);
/* Whether this process's runs can make the overlay on home: not in a
 * user namespace when a mount lies below it (the namespace inherits it
 * locked, and the kernel refuses such a lower layer). Reads
 * /proc/self/mountinfo; 1 when that cannot be read (the run's child
 * finds out). */
int scratchhome_home_ok(const char *home);
/* The mount point (fifth field, escapes decoded) of one line of
 * /proc/self/mountinfo: 0, or -1. Pure. */
int scratchhome_mount_point(const char *line, char *out, size_t size);
int scratchhome_prepare(const struct run_spec *run, struct run_result *res,
			struct linux_plan *plan);
/* Child, in mountns_apply: 0 or errno. */
int scratchhome_mount(const struct mount_plan *m);
/* The home the plan covers, or NULL. */
const char *scratchhome_path(const struct linux_plan *plan);
void scratchhome_free(struct scratch_home *h);

/* overlay.c: the mount layer's overlays. */
/* Append s to out (size bytes, at: its length so far), escaped as an
 * overlay option value (',', ':' and '\\' with '\\') or as it is: 0, or
 * -1 when it does not fit. Pure. */
int ovl_put_escaped(char *out, size_t size, size_t *at, const char *s);
int ovl_put(char *out, size_t size, size_t *at, const char *s);
/* Child, in mountns_apply: o mounted on o->target from a fresh slot of
 * o->rundir (see overlay.c). 0 or errno. */
int ovl_held_mount(const struct ovl_held *o);

/* layer-review.c: --review, the workspace as a held overlay. */
/* The overlay's options (upper and work relative to the slot; userxattr
 * in a user namespace) in size bytes: 0, or -1 when they do not fit.
 * Pure. */
int review_options(const char *workspace, int userns, char *out, size_t size);
/* Parent, in mountns_prepare: m->review when the run has a review dir.
 * 0 or CORDON_E* (res->error set). */
int review_prepare(const struct run_spec *run, struct run_result *res, struct mount_plan *m);
/* The name of a file system (statfs f_type) overlayfs cannot take as an
 * upper layer (NFS, FUSE, an overlay...), or NULL. Pure. */
const char *review_upper_unfit(long f_type);
void review_free(struct mount_plan *m);
/* Child, in landlock_apply: the overlay's root granted rights. 0 or
 * errno. */
int review_grant(const struct linux_plan *plan, int ruleset, uint64_t rights);

/* layer-caches.c: the tool caches seen through overlays (a part of the
 * mount layer; their layers: src/core/cachelayer.c). */
/* The overlay's options for the cache (lower layers and upper and work
 * dirs relative to the run's sK dir; userxattr in a user namespace) in
 * size bytes: 0, or -1 when they do not fit. Pure. */
int cachemount_options(const char *cache, int userns, char *out, size_t size);
/* Parent, in mountns_prepare: m->cmounts from the writable entries that
 * have a layer. 0 or CORDON_E* (res->error set). */
int cachemount_prepare(const struct run_spec *run, struct run_result *res, struct mount_plan *m);
/* Child, in mountns_apply after the writable binds: 0 or errno. */
int cachemount_apply(const struct mount_plan *m);
/* Child, in landlock_apply: each overlay's root granted rights in
 * ruleset. 0 or errno. */
int cachemount_grant(const struct linux_plan *plan, int ruleset, uint64_t rights);
void cachemount_free(struct mount_plan *m);
/* The backend's cache_layers: whether overlays with their upper dirs in
 * dir work for a run of d (the mount layer, a file system that can hold
 * an upper dir), tried once and kept in dir. */
int cachemount_usable(const struct decision *d, const char *dir);

/* layer-pidns.c: the PID namespace (and cordon-init as its process 1),
 * and the IPC namespace. */
/* A sealed memfd holding the init program (close-on-exec), or -errno. */
int init_memfd(void);
/* The process's one such memfd (made once, never closed), or -errno. */
int init_memfd_shared(void);
int pidns_trial(const struct linux_trial *t);
int pidns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int pidns_apply(const struct linux_plan *plan);
/* In process 1, after every layer: start cmd(cmd_arg) as its child on
 * cmd_stack, exec the init program with statusfd, and only then let the
 * command go on. Returns only on failure (errno; the command never ran),
 * with errfd (the spawn's error pipe) still open to report it. */
int pidns_become_init(const void *state, int (*cmd)(void *), void *cmd_arg, void *cmd_stack,
		      size_t cmd_stack_size, int statusfd, int errfd);
int ipcns_trial(const struct linux_trial *t);
int ipcns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int ipcns_apply(const struct linux_plan *plan);
int netns_trial(const struct linux_trial *t);
int netns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int netns_apply(const struct linux_plan *plan);
/* Bring the loopback interface of the current network namespace up: 0
 * or errno. */
int netns_loopback_up(void);

/* limits.c: --max-procs, --max-memory, --max-tmp. */
/* Parent, after the layers' prepare: how each bound is applied here
 * (res->procs_by, memory_by, tmp_by), the run's cgroups made. 0 or
 * CORDON_E*. */
int limits_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
/* Child, its first step: into the run's cgroups. 0 or errno. */
int limits_enter(const struct linux_plan *plan);
/* Child, once its user namespace exists: the rlimits. 0 or errno. */
int limits_apply(const struct linux_plan *plan);
/* Parent, at the run's end (every process of it gone): the cgroups
 * removed. */
void limits_free(struct limits_plan *l);

/* caps.c: root's capabilities. */
int caps_would_reduce(void);
int caps_trial(const struct linux_trial *t);
int caps_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int caps_apply(const struct linux_plan *plan);
/* The capabilities a reduced command keeps (bit n: capability n). */
uint64_t caps_kept(void);
/* The most a command of this plan may hold: caps_kept() when the plan
 * reduces them, else everything (the command keeps cordon's own). */
uint64_t caps_ceiling(const struct linux_plan *plan);
/* low: own with its effective set cut to ceiling (the other sets as they
 * are). 1 when that lowers anything. Pure. */
int caps_lowered(const struct __user_cap_data_struct own[2], uint64_t ceiling,
		 struct __user_cap_data_struct low[2]);
/* A thread that makes calls for the commands (the socket supervisor's
 * workers): its own capabilities and those lowered to the ceiling. */
struct thread_caps {
	int state; /* 1: lowered around each call; 0: nothing to lower; -1: unknown */
	int lowered; /* the thread's effective set is low now */
	struct __user_cap_data_struct own[2], low[2];
};
/* Of the calling thread, once. */
void caps_thread_init(struct thread_caps *tc, uint64_t ceiling);
/* Another thread's own (from caps_thread_init) made the calling
 * thread's, whatever it inherited (a thread started by one lowered
 * around a call); state -1 when they cannot be set. */
void caps_thread_adopt(struct thread_caps *tc, const struct __user_cap_data_struct own[2],
		       uint64_t ceiling);
/* The calling thread's effective set lowered (0), or errno: make no call
 * for the command then; no system call when it is low already. Raised
 * again by caps_thread_restore (none when it is not low), which keeps
 * errno. */
int caps_thread_lower(struct thread_caps *tc);
void caps_thread_restore(struct thread_caps *tc);

/* landlock-sys.c: what both Landlock rulesets are built with. */
/* The system calls (return value, errno). */
long ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size, uint32_t flags);
long ll_add_rule(int fd, const struct ll_path_beneath_attr *attr);
long ll_restrict_self(int fd);
/* Grant rights on path (followed) in ruleset: 0, or errno; a path that
 * is not there: 0, nothing to grant. */
int landlock_grant_path(const char *path, int ruleset, uint64_t rights);

/* landlock.c: the write ruleset, the ABI, and what each ABI covers. */
/* The kernel's ABI version (> 0), or -errno of the version query. */
int landlock_query_abi(void);
/* The handled rights and scopes of an ABI version (capped at what cordon
 * knows). */
void landlock_attr_for_abi(int abi, struct ll_ruleset_attr *attr);
/* The network rights an ABI can refuse (0 below ABI 4). */
uint64_t landlock_net_rights(int abi);
/* Gaps Landlock leaves at abi, with or without the mount layer, and the
 * layers it adds (signal scoping). */
void landlock_coverage(int abi, int mount_layer, struct coverage *cov);
int landlock_trial(const struct linux_trial *t);
int landlock_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int landlock_apply(const struct linux_plan *plan);
void landlock_free(struct landlock_plan *l);
/* The command under process 1: a Landlock domain nested in the run's,
 * so it cannot ptrace, open /proc/1/{fd,mem}, or (ABI 6) signal process
 * 1, which stays in the outer one. 0 or errno. */
int landlock_nest(int abi);

/* landlock-reads.c: the read layer, without the mount layer. */
/* Called for each entry granted: name in the directory dfd, with its
 * readdir type (DT_UNKNOWN: look). dfd is the directory being walked,
 * open until its done call, or (inside: 1) a denied directory's, open
 * only during this call (~/.ssh's readable names). 0 to go on, or
 * -errno. */
typedef int (*reads_grant_fn)(void *arg, int dfd, const char *name, unsigned char type, int inside);
/* Called once a directory's entries were all given to fn, while dfd is
 * still open (NULL: none). 0 to go on, or -errno. */
typedef int (*reads_done_fn)(void *arg, int dfd);
/* Every entry beside the ways from / to the denied paths the layer
 * holds (and ~/.ssh's readable names). 0, 1 past max entries, or -errno
 * (a directory on the way that cannot be listed, or fn's). */
int reads_walk(const struct policy *p, size_t max, reads_grant_fn fn, reads_done_fn done,
	       void *arg);
/* Parent: l->read_fd, the read ruleset, or -1 when nothing needs it or
 * it could not be built (res->reads_unbuilt). 0 or CORDON_E*. */
int reads_prepare(const struct policy *p, struct landlock_plan *l, struct run_result *res);

/* unix-supervisor.c: pathname Unix sockets checked by cordon (ABI < 9). */
struct supervisor;
/* 1 when Yama forbids cordon to take a command's fds (pidfd_getfd needs
 * ptrace rights over it): ptrace_scope 3, or 2 without CAP_SYS_PTRACE.
 * Parent, before the trial. */
int supervisor_ptrace_blocked(void);
int supervisor_trial(const struct linux_trial *t);
/* 1 when the kernel takes this control message (level, type, its len
 * bytes of data) only from a sender with CAP_NET_RAW or CAP_NET_ADMIN in
 * the socket's network namespace. Pure. */
int supervisor_cmsg_privileged(int level, int type, const void *data, size_t len);
int supervisor_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
/* The supervisor before the run's policy is known (its threads may
 * start); supervisor_prepare fills it in. NULL (errno) on failure. */
struct supervisor *supervisor_new(void);
/* In the run's thread, before any command: its threads, then the run's
 * filter of these groups (with the notifying rules). 0 or errno. */
int supervisor_start(struct supervisor *s, unsigned groups);

/* ---- linux-runner.c: the run's thread and the run's namespaces ---- */
pid_t linux_clone_child(int (*fn)(void *), void *arg, void *stack, size_t size,
			unsigned long flags);
/* The run's thread: runner_launch starts it (it sets up the supervisor's
 * threads and the run's filter of these groups at once, beside the
 * caller's work), runner_adopt gives it its plan and waits until that
 * setup is done (0 or its errno); runner_new is both. */
struct linux_runner *runner_launch(struct supervisor *sup, unsigned groups);
int runner_adopt(struct linux_runner *r, struct linux_plan *plan);
struct linux_runner *runner_new(struct linux_plan *plan, struct supervisor *sup, unsigned groups);
void runner_free(struct linux_runner *r);
pid_t runner_start(const void *state, int (*fn)(void *), void *arg, void *stack, size_t size,
		   int tty, int stdin_fd);
void runner_after_exec(const void *state, pid_t pid, int reached);
/* layer-userns.c: no user namespace of the command's own. */
int userns_trial(const struct linux_trial *t);
int userns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int userns_apply(const struct linux_plan *plan);
/* Whether the run refuses the command's user namespaces by the filter:
 * the layer is on and cordon makes no user namespace for the run (root,
 * or no mount layer), whose own limit would hold them. */
int userns_by_filter(unsigned layers_on);
/* CHILD: in a user namespace cordon just made (mountns): allow none below
 * it (user.max_user_namespaces 0); an error is not fatal here (the
 * layer's apply checks, and falls back on the filter). */
void userns_limit(void);

/* Child: whether it joined the run's namespaces (else it makes them). */
int runner_joining(const struct linux_plan *plan);
/* The command's process (layer-pidns.c), before anything of the command:
 * waits while the run's thread opens the namespaces its spawn made. */
void runner_gate_wait(const struct linux_plan *plan);
void supervisor_free(struct supervisor *s);

/* layer-seccomp.c: denied and supervised system call uses, in groups. */
/* Groups of seccomp rules; a run's filter holds the groups its plan asks for. */
enum seccomp_group {
	SCG_TERMINAL = 1u << 0, /* ioctl TIOCSTI, TIOCLINUX: EPERM */
	SCG_SETID = 1u << 1, /* no setuid/setgid files: EPERM; openat2: ENOSYS */
	SCG_KEYRINGS = 1u << 2, /* add_key, request_key, keyctl: EPERM */
	SCG_PROCESSES = 1u << 3, /* acting on another process by pid: EPERM */
	SCG_IO_URING = 1u << 4, /* io_uring_setup: EPERM */
	SCG_UNIX_NOTIFY = 1u << 5, /* connect, sendto with an address, sendmsg,
				     sendmmsg: SECCOMP_RET_USER_NOTIF; i386
				     socketcall: ENOSYS */
	/* --network off without a network namespace: socket and socketpair
	 * of every family but AF_UNIX: EACCES; socketcall: ENOSYS */
	SCG_NET_ALL = 1u << 6,
	/* --network off with one: of every family but AF_UNIX, AF_INET,
	 * AF_INET6, AF_NETLINK and AF_PACKET (isolated by the namespace):
	 * EACCES; socketcall: ENOSYS */
	SCG_NET_NS = 1u << 7,
	/* no user namespace of the command's own: unshare and clone with
	 * CLONE_NEWUSER: EPERM; clone3: ENOSYS */
	SCG_USERNS = 1u << 8
};
#define SECCOMP_GROUPS_ALL (((unsigned)SCG_USERNS << 1) - 1u)

/* Build the filter for these groups into out (room for max instructions).
 * Returns the number of instructions; 0 when this architecture has no
 * table (the layer is unavailable); -1 when it does not fit. Pure: no
 * system call, usable in a parent before fork. */
int seccomp_build(unsigned groups, struct sock_filter *out, size_t max);
/* The filter of every group, built once: what the trial installs, so a
 * kernel refusing the largest filter is found. NULL when cordon has no
 * syscall table for this architecture (the layer is then unavailable). */
const struct sock_fprog *seccomp_program(void);
/* Install prog on the calling thread with SECCOMP_FILTER_FLAG_NEW_LISTENER
 * (seccomp(2); needs no_new_privs or CAP_SYS_ADMIN): its USER_NOTIF calls
 * wait for whoever reads the returned fd (close-on-exec), and fail with
 * ENOSYS once it is closed. Returns the fd, or -errno. */
int seccomp_install_listener(const struct sock_fprog *prog);
int seccomp_trial(const struct linux_trial *t);
int seccomp_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan);
int seccomp_apply(const struct linux_plan *plan);
/* The seccomp layer's groups for a run (seccomp_prepare's); userns: the
 * run refuses the command's user namespaces by the filter (SCG_USERNS:
 * cordon makes no user namespace of its own to limit, layer-userns.c). */
unsigned seccomp_groups_for(int pid_namespace, int network_off, int net_namespace, int userns);
/* On the run's thread, before it starts any command: no_new_privs, the
 * keyring step of seccomp_apply (with SCG_KEYRINGS), then one filter of
 * these groups. With listener non-NULL it is installed with a listener,
 * whose fd goes there. 0 or errno. */
int seccomp_start_run(unsigned groups, int *listener);

/* The tables behind the filter, for tests. Every table is compiled into
 * every Linux build; the filter holds those of the build's architecture. */
enum seccomp_abi {
	SCA_X86_64,
	SCA_X32,
	SCA_X32_OLD, /* x32 calls by their 64-bit numbers (older kernels) */
	SCA_I386,
	SCA_AARCH64,
	SCA_ARM, /* EABI */
	SCA_COUNT
};
/* Its audit architecture (AUDIT_ARCH_*, as seccomp_data.arch has it). */
uint32_t seccomp_abi_arch(enum seccomp_abi abi);
/* Whether this build's filter holds it. */
int seccomp_abi_built(enum seccomp_abi abi);
/* The name of the i-th call the rules use (as the kernel's tables spell
 * it), or NULL past the last. */
const char *seccomp_call_name(size_t i);
/* The number the filter compares for call name in abi (x32's with the x32
 * bit), or -1 when the ABI has no such call (or no rule names it). */
long seccomp_abi_nr(enum seccomp_abi abi, const char *name);

/* linux-probe.c: the probe's throw-away child, run once per process. */
/* Start fn in a child that gets a copy of the n bytes at arg, in memory
 * shared with the caller, while the caller goes on. Once per process. */
void probe_trial_start(int (*fn)(void *), const void *arg, size_t n);
/* Wait for it (2-second timeout): its copy of arg however it ended (it
 * marks in it how far it came), NULL only without memory; *timed_out is
 * 1 when it had to be killed at the timeout. Valid for the process's
 * life. */
const void *probe_trial_collect(int *timed_out);

#endif
#endif
