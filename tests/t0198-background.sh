#!/usr/bin/env bash
# Background jobs across an agent's calls (docs/cli-reference.en.md,
# "Background jobs across an agent's calls"):
# `cmd &` inside one call ends with the call (the run's PID namespace); a
# dev server an agent keeps is a cordon run of its own, started by the
# agent's background tool, reachable from a later, separate confined call
# on the host's loopback with --network on (the default), and not with
# --network off or allow (each run has a loopback of its own), where a
# Unix socket in the workspace still is; ending the session (SIGTERM or
# SIGHUP to that cordon, or SIGKILL to the agent's whole process group)
# leaves no process of the run, also one that left its session.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

u=cordon-bg-$$-$RANDOM
BG=()
# Only what this test started, by pid: the background cordons and, for
# the unconfined control, the process it left.
# shellcheck disable=SC2317 # called by the EXIT trap
stop_all() {
	local p
	for p in "${BG[@]}"; do kill -KILL "$p" && wait "$p"; done
	for p in $(pgrep -f -- "$u"); do kill -KILL "$p"; done
} 2>/dev/null
trap 'stop_all; cleanup' EXIT

layers=$(crun --status-fd 3 -- true 3>&1 >/dev/null | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
case " $layers " in
*" pid_namespace "*) ;;
*) skip_all "no PID namespace here (layers: $layers)" ;;
esac

left() { sleep 0.3; pgrep -f -- "$1" | wc -l; }

# ---- cmd & in one call ends with the call --------------------------------------
(cd "$WS" && crun -- sh -c '"$1" -c "import time; time.sleep(600)" "$2" &' sh "$PY" "$u-amp") >/dev/null 2>&1
is "$(left "$u-amp")" 0 "cmd & in one confined call: gone when the call ends"
(cd "$WS" && crun --sandbox off -- sh -c '"$1" -c "import time; time.sleep(600)" "$2" >/dev/null 2>&1 &' sh "$PY" "$u-ctl")
is "$(left "$u-ctl")" 1 "control: unconfined, it outlives the call"
for p in $(pgrep -f -- "$u-ctl"); do kill -KILL "$p"; done

# ---- a server kept by the agent: a cordon run of its own ------------------------
# srv.py PORT|unix:PATH MARKER: answers "hello MARKER" to each connection,
# writes served.MARKER in the workspace, and starts a child that leaves its
# session (a daemon's way) and would live 600 s.
cat >"$WS/srv.py" <<'EOF'
import os, socket, subprocess, sys
where, marker = sys.argv[1], sys.argv[2]
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", marker + "-child"],
                 start_new_session=True)
if where.startswith("unix:"):
    s = socket.socket(socket.AF_UNIX)
    s.bind(where[5:])
else:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(where)))
s.listen(8)
open("served." + marker, "w").write("listening\n")
while True:
    c, _ = s.accept()
    c.sendall(("hello " + marker + "\n").encode())
    c.close()
EOF
cat >"$WS/client.py" <<'EOF'
import socket, sys
where = sys.argv[1]
try:
    if where.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX)
        s.connect(where[5:])
    else:
        s = socket.create_connection(("127.0.0.1", int(where)), timeout=5)
    print(s.recv(100).decode().strip())
except OSError as e:
    print("refused:", e.strerror or e)
EOF
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# serve NAME WHERE CORDON-ARGS...: srv.py under cordon in the background, in
# a session of its own (as an agent's background tool starts a command);
# sets SRV (cordon's pid) once served.NAME exists.
serve() {
	local name=$1 where=$2
	shift 2
	rm -f "$WS/served.$u-$name"
	(cd "$WS" && exec setsid "$CORDON" run --state-dir "$STATE" "$@" -- "$PY" srv.py "$where" "$u-$name") \
		>/dev/null 2>&1 &
	SRV=$!
	BG+=("$SRV")
	for _ in $(seq 100); do [ -e "$WS/served.$u-$name" ] && break; sleep 0.1; done
	[ -e "$WS/served.$u-$name" ]
}
client() { (cd "$WS" && crun "$@" -- "$PY" client.py "$WHERE") 2>&1; }

WHERE=$(free_port)
serve on "$WHERE"
ok $? "a confined server started in the background writes its workspace"
is "$(client)" "hello $u-on" "--network on: a later, separate confined call reaches it on 127.0.0.1"
case $(client --network off) in
"refused: Connection refused") ok 0 "--network off: the client's loopback is its own: not reached" ;;
*) ok 1 "--network off: the client's loopback is its own: not reached" && diag "$(client --network off)" ;;
esac
kill -TERM "$SRV"
wait "$SRV" 2>/dev/null
is "$(left "$u-on")" 0 "SIGTERM to its cordon (the agent stops the task): no process of the run is left, the one that left its session included"

WHERE=$(free_port)
serve off "$WHERE" --network off
ok $? "a server under --network off starts"
case $(client) in
"refused: Connection refused") ok 0 "a server under --network off listens on its own loopback: not reached from another run" ;;
*) ok 1 "a server under --network off listens on its own loopback: not reached from another run" && diag "$(client)" ;;
esac
kill -HUP "$SRV"
wait "$SRV" 2>/dev/null
is "$(left "$u-off")" 0 "SIGHUP to its cordon (the session's terminal gone): no process left"

# A Unix socket in the workspace: reached across runs whatever the network.
WHERE="unix:$WS/dev.sock"
serve unix "$WHERE" --network off
ok $? "a server on a Unix socket in the workspace starts (--network off)"
UNIX_SRV=$SRV
is "$(client --network off)" "hello $u-unix" "--network off: a later call reaches it through the workspace's socket"

# The agent's whole process group ends (SIGKILL): the run ends with it.
(cd "$WS" && exec setsid sh -c '"$1" run --state-dir "$2" -- "$3" srv.py "$4" "$5" & wait' sh \
	"$CORDON" "$STATE" "$PY" "$(free_port)" "$u-group") >/dev/null 2>&1 &
AGENT=$!
BG+=("$AGENT")
for _ in $(seq 100); do [ -e "$WS/served.$u-group" ] && break; sleep 0.1; done
[ "$(pgrep -f -- "$u-group-child" | wc -l)" -eq 1 ]
ok $? "a server started by the 'agent' runs, with its child"
kill -KILL -- "-$AGENT"
wait "$AGENT" 2>/dev/null
for _ in $(seq 20); do [ "$(pgrep -f -- "$u-group" | wc -l)" -eq 0 ] && break; sleep 0.1; done
is "$(left "$u-group")" 0 "SIGKILL to the agent's process group (cordon included): no process of the run is left"
kill -TERM "$UNIX_SRV"
wait "$UNIX_SRV" 2>/dev/null
is "$(left "$u-unix")" 0 "the Unix socket's server, stopped: no process left"

done_testing
