"""cordon run's options from Run()'s and probe()'s keywords: (name, value)
pairs for cordon_set_option(), in the order they are applied."""
import enum
import os

from ._errors import ErrorCode, InvalidArgumentError


class Mode(str, enum.Enum):
    AUTO = "auto"
    REQUIRED = "required"
    OFF = "off"


class Network(str, enum.Enum):
    ON = "on"
    OFF = "off"


def _fs(p) -> bytes:
    b = os.fsencode(p)
    if b"\0" in b:
        # C would cut it there: refuse it, as the Rust bindings do.
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, "%r holds a NUL byte" % (p,))
    return b


def _paths(v):
    """One path or an iterable of them."""
    if v is None:
        return []
    if isinstance(v, (str, bytes, os.PathLike)):
        return [v]
    return list(v)


def _timeout(seconds) -> bytes:
    ms = int(-(-float(seconds) * 1000 // 1))  # rounded up
    return ("%d.%03d" % (ms // 1000, ms % 1000)).encode()


def _options(kw):
    """(name, value bytes or None) in the order they are applied."""
    out = []
    pop = kw.pop

    def one(name, v, conv=_fs):
        if v is not None:
            out.append((name, conv(v)))

    def many(name, v):
        for p in _paths(v):
            out.append((name, _fs(p)))

    def flag(name, v):
        if v:
            out.append((name, None))

    one("workspace", pop("workspace", None))
    one("cwd", pop("cwd", None))
    for p in _paths(pop("profile", None)):
        out.append(("profile", str(p).encode()))
    many("policy", pop("policy", None))
    one("sandbox", pop("mode", None), lambda m: Mode(m).value.encode())
    net = pop("network", None)
    one("network", net, lambda n: Network(n).value.encode())
    allow = pop("network_allow", None)
    if allow is not None:
        allow = allow if isinstance(allow, str) else ",".join(allow)
        out.append(("network", b"allow=" + allow.encode()))
    one("network-allow-file", pop("network_allow_file", None))
    flag("network-allow-local", pop("network_allow_local", False))
    flag("network-allow-http", pop("network_allow_http", False))
    for r in _paths(pop("network_resolve", None)):
        out.append(("network-resolve", str(r).encode()))
    for name in ("allow_write", "allow_socket", "pass_file", "protect", "deny_read",
                 "allow_read", "allow_agent_config"):
        many(name.replace("_", "-"), pop(name, None))
    flag("no-default-protect", pop("no_default_protect", False))
    flag("no-default-deny-read", pop("no_default_deny_read", False))
    caches = pop("caches", None)
    if caches is not None:
        caches = caches if isinstance(caches, str) else ",".join(caches)
        out.append(("cache", caches.encode()) if caches else ("no-caches", None))
    one("on-tamper", pop("on_tamper", None), lambda t: str(t).encode())
    one("state-dir", pop("state_dir", None))
    one("status-file", pop("status_file", None))
    one("timeout", pop("timeout", None), _timeout)
    for name in ("max_procs", "max_memory", "max_tmp"):
        one(name.replace("_", "-"), pop(name, None), lambda n: str(n).encode())
    flag("clean-env", pop("clean_env", False))
    env = pop("env", None)
    if isinstance(env, dict):
        for k, v in env.items():
            out.append(("env", _fs(k) if v is None else _fs(k) + b"=" + _fs(v)))
    else:
        many("env", env)
    for fd in pop("keep_fds", None) or []:
        out.append(("keep-fd", str(int(fd)).encode()))
    flag("allow-broad", pop("allow_broad", False))
    one("explain", pop("explain", None), lambda e: str(e).encode())
    flag("scratch-home", pop("scratch_home", False))
    for name, value in pop("options", None) or []:
        _fs(name)
        out.append((name, None if value is None else _fs(value)))
    if kw:
        raise TypeError("unknown option(s): %s" % ", ".join(sorted(kw)))
    return out
