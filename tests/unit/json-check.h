/*
 * An independent JSON checker for the tests of the JSON writer (json.c):
 * the unit test (test-json.c) and the fuzz target (fuzz-json.c) share it.
 * Nothing here calls json.c: a bug there cannot hide itself.
 *
 *   valid_json(t, n)      1 when t is exactly one RFC 8259 value
 *   decode(j, jn, out)    one string literal back to its bytes, undoing
 *                         the surrogateescape convention
 *   utf8_len(s, n)        length of the valid UTF-8 sequence at s, or 0
 *   safe_text(s, n)       valid UTF-8 without raw controls, DEL, U+2028/9
 */
#ifndef CORDON_JSON_CHECK_H
#define CORDON_JSON_CHECK_H

#include <stddef.h>
#include <string.h>

static inline int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline long hex4(const char *p)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static inline size_t put_utf8(unsigned char *o, long cp)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Decode one JSON string literal (the whole of j, quotes included) into
 * out (at least jn bytes), undoing surrogateescape: a lone \uDC80..\uDCFF
 * is the original byte. Returns the decoded length, or -1 when j is not
 * exactly one valid JSON string.
 */
static inline long decode(const char *j, size_t jn, unsigned char *out)
{
	size_t i = 1, o = 0;

	if (jn < 2 || j[0] != '"')
		return -1;
	while (i < jn - 1) {
		unsigned char c = (unsigned char)j[i];
		if (c == '"' || c < 0x20)
			return -1;
		if (c != '\\') {
			out[o++] = c;
			i++;
			continue;
		}
		if (i + 1 >= jn - 1)
			return -1;
		char e = j[i + 1];
		i += 2;
		switch (e) {
		case '"':
		case '\\':
		case '/':
			out[o++] = (unsigned char)e;
			continue;
		case 'b':
			out[o++] = '\b';
			continue;
		case 'f':
			out[o++] = '\f';
			continue;
		case 'n':
			out[o++] = '\n';
			continue;
		case 'r':
			out[o++] = '\r';
			continue;
		case 't':
			out[o++] = '\t';
			continue;
		case 'u':
			break;
		default:
			return -1;
		}
		if (i + 4 > jn - 1)
			return -1;
		long cp = hex4(j + i);
		if (cp < 0)
			return -1;
		i += 4;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			long lo = -1;
			if (i + 6 <= jn - 1 && j[i] == '\\' && j[i + 1] == 'u')
				lo = hex4(j + i + 2);
			if (lo < 0xdc00 || lo > 0xdfff)
				return -1; /* the writer never emits a lone high half */
			i += 6;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp >= 0xdc80 && cp <= 0xdcff) {
			out[o++] = (unsigned char)(cp - 0xdc00);
			continue;
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			return -1;
		}
		o += put_utf8(out + o, cp);
	}
	if (i != jn - 1 || j[i] != '"')
		return -1;
	return (long)o;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0: decodes
 * the code point and checks its range, independently of json.c. */
static inline size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] < 0xc0 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	static const long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	long cp;

	if (len == 0 || len > n || s[0] > 0xf7)
		return 0;
	if (len == 1)
		return 1;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* 1 when s is valid UTF-8 with no raw control character, DEL, U+2028 or
 * U+2029: safe to embed in JSON and in JavaScript. */
static inline int safe_text(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_len(u + i, n - i);
		if (k == 0 || (k == 1 && (u[i] < 0x20 || u[i] == 0x7f)))
			return 0;
		if (k == 3 && u[i] == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] & 0xfe) == 0xa8)
			return 0;
		i += k;
	}
	return 1;
}

/* ---- a small RFC 8259 checker: returns the end of the value, or NULL ---- */
static inline const char *value(const char *p, int depth);

static inline const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static inline const char *string(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	if (*u++ != '"')
		return NULL;
	for (;;) {
		if (*u == '"')
			return (const char *)u + 1;
		if (*u < 0x20)
			return NULL; /* raw control, or the end of the text */
		if (*u == '\\') {
			u++;
			if (*u == 'u') {
				for (int i = 1; i <= 4; i++)
					if (hexval(u[i]) < 0)
						return NULL;
				u += 5;
			} else if (*u != '\0' && strchr("\"\\/bfnrt", *u) != NULL) {
				u++;
			} else {
				return NULL;
			}
			continue;
		}
		size_t k = utf8_len(u, strlen((const char *)u));
		if (k == 0)
			return NULL; /* JSON text is UTF-8 */
		u += k;
	}
}

static inline const char *number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
	} else {
		return NULL;
	}
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static inline const char *members(const char *p, char close, int depth)
{
	p = ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = string(ws(p));
			if (p == NULL)
				return NULL;
			p = ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = value(p, depth + 1);
		if (p == NULL)
			return NULL;
		p = ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static inline const char *value(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = ws(p);
	switch (*p) {
	case '{':
		return members(p + 1, '}', depth);
	case '[':
		return members(p + 1, ']', depth);
	case '"':
		return string(p);
	case 't':
		return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f':
		return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n':
		return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default:
		return number(p);
	}
}

/* 1 when t (of length n, NUL-terminated) is exactly one JSON value. */
static inline int valid_json(const char *t, size_t n)
{
	if (strlen(t) != n)
		return 0;
	const char *e = value(t, 0);
	return e != NULL && *ws(e) == '\0';
}

#endif
