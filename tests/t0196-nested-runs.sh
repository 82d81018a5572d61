#!/usr/bin/env bash
# CORDON_RUN_ID: the run's id in the command's environment when it runs
# confined (the status events' run_id), never otherwise; and a cordon run
# inside a run (docs/cli-reference.en.md, "Nested runs"): Landlock stacks
# (the inner command writes only where both runs allow), the inner run
# has no mount layer and says so, keeps its state in the outer run's
# TMPDIR, writes its own events, and its exit status reaches the outer
# caller; required refuses inside what needs the mount layer.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

u=cordon-nest-$$-$RANDOM
trap 'rm -f /tmp/"$u".*; cleanup' EXIT

# ---- CORDON_RUN_ID ---------------------------------------------------------------
rm -f "$T/s.json"
out=$(cd "$WS" && crun --status-file "$T/s.json" -- sh -c 'echo "${CORDON_RUN_ID-unset}"')
is "$out" "$(json_field "$T/s.json" status 'e["run_id"]')" "confined: CORDON_RUN_ID is the status events' run_id"
out=$(cd "$WS" && CORDON_RUN_ID=outer crun -- sh -c 'echo "${CORDON_RUN_ID-unset}"')
[ "$out" != outer ] && [ "${#out}" -eq 32 ]
ok $? "confined: an inherited CORDON_RUN_ID is replaced by the run's own ($out)"
out=$(cd "$WS" && crun --clean-env -- sh -c 'echo "${CORDON_RUN_ID-unset}"')
[ "${#out}" -eq 32 ]
ok $? "confined, --clean-env: CORDON_RUN_ID is set"
out=$(cd "$WS" && crun --env CORDON_RUN_ID=mine -- sh -c 'echo "${CORDON_RUN_ID-unset}"')
is "$out" mine "--env CORDON_RUN_ID=VALUE wins, as for TMPDIR"
out=$(cd "$WS" && crun --sandbox off -- sh -c 'echo "${CORDON_RUN_ID-unset}"')
is "$out" unset "off: no CORDON_RUN_ID (off changes nothing)"
out=$(cd "$WS" && CORDON_RUN_ID=outer crun --sandbox off -- sh -c 'echo "${CORDON_RUN_ID-unset}"')
is "$out" outer "off: an inherited CORDON_RUN_ID passes unchanged"
rm -f "$T/s.json"
out=$(cd "$WS" && "$HELPERS/seccomp-deny" enosys -- "$CORDON" run --state-dir "$STATE" \
	--status-file "$T/s.json" -- sh -c 'echo "${CORDON_RUN_ID-unset}"' 2>/dev/null)
is "$out:$(json_field "$T/s.json" status 'e["applied"]')" "unset:false" \
	"auto, confinement unavailable: no CORDON_RUN_ID"
# Found out only by the run's first child (Landlock blocked there): the
# command runs unconfined, and without the id its environment was first
# made with.
rm -f "$T/s.json"
out=$(cd "$WS" && "$HELPERS/seccomp-deny" eperm -- "$HELPERS/cordon-first-child" run \
	--state-dir "$STATE" --status-file "$T/s.json" -- sh -c 'echo "${CORDON_RUN_ID-unset}"' 2>/dev/null)
is "$out:$(json_field "$T/s.json" status 'e["applied"]')" "unset:false" \
	"auto, Landlock refused in the first child: the unconfined command gets no CORDON_RUN_ID"

