/*
 * The proxy's protocols (see proxyproto.h).
 *
 * HTTP is read strictly: a request head of CRLF lines, at most
 * PROXY_HEAD_MAX bytes, no folded or malformed header, one Host at most,
 * and a Host that names the target itself (a request may not say one
 * host in its line and another in Host). A plain request is one request:
 * its body is what Content-Length says (Transfer-Encoding is refused),
 * and the origin gets "Connection: close"; nothing the client sends
 * after is read. The proxy's password, when there is one, comes in
 * Proxy-Authorization (Basic, user "cordon") or, for SOCKS5, as the
 * RFC 1929 password; it is compared in time independent of where the
 * two differ.
 */
#include "proxyproto.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum proxy_proto proxy_sniff(const unsigned char *b, size_t n)
{
	if (n == 0)
		return PP_MORE;
	if (b[0] == 0x05)
		return PP_SOCKS5;
	if (b[0] >= 'A' && b[0] <= 'Z')
		return PP_HTTP;
	return PP_BAD;
}

static int tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* Equal, in time that does not depend on where a and b differ. */
static int same_secret(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);
	unsigned char d = an != bn;
	for (size_t i = 0; i < an; i++)
		d |= (unsigned char)(a[i] ^ b[i < bn ? i : 0]);
	return d == 0;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 (with its padding) into out: the length, or -1. */
static long b64dec(const char *s, size_t n, char *out, size_t outlen)
{
	size_t k = 0;
	unsigned acc = 0;
	int bits = 0;
	while (n > 0 && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int v = b64val(s[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (k == outlen)
				return -1;
			out[k++] = (char)(acc >> bits & 0xff);
		}
	}
	return (long)k;
}

/* "cordon:TOKEN" in a Basic Proxy-Authorization value. */
static int auth_ok(const char *v, size_t n, const char *token)
{
	char dec[512];
	if (n < 6 || strncmp(v, "Basic ", 6) != 0)
		return 0;
	long k = b64dec(v + 6, n - 6, dec, sizeof(dec));
	return k > 7 && memcmp(dec, "cordon:", 7) == 0 &&
	       same_secret(dec + 7, (size_t)k - 7, token);
}

/* host[:port] (an IPv6 one in brackets) into host and port (dflt when
 * none: 0 means a port is required). 0 or -1. */
static int authority(const char *s, size_t n, unsigned dflt, char *host, unsigned *port)
{
	size_t hn = n;
	const char *colon = NULL;
	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (close == NULL)
			return -1;
		hn = (size_t)(close - s) + 1;
		if (hn < n && s[hn] != ':')
			return -1;
		colon = hn < n ? s + hn : NULL;
	} else if ((colon = memchr(s, ':', n)) != NULL) {
		hn = (size_t)(colon - s);
	}
	unsigned p = dflt;
	if (colon != NULL) {
		size_t k = n - (size_t)(colon + 1 - s);
		p = 0;
		for (size_t i = 0; i < k; i++) {
			if (colon[1 + i] < '0' || colon[1 + i] > '9' || p > 6553)
				return -1;
			p = p * 10 + (unsigned)(colon[1 + i] - '0');
		}
		if (k == 0)
			return -1;
	}
	if (p == 0 || p > 65535 || hn == 0 || hn >= NETALLOW_HOST_MAX)
		return -1;
	if (s[0] == '[') {
		memcpy(host, s + 1, hn - 2);
		host[hn - 2] = '\0';
	} else {
		memcpy(host, s, hn);
		host[hn] = '\0';
	}
	*port = p;
	return 0;
}

/* Two names for one destination, as the allow-list reads them. */
static int same_dest(const char *a, unsigned ap, const char *b, unsigned bp)
{
	char ca[NETALLOW_HOST_MAX], cb[NETALLOW_HOST_MAX];
	enum netallow_kind ka, kb;
	return ap == bp && netallow_canon(a, ca, &ka) == 0 && netallow_canon(b, cb, &kb) == 0 &&
	       ka == kb && strcmp(ca, cb) == 0;
}

static int hop_by_hop(const char *name, size_t n)
{
	static const char *const names[] = {
		"connection", "keep-alive", "proxy-connection", "proxy-authorization",
		"te",	      "trailer",    "upgrade",		NULL
	};
	for (size_t i = 0; names[i] != NULL; i++)
		if (strlen(names[i]) == n && strncasecmp(names[i], name, n) == 0)
			return 1;
	return 0;
}

