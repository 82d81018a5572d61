#!/usr/bin/python3
"""Real coding agents through cordon, end to end (issue 36, item 7).

The library of tests/agents/check.py (AGENT ROUTE, TAP on stdout) and
bench/agents-latency.
  AGENT: claude, codex, gemini
  ROUTE: prefix (Claude's CLAUDE_CODE_SHELL_PREFIX: cordon-sh), hook (the
         agent's pre-tool hook: cordon hook AGENT), none (no cordon: the
         baseline, which also shows that the checks can fail)

The agents' settings are the recipes of docs/agents.md: each fenced block
that follows a line `<!-- recipe: NAME -->` there is read here, with
/usr/local/bin/ (where `make install` puts cordon and cordon-sh) replaced
by the build dir; the harness adds only what points the agent at the
scripted model server and what a test needs (a status file). Each agent
runs non-interactively against tests/agents/modelserver.py, which asks for
the shell commands of a scenario and records every request (the tool
results included: what the model read). The agent's home, its config, the
workspace, the "outside" and the status file all live in the test's temp
dir. Environment:
  CORDON_AGENTS_DIR  where tests/agents/install put the agents
                     (default BUILD/agents-cache)
  CORDON_TOP, CORDON_BUILD  the tree and build dir (cordon, cordon-sh)
  CORDON_AGENTS_POLICY  more lines for the entry points' policy file
                     (e.g. "sandbox off", to see the confinement checks
                     fail)
"""

import json
import os
import random
import re
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
DOCS = os.path.join(TOP, "docs", "agents.md")
# Where docs/agents.md's recipes name cordon and cordon-sh.
INSTALLED = "/usr/local/bin/"
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
        # The entry points' options: the recipe's policy file where they
        # look for it, with the test's status file and state dir.
        self.policy = os.path.join(self.home, ".config", "cordon",
                                   "agent.policy")
        write(self.policy, policy_text(self, recipe("agent-policy")))
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


# ---- recipes and entry points ---------------------------------------------------

def recipes(path=DOCS):
    """NAME -> the text of the fenced block after `<!-- recipe: NAME -->`."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = {}
    for i, ln in enumerate(lines):
        m = re.match(r"<!-- recipe: ([a-z0-9-]+) -->$", ln.strip())
        if not m:
            continue
        if not lines[i + 1].startswith("```"):
            raise ValueError("%s:%d: recipe %s: no fenced block next" % (
                path, i + 2, m.group(1)))
        end = lines.index("```", i + 2)
        out[m.group(1)] = "\n".join(lines[i + 2:end]) + "\n"
    return out


RECIPES = recipes()


def recipe(name, bindir=None):
    """The recipe's text, cordon and cordon-sh taken from bindir (default:
    the build dir)."""
    bindir = bindir or os.path.dirname(CORDON)
    return RECIPES[name].replace(INSTALLED, bindir.rstrip("/") + "/")


def policy_text(world, base, extra=""):
    """The entry points' policy file: base (a recipe), the test's status
    file and state dir, CORDON_AGENTS_POLICY and extra."""
    lines = [base.rstrip("\n"), "status-file " + world.status,
             "state-dir " + world.state,
             os.environ.get("CORDON_AGENTS_POLICY", ""), extra]
    return "\n".join(ln for ln in lines if ln) + "\n"


def merge(a, b):
    """b's members added into a, objects merged member by member."""
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            merge(a[k], v)
        else:
            a[k] = v
    return a


# ---- agent drivers ------------------------------------------------------------------

def agent_bin(world, name):
    return os.path.join(world.agents_dir, name, "node_modules", ".bin", name)


