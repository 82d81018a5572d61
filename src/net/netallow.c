/*
 * The network allow-list's patterns and matching (see netallow.h).
 *
 * A name is matched as text, never resolved here: the proxy resolves
 * an allowed name itself and vets every address it gets. A name that a
 * resolver would read as an address ("127.1", "0x7f.1", all digits in
 * its last label) is no name at all: it matches nothing, so a pattern
 * cannot be reached through a spelling of an address, and an address is
 * reachable only when it is listed itself.
 */
#include "netallow.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const p_npm[] = { "registry.npmjs.org", "registry.yarnpkg.com", NULL };
static const char *const p_pypi[] = { "pypi.org", "files.pythonhosted.org", NULL };
static const char *const p_crates[] = { "crates.io", "index.crates.io", "static.crates.io", NULL };
static const char *const p_go[] = { "proxy.golang.org", "sum.golang.org", NULL };
static const char *const p_github[] = { "github.com",
					"api.github.com",
					"codeload.github.com",
					"objects.githubusercontent.com",
					"raw.githubusercontent.com",
					"release-assets.githubusercontent.com",
					NULL };
static const struct {
	const char *name;
	const char *const *hosts;
} presets[] = {
	{ "@npm", p_npm }, { "@pypi", p_pypi },	    { "@crates", p_crates },
	{ "@go", p_go },   { "@github", p_github },
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const *netallow_preset(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return presets[i].hosts;
	return NULL;
}

const char *const *netallow_presets(void)
{
	static const char *names[NPRESETS + 1];
	for (size_t i = 0; i < NPRESETS; i++)
		names[i] = presets[i].name;
	names[NPRESETS] = NULL;
	return names;
}

void netallow_free(struct netallow *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* A dotted IPv4 address as inet_ntoa writes it: four decimal numbers of
 * 0-255 without leading zeros. 1 when s is one. */
static int ipv4_canonical(const char *s)
{
	int parts = 0;
	for (const char *p = s;;) {
		size_t n = 0;
		unsigned v = 0;
		while (p[n] >= '0' && p[n] <= '9' && n < 4)
			v = v * 10 + (unsigned)(p[n++] - '0');
		if (n == 0 || n > 3 || v > 255 || (n > 1 && p[0] == '0'))
			return 0;
		parts++;
		p += n;
		if (*p == '\0')
			return parts == 4;
		if (*p != '.' || parts == 4)
			return 0;
		p++;
	}
}

/* An IPv6 literal (brackets taken off) as 32 hex digits into out. */
static int ipv6_hex(const char *s, size_t n, char *out)
{
	char tmp[64];
	unsigned char b[16];
	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (inet_pton(AF_INET6, tmp, b) != 1)
		return -1;
	for (int i = 0; i < 16; i++)
		snprintf(out + (size_t)2 * (size_t)i, 3, "%02x", b[i]);
	return 0;
}

/* A host name: labels of letters, digits, '-' and '_', 1-63 bytes each,
 * at most 253 in all, the last one not all digits (nor 0x... hex): a
 * resolver reads such a "name" as an address. Lower-cased into out. */
static int name_canonical(const char *s, size_t n, char *out)
{
	if (n > 0 && s[n - 1] == '.')
		n--; /* the root's dot */
	if (n == 0 || n > 253)
		return -1;
	size_t label = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (ch == '.') {
			if (label == 0)
				return -1;
			label = 0;
			last = i + 1;
		} else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
			   ch == '_') {
			if (++label > 63)
				return -1;
		} else {
			return -1;
		}
		out[i] = ch;
	}
	if (label == 0)
		return -1;
	out[n] = '\0';
	const char *tld = out + last;
	int digits = 1;
	for (const char *p = tld; *p != '\0'; p++)
		digits &= *p >= '0' && *p <= '9';
	if (digits || (tld[0] == '0' && tld[1] == 'x'))
		return -1;
	return 0;
}

int netallow_canon(const char *host, char *out, enum netallow_kind *kind)
{
	size_t n = strlen(host);
	if (n >= NETALLOW_HOST_MAX)
		return -1;
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		*kind = NA_IPV6;
		return ipv6_hex(host + 1, n - 2, out);
	}
	if (strchr(host, ':') != NULL) {
		*kind = NA_IPV6;
		return ipv6_hex(host, n, out);
	}
	if (ipv4_canonical(host)) {
		*kind = NA_IPV4;
		memcpy(out, host, n + 1);
		return 0;
	}
	*kind = NA_EXACT;
	return name_canonical(host, n, out);
}

static int fail(char *err, size_t errlen, const char *what, const char *pat, size_t n)
{
	snprintf(err, errlen, "bad network pattern '%.*s': %s", (int)(n > 200 ? 200 : n), pat,
		 what);
	return -1;
}

static int push(struct netallow *a, const struct netallow_entry *e)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct netallow_entry *v = realloc(a->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = *e;
	return 0;
}

