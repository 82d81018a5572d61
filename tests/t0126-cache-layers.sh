#!/usr/bin/env bash
# Caches that hold code run later (issue 35, item 2): no write of a
# confined run reaches the user's own caches, which unconfined programs
# later run, link or load from; confined runs keep a warm cache.
#
# With the mount layer each cache of the user's is an overlay: the user's
# cache read-only below, cordon's shared layer (STATE/layers/NAME) above,
# the run's writes merged into that layer at its end. Checked outside:
#   - the npx plant: a --network off run writes ~/.npm/_npx/<hash>/... with
#     a bin; the user's ~/.npm is unchanged and the user's next plain
#     `npx --no PKG@1.2.3` (from a registry of the test's own, which
#     serves the package's metadata only) finds nothing planted, where the
#     same plant made unconfined (the control) runs;
#   - a Go build-cache entry rewritten, a cargo registry/src file, a pip
#     wheel, a Playwright browser binary, an opt-in cache's (sccache,
#     gradle) files: the user's caches unchanged;
#   - warmth: a later confined run reads the user's cache and what earlier
#     runs wrote (and not what they removed);
#   - two runs at once: both runs' writes merged, no run dir left;
#   - a run killed with SIGKILL: its dir is swept by later runs, its
#     writes discarded;
#   - no mount layer (Landlock only): each cache moved to cordon's own by
#     its variable (said in the event), cargo's left read-only, a write to
#     the user's cache refused;
#   - --review: the workspace held, a cache's write in cordon's layer,
#     not among the held changes;
#   - --allow-write of a cache: written directly (the user's choice).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DAEMONS=()
trap 'for p in "${DAEMONS[@]}"; do kill "$p" 2>/dev/null; done; cleanup' EXIT

X=$XDG_CACHE_HOME
NPX_HASH=fa50b242eb404f9d # sha512("cordon-npx-plant@1.2.3"), first 16 hex digits
H2=$T/home2 # the control's home

