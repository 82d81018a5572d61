#!/usr/bin/env bash
# A spawn's own fds 0-2 (cordon_spawn_stdio): several spawns from threads
# at once, each with its own stdin, stdout and stderr (cordon's pipes, a
# pipe of the caller's, 2>&1, /dev/null), each checked for its output and
# exit status, confined and not; the caller's own fds 0-2 untouched (no
# process-wide dup2). An fd a spawn gives is judged as the caller's own
# are (stdfds.c): a directory outside becomes /dev/null, an outside file
# on fd 0 is read-only in the mount layer's view, and one the start event
# would have to report (an outside file on fd 1, a network socket with
# the network off) is refused before anything runs.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

H=$HELPERS/spawn-stdio
run_lib() { (cd "$WS" && "$H" --state "$STATE" -w "$WS" "$@"); }

# ---- spawns from threads at once ----
for mode in required auto off; do
	# stdin and stdout not terminals: the caller's fds are a file and /dev/null
	out=$(run_lib --mode "$mode" threads 8 3 </dev/null 2>"$T/err")
	is "$(grep -c '^ok ' <<<"$out")" 24 "$mode: 8 threads x 3 spawns, each its own output and exit status"
	bad=$(grep '^not ok' <<<"$out" | head -3)
	[ -z "$bad" ] || diag "$bad"
	is "$(grep '^stdio' <<<"$out")" "stdio kept" "$mode: the caller's own fds 0-2 unchanged"
	is "$(grep '^end' <<<"$out")" "end 0" "$mode: the run ends well"
	is "$(cat "$T/err")" "" "$mode: nothing written to the caller's stderr"
done

# Without namespaces (Landlock and seccomp only), and with the first
# spawn the trial of a refusal (the mount layer refused in its child):
# the same, from threads at once.
if [ -x "$HELPERS/seccomp-deny" ]; then
	out=$(cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$H" --state "$STATE" -w "$WS" threads 6 2 </dev/null 2>"$T/err")
	is "$(grep -c '^ok ' <<<"$out"):$(grep '^end' <<<"$out")" "12:end 0" \
		"no namespaces: 6 threads x 2 spawns, each its own output and exit status"
	out=$(cd "$WS" && "$HELPERS/seccomp-deny" killmount -- "$H" --mode auto --state "$STATE" -w "$WS" threads 6 2 </dev/null 2>"$T/err")
	is "$(grep -c '^ok ' <<<"$out"):$(grep '^end' <<<"$out")" "12:end 0" \
		"a refusal met by the first spawn's child, tried and run again: each its own output"
else
	skip "seccomp-deny helper not built"
	skip "seccomp-deny helper not built"
fi

# With a terminal on the caller's fds 0-2 (a spawn with a terminal of its
# own makes namespaces of its own; these give pipes: they join the run's).
if [ -x "$HELPERS/pty-run" ]; then
	out=$(cd "$WS" && "$HELPERS/pty-run" -- "$H" --state "$STATE" -w "$WS" threads 4 2 </dev/null 2>&1 | tr -d '\r')
	is "$(grep -c '^ok ' <<<"$out")" 8 "a terminal on the caller's fds: each spawn's own output"
else
	skip "pty-run helper not built"
fi

# ---- the fds a spawn gives, judged ----
has_mount_layer() { (cd "$WS" && "$CORDON" run --state-dir "$STATE" --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null) | grep -q '"mount_namespace"'; }

mkdir -p "$OUT/dir"
touch -d '2001-02-03 04:05:06' "$OUT/dir"
before_dir=$(snapshot "$OUT/dir")
# The directory as fd 1: fchmod through it (a copy on fd 3).
chmod_fd1='exec 3>&1 >/dev/null; '$PY' -c "import os
try:
    os.fchmod(3, 0o777); print(\"went through\")
except OSError as e:
    print(e.errno)" >&2; readlink /proc/self/fd/3 >&2'
out=$(run_lib --mode off fd 1 dir "$OUT/dir" -- sh -c "$chmod_fd1" 2>&1 </dev/null)
is "$(head -1 <<<"$out")" "went through" "control (off): a directory given as fd 1 lets fchmod through"
chmod 0755 "$OUT/dir" && touch -d '2001-02-03 04:05:06' "$OUT/dir"
before_dir=$(snapshot "$OUT/dir")
out=$(run_lib fd 1 dir "$OUT/dir" -- sh -c "$chmod_fd1" 2>&1 </dev/null)
is "$(sed -n 2p <<<"$out")" "/dev/null" "required: a directory outside given as fd 1 becomes /dev/null"
unchanged "a directory outside given as fd 1" "$OUT/dir" "$before_dir"

make_fixture "$OUT/in" "stdin content"
before_in=$(snapshot "$OUT/in")
fchmod_fd0="$PY -c 'import os, sys
try:
    os.fchmod(0, 0o666); print(\"went through\")
except OSError as e:
    print(e.errno)
print(sys.stdin.read().strip())'"
if has_mount_layer; then
	out=$(run_lib fd 0 r "$OUT/in" -- sh -c "$fchmod_fd0" 2>&1 | head -2)
	is "$out" "$(printf '30\nstdin content')" \
		"an outside file given as fd 0: readable, its metadata refused (EROFS)"
	unchanged "an outside file given as fd 0" "$OUT/in" "$before_in"
else
	skip "no mount layer here: an outside file on fd 0 keeps its metadata changeable (metadata_outside_not_restricted)"
fi
out=$(run_lib --mode off fd 0 r "$OUT/in" -- sh -c "$fchmod_fd0" 2>&1 | head -2)
is "$out" "$(printf 'went through\nstdin content')" "control (off): fchmod through an outside file on fd 0 works"
make_fixture "$OUT/in" "stdin content"

# An outside file as fd 1: its metadata could change through it, which
# the start event (written for the caller's fds, here pipes) does not
# report: refused, nothing run.
make_fixture "$OUT/log"
before_log=$(snapshot "$OUT/log")
out=$(run_lib fd 1 a "$OUT/log" -- sh -c 'echo ran >"$0"; echo written' "$WS/marker" </dev/null 2>&1 | cat)
grep -q "^spawn error -5: refusing fd [0-9]* for the command's fd 1: a file outside the writable set" <<<"$out"
ok $? "an outside file given as fd 1: refused (CORDON_EREFUSED), saying why"
[ ! -e "$WS/marker" ]
ok $? "the refused command did not run"
unchanged "an outside file given as fd 1" "$OUT/log" "$before_log"
: >"$WS/log"
out=$(run_lib fd 1 a "$WS/log" -- sh -c 'echo written' </dev/null 2>&1 | cat)
is "$(head -1 <<<"$out"):$(cat "$WS/log")" "exit 0:written" "control: a file inside the workspace as fd 1 is written"

# A network socket given with the network off: refused; with it on, run.
out=$(run_lib --network off fd 0 tcp - -- sh -c 'echo ran >"$0"' "$WS/marker" </dev/null 2>&1 | cat)
grep -q "^spawn error -5: .*a network socket" <<<"$out"
ok $? "a network socket given as fd 0 with --network off: refused"
[ ! -e "$WS/marker" ]
ok $? "the refused command did not run"
out=$(run_lib fd 0 tcp - -- sh -c 'echo ran >"$0"' "$WS/marker" </dev/null 2>&1 | cat)
is "$(head -1 <<<"$out"):$(cat "$WS/marker" 2>/dev/null)" "exit 0:ran" "control: with the network on it runs"

done_testing
