/*
 * The allow-list proxy's engine (src/net/proxy.c), end to end over
 * loopback: listeners of the test's own are the origins (allow_local,
 * and names mapped to them by cfg.resolve), and each refusal is checked
 * from outside too: the origin's listener saw no connection.
 */
#include "netallow.h"
#include "proxy.h"
#include "tap.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- the events the proxy told ---- */

struct rec {
	char proto[16], host[NETALLOW_HOST_MAX], address[64], reason[32];
	unsigned port;
	int allowed;
	int sigblocked; /* SIGTERM and SIGINT blocked in the thread that told it */
	int quiet;
};

static struct rec recs[512];
static size_t nrec;
static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;

static void on_event(void *arg, const struct proxy_event *ev)
{
	(void)arg;
	pthread_mutex_lock(&rec_mu);
	if (nrec < sizeof(recs) / sizeof(recs[0])) {
		struct rec *r = &recs[nrec++];
		snprintf(r->proto, sizeof(r->proto), "%s", ev->proto);
		snprintf(r->host, sizeof(r->host), "%s", ev->host);
		snprintf(r->address, sizeof(r->address), "%s", ev->address ? ev->address : "");
		snprintf(r->reason, sizeof(r->reason), "%s", ev->reason ? ev->reason : "");
		r->port = ev->port;
		r->allowed = ev->allowed;
		sigset_t cur;
		pthread_sigmask(SIG_BLOCK, NULL, &cur);
		r->quiet = ev->quiet;
		r->sigblocked = sigismember(&cur, SIGTERM) == 1 && sigismember(&cur, SIGINT) == 1;
	}
	pthread_mutex_unlock(&rec_mu);
}

static struct rec last_event(void)
{
	struct rec r = { .reason = "(none)" };
	pthread_mutex_lock(&rec_mu);
	if (nrec > 0)
		r = recs[nrec - 1];
	pthread_mutex_unlock(&rec_mu);
	return r;
}

static size_t events(void)
{
	pthread_mutex_lock(&rec_mu);
	size_t n = nrec;
	pthread_mutex_unlock(&rec_mu);
	return n;
}

/* ---- sockets ---- */

static int listener(int family, unsigned *port)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*s4);
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					 : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

static void timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 10 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int dial(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&s4, sizeof(s4)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	timeouts(fd);
	return fd;
}

/* A connect that is not waited for (it may hang). */
static int dial_nowait(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&s4, sizeof(s4)) != 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A connection the origin's listener has within ms, or -1. */
static int origin_accept(int lfd, int ms)
{
	struct pollfd pf = { lfd, POLLIN, 0 };
	if (poll(&pf, 1, ms) != 1)
		return -1;
	int fd = accept(lfd, NULL, NULL);
	if (fd >= 0)
		timeouts(fd);
	return fd;
}

static int none_came(int lfd)
{
	int fd = origin_accept(lfd, 0);
	if (fd < 0)
		return 1;
	close(fd);
	return 0;
}

