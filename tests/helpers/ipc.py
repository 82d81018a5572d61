#!/usr/bin/python3
"""tests/helpers/ipc.py: SysV IPC and POSIX message queues for the tests,
with ctypes (no sysv_ipc module, no ipcmk needed).

Peers (an object of the test's own, outside the run; print "ready", then
append a line to ./target whenever the object changes; remove it at exit):
  ipc.py shm-peer IDFILE     a SysV segment (already marked for removal: it
                             goes when the peer does); its id in IDFILE
  ipc.py msg-peer IDFILE     a SysV message queue; its id in IDFILE
  ipc.py sem-peer IDFILE     a SysV semaphore set of one; its id in IDFILE
  ipc.py mq-peer NAME        a POSIX message queue /NAME
Clients (what a confined command tries):
  ipc.py shm-write ID | msg-send ID | sem-op ID | mq-send NAME
  ipc.py shm-create KEY | mq-create NAME   make an object that would outlive
                                           the run
  ipc.py shm-gone KEY | mq-gone NAME       exit 0 when there is none; else
                                           remove it and exit 1
A client prints "ok", or "error ERRNO-NAME" on stderr (exit 1).
Test helper only (Linux, glibc).
"""
import ctypes
import ctypes.util
import errno
import os
import signal
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL(ctypes.util.find_library("rt") or "librt.so.1", use_errno=True)
IPC_PRIVATE, IPC_CREAT, IPC_EXCL, IPC_RMID, IPC_STAT, IPC_NOWAIT = 0, 0o1000, 0o2000, 0, 2, 0o4000
GETVAL = 12
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
rt.mq_open.restype = ctypes.c_int
rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]
O_RDWR, O_CREAT, O_NONBLOCK = os.O_RDWR, os.O_CREAT, os.O_NONBLOCK


class MqAttr(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long),
                ("msgsize", ctypes.c_long), ("curmsgs", ctypes.c_long),
                ("pad", ctypes.c_long * 4)]


class MsqidDs(ctypes.Structure):  # enough of struct msqid_ds for msg_qnum
    _fields_ = [("perm", ctypes.c_byte * 48), ("stime", ctypes.c_long),
                ("rtime", ctypes.c_long), ("ctime", ctypes.c_long),
                ("cbytes", ctypes.c_ulong), ("qnum", ctypes.c_ulong),
                ("qbytes", ctypes.c_ulong), ("lspid", ctypes.c_int),
                ("lrpid", ctypes.c_int), ("pad", ctypes.c_long * 4)]


def check(r):
    if r == -1 or r is None:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def changed(what):
    with open("target", "a") as f:
        f.write(what + " changed\n")


def peer_loop(poll, remove):
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    print("ready", flush=True)
    try:
        while True:
            poll()
            time.sleep(0.05)
    finally:
        remove()


def shm_peer(idfile):
    sid = check(libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600))
    addr = libc.shmat(sid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        check(-1)
    check(libc.shmctl(sid, IPC_RMID, None))  # gone once nobody is attached
    ctypes.memmove(addr, b"original", 8)
    with open(idfile, "w") as f:
        f.write(str(sid))

    def poll():
        if ctypes.string_at(addr, 8) != b"original":
            changed("shm")
            ctypes.memmove(addr, b"original", 8)
    peer_loop(poll, lambda: None)


def msg_peer(idfile):
    qid = check(libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600))
    with open(idfile, "w") as f:
        f.write(str(qid))
    ds = MsqidDs()

    def poll():
        check(libc.msgctl(qid, IPC_STAT, ctypes.byref(ds)))
        if ds.qnum:
            changed("msg")
            buf = ctypes.create_string_buffer(64)
            libc.msgrcv(qid, buf, 32, 0, IPC_NOWAIT)
    peer_loop(poll, lambda: libc.msgctl(qid, IPC_RMID, None))


class Sembuf(ctypes.Structure):
    _fields_ = [("num", ctypes.c_ushort), ("op", ctypes.c_short), ("flg", ctypes.c_short)]


def sem_peer(idfile):
    sid = check(libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600))
    with open(idfile, "w") as f:
        f.write(str(sid))

    def poll():
        if check(libc.semctl(sid, 0, GETVAL)) != 0:
            changed("sem")
            down = Sembuf(0, -1, IPC_NOWAIT)
            libc.semop(sid, ctypes.byref(down), 1)
    peer_loop(poll, lambda: libc.semctl(sid, 0, IPC_RMID))


def mq_peer(name):
    q = check(rt.mq_open(("/" + name).encode(), O_RDWR | O_CREAT | O_NONBLOCK, 0o600, None))
    attr = MqAttr()

    def poll():
        check(rt.mq_getattr(q, ctypes.byref(attr)))
        if attr.curmsgs:
            changed("mq")
            buf = ctypes.create_string_buffer(8192)
            rt.mq_receive(q, buf, 8192, None)
    peer_loop(poll, lambda: rt.mq_unlink(("/" + name).encode()))


def client(cmd, arg):
    if cmd == "shm-write":
        addr = libc.shmat(int(arg), None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            check(-1)
        ctypes.memmove(addr, b"evil", 4)
    elif cmd == "msg-send":
        buf = ctypes.create_string_buffer(b"\x01\x00\x00\x00\x00\x00\x00\x00evil")
        check(libc.msgsnd(int(arg), buf, 4, IPC_NOWAIT))
    elif cmd == "sem-op":
        op = Sembuf(0, 1, 0)
        check(libc.semop(int(arg), ctypes.byref(op), 1))
    elif cmd == "mq-send":
        q = check(rt.mq_open(("/" + arg).encode(), O_RDWR | O_NONBLOCK, 0, None))
        check(rt.mq_send(q, b"evil", 4, 0))
    elif cmd == "shm-create":
        check(libc.shmget(int(arg), 4096, IPC_CREAT | IPC_EXCL | 0o600))
    elif cmd == "mq-create":
        check(rt.mq_open(("/" + arg).encode(), O_RDWR | O_CREAT | O_NONBLOCK, 0o600, None))
    else:
        raise SystemExit(f"ipc.py: unknown command {cmd}")


def gone(cmd, arg):
    if cmd == "shm-gone":
        sid = libc.shmget(int(arg), 0, 0)
        if sid == -1:
            return 0
        libc.shmctl(sid, IPC_RMID, None)
        return 1
    if rt.mq_unlink(("/" + arg).encode()) == 0:
        return 1
    return 0


def main(a):
    peers = {"shm-peer": shm_peer, "msg-peer": msg_peer, "sem-peer": sem_peer,
             "mq-peer": mq_peer}
    if a[0] in peers:
        peers[a[0]](a[1])
        return 0
    if a[0] in ("shm-gone", "mq-gone"):
        return gone(a[0], a[1])
    try:
        client(a[0], a[1])
    except OSError as e:
        print("error", errno.errorcode.get(e.errno, str(e.errno)), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
