#!/usr/bin/env bash
# In the foreground of a terminal the command gets the terminal: an
# interactive shell works with Ctrl-C and job control, Ctrl-C reaches a
# plain command, Ctrl-Z stops cordon like any job and fg resumes it.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
PTY=$HELPERS/pty-run
export PS1='$ ' TERM=dumb

# 1. An interactive bash inside cordon.
cd "$WS" || exit 1
"$PTY" -t 15 -- "$CORDON" run --state-dir "$STATE" -- bash --norc --noprofile -i >"$T/o" 2>&1 <<'SCRIPT'
expect $ 
send echo hello-$((6*7))\n
expect hello-42
send sleep 100\n
sleep 300
send \x03
sleep 200
send echo after-int-$((1+1))\n
expect after-int-2
send sleep 101 &\n
send jobs\n
expect Running
send kill %1\n
send echo $TMPDIR > tmp-seen\n
send exit 5\n
SCRIPT
rc=$?
is "$rc" 5 "interactive bash: exit status comes back"
grep -q hello-42 "$T/o"
ok $? "interactive bash: runs commands"
grep -q after-int-2 "$T/o"
ok $? "interactive bash: Ctrl-C stops the foreground job, the shell survives"
! grep -qi -e 'no job control' -e 'cannot set terminal process group' "$T/o"
ok $? "interactive bash: has job control"
grep -q Running "$T/o"
ok $? "interactive bash: background jobs"
case $(cat "$WS/tmp-seen" 2>/dev/null) in
"$STATE"/runs/*) ok 0 "interactive bash: confined run (TMPDIR is the run's)" ;;
*) ok 1 "interactive bash: confined run (TMPDIR is the run's)" ;;
esac
[ "$rc" = 5 ] || sed 's/^/#   /' "$T/o"

# 2. Ctrl-C reaches a plain command.
start=$(date +%s)
"$PTY" -t 10 -- "$CORDON" run --state-dir "$STATE" -w "$WS" -- sleep 100 >"$T/o" 2>&1 <<'SCRIPT'
sleep 500
send \x03
SCRIPT
is "$?" 130 "Ctrl-C: the command dies of SIGINT, cordon exits 130"
[ $(($(date +%s) - start)) -lt 8 ]
ok $? "Ctrl-C: promptly"

# 3. Ctrl-Z and fg from an outer shell.
"$PTY" -t 15 -- bash --norc --noprofile -i >"$T/o" 2>&1 <<SCRIPT
expect \$ 
send "$CORDON" run --state-dir "$STATE" -w "$WS" -- cat\n
sleep 500
send \x1a
expect Stopped
send fg\n
sleep 300
send typed-after-fg\n
expect typed-after-fg\r\ntyped-after-fg
send \x04
send echo done-\$?\n
expect done-0
send exit\n
SCRIPT
is "$?" 0 "Ctrl-Z: the job stops, fg resumes it with the terminal, it finishes"
grep -q Stopped "$T/o"
ok $? "Ctrl-Z: the shell saw the job stop"
grep -q done-0 "$T/o" || sed 's/^/#   /' "$T/o"

# 4. The caller's terminal keeps its name inside (tty, GPG_TTY=$(tty)):
# with the private devpts it is bound over the run's own pty of its
# number, alone; another pty of the test's, made first (so a lower
# number), stays out of reach. in_pty CMD...: CMD in a pty, with
# $OTHER the slave of a second pty pair held open meanwhile; then what
# reached that pair's master.
in_pty() {
	"$PY" - "$PTY" "$@" <<'PY'
import os, select, subprocess, sys
m, s = os.openpty()
env = dict(os.environ, OTHER=os.ttyname(s))
r = subprocess.run([sys.argv[1], "-t", "15", "--"] + sys.argv[2:], input=b"",
                   stdout=subprocess.PIPE, env=env)
sys.stdout.write(r.stdout.decode(errors="replace").replace("\r", ""))
got = b""
while select.select([m], [], [], 0.3)[0]:
    got += os.read(m, 4096)
print("other-got:" + got.decode(errors="replace").strip())
sys.exit(r.returncode)
PY
}
inner='echo inner=$(tty) other=$OTHER; [ -t 0 ] && echo stdin-is-tty; echo pts=$(ls /dev/pts)
[ -e "$OTHER" ] && echo other-exists
(echo INJECTED >"$OTHER") 2>/dev/null && echo other-written
command -v script >/dev/null && script -q -c tty /dev/null </dev/null | sed "s/^/script=/"'
rm -f "$T/s.json"
in_pty sh -c 'echo outer=$(tty); exec "$@"' sh "$CORDON" run --state-dir "$STATE" \
	--status-file "$T/s.json" -w "$WS" -- sh -c "$inner" >"$T/o" 2>&1
rc=$?
layers=$(json_field "$T/s.json" status '" ".join(e["layers"])' 2>/dev/null)
outer=$(sed -n 's/^outer=//p' "$T/o")
if [[ " $layers " != *" private_devpts "* || " $layers " != *" pid_namespace "* ]]; then
	for n in "tty names" "[ -t 0 ]" "only its own terminal" "no other terminal" "script"; do
		skip "$n: no private devpts or PID namespace here (layers: $layers)"
	done
else
	case $outer in
	/dev/pts/[0-9]*) is "$(sed -n 's/^inner=\([^ ]*\) .*/\1/p' "$T/o")" "$outer" \
		"tty inside names the caller's terminal as outside ($outer)" ;;
	*) ok 1 "tty inside names the caller's terminal: the outer one is $outer" ;;
	esac
	grep -q '^stdin-is-tty$' "$T/o"
	ok $? "[ -t 0 ] inside"
	is "$(sed -n 's/^pts=//p' "$T/o")" "${outer#/dev/pts/} ptmx" \
		"/dev/pts inside holds the caller's terminal and ptmx, nothing else"
	! grep -q -e '^other-exists$' -e '^other-written$' -e 'other-got:.*INJECTED' "$T/o"
	ok $? "another pty of the machine ($(sed -n 's/.* other=//p' "$T/o")): no path to it, nothing written to it"
	if command -v script >/dev/null; then
		sp=$(sed -n 's/^script=//p' "$T/o")
		case $sp in
		/dev/pts/[0-9]*) [ "$sp" != "$outer" ] ;;
		*) false ;;
		esac
		ok $? "script makes a pty of the run's own beside it ($sp)"
	else
		skip "script makes a pty beside it: no script(1) here"
	fi
fi
[ "$rc" = 0 ] || { diag "rc $rc"; sed 's/^/#   /' "$T/o"; }
# The control: unconfined, the same command reaches the other pty.
in_pty sh -c "$inner" >"$T/o" 2>&1
grep -q '^other-written$' "$T/o" && grep -q 'other-got:.*INJECTED' "$T/o"
ok $? "control: unconfined, the other pty is written to"

done_testing
