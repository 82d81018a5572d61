#!/usr/bin/env bash
# Tool caches: go's are writable by default, so `go test` of a module in a
# fresh home works confined and fills go caches made for it under the
# test's state dir (the real home is untouched); each opt-in tool's caches
# (--cache NAME) are exactly the documented paths, by default and by each
# tool's variables, each one writable by the command: a missing default
# one moved under the state dir, or made in the tool's own directory
# where that exists, or (no variable moves it) not granted; a legacy
# location (~/.ccache) is used where it exists and never made.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

real_home=$(getent passwd "$(id -u)" | cut -d: -f6)
# The real home's go caches: their place and times only (they may be large).
light() { for p in "$@"; do stat -c '%n|%y|%z|%i' -- "$p" 2>/dev/null || echo "$p absent"; done; }
real_before=$(light "$real_home" "$real_home/.cache" "$real_home/.cache/go-build" "$real_home/go")

# A module with no dependencies: go test needs only its build cache.
mkdir -p "$WS/mod"
printf 'module example.com/m\n\ngo 1.13\n' >"$WS/mod/go.mod"
printf 'package m\n\nfunc Add(a, b int) int { return a + b }\n' >"$WS/mod/m.go"
cat >"$WS/mod/m_test.go" <<'EOF'
package m

import "testing"

func TestAdd(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Fatal("2+3")
	}
}
EOF

if tool_ok go; then
	unset GOCACHE GOPATH GOMODCACHE GOFLAGS GOENV
	rm -f "$T/s.json"
	(cd "$WS/mod" && crun --sandbox required --status-file "$T/s.json" -- go test ./...) \
		>"$T/go.out" 2>&1
	rc=$?
	is "$rc" 0 "go test of a module works confined with a fresh home"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/go.out" | tail -n 5
	grep -q '^ok .*example.com/m' "$T/go.out"
	ok $? "go test ran the module's test"
	is "$(json_field "$T/s.json" status '[(c["path"], c["state"], c["variable"]) for c in e["caches"] if c["name"] == "go"]')" \
		"[[\"$STATE/caches/go-build\", \"created\", \"GOCACHE\"], [\"$STATE/caches/go/pkg/mod\", \"created\", \"GOPATH\"], [\"$STATE/caches/go/pkg/sumdb\", \"created\", \"GOPATH\"]]" \
		"the event lists go's caches, moved under the state dir (GOCACHE, GOPATH): none is in the home"
	n=$(find "$STATE/caches/go-build" -type f 2>/dev/null | wc -l)
	[ "$n" -gt 10 ]
	ok $? "go stored its build in the build cache under the state dir ($n files)"
	# A second run finds the cached test result: the cache persists.
	(cd "$WS/mod" && crun --sandbox required -- go test ./...) >"$T/go2.out" 2>&1
	grep -q '(cached)' "$T/go2.out"
	ok $? "a second confined go test uses the cached result"
	# Without go's cache (--cache cargo,npm: go not listed) it fails: the
	# control showing the grant is what makes it work.
	rm -rf "$STATE/caches/go-build"
	(cd "$WS/mod" && crun --sandbox required --cache cargo,npm -- go test -count=1 ./...) \
		>"$T/go3.out" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && grep -q 'read-only file system\|permission denied' "$T/go3.out"
	ok $? "without go in --cache, go test fails on its build cache (rc $rc)"
	[ ! -e "$STATE/caches/go-build" ] && [ ! -e "$XDG_CACHE_HOME/go-build" ]
	ok $? "... and no go cache was made"
	diag "$(go version)"
else
	for n in 1 2 3 4 5 6 7; do skip "go test confined ($n): $TOOL_WHY"; done
fi
is "$(light "$real_home" "$real_home/.cache" "$real_home/.cache/go-build" "$real_home/go")" \
	"$real_before" "the real home ($real_home) and its go caches are untouched"

# --cache NAME: the event lists exactly these locations (name path state,
# and the variable that moved it under the state dir), each writable by
# the command. Each check runs in a fresh home and state dir, where the
# directories named in $PRE are made first.
PRE=
fresh() {
	rm -rf "$HOME" "$XDG_CACHE_HOME" "$STATE/caches" "$STATE/layers" "$T/s.json" && mkdir -p "$HOME"
	# shellcheck disable=SC2086 # one path per word
	[ -z "$PRE" ] || mkdir -p $PRE
}
caches_of() { # caches_of CACHE-LIST [VAR=VALUE...]: the event's caches, one per line
	local list=$1
	shift
	fresh
	(cd "$WS" && env "$@" "$CORDON" run --state-dir "$STATE" --sandbox required \
		--cache "$list" --status-file "$T/s.json" -- true) >"$T/c.out" 2>&1
	echo "rc=$?"
	json_field "$T/s.json" status '"\n".join(c["name"] + " " + c["path"] + " " + c["state"] + " " + (c["how"] or "-") + (" " + c["variable"] if c["variable"] else "") for c in e["caches"])'
}

