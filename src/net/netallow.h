/*
 * The network allow-list (--network allow=PATTERNS): its patterns and
 * presets, and whether a destination is on it. Pure: no system calls,
 * unit-tested and fuzzed (netallow.c).
 *
 * Patterns, case-insensitive, a trailing dot ignored:
 *   example.com         that name only
 *   *.example.com       its subdomains, not the name itself
 *   **.example.com      the name and its subdomains
 *   1.2.3.4, [2001:db8::1]   that address only (an address is reachable
 *                       only when listed itself, never through a name)
 *   any of these with :PORT  that port only; without one, 443, and 80
 *                       too when plain HTTP is allowed
 *   @npm @pypi @crates @go @github   the registries' hosts (documented)
 */
#ifndef CORDON_NETALLOW_H
#define CORDON_NETALLOW_H

#include <stddef.h>

#define NETALLOW_HOST_MAX 256 /* a name of 253 bytes, or an address */

enum netallow_kind {
	NA_EXACT, /* example.com */
	NA_SUBDOMAINS, /* *.example.com */
	NA_APEX_AND_SUBDOMAINS, /* **.example.com */
	NA_IPV4, /* 1.2.3.4 (host: its dotted text, canonical) */
	NA_IPV6 /* [::1] (host: its 16 bytes as 32 hex digits) */
};

struct netallow_entry {
	enum netallow_kind kind;
	char host[NETALLOW_HOST_MAX]; /* lower case, no trailing dot */
	unsigned port; /* 0: the default ports */
};

struct netallow {
	struct netallow_entry *v;
	size_t n, cap;
};

/* Add the patterns of a comma-separated list (a preset expands to its
 * hosts). 0, or -1 with a one-line reason in err (errlen bytes): the
 * list is then unchanged. */
int netallow_add(struct netallow *a, const char *list, char *err, size_t errlen);
void netallow_free(struct netallow *a);

/* The hosts of a preset ("@npm"), NULL-terminated, or NULL when there
 * is no such preset. */
const char *const *netallow_preset(const char *name);
/* The presets' names, NULL-terminated. */
const char *const *netallow_presets(void);

/* A destination as a client names it: a name, or an address literal
 * (dotted IPv4, or IPv6 with or without brackets). Is it on the list for
 * port (plain_http: 80 is a default port too)? 1 or 0. */
int netallow_match(const struct netallow *a, const char *host, unsigned port, int plain_http);

/* host made canonical for matching into out (NETALLOW_HOST_MAX bytes):
 * lower case, no trailing dot; an address literal in the form the
 * entries keep. Its kind in *kind (NA_EXACT for a name). 0, or -1 when
 * it is neither a valid name nor an address. */
int netallow_canon(const char *host, char *out, enum netallow_kind *kind);

#endif
