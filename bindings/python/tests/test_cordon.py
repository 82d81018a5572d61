"""Real commands run confined through the bindings. Every security check
looks at the outside world (the file outside unchanged, the secret not in
the output, the listener never reached), each beside a control that shows
the same action succeeds unconfined."""
import os
import socket
import stat
import threading
import time

import pytest

import cordon
from conftest import skip

def sh(script, *args):
    return ["sh", "-c", script, "sh"] + list(args)


def test_an_outside_write_is_refused_and_the_outside_file_unchanged(t):
    target = os.path.join(t.outside, "f")
    with open(target, "w") as f:
        f.write("original\n")
    new = os.path.join(t.outside, "new")
    # The command reads the file (so it sees it), then writes it and makes
    # a new file beside it, then writes inside.
    cmd = sh('cat "$1"; echo changed >"$1"; s=$?; echo new >"$2"; echo inside >"$3"; '
             'exit $((s + $?))', target, new, os.path.join(t.ws, "in"))
    # Started in the outside directory, which lies in /tmp outside the
    # writable set: the run then sees the machine's /tmp, read-only
    # (tmp_shared_read_only), so the file is there to be refused.
    run = t.confined(cwd=t.outside)
    with run:
        done = run.run(cmd)
    assert done.stdout == b"original\n", "the command saw the file"
    assert done.returncode != 0
    with open(target) as f:
        assert f.read() == "original\n", "the outside file unchanged"
    assert not os.path.exists(new), "no new file outside"
    with open(os.path.join(t.ws, "in")) as f:
        assert f.read() == "inside\n", "the inside write landed"
    err = done.stderr.decode()
    assert "Read-only file system" in err or "Permission denied" in err, err
    start, exit_ = run.report.start, run.report.exit
    assert start.applied and start.mode == "required" and start.cwd == t.outside
    assert start.run_id == exit_.run_id
    assert exit_.exit_code == done.returncode
    assert any(r.kind == "write" for r in exit_.possible_refusals)
    assert run.report.last.exit_code == done.returncode

    # The run's default view (a private /tmp where the mount layer can make
    # one, which hides the machine's): refused as well.
    with t.confined() as run:
        assert run.run(cmd).returncode != 0
    with open(target) as f:
        assert f.read() == "original\n"
    assert not os.path.exists(new)

    # Control: unconfined, the same command changes the file.
    with t.run(mode="off", cwd=t.outside) as run:
        done = run.run(cmd)
    assert done.returncode == 0, done.stderr
    with open(target) as f:
        assert f.read() == "changed\n"
    assert os.path.exists(new)
    assert run.report.start.applied is False


def test_a_denied_read_gives_nothing_of_the_secret(t):
    # In the workspace: the command sees it (and may write it) but must not
    # read it.
    secret = os.path.join(t.ws, ".env")
    with open(secret, "w") as f:
        f.write("TOKEN-5e2a9b\n")
    with t.confined(deny_read=secret) as run:
        done = run.run(sh("cat .env; ls -a"))
    assert b"TOKEN-5e2a9b" not in done.stdout
    assert b".env" in done.stdout, "the file is there"
    assert any(d.path == secret and d.explicit and d.enforced
               for d in run.report.start.read_denied)
    with t.run(mode="off") as run:
        assert run.run(sh("cat .env")).stdout == b"TOKEN-5e2a9b\n", "control"


def test_a_protected_path_stays_as_it_was(t):
    frozen = os.path.join(t.ws, "frozen")
    with open(frozen, "w") as f:
        f.write("v1\n")
    with t.confined(protect=frozen) as run:
        done = run.run(sh("echo v2 >frozen; s=$?; echo other >other; exit $s"))
    assert done.returncode != 0
    with open(frozen) as f:
        assert f.read() == "v1\n"
    assert os.path.exists(os.path.join(t.ws, "other"))


