#!/usr/bin/env bash
# Everyday tools work inside `cordon run --sandbox required`: mktemp in the
# run's TMPDIR, git status, cargo --version, node -e, python3 -c, python
# multiprocessing, script (a pty), a test suite that starts and stops its
# own servers (127.0.0.1 and a Unix socket), pip install into a venv, and
# ssh-agent and git over ssh with --allow-socket. Each one also does
# something whose effect is checked (files written, a key listed, a clone
# made), so "works" means more than an exit status. docs/compatibility.md
# records the results; the heavier tools are in tests/tools/run (make
# check-tools). The agent and sshd are the test's own, on names in $T, and
# are stopped at exit.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

FIX=$TOP/tests/tools/fixtures
DAEMONS=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_daemons() { for p in "${DAEMONS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; }
trap 'stop_daemons; cleanup' EXIT

# rustup's proxies find their toolchains in RUSTUP_HOME (default
# ~/.rustup); HOME is the test's, so point it at the real one (read only).
real_home=$(getent passwd "$(id -u)" | cut -d: -f6)
CARGO=$(PATH="$PATH:$real_home/.cargo/bin" command -v cargo || true)
if [ -n "$CARGO" ] && [ -x "$(dirname "$CARGO")/rustup" ]; then
	export RUSTUP_HOME=${RUSTUP_HOME:-$real_home/.rustup}
fi

req() { (cd "$WS" && crun --sandbox required --status-file "$T/s.json" "$@"); }

# mktemp: the file lands in the run's temp dir, which is TMPDIR.
rm -f "$T/s.json"
out=$(req -- sh -c 'f=$(mktemp) && echo x > "$f" && d=$(mktemp -d) && echo "$TMPDIR|$f|$d"') 2>"$T/e"
is "$?" 0 "mktemp works confined"
tmpdir=$(json_field "$T/s.json" status 'e["tmpdir"]')
case $out in
"$tmpdir|$tmpdir/"*"|$tmpdir/"*) ok 0 "mktemp uses the run's TMPDIR ($tmpdir)" ;;
*) ok 1 "mktemp uses the run's TMPDIR: got '$out', tmpdir '$tmpdir'" ;;
esac

# git status in a repository with a commit (refreshes .git/index).
if tool_ok git; then
	(cd "$WS" && git init -q && echo a >a && git add a && git commit -qm init && echo b >>a)
	out=$(req -- git status --porcelain) 2>"$T/e"
	is "$?" 0 "git status works confined"
	is "$out" " M a" "git status sees the change"
	req -- git commit -qam second 2>"$T/e"
	is "$?" 0 "git commit works confined (index.lock, objects)"
	diag "$(git --version)"
else
	skip "git status works confined: $TOOL_WHY"
	skip "git status sees the change: $TOOL_WHY"
	skip "git commit works confined: $TOOL_WHY"
fi

# cargo --version (through rustup's proxy when that is how it is installed).
if [ -n "$CARGO" ] && PATH="$(dirname "$CARGO"):$PATH" tool_ok cargo; then
	out=$(req -- "$CARGO" --version) 2>"$T/e"
	rc=$?
	is "$rc" 0 "cargo --version works confined"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | head -n 5
	diag "$out"
else
	skip "cargo --version works confined: ${TOOL_WHY:-cargo is not on PATH or in ~/.cargo/bin} ($(id -un))"
fi

# node -e: writes in the workspace and in TMPDIR.
if tool_ok node; then
	out=$(req -- node -e '
const fs = require("fs"), os = require("os"), path = require("path");
fs.writeFileSync("from-node", "x");
fs.writeFileSync(path.join(os.tmpdir(), "n"), "y");
console.log(process.version);') 2>"$T/e"
	is "$?" 0 "node -e works confined"
	[ -f "$WS/from-node" ]
	ok $? "node wrote in the workspace"
	diag "node $out"
else
	skip "node -e works confined: $TOOL_WHY"
	skip "node wrote in the workspace: $TOOL_WHY"
fi

# python3 -c, as found on PATH (root's may be a pyenv shim).
out=$(req -- python3 -c '
import sys, tempfile
open("from-python", "w").write("x")
with tempfile.NamedTemporaryFile() as f:
    f.write(b"y")
print(sys.version.split()[0])') 2>"$T/e"
rc=$?
is "$rc" 0 "python3 -c works confined ($(command -v python3))"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | head -n 5
[ -f "$WS/from-python" ]
ok $? "python3 wrote in the workspace"
diag "python3 $out"

layers=$(json_field "$T/s.json" status '" ".join(e["layers"])')

# Python multiprocessing: Pools (fork, spawn, forkserver) and a Manager,
# whose server the other processes reach over a Unix socket in TMPDIR.
cp -r "$FIX/python-mp" "$WS/"
rm -f "$T/s.json"
out=$(req -- "$PY" python-mp/mp.py 2>"$T/e")
rc=$?
is "$rc" 0 "python multiprocessing works confined"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | tail -n 5
for m in fork spawn forkserver; do
	case $out in
	*"pool $m: sum 2470, in workers"*) ok 0 "multiprocessing Pool ($m) computed in its workers" ;;
	*) ok 1 "multiprocessing Pool ($m) computed in its workers" ;;
	esac
