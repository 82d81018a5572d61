/*
 * The network allow-list's patterns (src/net/netallow.c) and the proxy's
 * protocol readers (src/net/proxyproto.c).
 */
#include "netallow.h"
#include "proxyproto.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static int allows(const char *list, const char *host, unsigned port, int plain)
{
	struct netallow a = { 0 };
	char err[256];
	int r = netallow_add(&a, list, err, sizeof(err)) == 0 &&
		netallow_match(&a, host, port, plain);
	netallow_free(&a);
	return r;
}

static int bad(const char *list)
{
	struct netallow a = { 0 };
	char err[256] = "";
	int r = netallow_add(&a, list, err, sizeof(err)) != 0 && a.n == 0 && err[0] != '\0';
	netallow_free(&a);
	return r;
}

static void test_patterns(void)
{
	ok(allows("example.com", "example.com", 443, 0), "exact: the name, port 443");
	ok(allows("example.com", "EXAMPLE.com.", 443, 0), "exact: any case, a trailing dot");
	ok(!allows("example.com", "example.com", 80, 0), "exact: not 80 without plain HTTP");
	ok(allows("example.com", "example.com", 80, 1), "exact: 80 with plain HTTP");
	ok(!allows("example.com", "example.com", 8443, 1), "exact: no other port");
	ok(!allows("example.com", "a.example.com", 443, 0), "exact: not a subdomain");
	ok(!allows("example.com", "badexample.com", 443, 0), "exact: not a name ending the same");
	ok(allows("*.example.com", "a.example.com", 443, 0), "*.: a subdomain");
	ok(allows("*.example.com", "a.b.example.com", 443, 0), "*.: a deeper one");
	ok(!allows("*.example.com", "example.com", 443, 0), "*.: not the name itself");
	ok(!allows("*.example.com", "aexample.com", 443, 0), "*.: not a name ending the same");
	ok(allows("**.example.com", "example.com", 443, 0) &&
		   allows("**.example.com", "x.example.com", 443, 0),
	   "**.: the name and its subdomains");
	ok(allows("example.com:8080", "example.com", 8080, 0) &&
		   !allows("example.com:8080", "example.com", 443, 0),
	   ":PORT: that port only");
	ok(allows("1.2.3.4", "1.2.3.4", 443, 0), "an IPv4 address");
	ok(!allows("example.com", "93.184.216.34", 443, 0),
	   "an address is not reached through a name");
	ok(!allows("1.2.3.4", "example.com", 443, 0), "a name is not reached through an address");
	ok(allows("[2001:db8::1]", "2001:DB8:0::1", 443, 0) &&
		   allows("[2001:db8::1]:8443", "[2001:db8::1]", 8443, 0),
	   "an IPv6 address, in any of its spellings");
	ok(!allows("**.example.com", "127.1", 443, 0) && !allows("**.1", "127.0.0.1", 443, 0),
	   "a spelling of an address is no name");
	ok(!allows("1.2.3.4", "0x01020304", 443, 0) && bad("**.0x7f") && bad("a.b.0x1"),
	   "a hex spelling is no name either");
	ok(!allows("localhost.example.com", "localhost", 443, 0), "localhost is not below it");
	ok(allows("@npm", "registry.npmjs.org", 443, 0), "@npm: the npm registry");
	ok(allows("a.test,@pypi", "files.pythonhosted.org", 443, 0), "a list with a preset");
	ok(!allows("@npm", "evil.com", 443, 0), "@npm: nothing else");
	ok(bad(""), "an empty list is refused");
	ok(bad("a.com,,b.com"), "an empty entry is refused");
	ok(bad("@nope"), "an unknown preset is refused");
	ok(bad("a*.com") && bad("*example.com") && bad("ex*ample.com"), "'*' elsewhere is refused");
	ok(bad("example.com:0") && bad("example.com:65536") && bad("example.com:") &&
		   bad("example.com:x"),
	   "a bad port is refused");
	ok(bad("::1") && bad("[::1"), "an IPv6 address outside brackets is refused");
	ok(bad("*.1.2.3.4") && bad("**.[::1]"), "an address with subdomains is refused");
	ok(bad("exa mple.com") && bad("a..b") && bad(".a.com") && bad("a/b.com"),
	   "bad names are refused");
	ok(bad("01.2.3.4") && !allows("1.2.3.4", "01.2.3.4", 443, 0),
	   "a zero-padded address: no pattern, and no spelling of a listed one");
	struct netallow a = { 0 };
	char err[256];
	netallow_add(&a, "a.com", err, sizeof(err));
	is_int(netallow_add(&a, "b.com,*bad", err, sizeof(err)), -1, "a bad list");
	is_int(a.n, 1, "... leaves the list as it was");
	netallow_free(&a);
}

