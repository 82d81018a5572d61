#!/usr/bin/python3
"""tests/helpers/libspawns.py: one library run of several commands, as an
agent's session spawns them (one cordon_begin, a spawn and wait each, one
cordon_end).

  libspawns.py LIBCORDON STATE_DIR [--max-procs N] [--max-memory BYTES]
              [--max-tmp BYTES] -- CMD... [--then CMD...]...
      Prints "tmpdir PATH" after cordon_begin, "exit N" for each command
      in turn, then "end R" with cordon_end's return code, or
      "error: ..." with cordon's last error (exit 1). The options call
      cordon_set_max_procs, _memory, _tmp. Test helper only.
"""
import ctypes
import os
import sys


class Result(ctypes.Structure):
    _fields_ = [("exit_code", ctypes.c_int), ("signal", ctypes.c_int),
                ("timed_out", ctypes.c_int), ("exec_errno", ctypes.c_int)]


def commands(args):
    cmds, cur = [], []
    for a in args:
        if a == "--then":
            cmds.append(cur)
            cur = []
        else:
            cur.append(a)
    cmds.append(cur)
    return [c for c in cmds if c]


def bind(lib):
    lib.cordon_new.restype = ctypes.c_void_p
    lib.cordon_last_error.restype = ctypes.c_char_p
    lib.cordon_last_error.argtypes = [ctypes.c_void_p]
    lib.cordon_tmpdir.restype = ctypes.c_char_p
    lib.cordon_tmpdir.argtypes = [ctypes.c_void_p]
    lib.cordon_set_state_dir.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.cordon_begin.argtypes = [ctypes.c_void_p]
    lib.cordon_spawn.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                                 ctypes.POINTER(ctypes.c_void_p)]
    lib.cordon_wait.argtypes = [ctypes.c_void_p, ctypes.POINTER(Result)]
    lib.cordon_end.argtypes = [ctypes.c_void_p]
    lib.cordon_free.argtypes = [ctypes.c_void_p]


def run(lib, c, cmds):
    if lib.cordon_begin(c) != 0:
        return False
    print("tmpdir " + lib.cordon_tmpdir(c).decode(), flush=True)
    for cmd in cmds:
        argv = (ctypes.c_char_p * (len(cmd) + 1))(*[a.encode() for a in cmd], None)
        proc = ctypes.c_void_p()
        res = Result()
        if lib.cordon_spawn(c, argv, ctypes.byref(proc)) != 0 or \
                lib.cordon_wait(proc, ctypes.byref(res)) != 0:
            return False
        print("exit %d" % res.exit_code, flush=True)
    print("end %d" % lib.cordon_end(c), flush=True)
    return True


def main():
    args = sys.argv[1:]
    if len(args) < 4 or "--" not in args:
        print(__doc__, file=sys.stderr)
        return 2
    sep = args.index("--")
    libpath, state, opts, cmds = args[0], args[1], args[2:sep], commands(args[sep + 1:])
    lib = ctypes.CDLL(libpath)
    # A sanitizer runtime preloaded for a sanitized library (make asan)
    # is not the commands' business.
    os.environ.pop("LD_PRELOAD", None)
    bind(lib)
    c = lib.cordon_new()
    ok = lib.cordon_set_state_dir(c, state.encode()) == 0
    setters = {"--max-procs": "cordon_set_max_procs", "--max-memory": "cordon_set_max_memory",
               "--max-tmp": "cordon_set_max_tmp"}
    while ok and opts:
        if opts[0] not in setters or len(opts) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        setter = getattr(lib, setters[opts[0]])
        setter.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
        ok = setter(c, int(opts[1])) == 0
        opts = opts[2:]
    ok = ok and run(lib, c, cmds)
    if not ok:
        print("error: " + lib.cordon_last_error(c).decode())
    lib.cordon_free(c)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
