/*
 * The allow-list proxy's engine (see proxy.h): the I/O around the pure
 * readers of proxyproto.c and netallow.c.
 *
 * One thread accepts; each connection has a thread of its own (at most
 * max_conns at once), which reads the client's head, decides, resolves,
 * connects and then relays both ways with poll(2). A thread per
 * connection keeps each step a plain sequence (the resolver, above all,
 * is a blocking call) and costs one small stack each; the count is
 * bounded. Every wait polls the proxy's stop pipe too, so proxy_stop
 * wakes every thread at once. A name is resolved by getaddrinfo in a
 * detached helper thread that the connection waits for (with the stop
 * pipe): proxy_stop never waits for a slow resolver; a helper left behind
 * frees its own state when the lookup returns, and touches nothing else.
 *
 * Every fd is close-on-exec and non-blocking; nothing is written with
 * SIGPIPE possible (MSG_NOSIGNAL, or SO_NOSIGPIPE where that is the way).
 */
#include "proxy.h"
#include "proxyproto.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on each socket instead */
#endif

#define DEFAULT_MAX_CONNS 256
#define DEFAULT_CONNECT_MS 10000
#define DEFAULT_IDLE_MS (5 * 60 * 1000)
#define DEFAULT_HEAD_MS 10000
#define RELAY_BUF 65536
#define MAX_ADDRS 16
/* After a refusal, or the end of a plain request: what the client still
 * sends is read and dropped (so that closing does not reset the
 * connection before the client has read our answer), this much at most. */
#define DRAIN_MS 1000
#define DRAIN_MAX (1024 * 1024)
#define CONN_STACK ((size_t)256 * 1024)

struct conn;

struct proxy {
	struct proxy_config cfg;
	char *token;
	int lfd, stop_rd, stop_wr;
	atomic_int stopping; /* set with the stop pipe, for a relay that never waits */
	pthread_t accept_tid;
	pthread_mutex_t mu; /* conns, live */
	struct conn *conns;
	unsigned live;
	pthread_mutex_t ev_mu; /* on_event, the counts */
	unsigned long allowed, refused;
};

struct conn {
	struct proxy *p;
	int cfd, ofd;
	pthread_t tid;
	int finished;
	struct conn *next;
	const char *proto;
	char host[NETALLOW_HOST_MAX];
	unsigned port;
	char address[INET6_ADDRSTRLEN];
	int timed_out, refused_conn; /* how the connect failed */
	size_t n; /* bytes in buf */
	unsigned char buf[PROXY_HEAD_MAX];
};

enum io { IO_OK, IO_EOF, IO_ERR, IO_TIMEOUT, IO_STOP };

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ms_left(long long deadline)
{
	if (deadline < 0)
		return -1;
	long long d = deadline - now_ms();
	return d < 0 ? 0 : d > INT_MAX ? INT_MAX : (int)d;
}

static int set_flags(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		return -1;
#ifdef SO_NOSIGPIPE
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
	return 0;
}

static int stream_socket(int family)
{
#if defined(SOCK_CLOEXEC) && defined(SOCK_NONBLOCK)
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
#else
	int fd = socket(family, SOCK_STREAM, 0);
#endif
	if (fd >= 0 && set_flags(fd) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int make_pipe(int fds[2])
{
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0 ||
		    fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK) != 0) {
			close(fds[0]);
			close(fds[1]);
			return -1;
		}
	return 0;
}

/* Wait for ev on fd, the stop pipe or the deadline (-1: none). */
static enum io wait_fd(struct proxy *p, int fd, short ev, long long deadline)
{
	for (;;) {
		struct pollfd pf[2] = { { fd, ev, 0 }, { p->stop_rd, POLLIN, 0 } };
		int r = poll(pf, 2, ms_left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return IO_ERR;
		if (pf[1].revents != 0)
			return IO_STOP;
		if (r == 0)
			return IO_TIMEOUT;
		return IO_OK;
	}
}

static enum io send_all(struct proxy *p, int fd, const void *b, size_t n, long long deadline)
{
	const char *s = b;
	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w > 0) {
			s += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return IO_ERR;
		enum io r = wait_fd(p, fd, POLLOUT, deadline);
		if (r != IO_OK)
			return r;
	}
	return IO_OK;
}

