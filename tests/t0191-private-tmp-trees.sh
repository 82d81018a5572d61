#!/usr/bin/env bash
# A private /tmp wherever the mount layer exists, whatever of the run lies
# in the machine's /tmp: a workspace, the home (read-only, its secrets
# still covered; or --scratch-home's overlay), the state dir, an
# --allow-write tree, a protected path, a working directory outside the
# writable set, HOME=/tmp itself. In each: a file the command writes to
# /tmp does not reach the machine's /tmp, a Unix socket bound at a fixed
# /tmp path works, the workspace write lands, the start event has no
# tmp_shared_read_only. What is shown read-only stays so (the outside is
# unchanged), a daemon's socket in a home in /tmp stays refused, and the
# gap tmp_tree_fifos_writable names what the read-only mount cannot stop.
# The test's dir, its workspace, home and state dir in the machine's /tmp.
CORDON_T_BASE=/tmp
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

LAYERS=$("$CORDON" probe --json | "$PY" -c 'import json,sys; print(" ".join(json.load(sys.stdin)["layers"]))')
case " $LAYERS " in
*" private_tmp "*) ;;
*) skip_all "no private /tmp here (layers: $LAYERS)" ;;
esac

# Unique names in the machine's /tmp, removed at the end (with any daemon).
u=cordon-ptt-$$-$RANDOM
DAEMON=
trap '[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null; rm -f /tmp/"$u".*; cleanup' EXIT

# The command: writes /tmp/$u.NAME, binds and reaches a Unix socket at the
# fixed path /tmp/$u.sock, writes WSFILE; prints one word per step.
INSIDE='
import os, socket, sys
name, wsfile = sys.argv[1], sys.argv[2]
out = []
try:
    open("/tmp/%s.%s" % (os.environ["U"], name), "w").write("inside\n"); out.append("tmp")
except OSError as e:
    out.append("tmp:" + e.strerror)
p = "/tmp/%s.sock" % os.environ["U"]
try:
    s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.settimeout(5); c.connect(p)
    a, _ = s.accept(); c.send(b"hi"); out.append("sock-" + a.recv(2).decode())
except OSError as e:
    out.append("sock:" + str(e.strerror))
try:
    open(wsfile, "w").write("landed\n"); out.append("ws")
except OSError as e:
    out.append("ws:" + e.strerror)
print(" ".join(out))
'
export U=$u

# scenario NAME DIR HOME WSFILE CORDON-ARGS...: the command above run
# confined in DIR with that HOME; checks the outside and the start event.
scenario() {
	local name=$1 dir=$2 home=$3 wsfile=$4 out
	shift 4
	rm -f "$T/s.json"
	out=$(cd "$dir" && HOME=$home "$CORDON" run --status-file "$T/s.json" "$@" -- \
		"$PY" -c "$INSIDE" "$name" "$wsfile" 2>&1)
	is "$out" "tmp sock-hi ws" "$name: /tmp, a socket at a fixed /tmp path and the workspace work"
	[ ! -e "/tmp/$u.$name" ] && [ ! -e "/tmp/$u.sock" ]
	ok $? "$name: the file and the socket made in /tmp are not in the machine's /tmp"
	is "$(cat "$wsfile" 2>/dev/null)" landed "$name: the workspace write landed outside"
	is "$(json_field "$T/s.json" status '["/tmp" in [p["path"] for p in e["private_tmp"]], "private_tmp" in e["layers"], "tmp_shared_read_only" in e["gaps"]]')" \
		"[true, true, false]" "$name: the start event lists the private /tmp, no tmp_shared_read_only"
}

# Control: unconfined, the same command writes the machine's /tmp.
out=$(cd "$WS" && "$CORDON" run --sandbox off -- "$PY" -c "$INSIDE" control "$WS/control" 2>&1)
[ "$out" = "tmp sock-hi ws" ] && [ -e "/tmp/$u.control" ]
ok $? "control: unconfined, the command writes the machine's /tmp ($out)"
rm -f "/tmp/$u.control" "/tmp/$u.sock"

# ---- a workspace and the state dir in /tmp (no home) -------------------------
scenario ws-state "$WS" /nonexistent "$WS/f1" --state-dir "$STATE" --no-caches
is "$(json_field "$T/s.json" status '"tmp_tree_fifos_writable" in e["gaps"]')" false \
	"ws-state: nothing shown read-only, no tmp_tree_fifos_writable"

