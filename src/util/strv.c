/* A growable, NULL-terminated vector of owned strings. */
#include "strv.h"

#include "cordon.h"

#include <stdlib.h>
#include <string.h>

int strv_take(struct strv *s, char *str)
{
	if (str == NULL)
		return CORDON_ENOMEM;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof(*v));
		if (v == NULL) {
			free(str);
			return CORDON_ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

int strv_push(struct strv *s, const char *str)
{
	return strv_take(s, strdup(str));
}

void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
