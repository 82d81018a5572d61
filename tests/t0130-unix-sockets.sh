#!/usr/bin/env bash
# Pathname Unix sockets: a confined command reaches a socket only inside
# the writable set or named with --allow-socket (Landlock ABI 9, or the
# socket supervisor below it); the servers outside are the test's own,
# and what they received is the outside world that must not change.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

U=("$PY" "$TOP/tests/helpers/unixsock.py")
UT="${U[*]}" # the same, as text for sh -c
PIDS=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_peers() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap 'stop_peers; cleanup' EXIT

# peer NAME KIND: an unconfined server on $OUT/NAME.sock logging to $OUT/NAME.log
peer() {
	local fifo=$T/ready.$1
	mkfifo "$fifo"
	: >"$OUT/$1.log"
	"${U[@]}" serve "$OUT/$1.sock" "$OUT/$1.log" "$2" >"$fifo" 2>&1 &
	PIDS+=($!)
	read -r _ <"$fifo"
	rm -f "$fifo"
}
peer srv stream
peer dg dgram
mkdir -p "$OUT/sockdir"
"${U[@]}" serve "$OUT/sockdir/a.sock" "$OUT/srv.log" stream >"$T/ready.a" 2>&1 &
PIDS+=($!)
while [ ! -S "$OUT/sockdir/a.sock" ]; do sleep 0.05; done

layers=$(crun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
case " $layers " in
*" unix_socket_supervisor "* | *" unix_socket_landlock "*) ;;
*)
	if [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
		ok 1 "a Unix socket layer is applied here (layers: $layers)"
		done_testing
	fi
	skip_all "no Unix socket layer on this machine (layers: $layers)"
	;;
esac

# Controls: unconfined, every client reaches the outside servers.
(cd "$WS" && crun --sandbox off -- "${U[@]}" connect "$OUT/srv.sock" ctl) >/dev/null
is "$(cat "$OUT/srv.log")" ctl "control: the outside stream server logs what it gets"
(cd "$WS" && crun --sandbox off -- "${U[@]}" sendto "$OUT/dg.sock" ctl) >/dev/null
sleep 0.2
is "$(cat "$OUT/dg.log")" ctl "control: the outside datagram server logs what it gets"
: >"$OUT/srv.log"
: >"$OUT/dg.log"

refused() { # refused NAME OUTPUT
	case $2 in "error EACCES") ok 0 "$1: EACCES" ;; *) ok 1 "$1: EACCES"; diag "got: $2" ;; esac
}
out=$(cd "$WS" && crun -- "${U[@]}" connect "$OUT/srv.sock" evil)
refused "connect to an outside socket" "$out"
out=$(cd "$WS" && crun -- "${U[@]}" sendto "$OUT/dg.sock" evil)
refused "sendto an outside datagram socket" "$out"
out=$(cd "$WS" && crun -- "${U[@]}" sendmsg "$OUT/dg.sock" evil)
refused "sendmsg to an outside datagram socket" "$out"
ln -s "$OUT/srv.sock" "$WS/link.sock"
out=$(cd "$WS" && crun -- "${U[@]}" connect link.sock evil)
refused "a workspace symlink to an outside socket" "$out"
ln -s "../outside/srv.sock" "$WS/rel.sock"
out=$(cd "$WS" && crun -- "${U[@]}" connect rel.sock evil)
refused "a relative symlink out of the workspace" "$out"
out=$(cd "$WS" && crun -- sh -c "cd '$OUT' && $UT connect srv.sock evil")
refused "a relative path from an outside cwd" "$out"
out=$(cd "$WS" && crun -- "${U[@]}" connect "/proc/self/root$OUT/srv.sock" evil)
refused "through /proc/self/root" "$out"
out=$(cd "$WS" && crun -- "${U[@]}" viafd "$OUT" srv.sock evil)
refused "through /proc/self/fd/N/ of an outside directory" "$out"
out=$(cd "$WS" && crun -- "${U[@]}" connect "$WS/../outside/./srv.sock" evil)
refused "through .. out of the workspace" "$out"
sleep 0.2
is "$(cat "$OUT/srv.log" "$OUT/dg.log")" "" "the outside servers received nothing"

