/*
 * The named profiles compiled into the library (profiles.c).
 */
#ifndef CORDON_PROFILES_H
#define CORDON_PROFILES_H

#include "cordon.h"

struct profile {
	const char *name;
	const char *text; /* in the policy file format */
};

/* The profile of that name, or NULL. */
const struct profile *profile_find(const char *name);

#endif
