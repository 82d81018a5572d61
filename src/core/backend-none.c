/*
 * The backend of a platform cordon cannot confine: always unavailable, so
 * "auto" runs unconfined with a warning and "required" refuses.
 */
#include "backend.h"

static void none_probe(int max_abi, struct backend_probe *out)
{
	(void)max_abi;
	*out = (struct backend_probe){ .reason = REASON_NO_BACKEND };
}

static void none_coverage(int abi, struct coverage *out)
{
	(void)abi;
	*out = (struct coverage){ 0 };
}

static int none_prepare(cordon *c, const struct policy *pol, const struct decision *dec,
			struct launch *out)
{
	(void)pol;
	(void)dec;
	(void)out;
	return cordon_fail(c, CORDON_EUNAVAILABLE, "no confinement backend on this platform");
}

const struct backend cordon_backend_none = {
	.id = BACKEND_NONE,
	.probe = none_probe,
	.coverage = none_coverage,
	.prepare = none_prepare,
};
