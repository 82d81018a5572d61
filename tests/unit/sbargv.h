/*
 * The Seatbelt unit tests' shared helpers (test-seatbelt-argv.c,
 * test-seatbelt-held.c): build a policy's sandbox-exec argv, and read a
 * -D parameter back from it. Needs seatbelt.h and strv.h.
 */
#ifndef CORDON_SBARGV_H
#define CORDON_SBARGV_H

#include <string.h>

static int build(const struct policy *p, struct strv *out, struct sb_shape *shape)
{
	memset(out, 0, sizeof(*out));
	return seatbelt_argv(p, SEATBELT_EXEC, out, shape);
}

/* The -D value named key in argv, or NULL. */
static const char *param_value(const struct strv *argv, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 3; i + 1 < argv->n; i += 2)
		if (strcmp(argv->v[i], "-D") == 0 && strncmp(argv->v[i + 1], key, k) == 0 &&
		    argv->v[i + 1][k] == '=')
			return argv->v[i + 1] + k + 1;
	return NULL;
}

#endif
