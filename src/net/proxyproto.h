/*
 * The proxy's two protocols, read from a client's first bytes: HTTP
 * (CONNECT host:port, or one plain request with an absolute URI) and
 * SOCKS5 (RFC 1928: CONNECT; no authentication, or user and password,
 * RFC 1929, when the proxy wants a token). Pure: buffers in, answers
 * out; unit-tested and fuzzed (proxyproto.c).
 */
#ifndef CORDON_PROXYPROTO_H
#define CORDON_PROXYPROTO_H

#include "netallow.h"

#include <stddef.h>

/* The most bytes of an HTTP request head (request line and headers). */
#define PROXY_HEAD_MAX 16384

/* What the first bytes are: not enough to say yet, SOCKS5, HTTP. */
enum proxy_proto { PP_MORE, PP_SOCKS5, PP_HTTP, PP_BAD };
enum proxy_proto proxy_sniff(const unsigned char *b, size_t n);

struct http_req {
	int connect; /* CONNECT; else a plain request */
	char host[NETALLOW_HOST_MAX]; /* as named (an IPv6 one without brackets) */
	unsigned port;
	size_t head_len; /* bytes of the head, its blank line included */
	/* A plain request: the head to send to the origin (origin-form
	 * target, the proxy's and hop-by-hop headers left out,
	 * "Connection: close" added), NUL-terminated. */
	char *origin_head;
	size_t origin_len;
	/* A plain request's body: its Content-Length (0 without one). The
	 * proxy forwards that many bytes after the head, and no more. */
	unsigned long long body_len;
};

/* Results of proxy_http_parse besides 0 (a whole head, read into r):
 * more bytes needed, or the HTTP status to answer with. */
#define PROXY_MORE 1
/* The head in b (n bytes) of a client. token: the Proxy-Authorization
 * password wanted ("cordon:TOKEN" in Basic), or NULL for none.
 * plain_http: plain requests allowed (else answered 403). 0, PROXY_MORE,
 * or a status: 400 (malformed, a Host header naming another host than
 * the target, a second request on the connection), 403, 405, 407, 431
 * (head over PROXY_HEAD_MAX), 505. On 0 with a plain request the caller
 * frees r->origin_head. On 403 (a plain request, plain_http off),
 * r->host and r->port say where it went, for the refusal's event: its
 * Host header's name and port (80 unless it names one), else its
 * absolute-form target's, else "" and 0. */
int proxy_http_parse(const char *b, size_t n, const char *token, int plain_http,
		     struct http_req *r);
/* The reply line of a status (no body; "Connection: close"), for
 * statuses of proxy_http_parse and 200, 502, 504. Static text. */
const char *proxy_http_status(int status);

/* SOCKS5. Each step reads from b (n bytes): PROXY_MORE, -1 (a protocol
 * error: close the connection), or 0 with *used bytes taken and a reply
 * (*reply_len bytes) to send. */
struct socks_req {
	char host[NETALLOW_HOST_MAX]; /* a name, or an address as text */
	unsigned port;
	int atyp; /* 1 IPv4, 3 a name, 4 IPv6 */
};
/* The greeting: method 0 (none), or 2 (user/password) when want_auth;
 * 0xff when the client offers neither (then close). */
int socks_greeting(const unsigned char *b, size_t n, int want_auth, size_t *used,
		   unsigned char reply[2], size_t *reply_len);
/* The user/password sub-negotiation: *ok 1 when the password is token. */
int socks_auth(const unsigned char *b, size_t n, const char *token, size_t *used,
	       unsigned char reply[2], size_t *reply_len, int *ok);
/* The request: 0 with r filled for CONNECT; for any other command the
 * reply is "command not supported" and the result -2 (send it, close). */
int socks_request(const unsigned char *b, size_t n, struct socks_req *r, size_t *used,
		  unsigned char reply[10], size_t *reply_len);
/* A reply to a request: code 0 granted, 2 not allowed, 4 host
 * unreachable, 5 refused, 1 general failure. 10 bytes. */
void socks_reply(int code, unsigned char out[10]);

#endif
