#!/usr/bin/env bash
# --explain and the exit event's "possible_refusals" name every kind of refusal the
# run's policy can cause, in the words the command really met: a read of a
# denied secret (a key in ~/.ssh, a file such as ~/.netrc, a directory such
# as ~/.aws), --network off (a connect out, a name lookup), a Unix socket
# outside, a variable of the secret list removed; with the mount layer and
# without it (the Landlock read layer, the seccomp network filter). Each
# check compares what the line says with the error the command got, and a
# control (--sandbox off, --network on) shows the command gets through
# unconfined. Kinds the policy cannot cause are not named.
# The line names paths as ~/..., literally:
# shellcheck disable=SC2088
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny

mkdir -p "$HOME/.ssh" "$HOME/.aws"
echo "KEY-SECRET" >"$HOME/.ssh/id_ed25519"
chmod 0600 "$HOME/.ssh/id_ed25519"
echo "known-hosts-ok" >"$HOME/.ssh/known_hosts"
echo "machine example.invalid password NETRC-SECRET" >"$HOME/.netrc"
echo "AWS-SECRET" >"$HOME/.aws/credentials"

# The listener of the socket outside: one connection is one line.
cat >"$T/listen.py" <<'EOF'
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
print("up", flush=True)
log = open(sys.argv[2], "a", buffering=1)
while True:
    c, _ = s.accept()
    log.write("connected\n")
    c.close()
EOF
: >"$T/seen.log"
coproc LISTEN { exec "$PY" "$T/listen.py" "$OUT/agent.sock" "$T/seen.log"; }
trap 'kill "$LISTEN_PID" 2>/dev/null; cleanup' EXIT
read -r up <&"${LISTEN[0]}"
is "${up:-}" up "the listener outside runs"

# probe.py: one line per attempt, "NAME ok CONTENT" or "NAME error STRERROR";
# then exit 1, so that --explain speaks.
cat >"$T/probe.py" <<'EOF'
import os, socket, sys
home = os.environ["HOME"]
def read(name, path):
    try:
        with open(path) as f:
            print(name, "ok", repr(f.read().strip()), flush=True)
    except OSError as e:
        print(name, "error", e.strerror, flush=True)
read("key", home + "/.ssh/id_ed25519")
read("netrc", home + "/.netrc")
read("awsfile", home + "/.aws/credentials")
try:
    os.listdir(home + "/.aws")
    print("awsdir ok", flush=True)
except OSError as e:
    print("awsdir error", e.strerror, flush=True)
def connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(("192.0.2.1", 9))
try:
    connect()
    print("connect ok", flush=True)
except OSError as e:
    print("connect error", e.strerror, flush=True)
try:
    socket.getaddrinfo("registry.npmjs.org", 443)
    print("lookup ok", flush=True)
except socket.gaierror as e:
    print("lookup error", e.strerror, flush=True)
try:
    u = socket.socket(socket.AF_UNIX)
    u.connect(sys.argv[1])
    print("unix ok", flush=True)
except OSError as e:
    print("unix error", e.strerror, flush=True)
print("env", os.environ.get("CORDON_T_TOKEN", "unset"), flush=True)
sys.exit(1)
EOF
export CORDON_T_TOKEN=ENV-SECRET

# run NAME CORDON-OPTIONS...: the probe, its lines in $T/NAME.out, the
# explain line in $T/NAME.line, the events in $T/NAME.json; cordon run
# behind the words of the array PRE (set by the caller, emptied here).
PRE=()
run() {
	local name=$1
	shift
	(cd "$WS" && "${PRE[@]}" "$CORDON" run --state-dir "$STATE" --status-file "$T/$name.json" \
		"$@" -- "$PY" "$T/probe.py" "$OUT/agent.sock") >"$T/$name.out" 2>"$T/$name.err"
	grep '^cordon: explain: ' "$T/$name.err" >"$T/$name.line"
	PRE=()
}
# got NAME WHAT: the probe's line for WHAT, without the name.
got() { sed -n "s/^$2 //p" "$T/$1.out"; }
# has NAME TEXT: the explain line holds TEXT.
has() { grep -qF -- "$2" "$T/$1.line"; }
# refusal NAME KIND: the exit event's text for KIND, or NONE (the
# field's name says what it holds: kinds the policy can cause, not
# refusals that happened; it was "refusals" before 2026-12-06).
refusal() {
	json_field "$T/$1.json" exit "next((r['means'] for r in (e['possible_refusals'] or []) if r['kind'] == '$2'), 'NONE')"
}
# kinds NAME: the exit event's kinds, in order.
kinds() { json_field "$T/$1.json" exit "None if e['possible_refusals'] is None else [r['kind'] for r in e['possible_refusals']]"; }

