#!/usr/bin/env bash
# What a run makes in the home: nothing its command does not need.
# - With the tools of the default caches on PATH (npm, pip, go, cargo
#   stand-ins) and none of their caches there, a run of `true` leaves the
#   home and the XDG cache dir as they were: each missing cache is moved
#   under the state dir (STATE/caches/NAME) by the tool's own variable,
#   which the command sees and can write through; what it writes stays.
# - A cache that exists in the home is used where it is, no variable set.
# - HOME unset: cordon uses no home for itself. Without --state-dir or
#   XDG_STATE_HOME the run is refused (exit 125, one line); with either it
#   runs and makes nothing in, nor grants anything of, the password
#   database's home (a fake one in a user and mount namespace of the
#   test's own, where /etc/passwd names a home in the test's dir).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

# Stand-ins of the tools whose caches are default, on a PATH of their own.
mkdir -p "$T/bin"
for p in npm pip go cargo; do
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/$p"
	chmod +x "$T/bin/$p"
done
TPATH=$T/bin:/usr/bin:/bin
listing() { # listing DIR: every entry below DIR, with its type and mode
	find "$1" -mindepth 1 -printf '%P|%y|%m\n' 2>/dev/null | sort
}

# 1. HOME set, no cache there: nothing made in the home.
mkdir -p "$HOME"
home_before=$(snapshot "$HOME")
(cd "$WS" && PATH=$TPATH crun --sandbox required --status-file "$T/s.json" -- true) >"$T/o" 2>&1
is "$?" 0 "tools on PATH, no cache in the home: the run works"
unchanged "the home (tools on PATH, their caches missing)" "$HOME" "$home_before"
[ ! -e "$XDG_CACHE_HOME" ]
ok $? "... and nothing is made in XDG_CACHE_HOME ($XDG_CACHE_HOME)"
is "$(json_field "$T/s.json" status '" ".join(sorted(set(c["name"] + ":" + str(c["variable"]) + ":" + str(c["path"].startswith("'"$STATE"'/caches/")) for c in e["caches"])))')" \
	"cargo:CARGO_HOME:True go:GOCACHE:True go:GOPATH:True npm:npm_config_cache:True pip:PIP_CACHE_DIR:True" \
	"the event lists each cache under the state dir with the variable that moved it"

