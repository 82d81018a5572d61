/*
 * cordon.h - confine what a command may write, using the kernel's own
 * isolation (Landlock on Linux, Seatbelt on macOS).
 *
 * Life cycle of a run:
 *   1. c = cordon_new();
 *   2. cordon_set_*() / cordon_add_*() record the configuration. They only
 *      copy their arguments; nothing touches the file system or the kernel
 *      (cordon_set_cwd() alone resolves its directory at once).
 *   3. cordon_begin(c) canonicalises and validates the policy, probes the
 *      platform (once per process), makes the run's temp dir and writes the
 *      start status event.
 *   4. cordon_spawn(c, argv, &p) starts a command; cordon_wait(p, &r) reaps
 *      it. Any number of spawns, from any thread, share the decision made
 *      by cordon_begin().
 *   5. cordon_end(c) kills what the run still runs, looks for what it
 *      planted in git's files, removes the run's temp dir and writes the
 *      exit status event (describing the command waited for last).
 *   6. cordon_free(c) releases the handle (ending the run if still open).
 * cordon_run() does steps 3 to 5 for a single command.
 *
 * Errors: every function returning int returns 0 on success or a negative
 * CORDON_E* code; cordon_last_error() then says what failed, in one line.
 * Every failing call on a handle sets that message, out of memory too.
 * The message is the calling thread's own (like errno): a failure in one
 * thread never changes what another thread reads.
 *
 * Ownership: string arguments are copied; the caller keeps its own. File
 * descriptors passed in are borrowed, never closed. Strings returned by
 * const getters belong to the handle and live until cordon_free(); strings
 * returned as plain char * are the caller's to free().
 */
#ifndef CORDON_H
#define CORDON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CORDON_BUILDING) && defined(__GNUC__)
#define CORDON_EXPORT __attribute__((visibility("default")))
#else
#define CORDON_EXPORT
#endif

#define CORDON_VERSION "0.1.0"

/* Return codes. 0 is success. */
#define CORDON_EINVAL (-1) /* a bad argument or a bad path */
#define CORDON_ENOMEM (-2) /* out of memory */
#define CORDON_ESYS (-3) /* an operating system call failed */
#define CORDON_ESTATE (-4) /* called at the wrong point of the life cycle */
#define CORDON_EREFUSED (-5) /* the policy was refused (e.g. workspace "/") */
#define CORDON_EUNAVAILABLE (-6) /* "required" mode and confinement unavailable */
#define CORDON_ECONFINE (-7) /* the child could not apply confinement */
#define CORDON_EEXEC (-8) /* the command could not be executed */
#define CORDON_ETAMPERED (-9) /* the run planted git or agent files (cordon_set_on_tamper) */
#define CORDON_ECONFLICT (-10) /* cordon_apply(): the workspace changed meanwhile */

/* Fixed identifiers of the status events. Callers that redact secrets from
 * logs may leave every string of cordon_identifiers() alone. */
#define CORDON_EVENT_STATUS "bash_sandbox_status"
#define CORDON_EVENT_EXIT "bash_sandbox_exit"
#define CORDON_REASON_UNAVAILABLE "bash_sandbox_unavailable"
#define CORDON_REASON_OFF "sandbox_off"

enum cordon_mode {
	CORDON_MODE_AUTO = 0, /* confine when possible, else warn and run */
	CORDON_MODE_REQUIRED, /* confine or refuse to run */
	CORDON_MODE_OFF /* run as a plain exec would */
};

/* Tool caches the command may write (design section 4; where each one
 * is: the CLI reference's cache table). Never the user's caches
 * themselves: with the mount layer each is seen through an overlay whose
 * writes go to cordon's layer of it, shared by later confined runs;
 * without, cordon's own copy under the state dir. The default ones are
 * the caches everyday builds and tests need; the others only when asked
 * for. */
#define CORDON_CACHE_CARGO 0x1u
#define CORDON_CACHE_NPM 0x2u
#define CORDON_CACHE_PIP 0x4u
#define CORDON_CACHE_PLAYWRIGHT 0x8u
#define CORDON_CACHE_GO 0x10u
#define CORDON_CACHE_YARN 0x20u
#define CORDON_CACHE_PNPM 0x40u
#define CORDON_CACHE_BUN 0x80u
#define CORDON_CACHE_DENO 0x100u
#define CORDON_CACHE_GRADLE 0x200u
#define CORDON_CACHE_MAVEN 0x400u
#define CORDON_CACHE_COMPOSER 0x800u
#define CORDON_CACHE_GEM 0x1000u
#define CORDON_CACHE_CCACHE 0x2000u
#define CORDON_CACHE_SCCACHE 0x4000u
#define CORDON_CACHE_HUGGINGFACE 0x8000u
/* cargo, npm, pip, playwright, go */
#define CORDON_CACHE_DEFAULT 0x1fu
/* Every cache cordon knows. */
#define CORDON_CACHE_ALL 0xffffu

