/* Unit tests for the JSON writer (src/util/json.c). */
#include "json.h"
#include "json-check.h"
#include "tap.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* jb_strn(s, n) as a C string the caller frees. */
static char *esc(const char *s, size_t n)
{
	struct jbuf b = { 0 };
	jb_strn(&b, s, n);
	return jb_finish(&b);
}

/* Check that escaping n bytes of s gives exactly want (with the quotes). */
static void is_esc(const char *s, size_t n, const char *want, const char *name)
{
	char *got = esc(s, n);
	is_str(got, want, "escape: %s", name);
	free(got);
}

static void test_ascii_escapes(void)
{
	char all[128];

	is_esc("", 0, "\"\"", "empty string");
	is_esc("plain /path", 11, "\"plain /path\"", "plain ASCII and '/' unchanged");
	is_esc("a\"b", 3, "\"a\\\"b\"", "double quote");
	is_esc("a\\b", 3, "\"a\\\\b\"", "backslash");
	is_esc("\n", 1, "\"\\n\"", "newline");
	is_esc("\t", 1, "\"\\t\"", "tab");
	is_esc("\r", 1, "\"\\r\"", "carriage return");
	is_esc("\b", 1, "\"\\u0008\"", "backspace as \\u0008");
	is_esc("\f", 1, "\"\\u000c\"", "form feed as \\u000c");
	is_esc("\x01", 1, "\"\\u0001\"", "0x01");
	is_esc("\x1b[0m", 4, "\"\\u001b[0m\"", "escape (0x1b)");
	is_esc("\x1f", 1, "\"\\u001f\"", "0x1f, the last control");
	is_esc(" ", 1, "\" \"", "space (0x20) unchanged");
	is_esc("~", 1, "\"~\"", "tilde (0x7e) unchanged");
	is_esc("\x7f", 1, "\"\\u007f\"", "DEL");
	is_esc("a\0b", 3, "\"a\\u0000b\"", "embedded NUL via jb_strn");
	is_esc("\0\0", 2, "\"\\u0000\\u0000\"", "only NULs");
	is_esc("abc", 1, "\"a\"", "jb_strn stops at n");

	/* Every ASCII byte: exactly the controls, '"', '\\' and DEL change. */
	for (int c = 0; c < 128; c++)
		all[c] = (char)c;
	char *got = esc(all, sizeof(all));
	int bad = 0;
	for (int c = 0; c < 128; c++) {
		char one[2] = { (char)c, 0 };
		char *e = esc(one, 1);
		int plain = c >= 0x20 && c != '"' && c != '\\' && c != 0x7f;
		if (e == NULL || (plain != (strlen(e) == 3)))
			bad++;
		free(e);
	}
	is_int(bad, 0, "escape: exactly the controls, quote, backslash, DEL are escaped");
	ok(got != NULL && strlen(got) == 2 + 29 * 6 + 3 * 2 + 2 * 2 + 6 + 93,
	   "escape: all 128 ASCII bytes give the expected length");
	free(got);
}

