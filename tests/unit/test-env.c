/* Unit tests for the command's environment (src/core/env.c). */
#include "cordon.h"
#include "env.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The built environment joined with '|' (static), or "(null)". */
static const char *joined(char **envp)
{
	static char buf[4096];
	size_t len = 0;

	if (envp == NULL)
		return "(null)";
	buf[0] = '\0';
	for (size_t i = 0; envp[i] != NULL; i++) {
		size_t n = strlen(envp[i]);
		if (len + n + 2 > sizeof(buf))
			abort();
		if (i > 0)
			buf[len++] = '|';
		memcpy(buf + len, envp[i], n + 1);
		len += n;
	}
	return buf;
}

/* Build (the default list off) and compare against want (entries joined
 * with '|'), in order. */
static void check(const char *const *parent, int clean, const char *const *specs, size_t nspecs,
		  const char *tmpdir, const char *want, const char *name)
{
	struct env_opts o = { .clean = clean, .specs = specs, .nspecs = nspecs, .tmpdir = tmpdir };
	char **e = env_build(parent, &o, NULL);
	is_str(joined(e), want, "%s", name);
	env_free(e);
}

/* The same with the default list on: the environment, then the removed
 * names, both joined with '|'. */
static void check_secrets(const char *const *parent, int clean, const char *const *specs,
			  size_t nspecs, const char *want, const char *want_removed,
			  const char *name)
{
	struct env_opts o = { .clean = clean, .drop_secrets = 1, .specs = specs, .nspecs = nspecs };
	struct strv removed = { 0 };
	char **e = env_build(parent, &o, &removed);
	is_str(joined(e), want, "%s", name);
	env_free(e);
	is_str(removed.n > 0 ? joined(removed.v) : "", want_removed, "%s: the names removed", name);
	strv_free(&removed);
}

static const char *const parent[] = {
	"A=1", "PATH=/usr/bin:/bin", "TMPDIR=/tmp", "EMPTY=", "HOME=/home/u", NULL,
};

static void test_pass_through(void)
{
	check(parent, 0, NULL, 0, NULL, "A=1|PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u",
	      "non-clean without tmpdir passes everything, in order");
	check(parent, 0, NULL, 0, "/run/t",
	      "A=1|PATH=/usr/bin:/bin|EMPTY=|HOME=/home/u|TMPDIR=/run/t",
	      "inherited TMPDIR replaced by the tmpdir argument");
	check(parent, 1, NULL, 0, NULL, "PATH=/usr/bin:/bin|HOME=/home/u",
	      "clean without tmpdir drops the inherited TMPDIR");
	check(parent, 1, NULL, 0, "/run/t", "PATH=/usr/bin:/bin|HOME=/home/u|TMPDIR=/run/t",
	      "clean with tmpdir sets TMPDIR to it");

	const char *const tmpname[] = { "TMPDIRX=1", "XTMPDIR=2", NULL };
	check(tmpname, 0, NULL, 0, "/t", "TMPDIRX=1|XTMPDIR=2|TMPDIR=/t",
	      "names that merely contain TMPDIR are not TMPDIR");

	struct env_opts plain = { 0 };
	char **e = env_build(parent, &plain, NULL);
	int copies = e != NULL;
	for (size_t i = 0; e != NULL && e[i] != NULL; i++)
		copies &= e[i] != parent[i];
	ok(copies, "entries are copies, not the parent's pointers");
	env_free(e);
	env_free(NULL);
}

static void test_clean(void)
{
	const char *const p[] = {
		"PATH=/bin",	"HOME=/h",	    "USER=u",	   "LOGNAME=u",	  "SHELL=/bin/sh",
		"LANG=C.UTF-8", "LC_ALL=C",	    "LC_CTYPE=C",  "TERM=xterm",  "TZ=UTC",
		"PATHX=1",	"XPATH=1",	    "HOMEDIR=1",   "LC=1",	  "LCALL=1",
		"LD_PRELOAD=x", "SSH_AUTH_SOCK=/s", "TERMINFO=/t", "lc_all=x",	  "path=/x",
		"USERNAME=u",	"TMPDIR=/tmp",	    "TZDIR=/z",	   "LANGUAGE=en", NULL,
	};
	check(p, 1, NULL, 0, NULL,
	      "PATH=/bin|HOME=/h|USER=u|LOGNAME=u|SHELL=/bin/sh|LANG=C.UTF-8|LC_ALL=C|LC_CTYPE=C|"
	      "TERM=xterm|TZ=UTC",
	      "clean keeps only PATH HOME USER LOGNAME SHELL LANG LC_* TERM TZ");
	check(p, 0, NULL, 0, NULL,
	      "PATH=/bin|HOME=/h|USER=u|LOGNAME=u|SHELL=/bin/sh|LANG=C.UTF-8|LC_ALL=C|LC_CTYPE=C|"
	      "TERM=xterm|TZ=UTC|PATHX=1|XPATH=1|HOMEDIR=1|LC=1|LCALL=1|LD_PRELOAD=x|"
	      "SSH_AUTH_SOCK=/s|TERMINFO=/t|lc_all=x|path=/x|USERNAME=u|TMPDIR=/tmp|TZDIR=/z|"
	      "LANGUAGE=en",
	      "the same environment non-clean is passed whole");
}

