#!/usr/bin/python3
"""UDP datagrams carrying control messages, and a receiver that shows what
arrived with them (standard library only).

  cmsgsend.py listen 4|6 LOG    bind 127.0.0.1 or ::1 on a free port, print
        the port, then append one line per datagram to LOG: its payload and
        what came with it (" mark=N" by SO_RCVMARK, " tos=N" by IP_RECVTOS,
        " hopopts=HEX" by IPV6_RECVHOPOPTS)
  cmsgsend.py send KIND PORT [TAG]  one datagram to 127.0.0.1:PORT (::1
        for hopopts), its payload KIND (KIND-TAG), carrying the control
        message KIND:
          mark      SOL_SOCKET SO_MARK 42 (CAP_NET_RAW or CAP_NET_ADMIN)
          prio      SOL_SOCKET SO_PRIORITY 7 (the same, above 6)
          hopopts   IPV6_HOPOPTS, one PadN option (CAP_NET_RAW)
          ipsec     IP_RETOPTS holding a security option (CAP_NET_RAW)
          tos       IP_TOS 0x10 (anyone)
        prints "sent", or "error ERRNO-NAME" (exit 1)
  cmsgsend.py pair KIND         listen and send in this process (a network
        namespace of the caller's): the sender's line, then
        "seen: LINE" or "seen: nothing"
  cmsgsend.py passfd DIR        not dumpable (as ssh-agent makes itself), send
        one end of a socketpair over a datagram socket bound in DIR, and
        use the fd that arrives: prints "fd passed" or "error ..."
  cmsgsend.py addaddr ADDR      ask the kernel (rtnetlink, a sendto with
        the kernel's address, as iproute2 does) to add ADDR/32 to lo (it
        takes CAP_NET_ADMIN): prints "added" or "error ERRNO-NAME"
  cmsgsend.py ownns CMD ARG...  in a user and network namespace of its own
        (this process is root there, with every capability; lo up), CMD
        as above (pair or addaddr), then "addresses: ..." of lo
"""
import array
import ctypes
import errno
import fcntl
import os
import socket
import struct
import sys

SO_RCVMARK = 75  # Linux 5.19
IPV6_HOPOPTS = getattr(socket, "IPV6_HOPOPTS", 54)
IPV6_RECVHOPOPTS = getattr(socket, "IPV6_RECVHOPOPTS", 53)
# Hop-by-hop header: next header (the kernel's), length 0 (8 bytes),
# one PadN option of 4 bytes.
HOPOPTS = bytes([0, 0, 1, 4, 0, 0, 0, 0])
# IPv4 security option (130), 11 bytes, then end of options.
IPSEC = bytes([130, 11] + [0] * 9 + [0])


def receiver(fam):
    if fam == "6":
        r = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        r.bind(("::1", 0))
        r.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVHOPOPTS, 1)
    else:
        r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        r.bind(("127.0.0.1", 0))
        r.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
    r.setsockopt(socket.SOL_SOCKET, SO_RCVMARK, 1)
    return r


def describe(r):
    data, anc, _, _ = r.recvmsg(256, 256)
    line = data.decode()
    for level, typ, body in anc:
        if level == socket.SOL_SOCKET and typ == socket.SO_MARK and any(body):
            line += " mark=%d" % struct.unpack("I", body[:4])[0]
        elif level == socket.IPPROTO_IP and typ == socket.IP_TOS and body[0]:
            line += " tos=%d" % body[0]
        elif level == socket.IPPROTO_IPV6 and typ == IPV6_HOPOPTS:
            line += " hopopts=" + body.hex()
    return line


def send(kind, port, tag=""):
    fam, host = socket.AF_INET, "127.0.0.1"
    if kind == "mark":
        c = (socket.SOL_SOCKET, socket.SO_MARK, struct.pack("I", 42))
    elif kind == "prio":
        c = (socket.SOL_SOCKET, socket.SO_PRIORITY, struct.pack("I", 7))
    elif kind == "hopopts":
        fam, host = socket.AF_INET6, "::1"
        c = (socket.IPPROTO_IPV6, IPV6_HOPOPTS, HOPOPTS)
    elif kind == "ipsec":
        c = (socket.IPPROTO_IP, socket.IP_RETOPTS, IPSEC)
    elif kind == "tos":
        c = (socket.IPPROTO_IP, socket.IP_TOS, struct.pack("i", 0x10))
    else:
        sys.exit("unknown kind " + kind)
    s = socket.socket(fam, socket.SOCK_DGRAM)
    try:
        s.sendmsg([(kind + ("-" + tag if tag else "")).encode()], [c], 0, (host, port))
    except OSError as e:
        return "error " + errno.errorcode.get(e.errno, str(e.errno))
    return "sent"


