/*
 * Internal declarations shared by the library's files. Nothing here is
 * exported (the objects are built with hidden visibility and the archive
 * localises them; see the Makefile); the public contract is
 * include/cordon.h. Functions are grouped by the file that defines them,
 * lowest layer first: a file calls only files above it in this list.
 */
#ifndef CORDON_INTERNAL_H
#define CORDON_INTERNAL_H

#include "base.h"
#include "compat.h"
#include "cordon.h"
#include "error.h"
#include "fsutil.h"
#include "ids.h"
#include "strv.h"

#include <dirent.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- policy.c: what is writable, what is protected ---- */
/* Where a writable entry came from (for the status event). */
enum wkind { W_WORKSPACE, W_TMPDIR, W_EXTRA, W_CACHE, W_DEVICE };

struct wentry {
	char *path; /* canonical */
	int is_dir;
	enum wkind kind;
};

struct cache_entry {
	enum cache_tool tool;
	char *path; /* canonical when the state is existing or created */
	int is_dir;
	int created;
	enum cache_state state;
	/* The variable cordon set in the command's environment to move the
	 * tool here, under the state dir (its default place did not exist),
	 * or NULL. A static string. */
	const char *variable;
};

struct protect_entry {
	char *path;
	int explicit_; /* named by the user, not a default */
	int enforced;
};

struct policy {
	char *workspace;
	/* Where every command of the run starts (workdir.c): canonical, and
	 * where it comes from. */
	char *cwd;
	enum cwd_from cwd_from;
	struct wentry *w;
	size_t nw, capw;
	struct cache_entry caches[32 + CACHE_TOOL_COUNT]; /* CACHE_LOC_MAX, and one per tool */
	size_t ncaches;
	/* NAME=VALUE for the command's environment: the variables that move
	 * missing caches under the state dir (caches.c). */
	struct strv cache_env;
	struct protect_entry *prot;
	size_t nprot;
	char **sockets; /* --allow-socket: canonical sockets or directories */
	size_t nsockets;
	/* Trees some run's command may write although this run does not
	 * grant them (the tool caches' locations): paths cordon resolves
	 * for itself do not follow symlinks in them either. */
	char **untrusted;
	size_t nuntrusted;
	/* Names that do not exist at the start and must not be made (the
	 * git guard's; only a backend that can refuse a creation by name,
	 * Seatbelt, uses them). */
	char **absent;
	size_t nabsent;
	/* The paths the command must not read (secrets.c): the default list
	 * of what exists in the homes, and --deny-read. */
	struct deny_entry *deny;
	size_t ndeny;
	/* Block devices (disks) the caller can read (root, the disk group):
	 * the secrets could be read from them raw. Listed when there are
	 * paths to deny; the mount layer covers them. */
	struct strv blockdevs;
	/* Devices that read what the user types, sees or hears (keyboard
	 * and mouse events, a console's screen or input, a framebuffer,
	 * raw HID, sound) that the caller can read, the caller's own
	 * terminal aside (Linux). Listed with the default deny-read list;
	 * the mount layer covers them. */
	struct strv capturedevs;
	/* The Landlock read layer was not built (too many rules, or a
	 * directory on the way the caller cannot list): set by its prepare. */
	int reads_unbuilt;
	int network_off; /* --network off */
	/* --scratch-home: the home (canonical) its overlay covers, or NULL
	 * (not asked, no home directory, or the home is writable already). */
	char *scratch_home;
	int deny_capture; /* the default deny-read list: capture devices too */
	/* The run's own /tmp and /var/tmp (the mount layer's, Linux): the
	 * command sees src, the run's dir, at view. Set by the layer's
	 * prepare; tmp_shared when a temp dir of the machine stays the
	 * machine's, read-only (the gap tmp_shared_read_only). */
	struct private_tmp {
		char *view;
		char *src;
	} ptmp[2];
	size_t nptmp;
	int tmp_shared;
};

/* A path the command must not read. */
struct deny_entry {
	char *path; /* canonical */
	int is_dir;
	/* Names inside it that stay readable (~/.ssh: known_hosts*, config,
	 * *.pub), regular files that exist at the start. */
	char **keep;
	size_t nkeep;
	int explicit_; /* --deny-read */
	/* Left readable: it holds a writable path (the command works there),
	 * or it is "/", a home or an ancestor of one (a default name that
	 * is a link to such a place). Reported, never covered. */
	int left_open;
	int enforced; /* enum deny_by: how it is kept unreadable in this run */
};

