/*
 * The run's policy (policy.c, secrets.c, caches.c fill it): what is
 * writable, protected, denied, and the functions on it that need no
 * handle. Seen by the core and by the backends.
 */
#ifndef CORDON_POLICY_H
#define CORDON_POLICY_H

#include "base.h"
#include "ids.h"
#include "strv.h"

#include <stddef.h>

/* Where a writable entry came from (for the status event). */
enum wkind { W_WORKSPACE, W_TMPDIR, W_EXTRA, W_CACHE, W_DEVICE };

/* A tool cache the run sees through an overlay (cachelayer.c, made by
 * the mount layer): the user's cache below it, only read; cordon's
 * shared layer of that cache above it, read-only to the run; the run's
 * writes in a directory of its own beside the layer, merged into the
 * layer once every process of the run is gone. */
struct cache_layer {
	char *layer; /* STATE/layers/NAME: its shared/ is the layer */
	char *rundir; /* STATE/layers/NAME/.run-ID: the run's upper and work
			 dirs, one pair (sK/) per mount namespace made */
	int lock_fd; /* rundir, held locked (flock) while the run lasts */
};
/* Closes and frees (l may be NULL); what rundir holds stays, for a merge
 * or a later run's sweep. */
void cache_layer_free(struct cache_layer *l);

struct wentry {
	char *path; /* canonical */
	int is_dir;
	enum wkind kind;
	/* A tool cache seen through an overlay (owned), else NULL: the mount
	 * layer mounts it (never binds it writable), Landlock grants the
	 * overlay's root. */
	struct cache_layer *layer;
};

struct cache_entry {
	enum cache_tool tool;
	char *path; /* canonical when the state is existing or created */
	int is_dir;
	int created;
	enum cache_state state;
	/* Where the writes go; CACHE_HOW_COUNT when not granted. */
	enum cache_how how;
	/* The variable cordon set in the command's environment to move the
	 * tool here, under the state dir, or NULL. A static string. */
	const char *variable;
	/* CACHE_OVERLAY: the shared layer (STATE/layers/NAME), else NULL. */
	char *layer;
	/* CACHE_MOVED in place of a cache that exists (or that the tool's
	 * variable names): that one, which the run does not use, else NULL. */
	char *from;
};

struct protect_entry {
	char *path; /* canonical; when absent, its existing part canonical */
	int explicit_; /* named by the user, not a default */
	/* It did not exist at the start: no backend can bind it read-only;
	 * one that refuses a creation by name (Seatbelt) denies it, and the
	 * end of the run moves aside what was made there (agentcfg.c). */
	int absent;
	/* A guard compares it at the end of the run (the git guard's files,
	 * the agent configuration): where it is not read-only, what the run
	 * changed there is moved aside then. */
	int checked;
	int enforced; /* read-only, or its creation refused, for the run */
	enum held_by held; /* how (the start event's "held") */
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
	/* The agent-config guard's names (agentcfg.c; a static table, NULL
	 * when the guard is off), held below its levels too, at any depth of
	 * the workspace and each --allow-write directory: a backend that
	 * refuses a creation by a pattern of its path (Seatbelt) refuses them
	 * there, but at the --allow-agent-config paths (agent_opted, as the
	 * guard names them: the directory canonical, the name as given). */
	const char *const *held_names;
	size_t nheld_names;
	struct strv agent_opted;
	/* The backend could not write such a tree's path as a pattern (its
	 * run_result): what is made below its levels is left to the end's
	 * check (the gap agent_config_depth_partial). */
	int held_depth_unexpressed;
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
	 * directory on the way the caller cannot list): from the backend's
	 * run_result (cordon.c copies it here). */
	int reads_unbuilt;
	int network_off; /* --network off, or allow (the proxy is the way out) */
	/* --network allow through a proxy (netproxy.c): the port it listens
	 * on for the command (0: no proxy), and on Linux the socket the run's
	 * child sends the listener it made in the run's network namespace
	 * over (SCM_RIGHTS; -1: none). */
	unsigned proxy_port;
	int proxy_sock;
	/* --scratch-home: the home (canonical) its overlay covers, or NULL
	 * (not asked, no home directory, or the home is writable already). */
	char *scratch_home;
	int deny_capture; /* the default deny-read list: capture devices too */
	/* The home's .config held more than SECRETS_CONFIG_SCAN_MAX entries:
	 * those past them were not looked in for the table's patterns (the
	 * gap secrets_readable). */
	int secrets_scan_partial;
	/* The run's own /tmp and /var/tmp (the mount layer's, Linux): the
	 * command sees src, the run's dir, at view. From the backend's
	 * run_result; tmp_read_only_shown when a home or working directory
	 * in one is shown there read-only (the gap tmp_tree_fifos_writable). */
	struct private_tmp {
		char *view;
		char *src;
		/* The trees of the machine's view that the run sees there at
		 * their own paths (the workspace, a home in /tmp...). */
		struct strv shown;
	} ptmp[2];
	size_t nptmp;
	int tmp_read_only_shown;
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

