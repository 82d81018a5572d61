/*
 * The command's environment (env.c): pure, unit-tested and fuzzed.
 */
#ifndef CORDON_ENV_H
#define CORDON_ENV_H

#include "strv.h"

#include <stddef.h>

struct env_opts {
	int clean; /* --clean-env: only the allow-list and the specs */
	int drop_secrets; /* names on cordon_default_deny_env() stay out */
	const char *const *specs; /* --env NAME / NAME=VALUE, in the order given */
	size_t nspecs;
	const char *tmpdir; /* the run's temp dir (TMPDIR), or NULL */
	/* The run's id when it is confined (CORDON_RUN_ID), or NULL: then an
	 * inherited CORDON_RUN_ID (an outer run's) passes as any name does. */
	const char *run_id;
	/* NAME=VALUE entries cordon sets (the caches it moved): they replace
	 * the caller's NAME and pass --clean-env; an --env naming NAME wins. */
	const char *const *set;
	size_t nset;
};
/* The command's environment from parent_env (NULL-terminated, or NULL):
 * a new array for env_free(), NULL when out of memory. The names that
 * drop_secrets kept out are added to removed (when not NULL), each once,
 * without values; the caller frees it, after a failure too. */
char **env_build(const char *const *parent_env, const struct env_opts *o, struct strv *removed);
/* The n bytes of name match an entry of cordon_default_deny_env(). */
int env_name_secret(const char *name, size_t n);
void env_free(char **envp);
int env_spec_valid(const char *spec);

#endif