# ---- a cordon run inside a run --------------------------------------------------------
# The inner run's workspace is $WS/inner; $WS/outer-only is the outer's
# alone. The inner cordon is the same binary, visible inside.
mkdir -p "$WS/inner" "$HOME/ro-ws"
before_ro=$(snapshot "$HOME/ro-ws")
rm -f "$T/outer.json" "$WS/inner.json"
(cd "$WS" && crun --status-file "$T/outer.json" -- "$CORDON" run -w "$WS/inner" \
	--status-file "$WS/inner.json" -- sh -c '
	echo "$CORDON_RUN_ID" > "$1/inner/id"
	echo in > "$1/inner/f" && echo inner-write-ok
	{ echo x > "$1/outer-only"; } 2>/dev/null || echo outer-write-refused
	exit 7' sh "$WS") >"$T/o" 2>"$T/e"
rc=$?
is "$rc:$(tr '\n' ' ' <"$T/o")" "7:inner-write-ok outer-write-refused " \
	"nested: the inner command's status (7) reaches the outer caller; it writes its workspace, not the outer's"
[ -s "$WS/inner/f" ] && [ ! -e "$WS/outer-only" ]
ok $? "nested: outside, the inner workspace write landed and nothing else was written"
is "$(json_field "$T/outer.json" exit 'e["exit_code"]'):$(json_field "$WS/inner.json" exit 'e["exit_code"]')" "7:7" \
	"nested: both runs' exit events say 7"
inner_id=$(json_field "$WS/inner.json" status 'e["run_id"]')
outer_id=$(json_field "$T/outer.json" status 'e["run_id"]')
[ "$inner_id" != "$outer_id" ] && [ "$(cat "$WS/inner/id")" = "$inner_id" ]
ok $? "nested: the inner run has its own run id, which its command sees as CORDON_RUN_ID"
is "$(json_field "$WS/inner.json" status '[e["applied"], "landlock" in e["layers"], "mount_namespace" in e["layers"], "metadata_outside_not_restricted" in e["gaps"], "tmp_shared_read_only" in e["gaps"]]')" \
	"[true, true, false, true, true]" \
	"nested: the inner run is confined by Landlock, has no mount layer, and its gaps say so"
outer_tmp=$(json_field "$T/outer.json" status 'e["tmpdir"]')
inner_tmp=$(json_field "$WS/inner.json" status 'e["tmpdir"]')
case $inner_tmp in
"$outer_tmp"/cordon/runs/*) ok 0 "nested: the inner run's state dir is the outer run's TMPDIR/cordon" ;;
*) ok 1 "nested: the inner run's state dir is the outer run's TMPDIR/cordon" && diag "$inner_tmp (outer $outer_tmp)" ;;
esac
[ ! -e "$outer_tmp" ]
ok $? "nested: it went with the outer run's temp dir"

# Landlock stacks: an inner workspace the outer run does not grant stays
# read-only, whatever the inner run says.
out=$(cd "$WS" && crun -- "$CORDON" run -w "$HOME/ro-ws" -- sh -c \
	'{ echo x > "$HOME/ro-ws/f"; } 2>/dev/null || echo refused' 2>&1)
is "$out" refused "nested: an inner workspace outside the outer's writable set is not writable"
unchanged "nested: the inner workspace the outer run does not grant" "$HOME/ro-ws" "$before_ro"

# required inside: runs with what it has; refuses what needs the mount layer.
out=$(cd "$WS" && crun -- "$CORDON" run --sandbox required -w "$WS/inner" -- sh -c 'echo ran' 2>&1)
is "$out" ran "nested, required: runs with Landlock"
rm -f "$WS/inner.json" "$WS/inner/ran"
(cd "$WS" && crun -- "$CORDON" run --sandbox required -w "$WS/inner" --protect "$WS/inner/f" \
	--status-file "$WS/inner.json" -- touch "$WS/inner/ran") >/dev/null 2>"$T/e"
rc=$?
is "$rc:$(wc -l <"$T/e"):$(json_field "$WS/inner.json" status 'e["cause"]')" "125:1:protect_not_enforceable" \
	"nested, required --protect: refused (exit 125, one line, cause protect_not_enforceable)"
[ ! -e "$WS/inner/ran" ]
ok $? "... the command did not run"

# The outer run's timeout ends the inner run and everything in it.
start=$(date +%s)
sleeper='import sys, time; time.sleep(300)'
(cd "$WS" && crun --timeout 2 -- "$CORDON" run -w "$WS/inner" -- sh -c \
	'"$1" -c "$2" "$3" & exec "$1" -c "$2" "$3"' sh "$PY" "$sleeper" "$u") >/dev/null 2>&1
rc=$?
sleep 0.5
left=$(pgrep -f -- "$u" | wc -l)
is "$rc:$left" "124:0" "nested: the outer run's timeout (124) ends the inner run; no process of it is left"
[ $(($(date +%s) - start)) -lt 60 ]
ok $? "... at once (not after the inner command's own time)"

done_testing
