#!/usr/bin/env bash
# --scratch-home: writes under the home succeed inside and are discarded
# when the run ends (nyc < 15 makes ~/.node-spawn-wrap-PID-HEX); the real
# home is unchanged; the secrets under it stay unreadable; the caches and
# a workspace under the home stay the real, writable ones; nothing of a
# run's scratch reaches the next run. Without the mount layer the option
# cannot be honoured: a gap in auto (writes stay refused), a refusal in
# required. Without --scratch-home the write is refused, and --explain
# says so.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

layers=$(crun --status-fd 1 -- true 2>/dev/null | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
if [[ " $layers " != *" mount_namespace "* ]]; then
	skip_all "no mount layer here (layers: $layers): the scratch home needs it"
fi

mkdir -p "$HOME/.ssh" "$HOME/.config/tool" "$HOME/proj"
echo "CORDON-SCRATCH-SECRET" >"$HOME/.ssh/id_ed25519"
chmod 0700 "$HOME/.ssh"
echo keep >"$HOME/.config/tool/settings"
echo "ssh-ed25519 AAAA t" >"$HOME/.ssh/id_ed25519.pub"
# npm's cache exists in the home (one that does not is moved under the
# state dir, not made there); the caches under the state dir exist before
# the snapshots (cordon makes them as a run starts).
mkdir -p "$HOME/.npm" "$T/standins"
(cd "$WS" && crun -- true) >/dev/null 2>&1

spawn_wrap='d=$HOME/.node-spawn-wrap-$$-c0ffee && mkdir "$d" && echo wrapped >"$d/x" && cat "$d/x"'

# Control: without --scratch-home the write under the home is refused.
before=$(snapshot "$HOME")
(cd "$WS" && crun --sandbox required -- sh -c "$spawn_wrap") >"$T/o" 2>"$T/e"
rc=$?
[ "$rc" -ne 0 ] && grep -q 'Read-only file system' "$T/e"
ok $? "without --scratch-home, making ~/.node-spawn-wrap-* is refused (rc $rc)"
unchanged "refused write" "$HOME" "$before"

# --explain names the option after such a failure.
(cd "$WS" && crun --explain=full -- sh -c "$spawn_wrap") >/dev/null 2>"$T/e"
grep -q "^cordon: explain: .*; the home ($HOME) is read-only: --scratch-home lets writes" "$T/e"
ok $? "--explain=full after a refused write suggests --scratch-home"
(cd "$WS" && crun --explain -- sh -c "$spawn_wrap") >/dev/null 2>"$T/e"
grep -q "^cordon: explain: .*, under the home too (--scratch-home lets them succeed)" "$T/e"
ok $? "... and so does the short --explain"
(cd "$WS" && crun --explain --scratch-home -- sh -c 'exit 3') >/dev/null 2>"$T/e"
! grep -q -- '--scratch-home lets' "$T/e"
ok $? "... not when the run has a scratch home"

# With it: the write succeeds inside, the real home is unchanged.
rm -f "$T/s.json"
out=$(cd "$WS" && crun --sandbox required --scratch-home --status-file "$T/s.json" -- sh -c "$spawn_wrap" 2>"$T/e")
is "$?:$out" "0:wrapped" "with --scratch-home, ~/.node-spawn-wrap-*/x is made and read back inside"
unchanged "scratch write" "$HOME" "$before"
is "$(json_field "$T/s.json" status '[e["scratch_home"], "scratch_home" in e["layers"], e["writable"][-1], "scratch_home_unavailable" in e["gaps"]]')" \
	"[true, true, \"$HOME\", false]" \
	"the event: scratch_home true, its layer, the home last in writable, no gap of its own"

# A node script, as spawn-wrap makes it.
if tool_ok node; then
	out=$(cd "$WS" && crun --sandbox required --scratch-home -- node -e '
const fs = require("fs"), os = require("os"), path = require("path");
const d = path.join(os.homedir(), ".node-spawn-wrap-" + process.pid + "-1a2b3c4d");
fs.mkdirSync(d);
fs.writeFileSync(path.join(d, "node"), "#!/bin/sh\n", { mode: 0o755 });
console.log(fs.readdirSync(d).join(","));' 2>"$T/e")
	is "$?:$out" "0:node" "a node script makes its spawn-wrap dir in the scratch home"
	unchanged "node's scratch write" "$HOME" "$before"
else
	skip "a node script in the scratch home: $TOOL_WHY"
	skip "node's scratch write: $TOOL_WHY"
fi

# Everything else under the home: changed, removed, renamed inside; all
# gone after.
(cd "$WS" && crun --sandbox required --scratch-home -- sh -c '
	echo changed >"$HOME/.config/tool/settings" && rm -rf "$HOME/.config/tool" &&
	mkdir "$HOME/.config/tool" && cat "$HOME/.config/tool/settings" 2>/dev/null;
	echo new >"$HOME/.config/new" && mv "$HOME/.config/new" "$HOME/.config/renamed" &&
	[ ! -e "$HOME/.config/tool/settings" ] && [ -s "$HOME/.config/renamed" ]') >"$T/o" 2>&1
is "$?" 0 "inside: a real file changed, its dir removed and made again (empty), a file renamed"
unchanged "changes, removals, renames inside" "$HOME" "$before"

# Nothing of the scratch reaches the next run.
(cd "$WS" && crun --sandbox required --scratch-home -- sh -c 'echo one >"$HOME/run-one"') 2>/dev/null
(cd "$WS" && crun --sandbox required --scratch-home -- sh -c '[ ! -e "$HOME/run-one" ]') 2>/dev/null
ok $? "a second run does not see the first run's scratch file"

# The secrets: still unreadable (a key in ~/.ssh), the .pub still readable.
(cd "$WS" && crun --sandbox required --scratch-home -- cat "$HOME/.ssh/id_ed25519") >"$T/o" 2>&1
rc=$?
[ "$rc" -ne 0 ] && ! grep -q CORDON-SCRATCH-SECRET "$T/o"
ok $? "with --scratch-home, cat ~/.ssh/id_ed25519 fails (rc $rc)"
(cd "$WS" && crun --sandbox required --scratch-home -- sh -c '
	cat "$HOME/.ssh/id_ed25519.pub" && rm -rf "$HOME/.ssh" 2>/dev/null;
	mv "$HOME/.ssh" "$HOME/.ssh2" 2>/dev/null; cat "$HOME/.ssh2/id_ed25519" "$HOME/.ssh/id_ed25519" 2>/dev/null') \
	>"$T/o" 2>&1
grep -q '^ssh-ed25519 AAAA t$' "$T/o" && ! grep -q CORDON-SCRATCH-SECRET "$T/o"
ok $? "the .pub stays readable; removing or moving ~/.ssh does not reopen the key"
grep -q CORDON-SCRATCH-SECRET "$HOME/.ssh/id_ed25519"
ok $? "control: the key is there and readable outside"

# The caches: writable and persistent.
(cd "$WS" && crun --sandbox required --scratch-home -- sh -c 'echo cached >"$HOME/.npm/cordon-cache-file"') 2>"$T/e"
rc=$?
got=$(cd "$WS" && crun --sandbox required --scratch-home -- cat "$HOME/.npm/cordon-cache-file" 2>&1)
is "$rc:$got:$(ls "$HOME/.npm")" "0:cached:" \
	"a file written in ~/.npm (it existed) during the run is seen by the next confined run (the cache's overlay, not the scratch), never written in ~/.npm itself"
rm -f "$HOME/.npm/cordon-cache-file"

# A workspace under the home: the real one, writable; its writes persist.
(cd "$HOME/proj" && crun --sandbox required --scratch-home -w "$HOME/proj" --status-file "$T/s2.json" -- \
	sh -c 'echo work >"$HOME/proj/result" && echo scratch >"$HOME/beside"') 2>"$T/e"
is "$?:$(cat "$HOME/proj/result" 2>/dev/null):$([ -e "$HOME/beside" ] && echo leaked)" "0:work:" \
	"a workspace under the home is the real one (its file persists), the rest is scratch"
rm -f "$HOME/proj/result"

# The state dir under the home (its default): the run's dir is below the
# home, where the overlay's upper layer cannot be; it works all the same,
# and so does a cache moved into it (pip's: pip on PATH, no pip cache).
printf '#!/bin/sh\n' >"$T/standins/pip"
chmod +x "$T/standins/pip"
(
	unset XDG_STATE_HOME
	cd "$WS" && PATH="$PATH:$T/standins" "$CORDON" run --sandbox required --scratch-home -- sh -c '
		echo t >"$TMPDIR/t" && cat "$TMPDIR/t" && echo h >"$HOME/h" && cat "$HOME/h" &&
		echo p >"$PIP_CACHE_DIR/p" && cat "$PIP_CACHE_DIR/p"'
) >"$T/o" 2>&1
is "$?:$(tr '\n' ' ' <"$T/o")" "0:t h p " \
	"with the state dir under the home: TMPDIR, the scratch home and a cache moved under it all work"
[ ! -e "$HOME/h" ] && [ -z "$(ls -A "$HOME/.local/state/cordon/runs" 2>/dev/null)" ]
ok $? "... and neither the scratch file nor the run's dir is left"
is "$(cat "$HOME/.local/state/cordon/caches/pip/p" 2>/dev/null)" p "... and the cache under it is the real one"

# --allow-write under the home stays real.
mkdir -p "$HOME/extra"
(cd "$WS" && crun --sandbox required --scratch-home --allow-write "$HOME/extra" -- sh -c 'echo e >"$HOME/extra/e"') 2>/dev/null
is "$(cat "$HOME/extra/e" 2>/dev/null)" e "an --allow-write path under the home stays the real one"

# Without the mount layer: a gap in auto (the write refused), a refusal
# in required.
if "$HELPERS/seccomp-deny" nons -- true 2>/dev/null; then
	before=$(snapshot "$HOME")
	rm -f "$T/s.json"
	(cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" --scratch-home \
		--status-file "$T/s.json" -- sh -c "$spawn_wrap") >"$T/o" 2>&1
	rc=$?
	is "$rc:$(json_field "$T/s.json" status '["scratch_home_unavailable" in e["gaps"], e["scratch_home"], "scratch_home" in e["layers"]]')" \
		"1:[true, false, false]" "no mount layer, auto: the gap scratch_home_unavailable, the write refused"
	unchanged "no mount layer, auto" "$HOME" "$before"
	rm -f "$T/s.json"
	(cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" --scratch-home \
		--sandbox required --status-file "$T/s.json" -- sh -c "touch '$OUT/ran'") >"$T/o" 2>&1
	rc=$?
	is "$rc:$(json_field "$T/s.json" status '[e["reason"], e["cause"]]')" \
		'125:["bash_sandbox_unavailable", "scratch_home_not_enforceable"]' \
		"no mount layer, required: refused (scratch_home_not_enforceable)"
	[ ! -e "$OUT/ran" ]
	ok $? "... and the command did not run"
	grep -q 'scratch' "$T/o"
	ok $? "... stderr names the reason: $(head -n 1 "$T/o")"
else
	for n in 1 2 3 4 5; do skip "no mount layer ($n): seccomp-deny cannot run here"; done
fi

done_testing