/* One pattern, n bytes at p. */
static int add_one(struct netallow *a, const char *p, size_t n, char *err, size_t errlen)
{
	struct netallow_entry e;
	memset(&e, 0, sizeof(e));
	const char *host = p;
	size_t hn = n;
	/* :PORT, after a bracketed address or a name */
	const char *colon = NULL;
	if (n > 0 && p[0] == '[') {
		const char *close = memchr(p, ']', n);
		if (close == NULL)
			return fail(err, errlen, "an IPv6 address needs its closing ]", p, n);
		hn = (size_t)(close - p) + 1;
		if (hn < n) {
			if (p[hn] != ':')
				return fail(err, errlen, "text after the address", p, n);
			colon = p + hn;
		}
	} else {
		colon = memchr(p, ':', n);
		if (colon != NULL) {
			if (memchr(colon + 1, ':', n - (size_t)(colon + 1 - p)) != NULL)
				return fail(err, errlen, "an IPv6 address goes in brackets", p, n);
			hn = (size_t)(colon - p);
		}
	}
	if (colon != NULL) {
		size_t k = n - (size_t)(colon + 1 - p);
		unsigned port = 0;
		for (size_t i = 0; i < k; i++) {
			if (colon[1 + i] < '0' || colon[1 + i] > '9' || port > 6553)
				return fail(err, errlen, "the port is not a number of 1-65535", p,
					    n);
			port = port * 10 + (unsigned)(colon[1 + i] - '0');
		}
		if (k == 0 || port == 0 || port > 65535)
			return fail(err, errlen, "the port is not a number of 1-65535", p, n);
		e.port = port;
	}
	e.kind = NA_EXACT;
	if (hn >= 3 && strncmp(host, "**.", 3) == 0) {
		e.kind = NA_APEX_AND_SUBDOMAINS;
		host += 3;
		hn -= 3;
	} else if (hn >= 2 && strncmp(host, "*.", 2) == 0) {
		e.kind = NA_SUBDOMAINS;
		host += 2;
		hn -= 2;
	}
	char text[NETALLOW_HOST_MAX];
	if (hn == 0 || hn >= sizeof(text))
		return fail(err, errlen, "no host, or one too long", p, n);
	memcpy(text, host, hn);
	text[hn] = '\0';
	enum netallow_kind kind;
	if (memchr(text, '*', hn) != NULL)
		return fail(err, errlen, "'*' only as a leading '*.' or '**.'", p, n);
	if (netallow_canon(text, e.host, &kind) != 0)
		return fail(err, errlen, "neither a host name nor an address", p, n);
	if (kind != NA_EXACT && e.kind != NA_EXACT)
		return fail(err, errlen, "an address cannot have subdomains", p, n);
	if (kind == NA_IPV6 && text[0] != '[')
		return fail(err, errlen, "an IPv6 address goes in brackets", p, n);
	if (kind != NA_EXACT)
		e.kind = kind;
	return push(a, &e) == 0 ? 0 : fail(err, errlen, "out of memory", p, n);
}

int netallow_add(struct netallow *a, const char *list, char *err, size_t errlen)
{
	size_t before = a->n;
	const char *p = list;
	if (*p == '\0')
		return fail(err, errlen, "an empty list", p, 0);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		int r = 0;
		if (n == 0) {
			r = fail(err, errlen, "an empty entry", list, strlen(list));
		} else if (p[0] == '@') {
			char name[32];
			const char *const *hosts = NULL;
			if (n < sizeof(name)) {
				memcpy(name, p, n);
				name[n] = '\0';
				hosts = netallow_preset(name);
			}
			if (hosts == NULL)
				r = fail(err, errlen,
					 "no such preset (@npm @pypi @crates @go @github)", p, n);
			for (size_t i = 0; r == 0 && hosts != NULL && hosts[i] != NULL; i++)
				r = add_one(a, hosts[i], strlen(hosts[i]), err, errlen);
		} else {
			r = add_one(a, p, n, err, errlen);
		}
		if (r != 0) {
			a->n = before;
			return -1;
		}
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

/* name (canonical) is pattern, or below it ("a.b" below "b"). */
static int below(const char *name, const char *pattern)
{
	size_t n = strlen(name), k = strlen(pattern);
	return n > k && name[n - k - 1] == '.' && strcmp(name + n - k, pattern) == 0;
}

int netallow_match(const struct netallow *a, const char *host, unsigned port, int plain_http)
{
	char canon[NETALLOW_HOST_MAX];
	enum netallow_kind kind;
	if (port == 0 || port > 65535 || netallow_canon(host, canon, &kind) != 0)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct netallow_entry *e = &a->v[i];
		if (e->port != 0 ? port != e->port : !(port == 443 || (plain_http && port == 80)))
			continue;
		int hit = 0;
		switch (e->kind) {
		case NA_EXACT:
			hit = kind == NA_EXACT && strcmp(canon, e->host) == 0;
			break;
		case NA_SUBDOMAINS:
			hit = kind == NA_EXACT && below(canon, e->host);
			break;
		case NA_APEX_AND_SUBDOMAINS:
			hit = kind == NA_EXACT &&
			      (strcmp(canon, e->host) == 0 || below(canon, e->host));
			break;
		case NA_IPV4:
		case NA_IPV6:
			hit = kind == e->kind && strcmp(canon, e->host) == 0;
			break;
		}
		if (hit)
			return 1;
	}
	return 0;
}