/* More of the client's head into c->buf. */
static enum io fill(struct conn *c, long long deadline)
{
	if (c->n == sizeof(c->buf))
		return IO_ERR;
	for (;;) {
		ssize_t r = recv(c->cfd, c->buf + c->n, sizeof(c->buf) - c->n, 0);
		if (r > 0) {
			c->n += (size_t)r;
			return IO_OK;
		}
		if (r == 0)
			return IO_EOF;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return IO_ERR;
		enum io w = wait_fd(c->p, c->cfd, POLLIN, deadline);
		if (w != IO_OK)
			return w;
	}
}

/* Our answer is sent: stop writing, read and drop what the client still
 * sends for a while, so that the close does not reset the connection
 * under the answer. */
static void drain(struct conn *c)
{
	shutdown(c->cfd, SHUT_WR);
	long long deadline = now_ms() + DRAIN_MS;
	size_t total = 0;
	char sink[4096];
	while (total < DRAIN_MAX) {
		ssize_t r = recv(c->cfd, sink, sizeof(sink), 0);
		if (r > 0) {
			total += (size_t)r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return;
		if (wait_fd(c->p, c->cfd, POLLIN, deadline) != IO_OK)
			return;
	}
}

static void emit(struct conn *c, const char *reason)
{
	struct proxy *p = c->p;
	struct proxy_event ev = {
		.proto = c->proto,
		.host = c->host,
		.port = c->port,
		.address = reason == NULL && c->address[0] != '\0' ? c->address : NULL,
		.allowed = reason == NULL,
		.reason = reason,
	};
	pthread_mutex_lock(&p->ev_mu);
	if (reason == NULL)
		p->allowed++;
	else
		p->refused++;
	if (p->cfg.on_event != NULL)
		p->cfg.on_event(p->cfg.event_arg, &ev);
	pthread_mutex_unlock(&p->ev_mu);
}

/* ---- which addresses may be reached ---- */

static int v4_local(const unsigned char a[4])
{
	return a[0] == 0 || a[0] == 10 || a[0] == 127 || (a[0] == 169 && a[1] == 254) ||
	       (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168) ||
	       (a[0] == 100 && (a[1] & 0xc0) == 64) ||
	       a[0] >= 224; /* multicast, 240/4, broadcast */
}

int proxy_address_local(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)(const void *)sa;
		return v4_local((const unsigned char *)&s4->sin_addr);
	}
	if (sa->sa_family != AF_INET6)
		return 1;
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
	const unsigned char *a = s6->sin6_addr.s6_addr;
	static const unsigned char zero[12] = { 0 };
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0)
		return v4_local(a + 12); /* ::ffff:a.b.c.d, NAT64's 64:ff9b::a.b.c.d */
	if (memcmp(a, nat64, 5) == 0 && a[5] == 1)
		return 1; /* 64:ff9b:1::/48, NAT64 for local use (RFC 8215) */
	if (memcmp(a, zero, 12) == 0)
		return 1; /* ::, ::1, and the old IPv4-compatible ::a.b.c.d */
	return a[0] == 0xff || (a[0] & 0xfe) == 0xfc || /* multicast, fc00::/7 */
	       (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || /* fe80::/10 */
	       (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0); /* fec0::/10, once site-local */
}

static int same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return 0;
	if (a->sa_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)(const void *)a)->sin_addr,
			      &((const struct sockaddr_in *)(const void *)b)->sin_addr, 4) == 0;
	return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr, 16) == 0;
}

