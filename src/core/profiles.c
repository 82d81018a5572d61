/*
 * The named profiles: policies compiled into the library, so that what a
 * profile means is the library's own (no file on disk a confined run or
 * another user could change, none to install), and a profile's text is
 * read by the same parser as a policy file (policyfile.c). The first
 * line of each is a comment saying what it is for (cordon profile list).
 */
#include "profiles.h"

#include <string.h>

static const struct profile profiles[] = {
	{ "agent", "# An agent's shell commands: no network, a scratch home.\n"
		   "# Writes under the home succeed and are thrown away when the run ends.\n"
		   "network off\n"
		   "scratch-home\n" },
	{ "install", "# Dependency installs: the network only to the package registries.\n"
		     "# npm, PyPI, crates.io, the Go module proxy and GitHub, through cordon's\n"
		     "# proxy; the default tool caches stay writable.\n"
		     "network allow=@npm,@pypi,@crates,@go,@github\n" },
	{ "verify", "# A project's own checks (build, tests): no network, a scratch home.\n"
		    "network off\n"
		    "scratch-home\n" },
	{ "default", "# Nothing added: cordon's own defaults.\n" },
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

static const char *const names[NPROFILES + 1] = { "agent", "install", "verify", "default", NULL };

const struct profile *profile_find(const char *name)
{
	for (size_t i = 0; name != NULL && i < NPROFILES; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const char *const *cordon_profile_names(void)
{
	return names;
}

const char *cordon_profile_text(const char *name)
{
	const struct profile *p = profile_find(name);
	return p != NULL ? p->text : NULL;
}
