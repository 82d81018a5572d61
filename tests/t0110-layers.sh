#!/usr/bin/env bash
# The Linux layers around Landlock. Mount layer: metadata changes outside
# the writable set fail (EROFS), protected paths stay read-only and cannot
# be renamed away, /dev/shm is private, the command keeps its uid. seccomp
# layer: no keystroke injection into the terminal. When namespaces or
# seccomp are refused: Landlock only, the gaps say what is missing, and
# "required" refuses an explicit --protect it cannot enforce.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny

layers=$("$CORDON" probe --json | "$PY" -c 'import json,sys; print(" ".join(json.load(sys.stdin)["layers"]))')
have() { case " $layers " in *" $1 "*) return 0 ;; esac; return 1; }
must() { # must LAYER: skip the section, or fail in CI (CORDON_MUST_WORK=1)
	have "$1" && return 0
	if [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
		ok 1 "layer $1 must be available here (CORDON_MUST_WORK=1)"
	else
		skip "layer $1 is unavailable here"
	fi
	return 1
}

reset() {
	chmod -R u+rwx "$WS" 2>/dev/null
	rm -rf "$WS"
	find "$OUT" -mindepth 1 -delete
	mkdir -p "$WS"
	make_fixture "$OUT/target"
	rm -f "$T/s.json"
}

# meta NAME COMMAND: refused with the mount layer. The control runs first:
# unconfined, the command changes the fixture; where it cannot (this file
# system or user), "outside unchanged" would prove nothing and is skipped.
# Confined, the command leaves a marker after its attempt: without it
# cordon did not run the command, and the check fails.
meta() {
	local before after
	reset
	before=$(snapshot "$OUT/target")
	(cd "$WS" && crun --sandbox off -- sh -c "$2") >/dev/null 2>&1
	after=$(snapshot "$OUT/target")
	if [ "$before" = "$after" ]; then
		skip "$1: control: this file system or user cannot do it even unconfined"
		skip "$1: outside unchanged: not checked, the control could not change it"
		return
	fi
	ok 0 "$1: control: unconfined, it changes the fixture"
	reset
	before=$(snapshot "$OUT/target")
	(cd "$WS" && crun --status-file "$T/s.json" -- sh -c "$2; echo ran >ran") >/dev/null 2>&1
	if [ "$(cat "$WS/ran" 2>/dev/null)" != ran ]; then
		ok 1 "$1: outside unchanged (cordon did not run the command)"
	else
		unchanged "$1" "$OUT/target" "$before"
	fi
}

if must mount_namespace; then
	meta "chmod outside" "chmod 0600 '$OUT/target'"
	meta "utimes outside" "touch -d '2020-01-01' '$OUT/target'"
	for tool in setfattr chattr; do
		if ! tool_ok $tool; then
			skip "$tool outside: $TOOL_WHY"
			skip "$tool outside, control: $TOOL_WHY"
		elif [ $tool = setfattr ]; then
			meta "setxattr outside" "setfattr -n user.cordon -v x '$OUT/target'"
		else
			meta "chattr outside" "chattr +A '$OUT/target'"
		fi
	done
	if is_root; then
		meta "chown outside (root)" "chown 12345:12345 '$OUT/target'"
	else
		meta "chown outside (same owner)" "chown $(id -u):$(id -g) '$OUT/target'"
	fi
	reset
	(cd "$WS" && crun --status-file "$T/s.json" -- true)
	is "$(json_field "$T/s.json" status '"metadata_outside_not_restricted" in e["gaps"]')" false \
		"no metadata gap claimed with the mount layer"

	reset
	(cd "$WS" && crun -- sh -c 'id -u > uid; id -g > gid; echo x > mine; chmod 600 mine; touch -d 2020-01-01 mine')
	is "$?" 0 "metadata changes inside the workspace still work"
	is "$(cat "$WS/uid"):$(cat "$WS/gid")" "$(id -u):$(id -g)" "the command sees its own uid and gid"
	is "$(stat -c %u:%g "$WS/mine")" "$(id -u):$(id -g)" "files it creates belong to the real user"

	# /dev/shm is a tmpfs of the command's own: empty even when the
	# host's holds something, not the run's TMPDIR, gone afterwards.
	probe=cordon-shm-$$-$RANDOM
	echo host >"/dev/shm/$probe.host"
	(cd "$WS" && crun -- sh -c "echo x > /dev/shm/$probe && cat /dev/shm/$probe && ls -A /dev/shm &&
		stat -f -c %T /dev/shm && { [ -e \"\$TMPDIR/$probe\" ] || echo not-in-tmpdir; }" >"$T/o")
	is "$?:$(tr '\n' ' ' <"$T/o")" "0:x $probe tmpfs not-in-tmpdir " \
		"/dev/shm is writable, a private tmpfs, starts empty, and is not TMPDIR"
	[ ! -e "/dev/shm/$probe" ] && [ "$(cat "/dev/shm/$probe.host")" = host ]
	ok $? "the host's /dev/shm is untouched"
	rm -f "/dev/shm/$probe" "/dev/shm/$probe.host"
	(cd "$WS" && crun -- sh -c 'echo a > /dev/shm/one' && crun -- sh -c 'ls -A /dev/shm' >"$T/o")
	is "$?:$(cat "$T/o")" "0:" "each run gets a fresh /dev/shm"
	(cd "$WS" && crun -- python3 -c 'import multiprocessing as m; l = m.Lock(); q = m.Queue(); q.put(1); print(q.get())' >"$T/o" 2>&1)
	is "$?:$(cat "$T/o")" "0:1" "Python multiprocessing works"

	# Protected paths: .git/hooks and .git/config of the workspace.
	if tool_ok git; then
		reset
		(cd "$WS" && git init -q && git commit -q --allow-empty -m init && printf '#!/bin/sh\necho hook-ran > hook.out\n' >.git/hooks/post-commit && chmod +x .git/hooks/post-commit)
		(cd "$WS" && crun -- sh -c 'echo work > file && git add file && git commit -q -m work && git log --oneline | wc -l') >"$T/o"
		is "$?:$(cat "$T/o")" "0:2" "git add/commit work with hooks and config protected"
		is "$(cat "$WS/hook.out" 2>/dev/null)" hook-ran "the existing post-commit hook ran"
		hooks=$(snapshot "$WS/.git/hooks")
		config=$(snapshot "$WS/.git/config")
		attack() { # attack NAME COMMAND
			(cd "$WS" && crun --status-file "$T/s.json" -- sh -c "$2") >/dev/null 2>&1
			unchanged "$1: .git/hooks" "$WS/.git/hooks" "$hooks"
			unchanged "$1: .git/config" "$WS/.git/config" "$config"
			[ ! -e "$WS/.git/hooks/pre-commit" ]
			ok $? "$1: no pre-commit hook planted"
		}
		attack "write a hook" 'echo evil > .git/hooks/pre-commit'
		attack "append to config" 'printf "[core]\n\thooksPath = evil\n" >> .git/config'
		attack "rename .git away and copy it back" \
			'mv .git .git.old; cp -r .git.old .git; echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit'
		attack "rename hooks away" 'mv .git/hooks .git/hooks.old; mkdir .git/hooks; echo evil > .git/hooks/pre-commit'
		attack "remove hooks, link elsewhere" 'rm -rf .git/hooks; ln -s ../evil .git/hooks'
		attack "replace config by rename" 'echo "[core]" > c && mv -f c .git/config'
		attack "remove .git entirely" 'rm -rf .git; git init -q; echo evil > .git/hooks/pre-commit'
		is "$(json_field "$T/s.json" status '[p["enforced"] for p in e["protected"] if "/.git/" in p["path"]]')" "[true, true]" \
			"both default protections of git's are enforced"
		is "$(json_field "$T/s.json" status '"protected_paths_not_enforced" in e["gaps"]')" false \
			"no protection gap claimed"
		(cd "$WS" && crun --no-default-protect -- sh -c 'echo ok > .git/hooks/x') 2>/dev/null
		is "$?:$(cat "$WS/.git/hooks/x" 2>/dev/null)" "0:ok" "--no-default-protect lifts it"
		rm -f "$WS/.git/hooks/x"
		reset
		(cd "$WS" && git init -q)
		(cd "$WS" && crun -- git config user.name changed) 2>"$T/e"
		is "$?:$(grep -c 'could not write config file' "$T/e")" "4:1" \
			"git config fails with .git/config protected, as documented"
		(cd "$WS" && crun --no-default-protect --protect .git/hooks -- sh -c \
			'git config user.name changed && echo evil > .git/hooks/pre-commit') 2>/dev/null
		is "$(git -C "$WS" config user.name):$([ -e "$WS/.git/hooks/pre-commit" ] && echo planted)" \
			"changed:" "--no-default-protect --protect .git/hooks: config writable, hooks still not"

		# A fresh git init works (nothing to protect at start).
		reset
		(cd "$WS" && crun -- sh -c 'git init -q && echo a > a && git add a && git commit -q -m one && ls .git/hooks > /dev/null')
		is "$?" 0 "git init + commit in a workspace without .git"
	else
		skip "git with protected .git/hooks and .git/config: $TOOL_WHY"
	fi

	# Explicit --protect of a frozen verify input, and its parent.
	reset
	mkdir -p "$WS/spec"
	make_fixture "$WS/spec/expected.txt" "frozen"
	before=$(snapshot "$WS/spec")
	(cd "$WS" && crun --sandbox required --protect "$WS/spec/expected.txt" -- sh -c \
		'echo changed > spec/expected.txt; mv spec spec.old; mkdir spec; echo changed > spec/expected.txt; rm -f spec/expected.txt') >/dev/null 2>&1
	unchanged "--protect FILE: write, rename parent, remove" "$WS/spec" "$before"
	is "$(cat "$WS/spec/expected.txt")" frozen "the protected file still holds its content"
fi

if must seccomp; then
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ] && ! is_root; then
		skip "TIOCSTI is disabled system-wide (dev.tty.legacy_tiocsti=0)"
	else
		for v in plain high; do
			out=$(printf 'sleep 200\n' | "$HELPERS/pty-run" -- "$CORDON" run --state-dir "$STATE" -- "$HELPERS/tiocsti" "$v" | tr -d '\r')
			case $out in *"refused: Operation not permitted"*) ok 0 "TIOCSTI ($v) refused" ;;
			*) ok 1 "TIOCSTI ($v) refused"; diag "$out" ;; esac
			out=$(printf 'sleep 200\n' | "$HELPERS/pty-run" -- "$CORDON" run --sandbox off --state-dir "$STATE" -- "$HELPERS/tiocsti" "$v" | tr -d '\r')
			case $out in *injected*) ok 0 "TIOCSTI ($v): control: unconfined, it injects" ;;
			*) ok 1 "TIOCSTI ($v): control: unconfined, it injects"; diag "$out" ;; esac
		done
	fi
