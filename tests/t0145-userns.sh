#!/usr/bin/env bash
# User namespaces of the command's own are refused by default (a common
# route of kernel exploits): unshare -U, the raw unshare, clone and clone3
# system calls (tests/helpers/userns.c), in the run's own user namespace
# (its limit, not root), by the seccomp filter (root, or no mount layer),
# and in a library run's joining spawn; --allow-userns lets a command that
# runs a sandbox of its own make them, and the event says so. Each check
# has its control: the same call succeeds unconfined. The machine's own
# limit (user.max_user_namespaces) is never changed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
UNS=$HELPERS/userns
DENY=$HELPERS/seccomp-deny

if [ "$("$UNS" unshare 2>&1)" != made ]; then
	skip_all "user namespaces cannot be made here, unconfined: nothing to refuse ($("$UNS" unshare 2>&1))"
fi
machine_limit=$(cat /proc/sys/user/max_user_namespaces)
event() { json_field "$T/s.json" status "$1"; }
has_layer() { [[ " $(crun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))') " == *" $1 "* ]]; }

# check WHAT WANT RUN...: each way to make a user namespace ($HOWS),
# through RUN.
HOWS="unshare clone clone3 clone-high"
check() {
	local what=$1 want=$2
	shift 2
	for how in $HOWS; do
		out=$(cd "$WS" && "$@" -- "$UNS" "$how" 2>&1)
		case "$want:$out" in
		made:made | refused:refused:*) ok 0 "$what: $how: $out" ;;
		*) ok 1 "$what: $how: $out (want $want)" ;;
		esac
	done
}

check "control (--sandbox off)" made crun --sandbox off
if has_layer mount_namespace; then
	rm -f "$T/s.json"
	check "confined, mount layer" refused crun --status-file "$T/s.json"
	is "$(event '["user_namespaces_refused" in e["layers"], "user_namespaces_allowed" in e["gaps"]]')" \
		"[true, false]" "... the event: layer user_namespaces_refused, no gap"
	out=$(cd "$WS" && crun -- sh -c 'unshare -U true && echo made || echo refused' 2>&1)
	case $out in
	*refused) ok 0 "confined: unshare -U true is refused" ;;
	*) ok 1 "confined: unshare -U true is refused ($out)" ;;
	esac
	if is_root; then
		want="Operation not permitted"
	else
		want="No space left on device"
	fi
	case $out in
	*"$want"*) ok 0 "... with $want (root: the filter; else the run's namespace's limit)" ;;
	*) ok 1 "... with $want ($out)" ;;
	esac
	out=$(cd "$WS" && crun -- sh -c 'echo 9 > /proc/sys/user/max_user_namespaces; unshare -U true && echo made' 2>&1)
	case $out in
	*made*) ok 1 "the command cannot raise the limit back ($out)" ;;
	*) ok 0 "the command cannot raise the limit back" ;;
	esac
	rm -f "$T/s.json"
	check "--allow-userns" made crun --allow-userns --status-file "$T/s.json"
	is "$(event '["user_namespaces_refused" in e["layers"], "user_namespaces_allowed" in e["gaps"]]')" \
		"[false, true]" "... the event: no layer, the gap user_namespaces_allowed"
	LIB=$TOP/$B/libcordon.so
	if [ -e "$LIB" ]; then
		out=$( (cd "$WS" && LD_PRELOAD=$(ldd "$LIB" 2>/dev/null | awk '/libasan/ { print $3 }') \
			ASAN_OPTIONS=detect_leaks=0 "$PY" "$TOP/tests/helpers/libspawns.py" "$LIB" "$STATE" -- \
			"$UNS" unshare --then "$UNS" clone --then "$UNS" clone3) 2>&1)
		is "$(echo "$out" | grep -c '^refused: '):$(echo "$out" | grep -c '^made')" "3:0" \
			"a library run's spawns, the later ones joining its namespaces: refused"
	else
		skip "a library run's spawns: no $LIB"
	fi
else
	skip "confined with the mount layer: no mount layer here"
fi

# Without a mount layer (mount namespaces refused, a user namespace alone
# still possible): the seccomp filter.
out=$("$DENY" nomountns -- "$UNS" unshare 2>&1)
is "$out" made "control: under the same outer filter, unconfined, a user namespace is made"
rm -f "$T/s.json"
check "no mount layer" refused "$DENY" nomountns -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json"
is "$(event '["mount_namespace" in e["layers"], "user_namespaces_refused" in e["layers"]]')" \
	"[false, true]" "... the event: no mount layer, user_namespaces_refused (the filter)"
# The outer filter refuses clone3 (ENOSYS, as a container's does): where
# a namespace must be made, clone3 is not tried under it.
HOWS="unshare clone clone-high"
check "no mount layer, --allow-userns" made "$DENY" nomountns -- "$CORDON" run --state-dir "$STATE" --allow-userns

# Neither: no mount layer and no seccomp filter: the gap, also in
# required mode (it was not asked for).
rm -f "$T/s.json"
check "no mount layer, no seccomp" made "$DENY" nomountns -- "$DENY" noseccomp -- \
	"$CORDON" run --state-dir "$STATE" --sandbox required --status-file "$T/s.json"
is "$(event '["user_namespaces_refused" in e["layers"], "user_namespaces_allowed" in e["gaps"]]')" \
	"[false, true]" "... the event: the gap user_namespaces_allowed"

is "$(cat /proc/sys/user/max_user_namespaces)" "$machine_limit" \
	"the machine's user.max_user_namespaces is unchanged ($machine_limit)"

done_testing
