#!/usr/bin/python3
"""Unix socket peers and clients for the tests (standard library only).

  unixsock.py serve PATH LOG [stream|dgram|dgramcred|stuck]
        bind PATH, print "ready", append what each client sends to LOG;
        "stuck" listens with a full backlog and never accepts; "dgramcred"
        logs each datagram with the credentials it carries
  unixsock.py connect PATH DATA      connect, send DATA, wait for "ok"
  unixsock.py sendto PATH DATA       one datagram with sendto
  unixsock.py sendmsg PATH DATA      one datagram with sendmsg (and an fd)
  unixsock.py credsend PATH DATA     one datagram whose SCM_CREDENTIALS name
        pid 1, uid 0, gid 0 (the kernel lets only root claim them)
  unixsock.py viafd DIR NAME DATA   connect to /proc/self/fd/N/NAME, N an
        O_PATH fd on DIR (the usual way around sun_path's 108 bytes)
  unixsock.py fill PATH              connect until a connect blocks
  unixsock.py race GOOD BAD LINK N   N connects to LINK while another
        thread points LINK at GOOD, then BAD, again and again; prints how
        many connected

A client prints "ok" on success, else "error ERRNO-NAME" and exits 1.
"""
import errno
import os
import socket
import struct
import sys
import threading
import time


def serve(path, log, kind):
    if kind == "dgramcred":  # logs the credentials each datagram carries
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        s.bind(path)
        print("ready", flush=True)
        while True:
            data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
            for level, typ, body in anc:
                if level == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
                    pid, uid, gid = struct.unpack("3i", body[:12])
                    with open(log, "a") as f:
                        f.write(f"{data.decode()} pid={pid} uid={uid} gid={gid}\n")
    if kind == "dgram":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(path)
        print("ready", flush=True)
        while True:
            data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16))
            with open(log, "ab") as f:
                f.write(data)
            for level, typ, _ in anc:
                if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                    with open(log, "ab") as f:
                        f.write(b"+fd")
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    if kind == "stuck":
        s.listen(0)
        print("ready", flush=True)
        threading.Event().wait()
    s.listen(64)
    print("ready", flush=True)
    while True:
        c, _ = s.accept()
        data = c.recv(4096)
        with open(log, "ab") as f:
            f.write(data)
        c.sendall(b"ok")
        c.close()


def fail(e):
    print("error", errno.errorcode.get(e.errno, str(e.errno)))
    sys.exit(1)


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "serve":
        serve(path, sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "stream")
        return
    try:
        if cmd == "connect":
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.sendall(sys.argv[3].encode())
            s.recv(2)
        elif cmd == "viafd":
            d = os.open(path, os.O_PATH | os.O_DIRECTORY)
            s = socket.socket(socket.AF_UNIX)
            s.connect(f"/proc/self/fd/{d}/{sys.argv[3]}")
            s.sendall(sys.argv[4].encode())
            s.recv(2)
        elif cmd == "sendto":
            socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(sys.argv[3].encode(), path)
        elif cmd == "sendmsg":
            r, w = os.pipe()
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.sendmsg([sys.argv[3].encode()],
                      [(socket.SOL_SOCKET, socket.SCM_RIGHTS, r.to_bytes(4, sys.byteorder))],
                      0, path)
        elif cmd == "credsend":  # SCM_CREDENTIALS naming pid 1, uid 0, gid 0
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.sendmsg([sys.argv[3].encode()],
                      [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, struct.pack("3i", 1, 0, 0))],
                      0, path)
        elif cmd == "fill":
            keep = []
            while True:
                s = socket.socket(socket.AF_UNIX)
                s.connect(path)  # blocks once the backlog is full
                keep.append(s)
        elif cmd == "race":
            good, bad, link, n = path, sys.argv[3], sys.argv[4], int(sys.argv[5])
            stop = threading.Event()

            def flip():
                tmp = link + ".new"
                while not stop.is_set():
                    for target in (good, bad):
                        try:
                            os.symlink(target, tmp)
                            os.replace(tmp, link)
                        except OSError:
                            pass
                        # Each state lasts a little, so connects see both
                        # (and the flips, in between).
                        time.sleep(0.0002)
            t = threading.Thread(target=flip)
            t.start()
            connected, errors = 0, {}
            for _ in range(n):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect(link)
                    s.sendall(b"race\n")
                    s.recv(2)
                    connected += 1
                except OSError as e:
                    name = errno.errorcode.get(e.errno, str(e.errno))
                    errors[name] = errors.get(name, 0) + 1
                s.close()
            stop.set()
            t.join()
            print("connected", connected, " ".join(f"{k}:{v}" for k, v in sorted(errors.items())))
            return
    except OSError as e:
        fail(e)
    print("ok")


main()
