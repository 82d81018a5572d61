#!/usr/bin/env bash
# cordon-sh: every argv form runs bash confined with the command's exit
# status; the workspace is --workspace, CORDON_WORKSPACE, the agent's
# project dir, else the current dir; Claude Code's string keeps its cwd
# tracking exact through the run (its cwd file passed through, with a
# private /tmp and with the machine's, the workspace in /tmp) and what the
# command leaves there never names a directory outside the workspace;
# inside a run (whatever the environment says) it starts a run of its own
# or refuses; refusals are one line, exit 125.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

SH=$TOP/$B/cordon-sh
[ -x "$SH" ] || {
	echo "not ok 1 - $SH is built"
	echo "1..1"
	exit 1
}
mkdir -p "$WS/sub"
WSR=$(cd "$WS" && pwd -P)
hex=$(printf '%x' $$)$RANDOM
CWDF=/tmp/claude-${hex}a-cwd # Claude Code's name, in the machine's /tmp
OTHER=/tmp/cordon-sh-$$-$RANDOM
trap 'rm -rf "$CWDF" "$OTHER" /tmp/claude-${hex}b-cwd; cleanup' EXIT
unset CORDON_WORKSPACE CLAUDE_PROJECT_DIR GEMINI_PROJECT_DIR CORDON_RUN_ID
# Claude Code's string around a command (agent-facts: 2.1.332).
# The command is quoted as Claude quotes it: in '...', each ' as '"'"'.
claude() {
	local q="'\"'\"'"
	printf "source /nonexistent 2>/dev/null || true && eval '%s' < /dev/null && pwd -P >| %s" \
		"${1//\'/$q}" "${2:-$CWDF}"
}