static int put(int fd, const void *b, size_t n)
{
	return send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static int puts_(int fd, const char *s)
{
	return put(fd, s, strlen(s));
}

/* Exactly n bytes, or -1. */
static int get(int fd, void *b, size_t n)
{
	size_t k = 0;
	while (k < n) {
		ssize_t r = recv(fd, (char *)b + k, n - k, 0);
		if (r <= 0)
			return -1;
		k += (size_t)r;
	}
	return 0;
}

/* Everything until EOF (or an error), NUL-terminated: its length. */
static size_t get_all(int fd, char *b, size_t size)
{
	size_t k = 0;
	while (k + 1 < size) {
		ssize_t r = recv(fd, b + k, size - 1 - k, 0);
		if (r <= 0)
			break;
		k += (size_t)r;
	}
	b[k] = '\0';
	return k;
}

/* An HTTP reply head, NUL-terminated (up to its blank line, or EOF). */
static void get_head(int fd, char *b, size_t size)
{
	size_t k = 0;
	b[0] = '\0';
	while (k + 1 < size && strstr(b, "\r\n\r\n") == NULL) {
		ssize_t r = recv(fd, b + k, 1, 0);
		if (r <= 0)
			break;
		b[++k] = '\0';
	}
}

/* The connection was closed by the other side (EOF or a reset). */
static int closed(int fd)
{
	char c;
	ssize_t r = recv(fd, &c, 1, 0);
	return r == 0 || (r < 0 && errno == ECONNRESET);
}

/* ---- the proxy under test ---- */

static unsigned porta, porta6, portz; /* a.test's origin, on ::1, one nobody listens on */
static int origa = -1, origa6 = -1;
static char resolve_a[64], resolve_b[64], resolve_z[64];
static const char *resolve[3] = { resolve_a, resolve_b, resolve_z };

struct px {
	struct netallow allow;
	struct proxy_config cfg;
	struct proxy *p;
	unsigned port;
	size_t ev0; /* the events before it started */
};

static void px_cfg(struct px *x, const char *list)
{
	char err[256];
	memset(x, 0, sizeof(*x));
	if (netallow_add(&x->allow, list, err, sizeof(err)) != 0)
		diag("netallow_add %s: %s", list, err);
	x->cfg.allow = &x->allow;
	x->cfg.allow_local = 1;
	x->cfg.resolve = resolve;
	x->cfg.nresolve = 3;
	x->cfg.on_event = on_event;
}

static int px_start(struct px *x)
{
	int lfd = listener(AF_INET, &x->port);
	x->ev0 = events();
	return lfd >= 0 && proxy_start(lfd, &x->cfg, &x->p) == 0 ? 0 : -1;
}

static void px_stop(struct px *x)
{
	unsigned long al = 0, rf = 0, nal = 0, nrf = 0;
	proxy_counts(x->p, &al, &rf);
	pthread_mutex_lock(&rec_mu);
	for (size_t i = x->ev0; i < nrec; i++)
		recs[i].allowed ? nal++ : nrf++;
	pthread_mutex_unlock(&rec_mu);
	ok(al == nal && rf == nrf, "counts (%lu allowed, %lu refused) match the events", al, rf);
	proxy_stop(x->p);
	netallow_free(&x->allow);
}

/* CONNECT host:port through x (with auth, a Proxy-Authorization line or
 * NULL): the reply's head in reply, the connection. */
static int http_connect(struct px *x, const char *target, const char *extra, char *reply,
			size_t size)
{
	char req[512];
	int fd = dial(x->port);
	snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", target, target,
		 extra ? extra : "");
	if (fd >= 0 && puts_(fd, req) == 0)
		get_head(fd, reply, size);
	return fd;
}

static int status_is(const char *reply, int status)
{
	char want[32];
	snprintf(want, sizeof(want), "HTTP/1.1 %d ", status);
	if (strncmp(reply, want, strlen(want)) == 0)
		return 1;
	diag("reply: %.*s", (int)strcspn(reply, "\r\n"), reply);
	return 0;
}

/* ---- the checks ---- */

static void test_connect(void)
{
	struct px x;
	char list[64], target[64], reply[512], buf[128];
	snprintf(list, sizeof(list), "a.test:%u", porta);
	px_cfg(&x, list);
	if (px_start(&x) != 0) {
		ok(0, "CONNECT: the proxy starts");
		return;
	}
	snprintf(target, sizeof(target), "a.test:%u", porta);
	int fd = http_connect(&x, target, NULL, reply, sizeof(reply));
	ok(status_is(reply, 200), "CONNECT a.test (listed): 200");
	int o = origin_accept(origa, 5000);
	ok(o >= 0, "CONNECT: the origin has the connection");
	struct rec e = last_event();
	ok(e.allowed && strcmp(e.proto, "connect") == 0 && strcmp(e.host, "a.test") == 0 &&
		   e.port == porta && strcmp(e.address, "127.0.0.1") == 0,
	   "CONNECT: its event (allowed, connect, a.test, port, 127.0.0.1)");
	ok(e.sigblocked, "the proxy's threads have signals blocked");
	ok(puts_(fd, "ping") == 0 && get(o, buf, 4) == 0 && memcmp(buf, "ping", 4) == 0,
	   "CONNECT: client to origin");
	ok(puts_(o, "pong") == 0 && get(fd, buf, 4) == 0 && memcmp(buf, "pong", 4) == 0,
	   "CONNECT: origin to client");
	shutdown(fd, SHUT_WR);
	ok(closed(o), "half-close: the client's end reaches the origin");
	ok(puts_(o, "late") == 0 && get(fd, buf, 4) == 0 && memcmp(buf, "late", 4) == 0,
	   "half-close: the origin still talks to the client after it");
	close(o);
	ok(closed(fd), "half-close: then the origin's end reaches the client");
	close(fd);

	/* Bytes sent right after the head (a TLS hello does) go through. */
	fd = dial(x.port);
	snprintf(buf, sizeof(buf), "CONNECT %s HTTP/1.1\r\n\r\nearly", target);
	puts_(fd, buf);
	get_head(fd, reply, sizeof(reply));
	o = origin_accept(origa, 5000);
	ok(status_is(reply, 200) && o >= 0 && get(o, buf, 5) == 0 && memcmp(buf, "early", 5) == 0,
	   "CONNECT: bytes after the head are relayed");
	close(fd);
	if (o >= 0)
		close(o);
	px_stop(&x);
}

