/*
 * The allow-list proxy (--network allow=...): serves, from threads of
 * cordon's own process, the connections a run's command makes to the one
 * listener it can reach (on Linux: a listener made inside the run's own
 * network namespace, so nothing else on the host can dial it, and the
 * command has no other way out). HTTP CONNECT, one plain HTTP request per
 * connection when allowed, and SOCKS5 CONNECT (the protocols are read by
 * proxyproto.c). Each destination is checked against the allow-list
 * (netallow.c), resolved by the proxy itself, each address vetted (no
 * loopback, private, link-local, CGNAT, multicast or host address unless
 * allow_local), and the connection made to the vetted address: there is
 * no second lookup.
 */
#ifndef CORDON_PROXY_H
#define CORDON_PROXY_H

#include "netallow.h"

#include <stddef.h>

/* One connection the command asked for, allowed or refused. The strings
 * live only for the call. */
struct proxy_event {
	const char *proto; /* "connect", "http", "socks5" */
	const char *host; /* as the client named it (canonical), or "" */
	unsigned port;
	const char *address; /* the address connected to, or NULL */
	int allowed;
	/* Why refused (a fixed identifier: "not_allowed", "port",
	 * "local_address", "resolve_failed", "connect_failed", "bad_request",
	 * "auth", "too_many", "timeout", ...), NULL when allowed. */
	const char *reason;
};

struct proxy_config {
	const struct netallow *allow; /* the list (not copied: outlives the proxy) */
	int allow_local; /* loopback, private, ... addresses may be reached */
	int plain_http; /* one plain HTTP request per connection, port 80 too */
	/* A credential every client must give (Proxy-Authorization Basic
	 * "cordon:TOKEN", SOCKS5 user "cordon" and password TOKEN), or NULL:
	 * for a listener other processes can dial (macOS, loopback). */
	const char *token;
	/* NAME=ADDR entries that replace the resolver for NAME (tests), or
	 * NULL. */
	const char *const *resolve;
	size_t nresolve;
	unsigned max_conns; /* connections at once; 0: a default */
	int connect_timeout_ms; /* 0: a default */
	int idle_timeout_ms; /* a relay with no byte either way; 0: a default */
	/* Called from the proxy's threads, one call at a time, for each
	 * connection decided (may be NULL). */
	void (*on_event)(void *arg, const struct proxy_event *ev);
	void *event_arg;
};

struct proxy;

/* Start serving listen_fd (a listening stream socket; the proxy takes
 * it). 0 with *out set, or -1 with errno. */
int proxy_start(int listen_fd, const struct proxy_config *cfg, struct proxy **out);
/* Connections allowed and refused so far. */
void proxy_counts(struct proxy *p, unsigned long *allowed, unsigned long *refused);
/* Stop accepting, close every connection, join the threads, free. */
void proxy_stop(struct proxy *p);

#endif