static void test_specs(void)
{
	const char *const set_a[] = { "A=2" };
	check(parent, 0, set_a, 1, NULL, "PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u|A=2",
	      "NAME=VALUE overrides the inherited value, no duplicate");

	const char *const set_path[] = { "PATH=/opt/bin" };
	check(parent, 1, set_path, 1, NULL, "HOME=/home/u|PATH=/opt/bin",
	      "NAME=VALUE overrides a kept name under clean");

	const char *const two[] = { "A=first", "B=x", "A=second" };
	check(parent, 0, two, 3, NULL,
	      "PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u|B=x|A=second",
	      "the last spec for a name wins");

	const char *const set_then_bare[] = { "A=9", "A" };
	check(parent, 0, set_then_bare, 2, NULL,
	      "A=1|PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u",
	      "a later bare NAME wins over NAME=VALUE: the parent's value");

	const char *const bare_then_set[] = { "A", "A=9" };
	check(parent, 1, bare_then_set, 2, NULL, "PATH=/usr/bin:/bin|HOME=/home/u|A=9",
	      "a later NAME=VALUE wins over a bare NAME");

	const char *const bare[] = { "A" };
	check(parent, 1, bare, 1, NULL, "A=1|PATH=/usr/bin:/bin|HOME=/home/u",
	      "bare NAME passes the parent's value under clean");
	check(parent, 0, bare, 1, NULL, "A=1|PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u",
	      "bare NAME changes nothing non-clean");

	const char *const bare_empty[] = { "EMPTY" };
	check(parent, 1, bare_empty, 1, NULL, "PATH=/usr/bin:/bin|EMPTY=|HOME=/home/u",
	      "bare NAME passes an empty parent value under clean");

	const char *const absent[] = { "NOPE" };
	check(parent, 1, absent, 1, NULL, "PATH=/usr/bin:/bin|HOME=/home/u",
	      "bare NAME absent from the parent adds nothing");

	const char *const newvar[] = { "FOO=bar baz", "EQ=a=b=c", "NIL=" };
	check(parent, 1, newvar, 3, NULL,
	      "PATH=/usr/bin:/bin|HOME=/home/u|FOO=bar baz|EQ=a=b=c|NIL=",
	      "NAME=VALUE adds new names under clean (values may hold '=' or be empty)");

	const char *const empty_a[] = { "A=" };
	check(parent, 0, empty_a, 1, NULL, "PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u|A=",
	      "NAME= sets an empty value over the inherited one");

	const char *const prefix_p[] = { "AB=1", "ABC=2", NULL };
	check(prefix_p, 0, set_a, 1, NULL, "AB=1|ABC=2|A=2", "spec A= does not touch AB or ABC");
	const char *const bare_ab[] = { "AB" };
	check(prefix_p, 1, bare_ab, 1, NULL, "AB=1", "bare AB passes AB, not ABC");
}