# Inside the writable set: servers of the run's own work.
out=$(cd "$WS" && crun -- sh -c "
	$UT serve \"\$PWD/in.sock\" \"\$PWD/in.log\" >ready & p=\$!
	while [ ! -s ready ]; do sleep 0.05; done
	$UT connect in.sock hello; $UT connect \"\$PWD/in.sock\" again; $UT viafd . in.sock viafd
	$UT serve \"\$TMPDIR/d.sock\" \"\$PWD/d.log\" dgram >dready & q=\$!
	while [ ! -s dready ]; do sleep 0.05; done
	$UT sendto \"\$TMPDIR/d.sock\" dg; $UT sendmsg \"\$TMPDIR/d.sock\" msg
	sleep 0.3; kill \$p \$q")
is "$out" "$(printf 'ok\nok\nok\nok\nok')" "workspace and TMPDIR sockets: connect (by a relative, an absolute and a /proc/self/fd/N/ path), sendto, sendmsg with an fd"
is "$(cat "$WS/in.log")|$(cat "$WS/d.log")" "helloagainviafd|dgmsg+fd" "... the run's own servers got it all"

# --allow-socket: a socket, or a directory of them.
rm -f "$T/s.json"
out=$(cd "$WS" && crun --allow-socket "$OUT/srv.sock" --status-file "$T/s.json" -- \
	sh -c "$UT connect '$OUT/srv.sock' allowed; $UT connect '$OUT/sockdir/a.sock' other")
is "$out" "$(printf 'ok\nerror EACCES')" "--allow-socket SOCKET: that socket only"
is "$(json_field "$T/s.json" status 'e["allowed_sockets"]')" "[\"$OUT/srv.sock\"]" \
	"the status event lists the allowed socket"
out=$(cd "$WS" && crun --allow-socket "$OUT/sockdir" -- "${U[@]}" connect "$OUT/sockdir/a.sock" dir)
is "$out" ok "--allow-socket DIR: a socket below it"
is "$(cat "$OUT/srv.log")" alloweddir "the allowed connections reached the server"
: >"$OUT/srv.log"

# A symlink flipped between an inside and an outside socket while the
# command connects: the socket checked is the socket connected to.
# A busy machine can starve one attempt of inside states: a second one
# runs when the first connected nothing (both are shown on failure).
race() {
	rm -f "$WS/ready" "$WS/good.sock" "$WS/flip.sock"
	(cd "$WS" && crun -- sh -c "
	$UT serve \"\$PWD/good.sock\" /dev/null >ready 2>&1 & p=\$!
	while [ ! -s ready ]; do sleep 0.05; done
	$UT race \"\$PWD/good.sock\" '$OUT/srv.sock' \"\$PWD/flip.sock\" 300; kill \$p" 2>&1)
}
race >"$T/race"
case $(cat "$T/race") in "connected "[1-9]*) ;; *) race >>"$T/race" ;; esac
case $(tail -n 1 "$T/race") in
"connected "[1-9]*) ok 0 "race: some connects reached the inside socket ($(cat "$T/race"))" ;;
*) ok 1 "race: some connects reached the inside socket"; diag "$(cat "$T/race")" ;;
esac
is "$(cat "$OUT/srv.log")" "" "race: none reached the outside socket"

# Credentials claimed in a sendmsg to a socket the command may reach:
# cordon would make the call with its own privileges (as root: any pid).
"${U[@]}" serve "$WS/cred.sock" "$OUT/cred.log" dgramcred >"$T/ready.c" 2>&1 &
PIDS+=($!)
while [ ! -S "$WS/cred.sock" ]; do sleep 0.05; done
: >"$OUT/cred.log"
if [ "$(id -u)" = 0 ]; then
	(cd "$WS" && crun --sandbox off -- "${U[@]}" credsend "$WS/cred.sock" ctl) >/dev/null
	sleep 0.2
	is "$(cat "$OUT/cred.log")" "ctl pid=1 uid=0 gid=0" "control (--sandbox off, root): SCM_CREDENTIALS naming pid 1 are delivered"
else
	skip "only root may claim another pid's credentials (the control)"
fi
: >"$OUT/cred.log"
out=$(cd "$WS" && crun -- "${U[@]}" credsend "$WS/cred.sock" forged)
sleep 0.2
is "$out:$(cat "$OUT/cred.log")" "error EPERM:" "SCM_CREDENTIALS through the socket supervisor: EPERM, nothing delivered"

# A review's attacks on the supervisor (tests/helpers/sockattack.c): the
# fd swapped between an AF_INET and an AF_UNIX socket while the call
# waits (stream connect, datagram sendmsg), a control message that claims
# more than its buffer, and a chroot (with a new user namespace when not
# root) holding a dev/shm link to the outside.
: >"$OUT/srv.log"
: >"$OUT/dg.log"
ATT=$HELPERS/sockattack
out=$(cd "$WS" && crun -- "$ATT" fdrace "$OUT/srv.sock")
is "$out" held "an fd swapped under a waiting connect never reaches the outside socket"
out=$(cd "$WS" && crun -- "$ATT" dgramrace "$OUT/dg.sock")
is "$out" held "an fd swapped under a waiting sendmsg never reaches the outside socket"
rm -f "$T/s.json"
out=$(cd "$WS" && crun --status-file "$T/s.json" -- "$ATT" badcmsg)
is "$?:$out" "0:EINVAL" "a control message longer than its buffer: EINVAL, cordon unharmed"
is "$(json_field "$T/s.json" exit 'e["exit_code"]')" 0 "... and its exit event written"
mkdir -p "$WS/jail/dev" && ln -s "$OUT" "$WS/jail/dev/shm"
out=$(cd "$WS" && crun -- "$ATT" chroot jail ../outside/srv.sock)
case $out in
# A user namespace of its own (for the chroot) is refused too: ENOSPC
# where the run's own user namespace allows none below it, EPERM where
# seccomp refuses it (t0145).
EACCES | "EPERM (unshare)" | "ENOSPC (unshare)" | "EPERM (chroot)") ok 0 "chroot with a dev/shm link to the outside: refused ($out)" ;;
*) ok 1 "chroot with a dev/shm link to the outside: refused"; diag "$out" ;;
esac
sleep 0.2
is "$(cat "$OUT/srv.log" "$OUT/dg.log")" "" "the outside servers received nothing from the attacks"
out=$(cd "$WS" && crun --sandbox off -- "${U[@]}" connect "$OUT/srv.sock" control)
is "$out" ok "control: the outside server is reachable unconfined"
: >"$OUT/srv.log"

