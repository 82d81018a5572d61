#!/usr/bin/env bash
# --network allow=LIST: the proxy cordon serves from a listener inside the
# run's own network namespace is the only way out. Two origins of the
# test's own (HTTP on 127.0.0.1, each logging every connection it accepts
# and every request line to its own log) stand for a registry (a.test)
# and a host that is not on the list (b.test); --network-resolve maps the
# names and --network-allow-local lets the proxy reach loopback. Each way
# that must be refused is checked on the outside (the origin saw nothing
# of it), each beside a control through an allowed path that reaches.
# Only loopback addresses, and TEST-NET-1 (192.0.2.1), to which no packet
# is ever sent (the namespace has no route).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny

# ---- the origins ----
mkdir -p "$T/site-a" "$T/site-b"
cat >"$T/origin.py" <<'EOF'
import http.server, os, socket, sys, threading
top = sys.argv[1]
class Server(http.server.ThreadingHTTPServer):
    def get_request(self):
        c, a = super().get_request()
        with open(self.log, "a") as f:
            f.write("conn\n")
        return c, a
def handler(name, root, log):
    class H(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        def __init__(s, *a, **k):
            super().__init__(*a, directory=root, **k)
        def parse_request(s):
            good = super().parse_request()
            with open(log, "a") as f:
                f.write("req %s host=%s\n" % (s.requestline, s.headers.get("Host") if good else "-"))
            return good
        def do_GET(s):
            if s.path.startswith("/way-"):
                body = ("origin-%s %s\n" % (name, s.path)).encode()
                s.send_response(200)
                s.send_header("Content-Length", str(len(body)))
                s.end_headers()
                s.wfile.write(body)
                return
            if s.path.rstrip("/") == "/cordon-fixture":
                s.path = "/cordon-fixture.json"
            super().do_GET()
        def log_message(s, *a):
            pass
    return H
ports = []
for name in ("a", "b"):
    srv = Server(("127.0.0.1", 0), handler(name, os.path.join(top, "site-" + name),
                                           os.path.join(top, name + ".log")))
    srv.log = os.path.join(top, name + ".log")
    ports.append(srv.server_address[1])
    threading.Thread(target=srv.serve_forever, daemon=True).start()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
ports.append(u.getsockname()[1])
print(*ports, flush=True)
while True:
    d, _ = u.recvfrom(4096)
    with open(os.path.join(top, "u.log"), "a") as f:
        f.write("udp %r\n" % (d,))
EOF
: >"$T/a.log"
: >"$T/b.log"
: >"$T/u.log"
coproc ORIGIN { exec "$PY" "$T/origin.py" "$T"; }
trap 'kill "$ORIGIN_PID" 2>/dev/null; cleanup' EXIT
read -r PA PB PU <&"${ORIGIN[0]}"
[ "${PA:-0}" -gt 0 ] && [ "${PB:-0}" -gt 0 ] && [ "${PU:-0}" -gt 0 ]
ok $? "the test's origins run on 127.0.0.1 (a $PA, b $PB, udp $PU)"

# ---- the client: one line per way, "<way> reached <what>" or "<way> refused: <why>" ----
cat >"$T/client.py" <<'EOF'
import os, socket, struct, sys, time, urllib.request
PROXY = int(os.environ.get("HTTP_PROXY", "http://127.0.0.1:0").rsplit(":", 1)[1])
def out(way, ok, what):
    print(way, "reached" if ok else "refused:", what, flush=True)
def proxy_conn():
    s = socket.create_connection(("127.0.0.1", PROXY), 5)
    s.settimeout(5)
    return s
def read_all(s):
    b = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            b += d
    except OSError:
        pass
    return b
def origin_said(b):
    return b"origin-" in b
def connect(way, host, port, path, extra=b""):
    s = proxy_conn()
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n%s\r\n" % (host.encode(), port, host.encode(), port, extra))
    head = b""
    while b"\r\n\r\n" not in head:
        d = s.recv(1)
        if not d:
            break
        head += d
    if not head.startswith(b"HTTP/1.1 200") and not head.startswith(b"HTTP/1.0 200"):
        return out(way, False, head.split(b"\r\n")[0].decode(errors="replace") or "closed")
    s.sendall(b"GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path.encode(), host.encode()))
    b = read_all(s)
    out(way, origin_said(b), b.split(b"\r\n")[-1].decode(errors="replace").strip())
def socks(way, atyp, host, port, path):
    s = proxy_conn()
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        return out(way, False, "no method")
    if atyp == 3:
        a = bytes([len(host)]) + host.encode()
    elif atyp == 1:
        a = socket.inet_pton(socket.AF_INET, host)
    else:
        a = socket.inet_pton(socket.AF_INET6, host)
    s.sendall(b"\x05\x01\x00" + bytes([atyp]) + a + struct.pack(">H", port))
    r = s.recv(4)
    if len(r) < 2 or r[1] != 0:
        return out(way, False, "socks reply %r" % (r[:2],))
    rest = {1: 6, 4: 18}.get(r[3] if len(r) > 3 else 1, 6)
    s.recv(rest)
    s.sendall(b"GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path.encode(), host.encode()))
    b = read_all(s)
    out(way, origin_said(b), b.split(b"\r\n")[-1].decode(errors="replace").strip())
def plain(way, target, hosthdr, second=None):
    s = proxy_conn()
    conn = b"keep-alive" if second else b"close"
    s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: %s\r\n\r\n" % (target.encode(), hosthdr.encode(), conn))
    if second:
        time.sleep(0.3)
        try:
            s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (second.encode(), hosthdr.encode()))
        except OSError:
            pass
    b = read_all(s)
    out(way, origin_said(b), b.split(b"\r\n")[0].decode(errors="replace") + " | " + b.split(b"\r\n")[-1].decode(errors="replace").strip())
def direct(way, port):
    try:
        s = socket.create_connection(("127.0.0.1", port), 3)
        s.sendall(b"GET /way-direct HTTP/1.0\r\n\r\n")
        out(way, origin_said(read_all(s)), "connected")
    except OSError as e:
        out(way, False, e.strerror or str(e))
def udp(way, port):
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"confined-datagram", ("127.0.0.1", port))
        out(way, True, "sent (into the namespace's own loopback)")
    except OSError as e:
        out(way, False, e.strerror or str(e))
def dns(way):
    t0 = time.monotonic()
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"\0" * 12, ("192.0.2.1", 53))
        out(way + "-resolver", True, "sent")
    except OSError as e:
        out(way + "-resolver", False, "%s in %.1fs" % (e.strerror, time.monotonic() - t0))
    t0 = time.monotonic()
    try:
        socket.getaddrinfo("a.test", 443)
        out(way + "-lookup", True, "resolved")
    except OSError as e:
        out(way + "-lookup", False, "%s in %.1fs" % (e, time.monotonic() - t0))
