#!/usr/bin/env bash
# What must keep working when confined: the workspace, the run's temp dir,
# the caches, /dev/null, and everyday tools (mktemp, git, python3, node,
# cargo).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

# Whether the real cargo works here, decided before the stand-ins below
# could answer for it.
tool_ok cargo
cargo_why=$TOOL_WHY

# A cache is made only for a tool that is present here: make all four
# present, whatever this machine has installed (stand-ins at the end of
# PATH; a real tool, when there is one, comes first).
mkdir -p "$T/standins"
for p in cargo npm pip playwright; do
	printf '#!/bin/sh\nexit 0\n' >"$T/standins/$p"
	chmod +x "$T/standins/$p"
done
export PATH="$PATH:$T/standins"

inside() { # inside NAME COMMAND: runs confined in $WS, must exit 0
	(cd "$WS" && crun --status-file "$T/s.json" -- sh -c "$2") >"$T/o" 2>"$T/e"
	local rc=$?
	ok "$rc" "$1"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e"
}

inside "write, append, truncate in the workspace" \
	'echo a > f && echo b >> f && truncate -s 1 f && test "$(cat f)" = a'
inside "mkdir, rename, symlink, hard link, rm inside" \
	'mkdir -p d/e && echo x > d/e/f && mv d/e/f d/g && ln -s g d/s && ln d/g d/h && rm -rf d'
inside "mkfifo and a unix socket inside" \
	"mkfifo fifo && python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('sock')\" && rm fifo sock"
inside "mktemp uses the run's TMPDIR" \
	'f=$(mktemp) && case $f in "$TMPDIR"/*) echo x > "$f";; *) exit 1;; esac'
inside "mktemp -d and a cross-directory rename tmp -> workspace" \
	'd=$(mktemp -d) && echo x > "$d/f" && mv "$d/f" moved && test -f moved'
inside "writes to /dev/null, /dev/zero reads" \
	'echo x > /dev/null && head -c 4 /dev/zero > z && test "$(wc -c < z)" -eq 4'
if tool_ok git; then
	inside "git init, add, commit, status" \
		'git init -q repo && cd repo && echo hi > a && git add a && git commit -qm one && git status --short && git log --oneline | grep -q one'
else
	skip "git init, add, commit, status: $TOOL_WHY"
fi
inside "python3 -c writes a file" \
	"python3 -c \"open('py.txt','w').write('ok')\" && test \"\$(cat py.txt)\" = ok"
if tool_ok node; then
	inside "node -e writes a file" \
		"node -e \"require('fs').writeFileSync('node.txt','ok')\" && test \"\$(cat node.txt)\" = ok"
else
	skip "node -e writes a file: $TOOL_WHY"
fi
# No ~/.npm here: npm's cache is moved under the state dir, by npm_config_cache.
inside "caches are writable (npm cache, under the state dir)" \
	'test "$npm_config_cache" = "'"$STATE"'/caches/npm" && echo x > "$npm_config_cache/cordon-test" && rm "$npm_config_cache/cordon-test"'
inside "an abstract Unix socket of the command's own works" \
	"python3 -c \"
import os, socket, threading
name = b'\\\\0cordon-test-%d' % os.getpid()
srv = socket.socket(socket.AF_UNIX); srv.bind(name); srv.listen(1)
def serve():
    c, _ = srv.accept(); c.sendall(c.recv(10)); c.close()
threading.Thread(target=serve).start()
cli = socket.socket(socket.AF_UNIX); cli.connect(name); cli.sendall(b'ping')
assert cli.recv(10) == b'ping'
\""
inside "python multiprocessing Manager (abstract sockets) works" \
	"python3 -c \"
import multiprocessing as mp
if __name__ == '__main__':
    with mp.Manager() as m:
        d = m.dict(); d['k'] = 42; assert d['k'] == 42
\""
inside "reads outside still work" 'cat /etc/passwd > /dev/null && ls / > /dev/null'

if [ -z "$cargo_why" ]; then
	inside "cargo --version" 'cargo --version'
else
	skip "cargo --version: $cargo_why ($(id -un))"
fi