static int http(const char *head, const char *token, int plain, struct http_req *r)
{
	int st = proxy_http_parse(head, strlen(head), token, plain, r);
	return st;
}

static void test_http(void)
{
	struct http_req r;
	is_int(http("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", NULL, 0,
		    &r),
	       0, "CONNECT");
	ok(r.connect && strcmp(r.host, "example.com") == 0 && r.port == 443, "... host and port");
	is_int(http("CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n", NULL, 0, &r), 0,
	       "CONNECT to an IPv6 address");
	is_str(r.host, "2001:db8::1", "... without its brackets");
	is_int(http("CONNECT example.com HTTP/1.1\r\n\r\n", NULL, 0, &r), 400,
	       "CONNECT without a port: 400");
	is_int(http("CONNECT example.com:443 HTTP/1.1\r\nHost: other.com:443\r\n\r\n", NULL, 0, &r),
	       400, "CONNECT whose Host names another host: 400");
	is_int(http("CONNECT example.com:443 HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", NULL, 0, &r),
	       400, "two Host headers: 400");
	is_int(http("CONNECT example.com:443 HTTP/1.1\r\n", NULL, 0, &r), PROXY_MORE,
	       "a head not ended yet: more");
	is_int(http("CONNECT example.com:443 HTTP/2\r\n\r\n", NULL, 0, &r), 505, "HTTP/2: 505");
	is_int(http("CONNECT example.com:443 HTTP/1.1\r\n folded\r\n\r\n", NULL, 0, &r), 400,
	       "a folded header line: 400");
	is_int(http("CONNECT example.com:443 HTTP/1.1\nHost: x\r\n\r\n", NULL, 0, &r), 400,
	       "a bare LF: 400");
	is_int(http("GET http://example.com/x HTTP/1.1\r\nHost: example.com\r\n\r\n", NULL, 0, &r),
	       403, "a plain request without the flag: 403");
	is_int(http("GET http://example.com/x?y HTTP/1.1\r\nHost: example.com\r\nProxy-Connection: "
		    "keep-alive\r\nAccept: */*\r\n\r\n",
		    NULL, 1, &r),
	       0, "a plain request with the flag");
	ok(!r.connect && strcmp(r.host, "example.com") == 0 && r.port == 80,
	   "... its host, port 80");
	is_str(r.origin_head,
	       "GET /x?y HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: close\r\n\r\n",
	       "... the head the origin gets: its path, no proxy header, Connection: close");
	free(r.origin_head);
	is_int(http("GET http://example.com/ HTTP/1.1\r\nHost: evil.com\r\n\r\n", NULL, 1, &r), 400,
	       "a plain request to one host with Host another: 400");
	is_int(http("GET http://example.com/ HTTP/1.1\r\n\r\n", NULL, 1, &r), 400,
	       "HTTP/1.1 without Host: 400");
	is_int(http("GET /local HTTP/1.1\r\nHost: example.com\r\n\r\n", NULL, 1, &r), 400,
	       "an origin-form target: 400");
	is_int(http("GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", NULL, 1, &r),
	       400, "an https absolute URI (not through CONNECT): 400");
	is_int(http("GET http://user@example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", NULL, 1,
		    &r),
	       400, "user info in the URI: 400");
	is_int(http("POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: "
		    "chunked\r\n\r\n",
		    NULL, 1, &r),
	       501, "a chunked plain request: 501");
	is_int(http("POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\nContent-Length: "
		    "12\r\n\r\n",
		    NULL, 1, &r),
	       0, "a plain request with a body");
	is_int((long long)r.body_len, 12, "... its length");
	free(r.origin_head);
	is_int(http("POST http://example.com/ HTTP/1.1\r\nHost: example.com\r\nContent-Length: "
		    "0\r\nContent-Length: 50\r\n\r\n",
		    NULL, 1, &r),
	       400, "two Content-Length headers: 400 (the body framed two ways)");
	/* The proxy's password. */
	is_int(http("CONNECT a.com:443 HTTP/1.1\r\n\r\n", "s3cret", 0, &r), 407,
	       "a token wanted, none given: 407");
	is_int(http("CONNECT a.com:443 HTTP/1.1\r\nProxy-Authorization: Basic "
		    "Y29yZG9uOnMzY3JldA==\r\n\r\n",
		    "s3cret", 0, &r),
	       0, "the token given (cordon:s3cret)");
	is_int(http("CONNECT a.com:443 HTTP/1.1\r\nProxy-Authorization: Basic "
		    "Y29yZG9uOnMzY3JldDI=\r\n\r\n",
		    "s3cret", 0, &r),
	       407, "another token: 407");
	/* Oversized heads. */
	size_t big = PROXY_HEAD_MAX + 10;
	char *h = malloc(big + 1);
	if (h != NULL) {
		memcpy(h, "CONNECT a.com:443 HTTP/1.1\r\nX: ", 31);
		memset(h + 31, 'a', big - 31);
		h[big] = '\0';
		is_int(proxy_http_parse(h, big, NULL, 0, &r), 431, "a head past the bound: 431");
		free(h);
	}
	ok(strncmp(proxy_http_status(407), "HTTP/1.1 407", 12) == 0, "status lines");
	is_int(proxy_sniff((const unsigned char *)"\x05", 1), PP_SOCKS5, "sniff: SOCKS5");
	is_int(proxy_sniff((const unsigned char *)"CON", 3), PP_HTTP, "sniff: HTTP");
	is_int(proxy_sniff((const unsigned char *)"\x16\x03", 2), PP_BAD, "sniff: TLS is neither");
}

