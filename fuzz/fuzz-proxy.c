/*
 * Fuzz target for the network allow-list and the proxy's protocol
 * readers (src/net/netallow.c, src/net/proxyproto.c). Any input, as a pattern
 * list, a destination, an HTTP request head (fed whole and in two
 * pieces) and SOCKS5 messages, must be read without a fault; a head
 * read as complete must say where it ends within the input, and a
 * destination the list allows must be one its own canonical form allows.
 */
#include "netallow.h"
#include "proxyproto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	struct netallow a = { 0 };
	char err[256];
	if (netallow_add(&a, s, err, sizeof(err)) == 0 && a.n == 0)
		abort(); /* a list taken adds at least one pattern */
	/* The input as a destination, against a list of every kind. */
	struct netallow all = { 0 };
	(void)netallow_add(&all, "a.test,*.b.test,**.c.test,1.2.3.4,[::1],@npm", err, sizeof(err));
	char canon[NETALLOW_HOST_MAX];
	enum netallow_kind kind;
	int m = netallow_match(&all, s, 443, 0);
	if (m && (netallow_canon(s, canon, &kind) != 0 ||
		  (kind != NA_IPV6 && !netallow_match(&all, canon, 443, 0))))
		abort();
	netallow_free(&a);
	netallow_free(&all);

	struct http_req r;
	int st = proxy_http_parse(s, size, "tok", 1, &r);
	if (st == 0) {
		if (r.head_len > size || r.port == 0 || r.port > 65535)
			abort();
		free(r.origin_head);
	}
	st = proxy_http_parse(s, size / 2, NULL, size & 1, &r);
	if (st == 0)
		free(r.origin_head);

	unsigned char rep[10];
	size_t used = 0, rl = 0;
	int ok = 0;
	struct socks_req q;
	if (socks_greeting(data, size, size & 1, &used, rep, &rl) == 0 && used > size)
		abort();
	if (socks_auth(data, size, "tok", &used, rep, &rl, &ok) == 0 && used > size)
		abort();
	if (socks_request(data, size, &q, &used, rep, &rl) == 0 &&
	    (used > size || q.port > 65535 || strlen(q.host) >= sizeof(q.host)))
		abort();
	free(s);
	return 0;
}
