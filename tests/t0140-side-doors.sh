#!/usr/bin/env bash
# Side doors the corpus cannot show as a changed file: no process of the
# run outlives it (also when cordon is killed with SIGKILL), /proc shows
# only the run, no controlling terminal without one, the caller's keys
# cannot be read, io_uring cannot be set up; and what holds without
# namespaces. Processes are watched through heartbeat files they write.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

layers() { crun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | "$PY" -c 'import json,sys; e=json.loads(sys.stdin.readline()); print(" ".join(e["layers"]), "|", " ".join(e["gaps"]))'; }
HAVE=$(cd "$WS" && layers)
has() { case " $HAVE " in *" $1 "*) return 0 ;; esac; return 1; }

# started FILE: wait (up to 10 s) for a heartbeat file to be written.
started() {
	for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}
# beating FILE: 0 when FILE's heartbeat still changes.
beating() {
	local a b
	a=$(cat "$1" 2>/dev/null)
	sleep 1
	b=$(cat "$1" 2>/dev/null)
	[ -n "$a" ] && [ "$a" != "$b" ]
}
# alive FILE: 0 when FILE's heartbeat is written and changes within 5 s
# (a control: a busy machine may stall the writer for a moment).
alive() {
	started "$1" || return 1
	for _ in 1 2 3 4 5; do beating "$1" && return 0; done
	return 1
}
# A heartbeat loop, as shell text: writes FILE every 0.1 s.
hb() { echo "while :; do date +%s%N > '$1'; sleep 0.1; done"; }

# ---- survivors, with the PID namespace ------------------------------------
if has pid_namespace; then
	# Control: unconfined, a setsid'd process does outlive the command.
	(cd "$WS" && crun --sandbox off -- sh -c "setsid sh -c \"echo \\\$\\\$ > '$WS/ctlpid'; $(hb "$WS/hb0")\" & sleep 0.5")
	alive "$WS/hb0"
	ok $? "control: --sandbox off, a setsid'd process outlives the run"
	kill "$(cat "$WS/ctlpid")" 2>/dev/null
	(cd "$WS" && crun -- sh -c "setsid sh -c \"$(hb "$WS/hb1")\" & nohup sh -c \"$(hb "$WS/hb2")\" >/dev/null 2>&1 & sleep 0.5")
	sleep 0.3
	! beating "$WS/hb1"
	ok $? "setsid: no survivor after the run"
	! beating "$WS/hb2"
	ok $? "nohup: no survivor after the run"

	# As root, a process of another uid (which process 1 cannot signal
	# itself): the run still ends with its command, and the process with it.
	if [ "$(id -u)" = 0 ] && tool_ok setpriv; then
		mkdir -p "$WS/other" && chown 65534:65534 "$WS/other"
		start=$(date +%s)
		(cd "$WS" && crun --timeout 6 --allow-write "$WS/other" -- sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \"$(hb "$WS/other/hb")\" </dev/null >/dev/null 2>&1 & sleep 0.5")
		is "$?:$(($(date +%s) - start < 5))" "0:1" "root, a child of another uid: the run ends with its command (not at --timeout 6)"
		sleep 0.3
		! beating "$WS/other/hb"
		ok $? "... and that child is gone"
	else
		skip "needs root and setpriv (a process of another uid)"
		skip "needs root and setpriv (a process of another uid)"
	fi

	# cordon killed by SIGKILL: the whole run is gone, setsid'd ones too.
	(cd "$WS" && exec "$CORDON" run --state-dir "$STATE" -- sh -c "setsid sh -c \"$(hb "$WS/hb3")\" & $(hb "$WS/hb4")") &
	cpid=$!
	started "$WS/hb3" && alive "$WS/hb4"
	ok $? "control: the run is alive before the kill"
	{ kill -9 "$cpid" && wait "$cpid"; } 2>/dev/null
	sleep 0.3
	! beating "$WS/hb4"
	ok $? "SIGKILL of cordon: the command is gone"
	! beating "$WS/hb3"
	ok $? "SIGKILL of cordon: a process that left the group is gone too"

	# /proc is the run's: an outside process of the user is not there.
	sleep 300 &
	victim=$!
	out=$(cd "$WS" && crun -- sh -c 'ls /proc | grep -c "^[0-9][0-9]*$"; ps -eo args 2>/dev/null | grep -c "[s]leep 300"')
	kill "$victim"
	wait "$victim" 2>/dev/null
	n=$(echo "$out" | head -n 1)
	[ "$n" -ge 1 ] && [ "$n" -le 6 ]
	ok $? "/proc inside lists only the run's processes ($n)"
	is "$(echo "$out" | tail -n 1)" 0 "an outside process of the user is not visible"
else
	skip "no PID namespace here ($HAVE)"
fi

