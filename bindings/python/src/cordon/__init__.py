"""Run commands confined by cordon (Landlock on Linux, Seatbelt on macOS):
ctypes bindings of libcordon, standard library only.

    import cordon

    with cordon.Run(workspace="/home/me/project", mode="required",
                    network="off") as run:
        done = run.run(["make", "test"])          # stdout, stderr captured
        print(done.returncode, done.stdout.decode())
    print(run.report.start.gaps, run.report.exit.exit_code)

The life cycle is the library's: Run(...) records the options (nothing
touches the kernel; a bad option raises at once), begin() (or ``with``)
starts the run, any number of spawn()s from any threads, then end() (or
leaving the ``with``) ends it: what still runs is killed, the guards look
at what the run left, its temp dir is removed and the exit event written.

Options are cordon run's, by their long names with "_" for "-", applied
through the library's one option table in a fixed order (workspace, cwd,
profiles, policy files, then the rest): a single-valued option given again
with another value (a profile's network off, then network="on") raises
InvalidArgumentError, so a profile or policy file is never undone.

Errors raise CordonError subclasses carrying the library's code
(ErrorCode) and its message (cordon_last_error()).
"""
import ctypes
import json as _json
import os
import signal as _signal
import subprocess
import threading
from dataclasses import dataclass, field
from typing import List, Optional

from . import _ffi
from ._errors import (ConfineError, CordonError, ErrorCode, ExecError, InvalidArgumentError,
                      OutOfMemoryError, RefusedError, StateError, SystemCallError,
                      TamperedError, UnavailableError, _error)
from ._ffi import LibraryNotFoundError
from ._options import Mode, Network, _fs, _options
from .events import (Cache, Event, ExitEvent, InvalidEvent, NetworkConnect,
                     NetworkCounts, OtherEvent, PossibleRefusal, Protected, ReadDenied,
                     StatusEvent, Tampered, parse_event, parse_lines)

__version__ = "0.1.0"

__all__ = [
    "Run", "Process", "probe", "load_library", "version", "identifiers", "profile_names",
    "profile_text", "default_deny_read", "default_deny_env", "reason_text",
    "Mode", "Network", "PIPE", "STDOUT", "DEVNULL", "ExitStatus", "Completed", "Report", "Probe",
    "Event", "StatusEvent", "ExitEvent", "NetworkConnect", "OtherEvent", "InvalidEvent",
    "Protected", "ReadDenied", "Cache", "Tampered", "PossibleRefusal", "NetworkCounts",
    "parse_event", "parse_lines",
    "ErrorCode", "CordonError", "InvalidArgumentError", "OutOfMemoryError", "SystemCallError",
    "StateError", "RefusedError", "UnavailableError", "ConfineError", "ExecError",
    "TamperedError", "LibraryNotFoundError",
]

PIPE = subprocess.PIPE
STDOUT = subprocess.STDOUT
DEVNULL = subprocess.DEVNULL


def load_library(path=None):
    """Loads libcordon now: from path, else CORDON_LIBRARY, else the
    system's loader. Raises LibraryNotFoundError."""
    return _ffi.load(path)


def version() -> str:
    return load_library().cordon_version().decode()


def identifiers() -> List[str]:
    """Every fixed identifier cordon writes (a secret redaction may leave
    them alone)."""
    return _ffi.strings(load_library().cordon_identifiers())


def profile_names() -> List[str]:
    return _ffi.strings(load_library().cordon_profile_names())


def profile_text(name: str) -> Optional[str]:
    t = load_library().cordon_profile_text(name.encode())
    return t.decode() if t is not None else None


def default_deny_read() -> List[str]:
    return _ffi.strings(load_library().cordon_default_deny_read())


def default_deny_env() -> List[str]:
    return _ffi.strings(load_library().cordon_default_deny_env())


def reason_text(reason: str) -> Optional[str]:
    t = load_library().cordon_reason_text(reason.encode())
    return t.decode() if t is not None else None


@dataclass
class ExitStatus:
    """How a command ended (struct cordon_result): exit_code is 0-255 as the
    shell reports it (128+N on signal N, 124 on the timeout, 125 when
    confinement failed, 126/127 exec failures)."""
    exit_code: int
    signal: Optional[int]
    timed_out: bool
    exec_errno: Optional[int]

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @classmethod
    def _from(cls, r):
        return cls(r.exit_code, r.signal or None, bool(r.timed_out), r.exec_errno or None)


@dataclass
class Completed:
    """What Run.run() returns."""
    args: List[str]
    status: ExitStatus
    stdout: Optional[bytes]
    stderr: Optional[bytes]

    @property
    def returncode(self) -> int:
        return self.status.exit_code


