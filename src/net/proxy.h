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
	/* "connect", "http", "socks5"; "unknown" before the first bytes
	 * said which (a timeout, too_many, bytes of no protocol). */
	const char *proto;
	const char *host; /* as the client named it (canonical), or "" */
	unsigned port;
	const char *address; /* the address connected to, or NULL */
	int allowed;
	/* Why refused (a fixed identifier: "not_allowed", "port",
	 * "local_address", "resolve_failed", "connect_failed", "bad_request",
	 * "auth", "too_many", "timeout", ...), NULL when allowed. */
	const char *reason;
	/* To be counted, not told: with a token, an "auth" or "too_many"
	 * refusal past the first PROXY_LOUD_MAX of the proxy (any local
	 * process can dial it and would fill the run's status). */
	int quiet;
};

#define PROXY_LOUD_MAX 16

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
	unsigned max_conns; /* connections at once; 0: a default (256) */
	int connect_timeout_ms; /* 0: a default (10 s) */
	int idle_timeout_ms; /* a relay with no byte either way; 0: a default (5 min) */
	/* Called from the proxy's threads, one call at a time, for each
	 * connection decided (may be NULL): once per connection, before
	 * the client has the answer. Not for one that closed before its
	 * first byte, nor one proxy_stop ended undecided. */
	void (*on_event)(void *arg, const struct proxy_event *ev);
	void *event_arg;
	/* A client's time to send its request (the HTTP head, or SOCKS5's
	 * greeting, authentication and request); 0: a default (10 s). */
	int head_timeout_ms;
};

struct proxy;

/* Start serving listen_fd (a listening stream socket; the proxy takes
 * it, and makes it non-blocking and close-on-exec). cfg is copied (and
 * the token); allow and resolve are borrowed until proxy_stop. The
 * proxy's threads block every signal. 0 with *out set, or -1 with
 * errno (listen_fd then stays the caller's). */
int proxy_start(int listen_fd, const struct proxy_config *cfg, struct proxy **out);
/* Connections allowed and refused so far. */
void proxy_counts(struct proxy *p, unsigned long *allowed, unsigned long *refused);
/* Stop accepting, close every connection, join the threads, free.
 * Prompt: no wait for a client, a connect or the resolver (a lookup in
 * flight finishes in a detached thread that touches nothing of p). */
void proxy_stop(struct proxy *p);

struct sockaddr;
/* An address the proxy does not reach unless allow_local: loopback,
 * unspecified (0/8, ::), private (10/8, 172.16/12, 192.168/16,
 * fc00::/7), link-local (169.254/16, fe80::/10), CGNAT (100.64/10),
 * multicast, 240/4 and broadcast, site-local fec0::/10; these as
 * ::ffff:a.b.c.d, ::a.b.c.d or NAT64's 64:ff9b::a.b.c.d, and all of
 * 64:ff9b:1::/48; a family other than IPv4 and IPv6. 1 or 0.
 * (The host's own addresses are refused too, checked apart.) */
int proxy_address_local(const struct sockaddr *sa);

#endif
