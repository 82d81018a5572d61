#!/usr/bin/env bash
# --pass-file FILE: one file outside the writable set that the command may
# create and write at its path (Claude Code's cwd file is the first user).
# Made owner-only when missing, removed after the run when left empty,
# never reached through a symlink; refused when another user owns it, it
# has two links, its directory lets others rename it, or it lies in the
# state dir. With a private /tmp and without the mount layer alike, what
# the command writes there reaches the file outside, and nothing else
# does.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

# The home is kept out of /tmp so the run gets its private /tmp (a home in
# /tmp keeps the machine's, read-only, on builds before that changed).
prun() { (cd "$WS" && HOME=/nonexistent "$CORDON" run --state-dir "$STATE" --no-caches "$@"); }
u=cordon-pass-$$-$RANDOM
PD=/tmp/$u.d # a directory of the machine's /tmp, as Claude's cwd file is
mkdir -m 0700 "$PD"
trap 'rm -rf "$PD"; cleanup' EXIT
PF=$PD/cwd

# ---- a missing pass file: made, written, kept -------------------------------
out=$(prun --status-file "$T/s.json" --pass-file "$PF" -- \
	sh -c "pwd -P >| '$PF' && { echo sibling > '$PD/other'; } 2>/dev/null; echo done" 2>&1)
is "$out" "done" "the command ran"
is "$(cat "$PF" 2>/dev/null)" "$(cd "$WS" && pwd -P)" "what the command wrote reached the file outside"
is "$(stat -c '%a %u' "$PF")" "600 $(id -u)" "the file was made owner-only, the caller's"
[ ! -e "$PD/other" ]
ok $? "a sibling of the pass file written by the command did not reach the outside"
is "$(json_field "$T/s.json" status "'$PF' in e['writable']")" true "the start event lists it as writable"

# ---- an existing file: written in place -------------------------------------
echo old >"$PF"
ino=$(stat -c %i "$PF")
prun --pass-file "$PF" -- sh -c "echo new >| '$PF'"
is "$(cat "$PF"):$(stat -c %i "$PF")" "new:$ino" "an existing pass file is written in place"

# The command may not remove or rename it.
prun --pass-file "$PF" -- sh -c "rm -f '$PF'; mv '$PF' '$PF.moved'" 2>/dev/null
[ -f "$PF" ] && [ ! -e "$PF.moved" ]
ok $? "the command cannot remove or rename the pass file"

# ---- from a policy file, as any option ----------------------------------------
printf 'pass-file %s\n' "$PF" >"$T/p.policy"
prun --policy "$T/p.policy" -- sh -c "echo from-policy >| '$PF'"
is "$(cat "$PF")" from-policy "a pass file named in a policy file is written through"

# ---- left empty: removed again; a file that was there stays ------------------
rm -f "$PF"
prun --pass-file "$PF" -- sh -c 'exit 3'
rc=$?
is "$rc" 3 "the command's exit status is kept"
[ ! -e "$PF" ]
ok $? "a pass file the run made and the command left empty is removed"
: >"$PF"
prun --pass-file "$PF" -- true
[ -f "$PF" ]
ok $? "an empty pass file that existed before the run is left"
rm -f "$PF"

# ---- refusals: the outside stays as it was -----------------------------------
make_fixture "$OUT/target"
before=$(snapshot "$OUT/target")
ln -s "$OUT/target" "$PF"
out=$(prun --pass-file "$PF" -- sh -c "echo pwned >| '$PF'" 2>&1)
rc=$?
is "$rc:$(echo "$out" | grep -c 'symlink')" "125:1" "a symlink as the pass file: refused (exit 125)"
unchanged "the symlink's target" "$OUT/target" "$before"
rm -f "$PF"

ln "$OUT/target" "$PF"
before=$(snapshot "$OUT/target")
out=$(prun --pass-file "$PF" -- sh -c "echo pwned >| '$PF'" 2>&1)
is "$?" 125 "a pass file with a second link: refused"
unchanged "the other link's file" "$OUT/target" "$before"
rm -f "$PF"

mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
out=$(prun --pass-file "$T/open/f" -- true 2>&1)
is "$?:$(echo "$out" | grep -c 'writable by others')" "125:1" \
	"a directory others may write, not sticky: refused"
[ ! -e "$T/open/f" ]
ok $? "... and nothing was made there"

mkdir -p "$STATE"
out=$(prun --pass-file "$STATE/planted" -- true 2>&1)
is "$?:$(echo "$out" | grep -c "state directory")" "125:1" "a pass file in the state dir: refused"

if is_root; then
	: >"$PF"
	chown 65534 "$PF"
	before=$(snapshot "$PF")
	out=$(prun --pass-file "$PF" -- sh -c "echo pwned >| '$PF'" 2>&1)
	is "$?" 125 "root: a pass file owned by another user is refused"
	unchanged "the other user's file" "$PF" "$before"
	rm -f "$PF"
else
	skip "a file of another user's: needs root to make one"
fi

# ---- the workspace in /tmp too ------------------------------------------------
mkdir "$PD/ws"
out=$( (cd "$PD/ws" && HOME=/nonexistent "$CORDON" run --state-dir "$STATE" --no-caches \
	--pass-file "$PF" -- sh -c "cd sub 2>/dev/null; mkdir -p sub && cd sub && pwd -P >| '$PF' && echo in > f") 2>&1)
is "$out|$(cat "$PF" 2>/dev/null)|$(cat "$PD/ws/sub/f" 2>/dev/null)" "|$PD/ws/sub|in" \
	"workspace in /tmp: the workspace and the pass file are both written through"
rm -f "$PF"

# ---- without the mount layer (namespaces refused) ----------------------------
if "$HELPERS/seccomp-deny" nons -- true 2>/dev/null; then
	out=$( (cd "$WS" && "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" \
		--no-caches --status-file "$T/n.json" --pass-file "$PF" -- \
		sh -c "pwd -P >| '$PF'; { echo x > '$PD/other'; } 2>/dev/null || echo refused") 2>&1)
	is "$out|$(cat "$PF" 2>/dev/null)" "refused|$(cd "$WS" && pwd -P)" \
		"no mount layer: the pass file is written, its sibling refused"
	is "$(json_field "$T/n.json" status '"mount_namespace" in e["layers"]')" false \
		"... and that run had no mount layer"
	[ ! -e "$PD/other" ]
	ok $? "... nothing else reached the directory"
else
	skip "seccomp-deny cannot run here"
fi

# The control: unconfined, the sibling would have been written.
prun --sandbox off -- sh -c "echo x > '$PD/other'"
[ -e "$PD/other" ]
ok $? "control: unconfined, the command writes the directory"

done_testing
