/*
 * Fuzz target for the strict JSON parser (src/util/jsonparse.c). Every
 * input it accepts must be valid JSON to the independent checker
 * (tests/unit/json-check.h); what the checker accepts and the parser
 * refuses must be one of the parser's documented refusals (a duplicate
 * name, a surrogate escape that is not a pair, nesting past the limit).
 * The parser's output, written back with jp_emit, must be valid, safe
 * text that parses again to the same output (the round trip is exact), and
 * replacing one string node must change only that node.
 */
#include "json-check.h"
#include "jsonparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct jp_limits lim = { 1 << 20, 32 };

static char *emit(const struct jp_doc *d, size_t subst, const char *s, size_t n)
{
	struct jbuf b = { 0 };
	jp_emit(&b, d, 0, subst, s, n);
	char *t = jb_finish(&b);
	if (t == NULL)
		abort();
	return t;
}

/* The output parses again, and writes the same text again. */
static void round_trip(const char *t)
{
	struct jp_doc d;
	char err[128];
	size_t n = strlen(t);
	if (!valid_json(t, n) || !safe_text(t, n))
		abort();
	if (jp_parse(t, n, &lim, &d, err, sizeof(err)) != 0)
		abort();
	char *again = emit(&d, JP_NONE, NULL, 0);
	if (strcmp(again, t) != 0)
		abort();
	free(again);
	jp_free(&d);
}

/* The last string node replaced by "X": the output is the plain one with
 * exactly that string's text swapped for "X" (found where the outputs
 * with "X" and with "Y" differ). */
static void substitute(const struct jp_doc *d, const char *plain)
{
	size_t last = JP_NONE;
	for (size_t i = 0; i < d->count; i++)
		if (d->nodes[i].kind == JP_STRING)
			last = i;
	if (last == JP_NONE)
		return;
	char *x = emit(d, last, "X", 1), *y = emit(d, last, "Y", 1);
	struct jbuf b = { 0 };
	jb_strn(&b, d->nodes[last].s, d->nodes[last].len);
	char *was = jb_finish(&b);
	if (was == NULL || !valid_json(x, strlen(x)) || strlen(x) != strlen(y))
		abort();
	size_t at = 0;
	while (x[at] == y[at])
		at++;
	/* x = head "X" tail, plain = head was tail */
	size_t pl = strlen(plain), wl = strlen(was), xl = strlen(x);
	if (at == 0 || x[at] != 'X' || strcmp(x + at + 1, y + at + 1) != 0 || pl + 3 != xl + wl)
		abort();
	size_t head = at - 1, tail = xl - head - 3;
	if (memcmp(plain, x, head) != 0 || memcmp(plain + head, was, wl) != 0 ||
	    memcmp(plain + head + wl, x + head + 3, tail) != 0)
		abort();
	free(was);
	free(x);
	free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	char err[128];
	struct jp_doc d;
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	int r = jp_parse(text, size, &lim, &d, err, sizeof(err));
	int checker = valid_json(text, size);
	if (r == 0) {
		if (!checker)
			abort();
		char *t = emit(&d, JP_NONE, NULL, 0);
		round_trip(t);
		substitute(&d, t);
		free(t);
	} else if (checker && strstr(err, "twice") == NULL && strstr(err, "surrogate") == NULL &&
		   strstr(err, "nested too deep") == NULL) {
		abort();
	}
	jp_free(&d);
	free(text);
	return 0;
}
