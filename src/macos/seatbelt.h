/*
 * The Seatbelt backend's pure parts (backend-seatbelt.c), declared for
 * its unit test: the profile and argv builders and the classification of
 * the probe's outcome, and its coverage. None of them touches the file
 * system.
 */
#ifndef CORDON_SEATBELT_H
#define CORDON_SEATBELT_H

#include "backend.h"
#include "json.h"

/* The only sandbox-exec cordon runs: never looked up in PATH. */
#define SEATBELT_EXEC "/usr/bin/sandbox-exec"

/* What the profile text depends on: how many entries of each kind, never
 * their bytes. */
struct sb_shape {
	size_t roots; /* writable directories: ROOT_n */
	size_t files; /* writable files: FILE_n */
	size_t protects; /* protected paths: PROTECT_n */
	size_t parents; /* their ancestors inside a writable dir: PROTECT_PARENT_n */
	size_t sockets; /* --allow-socket paths: SOCKET_n */
	size_t absents; /* names that must not be made: ABSENT_n */
	size_t denies; /* paths that must not be read: DENY_READ_n */
	size_t keeps; /* files inside them that stay readable: READ_KEEP_n */
	int network_off; /* --network off: the fixed IP denials */
	int capture_denied; /* the default deny-read list: no camera, no microphone */
	/* --network allow: the proxy's port on loopback is allowed out
	 * (PROXY_PORT_0), nothing else */
	int proxy;
	/* The agent configuration below the guard's levels (seatbelt-held.c):
	 * a pattern per tree (AGENT_BELOW_n), the --allow-agent-config paths
	 * allowed again (AGENT_ALLOW_n), and the trees whose path could not
	 * be written as a pattern (no rule: the run says so). */
	size_t below;
	size_t agent_allows;
	size_t unexpressed;
};

/* The parameters' names of seatbelt-held.c's clauses. */
#define SB_BELOW "AGENT_BELOW"
#define SB_AGENT_ALLOW "AGENT_ALLOW"

/* The profile for a policy of this shape (caller frees), NULL without
 * memory. */
char *seatbelt_profile(const struct sb_shape *shape);

/* The argv prefix for a policy whose paths are canonical:
 *   EXEC -p PROFILE -D ROOT_0=... -D FILE_0=... -D PROTECT_0=...
 *   -D PROTECT_PARENT_0=... -D SOCKET_0=... -D ABSENT_0=...
 *   -D DENY_READ_0=... -D READ_KEEP_0=... [-D PROXY_PORT_0=N] --
 * Devices (W_DEVICE) are fixed in the profile and take no parameter.
 * Appends to *out; 0 or CORDON_ENOMEM. *shape (may be NULL) gets the
 * counts. */
int seatbelt_argv(const struct policy *p, const char *exec_path, struct strv *out,
		  struct sb_shape *shape);

/* Appends -D NAME_i=VALUE to out. 0 or CORDON_ENOMEM. */
int seatbelt_push_param(struct strv *out, const char *name, size_t i, const char *value);

/* seatbelt-held.c. Appends to b a regular expression (Seatbelt's syntax,
 * ASCII only) that matches the len bytes of s: each ASCII character as
 * itself (with fold, a letter in either case, and 's', 'k' also as the
 * Unicode characters that fold to them), each run of other characters as
 * any run of characters but '/'. 0, or -1 when s holds a byte it does not
 * write: a control character, or bytes that are not UTF-8. */
int seatbelt_regex_quote(struct jbuf *b, const char *s, size_t len, int fold);
/* The expression matching a path at or below one of the names, at any
 * depth of tree (canonical, absolute): ^TREE/(.+/)?(NAMES)(/|$). 0 and
 * *out (caller frees); 1 when tree (or a name) cannot be written so
 * (seatbelt_regex_quote), *out NULL; or CORDON_ENOMEM. */
int seatbelt_below_regex(const char *tree, const char *const *names, size_t n, char **out);
/* The AGENT_BELOW_n and AGENT_ALLOW_n parameters for p (nothing when its
 * held_names is NULL), appended to params, counted in s. 0 or
 * CORDON_ENOMEM. */
int seatbelt_held_params(const struct policy *p, struct strv *params, struct sb_shape *s);

/* The probe's outcome: REASON_NONE when Seatbelt is usable, else a
 * reason, with what was seen written to detail. exec_err is the errno
 * of a failed exec (0 when it ran), timed_out is 1 when it had to be
 * killed, status is waitpid's. */
enum reason_id seatbelt_classify(int exec_err, int timed_out, int status, char *detail,
				 size_t detail_len);

/* What the profile covers (the probe's answer when Seatbelt is usable). */
void seatbelt_coverage(struct coverage *out);

#if defined(CORDON_SEATBELT_TEST_HOOKS)
/* TEST BUILDS ONLY: probe this program instead of SEATBELT_EXEC, with
 * this timeout, and forget the cached probe result. */
void seatbelt_test_reset(const char *exec_path, int timeout_ms);
#endif

#endif