static void test_utf8_valid(void)
{
	is_esc("\xc2\x80", 2, "\"\xc2\x80\"", "U+0080 (smallest 2-byte) passes");
	is_esc("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"", "e-acute passes");
	is_esc("\xdf\xbf", 2, "\"\xdf\xbf\"", "U+07FF passes");
	is_esc("\xe0\xa0\x80", 3, "\"\xe0\xa0\x80\"", "U+0800 (smallest 3-byte) passes");
	is_esc("\xe2\x82\xac", 3, "\"\xe2\x82\xac\"", "euro sign passes");
	is_esc("\xe2\x80\xa7", 3, "\"\xe2\x80\xa7\"", "U+2027 passes");
	is_esc("\xe2\x80\xaa", 3, "\"\xe2\x80\xaa\"", "U+202A passes");
	is_esc("\xed\x9f\xbf", 3, "\"\xed\x9f\xbf\"", "U+D7FF (below surrogates) passes");
	is_esc("\xee\x80\x80", 3, "\"\xee\x80\x80\"", "U+E000 (above surrogates) passes");
	is_esc("\xef\xbf\xbf", 3, "\"\xef\xbf\xbf\"", "U+FFFF passes");
	is_esc("\xf0\x90\x80\x80", 4, "\"\xf0\x90\x80\x80\"", "U+10000 passes");
	is_esc("\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"", "emoji passes");
	is_esc("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"", "U+10FFFF passes");
	is_esc("\xe2\x80\xa8", 3, "\"\\u2028\"", "U+2028 escaped");
	is_esc("\xe2\x80\xa9", 3, "\"\\u2029\"", "U+2029 escaped");
	is_esc("a\xe2\x80\xa8\x62\xe2\x80\xa9\x63", 9, "\"a\\u2028b\\u2029c\"",
	       "U+2028/2029 between ASCII");
}

static void test_utf8_invalid(void)
{
	is_esc("\x80", 1, "\"\\udc80\"", "lone continuation byte");
	is_esc("\xbf", 1, "\"\\udcbf\"", "lone 0xbf");
	is_esc("\xc0\x80", 2, "\"\\udcc0\\udc80\"", "overlong NUL C0 80");
	is_esc("\xc1\xbf", 2, "\"\\udcc1\\udcbf\"", "overlong C1 BF");
	is_esc("\xe0\x80\x80", 3, "\"\\udce0\\udc80\\udc80\"", "overlong E0 80 80");
	is_esc("\xe0\x9f\xbf", 3, "\"\\udce0\\udc9f\\udcbf\"", "overlong E0 9F BF");
	is_esc("\xf0\x8f\xbf\xbf", 4, "\"\\udcf0\\udc8f\\udcbf\\udcbf\"", "overlong F0 8F BF BF");
	is_esc("\xed\xa0\x80", 3, "\"\\udced\\udca0\\udc80\"", "encoded surrogate ED A0 80");
	is_esc("\xed\xbf\xbf", 3, "\"\\udced\\udcbf\\udcbf\"", "encoded surrogate ED BF BF");
	is_esc("\xf4\x90\x80\x80", 4, "\"\\udcf4\\udc90\\udc80\\udc80\"",
	       "above U+10FFFF (F4 90 80 80)");
	is_esc("\xf5\x80\x80\x80", 4, "\"\\udcf5\\udc80\\udc80\\udc80\"", "F5 lead byte");
	is_esc("\xf8", 1, "\"\\udcf8\"", "F8");
	is_esc("\xfe\xff", 2, "\"\\udcfe\\udcff\"", "FE FF");
	is_esc("\xc3", 1, "\"\\udcc3\"", "truncated 2-byte at end");
	is_esc("\xe2\x82", 2, "\"\\udce2\\udc82\"", "truncated 3-byte at end");
	is_esc("\xf0\x9f\x98", 3, "\"\\udcf0\\udc9f\\udc98\"", "truncated 4-byte at end");
	is_esc("\xc3\x41", 2, "\"\\udcc3A\"", "2-byte lead followed by ASCII");
	is_esc("\xe2\x82\x78", 3, "\"\\udce2\\udc82x\"", "3-byte cut by ASCII");
	is_esc("\xe2\x28\xa1", 3, "\"\\udce2(\\udca1\"", "bad second byte resyncs");
	is_esc("\xc3\xa9\xa9", 3, "\"\xc3\xa9\\udca9\"", "valid then stray continuation");
	is_esc("\xe2\x80\xe2\x80\xa8", 5, "\"\\udce2\\udc80\\u2028\"", "truncated then U+2028");
	is_esc("\xc3\xa9", 1, "\"\\udcc3\"", "sequence cut by n is escaped");
	is_esc("\xff\n\xc3\xa9", 4, "\"\\udcff\\n\xc3\xa9\"", "mixed classes");
}

static void test_seq_len(void)
{
	const unsigned char *u;

	u = (const unsigned char *)"A";
	is_int(utf8_seq_len(u, 1), 1, "seq_len: ASCII");
	u = (const unsigned char *)"\xc3\xa9";
	is_int(utf8_seq_len(u, 2), 2, "seq_len: 2-byte");
	is_int(utf8_seq_len(u, 1), 0, "seq_len: 2-byte cut by n");
	u = (const unsigned char *)"\xe2\x82\xac";
	is_int(utf8_seq_len(u, 3), 3, "seq_len: 3-byte");
	is_int(utf8_seq_len(u, 2), 0, "seq_len: 3-byte cut by n");
	u = (const unsigned char *)"\xf0\x9f\x98\x80";
	is_int(utf8_seq_len(u, 4), 4, "seq_len: 4-byte");
	is_int(utf8_seq_len(u, 3), 0, "seq_len: 4-byte cut by n");
	u = (const unsigned char *)"\xed\xa0\x80";
	is_int(utf8_seq_len(u, 3), 0, "seq_len: surrogate");
	u = (const unsigned char *)"\xf4\x90\x80\x80";
	is_int(utf8_seq_len(u, 4), 0, "seq_len: above U+10FFFF");
	u = (const unsigned char *)"\xe2\x82\xc0";
	is_int(utf8_seq_len(u, 3), 0, "seq_len: bad third byte");
	u = (const unsigned char *)"\xf0\x9f\x98\x7f";
	is_int(utf8_seq_len(u, 4), 0, "seq_len: bad fourth byte");

	/* Agreement with the independent decoder above over every first
	 * and second byte, edge values for the rest, and every n. */
	static const unsigned char tail[] = { 0x00, 0x7f, 0x80, 0xbf, 0xc0 };
	long disagree = 0;
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++)
			for (size_t c = 0; c < sizeof(tail); c++)
				for (size_t d = 0; d < sizeof(tail); d++)
					for (size_t n = 1; n <= 4; n++) {
						unsigned char s4[4] = { (unsigned char)a,
									(unsigned char)b, tail[c],
									tail[d] };
						disagree += utf8_seq_len(s4, n) != utf8_len(s4, n);
					}
	is_int(disagree, 0, "seq_len agrees with an independent decoder");
}

static void test_values(void)
{
	struct jbuf b = { 0 };
	char *s;

	jb_int(&b, 0);
	jb_raw(&b, " ");
	jb_int(&b, -1);
	jb_raw(&b, " ");
	jb_int(&b, -1234567);
	jb_raw(&b, " ");
	jb_int(&b, LLONG_MAX);
	jb_raw(&b, " ");
	jb_int(&b, LLONG_MIN);
	s = jb_finish(&b);
	is_str(s, "0 -1 -1234567 9223372036854775807 -9223372036854775808", "jb_int values");
	free(s);

	jb_bool(&b, 1);
	jb_bool(&b, 0);
	jb_bool(&b, 42);
	jb_str(&b, NULL);
	jb_str(&b, "");
	jb_str(&b, "x\"y");
	jb_rawn(&b, "[]xyz", 2);
	s = jb_finish(&b);
	is_str(s, "truefalsetruenull\"\"\"x\\\"y\"[]", "bools, null, jb_str, jb_rawn after reuse");
	free(s);

	s = jb_finish(&b);
	ok(s == NULL, "jb_finish of an empty buffer is NULL");

	b.failed = 1;
	jb_raw(&b, "ignored");
	jb_int(&b, 7);
	jb_key(&b, "k");
	ok(b.p == NULL && b.len == 0, "a failed buffer ignores writes");
	ok(jb_finish(&b) == NULL, "jb_finish of a failed buffer is NULL");

	struct jbuf g = { 0 };
	char *big = malloc(100000);
	if (big == NULL)
		abort();
	memset(big, 'a', 100000);
	jb_strn(&g, big, 100000);
	s = jb_finish(&g);
	ok(s != NULL && strlen(s) == 100002 && s[0] == '"' && s[1] == 'a' && s[100000] == 'a' &&
		   s[100001] == '"',
	   "a 100000-byte string grows the buffer");
	free(s);
	free(big);
}

static void test_keys(void)
{
	struct jbuf b = { 0 };
	char *s;

	jb_key(&b, "first");
	jb_int(&b, 1);
	s = jb_finish(&b);
	is_str(s, "\"first\":1", "jb_key on an empty buffer: no comma");
	free(s);

	jb_raw(&b, "{");
	jb_key(&b, "a");
	jb_int(&b, -5);
	jb_key(&b, "b");
	jb_str(&b, "x");
	jb_key(&b, "c");
	jb_raw(&b, "{");
	jb_key(&b, "d");
	jb_bool(&b, 1);
	jb_key(&b, "e");
	jb_str(&b, NULL);
	jb_raw(&b, "}");
	jb_key(&b, "f");
	jb_raw(&b, "[1,2]");
	jb_key(&b, "q\"\n");
	jb_bool(&b, 0);
	jb_raw(&b, "}");
	s = jb_finish(&b);
	is_str(s,
	       "{\"a\":-5,\"b\":\"x\",\"c\":{\"d\":true,\"e\":null},\"f\":[1,2],\"q\\\"\\n\":false}",
	       "jb_key commas: none after '{', one between members");
	free(s);
}

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

/* Random bytes biased toward the interesting: valid sequences of every
 * length, surrogates, U+2028/2029, controls, stray and truncated bytes. */
static size_t random_bytes(unsigned char *buf, size_t max)
{
	size_t n = 0, want = rng() % max;
	while (n + 4 <= want) {
		uint32_t r = rng();
		switch (r % 6) {
		case 0:
			buf[n++] = (unsigned char)(rng() & 0xff);
			break;
		case 1:
			buf[n++] = (unsigned char)(rng() % 0x80);
			break;
		case 2: {
			static const long edges[] = { 0x80,   0x7ff,  0x800,   0xd7ff,	 0xd800,
						      0xdc80, 0xdfff, 0xe000,  0xfffd,	 0xffff,
						      0x2028, 0x2029, 0x10000, 0x10ffff, 0x110000 };
			long cp = edges[rng() % (sizeof(edges) / sizeof(edges[0]))];
			n += put_utf8(buf + n, cp);
			break;
		}
		case 3:
			n += put_utf8(buf + n, (long)(rng() % 0x110000));
			break;
		case 4: {
			unsigned char tmp[4];
			size_t k = put_utf8(tmp, 0x80 + (long)(rng() % 0x10ff80));
			size_t cut = k > 1 ? 1 + rng() % (k - 1) : 1;
			memcpy(buf + n, tmp, cut); /* truncated sequence */
			n += cut;
			break;
		}
		default:
			buf[n++] = "\"\\\n\t\r\x7f/\0"[rng() % 8];
			break;
		}
	}
	return n;
}

static void test_round_trip(void)
{
	enum { ROUNDS = 5000, MAXLEN = 96 };
	unsigned char in[MAXLEN], out[MAXLEN * 6 + 16];
	int bad_decode = 0, bad_safe = 0, bad_ascii = 0;

	diag("round trip: %d random strings, seed %#llx", ROUNDS, (unsigned long long)rng_state);
	for (int r = 0; r < ROUNDS; r++) {
		size_t n = random_bytes(in, MAXLEN);
		int ascii_in = 1;
		for (size_t i = 0; i < n; i++)
			ascii_in &= in[i] < 0x80;
		char *j = esc((const char *)in, n);
		if (j == NULL)
			abort();
		size_t jn = strlen(j);
		long d = decode(j, jn, out);
		if (d != (long)n || memcmp(in, out, n) != 0) {
			if (bad_decode++ == 0)
				diag("first mismatch at round %d: %s", r, j);
		}
		if (!safe_text(j, jn))
			bad_safe++;
		for (size_t i = 0; ascii_in && i < jn; i++)
			if ((unsigned char)j[i] >= 0x80) {
				bad_ascii++;
				break;
			}
		free(j);
	}
	is_int(bad_decode, 0, "round trip: decode(escape(x)) == x for %d strings", ROUNDS);
	is_int(bad_safe, 0, "round trip: output is valid UTF-8 with no raw control or U+2028/9");
	is_int(bad_ascii, 0, "round trip: ASCII input gives ASCII output");

	/* Every single byte and every byte pair, exhaustively. */
	int bad_pairs = 0;
	for (int a = 0; a < 256; a++) {
		for (int c = 0; c < 256; c++) {
			unsigned char p[2] = { (unsigned char)a, (unsigned char)c };
			char *j = esc((const char *)p, 2);
			if (j == NULL)
				abort();
			long d = decode(j, strlen(j), out);
			if (d != 2 || memcmp(p, out, 2) != 0 || !safe_text(j, strlen(j)))
				bad_pairs++;
			free(j);
		}
	}
	is_int(bad_pairs, 0, "round trip: all 65536 byte pairs");

	/* The decoder itself must reject what is not one JSON string. */
	ok(decode("\"a", 2, out) < 0, "decoder rejects an unterminated string");
	ok(decode("\"\\x\"", 4, out) < 0, "decoder rejects an unknown escape");
	ok(decode("\"\n\"", 3, out) < 0, "decoder rejects a raw newline");
	ok(decode("\"\\udc41\"", 8, out) < 0, "decoder rejects \\udc41 (not an escaped byte)");
	ok(decode("\"\\ud800\"", 8, out) < 0, "decoder rejects a lone high surrogate");
	is_int(decode("\"\\ud83d\\ude00\"", 14, out), 4, "decoder joins a surrogate pair");
}

int main(void)
{
	test_ascii_escapes();
	test_utf8_valid();
	test_utf8_invalid();
	test_seq_len();
	test_values();
	test_keys();
	test_round_trip();
	return done_testing();
}
