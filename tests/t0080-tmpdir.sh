#!/usr/bin/env bash
# The run's temp dir: made 0700 under STATE/runs, exported as TMPDIR,
# removed at the end without following symlinks out of it, even when the
# command made parts of it unreadable; dirs of dead runs are swept, dirs
# of live runs are not.
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

done_testing
