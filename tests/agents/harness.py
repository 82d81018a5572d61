#!/usr/bin/python3
"""Real coding agents through cordon, end to end (issue 36, item 7).

The library of tests/agents/check.py (AGENT ROUTE, TAP on stdout) and
bench/agents-latency.
  AGENT: claude, codex, gemini
  ROUTE: prefix (Claude's CLAUDE_CODE_SHELL_PREFIX), hook (the agent's
         pre-tool hook), none (no cordon: the baseline, which also shows
         that the checks can fail)

Each agent runs non-interactively against tests/agents/modelserver.py,
which asks for the shell commands of a scenario and records every request
(the tool results included: what the model read). The agent's home, its
config, the workspace, the "outside" and the status file all live in the
test's temp dir. Environment:
  CORDON_AGENTS_DIR  where tests/agents/install put the agents
                     (default BUILD/agents-cache)
  CORDON_TOP, CORDON_BUILD  the tree and build dir (cordon, glue)
  CORDON_AGENTS_ENTRY  glue (default) or real: which entry points the
                     routes use (real: `cordon hook AGENT`, build/cordon-sh)
  CORDON_AGENTS_GLUE_ARGS  more `cordon run` options for the glue (e.g.
                     --sandbox off, to see the confinement checks fail)
"""

import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.environ.get("CORDON_TOP") or os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("CORDON_BUILD", "build")
CORDON = os.path.join(TOP, BUILD, "cordon")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
AGENTS_DIR = os.environ.get("CORDON_AGENTS_DIR") or os.path.join(
    TOP, BUILD, "agents-cache")
AGENT_TIMEOUT = 120

KEYS = {"claude": ("ANTHROPIC_API_KEY", "sk-ant-fake-agents-%08x"),
        "codex": ("SCRIPTED_API_KEY", "sk-fake-agents-%08x"),
        "gemini": ("GEMINI_API_KEY", "fake-gemini-agents-%08x")}
# Whether the agent itself carries `cd` from one call to the next (measured
# without cordon; the none route checks it still holds).
KEEPS_CD = {"claude": True, "codex": False, "gemini": False}
ROUTES = {"claude": ("prefix", "hook", "none"), "codex": ("hook", "none"),
          "gemini": ("hook", "none")}


# ---- TAP ---------------------------------------------------------------------

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, why=None, todo=None):
        self.n += 1
        line = "%s %d - %s" % ("ok" if cond else "not ok", self.n, name)
        if todo:
            line += " # TODO " + todo
        print(line, flush=True)
        if not cond:
            if not todo:
                self.failed += 1
            for ln in str(why or "").splitlines()[:12]:
                print("#   " + ln)

    def skip(self, reason):
        self.n += 1
        print("ok %d # SKIP %s" % (self.n, reason), flush=True)

    def diag(self, text):
        for ln in str(text).splitlines():
            print("# " + ln, flush=True)

    def done(self):
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0


TAP = Tap()


# ---- the test's world ----------------------------------------------------------

def tmp_base():
    """Where a world is made: not in /tmp, where a confined call has a /tmp
    of its own and would not see the world's outside (a write there would
    fail with ENOENT, never meeting the refusal the checks look for). As
    tests/lib.sh: CORDON_TEST_TMPDIR, /run for root, XDG_RUNTIME_DIR, /tmp."""
    for d in (os.environ.get("CORDON_TEST_TMPDIR"), "/run" if os.geteuid() == 0 else None,
              os.environ.get("XDG_RUNTIME_DIR")):
        if d and os.path.isabs(d) and os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK):
            return d
    return "/tmp"


class World:
    """Everything of one test in its own temp dir (removed at the end)."""

    def __init__(self, agent, route):
        self.agent, self.route = agent, route
        self.t = tempfile.mkdtemp(prefix="cordon-agents.", dir=tmp_base())
        os.chmod(self.t, 0o755)
        j = lambda *p: os.path.join(self.t, *p)  # noqa: E731
        self.home, self.ws, self.out = j("home"), j("ws"), j("outside")
        self.tmp, self.status_dir = j("tmp"), j("status")
        self.state = j("state")
        for d in (self.home, self.ws, self.out, self.tmp, self.status_dir,
                  self.state):
            os.makedirs(d)
        os.chmod(self.tmp, 0o700)
        self.status = os.path.join(self.status_dir, "events.jsonl")
        self.key_name, fmt = KEYS[agent]
        self.key = fmt % random.getrandbits(32)
        self.secret = "SECRET-%08x" % random.getrandbits(32)
        ssh = os.path.join(self.home, ".ssh")
        os.makedirs(ssh, mode=0o700)
        with open(os.path.join(ssh, "id_ed25519"), "w") as f:
            f.write(self.secret + "\n")
        self.sessions = 0
        self.live = []
        self.agents_dir = AGENTS_DIR

    def cleanup(self):
        """Ends every agent and server of this world, then removes it."""
        for sess in self.live:
            sess.abort()
        kill_all(procs_with(self.t))
        subprocess.run(["chmod", "-R", "u+rwx", self.t],
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.t, ignore_errors=True)


