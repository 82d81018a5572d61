#!/usr/bin/env bash
# Policy files and profiles (--policy, --profile, --agent-policy): a run
# under a file or a profile gets exactly its options (the start event, and
# the outside world: a listener of the test's own on the host's loopback
# sees nothing with the network off, the real home is unchanged under a
# scratch home, a protected or denied file of the workspace is untouched);
# a file's relative paths go under the workspace and "~/" under HOME; a
# single value given twice differently is refused (exit 125, one line,
# nothing runs), from any two sources; a policy file in, or reached
# through, a tree the run may write is refused and never loaded
# implicitly from the workspace; the entry points' lookup (environment,
# user file, the profile agent).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

# A listener on the host's loopback that logs every connection.
cat >"$T/listen.py" <<'EOF'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
log = open(sys.argv[1], "a", buffering=1)
while True:
    c, a = s.accept()
    log.write("connection\n")
    c.close()
EOF
: >"$T/seen.log"
coproc LISTEN { exec "$PY" "$T/listen.py" "$T/seen.log"; }
trap 'kill "$LISTEN_PID" 2>/dev/null; cleanup' EXIT
read -r PORT <&"${LISTEN[0]}"
connect="exec 3<>/dev/tcp/127.0.0.1/$PORT && echo connected"

# Control: the listener is reachable, unconfined and with the network on.
(cd "$WS" && crun -- bash -c "$connect") >"$T/o" 2>&1
is "$?:$(cat "$T/o")" "0:connected" "control: the default run reaches the test's listener"
sleep 0.2
: >"$T/seen.log"

