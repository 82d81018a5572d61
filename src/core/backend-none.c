/*
 * The backend of a platform cordon cannot confine: always unavailable, so
 * "auto" runs unconfined with a warning and "required" refuses.
 */
#include "backend.h"

static void none_probe(const struct probe_opts *o, struct backend_probe *out)
{
	(void)o;
	if (out != NULL)
		*out = (struct backend_probe){ .reason = REASON_NO_BACKEND };
}

static int none_prepare(const struct run_spec *run, struct run_result *res)
{
	(void)run;
	return backend_fail(res, CORDON_EUNAVAILABLE, "no confinement backend on this platform");
}

const struct backend cordon_backend_none = {
	.id = BACKEND_NONE,
	.probe = none_probe,
	.prepare = none_prepare,
};