# ---- the model server ----------------------------------------------------------

class Server:
    def __init__(self, world, name, script):
        self.dir = os.path.join(world.t, "server-" + name)
        os.makedirs(self.dir)
        self.script = os.path.join(self.dir, "script.json")
        self.log = os.path.join(self.dir, "log.jsonl")
        port = os.path.join(self.dir, "port")
        with open(self.script, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen(
            [PY, os.path.join(HERE, "modelserver.py"), self.script, self.log,
             port], stdin=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(port):
                break
            time.sleep(0.025)
        with open(port) as f:
            self.port = int(f.read())

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def entries(self):
        try:
            with open(self.log, encoding="utf-8") as f:
                return [json.loads(ln) for ln in f if ln.strip()]
        except FileNotFoundError:
            return []

    def results(self):
        """The tool results the model read, in order (the last request)."""
        best = []
        for e in self.entries():
            if "answer" in e and len(e.get("results") or []) >= len(best):
                best = e["results"]
        return [r["text"] for r in best]

    def unhandled(self):
        return [e["method"] + " " + e["path"] for e in self.entries()
                if e.get("unhandled") and e["method"] != "HEAD"]


# ---- entry points ----------------------------------------------------------------

def entry_kind():
    return os.environ.get("CORDON_AGENTS_ENTRY") or "glue"


def hook_command(world, cordon=None):
    """The hook command line the agent's settings name. cordon: another
    cordon executable (a missing one, to see what the agent does)."""
    if entry_kind() == "real" or cordon:
        return shlex.join([cordon or CORDON, "hook", world.agent])
    glue = os.path.join(HERE, "glue", "hook")
    return shlex.join([glue, world.agent])


def prefix_path(cordon=None):
    if entry_kind() == "real" or cordon:
        return os.path.join(os.path.dirname(cordon or CORDON), "cordon-sh")
    return os.path.join(HERE, "glue", "prefix")


# ---- agent drivers ------------------------------------------------------------------

def agent_bin(world, name):
    return os.path.join(world.agents_dir, name, "node_modules", ".bin", name)


def base_env(world, server):
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": world.home,
           "TMPDIR": world.tmp, "LANG": "C.UTF-8", "USER": os.environ.get(
               "USER", "agent"), "NO_PROXY": "127.0.0.1,localhost",
           world.key_name: world.key,
           "CORDON_GLUE_BIN": CORDON, "CORDON_GLUE_STATUS": world.status,
           "CORDON_GLUE_WS": world.ws,
           "CORDON_GLUE_ARGS": " ".join(
               ["--state-dir", world.state] +
               [os.environ.get("CORDON_AGENTS_GLUE_ARGS", "")]).strip(),
           "XDG_STATE_HOME": world.state}
    return env


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def setup_claude(world, server, env, route, cordon):
    env.update(ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % server.port,
               DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    settings = {}
    if route == "hook":
        settings["hooks"] = {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": hook_command(world, cordon)}]}]}
    elif route == "prefix":
        env["CLAUDE_CODE_SHELL_PREFIX"] = prefix_path(cordon)
    write(os.path.join(world.home, ".claude", "settings.json"),
          json.dumps(settings))
    # Bypass mode, as a user whose sandbox is cordon would run it (as root
    # Claude refuses it without IS_SANDBOX=1). --allowedTools Bash alone
    # still asks (and so refuses, in -p) for writes to .claude/.
    env["IS_SANDBOX"] = "1"
    return [agent_bin(world, "claude"), "-p", "Run the scripted steps.",
            "--dangerously-skip-permissions", "--output-format", "json"]


def setup_codex(world, server, env, route, cordon):
    codex_home = os.path.join(world.home, ".codex")
    env["CODEX_HOME"] = codex_home
    # The project is trusted, as a user who works in it would have it:
    # then its own .codex/ (hooks included) is read too.
    write(os.path.join(codex_home, "config.toml"), """\
model = "gpt-scripted"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:%d/v1"
wire_api = "responses"
env_key = "%s"
[features]
hooks = true
[projects."%s"]
trust_level = "trusted"
""" % (server.port, world.key_name, world.ws))
    if route == "hook":
        write(os.path.join(codex_home, "hooks.json"), json.dumps(
            {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command",
                 "command": hook_command(world, cordon)}]}]}}))
    return [agent_bin(world, "codex"), "exec", "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust", "-C", world.ws,
            "Run the scripted steps."]