/* secrets-list.c: the default deny-read list (its forms: there) */
struct secret_default {
	const char *rel; /* "~/" and the path under a home, or a pattern */
	int carve_ssh; /* keep known_hosts*, config, *.pub readable */
};
extern const struct secret_default cordon_secret_defaults[];
extern const size_t cordon_nsecret_defaults;
/* The entries of a home's .config looked in for the table's patterns. */
#define SECRETS_CONFIG_SCAN_MAX 4096ul
/* A name directly under /dev of a device that reads what the user types,
 * sees or hears (a virtual console or its screen, a framebuffer, a
 * camera, raw HID, OSS sound): 1 or 0. */
int secrets_capture_name(const char *name);
/* A denied path a grant-only mechanism (the Landlock read layer) can keep
 * out: not left open, and not inside a writable tree (granted whole). */
int deny_grant_holds(const struct policy *p, const struct deny_entry *d);
int policy_add_writable(struct policy *p, const char *path, int is_dir, enum wkind kind);
/* A tool cache seen through an overlay: the directory path, writable
 * (W_CACHE) with layer, which it takes (freed when it is not added). 0;
 * 1 when a writable tree holds it already (nothing added); or
 * CORDON_ENOMEM. */
int policy_add_layered(struct policy *p, const char *path, struct cache_layer *layer);
/* Forget the tool caches (their writable entries, layers, events and
 * variables): a new plan resolves them again. */
void policy_drop_caches(struct policy *p);
void policy_add_devices(struct policy *p);
void policy_free(struct policy *p);
/* Forget the run's private temp dirs (a new plan makes them again). */
void policy_clear_private_tmp(struct policy *p);

/* 1 when path (canonical) lies in the writable set. */
int policy_inside_writable(const struct policy *p, const char *path);
/* Tree k (from 0) of the project trees: the workspace, then each
 * --allow-write directory, whatever writable entry covers them (not the
 * run's temp dir, a cache, a file: no agent or editor opens those as a
 * project); NULL past them. The agent-config guard holds its names there. */
const char *policy_project_tree(const struct policy *p, size_t k);
/* A protected path that is not the user's own (the git guard's). */
int policy_add_protect(struct policy *p, const char *path);
/* A path a guard holds (agentcfg.c), checked at the end of the run: when
 * it exists, protected (by its canonical path, when that is writable);
 * when it does not, an absent entry (its name as given). */
int policy_add_held(struct policy *p, const char *path, int absent);
/* Writable here, or in some run (policy.untrusted). */
int policy_inside_untrusted(const struct policy *p, const char *path);
int policy_add_untrusted(struct policy *p, const char *path);
/* A copy of s appended to the array *v of *n strings: 0 or CORDON_ENOMEM. */
int strlist_push(char ***v, size_t *n, const char *s);
int policy_add_absent(struct policy *p, const char *path);
#define POLICY_REDIRECTED 1
int policy_resolve_untampered(const struct policy *p, const char *in, char *out, size_t outlen);

#endif
