/*
 * Internal declarations shared by the library's files. Nothing here is
 * exported; the public contract is include/cordon.h.
 */
#ifndef CORDON_INTERNAL_H
#define CORDON_INTERNAL_H

#define CORDON_BUILDING 1
#include "cordon.h"

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define CORDON_HIDDEN __attribute__((visibility("hidden")))

/* The longest path cordon handles, in bytes with the NUL: the kernel's
 * PATH_MAX, beyond which no system call accepts a path. A longer path
 * (argument, environment value or computed) is a clear error, never
 * truncated. */
#define CORDON_PATH_MAX 4096

/* ---- small growable string vector (strv.c) ---- */
struct strv {
	char **v; /* NULL-terminated when n > 0 */
	size_t n, cap;
};
int strv_push(struct strv *s, const char *str); /* copies str */
int strv_take(struct strv *s, char *str); /* takes ownership */
void strv_free(struct strv *s);

/* ---- fixed identifiers (status.c) ---- */
enum layer_id {
	LAYER_LANDLOCK,
	LAYER_NO_NEW_PRIVS,
	LAYER_SIGNAL_SCOPE,
	LAYER_CAPABILITIES,
	LAYER_FDS_CLOSED,
	LAYER_MOUNTNS,
	LAYER_SECCOMP,
	LAYER_SEATBELT,
	LAYER_COUNT
};
enum gap_id {
	GAP_UNCONFINED, /* nothing restricted: confinement not applied */
	GAP_TRUNCATE, /* truncate(2) outside: Landlock ABI < 3 */
	GAP_DEVICE_IOCTL, /* device ioctls: Landlock ABI < 5 */
	GAP_SIGNALS, /* signals to outside processes: ABI < 6 */
	GAP_METADATA, /* chmod/chown/utimes/xattr/chattr outside */
	GAP_TERMINAL, /* TIOCSTI/TIOCLINUX keystroke injection */
	GAP_UNIX_SOCKETS, /* connects to Unix sockets outside */
	GAP_KEPT_FDS, /* fds named by --keep-fd */
	GAP_PROTECT, /* protected paths not enforced */
	GAP_READS, /* reads are never restricted (yet) */
	GAP_NETWORK, /* network is never restricted (yet) */
	GAP_COUNT
};
extern const char *const cordon_layer_names[LAYER_COUNT];
extern const char *const cordon_gap_names[GAP_COUNT];

/* ---- backends (backend.h) ---- */
struct backend;

/* Where a writable entry came from (for the status event). */
enum wkind { W_WORKSPACE, W_TMPDIR, W_EXTRA, W_CACHE, W_DEVICE };

struct wentry {
	char *path; /* canonical */
	int is_dir;
	enum wkind kind;
};

struct cache_entry {
	const char *name; /* fixed identifier */
	char *path; /* canonical when state is ok/created */
	int is_dir;
	int created;
	const char *state; /* "existing", "created", "refused", "unavailable" */
};

struct protect_entry {
	char *path;
	int explicit_; /* named by the user, not a default */
	int enforced;
};

struct policy {
	char *workspace;
	struct wentry *w;
	size_t nw, capw;
	struct cache_entry caches[8];
	size_t ncaches;
	struct protect_entry *prot;
	size_t nprot;
};

struct decision {
	const struct backend *backend;
	int applied;
	const char *reason; /* NULL when applied */
	const char *cause; /* the platform reason behind "unavailable" */
	const char *detail; /* what the platform's probe saw, or NULL */
	int abi, kernel_abi;
	unsigned layers, gaps; /* bit sets of enum layer_id / gap_id */
	const char *layer_list[LAYER_COUNT + 1];
	const char *gap_list[GAP_COUNT + 1];
};

/* What a backend prepared in the parent for the child to apply. */
struct prepared {
	int ruleset_fd; /* landlock */
	int abi;
	char **argv_prefix; /* seatbelt: sandbox-exec -p ... ; NULL otherwise */
	size_t nprefix;
	/* capability reduction (Linux, root only) */
	int reduce_caps;
	void *mountns; /* struct mount_plan, or NULL: no mount layer */
	const void *seccomp; /* the seccomp program, or NULL */
	uint64_t shm_rights; /* Landlock rights on the private /dev/shm */
};

/* ---- the handle ---- */
enum stage { ST_NEW, ST_PROBED, ST_BEGUN, ST_ENDED };

