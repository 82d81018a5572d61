/*
 * --network allow=LIST in a run: the allow-list's setters, where the
 * proxy listens, the command's proxy variables, the network_connect
 * events and the counts (see netproxy.h). The engine is src/net/proxy.c.
 */
#include "backend.h"
#include "netallow.h"
#include "netproxy.h"
#include "proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Refused destinations the --explain line names (the first ones). */
#define REFUSED_KEPT 8
/* The network_connect events a run writes (held ones included): past
 * these, one network_connect_suppressed line and then none, so the
 * command cannot make cordon write without end; the exit event still
 * counts every connection, and how many events were not written. */
#define EVENTS_KEPT 1000

/* The port the listener has inside the run's own network namespace: any
 * port is free in a namespace nobody else is in; below the kernel's
 * ephemeral range (32768 up), so no autobind of the command takes it. */
#define PORT_LOW 10000
#define PORT_SPAN 22000

struct netconf {
	/* configuration */
	struct netallow allow;
	int allow_local, allow_http;
	struct strv resolve; /* NAME=ADDR, the name canonical */
	/* the run */
	pthread_mutex_t lock; /* guards the proxies, counts and refused names */
	int made; /* the listener's way is made (once per run) */
	int sv[2]; /* Linux: [0] receives the listeners the children make */
	int stop[2]; /* the receiver's stop pipe */
	pthread_t receiver;
	int receiving;
	unsigned port;
	char token[33]; /* a listener on the host's loopback: its credential */
	struct proxy_config cfg;
	struct proxy **proxies;
	size_t nproxies;
	int stopped;
	unsigned long allowed, refused; /* the decisions so far */
	unsigned long written, dropped; /* network_connect lines: out or held, not */
	int said_suppressed; /* the line that says they stop is out */
	char *refused_names[REFUSED_KEPT];
	size_t nrefused_names;
	/* The start event is out (netproxy_started): until then the events
	 * wait here, so a run's first line is always its start event. */
	int started;
	struct strv held;
	cordon *c;
};

static struct netconf *netconf_of(cordon *c)
{
	if (c->net != NULL)
		return c->net;
	struct netconf *n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->sv[0] = n->sv[1] = n->stop[0] = n->stop[1] = -1;
	if (pthread_mutex_init(&n->lock, NULL) != 0) {
		free(n);
		return NULL;
	}
	c->net = n;
	return n;
}

/* ---- the setters ---- */

static int allow_setter(cordon *c, struct netconf **out)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if ((*out = netconf_of(c)) == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

int cordon_set_network_allow(cordon *c, const char *list)
{
	struct netconf *n;
	char err[256];
	int r = allow_setter(c, &n);
	if (r != 0)
		return r;
	if (list == NULL)
		return cordon_fail(c, CORDON_EINVAL, "no --network allow list");
	if (netallow_add(&n->allow, list, err, sizeof(err)) != 0)
		return cordon_fail(c, CORDON_EINVAL, "bad --network allow=%s: %s", list, err);
	c->network = CORDON_NETWORK_ALLOW;
	return 0;
}

/* from's entries appended to into: 0 or -1 (no memory). */
static int allow_merge(struct netallow *into, const struct netallow *from)
{
	if (from->n == 0)
		return 0;
	size_t need = into->n + from->n;
	if (need > into->cap) {
		struct netallow_entry *v = realloc(into->v, need * sizeof(*v));
		if (v == NULL)
			return -1;
		into->v = v;
		into->cap = need;
	}
	memcpy(into->v + into->n, from->v, from->n * sizeof(*from->v));
	into->n = need;
	return 0;
}

/* A line without its comment and surrounding blanks (in place). */
static char *line_pattern(char *line)
{
	char *hash = strchr(line, '#');
	if (hash != NULL)
		*hash = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\n' ||
			 line[n - 1] == '\r'))
		line[--n] = '\0';
	return line;
}