fi

# Fallback: namespaces refused -> Landlock only, gaps reported.
reset
mkdir -p "$WS/.git/hooks" && touch "$WS/.git/config"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" -- \
	sh -c "chmod 0600 '$OUT/target'; echo x > hooked; cp hooked .git/hooks/x") 2>/dev/null
is "$?" 0 "no namespaces: the run goes on (auto, default protections)"
is "$(json_field "$T/s.json" status 'e["applied"]')" true "no namespaces: still confined by Landlock"
is "$(json_field "$T/s.json" status '"mount_namespace" in e["layers"]')" false "no namespaces: no mount layer claimed"
is "$(json_field "$T/s.json" status '"metadata_outside_not_restricted" in e["gaps"] and "protected_paths_not_enforced" in e["gaps"]')" \
	true "no namespaces: metadata and protection gaps reported"
is "$(stat -c %a "$OUT/target")" 600 "no namespaces: the metadata gap is real (chmod went through)"
# The write went through during the run (the gap); the git guard moved
# the changed hooks dir aside when it ended (auto: the run still succeeds).
ls "$WS"/.git/hooks.cordon-tampered-*/x >/dev/null 2>&1 && [ ! -e "$WS/.git/hooks/x" ]
ok $? "no namespaces: the protection gap is real, and the planted hook is moved aside at the end"
is "$(json_field "$T/s.json" exit '[t["path"] for t in e["tampered"]]')" "[\"$WS/.git/hooks\"]" \
	"no namespaces: the exit event lists what was moved aside"
