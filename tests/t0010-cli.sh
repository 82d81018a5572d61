#!/usr/bin/env bash
# CLI: help, version, bad input (exit 125, one "cordon: ..." line, nothing
# run), exit-code mapping, and paths with awkward bytes.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

"$CORDON" --help >"$T/o" 2>"$T/e"
ok $? "--help exits 0"
grep -q 'cordon run' "$T/o"
ok $? "--help prints usage on stdout"
"$CORDON" run --help >"$T/o" && grep -q -- '--workspace' "$T/o"
ok $? "run --help lists options"
is "$("$CORDON" --version)" "cordon 0.1.0" "--version"

# bad NAME ARGS...: exit 125, exactly one stderr line starting "cordon: ",
# and the command (which would print RAN) never ran.
bad() {
	local name=$1 rc
	shift
	(cd "$WS" && "$CORDON" "$@") >"$T/o" 2>"$T/e"
	rc=$?
	is "$rc" 125 "$name: exit 125"
	is "$(wc -l <"$T/e" | tr -d ' ')" 1 "$name: one stderr line"
	case $(head -c 8 "$T/e") in
	"cordon: ") ok 0 "$name: message starts with 'cordon: '" ;;
	*) ok 1 "$name: message starts with 'cordon: '"; sed 's/^/#   /' "$T/e" ;;
	esac
	! grep -q RAN "$T/o"
	ok $? "$name: command not run"
}

touch "$T/afile" "$WS/afile-rel"
R=(-- echo RAN)
S=(--state-dir "$STATE")
bad "no arguments"
bad "unknown command" frob
bad "relative workspace that does not exist" run "${S[@]}" -w rel "${R[@]}"
bad "missing workspace" run "${S[@]}" -w "$T/nope" "${R[@]}"
bad "workspace is a file" run "${S[@]}" -w "$T/afile" "${R[@]}"
bad "workspace /" run "${S[@]}" -w / "${R[@]}"
bad "workspace is HOME" run "${S[@]}" -w "$HOME" "${R[@]}"
bad "workspace is an ancestor of HOME" run "${S[@]}" -w "$T" "${R[@]}"
bad "workspace option without value" run -w
bad "unknown mode" run "${S[@]}" --sandbox bogus "${R[@]}"
bad "missing --" run "${S[@]}" echo RAN
bad "empty command" run "${S[@]}" --
bad "no command at all" run "${S[@]}"
bad "timeout garbage" run "${S[@]}" --timeout abc "${R[@]}"
bad "timeout negative" run "${S[@]}" --timeout -1 "${R[@]}"
bad "timeout zero" run "${S[@]}" --timeout 0 "${R[@]}"
bad "timeout suffix" run "${S[@]}" --timeout 1x "${R[@]}"
bad "keep-fd garbage" run "${S[@]}" --keep-fd x "${R[@]}"
bad "keep-fd negative" run "${S[@]}" --keep-fd -1 "${R[@]}"
bad "keep-fd not open" run "${S[@]}" --keep-fd 77 "${R[@]}"
bad "status-fd not open" run "${S[@]}" --status-fd 77 "${R[@]}"
bad "status-file in a missing dir" run "${S[@]}" --status-file "$T/nodir/s.json" "${R[@]}"
bad "state dir under a file" run --state-dir "$T/afile/state" "${R[@]}"
bad "state dir in /proc" run --state-dir /proc/cordon-no-such/state "${R[@]}"
bad "relative state dir under a file" run --state-dir afile-rel/state "${R[@]}"
bad "allow-write missing" run "${S[@]}" --allow-write "$T/nope" "${R[@]}"
bad "allow-write relative, missing" run "${S[@]}" --allow-write rel "${R[@]}"
bad "allow-write /" run "${S[@]}" --allow-write / "${R[@]}"
bad "protect outside writable trees" run "${S[@]}" --protect "$T/afile" "${R[@]}"
bad "env empty" run "${S[@]}" --env '' "${R[@]}"
bad "env without name" run "${S[@]}" --env =x "${R[@]}"
bad "unknown option" run "${S[@]}" --frob "${R[@]}"
bad "unknown cache" run "${S[@]}" --cache npm,bogus "${R[@]}"
bad "flag with a value" run "${S[@]}" --clean-env=1 "${R[@]}"
bad "test-max-abi zero" run "${S[@]}" --test-max-abi 0 "${R[@]}"
bad "probe garbage" probe --frob
# Values longer than any path: a clear error, never an overflow.
long=/$(printf 'a%.0s' $(seq 5000))
HOME=$long bad "HOME longer than a path" run "${S[@]}" "${R[@]}"
grep -q 'HOME is longer than 4095 bytes' "$T/e"
ok $? "HOME longer than a path: says so"
XDG_STATE_HOME=$long bad "XDG_STATE_HOME longer than a path" run "${R[@]}"
# A home that does not exist (HOME=/nonexistent, as for system users) is
# never made: with no other state dir the run is refused; with one, it
# runs and the default caches under that home are moved under the state
# dir.
nohome=$T/no-such-home
mkdir -p "$T/fakebin" # an npm on PATH: its cache counts
printf '#!/bin/sh\n' >"$T/fakebin/npm"
chmod +x "$T/fakebin/npm"
XDG_STATE_HOME='' HOME=$nohome bad "HOME that does not exist, no state dir" run "${R[@]}"
grep -q "the home $nohome does not exist" "$T/e"
ok $? "... says so: $(cat "$T/e")"
(cd "$WS" && HOME=$nohome PATH="$T/fakebin:$PATH" "$CORDON" run "${S[@]}" --status-file "$T/nh.json" -- echo RAN) \
	>"$T/o" 2>&1