static int read_allow_file(cordon *c, FILE *f, const char *path, struct netallow *tmp)
{
	char *line = NULL, err[256];
	size_t cap = 0;
	unsigned lineno = 0;
	int r = 0;
	while (r == 0 && getline(&line, &cap, f) >= 0) {
		lineno++;
		const char *p = line_pattern(line);
		if (*p != '\0' && netallow_add(tmp, p, err, sizeof(err)) != 0)
			r = cordon_fail(c, CORDON_EINVAL, "--network-allow-file %s, line %u: %s",
					path, lineno, err);
	}
	if (r == 0 && ferror(f))
		r = cordon_fail_errno(c, CORDON_EINVAL, errno,
				      "cannot read --network-allow-file %s", path);
	free(line);
	return r;
}

int cordon_set_network_allow_file(cordon *c, const char *path)
{
	struct netconf *n;
	int r = allow_setter(c, &n);
	if (r != 0)
		return r;
	if (path == NULL || path[0] == '\0')
		return cordon_fail(c, CORDON_EINVAL, "empty --network-allow-file");
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return cordon_fail_errno(c, CORDON_EINVAL, errno,
					 "cannot read --network-allow-file %s", path);
	struct netallow tmp = { 0 };
	r = read_allow_file(c, f, path, &tmp);
	fclose(f);
	if (r == 0 && allow_merge(&n->allow, &tmp) != 0)
		r = cordon_fail(c, CORDON_ENOMEM, "out of memory");
	netallow_free(&tmp);
	if (r == 0)
		c->network = CORDON_NETWORK_ALLOW;
	return r;
}

int cordon_set_network_allow_local(cordon *c, int on)
{
	struct netconf *n;
	int r = allow_setter(c, &n);
	if (r == 0)
		n->allow_local = on != 0;
	return r;
}

int cordon_set_network_allow_http(cordon *c, int on)
{
	struct netconf *n;
	int r = allow_setter(c, &n);
	if (r == 0)
		n->allow_http = on != 0;
	return r;
}

/* addr (an IPv4 or IPv6 literal, the latter bracketed or not) into out
 * without brackets: 0 or -1. */
static int resolve_address(const char *addr, char *out, size_t outlen)
{
	unsigned char bin[16];
	size_t n = strlen(addr);
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr++;
		n -= 2;
	}
	if (n == 0 || n >= outlen)
		return -1;
	memcpy(out, addr, n);
	out[n] = '\0';
	return inet_pton(AF_INET, out, bin) == 1 || inet_pton(AF_INET6, out, bin) == 1 ? 0 : -1;
}