@dataclass
class Report:
    """What a run reported when it ended."""
    start: Optional[StatusEvent]
    exit: Optional[ExitEvent]
    events: List[Event] = field(repr=False)
    tampered: List[Tampered]
    last: Optional[ExitStatus]


@dataclass
class Probe:
    applied: bool
    backend: str
    reason: Optional[str]
    cause: Optional[str]
    detail: Optional[str]
    abi: int
    layers: List[str]
    gaps: List[str]
    json: dict = field(repr=False)


class _Handle:
    """A cordon handle and its options; freed when closed."""

    def __init__(self, library, options):
        self.lib = _ffi.load(library)
        self.c = self.lib.cordon_new()
        if not self.c:
            raise OutOfMemoryError(ErrorCode.OUT_OF_MEMORY, "cordon_new: out of memory")
        try:
            for name, value in _options(dict(options)):
                self.check(self.lib.cordon_set_option(self.c, name.encode(), value))
        except BaseException:
            self.free()
            raise

    def check(self, r, report=None):
        """Raises the error of the call that returned r (its message is the
        calling thread's: read here, right after the call)."""
        if r != 0:
            msg = self.lib.cordon_last_error(self.c)
            raise _error(r, os.fsdecode(msg) if msg else "", report)

    def free(self):
        if self.c:
            self.lib.cordon_free(self.c)
            self.c = None


def probe(library=None, **options) -> Probe:
    """What confinement works here for these options (a throw-away child,
    once per process): no temp dir, no event."""
    h = _Handle(library, options)
    try:
        lib, c = h.lib, h.c
        h.check(lib.cordon_probe(c))
        js = _ffi.take_string(lib, lib.cordon_probe_json(c))
        return Probe(applied=bool(lib.cordon_applied(c)),
                     backend=lib.cordon_backend_name(c).decode(),
                     reason=_str(lib.cordon_reason(c)), cause=_str(lib.cordon_cause(c)),
                     detail=_str(lib.cordon_reason_detail(c)), abi=lib.cordon_abi(c),
                     layers=_ffi.strings(lib.cordon_layers(c)),
                     gaps=_ffi.strings(lib.cordon_gaps(c)),
                     json=_json.loads(js) if js else {})
    finally:
        h.free()


def _str(b):
    return os.fsdecode(b) if b is not None else None


class _Collector:
    """The run's status events, read from a pipe (the library's status fd)
    by a thread, so the library never blocks on a full pipe."""

    def __init__(self):
        self.rfd, self.wfd = os.pipe()  # close-on-exec (PEP 446)
        self.events = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, name="cordon-events", daemon=True)
        self.thread.start()

    def _read(self):
        with open(self.rfd, "rb") as f:
            for line in f:
                if line.strip():
                    ev = parse_event(line)
                    with self.lock:
                        self.events.append(ev)

    def snapshot(self):
        with self.lock:
            return list(self.events)

    def finish(self):
        if self.wfd is not None:
            os.close(self.wfd)
            self.wfd = None
        self.thread.join()
        return self.snapshot()


def _stdio_spec(v, i):
    """(how, fd) of struct cordon_stdio for fd i."""
    if v is None:
        return _ffi.STDIO_INHERIT, -1
    if v == PIPE:
        return _ffi.STDIO_PIPE, -1
    if v == DEVNULL:
        return _ffi.STDIO_NULL, -1
    if v == STDOUT:
        if i != 2:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                       "STDOUT is for stderr only")
        return _ffi.STDIO_STDOUT, -1
    fd = v if isinstance(v, int) else v.fileno()
    if fd < 0:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, "a bad fd %d" % fd)
    return _ffi.STDIO_FD, fd


