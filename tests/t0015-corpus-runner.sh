#!/usr/bin/env bash
# The corpus runner's tool controls: a host tool that does not work on this
# machine makes the cases that need it skip with the reason, never fail as
# if cordon were at fault and never pass; a control that fails for a reason
# nobody explained fails those cases. Fake tools stand in for a
# broken gdb (Debian's gdb 13 on a CPU with AMX) and a broken chattr.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

fake=$T/fakebin
mkdir -p "$fake"
runner() { # runner PATH_PREFIX ONLY: the corpus runner on the cases matching ONLY
	CORDON_TOP=$TOP CORDON_BUILD=$B CORDON_CORPUS_PATH_PREFIX=$1 \
		"$TOP/tests/corpus_regression" -j 2 --situations off,confined --only "$2" >"$T/o" 2>&1
}

cat >"$fake/gdb" <<'SH'
#!/bin/sh
echo "Couldn't write extended state status: Bad address." >&2
exit 1
SH
chmod +x "$fake/gdb"
runner "$fake" '^ptrace-peer-gdb$'
is "$?" 0 "gdb that cannot write registers: the run does not fail"
is "$(grep -c '# SKIP gdb does not work here: .*extended state' "$T/o")" 2 \
	"both situations are skipped with the reason"
grep -q '^0 passed, 0 failed, 2 skipped$' "$T/o"
ok $? "nothing counted as passed"

cat >"$fake/gdb" <<'SH'
#!/bin/sh
echo "gdb: something nobody has seen before" >&2
exit 3
SH
runner "$fake" '^ptrace-peer-gdb$'
is "$?" 1 "gdb failing for an unexplained reason: the run fails"
grep -q "^not ok .*ptrace-peer-gdb \[off\]" "$T/o" &&
	grep -q "the control of gdb failed for a reason nobody explained" "$T/o"
ok $? "the failure names the control and what it saw"

cat >"$fake/chattr" <<'SH'
#!/bin/sh
echo "chattr: Operation not supported while setting flags on $2" >&2
exit 1
SH
chmod +x "$fake/chattr"
runner "$fake" '^chattr-nodump$'
is "$?" 0 "chattr on a file system without inode flags: no failure"
is "$(grep -c '# SKIP chattr does not work here' "$T/o")" 2 "skipped with the reason"

# The real tools on this machine: the same controls decide, and whatever
# they decide is reported, never turned into a pass by itself.
runner "$T/empty-prefix" '^ptrace-peer-gdb$'
rc=$?
if grep -q '# SKIP' "$T/o"; then
	is "$rc" 0 "real gdb: skipped here ($(grep -m1 -o 'SKIP .*' "$T/o"))"
else
	is "$rc:$(grep -c '^ok ' "$T/o")" "0:2" "real gdb works here: both situations pass"
fi

done_testing
