/* Unit tests for the strict JSON parser (src/util/jsonparse.c). */
#include "jsonparse.h"
#include "json-check.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const struct jp_limits lim = { 1 << 20, 64 };

/* Parses s (n bytes); 0 or -1, with the error kept in err. */
static char err[256];
static int parse_n(const char *s, size_t n, struct jp_doc *d)
{
	err[0] = '\0';
	return jp_parse(s, n, &lim, d, err, sizeof(err));
}

static int parses(const char *s)
{
	struct jp_doc d;
	int r = parse_n(s, strlen(s), &d);
	jp_free(&d);
	return r == 0;
}

/* The text jp_emit writes for the whole document. */
static char *emit_all(const char *s)
{
	struct jp_doc d;
	if (parse_n(s, strlen(s), &d) != 0) {
		jp_free(&d);
		return NULL;
	}
	struct jbuf b = { 0 };
	jp_emit(&b, &d, 0, JP_NONE, NULL, 0);
	jp_free(&d);
	return jb_finish(&b);
}

static void is_emit(const char *in, const char *want, const char *name)
{
	char *got = emit_all(in);
	is_str(got, want, "emit: %s", name);
	free(got);
}

static void test_accepts(void)
{
	static const char *const good[] = {
		"{}",
		"[]",
		"0",
		"-0",
		"-12.5e+3",
		"1E-7",
		"\"\"",
		"true",
		"false",
		"null",
		" \t\r\n{\"a\" : [1, 2, {\"b\": null}] } \n",
		"\"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
		"\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
		"\"\x7f\"",
		"{\"a\":1,\"A\":2,\"a \":3}",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ok(parses(good[i]), "accepts [%zu] (%s)", i, err);
		ok(valid_json(good[i], strlen(good[i])), "the independent checker agrees: [%zu]",
		   i);
	}
}

static void test_refuses(void)
{
	static const char *const bad[] = {
		"",
		" ",
		"{",
		"[1,]",
		"{\"a\":1,}",
		"{\"a\" 1}",
		"{a:1}",
		"01",
		"1.",
		".5",
		"+1",
		"1e",
		"-",
		"0x10",
		"NaN",
		"Infinity",
		"tru",
		"nul",
		"\"abc",
		"\"a\tb\"",
		"\"a\nb\"",
		"\"\\x41\"",
		"\"\\u12\"",
		"\"\\ud800\"",
		"\"\\udc00\"",
		"\"\\ud800\\u0041\"",
		"\"\\ud800x\"",
		"\"\xc3\"",
		"\"\xc0\xaf\"",
		"\"\xed\xa0\x80\"",
		"\"\xf4\x90\x80\x80\"",
		"\"\xff\"",
		"\xef\xbb\xbf{}",
		"{} {}",
		"{}x",
		"[1 2]",
		"{\"a\":1,\"a\":2}",
		"{\"command\":\"ls\",\"comm\\u0061nd\":\"rm -rf ~\"}",
		"{\"x\":{\"b\":1,\"c\":2,\"b\":3}}",
		"/* c */ {}",
		"'a'",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parses(bad[i]);
		ok(!r, "refuses [%zu] (%s)", i, err);
	}
	struct jp_doc d;
	ok(parse_n("[1,\0]", 5, &d) != 0, "refuses a NUL byte in the text");
	jp_free(&d);
	ok(parse_n("\"a\0\"", 4, &d) != 0, "refuses a raw NUL in a string");
	jp_free(&d);
}

static void test_limits(void)
{
	char deep[200];
	struct jp_doc d;
	struct jp_limits small = { 16, 3 };

	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	ok(jp_parse(deep, 128, &lim, &d, err, sizeof(err)) == 0, "64 levels: accepted");
	jp_free(&d);
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	ok(jp_parse(deep, 130, &lim, &d, err, sizeof(err)) != 0, "65 levels: refused");
	ok(strstr(err, "nested too deep") != NULL, "... saying so: %s", err);
	jp_free(&d);
	ok(jp_parse("[[[1]]]", 7, &small, &d, err, sizeof(err)) == 0, "3 levels of 3: accepted");
	jp_free(&d);
	ok(jp_parse("[[[[1]]]]", 9, &small, &d, err, sizeof(err)) != 0, "4 levels of 3: refused");
	jp_free(&d);
	ok(jp_parse("\"0123456789abcd\"", 16, &small, &d, err, sizeof(err)) == 0,
	   "16 bytes of 16: accepted");
	jp_free(&d);
	ok(jp_parse("\"0123456789abcde\"", 17, &small, &d, err, sizeof(err)) != 0,
	   "17 bytes of 16: refused");
	ok(strstr(err, "larger than the limit") != NULL, "... saying so: %s", err);
	jp_free(&d);
}

static void test_values(void)
{
	struct jp_doc d;
	const char *t = "{\"tool_input\":{\"command\":\"a\\u0000b\\n\",\"n\":-1.5e3,\"t\":true},"
			"\"e\":[]}";
	ok(parse_n(t, strlen(t), &d) == 0, "parses a hook-like document");
	size_t ti = jp_member(&d, 0, "tool_input");
	ok(ti != JP_NONE && d.nodes[ti].kind == JP_OBJECT, "tool_input is an object");
	size_t c = jp_member(&d, ti, "command");
	ok(c != JP_NONE && d.nodes[c].kind == JP_STRING, "command is a string");
	ok(c != JP_NONE && d.nodes[c].len == 4 && memcmp(d.nodes[c].s, "a\0b\n", 4) == 0,
	   "its bytes are decoded, NUL included");
	size_t n = jp_member(&d, ti, "n");
	ok(n != JP_NONE && d.nodes[n].len == 6 && memcmp(d.nodes[n].s, "-1.5e3", 6) == 0,
	   "a number keeps its text");
	ok(jp_member(&d, ti, "missing") == JP_NONE, "a missing member: JP_NONE");
	ok(jp_member(&d, c, "x") == JP_NONE, "a member of a string: JP_NONE");
	size_t e = jp_member(&d, 0, "e");
	ok(e != JP_NONE && jp_first(&d, e) == JP_NONE, "an empty array has no first child");
	is_int(d.nodes[0].n, 2, "the top object has two members");

	struct jbuf b = { 0 };
	jp_emit(&b, &d, ti, c, "it's \"new\"", 10);
	char *out = jb_finish(&b);
	is_str(out, "{\"command\":\"it's \\\"new\\\"\",\"n\":-1.5e3,\"t\":true}",
	       "emit with one string replaced keeps every other member, in order");
	free(out);
	jp_free(&d);
}

static void test_emit(void)
{
	is_emit(" { \"a\" : [ 1 , \"x\" , null , false ] , \"b\" : { } } ",
		"{\"a\":[1,\"x\",null,false],\"b\":{}}", "compact, in order");
	is_emit("\"\\u00e9\\ud83d\\ude00\\/\"", "\"\xc3\xa9\xf0\x9f\x98\x80/\"",
		"escapes decoded, written as UTF-8");
	is_emit("\"\\u0000\\u001f\\u2028\"", "\"\\u0000\\u001f\\u2028\"",
		"controls and U+2028 escaped again");
	is_emit("{\"k\\n\":\"v\"}", "{\"k\\n\":\"v\"}", "member names escaped");
	is_emit("[1e400,-0.0]", "[1e400,-0.0]", "numbers as given");
}

int main(void)
{
	test_accepts();
	test_refuses();
	test_limits();
	test_values();
	test_emit();
	return done_testing();
}
