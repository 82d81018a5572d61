/*
 * The command's environment (design section 5). Pure: built from the
 * parent's environment array and the options, so it is unit-tested
 * directly.
 *
 *   - --env NAME=VALUE sets NAME; --env NAME passes the caller's NAME.
 *   - The default list (cordon_default_deny_env()) keeps the caller's
 *     secrets out by name, unless --env names them; the names kept out
 *     are reported (never the values). git's configuration variables
 *     are kept out by what their values set (git_config_secret).
 *   - --clean-env passes only PATH, HOME, USER, LOGNAME, SHELL, LANG,
 *     LC_*, TERM, TZ and the names given with --env.
 *   - With a run temp dir, TMPDIR is that dir; an inherited TMPDIR never
 *     reaches the command unless --env TMPDIR[=...] names it explicitly.
 *   - The variables cordon sets (the caches it moved under its state
 *     dir) replace the caller's and pass --clean-env; --env naming one
 *     wins over it.
 *   - When confined, CORDON_RUN_ID is the run's id (the status events'),
 *     replacing an inherited one, as TMPDIR is set: it names the
 *     innermost run that confines the command. Not confined, nothing is
 *     set, and an inherited one (an outer run's, which still confines)
 *     passes like any other name.
 */
#include "cordon.h"
#include "env.h"

#include <stdio.h>
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

/*
 * Names whose value is a secret, by the end of the name: a token, a
 * password, an API or private key, a client secret. Only the last words
 * count, so a name that says where a secret is (HF_TOKEN_PATH,
 * AWS_WEB_IDENTITY_TOKEN_FILE, PASSWORD_STORE_DIR) or that merely starts
 * with such a word (TOKENIZERS_PARALLELISM, KEYTIMEOUT) passes: a file
 * it names is the deny-read list's business. A bare "*_KEY"
 * is not on it (cache keys, key ids, GPG_KEY...), nor are values such as
 * a DATABASE_URL that may or may not hold a password. Then the names of
 * well-known tools that no pattern catches.
 *
 * Words are matched at an underscore in general (a camelCase "dbPassword"
 * is not matched: "NOPASSWORD" and the like would be). Two families of
 * names carry a tool's own camelCase keys, and there the word alone
 * counts: npm's configuration (npm_config__authToken, and its per
 * registry form npm_config_//HOST/:_authToken) and Gradle's project
 * properties (ORG_GRADLE_PROJECT_signingKey, ...Password, ...Token).
 */
static const char *const deny_env[] = {
	/* the word alone, or the last words of a longer name */
	"TOKEN",
	"*_TOKEN",
	"SECRET",
	"*_SECRET",
	"SECRET_KEY",
	"*_SECRET_KEY",
	"PASSWORD",
	"*_PASSWORD",
	"PASSWD",
	"*_PASSWD",
	"API_KEY",
	"*_API_KEY",
	"APIKEY",
	"*_APIKEY",
	"ACCESS_KEY",
	"*_ACCESS_KEY",
	"PRIVATE_KEY",
	"*_PRIVATE_KEY",
	"CREDENTIALS",
	"*_CREDENTIALS",
	"PASSPHRASE",
	"*_PASSPHRASE",
	"*_PAT", /* a personal access token (AZURE_DEVOPS_EXT_PAT, GH_PAT) */
	"MASTER_KEY",
	"*_MASTER_KEY", /* RAILS_MASTER_KEY */
	"SECRET_KEY_BASE",
	"*_SECRET_KEY_BASE",
	"CONNECTION_STRING",
	"*_CONNECTION_STRING", /* Azure's: the account key in it */
	"JWT",
	"*_JWT",
	/* npm's configuration: _authToken, _auth (user:password in base64),
	 * _password, for the default registry or per registry */
	"NPM_CONFIG_*AUTHTOKEN",
	"NPM_CONFIG_*_AUTH",
	"NPM_CONFIG_*_PASSWORD",
	/* Gradle's project properties, camelCase */
	"ORG_GRADLE_PROJECT_*KEY",
	"ORG_GRADLE_PROJECT_*PASSWORD",
	"ORG_GRADLE_PROJECT_*TOKEN",
	"ORG_GRADLE_PROJECT_*SECRET",
	"ORG_GRADLE_PROJECT_*PASSPHRASE",
	/* tools' own names (AWS, R's GitHub packages, libpq, mysql, redis-cli,
	 * Composer, Bitwarden and 1Password CLIs, Terraform) */
	"AWS_ACCESS_KEY_ID",
	"GITHUB_PAT",
	"PGPASSWORD",
	"MYSQL_PWD",
	"REDISCLI_AUTH",
	"COMPOSER_AUTH",
	"BW_SESSION",
	"OP_SESSION_*",
	"TF_TOKEN_*",
	"DOCKER_AUTH_CONFIG", /* GitLab's: registry logins as JSON */
	"SENTRY_DSN", /* its key in the URL */
	NULL,
};