rm -f "$T/s.json"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --sandbox required --state-dir "$STATE" --status-file "$T/s.json" \
	--protect "$WS/.git/config" -- sh -c 'echo ran > ran') >/dev/null 2>"$T/e"
is "$?" 125 "no namespaces, required + explicit --protect: refused"
[ ! -e "$WS/ran" ]
ok $? "... the command did not run"
grep -q '^cordon: .*--protect' "$T/e"
ok $? "... stderr says why"
is "$(json_field "$T/s.json" status 'e["cause"]')" protect_not_enforceable "... cause protect_not_enforceable"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --sandbox required --state-dir "$STATE" -- sh -c 'echo ran > ran')
is "$?:$(cat "$WS/ran" 2>/dev/null)" "0:ran" "no namespaces, required, default protections only: runs, gap reported"

# Fallback: seccomp refused -> no terminal protection, gap reported.
rm -f "$T/s.json"
(cd "$WS" && "$DENY" noseccomp -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" -- true)
is "$(json_field "$T/s.json" status '"terminal_injection_not_blocked" in e["gaps"] and "seccomp" not in e["layers"]')" \
	true "no seccomp: terminal_injection_not_blocked reported"

# The layers change only the command's own namespaces: the caller's mount
# table is the same before and after runs in every situation (as root a
# mount in the wrong namespace would cover the caller's, e.g. its /proc).
mounts() { sort /proc/self/mountinfo; }
before=$(mounts)
(cd "$WS" && crun -- sh -c 'ls /proc >/dev/null; echo x > /dev/shm/x')
for mode in nons noseccomp; do
	(cd "$WS" && "$DENY" "$mode" -- "$CORDON" run --state-dir "$STATE" -- true) 2>/dev/null
done
(cd "$WS" && crun --test-max-abi 2 -- true)
if [ "$(mounts)" = "$before" ]; then
	ok 0 "the caller's mounts are unchanged after runs in every situation"
else
	ok 1 "the caller's mounts are unchanged after runs in every situation"
	diff <(printf '%s\n' "$before") <(mounts) | sed 's/^/#   /'
fi

done_testing