done
case $out in
*"manager: [0, 1, 2, 3] from 4 processes"*) ok 0 "multiprocessing Manager shared a dict and a list between 4 processes" ;;
*) ok 1 "multiprocessing Manager shared a dict and a list between 4 processes" ;;
esac
addr=$(printf '%s\n' "$out" | sed -n "s/^manager address: //p")
tmpdir=$(json_field "$T/s.json" status 'e["tmpdir"]')
case $addr in
"'$tmpdir/"*) ok 0 "the Manager's socket is in the run's TMPDIR" ;;
"'\\x00"* | "b'\\x00"*) ok 0 "the Manager's socket is abstract ($addr)" ;;
*) ok 1 "the Manager's socket is in the run's TMPDIR or abstract: $addr (tmpdir $tmpdir)" ;;
esac

# script: a pty from the run's own devpts (the mount layer's
# private_devpts); without it no pty can be opened, as documented.
if ! tool_ok script; then
	skip "script works confined: $TOOL_WHY"
	skip "script's pty is the run's own: $TOOL_WHY"
elif [[ " $layers " != *" private_devpts "* ]]; then
	skip "script works confined: no private devpts here (layers: $layers), so no pty can be opened"
	skip "script's pty is the run's own: no private devpts here"
else
	out=$(set -o pipefail; req -- script -q -c 'tty; ls -1 /dev/pts; echo hi' /dev/null </dev/null 2>"$T/e" | tr -d '\r')
	rc=$?
	is "$rc" 0 "script -q -c 'tty; echo hi' works confined"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | tail -n 5
	pty=$(printf '%s\n' "$out" | head -n 1)
	case $pty in
	/dev/pts/[0-9]*) ;;
	*) pty="(none: '$pty')" ;;
	esac
	is "$(printf '%s\n' "$out" | tail -n +2 | tr '\n' ' ')" "${pty#/dev/pts/} ptmx hi " \
		"script's pty $pty is the run's own: its /dev/pts holds only that pty and ptmx"
fi

# A test suite that starts and stops its own servers: HTTP on 127.0.0.1
# and a server on a Unix socket in the workspace, each a process; a client
# of each also runs in a thread.
cp -r "$FIX/servers" "$WS/"
req -- "$PY" servers/test_servers.py >"$T/suite.log" 2>&1
rc=$?
is "$rc" 0 "a test suite with its own servers works confined"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/suite.log" | tail -n 15
for t in test_http_on_localhost test_unix_socket test_http_from_a_thread \
	test_unix_socket_from_a_thread; do
	grep -q "^$t (.*) \.\.\. ok$" "$T/suite.log"
	ok $? "the suite's $t passed"
done
grep -q '^127\.0\.0\.1 - - .*"GET /hello.txt HTTP/1.1" 200' "$WS/servers/http.log"
ok $? "the HTTP server on 127.0.0.1 served the test's request"
grep -q '^ping from pid' "$WS/servers/srv.log"
ok $? "the Unix socket server in the workspace answered the test"
grep -q '^from a thread from pid' "$WS/servers/srv.log"
ok $? "... and the test's client thread"
grep -q '^servers stopped: socket removed, port closed$' "$T/suite.log"
ok $? "the suite stopped both servers (socket removed, port closed)"
diag "the Unix socket server saw its client as: $(sed -n 's/^ping from //p' "$WS/servers/srv.log")"

# pip install into a venv in the workspace, without the network: a wheel
# made beforehand, and a setuptools project built confined.
pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if tool_ok venv; then
	mkdir -p "$WS/dist"
	"$PY" "$FIX/pip/make_wheel.py" "$WS/dist" >/dev/null
	cp -r "$FIX/pip/pkg" "$WS/pkg"
	pip_in() { req -- venv/bin/python -m pip --disable-pip-version-check install -q --no-index "$@"; }
	req -- "$PY" -m venv --system-site-packages venv 2>"$T/e"
	is "$?" 0 "python3 -m venv works confined"
	pip_in dist/cordon_wheel-1.0-py3-none-any.whl >"$T/pip.log" 2>&1
	rc=$?
	is "$rc" 0 "pip install of a wheel works confined"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/pip.log" | tail -n 10
	out=$(req -- sh -c 'venv/bin/python -c "import cordon_wheel; print(cordon_wheel.__file__)" && venv/bin/cordon-wheel' 2>&1)
	is "$out" "$WS/venv/lib/python$pyver/site-packages/cordon_wheel/__init__.py
