/*
 * A strict JSON parser (RFC 8259) for untrusted input, pure: the hook
 * entry point reads an agent's tool call with it (cli/hook.c).
 *
 * Strict means: exactly one value with only JSON's four whitespace bytes
 * around it (no byte order mark, no comments, no trailing commas), the
 * number grammar of RFC 8259 section 6, strings of valid UTF-8 with no raw
 * control character, escapes that name Unicode scalar values only (a
 * surrogate escape must be a high one followed by a low one), and objects
 * whose member names, compared after decoding, are all different. A
 * duplicate name is refused rather than resolved: parsers disagree on which
 * of two "command" members wins, and the one cordon confined must be the
 * one the agent runs. Bounded: the caller gives the largest input and the
 * deepest nesting it accepts; the work is O(n log n) in the input's size.
 *
 * The document is a flat array of nodes in the order of the text: a node's
 * first child (array element or object member) is the node right after it,
 * and each child names its next sibling. Strings are decoded (they may
 * hold NUL bytes; a NUL follows each one as well); numbers keep their text.
 */
#ifndef CORDON_JSONPARSE_H
#define CORDON_JSONPARSE_H

#include <stddef.h>

#include "json.h"

enum jp_kind { JP_NULL, JP_FALSE, JP_TRUE, JP_NUMBER, JP_STRING, JP_ARRAY, JP_OBJECT };

#define JP_NONE ((size_t)-1)

struct jp_node {
	enum jp_kind kind;
	const char *key; /* the member's decoded name, or NULL outside an object */
	size_t keylen;
	const char *s; /* a string's decoded bytes; a number's text */
	size_t len;
	size_t n; /* an array's elements, an object's members */
	size_t next; /* the next sibling, or JP_NONE */
};

struct jp_doc {
	struct jp_node *nodes; /* nodes[0] is the value */
	size_t count, cap;
	char *arena; /* the decoded strings */
};

/* The largest input (bytes) and nesting (arrays and objects) accepted. */
struct jp_limits {
	size_t max_size;
	unsigned max_depth;
};

/* Parses text[0..len). 0, or -1 with err set to one line ("at byte N:
 * ..."); jp_free(doc) either way. */
int jp_parse(const char *text, size_t len, const struct jp_limits *lim, struct jp_doc *doc,
	     char *err, size_t errlen);
void jp_free(struct jp_doc *doc);

/* The member of object node obj named key (key bytes, NUL-free), or
 * JP_NONE (also when obj is not an object). */
size_t jp_member(const struct jp_doc *doc, size_t obj, const char *key);
/* The child after child (JP_NONE at the end); the first is jp_first. */
size_t jp_first(const struct jp_doc *doc, size_t node);

/* Writes node i as compact JSON; the node subst (JP_NONE: none) is
 * written as the string s[0..slen) instead. Strings and names go through
 * jb_strn; numbers as they were given. */
void jp_emit(struct jbuf *b, const struct jp_doc *doc, size_t i, size_t subst, const char *s,
	     size_t slen);

#endif
