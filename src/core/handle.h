/*
 * The handle, struct cordon, and the core's functions that take it. Only
 * the core's files (src/core/) and the git guard include this; a backend
 * never does (it sees a struct run_spec, backend.h). Nothing here is
 * exported (the objects are built with hidden visibility and the archive
 * localises them; see the Makefile); the public contract is
 * include/cordon.h.
 */
#ifndef CORDON_HANDLE_H
#define CORDON_HANDLE_H

#include "backend.h"
#include "compat.h"
#include "cordon.h"
#include "env.h"
#include "error.h"
#include "fsutil.h"
#include "policy.h"

#include <dirent.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- policy.c, secrets.c: resolving the policy from the handle ---- */
/* The deny list of the run into c->pol: the defaults that exist under
 * each home (unless --allow-read or off), and --deny-read (which must
 * exist). 0, or an error with its message. */
int secrets_resolve(cordon *c);

/* Fill c->homes (call at the start of a run): 0, or an error (a home
 * longer than CORDON_PATH_MAX). */
int homes_load(cordon *c);
/* Canonicalise and check the workspace and the --allow-write paths: the
 * writable set. 0, or an error (CORDON_ENOMEM without a message). */
int policy_resolve_writable(cordon *c);
/* Once the writable set and the caches' locations are known: each path
 * checked again against them all, then the --protect paths and the
 * allowed sockets. 0, or an error (CORDON_ENOMEM without a message). */
int policy_resolve(cordon *c);
/* --scratch-home: c->pol.scratch_home for this run (once the writable
 * set is whole). 0 or CORDON_ENOMEM. */
int policy_scratch_home(cordon *c);
/* 1 when path is "/", a home or an ancestor of one (and not allowed). */
int policy_is_broad(const cordon *c, const char *path);

/* ---- workdir.c: where the commands start ---- */
/* The run's working directory into c->pol.cwd (call before homes_load:
 * a relative HOME is taken from there): --cwd, else the caller's current
 * directory when it lies in the workspace, else the workspace. 0 with no
 * choice made when the workspace cannot be resolved (policy_resolve_writable()
 * then says why), or an error. */
int workdir_choose(cordon *c);
/* After policy_resolve(): the choice agrees with the canonical workspace
 * (chosen now when it could not be before). 0 or an error. */
int workdir_confirm(cordon *c);
/* After the plan: refused (CORDON_EINVAL, with a message) when it lies in
 * a path the command may not read. */
int workdir_readable(cordon *c);
/* The command's PWD (c->envp) names it when it is not the caller's. */
int workdir_env(cordon *c);

/* ---- cachelayer.c: the tool caches' shared layers ---- */
/* Whether this run sees the caches through overlays: the decision's
 * backend can make them, with their upper dirs under STATE/layers. */
int cachelayer_usable(cordon *c);
/* The layer of the cache at path (canonical, a directory) for this run:
 * STATE/layers/NAME made, dead runs' dirs there swept, the run's own
 * made and locked. 0, or -1 (errno) when it cannot be. */
int cachelayer_open(cordon *c, enum cache_tool tool, const char *path, struct cache_layer **out);
/* Once every process of the run is gone: each cache's writes merged
 * into its layer, the run's dirs removed, the layers released. */
void cachelayer_end(cordon *c);

/* ---- passfile.c: single files the command may write (--pass-file) ---- */
struct passfile;
/* Each pass file made or found, and checked: 0 or an error with its
 * message. After homes_load (the state dir), before the policy. */
int passfile_prepare(cordon *c);
/* The run's pass files, canonical: for the writable set (policy.c). */
size_t passfile_count(const cordon *c);
const char *passfile_path(const cordon *c, size_t i);
/* The end of the run: a pass file made by it that is still empty is
 * removed; the list is freed. */
void passfile_release(cordon *c);

/* ---- runtmp.c: the run's own dir ---- */
/* The state dir (--state-dir; inside a confined run, CORDON_RUN_ID set,
 * $TMPDIR/cordon; XDG_STATE_HOME/cordon; ~/.local/state/cordon): 0, -1
 * when there is none (HOME unset or empty, and none of the others), -2
 * when too long, -3 when it would be under a home that does not exist. */
int runtmp_state_dir(const cordon *c, char *out, size_t outlen);
/* STATE/caches of the run (made 0700 when missing), where missing tool
 * caches are moved: 0, or -1 when it cannot be made or is not a
 * directory of the caller's own closed to group and others. */
