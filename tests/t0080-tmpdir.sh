#!/usr/bin/env bash
# The run's temp dir: made 0700 under STATE/runs, exported as TMPDIR,
# removed at the end without following symlinks out of it, even when the
# command made parts of it unreadable, however deep the tree it built;
# dirs of dead runs are swept by later runs (in the background, a budget
# per run, the next run going on), dirs of live runs are not.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

make_fixture "$OUT/keep"
mkdir -p "$OUT/keepdir"
make_fixture "$OUT/keepdir/f"
before=$(snapshot "$OUT")

(cd "$WS" && crun -- sh -c '
	stat -c %a "$TMPDIR" > mode
	echo "$TMPDIR" > where
	ln -s "'"$OUT"'/keep" "$TMPDIR/link-to-file"
	ln -s "'"$OUT"'/keepdir" "$TMPDIR/link-to-dir"
	mkdir -p "$TMPDIR/a/b/c" && echo x > "$TMPDIR/a/b/c/f"
	mkdir "$TMPDIR/locked" && echo x > "$TMPDIR/locked/f" && chmod 000 "$TMPDIR/locked"
	mkdir "$TMPDIR/ro" && echo x > "$TMPDIR/ro/f" && chmod 500 "$TMPDIR/ro"
	d="$TMPDIR"; for i in $(seq 70); do d="$d/n"; done; mkdir -p "$d" && echo deep > "$d/f"
')
is "$?" 0 "the command filled its temp dir"
is "$(cat "$WS/mode")" 700 "the temp dir is mode 0700"
case $(cat "$WS/where") in
"$STATE"/runs/*) ok 0 "the temp dir is under STATE/runs" ;;
*) ok 1 "the temp dir is under STATE/runs" ;;
esac
[ ! -e "$(cat "$WS/where")" ]
ok $? "the temp dir is gone after the run"
unchanged "removal did not follow symlinks out" "$OUT" "$before"
is "$(find "$STATE/runs" -mindepth 1 | wc -l | tr -d ' ')" 0 "nothing left under runs/"

# Stale dirs: an unlocked one is swept by the next run, a locked one stays.
mkdir -p "$STATE/runs/deadrun/sub" "$STATE/runs/liverun"
echo x >"$STATE/runs/deadrun/sub/f"
ln -s "$OUT/keep" "$STATE/runs/deadrun/link"
exec 9<"$STATE/runs/liverun"
flock 9
(cd "$WS" && crun -- true)
[ ! -e "$STATE/runs/deadrun" ]
ok $? "a dead run's dir is swept"
[ -d "$STATE/runs/liverun" ]
ok $? "a live run's dir (locked) is left alone"
unchanged "sweeping did not follow symlinks out" "$OUT" "$before"
exec 9<&-

# A tree as deep as the command likes (each mkdir -p makes 1,000 levels):
# 5,000 levels, a file and symlinks out at the bottom, dirs made 000 and
# 0500 at the bottom and at the top. Nothing of it outlives the run, and
# nothing is followed out.
p=$(printf 'd/%.0s' $(seq 1000))
(cd "$WS" && crun -- bash -c '
	cd "$TMPDIR" || exit 1
	for i in 1 2 3 4 5; do mkdir -p "$1" && cd "$1" || exit 1; done
	echo bottom > f
	ln -s "$2/keep" lf && ln -s "$2/keepdir" ld || exit 1
	mkdir s && echo x > s/f && chmod 000 s && chmod 500 .. && chmod 000 . || exit 1
	chmod 000 "$TMPDIR/d" && echo "$TMPDIR" > "$3/where-deep"
' sh "$p" "$OUT" "$WS")
is "$?" 0 "the command built a tree 5,000 dirs deep"
[ -s "$WS/where-deep" ] && [ ! -e "$(cat "$WS/where-deep")" ]
ok $? "the deep temp dir is gone after the run"
is "$(find "$STATE/runs" -mindepth 1 2>/dev/null | wc -l | tr -d ' ')" 0 "nothing left under runs/"
unchanged "removing the deep tree did not follow symlinks out" "$OUT" "$before"

# A dir left by a run that died (in runs/, locked by nobody): FILES files,
# then a chain DEPTH dirs deep, symlinks out and a dir made 000 at the
# bottom, itself made 000.
dead_dir() { # dead_dir DIR DEPTH FILES
	"$PY" - "$1" "$2" "$3" "$OUT" <<'PY'
import os, sys
top, depth, files, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.mkdir(top)
fd = os.open(top, os.O_RDONLY)
for i in range(files):
    os.close(os.open("f%d" % i, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
for _ in range(depth):
    os.mkdir("d", dir_fd=fd)
    n = os.open("d", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = n
os.symlink(out + "/keep", "lf", dir_fd=fd)
os.symlink(out + "/keepdir", "ld", dir_fd=fd)
os.mkdir("s", dir_fd=fd)
os.close(os.open("s/f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
os.chmod("s", 0, dir_fd=fd)
os.fchmod(fd, 0)
PY
}
# Runs whose command waits until DIR is gone or stops changing (its mtime
# the same for 5 s: the run's share of the sweep spent), MAX at most. Sets
# runs (how many ran) and failed (how many did not exit 0).
waiting_runs() { # waiting_runs DIR MAX
	runs=0 failed=0
	while [ -e "$1" ] && [ "$runs" -lt "$2" ]; do
		(cd "$WS" && crun -- sh -c '
			prev="" same=0
			while [ "$same" -lt 50 ]; do
				t=$(stat -c %y "$1" 2>/dev/null) || exit 0
				if [ "$t" = "$prev" ]; then same=$((same + 1)); else same=0; fi
				prev=$t
				sleep 0.1
			done' sh "$1") || failed=$((failed + 1))
		runs=$((runs + 1))
	done
}

# Later runs remove a dead run's tree of 8,000 levels while their command
# runs, each still succeeding: a short run, then one that waits (the
# removal is not bounded by a number of levels per run).
dead_dir "$STATE/runs/deadrun2" 8000 0
(cd "$WS" && crun -- true)
is "$?" 0 "a short run with a dead run's deep dir to sweep succeeds"
waiting_runs "$STATE/runs/deadrun2" 1
[ ! -e "$STATE/runs/deadrun2" ]
ok $? "the dead run's dir of 8,000 levels is gone after one more run"
is "$failed" 0 "each of those runs succeeded"
unchanged "sweeping the deep tree did not follow symlinks out" "$OUT" "$before"

# A dead run's dir of 70,000 entries (made 000 by its command) is more than
# one run's share: each run removes at most its share, the next goes on
# where it stopped.
dead_dir "$STATE/runs/deadrun3" 0 70000
waiting_runs "$STATE/runs/deadrun3" 1
[ -e "$STATE/runs/deadrun3" ] && [ "$failed" -eq 0 ]
ok $? "a run removes at most its share of a dead run's dir, and succeeds"
waiting_runs "$STATE/runs/deadrun3" 4
[ ! -e "$STATE/runs/deadrun3" ]
ok $? "the next runs remove the rest ($runs more runs)"
is "$failed" 0 "each of those runs succeeded"

# Processes meant to outlive the run (no PID namespace: under seccomp-deny
# nons no namespace can be made), left in their own sessions, that keep
# adding entries to the temp dir: files in it, and dirs at the bottom of a
# chain one keeps deepening. The CLI is their subreaper: it kills them
# before it removes the temp dir, so the run ends (timeout only guards
# against a hang), neither is left, and nothing of the temp dir stays.
cat >"$WS/adder-top.py" <<'PY'
import os
os.chdir(os.environ["TMPDIR"])
i = 0
while True:
    try:
        os.close(os.open("f%d" % i, os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError:
        pass
    i += 1
PY
cat >"$WS/adder-deep.py" <<'PY'
import os, sys
os.chdir(os.environ["TMPDIR"])
n = 0
try:
    os.mkdir("c")
    os.chdir("c")
    while True:
        os.mkdir("d")
        os.chdir("d")
        n += 1
except OSError as e:
    with open(sys.argv[1], "w") as f:
        f.write("%d levels, then %s\n" % (n, e.strerror))
PY
if ! "$HELPERS/seccomp-deny" nons -- true 2>/dev/null; then
	skip "seccomp-deny cannot run here"
else
	rm -f "$WS/deep-out"
	(cd "$WS" && timeout 300 "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" -- sh -c '
		setsid "$1" adder-top.py </dev/null >/dev/null 2>&1 &
		echo $! > adder1
		setsid "$1" adder-deep.py "$PWD/deep-out" </dev/null >/dev/null 2>&1 &
		echo $! > adder2
		echo "$TMPDIR" > where-added
		sleep 1' sh "$PY")
	is "$?" 0 "a run whose processes would outlive it, adding entries to its temp dir, ends"
	left=""
	for f in adder1 adder2; do
		p=$(cat "$WS/$f")
		[ -n "$p" ] && kill -0 "$p" 2>/dev/null && left="$left $p" && kill -9 "$p"
	done
	is "$left" "" "neither adder is left running"
	[ -s "$WS/where-added" ] && [ ! -e "$(cat "$WS/where-added")" ]
	ok $? "their temp dir is gone when the run ends"
	is "$(find "$STATE/runs" -mindepth 1 2>/dev/null | wc -l | tr -d ' ')" 0 \
		"nothing is left under the runs dir"
fi

# Two runs at once get different temp dirs and both are cleaned.
(cd "$WS" && crun -- sh -c 'echo "$TMPDIR" > w1; sleep 1') &
(cd "$WS" && crun -- sh -c 'echo "$TMPDIR" > w2; sleep 1') &
wait
[ -s "$WS/w1" ] && [ "$(cat "$WS/w1")" != "$(cat "$WS/w2")" ]
ok $? "concurrent runs get their own temp dirs"
[ ! -e "$(cat "$WS/w1")" ] && [ ! -e "$(cat "$WS/w2")" ]
ok $? "both are removed"

# A concurrent run cannot write another run's temp dir.
(cd "$WS" && crun -- sh -c 'echo "$TMPDIR" > w1; sleep 2') &
sleep 0.5
(cd "$WS" && crun -- sh -c 'echo evil > "$(cat w1)/planted"') 2>/dev/null
[ ! -e "$(cat "$WS/w1")/planted" ]
ok $? "a run cannot write another run's temp dir"
wait

# XDG_STATE_HOME is the default state dir.
(cd "$WS" && "$CORDON" run -- sh -c 'echo "$TMPDIR"') >"$T/o"
case $(cat "$T/o") in
"$XDG_STATE_HOME"/cordon/runs/*) ok 0 "default state dir is \$XDG_STATE_HOME/cordon" ;;
*) ok 1 "default state dir is \$XDG_STATE_HOME/cordon"; diag "$(cat "$T/o")" ;;
esac
(cd "$WS" && env -u XDG_STATE_HOME "$CORDON" run -- sh -c 'echo "$TMPDIR"') >"$T/o"
case $(cat "$T/o") in
"$HOME"/.local/state/cordon/runs/*) ok 0 "without XDG_STATE_HOME: ~/.local/state/cordon" ;;
*) ok 1 "without XDG_STATE_HOME: ~/.local/state/cordon"; diag "$(cat "$T/o")" ;;
esac
is "$(stat -c %a "$HOME/.local/state/cordon")" 700 "the state dir is created 0700"

# A state dir in the machine's /dev/shm (a tmpfs many pick for speed): the
# run's temp dir lies there, so the private /dev/shm that would hide it is
# not mounted; the rest of the machine's /dev/shm stays read-only.
if [ -d /dev/shm ] && [ -w /dev/shm ] && SHM=$(mktemp -d /dev/shm/cordon-t0080.XXXXXX); then
	trap 'rm -rf "$SHM"; cleanup' EXIT
	echo keep >"$SHM/outside"
	(cd "$WS" && "$CORDON" run --state-dir "$SHM/state" -- sh -c '
		echo x > "$TMPDIR/f" && cat "$TMPDIR/f" > /dev/null && echo "$TMPDIR" > shm-where
		echo changed > "$1/outside"; echo new > "$1/new"' sh "$SHM") 2>/dev/null
	case $(cat "$WS/shm-where" 2>/dev/null) in
	"$SHM"/state/runs/*) ok 0 "a state dir in /dev/shm: the temp dir there is usable" ;;
	*) ok 1 "a state dir in /dev/shm: the temp dir there is usable" ;;
	esac
	is "$(cat "$SHM/outside"):$(cd "$SHM" && printf "%s " *)" "keep:outside state " \
		"... and the rest of /dev/shm is not writable"
	[ ! -e "$(cat "$WS/shm-where" 2>/dev/null)" ]
	ok $? "... and the temp dir is removed at the end"
else
	skip "/dev/shm is not a writable dir here"
fi

done_testing
