#!/usr/bin/env bash
# cordon-sh's run ends with its agent: the nearest ancestor of cordon-sh
# that is not a shell. An "agent" here is a python3 process that starts
# its call as the real ones do (a bash of its own, in a session of its
# own, around cordon-sh); when it is killed with SIGKILL mid-call, or
# ends, the run gets SIGHUP and then SIGKILL, and nothing of the call is
# left (the command, cordon-sh, the agent's shell); the exit event is
# written. A command that ignores SIGHUP is killed after the grace. The
# run of an agent that lives on is left alone.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

SH=$TOP/$B/cordon-sh
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the stand-in agent)"
unset CORDON_WORKSPACE CLAUDE_PROJECT_DIR GEMINI_PROJECT_DIR CORDON_RUN_ID CORDON_PROFILE
POL=$T/policy
printf 'profile agent\nstatus-file %s\nstate-dir %s\n' "$T/events" "$STATE" >"$POL"
export CORDON_POLICY=$POL

# agent SECONDS CMD: a stand-in agent (python3, not a shell) that runs
# `bash -c '( trap : EXIT; cordon-sh -c CMD )'` in a session of its own,
# as Gemini CLI does, then sleeps SECONDS; prints its pid.
agent() {
	(cd "$WS" && exec "$PY" -c '
import subprocess, sys, time
subprocess.Popen(["/bin/bash", "-c", "( trap : EXIT\n\"$0\" -c \"$1\" )", sys.argv[1],
                  sys.argv[2]], start_new_session=True)
time.sleep(float(sys.argv[3]))' "$SH" "$2" "$1" >/dev/null 2>&1 &
		echo $!)
}
# alive MARK: the pids whose command line holds MARK.
alive() { pgrep -f -- "$1" | tr '\n' ' '; }
# wait_for FILE: up to 60 s for the command to have started.
wait_for() {
	for _ in $(seq 600); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# gone_within SECS MARK: 0 once nothing holds MARK, 1 after SECS.
gone_within() {
	for _ in $(seq "$(($1 * 10))"); do
		[ -z "$(alive "$2")" ] && return 0
		sleep 0.1
	done
	return 1
}
m=$$$RANDOM # digits: sleep takes 3001.$m
# shellcheck disable=SC2046 # the pids, one word each
trap 'kill -KILL $(alive "$m") 2>/dev/null; cleanup' EXIT

# ---- the agent killed mid-call -------------------------------------------------
pid=$(agent 600 "echo up > started1; sleep 3001.$m")
wait_for "$WS/started1"
ok $? "the call started"
before=$(alive "3001.$m")
kill -KILL "$pid"
gone_within 5 "3001.$m"
ok $? "the agent killed (SIGKILL): nothing of its call left 5 s later (before: ${before:-none}; after: $(alive "3001.$m"))"
exit_sig=$("$PY" -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(" ".join(str(e.get("signal")) for e in ev if e.get("event") == "bash_sandbox_exit"))' "$T/events")
is "$exit_sig" 1 "the run ended on SIGHUP, its exit event written"
: >"$T/events"

# ---- the agent ends while its call runs ------------------------------------------
agent 3 "echo up > started2; sleep 3002.$m" >/dev/null
wait_for "$WS/started2"
ok $? "the call started"
sleep 3
gone_within 8 "3002.$m"
ok $? "the agent ended: nothing of its call left (after: $(alive "3002.$m"))"

# ---- a command that ignores SIGHUP ------------------------------------------------
pid=$(agent 600 "trap '' HUP; echo up > started3; sleep 3003.$m; sleep 3004.$m")
wait_for "$WS/started3"
kill -KILL "$pid"
sleep 1
ok "$([ -n "$(alive "3003.$m")" ] && echo 0 || echo 1)" "ignoring SIGHUP, it is still there within the grace"
gone_within 5 "3003.$m"
ok $? "... and killed (SIGKILL) after the grace (after: $(alive "3003.$m"))"

# ---- the agent lives on: the run is left alone -------------------------------------
pid=$(agent 600 "echo up > started4; sleep 3; echo done > finished4")
wait_for "$WS/finished4"
ok $? "an agent alive: its call runs to its end"
kill -KILL "$pid" 2>/dev/null
done_testing