# ---- the argv forms and the exit status ------------------------------------
out=$(cd "$WS" && "$SH" -c 'printf "%s|%s|%s" "$0" "$1" "$TMPDIR"; exit 7' zero one)
rc=$?
is "$rc:${out%|*}" "7:zero|one" "-c STRING NAME ARG: \$0, \$1, the exit status"
case ${out##*|} in
*/runs/*) ok 0 "... in a run (TMPDIR is the run's dir)" ;;
*) ok 1 "... in a run (TMPDIR is the run's dir, got ${out##*|})" ;;
esac
out=$(cd "$WS" && "$SH" -i -c 'case $- in *i*) echo interactive ;; esac' 2>/dev/null)
is "$out" interactive "-i -c STRING: an interactive bash"
out=$(cd "$WS" && "$SH" -lc 'shopt -q login_shell && echo login')
is "$out" login "-lc STRING: a login bash"
out=$(cd "$WS" && echo 'echo from-stdin; exit 5' | "$SH")
is "$?:$out" "5:from-stdin" "no arguments: bash reads stdin"
out=$(cd "$WS" && "$SH" "echo one-string; exit 6")
is "$?:$out" "6:one-string" "one string (Claude Code's form)"
(cd "$WS" && "$SH" -c 'kill -TERM $$')
is "$?" 143 "killed by SIGTERM: 128+15"
for args in "a b" "-Z -c x" "-c" "-l x" "--rcfile /x -c x"; do
	# shellcheck disable=SC2086 # the words are the arguments
	out=$(cd "$WS" && "$SH" $args 2>&1)
	rc=$?
	is "$rc:$(echo "$out" | wc -l):${out%%:*}" "125:1:cordon" "refused with one line, exit 125: cordon-sh $args"
done

# ---- confinement -------------------------------------------------------------
make_fixture "$OUT/f"
before=$(snapshot "$OUT/f")
out=$(cd "$WS" && "$SH" -c "echo in > '$WS/in'; { echo pwned > '$OUT/f'; } 2>/dev/null || echo refused")
is "$out:$(cat "$WS/in")" "refused:in" "the workspace is written, the outside refused"
unchanged "cordon-sh -c" "$OUT/f" "$before"
bash -c "echo x > '$OUT/control'"
[ -f "$OUT/control" ]
ok $? "control: plain bash writes the outside"

# ---- the workspace -------------------------------------------------------------
w() { (cd "$WS/sub" && "$@" "$SH" -c "touch '$WS/top' 2>/dev/null && echo wrote || echo refused"); rm -f "$WS/top"; }
is "$(w env)" refused "in a subdir, nothing configured: the workspace is the subdir"
is "$(w env CLAUDE_PROJECT_DIR="$WS")" wrote "CLAUDE_PROJECT_DIR holding the cwd: the workspace"
is "$(w env GEMINI_PROJECT_DIR="$WS")" wrote "GEMINI_PROJECT_DIR holding the cwd: the workspace"
is "$(w env CORDON_WORKSPACE="$WS")" wrote "CORDON_WORKSPACE: the workspace"
out=$(cd "$WS/sub" && "$SH" --workspace "$WS" -c "touch '$WS/top' && echo wrote")
is "$out" wrote "--workspace: the workspace"
rm -f "$WS/top"
out=$(cd "$WS" && CORDON_WORKSPACE=ws "$SH" -c 'echo ran' 2>&1)
is "$?:$(echo "$out" | grep -c '^ran')" "125:0" "a relative CORDON_WORKSPACE: refused, nothing run"
out=$(cd "$OUT" && CLAUDE_PROJECT_DIR="$WS" "$SH" -c "pwd; touch '$WS/top' && echo wrote")
is "$out" "$WSR
wrote" "a cwd outside the project: the command starts in the project, its workspace"
rm -f "$WS/top"

# A directory swapped for a symlink to the outside after Claude recorded
# it (a background confined run: attack A05): Claude's next call starts
# there, getcwd() is the outside. With CORDON_WORKSPACE (the recipe's) the
# workspace stays, the command starts in it, the outside is not written.
mkdir -p "$WS/swap" && mv "$WS/swap" "$T/swap-real" && ln -s "$OUT" "$WS/swap"
make_fixture "$OUT/f"
before=$(snapshot "$OUT")
out=$(cd "$WS/swap" && CORDON_WORKSPACE=$WS "$SH" "pwd -P; echo x > escaped.txt; { echo x > '$OUT/direct'; } 2>/dev/null || echo refused")
is "$out" "$WSR
refused" "CORDON_WORKSPACE, the cwd swapped for a symlink outside: starts in the workspace, outside refused"
unchanged "the outside, behind the swapped directory" "$OUT" "$before"
rm -f "$WS/swap" "$WS/escaped.txt"
rm -rf "$T/swap-real"

# ---- Claude Code's cwd tracking ------------------------------------------------
# Run with a home outside /tmp (a private /tmp) and with the test's home in
# /tmp (on builds where that keeps the machine's /tmp, read-only).
for home in /nonexistent "$HOME"; do
	what="home $home"
	rm -f "$CWDF"
	out=$(cd "$WS" && HOME=$home "$SH" "$(claude "cd sub && echo hi > f && { echo x > '$OTHER'; } 2>/dev/null; true")" 2>&1)
	rc=$?
	is "$rc:$out" "0:" "$what: Claude's string exits 0, the command's status"
	is "$(cat "$CWDF" 2>/dev/null)" "$WSR/sub" "$what: the cwd file names the directory the command cd'd to"
	is "$(cat "$WS/sub/f")" hi "$what: the command ran in the workspace"
	[ ! -e "$OTHER" ]
	ok $? "$what: nothing else in the machine's /tmp was written"
	rm -f "$CWDF" "$WS/sub/f"

	(cd "$WS" && HOME=$home "$SH" "$(claude 'exit 3')" 2>/dev/null)
	rc=$?
	[ "$rc" = 3 ] && [ ! -e "$CWDF" ]
	ok $? "$what: a command that fails: its status (3), and no cwd file (as without cordon)"
done

cwd_after() { # cwd_after COMMAND: what the cwd file holds after it ran
	rm -f "$CWDF"
	(cd "$WS" && "$SH" "$(claude "$1")" >/dev/null 2>&1)
	cat "$CWDF" 2>/dev/null
}
is "$(cwd_after 'cd /')" "$WSR" "cd / : the cwd file names the workspace instead"
is "$(cwd_after "cd '$OUT'")" "$WSR" "cd outside: the workspace instead"
ln -s "$OUT" "$WS/link"
is "$(cwd_after 'cd link')" "$WSR" "cd through a symlink to outside: the workspace instead"
is "$(cwd_after "echo /etc >| $CWDF; exit 0")" "$WSR" \
	"the command writes the file itself, outside: the workspace instead"
is "$(cwd_after "echo '$WSR/sub' >| $CWDF && exit 1")" "$WSR/sub" \
	"the command writes the file itself, a directory inside: kept"
rm -f "$WS/link"

# A cwd file that is a symlink (planted by someone): refused, target kept.
make_fixture "$OUT/bashrc"
before=$(snapshot "$OUT/bashrc")
rm -f "$CWDF"
ln -s "$OUT/bashrc" "$CWDF"
out=$(cd "$WS" && "$SH" "$(claude 'cd sub')" 2>&1)
is "$?:$(echo "$out" | grep -c symlink)" "125:1" "a symlink at the cwd file's path: refused"
unchanged "the symlink's target" "$OUT/bashrc" "$before"
rm -f "$CWDF"

# Only Claude's own name is passed: a string ending in another file.
before=$(snapshot "$OUT/bashrc")
(cd "$WS" && "$SH" "$(claude 'cd sub' "$OUT/bashrc")" >/dev/null 2>&1)
unchanged "a string ending with pwd -P >| another file" "$OUT/bashrc" "$before"
(cd "$WS" && TMPDIR=$OUT "$SH" "$(claude 'cd sub' "/tmp/claude-${hex}b-cwd")" >/dev/null 2>&1)
[ ! -e "/tmp/claude-${hex}b-cwd" ]
ok $? "the name in /tmp when TMPDIR names another dir: not passed"

# ---- --cd-file: the same for a caller that names its file ---------------------
CDF=$T/cdf
out=$(cd "$WS" && "$SH" --cd-file "$CDF" -c 'cd sub && echo "$0"' zero)
is "$?:$out:$(cat "$CDF" 2>/dev/null)" "0:zero:$WSR/sub" "--cd-file: \$0 kept, the final directory in the file"
(cd "$WS" && "$SH" --cd-file "$CDF" -c "cd '$OUT'")
is "$(cat "$CDF")" "$WSR" "--cd-file: a directory outside: the workspace instead"
rm -f "$CDF"
(cd "$WS" && "$SH" --cd-file "$CDF" -c 'exit 4')
[ "$?" = 4 ] && [ ! -e "$CDF" ]
ok $? "--cd-file: a command that fails: its status, no file"
out=$(cd "$WS" && "$SH" --cd-file "$CDF" 2>&1)
is "$?:${out%%:*}" "125:cordon" "--cd-file without -c: refused"
# After the run cordon-sh acts unconfined on the file's name: a second
# name of a file outside (a hard link made before the run, which the run
# refuses) is never written through; a symlink the command left is not
# followed (attack A14).
make_fixture "$OUT/victim"
mkdir -m 0700 "$T/cdd"
ln "$OUT/victim" "$T/cdd/hard"
before=$(snapshot "$OUT/victim")
(cd "$WS" && "$SH" --cd-file "$T/cdd/hard" -c "echo pwned > '$T/cdd/hard'; cd '$OUT'") >/dev/null 2>&1
unchanged "--cd-file a hard link to a file outside" "$OUT/victim" "$before"
rm -f "$T/cdd/hard"
before=$(snapshot "$OUT/victim")
(cd "$WS" && "$SH" --cd-file "$T/cdd/f" -c "rm -f '$T/cdd/f'; ln -s '$OUT/victim' '$T/cdd/f'; cd '$OUT'") >/dev/null 2>&1
unchanged "--cd-file replaced by a symlink to a file outside" "$OUT/victim" "$before"
rm -rf "$T/cdd"

# ---- "inside a run" is never taken from the environment -----------------------
# CORDON_RUN_ID is the caller's to set (an agent loads a workspace's .env
# into its own environment), and no_new_privs is set by every container
# with no-new-privileges: with both, the command is still confined.
id=0123456789abcdef0123456789abcdef
make_fixture "$OUT/f"
before=$(snapshot "$OUT/f")
out=$(cd "$WS" && CORDON_RUN_ID=$id "$SH" -c "{ echo pwned > '$OUT/f'; } 2>/dev/null || echo refused")
is "$out" refused "CORDON_RUN_ID set outside any run: still confined"
unchanged "a forged CORDON_RUN_ID" "$OUT/f" "$before"
if command -v setpriv >/dev/null; then
	out=$(cd "$WS" && setpriv --no-new-privs env CORDON_RUN_ID=$id \
		"$SH" -c "{ echo pwned > '$OUT/f'; } 2>/dev/null || echo refused" 2>&1)
	is "$out" refused "no_new_privs + a forged CORDON_RUN_ID: still confined"
	unchanged "no_new_privs + a forged CORDON_RUN_ID" "$OUT/f" "$before"
else
	skip "no setpriv to set no_new_privs"
fi
# Inside a real run, cordon-sh starts a nested run of its own (with the
# profile agent, whose scratch home needs the mount layer a nested run
# cannot have, required refuses with one line): never bash unconfined.
out=$(cd "$WS" && "$CORDON" run -- sh -c \
	"'$SH' -c \"{ echo pwned > '$OUT/f'; } 2>/dev/null; echo ran\"" 2>&1)
rc=$?
case $rc:$out in
125:cordon:*) ok 0 "inside a run, the profile agent: a one-line refusal, nothing run" ;;
*) ok 1 "inside a run, the profile agent: a one-line refusal, nothing run (got $rc: $out)" ;;
esac
unchanged "cordon-sh inside a run" "$OUT/f" "$before"
out=$(cd "$WS" && "$CORDON" run -- sh -c \
	"CORDON_PROFILE=default '$SH' -c 'echo \$TMPDIR'" 2>&1)
case $out in
*/runs/*/cordon/runs/*) ok 0 "inside a run, the profile default: a nested run of its own" ;;
*) ok 1 "inside a run, the profile default: a nested run of its own (got $out)" ;;
esac

# ---- the entry points' options (--agent-policy) -----------------------------------
printf 'profile agent\nstatus-file %s\n' "$T/events.jsonl" >"$T/p.policy"
(cd "$WS" && CORDON_POLICY=$T/p.policy "$SH" -c 'true')
is "$(json_field "$T/events.jsonl" status '[e["mode"], e["network"], e["policy"]]')" \
	"[\"required\", \"off\", [{\"file\": \"$T/p.policy\"}, {\"profile\": \"agent\"}]]" \
	"CORDON_POLICY: its options apply (a status file, the profile agent: network off), mode required"
printf 'netwrok off\n' >"$T/bad.policy"
out=$(cd "$WS" && CORDON_POLICY=$T/bad.policy "$SH" -c "touch '$WS/ran'" 2>&1)
[ "$?" = 125 ] && [ ! -e "$WS/ran" ] && case $out in *bad.policy:1:*) true ;; *) false ;; esac
ok $? "a bad line in the policy: refused (exit 125, FILE:LINE), nothing run"

# ---- required by default -------------------------------------------------------
if "$HELPERS/seccomp-deny" enosys -- true 2>/dev/null; then
	out=$(cd "$WS" && "$HELPERS/seccomp-deny" enosys -- "$SH" -c "touch '$WS/ran'" 2>&1)
	rc=$?
	[ "$rc" = 125 ] && [ ! -e "$WS/ran" ]
	ok $? "no Landlock: cordon-sh refuses (required), the command does not run ($rc)"
	printf 'profile default\nsandbox auto\n' >"$T/auto.policy"
	out=$(cd "$WS" && CORDON_POLICY=$T/auto.policy "$HELPERS/seccomp-deny" enosys -- "$SH" -c "echo ran" 2>/dev/null)
	is "$out" ran "a policy's 'sandbox auto' replaces required (runs, unconfined, with the warning)"
else
	skip "seccomp-deny cannot run here"
fi

done_testing