typedef struct cordon cordon;
typedef struct cordon_proc cordon_proc;

/* How a command ended. */
struct cordon_result {
	int exit_code; /* 0-255 as the shell reports it: 128+N when killed by N */
	int signal; /* the signal that killed it, or 0 */
	int timed_out; /* 1 when the timeout fired (exit_code is then 124) */
	int exec_errno; /* errno of a failed exec (exit_code 126/127), else 0 */
};

CORDON_EXPORT const char *cordon_version(void);

/* Every fixed identifier cordon writes as an event name, mode, backend,
 * reason, layer, gap or cache name. NULL-terminated, static. */
CORDON_EXPORT const char *const *cordon_identifiers(void);

/* Returns NULL when out of memory. */
CORDON_EXPORT cordon *cordon_new(void);
CORDON_EXPORT void cordon_free(cordon *c);

/* The message of the calling thread's last failed call on c: never NULL,
 * "" when none failed. The string belongs to the calling thread and stays
 * valid until its next failing call on any handle. */
CORDON_EXPORT const char *cordon_last_error(const cordon *c);

/* --- configuration (copies; no side effects until cordon_begin) --- */
CORDON_EXPORT int cordon_set_mode(cordon *c, enum cordon_mode mode);
/* "auto", "required" or "off". */
CORDON_EXPORT int cordon_parse_mode(const char *s, enum cordon_mode *out);
/* Paths given to the setters may be relative: they are resolved against
 * the current directory at cordon_begin(). A path longer than 4095 bytes
 * is refused (CORDON_EINVAL). */
/* Default: the current directory at cordon_begin(). */
CORDON_EXPORT int cordon_set_workspace(cordon *c, const char *dir);
/* The directory every command of the run starts in (the process's
 * current directory is one for all its threads; a run names its own).
 * Unlike the other setters it looks at the file system now: dir is
 * resolved (symlinks too) against the current directory at this call,
 * and must exist and be a directory, else CORDON_EINVAL. It need not lie
 * in the workspace. Default: the current directory at cordon_begin()
 * when it lies in the workspace, else the workspace itself. The start
 * event names it ("cwd") and where it came from ("cwd_from": "option",
 * "current" or "workspace"). A directory the command cannot enter or
 * list in its confined view (gone, or a denied path) fails the run or
 * the spawn with CORDON_EINVAL: the command never starts elsewhere. */
CORDON_EXPORT int cordon_set_cwd(cordon *c, const char *dir);
/* An extra writable tree or file. */
CORDON_EXPORT int cordon_add_allow_write(cordon *c, const char *path);
/* A single file outside the writable set that the command may create and
 * write at its path (a caller's "pass file": where a shell string leaves
 * its final directory, say). At cordon_begin() its directory must exist
 * and no other user may rename files in it (not writable by group or
 * others, or sticky); the file is made there owner-only (0600) when
 * missing, else it must be a regular file of this user's with one link;
 * it is never reached through a symlink, and never lies in the state
 * dir. It joins the writable set (the start event's "writable"). When
 * the run ends, a pass file the run made and the command left empty is
 * removed, so a caller that tests for the file finds none. */
CORDON_EXPORT int cordon_add_pass_file(cordon *c, const char *path);
/* A pathname Unix socket outside the writable set the command may
 * connect or send to, or a directory of such sockets (Linux: Landlock
 * ABI 9 or the socket supervisor; macOS: the profile). It must exist at
 * cordon_begin(). */
CORDON_EXPORT int cordon_add_allow_socket(cordon *c, const char *path);
/* A path the command must not read (a file or a tree; it must exist at
 * cordon_begin()), also inside the workspace (".env"). Enforced with the
 * mount layer (Linux); where it cannot be, "required" refuses to run. */
CORDON_EXPORT int cordon_add_deny_read(cordon *c, const char *path);
/* Take a path out of the default deny-read list (the user's secrets:
 * ~/.ssh keys, cloud and registry credentials, histories...; see
 * cordon probe): an entry at or below it stays readable. */
CORDON_EXPORT int cordon_add_allow_read(cordon *c, const char *path);
/* The default deny-read list (NULL-terminated, static): "~/PATH" under
 * each home, "$XDG_RUNTIME_DIR/PATH" under the user's runtime dir, and
 * two patterns, "~/.config/" "*" "/auth.json" and ".../credentials.json"
 * (in each directory directly under ~/.config); of ~/.ssh,
 * known_hosts*, config and *.pub stay readable. */
