#!/usr/bin/python3
"""check.py AGENT ROUTE: one agent through one route, end to end (TAP).

What is asserted (issue 36, item 7), each against the outside world and
against what the model read (the next request's tool result):
  - every tool call ran confined: one start event (applied) and one exit
    event in the status file cordon writes outside the workspace;
  - a write inside the workspace works; one outside is refused, the file
    is not there, and the refusal is in the tool result;
  - the user's ssh key and the agent's own API key do not reach the model;
  - quoting is byte-exact: the files a command with quotes, $, backslashes,
    tabs, newlines and a heredoc writes are those bash -c writes;
  - `cd` is kept between calls exactly where the agent keeps it without
    cordon;
  - a project hook planted by a command (.claude/settings.json,
    .gemini/settings.json, .codex/hooks.json) does not run unconfined in the
    next session;
  - with cordon (or the hook) missing the command does not run, where the
    agent lets a hook or prefix block;
  - an agent ending (its own timeout, or killed) leaves no process behind,
    also one killed with SIGKILL in the middle of a call;
  - a dev server started with the agent's own background tool runs
    confined, is reached by a later call through a Unix socket in the
    workspace (not on 127.0.0.1 under network off), and ends with the
    agent.
The settings are docs/agents.md's recipes (harness.py). The none route
runs the same scenario without cordon: the baseline for `cd`, quoting and
what the agent leaves running, and the proof that the confinement checks
can fail (they are inverted there). CORDON_AGENTS_POLICY="sandbox off"
makes the entry points run unconfined: then the confinement checks fail.
"""

import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402

TAP = h.TAP
REFUSED = ("Read-only file system", "Permission denied",
           "Operation not permitted")

QUOTE_CMD = r"""printf '%s|' "a'b" 'c"d' '$HOME' 'x\y' "tab	x" "$((6*7))" > quote.txt
printf '%s\n' "two \$USER" 'back\\slash' "dq \"in\" dq" >> quote.txt
cat > here.txt <<'EOF'
heredoc $HOME `x` \n 'q' "d"
EOF
echo quoted-done"""
# Gemini CLI refuses a command with `...`, $(...), <(...) or >(...) anywhere
# but in single quotes ("Command injection detected", a quoted heredoc's
# body included), with or without cordon.
QUOTE_CMD_GEMINI = QUOTE_CMD.replace(" `x` ", " x ").replace(
    '"$((6*7))"', '"${#HOME}"')


def quote_cmd(agent):
    return QUOTE_CMD_GEMINI if agent == "gemini" else QUOTE_CMD


def plant_cmd(w):
    """A command that plants a project hook for each agent."""
    hook = "touch planted-ran; touch %s/planted-unconfined" % w.out
    claude = {"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
        {"type": "command", "command": hook}]}]}}
    gemini = {"hooks": {"BeforeTool": [{"matcher": "", "hooks": [
        {"type": "command", "command": hook}]}]}}
    codex = {"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": hook}]}]}}
    parts = []
    for d, f, obj in ((".claude", "settings.json", claude),
                      (".gemini", "settings.json", gemini),
                      (".codex", "hooks.json", codex)):
        parts.append("mkdir -p %s && printf '%%s' %s > %s/%s" % (
            d, h.shlex.quote(h.json.dumps(obj)), d, f))
    return "cd %s && %s; ls -a .claude .gemini .codex" % (
        h.shlex.quote(w.ws), "; ".join(parts))


def expected_quote_files(w):
    """What bash -c writes for QUOTE_CMD, run here without any agent."""
    d = os.path.join(w.t, "quote-expected")
    os.makedirs(d)
    subprocess.run(["/bin/bash", "-c", quote_cmd(w.agent)], cwd=d, check=True,
                   env={"HOME": w.home, "USER": os.environ.get("USER",
                        "agent"), "PATH": "/usr/bin:/bin"},
                   stdout=subprocess.DEVNULL)
    return {f: open(os.path.join(d, f), "rb").read()
            for f in ("quote.txt", "here.txt")}