static void test_tmpdir(void)
{
	const char *const set_tmp[] = { "TMPDIR=/mine" };
	check(parent, 0, set_tmp, 1, "/run/t",
	      "A=1|PATH=/usr/bin:/bin|EMPTY=|HOME=/home/u|TMPDIR=/mine",
	      "TMPDIR=value beats the tmpdir argument");
	check(parent, 1, set_tmp, 1, "/run/t", "PATH=/usr/bin:/bin|HOME=/home/u|TMPDIR=/mine",
	      "TMPDIR=value beats the tmpdir argument under clean");

	const char *const bare_tmp[] = { "TMPDIR" };
	check(parent, 0, bare_tmp, 1, "/run/t",
	      "A=1|PATH=/usr/bin:/bin|TMPDIR=/tmp|EMPTY=|HOME=/home/u",
	      "bare TMPDIR keeps the inherited one over the tmpdir argument");
	check(parent, 1, bare_tmp, 1, "/run/t", "PATH=/usr/bin:/bin|TMPDIR=/tmp|HOME=/home/u",
	      "bare TMPDIR keeps the inherited one under clean");
	check(parent, 1, bare_tmp, 1, NULL, "PATH=/usr/bin:/bin|TMPDIR=/tmp|HOME=/home/u",
	      "bare TMPDIR passes it under clean without a tmpdir");

	const char *const no_tmp[] = { "A=1", NULL };
	check(no_tmp, 0, bare_tmp, 1, "/run/t", "A=1|TMPDIR=/run/t",
	      "bare TMPDIR with none inherited: the tmpdir argument is used");
	check(no_tmp, 0, NULL, 0, NULL, "A=1", "no TMPDIR anywhere: none set");

	const char *const two_tmp[] = { "TMPDIR=/one", "TMPDIR=/two" };
	check(no_tmp, 0, two_tmp, 2, "/run/t", "A=1|TMPDIR=/two",
	      "last TMPDIR spec wins, the argument is not added");
}

static void test_odd_parents(void)
{
	const char *const noeq[] = { "NOEQ", "A=1", "PATH", "=lead", NULL };
	check(noeq, 0, NULL, 0, NULL, "A=1|=lead", "parent entries without '=' are dropped");
	check(noeq, 1, NULL, 0, NULL, "", "clean drops '=lead' and a PATH without '='");
	const char *const bare_noeq[] = { "NOEQ" };
	check(noeq, 1, bare_noeq, 1, NULL, "", "bare spec cannot revive an entry without '='");

	const char *const empty[] = { NULL };
	struct env_opts plain = { 0 }, clean = { .clean = 1 };
	char **e = env_build(empty, &plain, NULL);
	ok(e != NULL && e[0] == NULL, "empty parent: a NULL-terminated empty array");
	env_free(e);
	e = env_build(empty, &clean, NULL);
	ok(e != NULL && e[0] == NULL, "empty parent under clean: empty array");
	env_free(e);
	e = env_build(NULL, &plain, NULL);
	ok(e != NULL && e[0] == NULL, "NULL parent: empty array");
	env_free(e);
	check(empty, 1, NULL, 0, "/t", "TMPDIR=/t", "empty parent with tmpdir: only TMPDIR");
	const char *const one[] = { "X=1" };
	check(NULL, 1, one, 1, NULL, "X=1", "NULL parent with a spec: only the spec");
}

static int secret(const char *name)
{
	return env_name_secret(name, strlen(name));
}