/* A refusal over HTTP CONNECT: the status, the event's reason, and no
 * connection at the origin. */
static void refused_connect(struct px *x, const char *target, int status, const char *reason,
			    const char *what)
{
	char reply[512];
	int fd = http_connect(x, target, NULL, reply, sizeof(reply));
	struct rec e = last_event();
	ok(status_is(reply, status), "%s: %d", what, status);
	ok(!e.allowed && strcmp(e.reason, reason) == 0, "%s: refused, reason %s (%s)", what, reason,
	   e.reason);
	ok(none_came(origa) && none_came(origa6), "%s: the origin saw no connection", what);
	if (fd >= 0) {
		ok(closed(fd), "%s: then closed", what);
		close(fd);
	}
}

/* An IPv4 address of this host outside the ranges proxy_address_local
 * names (getifaddrs), as text, with a listener of the test's own on it:
 * the listener, or -1 when the host has none. */
static int host_listener(char *addr, size_t size, unsigned *port)
{
	struct ifaddrs *ifs = NULL, *i;
	int fd = -1;
	if (getifaddrs(&ifs) != 0)
		return -1;
	for (i = ifs; i != NULL && fd < 0; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
		    proxy_address_local(i->ifa_addr))
			continue;
		struct sockaddr_in s4 = *(struct sockaddr_in *)(void *)i->ifa_addr;
		socklen_t len = sizeof(s4);
		s4.sin_port = 0;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && (bind(fd, (struct sockaddr *)&s4, len) != 0 || listen(fd, 4) != 0 ||
				getsockname(fd, (struct sockaddr *)&s4, &len) != 0)) {
			close(fd);
			fd = -1;
		}
		inet_ntop(AF_INET, &s4.sin_addr, addr, (socklen_t)size);
		*port = ntohs(s4.sin_port);
	}
	freeifaddrs(ifs);
	return fd;
}

static void test_host_address(void)
{
	struct px x;
	char addr[INET_ADDRSTRLEN], list[64], reply[512];
	unsigned port;
	int lfd = host_listener(addr, sizeof(addr), &port);
	if (lfd < 0) {
		skip("this host has no IPv4 address outside the local ranges");
		return;
	}
	snprintf(list, sizeof(list), "%s:%u", addr, port);
	px_cfg(&x, list);
	x.cfg.allow_local = 0;
	if (px_start(&x) == 0) {
		int fd = http_connect(&x, list, NULL, reply, sizeof(reply));
		ok(status_is(reply, 403) && strcmp(last_event().reason, "local_address") == 0,
		   "an address of this host (%s), listed: refused, local_address", addr);
		ok(none_came(lfd), "an address of this host: its listener saw no connection");
		close(fd);
		px_stop(&x);
	}
	close(lfd);
}

static void test_refusals(void)
{
	struct px x;
	char list[128], t[128];
	snprintf(list, sizeof(list), "a.test:%u,b.test:%u", porta, portz);
	px_cfg(&x, list);
	if (px_start(&x) != 0) {
		ok(0, "refusals: the proxy starts");
		return;
	}
	snprintf(t, sizeof(t), "b.test:%u", porta);
	refused_connect(&x, t, 403, "port", "b.test at another port than its own");
	snprintf(t, sizeof(t), "c.test:%u", porta);
	refused_connect(&x, t, 403, "not_allowed", "a host not listed");
	snprintf(t, sizeof(t), "a.test:%u", porta + 1 == portz ? porta + 2 : porta + 1);
	refused_connect(&x, t, 403, "port", "a listed host, another port");
	snprintf(t, sizeof(t), "127.0.0.1:%u", porta);
	refused_connect(&x, t, 403, "not_allowed", "an IP literal not listed (a.test's address)");
	snprintf(t, sizeof(t), "[::ffff:127.0.0.1]:%u", porta);
	refused_connect(&x, t, 403, "not_allowed", "an IPv4-mapped literal not listed");
	snprintf(t, sizeof(t), "b.test:%u", portz);
	refused_connect(&x, t, 502, "connect_failed", "a listed host nobody listens for");
	px_stop(&x);

	/* Without allow_local: a name that resolves to 127.0.0.1, and
	 * 127.0.0.1 listed itself, are both refused. */
	snprintf(list, sizeof(list), "a.test:%u,127.0.0.1:%u,localhost:%u,[::1]:%u", porta, porta,
		 porta, porta6);
	px_cfg(&x, list);
	x.cfg.allow_local = 0;
	if (px_start(&x) != 0) {
		ok(0, "local: the proxy starts");
		return;
	}
	snprintf(t, sizeof(t), "a.test:%u", porta);
	refused_connect(&x, t, 403, "local_address",
			"a.test resolving to 127.0.0.1, no allow_local");
	snprintf(t, sizeof(t), "127.0.0.1:%u", porta);
	refused_connect(&x, t, 403, "local_address", "127.0.0.1 listed, no allow_local");
	snprintf(t, sizeof(t), "[::1]:%u", porta6);
	refused_connect(&x, t, 403, "local_address", "[::1] listed, no allow_local");
	snprintf(t, sizeof(t), "localhost:%u", porta);
	refused_connect(&x, t, 403, "local_address",
			"localhost through the system's resolver, no allow_local");
	px_stop(&x);
}