static int append(struct http_req *r, size_t *cap, const char *s, size_t n)
{
	if (r->origin_head == NULL || r->origin_len + n + 1 > *cap) {
		size_t c = (*cap ? *cap * 2 : 512) + n;
		char *v = realloc(r->origin_head, c);
		if (v == NULL)
			return -1;
		r->origin_head = v;
		*cap = c;
	}
	memcpy(r->origin_head + r->origin_len, s, n);
	r->origin_len += n;
	r->origin_head[r->origin_len] = '\0';
	return 0;
}

/* The request line: method, target, version. 0 or a status. */
static int request_line(const char *b, size_t n, struct http_req *r, const char **path,
			size_t *pathn, size_t *mlen, int plain_http)
{
	const char *sp1 = memchr(b, ' ', n);
	const char *sp2 = sp1 != NULL ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - b)) : NULL;
	if (sp1 == NULL || sp2 == NULL || sp1 == b || sp2 == sp1 + 1)
		return 400;
	for (const char *p = b; p < sp1; p++)
		if (*p < 'A' || *p > 'Z')
			return 400;
	size_t vn = n - (size_t)(sp2 + 1 - b);
	if (vn != 8 || (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 && memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return 505;
	const char *t = sp1 + 1;
	size_t tn = (size_t)(sp2 - t);
	*mlen = (size_t)(sp1 - b);
	r->connect = *mlen == 7 && memcmp(b, "CONNECT", 7) == 0;
	if (r->connect)
		return authority(t, tn, 0, r->host, &r->port) == 0 ? 0 : 400;
	int absolute = tn >= 8 && strncasecmp(t, "http://", 7) == 0;
	const char *auth = t + 7, *slash = absolute ? memchr(auth, '/', tn - 7) : NULL;
	size_t an = slash != NULL ? (size_t)(slash - auth) : tn - 7;
	if (!plain_http) {
		/* Only CONNECT: plain HTTP needs its own flag. Where it went,
		 * for the refusal's event: the target's authority here, the
		 * Host header's when there is one (plain_dest). */
		if (!absolute || memchr(auth, '@', an) != NULL ||
		    authority(auth, an, 80, r->host, &r->port) != 0) {
			r->host[0] = '\0';
			r->port = 0;
		}
		return 403;
	}
	if (!absolute)
		return 400; /* absolute-form only; https goes through CONNECT */
	if (memchr(auth, '@', an) != NULL || authority(auth, an, 80, r->host, &r->port) != 0)
		return 400;
	*path = slash != NULL ? slash : "/";
	*pathn = slash != NULL ? tn - 7 - an : 1;
	return 0;
}

/* The head's end in b (the blank line's "\r\n\r\n") into *end, and its
 * length into r->head_len: 0, PROXY_MORE, 431 (none within
 * PROXY_HEAD_MAX) or 400 (a NUL, or a bare CR or LF, in the head). */
static int head_end(const char *b, size_t n, struct http_req *r, const char **end)
{
	size_t lim = n < PROXY_HEAD_MAX ? n : PROXY_HEAD_MAX;
	const char *e = NULL;
	for (size_t i = 0; i + 3 < lim; i++)
		if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
			e = b + i;
			break;
		}
	if (e == NULL)
		return n >= PROXY_HEAD_MAX ? 431 : PROXY_MORE;
	r->head_len = (size_t)(e - b) + 4;
	for (const char *p = b; p < e; p++)
		if (*p == '\0' || (*p == '\n' && (p == b || p[-1] != '\r')) ||
		    (*p == '\r' && p[1] != '\n'))
			return 400;
	*end = e;
	return 0;
}

/* What proxy_http_parse learns from the header lines. */
struct head_state {
	struct http_req *r;
	const char *token;
	size_t cap; /* of r->origin_head */
	int hosts; /* Host headers seen */
	int authed;
	unsigned long long clen; /* Content-Length */
	int clens; /* Content-Length headers seen */
};

/* A header the proxy reads: name (nn bytes), value v (vn bytes, without
 * the blanks around it). 0 or a status. */
