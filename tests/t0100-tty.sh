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

done_testing