const char *const *cordon_default_deny_env(void)
{
	return deny_env;
}

static int upper(unsigned char ch)
{
	return ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch;
}

/* name[0..n) against pat: '*' matches any run of characters, none too;
 * letters match in either case. The last '*' is retried one character
 * further on a mismatch, which is enough with '*' the only wildcard. */
static int glob_match(const char *pat, const char *name, size_t n)
{
	const char *star = NULL;
	size_t i = 0, resume = 0;
	while (i < n) {
		if (*pat == '*') {
			star = pat++;
			resume = i;
		} else if (*pat != '\0' &&
			   upper((unsigned char)*pat) == upper((unsigned char)name[i])) {
			pat++;
			i++;
		} else if (star != NULL) {
			pat = star + 1;
			i = ++resume;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

int env_name_secret(const char *name, size_t n)
{
	for (size_t i = 0; deny_env[i] != NULL; i++)
		if (glob_match(deny_env[i], name, n))
			return 1;
	return 0;
}

/* s (case-insensitively) holds word. */
static int has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s != '\0'; s++) {
		size_t i = 0;
		while (i < n && s[i] != '\0' &&
		       upper((unsigned char)s[i]) == upper((unsigned char)word[i]))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

/*
 * git's configuration given in the environment (git -c's
 * GIT_CONFIG_PARAMETERS, and GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and
 * GIT_CONFIG_VALUE_n) carries a secret when a key or value sets an HTTP
 * header (http.extraHeader: "Authorization: Bearer ..."), a credential
 * helper or a password, or holds a URL with a user and password
 * (url.https://x:TOKEN@host/.insteadOf). Such a value is judged, not only
 * its name: the same variables carry harmless settings
 * (safe.directory) that a command may need.
 */
static int git_config_secret(const char *value)
{
	static const char *const words[] = { "extraheader", "credential", "authorization", "token",
					     "password",    "passwd",	  "secret" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (has_word(value, words[i]))
			return 1;
	for (const char *u = strstr(value, "://"); u != NULL; u = strstr(u + 3, "://")) {
		const char *end = u + 3 + strcspn(u + 3, "/ \t'\"");
		const char *at = memchr(u + 3, '@', (size_t)(end - u - 3));
		if (at != NULL && memchr(u + 3, ':', (size_t)(at - u - 3)) != NULL)
			return 1;
	}
	return 0;
}

enum git_env { GIT_ENV_NONE, GIT_ENV_PARAMETERS, GIT_ENV_PAIRS };

/* Which of git's configuration variables entry is, if any. */
static enum git_env git_env_kind(const char *entry)
{
	size_t n = name_len(entry);
	if (n == 21 && strncmp(entry, "GIT_CONFIG_PARAMETERS", n) == 0)
		return GIT_ENV_PARAMETERS;
	if ((n == 16 && strncmp(entry, "GIT_CONFIG_COUNT", n) == 0) ||
	    (n > 15 && strncmp(entry, "GIT_CONFIG_KEY_", 15) == 0) ||
	    (n > 17 && strncmp(entry, "GIT_CONFIG_VALUE_", 17) == 0))
		return GIT_ENV_PAIRS;
	return GIT_ENV_NONE;
}

/* Bits (1 << GIT_ENV_*) of the kinds whose variables carry a secret:
 * the pairs go all together, COUNT and every KEY_n and VALUE_n. */
static unsigned git_env_secrets(const char *const *env)
{
	unsigned bits = 0;
	for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
		enum git_env k = git_env_kind(env[i]);
		const char *eq = strchr(env[i], '=');
		if (k != GIT_ENV_NONE && eq != NULL && git_config_secret(eq + 1))
			bits |= 1u << k;
	}
	return bits;
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

/* The entry of set (NAME=VALUE) for the name of entry, or NULL. */
static const char *set_for(const char *entry, const struct env_opts *o)
{
	for (size_t i = 0; i < o->nset; i++)
		if (same_name(o->set[i], entry))
			return o->set[i];
	return NULL;
}

/* NAME (of entry) once in removed, without its value. */
static int note_removed(struct strv *removed, const char *entry)
{
	size_t n = name_len(entry);
	for (size_t i = 0; i < removed->n; i++)
		if (strlen(removed->v[i]) == n && strncmp(removed->v[i], entry, n) == 0)
			return 0;
	char *name = malloc(n + 1);
	if (name == NULL)
		return -1;
	memcpy(name, entry, n);
	name[n] = '\0';
	return strv_take(removed, name);
}

/* NAME=VALUE (prefix "NAME=") added to out. 0 or -1. */
static int put(struct strv *out, const char *prefix, const char *value)
{
	size_t n = strlen(prefix) + strlen(value) + 1;
	char *t = malloc(n);
	if (t == NULL)
		return -1;
	snprintf(t, n, "%s%s", prefix, value);
	return strv_take(out, t);
}

char **env_build(const char *const *parent_env, const struct env_opts *o, struct strv *removed)
{
	struct strv out = { 0 };
	int tmpdir_explicit = 0;
	unsigned git_secret = o->drop_secrets ? git_env_secrets(parent_env) : 0;

	for (size_t i = 0; parent_env != NULL && parent_env[i] != NULL; i++) {
		const char *e = parent_env[i];
		if (strchr(e, '=') == NULL)
			continue;
		const char *spec = spec_for(e, o->specs, o->nspecs);
		if (spec != NULL && strchr(spec, '=') != NULL)
			continue; /* replaced by the spec's value below */
		int is_tmpdir = same_name(e, "TMPDIR");
		if (spec == NULL && set_for(e, o) != NULL)
			continue; /* cordon sets it below */
		if (spec == NULL && o->run_id != NULL && same_name(e, "CORDON_RUN_ID"))
			continue; /* likewise */
		if (spec != NULL) {
			/* named explicitly: passes even when clean, even TMPDIR,
			 * even a secret */
			tmpdir_explicit |= is_tmpdir;
		} else if (o->drop_secrets && (env_name_secret(e, name_len(e)) ||
					       (git_secret & (1u << git_env_kind(e))))) {
			if (removed != NULL && note_removed(removed, e) != 0)
				goto fail;
			continue;
		} else if ((is_tmpdir && (o->tmpdir != NULL || o->clean)) ||
			   (o->clean && !clean_allowed(e))) {
			continue;
		}
		if (strv_push(&out, e) != 0)
			goto fail;
	}
	for (size_t i = 0; i < o->nspecs; i++) {
		const char *spec = o->specs[i];
		if (strchr(spec, '=') == NULL)
			continue;
		if (spec_for(spec, o->specs, o->nspecs) != spec)
			continue; /* a later spec names the same variable */
		tmpdir_explicit |= same_name(spec, "TMPDIR");
		if (strv_push(&out, spec) != 0)
			goto fail;
	}
	for (size_t i = 0; i < o->nset; i++)
		if (spec_for(o->set[i], o->specs, o->nspecs) == NULL &&
		    set_for(o->set[i], o) == o->set[i] && strv_push(&out, o->set[i]) != 0)
			goto fail;
	if (o->tmpdir != NULL && !tmpdir_explicit && put(&out, "TMPDIR=", o->tmpdir) != 0)
		goto fail;
	if (o->run_id != NULL && spec_for("CORDON_RUN_ID", o->specs, o->nspecs) == NULL &&
	    put(&out, "CORDON_RUN_ID=", o->run_id) != 0)
		goto fail;
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
