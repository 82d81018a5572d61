#!/usr/bin/env bash
# The credential files an attacker's review found readable (issue 35):
# each is on the default deny-read list. A fixture home holds each with a
# token of its own; a confined command reads none of them, with the mount
# layer (covers) and with the Landlock read layer only, also when the
# home is read-only, and the files stay unchanged. The pattern
# ~/.config/*/auth.json (and credentials.json) covers a tool the list does
# not name; the files where a tool's variable (CARGO_HOME, KUBECONFIG...)
# puts them are covered too; and its bound (entries of ~/.config looked at) is reported
# when passed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny
export XDG_RUNTIME_DIR=$T/run

files=(
	.m2/settings.xml .m2/settings-security.xml .gradle/gradle.properties .yarnrc.yml
	.config/containers/auth.json .terraformrc .terraform.d/credentials.tfrc.json
	.config/rclone/rclone.conf .rclone.conf .s3cfg .boto .config/sops/age/keys.txt
	.minikube/profiles/minikube/client.key .minikube/machines/minikube/id_rsa .minikube/ca.key
	.config/composer/auth.json .composer/auth.json .bundle/config .nuget/NuGet/NuGet.Config
	.config/NuGet/NuGet.Config .config/doctl/config.yaml .fly/config.yml .config/hcloud/cli.toml
	.databrickscfg .config/helm/registry/config.json .config/helm/repositories.yaml .claude.json
	.mc/config.json .config/configstore/firebase-tools.json .config/.wrangler/config/default.toml
	.wrangler/config/default.toml .dockercfg .histfile .sh_history .ash_history .history
	.config/fish/fish_history .local/share/atuin/history.db .rediscli_history .mongosh/mongosh_repl_history
	.config/some-tool/auth.json .config/other-tool/credentials.json
)
: >"$T/list"
n=0
for f in "${files[@]}"; do
	n=$((n + 1))
	mkdir -p "$(dirname "$HOME/$f")"
	echo "CRED-TOKEN-$n-x" >"$HOME/$f"
	echo "$HOME/$f" >>"$T/list"
done
n=$((n + 1))
mkdir -p "$XDG_RUNTIME_DIR/containers"
echo "CRED-TOKEN-$n-x" >"$XDG_RUNTIME_DIR/containers/auth.json"
echo "$XDG_RUNTIME_DIR/containers/auth.json" >>"$T/list"
# The same files where a tool's own variable moves them, outside the home.
V=$T/vars
export CARGO_HOME=$V/cargo GRADLE_USER_HOME=$V/gradle NPM_CONFIG_USERCONFIG=$V/npmrc \
	COMPOSER_HOME=$V/composer BUNDLE_USER_CONFIG=$V/bundle-config DOCKER_CONFIG=$V/docker \
	KUBECONFIG=$V/kube/a:relative/ignored:$V/kube/b AWS_SHARED_CREDENTIALS_FILE=$V/aws-credentials \
	GNUPGHOME=$V/gnupg HISTFILE=$V/history
for f in cargo/credentials.toml gradle/gradle.properties npmrc composer/auth.json bundle-config \
	docker/config.json kube/a kube/b aws-credentials gnupg/private.key history; do
	n=$((n + 1))
	mkdir -p "$(dirname "$V/$f")"
	echo "CRED-TOKEN-$n-x" >"$V/$f"
	echo "$V/$f" >>"$T/list"
done
echo readable-ok >"$HOME/.config/some-tool/settings.json"
sums=$(xargs -d '\n' sha256sum <"$T/list")

read_all='while read -r f; do cat "$f"; done <"$1"; cat ~/.config/some-tool/settings.json; echo done'
tokens() { grep -o 'CRED-TOKEN-[0-9]*-x' "$1" | sort -u | wc -l; }

(cd "$WS" && crun --sandbox off -- sh -c "$read_all" sh "$T/list") >"$T/off.out" 2>&1
is "$(tokens "$T/off.out")" "$n" "control: unconfined, all $n credential files are read"

# check WHAT RUN-ARGS...: a confined run reads no token, the ordinary
# file beside them stays readable, the files are unchanged.
check() {
	local what=$1
	shift
	rm -f "$T/s.json"
	(cd "$WS" && "$@" --status-file "$T/s.json" -- sh -c "$read_all" sh "$T/list") >"$T/in.out" 2>&1
	is "$(tokens "$T/in.out"):$(grep -c '^done$' "$T/in.out")" 0:1 "$what: the command ran and read no credential file"
	grep -q readable-ok "$T/in.out"
	ok $? "$what: a file beside them (~/.config/some-tool/settings.json) stays readable"
	is "$(xargs -d '\n' sha256sum <"$T/list")" "$sums" "$what: the credential files are unchanged"
}

layers=$(crun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
if [[ " $layers " == *" mount_namespace "* ]]; then
	check "mount layer" crun
	is "$(json_field "$T/s.json" status 'sorted(set((d["enforced"], d["by"]) for d in e["read_denied"]))')" \
		'[[true, "mount_namespace"]]' "mount layer: every entry of read_denied is covered by it"
	is "$("$PY" -c 'import json, sys
e = json.loads(open(sys.argv[1]).readline())
d = [x["path"] for x in e["read_denied"]]
print([f for f in open(sys.argv[2]).read().splitlines() if not any(f == p or f.startswith(p + "/") for p in d)])' "$T/s.json" "$T/list")" \
		"[]" "mount layer: read_denied names each credential file (or its directory)"
else
	skip "mount layer: no mount layer here"
fi
# shellcheck disable=SC2317 # called through check
lrun() { "$DENY" nons -- "$CORDON" run --state-dir "$STATE" "$@"; }
check "Landlock read layer" lrun
is "$(json_field "$T/s.json" status '"mount_namespace" not in e["layers"] and "read_deny" in e["layers"]')" true \
	"Landlock read layer: the run had no mount layer, and the read layer"

# A read-only home: the covers are binds and the read layer grants what
# lies beside the way, neither writes the home.
home_mode=$(stat -c %a "$HOME")
chmod 0555 "$HOME"
if [[ " $layers " == *" mount_namespace "* ]]; then
	check "read-only home, mount layer" crun
else
	skip "read-only home, mount layer: no mount layer here"
fi
check "read-only home, Landlock read layer" lrun
chmod "$home_mode" "$HOME"

# The pattern's bound: past 4,096 entries of ~/.config, the rest are not
# looked in, and the run says so (secrets_readable).
mkdir -p "$T/bighome/.config"
"$PY" -c 'import os, sys
for i in range(4097): os.mkdir("%s/.config/d%05d" % (sys.argv[1], i))' "$T/bighome"
rm -f "$T/s.json"
(cd "$WS" && HOME=$T/bighome crun --status-file "$T/s.json" -- true)
is "$(json_field "$T/s.json" status '"secrets_readable" in e["gaps"]')" true \
	"more than 4,096 entries in ~/.config: the gap secrets_readable"
rmdir "$T/bighome/.config/d04096"
rm -f "$T/s.json"
(cd "$WS" && HOME=$T/bighome crun --status-file "$T/s.json" -- true)
is "$(json_field "$T/s.json" status '"secrets_readable" in e["gaps"]')" false \
	"4,096 entries: every one looked in, no gap"
rm -rf "$T/bighome"

done_testing
