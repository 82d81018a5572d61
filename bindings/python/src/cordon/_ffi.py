"""libcordon through ctypes: finding the library and declaring the
functions of include/cordon.h that the bindings call.

The library is looked for, in this order: the path given to
cordon.load_library() (or a Run's ``library=``), the CORDON_LIBRARY
environment variable (a path), then the system's loader: libcordon.so.0
(the loader's directories, LD_LIBRARY_PATH, an ldconfig'd prefix), then
what ctypes.util.find_library("cordon") finds.
"""
import ctypes
import ctypes.util
import os
import threading

c_char_p = ctypes.c_char_p
c_int = ctypes.c_int
c_void_p = ctypes.c_void_p
c_char_pp = ctypes.POINTER(ctypes.c_char_p)


class Result(ctypes.Structure):
    """struct cordon_result"""
    _fields_ = [("exit_code", c_int), ("signal", c_int), ("timed_out", c_int),
                ("exec_errno", c_int)]


class Stdio(ctypes.Structure):
    """struct cordon_stdio"""
    _fields_ = [("how", c_int * 3), ("fd", c_int * 3)]


STDIO_INHERIT, STDIO_FD, STDIO_PIPE, STDIO_NULL, STDIO_STDOUT = 0, 1, 2, 3, 4


class LibraryNotFoundError(ImportError):
    """libcordon could not be loaded; the message says where it was looked for."""


# name: (restype, argtypes). A char * the caller frees is c_void_p, so that
# ctypes does not copy it and lose the pointer.
_FUNCS = {
    "cordon_version": (c_char_p, []),
    "cordon_identifiers": (c_char_pp, []),
    "cordon_new": (c_void_p, []),
    "cordon_free": (None, [c_void_p]),
    "cordon_last_error": (c_char_p, [c_void_p]),
    "cordon_default_deny_read": (c_char_pp, []),
    "cordon_default_deny_env": (c_char_pp, []),
    "cordon_set_option": (c_int, [c_void_p, c_char_p, c_char_p]),
    "cordon_option_takes_value": (c_int, [c_char_p]),
    "cordon_set_foreground": (c_int, [c_void_p, c_int]),
    "cordon_set_reap_all": (c_int, [c_void_p, c_int]),
    "cordon_use_agent_policy": (c_int, [c_void_p]),
    "cordon_profile_names": (c_char_pp, []),
    "cordon_profile_text": (c_char_p, [c_char_p]),
    "cordon_options_text": (c_void_p, [c_void_p]),
    "cordon_probe": (c_int, [c_void_p]),
    "cordon_begin": (c_int, [c_void_p]),
    "cordon_spawn_stdio": (c_int, [c_void_p, c_char_pp, ctypes.POINTER(Stdio),
                                   ctypes.POINTER(c_void_p)]),
    "cordon_proc_pid": (ctypes.c_long, [c_void_p]),
    "cordon_wait": (c_int, [c_void_p, ctypes.POINTER(Result)]),
    "cordon_end": (c_int, [c_void_p]),
    "cordon_last_result": (c_int, [c_void_p, ctypes.POINTER(Result)]),
    "cordon_applied": (c_int, [c_void_p]),
    "cordon_backend_name": (c_char_p, [c_void_p]),
    "cordon_reason": (c_char_p, [c_void_p]),
    "cordon_cause": (c_char_p, [c_void_p]),
    "cordon_reason_detail": (c_char_p, [c_void_p]),
    "cordon_abi": (c_int, [c_void_p]),
    "cordon_layers": (c_char_pp, [c_void_p]),
    "cordon_gaps": (c_char_pp, [c_void_p]),
    "cordon_tampered_count": (ctypes.c_size_t, [c_void_p]),
    "cordon_tampered_path": (c_char_p, [c_void_p, ctypes.c_size_t]),
    "cordon_tampered_moved": (c_char_p, [c_void_p, ctypes.c_size_t]),
    "cordon_tmpdir": (c_char_p, [c_void_p]),
    "cordon_status_json": (c_void_p, [c_void_p]),
    "cordon_probe_json": (c_void_p, [c_void_p]),
    "cordon_reason_text": (c_char_p, [c_char_p]),
}

_lock = threading.Lock()
_loaded = {}
_default = None


def _candidates(path):
    if path is not None:
        return [os.fsdecode(path)], "the path given"
    env = os.environ.get("CORDON_LIBRARY")
    if env:
        return [env], "CORDON_LIBRARY"
    names = ["libcordon.so.0", "libcordon.so"]
    found = ctypes.util.find_library("cordon")
    if found and found not in names:
        names.append(found)
    return names, "the system's loader"


def _declare(lib):
    for name, (restype, argtypes) in _FUNCS.items():
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = argtypes
    # libc's free() for the strings the library hands over.
    libc = ctypes.CDLL(None)
    lib.cordon_free_string = libc.free
    lib.cordon_free_string.restype = None
    lib.cordon_free_string.argtypes = [c_void_p]
    return lib


def load(path=None):
    """The library (loaded once per path); path None: the default search."""
    global _default
    with _lock:
        if path is None and _default is not None:
            return _default
        names, where = _candidates(path)
        errors = []
        for name in names:
            if name in _loaded:
                lib = _loaded[name]
                break
            try:
                lib = _declare(ctypes.CDLL(name))
            except (OSError, AttributeError) as e:
                errors.append("%s: %s" % (name, e))
                continue
            _loaded[name] = lib
            break
        else:
            raise LibraryNotFoundError(
                "libcordon not found (%s): %s. Build it (make) and set "
                "CORDON_LIBRARY=/path/to/build/libcordon.so, or install it "
                "(make install PREFIX=...) where the loader looks"
                % (where, "; ".join(errors)))
        if path is None:
            _default = lib
        return lib


def strings(p):
    """A NULL-terminated char ** of the library, as str."""
    out = []
    if not p:
        return out
    i = 0
    while p[i] is not None:
        out.append(os.fsdecode(p[i]))
        i += 1
    return out


def take_string(lib, p):
    """A char * the caller frees, as bytes (None for NULL)."""
    if not p:
        return None
    try:
        return ctypes.string_at(p)
    finally:
        lib.cordon_free_string(p)
