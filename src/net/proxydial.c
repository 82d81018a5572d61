/*
 * The proxy's way to a destination (see proxydial.h): its addresses,
 * which of them may be reached, the connect; and the socket helpers the
 * proxy's threads share.
 *
 * A name that cfg.resolve does not name is resolved by getaddrinfo in a
 * detached helper thread that the connection waits for (with the stop
 * pipe and a deadline): proxy_stop never waits for a slow resolver; a
 * helper left behind frees its own state when the lookup returns, and
 * touches nothing else.
 */
#include "proxydial.h"
#include "proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#if defined(__GLIBC__)
#include <arpa/nameser.h>
#include <resolv.h>
#endif
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* macOS: SO_NOSIGPIPE on each socket instead */
#endif

long long pxd_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ms_left(long long deadline)
{
	if (deadline < 0)
		return -1;
	long long d = deadline - pxd_now_ms();
	return d < 0 ? 0 : d > INT_MAX ? INT_MAX : (int)d;
}

int pxd_set_flags(int fd)
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
	if (fd >= 0 && pxd_set_flags(fd) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int pxd_pipe(int fds[2])
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

enum io pxd_wait(int stop_fd, int fd, short ev, long long deadline)
{
	for (;;) {
		struct pollfd pf[2] = { { fd, ev, 0 }, { stop_fd, POLLIN, 0 } };
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

enum io pxd_send_all(int stop_fd, int fd, const void *b, size_t n, long long deadline)
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
		enum io r = pxd_wait(stop_fd, fd, POLLOUT, deadline);
		if (r != IO_OK)
			return r;
	}
	return IO_OK;
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

static void add_addr(struct pxd_addrs *as, const struct sockaddr *sa)
{
	size_t len = sa->sa_family == AF_INET6	? sizeof(struct sockaddr_in6)
		     : sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
						: 0;
	if (len == 0 || as->n == PXD_MAX_ADDRS)
		return;
	memset(&as->v[as->n], 0, sizeof(as->v[0]));
	memcpy(&as->v[as->n], sa, len);
	as->n++;
}

/* An address in text (IPv6 with or without brackets) into as. 0 or -1. */
static int literal(const char *s, struct pxd_addrs *as)
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
static void hex_v6(const char *hex, struct pxd_addrs *as)
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

/* The name itself, never the resolver's search list: a name on the list
 * that does not resolve (or, with resolv.conf's ndots, before it is
 * tried) would otherwise be tried as NAME.SEARCH-DOMAIN, which is not on
 * the list, and the connection made there. glibc's resolver state is
 * per thread, and this thread makes one lookup: its own state, read
 * afresh, with the search list's options off (a trailing dot would turn
 * it off too, but also /etc/hosts, where a private registry's name may
 * live). Elsewhere (macOS: the system's resolver) the name is looked up
 * as the system does. */
static void no_search_list(void)
{
#if defined(__GLIBC__)
	if (res_init() == 0)
		_res.options &= ~(unsigned long)(RES_DNSRCH | RES_DEFNAMES);
#endif
}

static void *lookup_main(void *arg)
{
	struct lookup *l = arg;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC };
	struct addrinfo *res = NULL;
	no_search_list();
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
static enum io lookup(const char *name, int stop_fd, long long deadline, struct pxd_addrs *as)
{
	struct lookup *l = calloc(1, sizeof(*l));
	if (l == NULL)
		return IO_ERR;
	if (pxd_pipe(l->fds) != 0) {
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
	enum io w = pxd_wait(stop_fd, l->fds[0], POLLIN, deadline);
	pthread_mutex_lock(&l->mu);
	int done = l->done;
	l->abandoned = !done;
	pthread_mutex_unlock(&l->mu);
	if (!done)
		return w == IO_OK ? IO_ERR : w; /* the helper frees it when it returns */
	for (struct addrinfo *i = l->res; l->err == 0 && i != NULL; i = i->ai_next)
		add_addr(as, i->ai_addr);
	lookup_free(l);
	return IO_OK;
}

enum io pxd_addresses(const char *canon, enum netallow_kind kind, const char *const *resolve,
		      size_t nresolve, int stop_fd, long long deadline, struct pxd_addrs *as)
{
	size_t n = strlen(canon);
	int listed = 0;
	as->n = 0;
	if (kind == NA_IPV4)
		return literal(canon, as) == 0 ? IO_OK : IO_ERR;
	if (kind == NA_IPV6) {
		hex_v6(canon, as);
		return IO_OK;
	}
	for (size_t i = 0; i < nresolve; i++) {
		const char *e = resolve[i];
		char c[NETALLOW_HOST_MAX], nm[NETALLOW_HOST_MAX];
		enum netallow_kind k;
		const char *eq = strchr(e, '=');
		if (eq == NULL || (size_t)(eq - e) >= sizeof(nm))
			continue;
		memcpy(nm, e, (size_t)(eq - e));
		nm[eq - e] = '\0';
		if (netallow_canon(nm, c, &k) == 0 && strlen(c) == n && memcmp(c, canon, n) == 0 &&
		    literal(eq + 1, as) == 0)
			listed = 1;
	}
	return listed ? IO_OK : lookup(canon, stop_fd, deadline, as);
}

size_t pxd_vet(struct pxd_addrs *as)
{
	size_t k = 0;
	for (size_t i = 0; i < as->n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&as->v[i];
		if (!proxy_address_local(sa) && !host_address(sa))
			as->v[k++] = as->v[i];
	}
	return as->n = k;
}

/* ---- connecting ---- */

int pxd_connect(const struct pxd_addrs *as, unsigned port, int stop_fd, long long deadline,
		struct pxd_dialed *d)
{
	d->fd = -1;
	d->timed_out = d->refused = 0;
	for (size_t i = 0; i < as->n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&as->v[i];
		socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							  : sizeof(struct sockaddr_in);
		struct sockaddr_storage ss;
		memcpy(&ss, sa, sizeof(ss));
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = htons((unsigned short)port);
		else
			((struct sockaddr_in *)&ss)->sin_port = htons((unsigned short)port);
		int fd = stream_socket(ss.ss_family);
		if (fd < 0)
			return -1;
		int r = connect(fd, (struct sockaddr *)&ss, len), err = r == 0 ? 0 : errno;
		if (err == EINPROGRESS) {
			enum io w = pxd_wait(stop_fd, fd, POLLOUT, deadline);
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
			inet_ntop(ss.ss_family, a, d->address, sizeof(d->address));
			d->fd = fd;
			return 0;
		}
		close(fd);
		if (err == EINTR)
			return -2;
		d->timed_out = err == ETIMEDOUT;
		d->refused = err == ECONNREFUSED;
		if (ms_left(deadline) == 0)
			break;
	}
	return -1;
}
