#!/usr/bin/env bash
# --network off: listeners of the test's own on the host's loopback (TCP
# and UDP on 127.0.0.1, TCP on ::1 where IPv6 is up) see nothing of what a
# confined command tries (python sockets, bash's /dev/tcp, curl, a raw
# ICMP socket, AF_PACKET, AF_VSOCK), with the mount layer (the run's own
# network namespace: loopback inside works) and without it (seccomp and
# Landlock: loopback inside refused too, gap loopback_unavailable); name
# resolution fails at once. --network on reaches them. "required" refuses
# --network off where nothing can enforce it. Only loopback addresses
# (and, for the "leaves nothing" check, an address of TEST-NET-1, which
# no packet is ever sent to: the namespace has no route to it).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny

# The listeners: one process, each socket's traffic logged as one line.
cat >"$T/listen.py" <<'EOF'
import select, socket, sys
log = open(sys.argv[1], "a", buffering=1)
socks = []
def add(fam, typ, addr):
    try:
        s = socket.socket(fam, typ)
        s.bind(addr)
        if typ == socket.SOCK_STREAM:
            s.listen(16)
        socks.append((s, typ))
        return s.getsockname()[1]
    except OSError:
        return 0
tcp4 = add(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0))
udp4 = add(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0))
tcp6 = add(socket.AF_INET6, socket.SOCK_STREAM, ("::1", 0))
print(tcp4, udp4, tcp6, flush=True)
while True:
    r, _, _ = select.select([s for s, _ in socks], [], [])
    for s in r:
        t = dict(socks)[s]
        if t == socket.SOCK_STREAM:
            c, a = s.accept()
            log.write("tcp from %s\n" % (a[0],))
            c.close()
        else:
            d, a = s.recvfrom(4096)
            log.write("udp %r\n" % (d,))
EOF
: >"$T/seen.log"
coproc LISTEN { exec "$PY" "$T/listen.py" "$T/seen.log"; }
trap 'kill "$LISTEN_PID" 2>/dev/null; cleanup' EXIT
read -r TCP4 UDP4 TCP6 <&"${LISTEN[0]}"
[ "${TCP4:-0}" -gt 0 ] && [ "${UDP4:-0}" -gt 0 ]
ok $? "the test's listeners run on 127.0.0.1 (tcp $TCP4, udp $UDP4; ::1 tcp ${TCP6:-none})"

# attack.py: every way out, one line each: "<way> reached" or "<way> refused: <error>".
cat >"$T/attack.py" <<'EOF'
import os, socket, subprocess, sys, time
tcp4, udp4, tcp6 = (int(x) for x in sys.argv[1:4])
def way(name, f):
    try:
        f()
        print(name, "reached", flush=True)
    except OSError as e:
        print(name, "refused:", e.strerror or e, flush=True)
def tcp(fam, addr):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(addr)
    s.close()
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"confined-datagram", ("127.0.0.1", udp4))
    s.close()
def udp_connected():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(("127.0.0.1", udp4))
    s.send(b"confined-connected-datagram")
    s.close()
way("tcp4", lambda: tcp(socket.AF_INET, ("127.0.0.1", tcp4)))
if tcp6:
    way("tcp6", lambda: tcp(socket.AF_INET6, ("::1", tcp6)))