int cordon_add_network_resolve(cordon *c, const char *spec)
{
	struct netconf *n;
	int r = allow_setter(c, &n);
	if (r != 0)
		return r;
	const char *eq = spec != NULL ? strchr(spec, '=') : NULL;
	char name[NETALLOW_HOST_MAX], canon[NETALLOW_HOST_MAX], addr[INET6_ADDRSTRLEN];
	enum netallow_kind kind;
	size_t nl = eq != NULL ? (size_t)(eq - spec) : 0;
	if (nl > 0 && nl < sizeof(name)) {
		memcpy(name, spec, nl);
		name[nl] = '\0';
	}
	if (nl == 0 || nl >= sizeof(name) || netallow_canon(name, canon, &kind) != 0 ||
	    kind != NA_EXACT || resolve_address(eq + 1, addr, sizeof(addr)) != 0)
		return cordon_fail(c, CORDON_EINVAL,
				   "bad --network-resolve '%s' (want NAME=ADDRESS: a host name, an "
				   "IPv4 or IPv6 address)",
				   spec != NULL ? spec : "");
	char entry[sizeof(canon) + sizeof(addr) + 1];
	snprintf(entry, sizeof(entry), "%s=%s", canon, addr);
	if (strv_push(&n->resolve, entry) != 0)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

/* ---- the events ---- */

/* A host as people write it: an IPv6 address the engine names by its 32
 * hex digits (netallow's canonical form) as text, else host itself. */
static const char *host_text(const char *host, char *out, size_t outlen)
{
	unsigned char bin[16];
	if (host == NULL || strlen(host) != 32 || strspn(host, "0123456789abcdef") != 32)
		return host;
	for (size_t i = 0; i < 16; i++) {
		const char *d = "0123456789abcdef";
		bin[i] = (unsigned char)((strchr(d, host[2 * i]) - d) << 4 |
					 (strchr(d, host[2 * i + 1]) - d));
	}
	return inet_ntop(AF_INET6, bin, out, (socklen_t)outlen) != NULL ? out : host;
}

static void keep_refused(struct netconf *n, const struct proxy_event *ev)
{
	char name[NETALLOW_HOST_MAX + 64], text[INET6_ADDRSTRLEN];
	const char *host = ev->host != NULL && ev->host[0] != '\0'
				   ? host_text(ev->host, text, sizeof(text))
			   : ev->address != NULL ? ev->address
						 : "?";
	snprintf(name, sizeof(name), "%s:%u", host, ev->port);
	for (char *p = name; *p != '\0'; p++)
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			*p = '?'; /* one line, whatever the client sent */
	for (size_t i = 0; i < n->nrefused_names; i++)
		if (strcmp(n->refused_names[i], name) == 0)
			return;
	if (n->nrefused_names < REFUSED_KEPT &&
	    (n->refused_names[n->nrefused_names] = strdup(name)) != NULL)
		n->nrefused_names++;
}

/* A line out now, or held until the start event is (called with the
 * lock): in the order decided. */
static void put_line(struct netconf *n, char *line)
{
	if (n->started || line == NULL || strv_take(&n->held, line) != 0) {
		status_emit(n->c, line);
		free(line);
	}
}

/* The one line that says the run's network_connect events stop. */
static void put_suppressed(struct netconf *n)
{
	struct jbuf b = { 0 };
	jb_raw(&b, "{");
	jb_key(&b, "event");
	jb_str(&b, cordon_event_ids[EVENT_NETWORK_CONNECT_SUPPRESSED].id);
	jb_key(&b, "run_id");
	jb_str(&b, n->c->run_id);
	jb_key(&b, "events_written");
	jb_int(&b, (long long)n->written);
	jb_raw(&b, "}");
	put_line(n, jb_finish(&b));
}

/* The engine's callback, from its threads: one network_connect event. */
static void on_event(void *arg, const struct proxy_event *ev)
{
	cordon *c = arg;
	struct netconf *n = c->net;
	pthread_mutex_lock(&n->lock);
	if (ev->allowed)
		n->allowed++;
	else
		n->refused++;
	/* Another local process's noise at a loopback listener (auth,
	 * too_many past the engine's first few): counted, never written,
	 * never named. */
	if (ev->quiet) {
		n->dropped++;
		pthread_mutex_unlock(&n->lock);
		return;
	}
	if (!ev->allowed)
		keep_refused(n, ev);
	if (n->written >= EVENTS_KEPT) {
		n->dropped++;
		if (!n->said_suppressed) {
			n->said_suppressed = 1;
			put_suppressed(n);
		}
		pthread_mutex_unlock(&n->lock);
		return;
	}
	n->written++;
	struct jbuf b = { 0 };
	char text[INET6_ADDRSTRLEN];
	jb_raw(&b, "{");
	jb_key(&b, "event");
	jb_str(&b, cordon_event_ids[EVENT_NETWORK_CONNECT].id);
	jb_key(&b, "run_id");
	jb_str(&b, c->run_id);
	jb_key(&b, "proto");
	jb_str(&b, ev->proto);
	jb_key(&b, "host");
	jb_str(&b, host_text(ev->host, text, sizeof(text)));
	jb_key(&b, "port");
	jb_int(&b, ev->port);
	jb_key(&b, "address");
	jb_str(&b, ev->address);
	jb_key(&b, "decision");
	jb_str(&b, cordon_net_decision_ids[ev->allowed ? NET_ALLOWED : NET_REFUSED].id);
	jb_key(&b, "reason");
	jb_str(&b, ev->allowed ? NULL : ev->reason);
	jb_raw(&b, "}");
	put_line(n, jb_finish(&b)); /* under the lock: in the order decided */
	pthread_mutex_unlock(&n->lock);
}

/* The events held until now, in order (called with the lock). */
static void flush_held(struct netconf *n)
{
	for (size_t i = 0; i < n->held.n; i++)
		status_emit(n->c, n->held.v[i]);
	strv_free(&n->held);
}

void netproxy_started(cordon *c)
{
	struct netconf *n = c->net;
	if (n == NULL)
		return;
	pthread_mutex_lock(&n->lock);
	n->started = 1;
	flush_held(n);
	pthread_mutex_unlock(&n->lock);
}

/* ---- serving ---- */

/* A listener to serve (the proxy takes it): 0, or -1 (closed). */
static int serve(struct netconf *n, int fd)
{
	struct proxy *p = NULL;
	pthread_mutex_lock(&n->lock);
	struct proxy **v =
		n->stopped ? NULL : realloc(n->proxies, (n->nproxies + 1) * sizeof(struct proxy *));
	if (v != NULL) {
		n->proxies = v;
		if (proxy_start(fd, &n->cfg, &p) == 0)
			n->proxies[n->nproxies++] = p;
	}
	pthread_mutex_unlock(&n->lock);
	if (p == NULL)
		close(fd); /* a listener nobody serves: its connections are refused */
	return p != NULL ? 0 : -1;
}

#if defined(__linux__)
/* One listener a child sent (SCM_RIGHTS), or -1. */
static int receive_listener(int sock)
{
	char byte;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { 0 };
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	ssize_t k = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (k <= 0)
		return k == 0 ? -2 : -1;
	int fd = -1;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h != NULL; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

/* The receiver: every listener a child of the run sends, served, until
 * the stop pipe says the run ends. */
static void *receiver_main(void *arg)
{
	struct netconf *n = arg;
	for (;;) {
		struct pollfd p[2] = { { n->sv[0], POLLIN, 0 }, { n->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents != 0)
			break;
		if (p[0].revents & POLLIN) {
			int fd = receive_listener(n->sv[0]);
			if (fd >= 0)
				(void)serve(n, fd);
			else if (fd == -2)
				break;
		} else if (p[0].revents != 0) {
			break;
		}
	}
	return NULL;
}

/* Linux: the socketpair the children send their listeners over and the
 * thread that receives them. 0 or an errno value. */
static int start_receiver(struct netconf *n)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, n->sv) != 0)
		return errno;
	if (pipe_cloexec(n->stop) != 0)
		return errno;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&n->receiver, NULL, receiver_main, n);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return e;
	n->receiving = 1;
	return 0;
}
#else
/* Only Linux makes the listener in the command's own namespace. */
static int start_receiver(struct netconf *n)
{
	(void)n;
	return ENOSYS;
}
#endif