static void test_secret_names(void)
{
	static const char *const removed[] = {
		"GITHUB_TOKEN",
		"GH_TOKEN",
		"GITLAB_TOKEN",
		"NPM_TOKEN",
		"NODE_AUTH_TOKEN",
		"CARGO_REGISTRY_TOKEN",
		"CARGO_REGISTRIES_MINE_TOKEN",
		"PYPI_TOKEN",
		"HF_TOKEN",
		"VAULT_TOKEN",
		"AWS_SESSION_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN",
		"CLAUDE_CODE_OAUTH_TOKEN",
		"TWINE_PASSWORD",
		"DOCKER_PASSWORD",
		"DB_PASSWD",
		"ANTHROPIC_API_KEY",
		"OPENAI_API_KEY",
		"GEMINI_API_KEY",
		"HEROKU_APIKEY",
		"AWS_SECRET_ACCESS_KEY",
		"AWS_ACCESS_KEY_ID",
		"MINIO_ACCESS_KEY",
		"DEPLOY_PRIVATE_KEY",
		"AZURE_CLIENT_SECRET",
		"DJANGO_SECRET_KEY",
		"GOOGLE_CREDENTIALS",
		"GOOGLE_APPLICATION_CREDENTIALS",
		"TOKEN",
		"SECRET",
		"SECRET_KEY",
		"PASSWORD",
		"PASSWD",
		"API_KEY",
		"APIKEY",
		"ACCESS_KEY",
		"PRIVATE_KEY",
		"CREDENTIALS",
		"GITHUB_PAT",
		"PGPASSWORD",
		"MYSQL_PWD",
		"REDISCLI_AUTH",
		"COMPOSER_AUTH",
		"BW_SESSION",
		"OP_SESSION_my",
		"TF_TOKEN_app_terraform_io",
		"github_token",
		"Openai_Api_Key",
		"_TOKEN",
		"A__TOKEN",
		"X_TOKEN_TOKEN",
		/* issue 35: npm's and Gradle's camelCase keys, and more words */
		"npm_config__authToken",
		"NPM_CONFIG__AUTHTOKEN",
		"npm_config_//registry.npmjs.org/:_authToken",
		"npm_config__auth",
		"npm_config_//npm.pkg.github.com/:_auth",
		"NPM_CONFIG__PASSWORD",
		"ORG_GRADLE_PROJECT_signingKey",
		"ORG_GRADLE_PROJECT_signingInMemoryKey",
		"ORG_GRADLE_PROJECT_signingPassword",
		"ORG_GRADLE_PROJECT_mavenCentralPassword",
		"ORG_GRADLE_PROJECT_githubToken",
		"ORG_GRADLE_PROJECT_clientSecret",
		"ORG_GRADLE_PROJECT_SIGNINGKEY",
		"GPG_PASSPHRASE",
		"PASSPHRASE",
		"AZURE_DEVOPS_EXT_PAT",
		"GH_PAT",
		"RAILS_MASTER_KEY",
		"MASTER_KEY",
		"SECRET_KEY_BASE",
		"APP_SECRET_KEY_BASE",
		"DOCKER_AUTH_CONFIG",
		"AZURE_STORAGE_CONNECTION_STRING",
		"CONNECTION_STRING",
		"SUPABASE_JWT",
		"JWT",
		"SENTRY_DSN",
	};
	static const char *const kept[] = {
		"PATH",
		"HOME",
		"TERM",
		"LANG",
		"LC_ALL",
		"SHELL",
		"USER",
		"TMPDIR",
		"GPG_TTY",
		"SSH_AUTH_SOCK",
		"SSH_AGENT_PID",
		"XDG_RUNTIME_DIR",
		"XDG_SESSION_TYPE",
		"DESKTOP_SESSION",
		"TOKENIZERS_PARALLELISM",
		"KEYTIMEOUT",
		"LESSKEY",
		"MAKEFLAGS_KEY",
		"CACHE_KEY",
		"GPG_KEY",
		"HF_TOKEN_PATH",
		"AWS_WEB_IDENTITY_TOKEN_FILE",
		"GITHUB_TOKEN_FILE",
		"PASSWORD_STORE_DIR",
		"SECRETS_DIR",
		"AWS_SECRET_ARN",
		"DB_SECRET_NAME",
		"GIT_ASKPASS",
		"SSH_ASKPASS",
		"KRB5CCNAME",
		"XAUTHORITY",
		"DATABASE_URL",
		"ANTHROPIC_BASE_URL",
		"AWS_PROFILE",
		"AWS_REGION",
		"TOKENS",
		"MYTOKEN",
		"TOKEN_",
		"XTOKEN",
		"OP_SESSION",
		"GITHUB_PATH",
		"BW_SESSIONS",
		"",
		/* near the new ones, and not secrets */
		"ORG_GRADLE_PROJECT_signingKeyId",
		"ORG_GRADLE_PROJECT_version",
		"npm_config_registry",
		"npm_config_cache",
		"NPM_CONFIG_USERCONFIG",
		"npm_config_auth_type",
		"PATH_PAT_X",
		"GITHUB_PATH",
		"CONNECTION_STRING_FILE",
		"JWT_ISSUER",
		"SENTRY_ENVIRONMENT",
		"MASTER_KEY_FILE",
		"dbPassword",
		"NOPASSWORD",
		"GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT",
	};
	for (size_t i = 0; i < N(removed); i++)
		is_int(secret(removed[i]), 1, "secret name: %s", removed[i]);
	for (size_t i = 0; i < N(kept); i++)
		is_int(secret(kept[i]), 0, "not a secret name: %s", kept[i]);
	is_int(env_name_secret("GITHUB_TOKEN=x", 12), 1,
	       "only the n bytes count (a NAME=VALUE entry)");
	is_int(env_name_secret("GH_TOKEN_PATH", 8), 1, "a prefix of n bytes: GH_TOKEN");
	is_int(env_name_secret("GH_TOKEN", 7), 0, "n bytes short of the pattern: GH_TOKE");

	const char *const *l = cordon_default_deny_env();
	size_t n = 0;
	int upper_only = 1;
	while (l[n] != NULL) {
		for (const char *p = l[n]; *p; p++)
			upper_only &= !(*p >= 'a' && *p <= 'z');
		n++;
	}
	ok(n >= 20 && l == cordon_default_deny_env(), "the exported list: static, NULL-terminated");
	ok(upper_only, "the exported list is written in upper case");
	for (size_t i = 0; i < n; i++)
		if (strchr(l[i], '*') == NULL)
			is_int(secret(l[i]), 1, "listed name matches itself: %s", l[i]);
}