static void test_socks(void)
{
	unsigned char rep[10];
	size_t used = 0, rl = 0;
	int okk = 0;
	is_int(socks_greeting((const unsigned char *)"\x05\x01\x00", 3, 0, &used, rep, &rl), 0,
	       "greeting");
	ok(used == 3 && rl == 2 && rep[1] == 0, "... no authentication chosen");
	socks_greeting((const unsigned char *)"\x05\x01\x00", 3, 1, &used, rep, &rl);
	is_int(rep[1], 0xff, "a token wanted, the client offers none: no method");
	is_int(socks_greeting((const unsigned char *)"\x05\x02\x00", 3, 0, &used, rep, &rl),
	       PROXY_MORE, "a short greeting: more");
	is_int(socks_greeting((const unsigned char *)"\x04\x01", 2, 0, &used, rep, &rl), -1,
	       "SOCKS4: closed");
	is_int(socks_auth((const unsigned char *)"\x01\x06"
						 "cordon\x06s3cret",
			  15, "s3cret", &used, rep, &rl, &okk),
	       0, "user and password");
	ok(okk && rep[1] == 0, "... the token: granted");
	socks_auth((const unsigned char *)"\x01\x06"
					  "cordon\x06s3creX",
		   15, "s3cret", &used, rep, &rl, &okk);
	ok(!okk && rep[1] != 0, "another password: refused");
	struct socks_req r;
	static const unsigned char name[] = { 5,   1,	0,   3,	  11,  'e', 'x', 'a', 'm',
					      'p', 'l', 'e', '.', 'c', 'o', 'm', 1,   187 };
	is_int(socks_request(name, sizeof(name), &r, &used, rep, &rl), 0, "a request by name");
	ok(strcmp(r.host, "example.com") == 0 && r.port == 443 && r.atyp == 3,
	   "... its host, port");
	static const unsigned char v4[] = { 5, 1, 0, 1, 127, 0, 0, 1, 0, 80 };
	is_int(socks_request(v4, sizeof(v4), &r, &used, rep, &rl), 0, "a request by IPv4 address");
	is_str(r.host, "127.0.0.1", "... its address as text");
	static const unsigned char v6[] = { 5, 1, 0, 4, 0x20, 1, 0x0d, 0xb8, 0, 0, 0,
					    0, 0, 0, 0, 0,    0, 0,    0,    1, 1, 187 };
	is_int(socks_request(v6, sizeof(v6), &r, &used, rep, &rl), 0, "a request by IPv6 address");
	ok(allows("[2001:db8::1]", r.host, r.port, 0), "... its address matches the list's");
	static const unsigned char udp[] = { 5, 3, 0, 1, 1, 2, 3, 4, 0, 53 };
	is_int(socks_request(udp, sizeof(udp), &r, &used, rep, &rl), -2, "UDP ASSOCIATE: refused");
	is_int(rep[1], 7, "... command not supported");
	static const unsigned char nul[] = { 5, 1, 0, 3, 3, 'a', 0, 'b', 1, 187 };
	is_int(socks_request(nul, sizeof(nul), &r, &used, rep, &rl), -2,
	       "a name holding a NUL: refused");
	is_int(socks_request(name, 8, &r, &used, rep, &rl), PROXY_MORE, "a short request: more");
}

int main(void)
{
	test_patterns();
	test_http();
	test_socks();
	return done_testing();
}
