#!/usr/bin/env bash
# Everyday tools work inside `cordon run --sandbox required`: mktemp in the
# run's TMPDIR, git status, cargo --version, node -e, python3 -c. Each one
# also writes where it may (the workspace, TMPDIR), so "works" means more
# than printing a version. docs/compatibility.md records the results; the
# heavier tools are in tests/tools/run (make check-tools).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

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

done_testing
