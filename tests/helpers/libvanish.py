#!/usr/bin/python3
"""tests/helpers/libvanish.py: a device unplugged between a run's start
and its first command, through the library (root, under capdev.py
--placeholder, whose /dev is an overlay of its own).

  libvanish.py LIBCORDON STATE_DIR DEVICE -- CMD...
      cordon_begin (which lists DEVICE as a capture device), then DEVICE
      removed, then CMD spawned and waited for. Prints "exit N" with the
      command's exit code, or "error: ..." with cordon's last error
      (exit 1). Test helper only (Linux).
"""
import ctypes
import os
import sys


class Result(ctypes.Structure):
    _fields_ = [("exit_code", ctypes.c_int), ("signal", ctypes.c_int),
                ("timed_out", ctypes.c_int), ("exec_errno", ctypes.c_int)]


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    lib = ctypes.CDLL(sys.argv[1])
    lib.cordon_new.restype = ctypes.c_void_p
    lib.cordon_last_error.restype = ctypes.c_char_p
    for f in ("cordon_set_state_dir", "cordon_begin", "cordon_spawn", "cordon_wait",
              "cordon_end", "cordon_last_error", "cordon_free"):
        getattr(lib, f).argtypes = None
    lib.cordon_set_state_dir.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.cordon_begin.argtypes = [ctypes.c_void_p]
    lib.cordon_spawn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                                 ctypes.POINTER(ctypes.c_void_p)]
    lib.cordon_wait.argtypes = [ctypes.c_void_p, ctypes.POINTER(Result)]
    lib.cordon_end.argtypes = [ctypes.c_void_p]
    lib.cordon_last_error.argtypes = [ctypes.c_void_p]
    lib.cordon_free.argtypes = [ctypes.c_void_p]
    c = lib.cordon_new()
    cmd = sys.argv[5:]
    argv = (ctypes.c_char_p * (len(cmd) + 1))(*[a.encode() for a in cmd], None)
    proc = ctypes.c_void_p()
    res = Result()
    out, rc = None, 0
    if lib.cordon_set_state_dir(c, sys.argv[2].encode()) != 0 or lib.cordon_begin(c) != 0:
        out, rc = "error: " + lib.cordon_last_error(c).decode(), 1
    else:
        os.unlink(sys.argv[3])
        if lib.cordon_spawn(c, argv, ctypes.byref(proc)) != 0 or \
                lib.cordon_wait(proc, ctypes.byref(res)) != 0:
            out, rc = "error: " + lib.cordon_last_error(c).decode(), 1
        else:
            out = "exit %d" % res.exit_code
        lib.cordon_end(c)
    lib.cordon_free(c)
    print(out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