CORDON_EXPORT const char *const *cordon_default_deny_read(void);
/* The default deny-read list (default on). Off: only --deny-read, and
 * the environment's secrets pass too (cordon_default_deny_env()). */
CORDON_EXPORT int cordon_set_default_deny_read(cordon *c, int on);
/* The environment variables kept from the command with the default
 * deny-read list, in "auto" and "required" mode, confined or not (never
 * in "off"), unless cordon_add_env() names them: shell patterns ('*' any
 * run of characters) matched against the whole name, letters in either
 * case. NULL-terminated, static. The start event lists the names removed
 * (env_removed), never their values. Beside the list, git's configuration
 * variables are kept out by value: GIT_CONFIG_PARAMETERS, and
 * GIT_CONFIG_COUNT with every GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n,
 * when a key or value sets an HTTP header, a credential or a password,
 * or holds a URL with a password (see the CLI reference). */
CORDON_EXPORT const char *const *cordon_default_deny_env(void);
/* The network (default on). Off, whenever confinement is applied: no IP
 * traffic leaves the command's world; loopback inside works where a
 * network namespace of its own can be made. Where it cannot be enforced,
 * "required" refuses to run. Unix sockets follow their own rules. */
/* Allow: only through cordon's proxy, to the destinations of the
 * allow-list (cordon_set_network_allow). */
enum cordon_network { CORDON_NETWORK_ON = 0, CORDON_NETWORK_OFF = 1, CORDON_NETWORK_ALLOW = 2 };
CORDON_EXPORT int cordon_set_network(cordon *c, enum cordon_network net);
/* "on" or "off" ("allow" takes a list: cordon_set_network_allow). */
CORDON_EXPORT int cordon_parse_network(const char *s, enum cordon_network *out);
/* The network allow-list (--network allow=LIST): adds the patterns of a
 * comma-separated list and sets the network to CORDON_NETWORK_ALLOW.
 * Patterns, case-insensitive, a trailing dot ignored: "example.com" (that
 * name), "*.example.com" (its subdomains), "**.example.com" (both),
 * "1.2.3.4" or "[2001:db8::1]" (that address: an address is reachable only
 * when listed itself), each with an optional ":PORT" (default 443, and 80
 * with cordon_set_network_allow_http); presets "@npm", "@pypi", "@crates",
 * "@go", "@github". The command runs with the network off (its own network
 * namespace on Linux) and reaches out only through a proxy cordon serves
 * from its own process (HTTP CONNECT, SOCKS5; the proxy variables are set
 * in its environment), which resolves each allowed name itself and
 * refuses loopback, private, link-local, CGNAT and multicast addresses.
 * Where the proxy cannot be the only way out (no network namespace),
 * "required" refuses to run (network_allowlist_not_enforceable) and
 * "auto" runs with the network off. A bad pattern: CORDON_EINVAL, the
 * list unchanged. */
CORDON_EXPORT int cordon_set_network_allow(cordon *c, const char *list);
/* The same from a file: one pattern a line; blank lines and '#' to the
 * end of a line ignored. CORDON_EINVAL naming the file and line. */
CORDON_EXPORT int cordon_set_network_allow_file(cordon *c, const char *path);
/* Loopback, private, link-local, CGNAT and multicast addresses may be
 * reached through the proxy (default off). */
CORDON_EXPORT int cordon_set_network_allow_local(cordon *c, int on);
/* Plain HTTP through the proxy (one request per connection), and port 80
 * as a default port of a pattern (default off). */
CORDON_EXPORT int cordon_set_network_allow_http(cordon *c, int on);
/* "NAME=ADDR": the proxy resolves NAME to the address ADDR (an IPv4 or
 * IPv6 literal) instead of asking the resolver. For tests and private
 * registries; the address is vetted as any other. */
CORDON_EXPORT int cordon_add_network_resolve(cordon *c, const char *name_eq_addr);
/* A mask of CORDON_CACHE_*; default CORDON_CACHE_DEFAULT. A tool outside
 * the default counts even where it is not found (it was asked for); a
 * default one only when present. A missing cache is never made in the
 * home at its default place: it is made under the state dir
 * (STATE/caches/NAME) and the tool's variable set to it in the command's
 * environment, or (empty) where the tool's variable or own directory
 * says (the CLI reference's Caches section). */
CORDON_EXPORT int cordon_set_caches(cordon *c, unsigned mask);
/* "cargo,npm,go,yarn" (names of cordon_identifiers()' cache tools: cargo,
 * npm, pip, playwright, go, yarn, pnpm, bun, deno, gradle, maven,
 * composer, gem, ccache, sccache, huggingface; comma separated) -> mask. */
