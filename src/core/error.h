/*
 * A handle's last error, per thread (error.c).
 */
#ifndef CORDON_ERROR_H
#define CORDON_ERROR_H

#include "cordon.h"

/* Set the calling thread's last error for c (at most 511 bytes) and
 * return code. */
int cordon_fail(cordon *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cordon_fail_errno(cordon *c, int code, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A new handle's id, never reused: it tags the handle's errors. */
unsigned long error_new_id(void);

#endif