def setup_gemini(world, server, env, route, cordon):
    # The project trusted (as its user would have it): --skip-trust instead
    # also skips the project's .gemini/settings.json, hooks included.
    env.update(GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:%d" % server.port,
               GEMINI_CLI_TRUST_WORKSPACE="true")
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": True},
                "privacy": {"usageStatisticsEnabled": False}}
    if route == "hook":
        settings["hooks"] = {"BeforeTool": [{
            "matcher": "run_shell_command", "hooks": [
                {"type": "command",
                 "command": hook_command(world, cordon)}]}]}
    write(os.path.join(world.home, ".gemini", "settings.json"),
          json.dumps(settings))
    return [agent_bin(world, "gemini"), "-p", "Run the scripted steps.",
            "--yolo"]


SETUP = {"claude": setup_claude, "codex": setup_codex,
         "gemini": setup_gemini}


class Session:
    """One agent session against a fresh model server."""

    def __init__(self, world, steps, route=None, cordon=None,
                 final="scripted: done"):
        world.sessions += 1
        self.world = world
        self.name = "s%d" % world.sessions
        self.route = route or world.route
        self.server = Server(world, self.name, {"steps": steps,
                                                "final": final})
        self.env = base_env(world, self.server)
        self.argv = SETUP[world.agent](world, self.server, self.env,
                                       self.route, cordon)
        self.proc = None
        world.live.append(self)

    def abort(self):
        """Whatever is still running of this session, ended."""
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        if self.server.proc.poll() is None:
            self.server.stop()

    def start(self):
        self.stdout = open(os.path.join(self.server.dir, "stdout"), "wb")
        self.stderr = open(os.path.join(self.server.dir, "stderr"), "wb")
        self.t0 = time.time()
        self.proc = subprocess.Popen(
            self.argv, cwd=self.world.ws, env=self.env,
            stdin=subprocess.DEVNULL, stdout=self.stdout, stderr=self.stderr,
            start_new_session=True)

    def wait(self, timeout=AGENT_TIMEOUT):
        try:
            self.rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill(signal.SIGKILL)
            self.rc = "timeout"
        self.elapsed = time.time() - self.t0
        return self.rc

    def kill(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass
        self.rc = self.proc.wait()

    def run(self):
        self.start()
        self.wait()
        self.finish()
        return self

    def finish(self):
        self.server.stop()
        self.stdout.close()
        self.stderr.close()
        self.results = self.server.results()

    def tail(self):
        with open(os.path.join(self.server.dir, "stderr"), "rb") as f:
            err = f.read().decode("utf-8", "replace")
        return "rc=%s\n%s" % (self.rc, err[-1500:])


def exit_on_signals():
    """SIGTERM, SIGINT and SIGHUP end the test through its finally blocks
    (which end the agents and remove the temp dir), not past them."""
    def handler(sig, frame):
        raise SystemExit(128 + sig)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, handler)


# ---- the status file ------------------------------------------------------------------

def take_events(world):
    """The status events written since the last call (then moved aside)."""
    try:
        with open(world.status, encoding="utf-8") as f:
            ev = [json.loads(ln) for ln in f if ln.strip()]
    except FileNotFoundError:
        return []
    os.rename(world.status, world.status + ".%d" % world.sessions)
    return ev


def runs_of(events):
    """run_id -> (start event, exit event)."""
    runs = {}
    for e in events:
        r = runs.setdefault(e.get("run_id"), [None, None])
        if e.get("event") == "bash_sandbox_status":
            r[0] = e
        elif e.get("event") == "bash_sandbox_exit":
            r[1] = e
    return runs


# ---- processes -----------------------------------------------------------------------

def procs_with(marker):
    """pids (of any user we can see) whose command line holds marker."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            found.append(int(p))
    return found


def kill_all(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
