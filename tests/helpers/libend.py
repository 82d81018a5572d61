#!/usr/bin/python3
"""tests/helpers/libend.py: a library run that ends while its command
still runs (the contract allows cordon_end() once every spawn has
returned, not once every command has ended).

  libend.py LIBCORDON STATE_DIR SECONDS -- CMD...
      cordon_begin, cordon_spawn(CMD), SECONDS of sleep, cordon_end
      (the command not waited for), then cordon_wait. Prints
      "end R" with cordon_end's return code, then "exit N" with the
      command's exit code as cordon_wait saw it, or "error: ..." with
      cordon's last error (exit 1). Test helper only.
"""
import ctypes
import sys
import time


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
    lib.cordon_set_state_dir.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.cordon_begin.argtypes = [ctypes.c_void_p]
    lib.cordon_spawn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                                 ctypes.POINTER(ctypes.c_void_p)]
    lib.cordon_wait.argtypes = [ctypes.c_void_p, ctypes.POINTER(Result)]
    lib.cordon_end.argtypes = [ctypes.c_void_p]
    lib.cordon_last_error.argtypes = [ctypes.c_void_p]
    lib.cordon_free.argtypes = [ctypes.c_void_p]
    lib.cordon_tampered_count.argtypes = [ctypes.c_void_p]
    lib.cordon_tampered_count.restype = ctypes.c_size_t
    c = lib.cordon_new()
    cmd = sys.argv[5:]
    argv = (ctypes.c_char_p * (len(cmd) + 1))(*[a.encode() for a in cmd], None)
    proc = ctypes.c_void_p()
    res = Result()
    rc = 0
    if lib.cordon_set_state_dir(c, sys.argv[2].encode()) != 0 or lib.cordon_begin(c) != 0 \
            or lib.cordon_spawn(c, argv, ctypes.byref(proc)) != 0:
        print("error: " + lib.cordon_last_error(c).decode())
        rc = 1
    else:
        time.sleep(float(sys.argv[3]))
        print("end %d" % lib.cordon_end(c), flush=True)
        print("tampered %d" % lib.cordon_tampered_count(c), flush=True)
        if lib.cordon_wait(proc, ctypes.byref(res)) != 0:
            print("error: " + lib.cordon_last_error(c).decode())
            rc = 1
        else:
            print("exit %d" % res.exit_code)
    lib.cordon_free(c)
    return rc


if __name__ == "__main__":
    sys.exit(main())
