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
 * wakes every thread at once (the resolver, which cannot be woken, runs
 * in a helper thread nobody joins: proxydial.c).
 *
 * Every fd is close-on-exec and non-blocking; nothing is written with
 * SIGPIPE possible (MSG_NOSIGNAL, or SO_NOSIGPIPE where that is the way).
 */
#include "proxy.h"
#include "proxydial.h"
#include "proxyproto.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on each socket instead */
#endif

#define DEFAULT_MAX_CONNS 256
#define DEFAULT_CONNECT_MS 10000
#define DEFAULT_IDLE_MS (5 * 60 * 1000)
#define DEFAULT_HEAD_MS 10000
#define RELAY_BUF 65536
/* After a refusal, or the end of a plain request: what the client still
 * sends is read and dropped (so that closing does not reset the
 * connection before the client has read our answer), this much at most. */
#define DRAIN_MS 1000
#define DRAIN_MAX ((size_t)1024 * 1024)
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
	unsigned long noisy; /* "auth" and "too_many" refusals, with a token */
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
		enum io w = pxd_wait(c->p->stop_rd, c->cfd, POLLIN, deadline);
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
	long long deadline = pxd_now_ms() + DRAIN_MS;
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
		if (pxd_wait(c->p->stop_rd, c->cfd, POLLIN, deadline) != IO_OK)
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
	if (p->token != NULL && reason != NULL &&
	    (strcmp(reason, "auth") == 0 || strcmp(reason, "too_many") == 0))
		ev.quiet = ++p->noisy > PROXY_LOUD_MAX;
	if (p->cfg.on_event != NULL)
		p->cfg.on_event(p->cfg.event_arg, &ev);
	pthread_mutex_unlock(&p->ev_mu);
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

/* host in canon as netallow_canon makes it (when canon is not NULL), and
 * in c->host as events tell it: the same, but an IPv6 address in its
 * usual text, not netallow's 32 hex digits. 0, or -1 (c->host ""). */
static int canon_host(struct conn *c, const char *host, char *canon, enum netallow_kind *kind)
{
	char buf[NETALLOW_HOST_MAX];
	enum netallow_kind k;
	struct pxd_addrs as;
	if (canon == NULL)
		canon = buf;
	if (netallow_canon(host, canon, &k) != 0) {
		c->host[0] = '\0';
		return -1;
	}
	snprintf(c->host, sizeof(c->host), "%s", canon);
	if (k == NA_IPV6 && pxd_addresses(canon, k, NULL, 0, -1, -1, &as) == IO_OK && as.n == 1)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&as.v[0])->sin6_addr, c->host,
			  sizeof(c->host));
	if (kind != NULL)
		*kind = k;
	return 0;
}

/* Decide on c->proto's request for host:port, and connect when it is
 * allowed: NULL (c->ofd connected), or the reason of the refusal ("" when
 * the proxy is stopping: no decision). */
static const char *decide(struct conn *c, const char *host, unsigned port)
{
	struct proxy *p = c->p;
	enum netallow_kind kind;
	char canon[NETALLOW_HOST_MAX];
	c->port = port;
	if (canon_host(c, host, canon, &kind) != 0)
		return "not_allowed";
	if (!netallow_match(p->cfg.allow, host, port, p->cfg.plain_http))
		return other_port(p->cfg.allow, host, p->cfg.plain_http) ? "port" : "not_allowed";
	struct pxd_addrs as;
	long long deadline = pxd_now_ms() + p->cfg.connect_timeout_ms;
	enum io r = pxd_addresses(canon, kind, p->cfg.resolve, p->cfg.nresolve, p->stop_rd,
				  deadline, &as);
	if (r == IO_STOP)
		return "";
	if (r != IO_OK || as.n == 0)
		return "resolve_failed";
	if (!p->cfg.allow_local && pxd_vet(&as) == 0)
		return "local_address";
	struct pxd_dialed d;
	int cr = pxd_connect(&as, port, p->stop_rd, deadline, &d);
	c->timed_out = d.timed_out;
	c->refused_conn = d.refused;
	if (cr == 0) {
		c->ofd = d.fd;
		memcpy(c->address, d.address, sizeof(c->address));
	}
	return cr == 0 ? NULL : cr == -2 ? "" : "connect_failed";
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
			if (canon_host(c, r->host, NULL, NULL) != 0)
				c->host[0] = '\0';
			c->port = r->port;
			emit(c, http_reason(st));
			if (pxd_send_all(p->stop_rd, c->cfd, proxy_http_status(st),
					 strlen(proxy_http_status(st)),
					 pxd_now_ms() + DRAIN_MS) == IO_OK)
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
	long long wd = pxd_now_ms() + p->cfg.idle_timeout_ms;
	if (why != NULL) {
		if (pxd_send_all(p->stop_rd, c->cfd, proxy_http_status(st),
				 strlen(proxy_http_status(st)), wd) == IO_OK)
			drain(c);
	} else if (r.connect) {
		if (pxd_send_all(p->stop_rd, c->cfd, proxy_http_status(200),
				 strlen(proxy_http_status(200)), wd) == IO_OK)
			relay(c, pre, extra, ULLONG_MAX, 0);
	} else if (pxd_send_all(p->stop_rd, c->ofd, r.origin_head, r.origin_len, wd) == IO_OK) {
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
		if (io == IO_OK)
			continue; /* more bytes: the step again */
		if (io == IO_TIMEOUT)
			emit(c, "timeout");
		else if (io != IO_STOP)
			emit(c, "bad_request");
		return -3;
	}
	if (r == -1)
		return -1;
	if ((r != 0 || step != request) &&
	    pxd_send_all(c->p->stop_rd, c->cfd, reply, rlen, deadline) != IO_OK)
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
	if (pxd_send_all(c->p->stop_rd, c->cfd, reply, sizeof(reply),
			 pxd_now_ms() + c->p->cfg.idle_timeout_ms) != IO_OK)
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
	long long deadline = pxd_now_ms() + p->cfg.head_timeout_ms;
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
	/* Counted out before the client sees the end, so that it may
	 * connect again at once; reap() joins before it frees c. */
	pthread_mutex_lock(&p->mu);
	c->finished = 1;
	p->live--;
	pthread_mutex_unlock(&p->mu);
	close(c->cfd);
	if (c->ofd >= 0)
		close(c->ofd);
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
		enum io w = pxd_wait(p->stop_rd, p->lfd, POLLIN, -1);
		if (w == IO_STOP)
			return NULL;
		reap(p, 0);
		int fd = accept(p->lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				if (pxd_wait(p->stop_rd, -1, 0, pxd_now_ms() + 100) == IO_STOP)
					return NULL;
			}
			continue;
		}
		if (pxd_set_flags(fd) != 0) {
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
	if (cfg == NULL || cfg->allow == NULL || pxd_set_flags(listen_fd) != 0 ||
	    pxd_pipe(fds) != 0)
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
	/* Every thread of the proxy (the connections' and the resolver's
	 * are started from this one) has all signals blocked: they stay
	 * with the caller's threads. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&p->accept_tid, NULL, accept_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
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