static int socks_hello(int fd, int method)
{
	unsigned char g[3] = { 5, 1, (unsigned char)method }, r[2];
	return put(fd, g, 3) == 0 && get(fd, r, 2) == 0 && r[0] == 5 ? r[1] : -1;
}

/* A SOCKS5 CONNECT request (atyp 1, 3 or 4) on fd: the reply's code. */
static int socks_connect(int fd, int atyp, const char *host, unsigned port)
{
	unsigned char q[300] = { 5, 1, 0, (unsigned char)atyp }, r[10];
	size_t n = 4;
	if (atyp == 1 || atyp == 4) {
		inet_pton(atyp == 1 ? AF_INET : AF_INET6, host, q + 4);
		n += atyp == 1 ? 4 : 16;
	} else {
		q[n++] = (unsigned char)strlen(host);
		memcpy(q + n, host, strlen(host));
		n += strlen(host);
	}
	q[n++] = (unsigned char)(port >> 8);
	q[n++] = (unsigned char)port;
	return put(fd, q, n) == 0 && get(fd, r, 10) == 0 && r[0] == 5 ? r[1] : -1;
}

static void socks_through(struct px *x, int atyp, const char *host, unsigned port, int lfd,
			  const char *what)
{
	char buf[8];
	int fd = dial(x->port);
	int code = socks_hello(fd, 0) == 0 ? socks_connect(fd, atyp, host, port) : -1;
	int o = origin_accept(lfd, 5000);
	ok(code == 0 && o >= 0, "SOCKS5 %s: granted (%d), the origin has it", what, code);
	ok(puts_(fd, "abc") == 0 && get(o, buf, 3) == 0 && puts_(o, "xyz") == 0 &&
		   get(fd, buf, 3) == 0 && memcmp(buf, "xyz", 3) == 0,
	   "SOCKS5 %s: data both ways", what);
	struct rec e = last_event();
	ok(e.allowed && strcmp(e.proto, "socks5") == 0 && strcmp(e.host, host) == 0,
	   "SOCKS5 %s: its event (host %s)", what, e.host);
	close(fd);
	if (o >= 0)
		close(o);
}

static void test_socks(void)
{
	struct px x;
	char list[128];
	snprintf(list, sizeof(list), "a.test:%u,127.0.0.1:%u,[::1]:%u", porta, porta, porta6);
	px_cfg(&x, list);
	if (px_start(&x) != 0) {
		ok(0, "SOCKS5: the proxy starts");
		return;
	}
	socks_through(&x, 3, "a.test", porta, origa, "a name");
	socks_through(&x, 1, "127.0.0.1", porta, origa, "an IPv4 target listed");
	if (origa6 >= 0)
		socks_through(&x, 4, "::1", porta6, origa6, "an IPv6 target listed");
	else
		skip("no IPv6 loopback here");
	int fd = dial(x.port);
	int code = socks_hello(fd, 0) == 0 ? socks_connect(fd, 3, "b.test", porta) : -1;
	ok(code == 2 && none_came(origa), "SOCKS5 b.test: not allowed (2), no connection (%d)",
	   code);
	ok(strcmp(last_event().reason, "not_allowed") == 0, "SOCKS5 b.test: its event");
	close(fd);
	fd = dial(x.port);
	code = socks_hello(fd, 0) == 0 ? socks_connect(fd, 1, "127.0.0.2", porta) : -1;
	ok(code == 2 && none_came(origa), "SOCKS5 127.0.0.2 (not listed): 2 (%d)", code);
	close(fd);
	fd = dial(x.port);
	ok(socks_hello(fd, 2) == 0xff && closed(fd),
	   "SOCKS5 without a token: user/password refused");
	close(fd);
	px_stop(&x);
}

