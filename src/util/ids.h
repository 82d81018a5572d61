/*
 * Fixed identifiers: every string cordon writes as an event name, mode,
 * backend, reason, cause, layer, gap, cache name or cache state. Each
 * kind is an enum; ids.c maps each value to its identifier and to a one-
 * line English text, in one table per kind, and cordon_identifiers()
 * lists them all (so a caller's secret redaction may leave them alone).
 * Adding a value = one enum line + one table line; test-ids checks that
 * every value has both and that identifiers are unique.
 *
 * Pure data: no system calls. Every other part of the library may use
 * this file; it uses none of them.
 */
#ifndef CORDON_IDS_H
#define CORDON_IDS_H

#include "cordon.h"

struct id_text {
	const char *id; /* the identifier written in events */
	const char *text; /* one line for people */
};

enum event_id {
	EVENT_STATUS,
	EVENT_EXIT,
	EVENT_NETWORK_CONNECT,
	EVENT_NETWORK_CONNECT_SUPPRESSED,
	EVENT_COUNT
};

enum backend_id { BACKEND_LANDLOCK, BACKEND_SEATBELT, BACKEND_NONE, BACKEND_COUNT };

/* Why confinement is not applied (REASON_NONE: it is). */
enum reason_id {
	REASON_NONE = 0,
	REASON_UNAVAILABLE, /* required mode: see the cause */
	REASON_OFF,
	REASON_LANDLOCK_NOT_BUILT_IN,
	REASON_LANDLOCK_DISABLED,
	REASON_LANDLOCK_ABI_TOO_OLD,
	REASON_LANDLOCK_BLOCKED,
	REASON_SEATBELT_NESTED,
	REASON_SEATBELT_MISSING,
	REASON_SEATBELT_PROBE_FAILED,
	REASON_NO_BACKEND,
	REASON_PROTECT_NOT_ENFORCEABLE,
	REASON_SOCKET_NOT_ENFORCEABLE,
	REASON_DENY_READ_NOT_ENFORCEABLE,
	REASON_NETWORK_NOT_ENFORCEABLE,
	REASON_NETWORK_SOCKET_INHERITED,
	REASON_CAPABILITIES_NOT_REDUCIBLE,
	REASON_LIMIT_NOT_ENFORCEABLE,
	REASON_SCRATCH_HOME_NOT_ENFORCEABLE,
	REASON_NETWORK_ALLOWLIST_NOT_ENFORCEABLE,
	REASON_REVIEW_NOT_ENFORCEABLE,
	REASON_COUNT
};

/* What is applied (the status event's "layers"). */
enum layer_id {
	LAYER_LANDLOCK,
	LAYER_NO_NEW_PRIVS,
	LAYER_SIGNAL_SCOPE,
	LAYER_CAPABILITIES,
	LAYER_FDS_CLOSED,
	LAYER_MOUNTNS,
	LAYER_SECCOMP,
	LAYER_SEATBELT,
	LAYER_PIDNS,
	LAYER_IPCNS,
	LAYER_ABSTRACT_SCOPE,
	LAYER_DEVPTS,
	LAYER_SETID,
	LAYER_KEYRINGS,
	LAYER_UNIX_SUPERVISOR,
	LAYER_UNIX_LANDLOCK,
	LAYER_USERNS,
	/* Listed before read_deny, which only a run's policy adds: the
	 * probe's list stays the start of a run's. */
	LAYER_PRIVATE_TMP,
	LAYER_READ_DENY,
	LAYER_NETNS,
	LAYER_NET_SECCOMP,
	LAYER_NET_LANDLOCK,
	LAYER_NET_SEATBELT,
	LAYER_SCRATCH_HOME,
	LAYER_NET_PROXY,
	LAYER_REVIEW,
	LAYER_COUNT
};
_Static_assert(LAYER_COUNT <= 32, "layers are bits of an unsigned");

/* What is not restricted in a run (the status event's "gaps"). */
enum gap_id {
	GAP_UNCONFINED,
	GAP_TRUNCATE,
	GAP_DEVICE_IOCTL,
	GAP_SIGNALS,
	GAP_METADATA,
	GAP_TERMINAL,
	GAP_UNIX_SOCKETS,
	GAP_KEPT_FDS,
	GAP_PROTECT,
	GAP_READS,
	GAP_NETWORK,
	GAP_PROCESSES,
	GAP_SURVIVORS,
	GAP_IPC,
	GAP_ABSTRACT_SOCKETS,
	GAP_SETID,
	GAP_KEYRINGS,
	GAP_STDIO,
	GAP_SECRETS,
	GAP_LOOPBACK,
	GAP_INHERITED_SOCKET,
	GAP_BLOCK_DEVICES,
	GAP_KEY_LIST,
	GAP_CAPTURE_DEVICES,
	GAP_GIT_SEARCH,
	GAP_CAPABILITIES,
	GAP_TMP_SHARED,
	GAP_LIMIT,
	GAP_MEMORY_PER_PROCESS,
	GAP_SCRATCH_HOME,
	GAP_NETWORK_ALLOWLIST,
	GAP_TMP_TREE_FIFOS,
	GAP_USERNS,
	GAP_AGENT_CONFIG_DEPTH,
	GAP_REVIEW,
	GAP_AGENT_CONFIG_MOVED_IN,
	GAP_COUNT
};
_Static_assert(GAP_COUNT <= 64, "gaps are bits of a uint64_t");