def passfd(d):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = os.path.join(d, "passfd.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(path)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        c.sendmsg([b"fd"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                             array.array("i", [a.fileno()]))], 0, path)
    except OSError as e:
        return "error " + errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.unlink(path)
    _, anc, _, _ = srv.recvmsg(16, socket.CMSG_SPACE(4))
    got = socket.socket(fileno=array.array("i", anc[0][2])[0])
    got.send(b"through")
    return "fd passed" if b.recv(16) == b"through" else "error wrong fd"


def addaddr(addr):
    index = socket.if_nametoindex("lo")
    attrs = b""
    for typ in (2, 1):  # IFA_LOCAL, IFA_ADDRESS
        attrs += struct.pack("HH", 8, typ) + socket.inet_aton(addr)
    body = struct.pack("BBBBI", socket.AF_INET, 32, 0, 0, index) + attrs
    # RTM_NEWADDR; NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE
    msg = struct.pack("IHHII", 16 + len(body), 20, 0x1 | 0x4 | 0x200 | 0x400, 1, 0) + body
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    try:
        s.sendto(msg, (0, 0))
    except OSError as e:
        return "error " + errno.errorcode.get(e.errno, str(e.errno))
    ack = s.recv(4096)
    err = struct.unpack("i", ack[16:20])[0]  # NLMSG_ERROR's error
    return "added" if err == 0 else "error " + errno.errorcode.get(-err, str(-err))


def addresses():
    """lo's IPv4 addresses, by an rtnetlink dump (which anyone may make)."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    body = struct.pack("BBBBI", socket.AF_INET, 0, 0, 0, 0)
    # RTM_GETADDR; NLM_F_REQUEST | NLM_F_DUMP
    s.send(struct.pack("IHHII", 16 + len(body), 22, 0x1 | 0x300, 1, 0) + body)
    index, found = socket.if_nametoindex("lo"), []
    while True:
        data = s.recv(65536)
        off = 0
        while off + 16 <= len(data):
            n, typ = struct.unpack("IH", data[off:off + 6])
            if typ == 3:  # NLMSG_DONE
                return " ".join(found) or "none"
            if typ == 20 and struct.unpack("I", data[off + 20:off + 24])[0] == index:
                a = off + 24
                while a + 4 <= off + n:
                    alen, atyp = struct.unpack("HH", data[a:a + 4])
                    if atyp == 2:  # IFA_LOCAL
                        found.append(socket.inet_ntoa(data[a + 4:a + 8]))
                    a += (alen + 3) & ~3
            off += (n + 3) & ~3


def ownns():
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000 | 0x40000000) != 0:  # CLONE_NEWUSER | CLONE_NEWNET
        print("error unshare " + errno.errorcode.get(ctypes.get_errno(), "?"))
        sys.exit(2)
    for name, text in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid),
                       ("gid_map", "0 %d 1" % gid)):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifr = struct.pack("16sH", b"lo", 0)
    flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, ifr)[:18])[1]  # SIOCGIFFLAGS
    fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))  # SIOCSIFFLAGS, IFF_UP


def main():
    cmd = sys.argv[1]
    if cmd == "listen":
        r = receiver(sys.argv[2])
        print(r.getsockname()[1], flush=True)
        while True:
            line = describe(r)
            with open(sys.argv[3], "a") as f:
                f.write(line + "\n")
    if cmd == "send":
        out = send(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "")
        print(out)
        sys.exit(0 if out == "sent" else 1)
    if cmd == "pair":
        kind = sys.argv[2]
        r = receiver("6" if kind == "hopopts" else "4")
        r.settimeout(0.5)
        print(send(kind, r.getsockname()[1]))
        try:
            print("seen: " + describe(r))
        except socket.timeout:
            print("seen: nothing")
        return
    if cmd == "ownns":
        ownns()
        sys.argv[1:] = sys.argv[2:]
        main()
        print("addresses: " + addresses())
        return
    if cmd == "addaddr":
        print(addaddr(sys.argv[2]))
        return
    if cmd == "addresses":
        print(addresses())
        return
    if cmd == "passfd":
        out = passfd(sys.argv[2])
        print(out)
        sys.exit(0 if out == "fd passed" else 1)
    sys.exit("usage: see the module's docstring")


main()