/* How the denied paths are kept unreadable (coverage.denies_reads, and
 * each deny_entry.enforced). */
enum deny_by {
	DENY_BY_NONE,
	DENY_BY_MOUNT, /* covered by the mount layer */
	DENY_BY_LANDLOCK, /* not granted by the Landlock read layer */
	DENY_BY_SEATBELT /* denied by the Seatbelt profile */
};

/* ---- secrets.c: the default deny-read list ---- */
struct secret_default {
	const char *rel; /* "~/" and the path under a home */
	int carve_ssh; /* keep known_hosts*, config, *.pub readable */
};
extern const struct secret_default cordon_secret_defaults[];
extern const size_t cordon_nsecret_defaults;
/* The deny list of the run into c->pol: the defaults that exist under
 * each home (unless --allow-read or off), and --deny-read (which must
 * exist). 0, or an error with its message. */
int secrets_resolve(cordon *c);
/* A name directly under /dev of a device that reads what the user types,
 * sees or hears (a virtual console or its screen, a framebuffer, a
 * camera, raw HID, OSS sound): 1 or 0. */
int secrets_capture_name(const char *name);
/* A denied path a grant-only mechanism (the Landlock read layer) can keep
 * out: not left open, and not inside a writable tree (granted whole). */
int deny_grant_holds(const struct policy *p, const struct deny_entry *d);

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
int policy_add_writable(struct policy *p, const char *path, int is_dir, enum wkind kind);
void policy_add_devices(struct policy *p);
/* --scratch-home: c->pol.scratch_home for this run (once the writable
 * set is whole). 0 or CORDON_ENOMEM. */
int policy_scratch_home(cordon *c);
/* 1 when path is "/", a home or an ancestor of one (and not allowed). */
int policy_is_broad(const cordon *c, const char *path);
void policy_free(struct policy *p);
/* Forget the run's private temp dirs (a new plan makes them again). */
void policy_clear_private_tmp(struct policy *p);

/* 1 when path (canonical) lies in the writable set. */
int policy_inside_writable(const struct policy *p, const char *path);
/* A protected path that is not the user's own (the git guard's). */
int policy_add_protect(struct policy *p, const char *path);
/* Writable here, or in some run (policy.untrusted). */
int policy_inside_untrusted(const struct policy *p, const char *path);
int policy_add_untrusted(struct policy *p, const char *path);
/* A copy of s appended to the array *v of *n strings: 0 or CORDON_ENOMEM. */
int strlist_push(char ***v, size_t *n, const char *s);
int policy_add_absent(struct policy *p, const char *path);
#define POLICY_REDIRECTED 1
int policy_resolve_untampered(const struct policy *p, const char *in, char *out, size_t outlen);

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

/* ---- runtmp.c: the run's own dir ---- */
/* The state dir: 0, -1 when there is none (HOME unset or empty, and
 * neither --state-dir nor XDG_STATE_HOME), -2 when too long, -3 when it
 * would be under a home that does not exist. */
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
int caches_resolve(cordon *c);

/* ---- env.c: the command's environment (pure) ---- */
struct env_opts {
	int clean; /* --clean-env: only the allow-list and the specs */
	int drop_secrets; /* names on cordon_default_deny_env() stay out */
	const char *const *specs; /* --env NAME / NAME=VALUE, in the order given */
	size_t nspecs;
	const char *tmpdir; /* the run's temp dir (TMPDIR), or NULL */
	/* NAME=VALUE entries cordon sets (the caches it moved): they replace
	 * the caller's NAME and pass --clean-env; an --env naming NAME wins. */
	const char *const *set;
	size_t nset;
};
/* The command's environment from parent_env (NULL-terminated, or NULL):
 * a new array for env_free(), NULL when out of memory. The names that
 * drop_secrets kept out are added to removed (when not NULL), each once,
 * without values; the caller frees it, after a failure too. */
char **env_build(const char *const *parent_env, const struct env_opts *o, struct strv *removed);
/* The n bytes of name match an entry of cordon_default_deny_env(). */
int env_name_secret(const char *name, size_t n);
void env_free(char **envp);
int env_spec_valid(const char *spec);