def base_env(world, server):
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": world.home,
           "TMPDIR": world.tmp, "LANG": "C.UTF-8", "USER": os.environ.get(
               "USER", "agent"), "NO_PROXY": "127.0.0.1,localhost",
           world.key_name: world.key, "XDG_STATE_HOME": world.state}
    return env


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def setup_claude(s):
    w, env = s.world, s.env
    env.update(ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % s.server.port,
               DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    settings = {}
    if s.route in ("hook", "prefix"):
        settings = json.loads(recipe("claude-" + s.route, s.bindir))
    write(os.path.join(w.home, ".claude", "settings.json"),
          json.dumps(settings))
    # Bypass mode, as a user whose sandbox is cordon would run it (as root
    # Claude refuses it without IS_SANDBOX=1). --allowedTools Bash alone
    # still asks (and so refuses, in -p) for writes to .claude/.
    env["IS_SANDBOX"] = "1"
    return [agent_bin(w, "claude"), "-p", "Run the scripted steps.",
            "--dangerously-skip-permissions", "--output-format", "json"]


def setup_codex(s):
    w, env = s.world, s.env
    codex_home = os.path.join(w.home, ".codex")
    env["CODEX_HOME"] = codex_home
    # The recipe's settings between the harness's own: the model (the
    # scripted server), and the project trusted, as a user who works in
    # it would have it (then its own .codex/, hooks included, is read).
    # Without the hook, the recipe's sandbox_mode too: the same agent.
    write(os.path.join(codex_home, "config.toml"), """\
model = "gpt-scripted"
model_provider = "scripted"
approval_policy = "never"
check_for_update_on_startup = false
%s
[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:%d/v1"
wire_api = "responses"
env_key = "%s"
[projects."%s"]
trust_level = "trusted"
""" % (recipe("codex-config"), s.server.port, w.key_name, w.ws))
    argv = [agent_bin(w, "codex"), "exec", "--skip-git-repo-check"]
    if s.route == "hook":
        write(os.path.join(codex_home, "hooks.json"),
              recipe("codex-hooks", s.bindir))
        # The recipe's trust step, as a user would take it.
        trust = os.path.join(w.t, "codex-trust-hooks")
        write(trust, recipe("codex-trust", s.bindir))
        r = subprocess.run([PY, trust, agent_bin(w, "codex")], cwd=w.ws,
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
        s.trust_output = r.stdout.decode("utf-8", "replace")
    if s.bypass_trust:
        argv.append("--dangerously-bypass-hook-trust")
    return argv + ["-C", w.ws, "Run the scripted steps."]


def setup_gemini(s):
    w, env = s.world, s.env
    # The project trusted (as its user would have it): --skip-trust instead
    # also skips the project's .gemini/settings.json, hooks included.
    env.update(GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:%d" % s.server.port,
               GEMINI_CLI_TRUST_WORKSPACE="true")
    settings = json.loads(recipe("gemini-base-url"))
    merge(settings, {"general": {"disableAutoUpdate": True},
                     "privacy": {"usageStatisticsEnabled": False}})
    if s.route == "hook":
        merge(settings, json.loads(recipe("gemini-hook", s.bindir)))
    write(os.path.join(w.home, ".gemini", "settings.json"),
          json.dumps(settings))
    return [agent_bin(w, "gemini"), "-p", "Run the scripted steps.",
            "--yolo"]


SETUP = {"claude": setup_claude, "codex": setup_codex,
         "gemini": setup_gemini}


class Session:
    """One agent session against a fresh model server."""

    def __init__(self, world, steps, route=None, bindir=None,
                 final="scripted: done", bypass_trust=False, policy=None):
        """bindir: where cordon and cordon-sh are (default: the build
        dir; another, to see what the agent does without them).
        bypass_trust: Codex runs hooks nobody trusted (project hooks
        too). policy: a policy file's text for CORDON_POLICY (in place of
        the home's agent.policy)."""
        world.sessions += 1
        self.world = world
        self.name = "s%d" % world.sessions
        self.route = route or world.route
        self.bindir = bindir
        self.bypass_trust = bypass_trust
        self.trust_output = None
        self.server = Server(world, self.name, {"steps": steps,
                                                "final": final})
        self.env = base_env(world, self.server)
        if policy is not None:
            f = os.path.join(world.t, "policy-" + self.name)
            write(f, policy)
            self.env["CORDON_POLICY"] = f
        self.argv = SETUP[world.agent](self)
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


def argv_of(marker):
    """The command lines (NUL-separated) holding marker."""
    found = []
    for p in procs_with(marker):
        try:
            with open("/proc/%d/cmdline" % p, "rb") as f:
                found.append(f.read())
        except OSError:
            pass
    return found


def kill_all(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