def out_lines(text):
    """The lines of a tool result's output, without the agent's framing
    (Gemini: "Output: ", Codex: its header)."""
    lines = []
    for ln in text.splitlines():
        if ln.startswith("Output: "):
            ln = ln[len("Output: "):]
        lines.append(ln.strip())
    return lines


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def main_session(w, confined):
    steps = [
        {"command": "echo inside-ok > inside.txt && cat inside.txt"},
        {"command": "echo leaked > %s/outside.txt; echo \"rc=$?\"" % w.out},
        {"command": "cat \"$HOME/.ssh/id_ed25519\"; echo \"key=[$%s]\"" %
         w.key_name},
        {"command": quote_cmd(w.agent)},
        {"command": "mkdir -p sub && cd sub && pwd"},
        {"command": "pwd"},
        {"command": plant_cmd(w)},
    ]
    s = h.Session(w, steps).run()
    r = s.results
    TAP.ok(s.rc == 0 and len(r) == len(steps),
           "the agent ran all %d steps and finished" % len(steps), s.tail())
    unhandled = s.server.unhandled()
    if unhandled:
        TAP.diag("requests the model server did not script: %s" %
                 ", ".join(sorted(set(unhandled))))
    r += [""] * (len(steps) - len(r))
    runs = h.runs_of(h.take_events(w))
    if confined:
        complete = [k for k, (a, b) in runs.items() if a and b]
        applied = [k for k in complete if runs[k][0].get("applied")]
        TAP.ok(len(complete) == len(steps) and len(applied) == len(steps),
               "every call confined: %d start+exit pairs, %d applied, for %d "
               "calls" % (len(complete), len(applied), len(steps)),
               h.json.dumps(list(runs.values()))[:1500])
    else:
        TAP.ok(not runs, "no cordon run without cordon (baseline)")
    TAP.ok(read(os.path.join(w.ws, "inside.txt")) == b"inside-ok\n" and
           "inside-ok" in r[0], "a write inside the workspace works",
           r[0])
    leaked = read(os.path.join(w.out, "outside.txt"))
    if confined:
        TAP.ok(leaked is None, "the write outside was refused (no file)")
        TAP.ok(any(x in r[1] for x in REFUSED),
               "the refusal reached the model", r[1])
    else:
        TAP.ok(leaked == b"leaked\n",
               "baseline: the write outside succeeds without cordon", r[1])
    seen_secret = w.secret in r[2]
    seen_key = w.key in r[2]
    if confined:
        TAP.ok(not seen_secret, "the ssh key did not reach the model", r[2])
        TAP.ok(not seen_key and "key=[]" in r[2],
               "the agent's API key (%s) is not in the command's "
               "environment" % w.key_name, r[2])
    else:
        TAP.ok(seen_secret and seen_key,
               "baseline: ssh key and API key readable without cordon", r[2])
    want = expected_quote_files(w)
    for f, data in sorted(want.items()):
        got = read(os.path.join(w.ws, f))
        TAP.ok(got == data, "quoting byte-exact: %s" % f,
               "got:  %r\nwant: %r\nresult: %s" % (got, data, r[3]))
    sub = os.path.realpath(os.path.join(w.ws, "sub"))
    ws = os.path.realpath(w.ws)
    TAP.ok(sub in out_lines(r[4]), "cd inside the call works", r[4])
    want_dir = sub if h.KEEPS_CD[w.agent] else ws
    TAP.ok(want_dir in out_lines(r[5]),
           "cd is %s between calls, as %s does without cordon" % (
               "kept" if h.KEEPS_CD[w.agent] else "not kept", w.agent),
           r[5])
    return s


def planted_session(w, confined):
    """The next session in the same workspace: a planted hook must not run
    unconfined."""
    # Codex: hooks nobody trusted run too (the project's own), as with
    # a user who bypasses the trust step.
    s = h.Session(w, [{"command": "echo second-session"}],
                  bypass_trust=True).run()
    ran = os.path.exists(os.path.join(w.ws, "planted-ran"))
    unconfined = os.path.exists(os.path.join(w.out, "planted-unconfined"))
    TAP.diag("planted hook: %s" % (
        "ran unconfined" if unconfined else "ran confined" if ran
        else "did not run"))
    h.take_events(w)
    if confined:
        TAP.ok(not unconfined, "a project hook planted by a confined "
               "command did not run unconfined in the next session",
               s.tail())
    else:
        TAP.ok(True, "baseline: planted hook %s" % (
            "ran" if ran else "did not run"))


# What each agent does with a hook or prefix that cannot start (measured:
# docs in /work/team/agent-facts.md): True when the command is then blocked.
BLOCKS_WHEN_MISSING = {("claude", "prefix"): True,
                       ("claude", "hook"): False,
                       ("codex", "hook"): False,
                       ("gemini", "hook"): True}