hello from cordon-wheel" "the installed module imports from the venv and its script runs"
	if tool_ok setuptools; then
		pip_in --no-build-isolation ./pkg >"$T/pip.log" 2>&1
		rc=$?
		is "$rc" 0 "pip install --no-build-isolation of a setuptools project works confined"
		[ "$rc" -eq 0 ] || grep -v '^ *$' "$T/pip.log" | tail -n 6 | sed 's/^/#   /'
		out=$(req -- sh -c 'venv/bin/python -c "import cordon_tiny; print(cordon_tiny.__file__)" && venv/bin/cordon-tiny' 2>&1)
		is "$out" "$WS/venv/lib/python$pyver/site-packages/cordon_tiny/__init__.py
hello from cordon-tiny" "the built package imports from the venv and its script runs"
	else
		skip "pip install --no-build-isolation of a setuptools project works confined: $TOOL_WHY"
		skip "the built package imports from the venv: $TOOL_WHY"
	fi
	diag "$(req -- venv/bin/python -m pip --version 2>/dev/null)"
else
	for c in "python3 -m venv" "pip install of a wheel" "the installed module imports" \
		"pip install of a setuptools project" "the built package imports"; do
		skip "$c works confined: $TOOL_WHY"
	done
fi

# ssh-agent: an agent of the test's own, outside the writable set, is
# reached with --allow-socket "$SSH_AUTH_SOCK" and refused without it.
if tool_ok ssh-agent; then
	# The key where a user keeps it: ~/.ssh, denied by the default list
	# (its .pub and known_hosts stay readable).
	mkdir -p "$HOME/.ssh"
	ssh-keygen -q -t ed25519 -N '' -C cordon-t0120 -f "$HOME/.ssh/id_ed25519"
	ln -s "$HOME/.ssh/id_ed25519" "$T/key"
	ln -s "$HOME/.ssh/id_ed25519.pub" "$T/key.pub"
	eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null
	DAEMONS+=("$SSH_AGENT_PID")
	ssh-add -q "$T/key" 2>/dev/null
	want=$(ssh-keygen -l -f "$T/key.pub")
	out=$(req --allow-socket "$SSH_AUTH_SOCK" -- ssh-add -l 2>&1)
	is "$out" "$want" "ssh-add -l lists the agent's key with --allow-socket \"\$SSH_AUTH_SOCK\""
	out=$(req -- ssh-add -l 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] && [ "$out" = "Error connecting to agent: Permission denied" ]
	ok $? "without --allow-socket the agent is refused (EACCES; exit $rc)"
	[ "$rc" -ne 0 ] || diag "got: $out"
	diag "$(ssh -V 2>&1)"
else
	skip "ssh-add -l lists the agent's key with --allow-socket: $TOOL_WHY"
	skip "without --allow-socket the agent is refused: $TOOL_WHY"
fi

# git over ssh: an sshd of the test's own on 127.0.0.1 (its own host key;
# the agent's key authorized), a bare repository in $T. ssh reads no file
# of the real home: -F /dev/null, the known hosts and the key given, both
# in the test's ~/.ssh, whose private key the default deny-read list
# hides from the confined command (with the mount layer and without).
git_ssh_skip() {
	for c in "git clone over ssh" "the clone has the remote's commit" \
		"... with ~/.ssh denied" "... and the private key unreadable" \
		"git clone over ssh without the mount layer" \
		"git push over ssh" "without --allow-socket git over ssh"; do
		skip "$c: $1"
	done
}
if ! tool_ok ssh-agent || ! tool_ok git || ! tool_ok sshd; then
	git_ssh_skip "$TOOL_WHY"
