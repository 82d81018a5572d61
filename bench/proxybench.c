/*
 * proxybench - what the allow-list proxy (src/net/proxy.c) costs against
 * a direct connection and against a trivial relay, all to origins of its
 * own on loopback.
 *
 *   proxybench [-n CONNECTS] [-m MEGABYTES] [-r REPS] [-b KB] [-s]
 *   proxybench serve [-m MEGABYTES] [-b KB] [-s]
 *
 * Three ways to an origin: direct; through the relay (the floor: a second
 * loopback hop and nothing else, below); through the proxy's engine, in
 * this process, with an HTTP CONNECT (so its accept, thread, decision,
 * name from cfg.resolve, vetting, connect to the origin and relay are in
 * it).
 *
 * connect: N connections per way (1000 by default), the ways taken in
 * turn, each timed from socket() to the origin's first byte read (the
 * origin sends one byte and closes): through the proxy that is after its
 * "200 Connection established" was read. Median per connection.
 *
 * throughput: the origin sends M MB (100 by default) and closes; the
 * client reads to the end. R runs (5) of each way, in turn; medians.
 *
 * The relay: a thread per connection connects to its one origin, and a
 * thread for each direction moves bytes with a blocking read and write of
 * a B KB buffer (-b, 64 as the proxy's RELAY_BUF by default), or with
 * splice(2) through a pipe (-s), and passes the end on as a half-close.
 * No protocol, no decision, no timeouts, no poll: what any relay in user
 * space pays, the second hop's copies and wake-ups.
 *
 * Prints one JSON object: the medians (microseconds, MB/s) and the
 * ratios, against the targets (at most 1.2x the time on the
 * transfer, at most +1 ms per connection). Loopback only: the proxy's
 * own cost, not a network's.
 *
 * serve: the origins and their relays only, for bench/run's end-to-end
 * rows (a client inside `cordon run` reaches them directly, through the
 * relay, or through cordon's proxy): prints one JSON line of their ports
 * ({"small": P, "big": P, "relay_small": P, "relay_big": P}) and serves
 * until its standard input ends.
 */
#include "netallow.h"
#include "proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REPS_MAX 100
#define CONNECTS_MAX 100000
#define WAYS 3

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

_Noreturn static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int listener(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	socklen_t len = sizeof(s4);
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&s4, len) != 0 || listen(fd, 512) != 0 ||
	    getsockname(fd, (struct sockaddr *)&s4, &len) != 0)
		die("proxybench: listener");
	*port = ntohs(s4.sin_port);
	return fd;
}

static int dial(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&s4, sizeof(s4)) != 0)
		die("proxybench: connect");
	return fd;
}

static void start_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	pthread_attr_t at;
	if (pthread_attr_init(&at) != 0 ||
	    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) != 0 ||
	    pthread_attr_setstacksize(&at, (size_t)256 * 1024) != 0 ||
	    pthread_create(&t, &at, fn, arg) != 0) {
		fprintf(stderr, "proxybench: no thread\n");
		exit(1);
	}
	pthread_attr_destroy(&at);
}

/* ---- the origins ---- */

/* Each connection gets `send_bytes` bytes, then the end. */
struct origin {
	int lfd;
	unsigned port;
	long long send_bytes;
};

static void *origin_main(void *arg)
{
	struct origin *o = arg;
	static char block[1 << 16];
	for (;;) {
		int fd = accept(o->lfd, NULL, NULL);
		if (fd < 0)
			return NULL;
		for (long long left = o->send_bytes; left > 0;) {
			size_t n = left < (long long)sizeof(block) ? (size_t)left : sizeof(block);
			ssize_t w = send(fd, block, n, MSG_NOSIGNAL);
			if (w <= 0)
				break;
			left -= w;
		}
		close(fd);
	}
}

/* ---- the relay (the floor) ---- */

struct relay {
	int lfd;
	unsigned port, target;
	size_t buf; /* bytes per read */
	int use_splice;
};

/* One direction of a relayed connection: from's bytes to `to`, then a
 * half-close. The second of the two to finish closes both. */