layers=$(crun --status-fd 1 -- true | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
mount_layer=0
[[ " $layers " == *" mount_namespace "* ]] && mount_layer=1

# ---- a policy file ----
mkdir -p "$T/pol" "$HOME/extra"
cat >"$T/pol/run.policy" <<'EOF'
# the test's policy
network off

protect .env
allow-write ~/extra
  env GREETING=hello  world
EOF
chmod 0644 "$T/pol/run.policy"
make_fixture "$WS/.env" "SECRET=1"
env_before=$(snapshot "$WS/.env")
home_before=$(snapshot "$HOME/.profile")
rm -f "$T/s.json"
# From $T: the file's relative path goes under the workspace, not the
# current directory nor the file's own.
out=$(cd "$T" && crun -w "$WS" --policy pol/run.policy --status-file "$T/s.json" -- bash -c "
	printf '%s|' \"\$GREETING\"
	echo x >>'$WS/.env' 2>/dev/null && printf 'env-written|' || printf 'env-refused|'
	echo y >'$HOME/extra/f' && printf 'extra-written|'
	$connect 2>/dev/null || printf 'no-network'" 2>"$T/e")
rc=$?
if [ "$mount_layer" = 1 ]; then
	is "$rc:$out" "0:hello  world|env-refused|extra-written|no-network" \
		"--policy FILE: its env, protect, allow-write and network off, all applied"
	unchanged "the workspace's .env, protected by the file's relative 'protect .env'" "$WS/.env" "$env_before"
else
	skip "--policy FILE's protect needs the mount layer (layers: $layers)"
	skip "--policy FILE's protect needs the mount layer"
fi
is "$(cat "$HOME/extra/f" 2>/dev/null)" "y" "allow-write ~/extra: the write reached HOME/extra"
sleep 0.2
is "$(wc -l <"$T/seen.log")" "0" "network off from the file: the listener saw nothing"
is "$(json_field "$T/s.json" status '[e["network"], e["policy"]]')" \
	"[\"off\", [{\"file\": \"$T/pol/run.policy\"}]]" \
	"the start event: the network off, the file named in \"policy\""
unchanged "the home" "$HOME/.profile" "$home_before"

# A bad line: exit 125, one line naming the file and line, nothing ran.
printf 'network off\nnetwork=on\n' >"$T/pol/bad.policy"
(cd "$WS" && crun --policy "$T/pol/bad.policy" -- touch "$T/ran") >/dev/null 2>"$T/e"
rc=$?
is "$rc:$(wc -l <"$T/e"):$([ -e "$T/ran" ] && echo ran)" "125:1:" \
	"a bad line: exit 125, one line, the command did not run"
grep -q "^cordon: $T/pol/bad.policy:2: 'network=on': write the option's name, blanks, then its value" "$T/e"
ok $? "... the line names the file and line: $(cat "$T/e")"
printf 'workspace /\n' >"$T/pol/ws.policy"
(cd "$WS" && crun --policy "$T/pol/ws.policy" -- touch "$T/ran") >/dev/null 2>"$T/e"
is "$?:$(cat "$T/e")" "125:cordon: $T/pol/ws.policy:1: workspace is not allowed in a policy file or profile (give --workspace on the command line)" \
	"workspace in a file: refused"
chmod 0666 "$T/pol/run.policy"
(cd "$WS" && crun --policy "$T/pol/run.policy" -- touch "$T/ran") >/dev/null 2>"$T/e"
is "$?:$([ -e "$T/ran" ] && echo ran)" "125:" "a policy file others may write: refused, nothing ran"
grep -q 'writable by its group or others (mode 666)' "$T/e"
ok $? "... saying so"
chmod 0644 "$T/pol/run.policy"

# ---- profiles: exactly their options ----
# A run under a profile and a run with the profile's options written out
# get the same start event (the run id, its own temp dir, the proxy's
# port and "policy" aside).
norm() {
	"$PY" -c '
import json, sys
line = open(sys.argv[1]).readline()
e = json.loads(line)
line = line.replace(e["tmpdir"], "TMPDIR")
e = json.loads(line)
for k in ("run_id", "tmpdir", "policy", "network_proxy"):
    e.pop(k, None)
print(json.dumps(e, sort_keys=True))' "$1"
}
for p in agent install verify default; do
	flags=$("$CORDON" profile show "$p" | grep -v '^#' | sed 's/^/--/' | tr '\n' ' ')
	rm -f "$T/p1.json" "$T/p2.json"
	(cd "$WS" && crun --profile "$p" --status-file "$T/p1.json" -- true) 2>"$T/e"
	rc1=$?
	# shellcheck disable=SC2086 # the profile's options, one word each
	(cd "$WS" && crun $flags --status-file "$T/p2.json" -- true) 2>>"$T/e"
	rc2=$?
	if [ "$rc1:$rc2" = 0:0 ] && [ "$(norm "$T/p1.json")" = "$(norm "$T/p2.json")" ]; then
		ok 0 "--profile $p: the start event of its options written out ($flags)"
	else
		ok 1 "--profile $p: the start event of its options written out ($flags)"
		diff <(norm "$T/p1.json" | tr ',' '\n') <(norm "$T/p2.json" | tr ',' '\n') | sed 's/^/#   /'
		sed 's/^/#   /' "$T/e"
	fi
	is "$(json_field "$T/p1.json" status 'e["policy"]')" "[{\"profile\": \"$p\"}]" \
		"--profile $p: named in the start event"
done
is "$(json_field "$T/p1.json" status '[e["network"], e["scratch_home"]]')" '["on", false]' \
	"--profile default: nothing added"
rm -f "$T/p.json"
(cd "$WS" && crun --profile agent --status-file "$T/p.json" -- true)
is "$(json_field "$T/p.json" status '[e["network"], e["scratch_home"]]')" '["off", true]' \
	"--profile agent: network off, a scratch home"
rm -f "$T/p.json"
(cd "$WS" && crun --profile install --status-file "$T/p.json" -- true)
is "$(json_field "$T/p.json" status 'e["network"]')" 'allow' "--profile install: network allow"

# The agent profile in the outside world: no connection, the home's
# writes thrown away.
: >"$T/seen.log"
home_before=$(snapshot "$HOME")
out=$(cd "$WS" && crun --profile agent -- bash -c "echo z >\"\$HOME/written\" && cat \"\$HOME/written\"; $connect 2>/dev/null || echo no-network" 2>"$T/e")
if [ "$mount_layer" = 1 ]; then
	is "$?:$out" "0:z
no-network" "--profile agent: a home write works inside, the network is off"
	unchanged "--profile agent: the home after" "$HOME" "$home_before"
else
	skip "--profile agent's scratch home needs the mount layer"
	skip "--profile agent's scratch home needs the mount layer"
fi
sleep 0.2
is "$(wc -l <"$T/seen.log")" "0" "--profile agent: the listener saw nothing"

# ---- combining: a single value may not change ----
refused() { # refused NAME WANT ARGS...: exit 125, the one line, nothing ran
	local name=$1 want=$2
	shift 2
	rm -f "$T/ran"
	(cd "$WS" && crun "$@" -- touch "$T/ran") >/dev/null 2>"$T/e"
	local rc=$?
	if [ "$rc" = 125 ] && [ "$(wc -l <"$T/e")" = 1 ] && [ ! -e "$T/ran" ] &&
		grep -qF -- "$want" "$T/e"; then
		ok 0 "$name"
	else
		ok 1 "$name"
		diag "rc $rc, ran: $([ -e "$T/ran" ] && echo yes || echo no), stderr: $(cat "$T/e")"
	fi
}
refused "--network on, then --profile agent: refused" \
	"cordon: profile agent:3: --network given twice (on, then off): a later value may not override an earlier one" \
	--network on --profile agent
refused "--profile agent, then --network on: refused (the order does not matter)" \
	"--network given twice (on, then off)" --profile agent --network on
refused "--profile agent --profile install: refused" \
	"profile install:4: --network given twice (off from profile agent:3, then allow=@npm" \
	--profile agent --profile install
printf 'max-procs 100\n' >"$T/pol/a.policy"
printf 'max-procs 200\n' >"$T/pol/b.policy"
refused "two files with different max-procs: refused" \
	"b.policy:1: --max-procs given twice (100 from $T/pol/a.policy:1, then 200)" \
	--policy "$T/pol/a.policy" --policy "$T/pol/b.policy"
refused "--network-allow-local with the agent profile (no allow list): refused" \
	"--network-allow-local needs --network allow=LIST" --profile agent --network-allow-local
rm -f "$T/s.json"
(cd "$WS" && crun --profile verify --network off --scratch-home --policy "$T/pol/a.policy" \
	--max-procs 100 --status-file "$T/s.json" -- true) 2>"$T/e"
is "$?:$(json_field "$T/s.json" status '[e["network"], e["scratch_home"], e["limits"]["max_procs"]["limit"]]')" \
	'0:["off", true, 100]' "the same values from a profile, a file and flags: accepted"

# ---- poisoning: a policy the run may write ----
printf 'network on\n' >"$WS/in.policy"
refused "a policy file in the workspace: refused" \
	"refusing the policy file $WS/in.policy: it lies in a tree a confined run may write" \
	--policy "$WS/in.policy"
refused "... also given relative to the current directory (the workspace)" \
	"refusing the policy file $WS/in.policy" --policy in.policy
ln -s "$T/pol/a.policy" "$WS/link.policy"
refused "a symlink in the workspace to a file outside: refused" \
	"reached through a symlink in a tree a confined run may write" --policy "$WS/link.policy"
mkdir -p "$T/extra-rw"
cp "$T/pol/a.policy" "$T/extra-rw/a.policy"
refused "a policy file in an --allow-write tree: refused" \
	"refusing the policy file $T/extra-rw/a.policy" --allow-write "$T/extra-rw" \
	--policy "$T/extra-rw/a.policy"
printf 'allow.test\n' >"$WS/allow.list"
refused "a --network-allow-file in the workspace: refused" \
	"refusing the --network-allow-file $WS/allow.list" --network-allow-file "$WS/allow.list"
(cd "$WS" && crun --sandbox off --policy "$WS/in.policy" -- true) 2>"$T/e"
is "$?" 0 "--sandbox off: not refused (nothing is confined)"

# ---- the entry points' lookup (--agent-policy) ----
# Nothing in the workspace or the current directory is ever read: a
# planted user-file look-alike there changes nothing.
mkdir -p "$WS/.config/cordon"
printf 'network on\n' >"$WS/.config/cordon/agent.policy"
printf 'network on\n' >"$WS/agent.policy"
out=$(cd "$WS" && env -u CORDON_PROFILE -u CORDON_POLICY XDG_CONFIG_HOME="$T/xdg-config" \
	"$CORDON" options --agent-policy 2>&1)
is "$?:$(echo "$out" | grep -v '^#' | tr '\n' ' ')" "0:network off scratch-home " \
	"--agent-policy with nothing set: the profile agent (not the workspace's files)"
mkdir -p "$T/xdg-config/cordon"
printf 'profile verify\nmax-procs 64\n' >"$T/xdg-config/cordon/agent.policy"
rm -f "$T/s.json"
(cd "$WS" && env -u CORDON_PROFILE -u CORDON_POLICY XDG_CONFIG_HOME="$T/xdg-config" \
	"$CORDON" run --state-dir "$STATE" --agent-policy --status-file "$T/s.json" -- true) 2>"$T/e"
is "$?:$(json_field "$T/s.json" status 'e["policy"]')" \
	"0:[{\"file\": \"$T/xdg-config/cordon/agent.policy\"}, {\"profile\": \"verify\"}]" \
	"--agent-policy: the user's \$XDG_CONFIG_HOME/cordon/agent.policy"
(cd "$WS" && env CORDON_PROFILE=install CORDON_POLICY= XDG_CONFIG_HOME="$T/xdg-config" \
	"$CORDON" run --state-dir "$STATE" --agent-policy --status-file "$T/s.json" -- true) 2>"$T/e"
rm -f "$T/s.json"
(cd "$WS" && env CORDON_PROFILE=install CORDON_POLICY= XDG_CONFIG_HOME="$T/xdg-config" \
	"$CORDON" run --state-dir "$STATE" --agent-policy --status-file "$T/s.json" -- true) 2>"$T/e"
is "$?:$(json_field "$T/s.json" status '[e["network"], e["policy"]]')" \
	'0:["allow", [{"profile": "install"}]]' "CORDON_PROFILE=install: only it"
(cd "$WS" && env -u CORDON_PROFILE CORDON_POLICY="$T/pol/a.policy" \
	"$CORDON" options --agent-policy) >"$T/o" 2>&1
is "$?:$(grep -v '^#' "$T/o")" "0:max-procs 100" "CORDON_POLICY=FILE: only it"
(cd "$WS" && env -u CORDON_PROFILE CORDON_POLICY=agent.policy \
	"$CORDON" options --agent-policy) >/dev/null 2>"$T/e"
is "$?:$(cat "$T/e")" "125:cordon: CORDON_POLICY must be an absolute path (got 'agent.policy')" \
	"CORDON_POLICY relative: refused (it would name a file of the workspace)"
rm -f "$T/ran"
(cd "$WS" && env -u CORDON_PROFILE -u CORDON_POLICY XDG_CONFIG_HOME="$WS/.config" \
	"$CORDON" run --state-dir "$STATE" --agent-policy -- touch "$T/ran") >/dev/null 2>"$T/e"
is "$?:$([ -e "$T/ran" ] && echo ran):$(sed "s/: it lies.*//" "$T/e")" \
	"125::cordon: refusing the policy file $WS/.config/cordon/agent.policy" \
	"XDG_CONFIG_HOME inside the workspace: its agent.policy refused at begin, nothing ran"
printf 'network maybe\n' >"$T/xdg-config/cordon/agent.policy"
(cd "$WS" && env -u CORDON_PROFILE -u CORDON_POLICY XDG_CONFIG_HOME="$T/xdg-config" \
	"$CORDON" run --state-dir "$STATE" --agent-policy -- touch "$T/ran") >/dev/null 2>"$T/e"
is "$?:$([ -e "$T/ran" ] && echo ran):$(cat "$T/e")" \
	"125::cordon: $T/xdg-config/cordon/agent.policy:1: bad --network 'maybe' (want on, off or allow=LIST)" \
	"a bad user file: fails closed (exit 125, one line naming it, nothing ran)"

# ---- cordon options, cordon profile ----
out=$("$CORDON" options -w "$WS" --profile verify --policy "$T/pol/run.policy" 2>&1)
printf '%s\n' "$out" | grep -qx "protect $WS/.env" &&
	printf '%s\n' "$out" | grep -qx "# from profile verify" &&
	printf '%s\n' "$out" | grep -qx "allow-write $HOME/extra"
ok $? "cordon options: each group under its source, paths resolved"
"$CORDON" profile list | grep -q '^agent  *An agent'
ok $? "cordon profile list names agent"
is "$("$CORDON" profile show verify | grep -v '^#' | tr '\n' ' ')" "network off scratch-home " \
	"cordon profile show verify"

done_testing
