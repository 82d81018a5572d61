/*
 * Error reporting. The last error is per thread and per handle (as errno,
 * and libgit2's git_error_last): a thread's failing call writes only that
 * thread's slot, tagged with the handle's id, so a message can neither be
 * torn nor replaced by another thread's failure while it is read. Ids are
 * never reused, so a new handle at a freed one's address starts clean.
 */
#include "handle.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local struct {
	unsigned long id; /* the handle the message belongs to, 0: none */
	char msg[512];
} last_err;

unsigned long error_new_id(void)
{
	static unsigned long counter;
	return __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
}

int cordon_fail(cordon *c, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_err.msg, sizeof(last_err.msg), fmt, ap);
	va_end(ap);
	last_err.id = c->id;
	return code;
}

int cordon_fail_errno(cordon *c, int code, int err, const char *fmt, ...)
{
	va_list ap;
	char msg[400];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cordon_fail(c, code, "%s: %s", msg, strerror(err));
}

const char *cordon_last_error(const cordon *c)
{
	if (c == NULL)
		return "no handle";
	return last_err.id == c->id ? last_err.msg : "";
}
