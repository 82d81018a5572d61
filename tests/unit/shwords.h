/*
 * An independent reader of POSIX shell words, for the tests of cordon
 * hook's quoting (test-hook.c, fuzz-hook.c): nothing here calls hook.c.
 *
 *   split_words(s, &w)   blanks separate words; '...' keeps every byte,
 *                        \x is x; anything else a shell would expand or
 *                        act on ($ ; | " ...) outside quotes: -1
 */
#ifndef CORDON_SHWORDS_H
#define CORDON_SHWORDS_H

#include <stdlib.h>
#include <string.h>

struct words {
	char *w[8];
	size_t len[8];
	size_t n;
};

static inline int split_words(const char *s, struct words *out)
{
	memset(out, 0, sizeof(*out));
	size_t n = strlen(s), i = 0;
	while (i < n) {
		while (i < n && s[i] == ' ')
			i++;
		if (i == n)
			break;
		if (out->n == 8)
			return -1;
		char *w = malloc(n + 1);
		if (w == NULL)
			return -1;
		size_t k = 0;
		while (i < n && s[i] != ' ') {
			if (s[i] == '\'') {
				const char *e = memchr(s + i + 1, '\'', n - i - 1);
				if (e == NULL) {
					free(w);
					return -1;
				}
				memcpy(w + k, s + i + 1, (size_t)(e - s) - i - 1);
				k += (size_t)(e - s) - i - 1;
				i = (size_t)(e - s) + 1;
			} else if (s[i] == '\\' && i + 1 < n) {
				w[k++] = s[i + 1];
				i += 2;
			} else if (strchr("\"$`;|&<>(){}*?[]~#\n\t", s[i]) != NULL) {
				free(w);
				return -1;
			} else {
				w[k++] = s[i++];
			}
		}
		w[k] = '\0';
		out->w[out->n] = w;
		out->len[out->n++] = k;
	}
	return 0;
}

static inline void words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
}

#endif