# ---- the run's process 1 is out of the command's reach ----------------------
if has pid_namespace; then
	out=$(cd "$WS" && crun -- "$PY" -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = []
r.append("ptrace " + ("attached" if libc.ptrace(16, 1, 0, 0) == 0 else os.strerror(ctypes.get_errno())))
try:
    fds = os.listdir("/proc/1/fd")
except OSError as e:
    fds = []; r.append("fd " + e.strerror)
for f in fds:
    try:
        os.close(os.open("/proc/1/fd/" + f, os.O_WRONLY)); r.append("fd opened")
    except OSError as e:
        r.append("fd " + e.strerror)
try:
    os.kill(1, 19); r.append("stopped")
except OSError as e:
    r.append("kill " + e.strerror)
print(", ".join(r))')
	is "$out" "ptrace Operation not permitted, fd Permission denied, kill Operation not permitted" \
		"process 1: no ptrace, no /proc/1/fd, no signal from the command"
else
	skip "no PID namespace here ($HAVE)"
fi

# Renames and links across directories work, with every layer and with
# Landlock alone (no extra Landlock layer of cordon's may refuse them).
for how in all nons; do
	rm -rf "$WS/ra" "$WS/rb"
	wrap=()
	[ "$how" = nons ] && wrap=("$HELPERS/seccomp-deny" nons --)
	out=$(cd "$WS" && "${wrap[@]}" "$CORDON" run --state-dir "$STATE" -- "$PY" -c '
import os
os.makedirs("ra/x"); os.makedirs("rb")
open("ra/f", "w").close()
os.rename("ra/f", "rb/f"); os.link("rb/f", "ra/x/g"); os.rename("ra/x", "rb/x")
print("ok")' 2>&1)
	is "$out" ok "renames and hard links across directories in the workspace ($how)"
done

# ---- without namespaces ---------------------------------------------------
rm -f "$T/s.json"
("$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" -- true) 2>/dev/null
is "$(json_field "$T/s.json" status '" ".join(g for g in e["gaps"] if g in ("other_processes_visible", "processes_may_outlive_run", "ipc_not_isolated"))')" \
	"other_processes_visible ipc_not_isolated" \
	"no namespaces: the process and IPC gaps are reported (not survivors: the CLI reaps them)"
# Without a PID namespace the CLI is a child subreaper: what left the
# command's process group and session comes to it, and the end kills it.
(cd "$WS" && crun --sandbox off -- sh -c "setsid sh -c \"echo \\\$\\\$ > '$WS/ctlpid2'; $(hb "$WS/hb7")\" & sleep 0.5")
alive "$WS/hb7"
ok $? "control: --sandbox off, a setsid'd process outlives the run"
kill "$(cat "$WS/ctlpid2")" 2>/dev/null
(cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" -- \
	sh -c "setsid sh -c \"$(hb "$WS/hb8")\" & (sh -c \"$(hb "$WS/hb9")\" &) & sleep 0.5") 2>/dev/null
sleep 0.3
! beating "$WS/hb8" && ! beating "$WS/hb9"
ok $? "no namespaces: a setsid'd process and a double-forked one are gone after the run"
# SIGKILL of cordon: the command dies with it (a parent-death signal);
# a process it started in the background is the documented survivor.
(cd "$WS" && exec "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" -- \
	sh -c "sh -c \"echo \\\$\\\$ > '$WS/bgpid'; $(hb "$WS/hb6")\" & $(hb "$WS/hb5")") 2>/dev/null &
cpid=$!
for _ in $(seq 50); do [ -s "$WS/hb5" ] && [ -s "$WS/hb6" ] && break; sleep 0.1; done
{ kill -9 "$cpid" && wait "$cpid"; } 2>/dev/null
sleep 0.3
! beating "$WS/hb5"
ok $? "no namespaces, SIGKILL of cordon: the command is gone"
if alive "$WS/hb6"; then
	ok 0 "no namespaces, SIGKILL of cordon: its background child survives (processes_may_outlive_run)"
else
	ok 1 "no namespaces: the documented survivor is not there (update the docs)"
fi
kill "$(cat "$WS/bgpid")" 2>/dev/null

# ---- an mqueue mount of the caller's --------------------------------------------
# A POSIX queue is a file there: with the IPC namespace the run sees its
# own (empty) mqueue instead, and cannot take the user's messages.
if has ipc_namespace && is_root && mkdir -p "$T/mq" && mount -t mqueue cordon-test "$T/mq" 2>/dev/null; then
	q=cordon-t0140-$$
	(cd "$OUT" && exec "$PY" "$TOP/tests/helpers/ipc.py" mq-peer "$q" >"$T/mq-ready") &
	mqpeer=$!
	for _ in $(seq 50); do [ -s "$T/mq-ready" ] && break; sleep 0.1; done
	"$PY" "$TOP/tests/helpers/ipc.py" mq-send "$q" >/dev/null # the peer reports and takes it
	out=$(cd "$WS" && crun -- sh -c "ls '$T/mq'; cat '$T/mq/$q' 2>&1 | head -c 300")
	case $out in *"No such file"*) ok 0 "the caller's queue is not in the run's mqueue mount" ;;
	*) ok 1 "the caller's queue is not in the run's mqueue mount"; diag "$out" ;; esac
	[ -e "$T/mq/$q" ]
	ok $? "control: the queue is there outside the run"
	kill "$mqpeer"
	wait "$mqpeer" 2>/dev/null
	umount "$T/mq"
