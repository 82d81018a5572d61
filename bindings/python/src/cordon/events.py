"""The status events cordon writes, one JSON object a line (the CLI
reference, "Status events"), as dataclasses.

Every event keeps its whole object in ``raw``, so a field these classes do
not name is still there. Identifiers (mode, backend, reason, layers,
gaps...) are plain strings from cordon.identifiers(): new ones are added
over time. Paths are str as os.fsdecode() gives them: cordon writes the
bytes of a path that are not UTF-8 as \\udc80-\\udcff, which is Python's
own surrogateescape, so such a path works with os functions as it is and
os.fsencode() gives its bytes.
"""
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

EVENT_STATUS = "bash_sandbox_status"
EVENT_EXIT = "bash_sandbox_exit"
EVENT_NETWORK_CONNECT = "network_connect"


@dataclass
class Protected:
    path: str
    explicit: bool
    enforced: bool
    held: Optional[str]


@dataclass
class ReadDenied:
    path: str
    explicit: bool
    enforced: bool
    by: Optional[str]


@dataclass
class Cache:
    name: str
    path: Optional[str]
    state: str
    variable: Optional[str]


@dataclass
class StatusEvent:
    """bash_sandbox_status: the start of a run."""
    run_id: str
    mode: str
    backend: str
    applied: bool
    reason: Optional[str]
    cause: Optional[str]
    abi: int
    layers: List[str]
    gaps: List[str]
    writable: Optional[List[str]]
    protected: Optional[List[Protected]]
    read_denied: Optional[List[ReadDenied]]
    caches: Optional[List[Cache]]
    env_removed: List[str]
    network: Optional[str]
    network_allow: Optional[List[str]]
    network_proxy: Optional[str]
    cwd: Optional[str]
    cwd_from: Optional[str]
    tmpdir: Optional[str]
    scratch_home: bool
    raw: Dict[str, Any] = field(repr=False)


@dataclass
class Tampered:
    path: str
    moved_to: Optional[str]


@dataclass
class PossibleRefusal:
    kind: str
    means: str


@dataclass
class NetworkCounts:
    allowed: int
    refused: int
    events_dropped: int


@dataclass
class ExitEvent:
    """bash_sandbox_exit: the end of a run."""
    run_id: str
    exit_code: int
    command_exit_code: int
    signal: Optional[int]
    timed_out: bool
    duration_ms: int
    started_at: str
    ended_at: str
    tampered: List[Tampered]
    # possible_refusals, or refusals (its name before 2026-12-06); None
    # when confinement was not applied.
    possible_refusals: Optional[List[PossibleRefusal]]
    network_connections: Optional[NetworkCounts]
    raw: Dict[str, Any] = field(repr=False)


@dataclass
class NetworkConnect:
    """network_connect: one decision of the allow-list proxy."""
    run_id: str
    proto: str
    host: str
    port: int
    address: Optional[str]
    decision: str
    reason: Optional[str]
    raw: Dict[str, Any] = field(repr=False)


@dataclass
class OtherEvent:
    """An event of another name (network_connect_suppressed, or one added
    after these bindings)."""
    event: str
    raw: Dict[str, Any]

    @property
    def run_id(self) -> Optional[str]:
        return self.raw.get("run_id")


@dataclass
class InvalidEvent:
    """A line that is not an event these bindings can read (not JSON, or a
    known event without what it must hold): never dropped silently."""
    line: bytes
    error: str
    run_id = None


Event = Union[StatusEvent, ExitEvent, NetworkConnect, OtherEvent, InvalidEvent]


def _need(o, key, kind):
    v = o[key]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise ValueError("%r is not %s" % (key, kind.__name__))
    return v


def _list(v):
    return list(v) if isinstance(v, list) else []


def _objects(o, key, make):
    v = o.get(key)
    if not isinstance(v, list):
        return None
    return [make(x) for x in v if isinstance(x, dict)]


def _status(o):
    return StatusEvent(
        run_id=_need(o, "run_id", str), mode=_need(o, "mode", str),
        backend=_need(o, "backend", str), applied=_need(o, "applied", bool),
        reason=o.get("reason"), cause=o.get("cause"), abi=o.get("abi") or 0,
        layers=_list(o.get("layers")), gaps=_list(o.get("gaps")),
        writable=o.get("writable"),
        protected=_objects(o, "protected", lambda p: Protected(
            p["path"], bool(p.get("explicit")), bool(p.get("enforced")), p.get("held"))),
        read_denied=_objects(o, "read_denied", lambda p: ReadDenied(
            p["path"], bool(p.get("explicit")), bool(p.get("enforced")), p.get("by"))),
        caches=_objects(o, "caches", lambda p: Cache(
            p["name"], p.get("path"), p["state"], p.get("variable"))),
        env_removed=_list(o.get("env_removed")), network=o.get("network"),
        network_allow=o.get("network_allow"), network_proxy=o.get("network_proxy"),
        cwd=o.get("cwd"), cwd_from=o.get("cwd_from"), tmpdir=o.get("tmpdir"),
        scratch_home=bool(o.get("scratch_home")), raw=o)


def _exit(o):
    refusals = o["possible_refusals"] if "possible_refusals" in o else o.get("refusals")
    counts = o.get("network_connections")
    exit_code = _need(o, "exit_code", int)
    return ExitEvent(
        run_id=_need(o, "run_id", str), exit_code=exit_code,
        command_exit_code=o.get("command_exit_code", exit_code),
        signal=o.get("signal"), timed_out=bool(o.get("timed_out")),
        duration_ms=o.get("duration_ms") or 0, started_at=o.get("started_at") or "",
        ended_at=o.get("ended_at") or "",
        tampered=_objects(o, "tampered", lambda t: Tampered(t["path"], t.get("moved_to")))
        or [],
        possible_refusals=None if not isinstance(refusals, list) else [
            PossibleRefusal(r["kind"], r.get("means", "")) for r in refusals
            if isinstance(r, dict)],
        network_connections=NetworkCounts(counts["allowed"], counts["refused"],
                                          counts["events_dropped"])
        if isinstance(counts, dict) else None,
        raw=o)


def _connect(o):
    return NetworkConnect(
        run_id=_need(o, "run_id", str), proto=_need(o, "proto", str),
        host=o.get("host") or "", port=o.get("port") or 0, address=o.get("address"),
        decision=_need(o, "decision", str), reason=o.get("reason"), raw=o)


_TYPED = {EVENT_STATUS: _status, EVENT_EXIT: _exit, EVENT_NETWORK_CONNECT: _connect}


def parse_event(line: Union[bytes, str]) -> Event:
    """One line of the status stream (its newline may be left on)."""
    raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else bytes(line)
    try:
        o = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return InvalidEvent(raw, "not JSON: %s" % e)
    if not isinstance(o, dict) or not isinstance(o.get("event"), str):
        return InvalidEvent(raw, "no \"event\" name")
    name = o["event"]
    make = _TYPED.get(name)
    if make is None:
        return OtherEvent(name, o)
    try:
        return make(o)
    except (KeyError, TypeError, ValueError) as e:
        return InvalidEvent(raw, "%s: %s" % (name, e))


def parse_lines(text: Union[bytes, str]) -> List[Event]:
    """Every event of a text of lines (a status file), in order."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    return [parse_event(line) for line in text.split(b"\n") if line.strip()]
