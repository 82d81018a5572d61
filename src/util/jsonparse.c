#include "jsonparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const unsigned char *t;
	size_t len, pos;
	unsigned depth, max_depth;
	struct jp_doc *d;
	size_t used; /* of the arena */
	char *err;
	size_t errlen;
};

static int fail(struct jp *p, const char *what)
{
	if (p->errlen > 0)
		snprintf(p->err, p->errlen, "at byte %zu: %s", p->pos, what);
	return -1;
}

static void skip_ws(struct jp *p)
{
	while (p->pos < p->len) {
		unsigned char c = p->t[p->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/* A new node of kind at the end of the array; JP_NONE when out of memory.
 * Each node takes at least one byte of the text, so their number is
 * bounded by its size. */
static size_t new_node(struct jp *p, enum jp_kind kind)
{
	struct jp_doc *d = p->d;
	if (d->count == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct jp_node *n = realloc(d->nodes, cap * sizeof(*n));
		if (n == NULL)
			return JP_NONE;
		d->nodes = n;
		d->cap = cap;
	}
	struct jp_node *n = &d->nodes[d->count];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->next = JP_NONE;
	return d->count++;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The four hex digits at pos (after "\u"), or -1. */
static long hex4(const struct jp *p, size_t pos)
{
	long v = 0;
	if (p->len - pos < 4)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		int h = hexval(p->t[pos + i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static size_t put_utf8(char *o, long cp)
{
	unsigned char *u = (unsigned char *)o;
	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (unsigned char)(0xf0 | (cp >> 18));
	u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* "\uXXXX" at pos (the backslash), a surrogate pair counted as one: the
 * code point, and pos moved past it; -1 with err set. */
static long unicode_escape(struct jp *p)
{
	long cp = hex4(p, p->pos + 2);
	if (cp < 0)
		return fail(p, "bad \\u escape (want four hex digits)");
	p->pos += 6;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(p, "a low surrogate escape without a high one before it");
	if (cp < 0xd800 || cp > 0xdbff)
		return cp;
	long lo = -1;
	if (p->len - p->pos >= 6 && p->t[p->pos] == '\\' && p->t[p->pos + 1] == 'u')
		lo = hex4(p, p->pos + 2);
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(p, "a high surrogate escape without a low one after it");
	p->pos += 6;
	return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
}

/* One escape at pos (the backslash), decoded into o: its length, or 0. */
static size_t escape(struct jp *p, char *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (p->pos + 1 >= p->len) {
		fail(p, "unterminated string");
		return 0;
	}
	unsigned char c = p->t[p->pos + 1];
	if (c == 'u') {
		long cp = unicode_escape(p);
		return cp < 0 ? 0 : put_utf8(o, cp);
	}
	const char *k = c != '\0' ? strchr(from, c) : NULL;
	if (k == NULL) {
		fail(p, "bad escape in a string");
		return 0;
	}
	o[0] = to[k - from];
	p->pos += 2;
	return 1;
}

/* The string at pos (its opening quote), decoded into the arena. Its
 * decoded bytes and a NUL take no more room than its text with the two
 * quotes did, so an arena of the text's size holds every string. */
static int parse_string(struct jp *p, const char **out, size_t *outlen)
{
	char *o = p->d->arena + p->used;
	size_t n = 0;
	p->pos++;
	for (;;) {
		if (p->pos >= p->len)
			return fail(p, "unterminated string");
		unsigned char c = p->t[p->pos];
		if (c == '"')
			break;
		if (c == '\\') {
			size_t k = escape(p, o + n);
			if (k == 0)
				return -1;
			n += k;
			continue;
		}
		if (c < 0x20)
			return fail(p, "a raw control character in a string (want an escape)");
		size_t k = utf8_seq_len(p->t + p->pos, p->len - p->pos);
		if (k == 0)
			return fail(p, "a string that is not valid UTF-8");
		memcpy(o + n, p->t + p->pos, k);
		n += k;
		p->pos += k;
	}
	p->pos++;
	o[n] = '\0';
	p->used += n + 1;
	*out = o;
	*outlen = n;
	return 0;
}

static size_t digits(struct jp *p)
{
	size_t start = p->pos;
	while (p->pos < p->len && p->t[p->pos] >= '0' && p->t[p->pos] <= '9')
		p->pos++;
	return p->pos - start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct jp *p, size_t i)
{
	size_t start = p->pos;
	if (p->t[p->pos] == '-')
		p->pos++;
	if (p->pos < p->len && p->t[p->pos] == '0')
		p->pos++;
	else if (digits(p) == 0)
		return fail(p, "bad number");
	if (p->pos < p->len && p->t[p->pos] == '.') {
		p->pos++;
		if (digits(p) == 0)
			return fail(p, "bad number (want digits after '.')");
	}
	if (p->pos < p->len && (p->t[p->pos] == 'e' || p->t[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->t[p->pos] == '+' || p->t[p->pos] == '-'))
			p->pos++;
		if (digits(p) == 0)
			return fail(p, "bad number (want digits in the exponent)");
	}
	p->d->nodes[i].s = (const char *)p->t + start;
	p->d->nodes[i].len = p->pos - start;
	return 0;
}

static int literal(struct jp *p, const char *word)
{
	size_t n = strlen(word);
	if (p->len - p->pos < n || memcmp(p->t + p->pos, word, n) != 0)
		return fail(p, "unexpected text (want a JSON value)");
	p->pos += n;
	return 0;
}

struct name {
	const char *key;
	size_t len;
};

static int cmp_names(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);
	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Two members of object obj with the same decoded name: refused. Sorting
 * keeps it O(n log n) whatever the names. */
static int check_duplicates(struct jp *p, size_t obj)
{
	struct jp_doc *d = p->d;
	size_t n = d->nodes[obj].n;
	if (n < 2)
		return 0;
	struct name *v = malloc(n * sizeof(*v));
	if (v == NULL)
		return fail(p, "out of memory");
	size_t k = 0;
	for (size_t c = obj + 1; c != JP_NONE; c = d->nodes[c].next)
		v[k++] = (struct name){ d->nodes[c].key, d->nodes[c].keylen };
	qsort(v, n, sizeof(*v), cmp_names);
	int dup = 0;
	for (size_t i = 1; i < n && !dup; i++)
		dup = cmp_names(&v[i - 1], &v[i]) == 0;
	free(v);
	return dup ? fail(p, "an object names the same member twice") : 0;
}

static size_t parse_value(struct jp *p);

/* The elements or members of the array or object i, after its opening
 * bracket: each value linked to the one before it. */
static int parse_children(struct jp *p, size_t i, int object)
{
	unsigned char close = object ? '}' : ']';
	size_t prev = JP_NONE;
	skip_ws(p);
	if (p->pos < p->len && p->t[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		size_t keylen = 0;
		skip_ws(p);
		if (object) {
			if (p->pos >= p->len || p->t[p->pos] != '"')
				return fail(p, "want a member name (a string)");
			if (parse_string(p, &key, &keylen) != 0)
				return -1;
			skip_ws(p);
			if (p->pos >= p->len || p->t[p->pos] != ':')
				return fail(p, "want ':' after a member name");
			p->pos++;
		}
		size_t c = parse_value(p);
		if (c == JP_NONE)
			return -1;
		p->d->nodes[c].key = key;
		p->d->nodes[c].keylen = keylen;
		if (prev != JP_NONE)
			p->d->nodes[prev].next = c;
		prev = c;
		p->d->nodes[i].n++;
		skip_ws(p);
		if (p->pos < p->len && p->t[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->t[p->pos] == close) {
			p->pos++;
			return object ? check_duplicates(p, i) : 0;
		}
		return fail(p, object ? "want ',' or '}'" : "want ',' or ']'");
	}
}

static int parse_container(struct jp *p, size_t i, int object)
{
	if (p->depth >= p->max_depth)
		return fail(p, "nested too deep");
	p->depth++;
	p->pos++;
	int r = parse_children(p, i, object);
	p->depth--;
	return r;
}

/* The value at pos (after whitespace): its node, or JP_NONE. */
static size_t parse_value(struct jp *p)
{
	skip_ws(p);
	if (p->pos >= p->len) {
		fail(p, "unexpected end (want a JSON value)");
		return JP_NONE;
	}
	unsigned char c = p->t[p->pos];
	enum jp_kind kind = c == '{'   ? JP_OBJECT
			    : c == '[' ? JP_ARRAY
			    : c == '"' ? JP_STRING
			    : c == 't' ? JP_TRUE
			    : c == 'f' ? JP_FALSE
			    : c == 'n' ? JP_NULL
				       : JP_NUMBER;
	size_t i = new_node(p, kind);
	if (i == JP_NONE) {
		fail(p, "out of memory");
		return JP_NONE;
	}
	int r;
	if (kind == JP_OBJECT || kind == JP_ARRAY)
		r = parse_container(p, i, kind == JP_OBJECT);
	else if (kind == JP_STRING)
		r = parse_string(p, &p->d->nodes[i].s, &p->d->nodes[i].len);
	else if (kind == JP_NUMBER)
		r = c == '-' || (c >= '0' && c <= '9')
			    ? parse_number(p, i)
			    : fail(p, "unexpected text (want a JSON value)");
	else
		r = literal(p, kind == JP_TRUE ? "true" : kind == JP_FALSE ? "false" : "null");
	return r == 0 ? i : JP_NONE;
}

int jp_parse(const char *text, size_t len, const struct jp_limits *lim, struct jp_doc *doc,
	     char *err, size_t errlen)
{
	struct jp p = { .t = (const unsigned char *)text,
			.len = len,
			.max_depth = lim->max_depth,
			.d = doc,
			.err = err,
			.errlen = errlen };
	memset(doc, 0, sizeof(*doc));
	if (len > lim->max_size)
		return fail(&p, "the text is larger than the limit");
	doc->arena = malloc(len + 1);
	if (doc->arena == NULL)
		return fail(&p, "out of memory");
	if (parse_value(&p) == JP_NONE)
		return -1;
	skip_ws(&p);
	if (p.pos != len)
		return fail(&p, "text after the JSON value");
	return 0;
}

void jp_free(struct jp_doc *doc)
{
	free(doc->nodes);
	free(doc->arena);
	memset(doc, 0, sizeof(*doc));
}

size_t jp_first(const struct jp_doc *doc, size_t node)
{
	const struct jp_node *n = &doc->nodes[node];
	if ((n->kind != JP_ARRAY && n->kind != JP_OBJECT) || n->n == 0)
		return JP_NONE;
	return node + 1;
}

size_t jp_member(const struct jp_doc *doc, size_t obj, const char *key)
{
	size_t n = strlen(key);
	if (obj >= doc->count || doc->nodes[obj].kind != JP_OBJECT)
		return JP_NONE;
	for (size_t c = jp_first(doc, obj); c != JP_NONE; c = doc->nodes[c].next)
		if (doc->nodes[c].keylen == n && memcmp(doc->nodes[c].key, key, n) == 0)
			return c;
	return JP_NONE;
}

void jp_emit(struct jbuf *b, const struct jp_doc *doc, size_t i, size_t subst, const char *s,
	     size_t slen)
{
	const struct jp_node *n = &doc->nodes[i];
	if (i == subst) {
		jb_strn(b, s, slen);
		return;
	}
	switch (n->kind) {
	case JP_NULL:
		jb_raw(b, "null");
		return;
	case JP_FALSE:
	case JP_TRUE:
		jb_bool(b, n->kind == JP_TRUE);
		return;
	case JP_NUMBER:
		jb_rawn(b, n->s, n->len);
		return;
	case JP_STRING:
		jb_strn(b, n->s, n->len);
		return;
	default:
		break;
	}
	jb_raw(b, n->kind == JP_OBJECT ? "{" : "[");
	for (size_t c = jp_first(doc, i); c != JP_NONE; c = doc->nodes[c].next) {
		if (c != i + 1)
			jb_raw(b, ",");
		if (n->kind == JP_OBJECT) {
			jb_strn(b, doc->nodes[c].key, doc->nodes[c].keylen);
			jb_raw(b, ":");
		}
		jp_emit(b, doc, c, subst, s, slen);
	}
	jb_raw(b, n->kind == JP_OBJECT ? "}" : "]");
}
