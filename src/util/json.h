/*
 * A small JSON writer (pure). Strings are arbitrary bytes: valid UTF-8 is
 * written as is, control characters, '"', '\\', DEL, U+2028 and U+2029 are
 * escaped, and every byte that is not part of valid UTF-8 is written as a
 * lone surrogate escape \uDC80..\uDCFF (the "surrogateescape" convention),
 * so no byte of a path is lost. The output is valid UTF-8 JSON (pure ASCII
 * when the input is) with no raw control characters in it.
 * Python reads it back with json.loads(s) and
 * value.encode("utf-8", "surrogateescape").
 */
#ifndef CORDON_JSON_H
#define CORDON_JSON_H

#include <stddef.h>

struct jbuf {
	char *p;
	size_t len, cap;
	int failed; /* out of memory: every later call is a no-op */
};

void jb_raw(struct jbuf *b, const char *s);
void jb_rawn(struct jbuf *b, const char *s, size_t n);
/* Quoted, escaped string of n bytes. */
void jb_strn(struct jbuf *b, const char *s, size_t n);
/* Quoted string, or null when s is NULL. */
void jb_str(struct jbuf *b, const char *s);
void jb_int(struct jbuf *b, long long v);
void jb_bool(struct jbuf *b, int v);
/* ,"key": (the comma only when something precedes inside the object) */
void jb_key(struct jbuf *b, const char *key);
/* Returns the NUL-terminated text (caller frees) or NULL on failure. */
char *jb_finish(struct jbuf *b);

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when s[0] does not
 * start one within n bytes. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

#endif