class Run:
    """One run: Run(workspace=..., mode=..., ...) records its options (a bad
    one raises here), begin() or ``with`` starts it, end() or the end of the
    ``with`` ends it (report in ``run.report``). Thread-safe: spawn() from
    any threads at once; end() waits for spawns under way and reaps every
    command not waited for."""

    def __init__(self, workspace=None, *, capture_events=True, library=None,
                 foreground=False, reap_all=False, **options):
        if workspace is not None:
            options["workspace"] = workspace
        self._h = _Handle(library, options)
        lib, c = self._h.lib, self._h.c
        if foreground:
            self._h.check(lib.cordon_set_foreground(c, 1))
        if reap_all:
            self._h.check(lib.cordon_set_reap_all(c, 1))
        self._capture = capture_events
        self._collector = None
        self._cond = threading.Condition()
        self._begun = self._closed = False
        self._active = 0
        self._procs = set()
        self._settle = threading.Lock()
        self._settled = False
        self.report = None

    # --- the life cycle ---
    def begin(self):
        if self._begun or self._closed or self._h.c is None:
            raise StateError(ErrorCode.STATE, "a run begins once (a failed begin ends it)")
        lib, c = self._h.lib, self._h.c
        try:
            if self._capture:
                self._collector = _Collector()
                self._h.check(lib.cordon_set_option(c, b"status-fd",
                                                    str(self._collector.wfd).encode()))
            self._h.check(lib.cordon_begin(c))
        except BaseException:
            # A handle that failed to begin never begins: let it go.
            self._closed = True
            self._h.free()
            if self._collector is not None:
                self._collector.finish()
            raise
        self._begun = True
        return self

    def __enter__(self):
        return self if self._begun else self.begin()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.end()
        else:
            # Do not hide the error under way with one of the end.
            try:
                self.end()
            except CordonError:
                pass
        return False

    def _open(self):
        if not self._begun or self._closed or self._h.c is None:
            raise StateError(ErrorCode.STATE, "the run is not under way")

    def spawn(self, args, stdin=None, stdout=None, stderr=None) -> "Process":
        """Starts a command (cordon_spawn_stdio). stdin, stdout, stderr:
        None (this process's own), PIPE (a pipe: the Process's .stdin,
        .stdout, .stderr), DEVNULL, STDOUT (stderr only: 2>&1), an fd or an
        object with fileno() (borrowed for the call)."""
        argv = [_fs(a) for a in args]
        if not argv:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, "empty command")
        io = _ffi.Stdio()
        for i, v in enumerate((stdin, stdout, stderr)):
            io.how[i], io.fd[i] = _stdio_spec(v, i)
        arr = (ctypes.c_char_p * (len(argv) + 1))(*argv, None)
        p = ctypes.c_void_p()
        with self._cond:
            self._open()
            self._active += 1
        try:
            lib, c = self._h.lib, self._h.c
            if self._settled:
                r = lib.cordon_spawn_stdio(c, arr, ctypes.byref(io), ctypes.byref(p))
                self._h.check(r)
            else:
                with self._settle:
                    r = lib.cordon_spawn_stdio(c, arr, ctypes.byref(io), ctypes.byref(p))
                    self._h.check(r)
                    self._settled = True
            proc = Process(self, p.value, [os.fsdecode(a) for a in argv], io,
                           (stdin, stdout, stderr))
            with self._cond:
                self._procs.add(proc)
            return proc
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    def run(self, args, input=None, stdin=None, stdout=PIPE, stderr=PIPE) -> Completed:
        """Runs a command to its end; its output captured by default, its
        stdin /dev/null unless input (bytes) or stdin says otherwise."""
        if input is not None:
            stdin = PIPE
        elif stdin is None:
            stdin = DEVNULL
        p = self.spawn(args, stdin, stdout, stderr)
        out, err = p.communicate(input)
        return Completed(p.args, p.status, out, err)

    def end(self) -> Report:
        """Ends the run (cordon_end) and returns its report; raises
        TamperedError (or UnavailableError) carrying the report when the
        run ended that way. A second call returns the report again."""
        with self._cond:
            if self._closed and self.report is not None:
                return self.report
            if not self._begun or self._closed:
                raise StateError(ErrorCode.STATE, "the run has not begun")
            self._closed = True
            while self._active:
                self._cond.wait()
            procs = list(self._procs)
        lib, c = self._h.lib, self._h.c
        r = lib.cordon_end(c)
        msg = lib.cordon_last_error(c) if r != 0 else None
        tampered = []
        for i in range(lib.cordon_tampered_count(c)):
            path = lib.cordon_tampered_path(c, i)
            if path is None:
                break
            moved = lib.cordon_tampered_moved(c, i)
            tampered.append(Tampered(os.fsdecode(path), os.fsdecode(moved) if moved else None))
        res = _ffi.Result()
        last = ExitStatus._from(res) if lib.cordon_last_result(c, ctypes.byref(res)) == 0 else None
        # Commands never waited for were killed by the end: reap them
        # before the handle goes.
        for p in procs:
            p._reap()
        self._h.free()
        events = self._collector.finish() if self._collector else []
        start = next((e for e in events if isinstance(e, StatusEvent)), None)
        exit_ = next((e for e in reversed(events) if isinstance(e, ExitEvent)), None)
        self.report = Report(start, exit_, events, tampered, last)
        if r != 0:
            raise _error(r, os.fsdecode(msg) if msg else "", self.report)
        return self.report

    close = end

    def __del__(self):
        try:
            if getattr(self, "_begun", False) and not self._closed:
                self.end()
            elif getattr(self, "_h", None) is not None and not self._begun:
                self._h.free()
        except Exception:
            pass

    # --- the decision (final once a spawn succeeded) ---
    def _getter(self, f):
        with self._cond:
            self._open()
        if self._settled:
            return f(self._h.lib, self._h.c)
        with self._settle:
            return f(self._h.lib, self._h.c)

    @property
    def applied(self) -> bool:
        return self._getter(lambda lib, c: bool(lib.cordon_applied(c)))

    @property
    def backend(self) -> str:
        return self._getter(lambda lib, c: lib.cordon_backend_name(c).decode())

    @property
    def reason(self) -> Optional[str]:
        return self._getter(lambda lib, c: _str(lib.cordon_reason(c)))

    @property
    def cause(self) -> Optional[str]:
        return self._getter(lambda lib, c: _str(lib.cordon_cause(c)))

    @property
    def abi(self) -> int:
        return self._getter(lambda lib, c: lib.cordon_abi(c))

    @property
    def layers(self) -> List[str]:
        return self._getter(lambda lib, c: _ffi.strings(lib.cordon_layers(c)))

    @property
    def gaps(self) -> List[str]:
        return self._getter(lambda lib, c: _ffi.strings(lib.cordon_gaps(c)))

    @property
    def tmpdir(self) -> Optional[str]:
        return self._getter(lambda lib, c: _str(lib.cordon_tmpdir(c)))

    def status(self) -> StatusEvent:
        """The start event as the run would write it now
        (cordon_status_json): assumed until the first spawn returned, final
        after."""
        js = self._getter(lambda lib, c: _ffi.take_string(lib, lib.cordon_status_json(c)))
        ev = parse_event(js or b"")
        if not isinstance(ev, StatusEvent):
            raise SystemCallError(ErrorCode.SYSTEM, "cordon_status_json: %r" % (ev,))
        return ev

    @property
    def events(self) -> List[Event]:
        """The events read so far (the start event comes with the first
        spawn, a moment after it returned)."""
        return self._collector.snapshot() if self._collector else []

    def options_text(self) -> str:
        t = _ffi.take_string(self._h.lib, self._h.lib.cordon_options_text(self._h.c))
        return os.fsdecode(t or b"")


