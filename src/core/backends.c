/*
 * Which backend this platform uses (one line per platform), and the
 * release of what any backend's prepare() made.
 */
#include "backend.h"

#include <stdlib.h>
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