def urllib_get(way, url):
    try:
        b = urllib.request.urlopen(url, timeout=5).read()
        out(way, origin_said(b), b.decode(errors="replace").strip())
    except Exception as e:
        out(way, False, str(e))
ways = sys.argv[1:]
for w in ways:
    name, _, arg = w.partition("=")
    a = arg.split(",") if arg else []
    try:
        if name.startswith("connect"):
            connect(name, a[0], int(a[1]), a[2], b"".join(x.encode() + b"\r\n" for x in a[3:]))
        elif name.startswith("bighead"):
            connect(name, a[0], int(a[1]), a[2], b"X-Big: " + b"x" * 70000 + b"\r\n")
        elif name.startswith("socks"):
            socks(name, int(a[0]), a[1], int(a[2]), a[3])
        elif name.startswith("plain"):
            plain(name, a[0], a[1], a[2] if len(a) > 2 else None)
        elif name.startswith("direct"):
            direct(name, int(a[0]))
        elif name.startswith("udp"):
            udp(name, int(a[0]))
        elif name == "dns":
            dns(name)
        elif name.startswith("urllib"):
            urllib_get(name, a[0])
    except OSError as e:
        out(name, False, e.strerror or str(e))
EOF

conns() { grep -c '^conn' "$T/$1.log"; }
reqs() { grep -c "^req .*$2" "$T/$1.log"; }
# The network_connect events of the last run: "decision reason host:port" a line.
events() {
	"$PY" - "$T/s.json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "network_connect":
        print(e["decision"], json.dumps(e["reason"]).strip('"'), "%s:%s" % (e["host"], e["port"]), e["proto"])
PY
}
ALLOW=(--network "allow=a.test:$PA" --network-resolve a.test=127.0.0.1
	--network-resolve b.test=127.0.0.1 --network-allow-local)
allowed() { # allowed FILE WAY: the way reached the origin through the proxy
	grep -q "^$2 reached origin-" "$1"
}
refused() { # refused FILE WAY
	grep -q "^$2 refused:" "$1"
}
say() { grep -E "^$2 " "$1" | head -c 160; }
run() { # run OUT ARGS...: cordon, in the workspace, its output in OUT
	local out=$1
	shift
	rm -f "$T/s.json"
	(cd "$WS" && crun --status-file "$T/s.json" "$@") >"$out" 2>&1
}