# writes_each LIST [VAR=VALUE...]: every granted path takes a file inside;
# after the run it is in cordon's layer of that cache (how: overlay), and
# not in the cache itself, or in cordon's own directory (moved).
writes_each() {
	local list=$1 paths p how layer bad=0
	shift
	fresh
	(cd "$WS" && env "$@" "$CORDON" run --state-dir "$STATE" --sandbox required --cache "$list" \
		--status-file "$T/s.json" -- true) >/dev/null 2>&1
	paths=$(json_field "$T/s.json" status '" ".join(c["path"] for c in e["caches"])')
	# shellcheck disable=SC2086 # one path per word (the test's paths have no spaces)
	(cd "$WS" && env "$@" "$CORDON" run --state-dir "$STATE" --sandbox required --cache "$list" \
		-- sh -c 'for d; do echo w >"$d/cordon-w" || exit 1; done' sh $paths) >"$T/w.out" 2>&1 || bad=1
	local n=0
	while read -r p how layer; do
		n=$((n + 1))
		if [ "$how" = overlay ]; then
			[ "$(cat "$layer/shared/cordon-w" 2>/dev/null)" = w ] && [ ! -e "$p/cordon-w" ] || bad=1
		else
			[ "$(cat "$p/cordon-w" 2>/dev/null)" = w ] || bad=1
		fi
	done < <(json_field "$T/s.json" status '"\n".join(c["path"] + " " + c["how"] + " " + (c["layer"] or "-") for c in e["caches"])')
	# Every granted path was looked at (the event says how each is written).
	[ "$n" -gt 0 ] && [ "$n" -eq "$(wc -w <<<"$paths")" ] || bad=1
	[ "$bad" -eq 0 ] || sed 's/^/#   /' "$T/w.out" | head -n 3
	return "$bad"
}

check_tool() { # check_tool NAME EXPECTED-LINES [VAR=VALUE...]
	local name=$1 want=$2 got
	shift 2
	got=$(caches_of "$name" "$@")
	is "$got" "rc=0
$want" "--cache $name${*:+ with $*}: exactly the documented paths"
	writes_each "$name" "$@"
	ok $? "--cache $name${*:+ with $*}: each one is writable inside; the write is in cordon's layer (overlay: the cache itself unchanged) or in cordon's own dir (moved)"
}

H=$T/home
X=$XDG_CACHE_HOME
S=$STATE/caches
# go counts as present (its caches granted) when it is on PATH or one of
# its caches exists: on a machine without go, nothing.
if command -v go >/dev/null 2>&1; then
	check_tool go "go $S/go-build created moved GOCACHE
go $S/go/pkg/mod created moved GOPATH
go $S/go/pkg/sumdb created moved GOPATH"
else
	is "$(caches_of go)" "rc=0" "--cache go, go not on PATH and no go cache: nothing granted, nothing moved"
	[ ! -e "$S/go-build" ] && [ ! -e "$S/go" ]
	ok $? "... and no go cache was made under the state dir"