def missing_session(w):
    """cordon (the entry point) missing: blocked where the agent allows;
    `cordon hook` present but cordon-sh missing: blocked."""
    step = [{"command": "echo ran > missing-ran.txt"}]
    ran_file = os.path.join(w.ws, "missing-ran.txt")
    gone = os.path.join(w.t, "no-such-dir")
    s = h.Session(w, step, bindir=gone).run()
    ran = os.path.exists(ran_file)
    blocks = BLOCKS_WHEN_MISSING[(w.agent, w.route)]
    if blocks:
        TAP.ok(not ran and s.results,
               "entry point missing: the command did not run, the model was "
               "told", s.results)
    else:
        TAP.ok(ran, "entry point missing: %s runs the command unconfined "
               "(the agent treats a hook that cannot start as non-blocking; "
               "documented, pinned here)" % w.agent, s.results)
    if ran:
        os.unlink(ran_file)
    h.take_events(w)
    if w.route != "hook":
        return
    # The hook starts but cannot confine: cordon alone, no cordon-sh
    # beside it.
    nosh = os.path.join(w.t, "nosh")
    os.makedirs(nosh)
    shutil.copy2(h.CORDON, os.path.join(nosh, "cordon"))
    s = h.Session(w, step, bindir=nosh).run()
    ran = os.path.exists(ran_file)
    told = any("cordon-sh is not installed" in r for r in s.results)
    TAP.ok(not ran and told, "hook present, cordon-sh missing: blocked, "
           "the model told why", s.results)
    h.take_events(w)


def new_mark():
    """A string for the command lines of one check's processes."""
    return "%d.%04d" % (3000 + os.getpid() % 1000, h.random.randrange(9999))


def left_after(mark, secs=5.0):
    """The processes whose command line holds mark still there secs after
    the agent ended (none as soon as they are gone), shown, then killed."""
    left = []
    for _ in range(int(secs * 10)):
        left = h.procs_with(mark)
        if not left:
            break
        time.sleep(0.1)
    if left:
        TAP.diag(subprocess.run(
            ["ps", "-o", "pid,ppid,pgid,sid,user,args", "-p",
             ",".join(str(p) for p in left)], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True).stdout)
    h.kill_all(left)
    return left


def end_agent(s, wait=15):
    """Ends the agent as a supervisor would: time to end by itself, then
    SIGTERM to the agent alone, then SIGKILL to its process group (its
    calls run in sessions of their own). What it took, in words."""
    how = "ended by itself"
    try:
        s.proc.wait(wait)
    except subprocess.TimeoutExpired:
        how = "sent SIGTERM"
        s.proc.send_signal(signal.SIGTERM)
        try:
            s.proc.wait(15)
        except subprocess.TimeoutExpired:
            how = "SIGTERM ignored, killed"
            s.kill(signal.SIGKILL)
    s.rc = s.proc.returncode
    s.finish()
    return how


def timeout_session(w, confined):
    """A call past its timeout, and the agent ended: nothing left running."""
    mark = new_mark()
    # Not sleep: Claude refuses `sleep N` followed by more commands.
    cmd = ("tail -f -s %s1 /dev/null & tail -f -s %s2 /dev/null; echo after"
           % (mark, mark))
    s = h.Session(w, [{"command": cmd, "timeout_ms": 3000}])
    s.start()
    # The agent waits on the command (Gemini has no per-call timeout;
    # Claude -p waits for the call it moved to the background).
    how = end_agent(s)
    left = left_after(mark)
    try:
        os.killpg(s.proc.pid, signal.SIGKILL)
    except OSError:
        pass
    what = "the agent %s; %s left running 5 s later" % (
        how, "%d processes of its calls" % len(left) if left else "nothing")
    if confined:
        TAP.ok(not left, what, "left: %s" % left)
    else:
        TAP.diag("baseline: " + what)
    h.take_events(w)


def killed_session(w, confined):
    """The agent killed with SIGKILL (its process group: what a supervisor
    or a closed terminal does; the OOM killer takes the agent alone) while
    a call runs: nothing of the call may be left."""
    mark = new_mark()
    s = h.Session(w, [{"command": "tail -f -s %s1 /dev/null" % mark}])
    s.start()
    running = False
    for _ in range(900):
        if any(a.startswith(b"tail\0") for a in h.argv_of(mark)):
            running = True
            break
        if s.proc.poll() is not None:
            break
        time.sleep(0.1)
    s.kill(signal.SIGKILL)
    s.rc = s.proc.returncode
    s.finish()
    left = left_after(mark)
    what = "the agent killed (SIGKILL) during a call; %s left 5 s later" % (
        "%d processes of the call" % len(left) if left else "nothing")
    if not running:
        TAP.ok(False, "the call started before the agent was killed",
               s.tail())
    elif confined:
        TAP.ok(not left, what, "left: %s" % left)
    else:
        TAP.diag("baseline: " + what)
    h.take_events(w)


SERVER = """import os, socket
u = socket.socket(socket.AF_UNIX)
u.bind("dev-%(mark)s.sock")
t = socket.socket()
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.1", %(port)d))
for s in (u, t):
    s.listen(4)
import select
while True:
    for s in select.select([u, t], [], [])[0]:
        c = s.accept()[0]
        c.sendall(b"pong-%(mark)s\\n")
        c.close()"""