struct rdir {
	const struct relay *r;
	int from, to;
	struct rdir *other;
	atomic_int *left;
};

/* All of b[0..n) to fd (blocking): 0, or -1. */
static int send_all(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *relay_dir(void *arg)
{
	struct rdir *d = arg;
	const struct relay *r = d->r;
	int pipes[2] = { -1, -1 };
	char *buf = r->use_splice ? NULL : malloc(r->buf);
	if (r->use_splice) {
		if (pipe2(pipes, O_CLOEXEC) != 0)
			die("proxybench: pipe");
		fcntl(pipes[1], F_SETPIPE_SZ, (int)r->buf);
	} else if (buf == NULL) {
		die("proxybench: relay buffer");
	}
	/* A blocking read and write (or splice in and out of the pipe) per
	 * turn: nothing else. */
	for (;;) {
		ssize_t n = r->use_splice
				    ? splice(d->from, NULL, pipes[1], NULL, r->buf, SPLICE_F_MOVE)
				    : recv(d->from, buf, r->buf, 0);
		if (n <= 0)
			break;
		if (!r->use_splice && send_all(d->to, buf, (size_t)n) != 0)
			break;
		for (ssize_t left = r->use_splice ? n : 0, w; left > 0; left -= w)
			if ((w = splice(pipes[0], NULL, d->to, NULL, (size_t)left,
					SPLICE_F_MOVE)) <= 0)
				goto out;
	}
out:
	shutdown(d->to, SHUT_WR);
	if (r->use_splice) {
		close(pipes[0]);
		close(pipes[1]);
	}
	free(buf);
	if (atomic_fetch_sub(d->left, 1) == 1) {
		close(d->from);
		close(d->to);
		free(d->left);
		free(d->other);
		free(d);
	}
	return NULL;
}

/* A connection accepted: its origin dialed, the way up in a thread of
 * its own, the way down in this one. */
static void *relay_conn(void *arg)
{
	struct rdir *down = arg, *up = malloc(sizeof(*up));
	down->left = malloc(sizeof(*down->left));
	if (up == NULL || down->left == NULL)
		die("proxybench: relay");
	atomic_init(down->left, 2);
	down->from = dial(down->r->target);
	*up = (struct rdir){
		.r = down->r, .from = down->to, .to = down->from, .other = down, .left = down->left
	};
	down->other = up;
	start_thread(relay_dir, up);
	return relay_dir(down);
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	for (;;) {
		int fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);
		struct rdir *d = calloc(1, sizeof(*d));
		if (fd < 0 || d == NULL)
			die("proxybench: relay accept");
		d->r = r;
		d->to = fd;
		start_thread(relay_conn, d);
	}
}

static void start_relay(struct relay *r, unsigned target, size_t buf, int use_splice)
{
	r->lfd = listener(&r->port);
	r->target = target;
	r->buf = buf;
	r->use_splice = use_splice;
	start_thread(relay_main, r);
}

/* ---- the client ---- */

enum way { DIRECT, RELAY, PROXY };
static const char *const way_name[WAYS] = { "direct", "relay", "proxy" };

