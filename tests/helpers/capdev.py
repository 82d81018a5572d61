#!/usr/bin/python3
"""tests/helpers/capdev.py: a capture device of the test's own (root).

  capdev.py wrap [--name NAME] [--placeholder] [--twin] MARKER -- CMD...
      In a mount namespace of its own (private: nothing reaches the
      machine's), put a terminal of its own in the place of a console
      device under /dev: the slave side of a new pty, bound over NAME
      (default: the first of /dev/vcs1, /dev/vcs, /dev/tty0, /dev/console
      that exists). MARKER and a newline are typed into that pty, so
      reading a line from the device gives MARKER, as reading a console
      gives what is typed there. Runs CMD with CAPDEV set to the device's
      path; exits with its status (2: no such name here, or no namespace).

      --placeholder  as containers make /dev/console: /dev is an overlay
                     (of the machine's, in a tmpfs of the helper's) where
                     NAME is an empty regular file, the pty bound over it
      --twin         CMD's stdin is another pty of the helper's with the
                     same number as the bound one, from another devpts
                     instance (same major:minor, another device)
      (with --placeholder and without --twin, CMD's stdin is /dev/null)

Nothing outside its own mount namespace changes; the ptys end with it.
Test helper only (Linux).
"""
import ctypes
import fcntl
import os
import stat
import subprocess
import sys
import tempfile

CLONE_NEWNS = 0x00020000
TIOCGPTN = 0x80045430
TIOCSPTLCK = 0x40045431
NAMES = ["vcs1", "vcs", "tty0", "console"]


def sh(*args):
    r = subprocess.run(list(args), stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        raise OSError("%s: %s" % (" ".join(args), r.stderr.strip()))


def fail(msg):
    print("capdev: " + msg, file=sys.stderr)
    return 2


def main():
    args = sys.argv[1:]
    if "--" not in args or not args or args[0] != "wrap":
        print(__doc__, file=sys.stderr)
        return 2
    cut = args.index("--")
    opts, cmd = args[1:cut], args[cut + 1:]
    name, placeholder, twin = None, False, False
    while len(opts) > 1:
        o = opts.pop(0)
        if o == "--name":
            name = opts.pop(0)
        elif o == "--placeholder":
            placeholder = True
        elif o == "--twin":
            twin = True
        else:
            return fail("unknown option " + o)
    if len(opts) != 1 or not cmd:
        print(__doc__, file=sys.stderr)
        return 2
    marker = opts[0]
    names = [name] if name else NAMES
    target = None
    for n in names:
        try:
            if stat.S_ISCHR(os.lstat("/dev/" + n).st_mode):
                target = "/dev/" + n
                break
        except OSError:
            pass
    if target is None:
        return fail("no device named %s under /dev here" % "/".join(names))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        return fail("unshare: " + os.strerror(ctypes.get_errno()))
    scratch = tempfile.mkdtemp(prefix="capdev.")
    try:
        sh("mount", "--make-rprivate", "/")
        sh("mount", "-t", "tmpfs", "capdev", scratch)
        if placeholder:
            for d in ("u", "w"):
                os.mkdir(os.path.join(scratch, d))
            sh("mount", "-t", "overlay", "capdev-dev", "-o",
               "lowerdir=/dev,upperdir=%s/u,workdir=%s/w" % (scratch, scratch), "/dev")
            sh("mount", "-t", "devpts", "-o", "newinstance,ptmxmode=0666", "devpts", "/dev/pts")
            os.unlink(target)
            open(target, "w").close()
        master, slave = os.openpty()
        # The caller's stdin opened before /dev was overlaid could not be
        # reached again by its path: one of the overlay's.
        stdin = subprocess.DEVNULL if placeholder else None
        if twin:
            # The caller's pty: another devpts instance, the same number.
            pts = os.path.join(scratch, "pts")
            os.mkdir(pts)
            sh("mount", "-t", "devpts", "-o", "newinstance,ptmxmode=0666", "devpts", pts)
            want = os.minor(os.fstat(slave).st_rdev)
            held = []
            while True:
                m = os.open(os.path.join(pts, "ptmx"), os.O_RDWR | os.O_NOCTTY)
                held.append(m)
                n = ctypes.c_uint(0)
                fcntl.ioctl(m, TIOCGPTN, n)
                fcntl.ioctl(m, TIOCSPTLCK, ctypes.c_int(0))
                if n.value == want:
                    stdin = os.open(os.path.join(pts, str(n.value)), os.O_RDWR | os.O_NOCTTY)
                    break
                if len(held) > 64:
                    return fail("no twin pty")
            if os.fstat(stdin).st_rdev != os.fstat(slave).st_rdev:
                return fail("the twin pty has another number")
        sh("mount", "--bind", os.ttyname(slave), target)
        os.write(master, (marker + "\n").encode())
        env = dict(os.environ, CAPDEV=target)
        r = subprocess.run(cmd, env=env, stdin=stdin)
        os.close(slave)
        os.close(master)
        return r.returncode
    except OSError as e:
        return fail(str(e))
    finally:
        subprocess.run(["umount", "-l", scratch], capture_output=True)
        os.rmdir(scratch)


if __name__ == "__main__":
    sys.exit(main())