is "$?:$(cat "$T/o")" "0:RAN" "HOME that does not exist, --state-dir given: runs"
[ ! -e "$nohome" ]
ok $? "... and the home was not created"
is "$(json_field "$T/nh.json" status '[(x["path"].startswith("'"$nohome"'/"), x["variable"]) for x in e["caches"] or [] if x["name"] == "npm"]')" \
	'[[false, "npm_config_cache"]]' "... npm's cache, under that home by default, is moved under the state dir"
bad "workspace longer than a path" run "${S[@]}" -w "$long" "${R[@]}"
bad "state dir longer than a path" run --state-dir "$long" "${R[@]}"
bad "status file longer than a path" run "${S[@]}" --status-file "$long" "${R[@]}"
mkdir -p "$HOME/proj"
(cd "$HOME" && "$CORDON" run "${S[@]}" -- echo RAN) >"$T/o" 2>"$T/e"
is "$?" 125 "default workspace = HOME is refused"
is "$(cat "$T/e")" "cordon: refusing workspace $HOME: it is the home directory $HOME (HOME=$HOME; --allow-broad overrides)" \
	"... the line names the home"
mkdir -p "$WS/relhome"
(cd "$WS" && HOME=relhome "$CORDON" run "${S[@]}" -- echo RAN) >"$T/o" 2>"$T/e"
is "$?:$(cat "$T/e")" "125:cordon: refusing workspace $WS: it is an ancestor of the home directory $WS/relhome (HOME=relhome; --allow-broad overrides)" \
	"a relative HOME: the home it resolves to is named"
# (its state dir may not lie in the writable tree: one of the test's own
# outside $T)
st2=$(mktemp -d)
(cd "$WS" && "$CORDON" run --state-dir "$st2" -w "$T" --allow-broad -- echo RAN) >"$T/o" 2>&1
is "$?:$(cat "$T/o")" "0:RAN" "--allow-broad overrides the refusal"
rm -rf "$st2"

# Relative paths are resolved against the current directory, like every
# other Unix tool's.
mkdir -p "$WS/build"
echo keep >"$WS/keep.txt"
(cd "$WS" && "$CORDON" run -w . --allow-write build --protect keep.txt --state-dir ../relstate \
	--status-file ../rel.json -- sh -c 'echo x > build/y') >"$T/o" 2>"$T/e"
is "$?:$(cat "$WS/build/y" 2>/dev/null)" "0:x" "relative -w, --allow-write, --protect, --state-dir, --status-file"
is "$(json_field "$T/rel.json" status 'e["writable"][0] if e["applied"] else "'"$WS"'"')" "$WS" \
	"the relative workspace is the current directory, canonical"
is "$(json_field "$T/rel.json" status '[p["path"] for p in e["protected"] if p["explicit"]] if e["applied"] else ["'"$WS/keep.txt"'"]')" \
	"[\"$WS/keep.txt\"]" "the relative --protect path is resolved"
case $(json_field "$T/rel.json" status 'e["tmpdir"]') in
"$T/relstate/runs/"*) ok 0 "the relative state dir is resolved" ;;
*) ok 1 "the relative state dir is resolved: $(json_field "$T/rel.json" status 'e["tmpdir"]')" ;;
esac
rm -rf "$WS/build" "$WS/keep.txt" "$T/rel.json" "$WS/afile-rel" "$T/relstate"

