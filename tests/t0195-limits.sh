#!/usr/bin/env bash
# Resource bounds: --max-procs (the run's cgroup, or RLIMIT_NPROC in its
# own user namespace), --max-memory (the run's cgroup, or RLIMIT_DATA per
# process), --max-tmp (a tmpfs on the run's temp dir). Each bomb here is
# bounded on its own (a loop of 200) and has --timeout as a safety net.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

# The home outside /tmp, so the run has its own /tmp too (t0190).
prun() { (cd "$WS" && HOME=/nonexistent "$CORDON" run --state-dir "$STATE" --no-caches "$@"); }
# A sanitized library's runtime must come first (make asan).
asan_rt() { ldd "$TOP/$B/libcordon.so" 2>/dev/null | awk '/libasan/ { print $3 }'; }
limit() { json_field "$T/s.json" status "$1"; }
# A sleep of a duration no other process uses: its survivors can be found.
mark=$((RANDOM % 900 + 100))
SLEEP="sleep 2.$mark"
survivors() { pgrep -f "^$SLEEP\$" | wc -l | tr -d ' '; }
if is_root; then PROCS_BY=cgroup MEM_BY=cgroup MEM_SCOPE=run; else PROCS_BY=rlimit MEM_BY=rlimit_data MEM_SCOPE=process; fi
LAYERS=$("$CORDON" probe --json | "$PY" -c 'import json,sys; print(" ".join(json.load(sys.stdin)["layers"]))')
case " $LAYERS " in
*" mount_namespace "*) MOUNT=1 ;;
*) MOUNT=0 ;;
esac
# As root the run's cgroups need a pids and a memory hierarchy cordon can
# write (cgroup v1 here; v2 where cordon's cgroup hands them down).
grep -qE '^[0-9]+:([^:]*,)?pids(,[^:]*)?:' /proc/self/cgroup && PIDS_V1=1 || PIDS_V1=0

# Counts the children it could fork (each sleeps), of 200.
FORKS='import os, sys, time
ok = 0
for i in range(200):
    try:
        pid = os.fork()
    except OSError:
        continue
    if pid == 0:
        time.sleep(2)
        os._exit(0)
    ok += 1
print(ok)'

# ---- --max-procs ---------------------------------------------------------
if is_root && [ "$PIDS_V1" = 0 ]; then
	skip "root without a pids cgroup hierarchy here: --max-procs has nothing to bound with"
else
	rm -f "$T/s.json"
	out=$(prun --max-procs 50 --timeout 30 --status-file "$T/s.json" -- sh -c \
		"i=0; while [ \$i -lt 200 ]; do $SLEEP & i=\$((i+1)); done; wait" 2>&1)
	rc=$?
	case $out in
	*[Ff]ork*) ok 0 "a fork bomb under --max-procs 50 meets fork failures (exit $rc)" ;;
	*) ok 1 "a fork bomb under --max-procs 50 meets fork failures" && diag "$out" ;;
	esac
	is "$(survivors)" 0 "no process of the bomb survives the run"
	is "$(limit 'e["limits"]["max_procs"]')" "{\"limit\": 50, \"by\": \"$PROCS_BY\", \"scope\": \"run\"}" \
		"the status event: max_procs 50 by $PROCS_BY"
	out=$(prun --max-procs 50 --timeout 30 -- "$PY" -c "$FORKS")
	if [ -n "$out" ] && [ "$out" -lt 50 ] && [ "$out" -ge 40 ]; then
		ok 0 "--max-procs 50: $out children forked of 200 (the run's own processes count)"
	else
		ok 1 "--max-procs 50: the children forked" && diag "got '$out'"
	fi
	out=$(prun --timeout 30 -- "$PY" -c "$FORKS")
	is "$out" 200 "control: without it all 200 children fork"
	sleep 2.2
	is "$(survivors)" 0 "nothing left over"
fi

# ---- --max-memory --------------------------------------------------------
rm -f "$T/s.json"
out=$(prun --max-memory 64M --timeout 60 --status-file "$T/s.json" -- "$PY" -c \
	'b = bytearray(256 << 20); print("allocated")' 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 125 ] && [ "${out#*allocated}" = "$out" ]
ok $? "--max-memory 64M: 256 MiB cannot be allocated (exit $rc)"
is "$(limit 'e["limits"]["max_memory"]')" \
	"{\"limit\": 67108864, \"by\": \"$MEM_BY\", \"scope\": \"$MEM_SCOPE\"}" \
	"the status event: max_memory by $MEM_BY, over the $MEM_SCOPE"