# The user's caches, as tools left them.
user_caches() { # user_caches HOME
	local h=$1 x=$1/.xdg
	mkdir -p "$h/.npm/_cacache/index-v5/aa" "$x/go-build/ab" \
		"$h/.cargo/registry/src/index.crates.io-6f17d22bba15001f/foo-1.0.0/src" \
		"$x/pip/wheels/ab/cd" "$x/ms-playwright/chromium-1000/chrome-linux" \
		"$x/sccache/a/b" "$h/.gradle/caches/modules-2/files-2.1/g"
	echo index >"$h/.npm/_cacache/index-v5/aa/bb"
	echo gone >"$h/.npm/_cacache/index-v5/aa/removed"
	echo genuine >"$x/go-build/ab/abcd-d"
	echo 'pub fn f() {}' >"$h/.cargo/registry/src/index.crates.io-6f17d22bba15001f/foo-1.0.0/src/lib.rs"
	echo wheel >"$x/pip/wheels/ab/cd/foo-1.0-py3-none-any.whl"
	printf '#!/bin/sh\necho chrome\n' >"$x/ms-playwright/chromium-1000/chrome-linux/chrome"
	chmod 0755 "$x/ms-playwright/chromium-1000/chrome-linux/chrome"
	echo obj >"$x/sccache/a/b/obj"
	echo jar >"$h/.gradle/caches/modules-2/files-2.1/g/a.jar"
}
user_caches "$HOME"
mv "$HOME/.xdg"/* "$X" 2>/dev/null || { mkdir -p "$X" && mv "$HOME/.xdg"/* "$X"; }
rmdir "$HOME/.xdg"
CACHES=("$HOME/.npm" "$X/go-build" "$HOME/.cargo" "$X/pip" "$X/ms-playwright" "$X/sccache" "$HOME/.gradle")
snap_all() { for c in "${CACHES[@]}"; do snapshot "$c"; done; }
before=$(snap_all)

# Confined: the mount layer (overlays), or Landlock only (way=landlock).
way=mount
run_c() {
	if [ "$way" = landlock ]; then
		"$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" --sandbox required "$@"
	else
		"$CORDON" run --state-dir "$STATE" --sandbox required "$@"
	fi
}
cache_field() { # cache_field STATUS-FILE PATH FIELD: of the cache entry at (or from) PATH
	json_field "$1" status "[c[\"$3\"] for c in e[\"caches\"] if c[\"path\"] == \"$2\" or c[\"from\"] == \"$2\"]"
}

rm -f "$T/s.json"
(cd "$WS" && run_c --cache cargo,npm,pip,playwright,go,sccache,gradle --status-file "$T/s.json" -- true) >/dev/null 2>&1
layers=$(json_field "$T/s.json" status '" ".join(e["layers"])')
if [[ " $layers " != *" mount_namespace "* ]]; then
	skip_all "no mount layer here (layers: $layers): the caches cannot be overlays"
fi
# cordon's answer for this state dir's file system, kept in STATE/layers
# (layer-caches.c): a file system that cannot hold an upper dir.
if grep -qs ' 0$' "$STATE"/layers/.overlay-*; then
	skip_all "overlays cannot be made with their upper dirs in $STATE ($(stat -f -c %T "$STATE")): the caches are moved"
fi

# ---- the event says where the writes go ----
layer=$(cache_field "$T/s.json" "$HOME/.npm" layer)
[[ "$layer" == "[\"$STATE/layers/npm-"????????????????'"]' ]]
ok $? "the event: ~/.npm is an overlay, its layer $layer under the state dir"
is "$(json_field "$T/s.json" status '" ".join(sorted(set(c["how"] for c in e["caches"] if c["path"] != None and "/.package-cache" not in c["path"] and not c["path"].startswith("'"$STATE/"'"))))')" \
	overlay "every cache of the user's (but cargo's lock file) is an overlay (go's missing ~/go is moved)"
is "$(cache_field "$T/s.json" "$HOME/.cargo/.package-cache" how)" '["direct"]' \
	"cargo's package-cache lock is written where it is (cargo only locks it)"
LAYER_NPM=$(cache_field "$T/s.json" "$HOME/.npm" layer | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0])')

# ---- the npx plant ----
# A registry of the test's own: the package's metadata (npx asks for it
# before it looks in its _npx trees), nothing else.
cat >"$T/reg.py" <<'EOF'
import http.server, json, socket, sys
name = "cordon-npx-plant"
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
doc = {"name": name, "dist-tags": {"latest": "1.2.3"}, "versions": {"1.2.3": {
    "name": name, "version": "1.2.3", "bin": {name: "bin.js"},
    "dist": {"tarball": "http://127.0.0.1:%d/%s.tgz" % (port, name), "integrity": "sha512-AAAA"}}}}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", port), H)
print(port, flush=True)
srv.serve_forever()
EOF
# The plant: the tree npx itself would have installed, with a bin that
# leaves a mark.
plant='d=$HOME/.npm/_npx/'$NPX_HASH'/node_modules && mkdir -p "$d/cordon-npx-plant" "$d/.bin" &&
echo "{\"dependencies\":{\"cordon-npx-plant\":\"^1.2.3\"},\"_npx\":{\"packages\":[\"cordon-npx-plant@1.2.3\"]}}" >"$d/../package.json" &&
echo "{\"name\":\"cordon-npx-plant\",\"version\":\"1.2.3\",\"bin\":{\"cordon-npx-plant\":\"bin.js\"}}" >"$d/cordon-npx-plant/package.json" &&
printf "#!/bin/sh\necho pwned >\"\$PLANT_MARK\"\n" >"$d/cordon-npx-plant/bin.js" && chmod 0755 "$d/cordon-npx-plant/bin.js" &&
ln -s ../cordon-npx-plant/bin.js "$d/.bin/cordon-npx-plant"'
# The user's next step, unconfined: npx of that exact version, never
# installing (--no): it runs only what it finds in its _npx tree.
npx_later() { # npx_later HOME: "pwned" when the planted bin ran
	rm -f "$T/mark"
	(cd "$WS" && HOME=$1 PLANT_MARK=$T/mark npm_config_registry=http://127.0.0.1:$REG_PORT/ \
		npm_config_update_notifier=false npm_config_cache=$1/.npm \
		npx --no cordon-npx-plant@1.2.3) >"$T/npx.out" 2>&1
	cat "$T/mark" 2>/dev/null || echo "not run"
}
if command -v npx >/dev/null 2>&1; then
	coproc REG { exec "$PY" "$T/reg.py"; }
	DAEMONS+=("$REG_PID")
	read -r REG_PORT <&"${REG[0]}"
	mkdir -p "$H2/.npm"
	(cd "$WS" && HOME=$H2 "$CORDON" run --sandbox off -- sh -c "$plant")
	is "$(npx_later "$H2")" pwned "control: planted unconfined, the user's next npx runs it"
	npm_before=$(snapshot "$HOME/.npm")
	(cd "$WS" && run_c --network off -- sh -c "$plant") >"$T/o" 2>&1
	ok $? "a --network off run plants an npx tree in ~/.npm/_npx (no error)"
	unchanged "the user's ~/.npm after the plant" "$HOME/.npm" "$npm_before"
	is "$(npx_later "$HOME")" "not run" "the user's next npx finds nothing planted"
	[ -x "$LAYER_NPM/shared/_npx/$NPX_HASH/node_modules/cordon-npx-plant/bin.js" ]
	ok $? "... the tree is in cordon's layer of ~/.npm"
	out=$(cd "$WS" && run_c -- sh -c 'cat "$HOME/.npm/_npx/'$NPX_HASH'/node_modules/cordon-npx-plant/package.json"' 2>&1)
	[[ "$out" == *'"version":"1.2.3"'* ]]
	ok $? "... which later confined runs see"
	# npx itself (unconfined) wrote the user's cache: what is compared
	# from here on.
	before=$(snap_all)
else
	for n in 1 2 3 4 5; do skip "the npx plant ($n): no npx here"; done
fi

# ---- code the user's tools run, link or load: rewritten by a run ----
rewrite='echo payload >"$XDG_CACHE_HOME/go-build/ab/abcd-d" &&
echo "pub fn f() { payload() }" >"$HOME/.cargo/registry/src/index.crates.io-6f17d22bba15001f/foo-1.0.0/src/lib.rs" &&
echo payload >"$XDG_CACHE_HOME/pip/wheels/ab/cd/foo-1.0-py3-none-any.whl" &&
printf "#!/bin/sh\necho payload\n" >"$XDG_CACHE_HOME/ms-playwright/chromium-1000/chrome-linux/chrome" &&
echo payload >"$XDG_CACHE_HOME/sccache/a/b/obj" && echo payload >"$HOME/.gradle/caches/modules-2/files-2.1/g/a.jar" &&
echo added >"$HOME/.npm/_cacache/index-v5/aa/added" && rm "$HOME/.npm/_cacache/index-v5/aa/removed"'
(cd "$WS" && run_c --network off --cache cargo,npm,pip,playwright,go,sccache,gradle -- sh -c "$rewrite") >"$T/o" 2>&1
rc=$?
is "$rc" 0 "a run rewrites a Go build-cache entry, a cargo source, a pip wheel, Playwright's chrome, sccache's and gradle's files (no error)"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/o" | head -n 5
is "$(snap_all)" "$before" "the user's caches (npm, go-build, cargo, pip, ms-playwright, sccache, gradle): unchanged"
is "$("$X/ms-playwright/chromium-1000/chrome-linux/chrome")" chrome "the user's Playwright chrome still runs the genuine one"

# ---- warmth ----
got=$(cd "$WS" && run_c --cache cargo,npm,pip,playwright,go,sccache,gradle -- sh -c '
	cat "$XDG_CACHE_HOME/go-build/ab/abcd-d" "$HOME/.npm/_cacache/index-v5/aa/added" \
		"$HOME/.npm/_cacache/index-v5/aa/bb" "$XDG_CACHE_HOME/sccache/a/b/obj"
	[ -e "$HOME/.npm/_cacache/index-v5/aa/removed" ] && echo removed-seen
	"$XDG_CACHE_HOME/ms-playwright/chromium-1000/chrome-linux/chrome"' 2>&1 | tr '\n' ' ')
is "$got" "payload added index payload payload " \
	"a later confined run sees what the earlier one wrote (not what it removed) and the user's own content"
[ -e "$HOME/.npm/_cacache/index-v5/aa/removed" ]
ok $? "... the file a run removed is still in the user's cache"
echo more >"$HOME/.npm/_cacache/index-v5/aa/later"
got=$(cd "$WS" && run_c -- cat "$HOME/.npm/_cacache/index-v5/aa/later" 2>&1)
is "$got" more "what the user's own npm adds later is seen by the next confined run"
rm "$HOME/.npm/_cacache/index-v5/aa/later"
before=$(snap_all)

# ---- two runs at once ----
pids=()
for i in 1 2; do
	(cd "$WS" && run_c -- sh -c "echo $i >\"\$HOME/.npm/_cacache/conc$i\" && echo $i >\"\$HOME/.npm/_cacache/both\" && sleep 1") >/dev/null 2>&1 &
	pids+=($!)
done
wait "${pids[@]}"
got=$(cd "$WS" && run_c -- sh -c 'cat "$HOME/.npm/_cacache/conc1" "$HOME/.npm/_cacache/conc2" "$HOME/.npm/_cacache/both"' 2>&1 | tr '\n' ' ')
[[ "$got" == "1 2 1 " || "$got" == "1 2 2 " ]]
ok $? "two runs at once: both runs' files merged, one's copy of the same file wins (got: $got)"
is "$(find "$LAYER_NPM" -maxdepth 1 -name '.run-*' | wc -l)" 0 "... no run dir is left in the layer"

# ---- a run killed with SIGKILL ----
(cd "$WS" && exec "$CORDON" run --state-dir "$STATE" --sandbox required -- sh -c \
	'echo killed >"$HOME/.npm/_cacache/killed" && sleep 30') >/dev/null 2>&1 &
cpid=$!
for _ in $(seq 100); do
	[ -n "$(find "$LAYER_NPM" -path '*/.run-*/s0/upper/_cacache/killed' 2>/dev/null)" ] && break
	sleep 0.1