int runtmp_caches_dir(const cordon *c, char *out, size_t outlen);
/* The run's state dir, from its run dir (STATE/runs/XXXXXX): 0, or -1
 * when there is none or it does not fit. */
int runtmp_state_of_run(const cordon *c, char *out, size_t outlen);
/* Make and lock the run's dir; when runs/ holds a dir nobody locks, start
 * the sweep of dead runs' dirs in a thread of the run. */
int runtmp_create(cordon *c);
/* Stop and join the sweep, remove the run's dir: 0, or -1 when some of it
 * is left (the message says what; a later run's sweep tries again). */
int runtmp_remove(cordon *c);
struct runtmp_sweep;

/* ---- caches.c (moves missing caches under runtmp.c's state dir) ---- */
int caches_resolve(cordon *c, int layered);

/* ---- stdfds.c: fds 0-2 that point outside, and a spawn's own ---- */
/* What a command gets as fds 0-2: the caller's own, or fds the spawn
 * gives it (cordon_spawn_stdio, spawnio.c). */
struct spawn_io {
	int src[3]; /* the fd that becomes 0, 1, 2 (k itself: the caller's own) */
	unsigned own; /* bit k: src[k] is the spawn's, put in place by the child */
};
/* The caller's own fds 0-2 (cordon_spawn). */
void spawn_io_inherit(struct spawn_io *io);
enum stdio_action { STDIO_KEEP, STDIO_NULL };
struct stdio_plan {
	enum stdio_action action[3];
};
/* Parent, per command, for the fds io gives it. */
void stdio_plan_make(const cordon *c, const struct spawn_io *io, struct stdio_plan *sp);
/* Parent, per command: CORDON_EREFUSED (with its message) when an fd of
 * the spawn's own would need a gap the run does not report, else 0. */
int stdio_refusal(cordon *c, const struct spawn_io *io);
/* Child, before the fds are closed: the spawn's own fds as 0-2; 0 or
 * errno. */
int stdio_take(const struct spawn_io *io);
/* Child, after confinement: async-signal-safe; 0 or errno. */
int stdio_plan_apply(const struct stdio_plan *sp);
/* 1 when an outside regular file on fds 0-2 keeps its metadata
 * changeable (the gap stdio_metadata_not_restricted): on fd 1 or 2, or
 * on fd 0 one the mount layer cannot open again by its name. */
int stdio_metadata_gap(const cordon *c);
/* A network socket (not AF_UNIX) on fd 0-2 or a kept fd. */
int inherited_network_socket(const cordon *c);

/* ---- statusdest.c: where the events go ---- */
/* Confined: the status fd is refused (CORDON_EREFUSED, with a message)
 * when it is a file a command could reach by a name (inside a tree some
 * run may write, or with other names on such a tree's file system) or a
 * --keep-fd. Call once the writable set and the run's dir are known. */
int statusdest_check_fd(cordon *c);
/* Open the status file (c->status_file_fd); confined, refused the same
 * way, before it is made. 0 or an error with its message. */
int statusdest_open_file(cordon *c);

/* ---- emit.c: the events' writer ---- */
#define STATUS_LOST_FD 1u
#define STATUS_LOST_FILE 2u
/* One line (a newline added) to the status fd and file, whole, one
 * writer at a time: the run's own events and the proxy's threads'. */
void status_emit(cordon *c, const char *line);

/* ---- status.c: the JSON events ---- */
char *status_start_json(const cordon *c);
/* The exit event: run_code is the status the run ends with (what the CLI
 * exits with), r the command's. */
char *status_exit_json(const cordon *c, const struct cordon_result *r, int run_code);
/* A new run id and the run's start times in c. */
void status_run_begins(cordon *c);

/* ---- explain.c: what a refusal looks like ---- */
struct jbuf;
/* The exit event's "possible_refusals": {kind, means} per kind of
 * refusal this run's policy can cause (whether or not one happened:
 * cordon sees few of them); null when confinement was not applied. */
void status_possible_refusals(struct jbuf *b, const cordon *c);
/* The --explain lines (c->explain: CORDON_EXPLAIN_SHORT or _FULL) for a
 * confined command that ended with r: one or two lines, newline-separated
 * and without the last newline (caller frees), or NULL. */