# The caches were created owner-only before confinement, none in the home.
is "$(stat -c %a "$STATE/caches/npm")" 700 "a missing cache is created under the state dir with mode 0700"
[ ! -e "$HOME/.npm" ] && [ ! -e "$XDG_CACHE_HOME/pip" ]
ok $? "... and none is made in the home or XDG_CACHE_HOME"
"$PY" - "$T/s.json" "$WS" "$HOME" "$STATE" <<'PY'
import json, os, shutil, sys
s = json.loads(open(sys.argv[1]).readline())
ws, home, state = (os.path.realpath(p) for p in sys.argv[2:5])
w = s["writable"]
names = {c["name"] for c in s["caches"]}
# go's is on by default too, listed when go is on PATH.
want = {"cargo", "npm", "pip", "playwright"} | ({"go"} if shutil.which("go") else set())
# /tmp is listed only as the run's own (private_tmp), never the machine's.
own_tmp = [p["path"] for p in s["private_tmp"]]
ok = (ws in w and s["tmpdir"] in w and home not in w and state not in w
      and ("/tmp" not in w or "/tmp" in own_tmp) and "/dev/null" in w and names == want
      and s["tmpdir"].startswith(state + "/runs/"))
sys.exit(0 if ok else 1)
PY
ok $? "writable set: workspace, tmpdir, caches, devices; not HOME, the state dir or /tmp"

(cd "$WS" && crun --no-caches -- sh -c 'echo x > "'"$STATE"'/caches/npm/nope"') 2>/dev/null
[ ! -e "$STATE/caches/npm/nope" ]
ok $? "--no-caches: the npm cache is not writable"
(cd "$WS" && crun --cache pip -- sh -c 'echo x > "'"$STATE"'/caches/npm/nope"') 2>/dev/null
[ ! -e "$STATE/caches/npm/nope" ]
ok $? "--cache pip: the npm cache is not writable"
(cd "$WS" && crun --cache pip -- sh -c 'test -z "${npm_config_cache-}" && echo x > "$PIP_CACHE_DIR/yes"')
is "$?:$(cat "$STATE/caches/pip/yes" 2>/dev/null)" 0:x "--cache pip: the pip cache (under the state dir) is writable; npm's variable is not set"
mkdir -p "$XDG_CACHE_HOME/pip"
(cd "$WS" && crun --cache pip -- sh -c 'test -z "${PIP_CACHE_DIR-}" && echo x > "$XDG_CACHE_HOME/pip/yes"')
rc=$?
got=$(cd "$WS" && crun --cache pip -- cat "$XDG_CACHE_HOME/pip/yes" 2>&1)
is "$rc:$got:$(ls -A "$XDG_CACHE_HOME/pip")" 0:x: \
	"--cache pip: an existing XDG_CACHE_HOME/pip is used in place (no variable), writable inside; the write is seen by the next run, not in the cache itself"
rm -rf "$XDG_CACHE_HOME"

# Tool variables move the caches.
mkdir -p "$T/other"
(cd "$WS" && npm_config_cache="$T/other/npmc" crun --cache npm -- sh -c 'echo x > "$npm_config_cache/f"')
is "$?:$(stat -c %a "$T/other/npmc" 2>/dev/null)" "0:700" "npm_config_cache is honoured and created owner-only"
(cd "$WS" && CARGO_HOME="$T/other/cargo" crun --cache cargo -- sh -c \
	'echo x > "$CARGO_HOME/registry/f" && echo x > "$CARGO_HOME/git/f" && echo l > "$CARGO_HOME/.package-cache"')
is "$?" 0 "CARGO_HOME: registry, git and .package-cache are writable"
(cd "$WS" && CARGO_HOME="$T/other/cargo" crun --cache cargo -- sh -c 'echo x > "$CARGO_HOME/config.toml"') 2>/dev/null
[ ! -e "$T/other/cargo/config.toml" ]
ok $? "CARGO_HOME itself (toolchains, config) stays read-only"
(cd "$WS" && PIP_CACHE_DIR="$T/other/pipc" PLAYWRIGHT_BROWSERS_PATH="$T/other/pw" crun --cache pip,playwright -- \
	sh -c 'echo x > "$PIP_CACHE_DIR/f" && echo x > "$PLAYWRIGHT_BROWSERS_PATH/f"')