done
dead=$(find "$LAYER_NPM" -maxdepth 1 -name '.run-*')
{
	kill -KILL "$cpid"
	wait "$cpid"
} 2>/dev/null # bash's "Killed" line
[ -n "$dead" ] && [ -d "$dead" ]
ok $? "a run killed with SIGKILL leaves its run dir (${dead##*/})"
# The killed run's processes leave its lock when the kernel has ended
# them all (its PID namespace goes down after its process 1): a run
# started before that sees it alive and leaves it; a few runs at most.
# That run's own sweep of runs/ may remove it at once.
for _ in 1 2 3 4 5; do
	(cd "$WS" && run_c -- true) >/dev/null 2>&1
	[ ! -e "$dead" ] && break
	sleep 0.5
done
[ ! -e "$dead" ] && { [ -n "$(find "$STATE/runs" -maxdepth 1 -name "layer${dead##*/.run-}-npm-*")" ] ||
	[ ! -e "$LAYER_NPM/shared/_cacache/killed" ]; }
ok $? "... a later run moves it out of the layer into STATE/runs/"
# Each run's sweep of runs/ removes at least a few entries before its
# end (runtmp.c): a few short runs remove the killed run's dirs.
for _ in 1 2 3 4 5 6; do
	[ -z "$(find "$STATE/runs" -maxdepth 1 -name "layer*")" ] && break
	(cd "$WS" && run_c -- true) >/dev/null 2>&1
done
is "$(find "$STATE/runs" -maxdepth 1 -name "layer*" | wc -l)" 0 "... whose sweep removes it"
got=$(cd "$WS" && run_c -- sh -c 'cat "$HOME/.npm/_cacache/killed" 2>&1 || echo absent')
[[ "$got" == *absent* ]] && [ ! -e "$LAYER_NPM/shared/_cacache/killed" ]
ok $? "... and its writes are discarded"
is "$(snap_all)" "$before" "the user's caches: unchanged by the concurrent and killed runs"

# ---- --review: the workspace held, the caches still in cordon's layer ----
# Both are overlays of the mount layer (overlay.c); the cache's is mounted
# first. A run's write to a cache lands in cordon's layer at its end, not
# in the held changes, and never in the user's cache.
wsbefore=$(snapshot "$WS")
rm -f "$T/s.json"
(cd "$WS" && run_c --review --status-file "$T/s.json" -- sh -c \
	'echo held >"$PWD/held-file" && echo reviewed >"$HOME/.npm/_cacache/reviewed"') >"$T/o" 2>&1
rc=$?
is "$rc" 0 "--review: a run writes the workspace and ~/.npm (no error)"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/o" | head -n 5
is "$(snapshot "$WS")" "$wsbefore" "... the real workspace is unchanged (held)"
is "$(json_field "$T/s.json" exit '[c["path"] for c in e["review"]["changes"]]')" '["held-file"]' \
	"... the held changes list the workspace's file alone, not the cache's"
is "$(snap_all)" "$before" "... the user's caches are unchanged"
is "$(cat "$LAYER_NPM/shared/_cacache/reviewed" 2>&1)" reviewed "... the cache's write is in cordon's layer"
"$CORDON" discard --state-dir "$STATE" "$(json_field "$T/s.json" status 'e["run_id"]')" 2>"$T/e"
is "$?" 0 "... discarded"

# ---- real tools: go build with the user's build cache ----
if tool_ok go; then
	mkdir -p "$WS/mod" && printf 'module example.com/m\n\ngo 1.13\n' >"$WS/mod/go.mod"
	printf 'package main\n\nfunc main() { println("hi") }\n' >"$WS/mod/main.go"
	unset GOCACHE GOFLAGS GOENV
	export GOPATH=$T/gopath
	mkdir -p "$GOPATH"
	gobefore=$(snapshot "$X/go-build")
	(cd "$WS/mod" && run_c --network off -- go build -o /dev/null .) >"$T/go.out" 2>&1
	is "$?" 0 "go build, confined, with the user's build cache"
	unchanged "the user's go build cache after a confined go build" "$X/go-build" "$gobefore"
	n=$(find "$STATE/layers" -path '*go-*/shared/*' -type f | wc -l)
	[ "$n" -gt 10 ]
	ok $? "... go's build is in cordon's layer ($n files)"
	(cd "$WS/mod" && run_c --network off -- go build -x -o /dev/null .) >"$T/go2.out" 2>&1
	! grep -q '/compile ' "$T/go2.out"
	ok $? "... a second confined go build compiles nothing (warm)"
else
	for n in 1 2 3 4; do skip "go build ($n): $TOOL_WHY"; done
fi

# ---- --allow-write of a cache: the user's explicit choice ----
rm -f "$T/s.json"
(cd "$WS" && run_c --allow-write "$HOME/.npm" --status-file "$T/s.json" -- sh -c 'echo direct >"$HOME/.npm/direct"') >/dev/null 2>&1
is "$(cat "$HOME/.npm/direct" 2>/dev/null):$(cache_field "$T/s.json" "$HOME/.npm" state):$(cache_field "$T/s.json" "$HOME/.npm" how)" \
	'direct:["inside"]:["direct"]' "--allow-write ~/.npm: written directly, listed inside, how direct"
rm -f "$HOME/.npm/direct"
before=$(snap_all) # the test's own write and removal there changed ~/.npm

# ---- no mount layer: Landlock only ----
way=landlock
rm -f "$T/s.json"
(cd "$WS" && run_c --status-file "$T/s.json" -- sh -c 'echo "$npm_config_cache"; echo x >"$HOME/.npm/ll"') >"$T/o" 2>&1
grep -q 'Permission denied' "$T/o" && [ ! -e "$HOME/.npm/ll" ]
ok $? "Landlock only: a write to the user's ~/.npm is refused"
is "$(head -n 1 "$T/o")" "$STATE/caches/npm" "... npm is pointed at cordon's own cache (npm_config_cache)"
is "$(cache_field "$T/s.json" "$HOME/.npm" how):$(cache_field "$T/s.json" "$HOME/.npm" variable):$(cache_field "$T/s.json" "$HOME/.npm" path)" \
	"[\"moved\"]:[\"npm_config_cache\"]:[\"$STATE/caches/npm\"]" \
	"... the event says so: moved, by npm_config_cache, from ~/.npm"
is "$(cache_field "$T/s.json" "$HOME/.cargo/registry" state):$(cache_field "$T/s.json" "$X/go-build" how)" \
	'["not_isolated"]:["moved"]' "... cargo's registry (no variable moves it alone) not_isolated, go's build cache moved (GOCACHE)"
is "$(snap_all)" "$before" "the user's caches: unchanged"

done_testing
