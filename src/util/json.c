#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct jbuf *b, size_t more)
{
	if (b->failed)
		return -1;
	if (b->len + more + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1) {
		if (cap > ((size_t)-1) / 2) {
			b->failed = 1;
			return -1;
		}
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (p == NULL) {
		b->failed = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void jb_rawn(struct jbuf *b, const char *s, size_t n)
{
	if (reserve(b, n) != 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void jb_raw(struct jbuf *b, const char *s)
{
	jb_rawn(b, s, strlen(s));
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* bounds of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f; /* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* nothing above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void jb_strn(struct jbuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[8];

	jb_rawn(b, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t k = utf8_seq_len(s + i, n - i);
		if (k == 0) {
			snprintf(esc, sizeof(esc), "\\udc%02x", c);
			jb_rawn(b, esc, 6);
			i++;
		} else if (k == 1) {
			if (c == '"' || c == '\\') {
				esc[0] = '\\';
				esc[1] = (char)c;
				jb_rawn(b, esc, 2);
			} else if (c == '\n') {
				jb_rawn(b, "\\n", 2);
			} else if (c == '\t') {
				jb_rawn(b, "\\t", 2);
			} else if (c == '\r') {
				jb_rawn(b, "\\r", 2);
			} else if (c < 0x20 || c == 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				jb_rawn(b, esc, 6);
			} else {
				jb_rawn(b, (const char *)s + i, 1);
			}
			i++;
		} else if (k == 3 && c == 0xe2 && s[i + 1] == 0x80 &&
			   (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
			/* Line and paragraph separators end lines in JavaScript. */
			jb_rawn(b, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			i += 3;
		} else {
			jb_rawn(b, (const char *)s + i, k);
			i += k;
		}
	}
	jb_rawn(b, "\"", 1);
}

void jb_str(struct jbuf *b, const char *s)
{
	if (s == NULL)
		jb_raw(b, "null");
	else
		jb_strn(b, s, strlen(s));
}

void jb_int(struct jbuf *b, long long v)
{
	char num[32];
	int n = snprintf(num, sizeof(num), "%lld", v);
	jb_rawn(b, num, (size_t)n);
}

void jb_bool(struct jbuf *b, int v)
{
	jb_raw(b, v ? "true" : "false");
}

void jb_key(struct jbuf *b, const char *key)
{
	if (!b->failed && b->len > 0 && b->p[b->len - 1] != '{')
		jb_rawn(b, ",", 1);
	jb_str(b, key);
	jb_rawn(b, ":", 1);
}

char *jb_finish(struct jbuf *b)
{
	if (b->failed || b->p == NULL) {
		free(b->p);
		b->p = NULL;
		return NULL;
	}
	char *p = b->p;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}