/* A connection to the origin at `origin` (and its relay at `relay`). */
static int open_conn(enum way w, unsigned proxy, unsigned relay, unsigned origin)
{
	if (w == DIRECT)
		return dial(origin);
	if (w == RELAY)
		return dial(relay);
	char req[128], reply[256] = "";
	size_t k = 0;
	int fd = dial(proxy);
	int n = snprintf(req, sizeof(req), "CONNECT bench.test:%u HTTP/1.1\r\n\r\n", origin);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n)
		die("proxybench: send");
	/* The reply is a fixed head: read to its blank line, no further. */
	while (k < 4 || memcmp(reply + k - 4, "\r\n\r\n", 4) != 0) {
		if (k == sizeof(reply) || recv(fd, reply + k, 1, 0) != 1) {
			fprintf(stderr, "proxybench: no reply from the proxy\n");
			exit(1);
		}
		k++;
	}
	if (strncmp(reply, "HTTP/1.1 200 ", 13) != 0) {
		fprintf(stderr, "proxybench: the proxy refused: %.*s\n", (int)k, reply);
		exit(1);
	}
	return fd;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static long long median(long long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Microseconds from socket() to the small origin's byte. */
static long long connect_us(enum way w, unsigned proxy, const struct relay *r,
			    const struct origin *o)
{
	char c;
	long long t0 = now_us();
	int fd = open_conn(w, proxy, r->port, o->port);
	if (recv(fd, &c, 1, 0) != 1) {
		fprintf(stderr, "proxybench: no byte from the origin (%s)\n", way_name[w]);
		exit(1);
	}
	long long dt = now_us() - t0;
	close(fd);
	return dt;
}

static long long cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Microseconds to read everything the big origin sends on one
 * connection; *cpu: the CPU time of the whole process meanwhile (the
 * origin's, the relay's or proxy's, and the client's threads). */
static long long transfer_us(enum way w, unsigned proxy, const struct relay *r,
			     const struct origin *o, long long *cpu)
{
	static char buf[1 << 18];
	long long got = 0, c0 = cpu_us(), t0 = now_us();
	int fd = open_conn(w, proxy, r->port, o->port);
	for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;)
		got += n;
	close(fd);
	if (got != o->send_bytes) {
		fprintf(stderr, "proxybench: %lld bytes of %lld (%s)\n", got, o->send_bytes,
			way_name[w]);
		exit(1);
	}
	long long dt = now_us() - t0;
	*cpu = cpu_us() - c0;
	return dt;
}

static int arg(int argc, char **argv, int *i, int max)
{
	char *end = NULL;
	long v = *i + 1 < argc ? strtol(argv[*i + 1], &end, 10) : 0;
	if (end == NULL || *end != '\0' || v <= 0 || v > max) {
		fprintf(stderr, "usage: proxybench [-n CONNECTS] [-m MEGABYTES] [-r REPS] [-b KB] "
				"[-s]\n       proxybench serve [-m MEGABYTES] [-b KB] [-s]\n");
		exit(2);
	}
	++*i;
	return (int)v;
}