/* An address of one of this host's interfaces (also as ::ffff:a.b.c.d). */
static int host_address(const struct sockaddr *sa)
{
	struct sockaddr_in v4;
	const struct sockaddr *want = sa;
	if (sa->sa_family == AF_INET6) {
		const unsigned char *a =
			((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		static const unsigned char mapped[12] = {
			0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
		};
		if (memcmp(a, mapped, 12) == 0) {
			memset(&v4, 0, sizeof(v4));
			v4.sin_family = AF_INET;
			memcpy(&v4.sin_addr, a + 12, 4);
			want = (const struct sockaddr *)&v4;
		}
	}
	struct ifaddrs *ifs = NULL;
	if (getifaddrs(&ifs) != 0)
		return 1; /* cannot tell: not reached */
	int found = 0;
	for (struct ifaddrs *i = ifs; i != NULL && !found; i = i->ifa_next)
		found = i->ifa_addr != NULL && same_addr(i->ifa_addr, want);
	freeifaddrs(ifs);
	return found;
}

/* ---- resolving ---- */

struct addrs {
	struct sockaddr_storage v[MAX_ADDRS];
	size_t n;
};

static void add_addr(struct addrs *as, const struct sockaddr *sa)
{
	size_t len = sa->sa_family == AF_INET6	? sizeof(struct sockaddr_in6)
		     : sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						: 0;
	if (len == 0 || as->n == MAX_ADDRS)
		return;
	memset(&as->v[as->n], 0, sizeof(as->v[0]));
	memcpy(&as->v[as->n], sa, len);
	as->n++;
}

/* An address in text (IPv6 with or without brackets) into as. 0 or -1. */
static int literal(const char *s, struct addrs *as)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	char b[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']' && n - 2 < sizeof(b)) {
		memcpy(b, s + 1, n - 2);
		b[n - 2] = '\0';
		s = b;
	}
	if (inet_pton(AF_INET, s, &s4.sin_addr) == 1)
		add_addr(as, (struct sockaddr *)&s4);
	else if (inet_pton(AF_INET6, s, &s6.sin6_addr) == 1)
		add_addr(as, (struct sockaddr *)&s6);
	else
		return -1;
	return 0;
}

/* The 32 hex digits netallow_canon makes of an IPv6 address. */
static void hex_v6(const char *hex, struct addrs *as)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	for (int i = 0; i < 16; i++) {
		unsigned v = 0;
		for (int k = 0; k < 2; k++) {
			char ch = hex[2 * i + k];
			v = v << 4 | (unsigned)(ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
		}
		s6.sin6_addr.s6_addr[i] = (unsigned char)v;
	}
	add_addr(as, (struct sockaddr *)&s6);
}

struct lookup {
	pthread_mutex_t mu;
	int fds[2];
	int done, abandoned, err;
	struct addrinfo *res;
	char name[NETALLOW_HOST_MAX];
};

static void lookup_free(struct lookup *l)
{
	if (l->res != NULL)
		freeaddrinfo(l->res);
	close(l->fds[0]);
	close(l->fds[1]);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

static void *lookup_main(void *arg)
{
	struct lookup *l = arg;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC };
	struct addrinfo *res = NULL;
	int err = getaddrinfo(l->name, NULL, &hints, &res);
	pthread_mutex_lock(&l->mu);
	l->res = res;
	l->err = err;
	l->done = 1;
	int gone = l->abandoned;
	if (!gone && write(l->fds[1], "", 1) < 0) {
		/* the pipe is empty and ours: cannot fail */
	}
	pthread_mutex_unlock(&l->mu);
	if (gone)
		lookup_free(l);
	return NULL;
}

/* name through getaddrinfo, in a helper thread. */
static enum io lookup(struct proxy *p, const char *name, struct addrs *as)
{
	struct lookup *l = calloc(1, sizeof(*l));
	if (l == NULL)
		return IO_ERR;
	if (make_pipe(l->fds) != 0) {
		free(l);
		return IO_ERR;
	}
	pthread_mutex_init(&l->mu, NULL);
	snprintf(l->name, sizeof(l->name), "%s", name);
	pthread_attr_t at;
	pthread_t t;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int r = pthread_create(&t, &at, lookup_main, l);
	pthread_attr_destroy(&at);
	if (r != 0) {
		lookup_free(l);
		return IO_ERR;
	}
	enum io w = wait_fd(p, l->fds[0], POLLIN, -1);
	pthread_mutex_lock(&l->mu);
	int done = l->done;
	l->abandoned = !done;
	pthread_mutex_unlock(&l->mu);
	if (!done)
		return w == IO_OK ? IO_ERR : w; /* the helper frees it */
	for (struct addrinfo *i = l->res; l->err == 0 && i != NULL; i = i->ai_next)
		add_addr(as, i->ai_addr);
	lookup_free(l);
	return IO_OK;
}

/* The addresses of a name: cfg->resolve's when it names it, else the
 * resolver's. */
static enum io resolve(struct proxy *p, const char *name, struct addrs *as)
{
	size_t n = strlen(name);
	int listed = 0;
	for (size_t i = 0; i < p->cfg.nresolve; i++) {
		const char *e = p->cfg.resolve[i];
		char canon[NETALLOW_HOST_MAX], nm[NETALLOW_HOST_MAX];
		enum netallow_kind kind;
		const char *eq = strchr(e, '=');
		if (eq == NULL || (size_t)(eq - e) >= sizeof(nm))
			continue;
		memcpy(nm, e, (size_t)(eq - e));
		nm[eq - e] = '\0';
		if (netallow_canon(nm, canon, &kind) == 0 && strlen(canon) == n &&
		    memcmp(canon, name, n) == 0 && literal(eq + 1, as) == 0)
			listed = 1;
	}
	return listed ? IO_OK : lookup(p, name, as);
}

/* ---- deciding and connecting ---- */

/* The host is on the list, but not for this port. */
static int other_port(const struct netallow *a, const char *host, int plain)
{
	if (netallow_match(a, host, 443, plain) || (plain && netallow_match(a, host, 80, plain)))
		return 1;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].port != 0 && netallow_match(a, host, a->v[i].port, plain))
			return 1;
	return 0;
}