static int header_value(struct head_state *s, const char *name, size_t nn, const char *v, size_t vn)
{
	struct http_req *r = s->r;
	char host[NETALLOW_HOST_MAX];
	unsigned port = 0;

	if (nn == 4 && strncasecmp(name, "host", 4) == 0) {
		if (++s->hosts > 1 ||
		    authority(v, vn, r->connect ? r->port : 80, host, &port) != 0 ||
		    !same_dest(host, port, r->host, r->port))
			return 400;
	} else if (nn == 19 && strncasecmp(name, "proxy-authorization", 19) == 0) {
		s->authed |= s->token != NULL && auth_ok(v, vn, s->token);
	} else if (nn == 17 && strncasecmp(name, "transfer-encoding", 17) == 0 && !r->connect) {
		return 501; /* a plain request's body by Content-Length only */
	} else if (nn == 14 && strncasecmp(name, "content-length", 14) == 0 && !r->connect) {
		/* One only: with two, the proxy and the origin could each
		 * frame the body by another (a request hidden in it). */
		if (++s->clens > 1)
			return 400;
		s->clen = 0;
		for (size_t i = 0; i < vn; i++) {
			if (v[i] < '0' || v[i] > '9' || s->clen > (1ULL << 40))
				return 400;
			s->clen = s->clen * 10 + (unsigned)(v[i] - '0');
		}
		if (vn == 0)
			return 400;
	}
	return 0;
}

/* One header line, l up to le (its "\r\n"): read, and for a plain
 * request copied to the origin's head unless hop-by-hop. 0 or a
 * status. */
static int header_line(struct head_state *s, const char *l, const char *le)
{
	const char *colon = memchr(l, ':', (size_t)(le - l));
	if (colon == NULL || colon == l)
		return 400; /* no name, or a folded line */
	for (const char *p = l; p < colon; p++)
		if (!tchar(*p))
			return 400;
	size_t nn = (size_t)(colon - l);
	const char *v = colon + 1;
	while (v < le && (*v == ' ' || *v == '\t'))
		v++;
	size_t vn = (size_t)(le - v);
	while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		vn--;
	int st = header_value(s, l, nn, v, vn);
	if (st == 0 && !s->r->connect && !hop_by_hop(l, nn) &&
	    append(s->r, &s->cap, l, (size_t)(le + 2 - l)) != 0)
		st = 500;
	return st;
}

/* A plain request refused before its headers were read (no plain HTTP):
 * its destination, for the refusal's event only, from its Host header
 * (port 80 unless it names one), the header lines running from l to end;
 * else what request_line took from the target, or none. */
static void plain_dest(const char *l, const char *end, struct http_req *r)
{
	while (l < end) {
		const char *le = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
		if (le == NULL)
			return;
		if (le - l >= 5 && strncasecmp(l, "host:", 5) == 0) {
			const char *v = l + 5;
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			size_t vn = (size_t)(le - v);
			while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
				vn--;
			char host[NETALLOW_HOST_MAX];
			unsigned port;
			if (authority(v, vn, 80, host, &port) == 0) {
				memcpy(r->host, host, sizeof(host));
				r->port = port;
			}
			return;
		}
		l = le + 2;
	}
}

int proxy_http_parse(const char *b, size_t n, const char *token, int plain_http, struct http_req *r)
{
	memset(r, 0, sizeof(*r));
	const char *end = NULL;
	int st = head_end(b, n, r, &end);
	if (st != 0)
		return st;
	const char *eol = memmem(b, r->head_len, "\r\n", 2);
	const char *path = "/";
	size_t pathn = 0, mlen = 0;
	st = request_line(b, (size_t)(eol - b), r, &path, &pathn, &mlen, plain_http);
	if (st == 403)
		plain_dest(eol + 2, end, r);
	if (st != 0)
		return st;
	struct head_state s = { r, token, 0, 0, token == NULL, 0, 0 };
	if (!r->connect &&
	    (append(r, &s.cap, b, mlen + 1) != 0 || append(r, &s.cap, path, pathn) != 0 ||
	     append(r, &s.cap, " HTTP/1.1\r\n", 11) != 0))
		st = 500;
	for (const char *l = eol + 2; st == 0 && l < end;) {
		const char *le = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
		st = header_line(&s, l, le);
		l = le + 2;
	}
	if (st == 0 && !r->connect && s.hosts == 0 && memcmp(eol - 1, "1", 1) == 0)
		st = 400; /* HTTP/1.1 without Host */
	if (st == 0 && !s.authed)
		st = 407;
	if (st == 0 && !r->connect && append(r, &s.cap, "Connection: close\r\n\r\n", 21) != 0)
		st = 500;
	if (st != 0) {
		free(r->origin_head);
		r->origin_head = NULL;
		r->origin_len = 0;
		return st;
	}
	r->body_len = s.clen;
	return 0;
}

