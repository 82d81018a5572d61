#!/usr/bin/env bash
# --review: the command's writes to the workspace succeed inside but are
# held aside; the real workspace is unchanged when the run ends and after
# a discard, and is exactly what the same script makes unconfined (a
# control run on a copy) after cordon apply. Each kind of change (file
# and dir added, modified, deleted; mode; symlink; renames of a file and
# of a dir; a dir removed and made again), paths with odd bytes, a
# conflicting apply (nothing changed), a run killed in the middle (nothing
# lands; swept), a held run that expired (swept), changes the guards
# refuse, and symlinks that apply must never follow. Without the mount
# layer --review is refused in required mode and off, and a gap in auto
# (the command's writes land at once).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

layers=$(crun --status-fd 1 -- true | "$PY" -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())["layers"]))')
if [[ " $layers " != *" mount_namespace "* ]]; then
	skip_all "no mount layer here (layers: $layers): --review needs it"
fi

# The tree as apply must leave it: types, modes, sizes, contents, link
# targets (not times or inodes).
tree_of() {
	(cd "$1" && find . -mindepth 1 -printf '%P|%y|%m|%s|%l\n' | LC_ALL=C sort &&
		find . -mindepth 1 -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
}
run_id_of() { json_field "$1" status 'e["run_id"]'; }
odd=$'odd\nname\xff'

fixture() { # fixture DIR
	rm -rf "$1" && mkdir -p "$1/d" "$1/gone/deep" "$1/mv-dir/in" "$1/replace" "$1/sub" &&
		echo hello >"$1/a.txt" && echo keep >"$1/d/k" && echo gone >"$1/g.txt" &&
		echo x >"$1/gone/deep/f" && echo m >"$1/mv.txt" && echo i >"$1/mv-dir/in/f" &&
		echo old >"$1/replace/old" && chmod 0644 "$1/d/k" && ln -s a.txt "$1/s" &&
		printf 'bin\0ary' >"$1/bin" && echo t >"$1/sub/t"
}
# Every kind of change.
script='echo world >>a.txt && echo new >n.txt && rm g.txt && mkdir -p nd/e && echo y >nd/e/y &&
	chmod 0600 d/k && chmod 0700 sub && ln -sfn /etc/passwd s && rm -rf gone && mv mv.txt moved.txt &&
	mv mv-dir moved-dir && rm -rf replace && mkdir replace && echo z >replace/z &&
	printf "bin\0ary2" >bin && printf 1 >"$ODD" && mkfifo fifo && cat a.txt'
export ODD="$odd"

fixture "$WS"
fixture "$T/ref"
(cd "$T/ref" && sh -c "$script") >/dev/null
want=$(tree_of "$T/ref")
before=$(snapshot "$WS")
out=$(cd "$WS" && crun --review --status-file "$T/s1.json" -- sh -c "$script" 2>"$T/e")
is "$?:$out" "0:hello
world" "inside, every write succeeds and reads back (a.txt appended)"
unchanged "the real workspace after the run" "$WS" "$before"
id1=$(run_id_of "$T/s1.json")
is "$(json_field "$T/s1.json" status '"review" in e["layers"]')" true "the start event lists the layer review"
is "$(json_field "$T/s1.json" exit '[e["review"]["held"], e["review"]["changes_omitted"]]')" "[true, 0]" \
	"the exit event: held, nothing omitted"
kinds=$(json_field "$T/s1.json" exit 'sorted(set((c["kind"], c["path"]) for c in e["review"]["changes"]))')
for k in '"modified", "a.txt"' '"added", "n.txt"' '"deleted", "g.txt"' '"mode", "d/k"' '"mode", "sub"' \
	'"symlink", "s"' '"deleted", "gone"' '"deleted", "mv.txt"' '"added", "moved.txt"' \
	'"deleted", "mv-dir"' '"added", "moved-dir"' '"deleted", "replace"' '"added", "replace"' \
	'"added", "nd"' '"added", "fifo"' '"modified", "bin"'; do
	[[ "$kinds" == *"[$k]"* ]]
	ok $? "the exit event lists [$k]"
done
[[ "$kinds" == *'"added", "odd\nname\udcff"'* ]]
ok $? "... and the odd name (a newline, a byte that is not UTF-8)"

# cordon changes and cordon diff.
"$CORDON" changes --state-dir "$STATE" "$id1" >"$T/ch" 2>"$T/e"
is "$?" 0 "cordon changes"
grep -q '^modified  *[0-9]*  a.txt$' "$T/ch" && grep -q '^added  *1  "odd\\nname\\377"$' "$T/ch"
ok $? "... one line a change, an odd name quoted"
"$CORDON" diff --state-dir "$STATE" "$id1" >"$T/diff" 2>"$T/e"
is "$?" 0 "cordon diff"
grep -q '^+world$' "$T/diff" && grep -q '^Binary files a/bin and b/bin differ$' "$T/diff" &&
	grep -q '^symlink to /etc/passwd$' "$T/diff" && grep -q '^+++ "b/odd\\nname\\377"$' "$T/diff"
ok $? "... text diffed, a binary file named, a symlink's target shown, an odd name quoted"
unchanged "the real workspace after changes and diff" "$WS" "$before"

# apply: exactly what the unconfined run made.
"$CORDON" apply --state-dir "$STATE" "$id1" 2>"$T/e"
is "$?" 0 "cordon apply"
got=$(tree_of "$WS")
if [ "$got" = "$want" ]; then ok 0 "after apply the workspace is what the script makes unconfined"; else
	ok 1 "after apply the workspace is what the script makes unconfined"
	diff <(echo "$want") <(echo "$got") | sed 's/^/#   /'
fi
[ ! -e "$STATE/review/$id1" ]
ok $? "the held run is gone after apply"
"$CORDON" apply --state-dir "$STATE" "$id1" 2>"$T/e"
[ "$?" -eq 125 ] && grep -q "^cordon: no held run $id1" "$T/e"
ok $? "a second apply: no such held run (exit 125, one line)"

# discard.
fixture "$WS"
before=$(snapshot "$WS")
(cd "$WS" && crun --review --status-file "$T/s2.json" -- sh -c 'echo changed >a.txt; rm -rf d') >/dev/null 2>&1
id2=$(run_id_of "$T/s2.json")
"$CORDON" discard --state-dir "$STATE" "$id2" 2>"$T/e"
is "$?" 0 "cordon discard"
unchanged "the real workspace after discard" "$WS" "$before"
[ ! -e "$STATE/review/$id2" ]
ok $? "the held run is gone after discard"

# A conflicting apply: the file the run changed was changed meanwhile;
# and, in another run, a file was added under a dir the run removed.
(cd "$WS" && crun --review --status-file "$T/s3.json" -- sh -c 'echo held >a.txt; echo n >new.txt') >/dev/null 2>&1
id3=$(run_id_of "$T/s3.json")
echo "the user's own" >"$WS/a.txt"
before=$(snapshot "$WS")
"$CORDON" apply --state-dir "$STATE" "$id3" 2>"$T/e"
rc=$?
[ "$rc" -eq 125 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "changed meanwhile at a.txt" "$T/e"
ok $? "apply refuses when the workspace changed at a path the run changed (exit $rc, one line)"
unchanged "the workspace after the refused apply (new.txt not landed either)" "$WS" "$before"
"$CORDON" discard --state-dir "$STATE" "$id3"
(cd "$WS" && crun --review --status-file "$T/s4.json" -- rm -rf gone) >/dev/null 2>&1
id4=$(run_id_of "$T/s4.json")
echo "added meanwhile" >"$WS/gone/deep/g"
before=$(snapshot "$WS")
"$CORDON" apply --state-dir "$STATE" "$id4" 2>"$T/e"
[ "$?" -eq 125 ] && grep -q "changed meanwhile at gone (what is in it changed" "$T/e"
ok $? "apply refuses when something was added below a dir the run removed"
unchanged "the workspace after that refused apply" "$WS" "$before"
"$CORDON" discard --state-dir "$STATE" "$id4"

# Symlinks: a held symlink out of the workspace lands as a symlink and
# is never followed; a dir of the workspace replaced by a symlink to the
# outside since the run: the apply refuses, the outside untouched.
make_fixture "$OUT/target"
obefore=$(snapshot "$OUT")
(cd "$WS" && crun --review --status-file "$T/s5.json" -- sh -c "rm -rf d && ln -s '$OUT' d && ln -s '$OUT/target' evil && echo n >sub/n") >/dev/null 2>&1
id5=$(run_id_of "$T/s5.json")
"$CORDON" apply --state-dir "$STATE" "$id5" 2>"$T/e"
is "$?" 0 "apply of held symlinks out of the workspace"
[ -L "$WS/d" ] && [ "$(readlink "$WS/d")" = "$OUT" ] && [ -L "$WS/evil" ] && [ "$(readlink "$WS/evil")" = "$OUT/target" ]
ok $? "... they land as symlinks with their targets"
unchanged "the outside, through the held symlinks" "$OUT" "$obefore"
(cd "$WS" && crun --review --status-file "$T/s6.json" -- sh -c 'echo planted >sub/p') >/dev/null 2>&1
id6=$(run_id_of "$T/s6.json")
mv "$WS/sub" "$T/sub-away" && ln -s "$OUT" "$WS/sub"
"$CORDON" apply --state-dir "$STATE" "$id6" 2>"$T/e"
[ "$?" -eq 125 ] && grep -q "changed meanwhile at sub/p (a directory on its way is not a directory)" "$T/e"
ok $? "a dir on the way replaced by a symlink since the run: apply refuses"
unchanged "the outside, behind that symlink" "$OUT" "$obefore"
"$CORDON" discard --state-dir "$STATE" "$id6"
rm "$WS/sub" && mv "$T/sub-away" "$WS/sub"

# The guards: a hook, a git config that runs a program, an agent's
# settings are not applied; with --drop-guarded the rest lands.
mkdir -p "$WS/.git"
printf '[core]\n\trepositoryformatversion = 0\n' >"$WS/.git/config"
echo 'ref: refs/heads/main' >"$WS/.git/HEAD"
before=$(snapshot "$WS")
(cd "$WS" && crun --review --no-default-protect --status-file "$T/s7.json" -- sh -c '
	mkdir -p .git/hooks .claude && printf "#!/bin/sh\ntouch /tmp/pwned\n" >.git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit && printf "[core]\n\tfsmonitor = touch /tmp/pwned\n" >>.git/config &&
	echo "{\"hooks\":{}}" >.claude/settings.json && echo ok >plain.txt && echo s >.git/hooks/x.sample') >/dev/null 2>&1
id7=$(run_id_of "$T/s7.json")
"$CORDON" apply --state-dir "$STATE" "$id7" 2>"$T/e"
rc=$?
[ "$rc" -eq 125 ] && grep -q 'refused (a guard.s): .git/hooks/pre-commit: a git hook' "$T/e" &&
	grep -q 'refused (a guard.s): .git/config: a git config with an entry' "$T/e" &&
	grep -q 'refused (a guard.s): .claude: agent configuration' "$T/e"
ok $? "apply refuses held changes the guards would move aside, each named (exit $rc)"
unchanged "the workspace after the guards' refusal" "$WS" "$before"
"$CORDON" apply --state-dir "$STATE" --drop-guarded "$id7" 2>"$T/e"
is "$?" 0 "apply --drop-guarded"
[ -f "$WS/plain.txt" ] && [ -f "$WS/.git/hooks/x.sample" ] && [ ! -e "$WS/.git/hooks/pre-commit" ] &&
	[ ! -e "$WS/.claude" ] && ! grep -q fsmonitor "$WS/.git/config"
ok $? "... lands the rest (a *.sample hook too), not what the guards refused"
rm -rf "$WS/.git" "$WS/plain.txt"

# An explicit --protect path that did not exist: the run may make it in
# its view (nothing can refuse a name that is not there), but apply never
# lands it.
before=$(snapshot "$WS")
(cd "$WS" && crun --review --protect "$WS/frozen-new" --status-file "$T/s13.json" -- sh -c 'mkdir frozen-new && echo x >frozen-new/f && echo ok >other.txt') >/dev/null 2>&1
id13=$(run_id_of "$T/s13.json")
"$CORDON" apply --state-dir "$STATE" "$id13" 2>"$T/e"
[ "$?" -eq 125 ] && grep -q 'refused (a guard.s): frozen-new: a path protected in the run' "$T/e"
ok $? "apply refuses what the run made at an --protect path that did not exist"
unchanged "the workspace after that refusal" "$WS" "$before"
"$CORDON" apply --state-dir "$STATE" --drop-guarded "$id13" 2>/dev/null
[ ! -e "$WS/frozen-new" ] && [ -f "$WS/other.txt" ]
ok $? "... with --drop-guarded the rest lands, the protected path does not"
rm -f "$WS/other.txt"

# Agent configuration deeper than the guard's levels (a skill Claude Code
# loads from sub/.claude/skills when it reads a file in sub/, a .env):
# apply goes over every change anyway, so it refuses the names at any depth.
before=$(snapshot "$WS")
(cd "$WS" && crun --review --status-file "$T/s14.json" -- sh -c '
	mkdir -p sub/.claude/skills/x deep/er && echo "hooks: x" >sub/.claude/skills/x/SKILL.md &&
	echo BASH_ENV=/x >deep/er/.env && echo BASH_ENV=/x >.env && echo ok >other.txt') >/dev/null 2>&1
id14=$(run_id_of "$T/s14.json")
"$CORDON" apply --state-dir "$STATE" "$id14" 2>"$T/e"
rc=$?
[ "$rc" -eq 125 ] && grep -q 'refused (a guard.s): sub/.claude: agent configuration' "$T/e" &&
	grep -q 'refused (a guard.s): deep/er/.env: agent configuration' "$T/e" &&
	grep -q 'refused (a guard.s): .env: ' "$T/e"
ok $? "apply refuses a nested .claude and .env, at any depth (exit $rc)"
unchanged "the workspace after that refusal" "$WS" "$before"
"$CORDON" apply --state-dir "$STATE" --drop-guarded "$id14" 2>/dev/null
[ ! -e "$WS/sub/.claude" ] && [ ! -e "$WS/deep/er/.env" ] && [ ! -e "$WS/.env" ] && [ -f "$WS/other.txt" ]
ok $? "... with --drop-guarded the rest lands, no agent configuration"
rm -rf "$WS/other.txt" "$WS/sub/.claude" "$WS/deep"

# A run killed in the middle: nothing lands, the workspace is unchanged,
# apply refuses it, and a later run sweeps it.
before=$(snapshot "$WS")
(cd "$WS" && exec "$CORDON" run --state-dir "$STATE" --review --status-file "$T/s8.json" -- sh -c 'echo half >a.txt; sleep 60') >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ -s "$T/s8.json" ] && [ -n "$(ls "$STATE/review" 2>/dev/null)" ] && break
	sleep 0.1
done
sleep 0.5
kill -KILL "$pid"
wait "$pid" 2>/dev/null
id8=$(run_id_of "$T/s8.json")
# The run's processes die with it (process 1's parent-death signal);
# its lock is free once they are gone.
for _ in $(seq 100); do flock -n "$STATE/review/$id8" true 2>/dev/null && break; sleep 0.1; done
unchanged "the workspace after cordon was SIGKILLed in a --review run" "$WS" "$before"
"$CORDON" apply --state-dir "$STATE" "$id8" 2>"$T/e"
[ "$?" -eq 125 ] && grep -q "did not end" "$T/e"
ok $? "apply refuses the killed run's held dir: it did not end"
(cd "$WS" && crun -- true) >/dev/null 2>&1
[ ! -e "$STATE/review/$id8" ]
ok $? "a later run sweeps the killed run's dir"

# Expiry: a held run older than 7 days is swept by a later run.
(cd "$WS" && crun --review --status-file "$T/s9.json" -- sh -c 'echo e >e.txt') >/dev/null 2>&1
id9=$(run_id_of "$T/s9.json")
(cd "$WS" && crun -- true) >/dev/null 2>&1
[ -e "$STATE/review/$id9/record" ]
ok $? "a held run younger than the expiry is kept"
touch -d '8 days ago' "$STATE/review/$id9/record"
(cd "$WS" && crun -- true) >/dev/null 2>&1
"$CORDON" changes --state-dir "$STATE" "$id9" >/dev/null 2>"$T/e"
[ "$?" -eq 125 ] && grep -q "no held run" "$T/e" && [ ! -e "$WS/e.txt" ]
ok $? "one that expired is swept by a later run (nothing of it landed)"

# The exit event's list is bounded: at most 1,000 changes, the rest
# counted; cordon changes lists them all.
mkdir -p "$T/many"
(cd "$T/many" && crun --review -w . --status-file "$T/s11.json" -- sh -c 'i=0; while [ $i -lt 1100 ]; do : >f$i; i=$((i+1)); done') >/dev/null 2>&1
is "$(json_field "$T/s11.json" exit '[len(e["review"]["changes"]), e["review"]["changes_omitted"], e["review"]["changes_total"]]')" \
	"[1000, 100, 1100]" "the exit event lists 1,000 of 1,100 changes and counts the other 100"
id11=$(run_id_of "$T/s11.json")
is "$("$CORDON" changes --state-dir "$STATE" "$id11" | grep -c '^added')" 1100 "cordon changes lists all 1,100"
"$CORDON" discard --state-dir "$STATE" "$id11"
[ -z "$(ls "$T/many")" ]
ok $? "... and the real directory stayed empty"

# With a scratch home too: the workspace under the home is still held
# (the scratch home binds the held overlay again, not the real tree).
mkdir -p "$HOME/proj" && echo a >"$HOME/proj/f"
before=$(snapshot "$HOME")
out=$(cd "$HOME/proj" && crun --review --scratch-home -w . --status-file "$T/s12.json" -- sh -c 'echo b >f; echo h >"$HOME/h"; cat f' 2>/dev/null)
is "$out" b "--review --scratch-home: the workspace under the home is written inside"
unchanged "the home and the workspace in it after --review --scratch-home" "$HOME" "$before"
is "$(json_field "$T/s12.json" exit '[(c["kind"], c["path"]) for c in e["review"]["changes"]]')" '[["modified", "f"]]' \
	"... the held change is the workspace's only (the home's write is the scratch home's)"

# With confinement off: refused (off holds nothing; the two ask for
# opposite things); the workspace unchanged.
before=$(snapshot "$WS")
(cd "$WS" && crun --review --sandbox off --status-file "$T/s10.json" -- sh -c 'echo off >a.txt') >/dev/null 2>"$T/e"
[ "$?" -eq 125 ] && grep -q 'review_not_enforceable' "$T/e" &&
	[ "$(json_field "$T/s10.json" status 'e["cause"]')" = review_not_enforceable ]
ok $? "--review --sandbox off: refused (exit 125, cause review_not_enforceable)"
unchanged "the workspace after the refused run" "$WS" "$before"

# Without the mount layer (Landlock alone: no namespace can be made):
# required refuses, nothing runs, the workspace and the outside are
# unchanged; auto runs the command without the review, its write lands
# at once, and the run says so (the gap review_not_held, one warning, no
# layer review, an exit event whose review is null, --explain's line)
# and holds nothing cordon changes or apply could find.
if "$HELPERS/seccomp-deny" nons -- true 2>/dev/null; then
	nons() { "$HELPERS/seccomp-deny" nons -- "$CORDON" run "$@"; }
	before=$(snapshot "$WS")
	rm -f "$OUT/ran"
	(cd "$WS" && nons --state-dir "$STATE" --review --sandbox required --status-file "$T/s20.json" -- \
		sh -c "echo nons >a.txt; touch '$OUT/ran'") >"$T/o" 2>"$T/e"
	rc=$?
	is "$rc:$(wc -l <"$T/e"):$(json_field "$T/s20.json" status '[e["reason"], e["cause"], e["applied"]]')" \
		'125:1:["bash_sandbox_unavailable", "review_not_enforceable", false]' \
		"no mount layer, required: refused (exit 125, one line, cause review_not_enforceable)"
	[ ! -e "$OUT/ran" ] && [ ! -s "$T/o" ]
	ok $? "... the command did not run"
	unchanged "... the workspace after the refused run" "$WS" "$before"

	# A state dir of its own, which no run has held changes in yet.
	echo hello >"$WS/a.txt"
	mkdir "$T/state-nons"
	out=$(cd "$WS" && nons --state-dir "$T/state-nons" --review --explain --status-file "$T/s21.json" -- \
		sh -c "echo landed >a.txt; echo out >'$OUT/o21'; cat a.txt; exit 3" 2>"$T/e")
	is "$?:$out:$(cat "$WS/a.txt"):$(cat "$OUT/o21" 2>/dev/null)" "3:landed:landed:" \
		"no mount layer, auto: the command runs, its write lands in the workspace at once (outside still refused)"
	is "$(json_field "$T/s21.json" status '["review_not_held" in e["gaps"], "review" in e["layers"], "mount_namespace" in e["layers"], e["applied"]]')" \
		"[true, false, false, true]" "... the gap review_not_held, no layer review (Landlock alone, applied)"
	is "$(json_field "$T/s21.json" exit '"review" in e and e["review"] is None')" true \
		"... the exit event holds no review (review: null)"
	is "$(grep -c 'warning: --review' "$T/e"):$(grep -c 'held, not applied' "$T/e")" "1:0" \
		"... one warning line on stderr, no line naming held changes"
	grep 'cordon: explain:' "$T/e" | grep -q 'review_not_held.*landed in the workspace at once'
	ok $? "... --explain says the review was not held, why and what it means"
	[ ! -e "$T/state-nons/review" ]
	ok $? "... nothing held under the state dir"
	id21=$(run_id_of "$T/s21.json")
	crun_sub() { "$CORDON" "$1" --state-dir "$T/state-nons" "$2"; }
	for sub in changes apply; do
		crun_sub "$sub" "$id21" >"$T/o" 2>"$T/e"
		rc=$?
		is "$rc:$(wc -l <"$T/e"):$(wc -c <"$T/o")" "125:1:0" "... cordon $sub of that run: exit 125, one line"
		grep -q "review_not_held" "$T/e"
		ok $? "... which names the gap review_not_held: $(cat "$T/e")"
	done
	is "$(cat "$WS/a.txt")" landed "... the workspace as the run left it"

	# The first command's child meets the refusal itself (the trial):
	# the review dir the plan made for the assumed mount layer goes, and
	# the run goes on as above.
	mkdir "$T/state-trial"
	out=$(cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$HELPERS/cordon-first-child" run \
		--state-dir "$T/state-trial" --review --status-file "$T/s22.json" -- sh -c 'echo trial >a.txt; cat a.txt' 2>/dev/null)
	is "$?:$out:$(cat "$WS/a.txt"):$(json_field "$T/s22.json" status '"review_not_held" in e["gaps"]')" \
		"0:trial:trial:true" "no mount layer met by the first child, auto: the write lands, the gap"
	is "$(ls -A "$T/state-trial/review" 2>/dev/null)" "" "... the review dir made for the trial is gone"

	# The library: cordon_set_review() alike (auto: the gap; required:
	# CORDON_EUNAVAILABLE, nothing run).
	LIB=$TOP/$B/libcordon.so
	for mode in 0:auto 1:required; do
		echo lib >"$WS/a.txt"
		out=$( (cd "$WS" && "$HELPERS/seccomp-deny" nons -- env \
			LD_PRELOAD="$(ldd "$LIB" 2>/dev/null | awk '/libasan/ { print $3 }')" ASAN_OPTIONS=detect_leaks=0 \
			"$PY" - "$LIB" "$T/state-nons" "${mode%%:*}" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cordon_new.restype = ctypes.c_void_p
for f in ("cordon_set_state_dir", "cordon_set_review", "cordon_set_mode", "cordon_run",
          "cordon_gaps", "cordon_free"):
    getattr(lib, f).argtypes = [ctypes.c_void_p] + {
        "cordon_set_state_dir": [ctypes.c_char_p], "cordon_set_review": [ctypes.c_int],
        "cordon_set_mode": [ctypes.c_int], "cordon_run": [ctypes.c_void_p, ctypes.c_void_p],
    }.get(f, [])
lib.cordon_gaps.restype = ctypes.POINTER(ctypes.c_char_p)
c = lib.cordon_new()
res = (ctypes.c_int * 4)()
argv = (ctypes.c_char_p * 4)(b"sh", b"-c", b"echo landed >a.txt", None)
lib.cordon_set_state_dir(c, sys.argv[2].encode())
lib.cordon_set_review(c, 1)
lib.cordon_set_mode(c, int(sys.argv[3]))
r = lib.cordon_run(c, argv, res)
g, gaps, i = lib.cordon_gaps(c), [], 0
while g and g[i]:
    gaps.append(g[i].decode())
    i += 1
print(r, res[0] if r == 0 else "-", "review_not_held" in gaps)
lib.cordon_free(c)
PY
		) 2>&1)
		if [ "${mode#*:}" = auto ]; then
			is "$out:$(cat "$WS/a.txt")" "0 0 True:landed" "the library, auto: the command ran, its write landed, the gap"
		else
			is "$out:$(cat "$WS/a.txt")" "-6 - False:lib" \
				"the library, required: CORDON_EUNAVAILABLE, the workspace unchanged"
		fi
	done
else
	for _ in $(seq 18); do skip "no mount layer: seccomp-deny cannot run here"; done
fi

done_testing