# Control: unconfined, every attempt but the network ones gets through.
run ctl --sandbox off --explain=full
is "$(got ctl key)|$(got ctl netrc)|$(got ctl awsfile)|$(got ctl unix)|$(got ctl env)" \
	"ok 'KEY-SECRET'|ok 'machine example.invalid password NETRC-SECRET'|ok 'AWS-SECRET'|ok|ENV-SECRET" \
	"control (--sandbox off): the secrets, the socket and the variable are there"
is "$(wc -c <"$T/ctl.line")|$(kinds ctl)" "0|null" "... and no explanation, possible_refusals null"
: >"$T/seen.log"

# The mount layer (a namespace), the network off.
run mnt --explain=full --network off
is "$(json_field "$T/mnt.json" exit '["refusals" in e, "possible_refusals" in e]')" "[false, true]" \
	"the exit event names its kinds possible_refusals (not refusals: they are what the policy can cause)"
if [ "$(json_field "$T/mnt.json" status '"mount_namespace" in e["layers"]')" != true ]; then
	skip "the mount layer: not here ($(json_field "$T/mnt.json" status 'e["layers"]'))"
else
	is "$(wc -l <"$T/mnt.line")" 1 "mount layer: one explain line"
	is "$(got mnt key)" "error No such file or directory" "mount layer: a key in ~/.ssh is ENOENT"
	has mnt '~/.ssh holds only known_hosts: any other file in it (a key) is ENOENT "No such file or directory"'
	ok $? "... and the line says so for ~/.ssh"
	is "$(got mnt netrc)" "ok ''" "mount layer: ~/.netrc reads as empty, no error"
	has mnt 'a denied file (~/.netrc) reads as empty, with no error'
	ok $? "... and the line says so"
	aws=$(got mnt awsfile)
	if is_root; then
		is "$aws|$(got mnt awsdir)" "error No such file or directory|ok" \
			"mount layer, root: ~/.aws lists (empty), a file in it is ENOENT"
		has mnt 'a denied directory (~/.aws) lists as empty, a file in it is ENOENT "No such file or directory"'
	else
		is "$aws|$(got mnt awsdir)" "error Permission denied|error Permission denied" \
			"mount layer, not root: ~/.aws and a file in it are EACCES"
		has mnt 'a denied directory (~/.aws) and a file in it fail with EACCES "Permission denied"'
	fi
	ok $? "... and the line says so"
	has mnt 'reads: ' && has mnt '~/.ssh, ~/.aws, ~/.netrc'
	ok $? "mount layer: the line names the denied paths"
	is "$(got mnt connect)" "error Network is unreachable" "network off, namespace: a connect out is ENETUNREACH"
	has mnt '--network off: a connect out fails with ENETUNREACH "Network is unreachable"'
	ok $? "... and the line says so"
	is "$(got mnt lookup)" "error Temporary failure in name resolution" "network off: a name lookup fails (EAI_AGAIN)"
	has mnt 'a name lookup with EAI_AGAIN "Temporary failure in name resolution"'
	ok $? "... and the line says so"
	is "$(got mnt unix)" "error Permission denied" "a Unix socket outside is EACCES"
	has mnt 'Unix sockets: a connect or send to one outside the writable set (not --allow-socket: an ssh or gpg agent, docker.sock) fails with EACCES "Permission denied"'
	ok $? "... and the line says so"
	is "$(got mnt env)" unset "a variable of the secret list is removed"
	has mnt 'environment: ' && grep -qE 'CORDON_T_TOKEN|and [0-9]+ more' "$T/mnt.line"
	ok $? "... and the line names it (or how many more)"
	is "$(kinds mnt)" '["write", "read", "network", "unix_socket", "env"]' \
		"the exit event's possible_refusals: write, read, network, unix_socket, env"
	for k in write read network unix_socket env; do
		means=$(refusal mnt "$k")
		[ -n "$means" ] && [ "$means" != NONE ] && has mnt "$means"
		ok $? "... $k: the line says what the event says"
	done
fi

# Without namespaces: the Landlock read layer, the seccomp network filter.
PRE=("$DENY" nons --)
run nons --explain=full --network off
is "$(json_field "$T/nons.json" status '["mount_namespace" in e["layers"], "read_deny" in e["layers"], "network_seccomp" in e["layers"]]')" \
	"[false, true, true]" "no namespace: the Landlock read layer and the network filter"
is "$(got nons key)|$(got nons netrc)|$(got nons awsfile)" \
	"error Permission denied|error Permission denied|error Permission denied" \
	"no namespace: every denied path is EACCES"
