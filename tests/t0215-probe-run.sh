#!/usr/bin/env bash
# The probe tells the truth: each capability `cordon probe` reports is the
# one a run gets, capability by capability (a layer the probe lists is
# applied by a run that uses it; a layer a run applies is one the probe
# lists; "scratch_home" true exactly when a required --scratch-home run
# works), and probing first (cordon_probe in the same process, as the
# README suggests) changes nothing a later run does. As root also: a
# mount below an unprivileged user's home, which its runs cannot overlay
# (a user namespace inherits the mount locked), is what the probe says.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

H=$HELPERS/probe-run
# Layers only a policy that uses them lists (the network's, a scratch
# home, denied reads): the probe reports the first two otherwise or not
# at all, and read_deny is the mount or Landlock layer's work.
policy_only=" network_namespace network_seccomp network_landlock network_seatbelt network_proxy scratch_home read_deny "

probe=$("$CORDON" probe --json)
probe_layers=$(printf '%s' "$probe" | "$PY" -c 'import json,sys; print(" ".join(json.load(sys.stdin)["layers"]))')
probe_scratch=$(printf '%s' "$probe" | "$PY" -c 'import json,sys; print(str(json.load(sys.stdin)["scratch_home"]).lower())')
diag "probe: layers $probe_layers; scratch_home $probe_scratch"

# run_layers OPTIONS...: the layers a run with them lists (a fresh process).
run_layers() {
	(cd "$WS" && "$CORDON" run --state-dir "$STATE" --status-fd 3 "$@" -- true 3>&1 >/dev/null 2>/dev/null) |
		"$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))'
}
default_layers=$(run_layers)

# The probe's layers, each applied by a default run (which uses them all:
# the workspace and home are in /tmp, so /var/tmp is the run's own).
for l in $probe_layers; do
	case " $default_layers " in
	*" $l "*) ok 0 "probe lists $l: a run gets it" ;;
	*) ok 1 "probe lists $l: a run gets it (run: $default_layers)" ;;
	esac
done
# Every layer a run applies, for a few policies: one the probe lists.
for opts in "" "--network off" "--scratch-home" "--deny-read $OUT"; do
	# shellcheck disable=SC2086 # the options are words
	got=$(run_layers $opts)
	missing=""
	for l in $got; do
		case " $probe_layers $policy_only " in
		*" $l "*) ;;
		*) missing="$missing $l" ;;
		esac
	done
	is "$missing" "" "a run with '${opts:-no options}': each layer it applies is one the probe lists"
done

# The scratch home, as the probe says.
scratch_run() {
	(cd "$WS" && "$CORDON" run --state-dir "$STATE" --sandbox required --scratch-home --status-fd 3 \
		-- sh -c 'echo kept >"$HOME/scratch-file"' 3>"$T/scratch.json" 2>/dev/null)
}
scratch_run
rc=$?
if [ "$probe_scratch" = true ]; then
	is "$rc" 0 "probe says scratch_home: a required --scratch-home run works"
	is "$(json_field "$T/scratch.json" status '"scratch_home" in e["layers"]')" true "... and lists the layer"
	[ ! -e "$HOME/scratch-file" ]
	ok $? "... and its write under the home was discarded"
else
	is "$rc" 125 "probe says no scratch_home: a required --scratch-home run is refused"
	is "$(json_field "$T/scratch.json" status 'e["cause"]')" scratch_home_not_enforceable "... for that reason"
fi

# In one process, as a library program: the probe first, then the run.
lib_run() { (cd "$WS" && "$H" --state "$STATE" "$@" -- sh -c 'echo x >"$HOME/lib-file"' 2>&1); }
with=$(lib_run --probe --scratch-home --mode required)
without=$(lib_run --scratch-home --mode required)
is "$(grep '^probe scratch_home' <<<"$with")" "probe scratch_home $probe_scratch" \
	"cordon_probe() says what cordon probe says"
is "$(grep '^probe layers' <<<"$with")" "probe layers $probe_layers" "... and lists the same layers"
want=0
[ "$probe_scratch" = true ] || want=-6
is "$(grep -E '^run -?[0-9]+$' <<<"$with")" "run $want" "after cordon_probe(), a required --scratch-home run: as the probe said"
is "$(grep -E '^(run|exit|run layers)' <<<"$with")" "$(grep -E '^(run|exit|run layers)' <<<"$without")" \
	"... and exactly what it is without the probe"
with=$(lib_run --probe)
without=$(lib_run)
is "$(grep '^run layers' <<<"$with")" "$(grep '^run layers' <<<"$without")" \
	"a default run after cordon_probe(): the same layers as without"
is "$(grep '^run layers' <<<"$with")" "run layers $default_layers" "... and as the CLI's run"

# As root: a mount below an unprivileged user's home. That user's runs
# need a user namespace, which inherits the mount locked: no overlay on
# that home. The probe, run as that user, says so, and so does the run;
# without the mount both work (the control).
if is_root; then
	# shellcheck source=tests/unpriv-user.sh
	. "$TOP/tests/unpriv-user.sh"
	U=$T/unpriv
	mkdir -p "$U/home/mnt" "$U/ws" "$U/state"
	cp "$CORDON" "$U/cordon"
	chown -R "$UNPRIV_UID:$UNPRIV_GID" "$U/home" "$U/ws" "$U/state"
	chmod 0755 "$U"
	as_user() { (cd "$U/ws" && as_unpriv env -i PATH=/usr/bin:/bin HOME="$U/home" "$@"); }
	user_probe() { as_user "$U/cordon" probe --json | "$PY" -c 'import json,sys; print(str(json.load(sys.stdin)["scratch_home"]).lower())'; }
	user_run() { as_user "$U/cordon" run --state-dir "$U/state" --sandbox required --scratch-home -- true 2>/dev/null; }
	is "$(user_probe):$(user_run; echo $?)" "true:0" "control: as $UNPRIV_NAME, the probe and a run agree: a scratch home"
	if mount -t tmpfs cordon-t0215 "$U/home/mnt" 2>/dev/null; then
		is "$(user_probe)" false "a mount below $UNPRIV_NAME's home: the probe says no scratch home"
		user_run
		is "$?" 125 "... and a required --scratch-home run is refused"
		umount "$U/home/mnt"
	else
		skip "cannot mount a tmpfs here"
	fi
else
	skip "the mount below another user's home needs root"
fi

done_testing