char *status_explain(const cordon *c, const struct cordon_result *r);

/* The backend's prepare for the run as the handle has it now
 * (cordon.c): what it learnt copied into the handle. 0, or its error
 * with its message. */
int run_prepare(cordon *c);

struct optstate;

/* ---- the handle (cordon.c) ---- */
enum stage { ST_NEW, ST_PROBED, ST_BEGUN, ST_ENDED };

struct cordon {
	/* configuration, recorded by the setters (config.c) */
	enum cordon_mode mode;
	char *workspace_opt;
	char *cwd_opt; /* cordon_set_cwd: canonical */
	struct strv allow_write, protect, envspec, allow_socket, deny_read, allow_read;
	struct strv allow_agent_config; /* held agent-configuration paths left writable */
	struct strv pass_file; /* cordon_add_pass_file, as given */
	int default_deny_read;
	enum cordon_network network;
	struct netconf *net; /* --network allow: its list and the run's proxy (netproxy.c) */
	unsigned caches;
	int default_protect, clean_env, allow_broad, foreground, reap_all;
	int explain; /* enum cordon_explain */
	int scratch_home; /* cordon_set_scratch_home */
	int review; /* cordon_set_review */
	int allow_userns; /* cordon_set_allow_userns */
	char *state_dir_opt;
	int status_fd;
	char *status_file;
	uint64_t timeout_ms;
	int *keep_fds;
	size_t nkeep;
	int max_abi;
	enum cordon_on_tamper on_tamper;
	uint64_t max_procs, max_memory, max_tmp; /* 0: none */
	/* Options given by name: what each single-valued one holds, the
	 * policy files and profiles loaded (options.c, policyfile.c). */
	struct optstate *opts;

	/* the run */
	enum stage stage;
	char homes[2][CORDON_PATH_MAX]; /* canonical $HOME and passwd home (homes_load) */
	int nhomes;
	/* homes[0] is $HOME's: HOME is set and not empty. Without it cordon
	 * keeps neither its state dir nor caches in any home. */
	int home_set;
	struct decision dec;
	unsigned plans; /* plans made in this run (a test sees no needless one) */
	struct policy pol;
	struct launch launch; /* what the backend prepared */
	/* How each resource bound is applied in this run (the backend's
	 * run_result; LIMIT_BY_NONE: not applied). */
	enum limit_by procs_by, memory_by, tmp_by;
	int tmp_shm; /* --max-tmp bounds the run's /dev/shm too (run_result) */
	void *early; /* what the backend's start made, until prepare takes it */
	int early_adopted; /* prepare used it (a test sees that it did) */
	char *rundir; /* STATE/runs/XXXXXX: the command's TMPDIR, locked while
			 the run lives */
	int tmp_lock_fd;
	struct passfile *passfiles; /* the pass files of the run (passfile.c) */
	size_t npassfiles;
	struct runtmp_sweep *sweep; /* the sweep of dead runs' dirs, while it runs */
	char **envp; /* child environment */
	struct strv env_removed; /* names the default list kept from it */
	int status_file_fd;
	/* The run's events could not be written there (emit.c warned once):
	 * STATUS_LOST_FD, STATUS_LOST_FILE. Guarded by emit.c's lock. */
	unsigned status_lost;
	/* The git guard; after the run, it keeps what the run left until the
	 * next run or cordon_free. */
	struct gitguard *gitguard;
	/* --review (review.c): the held run of this run, until its end; the
	 * last apply's refusals (reviewapply.c). */
	struct review *rv;
	struct review_refused *refused;
	size_t nrefused;
	/* The paths held by name (agentcfg.c): the agent configuration, and
	 * --protect paths that did not exist; for the run only. */
	struct agentcfg *agentcfg;
	/* The run's identity and clock, set when the run begins. */
	char run_id[33]; /* 32 hex digits, shared by the run's two events */
	struct timespec begun_mono, begun_real;

	int caches_resolved, secrets_resolved;
	/* The caches were resolved seen through overlays (caches_resolve). */
	int caches_layered;
	/* The start event is out: the decision is final for this run. Until
	 * then the first spawn holds spawn_lock, and a spawn from another
	 * thread waits for its child's report. */
	int start_written;
	pthread_mutex_t spawn_lock;