static void test_secrets_removed(void)
{
	const char *const p[] = {
		"PATH=/bin",
		"GITHUB_TOKEN=tok-1",
		"HOME=/h",
		"ANTHROPIC_API_KEY=sk-2",
		"TOKENIZERS_PARALLELISM=false",
		"SSH_AUTH_SOCK=/run/a.sock",
		"GITHUB_TOKEN=tok-dup",
		"AWS_SECRET_ACCESS_KEY=aws-3",
		"LC_API_KEY=x",
		"NOEQ_TOKEN",
		NULL,
	};
	check_secrets(p, 0, NULL, 0,
		      "PATH=/bin|HOME=/h|TOKENIZERS_PARALLELISM=false|SSH_AUTH_SOCK=/run/a.sock",
		      "GITHUB_TOKEN|ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "secrets removed, each name reported once, without its value");
	check(p, 0, NULL, 0, NULL,
	      "PATH=/bin|GITHUB_TOKEN=tok-1|HOME=/h|ANTHROPIC_API_KEY=sk-2|"
	      "TOKENIZERS_PARALLELISM=false|SSH_AUTH_SOCK=/run/a.sock|GITHUB_TOKEN=tok-dup|"
	      "AWS_SECRET_ACCESS_KEY=aws-3|LC_API_KEY=x",
	      "the default list off: every entry passes");

	const char *const pass[] = { "GITHUB_TOKEN" };
	check_secrets(p, 0, pass, 1,
		      "PATH=/bin|GITHUB_TOKEN=tok-1|HOME=/h|TOKENIZERS_PARALLELISM=false|"
		      "SSH_AUTH_SOCK=/run/a.sock|GITHUB_TOKEN=tok-dup",
		      "ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "--env NAME passes that secret (as inherited), not the others");
	const char *const pass_lower[] = { "github_token" };
	check_secrets(p, 0, pass_lower, 1,
		      "PATH=/bin|HOME=/h|TOKENIZERS_PARALLELISM=false|SSH_AUTH_SOCK=/run/a.sock",
		      "GITHUB_TOKEN|ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "--env names a variable exactly: github_token is not GITHUB_TOKEN");
	const char *const set[] = { "GITHUB_TOKEN=mine" };
	check_secrets(p, 0, set, 1,
		      "PATH=/bin|HOME=/h|TOKENIZERS_PARALLELISM=false|SSH_AUTH_SOCK=/run/a.sock|"
		      "GITHUB_TOKEN=mine",
		      "ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "--env NAME=VALUE sets a secret's name: not reported as removed");
	const char *const fresh[] = { "NEW_TOKEN=n" };
	check_secrets(p, 0, fresh, 1,
		      "PATH=/bin|HOME=/h|TOKENIZERS_PARALLELISM=false|SSH_AUTH_SOCK=/run/a.sock|"
		      "NEW_TOKEN=n",
		      "GITHUB_TOKEN|ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "--env NEW_TOKEN=VALUE adds one");

	check_secrets(p, 1, NULL, 0, "PATH=/bin|HOME=/h",
		      "GITHUB_TOKEN|ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "--clean-env: the allow-list minus secrets (LC_API_KEY), all reported");
	check_secrets(p, 1, pass, 1, "PATH=/bin|GITHUB_TOKEN=tok-1|HOME=/h|GITHUB_TOKEN=tok-dup",
		      "ANTHROPIC_API_KEY|AWS_SECRET_ACCESS_KEY|LC_API_KEY",
		      "--clean-env --env GITHUB_TOKEN: the named secret passes");

	const char *const none[] = { "A=1", "PATH=/bin", NULL };
	check_secrets(none, 0, NULL, 0, "A=1|PATH=/bin", "", "no secret: nothing removed");
	struct env_opts o = { .drop_secrets = 1 };
	char **e = env_build(p, &o, NULL);
	is_str(joined(e),
	       "PATH=/bin|HOME=/h|TOKENIZERS_PARALLELISM=false|SSH_AUTH_SOCK=/run/a.sock",
	       "no place for the removed names: removed all the same");
	env_free(e);
}

/* git's configuration in the environment: kept out when a key or value
 * sets a header, a credential or a password, or holds a URL with a
 * password; the pairs go together. */
static void test_git_config(void)
{
	const char *const params[] = {
		"PATH=/bin",
		"GIT_CONFIG_PARAMETERS='http.extraheader'='AUTHORIZATION: basic eHg='",
		NULL,
	};
	check_secrets(params, 0, NULL, 0, "PATH=/bin", "GIT_CONFIG_PARAMETERS",
		      "GIT_CONFIG_PARAMETERS setting http.extraheader: removed");
	const char *const url[] = {
		"GIT_CONFIG_PARAMETERS='url.https://x-access-token:ghs_abc@github.com/.insteadof'="
		"'https://github.com/'",
		NULL,
	};
	check_secrets(url, 0, NULL, 0, "", "GIT_CONFIG_PARAMETERS",
		      "GIT_CONFIG_PARAMETERS with a URL holding a password: removed");
	const char *const harmless[] = { "GIT_CONFIG_PARAMETERS='safe.directory'='*'",
					 "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager",
					 "GIT_CONFIG_VALUE_0=less", NULL };
	check_secrets(harmless, 0, NULL, 0,
		      "GIT_CONFIG_PARAMETERS='safe.directory'='*'|GIT_CONFIG_COUNT=1|"
		      "GIT_CONFIG_KEY_0=core.pager|GIT_CONFIG_VALUE_0=less",
		      "", "safe.directory, core.pager: they pass");
	const char *const pairs[] = { "A=1",
				      "GIT_CONFIG_COUNT=2",
				      "GIT_CONFIG_KEY_0=safe.directory",
				      "GIT_CONFIG_VALUE_0=*",
				      "GIT_CONFIG_KEY_1=http.https://example.com/.extraHeader",
				      "GIT_CONFIG_VALUE_1=Authorization: Bearer abc",
				      NULL };
	check_secrets(pairs, 0, NULL, 0, "A=1",
		      "GIT_CONFIG_COUNT|GIT_CONFIG_KEY_0|GIT_CONFIG_VALUE_0|GIT_CONFIG_KEY_1|"
		      "GIT_CONFIG_VALUE_1",
		      "one pair sets an extraHeader: COUNT and every pair removed");
	const char *const helper[] = { "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=credential.helper",
				       "GIT_CONFIG_VALUE_0=store", NULL };
	check_secrets(helper, 0, NULL, 0, "",
		      "GIT_CONFIG_COUNT|GIT_CONFIG_KEY_0|GIT_CONFIG_VALUE_0",
		      "a credential helper: removed");
	const char *const pass[] = { "GIT_CONFIG_PARAMETERS" };
	check_secrets(
		params, 0, pass, 1,
		"PATH=/bin|GIT_CONFIG_PARAMETERS='http.extraheader'='AUTHORIZATION: basic eHg='",
		"", "--env GIT_CONFIG_PARAMETERS passes it");
	check(params, 0, NULL, 0, NULL,
	      "PATH=/bin|GIT_CONFIG_PARAMETERS='http.extraheader'='AUTHORIZATION: basic eHg='",
	      "the default list off: it passes");
}

/* The variables cordon sets (caches moved under its state dir). */
static void test_set(void)
{
	static const char *const par[] = { "A=1", "PIP_CACHE_DIR=/old", "HOME=/home/u", NULL };
	static const char *const set[] = { "npm_config_cache=/s/caches/npm",
					   "PIP_CACHE_DIR=/s/caches/pip", NULL };
	struct env_opts o = { .set = set, .nset = 2 };
	char **e = env_build(par, &o, NULL);
	is_str(joined(e),
	       "A=1|HOME=/home/u|npm_config_cache=/s/caches/npm|PIP_CACHE_DIR=/s/caches/pip",
	       "set: added after the caller's, replacing the caller's value of the same name");
	env_free(e);
	o.clean = 1;
	e = env_build(par, &o, NULL);
	is_str(joined(e), "HOME=/home/u|npm_config_cache=/s/caches/npm|PIP_CACHE_DIR=/s/caches/pip",
	       "set: passes --clean-env");
	env_free(e);
	static const char *const specs[] = { "npm_config_cache=/mine", "PIP_CACHE_DIR", NULL };
	o.clean = 0;
	o.specs = specs;
	o.nspecs = 2;
	e = env_build(par, &o, NULL);
	is_str(joined(e), "A=1|PIP_CACHE_DIR=/old|HOME=/home/u|npm_config_cache=/mine",
	       "set: an --env naming the variable wins (NAME=VALUE, and NAME: the caller's)");
	env_free(e);
	static const char *const twice[] = { "X=1", "X=2", NULL };
	struct env_opts t = { .set = twice, .nset = 2 };
	e = env_build(par, &t, NULL);
	is_str(joined(e), "A=1|PIP_CACHE_DIR=/old|HOME=/home/u|X=1", "set: a name once, the first");
	env_free(e);
}

/* CORDON_RUN_ID: the run's id when confined (run_id set), replacing an
 * inherited one and passing --clean-env; --env naming it wins; without
 * run_id an inherited one passes like any name. */
static void test_run_id(void)
{
	static const char *const par[] = { "A=1", "CORDON_RUN_ID=outer", "HOME=/home/u", NULL };
	struct env_opts o = { .run_id = "0123abcd" };
	char **e = env_build(par, &o, NULL);
	is_str(joined(e), "A=1|HOME=/home/u|CORDON_RUN_ID=0123abcd",
	       "run_id: set, replacing the inherited one");
	env_free(e);
	o.clean = 1;
	e = env_build(par, &o, NULL);
	is_str(joined(e), "HOME=/home/u|CORDON_RUN_ID=0123abcd", "run_id: passes --clean-env");
	env_free(e);
	static const char *const value[] = { "CORDON_RUN_ID=mine", NULL };
	static const char *const bare[] = { "CORDON_RUN_ID", NULL };
	o.clean = 0;
	o.specs = value;
	o.nspecs = 1;
	e = env_build(par, &o, NULL);
	is_str(joined(e), "A=1|HOME=/home/u|CORDON_RUN_ID=mine", "run_id: --env NAME=VALUE wins");
	env_free(e);
	o.specs = bare;
	e = env_build(par, &o, NULL);
	is_str(joined(e), "A=1|CORDON_RUN_ID=outer|HOME=/home/u",
	       "run_id: --env NAME passes the caller's");
	env_free(e);
	struct env_opts none = { 0 };
	e = env_build(par, &none, NULL);
	is_str(joined(e), "A=1|CORDON_RUN_ID=outer|HOME=/home/u",
	       "no run_id (not confined): an inherited one passes");
	env_free(e);
	none.clean = 1;
	e = env_build(par, &none, NULL);
	is_str(joined(e), "HOME=/home/u", "no run_id, --clean-env: none");
	env_free(e);
}

static void test_spec_valid(void)
{
	is_int(env_spec_valid(NULL), 0, "spec_valid: NULL");
	is_int(env_spec_valid(""), 0, "spec_valid: empty");
	is_int(env_spec_valid("="), 0, "spec_valid: '='");
	is_int(env_spec_valid("=x"), 0, "spec_valid: '=x'");
	is_int(env_spec_valid("A"), 1, "spec_valid: NAME");
	is_int(env_spec_valid("A=1"), 1, "spec_valid: NAME=VALUE");
	is_int(env_spec_valid("A="), 1, "spec_valid: NAME=");
	is_int(env_spec_valid("A=b=c"), 1, "spec_valid: value with '='");
	is_int(env_spec_valid("_a1=x"), 1, "spec_valid: '_', letters and digits");
	is_int(env_spec_valid("1A=b"), 0, "spec_valid: a name starting with a digit");
	is_int(env_spec_valid("A-B=c"), 0, "spec_valid: '-' in a name");
	is_int(env_spec_valid("A B"), 0, "spec_valid: a space in a name");
	is_int(env_spec_valid("\xc3\xa9=1"), 0, "spec_valid: a non-ASCII name");
}

int main(void)
{
	test_pass_through();
	test_clean();
	test_specs();
	test_tmpdir();
	test_odd_parents();
	test_spec_valid();
	test_set();
	test_run_id();
	test_secret_names();
	test_secrets_removed();
	test_git_config();
	return done_testing();
}