# ---- is the proxy the run's way out here? ----
run "$T/probe.out" --sandbox auto "${ALLOW[@]}" -- true
if [ "$(json_field "$T/s.json" status '"network_proxy" in e["layers"]' 2>/dev/null)" != true ]; then
	if [ "$(json_field "$T/s.json" status '"network_allowlist_not_enforced" in e["gaps"]' 2>/dev/null)" != true ]; then
		ok 1 "network allow: a run with the proxy, or the gap saying why not ($(head -c 200 "$T/probe.out"))"
	elif [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
		ok 1 "network allow: a network namespace must be made here (CORDON_MUST_WORK=1): $(json_field "$T/s.json" status 'e["layers"]')"
	else
		skip "network allow through the proxy: no network namespace here ($(json_field "$T/s.json" status 'e["gaps"]'))"
	fi
	NOPROXY=1
else
	NOPROXY=0
fi

if [ "$NOPROXY" = 0 ]; then
	is "$(json_field "$T/s.json" status '[e["network"], e["network_allow"], e["network_allow_local"], e["network_proxy"].startswith("127.0.0.1:"), [l for l in e["layers"] if l.startswith("network_")]]')" \
		"[\"allow\", [\"a.test:$PA\"], true, true, [\"network_namespace\", \"network_seccomp\", \"network_proxy\"]]" \
		"start event: network allow, the list, allow_local, the proxy's address, layers network_namespace, network_seccomp, network_proxy"

	# -- CONNECT and SOCKS5, and what tries to get past them --
	a0=$(conns a)
	run "$T/r1.out" --sandbox required "${ALLOW[@]}" -- "$PY" "$T/client.py" \
		"connect-a=a.test,$PA,/way-connect-a" \
		"connect-b=b.test,$PB,/way-connect-b" \
		"connect-port=a.test,$PB,/way-connect-port" \
		"connect-ip=127.0.0.1,$PA,/way-connect-ip" \
		"connect-ip6=[::1],$PA,/way-connect-ip6" \
		"connect-hostmismatch=a.test,$PA,/way-connect-hm,Host: b.test:$PB" \
		"socks-a=3,a.test,$PA,/way-socks-a" \
		"socks-b=3,b.test,$PB,/way-socks-b" \
		"socks-ip=1,127.0.0.1,$PA,/way-socks-ip" \
		"socks-ip6=4,::1,$PA,/way-socks-ip6" \
		"plain-nohttp=http://a.test:$PA/way-plain-nohttp,a.test:$PA" \
		"bighead=a.test,$PA,/way-bighead"
	sleep 0.3
	allowed "$T/r1.out" connect-a
	ok $? "control: CONNECT a.test:$PA reaches origin a ($(say "$T/r1.out" connect-a))"
	allowed "$T/r1.out" socks-a
	ok $? "control: SOCKS5 with the name a.test reaches origin a ($(say "$T/r1.out" socks-a))"
	for w in connect-b connect-port connect-ip connect-ip6 connect-hostmismatch socks-b socks-ip socks-ip6 plain-nohttp bighead; do
		refused "$T/r1.out" "$w"
		ok $? "$w: refused ($(say "$T/r1.out" "$w"))"
	done
	is "$(conns b)" 0 "origin b saw no connection at all"
	is "$(($(conns a) - a0))" 2 "origin a saw exactly the two allowed connections (CONNECT, SOCKS5)"
	for p in connect-port connect-ip connect-ip6 connect-hm socks-ip socks-ip6 plain-nohttp bighead; do
		is "$(reqs a "/way-${p}")" 0 "origin a saw nothing of $p"
	done
	ev=$(events)
	for want in "allowed null a.test:$PA connect" "allowed null a.test:$PA socks5" \
		"refused not_allowed b.test:$PB connect" "refused port a.test:$PB connect" \
		"refused not_allowed 127.0.0.1:$PA connect" "refused not_allowed ::1:$PA connect" \
		"refused bad_request a.test:$PA connect" \
		"refused not_allowed b.test:$PB socks5" "refused not_allowed 127.0.0.1:$PA socks5" \
		"refused plain_http a.test:$PA http" "refused head_too_large :0 http"; do
		grep -qxF "$want" <<<"$ev"
		ok $? "event: $want"
	done
	is "$(grep -c '^allowed' <<<"$ev")/$(json_field "$T/s.json" exit 'e["network_connections"]["allowed"]')" \
		"2/2" "two allowed events, and the exit event counts two"
	is "$(json_field "$T/s.json" exit 'e["network_connections"]["refused"]')" "$(grep -c '^refused' <<<"$ev")" \
		"the exit event counts every refused event"
	is "$(grep -c '^refused' <<<"$ev")" 10 "ten refused connections, one event each"
	diag "events: $(tr '\n' ';' <<<"$ev")"

	# -- plain HTTP, with its header tricks --
	a0=$(conns a)
	run "$T/r2.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- "$PY" "$T/client.py" \
		"plain-a=http://a.test:$PA/way-plain-a,a.test:$PA" \
		"plain-absolute-b=http://b.test:$PB/way-abs-b,a.test:$PA" \
		"plain-hostmismatch=http://a.test:$PA/way-plain-hm,b.test:$PB" \
		"plain-originform=/way-origin-form,b.test:$PB" \
		"plain-keepalive=http://a.test:$PA/way-ka1,a.test:$PA,http://b.test:$PB/way-ka2" \
		"urllib-a=http://a.test:$PA/way-urllib-a" \
		"urllib-b=http://b.test:$PB/way-urllib-b"
	sleep 0.3
	grep -q "^plain-a reached .*origin-a /way-plain-a" "$T/r2.out"
	ok $? "control: plain HTTP GET http://a.test reaches origin a with --network-allow-http ($(say "$T/r2.out" plain-a))"
	allowed "$T/r2.out" urllib-a
	ok $? "control: Python urllib (HTTP_PROXY) reaches a.test ($(say "$T/r2.out" urllib-a))"
	for w in plain-absolute-b plain-originform urllib-b; do
		refused "$T/r2.out" "$w"
		ok $? "$w: refused ($(say "$T/r2.out" "$w"))"
	done
	is "$(conns b)" 0 "origin b saw nothing: absolute URI to b.test, Host header naming b.test, a second request on a kept-alive connection"
	is "$(reqs a way-ka2)/$(reqs a way-origin-form)/$(reqs a 'way-plain-hm.*host=b.test')" "0/0/0" \
		"origin a never got the second request, the origin-form one, or a Host of b.test"

	# -- what ignores the proxy gets nowhere --
	a0=$(conns a)
	u0=$(wc -l <"$T/u.log")
	cat >"$T/direct.sh" <<EOF
"$PY" "$T/client.py" "direct-tcp=$PA" "udp=$PU" dns
if command -v curl >/dev/null 2>&1; then
	if curl -sS -m 3 --noproxy '*' "http://127.0.0.1:$PA/way-noproxy"; then echo "curl-noproxy reached origin-"; else echo "curl-noproxy refused: exit \$?"; fi
	if curl -sS -m 3 --noproxy '*' "http://a.test:$PA/way-noproxy-name"; then echo "curl-noproxy-name reached origin-"; else echo "curl-noproxy-name refused: exit \$?"; fi
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$PA") 2>/dev/null; then echo "bash-dev-tcp reached origin-"; else echo "bash-dev-tcp refused: no"; fi
EOF
	run "$T/r3.out" --sandbox required "${ALLOW[@]}" -- bash "$T/direct.sh"
	sleep 0.3
	for w in direct-tcp dns-resolver dns-lookup bash-dev-tcp; do
		refused "$T/r3.out" "$w"
		ok $? "$w: refused ($(say "$T/r3.out" "$w"))"
	done
	secs=$(sed -n 's/^dns-lookup refused: .* in \([0-9.]*\)s$/\1/p' "$T/r3.out")
	[ -n "$secs" ] && "$PY" -c "import sys; sys.exit(0 if float('$secs') < 3 else 1)"
	ok $? "a name lookup fails at once (${secs:-?}s): names resolve only through the proxy"
	if command -v curl >/dev/null; then
		refused "$T/r3.out" curl-noproxy && refused "$T/r3.out" curl-noproxy-name
		ok $? "curl --noproxy '*' to the origin's address and to a.test: refused ($(say "$T/r3.out" curl-noproxy))"
	else
		skip "curl --noproxy: curl is not installed"
	fi
	is "$(($(conns a) - a0))/$(($(wc -l <"$T/u.log") - u0))" "0/0" \
		"origin a saw no connection, the UDP listener no datagram"
	is "$(events | wc -l)" 0 "nothing went through the proxy: no network_connect event"

	# -- a name that resolves to loopback, without --network-allow-local --
	a0=$(conns a)
	run "$T/r4.out" --sandbox required --network "allow=a.test:$PA" --network-resolve a.test=127.0.0.1 \
		-- "$PY" "$T/client.py" "connect-local=a.test,$PA,/way-local"
	refused "$T/r4.out" connect-local && [ "$(conns a)" = "$a0" ]
	ok $? "a.test resolving to 127.0.0.1 without --network-allow-local: refused, origin a saw nothing ($(say "$T/r4.out" connect-local))"
	is "$(events)" "refused local_address a.test:$PA connect" "... event: refused, local_address"

	# -- the tools --
	# curl: CONNECT (-p) and plain HTTP (its http_proxy)
	if tool_ok curl; then
		a0=$(conns a)
		run "$T/curl.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- sh -c \
			"curl -sS -m 5 -p http://a.test:$PA/way-curl-connect; curl -sS -m 5 http://a.test:$PA/way-curl-plain; curl -sS -m 5 -p http://b.test:$PB/way-curl-b || echo curl-b-refused"
		grep -q "origin-a /way-curl-connect" "$T/curl.out" && grep -q "origin-a /way-curl-plain" "$T/curl.out" &&
			grep -q curl-b-refused "$T/curl.out" && [ "$(conns b)" = 0 ]
		ok $? "curl: a.test through the proxy (CONNECT and plain), b.test refused, origin b saw nothing"
	else
		skip "curl: $TOOL_WHY"
	fi
	# git over http (dumb protocol, served by origin a)
	if tool_ok git; then
		git init -q --bare "$T/site-a/repo.git" && git -C "$T/site-a/repo.git" update-server-info
		git init -q "$T/src" && git -C "$T/src" commit -q --allow-empty -m one &&
			git -C "$T/src" push -q "$T/site-a/repo.git" HEAD:refs/heads/main 2>/dev/null &&
			git -C "$T/site-a/repo.git" update-server-info
		run "$T/git.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- sh -c \
			"git ls-remote http://a.test:$PA/repo.git; git ls-remote http://b.test:$PB/repo.git || echo git-b-refused"
		grep -q "refs/heads/main" "$T/git.out" && grep -q git-b-refused "$T/git.out" && [ "$(conns b)" = 0 ]
		ok $? "git ls-remote over http: a.test through the proxy, b.test refused ($(grep -c refs "$T/git.out") refs)"
	else
		skip "git: $TOOL_WHY"
	fi
	# node: fetch honours the proxy variables only with NODE_USE_ENV_PROXY
	# (Node 24+); an older one ignores them and must fail, not get out.
	if tool_ok node; then
		major=$(node -p 'process.versions.node.split(".")[0]')
		a0=$(conns a)
		run "$T/node.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- node -e \
			"fetch('http://a.test:$PA/way-node').then(r => r.text()).then(t => console.log('node reached', t.trim()), e => console.log('node refused:', e.cause ? e.cause.code : e.message))"
		if [ "$major" -ge 24 ]; then
			grep -q "node reached origin-a" "$T/node.out"
			ok $? "node $major fetch: reaches a.test through the proxy ($(head -c 100 "$T/node.out"))"
		else
			grep -q "node refused" "$T/node.out" && [ "$(conns a)" = "$a0" ]
			ok $? "node $major fetch (ignores the proxy variables): fails to connect, origin a saw nothing ($(head -c 100 "$T/node.out"))"
		fi
	else
		skip "node: $TOOL_WHY"
	fi
	# npm ci against a registry of the test's own (origin a)
	if tool_ok npm; then
		mkdir -p "$T/pkg" && printf '{"name":"cordon-fixture","version":"1.0.0","main":"index.js"}\n' >"$T/pkg/package.json" &&
			echo 'module.exports = "cordon-fixture";' >"$T/pkg/index.js"
		mkdir -p "$T/site-a/cordon-fixture/-"
		# (its own cache: the run's must not hold the tarball already)
		(cd "$T/pkg" && npm_config_cache=$T/pack-cache npm pack --silent \
			--pack-destination "$T/site-a/cordon-fixture/-" >/dev/null 2>&1)
		tgz=$T/site-a/cordon-fixture/-/cordon-fixture-1.0.0.tgz
		if [ -s "$tgz" ]; then
			integ=sha512-$("$PY" -c 'import base64,hashlib,sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1],"rb").read()).digest()).decode())' "$tgz")
			url=http://a.test:$PA/cordon-fixture/-/cordon-fixture-1.0.0.tgz
			printf '{"name":"cordon-fixture","versions":{"1.0.0":{"name":"cordon-fixture","version":"1.0.0","dist":{"tarball":"%s","integrity":"%s"}}},"dist-tags":{"latest":"1.0.0"}}\n' "$url" "$integ" >"$T/site-a/cordon-fixture.json"
			printf '{"name":"ws","version":"1.0.0","dependencies":{"cordon-fixture":"1.0.0"}}\n' >"$WS/package.json"
			printf '{"name":"ws","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{"":{"name":"ws","version":"1.0.0","dependencies":{"cordon-fixture":"1.0.0"}},"node_modules/cordon-fixture":{"version":"1.0.0","resolved":"%s","integrity":"%s"}}}\n' "$url" "$integ" >"$WS/package-lock.json"
			run "$T/npm.out" --sandbox required "${ALLOW[@]}" --network-allow-http \
				--env "npm_config_registry=http://a.test:$PA/" -- \
				npm ci --no-audit --no-fund --ignore-scripts --fetch-retries=0
			rc=$?
			is "$rc/$(cat "$WS/node_modules/cordon-fixture/index.js" 2>/dev/null)" \
				'0/module.exports = "cordon-fixture";' "npm ci through the proxy, confined: the package from the test's registry is installed"
			[ "$(reqs a 'cordon-fixture-1.0.0.tgz')" -ge 1 ] && [ "$(events | grep -c '^allowed')" -ge 1 ]
			ok $? "... origin a served the tarball, through the proxy ($(events | grep -c '^allowed') allowed connections)"
			[ "$rc" = 0 ] || diag "$(tail -5 "$T/npm.out")"
			rm -rf "$WS/node_modules" "$WS/package.json" "$WS/package-lock.json"
		else
			skip "npm ci: npm pack made no tarball here"
		fi
	else
		skip "npm ci: $TOOL_WHY"
	fi

	# pip download from a simple index of the test's own (origin a),
	# through PIP_PROXY: a wheel made here
	if "$PY" -m pip --version >/dev/null 2>&1; then
		mkdir -p "$T/site-a/simple/cordon-fixture" "$T/site-a/files"
		whl=$T/site-a/files/cordon_fixture-1.0-py3-none-any.whl
		"$PY" - "$whl" <<'PY'
import base64, hashlib, sys, zipfile
files = {"cordon_fixture/__init__.py": b"NAME = 'cordon-fixture'\n",
         "cordon_fixture-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: cordon-fixture\nVersion: 1.0\n",
         "cordon_fixture-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t0185\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)) for n, d in files.items())
rec += "cordon_fixture-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr("cordon_fixture-1.0.dist-info/RECORD", rec)
PY
		sha=$(sha256sum "$whl" | cut -d' ' -f1)
		printf '<html><body><a href="../../files/cordon_fixture-1.0-py3-none-any.whl#sha256=%s">cordon_fixture-1.0-py3-none-any.whl</a></body></html>\n' "$sha" \
			>"$T/site-a/simple/cordon-fixture/index.html"
		run "$T/pip.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- "$PY" -m pip download \
			--no-deps --disable-pip-version-check --retries 0 --timeout 5 --trusted-host a.test \
			--index-url "http://a.test:$PA/simple/" -d "$WS/dl" cordon-fixture==1.0
		[ -s "$WS/dl/cordon_fixture-1.0-py3-none-any.whl" ] && [ "$(reqs a cordon_fixture-1.0)" -ge 1 ]
		ok $? "pip download through PIP_PROXY from the test's index: the wheel is fetched via the proxy"
		[ -s "$WS/dl/cordon_fixture-1.0-py3-none-any.whl" ] || diag "$(tail -3 "$T/pip.out")"
		rm -rf "$WS/dl"
	else
		skip "pip: $PY -m pip is not installed"
	fi

	# -- more tools, each from a registry of the test's own on origin a (plain
	# HTTP, --network-allow-http), then the same without the proxy
	# variables (NOPX), which must not reach the origin: no route, no name.
	NOPX=(env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy
		-u npm_config_proxy -u npm_config_https_proxy -u YARN_HTTP_PROXY -u YARN_HTTPS_PROXY -u PIP_PROXY)
	# fetched TOOL PATTERN A0 OUT: origin a got PATTERN since A0 requests,
	# through the proxy (an allowed event for a.test)
	fetched() {
		[ "$(($(reqs a "$2") - $3))" -ge 1 ] && [ "$(events | grep -c "^allowed null a.test:$PA http")" -ge 1 ]
	}
	# go mod download from a GOPROXY of the test's own (its HTTP_PROXY)
	if tool_ok go; then
		mkdir -p "$T/site-a/example.test/cfix/@v"
		"$PY" - "$T/site-a/example.test/cfix/@v" <<'PY'
import sys, zipfile
d = sys.argv[1]
mod = b"module example.test/cfix\n\ngo 1.18\n"
open(d + "/v1.0.0.mod", "wb").write(mod)
open(d + "/v1.0.0.info", "w").write('{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}\n')
open(d + "/list", "w").write("v1.0.0\n")
with zipfile.ZipFile(d + "/v1.0.0.zip", "w") as z:
    z.writestr("example.test/cfix@v1.0.0/go.mod", mod)
    z.writestr("example.test/cfix@v1.0.0/cfix.go", "package cfix\n\nconst Name = \"cordon-fixture\"\n")
PY
		goenv=(--env "GOPROXY=http://a.test:$PA/" --env GOSUMDB=off --env GOFLAGS=-modcacherw
			--env "GOPATH=$WS/gopath" --env "GOCACHE=$WS/gocache" --env GOTOOLCHAIN=local)
		r0=$(reqs a 'cfix/@v/v1.0.0.zip')
		run "$T/go.out" --sandbox required "${ALLOW[@]}" --network-allow-http "${goenv[@]}" -- \
			go mod download -x -json example.test/cfix@v1.0.0
		rc=$?
		is "$rc/$(tail -n 1 "$WS/gopath/pkg/mod/example.test/cfix@v1.0.0/cfix.go" 2>/dev/null)" \
			'0/const Name = "cordon-fixture"' "go mod download through the proxy (HTTP_PROXY), confined: the module from the test's GOPROXY is in the cache"
		fetched go 'cfix/@v/v1.0.0.zip' "$r0"
		ok $? "... origin a served the module's zip, through the proxy ($(events | grep -c '^allowed') allowed connections)"
		[ "$rc" = 0 ] || diag "$(tail -3 "$T/go.out")"
		rm -rf "$WS/gopath" "$WS/gocache"
		a0=$(conns a)
		run "$T/go-nopx.out" --sandbox required "${ALLOW[@]}" --network-allow-http "${goenv[@]}" -- \
			"${NOPX[@]}" go mod download -json example.test/cfix@v1.0.0
		is "$?/$(($(conns a) - a0))/$(events | wc -l)" "1/0/0" \
			"go without the proxy variables: fails, origin a saw nothing, nothing went through the proxy ($(grep -o '"Error": "[^"]*' "$T/go-nopx.out" | head -c 120))"
		rm -rf "$WS/gopath" "$WS/gocache"
	else
		skip "go: $TOOL_WHY"
	fi

	# Python requests (HTTP_PROXY)
	if "$PY" -c 'import requests' 2>/dev/null; then
		rq="import requests
try:
    print('requests reached', requests.get('http://a.test:$PA/way-requests', timeout=5).text.strip())
except Exception as e:
    print('requests refused:', type(e).__name__)"
		r0=$(reqs a way-requests)
		run "$T/rq.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- "$PY" -c "$rq"
		grep -q "^requests reached origin-a /way-requests" "$T/rq.out" && fetched requests way-requests "$r0"
		ok $? "Python requests $("$PY" -c 'import requests; print(requests.__version__)'): a.test through the proxy (HTTP_PROXY) ($(head -c 80 "$T/rq.out"))"
		a0=$(conns a)
		run "$T/rq-nopx.out" --sandbox required "${ALLOW[@]}" --network-allow-http -- "${NOPX[@]}" "$PY" -c "$rq"
		grep -q "^requests refused:" "$T/rq-nopx.out" && [ "$(conns a)" = "$a0" ] && [ "$(events | wc -l)" = 0 ]
		ok $? "Python requests without the proxy variables: fails, origin a saw nothing ($(head -c 80 "$T/rq-nopx.out"))"
	else
		skip "Python requests: $PY has no requests module (python3-requests)"
	fi

	# yarn classic (it reads HTTP_PROXY or http_proxy; npm_config_proxy or
	# YARN_HTTP_PROXY alone does not reach) from the npm registry above
	tgz=$T/site-a/cordon-fixture/-/cordon-fixture-1.0.0.tgz
	if ! tool_ok yarn; then
		skip "yarn: $TOOL_WHY"
	elif [ "$(yarn --version 2>/dev/null | cut -d. -f1)" != 1 ]; then
		skip "yarn: $(yarn --version 2>/dev/null) is Berry; only yarn classic (1.x) is measured here"
	elif [ ! -s "$tgz" ]; then
		skip "yarn: no registry here (npm pack made no tarball, or npm is missing)"
	else
		yv=$(yarn --version 2>/dev/null)
		mkdir -p "$WS/y"
		printf '{"name":"ws","version":"1.0.0","dependencies":{"cordon-fixture":"1.0.0"}}\n' >"$WS/y/package.json"
		printf 'registry "http://a.test:%s/"\n' "$PA" >"$WS/y/.yarnrc"
		r0=$(reqs a 'cordon-fixture-1.0.0.tgz')
		run "$T/yarn.out" --sandbox required "${ALLOW[@]}" --network-allow-http --env "YARN_CACHE_FOLDER=$WS/ycache" \
			-- sh -c "cd y && exec yarn install --non-interactive --no-progress --network-timeout 5000"
		rc=$?
		is "$rc/$(cat "$WS/y/node_modules/cordon-fixture/index.js" 2>/dev/null)" \
			'0/module.exports = "cordon-fixture";' "yarn $yv install through the proxy, confined: the package from the test's registry is installed"
		fetched yarn 'cordon-fixture-1.0.0.tgz' "$r0"
		ok $? "... origin a served the tarball, through the proxy ($(events | grep -c '^allowed') allowed connections)"
		[ "$rc" = 0 ] || diag "$(tail -3 "$T/yarn.out")"
		rm -rf "$WS/y/node_modules" "$WS/y/yarn.lock" "$WS/ycache"
		a0=$(conns a)
		run "$T/yarn-nopx.out" --sandbox required "${ALLOW[@]}" --network-allow-http --env "YARN_CACHE_FOLDER=$WS/ycache" \
			-- sh -c "cd y && exec ${NOPX[*]} yarn install --non-interactive --no-progress --network-timeout 5000"
		rc=$?
		is "$([ "$rc" != 0 ] && echo failed)/$(($(conns a) - a0))/$(events | wc -l)" "failed/0/0" \
			"yarn without the proxy variables: fails, origin a saw nothing ($(grep -m1 -o 'error.*' "$T/yarn-nopx.out" | head -c 100))"
		rm -rf "$WS/y" "$WS/ycache"
	fi

	# cargo fetch from a sparse registry of the test's own (its http_proxy)
	if tool_ok cargo; then
		cargo_ver=$(cargo --version 2>/dev/null | cut -d' ' -f2)
		mkdir -p "$T/site-a/index/co/rd" "$T/site-a/dl" "$WS/c/src" "$WS/c/.cargo"
		"$PY" - "$T/site-a" "$PA" <<'PY'
import hashlib, io, json, sys, tarfile
top, port = sys.argv[1], sys.argv[2]
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for n, d in (("Cargo.toml", b'[package]\nname = "cordonfix"\nversion = "1.0.0"\nedition = "2021"\n'),
                 ("src/lib.rs", b'pub const NAME: &str = "cordon-fixture";\n')):
        i = tarfile.TarInfo("cordonfix-1.0.0/" + n)
        i.size = len(d)
        t.addfile(i, io.BytesIO(d))
crate = buf.getvalue()
open(top + "/dl/cordonfix-1.0.0.crate", "wb").write(crate)
open(top + "/index/config.json", "w").write(json.dumps({"dl": "http://a.test:%s/dl/{crate}-{version}.crate" % port}))
open(top + "/index/co/rd/cordonfix", "w").write(json.dumps({"name": "cordonfix", "vers": "1.0.0", "deps": [],
    "cksum": hashlib.sha256(crate).hexdigest(), "features": {}, "yanked": False}) + "\n")
PY
		printf '[package]\nname = "ws"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ncordonfix = { version = "1.0.0", registry = "t" }\n' >"$WS/c/Cargo.toml"
		: >"$WS/c/src/lib.rs"
		printf '[registries.t]\nindex = "sparse+http://a.test:%s/index/"\n[net]\nretry = 0\n' "$PA" >"$WS/c/.cargo/config.toml"
		r0=$(reqs a 'cordonfix-1.0.0.crate')
		run "$T/cargo.out" --sandbox required "${ALLOW[@]}" --network-allow-http --env "CARGO_HOME=$WS/cargo-home" \
			-- sh -c "cd c && exec cargo fetch"
		rc=$?
		is "$rc/$(cat "$WS"/cargo-home/registry/src/*/cordonfix-1.0.0/src/lib.rs 2>/dev/null)" \
			'0/pub const NAME: &str = "cordon-fixture";' "cargo $cargo_ver fetch through the proxy (http_proxy), confined: the crate from the test's sparse registry is unpacked"
		fetched cargo 'cordonfix-1.0.0.crate' "$r0"
		ok $? "... origin a served the crate, through the proxy ($(events | grep -c '^allowed') allowed connections)"
		[ "$rc" = 0 ] || diag "$(tail -3 "$T/cargo.out")"
		rm -rf "$WS/cargo-home" "$WS/c/Cargo.lock"
		a0=$(conns a)
		run "$T/cargo-nopx.out" --sandbox required "${ALLOW[@]}" --network-allow-http --env "CARGO_HOME=$WS/cargo-home" \
			-- sh -c "cd c && exec ${NOPX[*]} cargo fetch"
		rc=$?
		is "$([ "$rc" != 0 ] && echo failed)/$(($(conns a) - a0))/$(events | wc -l)" "failed/0/0" \
			"cargo without the proxy variables: fails, origin a saw nothing ($(grep -m1 -o 'error.*' "$T/cargo-nopx.out" | head -c 100))"
		rm -rf "$WS/c" "$WS/cargo-home"
	else
		skip "cargo: $TOOL_WHY"
	fi

	# -- the first spawn as the trial (its start event comes once the
	# command has exec'd): the run's first line is still its start event
	rm -f "$T/s.json"
	(cd "$WS" && "$HELPERS/cordon-first-child" run --state-dir "$STATE" --sandbox required \
		--status-file "$T/s.json" "${ALLOW[@]}" -- "$PY" "$T/client.py" \
		"connect-a=a.test,$PA,/way-first-child") >"$T/fc.out" 2>&1
	is "$(sed -n 's/^{"event":"\([a-z_]*\)".*/\1/p' "$T/s.json" | tr '\n' ' ')" \
		"bash_sandbox_status network_connect bash_sandbox_exit " \
		"first spawn as the trial: start event, the connection's event, exit event, in that order ($(say "$T/fc.out" connect-a))"

	# -- --explain names the refused destinations and the flag --
	run "$T/explain.out" --sandbox required "${ALLOW[@]}" --explain -- sh -c \
		"\"$PY\" \"$T/client.py\" connect-b=b.test,$PB,/way-x; exit 3"
	grep -q "it refused b.test:$PB .*--network allow=" "$T/explain.out"
	ok $? "--explain: names b.test:$PB and --network allow= ($(grep -o 'it refused[^;]*' "$T/explain.out" | head -c 140))"
	grep -q "; cordon saw a refusal: the proxy refused 1 of the run's connection; " "$T/explain.out"
	ok $? "... the whole text with the short --explain: cordon saw the refusal"

	# -- the command decides how many connections, not how many lines:
	# 1,500 refused connects write the first 1,000 events, one
	# network_connect_suppressed line, then none; the exit event counts
	# them all and the events not written --
	cat >"$T/flood.py" <<'EOF'
import os, socket, sys
proxy = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
refused = 0
for i in range(int(sys.argv[2])):
    s = socket.create_connection(("127.0.0.1", proxy), 5)
    s.sendall(b"CONNECT %s HTTP/1.1\r\n\r\n" % sys.argv[1].encode())
    if not s.recv(64).startswith(b"HTTP/1.1 200"):
        refused += 1
    s.close()
print("flood refused", refused)
EOF
	b0=$(conns b)
	run "$T/flood.out" --sandbox required "${ALLOW[@]}" --explain -- sh -c \
		"\"$PY\" \"$T/flood.py\" b.test:$PB 1500; exit 3"
	is "$(grep -o '^flood refused [0-9]*' "$T/flood.out")/$(($(conns b) - b0))" "flood refused 1500/0" \
		"1,500 connects to b.test:$PB, each refused, origin b saw nothing"
	nl=$(grep -c '"event":"network_connect"' "$T/s.json")
	is "$nl" 1000 "... 1,000 network_connect lines, no more ($(wc -c <"$T/s.json") bytes in all)"
	is "$(json_field "$T/s.json" exit 'e["network_connections"]')" \
		'{"allowed": 0, "refused": 1500, "events_dropped": 500}' \
		"... the exit event counts all 1,500 and the 500 events not written"
	is "$(($(json_field "$T/s.json" exit 'e["network_connections"].get("events_dropped", 0)') + nl))" 1500 \
		"... written + dropped = every connection"
	is "$(sed -n 's/^{"event":"\([a-z_]*\)".*/\1/p' "$T/s.json" | uniq -c | awk '{print $1, $2}' | tr '\n' ' ')" \
		"1 bash_sandbox_status 1000 network_connect 1 network_connect_suppressed 1 bash_sandbox_exit " \
		"... in order: start, 1,000 events, one network_connect_suppressed, exit"
	is "$(grep '"event":"network_connect_suppressed"' "$T/s.json" | grep -o '"events_written":[0-9]*')" \
		'"events_written":1000' "... network_connect_suppressed says how many were written"
	grep -q "it refused b.test:$PB " "$T/flood.out"
	ok $? "... --explain still names b.test:$PB ($(grep -o 'it refused[^;]*' "$T/flood.out" | head -c 80))"
fi

# ---- the resolver's search list ----
# A name on the list that does not resolve must not be tried as
# NAME.SEARCH-DOMAIN (not on the list). In a network and mount namespace
# of the test's own: a resolv.conf with a search domain bound over the
# machine's, a resolver of the test's own on 127.0.0.1:53 that answers
# only names under that domain, and an origin there.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null; then
	cat >"$T/dns.py" <<'EOF'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
while True:
    d, a = s.recvfrom(4096)
    o, labels = 12, []
    while d[o]:
        labels.append(d[o + 1:o + 1 + d[o]].decode("ascii", "replace"))
        o += 1 + d[o]
    name, qtype = ".".join(labels).lower(), struct.unpack(">H", d[o + 1:o + 3])[0]
    with open(sys.argv[1], "a") as f:
        f.write(name + "\n")
    ok = name.endswith(".search.test") and qtype == 1
    ans = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 0, 4) + bytes([127, 0, 0, 1]) if ok else b""
    flags = 0x8180 | (0 if name.endswith(".search.test") else 3)
    s.sendto(d[:2] + struct.pack(">HHHHH", flags, 1, 1 if ok else 0, 0, 0) + d[12:o + 5] + ans, a)
EOF
	cat >"$T/search.sh" <<EOF
ip link set lo up || exit 3
printf 'nameserver 127.0.0.1\nsearch search.test\n' >"$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf || exit 3
"$PY" "$T/dns.py" "$T/dns.log" & D=\$!
"$PY" -c 'import socket,sys
s=socket.socket(); s.bind(("127.0.0.1",18185)); s.listen(8)
while True:
    c,_=s.accept(); open(sys.argv[1],"a").write("conn\n"); c.close()' "$T/search-origin.log" & O=\$!
sleep 1
"$PY" -c 'import socket; print("plain", socket.getaddrinfo("nx.a.test", 80)[0][4][0])'
: >"$T/dns.log"
cd "$WS" && "$CORDON" run --state-dir "$STATE" --sandbox required --network allow=nx.a.test:18185 \
	--network-allow-local -- "$PY" "$T/client.py" connect=nx.a.test,18185,/way-search
kill \$D \$O
EOF
	: >"$T/dns.log"
	: >"$T/search-origin.log"
	unshare -n -m --propagation private bash "$T/search.sh" >"$T/search.out" 2>&1
	if grep -q '^plain 127.0.0.1' "$T/search.out"; then
		refused "$T/search.out" connect && [ ! -s "$T/search-origin.log" ] &&
			! grep -q 'search\.test' "$T/dns.log" && grep -q '^nx\.a\.test$' "$T/dns.log"
		ok $? "a listed name that does not resolve is not tried with the search list's domain: refused, the origin saw nothing, the resolver was asked $(sort -u "$T/dns.log" | tr '\n' ' ')($(say "$T/search.out" connect))"
	else
		skip "the resolver's search list: the control failed (getaddrinfo did not use the search list here: $(head -c 120 "$T/search.out"))"
	fi
else
	skip "the resolver's search list: needs root (a network and mount namespace with a resolv.conf of the test's own)"
fi

# ---- without a network namespace ----
rm -f "$T/s.json" "$WS/ran"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --sandbox required \
	--status-file "$T/s.json" "${ALLOW[@]}" -- touch ran) >"$T/out" 2>"$T/err"
rc=$?
is "$rc/$(test -e "$WS/ran" && echo ran)/$(json_field "$T/s.json" status 'e["cause"]')" \
	"125//network_allowlist_not_enforceable" \
	"no network namespace, required: refused (exit 125, cause network_allowlist_not_enforceable), nothing ran"
is "$(wc -l <"$T/err")" 1 "... one line on stderr: $(head -c 140 "$T/err")"
a0=$(conns a)
rm -f "$T/s.json"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --sandbox auto \
	--status-file "$T/s.json" "${ALLOW[@]}" -- sh -c \
	"env | grep -c '^HTTPS_PROXY=' ; \"$PY\" \"$T/client.py\" direct-tcp=$PA") >"$T/auto.out" 2>&1
is "$(json_field "$T/s.json" status '[e["applied"], "network_allowlist_not_enforced" in e["gaps"], e["network_proxy"], "network_seccomp" in e["layers"]]')" \
	"[true, true, null, true]" "no network namespace, auto: runs with the network off (network_seccomp), gap network_allowlist_not_enforced, no proxy"
refused "$T/auto.out" direct-tcp && [ "$(conns a)" = "$a0" ] && grep -qx 0 "$T/auto.out"
ok $? "... a direct connect is refused, origin a saw nothing, no proxy variable set ($(say "$T/auto.out" direct-tcp))"
is "$(grep -c '^cordon: warning: --network allow cannot be enforced here' "$T/auto.out")" 1 \
	"... and one warning line says the network is off"

# Bad values: one line, exit 125.
for bad in "--network allow=a..b" "--network-resolve a.test=nowhere --network allow=a.test" \
	"--network-allow-file $T/none" "--network-allow-local"; do
	# shellcheck disable=SC2086
	(cd "$WS" && crun $bad -- true) >/dev/null 2>"$T/err"
	is "$?/$(wc -l <"$T/err")" "125/1" "$bad: exit 125, one line ($(head -c 100 "$T/err"))"
done

done_testing