fi
check_tool go "go $T/gc created overlay
go $T/gm created overlay
go $T/gp1/pkg/sumdb created overlay" GOCACHE="$T/gc" GOMODCACHE="$T/gm" GOPATH="$T/gp1:$T/gp2"
PRE="$H/go $X/go-build"
check_tool go "go $X/go-build existing overlay
go $H/go/pkg/mod created overlay
go $H/go/pkg/sumdb created overlay"
PRE=
check_tool yarn "yarn $S/yarn created moved YARN_CACHE_FOLDER
yarn $S/yarn-berry created moved YARN_GLOBAL_FOLDER"
check_tool yarn "yarn $T/yc created overlay
yarn $S/yarn-berry created moved YARN_GLOBAL_FOLDER" YARN_CACHE_FOLDER="$T/yc" XDG_DATA_HOME="$T/xd"
check_tool pnpm "pnpm $S/pnpm-store created moved pnpm_config_store_dir
pnpm $S/pnpm created moved pnpm_config_cache_dir"
check_tool pnpm "pnpm $T/ph/store created overlay
pnpm $T/pc created overlay" PNPM_HOME="$T/ph" npm_config_cache_dir="$T/pc"
check_tool bun "bun $S/bun created moved BUN_INSTALL_CACHE_DIR"
check_tool bun "bun $T/bc created overlay" BUN_INSTALL_CACHE_DIR="$T/bc"
check_tool deno "deno $S/deno created moved DENO_DIR"
check_tool deno "deno $T/dd created overlay" DENO_DIR="$T/dd"
check_tool gradle "gradle $S/gradle/caches created moved GRADLE_USER_HOME
gradle $S/gradle/wrapper created moved GRADLE_USER_HOME
gradle $S/gradle/daemon created moved GRADLE_USER_HOME
gradle $S/gradle/native created moved GRADLE_USER_HOME"
PRE="$H/.gradle"
check_tool gradle "gradle $H/.gradle/caches created overlay
gradle $H/.gradle/wrapper created overlay
gradle $H/.gradle/daemon created overlay
gradle $H/.gradle/native created overlay"
PRE=
check_tool gradle "gradle $T/g/caches created overlay
gradle $T/g/wrapper created overlay
gradle $T/g/daemon created overlay
gradle $T/g/native created overlay" GRADLE_USER_HOME="$T/g"
PRE="$H/.m2"
check_tool maven "maven $H/.m2/repository created overlay
maven $H/.m2/wrapper created overlay"
PRE=
check_tool composer "composer $S/composer created moved COMPOSER_CACHE_DIR"
check_tool composer "composer $T/ch/cache created overlay" COMPOSER_HOME="$T/ch"
check_tool gem "gem $S/bundle created moved BUNDLE_USER_CACHE
gem $S/gem-specs created moved GEM_SPEC_CACHE"
check_tool gem "gem $T/bu created overlay
gem $T/gs created overlay" BUNDLE_USER_CACHE="$T/bu" GEM_SPEC_CACHE="$T/gs"
check_tool ccache "ccache $T/cd created overlay" CCACHE_DIR="$T/cd"
check_tool sccache "sccache $S/sccache created moved SCCACHE_DIR"
check_tool sccache "sccache $T/sd created overlay" SCCACHE_DIR="$T/sd"
check_tool huggingface "huggingface $S/huggingface/hub created moved HF_HOME
huggingface $S/huggingface/xet created moved HF_HOME
huggingface $S/huggingface/datasets created moved HF_HOME"
check_tool huggingface "huggingface $T/hf/hub created overlay
huggingface $T/hf/xet created overlay
huggingface $T/hf/datasets created overlay" HF_HOME="$T/hf"
PRE="$X/huggingface"
check_tool huggingface "huggingface $X/huggingface/hub created overlay
huggingface $X/huggingface/xet created overlay
huggingface $X/huggingface/datasets created overlay"
PRE=

# Where no variable moves a missing cache (Maven's ~/.m2, ccache's, whose
# CCACHE_DIR would move its configuration file too): not granted, and
# nothing made.
is "$(caches_of maven,ccache)" "rc=0
maven $H/.m2/repository missing -
maven $H/.m2/wrapper missing -
ccache $X/ccache missing -" "--cache maven,ccache, no ~/.m2, no ccache dir: listed missing"
[ -z "$(ls -A "$HOME")" ] && [ ! -e "$X" ] && [ ! -e "$S/maven" ] && [ ! -e "$S/ccache" ]
ok $? "... and nothing is made for them"

# A legacy location where it exists: ~/.ccache, ~/.composer/cache and
# ~/.gem/specs are used instead of the XDG ones, never made.
got=$(rm -rf "$HOME" "$XDG_CACHE_HOME" "$S" "$T/s.json" && mkdir -p "$HOME/.ccache" "$HOME/.composer/cache" "$HOME/.gem/specs" &&
	(cd "$WS" && crun --sandbox required --cache ccache,composer,gem --status-file "$T/s.json" -- true) &&
	json_field "$T/s.json" status '" ".join(c["path"] + ":" + c["state"] for c in e["caches"])')
is "$got" "$H/.composer/cache:existing $S/bundle:created $H/.gem/specs:existing $H/.ccache:existing" \
	"legacy locations that exist are granted in place of the XDG ones"
[ ! -e "$X/ccache" ] && [ ! -e "$X/composer" ] && [ ! -e "$X/gem" ] && [ ! -e "$S/composer" ] && [ ! -e "$S/gem-specs" ]
ok $? "... and the XDG ones are not made, nor moved"

# The token beside the Hugging Face caches stays read-only.
rm -rf "$HOME" "$X" && mkdir -p "$HOME" "$X/huggingface" && echo tok >"$X/huggingface/token"
(cd "$WS" && crun --sandbox required --cache huggingface -- sh -c "echo x > '$X/huggingface/token'") 2>/dev/null
[ "$(cat "$X/huggingface/token")" = tok ]
ok $? "--cache huggingface: HF_HOME's token is not writable"

done_testing