has nons 'opening one fails with EACCES "Permission denied", and so does listing a directory on the way to one (ls ~)'
ok $? "... and the line says so"
is "$(got nons connect)" "error Permission denied" "network off, no namespace: an IP socket is EACCES"
has nons '--network off: making an IP socket, loopback too, fails with EACCES "Permission denied"'
ok $? "... and the line says so"
is "$(got nons lookup)" "error Temporary failure in name resolution" "... a name lookup fails (EAI_AGAIN)"
has nons 'a name lookup with EAI_AGAIN "Temporary failure in name resolution"'
ok $? "... and the line says so"
is "$(kinds nons)" '["write", "read", "network", "unix_socket", "env"]' "no namespace: the same kinds"
is "$(got nons unix)" "error Permission denied" "no namespace: a Unix socket outside is EACCES"
is "$(wc -l <"$T/seen.log")" 0 "the socket outside saw no connection from a confined run"

# Kinds the policy cannot cause are not named: the network on, the
# default lists off (--no-default-deny-read keeps the variables too).
run on --explain=full --no-default-deny-read
is "$(got on key)|$(got on env)" "ok 'KEY-SECRET'|ENV-SECRET" "--no-default-deny-read: the secrets are readable (control)"
is "$(kinds on)" '["write", "unix_socket"]' "... possible_refusals: write, unix_socket only"
! has on 'reads: ' && ! has on '--network off' && ! has on 'environment: '
ok $? "... and the line names neither reads, nor the network, nor variables"
# --network off that nothing enforces (auto): not named either.
PRE=("$DENY" nons -- "$DENY" noseccomp --)
run gap --explain=full --network off
is "$(json_field "$T/gap.json" status '"network_not_restricted" in e["gaps"]')|$(refusal gap network)" \
	"true|NONE" "--network off not enforced: no network refusal"
# The temp dirs the line calls the machine's, read-only, are the ones
# that are: with the mount layer both are the run's own and writable
# (also with a home or workspace in /tmp), and a write there never
# reaches the machine's; without it, both are the machine's, read-only.
tmpname=/tmp/$(basename "$T")-x
rm -f "$tmpname"
(cd "$WS" && "$CORDON" run --state-dir "$STATE" --status-file "$T/tmp.json" --explain=full -- sh -c \
	'echo x >/var/tmp/f && echo var-wrote; echo x >"$0" 2>/dev/null && echo tmp-wrote; exit 1' \
	"$tmpname") >"$T/tmp.out" 2>"$T/tmp.err"
[ ! -e "$tmpname" ]
ok $? "a write to /tmp never reaches the machine's /tmp"
rm -f "$tmpname"
for d in /var/tmp /tmp; do
	w=var-wrote
	[ "$d" = /tmp ] && w=tmp-wrote
	if grep -q "$w" "$T/tmp.out"; then
		! grep -q "$d are the machine's\|$d is the machine's\|and $d are the machine's" "$T/tmp.err"
		ok $? "$d was the run's own and writable: the line does not call it the machine's, read-only"
	else
		grep -q "/tmp and /var/tmp are the machine's and read-only" "$T/tmp.err"
		ok $? "$d was the machine's, read-only: the line says so"
	fi
done
# The short --explain (the default): two lines, the errors each kind
# gives (those the full line names), and where the rest is.
run short --explain --network off
is "$(grep -c '' "$T/short.err"):$(grep -c '^cordon: explain: ' "$T/short.err")" "2:2" \
	"--explain: two lines on stderr"
is "$(($(wc -c <"$T/short.err") < 600))" 1 "... under 600 bytes ($(wc -c <"$T/short.err"); the full line: $(wc -c <"$T/mnt.line"))"
grep -q "what each means in this run, and where: --explain=full, or the exit event's possible_refusals" "$T/short.err"
ok $? "... the second says how to have the rest"
if [ "$(json_field "$T/short.json" status '"mount_namespace" in e["layers"]')" = true ]; then
	for err in EROFS EXDEV ENOENT EACCES ENETUNREACH ECONNREFUSED EAI_AGAIN; do
		has short "$err" && grep -q "$err" "$T/mnt.line"
		ok $? "... names $err, as the full line does"
	done
else
	skip "the short line's errors with the mount layer: no mount layer here"
fi
is "$(got short key)|$(got short connect)" "$(got mnt key)|$(got mnt connect)" "... the command met the same refusals"
run bogus --explain=loud
is "$(wc -l <"$T/bogus.err")" 1 "--explain=loud: one line"
grep -q "^cordon: bad --explain 'loud'" "$T/bogus.err"
ok $? "... saying why ($(cat "$T/bogus.err"))"

# Success: the event still lists them; no line.
(cd "$WS" && "$CORDON" run --state-dir "$STATE" --status-file "$T/ok.json" --explain --network off -- true) 2>"$T/ok.err"
is "$(wc -c <"$T/ok.err")|$(json_field "$T/ok.json" exit '"network" in [r["kind"] for r in e["possible_refusals"]]')" \
	"0|true" "a command that succeeds: no line, the exit event lists the possible refusals"

done_testing