CORDON_EXPORT int cordon_parse_caches(const char *list, unsigned *out);
/* A path inside a writable tree that must stay read-only. One that does
 * not exist yet is held by its name: what the run makes there is moved
 * aside when it ends (refused by the profile on macOS). */
CORDON_EXPORT int cordon_add_protect(cordon *c, const char *path);
/* The default guards (default on). Git's: the files a later git command
 * reads to decide what to run (config, hooks, commondir, config.worktree,
 * info/attributes, ".git" files, of the repository, its worktrees and
 * submodules). Agents': the configuration agents and editors run code
 * from (.claude/, .gemini/, .codex/, .cursor/, .vscode/, .mcp.json...: the
 * CLI reference lists them), at the workspace, each --allow-write
 * directory and each directory down to the working directory. Each is
 * read-only when it exists, and what appears or changes there is
 * neutralised when the run ends. Off: none of it. */
CORDON_EXPORT int cordon_set_default_protect(cordon *c, int on);
/* An agent-configuration path the agents' guard holds that the command
 * may write (repeatable): a held name in one of its directories, e.g.
 * ".claude" for the workspace's (a relative path from the current
 * directory). cordon_begin() fails (CORDON_EINVAL) for a path it does not
 * hold. */
CORDON_EXPORT int cordon_add_allow_agent_config(cordon *c, const char *path);
/* What a run that planted such files ends with (cordon_end()): */
enum cordon_on_tamper {
	CORDON_TAMPER_DEFAULT = 0, /* FAIL in "required" mode, else NEUTRALISE */
	CORDON_TAMPER_NEUTRALISE, /* moved aside, reported, cordon_end() succeeds */
	CORDON_TAMPER_FAIL /* moved aside, reported, cordon_end() CORDON_ETAMPERED */
};
CORDON_EXPORT int cordon_set_on_tamper(cordon *c, enum cordon_on_tamper how);
/* "fail" or "neutralise". */
CORDON_EXPORT int cordon_parse_on_tamper(const char *s, enum cordon_on_tamper *out);
/* Directory for per-run temp dirs and moved caches. Default
 * $XDG_STATE_HOME/cordon, else $HOME/.local/state/cordon; with HOME
 * unset or empty and neither set, cordon_begin() fails (CORDON_EINVAL,
 * "HOME is unset: ..."): the password database's home is never used. */
CORDON_EXPORT int cordon_set_state_dir(cordon *c, const char *dir);
/* Status events go to this fd (borrowed) ... */
CORDON_EXPORT int cordon_set_status_fd(cordon *c, int fd);
/* ... and/or are appended to this file (created 0600 if missing).
 * Unless the mode is CORDON_MODE_OFF, cordon_begin() refuses
 * (CORDON_EREFUSED) a file or FIFO, named or open on the fd, that lies
 * inside a tree a command may write (the workspace, allow-write paths,
 * the tool caches' locations, the state dir's runs/ and caches/) or that
 * has other names on such a tree's file system, and a status fd that is
 * also a kept fd: a command could replace it and forge the events. Where
 * they cannot be written (the fd's reader has gone, the disk is full),
 * one line says so on fd 2, once per run and destination, and the run
 * goes on: its events from then on are lost there. */
CORDON_EXPORT int cordon_set_status_file(cordon *c, const char *path);
/* Kill the command's process group after this many ms (0: never). */
CORDON_EXPORT int cordon_set_timeout_ms(cordon *c, uint64_t ms);
/* Resource bounds of the run (0: none, the default; a new call replaces
 * the value). Each is applied where this machine allows and reported in
 * the status event's "limits"; where it cannot be applied the run reports
 * a gap, and "required" mode refuses to run (CORDON_EUNAVAILABLE at
 * cordon_begin()). See SECURITY.md for what is bounded by default. */
/* At most n processes and threads of the run at once (1 to 4194304):
 * the run's cgroup (pids) where one can be made, else RLIMIT_NPROC in
 * the run's own user namespace (Linux, not root). */
CORDON_EXPORT int cordon_set_max_procs(cordon *c, uint64_t n);
/* At most this many bytes of memory (1 MiB to 2^62): the run's cgroup
 * (all its processes together, swap included) where one can be made,
 * else RLIMIT_DATA for each process on its own (the gap
 * memory_limit_per_process; "required" refuses that). */
CORDON_EXPORT int cordon_set_max_memory(cordon *c, uint64_t bytes);
/* The run's temp dir (TMPDIR, and the private /tmp and /var/tmp) is a
 * tmpfs of this many bytes (1 MiB to 2^62; Linux with the mount layer):
 * writes past it fail with ENOSPC, and its files count as memory. */
