#!/usr/bin/python3
"""tests/helpers/victim.py: processes outside a run that report what a
confined command did to them (peers of the corpus and the shell tests).
Each prints "ready" when set up, then appends a line to ./target for every
change it sees, until it is killed.

  victim.py watch         its own resource limits, nice value, scheduling
                          policy, I/O priority and CPU affinity
  victim.py pty NAMEFILE  a pseudo-terminal pair of its own: the terminal's
                          name goes to NAMEFILE; whatever is written to the
                          terminal, and any change of its settings, is
                          reported
Test helper only (Linux x86_64, aarch64).
"""
import ctypes
import os
import platform
import pty
import resource
import select
import sys
import termios
import time

IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(platform.machine())
libc = ctypes.CDLL(None, use_errno=True)


def report(what):
    with open("target", "a") as f:
        f.write(what + " changed\n")


def state():
    s = {f"rlimit {n}": resource.getrlimit(getattr(resource, n))
         for n in dir(resource) if n.startswith("RLIMIT_")}
    s["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    s["policy"] = os.sched_getscheduler(0)
    s["affinity"] = sorted(os.sched_getaffinity(0))
    if IOPRIO_GET is not None:
        s["ioprio"] = libc.syscall(IOPRIO_GET, 1, 0)  # IOPRIO_WHO_PROCESS, self
    return s


def watch():
    base = state()
    print("ready", flush=True)
    while True:
        time.sleep(0.05)
        now = state()
        for k, v in now.items():
            if base.get(k) != v:
                report(k)
        base = now


def pty_peer(namefile):
    master, slave = pty.openpty()
    with open(namefile, "w") as f:
        f.write(os.ttyname(slave))
    base = termios.tcgetattr(slave)
    print("ready", flush=True)
    while True:
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            data = os.read(master, 4096)
            report(f"terminal got {data!r}:")
        now = termios.tcgetattr(slave)
        if now != base:
            report("terminal settings")
            base = now


if __name__ == "__main__":
    if sys.argv[1] == "watch":
        watch()
    elif sys.argv[1] == "pty":
        pty_peer(sys.argv[2])
    else:
        sys.exit("usage: victim.py watch | pty NAMEFILE")