CLIENT = """import socket, time
def ask(fam, addr, tries):
    for _ in range(tries):
        s = socket.socket(fam)
        try:
            s.connect(addr)
            return s.recv(100).decode().strip()
        except OSError as e:
            err = e.strerror
            time.sleep(0.1)
        finally:
            s.close()
    return "refused: " + err
print("unix:", ask(socket.AF_UNIX, "dev-%(mark)s.sock", 50))
print("tcp:", ask(socket.AF_INET, ("127.0.0.1", %(port)d), 1))"""


def background_session(w, confined, network_on=False):
    """A dev server kept across calls by the agent's own background tool
    (Claude Code's run_in_background, Gemini CLI's is_background; Codex's
    exec_command goes on past its yield time): it runs confined, a later
    call reaches it through a Unix socket in the workspace, on 127.0.0.1
    only with network on in the policy (under the profile agent's network
    off each run has a loopback of its own), and it ends with the agent
    (docs/agents.md)."""
    mark = new_mark()
    v = {"mark": mark, "port": 20000 + h.random.randrange(30000)}
    server = {"command": "/usr/bin/python3 -c '%s'" % (SERVER % v)}
    if w.agent == "codex":
        server["timeout_ms"] = 2000
    else:
        server["background"] = True
    client = {"command": "/usr/bin/python3 -c '%s'; ls" % (CLIENT % v),
              "timeout_ms": 20000}
    policy = None
    if network_on:
        # The profile agent without its network off.
        policy = h.policy_text(w, "scratch-home\nnetwork on")
    s = h.Session(w, [server, client], policy=policy)
    s.start()
    # The agent waits for its background task (Claude -p) or not: end it
    # once the model has had the last answer.
    final = False
    for _ in range(1200):
        if s.proc.poll() is not None or any(
                (e.get("answer") or {}).get("text") == "scripted: done"
                for e in s.server.entries()):
            final = True
            break
        time.sleep(0.1)
    how = end_agent(s, wait=10)
    left = left_after(mark, 5 + 2)
    r = s.results + ["", ""]
    lines = out_lines(r[1])
    runs = h.runs_of(h.take_events(w))
    # Start events: a run the agent ends with SIGKILL to cordon-sh (Codex
    # at its end) has no exit event.
    applied = [k for k, (a, b) in runs.items() if a and a.get("applied")]
    net = "network on" if network_on else "network off"
    TAP.diag("background, %s: %s; the agent %s" % (net, ", ".join(
        ln for ln in lines if ln.startswith(("unix", "tcp"))), how))
    if not confined:
        TAP.diag("baseline: %s left after the agent ended" % (
            "%d processes" % len(left) if left else "nothing"))
        return
    TAP.ok(final and "unix: pong-" + mark in lines,
           "%s: a later call reached the background server through a Unix "
           "socket in the workspace" % net, r[1])
    if network_on:
        TAP.ok("tcp: pong-" + mark in lines, "%s: and on 127.0.0.1" % net,
               r[1])
    else:
        TAP.ok(any(ln.startswith("tcp: refused") for ln in lines),
               "%s: not on 127.0.0.1 (a loopback of its own)" % net, r[1])
    TAP.ok(len(applied) == 2, "%s: both calls, the background one too, "
           "ran confined (%d applied start events)" % (net, len(applied)),
           h.json.dumps(list(runs.values()))[:1500])
    TAP.ok(not left, "%s: the background server ended with the agent (%s)"
           % (net, how), "left: %s" % left)


def main():
    args = sys.argv[1].split(":") if len(sys.argv) == 2 else sys.argv[1:3]
    if len(args) != 2:
        print("usage: check.py AGENT ROUTE | AGENT:ROUTE", file=sys.stderr)
        return 2
    agent, route = args
    if route not in h.ROUTES.get(agent, ()):
        print("1..0 # SKIP no route %s for %s" % (route, agent))
        return 0
    h.exit_on_signals()
    w = h.World(agent, route)
    confined = route != "none"
    TAP.diag("%s via %s, temp dir %s" % (agent, route, w.t))
    try:
        main_session(w, confined)
        planted_session(w, confined)
        if confined:
            missing_session(w)
        timeout_session(w, confined)
        killed_session(w, confined)
        background_session(w, confined)
        if confined:
            background_session(w, confined, network_on=True)
    finally:
        if os.environ.get("CORDON_AGENTS_KEEP"):
            TAP.diag("kept %s" % w.t)
        else:
            w.cleanup()
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
