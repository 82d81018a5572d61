/*
 * Which backend this platform uses (one line per platform), the
 * release of what any backend's prepare() made, and the message of a
 * failed prepare.
 */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct backend *backend_for_platform(void)
{
#if defined(__linux__)
	return &cordon_backend_landlock;
#elif defined(__APPLE__)
	return &cordon_backend_seatbelt;
#else
	return &cordon_backend_none;
#endif
}

void launch_release(struct launch *l)
{
	if (l->release != NULL)
		l->release((void *)l->state);
	for (size_t i = 0; i < l->nprefix; i++)
		free(l->argv_prefix[i]);
	free(l->argv_prefix);
	free(l->keep_fds);
	*l = (struct launch){ 0 };
}

int backend_fail(struct run_result *res, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->error, sizeof(res->error), fmt, ap);
	va_end(ap);
	return code;
}

int backend_fail_errno(struct run_result *res, int code, int err, const char *fmt, ...)
{
	va_list ap;
	char msg[400];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return backend_fail(res, code, "%s: %s", msg, strerror(err));
}