/* A listening TCP socket on the loopback address of family af (port 0:
 * any), close-on-exec: the fd, or -1 with errno set. */
static int loopback_listener(int af, unsigned port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (af == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_loopback;
		a6->sin6_port = htons((uint16_t)port);
		len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a4->sin_port = htons((uint16_t)port);
		len = sizeof(*a4);
	}
	int fd = socket(af, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || bind(fd, (struct sockaddr *)&ss, len) != 0 ||
	    listen(fd, 128) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* How many ports the macOS listener tries before giving up on one free
 * on both loopback addresses. */
#define HOST_PORT_TRIES 8

/* macOS: a listener on the host's loopback, which any local process can
 * dial, so the run's credential is asked of every client. The profile
 * can only name "localhost:PORT", which is 127.0.0.1 and ::1 alike, so
 * the proxy holds the port on both: nothing else can listen on
 * [::1]:PORT for the command to reach (a host without IPv6 loopback has
 * nothing there to reach). 0 or errno. */
static int start_host_listener(struct netconf *n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[16];
	if (random_bytes(raw, sizeof(raw)) != 0)
		return EAGAIN;
	for (size_t i = 0; i < sizeof(raw); i++) {
		n->token[2 * i] = hex[raw[i] >> 4];
		n->token[2 * i + 1] = hex[raw[i] & 15];
	}
	n->token[32] = '\0';
	n->cfg.token = n->token;
	int e = EADDRINUSE;
	for (int t = 0; t < HOST_PORT_TRIES; t++) {
		int fd = loopback_listener(AF_INET, 0);
		if (fd < 0)
			return errno;
		struct sockaddr_in a;
		socklen_t alen = sizeof(a);
		if (getsockname(fd, (struct sockaddr *)&a, &alen) != 0) {
			e = errno;
			close(fd);
			return e;
		}
		unsigned port = ntohs(a.sin_port);
		int fd6 = loopback_listener(AF_INET6, port);
		if (fd6 < 0 && errno == EADDRINUSE) {
			close(fd); /* someone holds [::1]:port: another port */
			continue;
		}
		if (fd6 < 0 && errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL) {
			e = errno;
			close(fd);
			return e;
		}
		n->port = port;
		if (serve(n, fd) != 0) {
			if (fd6 >= 0)
				close(fd6);
			return EIO;
		}
		return fd6 < 0 || serve(n, fd6) == 0 ? 0 : EIO;
	}
	return e;
}

/* NAME=VALUE for each proxy variable the tools read. */
static int proxy_env(cordon *c, struct netconf *n)
{
	static const char *const http_names[] = {
		"HTTP_PROXY",	   "HTTPS_PROXY",      "http_proxy",
		"https_proxy",	   "npm_config_proxy", "npm_config_https_proxy",
		"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "PIP_PROXY",
	};
	char cred[64] = "", http[128], socks[128], e[192];
	if (n->cfg.token != NULL)
		snprintf(cred, sizeof(cred), "cordon:%s@", n->cfg.token);
	snprintf(http, sizeof(http), "http://%s127.0.0.1:%u", cred, n->port);
	snprintf(socks, sizeof(socks), "socks5h://%s127.0.0.1:%u", cred, n->port);
	struct strv *env = &c->pol.cache_env;
	int r = 0;
	for (size_t i = 0; i < sizeof(http_names) / sizeof(http_names[0]); i++) {
		snprintf(e, sizeof(e), "%s=%s", http_names[i], http);
		r |= strv_push(env, e);
	}
	snprintf(e, sizeof(e), "ALL_PROXY=%s", socks);
	r |= strv_push(env, e);
	snprintf(e, sizeof(e), "all_proxy=%s", socks);
	r |= strv_push(env, e);
	r |= strv_push(env, "NO_PROXY=localhost,127.0.0.1,::1");
	r |= strv_push(env, "no_proxy=localhost,127.0.0.1,::1");
	r |= strv_push(env, "NODE_USE_ENV_PROXY=1");
	return r != 0 ? cordon_fail(c, CORDON_ENOMEM, "out of memory") : 0;
}

/* Make the listener's way (once per run): Linux, the receiver and the
 * port the children's listeners take; macOS, the listener itself. */
static int make_way(cordon *c, struct netconf *n, int host_listener)
{
	n->c = c;
	n->cfg.allow = &n->allow;
	n->cfg.allow_local = n->allow_local;
	n->cfg.plain_http = n->allow_http;
	n->cfg.resolve = (const char *const *)n->resolve.v;
	n->cfg.nresolve = n->resolve.n;
	n->cfg.on_event = on_event;
	n->cfg.event_arg = c;
	n->cfg.token = NULL;
	int e;
	if (host_listener) {
		e = start_host_listener(n);
	} else {
		unsigned short r = 0;
		(void)random_bytes(&r, sizeof(r));
		n->port = PORT_LOW + r % PORT_SPAN;
		e = start_receiver(n);
	}
	n->made = 1;
	if (e != 0)
		return cordon_fail_errno(c, CORDON_ESYS, e, "cannot start the allow-list proxy");
	return proxy_env(c, n);
}

int netproxy_plan(cordon *c)
{
	c->pol.proxy_port = 0;
	c->pol.proxy_sock = -1;
	if (c->network != CORDON_NETWORK_ALLOW || !c->dec.applied)
		return 0;
	struct netconf *n = netconf_of(c);
	if (n == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	enum backend_id be = c->dec.backend->id;
	int host_listener = be == BACKEND_SEATBELT;
	/* Linux: only the run's own network namespace keeps the proxy the
	 * only way out (policy_coverage names the gap, or refuses). */
	if (be == BACKEND_LANDLOCK && !(c->dec.cov.layers & (1u << LAYER_NETNS)))
		return 0;
	if (be != BACKEND_LANDLOCK && !host_listener)
		return 0;
	if (!n->made) {
		int r = make_way(c, n, host_listener);
		if (r != 0)
			return r;
	}
	c->pol.proxy_port = n->port;
	c->pol.proxy_sock = host_listener ? -1 : n->sv[1];
	return 0;
}

int netproxy_enforced(const cordon *c)
{
	return c->network == CORDON_NETWORK_ALLOW && c->pol.proxy_port != 0;
}

void netproxy_stop(cordon *c)
{
	struct netconf *n = c->net;
	if (n == NULL || !n->made)
		return;
	if (n->receiving) {
		char b = 's';
		if (write(n->stop[1], &b, 1) != 1)
			(void)shutdown(n->sv[0], SHUT_RDWR);
		(void)pthread_join(n->receiver, NULL);
		n->receiving = 0;
	}
	pthread_mutex_lock(&n->lock);
	n->stopped = 1;
	struct proxy **v = n->proxies;
	size_t np = n->nproxies;
	n->proxies = NULL;
	n->nproxies = 0;
	pthread_mutex_unlock(&n->lock);
	for (size_t i = 0; i < np; i++)
		proxy_stop(v[i]); /* its last events come out here */
	free(v);
	pthread_mutex_lock(&n->lock);
	flush_held(n); /* a run that ended before its start event: after it */
	pthread_mutex_unlock(&n->lock);
}

void netproxy_release(cordon *c)
{
	struct netconf *n = c->net;
	if (n == NULL)
		return;
	netproxy_stop(c);
	for (int i = 0; i < 2; i++) {
		if (n->sv[i] >= 0)
			close(n->sv[i]);
		if (n->stop[i] >= 0)
			close(n->stop[i]);
		n->sv[i] = n->stop[i] = -1;
	}
	for (size_t i = 0; i < n->nrefused_names; i++)
		free(n->refused_names[i]);
	n->nrefused_names = 0;
	strv_free(&n->held);
	n->made = n->stopped = n->started = 0;
	n->allowed = n->refused = n->written = n->dropped = 0;
	n->said_suppressed = 0;
	n->port = 0;
}

void netproxy_free(cordon *c)
{
	struct netconf *n = c->net;
	if (n == NULL)
		return;
	netproxy_release(c);
	netallow_free(&n->allow);
	strv_free(&n->resolve);
	pthread_mutex_destroy(&n->lock);
	free(n);
	c->net = NULL;
}

/* ---- what the events and --explain say ---- */

/* An entry as a pattern again ("**.example.com:8443", "[::1]"). */
static void pattern_text(const struct netallow_entry *e, char *out, size_t outlen)
{
	static const char *const prefix[] = { [NA_EXACT] = "",
					      [NA_SUBDOMAINS] = "*.",
					      [NA_APEX_AND_SUBDOMAINS] = "**.",
					      [NA_IPV4] = "",
					      [NA_IPV6] = "" };
	char host[NETALLOW_HOST_MAX + 2], port[16] = "";
	if (e->kind == NA_IPV6) {
		char text[INET6_ADDRSTRLEN];
		snprintf(host, sizeof(host), "[%s]", host_text(e->host, text, sizeof(text)));
	} else {
		snprintf(host, sizeof(host), "%s", e->host);
	}
	if (e->port != 0)
		snprintf(port, sizeof(port), ":%u", e->port);
	snprintf(out, outlen, "%s%s%s", prefix[e->kind], host, port);
}

void netproxy_start_fields(struct jbuf *b, const cordon *c)
{
	const struct netconf *n = c->net;
	int allow = c->network == CORDON_NETWORK_ALLOW;
	jb_key(b, "network_allow");
	if (!allow) {
		jb_raw(b, "null");
	} else {
		jb_raw(b, "[");
		for (size_t i = 0; n != NULL && i < n->allow.n; i++) {
			char text[NETALLOW_HOST_MAX + 32];
			pattern_text(&n->allow.v[i], text, sizeof(text));
			if (i > 0)
				jb_raw(b, ",");
			jb_str(b, text);
		}
		jb_raw(b, "]");
	}
	jb_key(b, "network_allow_local");
	jb_bool(b, allow && n != NULL && n->allow_local);
	jb_key(b, "network_allow_http");
	jb_bool(b, allow && n != NULL && n->allow_http);
	jb_key(b, "network_proxy");
	if (allow && c->dec.applied && c->pol.proxy_port != 0) {
		char where[32];
		snprintf(where, sizeof(where), "127.0.0.1:%u", c->pol.proxy_port);
		jb_str(b, where);
	} else {
		jb_raw(b, "null");
	}
}

void netproxy_exit_fields(struct jbuf *b, const cordon *c)
{
	struct netconf *n = c->net;
	jb_key(b, "network_connections");
	if (n == NULL || !n->made || c->network != CORDON_NETWORK_ALLOW) {
		jb_raw(b, "null");
		return;
	}
	pthread_mutex_lock(&n->lock);
	unsigned long a = n->allowed, r = n->refused, d = n->dropped;
	pthread_mutex_unlock(&n->lock);
	jb_raw(b, "{");
	jb_key(b, "allowed");
	jb_int(b, (long long)a);
	jb_key(b, "refused");
	jb_int(b, (long long)r);
	jb_key(b, "events_dropped");
	jb_int(b, (long long)d);
	jb_raw(b, "}");
}

unsigned long netproxy_refused(const cordon *c)
{
	struct netconf *n = c->net;
	if (n == NULL || !n->made || c->network != CORDON_NETWORK_ALLOW)
		return 0;
	pthread_mutex_lock(&n->lock);
	unsigned long r = n->refused;
	pthread_mutex_unlock(&n->lock);
	return r;
}

int netproxy_explain(struct jbuf *b, const cordon *c)
{
	struct netconf *n = c->net;
	if (c->network != CORDON_NETWORK_ALLOW || !c->dec.applied)
		return 0;
	if (!netproxy_enforced(c)) {
		jb_raw(b, "--network allow: no network namespace here, so the network was off "
			  "(nothing allowed): a connect fails");
		return 1;
	}
	jb_raw(b, "--network allow: only the proxy in HTTP_PROXY/HTTPS_PROXY/ALL_PROXY "
		  "leads out (a tool that ignores them fails to connect; names resolve only "
		  "through it)");
	pthread_mutex_lock(&n->lock);
	if (n->nrefused_names > 0) {
		jb_raw(b, "; it refused ");
		for (size_t i = 0; i < n->nrefused_names; i++) {
			if (i > 0)
				jb_raw(b, ", ");
			jb_raw(b, n->refused_names[i]);
		}
		jb_raw(b, " (allow one with --network allow=HOST or HOST:PORT; a loopback or "
			  "private address with --network-allow-local too; plain http with "
			  "--network-allow-http)");
	}
	pthread_mutex_unlock(&n->lock);
	return 1;
}
