#!/usr/bin/env bash
# The socket supervisor (Landlock ABI < 9) makes the command's connects and
# sends itself, in a thread of cordon: it must do so with no more
# privilege than the command. As root the command keeps a few
# capabilities only (src/linux/caps.c); cordon's thread must not lend it the
# others: control messages the kernel takes only with CAP_NET_RAW or
# CAP_NET_ADMIN (SO_MARK, SO_PRIORITY above 6, an IPv6 hop-by-hop header,
# an IPv4 security option), or an rtnetlink change (CAP_NET_ADMIN). Not
# root, cordon owns the run's user namespace and so, with --network off,
# its network namespace: the same must be refused there. The receivers
# (UDP on the host's loopback) and the network namespace changed are the
# test's own; a control with --sandbox off (or a process that holds the
# capability) shows each attack really works, and a process with only the
# capabilities a confined root command keeps shows what the kernel
# answers the command itself.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

C=("$PY" "$TOP/tests/helpers/cmsgsend.py")
PIDS=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_peers() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap 'stop_peers; cleanup' EXIT

layers=$(crun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
case " $layers " in
*" unix_socket_supervisor "*) ;;
*) skip_all "no socket supervisor here (Landlock checks sockets itself, or no seccomp): layers $layers" ;;
esac

# listen FAMILY LOG: a receiver of the test's own; its port in $port.
listen() {
	: >"$2"
	rm -f "$T/port"
	"${C[@]}" listen "$1" "$2" >"$T/port" 2>"$T/listen.err" &
	PIDS+=($!)
	for _ in $(seq 100); do
		port=$(cat "$T/port")
		[ -n "$port" ] && return 0
		kill -0 "${PIDS[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	port=
	return 1
}
listen 4 "$OUT/udp4.log" || skip_all "no UDP receiver on 127.0.0.1 with SO_RCVMARK: $(cat "$T/listen.err")"
P4=$port
P6=
listen 6 "$OUT/udp6.log" && P6=$port

# kept COMMAND...: unconfined, with only the capabilities a confined
# command keeps (those of the confined run itself), in the bounding set
# too, as cordon leaves them.
KEPT=
if is_root && command -v capsh >/dev/null; then
	eff=$(cd "$WS" && crun -- sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	KEPT=$(capsh --decode="0x$eff" | sed 's/^[^=]*=//; s/cap_/+/g')
	diag "a confined root command keeps: $KEPT"
fi
kept() { setpriv --inh-caps="-all,$KEPT" --bounding-set="-all,$KEPT" "$@"; }

# The command's own answer to each kind, where a control shows it.
declare -A own=()

# What the receiver logged for payload $1.
seen() { sleep 0.2; grep -h "^$1\( \|$\)" "$OUT/udp4.log" "$OUT/udp6.log"; }

# Each control message the kernel takes only with a capability: the
# command must get the answer a process with its capabilities gets, and
# the receiver nothing.
for kind in mark prio hopopts ipsec; do
	port=$P4
	if [ "$kind" = hopopts ]; then
		[ -n "$P6" ] || { skip "$kind: no UDP receiver on ::1 here"; continue; }
		port=$P6
	fi
	off=$(cd "$WS" && crun --sandbox off -- "${C[@]}" send "$kind" "$port" off)
	got_off=$(seen "$kind-off")
	conf=$(cd "$WS" && crun -- "${C[@]}" send "$kind" "$port" conf)
	got_conf=$(seen "$kind-conf")
	if is_root; then
		if [ "$off" != sent ]; then
			skip "$kind: this kernel refuses it even to root ($off)"
			continue
		fi
		case $kind in
		mark) want="mark-off mark=42" ;;
		hopopts) want="hopopts-off hopopts=${got_off#*hopopts=}" ;;
		*) want="$kind-off" ;;
		esac
		case $got_off in
		"$want" | "$want "*) ok 0 "control (--sandbox off, root): $kind reaches the receiver ($got_off)" ;;
		*) ok 1 "control (--sandbox off, root): $kind reaches the receiver"; diag "got: $got_off" ;;
		esac
		if [ -n "$KEPT" ]; then
			k=$(cd "$WS" && kept "${C[@]}" send "$kind" "$port" kept)
			case $k in
			"error "*) ok 0 "control (the kept capabilities, unconfined): $kind refused ($k)" ;;
			*) ok 1 "control (the kept capabilities, unconfined): $kind refused"; diag "got: $k" ;;
			esac
			own[$kind]=$k
			is "$conf" "$k" "confined root: $kind through the supervisor gets the command's own answer"
		else
			skip "$kind: no capsh to make the kept-capabilities control"
			case $conf in "error "*) ok 0 "confined root: $kind refused ($conf)" ;; *) ok 1 "confined root: $kind refused ($conf)" ;; esac
		fi
	else
		# No capability at all, confined or not: the same refusal.
		is "$conf" "$off" "confined ($(id -un)): $kind gets the answer it gets unconfined"
	fi
	is "$got_conf" "" "... $kind: the receiver got nothing from the confined command"
done