is "$(limit '"memory_limit_per_process" in e["gaps"]')" "$([ "$MEM_SCOPE" = process ] && echo true || echo false)" \
	"the gap memory_limit_per_process exactly when it bounds each process"
out=$(prun --timeout 60 -- "$PY" -c 'b = bytearray(256 << 20); print("allocated")' 2>&1)
is "$out" allocated "control: without it 256 MiB is allocated"
# Interpreters start under it (RLIMIT_DATA counts what they use, not what
# they reserve).
for prog in "$PY -c print(1)" "node -e console.log(1)"; do
	if command -v "${prog%% *}" >/dev/null; then
		# shellcheck disable=SC2086 # the words of prog
		out=$(prun --max-memory 256M -- $prog 2>&1)
		is "$out" 1 "${prog%% *} starts under --max-memory 256M"
	else
		skip "${prog%% *} is not installed"
	fi
done
out=$(prun --sandbox required --max-memory 64M -- echo ran 2>&1)
rc=$?
if [ "$MEM_SCOPE" = run ]; then
	is "$rc:$out" "0:ran" "required: the run's cgroup bounds the run, it runs"
else
	case $rc:$out in
	"125:cordon: "*"--max-memory"*) ok 0 "required, memory per process only: refused (exit 125)" ;;
	*) ok 1 "required, memory per process only: refused (exit 125)" && diag "$rc $out" ;;
	esac
fi

# ---- the run's cgroup (root) ---------------------------------------------
if is_root && [ "$PIDS_V1" = 1 ]; then
	rm -f "$T/s.json"
	out=$(prun --max-procs 100 --max-memory 512M --status-file "$T/s.json" -- cat /proc/self/cgroup)
	id=$(limit 'e["run_id"]')
	n=$(printf '%s\n' "$out" | grep -Ec ":(pids|memory):/(.*/)?cordon\.[0-9]+\.$id\$")
	is "$n" 2 "root: the command runs in the run's pids and memory cgroups"
	is "$(find /sys/fs/cgroup -maxdepth 6 -type d -name "cordon.*.$id" 2>/dev/null | wc -l | tr -d ' ')" 0 \
		"root: the run's cgroups are removed at its end"
else
	skip "the run's cgroup: root with a pids hierarchy only"
fi

# ---- --max-tmp -----------------------------------------------------------
if [ "$MOUNT" = 1 ]; then
	rm -f "$T/s.json"
	out=$(prun --max-tmp 1M --status-file "$T/s.json" -- sh -c '
		head -c 4096 /dev/zero > "$TMPDIR/small" && echo small
		head -c 2000000 /dev/zero > "$TMPDIR/big" || echo big failed
		rm -f "$TMPDIR/big"; head -c 2000000 /dev/zero > /tmp/big || echo tmp failed
		df -k "$TMPDIR" | awk "NR == 2 { print \$2 }"' 2>&1)
	case $out in
	*"No space left on device"*) ok 0 "--max-tmp 1M: a 2 MB file in TMPDIR fails with ENOSPC" ;;
	*) ok 1 "--max-tmp 1M: a 2 MB file in TMPDIR fails with ENOSPC" && diag "$out" ;;
	esac
	is "$(printf '%s\n' "$out" | grep -v 'No space' | tr '\n' ' ')" "small big failed tmp failed 1024 " \
		"... a small one fits; /tmp is the same 1 MiB tmpfs"
	is "$(limit 'e["limits"]["max_tmp"]["limit"], e["limits"]["max_tmp"]["by"], e["limits"]["max_tmp"]["scope"]')" \
		'[1048576, "tmpfs", "run"]' "the status event: max_tmp by tmpfs"
	is "$(limit 'e["limits"]["max_tmp"]["covers"] == [e["tmpdir"], "/tmp", "/var/tmp", "/dev/shm"]')" true \
		"... covering the temp dir, the private /tmp and /var/tmp, and /dev/shm"
	out=$(prun -- sh -c 'head -c 2000000 /dev/zero > "$TMPDIR/big" && echo written')
	is "$out" written "control: without it the 2 MB file is written"
	# /dev/shm draws on the same budget: past it, ENOSPC; the machine's
	# /dev/shm never sees the file.
	shmname=cordon-t-shm-$$-$RANDOM
	out=$(prun --max-tmp 1M -- sh -c '
		head -c 2000000 /dev/zero > "/dev/shm/$1" || echo shm failed
		rm -f "/dev/shm/$1"; head -c 600000 /dev/zero > "$TMPDIR/a" && echo tmp ok
		head -c 600000 /dev/zero > "/dev/shm/$1" || echo shared failed
		df -k /dev/shm | awk "NR == 2 { print \$2 }"' sh "$shmname" 2>&1)
	case $out in
	*"No space left on device"*) ok 0 "--max-tmp 1M: a 2 MB file in /dev/shm fails with ENOSPC" ;;
	*) ok 1 "--max-tmp 1M: a 2 MB file in /dev/shm fails with ENOSPC" && diag "$out" ;;
	esac
	is "$(printf '%s\n' "$out" | grep -v 'No space' | tr '\n' ' ')" "shm failed tmp ok shared failed 1024 " \
		"... one budget: 600 kB in TMPDIR leave no room for 600 kB more in /dev/shm"
	[ ! -e "/dev/shm/$shmname" ]
	ok $? "... and the machine's /dev/shm has no such file"
	out=$(prun -- sh -c 'head -c 2000000 /dev/zero > "/dev/shm/$1" && echo written' sh "$shmname")
	is "$out" written "control: without it the 2 MB file is written to the run's /dev/shm"
	[ ! -e "/dev/shm/$shmname" ]
	ok $? "... which is not the machine's"
	LIB=$TOP/$B/libcordon.so
	if [ -e "$LIB" ]; then
		out=$(cd "$WS" && HOME=/nonexistent LD_PRELOAD=$(asan_rt) ASAN_OPTIONS=detect_leaks=0 "$PY" "$TOP/tests/helpers/libspawns.py" "$LIB" "$STATE" \
			--max-tmp 1048576 -- sh -c 'echo kept > /tmp/x' --then sh -c 'cat "$TMPDIR/x"' 2>&1)
		is "$(echo "$out" | sed 1d | tr '\n' ' ')" "exit 0 kept exit 0 end 0 " \
			"a library run's commands share its bounded temp dir"
	else
		skip "no $LIB"
	fi
