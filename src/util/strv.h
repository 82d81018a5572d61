/*
 * A growable, NULL-terminated vector of owned strings (strv.c).
 */
#ifndef CORDON_STRV_H
#define CORDON_STRV_H

#include <stddef.h>

struct strv {
	char **v; /* NULL-terminated when n > 0 */
	size_t n, cap;
};
int strv_push(struct strv *s, const char *str); /* copies str */
int strv_take(struct strv *s, char *str); /* takes ownership */
void strv_free(struct strv *s);

#endif
