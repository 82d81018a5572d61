#!/usr/bin/env bash
# --timeout kills the whole process group (TERM, grace, KILL) and exits
# 124; SIGINT/SIGTERM/SIGHUP reaching cordon go to the group; the run's
# temp dir is removed in every case; nothing of the group survives.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

runs_left() { find "$STATE/runs" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l | tr -d ' '; }
# A background member of the command's group that beats: it appends to
# a file every 0.1 s. (Its pid means nothing here: inside a PID
# namespace it is not the host's.) The shell text starts it.
BEATER='(while :; do echo x >> beats; sleep 0.1; done) & echo started > bg'
# dead FILE: the beats file was written, and no beat comes any more.
dead() {
	local before
	[ -s "$1" ] || return 1
	before=$(wc -l <"$1")
	sleep 0.5
	[ "$(wc -l <"$1")" = "$before" ]
}

for mode in auto off; do
	rm -f "$T/s.json" "$WS/bg" "$WS/beats"
	start=$(date +%s)
	(cd "$WS" && crun --sandbox "$mode" --timeout 1 --status-file "$T/s.json" -- \
		sh -c "$BEATER; sleep 300")
	rc=$?
	took=$(($(date +%s) - start))
	is "$rc" 124 "$mode: timeout exits 124"
	[ "$took" -lt 10 ]
	ok $? "$mode: timeout fired promptly (${took}s)"
	dead "$WS/beats"
	ok $? "$mode: a background member of the group was killed too"
	is "$(json_field "$T/s.json" exit 'e["timed_out"]')" true "$mode: exit event timed_out"
	is "$(json_field "$T/s.json" exit 'e["exit_code"]')" 124 "$mode: exit event 124"
done
is "$(runs_left)" 0 "the temp dir is removed after a timeout"

# A command that ignores SIGTERM is killed after the grace period.
start=$(date +%s)
(cd "$WS" && crun --timeout 0.5 -- sh -c 'trap "" TERM; while :; do sleep 0.1; done')
rc=$?
took=$(($(date +%s) - start))
is "$rc" 124 "TERM ignored: still exits 124"
[ "$took" -ge 2 ] && [ "$took" -lt 10 ]
ok $? "TERM ignored: killed after the grace (${took}s)"

# Fractional timeouts and a command that finishes in time.
(cd "$WS" && crun --timeout 5 -- sh -c 'exit 3')
is "$?" 3 "a command that finishes in time keeps its status"

# Signals reaching cordon are forwarded to the command's group.
for sig in INT:130 TERM:143 HUP:129 QUIT:131; do
	name=${sig%%:*} want=${sig#*:}
	rm -f "$WS/bg" "$WS/trapped" "$WS/beats"
	(cd "$WS" && exec "$CORDON" run --state-dir "$STATE" -- \
		sh -c "trap 'echo got > trapped; exit $want' $name; $BEATER; wait") &
	cpid=$!
	for _ in $(seq 50); do [ -s "$WS/bg" ] && break; sleep 0.1; done
	sleep 0.2
	kill -"$name" "$cpid"
	wait "$cpid"
	is "$?" "$want" "SIG$name to cordon: the command got it and cordon exits with its status"
	is "$(cat "$WS/trapped" 2>/dev/null)" got "SIG$name: the command's trap ran"
	dead "$WS/beats"
	ok $? "SIG$name: the rest of the group is gone"
done
is "$(runs_left)" 0 "the temp dir is removed after forwarded signals"

# Killed by a forwarded signal it does not catch -> 128+N.
(cd "$WS" && exec "$CORDON" run --state-dir "$STATE" -- sleep 300) &
cpid=$!
sleep 0.5
kill -TERM "$cpid"
wait "$cpid"
is "$?" 143 "uncaught forwarded SIGTERM -> 143"

done_testing
