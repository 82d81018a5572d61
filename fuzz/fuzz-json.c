/*
 * Fuzz target for the JSON writer. The input, as one string, must come out
 * as a valid JSON text that decodes (undoing surrogateescape: a lone
 * \uDC80..\uDCFF is the original byte) to exactly the input bytes. The
 * text holds no raw control character, DEL, U+2028 or U+2029, and is pure
 * ASCII whenever the input is. An object built with jb_key, jb_int and
 * jb_bool around the same string must be valid JSON too.
 */
#include "json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0: decodes
 * the code point and checks its range, independently of json.c. */
static size_t utf8_len(const unsigned char *s, size_t n)
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

/* ---- a small RFC 8259 checker: returns the end of the value, or NULL ---- */
static const char *value(const char *p, int depth);

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *string(const char *p)
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

static const char *number(const char *p)
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

static const char *members(const char *p, char close, int depth)
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

static const char *value(const char *p, int depth)
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
static int valid_json(const char *t, size_t n)
{
	if (strlen(t) != n)
		return 0;
	const char *e = value(t, 0);
	return e != NULL && *ws(e) == '\0';
}

/* ---- decoding ---- */
static long hex4(const char *p)
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

static size_t put_utf8(unsigned char *o, long cp)
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

/* Decode the string literal t (already checked valid) into out, which has
 * room for strlen(t) bytes. Returns the length, or -1 on a surrogate the
 * writer must never produce. */
static long decode(const char *t, unsigned char *out)
{
	const char *p = t + 1;
	size_t o = 0;

	while (*p != '"') {
		if (*p != '\\') {
			out[o++] = (unsigned char)*p++;
			continue;
		}
		char e = p[1];
		p += 2;
		if (e != 'u') {
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			out[o++] = (unsigned char)to[strchr(from, e) - from];
			continue;
		}
		long cp = hex4(p);
		p += 4;
		if (cp >= 0xdc80 && cp <= 0xdcff) {
			out[o++] = (unsigned char)(cp - 0xdc00);
			continue;
		}
		if (cp >= 0xd800 && cp <= 0xdfff)
			return -1;
		o += put_utf8(out + o, cp);
	}
	return (long)o;
}

static void check_string(const uint8_t *data, size_t size)
{
	struct jbuf b = { 0 };
	jb_strn(&b, (const char *)data, size);
	char *t = jb_finish(&b);
	if (t == NULL)
		abort();
	size_t n = strlen(t);
	if (!valid_json(t, n) || t[0] != '"')
		abort();

	int ascii_in = 1;
	for (size_t i = 0; i < size; i++)
		ascii_in &= data[i] < 0x80;
	const unsigned char *u = (const unsigned char *)t;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_len(u + i, n - i);
		if (k == 0 || (ascii_in && k > 1))
			abort();
		if (k == 1 && (u[i] < 0x20 || u[i] == 0x7f))
			abort();
		if (k == 3 && u[i] == 0xe2 && u[i + 1] == 0x80 &&
		    (u[i + 2] == 0xa8 || u[i + 2] == 0xa9))
			abort();
		i += k;
	}

	unsigned char *out = malloc(n + 1);
	if (out == NULL)
		abort();
	long d = decode(t, out);
	if (d != (long)size || (size > 0 && memcmp(out, data, size) != 0))
		abort();
	free(out);
	free(t);
}

static void check_object(const uint8_t *data, size_t size)
{
	struct jbuf b = { 0 };
	char key[9] = { 0 };
	long long v = 0;
	size_t k = size < 8 ? size : 8;

	/* The first bytes serve as a key (up to a NUL) and as a number. */
	memcpy(key, data, k);
	for (size_t i = 0; i < k; i++)
		v = (long long)((unsigned long long)v << 8 | data[i]);
	jb_raw(&b, "{");
	jb_key(&b, key);
	jb_strn(&b, (const char *)data, size);
	jb_key(&b, "n");
	jb_int(&b, v);
	jb_key(&b, "neg");
	jb_int(&b, v < 0 ? v : -v - 1);
	jb_key(&b, "b");
	jb_bool(&b, (int)(size & 1));
	jb_key(&b, "o");
	jb_raw(&b, "{");
	jb_key(&b, "null");
	jb_str(&b, NULL);
	jb_raw(&b, "}}");
	char *t = jb_finish(&b);
	if (t == NULL || !valid_json(t, strlen(t)) || t[0] != '{')
		abort();
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_string(data, size);
	check_object(data, size);
	return 0;
}
