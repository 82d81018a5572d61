/*
 * proxybench - what the allow-list proxy (src/net/proxy.c) costs against
 * a direct connection, both to an origin of its own on loopback.
 *
 *   proxybench [-n CONNECTS] [-m MEGABYTES] [-r REPS]
 *
 * connect: N connections (1000 by default), each timed from socket() to
 * the moment data can flow: direct, connect(2) returned; through the
 * proxy, its "200 Connection established" to an HTTP CONNECT read (so the
 * proxy's accept, thread, decision, name from cfg.resolve, vetting and
 * its own connect to the origin are in it). Median per connection.
 *
 * throughput: the origin sends M MB (100 by default) and closes; the
 * client reads to the end. Median of R runs (5) of each, direct and
 * through the proxy.
 *
 * Prints one JSON object: the medians (microseconds, MB/s) and the
 * ratios, against the targets (at most 1.2x the time on the
 * transfer, at most +1 ms per connection). Loopback only: the proxy's
 * own cost, not a network's.
 */
#include "netallow.h"
#include "proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REPS_MAX 100
#define CONNECTS_MAX 100000

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int listener(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	socklen_t len = sizeof(s4);
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&s4, len) != 0 || listen(fd, 512) != 0 ||
	    getsockname(fd, (struct sockaddr *)&s4, &len) != 0) {
		perror("proxybench: listener");
		exit(1);
	}
	*port = ntohs(s4.sin_port);
	return fd;
}

static int dial(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&s4, sizeof(s4)) != 0) {
		perror("proxybench: connect");
		exit(1);
	}
	return fd;
}

/* The origin: each connection gets `send_bytes` bytes, then the end. */
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

/* A connection to the origin, direct (proxy 0) or through an HTTP
 * CONNECT to the proxy. */
static int open_conn(unsigned proxy, unsigned origin)
{
	if (proxy == 0)
		return dial(origin);
	char req[128], reply[256] = "";
	size_t k = 0;
	int fd = dial(proxy);
	int n = snprintf(req, sizeof(req), "CONNECT bench.test:%u HTTP/1.1\r\n\r\n", origin);
	if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
		perror("proxybench: send");
		exit(1);
	}
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

/* Median microseconds of n connections (each closed after). */
static long long connect_us(unsigned proxy, unsigned origin, int n, long long *v)
{
	for (int i = 0; i < n; i++) {
		long long t0 = now_us();
		int fd = open_conn(proxy, origin);
		v[i] = now_us() - t0;
		close(fd);
	}
	return median(v, n);
}

/* Microseconds to read everything the origin sends on one connection. */
static long long transfer_us(unsigned proxy, unsigned origin, long long want)
{
	static char buf[1 << 16];
	long long got = 0, t0 = now_us();
	int fd = open_conn(proxy, origin);
	for (ssize_t r; (r = recv(fd, buf, sizeof(buf), 0)) > 0;)
		got += r;
	close(fd);
	if (got != want) {
		fprintf(stderr, "proxybench: %lld bytes of %lld\n", got, want);
		exit(1);
	}
	return now_us() - t0;
}

static int arg(int argc, char **argv, int *i, int max)
{
	char *end = NULL;
	long v = *i + 1 < argc ? strtol(argv[*i + 1], &end, 10) : 0;
	if (end == NULL || *end != '\0' || v <= 0 || v > max) {
		fprintf(stderr, "usage: proxybench [-n CONNECTS] [-m MEGABYTES] [-r REPS]\n");
		exit(2);
	}
	++*i;
	return (int)v;
}

int main(int argc, char **argv)
{
	int nconn = 1000, mb = 100, reps = 5;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0)
			nconn = arg(argc, argv, &i, CONNECTS_MAX);
		else if (strcmp(argv[i], "-m") == 0)
			mb = arg(argc, argv, &i, 100000);
		else if (strcmp(argv[i], "-r") == 0)
			reps = arg(argc, argv, &i, REPS_MAX);
		else
			arg(argc, argv, &i, -1);
	}
	signal(SIGPIPE, SIG_IGN);
	struct origin small = { 0 }, big = { .send_bytes = (long long)mb << 20 };
	pthread_t t;
	small.lfd = listener(&small.port);
	big.lfd = listener(&big.port);
	pthread_create(&t, NULL, origin_main, &small);
	pthread_create(&t, NULL, origin_main, &big);

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
	if (proxy_start(listener(&pport), &cfg, &p) != 0) {
		perror("proxybench: proxy_start");
		return 1;
	}

	long long *v = calloc((size_t)nconn, sizeof(*v)), d[REPS_MAX], x[REPS_MAX];
	if (v == NULL)
		return 1;
	connect_us(pport, small.port, nconn / 10 + 1, v); /* warm up */
	long long cd = connect_us(0, small.port, nconn, v);
	long long cp = connect_us(pport, small.port, nconn, v);
	transfer_us(pport, big.port, big.send_bytes); /* warm up */
	for (int i = 0; i < reps; i++) {
		d[i] = transfer_us(0, big.port, big.send_bytes);
		x[i] = transfer_us(pport, big.port, big.send_bytes);
	}
	long long td = median(d, reps), tp = median(x, reps);
	unsigned long allowed, refused;
	proxy_counts(p, &allowed, &refused);
	printf("{\"connects\": %d, \"connect_direct_us\": %lld, \"connect_proxy_us\": %lld, "
	       "\"connect_added_us\": %lld, \"connect_target_added_us\": 1000,\n"
	       " \"megabytes\": %d, \"reps\": %d, \"transfer_direct_us\": %lld, "
	       "\"transfer_proxy_us\": %lld, \"direct_mb_s\": %.0f, \"proxy_mb_s\": %.0f, "
	       "\"transfer_ratio\": %.2f, \"transfer_target_ratio\": 1.2,\n"
	       " \"proxy_allowed\": %lu, \"proxy_refused\": %lu}\n",
	       nconn, cd, cp, cp - cd, mb, reps, td, tp, mb * 1e6 / (double)td,
	       mb * 1e6 / (double)tp, (double)tp / (double)td, allowed, refused);
	proxy_stop(p);
	netallow_free(&allow);
	free(v);
	return 0;
}