/* ---- the decision (cordon.c) ---- */
struct coverage {
	unsigned layers; /* bit set of enum layer_id */
	unsigned gaps; /* bit set of enum gap_id */
	int protects; /* protected paths are enforced */
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

/* ---- stdfds.c: fds 0-2 that point outside ---- */
enum stdio_action { STDIO_KEEP, STDIO_NULL, STDIO_REOPEN };
struct stdio_plan {
	enum stdio_action action[3];
	char path[CORDON_PATH_MAX]; /* fd 0's file, for STDIO_REOPEN */
	dev_t dev;
	ino_t ino;
};
/* Parent, per command. */
void stdio_plan_make(const cordon *c, struct stdio_plan *sp);
/* Child, after confinement: async-signal-safe; 0 or errno. */
int stdio_plan_apply(const struct stdio_plan *sp);
/* 1 when an outside regular file on fds 0-2 keeps its metadata
 * changeable (the gap stdio_metadata_not_restricted). */
int stdio_metadata_gap(const cordon *c);
/* A network socket (not AF_UNIX) on fd 0-2 or a kept fd. */
int inherited_network_socket(const cordon *c);

/* ---- status.c: the JSON events ---- */
char *status_start_json(const cordon *c);
/* The exit event: run_code is the status the run ends with (what the CLI
 * exits with), r the command's. */
char *status_exit_json(const cordon *c, const struct cordon_result *r, int run_code);
/* A new run id and the run's start times in c. */
void status_run_begins(cordon *c);
void status_emit(cordon *c, const char *line);
/* The --explain line for a confined command that ended with r (no
 * newline; caller frees), or NULL. */
char *status_explain(const cordon *c, const struct cordon_result *r);

/* ---- what a backend prepared (backend.h; released in backends.c) ---- */
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
	 * thread that lives as long as the run, into new namespaces. */
	pid_t (*start)(const void *state, int (*fn)(void *), void *arg, void *stack, size_t size);
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
/* The backend's prepare for the run as the handle has it now
 * (cordon.c): what it learnt copied into the handle. 0, or its error
 * with its message. */
int run_prepare(cordon *c);

/* ---- the handle (cordon.c) ---- */
enum stage { ST_NEW, ST_PROBED, ST_BEGUN, ST_ENDED };

struct cordon {
	/* configuration, recorded by the setters (config.c) */
	enum cordon_mode mode;
	char *workspace_opt;
	char *cwd_opt; /* cordon_set_cwd: canonical */
	struct strv allow_write, protect, envspec, allow_socket, deny_read, allow_read;
	int default_deny_read;
	enum cordon_network network;
	unsigned caches;
	int default_protect, clean_env, allow_broad, foreground, explain, reap_all;
	int scratch_home; /* cordon_set_scratch_home */
	char *state_dir_opt;
	int status_fd;
	char *status_file;
	uint64_t timeout_ms;
	int *keep_fds;
	size_t nkeep;
	int max_abi;
	enum cordon_on_tamper on_tamper;
	uint64_t max_procs, max_memory, max_tmp; /* 0: none */

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
	/* How each resource bound is applied in this run (set by the
	 * backend's prepare; LIMIT_BY_NONE: not applied). */
	enum limit_by procs_by, memory_by, tmp_by;
	void *early; /* what the backend's prestart made, until prepare takes it */
	int early_adopted; /* prepare used it (a test sees that it did) */
	char *rundir; /* STATE/runs/XXXXXX: the command's TMPDIR, locked while
			 the run lives */
	int tmp_lock_fd;
	struct runtmp_sweep *sweep; /* the sweep of dead runs' dirs, while it runs */
	char **envp; /* child environment */
	struct strv env_removed; /* names the default list kept from it */
	int status_file_fd;
	/* The git guard; after the run, it keeps what the run left until the
	 * next run or cordon_free. */
	struct gitguard *gitguard;
	/* The run's identity and clock, set when the run begins. */
	char run_id[33]; /* 32 hex digits, shared by the run's two events */
	struct timespec begun_mono, begun_real;

	int caches_resolved, secrets_resolved;
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

/* ---- spawn.c: start and reap commands (uses backend.h's launch) ---- */
int spawn_command(cordon *c, const char *const argv[], cordon_proc **out);
/* In a child of the spawn before exec (async-signal-safe): report that
 * confinement failed with err on the spawn's error pipe, and _exit 125. */
void spawn_report_confine(int errfd, int err);
int wait_command(cordon_proc *p, struct cordon_result *res);
/* The end of the run: every command not waited for, and every process of
 * its PID namespace (or its process group without one), is killed, and
 * this returns once they are gone (not reaped: that stays the caller's,
 * through cordon_wait). Later spawns fail. */
void spawn_end_all(cordon *c);

#endif