# Where the command starts: cordon's current directory when it lies in
# the workspace, else the workspace (-w from elsewhere); --cwd names
# another. The start event says which, and the command's PWD names it
# (printenv: a shell would mend a stale PWD itself).
mkdir -p "$WS/sub dir" "$OUT/elsewhere"
cwd_event() { json_field "$T/cwd.json" status '[e["cwd"], e["cwd_from"]]'; }
rm -f "$T/cwd.json"
out=$(cd "$WS/sub dir" && export PWD && crun -w "$WS" --status-file "$T/cwd.json" -- sh -c 'pwd -P; printenv PWD')
is "$?:$out" "0:$WS/sub dir
$WS/sub dir" "cordon's directory inside the workspace: the command starts there"
is "$(cwd_event)" "[\"$WS/sub dir\", \"current\"]" "... the start event: cwd, cwd_from current"
rm -f "$T/cwd.json"
out=$(cd "$OUT/elsewhere" && export PWD && crun -w "$WS" --status-file "$T/cwd.json" -- sh -c 'pwd -P; printenv PWD')
is "$?:$out" "0:$WS
$WS" "cordon's directory outside the workspace: the command starts in the workspace, PWD names it"
is "$(cwd_event)" "[\"$WS\", \"workspace\"]" "... the start event: cwd_from workspace"
out=$(cd "$OUT/elsewhere" && crun -w "$WS" --sandbox off -- pwd -P)
is "$?:$out" "0:$WS" "--sandbox off: the same default"
rm -f "$T/cwd.json"
out=$(cd "$OUT" && export PWD && crun -w "$WS" --cwd elsewhere --status-file "$T/cwd.json" -- sh -c 'pwd -P; printenv PWD')
is "$?:$out" "0:$OUT/elsewhere
$OUT/elsewhere" "--cwd DIR (relative, outside the workspace): the command starts there"
is "$(cwd_event)" "[\"$OUT/elsewhere\", \"option\"]" "... the start event: cwd_from option"
if "$CORDON" probe >/dev/null 2>&1; then
	! (cd "$WS" && crun --cwd "$OUT/elsewhere" -- sh -c 'echo x >made') 2>/dev/null &&
		[ ! -e "$OUT/elsewhere/made" ]
	ok $? "--cwd outside the workspace does not make it writable"
else
	skip "no confinement here: everything is writable"
fi
bad "--cwd that does not exist" run "${S[@]}" --cwd "$T/nope" "${R[@]}"
is "$(cat "$T/e")" "cordon: working directory $T/nope: No such file or directory" "... the line names it"
bad "--cwd a file" run "${S[@]}" --cwd "$T/afile" "${R[@]}"
bad "--cwd empty" run "${S[@]}" --cwd '' "${R[@]}"
bad "--cwd without value" run "${S[@]}" --cwd
if "$CORDON" probe >/dev/null 2>&1; then
	mkdir -p "$WS/private" "$HOME/.aws"
	bad "--cwd in a --deny-read dir" run "${S[@]}" --deny-read "$WS/private" --cwd "$WS/private" "${R[@]}"
	is "$(cat "$T/e")" "cordon: the working directory $WS/private lies in $WS/private, which the command may not read (--deny-read); give another with --cwd" \
		"... the line says why"
	bad "--cwd in ~/.aws (the default deny-read list)" run "${S[@]}" --cwd "$HOME/.aws" "${R[@]}"
	(cd "$WS/private" && crun --deny-read . -- echo RAN) >"$T/o" 2>"$T/e"
	is "$?:$(cat "$T/o")$(wc -l <"$T/e")" "125:1" "cordon's directory in a --deny-read dir: refused, nothing run"
	rm -rf "$WS/private" "$HOME/.aws"
else
	skip "no confinement here: nothing is denied"
fi
rm -rf "$WS/sub dir" "$OUT/elsewhere" "$T/cwd.json"