def test_network_off_never_reaches_a_listener_outside(t):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.setblocking(False)
    port = str(listener.getsockname()[1])
    connect = ["python3", "-c", "import socket,sys\n"
               "s=socket.create_connection(('127.0.0.1',int(sys.argv[1])),3)\n"
               "s.sendall(b'x')", port]
    try:
        with t.confined(network="off") as run:
            done = run.run(connect)
        assert done.returncode != 0
        assert run.report.start.network == "off"
        with pytest.raises(BlockingIOError):
            listener.accept()
        with t.run(mode="off") as run:
            assert run.run(connect).returncode == 0
        listener.setblocking(True)
        conn, _ = listener.accept()
        conn.close()
    finally:
        listener.close()


def test_spawns_from_threads_at_once_each_get_their_own_stdio(t):
    run = t.confined()
    failures = []
    go = threading.Barrier(4)

    done = []

    def worker(n):
        go.wait()
        for r in range(3):
            token = "t%dr%d" % (n, r)
            try:
                p = run.spawn(sh('read x; echo "out $x"; echo "err $x" >&2; exit 3'),
                              stdin=cordon.PIPE, stdout=cordon.PIPE, stderr=cordon.PIPE)
                p.stdin.write(token.encode() + b"\n")
                out, err = p.communicate()
            except Exception as e:  # a thread's exception would not fail the test
                failures.append((token, repr(e)))
                continue
            if (out, err, p.returncode) != (b"out " + token.encode() + b"\n",
                                            b"err " + token.encode() + b"\n", 3):
                failures.append((token, out, err, p.returncode))
            else:
                done.append(token)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert failures == []
    assert len(done) == 12
    # A file of ours as stdout, 2>&1, stdin /dev/null.
    with open(os.path.join(t.ws, "log"), "wb") as f:
        p = run.spawn(sh("cat; echo one; echo two >&2"), stdin=cordon.DEVNULL, stdout=f,
                      stderr=cordon.STDOUT)
        assert p.stdout is None
        assert p.wait().exit_code == 0
    with open(os.path.join(t.ws, "log")) as f:
        assert f.read() == "one\ntwo\n"
    run.end()


def test_the_timeout_kills_and_the_events_say_so(t):
    run = t.confined(timeout=0.3)
    start = time.monotonic()
    done = run.run(["sleep", "30"])
    assert time.monotonic() - start < 20
    assert done.status.timed_out and done.returncode == 124
    status = run.status()
    assert status.applied
    deadline = time.monotonic() + 10
    while not any(isinstance(e, cordon.StatusEvent) for e in run.events):
        assert time.monotonic() < deadline, "no start event in run.events"
        time.sleep(0.01)
    seen = next(e for e in run.events if isinstance(e, cordon.StatusEvent))
    assert seen.run_id == status.run_id
    report = run.end()
    assert report.exit.timed_out and report.exit.exit_code == 124
    assert not any(isinstance(e, cordon.InvalidEvent) for e in report.events)
    assert run.end() is report, "a second end returns the report"


def test_errors_carry_the_librarys_code_and_message(t):
    run = cordon.Run(workspace="/", state_dir=t.state)
    with pytest.raises(cordon.RefusedError) as e:
        run.begin()
    assert e.value.code == cordon.ErrorCode.REFUSED and e.value.message
    with pytest.raises(cordon.StateError):
        run.end()  # a failed begin ended it
    with pytest.raises(cordon.InvalidArgumentError) as e:
        t.run(options=[("no-such-option", "x")])
    assert "no-such-option" in e.value.message
    with pytest.raises(cordon.InvalidArgumentError) as e:
        t.run(network="on", profile="agent")
    assert "--network given twice" in e.value.message, "a profile is not undone"
    with pytest.raises(ValueError):
        t.run(network="sideways")
    with pytest.raises(TypeError):
        t.run(no_such_keyword=1)
    with t.run() as run:
        with pytest.raises(cordon.ExecError):
            run.spawn(["cordon-no-such-command"])
        with pytest.raises(cordon.InvalidArgumentError):
            run.spawn(["true"], stdout=cordon.STDOUT)
        with pytest.raises(cordon.InvalidArgumentError):
            run.spawn(["a\0b"])
    with pytest.raises(cordon.StateError):
        run.spawn(["true"])
    with pytest.raises(cordon.LibraryNotFoundError) as e:
        cordon.load_library(os.path.join(t.root, "no-libcordon.so"))
    assert "no-libcordon.so" in str(e.value)

    # A network socket as stdout with the network off would leak.
    run = t.confined(network="off")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    s = socket.create_connection(listener.getsockname())
    peer, _ = listener.accept()
    with pytest.raises(cordon.RefusedError):
        run.spawn(sh("echo leaked"), stdout=s)
    run.end()
    s.close()
    peer.settimeout(5)
    assert peer.recv(100) == b"", "nothing reached the socket"
    peer.close()
    listener.close()