	pthread_mutex_t lock; /* guards last, have_last, live, ending */
	struct cordon_result last;
	int have_last;
	struct live_proc *live; /* commands not waited for yet */
	int ending; /* cordon_end has begun: no command may start */
	int subreaper; /* reap_all, and this process is a child subreaper */
	unsigned long id; /* unique per handle: tags its errors (error.c) */
};

/* ---- gitguard.c: git metadata a run must not plant (see there) ---- */
struct gitguard;
struct tamper {
	char *path; /* what the run left */
	char *moved; /* where it is now, "" when removed */
};
/* The guard's list of what the run left, without the git guard itself
 * (which gitguard_begin starts): agentcfg.c records there too. */
int gitguard_open(cordon *c);
int gitguard_begin(cordon *c);
/* After the run: the number of files neutralised (gitguard_tamper). */
int gitguard_end(cordon *c);
/* The run is over: what the guard held for it, but not the list of what
 * it left. */
void gitguard_release(cordon *c);
/* All of it, the list too (c->gitguard NULL). */
void gitguard_free(cordon *c);
/* What the guard found the run left, i < gitguard_ntampered(c). */
size_t gitguard_ntampered(const cordon *c);
const struct tamper *gitguard_tamper(const cordon *c, size_t i);
/* The directories the search for a workspace's repositories left
 * unread (gap git_search_incomplete), or NULL. */
const struct strv *gitguard_unsearched(const cordon *c);
/* The guard runs without the kernel's account of what the run makes
 * (not root): agent configuration below the held levels is found in
 * tracked directories only (gap agent_config_depth_partial). */
int gitguard_depth_partial(const cordon *c);
/* The gaps of the run's decision for agent configuration below the held
 * levels: agent_config_depth_partial as gitguard_depth_partial says, or,
 * where the backend refuses the names at any depth (Seatbelt's profile
 * holds every tree of the run), agent_config_moved_in_partial; none with
 * a --review that holds the run's changes (c->rv, once review_coverage
 * has said). */
uint64_t gitguard_depth_gaps(const cordon *c);

/* ---- agentcfg.c: paths held by name (see there) ---- */
struct agentcfg;
/* At the start, once the policy is resolved and gitguard_open() made the
 * list: the held names, each added to the policy (protected when it
 * exists, absent when not). 0, or an error with its message (an
 * --allow-agent-config path that is not held). */
int agentcfg_begin(cordon *c);
/* Once the coverage says how each is held: what exists and is not
 * read-only is recorded, to be put back at the end. */
void agentcfg_hold(cordon *c);
/* After every process of the run: what the run made or changed there is
 * moved aside (listed with gitguard's), what was there put back. */
void agentcfg_end(cordon *c);
void agentcfg_free(cordon *c);

struct cordon_proc {
	cordon *c;
	pid_t pid;
	int pidfd;
	int tty_fd; /* terminal handed to the command, or -1 */
	int statusfd; /* the reaper's reports (launch.init), or -1 */
	struct live_proc *live; /* its entry in c->live until it is waited for */
};

/* A command of the run that has not been waited for (spawn.c): the end of
 * the run kills it before the git guard looks at what the run left. */
struct live_proc {
	pid_t pid;
	int pidfd; /* owned by the entry, or -1 */
	/* Process 1 of a PID namespace: its death ends every process of
	 * the namespace. Otherwise the command leads its process group. */
	int whole_ns;
	struct live_proc *next;
};

/* config.c: 0 while setters may still be called, else CORDON_ESTATE */
int configurable(cordon *c);

/* ---- cordon.c: a spawn of the run, with the fds io gives it ---- */
/* What every spawn checks first (its arguments, the run begun): 0, or
 * an error with its message. */
int spawn_check(cordon *c, const char *const argv[], cordon_proc **out);
int spawn_run(cordon *c, const char *const argv[], const struct spawn_io *io, cordon_proc **out);

/* ---- spawn.c: start and reap commands (uses backend.h's launch) ---- */
int spawn_command(cordon *c, const char *const argv[], const struct spawn_io *io,
		  cordon_proc **out);
int wait_command(cordon_proc *p, struct cordon_result *res);
/* The end of the run: every command not waited for, and every process of
 * its PID namespace (or its process group without one), is killed, and
 * this returns once they are gone (not reaped: that stays the caller's,
 * through cordon_wait). Later spawns fail. */
void spawn_end_all(cordon *c);

#endif