struct cordon {
	/* configuration, recorded by the setters */
	enum cordon_mode mode;
	char *workspace_opt;
	struct strv allow_write, protect, envspec;
	unsigned caches;
	int default_protect, clean_env, allow_broad, foreground, explain;
	char *state_dir_opt;
	int status_fd;
	char *status_file;
	uint64_t timeout_ms;
	int *keep_fds;
	size_t nkeep;
	int max_abi;

	/* the run */
	enum stage stage;
	char homes[2][CORDON_PATH_MAX]; /* canonical $HOME and passwd home (homes_load) */
	int nhomes;
	struct decision dec;
	struct policy pol;
	struct prepared prep;
	char *rundir; /* STATE/runs/XXXXXX, locked while the run lives */
	char *tmpdir; /* the command's TMPDIR: the run dir itself */
	int tmp_lock_fd;
	char **envp; /* child environment */
	/* The run's identity and clock, set when the run begins. */
	char run_id[33]; /* 32 hex digits, shared by the run's two events */
	struct timespec begun_mono, begun_real;
	int status_file_fd;

	pthread_mutex_t lock; /* guards last, have_last */
	struct cordon_result last;
	int have_last;
	unsigned long id; /* unique per handle: tags its errors (cordon.c) */
};

struct cordon_proc {
	cordon *c;
	pid_t pid;
	int pidfd;
	int tty_fd; /* terminal handed to the command, or -1 */
};

/* errors (cordon.c): set the calling thread's last error for c (a
 * message of at most 511 bytes) and return code. */
int cordon_fail(cordon *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cordon_fail_errno(cordon *c, int code, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* config.c: 0 while setters may still be called, else CORDON_ESTATE */
int configurable(cordon *c);

/* decision helpers (cordon.c) */
void decision_finish(struct decision *d);

/* policy.c */
int policy_resolve(cordon *c);
int policy_add_writable(struct policy *p, const char *path, int is_dir, enum wkind kind);
void policy_free(struct policy *p);
/* Fill c->homes (call at the start of a run): 0, or an error (a home
 * longer than CORDON_PATH_MAX). */
int homes_load(cordon *c);
/* mkdir -p; directories it makes are owner-only (0700). */
int mkdir_p(const char *path);
void policy_add_devices(struct policy *p);

/* runtmp.c */
/* The state dir: 0, -1 when there is none (no HOME), -2 when too long. */
int runtmp_state_dir(const cordon *c, char *out, size_t outlen);
int runtmp_create(cordon *c);
void runtmp_remove(cordon *c);
int remove_tree_at(int parent_fd, const char *name);

/* env.c */
char **env_build(const char *const *parent_env, int clean, const char *const *specs, size_t nspecs,
		 const char *tmpdir);
void env_free(char **envp);
int env_spec_valid(const char *spec);

/* status.c */
char *status_start_json(const cordon *c);
char *status_exit_json(const cordon *c, const struct cordon_result *r);
/* A new run id and the run's start times in c. */
void status_run_begins(cordon *c);
void status_emit(cordon *c, const char *line);
/* The --explain line for a confined command that ended with r (no
 * newline; caller frees), or NULL. */
char *status_explain(const cordon *c, const struct cordon_result *r);

/* spawn.c */
int spawn_command(cordon *c, const char *const argv[], cordon_proc **out);
int wait_command(cordon_proc *p, struct cordon_result *res);
/* Reap pid within timeout_ms (then SIGKILL it): 0, or -1 on timeout. */
int reap_with_timeout(pid_t pid, int *status, int timeout_ms);

/* compat.c: pipe2(O_CLOEXEC), with a fallback where there is none. */
/* compat.c: run fn(arg) in a child sharing memory (see there). */
/* Below malloc's mmap threshold: no mmap/munmap per start. The child's
 * deepest frame holds a PATH_MAX buffer. */
#define CHILD_STACK_SIZE ((size_t)64 * 1024)
pid_t child_start(int (*fn)(void *), void *arg, void *stack, size_t size, int wait_exec);
int pipe_cloexec(int fds[2]);
/* n random bytes from the kernel (getrandom, arc4random_buf); 0 or -1. */
int random_bytes(void *buf, size_t n);

/* caps.c (Linux; no-ops elsewhere) */
int caps_would_reduce(void);
int caps_reduce(void); /* async-signal-safe; 0 or errno */

#endif
