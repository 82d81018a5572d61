#!/usr/bin/python3
"""The client of bench/run's proxy rows: connections and transfers to the
origins of `proxybench serve`, directly, through its relay, or through
the proxy cordon serves a run with `--network allow` (HTTP CONNECT to the
proxy named by $HTTPS_PROXY, as curl and pip use it).

    proxyload.py connect N PORT [NAME]   N connections to 127.0.0.1:PORT,
                                         each until the origin's first
                                         byte is read, one at a time
    proxyload.py pull R PORT BYTES [NAME]  R transfers, each read to its
                                         end (BYTES), one after the other
    proxyload.py check PORT NAME         one connection through the proxy
                                         and one direct to 127.0.0.1:PORT
                                         (the control: inside a run with
                                         the allow-list it must fail)

With NAME, each connection is a CONNECT NAME:PORT through the proxy.
Prints one JSON object: n and loop_s, the seconds of the loop (the
process's own start is outside it); for connect, median_s, the median
connection's; for pull, times_s, each transfer's.
"""
import json
import os
import socket
import statistics
import sys
import time
import urllib.parse


def proxy_addr():
    u = urllib.parse.urlsplit(os.environ.get("HTTPS_PROXY", ""))
    if u.scheme != "http" or not u.hostname or not u.port:
        raise SystemExit(f"proxyload: no http proxy in HTTPS_PROXY: {u.geturl()!r}")
    return u.hostname, u.port


def open_conn(port, name, proxy):
    """A connected socket and the bytes already read past the proxy's
    answer (b"" when direct)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if name is None:
        s.connect(("127.0.0.1", port))
        return s, b""
    s.connect(proxy)
    s.sendall(f"CONNECT {name}:{port} HTTP/1.1\r\nHost: {name}:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(4096)
        if not b:
            raise SystemExit(f"proxyload: the proxy closed: {head!r}")
        head += b
    head, _, rest = head.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"proxyload: the proxy refused: {head!r}")
    return s, rest


def first_byte(port, name, proxy):
    s, rest = open_conn(port, name, proxy)
    if not rest and not s.recv(1):
        raise SystemExit("proxyload: no byte from the origin")
    s.close()


def connect_load(n, port, name):
    proxy = proxy_addr() if name else None
    each = []
    t0 = time.monotonic()
    for _ in range(n):
        t1 = time.monotonic()
        first_byte(port, name, proxy)
        each.append(time.monotonic() - t1)
    return {"n": n, "loop_s": time.monotonic() - t0, "median_s": statistics.median(each)}


def pull_load(reps, port, want, name):
    proxy = proxy_addr() if name else None
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    times = []
    t0 = time.monotonic()
    for _ in range(reps):
        t1 = time.monotonic()
        s, rest = open_conn(port, name, proxy)
        got = len(rest)
        while True:
            k = s.recv_into(view)
            if k == 0:
                break
            got += k
        s.close()
        times.append(time.monotonic() - t1)
        if got != want:
            raise SystemExit(f"proxyload: {got} bytes of {want}")
    return {"n": reps, "loop_s": time.monotonic() - t0, "times_s": times}


def check(port, name):
    out = {}
    try:
        first_byte(port, name, proxy_addr())
        out["proxy"] = "connected"
    except (OSError, SystemExit) as e:
        out["proxy"] = str(e)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect(("127.0.0.1", port))
        out["direct"] = "connected"
    except OSError as e:
        out["direct"] = e.__class__.__name__
    finally:
        s.close()
    return out


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "connect" and len(argv) in (4, 5):
        res = connect_load(int(argv[2]), int(argv[3]), argv[4] if len(argv) == 5 else None)
    elif mode == "pull" and len(argv) in (5, 6):
        res = pull_load(int(argv[2]), int(argv[3]), int(argv[4]),
                        argv[5] if len(argv) == 6 else None)
    elif mode == "check" and len(argv) == 4:
        res = check(int(argv[2]), argv[3])
    else:
        raise SystemExit(__doc__)
    print(json.dumps(res))


if __name__ == "__main__":
    main(sys.argv)
