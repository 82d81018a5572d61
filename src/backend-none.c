/*
 * The backend of a platform cordon cannot confine: always unavailable, so
 * "auto" runs unconfined with a warning and "required" refuses.
 */
#include "backend.h"

#include <errno.h>

static void none_probe(int max_abi, struct backend_probe *out)
{
	(void)max_abi;
	out->available = 0;
	out->reason = "no_backend";
	out->abi = 0;
	out->kernel_abi = 0;
}

static void none_coverage(int abi, unsigned *layers, unsigned *gaps)
{
	(void)abi;
	*layers = 0;
	*gaps = 0;
}

static int none_prepare(cordon *c, struct prepared *out)
{
	(void)out;
	return cordon_fail(c, CORDON_EUNAVAILABLE, "no confinement backend on this platform");
}

static int none_apply(const struct prepared *p)
{
	(void)p;
	return ENOSYS; /* never reached: prepare refuses */
}

static void none_release(struct prepared *p)
{
	(void)p;
}

const struct backend cordon_backend_none = {
	.name = "none",
	.probe = none_probe,
	.coverage = none_coverage,
	.prepare = none_prepare,
	.apply = none_apply,
	.release = none_release,
};

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