way("udp4", udp)
way("udp4-connected", udp_connected)
way("tcp-testnet", lambda: tcp(socket.AF_INET, ("192.0.2.1", 9)))
way("raw-icmp", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).sendto(b"\x08\0\xf7\xff\0\0\0\0", ("127.0.0.1", 0)))
way("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close())
way("vsock", lambda: socket.socket(40, socket.SOCK_STREAM).connect((2, 1024)))
t0 = time.monotonic()
try:
    socket.getaddrinfo("cordon-test.example.com", 80)
    print("dns reached", flush=True)
except OSError as e:
    print("dns refused: %s in %.1fs" % (e, time.monotonic() - t0), flush=True)
# Loopback inside the command's world: a server of its own.
def inside():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    c = socket.socket()
    c.settimeout(3)
    c.connect(srv.getsockname())
    a, _ = srv.accept()
    c.sendall(b"ping")
    if a.recv(4) != b"ping":
        raise OSError("no echo")
way("inside-loopback", inside)
# A Unix socket in the workspace: not the network's business.
def unix():
    p = "u.sock"
    if os.path.exists(p):
        os.unlink(p)
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(p)
    srv.listen(1)
    c = socket.socket(socket.AF_UNIX)
    c.connect(p)
    os.unlink(p)
way("unix-workspace", unix)
EOF
# Shell ways: bash's /dev/tcp, and curl when it works here.
cat >"$T/attack.sh" <<'EOF'
"$PY" "$T/attack.py" "$TCP4" "$UDP4" "${TCP6:-0}"
if (exec 3<>"/dev/tcp/127.0.0.1/$TCP4") 2>/dev/null; then echo "bash-dev-tcp reached"; else echo "bash-dev-tcp refused"; fi
if command -v curl >/dev/null 2>&1; then
	if curl -s -m 3 -o /dev/null "http://127.0.0.1:$TCP4/"; then echo "curl reached"; else echo "curl refused: exit $?"; fi
fi
EOF
export PY T TCP4 UDP4 TCP6

attack() { # attack OUT RUNNER...: the attack under RUNNER, its lines in OUT
	local out=$1
	shift
	rm -f "$T/s.json"
	(cd "$WS" && "$@" -- bash "$T/attack.sh") >"$out" 2>&1
}
seen() { wc -l <"$T/seen.log"; }

# Control: unconfined, the listeners see the command.
before=$(seen)
attack "$T/off.out" crun --sandbox off --status-file "$T/s.json" --network on
grep -q '^tcp4 reached' "$T/off.out" && grep -q '^udp4 reached' "$T/off.out"
ok $? "control: unconfined, the command reaches the host's loopback (tcp, udp)"
sleep 0.3
ok $(($(seen) > before ? 0 : 1)) "control: the listeners saw it ($(($(seen) - before)) lines)"

# --network on: today's behaviour, and said.
before=$(seen)
attack "$T/on.out" crun --sandbox required --status-file "$T/s.json" --network on
grep -q '^tcp4 reached' "$T/on.out"
ok $? "--network on: the host's loopback is reached confined"
is "$(json_field "$T/s.json" status '[e["network"], "network_not_restricted" in e["gaps"], [l for l in e["layers"] if l.startswith("network_")]]')" \
	'["on", true, []]' "--network on: status network on, gap network_not_restricted, no network layer"

check_off() { # check_off NAME OUT WAYS: nothing reached the listeners; each of WAYS refused
	local name=$1 out=$2 ways=$3
	sleep 0.3
	is "$(($(seen) - before))" 0 "$name: the listeners saw nothing"
	! grep -qE "^($ways) reached" "$out"
	ok $? "$name: every way out refused ($(grep -E "^($ways) " "$out" | tr '\n' ';' | head -c 300))"
	grep -q '^unix-workspace reached' "$out"
	ok $? "$name: a Unix socket in the workspace still works"
	local secs
	secs=$(sed -n 's/^dns refused: .* in \([0-9.]*\)s$/\1/p' "$out")
	[ -n "$secs" ] && "$PY" -c "import sys; sys.exit(0 if float('$secs') < 3 else 1)"
	ok $? "$name: name resolution fails at once (${secs:-?}s)"
}

# --network off with the mount layer: the run's own network namespace.
before=$(seen)
attack "$T/ns.out" crun --sandbox required --status-file "$T/s.json" --network off
if [ "$(json_field "$T/s.json" status '"network_namespace" in e["layers"]')" = true ]; then
	# UDP sends succeed into the namespace's own loopback (nobody
	# listens there); the listeners' log is the proof they went nowhere.
	check_off "network off, namespace" "$T/ns.out" 'tcp4|tcp6|tcp-testnet|vsock|bash-dev-tcp|curl|dns'
	grep -q '^udp4 reached' "$T/ns.out" && grep -q '^tcp-testnet refused: Network is unreachable' "$T/ns.out"
	ok $? "network off, namespace: a datagram stays in the namespace, and there is no route out"
	grep -q '^inside-loopback reached' "$T/ns.out"
	ok $? "network off, namespace: loopback inside the command's world works"
	is "$(json_field "$T/s.json" status '[e["network"], "network_not_restricted" in e["gaps"], "loopback_unavailable" in e["gaps"], "network_seccomp" in e["layers"]]')" \
		'["off", false, false, true]' "network off, namespace: status network off, layers network_namespace and network_seccomp, no network gap"
elif [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
	ok 1 "network off: a network namespace must be made here (CORDON_MUST_WORK=1): $(json_field "$T/s.json" status 'e["layers"]')"
else
	skip "network off with a network namespace: none here ($(json_field "$T/s.json" status 'e["layers"]'))"
fi

# --network off without namespaces: seccomp refuses IP sockets, Landlock
# (ABI 4) TCP; loopback inside is refused too, and said.
before=$(seen)
attack "$T/nons.out" "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --sandbox required --status-file "$T/s.json" --network off
check_off "network off, no namespace" "$T/nons.out" 'tcp4|tcp6|udp4|udp4-connected|tcp-testnet|raw-icmp|packet|vsock|bash-dev-tcp|curl|dns'
! grep -q '^inside-loopback reached' "$T/nons.out"
ok $? "network off, no namespace: loopback inside is refused too"
want_ll=false
[ "$(json_field "$T/s.json" status 'e["abi"] >= 4')" = true ] && want_ll=true
is "$(json_field "$T/s.json" status '[e["network"], "loopback_unavailable" in e["gaps"], "network_not_restricted" in e["gaps"], "network_seccomp" in e["layers"], "network_landlock" in e["layers"], "network_namespace" in e["layers"]]')" \
	"[\"off\", true, false, true, $want_ll, false]" "network off, no namespace: gap loopback_unavailable, layers network_seccomp (and network_landlock from ABI 4)"

# Neither a namespace nor seccomp: not enforceable. "required" refuses,
# "auto" runs with the gap.
rm -f "$WS/ran" "$T/s.json"
(cd "$WS" && "$DENY" nons -- "$DENY" noseccomp -- "$CORDON" run --state-dir "$STATE" --sandbox required \
	--status-file "$T/s.json" --network off -- touch ran) >"$T/out" 2>"$T/err"
rc=$?
is "$rc/$(test -e "$WS/ran" && echo ran)" "125/" "network off, neither namespace nor seccomp, required: refused (exit 125), nothing ran"
is "$(json_field "$T/s.json" status 'e["cause"]')" network_not_enforceable "... cause network_not_enforceable"
is "$(wc -l <"$T/err")" 1 "... one line on stderr: $(head -c 120 "$T/err")"
before=$(seen)
attack "$T/auto.out" "$DENY" nons -- "$DENY" noseccomp -- "$CORDON" run --state-dir "$STATE" --sandbox auto --status-file "$T/s.json" --network off
is "$(json_field "$T/s.json" status '[e["applied"], "network_not_restricted" in e["gaps"]]')" '[true, true]' \
	"network off, neither, auto: runs, gap network_not_restricted"

# A network socket the command is given (stdin, --keep-fd), made before
# the run outside its namespace and filters: "required" refuses the run,
# "auto" runs with the gap inherited_network_socket; without a namespace
# the socket supervisor refuses calls on it (it would make them outside
# Landlock's TCP rules). given.py connects to the TCP listener and runs
# the rest with the socket on fd 0 and fd 3.
cat >"$T/given.py" <<'EOF'
import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 3)
os.dup2(s.fileno(), 0)
os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.execvp(sys.argv[2], sys.argv[2:])
EOF
cat >"$T/use.py" <<'EOF'
import socket, sys
s = socket.socket(fileno=int(sys.argv[1]))
try:
    if len(sys.argv) > 2:  # drop the connection, connect again (the listener)
        import ctypes
        ctypes.CDLL(None).connect(s.fileno(), bytes(16), 16)
        s.connect(("127.0.0.1", int(sys.argv[2])))
    s.sendall(b"given socket\n")
    print("sent", s.recv(16))
except OSError as e:
    print("refused:", e.strerror)
EOF
rm -f "$T/s.json"
(cd "$WS" && "$PY" "$T/given.py" "$TCP4" "$CORDON" run --state-dir "$STATE" --sandbox required \
	--status-file "$T/s.json" --network off -- "$PY" "$T/use.py" 0) >"$T/out" 2>"$T/err"
rc=$?
is "$rc/$(json_field "$T/s.json" status 'e["cause"]')" "125/network_socket_inherited" \
	"network off, a TCP socket on stdin, required: refused (exit 125), cause network_socket_inherited"
is "$(wc -l <"$T/err")/$(cat "$T/out")" "1/" "... one line on stderr, nothing ran ($(head -c 100 "$T/err"))"
rm -f "$T/s.json"
(cd "$WS" && "$PY" "$T/given.py" "$TCP4" "$CORDON" run --state-dir "$STATE" --sandbox auto \
	--status-file "$T/s.json" --network off -- "$PY" "$T/use.py" 0) >"$T/out" 2>&1
is "$(json_field "$T/s.json" status '[e["applied"], "inherited_network_socket" in e["gaps"]]')" '[true, true]' \
	"... auto: runs with the gap inherited_network_socket"
grep -q '^sent' "$T/out"
ok $? "... and the command could send on it, as the gap says ($(head -c 60 "$T/out"))"
# (The listener logs each connection: given.py's own is one of them.)
before=$(seen)
rm -f "$T/s.json"
(cd "$WS" && "$PY" "$T/given.py" "$TCP4" "$DENY" nons -- "$CORDON" run --state-dir "$STATE" \
	--sandbox auto --keep-fd 3 --status-file "$T/s.json" --network off -- \
	"$PY" "$T/use.py" 3 "$TCP4") >"$T/out" 2>&1
sup=$(json_field "$T/s.json" status '"unix_socket_supervisor" in e["layers"]')
if [ "$sup" = true ]; then
	grep -q '^refused: Permission denied' "$T/out"
	ok $? "... no namespace, --keep-fd 3: the socket supervisor refuses connecting it again ($(head -c 60 "$T/out"))"
	sleep 0.3
	is "$(($(seen) - before))" 1 "... and the listener saw no second connection (given.py's is the one)"
else
	skip "... no namespace, --keep-fd: the socket supervisor's refusal: no supervisor here (Landlock ABI >= 9)"
	skip "... and the listener saw no second connection: no supervisor here"
fi

# The man page's DESCRIPTION says what this file shows (it said the
# network was not restricted).
if [ -f "$TOP/man/cordon.1" ]; then
	desc=$(sed -n '/^\.SH DESCRIPTION/,/^\.SH OPTIONS/p' "$TOP/man/cordon.1" | tr '\n' ' ')
	! grep -qi 'network[^.]*are not restricted\.' <<<"$desc" && grep -q 'network off' <<<"$desc" &&
		grep -q 'network allow=' <<<"$desc" && grep -q 'allow\\-socket' <<<"$desc"
	ok $? "the man page's DESCRIPTION says --network off and allow= restrict it, and Unix sockets outside are refused"
else
	skip "the man page: no docs in this copy of the tree"
fi

# Bad values.
(cd "$WS" && crun --network maybe -- true) >/dev/null 2>"$T/err"
is "$?/$(wc -l <"$T/err")" "125/1" "--network maybe: exit 125, one line ($(cat "$T/err"))"

done_testing
