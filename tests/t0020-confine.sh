#!/usr/bin/env bash
# Writes outside the writable set are refused by the kernel, however they
# are made: through a workspace symlink, sh -c, eval, xargs, find -exec,
# interpreters, dd, sed -i, redirections, links, renames. Each case checks
# the outside fixture is unchanged (content, mode, owner, mtime, ctime,
# inode, links, xattrs), then runs the same command with --sandbox off as a
# control, which must change it: the test proves the command really writes.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

PROBE=/tmp/cordon-probe-$$-$RANDOM
trap 'rm -f "$PROBE"; cleanup' EXIT

reset() {
	chmod -R u+rwx "$WS" "$OUT" 2>/dev/null
	# $OUT itself stays: a process below keeps it as its cwd.
	rm -rf "$WS"
	find "$OUT" -mindepth 1 -delete
	mkdir -p "$WS" "$OUT/dir"
	make_fixture "$OUT/target"
	make_fixture "$OUT/dir/inner"
	touch -d '2001-02-03 04:05:06' "$OUT/dir"
	ln -s "$OUT/target" "$WS/link"
	ln -s "$OUT/dir" "$WS/dirlink"
	printf 'evil payload\n' >"$WS/src"
	rm -f "$PROBE"
}

# case NAME COMMAND [OUTSIDE-PATH]
case_() {
	local name=$1 cmd=$2 target=${3:-$OUT/target} before after
	reset
	before=$(snapshot "$target")
	(cd "$WS" && crun -- sh -c "$cmd") >/dev/null 2>&1
	unchanged "$name" "$target" "$before"
	reset
	before=$(snapshot "$target")
	(cd "$WS" && crun --sandbox off -- sh -c "$cmd") >/dev/null 2>&1
	after=$(snapshot "$target")
	[ "$before" != "$after" ]
	ok $? "$name: control: unconfined, the same command changes it"
}

case_ "sh -c cp through symlink" 'cp src link'
case_ "eval through symlink" 'eval "echo evil > link"'
case_ "xargs cp through symlink" 'echo src | xargs -I{} cp {} link'
case_ "python3 open(w) through symlink" "python3 -c \"open('link','w').write('evil')\""
case_ "find -exec cp through symlink" 'find . -maxdepth 1 -name src -exec cp {} link \;'
case_ "dd of= through symlink" 'dd if=src of=link 2>/dev/null'
case_ "sed -i --follow-symlinks" 'sed -i --follow-symlinks s/original/evil/ link'
case_ "> through symlink" 'echo evil > link'
case_ ">> through symlink" 'echo evil >> link'
case_ "tee through symlink" 'echo evil | tee link'
case_ "perl through symlink" "perl -e 'open(F, \">\", \"link\") or die; print F \"evil\"'"
if tool_ok node; then
	case_ "node writeFileSync through symlink" "node -e \"require('fs').writeFileSync('link','evil')\""
else
	skip "node writeFileSync through symlink: $TOOL_WHY"
	skip "node writeFileSync through symlink, control: $TOOL_WHY"
fi
case_ "truncate(1) through symlink" 'truncate -s 0 link'
case_ "direct absolute path" "echo evil > '$OUT/target'"
case_ "dot-dot path" 'echo evil > ../outside/target'
case_ "symlink made by the command" "ln -s '$OUT/target' mine && echo evil > mine"
case_ "hard link of an outside inode" "ln '$OUT/target' hardlink"
case_ "move an outside file in" "mv '$OUT/target' stolen"
case_ "rm outside" "rm -f '$OUT/target'"
case_ "replace via rename over" "echo evil > new && mv -f new '$OUT/target'"
case_ "create in outside dir via dir symlink" 'echo evil > dirlink/new' "$OUT/dir"
case_ "mkdir outside" "mkdir '$OUT/dir/sub'" "$OUT/dir"
case_ "mkfifo outside" "mkfifo '$OUT/dir/fifo'" "$OUT/dir"
case_ "symlink outside" "ln -s x '$OUT/dir/sym'" "$OUT/dir"
case_ "unix socket outside" "python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('$OUT/dir/sock')\"" "$OUT/dir"
case_ "rmdir-style removal outside" "rm -rf '$OUT/dir/inner'" "$OUT/dir"
case_ "rename an outside dir away" "mv '$OUT/dir' '$OUT/dir2'" "$OUT/dir"
case_ "write to the system temp dir" "echo evil > '$PROBE'" "$PROBE"
case_ "write to HOME" "echo evil > '$HOME/.profile'" "$HOME/.profile"
case_ "write to the state dir" "echo evil > '$STATE/planted'" "$STATE/planted"
case_ "re-open a read-only fd for writing via /proc/self/fd" \
	"exec 3<'$OUT/target'; echo evil > /proc/self/fd/3"

