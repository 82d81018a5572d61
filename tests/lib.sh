# shellcheck shell=bash
# Variables set here are used by the tests that source this file.
# shellcheck disable=SC2034
# Shared by the tNNNN-*.sh tests: TAP output, a private temp dir per test
# (removed at exit), fixtures and snapshots of the outside world.
#
# Every "outside" a test uses lives in $T. HOME, XDG dirs and the state dir
# point into $T too, so a run never writes the real home.

set -u

# The tests of signals and terminals need the job-control signals at their
# defaults. A test started as a background job of a non-interactive shell
# (or under nohup) inherits SIGINT/SIGQUIT (SIGHUP) ignored, cordon passes
# ignored signals on like any exec does, and bash cannot un-ignore a signal
# that was ignored when it started: re-exec once with them reset.
if [ -z "${CORDON_TEST_SIGNALS_RESET:-}" ]; then
	export CORDON_TEST_SIGNALS_RESET=1
	exec env --default-signal=HUP,INT,QUIT,TERM,TSTP,TTIN,TTOU bash "$0" "$@"
fi

TOP=${CORDON_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
B=${CORDON_BUILD:-build}
CORDON=$TOP/$B/cordon
HELPERS=$TOP/$B/helpers

# The test's own dir, not in /tmp: a confined run has a /tmp of its own
# there and sees only the run's own trees, so an outside fixture in the
# machine's /tmp would not even be seen (a write to it fails with ENOENT,
# never meeting the refusal a test is about). A test of /tmp itself sets
# CORDON_T_BASE=/tmp before sourcing this file. Else CORDON_TEST_TMPDIR
# (tests/run-as-user sets one the user owns), /run for root,
# XDG_RUNTIME_DIR, or /tmp when none of them can be used.
t_base() {
	local d
	for d in "${CORDON_T_BASE:-}" "${CORDON_TEST_TMPDIR:-}" "$([ "$(id -u)" -eq 0 ] && echo /run)" \
		"${XDG_RUNTIME_DIR:-}"; do
		case $d in /*) [ -d "$d" ] && [ -w "$d" ] && [ -x "$d" ] && echo "$d" && return ;; esac
	done
	echo /tmp
}
T=$(mktemp -d "$(t_base)/cordon-t.XXXXXX") || exit 1
chmod 0755 "$T"
cleanup() {
	# The command may have left read-only or unsearchable dirs.
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

export HOME="$T/home"
export XDG_STATE_HOME="$T/xdg-state"
export XDG_CACHE_HOME="$T/xdg-cache"
unset TMPDIR CARGO_HOME npm_config_cache NPM_CONFIG_CACHE PIP_CACHE_DIR PLAYWRIGHT_BROWSERS_PATH
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
export GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME" "$T/ws" "$T/outside" "$T/state"
# The system python: fast to start, and the same for root and other users.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
WS=$T/ws
OUT=$T/outside
STATE=$T/state

tap_n=0
tap_fail=0

ok() { # ok STATUS NAME
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
	fi
}

is() { # is GOT WANT NAME
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
	fi
}

skip() { # skip REASON: a check that cannot run here; never a pass
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

diag() { echo "# $*"; }

done_testing() {
	echo "1..$tap_n"
	[ "$tap_fail" -eq 0 ]
	exit $?
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# tool_ok TOOL: 0 when the host tool works here, by its control
# (tests/toolcontrol.py, run once per test and tool). Otherwise 1 with
# TOOL_WHY set: the caller skips its checks with that reason. A control
# that fails for a reason nobody explained is also reported as a failed
# check here, so it can never pass as a skip.
declare -A tool_seen=()
tool_ok() {
	local out rc
	if [ -n "${tool_seen[$1]+x}" ]; then
		TOOL_WHY=${tool_seen[$1]}
		[ -z "$TOOL_WHY" ]
		return
	fi
	out=$("$PY" "$TOP/tests/toolcontrol.py" "$1")
	rc=$?
	case $rc in
	0) TOOL_WHY="" ;;
	2) TOOL_WHY=${out#skip: } ;;
	*)
		TOOL_WHY=${out#fail: }
		ok 1 "control of $1: $TOOL_WHY"
		;;
	esac
	tool_seen[$1]=$TOOL_WHY
	[ -z "$TOOL_WHY" ]
}

# Landlock must work for confined cases. Where it cannot, the whole test is
# skipped with the reason, unless CORDON_MUST_WORK=1 (CI) makes it fail.
need_landlock() {
	local why
	if "$CORDON" probe >/dev/null 2>&1; then
		return 0
	fi
	why=$("$CORDON" probe | sed -n 's/^reason *//p')
	if [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
		echo "not ok 1 - Landlock must work here (CORDON_MUST_WORK=1): $why"
		echo "1..1"
		exit 1
	fi
	skip_all "Landlock unavailable: $why"
}

# cordon run with the test's state dir.
crun() { "$CORDON" run --state-dir "$STATE" "$@"; }

# Everything that must not change about an outside path.
snapshot() {
	local p=$1
	if [ ! -e "$p" ] && [ ! -L "$p" ]; then
		echo "absent"
		return
	fi
	stat -c '%F|%s|%a|%u|%g|%y|%z|%i|%h' -- "$p"
	if [ -L "$p" ]; then
		readlink -- "$p"
	elif [ -f "$p" ]; then
		sha256sum <"$p" | cut -d' ' -f1
	elif [ -d "$p" ]; then
		find "$p" -mindepth 1 -printf '%P|%y|%s|%m|%T@|%i|%n\n' 2>/dev/null | sort
	fi
	getfattr -d -m - --absolute-names -- "$p" 2>/dev/null | grep -v '^#' || true
}

# A fixture outside the workspace, with a fixed old mtime so a touch shows.
make_fixture() { # make_fixture PATH [CONTENT]
	printf '%s\n' "${2:-original content}" >"$1"
	chmod 0644 "$1"
	touch -d '2001-02-03 04:05:06' "$1"
}

# unchanged NAME PATH BEFORE: the outside path is exactly as it was.
unchanged() {
	local now
	now=$(snapshot "$2")
	if [ "$now" = "$3" ]; then
		ok 0 "$1: outside unchanged"
	else
		ok 1 "$1: outside unchanged"
		diff <(printf '%s\n' "$3") <(printf '%s\n' "$now") | sed 's/^/#   /'
	fi
}

# JSON field of the first status line matching an event (python3).
json_field() { # json_field FILE EVENT EXPR   e.g. json_field s.json status 'e["applied"]'
	"$PY" - "$1" "$2" "$3" <<'PY'
import json, sys
path, ev, expr = sys.argv[1], sys.argv[2], sys.argv[3]
for line in open(path, encoding="utf-8", errors="surrogateescape"):
    e = json.loads(line)
    if e["event"] == "bash_sandbox_" + ev:
        v = eval(expr, {"e": e})
        print(json.dumps(v) if not isinstance(v, str) else v)
        break
else:
    print("NO-EVENT")
PY
}