CORDON_EXPORT int cordon_set_max_tmp(cordon *c, uint64_t bytes);
/* Pass only an allow-list of the environment (see the CLI reference). */
CORDON_EXPORT int cordon_set_clean_env(cordon *c, int on);
/* "NAME=VALUE" sets NAME; "NAME" passes the caller's NAME through, a
 * name of cordon_default_deny_env() too. */
CORDON_EXPORT int cordon_add_env(cordon *c, const char *spec);
/* An inherited fd the command may keep; all others above 2 are closed. */
CORDON_EXPORT int cordon_add_keep_fd(cordon *c, int fd);
/* Accept "/", the home directory or an ancestor of it as a writable path. */
CORDON_EXPORT int cordon_set_allow_broad(cordon *c, int on);
/* When the caller is the foreground process group of the terminal on fd
 * 0, 1 or 2, hand the terminal to the command while it runs (default off;
 * the CLI turns it on). */
CORDON_EXPORT int cordon_set_foreground(cordon *c, int on);
/* This process runs no child but the run's (the CLI): it becomes a child
 * subreaper (Linux: PR_SET_CHILD_SUBREAPER, kept for the process's
 * life), so a process the run's commands leave behind, even outside
 * their process group or session, is reparented to it; the end of the
 * run kills and reaps every child the process has, and so every process
 * of the run, also without a PID namespace (the gap
 * processes_may_outlive_run is then not reported). Default off: a
 * library caller's other children would be killed too. */
CORDON_EXPORT int cordon_set_reap_all(cordon *c, int on);
/* When a confined command ends with a non-zero status, write on fd 2
 * that it ran confined and what a refusal by cordon gives it (default
 * off; the CLI's --explain):
 *   CORDON_EXPLAIN_SHORT: two lines, the errors each kind of refusal the
 *     run's policy can cause gives, and where the rest is; the whole of
 *     it when cordon saw a refusal of the run's (its proxy refused a
 *     connection, its memory bound killed a process);
 *   CORDON_EXPLAIN_FULL: one line of the whole of it, always (what was
 *     writable, each kind's errors on this machine, the paths denied...;
 *     the exit event's possible_refusals holds the same).
 * Another value: CORDON_EINVAL. */
enum cordon_explain { CORDON_EXPLAIN_OFF = 0, CORDON_EXPLAIN_SHORT = 1, CORDON_EXPLAIN_FULL = 2 };
CORDON_EXPORT int cordon_set_explain(cordon *c, int how);
/* A scratch home (default off): writes under the home ($HOME, else the
 * password database's) succeed and are discarded when the run ends; the
 * workspace and --allow-write paths in it stay the real, writable ones,
 * the caches their overlays, the deny-read list stays unreadable. Linux with the
 * mount layer (an overlay whose upper layer is a tmpfs of the run's
 * own); elsewhere writes under the home stay refused, a gap, and
 * "required" refuses to run. Nothing is done when there is no home
 * directory or it lies in a writable tree already. */
CORDON_EXPORT int cordon_set_scratch_home(cordon *c, int on);
/* Let the command make user namespaces of its own (default off: they are
 * refused, as they are a common route of kernel exploits; the status
 * event then has the layer user_namespaces_refused). On for commands that
 * run a sandbox of their own (bwrap, podman, unshare -U, Chromium's
 * namespace sandbox); the run reports the gap user_namespaces_allowed.
 * Linux; elsewhere it changes nothing. */
CORDON_EXPORT int cordon_set_allow_userns(cordon *c, int on);

/* Review before it lands (default off): the run's writes to the
 * workspace succeed for its commands but are held aside, under the state
 * dir (STATE/review/RUN_ID), and the real workspace is unchanged when the
 * run ends; the exit event lists each change ("review"). They land only
 * through cordon_apply(), or are dropped by cordon_discard(). Linux with
 * the mount layer (an overlay on the workspace). Where nothing can hold
 * the writes (Landlock alone, confinement unavailable, macOS), required
 * mode (and off) refuses the run (CORDON_EUNAVAILABLE, cause
 * review_not_enforceable), and auto runs it without the review: the
 * commands write the real workspace at once, the run has the gap
 * review_not_held, the exit event's "review" is null, and there is no
 * held run to apply. Only the workspace is held: caches, the temp dirs
 * and --allow-write paths outside it are written as usual. */
CORDON_EXPORT int cordon_set_review(cordon *c, int on);