# A single-valued option given twice with another value is refused before
# anything runs (a wrapper that puts its policy first cannot have it
# undone by a later flag); the same value twice is accepted. Control: the
# command writes outside when it runs unconfined.
LEAK=(-- sh -c 'echo RAN; echo x > "$1"' sh "$OUT/leak")
(cd "$WS" && "$CORDON" run "${S[@]}" --sandbox off "${LEAK[@]}") >/dev/null 2>&1
is "$?:$(cat "$OUT/leak" 2>/dev/null)" "0:x" "control: --sandbox off alone runs the command, which writes outside"
rm -f "$OUT/leak"
twice() { # twice NAME WANT-LINE ARGS...: refused with that one line, nothing written outside
	local name=$1 want=$2
	shift 2
	rm -f "$OUT/leak"
	bad "$name" run "${S[@]}" "$@" "${LEAK[@]}"
	is "$(cat "$T/e")" "cordon: $want: a later value may not override an earlier one; give it once" \
		"$name: the line names both values"
	[ ! -e "$OUT/leak" ]
	ok $? "$name: nothing written outside"
}
twice "--sandbox off, then required" "--sandbox given twice (off, then required)" \
	--sandbox off --sandbox required
twice "--sandbox required, then off" "--sandbox given twice (required, then off)" \
	--sandbox required --sandbox=off
twice "--network off, then on" "--network given twice (off, then on)" --sandbox off --network off --network on
twice "-w A -w B" "--workspace given twice ($WS, then $T/outside)" -w "$WS" -w "$OUT"
twice "--state-dir twice" "--state-dir given twice ($STATE, then $T/state2)" --state-dir "$T/state2"
twice "--status-file twice" "--status-file given twice ($T/a.json, then $T/b.json)" \
	--status-file "$T/a.json" --status-file "$T/b.json"
twice "--timeout twice" "--timeout given twice (5, then 500)" --timeout 5 --timeout 500
twice "--on-tamper twice" "--on-tamper given twice (fail, then neutralise)" --on-tamper fail --on-tamper neutralise
twice "--cache, then --no-caches" "--cache/--no-caches given twice (npm, then --no-caches)" --cache npm --no-caches
twice "--max-procs twice" "--max-procs given twice (100, then 200)" --max-procs 100 --max-procs=200
twice "--cwd twice" "--cwd given twice ($WS, then $OUT)" --cwd "$WS" --cwd="$OUT"
[ ! -e "$T/a.json" ] && [ ! -e "$T/b.json" ] && [ ! -e "$T/state2" ]
ok $? "the refused runs made no status file or state dir"
(cd "$WS" && "$CORDON" run "${S[@]}" --sandbox off --sandbox=off --network off --network off \
	-w "$WS" --workspace "$WS" --cwd "$WS" --cwd "$WS" --state-dir "$STATE" --timeout 5 --timeout 5.0 --no-caches --no-caches \
	--clean-env --clean-env -- echo RAN) >"$T/o" 2>"$T/e"
is "$?:$(cat "$T/o")$(cat "$T/e")" "0:RAN" "the same value twice is accepted"

# Messages stay on one line even for a path with a newline in it.
nl_path="$T/no
such"
bad "missing workspace with newline" run "${S[@]}" -w "$nl_path" "${R[@]}"

# Ranges and closed fds are said exactly.
(cd "$WS" && crun --timeout 0.0001 -- true) 2>"$T/e"
is "$?" 125 "--timeout below a millisecond: refused"
grep -q "want seconds from 0.001 to 100000000" "$T/e"
ok $? "... the message gives the real range"
(cd "$WS" && crun --timeout 99999999999999 -- true) 2>"$T/e"
is "$?:$(grep -c 'from 0.001 to 100000000' "$T/e")" "125:1" "--timeout too long: refused with the range"
(cd "$WS" && crun --timeout 100000000 -- true)
is "$?" 0 "--timeout at the top of the range is accepted"
(cd "$WS" && crun --status-fd 1 -- echo RAN 1>&-) 2>"$T/e"
is "$?:$(cat "$T/e")" "125:cordon: status fd 1 is not open for writing" "--status-fd 1 with fd 1 closed: refused"
for spec in 1A=b A-B=c 'A B=c' 'A.B'; do
	bad "--env name '$spec'" run "${S[@]}" --env "$spec" "${R[@]}"
done
"$CORDON" run --help >"$T/o"
! grep -q test-max-abi "$T/o"
ok $? "test-only options stay out of run --help"
"$CORDON" probe --help >"$T/o"
! grep -q test-max-abi "$T/o"
ok $? "... and out of probe --help"
if [ -x "$TOP/demo/run" ]; then
	CORDON=$CORDON "$TOP/demo/run" >"$T/o" 2>&1
	is "$?" 0 "the demo runs"
	! grep -q "$(printf '\033')" "$T/o"
	ok $? "the demo writes no escape codes when its output is not a terminal"
