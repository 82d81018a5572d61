#!/usr/bin/python3
"""tests/helpers/capdev.py: a capture device of the test's own (root).

  capdev.py wrap MARKER -- CMD...
      In a mount namespace of its own (private: nothing reaches the
      machine's), put a terminal of its own in the place of the first
      capture device name under /dev that exists (/dev/vcs1, /dev/tty0,
      /dev/console, ...): the slave side of a new pty, bound over it.
      MARKER and a newline are typed into that pty, so reading a line
      from the device gives MARKER, as reading a console gives what is
      typed there. Runs CMD with CAPDEV set to the device's path; exits
      with its status (2: no such name here, or no namespace).

Nothing outside its own mount namespace changes; the pty ends with it.
Test helper only (Linux).
"""
import ctypes
import os
import stat
import subprocess
import sys

CLONE_NEWNS = 0x00020000
NAMES = ["vcs1", "vcs", "tty0", "tty1", "console", "fb0", "video0", "hidraw0"]


def main():
    if len(sys.argv) < 5 or sys.argv[1] != "wrap" or sys.argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    marker, cmd = sys.argv[2], sys.argv[4:]
    target = None
    for n in NAMES:
        p = "/dev/" + n
        try:
            if stat.S_ISCHR(os.lstat(p).st_mode):
                target = p
                break
        except OSError:
            pass
    if target is None:
        print("capdev: no capture device name under /dev here", file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        print("capdev: unshare: " + os.strerror(ctypes.get_errno()), file=sys.stderr)
        return 2
    master, slave = os.openpty()
    slave_path = os.ttyname(slave)
    for args in (["mount", "--make-rprivate", "/"], ["mount", "--bind", slave_path, target]):
        r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if r.returncode != 0:
            print("capdev: %s: %s" % (" ".join(args), r.stderr.strip()), file=sys.stderr)
            return 2
    os.write(master, (marker + "\n").encode())
    env = dict(os.environ, CAPDEV=target)
    # The command's stdio is the caller's: the pty is no terminal of its.
    r = subprocess.run(cmd, env=env, pass_fds=())
    os.close(slave)
    os.close(master)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