# ---- the home in /tmp ---------------------------------------------------------
mkdir -p "$HOME/.ssh" "$HOME/.config/gh" "$HOME/.config/tool" "$HOME/.d" "$T/extra"
echo CORDON-PTT-SECRET >"$HOME/.ssh/id_ed25519"
echo CORDON-PTT-GH >"$HOME/.config/gh/hosts.yml"
echo "[user] name = t" >"$HOME/.gitconfig"
chmod 0700 "$HOME/.ssh"
mkfifo "$HOME/fifo"
(cd "$WS" && crun --no-caches -- true) >/dev/null 2>&1 # the state dir's own files
before=$(snapshot "$HOME")

scenario home "$WS" "$HOME" "$WS/f2" --state-dir "$STATE" --no-caches
is "$(json_field "$T/s.json" status '"tmp_tree_fifos_writable" in e["gaps"]')" true \
	"home: the gap tmp_tree_fifos_writable is listed (its home is shown read-only)"
out=$(cd "$WS" && crun --no-caches -- sh -c '
	cat ~/.gitconfig; cat ~/.ssh/id_ed25519 2>&1 | grep -c CORDON-PTT;
	cat ~/.config/gh/hosts.yml 2>&1 | grep -c CORDON-PTT;
	{ echo x > ~/new; } 2>/dev/null || echo refused-new; rm ~/.gitconfig 2>/dev/null || echo refused-rm;
	mv ~/.config ~/.c2 2>/dev/null || echo refused-mv; chmod 777 ~ 2>/dev/null || echo refused-chmod;
	mkfifo ~/f2 2>/dev/null || echo refused-mkfifo; pwd' 2>&1)
is "$(echo "$out" | tr '\n' ' ')" \
	"[user] name = t 0 0 refused-new refused-rm refused-mv refused-chmod refused-mkfifo $WS " \
	"home: readable, its secrets covered, every write under it refused"
unchanged "the home in /tmp" "$HOME" "$before"

# A writable tree inside the home (a later bind) keeps the secrets covered.
mkdir -p "$HOME/.config/tool"
out=$(cd "$WS" && crun --no-caches --allow-write "$HOME/.config/tool" -- sh -c "
	echo t > '$HOME/.config/tool/x' && echo wrote; cat ~/.config/gh/hosts.yml 2>&1 | grep -c CORDON-PTT" 2>&1)
is "$(echo "$out" | tr '\n' ' ')" "wrote 0 " \
	"home: an --allow-write tree inside it is writable, the secret beside it still covered"
[ -s "$HOME/.config/tool/x" ]
ok $? "home: the write into the --allow-write tree under the home landed"
rm -f "$HOME/.config/tool/x"

# The workspace under the home in /tmp: carried with the home, writable.
mkdir -p "$HOME/proj"
before=$(snapshot "$HOME/.gitconfig")
scenario ws-in-home "$HOME/proj" "$HOME" "$HOME/proj/f3" --state-dir "$STATE" --no-caches
out=$(cd "$HOME/proj" && crun --no-caches -- sh -c 'echo x > ~/.gitconfig' 2>&1)
case $out in
*"Read-only file system"*) ok 0 "ws-in-home: the home around the workspace stays read-only" ;;
*) ok 1 "ws-in-home: the home around the workspace stays read-only" && diag "$out" ;;
esac
unchanged "ws-in-home: ~/.gitconfig" "$HOME/.gitconfig" "$before"