static void test_plain(void)
{
	struct px x;
	char list[64], req[512], buf[4096];
	snprintf(list, sizeof(list), "a.test:%u", porta);
	px_cfg(&x, list);
	if (px_start(&x) != 0) {
		ok(0, "plain: the proxy starts");
		return;
	}
	snprintf(req, sizeof(req), "GET http://a.test:%u/x HTTP/1.1\r\nHost: a.test:%u\r\n\r\n",
		 porta, porta);
	int fd = dial(x.port);
	puts_(fd, req);
	get_head(fd, buf, sizeof(buf));
	ok(status_is(buf, 403) && none_came(origa), "plain HTTP off: 403, no connection");
	ok(strcmp(last_event().reason, "plain_http") == 0, "plain HTTP off: its reason");
	struct rec e = last_event();
	is_str(e.host, "a.test", "plain HTTP off: the event names the Host header's name");
	is_int(e.port, porta, "... and its port");
	close(fd);
	/* Origin-form (a client that takes the proxy for the origin): the
	 * Host header alone names it; without a port, 80. */
	fd = dial(x.port);
	puts_(fd, "GET /y HTTP/1.1\r\nHost: B.test\r\n\r\n");
	get_head(fd, buf, sizeof(buf));
	e = last_event();
	ok(status_is(buf, 403) && strcmp(e.reason, "plain_http") == 0,
	   "plain HTTP off, origin-form: 403 plain_http");
	ok(strcmp(e.host, "b.test") == 0 && e.port == 80, "... the event names b.test:80 (%s:%u)",
	   e.host, e.port);
	close(fd);
	/* HTTP/1.0 without Host: the absolute target's. */
	snprintf(req, sizeof(req), "GET http://a.test:%u/z HTTP/1.0\r\n\r\n", porta);
	fd = dial(x.port);
	puts_(fd, req);
	get_head(fd, buf, sizeof(buf));
	e = last_event();
	ok(status_is(buf, 403) && strcmp(e.host, "a.test") == 0 && e.port == porta,
	   "plain HTTP off, no Host: the target's name and port (%s:%u)", e.host, e.port);
	close(fd);
	px_stop(&x);

	px_cfg(&x, list);
	x.cfg.plain_http = 1;
	if (px_start(&x) != 0)
		return;
	snprintf(req, sizeof(req),
		 "POST http://a.test:%u/x HTTP/1.1\r\nHost: a.test:%u\r\nProxy-Connection: "
		 "keep-alive\r\nContent-Length: 5\r\n\r\nhello"
		 "GET http://a.test:%u/second HTTP/1.1\r\nHost: a.test:%u\r\n\r\n",
		 porta, porta, porta, porta);
	fd = dial(x.port);
	puts_(fd, req);
	int o = origin_accept(origa, 5000);
	char got[4096];
	ok(o >= 0, "plain HTTP on: the origin has the connection");
	get(o, got, 10);
	puts_(o, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
	shutdown(o, SHUT_WR);
	size_t n = get_all(o, got + 10, sizeof(got) - 10) + 10;
	got[n] = '\0';
	ok(strncmp(got, "POST /x HTTP/1.1\r\n", 18) == 0 && strstr(got, "\r\n\r\nhello") != NULL,
	   "plain: the origin has the request in origin form, with its body");
	ok(strstr(got, "Connection: close\r\n") != NULL && strstr(got, "Proxy-Connection") == NULL,
	   "plain: Connection: close, no Proxy-Connection");
	ok(strstr(got, "second") == NULL && n == strlen(got) && strcmp(got + n - 5, "hello") == 0,
	   "plain: the second request on the connection is not forwarded");
	get_all(fd, buf, sizeof(buf));
	ok(strstr(buf, "200 OK") != NULL && strstr(buf, "\r\n\r\nok") != NULL &&
		   strstr(buf + 4, "HTTP/1.1") == NULL,
	   "plain: the client has the one response, then the end");
	ok(none_came(origa), "plain: one connection to the origin");
	close(fd);
	if (o >= 0)
		close(o);
	px_stop(&x);
}

static void test_heads(void)
{
	struct px x;
	char list[64], req[512], reply[512];
	snprintf(list, sizeof(list), "a.test:%u", porta);
	px_cfg(&x, list);
	x.cfg.plain_http = 1;
	if (px_start(&x) != 0)
		return;
	int fd = dial(x.port);
	snprintf(req, sizeof(req), "CONNECT a.test:%u HTTP/1.1\r\nHost: b.test:%u\r\n\r\n", porta,
		 porta);
	puts_(fd, req);
	get_head(fd, reply, sizeof(reply));
	ok(status_is(reply, 400) && none_came(origa), "CONNECT, Host naming another host: 400");
	close(fd);
	fd = dial(x.port);
	snprintf(req, sizeof(req), "GET http://a.test:%u/ HTTP/1.1\r\nHost: b.test\r\n\r\n", porta);
	puts_(fd, req);
	get_head(fd, reply, sizeof(reply));
	ok(status_is(reply, 400) && none_came(origa), "plain, Host naming another host: 400");
	close(fd);

	fd = dial(x.port);
	snprintf(req, sizeof(req), "CONNECT a.test:%u HTTP/1.1\r\nX: ", porta);
	puts_(fd, req);
	char *big = malloc(20000);
	memset(big, 'x', 20000);
	put(fd, big, 20000);
	free(big);
	get_head(fd, reply, sizeof(reply));
	ok(status_is(reply, 431) && none_came(origa), "a head over PROXY_HEAD_MAX: 431");
	ok(strcmp(last_event().reason, "head_too_large") == 0, "431: its reason");
	close(fd);
	fd = dial(x.port);
	puts_(fd, "\x16\x03\x01 a TLS hello to the proxy itself");
	ok(closed(fd) && strcmp(last_event().reason, "bad_request") == 0,
	   "bytes of no protocol: closed, bad_request");
	close(fd);
	px_stop(&x);
}

static void test_token(void)
{
	struct px x;
	char list[64], t[64], reply[512];
	snprintf(list, sizeof(list), "a.test:%u", porta);
	px_cfg(&x, list);
	x.cfg.token = "s3cret";
	if (px_start(&x) != 0)
		return;
	snprintf(t, sizeof(t), "a.test:%u", porta);
	int fd = http_connect(&x, t, NULL, reply, sizeof(reply));
	ok(status_is(reply, 407) && none_came(origa), "token: CONNECT without it, 407");
	ok(strcmp(last_event().reason, "auth") == 0, "token: reason auth");
	close(fd);
	/* "cordon:wrong", then "cordon:s3cret", in base64 */
	fd = http_connect(&x, t, "Proxy-Authorization: Basic Y29yZG9uOndyb25n\r\n", reply,
			  sizeof(reply));
	ok(status_is(reply, 407) && none_came(origa), "token: a wrong one, 407");
	close(fd);
	fd = http_connect(&x, t, "Proxy-Authorization: Basic Y29yZG9uOnMzY3JldA==\r\n", reply,
			  sizeof(reply));
	int o = origin_accept(origa, 5000);
	ok(status_is(reply, 200) && o >= 0, "token: CONNECT with it, 200");
	close(fd);
	if (o >= 0)
		close(o);

	unsigned char up[] = { 1, 6, 'c', 'o', 'r', 'd', 'o', 'n', 5, 'w', 'r', 'o', 'n', 'g' },
		      r[2];
	fd = dial(x.port);
	ok(socks_hello(fd, 0) == 0xff && closed(fd), "token: SOCKS5 without user/password refused");
	ok(strcmp(last_event().reason, "auth") == 0, "token: SOCKS5 without it, reason auth");
	close(fd);
	fd = dial(x.port);
	int code = socks_hello(fd, 2) == 2 && put(fd, up, sizeof(up)) == 0 && get(fd, r, 2) == 0
			   ? r[1]
			   : -1;
	ok(code != 0 && closed(fd) && none_came(origa), "token: SOCKS5, a wrong password refused");
	close(fd);
	memcpy(up + 9, "s3cre", 5);
	unsigned char up2[16];
	memcpy(up2, up, 14);
	up2[8] = 6;
	memcpy(up2 + 9, "s3cret", 6);
	fd = dial(x.port);
	code = socks_hello(fd, 2) == 2 && put(fd, up2, 15) == 0 && get(fd, r, 2) == 0 ? r[1] : -1;
	ok(code == 0 && socks_connect(fd, 3, "a.test", porta) == 0, "token: SOCKS5 with it");
	o = origin_accept(origa, 5000);
	ok(o >= 0, "token: SOCKS5's origin has the connection");
	close(fd);
	if (o >= 0)
		close(o);
	px_stop(&x);
}

/* With a token (a listener any local process can dial), the auth
 * refusals past the first PROXY_LOUD_MAX are counted, not told; the
 * run's own connection is still told. */
static void test_token_noise(void)
{
	struct px x;
	char list[64], t[64], reply[512];
	snprintf(list, sizeof(list), "a.test:%u", porta);
	px_cfg(&x, list);
	x.cfg.token = "s3cret";
	if (px_start(&x) != 0)
		return;
	snprintf(t, sizeof(t), "a.test:%u", porta);
	pthread_mutex_lock(&rec_mu);
	size_t from = nrec;
	pthread_mutex_unlock(&rec_mu);
	int all407 = 1;
	for (int i = 0; i < PROXY_LOUD_MAX + 4; i++) {
		int fd = http_connect(&x, t, NULL, reply, sizeof(reply));
		all407 &= status_is(reply, 407);
		close(fd);
	}
	int fd = http_connect(&x, t, "Proxy-Authorization: Basic Y29yZG9uOnMzY3JldA==\r\n", reply,
			      sizeof(reply));
	int o = origin_accept(origa, 5000);
	ok(all407 && status_is(reply, 200) && o >= 0,
	   "token noise: every attempt without it 407, the run's own still 200");
	close(fd);
	if (o >= 0)
		close(o);
	px_stop(&x);
	size_t told = 0, quiet = 0, allowed_told = 0;
	pthread_mutex_lock(&rec_mu);
	for (size_t i = from; i < nrec; i++) {
		if (strcmp(recs[i].reason, "auth") == 0)
			recs[i].quiet ? quiet++ : told++;
		if (recs[i].allowed && !recs[i].quiet)
			allowed_told++;
	}
	pthread_mutex_unlock(&rec_mu);
	is_int((int)told, PROXY_LOUD_MAX,
	       "token noise: the first PROXY_LOUD_MAX auth refusals told");
	is_int((int)quiet, 4, "token noise: the rest counted only (quiet)");
	is_int((int)allowed_told, 1, "token noise: the allowed connection told");
}

static void test_limits(void)
{
	struct px x;
	char list[64], t[64], reply[512];
	snprintf(list, sizeof(list), "a.test:%u", porta);
	px_cfg(&x, list);
	x.cfg.max_conns = 1;
	x.cfg.head_timeout_ms = 200;
	x.cfg.idle_timeout_ms = 200;
	if (px_start(&x) != 0)
		return;
	int fd0 = dial(x.port);
	ok(closed(fd0), "head timeout: a client that sends nothing is closed");
	struct rec e = last_event();
	ok(strcmp(e.reason, "timeout") == 0 && strcmp(e.proto, "unknown") == 0,
	   "head timeout: reason timeout, proto unknown");
	close(fd0);
	int fd1 = dial(x.port);
	puts_(fd1, "CONN");
	int fd2 = dial(x.port);
	ok(closed(fd2), "max_conns 1: a second connection is closed");
	ok(strcmp(last_event().reason, "too_many") == 0, "max_conns 1: reason too_many");
	close(fd2);
	ok(closed(fd1), "head timeout: a client that never ends its head is closed");
	ok(strcmp(last_event().reason, "timeout") == 0, "head timeout: reason timeout");
	close(fd1);
	snprintf(t, sizeof(t), "a.test:%u", porta);
	int fd = http_connect(&x, t, NULL, reply, sizeof(reply));
	int o = origin_accept(origa, 5000);
	ok(status_is(reply, 200) && o >= 0, "idle: a connection through");
	ok(closed(fd) && closed(o), "idle timeout: both sides closed when nothing moves");
	close(fd);
	if (o >= 0)
		close(o);
	px_stop(&x);
}

static void *sender(void *arg)
{
	static char b[65536];
	while (send(*(int *)arg, b, sizeof(b), MSG_NOSIGNAL) > 0)
		;
	return NULL;
}

static void *reader(void *arg)
{
	char b[65536];
	while (recv(*(int *)arg, b, sizeof(b), 0) > 0)
		;
	return NULL;
}

/* proxy_stop returns with an idle client, a relay, and a connect that
 * hangs (the origin's accept queue is full: its SYNs are dropped). */
static void test_stop(void)
{
	struct px x;
	char list[64], t[64], reply[512], req[128];
	unsigned pfull = 0;
	int full = listener(AF_INET, &pfull);
	listen(full, 0);
	int q1 = dial_nowait(pfull), q2 = dial_nowait(pfull);
	snprintf(list, sizeof(list), "a.test:%u,127.0.0.1:%u", porta, pfull);
	px_cfg(&x, list);
	x.cfg.connect_timeout_ms = 200;
	if (px_start(&x) != 0)
		return;
	snprintf(t, sizeof(t), "127.0.0.1:%u", pfull);
	close(http_connect(&x, t, NULL, reply, sizeof(reply)));
	ok(status_is(reply, 504) && strcmp(last_event().reason, "connect_failed") == 0,
	   "a connect that does not finish: 504 after the connect timeout");
	px_stop(&x);

	px_cfg(&x, list);
	x.cfg.connect_timeout_ms = 120000;
	if (px_start(&x) != 0)
		return;
	int idle = dial(x.port);
	snprintf(t, sizeof(t), "a.test:%u", porta);
	int fd = http_connect(&x, t, NULL, reply, sizeof(reply));
	int o = origin_accept(origa, 5000);
	int slow = dial(x.port);
	snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", pfull);
	puts_(slow, req);
	/* and a transfer that never pauses */
	int bc = http_connect(&x, t, NULL, reply, sizeof(reply)), bo = origin_accept(origa, 5000);
	pthread_t ts, tr;
	int sending = bc >= 0 && bo >= 0 && pthread_create(&ts, NULL, sender, &bo) == 0;
	int reading = sending && pthread_create(&tr, NULL, reader, &bc) == 0;
	size_t before = events();
	proxy_stop(x.p);
	if (sending)
		pthread_join(ts, NULL);
	if (reading)
		pthread_join(tr, NULL);
	ok(reading, "proxy_stop: with a transfer going on too");
	close(bc);
	close(bo);
	netallow_free(&x.allow);
	ok(1, "proxy_stop returns with an idle client, a relay and a connect in flight");
	ok(closed(idle) && closed(fd) && closed(o) && closed(slow),
	   "proxy_stop: every connection closed");
	ok(events() == before, "proxy_stop: no event for the undecided");
	int fds[] = { idle, fd, o, slow, q1, q2, full };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void test_vet(void)
{
	/* clang-format off */
	static const char *const local[] = {
		"127.0.0.1", "127.255.1.2", "0.0.0.0", "10.1.2.3", "172.16.0.1",
		"172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
		"100.127.1.1", "224.0.0.1", "239.1.1.1", "255.255.255.255", "240.0.0.1",
		"::1", "::", "fc00::1", "fd12::1", "fe80::1", "febf::1", "fec0::1", "ff02::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"::127.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b::127.0.0.1",
		"64:ff9b:1::808:808", NULL
	};
	static const char *const public[] = {
		"1.1.1.1", "8.8.8.8", "172.15.255.255", "172.32.0.1", "100.63.255.255",
		"100.128.0.1", "192.169.0.1", "169.253.1.1", "223.255.255.255",
		"2606:4700::1111", "::ffff:1.1.1.1", "2001:db8::1", "64:ff9b::1.1.1.1",
		"fbff::1", "fe7f::1", NULL
	};
	/* clang-format on */
	for (int pass = 0; pass < 2; pass++) {
		const char *const *v = pass == 0 ? local : public;
		for (size_t i = 0; v[i] != NULL; i++) {
			struct sockaddr_in s4 = { .sin_family = AF_INET };
			struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
			const struct sockaddr *sa = (const struct sockaddr *)&s4;
			if (inet_pton(AF_INET, v[i], &s4.sin_addr) != 1) {
				inet_pton(AF_INET6, v[i], &s6.sin6_addr);
				sa = (const struct sockaddr *)&s6;
			}
			is_int(proxy_address_local(sa), pass == 0, "vet: %s is %s", v[i],
			       pass == 0 ? "local" : "not local");
		}
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* the test's own writes; the proxy needs none of it */
	alarm(60);
	int fds0 = count_fds();
	origa = listener(AF_INET, &porta);
	origa6 = listener(AF_INET6, &porta6);
	int z = listener(AF_INET, &portz);
	close(z); /* a port nobody listens on (for a while) */
	snprintf(resolve_a, sizeof(resolve_a), "a.test=127.0.0.1");
	snprintf(resolve_b, sizeof(resolve_b), "B.Test=127.0.0.1");
	snprintf(resolve_z, sizeof(resolve_z), "six.test=[::1]");
	test_vet();
	test_connect();
	test_refusals();
	test_host_address();
	test_socks();
	test_plain();
	test_heads();
	test_token();
	test_token_noise();
	test_limits();
	test_stop();
	unsigned long al = 0, rf = 0, nal = 0, nrf = 0;
	{
		unsigned port;
		int lfd = listener(AF_INET, &port);
		struct proxy_config none = { 0 };
		struct proxy *p = NULL;
		errno = 0;
		ok(proxy_start(lfd, &none, &p) == -1 && errno == EINVAL && p == NULL &&
			   fcntl(lfd, F_GETFD) >= 0,
		   "proxy_start without a list: EINVAL, the listener still the caller's");
		close(lfd);
	}
	{
		struct px x;
		px_cfg(&x, "a.test");
		px_start(&x);
		proxy_counts(x.p, &al, &rf);
		ok(al == 0 && rf == 0, "counts: a new proxy has none");
		px_stop(&x);
	}
	for (size_t i = 0; i < nrec; i++)
		recs[i].allowed ? nal++ : nrf++;
	ok(nal > 0 && nrf > 0, "events: %lu allowed, %lu refused", nal, nrf);
	close(origa);
	if (origa6 >= 0)
		close(origa6);
	is_int(count_fds(), fds0, "no fd left open");
	return done_testing();
}
