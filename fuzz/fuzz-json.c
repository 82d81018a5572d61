/*
 * Fuzz target for the JSON writer. The input, as one string, must come out
 * as a valid JSON text that decodes (undoing surrogateescape: a lone
 * \uDC80..\uDCFF is the original byte) to exactly the input bytes. The
 * text holds no raw control character, DEL, U+2028 or U+2029, and is pure
 * ASCII whenever the input is. An object built with jb_key, jb_int and
 * jb_bool around the same string must be valid JSON too.
 */
#include "json-check.h"
#include "json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	long d = decode(t, n, out);
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