else
	skip "demo/run is not in this copy of the tree"
	skip "demo/run is not in this copy of the tree"
fi

# Exit status mapping.
(cd "$WS" && crun -- sh -c 'exit 42')
is "$?" 42 "exit status passes through"
(cd "$WS" && crun -- sh -c 'kill -KILL $$')
is "$?" 137 "killed by SIGKILL -> 137"
(cd "$WS" && crun -- sh -c 'kill -TERM $$')
is "$?" 143 "killed by SIGTERM -> 143"
(cd "$WS" && crun -- cordon-no-such-command-x) 2>"$T/e"
is "$?" 127 "command not found -> 127"
is "$(wc -l <"$T/e" | tr -d ' ')" 1 "not found: one line"
grep -q 'cordon: cordon-no-such-command-x: command not found' "$T/e"
ok $? "not found: says so"
printf '#!/bin/sh\necho hi\n' >"$WS/noexec.sh"
chmod 0644 "$WS/noexec.sh"
(cd "$WS" && crun -- ./noexec.sh) 2>"$T/e"
is "$?" 126 "not executable -> 126"
(cd "$WS" && crun -- /) 2>/dev/null
is "$?" 126 "a directory -> 126"
printf 'echo no-shebang-ran\n' >"$WS/noshebang"
chmod 0755 "$WS/noshebang"
is "$(cd "$WS" && crun -- ./noshebang)" "no-shebang-ran" "a script without #! runs via /bin/sh"

# Awkward bytes in the workspace path: spaces, quotes, newline, non-UTF-8.
weird=$(printf '%s/we ird '"'"'q'"'"' "dq" #"x\\y\nz\xff\xfe(p)' "$T")
mkdir -p "$weird"
(cd "$weird" && crun --status-file "$T/s.json" -- sh -c 'echo ok > file')
is "$?" 0 "run in a workspace with awkward bytes"
is "$(cat "$weird/file" 2>/dev/null)" "ok" "write inside it works"
"$PY" - "$T/s.json" "$weird" <<'PY'
import json, os, sys
lines = open(sys.argv[1], "rb").read().decode("ascii").splitlines()
ev = [json.loads(l) for l in lines]
want = os.fsencode(os.path.realpath(sys.argv[2]))
got = ev[0]["writable"][0].encode("utf-8", "surrogateescape") if ev[0]["writable"] else None
ok = ev[0]["event"] == "bash_sandbox_status" and ev[1]["event"] == "bash_sandbox_exit"
if ev[0]["applied"]:
    ok = ok and got == want
sys.exit(0 if ok else 1)
PY
ok $? "status events are ASCII JSON and the path round-trips byte for byte"

# Pairing events: both events of a run carry its id; the exit event has
# the duration and the wall-clock start and end. Two runs, one file.
rm -f "$T/pair.json"
(cd "$WS" && crun --status-file "$T/pair.json" -- sleep 0.3 && crun --status-file "$T/pair.json" -- true)
(cd "$WS" && crun --sandbox required --test-max-abi 1 --status-file "$T/pair.json" -- true) 2>/dev/null
"$PY" - "$T/pair.json" <<'PY'
import json, re, sys
from datetime import datetime
ev = [json.loads(l) for l in open(sys.argv[1])]
assert [e["event"] for e in ev] == ["bash_sandbox_status", "bash_sandbox_exit"] * 3, ev
ids = [e["run_id"] for e in ev]
assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids), ids
assert ids[0] == ids[1] and ids[2] == ids[3] and ids[4] == ids[5], "pairs share an id"
assert len({ids[0], ids[2], ids[4]}) == 3, "runs have distinct ids"
def t(s):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", s), s
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
for x in (ev[1], ev[3], ev[5]):
    a, b = t(x["started_at"]), t(x["ended_at"])
    assert a <= b and isinstance(x["duration_ms"], int) and x["duration_ms"] >= 0, x
assert ev[1]["duration_ms"] >= 300, ev[1]
assert t(ev[1]["ended_at"]) <= t(ev[3]["started_at"]), "the second run began after the first ended"
assert ev[5]["exit_code"] == 125, "a refused run is paired too"
PY
ok $? "run_id pairs the events; the exit event has duration_ms, started_at, ended_at"

done_testing
