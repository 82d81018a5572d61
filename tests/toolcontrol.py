#!/usr/bin/python3
"""tests/toolcontrol.py TOOL: does this host tool work here?

A test that relies on a host tool (gdb, strace, chattr, git, node...) runs
that tool's control first, on an object of its own, in a temp dir on the
same file system as the tests' dirs. The answer is one line:

  ok                  the tool works
  skip: REASON        it does not, for a known host limitation (exit 2)
  fail: WHY           it does not, for a reason nobody explained (exit 1)

A known limitation makes the checks that need the tool a skip with the
reason (never a pass, never a failure of cordon); an unexplained failure
stays a failure. tests/corpus_regression imports check() from here;
tests/lib.sh's tool_ok runs this file. Standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# tool: (control shell text, regex its output must match,
#        [(regex of a known failure, reason to skip), ...][, command])
# where command, when given, is what must be installed (default: tool).
# A None control depends on the uid (see _control_cmd). Controls run with
# the caller's environment (RUSTUP_HOME, say) but HOME in their temp dir.
CONTROLS = {
    "gdb": ('sleep 30 & p=$!; gdb -nx -q -batch -p "$p" -ex "call (int)getpid()" 2>&1; '
            'rc=$?; kill "$p"; exit $rc', r"\$1 = \d+",
            [(r"Couldn't write extended state status|Couldn't write registers",
              "this machine's gdb cannot write the CPU's registers (e.g. gdb 13 on a CPU "
              "with AMX: \"Couldn't write extended state status\")"),
             (r"ptrace: Operation not permitted|Could not attach",
              "ptrace attach is not permitted here")]),
    "strace": ("strace -f -qq -o /dev/null sh -c 'echo traced' 2>&1", r"^traced$",
               [(r"PTRACE_TRACEME|PTRACE_SEIZE|ptrace.*Operation not permitted",
                 "ptrace is not permitted here")]),
    "chattr": ("touch f && chattr +d f 2>&1 && lsattr f 2>&1", r"-d-|d-",
               [(r"Operation not supported|Inappropriate ioctl",
                 "the file system of the test dirs has no inode flags (chattr)")]),
    "setfattr": ("touch f && setfattr -n user.cordon -v 1 f 2>&1 && "
                 "getfattr -n user.cordon f 2>&1", r"user\.cordon=",
                 [(r"Operation not supported",
                   "the file system of the test dirs has no user extended attributes")]),
    "unshare": (None, r"", [(r"Operation not permitted|Permission denied|Invalid argument|"
                             r"No space left on device",
                             "namespaces cannot be made here (unshare refused)")]),
    "git": ("git init -q r 2>&1 && git -C r -c user.name=t -c user.email=t@t commit -q "
            "--allow-empty -m control 2>&1 && git -C r log --oneline 2>&1", r"control", []),
    "node": ("node -e 'console.log(6*7)' 2>&1", r"^42$", []),
    "npm": ("npm --version 2>&1", r"^\d+\.", []),
    "yarn": ("yarn --version 2>&1", r"^\d+\.", []),
    "go": ("GOCACHE=$PWD/c GOPATH=$PWD/p go version 2>&1", r"^go version go\d", []),
    "cargo": ("cargo --version 2>&1", r"^cargo \d",
              [(r"no default toolchain|rustup could not choose",
                "cargo is rustup's proxy, with no toolchain for this user")]),
    "make": ("printf 'all:\\n\\t@echo made\\n' > Makefile && make -s 2>&1", r"^made$", []),
    # A pty from the host's devpts, util-linux's script.
    "script": ("script -q -c 'echo scripted' /dev/null </dev/null 2>&1", r"^scripted",
               [(r"failed to create pseudo-terminal|openpty|No such file or directory.*pt",
                 "no pseudo-terminal can be made here")]),
    # An agent of its own holding a key of its own.
    "ssh-agent": ("ssh-keygen -q -t ed25519 -N '' -f k 2>&1 && "
                  "eval \"$(ssh-agent -s -a \"$PWD/a.sock\")\" >/dev/null && "
                  "SSH_AUTH_SOCK=$PWD/a.sock ssh-add -q k 2>&1; "
                  "SSH_AUTH_SOCK=$PWD/a.sock ssh-add -l 2>&1; rc=$?; kill \"$SSH_AGENT_PID\"; exit $rc",
                  r"\(ED25519\)", []),
    # sshd's own check of a configuration with a host key of its own, the
    # way the tests start it (tests/helpers/sshd-own).
    "sshd": ("ssh-keygen -q -t ed25519 -N '' -f hk 2>&1 && "
             "printf 'HostKey %s/hk\\nPidFile none\\nUsePAM no\\n' \"$PWD\" > c && "
             "sh \"{helpers}/sshd-own\" \"$PWD/c\" -t 2>&1 && echo sshd-ok", r"^sshd-ok$",
             [(r"unshare: .*(Operation not permitted|Permission denied)",
               "no mount namespace for sshd's privilege separation directory")],
             "/usr/sbin/sshd"),
    # A venv with pip from the system python (Debian: python3-venv), and
    # the setuptools and wheel a --no-build-isolation build uses.
    "venv": ("p=/usr/bin/python3; [ -x $p ] || p=python3; "
             "$p -m venv --system-site-packages v 2>&1 && v/bin/python -m pip --version 2>&1",
             r"^pip \d", [(r"ensurepip is not available|No module named venv",
                           "python3-venv is not installed")], "python3"),
    "setuptools": ("p=/usr/bin/python3; [ -x $p ] || p=python3; "
                   "$p -c 'import setuptools, wheel; print(\"built\")' 2>&1", r"^built$",
                   [(r"No module named '(setuptools|wheel)'",
                     "python3-setuptools or python3-wheel is not installed")], "python3"),
    # A loop device of its own (root): the reads corpus's raw disk.
    "losetup": ("head -c 65536 /dev/zero > d && l=$(losetup -f --show d 2>&1) && "
                "printf tok | dd of=\"$l\" conv=notrunc status=none && head -c 3 \"$l\"; "
                "rc=$?; losetup -d \"$l\" 2>/dev/null; exit $rc", r"^tok",
                [(r"Permission denied|Operation not permitted|No such file or directory|"
                  r"cannot find an unused loop device|failed to set up loop device",
                  "no loop device can be made here")]),
    # Sockets on the host's loopback, for the network corpus's controls.
    "ipv6": ("python3 -c 'import socket; s = socket.socket(socket.AF_INET6); "
             "s.bind((\"::1\", 0)); print(\"bound\")' 2>&1", r"^bound$",
             [(r"Cannot assign requested address|Address family not supported",
               "IPv6 is off here (no ::1)")], "python3"),
    "curl": ("curl --version 2>&1", r"^curl \d", []),
    "perl": ("perl -MIO::Socket::INET -e 'print \"ok\\n\"' 2>&1", r"^ok$", []),
    # A socket made through io_uring (the helper built in CORDON_BUILD).
    "io_uring": ('"{build_helpers}/uring-net" probe 2>&1', r"^socket made through io_uring$",
                 [(r"io_uring refused", "io_uring is disabled here (kernel.io_uring_disabled)"),
                  (r"IORING_OP_SOCKET refused: Invalid argument",
                   "this kernel's io_uring has no IORING_OP_SOCKET (Linux < 5.19)")], "sh"),
}
_cache = {}


def _control_cmd(tool):
    cmd = CONTROLS[tool][0]
    if cmd is None and tool == "unshare":  # what the tests ask of it
        cmd = "unshare --uts true 2>&1" if os.geteuid() == 0 else "unshare -Ur true 2>&1"
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.path.join(os.path.dirname(here), os.environ.get("CORDON_BUILD", "build"))
    return cmd.replace("{helpers}", os.path.join(here, "helpers")).replace(
        "{build_helpers}", os.path.join(build, "helpers"))


def check(tool, path):
    """None when TOOL works with this PATH; else ("skip"|"fail", why). Cached."""
    key = (tool, path)
    if key in _cache:
        return _cache[key]
    why = None
    command = CONTROLS[tool][3] if len(CONTROLS.get(tool, ())) > 3 else tool
    if not shutil.which(command, path=path):
        why = ("skip", f"{command} is not installed (not on PATH)")
    elif tool in CONTROLS:
        want, known = CONTROLS[tool][1:3]
        with tempfile.TemporaryDirectory(prefix="cordon-control.") as d:
            try:
                r = subprocess.run(["/bin/sh", "-c", _control_cmd(tool)], cwd=d,
                                   capture_output=True, text=True, timeout=60,
                                   stdin=subprocess.DEVNULL,
                                   env=dict(os.environ, PATH=path, HOME=d, LANG="C.UTF-8"))
                out, rc = r.stdout + r.stderr, r.returncode
            except subprocess.TimeoutExpired:
                out, rc = "(timed out after 60 s)", "timeout"
        if rc != 0 or not re.search(want, out, re.M):
            for rx, reason in known:
                if re.search(rx, out):
                    why = ("skip", f"{tool} does not work here: {reason}")
                    break
            else:
                why = ("fail", f"the control of {tool} failed for a reason nobody explained "
                       f"(exit {rc}): {out.strip()[-300:]!r}")
    _cache[key] = why
    return why


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 64
    why = check(sys.argv[1], os.environ.get("PATH", os.defpath))
    if why is None:
        print("ok")
        return 0
    print(f"{why[0]}: {why[1]}")
    return 2 if why[0] == "skip" else 1


if __name__ == "__main__":
    sys.exit(main())