else
	skip "needs root and the IPC namespace to mount an mqueue of the test's own"
fi

# ---- terminal ---------------------------------------------------------------
out=$(cd "$WS" && crun -- sh -c '(exec 3</dev/tty) 2>/dev/null && echo opened || echo refused' </dev/null 2>&1)
is "$out" refused "no terminal on fds 0-2: /dev/tty cannot be opened (no controlling terminal)"

# ---- keyrings -----------------------------------------------------------------
KEYS=("$PY" "$TOP/tests/helpers/keys.py")
if out=$("${KEYS[@]}" wrap corpus-secret s3cret -- "${KEYS[@]}" read corpus-secret 2>&1) && [ "$out" = s3cret ]; then
	ok 0 "control: a key of the caller's session keyring can be read"
	# Absent only counts when cordon ran the reader: it says so after the
	# attempt, with the reader's status.
	out=$("${KEYS[@]}" wrap corpus-secret s3cret -- "$CORDON" run --state-dir "$STATE" -- \
		sh -c '"$@"; echo "read exit $?"' sh "${KEYS[@]}" read corpus-secret 2>&1)
	case $out in *s3cret* | *"read exit 0"*) ok 1 "confined: the caller's key cannot be read"; diag "$out" ;;
	*"read exit "[1-9]*) ok 0 "confined: the caller's key cannot be read ($(tr '\n' ' ' <<<"$out"))" ;;
	*) ok 1 "confined: the caller's key cannot be read"; diag "cordon did not run the reader: $out" ;; esac
	# The kernel's key list names the caller's keys (description, owner,
	# length): the run's /proc covers it.
	if has pid_namespace; then
		# A name of this run's own: keys of earlier runs may linger in the list.
		kname=t0140-key-$$-$RANDOM
		out=$("${KEYS[@]}" wrap "$kname" s3cret -- sh -c 'grep -c "$1" /proc/keys' sh "$kname")
		if [ "$out" = 1 ]; then
			ok 0 "control: /proc/keys names the caller's key"
			out=$(cd "$WS" && "${KEYS[@]}" wrap "$kname" s3cret -- "$CORDON" run --state-dir "$STATE" -- \
				sh -c 'echo "$(grep -c "$1" /proc/keys) $(wc -c </proc/key-users)"' sh "$kname" 2>&1)
			is "$out" "0 0" "confined: /proc/keys and /proc/key-users are empty"
		else
			skip "/proc/keys does not list the test's key here ($out)"
		fi
	else
		skip "no PID namespace here: /proc is the caller's"
	fi
	# Where keyctl is refused from outside already (Docker's default
	# seccomp profile), the run goes on (it used to fail with 125 at the
	# session keyring join) and the key stays out of reach.
	nokeys=("$HELPERS/seccomp-deny" nokeys --)
	if out=$("${KEYS[@]}" wrap corpus-secret s3cret -- "${nokeys[@]}" "${KEYS[@]}" read corpus-secret 2>&1); then
		skip "seccomp-deny nokeys did not refuse keyctl here: $out"
	else
		out=$(cd "$WS" && "${KEYS[@]}" wrap corpus-secret s3cret -- "${nokeys[@]}" "$CORDON" run --sandbox required \
			--state-dir "$STATE" --status-fd 3 -- sh -c 'echo ran; "$@"; r=$?; echo "read exit $r"; exit $r' sh "${KEYS[@]}" \
			read corpus-secret 3>"$T/nokeys.status" 2>&1)
		rc=$?
		case $out in ran*) ok 0 "keyctl refused from outside: the run goes on (exit $rc)" ;;
		*) ok 1 "keyctl refused from outside: the run goes on (exit $rc)"; diag "$out" ;; esac
		case $out in *s3cret* | *"read exit 0"*) ok 1 "... and the caller's key cannot be read"; diag "$out" ;;
		*"read exit "[1-9]*) ok 0 "... and the caller's key cannot be read" ;;
		*) ok 1 "... and the caller's key cannot be read"; diag "cordon did not run the reader: $out" ;; esac
		grep -q '"keyrings_refused"' "$T/nokeys.status"
		ok $? "... with keyrings_refused in its layers"
	fi
else
	skip "keyrings do not work here: $out"
fi

# ---- io_uring -------------------------------------------------------------------
uring='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 4, p)
print("ok" if fd >= 0 else os.strerror(ctypes.get_errno()))'
ctl=$("$PY" -c "$uring")
if [ "$ctl" = ok ]; then
	out=$(cd "$WS" && crun -- "$PY" -c "$uring")
	is "$out" "Operation not permitted" "io_uring_setup is refused confined (control: it works unconfined)"
else
	skip "io_uring does not work here unconfined: $ctl"
fi

done_testing