/* --- options by name: policy files and profiles ---
 * Every option of `cordon run` can be given by its long name without the
 * dashes ("network", "allow-write"), through one table shared by the CLI,
 * policy files and profiles, and applied through the setters above. A
 * single-valued option (sandbox, network, cache/no-caches, on-tamper,
 * state-dir, status-file, status-fd, timeout, max-procs, max-memory,
 * max-tmp, workspace, cwd) given again by name with a different value
 * (compared parsed: 1G is 1024M) fails (CORDON_EINVAL) naming both, so a
 * policy cannot be undone by a later option and the order never changes
 * the result; lists and flags add up. (The typed setters still replace
 * a value.) A policy file's format, its rules and the profiles: the CLI
 * reference, "Policy files and profiles". */
/* One option: value NULL for one that takes none. Copies. "policy",
 * "profile" and "agent-policy" call the three functions below. */
CORDON_EXPORT int cordon_set_option(cordon *c, const char *name, const char *value);
/* 1 when the option takes a value, 0 when not, 2 when the value may be
 * left out (explain: "--explain" or "--explain=full"; on a command line
 * only after '='), CORDON_EINVAL when there is no such option. */
CORDON_EXPORT int cordon_option_takes_value(const char *name);
/* Apply a policy file, read now (path borrowed): one option a line,
 * "NAME VALUE" or "NAME", '#' comment lines; relative paths in it are
 * resolved against the workspace set so far (none: the current directory
 * at cordon_begin(), the default workspace), so set the workspace first:
 * cordon_set_workspace() with another value afterwards fails
 * (CORDON_ESTATE). A file not owned by the caller or root, writable by
 * its group or others, or with another hard link is refused
 * (CORDON_EREFUSED); so is, at cordon_begin(), one that lies in or is
 * reached through a tree a confined run may write. A bad line:
 * CORDON_EINVAL, "FILE:LINE: what". After any failure the handle refuses
 * to begin (the lines before it are applied). */
CORDON_EXPORT int cordon_load_policy(cordon *c, const char *path);
/* Apply a named profile (cordon_profile_names()); as a policy file. */
CORDON_EXPORT int cordon_use_profile(cordon *c, const char *name);
/* The profiles' names (NULL-terminated, static) and one's text in the
 * policy file format (static; NULL when there is no such profile). */
CORDON_EXPORT const char *const *cordon_profile_names(void);
CORDON_EXPORT const char *cordon_profile_text(const char *name);
/* The options an agent's entry point (cordon hook, cordon-sh) uses: the
 * profiles of CORDON_PROFILE (NAME[,NAME...]) and the file of
 * CORDON_POLICY (an absolute path) when either is set and not empty;
 * else the user's $XDG_CONFIG_HOME/cordon/agent.policy (an absolute
 * XDG_CONFIG_HOME, else ~/.config/cordon/agent.policy) when it exists;
 * else the profile "agent". Never a file of the workspace. Set the
 * workspace first (cordon_load_policy()). */
CORDON_EXPORT int cordon_use_agent_policy(cordon *c);
/* The options given by name so far, in the policy file format with a
 * comment naming where each group came from; caller frees (NULL when out
 * of memory). */
CORDON_EXPORT char *cordon_options_text(const cordon *c);

/* --- the run --- */
/* Only probes: fills the decision getters below, no temp dir, no event.
 * It tries every layer in a throw-away child (once per process), so what
 * it finds is known, not assumed, for every later run of the process. */
CORDON_EXPORT int cordon_probe(cordon *c);
/* Decides, makes the temp dir and prepares the layers. What no child of
 * this process has applied yet is assumed to work: the first spawn's
 * child applies every layer before exec and is the trial. The start event
 * is written here when the decision is already known, else by that first
 * spawn (or by cordon_end() when nothing was spawned). */
CORDON_EXPORT int cordon_begin(cordon *c);
/* argv[0] is looked up in the command's PATH after confinement. On success
 * *out is a process to pass to cordon_wait(). The first spawn of a run
 * whose decision is not yet known settles it: if its child meets a
 * refusal, every layer is tried (a throw-away child) and the command is
 * started again under what works; it runs once. In "required" mode that
 * may refuse the run here: CORDON_EUNAVAILABLE, both events written, the
 * run ended. Spawns from other threads wait until the decision is known. */
CORDON_EXPORT int cordon_spawn(cordon *c, const char *const argv[], cordon_proc **out);

/* A spawn's own fds 0, 1 and 2 (cordon_spawn_stdio): what the command
 * gets as each, instead of the caller's. Nothing process-wide changes
 * (no dup2 in the caller): spawns from several threads at once each get
 * their own. */