/* Connect to the first of as that answers, within the connect timeout:
 * 0 with c->ofd and c->address set, IO_STOP's -2, or -1. */
static int connect_any(struct conn *c, const struct addrs *as)
{
	struct proxy *p = c->p;
	long long deadline = now_ms() + p->cfg.connect_timeout_ms;
	for (size_t i = 0; i < as->n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&as->v[i];
		socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							  : sizeof(struct sockaddr_in);
		struct sockaddr_storage ss;
		memcpy(&ss, sa, sizeof(ss));
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = htons((unsigned short)c->port);
		else
			((struct sockaddr_in *)&ss)->sin_port = htons((unsigned short)c->port);
		int fd = stream_socket(ss.ss_family);
		if (fd < 0)
			return -1;
		int r = connect(fd, (struct sockaddr *)&ss, len), err = r == 0 ? 0 : errno;
		if (err == EINPROGRESS) {
			enum io w = wait_fd(p, fd, POLLOUT, deadline);
			socklen_t el = sizeof(err);
			if (w == IO_OK && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
				err = errno;
			else if (w != IO_OK)
				err = w == IO_STOP ? EINTR : ETIMEDOUT;
		}
		if (err == 0) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			const void *a =
				ss.ss_family == AF_INET6
					? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
					: (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
			inet_ntop(ss.ss_family, a, c->address, sizeof(c->address));
			c->ofd = fd;
			return 0;
		}
		close(fd);
		if (err == EINTR)
			return -2;
		c->timed_out = err == ETIMEDOUT;
		c->refused_conn = err == ECONNREFUSED;
		if (ms_left(deadline) == 0)
			break;
	}
	return -1;
}

/* Decide on c->proto's request for host:port, and connect when it is
 * allowed: NULL (c->ofd connected), or the reason of the refusal ("" when
 * the proxy is stopping: no decision). */
static const char *decide(struct conn *c, const char *host, unsigned port)
{
	struct proxy *p = c->p;
	enum netallow_kind kind;
	c->port = port;
	if (netallow_canon(host, c->host, &kind) != 0) {
		c->host[0] = '\0';
		return "not_allowed";
	}
	if (!netallow_match(p->cfg.allow, host, port, p->cfg.plain_http))
		return other_port(p->cfg.allow, host, p->cfg.plain_http) ? "port" : "not_allowed";
	struct addrs all = { .n = 0 }, ok = { .n = 0 };
	if (kind == NA_IPV4)
		literal(c->host, &all);
	else if (kind == NA_IPV6)
		hex_v6(c->host, &all);
	else {
		enum io r = resolve(p, c->host, &all);
		if (r == IO_STOP)
			return "";
		if (r != IO_OK)
			return "resolve_failed";
	}
	if (all.n == 0)
		return "resolve_failed";
	for (size_t i = 0; i < all.n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&all.v[i];
		if (p->cfg.allow_local || (!proxy_address_local(sa) && !host_address(sa)))
			add_addr(&ok, sa);
	}
	if (ok.n == 0)
		return "local_address";
	int r = connect_any(c, &ok);
	return r == 0 ? NULL : r == -2 ? "" : "connect_failed";
}

/* ---- relaying ---- */

struct half {
	unsigned char *buf;
	size_t len, off;
	int eof, shut;
	unsigned long long max; /* bytes this way may still carry */
};

/* One write of h to fd: 1 some moved, 0 none could, -1 an error. */
static int put_some(int fd, struct half *h)
{
	ssize_t r = send(fd, h->buf + h->off, h->len - h->off, MSG_NOSIGNAL);
	if (r > 0 && (h->off += (size_t)r) == h->len)
		h->off = h->len = 0;
	return r > 0 ? 1 : errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
}

/* One read from fd into the empty h: 1 bytes or the end, 0 none yet, -1
 * an error. */
static int get_some(int fd, struct half *h)
{
	size_t want = h->max < RELAY_BUF ? (size_t)h->max : RELAY_BUF;
	ssize_t r = recv(fd, h->buf, want, 0);
	if (r > 0) {
		h->len = (size_t)r;
		h->max -= (unsigned long long)r;
	}
	if (r == 0 || h->max == 0)
		h->eof = 1;
	return r >= 0 ? 1 : errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
}

/* What can move now moves (from, h, to): 1 something did, 0 nothing
 * could, -1 an error. */
static int pump(int from, struct half *h, int to)
{
	int moved = 0, r = 0;
	if (!h->eof && h->len == 0 && (r = get_some(from, h)) > 0)
		moved = 1;
	if (r >= 0 && h->len > 0 && (r = put_some(to, h)) > 0)
		moved = 1;
	return r < 0 ? -1 : moved;
}

/* The ends each way: 1 when the relay is over. */
static int ends(struct conn *c, struct half *up, struct half *down, int plain)
{
	if (up->eof && up->len == 0 && !up->shut) {
		if (!plain)
			shutdown(c->ofd, SHUT_WR);
		up->shut = 1;
	}
	if (down->eof && down->len == 0 && !down->shut) {
		shutdown(c->cfd, SHUT_WR);
		down->shut = 1;
	}
	return (up->shut && down->shut) || (plain && down->shut);
}

/* Relay until both sides are done, an error, the idle timeout or stop.
 * up starts with pre (npre bytes, at most RELAY_BUF); at most limit
 * bytes more go up. A plain request (plain): the origin is not told
 * the client is done, and the origin's end ends it all. Each turn moves
 * what it can, and polls only when nothing could move. */
static void relay(struct conn *c, const unsigned char *pre, size_t npre, unsigned long long limit,
		  int plain)
{
	struct proxy *p = c->p;
	struct half up = { .buf = malloc(RELAY_BUF), .max = limit },
		    down = { .buf = malloc(RELAY_BUF), .max = ULLONG_MAX };
	if (up.buf == NULL || down.buf == NULL)
		goto out;
	memcpy(up.buf, pre, npre);
	up.len = npre;
	up.eof = limit == 0;
	while (!ends(c, &up, &down, plain)) {
		int a = pump(c->cfd, &up, c->ofd), b = pump(c->ofd, &down, c->cfd);
		if (a < 0 || b < 0)
			goto out;
		if (a > 0 || b > 0) {
			if (atomic_load_explicit(&p->stopping, memory_order_relaxed))
				goto out;
			continue;
		}
		short ce =
			(short)((!up.eof && up.len == 0 ? POLLIN : 0) | (down.len ? POLLOUT : 0));
		short oe =
			(short)((!down.eof && down.len == 0 ? POLLIN : 0) | (up.len ? POLLOUT : 0));
		struct pollfd pf[3] = { { ce ? c->cfd : -1, ce, 0 },
					{ oe ? c->ofd : -1, oe, 0 },
					{ p->stop_rd, POLLIN, 0 } };
		int r = poll(pf, 3, p->cfg.idle_timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || pf[2].revents != 0)
			goto out; /* idle, an error, or stop */
	}
	if (plain)
		drain(c);
out:
	free(up.buf);
	free(down.buf);
}

/* ---- the protocols ---- */

static const char *http_reason(int status)
{
	switch (status) {
	case 403:
		return "plain_http";
	case 407:
		return "auth";
	case 431:
		return "head_too_large";
	default:
		return "bad_request";
	}
}

/* The head of an HTTP client, in c->buf: 0 with r read, or -1 (answered
 * and told when there was something to tell). */
static int http_head(struct conn *c, long long deadline, struct http_req *r)
{
	struct proxy *p = c->p;
	for (;;) {
		int st = proxy_http_parse((const char *)c->buf, c->n, p->token, p->cfg.plain_http,
					  r);
		if (st == 0)
			return 0;
		if (st != PROXY_MORE) {
			c->proto = r->connect ? "connect" : "http";
			if (netallow_canon(r->host, c->host, &(enum netallow_kind){ NA_EXACT }) !=
			    0)
				c->host[0] = '\0';
			c->port = r->port;
			emit(c, http_reason(st));
			if (send_all(p, c->cfd, proxy_http_status(st),
				     strlen(proxy_http_status(st)), now_ms() + DRAIN_MS) == IO_OK)
				drain(c);
			return -1;
		}
		enum io io = fill(c, deadline);
		if (io == IO_TIMEOUT)
			emit(c, "timeout");
		else if (io == IO_EOF || io == IO_ERR)
			emit(c, "bad_request");
		if (io != IO_OK)
			return -1;
	}
}

static void serve_http(struct conn *c, long long deadline)
{
	struct proxy *p = c->p;
	struct http_req r;
	c->proto = "http";
	if (http_head(c, deadline, &r) != 0)
		return;
	c->proto = r.connect ? "connect" : "http";
	const char *why = decide(c, r.host, r.port);
	if (why != NULL && why[0] == '\0') {
		free(r.origin_head);
		return;
	}
	emit(c, why);
	int st = why == NULL			      ? 200
		 : strcmp(why, "connect_failed") == 0 ? (c->timed_out ? 504 : 502)
		 : strcmp(why, "resolve_failed") == 0 ? 502
						      : 403;
	size_t extra = c->n - r.head_len;
	const unsigned char *pre = c->buf + r.head_len;
	long long wd = now_ms() + p->cfg.idle_timeout_ms;
	if (why != NULL) {
		if (send_all(p, c->cfd, proxy_http_status(st), strlen(proxy_http_status(st)), wd) ==
		    IO_OK)
			drain(c);
	} else if (r.connect) {
		if (send_all(p, c->cfd, proxy_http_status(200), strlen(proxy_http_status(200)),
			     wd) == IO_OK)
			relay(c, pre, extra, ULLONG_MAX, 0);
	} else if (send_all(p, c->ofd, r.origin_head, r.origin_len, wd) == IO_OK) {
		size_t body = extra < r.body_len ? extra : (size_t)r.body_len;
		relay(c, pre, body, r.body_len - body, 1);
	}
	free(r.origin_head);
}

/* One SOCKS5 step: step() on the unread bytes until it has enough. */
typedef int (*socks_step)(struct conn *c, size_t *used, unsigned char *reply, size_t *rlen,
			  void *out);

static int greet(struct conn *c, size_t *used, unsigned char *reply, size_t *rlen, void *out)
{
	(void)out;
	return socks_greeting(c->buf, c->n, c->p->token != NULL, used, reply, rlen);
}

static int auth(struct conn *c, size_t *used, unsigned char *reply, size_t *rlen, void *out)
{
	return socks_auth(c->buf, c->n, c->p->token, used, reply, rlen, out);
}

static int request(struct conn *c, size_t *used, unsigned char *reply, size_t *rlen, void *out)
{
	return socks_request(c->buf, c->n, out, used, reply, rlen);
}

/* 0 with the step's reply sent (a request's: not yet, the decision
 * makes it) and its bytes taken from c->buf, the step's own -1 or -2
 * (reply sent for -2), -3 (told, or nothing to tell), or -4 (a greeting
 * without the method wanted: refused, told). */
static int socks_do(struct conn *c, socks_step step, void *out, long long deadline)
{
	unsigned char reply[10];
	size_t used = 0, rlen = 0;
	int r;
	while ((r = step(c, &used, reply, &rlen, out)) == PROXY_MORE) {
		enum io io = fill(c, deadline);
		if (io == IO_TIMEOUT)
			emit(c, "timeout");
		else if (io != IO_STOP)
			emit(c, "bad_request");
		if (io != IO_OK)
			return -3;
	}
	if (r == -1)
		return -1;
	if ((r != 0 || step != request) && send_all(c->p, c->cfd, reply, rlen, deadline) != IO_OK)
		return -3; /* the client is gone, or stop */
	memmove(c->buf, c->buf + used, c->n - used);
	c->n -= used;
	return r == 0 && step == greet && reply[1] == 0xff ? -4 : r;
}

static void serve_socks(struct conn *c, long long deadline)
{
	struct socks_req q;
	int ok = 0, r;
	c->proto = "socks5";
	if ((r = socks_do(c, greet, NULL, deadline)) == 0 && c->p->token != NULL &&
	    (r = socks_do(c, auth, &ok, deadline)) == 0 && !ok) {
		emit(c, "auth");
		return;
	}
	if (r == 0)
		r = socks_do(c, request, &q, deadline);
	if (r == -1 || r == -2 || r == -4)
		emit(c, r == -4 && c->p->token != NULL ? "auth" : "bad_request");
	if (r != 0)
		return;
	const char *why = decide(c, q.host, q.port);
	if (why != NULL && why[0] == '\0')
		return;
	emit(c, why);
	int code = why == NULL				? 0
		   : strcmp(why, "connect_failed") == 0 ? (c->refused_conn ? 5 : 4)
		   : strcmp(why, "resolve_failed") == 0 ? 4
							: 2;
	unsigned char reply[10];
	socks_reply(code, reply);
	if (send_all(c->p, c->cfd, reply, sizeof(reply), now_ms() + c->p->cfg.idle_timeout_ms) !=
	    IO_OK)
		return;
	if (why == NULL)
		relay(c, c->buf, c->n, ULLONG_MAX, 0);
	else
		drain(c);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	struct proxy *p = c->p;
	long long deadline = now_ms() + p->cfg.head_timeout_ms;
	enum io io = fill(c, deadline);
	if (io == IO_TIMEOUT) {
		c->proto = "unknown";
		emit(c, "timeout");
	} else if (io == IO_OK) {
		switch (proxy_sniff(c->buf, c->n)) {
		case PP_SOCKS5:
			serve_socks(c, deadline);
			break;
		case PP_HTTP:
			serve_http(c, deadline);
			break;
		default:
			c->proto = "unknown";
			emit(c, "bad_request");
		}
	}
	close(c->cfd);
	if (c->ofd >= 0)
		close(c->ofd);
	pthread_mutex_lock(&p->mu);
	c->finished = 1;
	p->live--;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- accepting ---- */

/* Join the threads of the connections that are over. */
static void reap(struct proxy *p, int all)
{
	pthread_mutex_lock(&p->mu);
	struct conn **pp = &p->conns;
	while (*pp != NULL) {
		struct conn *c = *pp;
		if (!all && !c->finished) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		pthread_mutex_unlock(&p->mu);
		pthread_join(c->tid, NULL);
		free(c);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

static void start_conn(struct proxy *p, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	pthread_attr_t at;
	int one = 1, started = 0;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (c != NULL) {
		c->p = p;
		c->cfd = fd;
		c->ofd = -1;
		c->proto = "unknown";
		pthread_mutex_lock(&p->mu);
		if (p->live < p->cfg.max_conns && pthread_attr_init(&at) == 0) {
			pthread_attr_setstacksize(&at, CONN_STACK);
			started = pthread_create(&c->tid, &at, conn_main, c) == 0;
			pthread_attr_destroy(&at);
		}
		if (started) {
			p->live++;
			c->next = p->conns;
			p->conns = c;
		}
		pthread_mutex_unlock(&p->mu);
	}
	if (!started) {
		struct conn tmp = { .p = p, .proto = "unknown" };
		emit(&tmp, "too_many");
		close(fd);
		free(c);
	}
}

static void *accept_main(void *arg)
{
	struct proxy *p = arg;
	for (;;) {
		enum io w = wait_fd(p, p->lfd, POLLIN, -1);
		if (w == IO_STOP)
			return NULL;
		reap(p, 0);
		int fd = accept(p->lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				if (wait_fd(p, -1, 0, now_ms() + 100) == IO_STOP)
					return NULL;
			}
			continue;
		}
		if (set_flags(fd) != 0) {
			close(fd);
			continue;
		}
		start_conn(p, fd);
	}
}

int proxy_start(int listen_fd, const struct proxy_config *cfg, struct proxy **out)
{
	struct proxy *p = calloc(1, sizeof(*p));
	int fds[2] = { -1, -1 };
	if (p == NULL)
		return -1;
	if (cfg == NULL || cfg->allow == NULL || set_flags(listen_fd) != 0 || make_pipe(fds) != 0)
		goto fail;
	p->cfg = *cfg;
	p->lfd = listen_fd;
	p->stop_rd = fds[0];
	p->stop_wr = fds[1];
	if (p->cfg.max_conns == 0)
		p->cfg.max_conns = DEFAULT_MAX_CONNS;
	if (p->cfg.connect_timeout_ms <= 0)
		p->cfg.connect_timeout_ms = DEFAULT_CONNECT_MS;
	if (p->cfg.idle_timeout_ms <= 0)
		p->cfg.idle_timeout_ms = DEFAULT_IDLE_MS;
	if (p->cfg.head_timeout_ms <= 0)
		p->cfg.head_timeout_ms = DEFAULT_HEAD_MS;
	if (cfg->token != NULL && (p->token = strdup(cfg->token)) == NULL)
		goto fail;
	atomic_init(&p->stopping, 0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->ev_mu, NULL);
	int e = pthread_create(&p->accept_tid, NULL, accept_main, p);
	if (e == 0) {
		*out = p;
		return 0;
	}
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->ev_mu);
	errno = e;
fail:
	e = errno;
	if (cfg == NULL || cfg->allow == NULL)
		e = EINVAL;
	if (fds[0] >= 0) {
		close(fds[0]);
		close(fds[1]);
	}
	free(p->token);
	free(p);
	errno = e;
	return -1;
}

void proxy_counts(struct proxy *p, unsigned long *allowed, unsigned long *refused)
{
	pthread_mutex_lock(&p->ev_mu);
	*allowed = p->allowed;
	*refused = p->refused;
	pthread_mutex_unlock(&p->ev_mu);
}

void proxy_stop(struct proxy *p)
{
	if (p == NULL)
		return;
	atomic_store(&p->stopping, 1);
	while (write(p->stop_wr, "", 1) < 0 && errno == EINTR)
		;
	pthread_join(p->accept_tid, NULL);
	reap(p, 1);
	close(p->lfd);
	close(p->stop_rd);
	close(p->stop_wr);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->ev_mu);
	free(p->token);
	free(p);
}
