/*
 * The default deny-read list: the user's secrets, by where each tool
 * keeps them (its documentation; docs/cli-reference.en.md names the
 * source of each). secrets.c resolves it for a run; cordon probe prints
 * it (cordon_default_deny_read).
 *
 * An entry is
 *   "~/PATH"                   under each home;
 *   "~/.config/" "*" "/NAME"   NAME in each directory directly under each
 *                              home's .config (one readdir of it, not
 *                              recursive: SECRETS_CONFIG_SCAN_MAX);
 *   "$XDG_RUNTIME_DIR/PATH"    under the user's runtime dir
 *                              ($XDG_RUNTIME_DIR when absolute, else
 *                              /run/user/UID on Linux);
 *   "$VAR/PATH"                under the directory a tool's variable
 *                              names, when it is set and absolute (the
 *                              caller's environment: where the user's
 *                              tools keep the file);
 *   "$VAR"                     the file(s) the variable names: each
 *                              absolute entry of its ':'-separated list.
 * A tool's macOS location (~/Library/...) is listed beside its Linux one:
 * where it does not exist, nothing is covered.
 */
#include "cordon.h"
#include "policy.h"

#include <pthread.h>
#include <stddef.h>

const struct secret_default cordon_secret_defaults[] = {
	/* ssh: keys; known_hosts*, config and *.pub stay readable, so git
	 * over ssh works with an agent socket (--allow-socket). */
	{ "~/.ssh", 1 },
	/* cloud, cluster and container credentials */
	{ "~/.aws", 0 },
	{ "~/.azure", 0 },
	{ "~/.config/gcloud", 0 },
	{ "~/.kube", 0 },
	{ "~/.docker/config.json", 0 },
	{ "~/.dockercfg", 0 }, /* docker's old file; containers-auth.json(5) */
	{ "~/.config/containers/auth.json", 0 }, /* podman, buildah, skopeo */
	{ "$XDG_RUNTIME_DIR/containers/auth.json", 0 }, /* their primary one */
	{ "~/.oci", 0 },
	{ "~/.minikube/profiles", 0 }, /* each profile's client.key */
	{ "~/.minikube/machines", 0 }, /* the machines' ssh keys */
	{ "~/.minikube/ca.key", 0 },
	{ "~/.minikube/proxy-client-ca.key", 0 },
	{ "~/.config/helm/registry/config.json", 0 },
	{ "~/.config/helm/repositories.yaml", 0 }, /* repositories' passwords */
	{ "~/Library/Preferences/helm/registry/config.json", 0 },
	{ "~/Library/Preferences/helm/repositories.yaml", 0 },
	{ "~/.config/doctl/config.yaml", 0 },
	{ "~/Library/Application Support/doctl/config.yaml", 0 },
	{ "~/.fly/config.yml", 0 },
	{ "~/.config/hcloud/cli.toml", 0 },
	{ "~/.databrickscfg", 0 },
	{ "~/.config/configstore/firebase-tools.json", 0 },
	{ "~/.config/.wrangler", 0 }, /* Cloudflare's wrangler login */
	{ "~/.wrangler", 0 },
	{ "~/Library/Preferences/.wrangler", 0 },
	{ "~/.s3cfg", 0 }, /* s3cmd */
	{ "~/.boto", 0 }, /* boto, gsutil */
	{ "~/.mc/config.json", 0 }, /* MinIO client */
	{ "~/.config/rclone/rclone.conf", 0 },
	{ "~/.rclone.conf", 0 },
	/* signing keys, passwords, keyrings, certificates */
	{ "~/.gnupg", 0 },
	{ "~/.password-store", 0 },
	{ "~/.local/share/keyrings", 0 },
	{ "~/.pki", 0 },
	{ "~/.config/sops/age/keys.txt", 0 },
	{ "~/Library/Application Support/sops/age/keys.txt", 0 },
	/* git, GitHub, registries, HashiCorp */
	{ "~/.netrc", 0 },
	{ "~/.git-credentials", 0 },
	{ "~/.config/git/credentials", 0 },
	{ "~/.config/gh", 0 },
	{ "~/.config/hub", 0 },
	{ "~/.vault-token", 0 },
	{ "~/.terraformrc", 0 },
	{ "~/.terraform.d/credentials.tfrc.json", 0 },
	{ "~/.pypirc", 0 },
	/* npm writes its registry token here; public installs work
	 * without the file (docs/compatibility.md) */
	{ "~/.npmrc", 0 },
	{ "~/.yarnrc.yml", 0 }, /* npmAuthToken */
	{ "~/.cargo/credentials", 0 },
	{ "~/.cargo/credentials.toml", 0 },
	{ "~/.gem/credentials", 0 },
	{ "~/.bundle/config", 0 }, /* bundler's credentials for gem servers */
	{ "~/.composer/auth.json", 0 },
	{ "~/.config/composer/auth.json", 0 },
	{ "~/.m2/settings.xml", 0 }, /* maven's servers' passwords */
	{ "~/.m2/settings-security.xml", 0 }, /* ... and their master password */
	{ "~/.gradle/gradle.properties", 0 },
	{ "~/.nuget/NuGet/NuGet.Config", 0 },
	{ "~/.config/NuGet/NuGet.Config", 0 },
	/* browser profiles (cookies, saved passwords, sessions) */
	{ "~/.config/chromium", 0 },
	{ "~/.config/google-chrome", 0 },
	{ "~/.config/BraveSoftware", 0 },
	{ "~/.mozilla/firefox", 0 },
	{ "~/.var/app/org.mozilla.firefox", 0 },
	/* shell and REPL histories (typed passwords, tokens in commands) */
	{ "~/.bash_history", 0 },
	{ "~/.bash_sessions", 0 },
	{ "~/.zsh_history", 0 },
	{ "~/.zhistory", 0 },
	{ "~/.histfile", 0 },
	{ "~/.zsh_sessions", 0 },
	{ "~/.sh_history", 0 },
	{ "~/.ash_history", 0 },
	{ "~/.mksh_history", 0 },
	{ "~/.history", 0 },
	{ "~/.local/share/fish/fish_history", 0 },
	{ "~/.config/fish/fish_history", 0 },
	{ "~/.config/nushell/history.txt", 0 },
	{ "~/.config/nushell/history.sqlite3", 0 },
	{ "~/.local/share/atuin", 0 },
	{ "~/.python_history", 0 },
	{ "~/.ipython/profile_default/history.sqlite", 0 },
	{ "~/.node_repl_history", 0 },
	{ "~/.psql_history", 0 },
	{ "~/.mysql_history", 0 },
	{ "~/.sqlite_history", 0 },
	{ "~/.rediscli_history", 0 },
	{ "~/.dbshell", 0 },
	{ "~/.mongosh", 0 },
	{ "~/.irb_history", 0 },
	{ "~/.pry_history", 0 },
	{ "~/.scala_history", 0 },
	{ "~/.lesshst", 0 },
	/* coding agents' own credentials */
	{ "~/.claude/.credentials.json", 0 },
	{ "~/.claude.json", 0 }, /* Claude Code's account, MCP servers' env */
	{ "~/.codex/auth.json", 0 },
	{ "~/.gemini/oauth_creds.json", 0 },
	{ "~/.config/github-copilot", 0 },
	{ "~/.aider.conf.yml", 0 },
	/* any tool's login file directly under ~/.config (containers',
	 * composer's, and those not named above) */
	{ "~/.config/*/auth.json", 0 },
	{ "~/.config/*/credentials.json", 0 },
	/* the same files where the tool's own variable moves them (each
	 * tool's documentation of the variable) */
	{ "$CARGO_HOME/credentials", 0 },
	{ "$CARGO_HOME/credentials.toml", 0 },
	{ "$GRADLE_USER_HOME/gradle.properties", 0 },
	{ "$NPM_CONFIG_USERCONFIG", 0 },
	{ "$npm_config_userconfig", 0 },
	{ "$YARN_RC_FILENAME", 0 },
	{ "$COMPOSER_HOME/auth.json", 0 },
	{ "$BUNDLE_USER_CONFIG", 0 },
	{ "$BUNDLE_USER_HOME/config", 0 },
	{ "$GEM_HOST_API_KEY_FILE", 0 },
	{ "$DOCKER_CONFIG/config.json", 0 },
	{ "$REGISTRY_AUTH_FILE", 0 }, /* podman, buildah, skopeo */
	{ "$KUBECONFIG", 0 },
	{ "$AWS_SHARED_CREDENTIALS_FILE", 0 },
	{ "$AWS_CONFIG_FILE", 0 },
	{ "$AZURE_CONFIG_DIR", 0 },
	{ "$CLOUDSDK_CONFIG", 0 }, /* gcloud */
	{ "$GNUPGHOME", 0 },
	{ "$PASSWORD_STORE_DIR", 0 },
	{ "$TF_CLI_CONFIG_FILE", 0 },
	{ "$RCLONE_CONFIG", 0 },
	{ "$SOPS_AGE_KEY_FILE", 0 },
	{ "$HISTFILE", 0 },
};
const size_t cordon_nsecret_defaults =
	sizeof(cordon_secret_defaults) / sizeof(cordon_secret_defaults[0]);

static const char
	*default_list[sizeof(cordon_secret_defaults) / sizeof(cordon_secret_defaults[0]) + 1];
static pthread_once_t list_once = PTHREAD_ONCE_INIT;

static void make_list(void)
{
	for (size_t i = 0; i < cordon_nsecret_defaults; i++)
		default_list[i] = cordon_secret_defaults[i].rel;
}

const char *const *cordon_default_deny_read(void)
{
	(void)pthread_once(&list_once, make_list);
	return default_list;
}
