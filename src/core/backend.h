/*
 * The backend interface: one file per platform mechanism, each behind
 * these few operations (OpenSSH's sandbox-*.c are the model). A backend
 * is compiled on every platform; what needs the platform is fenced inside
 * its file, so the interface and the "unavailable" answer exist
 * everywhere. Adding a platform is one backend-*.c file and one line in
 * backends.c.
 *
 * A backend keeps its own state private and never sees the handle:
 * prepare() reads the run's description (struct run_spec) and answers
 * with a struct run_result, whose struct launch is the backend-neutral
 * description of what the spawner must do for each command: a launcher
 * argv to prepend, fds the child needs until its hook has run, and the
 * hook itself. Nothing else of the backend is visible to spawn.c.
 */
#ifndef CORDON_BACKEND_H
#define CORDON_BACKEND_H

#include "base.h"
#include "cordon.h"
#include "ids.h"
#include "policy.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The decision (cordon.c): what the backend covers, and what a run
 * uses of it. */
struct coverage {
	unsigned layers; /* bit set of enum layer_id */
	uint64_t gaps; /* bit set of enum gap_id */
	int protects; /* protected paths are enforced */
	int refuses_absent; /* a protected path that does not exist cannot be made */
	/* An agent-configuration name cannot be made or changed at any depth
	 * of the workspace and the --allow-write directories (the policy's
	 * held_names: Seatbelt's pattern), but where the run's prepare says
	 * it could not write a tree's path as one. */
	int holds_below;
	enum deny_by denies_reads; /* how the deny-read paths are kept unreadable */
	unsigned unsure; /* layers assumed to work: no child has applied
			    them yet in this process (bit set of enum layer_id) */
	/* The backend's network layers: of layers, those listed and used
	 * only for --network off (net_layers), and of those, what --network
	 * off uses (net_off); whether they refuse every network socket, not
	 * only TCP (net_whole), and give the run a loopback of its own
	 * (net_own_loopback). */
	unsigned net_layers, net_off;
	int net_whole, net_own_loopback;
};

struct backend;

struct decision {
	const struct backend *backend;
	int applied;
	enum reason_id reason; /* REASON_NONE when applied */
	enum reason_id cause; /* the platform reason behind REASON_UNAVAILABLE */
	const char *detail; /* what the platform's probe saw, or NULL */
	int abi, kernel_abi;
	struct coverage cov;
	/* The backend's layers as the probe gave them, before this run's
	 * policy added or took any (policy_coverage): what decision_changed
	 * compares. */
	unsigned offered;
	/* --network off is enforced in this run: the network_* layers of
	 * cov are listed (the backend offers them; a run uses them only
	 * then, so the probe and runs with the network on do not list them) */
	int network_listed;
	const char *layer_list[LAYER_COUNT + 1];
	const char *gap_list[GAP_COUNT + 1];
};

/* What a backend prepared (released in backends.c). */
/* What a prepared run does for each command it starts. */
struct launch {
	/* A launcher to run the command under (Seatbelt: sandbox-exec -p
	 * PROFILE ... --), or NULL. Its first word is an absolute path. */
	char **argv_prefix;
	size_t nprefix;
	/* fds the child must keep open until hook() has run (all
	 * close-on-exec, so the command never sees them). */
	int *keep_fds;
	size_t nkeep;
	/* The child's last step before exec, or NULL: async-signal-safe,
	 * returns 0 or an errno value; on failure the command is not run.
	 * It may use only state, which the parent built and does not change
	 * while a child runs. */
	int (*hook)(const void *state);
	const void *state;
	/* Starts the child in place of child_start(), or NULL: e.g. from a
	 * thread that lives as long as the run, into new namespaces. tty:
	 * one of the fds the command gets as 0-2 is a terminal; stdin_fd:
	 * the fd it gets as 0. */
	pid_t (*start)(const void *state, int (*fn)(void *), void *arg, void *stack, size_t size,
		       int tty, int stdin_fd);
	/* In the child, after hook(), or NULL (the child becomes the command):
	 * start the command, cmd(cmd_arg) on cmd_stack, as a child of this
	 * process, which stays behind as the run's reaper and reports the
	 * command's stops and end on statusfd (records of 8 bytes: 'S' and
	 * the stop signal, or 'X' and the wait status, as ints at offset 4).
	 * Returns only on failure, with an errno value. */
	int (*init)(const void *state, int (*cmd)(void *), void *cmd_arg, void *cmd_stack,
		    size_t cmd_stack_size, int statusfd, int errfd);
	/* Parent, or NULL: the child and its command have exec'd or gone
	 * (the end of the error pipe); nothing runs on the caller's memory
	 * any more. pid: the child (not reaped yet); reached: it said it
	 * applied every step. */
	void (*after_exec)(const void *state, pid_t pid, int reached);
	/* The backend's own release of state (parent). */
	void (*release)(void *state);
};

/* Frees what a backend's prepare() made, leaving l empty. */
void launch_release(struct launch *l);