else
	skip "--max-tmp: no mount layer here"
fi

# ---- without the mount layer -----------------------------------------------
rm -f "$T/s.json"
(cd "$WS" && HOME=/nonexistent "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" \
	--no-caches --max-tmp 1M --status-file "$T/s.json" -- true)
is "$? $(limit '[e["limits"]["max_tmp"]["by"], "resource_limit_not_enforced" in e["gaps"]]')" \
	"0 [null, true]" "no mount layer, auto: --max-tmp is a gap, the command runs"
out=$( (cd "$WS" && HOME=/nonexistent "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" \
	--no-caches --sandbox required --max-tmp 1M -- echo ran) 2>&1)
rc=$?
case $rc:$out in
"125:cordon: "*resource_limit_not_enforceable*) ok 0 "no mount layer, required: --max-tmp refuses (exit 125)" ;;
*) ok 1 "no mount layer, required: --max-tmp refuses (exit 125)" && diag "$rc $out" ;;
esac
if ! is_root; then
	# Without the run's user namespace RLIMIT_NPROC would count every
	# process of the user: no bound.
	rm -f "$T/s.json"
	(cd "$WS" && HOME=/nonexistent "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" \
		--no-caches --max-procs 50 --status-file "$T/s.json" -- true)
	is "$(limit 'e["limits"]["max_procs"]["by"]')" null "no user namespace: --max-procs not applied"
fi

# ---- bad input -------------------------------------------------------------
for bad in "--max-procs 0" "--max-procs -1" "--max-procs x" "--max-procs 99999999999999999999" \
	"--max-memory 0" "--max-memory 1.5G" "--max-memory 12X" "--max-memory 99999999999T" \
	"--max-tmp 100K" "--max-tmp=" "--max-procs 50 --max-procs 60" "--max-tmp 1G --max-tmp 2G"; do
	# shellcheck disable=SC2086 # the words of bad
	out=$(crun $bad -- true 2>&1)
	rc=$?
	opt=${bad%% *}
	opt=${opt%%=*}
	if [ "$rc" = 125 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		case $out in "cordon: bad $opt "* | "cordon: $opt given twice"*) true ;; *) false ;; esac; then
		ok 0 "'$bad': exit 125, one line naming $opt"
	else
		ok 1 "'$bad': exit 125, one line naming $opt" && diag "$rc: $out"
	fi
done
out=$(crun --max-procs 50 --max-procs 50 -- echo ran 2>&1)
is "$out" ran "the same value twice is accepted"

done_testing
