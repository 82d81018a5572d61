#!/usr/bin/python3
"""tests/helpers/keys.py: the kernel keyrings, for the tests, without keyutils.

  keys.py wrap NAME PAYLOAD -- CMD...   join a new session keyring, add the
                                        user key NAME=PAYLOAD to it, exec CMD
  keys.py read NAME                     print the payload of the session
                                        keyring's key NAME (exit 1: none)
  keys.py add NAME PAYLOAD              add or update NAME in the session
                                        keyring (exit 1 with the errno)
  keys.py session-serial                print the session keyring's serial
  keys.py add-user NAME PAYLOAD         add NAME to the user keyring (@u)
  keys.py guard MARKER USERKEY -- CMD...
                                        join a new session keyring holding
                                        the key corpus-key=original, run CMD
                                        (its exit status is guard's), then
                                        create MARKER if the session
                                        keyring changed or the user keyring
                                        holds USERKEY (which is unlinked:
                                        @u is the user's, shared by every
                                        session, so only USERKEY is looked
                                        for)
Test helper only (Linux x86_64 and aarch64).
"""
import ctypes
import os
import platform
import sys

NR = {"x86_64": {"add_key": 248, "keyctl": 250},
      "aarch64": {"add_key": 217, "keyctl": 219}}[platform.machine()]
KEY_SPEC_SESSION_KEYRING = -3
KEY_SPEC_USER_KEYRING = -4
KEYCTL_UNLINK = 9
KEYCTL_GET_KEYRING_ID = 0
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_READ = 11
KEYCTL_SEARCH = 10

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def sys_(*args):
    r = libc.syscall(*args)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def keyctl(*args):
    return sys_(NR["keyctl"], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])


def add(name, payload):
    return sys_(NR["add_key"], b"user", name.encode(), payload.encode(),
                ctypes.c_size_t(len(payload)), ctypes.c_long(KEY_SPEC_SESSION_KEYRING))


def add_user(name, payload):
    return sys_(NR["add_key"], b"user", name.encode(), payload.encode(),
                ctypes.c_size_t(len(payload)), ctypes.c_long(KEY_SPEC_USER_KEYRING))


def members(ring):
    """The serials linked in a keyring (READ of a keyring lists them)."""
    buf = ctypes.create_string_buffer(4096)
    n = keyctl(KEYCTL_READ, ring, buf, ctypes.c_long(len(buf)))
    raw = buf.raw[:min(n, len(buf))]
    return [int.from_bytes(raw[i:i + 4], sys.byteorder) for i in range(0, len(raw), 4)]


def in_user_keyring(name):
    try:
        return keyctl(KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", name.encode(), 0)
    except OSError:
        return None


def guard(marker, userkey, cmd):
    import subprocess
    keyctl(KEYCTL_JOIN_SESSION_KEYRING, b"cordon-corpus")
    add("corpus-key", "original")
    session = members(KEY_SPEC_SESSION_KEYRING)
    rc = subprocess.call(cmd)
    touched = False
    try:
        touched = (read("corpus-key") != "original" or
                   members(KEY_SPEC_SESSION_KEYRING) != session)
    except OSError:
        touched = True
    serial = in_user_keyring(userkey)
    if serial is not None:
        touched = True
        keyctl(KEYCTL_UNLINK, serial, KEY_SPEC_USER_KEYRING)
    if touched:
        open(marker, "a").close()
    return rc


def read(name):
    serial = keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user", name.encode(), 0)
    buf = ctypes.create_string_buffer(4096)
    n = keyctl(KEYCTL_READ, serial, buf, ctypes.c_long(len(buf)))
    return buf.raw[:n].decode()


def main(a):
    try:
        if a[0] == "wrap":
            keyctl(KEYCTL_JOIN_SESSION_KEYRING, b"cordon-test")
            add(a[1], a[2])
            os.execvp(a[4], a[4:])
        if a[0] == "guard":
            return guard(a[1], a[2], a[4:])
        if a[0] == "add-user":
            add_user(a[1], a[2])
            return 0
        if a[0] == "read":
            print(read(a[1]))
        elif a[0] == "add":
            add(a[1], a[2])
        elif a[0] == "session-serial":
            print(keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0))
        return 0
    except OSError as e:
        print(f"keys.py: {os.strerror(e.errno)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