# Harmless control messages and fd passing still go through.
out=$(cd "$WS" && crun -- "${C[@]}" send tos "$P4" conf)
is "$out|$(seen tos-conf)" "sent|tos-conf tos=16" "IP_TOS through the supervisor: sent, the receiver sees it"
out=$(cd "$WS" && crun -- "${C[@]}" passfd "$WS")
is "$out" "fd passed" "a non-dumpable command passes an fd (SCM_RIGHTS) over a workspace socket"

# rtnetlink: a change of the network namespace cordon runs in (the
# test's own, as root; a sendto with the kernel's address, as iproute2
# makes it, where the kernel checks the sender's capabilities only).
if is_root && unshare --net true 2>/dev/null; then
	out=$(cd "$WS" && unshare --net "$BASH" -c '
		"$1" run --state-dir "$2" -- "${@:3}" addaddr 192.0.2.1
		"$1" run --state-dir "$2" -- "${@:3}" addresses
		"${@:3}" addresses' _ "$CORDON" "$STATE" "${C[@]}")
	is "$out" "$(printf 'error EPERM\nnone\nnone')" \
		"confined root: rtnetlink RTM_NEWADDR refused (EPERM), the namespace unchanged; a dump still works"
	out=$(cd "$WS" && unshare --net "$BASH" -c '
		"$1" run --state-dir "$2" --sandbox off -- "${@:3}" addaddr 192.0.2.1
		"${@:3}" addresses' _ "$CORDON" "$STATE" "${C[@]}")
	is "$out" "$(printf 'added\n192.0.2.1')" "control (--sandbox off): the address is added"
	if [ -n "$KEPT" ]; then
		out=$(cd "$WS" && unshare --net setpriv --inh-caps="-all,$KEPT" --bounding-set="-all,$KEPT" \
			"${C[@]}" addaddr 192.0.2.1 2>&1)
		is "$out" "error EPERM" "control (the kept capabilities, unconfined): EPERM"
	fi
else
	skip "rtnetlink in a network namespace of the test's own: needs root"
fi

# --network off: the run's own network namespace. As root it is the
# initial user namespace's (the kept capabilities decide, as above); not
# root, it is made in the run's user namespace, cordon's: cordon holds
# every capability there and the command none, and these control messages
# are refused with EPERM (IPv4 options whole, though the kernel refuses
# only some without CAP_NET_RAW).
if [[ " $(crun --network off --status-fd 3 -- true 3>&1 >/dev/null) " == *'"network_namespace"'* ]]; then
	ctl=$(cd "$WS" && "${C[@]}" ownns pair mark 2>&1)
	if [ "$ctl" = "$(printf 'sent\nseen: mark mark=42\naddresses: 127.0.0.1')" ]; then
		ok 0 "control (a process with the capabilities of its own network namespace): the mark is seen"
	else
		skip "no user and network namespace of the test's own here ($ctl)"
	fi
	for kind in mark prio hopopts ipsec; do
		want="error EPERM"
		if is_root; then
			[ -n "${own[$kind]:-}" ] || { skip "--network off: $kind: no control of the command's own answer"; continue; }
			want=${own[$kind]}
		fi
		out=$(cd "$WS" && crun --network off -- "${C[@]}" pair "$kind")
		is "$out" "$(printf '%s\nseen: nothing' "$want")" "--network off: $kind inside the run's namespace: $want, nothing received"
	done
	out=$(cd "$WS" && crun --network off -- "${C[@]}" pair tos)
	is "$out" "$(printf 'sent\nseen: tos tos=16')" "--network off: IP_TOS inside the run's namespace still works"
	out=$(cd "$WS" && "${C[@]}" ownns addaddr 192.0.2.1 2>&1)
	case $out in
	"added"*"192.0.2.1") ok 0 "control (a process with the capabilities of its own network namespace): the address is added" ;;
	*) skip "no user and network namespace of the test's own here ($out)" ;;
	esac
	out=$(cd "$WS" && crun --network off -- sh -c "$(printf '%q ' "${C[@]}") addaddr 192.0.2.1; $(printf '%q ' "${C[@]}") addresses")
	is "$out" "$(printf 'error EPERM\n127.0.0.1')" "--network off: an rtnetlink change of the run's namespace: EPERM, unchanged"
else
	skip "--network off has no network namespace here"
fi

# Every worker keeps what its own work needs: a command that is not
# dumpable (ssh-agent, gpg-agent make themselves so) has its fds taken
# with CAP_SYS_PTRACE. Each connect hands the listener on to another
# worker, started while the first is lowered around the call: it must
# raise its capabilities again, or the command's later connects fail
# (EPERM) as root.
out=$(cd "$WS" && crun -- "$PY" -c '
import ctypes, os, socket, threading
path = os.getcwd() + "/nd.sock"
srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(8)
def serve():
    for _ in range(4):
        srv.accept()[0].close()
threading.Thread(target=serve, daemon=True).start()
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE: 0
res = []
for _ in range(4):
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(path); res.append("ok")
    except OSError as e:
        res.append(e.strerror)
    c.close()
os.unlink(path)
print(" ".join(res))' 2>&1)
is "$out" "ok ok ok ok" "a command that is not dumpable: each of its connects is made (every worker may take its fds)"

done_testing