# Calls from a thread that is not the main one (the supervisor takes the
# fd from that thread), on Unix and TCP sockets, and name lookups.
out=$(cd "$WS" && crun --allow-socket "$OUT/srv.sock" -- "$PY" -c '
import socket, threading, sys
res = []
def t():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1]); s.sendall(b"x"); s.recv(2); res.append("unix ok")
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", 9))
    except ConnectionRefusedError:
        res.append("tcp refused")
    res.append("lookup " + socket.getaddrinfo("localhost", 80)[0][4][0])
th = threading.Thread(target=t); th.start(); th.join()
print(", ".join(res))' "$OUT/srv.sock" 2>&1)
case $out in
"unix ok, tcp refused, lookup "*) ok 0 "from a second thread: Unix connect, TCP connect, name lookup ($out)" ;;
*) ok 1 "from a second thread: Unix connect, TCP connect, name lookup"; diag "$out" ;;
esac
: >"$OUT/srv.log"

# Bad input: one line, exit 125.
for bad in "$OUT/missing.sock" "$OUT/srv.log"; do
	(cd "$WS" && crun --allow-socket "$bad" -- true) 2>"$T/e"
	is "$?:$(wc -l <"$T/e")" "125:1" "--allow-socket $(basename "$bad"): refused with one line"
done
grep -q '^cordon: --allow-socket path is neither a socket nor a directory' "$T/e"
ok $? "... a regular file: says why"

# Without seccomp there is no supervisor: an explicit --allow-socket is
# refused in required mode, reported as a gap in auto.
rm -f "$T/s.json"
(cd "$WS" && "$HELPERS/seccomp-deny" noseccomp -- "$CORDON" run --state-dir "$STATE" --sandbox required \
	--allow-socket "$OUT/srv.sock" --status-file "$T/s.json" -- touch ran) 2>"$T/e"
is "$?" 125 "no seccomp, required + --allow-socket: refused"
[ ! -e "$WS/ran" ]
ok $? "... the command did not run"
is "$(json_field "$T/s.json" status 'e["cause"]')" allow_socket_not_enforceable "... cause allow_socket_not_enforceable"
rm -f "$T/s.json"
(cd "$WS" && "$HELPERS/seccomp-deny" noseccomp -- "$CORDON" run --state-dir "$STATE" \
	--status-file "$T/s.json" -- "${U[@]}" connect "$OUT/srv.sock" gap) >/dev/null 2>&1
is "$(json_field "$T/s.json" status '"unix_socket_connect_not_restricted" in e["gaps"]')" true \
	"no seccomp, auto: the gap is reported"
is "$(cat "$OUT/srv.log")" gap "... and it is real (the server got it)"

# A connect that blocks (a full backlog, never accepted) does not keep
# cordon from ending at the timeout.
peer stuck stuck
out=$(timeout -s KILL 30 "$CORDON" run --state-dir "$STATE" --timeout 1 -- "${U[@]}" fill "$OUT/stuck.sock" 2>&1)
is "$?:$out" "1:error EACCES" "not allowed: the connect to the stuck server is refused at once"
timeout -s KILL 30 "$CORDON" run --state-dir "$STATE" --timeout 1 --allow-socket "$OUT/stuck.sock" -- \
	"${U[@]}" fill "$OUT/stuck.sock" >/dev/null 2>&1
is "$?" 124 "a connect stuck on a full backlog: cordon still ends at the timeout (124, not killed)"
# A call that blocks holds only its own thread: the same command's other
# threads' calls (made by other workers of the supervisor) go on.
out=$(cd "$WS" && timeout -s KILL 30 "$CORDON" run --state-dir "$STATE" --timeout 10 \
	--allow-socket "$OUT/stuck.sock" -- "$PY" -c '
import socket, sys, threading, time
def stuck_connect():
    while True:
        c = socket.socket(socket.AF_UNIX)
        c.connect(sys.argv[1])
def stuck_send():
    a, b = socket.socketpair()
    while True:
        a.sendmsg([b"x" * 65536])
for f in (stuck_connect, stuck_send):
    threading.Thread(target=f, daemon=True).start()
time.sleep(1)
srv = socket.socket(socket.AF_UNIX)
srv.bind("later.sock")
srv.listen(8)
c = socket.socket(socket.AF_UNIX)
c.connect("later.sock")
x, y = socket.socketpair()
x.sendmsg([b"ok"])
print("others:", y.recv(2).decode(), flush=True)
' "$OUT/stuck.sock" 2>&1)
is "$out" "others: ok" "a blocked connect and a blocked send hold only their own threads"
rm -f "$WS/later.sock"

done_testing
