#!/usr/bin/env bash
# Inherited fds above 2 are closed before exec unless named by --keep-fd
# (an open fd is a write path Landlock does not see); the environment
# follows design section 5.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

make_fixture "$OUT/log"
before=$(snapshot "$OUT/log")
(cd "$WS" && crun -- sh -c 'echo evil >&5; echo evil > /proc/self/fd/5; ls /proc/self/fd > fds' 5>>"$OUT/log" 6<"$OUT" 2>/dev/null)
unchanged "an inherited write fd is closed" "$OUT/log" "$before"
is "$(sort -n "$WS/fds" | tr '\n' ' ')" "0 1 2 3 " "only 0-2 (and ls's own dir fd) are open in the command"

(cd "$WS" && crun -- sh -c 'cd /proc/self/fd/6 && echo evil > new' 6<"$OUT") 2>/dev/null
[ ! -e "$OUT/new" ]
ok $? "an inherited directory fd is closed too"

rm -f "$T/s.json"
(cd "$WS" && crun --keep-fd 5 --status-file "$T/s.json" -- sh -c 'echo kept >&5' 5>>"$OUT/log")
is "$?:$(tail -n 1 "$OUT/log")" "0:kept" "--keep-fd 5: the named fd stays usable"
is "$(json_field "$T/s.json" status '"kept_fds_not_restricted" in e["gaps"]')" true \
	"--keep-fd is reported as a gap"

# The status fd itself is not leaked to the command.
(cd "$WS" && crun --status-fd 7 -- sh -c 'test -e /proc/self/fd/7 && echo leaked || echo closed' 7>"$T/st") >"$T/o"
is "$(cat "$T/o")" closed "the status fd does not reach the command"
is "$(grep -c bash_sandbox "$T/st")" 2 "two events on the status fd"
# A status reader that has gone away: the exit event's write fails with
# EPIPE, and the SIGPIPE it raises must not kill cordon.
rm -f "$T/rc"
(cd "$WS" && crun --status-fd 3 -- sh -c 'sleep 0.3; exit 3' 3>&1 >/dev/null 2>/dev/null
	echo $? >"$T/rc") | true
is "$(cat "$T/rc")" 3 "a status reader that went away: the command's status, no SIGPIPE death"

# Environment.
export TMPDIR=/inherited/tmp KEEP_ME=yes SECRET_TOKEN=s3cret LC_ALL=C.UTF-8
(cd "$WS" && crun -- sh -c 'echo "$TMPDIR|$KEEP_ME|$SECRET_TOKEN"') >"$T/o"
case $(cat "$T/o") in
"$STATE"/runs/*"|yes|s3cret") ok 0 "TMPDIR is the run's dir; the rest passes" ;;
*) ok 1 "TMPDIR is the run's dir; the rest passes"; diag "$(cat "$T/o")" ;;
esac
(cd "$WS" && env -i PATH="$PATH" HOME="$HOME" LC_ALL=C.UTF-8 KEEP_ME=yes SECRET_TOKEN=s \
	TMPDIR=/inherited "$CORDON" run --state-dir "$STATE" --clean-env -- env) >"$T/o"
names=$(cut -d= -f1 "$T/o" | sort | tr '\n' ' ')
is "$names" "HOME LC_ALL PATH TMPDIR " "--clean-env passes only the allow-list (+ cordon's TMPDIR)"
(cd "$WS" && crun --clean-env --env KEEP_ME --env NEW=v -- sh -c 'echo "${KEEP_ME-unset}|$NEW|${SECRET_TOKEN-unset}"') >"$T/o"
is "$(cat "$T/o")" "yes|v|unset" "--env NAME passes, --env NAME=VALUE sets, the rest stays out"
(cd "$WS" && crun --env TMPDIR="$WS" -- sh -c 'echo "$TMPDIR"') >"$T/o"
is "$(cat "$T/o")" "$WS" "an explicit --env TMPDIR=... wins"
(cd "$WS" && crun --clean-env --env TMPDIR -- sh -c 'echo "$TMPDIR"') >"$T/o"
is "$(cat "$T/o")" "/inherited/tmp" "an explicit --env TMPDIR passes the caller's"
(cd "$WS" && crun --env KEEP_ME=one --env KEEP_ME=two -- sh -c 'env | grep -c ^KEEP_ME=; echo $KEEP_ME') >"$T/o"
is "$(tr '\n' ' ' <"$T/o")" "1 two " "the last --env for a name wins, no duplicates"

done_testing
