#!/usr/bin/env bash
# When Landlock cannot be used: "auto" warns once and runs unconfined,
# saying so; "required" refuses (125, bash_sandbox_unavailable) and never
# runs the command; neither claims confinement. A seccomp helper makes the
# Landlock calls fail as a kernel or container without Landlock would. The
# test-only ABI cap shows ABI 1 (unavailable) and ABI 2 (truncate gap).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

DENY=$HELPERS/seccomp-deny

for mode in enosys:landlock_not_built_in eopnotsupp:landlock_disabled eperm:landlock_blocked; do
	m=${mode%%:*} reason=${mode#*:}
	rm -f "$T/s.json" "$WS/ran"
	(cd "$WS" && "$DENY" "$m" -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" \
		-- sh -c 'echo ran > ran') 2>"$T/e"
	is "$?" 0 "$m/auto: the command runs"
	is "$(cat "$WS/ran" 2>/dev/null)" ran "$m/auto: and did its work"
	is "$(grep -c 'warning' "$T/e")" 1 "$m/auto: exactly one warning line"
	is "$(wc -l <"$T/e" | tr -d ' ')" 1 "$m/auto: nothing else on stderr"
	grep -q "$reason" "$T/e"
	ok $? "$m/auto: the warning names $reason"
	is "$(json_field "$T/s.json" status 'e["applied"]')" false "$m/auto: applied false"
	is "$(json_field "$T/s.json" status 'e["reason"]')" "$reason" "$m/auto: reason $reason"
	is "$(json_field "$T/s.json" status 'e["layers"]')" "[]" "$m/auto: no layers claimed"
	# (The guards run unconfined too: as a user the agent-config guard's
	# partial reach below its levels is said as well.)
	is "$(json_field "$T/s.json" status '[g for g in e["gaps"] if g != "agent_config_depth_partial"]')" \
		'["unconfined"]' "$m/auto: gap unconfined"
	is "$(json_field "$T/s.json" exit 'e["exit_code"]')" 0 "$m/auto: exit event"

	rm -f "$T/s.json" "$WS/ran"
	(cd "$WS" && "$DENY" "$m" -- "$CORDON" run --sandbox required --state-dir "$STATE" \
		--status-file "$T/s.json" -- sh -c 'echo ran > ran') >"$T/o" 2>"$T/e"
	is "$?" 125 "$m/required: exit 125"
	[ ! -e "$WS/ran" ] && [ ! -s "$T/o" ]
	ok $? "$m/required: the command did not run"
	is "$(wc -l <"$T/e" | tr -d ' ')" 1 "$m/required: one stderr line"
	grep -q "^cordon: .*$reason" "$T/e"
	ok $? "$m/required: stderr names $reason"
	is "$(json_field "$T/s.json" status 'e["reason"]')" bash_sandbox_unavailable "$m/required: reason"
	is "$(json_field "$T/s.json" status 'e["cause"]')" "$reason" "$m/required: cause"
	is "$(json_field "$T/s.json" status 'e["applied"]')" false "$m/required: applied false"
	is "$(json_field "$T/s.json" exit 'e["exit_code"]')" 125 "$m/required: exit event 125"

	"$DENY" "$m" -- "$CORDON" probe >"$T/o"
	is "$?" 1 "$m/probe: exit 1"
	grep -q "reason *$reason" "$T/o"
	ok $? "$m/probe: reports $reason"
done

need_landlock
kabi=$("$CORDON" probe --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernel_abi"])')
diag "kernel Landlock ABI $kabi"

# ABI 1 cannot allow cross-directory renames: unavailable.
rm -f "$T/s.json"
(cd "$WS" && crun --test-max-abi 1 --sandbox required --status-file "$T/s.json" -- true) 2>"$T/e"
is "$?" 125 "ABI 1, required: refused"
is "$(json_field "$T/s.json" status 'e["cause"]')" landlock_abi_too_old "ABI 1: cause landlock_abi_too_old"
(cd "$WS" && crun --test-max-abi 1 -- true) 2>"$T/e"
grep -q landlock_abi_too_old "$T/e"
ok $? "ABI 1, auto: warns landlock_abi_too_old"

# ABI 2, Landlock only (namespaces refused): confined, the truncate(2) gap
# is reported, and it is real.
make_fixture "$OUT/t2"
before=$(snapshot "$OUT/t2")
rm -f "$T/s.json"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --test-max-abi 2 --status-file "$T/s.json" -- \
	python3 -c "import os; os.truncate('$OUT/t2', 3)") 2>/dev/null
is "$(json_field "$T/s.json" status 'e["abi"]')" 2 "ABI 2: abi 2 reported"
is "$(json_field "$T/s.json" status '"truncate_not_restricted" in e["gaps"]')" true \
	"ABI 2, Landlock only: truncate_not_restricted reported"
is "$(json_field "$T/s.json" status '"signals_not_scoped" in e["gaps"]')" true \
	"ABI 2: signals_not_scoped reported"
after=$(snapshot "$OUT/t2")
[ "$before" != "$after" ] && [ "$(stat -c %s "$OUT/t2")" = 3 ]
ok $? "ABI 2, Landlock only: truncate(2) outside goes through, as the gap says"
make_fixture "$OUT/t2"
before=$(snapshot "$OUT/t2")
(cd "$WS" && crun --test-max-abi 2 -- sh -c "echo evil > '$OUT/t2'") 2>/dev/null
unchanged "ABI 2: writes are still refused" "$OUT/t2" "$before"

# ABI 2 with the mount layer: read-only mounts refuse truncate(2) outside,
# and no truncate gap is claimed.
rm -f "$T/s.json"
(cd "$WS" && crun --test-max-abi 2 --status-file "$T/s.json" -- \
	python3 -c "import os; os.truncate('$OUT/t2', 3)") 2>/dev/null
if [ "$(json_field "$T/s.json" status '"mount_namespace" in e["layers"]')" = true ]; then
	unchanged "ABI 2 + mount layer: truncate(2) outside refused" "$OUT/t2" "$before"
	is "$(json_field "$T/s.json" status '"truncate_not_restricted" in e["gaps"]')" false \
		"ABI 2 + mount layer: no truncate gap claimed"
else
	skip "the mount layer is unavailable here: $(json_field "$T/s.json" status 'e["gaps"]')"
fi

if [ "$kabi" -ge 3 ]; then
	make_fixture "$OUT/t3"
	before=$(snapshot "$OUT/t3")
	rm -f "$T/s.json"
	(cd "$WS" && crun --status-file "$T/s.json" -- python3 -c "import os; os.truncate('$OUT/t3', 3)") 2>/dev/null
	unchanged "current ABI: truncate(2) outside refused" "$OUT/t3" "$before"
	is "$(json_field "$T/s.json" status '"truncate_not_restricted" in e["gaps"]')" false \
		"current ABI: no truncate gap claimed"
else
	skip "kernel ABI $kabi < 3: truncate(2) cannot be restricted here"
fi

# A run asks the kernel's version once and makes no trial restriction:
# its command's child is the trial. Restrictions: that child's, and with
# the PID namespace the command's own domain nested inside process 1's.
if tool_ok strace; then
	# (LeakSanitizer cannot work under ptrace: off for the ASan build.)
	rm -f "$T/s.json"
	(cd "$WS" && ASAN_OPTIONS=detect_leaks=0 strace -f -qq \
		-e trace=landlock_create_ruleset,landlock_restrict_self -o "$T/trace" \
		"$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" -- true)
	is "$(grep -c 'LANDLOCK_CREATE_RULESET_VERSION\|, 0, 0x1)' "$T/trace")" 1 "one version query per run"
	want=1
	[ "$(json_field "$T/s.json" status '"pid_namespace" in e["layers"]')" = true ] && want=2
	is "$(grep -c 'landlock_restrict_self' "$T/trace")" "$want" \
		"no trial restriction: only the command's child's (+ its nested domain)"
else
	skip "one version query per run: $TOOL_WHY"
	skip "no trial restriction per run: $TOOL_WHY"
fi

done_testing