# ---- --scratch-home with the home in /tmp ---------------------------------------
before=$(snapshot "$HOME")
scenario scratch "$WS" "$HOME" "$WS/f4" --state-dir "$STATE" --no-caches --scratch-home
out=$(cd "$WS" && crun --no-caches --scratch-home -- sh -c '
	echo x > ~/new && cat ~/new; cat ~/.ssh/id_ed25519 2>&1 | grep -c CORDON-PTT' 2>&1)
is "$(echo "$out" | tr '\n' ' ')" "x 0 " "scratch: a write under the home works inside, the secret stays covered"
is "$(json_field "$T/s.json" status '["scratch_home" in e["layers"], "tmp_tree_fifos_writable" in e["gaps"]]')" \
	"[true, false]" "scratch: the scratch home's layer, no tmp_tree_fifos_writable"
unchanged "scratch: the home in /tmp" "$HOME" "$before"

# ---- an --allow-write tree and a protected path in /tmp ------------------------
mkdir -p "$WS/frozen"
echo orig >"$WS/frozen/v"
before=$(snapshot "$WS/frozen")
scenario allow-write "$WS" "$HOME" "$T/extra/f5" --state-dir "$STATE" --no-caches \
	--allow-write "$T/extra" --protect "$WS/frozen"
out=$(cd "$WS" && crun --no-caches --protect "$WS/frozen" -- sh -c 'echo evil > frozen/v' 2>&1)
case $out in
*"Read-only file system"*) ok 0 "protect: the protected path in a workspace in /tmp stays read-only" ;;
*) ok 1 "protect: the protected path in a workspace in /tmp stays read-only" && diag "$out" ;;
esac
unchanged "protect: $WS/frozen" "$WS/frozen" "$before"

# ---- a working directory outside the writable set, in /tmp -----------------------
mkdir -p "$T/ro"
before=$(snapshot "$T/ro")
out=$(cd "$WS" && crun --no-caches --cwd "$T/ro" --status-file "$T/s.json" -- sh -c '
	pwd; { echo x > here; } 2>/dev/null || echo refused; echo y > /tmp/'"$u"'.cwd && echo tmp' 2>&1)
is "$(echo "$out" | tr '\n' ' ')" "$T/ro refused tmp " \
	"cwd: the command starts there, cannot write it, writes its private /tmp"
[ ! -e "/tmp/$u.cwd" ]
ok $? "cwd: the /tmp write did not reach the machine's"
unchanged "cwd: $T/ro" "$T/ro" "$before"

# ---- HOME=/tmp: the run's private /tmp is its home ---------------------------------
echo machine >"/tmp/$u.outside"
scenario home-is-tmp "$WS" /tmp "$WS/f6" --state-dir "$STATE" --no-caches
out=$(cd "$WS" && HOME=/tmp "$CORDON" run --state-dir "$STATE" --no-caches -- sh -c "
	cat ~/$u.outside 2>/dev/null || echo hidden; echo h > ~/$u.home && cat ~/$u.home" 2>&1)
is "$(echo "$out" | tr '\n' ' ')" "hidden h " \
	"home-is-tmp: the machine's /tmp is not the home inside; a write to the home is the run's own"
[ ! -e "/tmp/$u.home" ] && [ "$(cat "/tmp/$u.outside")" = machine ]
ok $? "home-is-tmp: the machine's /tmp is unchanged"

# ---- a daemon's socket in a home in /tmp stays refused -----------------------------
"$PY" - "$HOME/.d/daemon.sock" "$T/daemon.log" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); s.settimeout(30)
open(sys.argv[2], "w").write("ready\n")
while True:
    try:
        a, _ = s.accept()
    except socket.timeout:
        break
    open(sys.argv[2], "a").write("connected\n"); a.close()
PY
DAEMON=$!
for _ in $(seq 50); do [ -s "$T/daemon.log" ] && break; sleep 0.1; done
sockprobe='
import socket, sys
c = socket.socket(socket.AF_UNIX)
try:
    c.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(e.strerror)'
out=$(cd "$WS" && crun --no-caches -- "$PY" -c "$sockprobe" "$HOME/.d/daemon.sock" 2>&1)
is "$out" "Permission denied" "daemon: a socket in the home in /tmp is refused inside (shown read-only)"
out=$(cd "$WS" && crun --no-caches --scratch-home -- "$PY" -c "$sockprobe" "$HOME/.d/daemon.sock" 2>&1)
is "$out" "Permission denied" "daemon: ... and through the scratch home's overlay"
is "$(grep -c connected "$T/daemon.log")" 0 "daemon: it got no connection (outside)"
out=$("$PY" -c "$sockprobe" "$HOME/.d/daemon.sock" 2>&1)
is "$out" connected "daemon: control: unconfined, the socket is reachable"
kill "$DAEMON" 2>/dev/null
wait "$DAEMON" 2>/dev/null
DAEMON=

done_testing