def test_the_end_kills_and_reaps_what_runs_and_removes_the_temp_dir(t):
    status = os.path.join(t.root, "status.jsonl")
    run = t.confined(status_file=status)
    tmpdir = run.tmpdir
    assert os.path.isdir(tmpdir)
    p = run.spawn(["sleep", "30"])
    assert os.path.exists("/proc/%d" % p.pid)
    with run:
        assert run.run(["true"]).returncode == 0
    assert not os.path.exists("/proc/%d" % p.pid), "killed and reaped"
    assert p.status is not None and p.status.signal == 9
    assert not os.path.exists(tmpdir)
    with open(status, "rb") as f:
        events = cordon.parse_lines(f.read())
    assert isinstance(events[0], cordon.StatusEvent)
    assert isinstance(events[-1], cordon.ExitEvent)


def test_a_policy_file_applies_and_the_start_event_names_it(t):
    with open(os.path.join(t.ws, "frozen"), "w") as f:
        f.write("v1\n")
    policy = os.path.join(t.root, "run.policy")
    with open(policy, "w") as f:
        f.write("# the tests' policy\nprotect frozen\n")
    os.chmod(policy, stat.S_IRUSR | stat.S_IWUSR)
    with t.confined(policy=policy) as run:
        assert run.run(sh("echo v2 >frozen")).returncode != 0
    with open(os.path.join(t.ws, "frozen")) as f:
        assert f.read() == "v1\n"
    assert {"file": policy} in run.report.start.raw["policy"]
    bad = os.path.join(t.root, "bad.policy")
    with open(bad, "w") as f:
        f.write("protect\n")
    os.chmod(bad, stat.S_IRUSR | stat.S_IWUSR)
    with pytest.raises(cordon.InvalidArgumentError) as e:
        t.run(policy=bad)
    assert "bad.policy:1" in e.value.message


def test_a_planted_hook_is_moved_aside_and_end_reports_it(t):
    run = t.confined()
    done = run.run(sh("mkdir -p .claude && echo '{\"hooks\":{}}' >.claude/settings.json"))
    assert done.returncode == 0, done.stderr
    with pytest.raises(cordon.TamperedError) as e:
        run.end()
    report = e.value.report
    held = [x for x in report.tampered if x.path == os.path.join(t.ws, ".claude")]
    assert held and os.path.isfile(os.path.join(held[0].moved_to, "settings.json"))
    assert not os.path.exists(os.path.join(t.ws, ".claude"))
    assert report.exit.exit_code == 125 and report.exit.command_exit_code == 0
    assert report.exit.tampered == report.tampered, "the getters and the event agree"


def test_paths_that_are_not_utf8_come_back_as_the_os_names_them(t):
    ws = os.fsdecode(os.fsencode(t.root) + b"/w\xffs")
    os.mkdir(ws)
    with t.confined(workspace=ws, cwd=ws) as run:
        assert run.run(sh("echo x >f")).returncode == 0
    assert run.report.start.cwd == ws
    assert ws in run.report.start.writable
    assert os.path.exists(os.path.join(ws, "f"))


def test_probe_and_the_librarys_lists(t):
    p = cordon.probe(workspace=t.ws, state_dir=t.state)
    assert p.backend in ("landlock", "seatbelt", "none")
    assert isinstance(p.json, dict) and p.json
    if not p.applied:
        skip("confinement unavailable here: %s" % p.reason)
    assert "landlock" in p.layers or "seatbelt" in p.layers
    assert "bash_sandbox_status" in cordon.identifiers()
    assert "agent" in cordon.profile_names()
    assert "network" in cordon.profile_text("agent")
    assert cordon.profile_text("no-such-profile") is None
    assert cordon.version() == cordon.__version__
    assert cordon.reason_text("landlock_disabled")
