#!/usr/bin/python3
"""Socket-heavy loads for bench/run: many calls that the Unix socket
supervisor (below Landlock ABI 9) or the network layer may look at.

    sockload.py connect N PATH      N connect() to a Unix socket at PATH,
                                    served by a thread of this process
                                    (accept, close)
    sockload.py sendmsg-pair N      N sendmsg() of 64 bytes on a connected
                                    Unix socketpair (a thread reads them)
    sockload.py sendmsg-tcp N       N sendmsg() of 64 bytes on a TCP
                                    connection over loopback (127.0.0.1)
    sockload.py send-tcp N          the same with send(): no address, which
                                    cordon's filter lets through unasked
    sockload.py try-connect PATH    one connect() to PATH; prints the errno
                                    name (the control: a socket outside the
                                    workspace must be refused)

Prints one JSON object: n, and loop_s, the seconds of the N calls (the
server's start and the process's own are outside it).
"""
import errno
import json
import os
import socket
import sys
import threading
import time

MSG = b"m" * 64


def drain(s):
    while s.recv(1 << 16):
        pass


def connect_load(n, path):
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(128)

    def serve():
        for _ in range(n):
            c, _ = srv.accept()
            c.close()
    th = threading.Thread(target=serve)
    th.start()
    t0 = time.monotonic()
    for _ in range(n):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(path)
        c.close()
    th.join()
    dt = time.monotonic() - t0
    srv.close()
    os.unlink(path)
    return dt


def send_load(n, a, b, use_sendmsg):
    th = threading.Thread(target=drain, args=(b,))
    th.start()
    t0 = time.monotonic()
    if use_sendmsg:
        for _ in range(n):
            a.sendmsg([MSG])
    else:
        for _ in range(n):
            a.send(MSG)
    a.shutdown(socket.SHUT_WR)
    th.join()
    dt = time.monotonic() - t0
    a.close()
    b.close()
    return dt


def tcp_pair():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    a = socket.create_connection(srv.getsockname())
    b, _ = srv.accept()
    srv.close()
    return a, b


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "try-connect":
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            c.connect(sys.argv[2])
            print("connected")
        except OSError as e:
            print(errno.errorcode.get(e.errno, str(e.errno)))
        return
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    mode, n = sys.argv[1], int(sys.argv[2])
    if mode == "connect" and len(sys.argv) == 4:
        dt = connect_load(n, sys.argv[3])
    elif mode == "sendmsg-pair":
        dt = send_load(n, *socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM), True)
    elif mode in ("sendmsg-tcp", "send-tcp"):
        dt = send_load(n, *tcp_pair(), mode == "sendmsg-tcp")
    else:
        raise SystemExit(__doc__)
    print(json.dumps({"mode": mode, "n": n, "loop_s": round(dt, 6)}))


if __name__ == "__main__":
    main()