/* How probe() is called: what it should do before it answers. */
struct probe_opts {
	int max_abi; /* tests only, 0 = none: caps the version used */
	/* At the top of a run: start what the probe may need early, so that
	 * it overlaps the caller's own preparation (Linux: the trial child,
	 * when a refusal is likely). Nothing is answered (out may be NULL). */
	int early;
	/* Make every layer sure first, by trying them all in a throw-away
	 * child (at most once per process; every trial has a timeout).
	 * cordon probe does, and so does a run whose first child met a
	 * refusal: what it finds is the decision from then on. */
	int settle;
	/* A child of a run applied these layers (a bit set of enum
	 * layer_id) and went on to exec: they work here. */
	unsigned confirmed;
	/* The home a scratch home would cover, or NULL: the coverage
	 * offers the scratch home's layer only where it can be made on
	 * this home (a run's question, asked by the probe alike). */
	const char *scratch_home;
};

/* What the platform's probe found. */
struct backend_probe {
	int available;
	enum reason_id reason; /* when unavailable */
	int abi; /* version in use (after any test cap), 0 if none */
	int kernel_abi; /* what the platform reported */
	const char *detail; /* what the probe saw when unavailable, or NULL;
			       static, lives as long as the process */
	/* When available: the layers applied and gaps left at this version,
	 * whether protected paths are enforced, the network layers, and
	 * which layers are still unsure. */
	struct coverage cov;
};

/* One run, as the core resolved it before the backend's prepare: read
 * only, and it outlives what prepare made. */
struct run_spec {
	const struct policy *pol; /* paths, deny list, caches, sockets, network */
	const struct decision *dec; /* the backend's layers for this run, its ABI */
	const char *rundir; /* STATE/runs/XXXXXX (the command's TMPDIR), or NULL */
	const char (*homes)[CORDON_PATH_MAX]; /* canonical $HOME, passwd home */
	int nhomes;
	uint64_t max_procs, max_memory, max_tmp; /* 0: none */
	const char *run_id; /* 32 hex digits */
	/* --review: STATE/review/RUN_ID, where the workspace's writes are
	 * held (the mount layer's overlay), or NULL. */
	const char *review_dir;
	void *started; /* what start() made for this run, or NULL */
};

/* What a backend's prepare learnt: the core copies it into the handle
 * (and the status event), after a failure too. */
struct run_result {
	struct launch launch; /* what to do for each command (below) */
	int started_taken; /* prepare took run_spec.started (used or freed) */
	int started_adopted; /* ... and used it (a test sees that it did) */
	int tmp_planned; /* the private /tmp layer ran: ptmp and tmp_read_only_shown say */
	/* The run's own /tmp and /var/tmp (views: see struct policy). */
	struct private_tmp ptmp[2];
	size_t nptmp;
	int tmp_read_only_shown;
	int reads_unbuilt; /* -1: not prepared; 1: the read layer was not built */
	enum limit_by procs_by, memory_by, tmp_by; /* LIMIT_BY_NONE: not applied */
	int tmp_shm; /* --max-tmp's budget holds the run's /dev/shm too */
	/* coverage.holds_below, but a tree whose path the backend could not
	 * write as a pattern: no rule holds the names below its levels */
	int held_depth_unexpressed;
	char error[512]; /* the message of a failure, or "" */
};

/* A failure of prepare: its message into res->error, code returned
 * (backends.c). _errno adds strerror(err), as cordon_fail_errno does. */
int backend_fail(struct run_result *res, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int backend_fail_errno(struct run_result *res, int code, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

struct backend {
	enum backend_id id; /* its name is cordon_backend_ids[id] */
	/* Do what o asks, then, when out is not NULL, decide availability
	 * from what is known in this process. Never walks the file system.
	 * A layer nobody has tried yet is assumed to work: the run's first
	 * child applies every layer before it execs, so it is the trial
	 * (cov.unsure lists such layers). */
	void (*probe)(const struct probe_opts *o, struct backend_probe *out);
	/* Parent, before any child: everything that can fail, from run
	 * (never changed). 0, or a CORDON_E* code with res->error set; what
	 * it made is in res->launch either way (the core releases it). */
	int (*prepare)(const struct run_spec *run, struct run_result *res);
	/* Optional, at the top of a run, when the decision needs no trial
	 * to wait for: start what prepare will need and can make without
	 * the run's policy, so that it overlaps the run's own preparation.
	 * Returns it for run_spec.started, or NULL. */
	void *(*start)(int max_abi, int network_off);
	/* Frees what start() made, when prepare did not take it. */
	void (*release)(void *started);
	/* Optional: whether a run of this decision can see the tool caches
	 * through overlays whose upper dirs lie in dir (STATE/layers; made):
	 * 1 or 0. NULL: never (the caches are moved by their variables). */
	int (*cache_layers)(const struct decision *d, const char *dir);
};

extern const struct backend cordon_backend_landlock;
extern const struct backend cordon_backend_seatbelt;
extern const struct backend cordon_backend_none;

/* The backend cordon uses on this platform (backends.c). */
const struct backend *backend_for_platform(void);

/* What the core offers a backend's child (spawn.c): in a child of the
 * spawn before exec (async-signal-safe), report that confinement failed
 * with err on the spawn's error pipe, and _exit 125. */
void spawn_report_confine(int errfd, int err);

#endif