else
	S=$T/sshd
	mkdir -p "$S"
	ssh-keygen -q -t ed25519 -N '' -f "$S/hostkey"
	cp "$T/key.pub" "$S/authorized_keys"
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	printf '%s\n' "ListenAddress 127.0.0.1" "Port $port" "HostKey $S/hostkey" \
		"AuthorizedKeysFile $S/authorized_keys" "PidFile none" "UsePAM no" "StrictModes no" \
		"PasswordAuthentication no" "KbdInteractiveAuthentication no" \
		"PermitRootLogin prohibit-password" "PrintMotd no" "UseDNS no" >"$S/config"
	"$TOP/tests/helpers/sshd-own" "$S/config" -D -e 2>"$S/log" &
	DAEMONS+=($!)
	for _ in $(seq 100); do
		grep -q 'Server listening' "$S/log" && break
		sleep 0.1
	done
	echo "[127.0.0.1]:$port $(cat "$S/hostkey.pub")" >"$HOME/.ssh/known_hosts"
	export GIT_SSH_COMMAND="ssh -F /dev/null -o BatchMode=yes -o UserKnownHostsFile=$HOME/.ssh/known_hosts -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o IdentityFile=$HOME/.ssh/id_ed25519.pub -o ControlPath=none"
	git init -q --bare "$T/remote.git"
	git -C "$T/remote.git" symbolic-ref HEAD refs/heads/main
	git init -q "$T/src"
	echo "over ssh" >"$T/src/README"
	git -C "$T/src" add README
	git -C "$T/src" commit -qm "first over ssh"
	git -C "$T/src" push -q "$T/remote.git" HEAD:refs/heads/main
	url="ssh://$(id -un)@127.0.0.1:$port$T/remote.git"
	# Control, unconfined: this user can log in to this sshd at all.
	if ! grep -q 'Server listening' "$S/log"; then
		ok 1 "control: the test's sshd listens on 127.0.0.1:$port"
		sed 's/^/#   /' "$S/log"
		git_ssh_skip "the test's sshd did not start"
	elif ! git ls-remote "$url" >/dev/null 2>"$T/e"; then
		why=$(grep -m 1 'account is locked\|not allowed because\|currently not available\|does not exist' "$S/log")
		if [ -n "$why" ]; then
			git_ssh_skip "$(id -un) cannot log in over ssh here (sshd: $why)"
		else
			ok 1 "control: git ls-remote over ssh works unconfined"
			sed 's/^/#   /' "$T/e" "$S/log" | tail -n 10
		fi
	else
		rm -f "$T/s.json"
		req --allow-socket "$SSH_AUTH_SOCK" -- git clone -q "$url" clone 2>"$T/e"
		rc=$?
		is "$rc" 0 "git clone over ssh://127.0.0.1 works confined with --allow-socket \"\$SSH_AUTH_SOCK\""
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | tail -n 5
		is "$(git -C "$WS/clone" log --format=%s -1 2>&1) / $(cat "$WS/clone/README" 2>&1)" \
			"first over ssh / over ssh" "the clone has the remote's commit"
		is "$(json_field "$T/s.json" status '[d["enforced"] for d in e["read_denied"] if d["path"].endswith("/.ssh")] + [d["readable"] for d in e["read_denied"] if d["path"].endswith("/.ssh")]')" \
			'[true, ["id_ed25519.pub", "known_hosts"]]' "... with ~/.ssh denied but its .pub and known_hosts"
		# Absent only counts when cordon ran the command: it says so after
		# the attempt, with cat's status.
		out=$(req -- sh -c 'cat "$1"; echo "cat exit $?"' sh "$HOME/.ssh/id_ed25519" 2>&1)
		case $out in
		*PRIVATE* | *"cat exit 0"*) why="cat read it" ;;
		*"cat exit "[1-9]*) why="" ;;
		*) why="cordon did not run cat" ;;
		esac
		[ -z "$why" ]
		ok $? "... and the private key unreadable in the same kind of run"
		[ -z "$why" ] || diag "$why: $out"
		# The same without the mount layer: the Landlock read layer.
		rm -f "$T/s.json"
		(cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" --sandbox required \
			--status-file "$T/s.json" --allow-socket "$SSH_AUTH_SOCK" -- git clone -q "$url" clone-ll) 2>"$T/e"
		rc=$?
		is "$rc/$(cat "$WS/clone-ll/README" 2>&1)/$(json_field "$T/s.json" status '[d["by"] for d in e["read_denied"] if d["path"].endswith("/.ssh")]')" \
			'0/over ssh/["landlock"]' "git clone over ssh works without the mount layer, ~/.ssh denied by landlock"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | tail -n 5
		(cd "$WS/clone" && echo more >>README && git commit -qam "pushed confined") 2>/dev/null
		req --allow-socket "$SSH_AUTH_SOCK" -- git -C clone push -q origin HEAD:main 2>"$T/e"
		rc=$?
		is "$rc/$(git -C "$T/remote.git" log --format=%s -1 main)" "0/pushed confined" \
			"git push over ssh works confined: the remote has the commit"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/e" | tail -n 5
		accepted=$(grep -c 'Accepted publickey' "$S/log")
		req -- git clone -q "$url" clone2 2>"$T/e"
		rc=$?
		[ "$rc" -ne 0 ] && [ ! -e "$WS/clone2/README" ] &&
			[ "$(grep -c 'Accepted publickey' "$S/log")" = "$accepted" ]
		ok $? "without --allow-socket git over ssh cannot use the agent (exit $rc, no login)"
	fi
fi

done_testing