const char *proxy_http_status(int status)
{
	switch (status) {
	case 200:
		return "HTTP/1.1 200 Connection established\r\n\r\n";
	case 400:
		return "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	case 403:
		return "HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	case 405:
		return "HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	case 407:
		return "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic "
		       "realm=\"cordon\"\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	case 431:
		return "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: "
		       "close\r\nContent-Length: 0\r\n\r\n";
	case 501:
		return "HTTP/1.1 501 Not Implemented\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	case 504:
		return "HTTP/1.1 504 Gateway Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	case 505:
		return "HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: "
		       "close\r\nContent-Length: 0\r\n\r\n";
	default:
		return "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
	}
}

/* ---- SOCKS5 ---- */

int socks_greeting(const unsigned char *b, size_t n, int want_auth, size_t *used,
		   unsigned char reply[2], size_t *reply_len)
{
	if (n < 2)
		return PROXY_MORE;
	if (b[0] != 5 || b[1] == 0)
		return -1;
	if (n < 2u + b[1])
		return PROXY_MORE;
	unsigned char want = want_auth ? 2 : 0, chosen = 0xff;
	for (unsigned i = 0; i < b[1]; i++)
		if (b[2 + i] == want)
			chosen = want;
	*used = 2u + b[1];
	reply[0] = 5;
	reply[1] = chosen;
	*reply_len = 2;
	return 0;
}

int socks_auth(const unsigned char *b, size_t n, const char *token, size_t *used,
	       unsigned char reply[2], size_t *reply_len, int *ok)
{
	if (n < 2)
		return PROXY_MORE;
	if (b[0] != 1)
		return -1;
	size_t ulen = b[1];
	if (n < 3 + ulen)
		return PROXY_MORE;
	size_t plen = b[2 + ulen];
	if (n < 3 + ulen + plen)
		return PROXY_MORE;
	*ok = token != NULL && ulen == 6 && memcmp(b + 2, "cordon", 6) == 0 &&
	      same_secret((const char *)b + 3 + ulen, plen, token);
	*used = 3 + ulen + plen;
	reply[0] = 1;
	reply[1] = *ok ? 0 : 1;
	*reply_len = 2;
	return 0;
}

void socks_reply(int code, unsigned char out[10])
{
	memset(out, 0, 10);
	out[0] = 5;
	out[1] = (unsigned char)code;
	out[3] = 1; /* an IPv4 address: 0.0.0.0:0, the bound one is not told */
}

int socks_request(const unsigned char *b, size_t n, struct socks_req *r, size_t *used,
		  unsigned char reply[10], size_t *reply_len)
{
	memset(r, 0, sizeof(*r));
	if (n < 5)
		return PROXY_MORE;
	if (b[0] != 5 || b[2] != 0)
		return -1;
	size_t alen, at = 4;
	switch (b[3]) {
	case 1:
		alen = 4;
		break;
	case 3:
		alen = 1u + b[4];
		break;
	case 4:
		alen = 16;
		break;
	default:
		return -1;
	}
	if (n < at + alen + 2)
		return PROXY_MORE;
	*used = at + alen + 2;
	*reply_len = 10;
	if (b[1] != 1) { /* CONNECT only: no BIND, no UDP ASSOCIATE */
		socks_reply(7, reply);
		return -2;
	}
	r->atyp = b[3];
	if (b[3] == 1) {
		snprintf(r->host, sizeof(r->host), "%u.%u.%u.%u", b[4], b[5], b[6], b[7]);
	} else if (b[3] == 4) {
		size_t k = 0;
		for (int i = 0; i < 16; i += 2)
			k += (size_t)snprintf(r->host + k, sizeof(r->host) - k, "%s%x",
					      i ? ":" : "", b[4 + i] << 8 | b[5 + i]);
	} else {
		size_t hn = b[4];
		if (hn == 0 || memchr(b + 5, '\0', hn) != NULL) {
			socks_reply(1, reply);
			return -2;
		}
		memcpy(r->host, b + 5, hn);
		r->host[hn] = '\0';
	}
	r->port = (unsigned)b[at + alen] << 8 | b[at + alen + 1];
	socks_reply(0, reply);
	return 0;
}
