/*
 * The command's environment (design section 5). Pure: built from the
 * parent's environment array and the options, so it is unit-tested
 * directly.
 *
 *   - --env NAME=VALUE sets NAME; --env NAME passes the caller's NAME.
 *   - --clean-env passes only PATH, HOME, USER, LOGNAME, SHELL, LANG,
 *     LC_*, TERM, TZ and the names given with --env.
 *   - With a run temp dir, TMPDIR is that dir; an inherited TMPDIR never
 *     reaches the command unless --env TMPDIR[=...] names it explicitly.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');
	return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int same_name(const char *a, const char *b)
{
	size_t n = name_len(a);
	return n == name_len(b) && strncmp(a, b, n) == 0;
}

/* NAME or NAME=VALUE; NAME as POSIX names environment variables in the
 * shell: letters, digits and '_', not starting with a digit. */
int env_spec_valid(const char *spec)
{
	const char *p = spec;
	if (spec == NULL || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
		return 0;
	for (p++; *p != '\0' && *p != '='; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

static int clean_allowed(const char *entry)
{
	static const char *const names[] = {
		"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TZ",
	};
	size_t n = name_len(entry);
	if (n >= 3 && strncmp(entry, "LC_", 3) == 0)
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncmp(entry, names[i], n) == 0)
			return 1;
	return 0;
}

/* The spec that decides NAME: the last one naming it, or NULL. */
static const char *spec_for(const char *entry, const char *const *specs, size_t nspecs)
{
	const char *found = NULL;
	for (size_t i = 0; i < nspecs; i++)
		if (same_name(specs[i], entry))
			found = specs[i];
	return found;
}

char **env_build(const char *const *parent_env, int clean, const char *const *specs, size_t nspecs,
		 const char *tmpdir)
{
	struct strv out = { 0 };
	int tmpdir_explicit = 0;

	for (size_t i = 0; parent_env != NULL && parent_env[i] != NULL; i++) {
		const char *e = parent_env[i];
		if (strchr(e, '=') == NULL)
			continue;
		const char *spec = spec_for(e, specs, nspecs);
		if (spec != NULL && strchr(spec, '=') != NULL)
			continue; /* replaced by the spec's value below */
		int is_tmpdir = same_name(e, "TMPDIR");
		if (spec != NULL) {
			/* named explicitly: passes even when clean, even TMPDIR */
			tmpdir_explicit |= is_tmpdir;
		} else if ((is_tmpdir && (tmpdir != NULL || clean)) ||
			   (clean && !clean_allowed(e))) {
			continue;
		}
		if (strv_push(&out, e) != 0)
			goto fail;
	}
	for (size_t i = 0; i < nspecs; i++) {
		if (strchr(specs[i], '=') == NULL)
			continue;
		if (spec_for(specs[i], specs, nspecs) != specs[i])
			continue; /* a later spec names the same variable */
		tmpdir_explicit |= same_name(specs[i], "TMPDIR");
		if (strv_push(&out, specs[i]) != 0)
			goto fail;
	}
	if (tmpdir != NULL && !tmpdir_explicit) {
		size_t n = strlen(tmpdir) + sizeof("TMPDIR=");
		char *t = malloc(n);
		if (t == NULL)
			goto fail;
		memcpy(t, "TMPDIR=", 7);
		memcpy(t + 7, tmpdir, n - 7);
		if (strv_take(&out, t) != 0)
			goto fail;
	}
	if (out.v == NULL)
		out.v = calloc(1, sizeof(char *)); /* empty, NULL-terminated */
	return out.v;
fail:
	strv_free(&out);
	return NULL;
}

void env_free(char **envp)
{
	if (envp == NULL)
		return;
	for (size_t i = 0; envp[i] != NULL; i++)
		free(envp[i]);
	free(envp);
}