# The command sees the variables and writes there; the writes stay.
(cd "$WS" && PATH=$TPATH crun --sandbox required -- sh -c '
	for d in "$npm_config_cache" "$PIP_CACHE_DIR" "$GOCACHE" "$GOPATH/pkg/mod" "$CARGO_HOME/registry"; do
		echo c >"$d/cordon-c" || exit 1
	done
	printf "%s\n" "$npm_config_cache" "$PIP_CACHE_DIR" "$GOCACHE" "$GOPATH" "$CARGO_HOME"') >"$T/o" 2>&1
is "$?:$(tr '\n' ' ' <"$T/o")" \
	"0:$STATE/caches/npm $STATE/caches/pip $STATE/caches/go-build $STATE/caches/go $STATE/caches/cargo " \
	"the command gets npm_config_cache, PIP_CACHE_DIR, GOCACHE, GOPATH, CARGO_HOME under the state dir, and writes there"
n=0
for d in npm pip go-build go/pkg/mod cargo/registry; do
	[ "$(cat "$STATE/caches/$d/cordon-c" 2>/dev/null)" = c ] && n=$((n + 1))
done
is "$n" 5 "... and what it wrote is there after the run"
is "$(stat -c %a "$STATE/caches" "$STATE/caches/npm" | tr '\n' ' ')" "700 700 " \
	"STATE/caches and the caches in it are owner-only"
(cd "$WS" && PATH=$TPATH crun --sandbox required -- sh -c 'echo x >"$npm_config_cache/../evil"') 2>/dev/null
[ ! -e "$STATE/caches/evil" ]
ok $? "STATE/caches itself is not writable by the command"
unchanged "the home (after the commands wrote their caches)" "$HOME" "$home_before"

# --explain says where the caches went, and which ones were not granted.
(cd "$WS" && PATH=$TPATH crun --explain=full --cache npm,pip,maven -- sh -c 'exit 3') >/dev/null 2>"$T/e"
grep -q "; tool caches moved under the state dir's caches/ (cold: they did not exist, or no mount layer shows yours through an overlay), named to the command by npm_config_cache, PIP_CACHE_DIR; " "$T/e"
ok $? "--explain names the variables that moved the caches under the state dir"
grep -q '; tool caches not granted as they do not exist: ~/.m2/repository, ~/.m2/wrapper (make one to have it granted)' "$T/e"
ok $? "--explain names the caches not granted as they do not exist (Maven's, without ~/.m2)"
[ ! -e "$HOME/.m2" ]
ok $? "... and no ~/.m2 was made"

# 2. A cache that exists in the home is the one used.
mkdir -p "$HOME/.npm" "$XDG_CACHE_HOME/pip"
home_before=$(listing "$HOME")
rm -f "$T/s.json"
(cd "$WS" && PATH=$TPATH crun --sandbox required --status-file "$T/s.json" -- sh -c '
	echo "npm=${npm_config_cache-unset} pip=${PIP_CACHE_DIR-unset}" && echo n >"$HOME/.npm/f" && echo p >"$XDG_CACHE_HOME/pip/f"') \
	>"$T/o" 2>&1
is "$?:$(cat "$T/o")" "0:npm=unset pip=unset" "existing ~/.npm and XDG pip cache: used in place, no variable set"
# Writable through an overlay: the writes are in cordon's layers, the
# caches themselves unchanged; a later confined run reads them.
(cd "$WS" && PATH=$TPATH crun --sandbox required -- cat "$HOME/.npm/f" "$XDG_CACHE_HOME/pip/f") >"$T/o" 2>&1
is "$(tr '\n' ' ' <"$T/o")|$(ls -A "$HOME/.npm")$(ls -A "$XDG_CACHE_HOME/pip")" "n p |" \
	"... and writable: a later confined run reads what it wrote, which is not in the caches themselves"
is "$(json_field "$T/s.json" status '[(c["path"], c["state"], c["variable"]) for c in e["caches"] if c["name"] in ("npm", "pip")]')" \
	"[[\"$HOME/.npm\", \"existing\", null], [\"$XDG_CACHE_HOME/pip\", \"existing\", null]]" \
	"... and listed existing, with no variable"
rm -f "$HOME/.npm/f" "$XDG_CACHE_HOME/pip/f"
is "$(listing "$HOME")" "$home_before" "... and nothing else is made in the home"
rm -rf "$HOME/.npm" "$XDG_CACHE_HOME"

# 3. HOME unset. Every run here is made in a user and mount namespace of
# the test's own where /etc/passwd gives uid 0 (the caller outside) a home
# in the test's dir: the password database's home a run must leave alone,
# and never the real one, whatever the build under test does.
fake=$T/pwhome
mkdir -p "$fake"
sed "s#^root:[^:]*:0:0:[^:]*:[^:]*:#root:x:0:0:root:$fake:#" /etc/passwd >"$T/passwd"
as_fake() { # as_fake [NAME=VALUE...] COMMAND...: with HOME unset and the fake passwd home
	(cd "$WS" && unshare -Urm sh -c 'mount --bind "$1" /etc/passwd && shift && exec "$@"' sh \
		"$T/passwd" env -u HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME PATH="$TPATH" "$@") \
		>"$T/o" 2>"$T/e"
}
if ! unshare -Urm sh -c 'mount --bind "$1" /etc/passwd && getent passwd 0' sh "$T/passwd" 2>/dev/null |
	grep -q ":$fake:"; then
	for n in $(seq 11); do skip "HOME unset ($n): no user and mount namespace here for a fake password database home"; done
	done_testing
fi
fake_before=$(snapshot "$fake")

# No state dir of its own: refused, one line.
as_fake "$CORDON" run -- true
is "$?:$(cat "$T/o")" "125:" "HOME unset, neither --state-dir nor XDG_STATE_HOME: exit 125, nothing run"
is "$(cat "$T/e")" "cordon: HOME is unset: give --state-dir DIR or set XDG_STATE_HOME" "... one line says why"
unchanged "the password database's home (refused run)" "$fake" "$fake_before"
as_fake HOME= "$CORDON" run -- true
is "$?:$(cat "$T/e")" "125:cordon: HOME is empty: give --state-dir DIR or set XDG_STATE_HOME" \
	"HOME empty: the same"

# With --state-dir: runs, every cache under that state dir.
rm -f "$T/s.json"
as_fake "$CORDON" run --state-dir "$T/st1" --sandbox required --status-file "$T/s.json" -- \
	sh -c 'echo "$npm_config_cache $PIP_CACHE_DIR"'
is "$?:$(cat "$T/o")" "0:$T/st1/caches/npm $T/st1/caches/pip" \
	"HOME unset, --state-dir: runs; the caches are under the state dir"
is "$(json_field "$T/s.json" status '[c["path"] for c in e["caches"] if not c["path"].startswith("'"$T/st1/caches/"'")]')" \
	"[]" "... every cache the event lists"
unchanged "the password database's home (run with --state-dir)" "$fake" "$fake_before"

# An existing cache in the password database's home is not granted either.
mkdir -p "$fake/.npm"
fake_before=$(snapshot "$fake")
as_fake "$CORDON" run --state-dir "$T/st1" --sandbox required -- sh -c 'echo "$npm_config_cache"; echo x >"'"$fake"'/.npm/f"'
is "$(head -n 1 "$T/o")" "$T/st1/caches/npm" "HOME unset: the passwd home's ~/.npm is not the cache, the state dir's is"
unchanged "the password database's home (its ~/.npm not writable)" "$fake" "$fake_before"

# With XDG_STATE_HOME: runs, the caches under it.
as_fake XDG_STATE_HOME="$T/xs" "$CORDON" run --sandbox required -- sh -c 'echo "$GOCACHE"'
is "$?:$(cat "$T/o")" "0:$T/xs/cordon/caches/go-build" "HOME unset, XDG_STATE_HOME: runs, the caches under it"
unchanged "the password database's home (run with XDG_STATE_HOME)" "$fake" "$fake_before"

done_testing
