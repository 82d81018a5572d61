#!/usr/bin/env bash
# No throw-away trial child per run: the run's first child is the trial.
# It applies every layer before exec; when one is refused, cordon tries
# every layer in a throw-away child (as `cordon probe` always does),
# starts the command again under what holds, and the command still runs
# once. The start event is written once that is settled and says what
# `cordon probe` says under the same refusal.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny

# summary FILE: "applied LAYERS" of the start event, then the event names.
summary() {
	"$PY" - "$1" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
s = ev[0] if ev else {}
# read_deny depends on the run's policy (what the home holds), not the probe.
print("%s %s" % (str(s.get("applied")).lower(),
                 ",".join(l for l in s.get("layers") or [] if l != "read_deny")))
print(" ".join(e["event"] for e in ev))
PY
}

# probe_says WRAPPER...: "available LAYERS" from cordon probe --json.
probe_says() {
	"$@" "$CORDON" probe --json | "$PY" -c '
import json, sys
p = json.load(sys.stdin)
print("%s %s" % (str(p["available"]).lower(), ",".join(p["layers"] if p["available"] else [])))'
}

# A seccomp filter on cordon (seccomp-deny's, as a container's) is a hint
# that a layer may be refused: the trial then runs at once, beside the
# run's own work. tests/helpers/cordon-first-child (cordon with the
# library's test hook set) ignores the hint, so the first child meets the
# refusal itself. Both ways must end the same.
for deny in none nons noseccomp eperm noexecveat killmount; do
	wrap=()
	[ "$deny" = none ] || wrap=("$DENY" "$deny" --)
	want=$(probe_says "${wrap[@]}")
	for way in hint first-child; do
	[ "$deny" = none ] && [ "$way" = hint ] && continue
	for mode in auto required; do
		rm -f "$WS/count" "$T/s.json"
		(
			cd "$WS" || exit 1
			prog=$CORDON
			[ "$way" = first-child ] && prog=$HELPERS/cordon-first-child
			"${wrap[@]}" "$prog" run --state-dir "$STATE" --sandbox "$mode" \
				--status-file "$T/s.json" -- sh -c 'echo ran >>count'
		) >/dev/null 2>"$T/err"
		rc=$?
		got=$(summary "$T/s.json")
		runs=0
		[ -f "$WS/count" ] && runs=$(wc -l <"$WS/count")
		name="$deny, $way, $mode"
		if [ "$mode" = required ] && [ "${want%% *}" = false ]; then
			is "$rc" 125 "$name: refused (exit 125)"
			is "$runs" 0 "$name: the command never ran"
			is "$(sed -n 1p <<<"$got")" "false " "$name: the start event says not applied"
		else
			is "$rc" 0 "$name: exit 0"
			is "$runs" 1 "$name: the command ran exactly once"
			is "$(sed -n 1p <<<"$got")" "$want" "$name: the start event's layers are the probe's"
		fi
		is "$(sed -n 2p <<<"$got")" "bash_sandbox_status bash_sandbox_exit" \
			"$name: one start event, then one exit event"
		if [ "$mode" = auto ] && [ "${want%% *}" = false ]; then
			grep -q 'running UNCONFINED' "$T/err"
			ok $? "$name: the warning says it ran unconfined"
		fi
	done
	done
	case $deny in
	noexecveat)
		# The init program cannot start: no PID namespace, said as a gap.
		case ",${want#* }," in
		*,pid_namespace,*) ok 1 "noexecveat: no pid_namespace without the init program" ;;
		*) ok 0 "noexecveat: no pid_namespace without the init program" ;;
		esac
		;;
	esac
done

# Where nothing is refused (and nothing hints at a refusal), a run starts
# no trial child: the trial's init
# program ("cordon-init t") is never exec'd, while cordon probe's is.
if ! tool_ok strace; then
	skip "no trial child: $TOOL_WHY"
	skip "no trial child, control: $TOOL_WHY"
else
	trials() { grep -c '"cordon-init", "t"' "$1"; }
	strace -f -qq -e trace=execveat -o "$T/probe.tr" "$CORDON" probe >/dev/null 2>&1
	if [ "$(trials "$T/probe.tr")" -ge 1 ]; then
		ok 0 "no trial child, control: cordon probe's trial shows in the trace"
		(cd "$WS" && strace -f -qq -e trace=execveat -o "$T/run.tr" \
			"$CORDON" run --state-dir "$STATE" --sandbox required -- true) >/dev/null 2>&1
		is "$(trials "$T/run.tr")" 0 "no trial child: a run execs no trial init program"
		grep -q '"cordon-init", "[0-9]' "$T/run.tr"
		ok $? "... while its own init program shows in the trace"
	else
		skip "no trial child: this machine's probe has no PID namespace trial to see"
		skip "no trial child, control: as above"
	fi
fi

done_testing