is "$?" 0 "PIP_CACHE_DIR and PLAYWRIGHT_BROWSERS_PATH are honoured"
(cd "$WS" && npm_config_cache="$HOME" crun --cache npm --status-file "$T/s2.json" -- sh -c 'echo x > "$HOME/evil"') 2>/dev/null
[ ! -e "$HOME/evil" ]
ok $? "a cache variable pointing at HOME is refused, not granted"
is "$(json_field "$T/s2.json" status 'e["caches"][0]["state"]')" refused "... and reported as refused"

# A cache is created only for a tool that is present: its variable is set,
# its cache (or CARGO_HOME) exists, or one of its programs is on PATH.
mkdir -p "$T/bare" "$T/home2"
ln -s /bin/sh "$T/bare/sh"
ln -s /bin/true "$T/bare/true"
bare() { (cd "$WS" && HOME=$T/home2 XDG_CACHE_HOME=$T/home2/.cache PATH=$T/bare "$CORDON" run \
	--state-dir "$T/state2" --status-file "$T/s3.json" "$@"); }
# The command by its path, wherever $T/bare lies (in the machine's /tmp,
# tests/lib.sh's last resort, a run with a /tmp of its own would not see it).
TRUE=$(type -P true)
rm -f "$T/s3.json"
bare -- "$TRUE"
is "$(json_field "$T/s3.json" status 'e["caches"]')" "[]" "no tool present: no cache listed"
is "$(find "$T/home2" -mindepth 1 | wc -l)" 0 "no tool present: nothing created in HOME"
mkdir "$T/home2/.npm"
rm -f "$T/s3.json"
bare -- "$TRUE"
is "$(json_field "$T/s3.json" status '[(c["name"], c["state"]) for c in e["caches"]]')" '[["npm", "existing"]]' \
	"an existing ~/.npm makes npm present; nothing else is made"
ln -s "$T/standins/cargo" "$T/bare/cargo"
rm -f "$T/s3.json"
bare --cache cargo,pip -- "$TRUE"
is "$(json_field "$T/s3.json" status '[(c["state"], c["variable"]) for c in e["caches"] if c["name"] == "cargo"]')" \
	'[["created", "CARGO_HOME"], ["created", "CARGO_HOME"], ["created", "CARGO_HOME"]]' \
	"cargo on PATH, no ~/.cargo: its caches are created under the state dir (CARGO_HOME)"
[ ! -e "$T/home2/.cache/pip" ] && [ ! -e "$T/state2/caches/pip" ] && [ ! -e "$T/home2/.cargo" ]
ok $? "... pip, not present, gets none; nothing is made in the home"
mkdir "$T/home2/.cargo"
rm -f "$T/s3.json"
bare --cache cargo -- "$TRUE"
is "$(json_field "$T/s3.json" status '[(c["path"], c["state"], c["variable"]) for c in e["caches"]]')" \
	"[[\"$T/home2/.cargo/registry\", \"created\", null], [\"$T/home2/.cargo/git\", \"created\", null], [\"$T/home2/.cargo/.package-cache\", \"created\", null]]" \
	"an existing ~/.cargo: the missing caches are made in it"
rm -f "$T/s3.json"
(PIP_CACHE_DIR=$T/home2/pipc bare --cache pip -- "$TRUE")
is "$(json_field "$T/s3.json" status '[c["state"] for c in e["caches"]]')" '["created"]' \
	"PIP_CACHE_DIR set: pip is present, its cache is created"
rm -f "$T/s3.json"
(CARGO_HOME=/$(printf 'a%.0s' $(seq 5000)) bare --cache cargo -- "$TRUE")
is "$?:$(json_field "$T/s3.json" status '[(c["name"], c["path"], c["state"]) for c in e["caches"]]')" \
	'0:[["cargo", null, "unavailable"]]' "a CARGO_HOME longer than a path: reported unavailable, nothing granted"

# --allow-write adds a tree and a single file.
mkdir -p "$T/extra"
make_fixture "$T/extra-file"
(cd "$WS" && crun --allow-write "$T/extra" --allow-write "$T/extra-file" -- \
	sh -c "echo x > '$T/extra/f' && echo y > '$T/extra-file'")
is "$?:$(cat "$T/extra-file")" "0:y" "--allow-write grants a tree and a file"
(cd "$WS" && crun --allow-write "$T/extra-file" -- sh -c "echo x > '$T/extra-file.new'") 2>/dev/null
[ ! -e "$T/extra-file.new" ]
ok $? "--allow-write FILE grants only that file, not its directory"

done_testing
