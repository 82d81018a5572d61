/*
 * --network allow=LIST in a run (netproxy.c): the allow-list's setters,
 * and the proxy's place in the run. The proxy engine itself is
 * src/net/proxy.c; this file gives it its listener, its list and its
 * events.
 *
 * Linux: the command runs in its own network namespace (as with --network
 * off); the run's child makes the only listener there, 127.0.0.1:PORT
 * (layer-netns.c), and hands it over a socketpair (SCM_RIGHTS) to a thread
 * of this process, which serves it from the host's namespace. No listener
 * exists on the host. macOS: the listener is on the host's loopback, with
 * a credential of the run's own, and the Seatbelt profile allows only it.
 */
#ifndef CORDON_NETPROXY_H
#define CORDON_NETPROXY_H

#include "handle.h"
#include "json.h"

/* Before the backend's prepare (cordon.c: plan): when the network is
 * "allow" and confinement applied, where the proxy listens (the policy's
 * proxy_port, and proxy_sock for the child's listener) and the
 * variables the command gets (the policy's cache_env). 0, or a CORDON_E*
 * code with the message set. */
int netproxy_plan(cordon *c);
/* The allow-list is enforced in this run (the proxy is the only way
 * out): 1 or 0. */
int netproxy_enforced(const cordon *c);
/* The end of the run, once its processes are gone: stop serving, keep
 * the counts for the exit event. */
void netproxy_stop(cordon *c);
/* The start event is out: the network_connect events held until then
 * follow it (status.c's order: the start event is a run's first line). */
void netproxy_started(cordon *c);
/* Free what the run made (stopping first). */
void netproxy_release(cordon *c);
/* The handle's allow-list and settings. */
void netproxy_free(cordon *c);

/* The start event's fields: "network_allow" (the list), "network_proxy"
 * (where the command's proxy variables point) and the two settings. */
void netproxy_start_fields(struct jbuf *b, const cordon *c);
/* The exit event's "network_connections": {"allowed":N,"refused":M,
 * "events_dropped":K} (K: the network_connect events not written), or
 * null when the network was not "allow" through a proxy. */
void netproxy_exit_fields(struct jbuf *b, const cordon *c);
/* The --explain text for the allow-list (no leading separator), or
 * nothing when it does not apply: 1 when it wrote something. */
int netproxy_explain(struct jbuf *b, const cordon *c);
/* The connections the run's proxy refused so far (0 without one). */
unsigned long netproxy_refused(const cordon *c);

#endif