# /proc/PID/cwd of an unconfined process of the same user.
sleep 300 &
sleeper=$!
(cd "$OUT" && exec sleep 300) &
in_out=$!
sleep 0.2
case_ "write through /proc/PID/cwd of an unconfined process" "echo evil > /proc/$in_out/cwd/target"
case_ "write through /proc/PID/root of an unconfined process" "echo evil > /proc/$sleeper/root$OUT/target"
kill "$sleeper" "$in_out" 2>/dev/null

# The hard link attempt: the link itself must fail, not only the write.
reset
(cd "$WS" && crun -- ln "$OUT/target" hardlink) 2>/dev/null
rc=$?
[ "$rc" -ne 0 ] && [ ! -e "$WS/hardlink" ]
ok $? "hard link of an outside inode is refused (rc=$rc)"
is "$(stat -c %h "$OUT/target")" 1 "the outside inode still has one link"

# --explain: two short lines after a confined command fails, naming the
# errors that mean "refused" and where the rest is; --explain=full one
# line of the whole; nothing when it succeeds, when off, or by default.
reset
(cd "$WS" && crun -- sh -c "echo evil > '$OUT/target'") 2>"$T/e"
! grep -q 'cordon: explain' "$T/e"
ok $? "no explanation by default"
(cd "$WS" && crun --explain --status-file "$T/x.json" -- sh -c "echo evil > '$OUT/target'") 2>"$T/e"
is "$?:$(grep -c '^cordon: explain: ' "$T/e")" "2:2" "--explain after a refused write: two lines"
is "$(grep -c '^cordon: explain: the command ran confined and exited with status 2; what a refusal by cordon gives it: a write outside the writable set: ' "$T/e")" \
	1 "... the first: its status, and what a refused write gives"
grep -q "^cordon: explain: what each means in this run, and where: --explain=full, or the exit event's possible_refusals\$" "$T/e"
ok $? "... the second: how to have the rest"
[ "$(grep -c '' "$T/e")" -le 3 ] && [ "$(wc -c <"$T/e")" -lt 700 ]
ok $? "... short: under 700 bytes of stderr in all ($(wc -c <"$T/e"))"
if [ "$(json_field "$T/x.json" status '"mount_namespace" in e["layers"]')" = true ]; then
	grep -q 'Read-only file system' "$T/e" && grep -q 'a write outside the writable set: EROFS' "$T/e"
	ok $? "... with the mount layer: the refusal is EROFS, and the short line says so"
else
	grep -q 'Permission denied' "$T/e" && grep -q 'a write outside the writable set: EACCES' "$T/e"
	ok $? "... Landlock only: the refusal is EACCES, and the short line says so"
fi
(cd "$WS" && crun --explain=full --status-file "$T/x.json" -- sh -c "echo evil > '$OUT/target'") 2>"$T/e"
is "$?:$(grep -c '^cordon: explain: the command ran confined and exited with status 2; writable: ' "$T/e")" \
	"2:1" "--explain=full after a refused write: one line of the whole"
if [ "$(json_field "$T/x.json" status '"mount_namespace" in e["layers"]')" = true ]; then
	grep -q 'Read-only file system' "$T/e" && grep -q 'EROFS "Read-only file system"' "$T/e"
	ok $? "... with the mount layer: the refusal is EROFS, and the line says so"
else
	grep -q 'Permission denied' "$T/e" && grep -q 'EACCES "Permission denied"' "$T/e"
	ok $? "... Landlock only: the refusal is EACCES, and the line says so"
fi
(cd "$WS" && crun --explain -- true) 2>"$T/e"
is "$?:$(wc -c <"$T/e")" "0:0" "--explain and success: nothing"
(cd "$WS" && crun --explain --sandbox off -- false) 2>"$T/e"
is "$?:$(wc -c <"$T/e")" "1:0" "--explain with --sandbox off: nothing (it did not run confined)"

rm -f "$PROBE"
done_testing