enum cordon_stdio_how {
	CORDON_STDIO_INHERIT = 0, /* the caller's own fd 0, 1 or 2 (cordon_spawn's way) */
	CORDON_STDIO_FD = 1, /* fd[i], an open fd of the caller's (borrowed) */
	CORDON_STDIO_PIPE = 2, /* a new pipe: fd[i] receives the caller's end */
	CORDON_STDIO_NULL = 3, /* /dev/null */
	CORDON_STDIO_STDOUT = 4 /* fd 2 only: whatever fd 1 gets (2>&1) */
};
struct cordon_stdio {
	int how[3]; /* an enum cordon_stdio_how for fd 0, 1 and 2 */
	/* In, with CORDON_STDIO_FD: the fd the command gets a copy of. It
	 * is borrowed: cordon never closes it, and the caller may close it
	 * once the call returned. Out, with CORDON_STDIO_PIPE: the caller's
	 * end of the pipe, close-on-exec and the caller's to close (the
	 * write end for fd 0: close it to give the command end-of-file; the
	 * read end for 1 and 2), or -1 when the call failed (nothing is left
	 * open then). Not read or written otherwise. */
	int fd[3];
};
/* cordon_spawn() with the fds 0-2 io says (NULL: cordon_spawn()). The
 * command's output goes into a pipe whose reader is the caller: read it
 * while the command runs (cordon_wait() reads nothing; a full pipe
 * stops the command). When confinement is applied, an fd given is
 * judged as the caller's own fds 0-2 are (the CLI reference's fds
 * section): a directory outside the writable set becomes /dev/null, a
 * regular file outside on fd 0 is opened again read-only where the
 * mount layer can; a fd the start event's gaps would have to name and
 * do not (a regular file outside on fd 1 or 2, or one on fd 0 that
 * cannot be opened again, without stdio_metadata_not_restricted; a
 * network socket with the network off or an allow-list, without
 * inherited_network_socket) is refused: CORDON_EREFUSED, nothing run.
 * A bad how, or a fd that is not open: CORDON_EINVAL. */
CORDON_EXPORT int cordon_spawn_stdio(cordon *c, const char *const argv[], struct cordon_stdio *io,
				     cordon_proc **out);
/* Process id of the command; it leads its own process group. */
CORDON_EXPORT long cordon_proc_pid(const cordon_proc *p);
/* Send a signal to the command's whole process group. */
CORDON_EXPORT int cordon_proc_kill(const cordon_proc *p, int sig);
/* Waits (honouring the timeout), fills *res, frees p. */
CORDON_EXPORT int cordon_wait(cordon_proc *p, struct cordon_result *res);
/* Ends the run, in this order: every command not waited for yet is
 * killed (SIGKILL: with its PID namespace, every process of it; else its
 * process group) and waited until gone (not reaped: cordon_wait() still
 * reaps it, and reports the signal); the git guard's check; the temp
 * dir's removal; the exit event. A run that spawned nothing settles its
 * decision here first (a throw-away child) and writes the start event; in
 * "required" mode what cannot be enforced is then a refusal:
 * CORDON_EUNAVAILABLE, both events written. */
/* Call it once every spawn of the run has returned (from any thread); a
 * spawn that races it fails (CORDON_ESTATE) and its command is killed. */
CORDON_EXPORT int cordon_end(cordon *c);
/* How the command waited for last ended, including a failed exec (127 or
 * 126) or a failed confinement (125). 0, or CORDON_ESTATE when none. */
CORDON_EXPORT int cordon_last_result(cordon *c, struct cordon_result *out);
/* begin + spawn + wait + end. */
CORDON_EXPORT int cordon_run(cordon *c, const char *const argv[], struct cordon_result *res);

/* --- the decision, valid after cordon_probe() or cordon_begin(); final
 * once the run's first spawn returned (or the start event is written) --- */
CORDON_EXPORT int cordon_applied(const cordon *c);
CORDON_EXPORT const char *cordon_backend_name(const cordon *c);
/* NULL when applied; else a fixed identifier. */
CORDON_EXPORT const char *cordon_reason(const cordon *c);
/* The platform's own reason behind CORDON_REASON_UNAVAILABLE, or NULL. */
CORDON_EXPORT const char *cordon_cause(const cordon *c);
/* When unavailable: what the platform's probe saw, in one line (e.g.
 * "sandbox-exec exited with status 1"), or NULL. Static. */
CORDON_EXPORT const char *cordon_reason_detail(const cordon *c);
/* Landlock ABI in use (0 when none). */
CORDON_EXPORT int cordon_abi(const cordon *c);
/* NULL-terminated lists of fixed identifiers. */
CORDON_EXPORT const char *const *cordon_layers(const cordon *c);
CORDON_EXPORT const char *const *cordon_gaps(const cordon *c);
/* After cordon_end(): how many git files the run planted (neutralised),
 * and each one's path and where it was moved ("" when removed); NULL
 * past the end. Valid until the next cordon_begin() or cordon_free(). */