/* How a resource bound (--max-procs, --max-memory, --max-tmp) is applied
 * (the status event's "limits"); LIMIT_BY_NONE: it is not (null). */
enum limit_by {
	LIMIT_BY_NONE = 0,
	LIMIT_BY_CGROUP, /* the run's cgroup: every process of the run together */
	LIMIT_BY_RLIMIT, /* RLIMIT_NPROC in the run's own user namespace */
	LIMIT_BY_RLIMIT_DATA, /* RLIMIT_DATA: each process on its own */
	LIMIT_BY_TMPFS, /* the run's temp dir is a tmpfs of that size */
	LIMIT_BY_COUNT
};

/* A kind of refusal this run's policy can cause (the exit event's
 * "refusals", the --explain line), in the order the line names them. */
enum refusal_id {
	REFUSAL_WRITE,
	REFUSAL_READ,
	REFUSAL_NETWORK,
	REFUSAL_UNIX_SOCKET,
	REFUSAL_ENV,
	REFUSAL_LIMIT,
	REFUSAL_COUNT
};

/* How a protected path is held in a run (the start event's "held" of each
 * "protected" entry); HELD_NONE: it is not (null). */
enum held_by {
	HELD_NONE = 0,
	HELD_READ_ONLY, /* it exists and cannot be changed while the run lasts */
	HELD_CREATION_REFUSED, /* it does not exist and cannot be made (Seatbelt) */
	HELD_CHECKED_AT_END, /* it exists; at the end what changed is moved aside */
	HELD_CHECKED_IN_PART, /* the same, for the part of it the start could read */
	HELD_MOVED_AT_END, /* it does not exist; what the run made there is moved aside */
	HELD_COUNT
};

/* Where the command starts (the start event's "cwd_from"). */
enum cwd_from {
	CWD_FROM_OPTION, /* cordon_set_cwd(), --cwd */
	CWD_FROM_CURRENT, /* the caller's current directory, inside the workspace */
	CWD_FROM_WORKSPACE, /* the workspace: the caller's directory lies outside it */
	CWD_FROM_COUNT
};

/* The tool caches, in the order of their CORDON_CACHE_* bits. */
enum cache_tool {
	CACHE_CARGO,
	CACHE_NPM,
	CACHE_PIP,
	CACHE_PLAYWRIGHT,
	CACHE_GO,
	CACHE_YARN,
	CACHE_PNPM,
	CACHE_BUN,
	CACHE_DENO,
	CACHE_GRADLE,
	CACHE_MAVEN,
	CACHE_COMPOSER,
	CACHE_GEM,
	CACHE_CCACHE,
	CACHE_SCCACHE,
	CACHE_HUGGINGFACE,
	CACHE_TOOL_COUNT
};

enum cache_state {
	CACHE_EXISTING,
	CACHE_CREATED,
	CACHE_REFUSED,
	CACHE_UNAVAILABLE,
	CACHE_INSIDE,
	CACHE_REDIRECTED,
	CACHE_MISSING,
	CACHE_READ_ONLY,
	CACHE_STATE_COUNT
};

/* Where the writes to a granted cache go (its event's "how"). */
enum cache_how {
	CACHE_OVERLAY, /* an overlay: cordon's layer above the user's cache, read-only */
	CACHE_MOVED, /* cordon's own directory, named to the tool by its variable */
	CACHE_DIRECT, /* the path itself */
	CACHE_HOW_COUNT /* none: not granted */
};

extern const struct id_text cordon_event_ids[EVENT_COUNT];
extern const struct id_text cordon_mode_ids[3]; /* by enum cordon_mode */
extern const struct id_text cordon_network_ids[3]; /* by enum cordon_network */
/* A network_connect event's "decision": allowed or refused. */
enum net_decision { NET_ALLOWED, NET_REFUSED, NET_DECISION_COUNT };
extern const struct id_text cordon_net_decision_ids[NET_DECISION_COUNT];
/* Why the proxy refused a connection (a network_connect event's
 * "reason"; the engine's identifiers, src/net/proxy.h). */
extern const struct id_text cordon_net_reason_ids[];
extern const size_t cordon_net_reason_count;
extern const struct id_text cordon_backend_ids[BACKEND_COUNT];
extern const struct id_text cordon_reason_ids[REASON_COUNT];
extern const struct id_text cordon_layer_ids[LAYER_COUNT];
extern const struct id_text cordon_gap_ids[GAP_COUNT];
extern const struct id_text cordon_cache_tool_ids[CACHE_TOOL_COUNT];
extern const struct id_text cordon_cache_state_ids[CACHE_STATE_COUNT];
extern const struct id_text cordon_cache_how_ids[CACHE_HOW_COUNT];
extern const struct id_text cordon_limit_by_ids[LIMIT_BY_COUNT];
extern const struct id_text cordon_refusal_ids[REFUSAL_COUNT];
extern const struct id_text cordon_cwd_from_ids[CWD_FROM_COUNT];
extern const struct id_text cordon_held_ids[HELD_COUNT];

/* The identifier of a reason, or NULL for REASON_NONE. */
const char *reason_name(enum reason_id r);
/* The cache tool of one CORDON_CACHE_* bit. */
enum cache_tool cache_tool_of_bit(unsigned bit);

#endif
