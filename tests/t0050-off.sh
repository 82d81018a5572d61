#!/usr/bin/env bash
# --sandbox off runs a command exactly as a plain exec would: same output,
# same exit status, same environment, fds, signal masks, credentials; no
# temp dir. Each row of the table runs both ways and compares.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

make_fixture "$T/in" "stdin text"
# GITHUB_TOKEN: a name of the default secret list, which off passes too.
export TMPDIR=/custom/tmp CORDON_OFF_TEST='a b' GITHUB_TOKEN=off-test-token

row() { # row NAME COMMAND [ARGS...]
	local name=$1 d o rd ro
	shift
	d=$(cd "$WS" && sh -c "$@" 5<"$T/in" <"$T/in" 2>&1)
	rd=$?
	o=$(cd "$WS" && "$CORDON" run --sandbox off --state-dir "$STATE" -- sh -c "$@" 5<"$T/in" <"$T/in" 2>&1)
	ro=$?
	is "$ro" "$rd" "off: $name: same exit status"
	if [ "$o" = "$d" ]; then
		ok 0 "off: $name: same output"
	else
		ok 1 "off: $name: same output"
		diff <(printf '%s\n' "$d") <(printf '%s\n' "$o") | sed 's/^/#   /'
	fi
}

row "environment" 'env | grep -v "^_=" | sort'
row "TMPDIR is the caller's" 'echo "$TMPDIR"'
row "working directory" 'pwd'
row "exit status" 'exit 7'
row "killed by a signal" 'kill -TERM $$'
row "arguments" 'echo "$0|$1|$2"' a 'b c' ''
row "umask and limits" 'umask; ulimit -n; ulimit -c'
row "inherited fds stay open" 'ls /proc/self/fd | sort -n | tr "\n" " "'
row "fd 5 readable" 'cat <&5'
row "stdin" 'cat'
row "bytes out" 'printf "\377\376 raw\n"'
row "credentials" 'id -u; id -g; id -G'
row "signal masks and ignored signals" 'grep -E "^Sig(Blk|Ign):" /proc/self/status'
row "no confinement, no new privs, caps" \
	'grep -E "^(NoNewPrivs|Cap(Inh|Prm|Eff|Bnd|Amb)|Seccomp):" /proc/self/status'
row "stderr" 'echo to-stderr >&2'
row "nice and oom score" 'nice; cat /proc/self/oom_score_adj'

# Ignored signals stay ignored through cordon (as with nohup).
d=$(trap '' HUP && sh -c 'grep ^SigIgn: /proc/self/status')
o=$(trap '' HUP && "$CORDON" run --sandbox off --state-dir "$STATE" -- sh -c 'grep ^SigIgn: /proc/self/status')
is "$o" "$d" "off: an ignored SIGHUP stays ignored"

# No temp dir is made in off mode.
rm -rf "$STATE"
"$CORDON" run --sandbox off --state-dir "$STATE" --status-file "$T/s.json" -- true
[ ! -e "$STATE" ]
ok $? "off: no state dir or temp dir is created"
is "$(json_field "$T/s.json" status 'e["reason"]')" sandbox_off "off: status reason sandbox_off"
is "$(json_field "$T/s.json" status 'e["applied"]')" false "off: applied false"
is "$(json_field "$T/s.json" status 'e["tmpdir"]')" null "off: no tmpdir"
is "$(json_field "$T/s.json" status 'e["env_removed"]')" "[]" "off: no variable removed"

# Options the user gave explicitly still apply.
is "$("$CORDON" run --sandbox off --state-dir "$STATE" --env FOO=bar -- sh -c 'echo $FOO')" bar \
	"off: --env still applies"
is "$("$CORDON" run --sandbox off --state-dir "$STATE" --clean-env -- sh -c 'echo "${CORDON_OFF_TEST-unset}|${TMPDIR-unset}"')" \
	"unset|unset" "off: --clean-env still applies"

done_testing