CORDON_EXPORT size_t cordon_tampered_count(const cordon *c);
CORDON_EXPORT const char *cordon_tampered_path(const cordon *c, size_t i);
CORDON_EXPORT const char *cordon_tampered_moved(const cordon *c, size_t i);
/* The run's id (32 hex digits, as in its events and CORDON_RUN_ID),
 * valid from cordon_begin() until the next cordon_begin() or
 * cordon_free(); "" before. A review run's held changes are named by it. */
CORDON_EXPORT const char *cordon_run_id(const cordon *c);
/* The run's temp dir, or NULL. */
CORDON_EXPORT const char *cordon_tmpdir(const cordon *c);
/* The start status event as one JSON line without newline; caller frees.
 * NULL when out of memory or before cordon_probe()/cordon_begin(). */
CORDON_EXPORT char *cordon_status_json(const cordon *c);
/* What cordon_probe() found, as one JSON object; caller frees. */
CORDON_EXPORT char *cordon_probe_json(cordon *c);
/* A one-line English explanation of a reason identifier (static). */
CORDON_EXPORT const char *cordon_reason_text(const char *reason);

/* --- held runs (cordon_set_review) ---
 * A review run's changes stay under the state dir of the handle
 * (cordon_set_state_dir(), else the default) until applied, discarded,
 * or swept: a held run expires CORDON_REVIEW_EXPIRY_DAYS days after it
 * ended, and a later run of the same state dir removes it (never one
 * being applied: each is locked while used). A run killed before its end
 * held nothing that can land (its record was never written): it is
 * refused here and swept likewise. run_id: 32 hex digits. The handle
 * needs no cordon_begin(); the functions may be called on a handle of a
 * run that has ended. */
#define CORDON_REVIEW_EXPIRY_DAYS 7
/* One change, as the exit event lists it. */
struct cordon_change {
	char *path; /* relative to the workspace; any bytes but NUL */
	const char *kind; /* "added", "modified", "deleted", "mode" or "symlink" */
	long long size; /* bytes held (a symlink: its target's length), 0 when deleted */
};
/* The held changes of run_id, in the order apply lands them: *out (an
 * array the caller frees with cordon_changes_free(), n entries) and
 * *workspace (the real workspace, caller frees; NULL: not wanted). A
 * directory the run replaced (removed, then made again) is listed as
 * "deleted" then "added". 0, CORDON_EINVAL (no such held run, a bad id),
 * CORDON_ESTATE (in use: its run goes on, or another apply), CORDON_ESYS. */
CORDON_EXPORT int cordon_changes(cordon *c, const char *run_id, struct cordon_change **out,
				 size_t *n, char **workspace);
CORDON_EXPORT void cordon_changes_free(struct cordon_change *v, size_t n);
/* A unified diff of the held text files against the real ones, written
 * to fd (borrowed); binary files, symlinks and special files are named,
 * not dumped. Same errors as cordon_changes(). */
CORDON_EXPORT int cordon_diff(cordon *c, const char *run_id, int fd);
/* Land the held changes in the workspace exactly (contents, modes,
 * symlinks never followed, deletions), each file atomically (renamed
 * into place), then drop the held run. Every check comes before the
 * first change: CORDON_ECONFLICT, nothing changed, when the workspace
 * changed meanwhile at a path the run changed (its type, size, times or
 * inode differ from what the run's end recorded) or under a directory the
 * run removed; CORDON_ETAMPERED, nothing changed, when the git guard or
 * the agent-config guard would move aside a held change (a hook, a git
 * config that runs programs, an agent's settings: the message names the
 * first, cordon_apply_refused() lists them all), unless drop_guarded is 1:
 * then those are left out (and listed) and the rest lands. An apply cut
 * short (killed) may be run again: what landed already is recognised. */
CORDON_EXPORT int cordon_apply(cordon *c, const char *run_id, int drop_guarded);
/* After cordon_apply(): the held changes the guards refused (landed or
 * not, per drop_guarded), each path and its reason; NULL past the end.
 * Valid until the next cordon_apply() or cordon_free(). */
CORDON_EXPORT size_t cordon_apply_refused_count(const cordon *c);
CORDON_EXPORT const char *cordon_apply_refused_path(const cordon *c, size_t i);
CORDON_EXPORT const char *cordon_apply_refused_reason(const cordon *c, size_t i);
/* Drop the held changes (the workspace is not touched). */
CORDON_EXPORT int cordon_discard(cordon *c, const char *run_id);

#ifdef __cplusplus
}
#endif
#endif