class Process:
    """A started command. Not waited for, it runs until the run ends (which
    kills it)."""

    def __init__(self, run, p, args, io, specs):
        self._run = run
        self._p = p
        self._lock = threading.Lock()  # one wait at a time
        self._state = threading.Lock()
        self.args = args
        self.pid = run._h.lib.cordon_proc_pid(p)
        self.status = None
        files = []
        for i, mode in enumerate(("wb", "rb", "rb")):
            if specs[i] == PIPE and io.fd[i] >= 0:
                # stdin unbuffered: what is written reaches the command.
                files.append(open(io.fd[i], mode, buffering=0 if i == 0 else -1))
            else:
                files.append(None)
        self.stdin, self.stdout, self.stderr = files

    @property
    def returncode(self) -> Optional[int]:
        return self.status.exit_code if self.status is not None else None

    def send_signal(self, sig):
        """Signals the command's whole process group (as cordon_proc_kill),
        unless it was waited for already."""
        with self._state:
            if self.status is None:
                os.killpg(self.pid, sig)

    def kill(self):
        self.send_signal(_signal.SIGKILL)

    def terminate(self):
        self.send_signal(_signal.SIGTERM)

    def _wait_raw(self):
        with self._lock:
            if self.status is not None:
                return self.status
            res = _ffi.Result()
            r = self._run._h.lib.cordon_wait(self._p, ctypes.byref(res))
            with self._state:
                self._p = None
                self.status = ExitStatus._from(res) if r == 0 else ExitStatus(-1, None, False,
                                                                                None)
            with self._run._cond:
                self._run._procs.discard(self)
            if r != 0:
                raise _error(r, "waiting for the command failed")
            return self.status

    def wait(self) -> ExitStatus:
        """Waits for the command (the run's timeout is kept meanwhile). Its
        stdin pipe is closed first; read its output pipes before, or use
        communicate() (a full pipe stops the command)."""
        if self.stdin is not None:
            self.stdin.close()
        return self._wait_raw()

    def _reap(self):
        try:
            self._wait_raw()
        except CordonError:
            pass

    def communicate(self, input=None):
        """Writes input, reads stdout and stderr to their ends while it
        waits; returns (stdout, stderr) (None for one that is not a pipe)."""
        out = {}

        def reader(name, f):
            out[name] = f.read()
            f.close()

        def writer(f, data):
            try:
                if data:
                    f.write(data)
            except BrokenPipeError:
                pass
            finally:
                try:
                    f.close()
                except BrokenPipeError:
                    pass

        threads = []
        if self.stdin is not None:
            stdin, self.stdin = self.stdin, None
            threads.append(threading.Thread(target=writer, args=(stdin, input)))
        for name in ("stdout", "stderr"):
            f = getattr(self, name)
            if f is not None:
                setattr(self, name, None)
                threads.append(threading.Thread(target=reader, args=(name, f)))
        for t in threads:
            t.start()
        try:
            self.wait()
        finally:
            for t in threads:
                t.join()
        return out.get("stdout"), out.get("stderr")