int main(int argc, char **argv)
{
	int nconn = 1000, mb = 100, reps = 5, kb = 64, use_splice = 0, serve = 0;
	for (int i = 1; i < argc; i++) {
		if (i == 1 && strcmp(argv[i], "serve") == 0)
			serve = 1;
		else if (strcmp(argv[i], "-n") == 0)
			nconn = arg(argc, argv, &i, CONNECTS_MAX);
		else if (strcmp(argv[i], "-m") == 0)
			mb = arg(argc, argv, &i, 100000);
		else if (strcmp(argv[i], "-r") == 0)
			reps = arg(argc, argv, &i, REPS_MAX);
		else if (strcmp(argv[i], "-b") == 0)
			kb = arg(argc, argv, &i, 16384);
		else if (strcmp(argv[i], "-s") == 0)
			use_splice = 1;
		else
			arg(argc, argv, &i, -1);
	}
	signal(SIGPIPE, SIG_IGN);
	static struct origin small = { .send_bytes = 1 }, big;
	static struct relay rsmall, rbig;
	big.send_bytes = (long long)mb << 20;
	small.lfd = listener(&small.port);
	big.lfd = listener(&big.port);
	start_thread(origin_main, &small);
	start_thread(origin_main, &big);
	start_relay(&rsmall, small.port, (size_t)kb << 10, use_splice);
	start_relay(&rbig, big.port, (size_t)kb << 10, use_splice);
	if (serve) {
		char c;
		printf("{\"small\": %u, \"big\": %u, \"relay_small\": %u, \"relay_big\": %u}\n",
		       small.port, big.port, rsmall.port, rbig.port);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}

	struct netallow allow = { 0 };
	char list[64], err[256];
	const char *resolve[] = { "bench.test=127.0.0.1" };
	snprintf(list, sizeof(list), "bench.test:%u,bench.test:%u", small.port, big.port);
	if (netallow_add(&allow, list, err, sizeof(err)) != 0) {
		fprintf(stderr, "proxybench: %s\n", err);
		return 1;
	}
	struct proxy_config cfg = {
		.allow = &allow, .allow_local = 1, .resolve = resolve, .nresolve = 1
	};
	struct proxy *p;
	unsigned pport;
	if (proxy_start(listener(&pport), &cfg, &p) != 0)
		die("proxybench: proxy_start");

	long long *v[WAYS], t[WAYS][REPS_MAX], cpu[WAYS][REPS_MAX], c_us[WAYS], t_us[WAYS],
		cpu_med[WAYS];
	for (int w = 0; w < WAYS; w++)
		if ((v[w] = calloc((size_t)nconn, sizeof(long long))) == NULL)
			die("proxybench: calloc");
	/* Warm up, then the ways in turn, the order turned each time. */
	for (int i = 0; i < nconn / 10 + 1; i++)
		for (int w = 0; w < WAYS; w++)
			connect_us((enum way)w, pport, &rsmall, &small);
	for (int i = 0; i < nconn; i++)
		for (int k = 0; k < WAYS; k++) {
			int w = (i + k) % WAYS;
			v[w][i] = connect_us((enum way)w, pport, &rsmall, &small);
		}
	for (int w = 0; w < WAYS; w++)
		transfer_us((enum way)w, pport, &rbig, &big, &cpu[w][0]);
	for (int i = 0; i < reps; i++)
		for (int k = 0; k < WAYS; k++) {
			int w = (i + k) % WAYS;
			t[w][i] = transfer_us((enum way)w, pport, &rbig, &big, &cpu[w][i]);
		}
	for (int w = 0; w < WAYS; w++) {
		c_us[w] = median(v[w], nconn);
		t_us[w] = median(t[w], reps);
		cpu_med[w] = median(cpu[w], reps);
	}
	unsigned long allowed, refused;
	proxy_counts(p, &allowed, &refused);
	printf("{\"connects\": %d, \"connect_direct_us\": %lld, \"connect_relay_us\": %lld, "
	       "\"connect_proxy_us\": %lld, \"connect_added_us\": %lld, "
	       "\"connect_relay_added_us\": %lld, \"connect_target_added_us\": 1000,\n"
	       " \"megabytes\": %d, \"reps\": %d, \"relay_kb\": %d, \"relay_splice\": %s, "
	       "\"transfer_direct_us\": %lld, \"transfer_relay_us\": %lld, "
	       "\"transfer_proxy_us\": %lld,\n \"cpu_direct_us\": %lld, \"cpu_relay_us\": %lld, "
	       "\"cpu_proxy_us\": %lld, \"cpu_ratio\": %.3f, \"cpu_relay_ratio\": %.3f,\n"
	       " \"direct_mb_s\": %.0f, \"relay_mb_s\": %.0f, "
	       "\"proxy_mb_s\": %.0f, \"transfer_ratio\": %.3f, \"relay_ratio\": %.3f, "
	       "\"transfer_target_ratio\": 1.2,\n \"proxy_allowed\": %lu, \"proxy_refused\": %lu}\n",
	       nconn, c_us[DIRECT], c_us[RELAY], c_us[PROXY], c_us[PROXY] - c_us[DIRECT],
	       c_us[RELAY] - c_us[DIRECT], mb, reps, kb, use_splice ? "true" : "false",
	       t_us[DIRECT], t_us[RELAY], t_us[PROXY], cpu_med[DIRECT], cpu_med[RELAY],
	       cpu_med[PROXY], (double)cpu_med[PROXY] / (double)cpu_med[DIRECT],
	       (double)cpu_med[RELAY] / (double)cpu_med[DIRECT], mb * 1e6 / (double)t_us[DIRECT],
	       mb * 1e6 / (double)t_us[RELAY], mb * 1e6 / (double)t_us[PROXY],
	       (double)t_us[PROXY] / (double)t_us[DIRECT],
	       (double)t_us[RELAY] / (double)t_us[DIRECT], allowed, refused);
	proxy_stop(p);
	netallow_free(&allow);
	for (int w = 0; w < WAYS; w++)
		free(v[w]);
	return 0;
}
