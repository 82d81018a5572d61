#!/usr/bin/env bash
# The git guard's reach: when it looks (after every process of the run is
# gone, before the run's temp dir is removed), and where (every repository
# of the workspace, not only the one holding it). Each attack is a plant
# run, then a plain git command in the place the plant aims at; the
# outside ($OUT) must be unchanged. A control (--sandbox off, or the
# guard off) shows each plant really works.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
tool_ok git || skip_all "git: $TOOL_WHY"

pwned() { [ -e "$OUT/pwned" ]; }
# repo DIR: a git repository with one commit of src/a.
repo() {
	mkdir -p "$1/src"
	(cd "$1" && git init -q && echo a >src/a && git add src/a && git commit -q -m init)
}
fresh() {
	chmod -R u+rwx "$WS" 2>/dev/null
	rm -rf "$WS" "$OUT" "$T/s.json"
	mkdir -p "$WS" "$OUT"
}
# An untracked git dir whose config runs a command on "git status", and a
# loop that keeps pointing src/.git at it: the plant the end must outlast.
evil_dir='mkdir -p evil/refs evil/objects && echo "ref: refs/heads/master" > evil/HEAD &&
	printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" > evil/config'
replant='while :; do [ -e src/.git ] || printf "gitdir: %s/evil\n" "$PWD" > src/.git; done'

# ---- the library's end while its command still runs ---------------------------------------
LIB=$TOP/$B/libcordon.so
libend() { # libend SECONDS -- CMD...: a library run ended before its command
	local pre=
	# A sanitized library's runtime must come first (make asan).
	pre=$(ldd "$LIB" 2>/dev/null | awk '/libasan/ { print $3 }')
	LD_PRELOAD=$pre "$PY" "$TOP/tests/helpers/libend.py" "$LIB" "$STATE" "$@"
}
if [ ! -e "$LIB" ]; then
	skip "the library run ended early: $LIB is not here (the unprivileged re-run copies the CLI only)"
else
	fresh
	repo "$WS"
	(cd "$WS" && sh -c "$evil_dir" sh "$OUT" && git config core.fsmonitor false)
	# control: src/.git naming the untracked git dir is a repository for git in src/
	(cd "$WS" && printf 'gitdir: %s/evil\n' "$WS" >src/.git && cd src && git status >/dev/null 2>&1)
	pwned
	ok $? "control: src/.git naming the untracked git dir makes git status in src/ run its command"
	rm -f "$OUT/pwned" "$WS/src/.git" "$WS"/src/.git.cordon-tampered-*

	out=$(cd "$WS" && libend 1 -- sh -c "$replant" 2>&1)
	sleep 0.5 # a survivor would plant again by now
	is "$(printf '%s\n' "$out" | sed -n 's/^end //p')" 0 \
		"library (auto): cordon_end with the command still planting neutralises it and succeeds"
	[ "$(printf '%s\n' "$out" | sed -n 's/^tampered //p')" -ge 1 ]
	ok $? "library: the plant is counted as tampered"
	(cd "$WS/src" && git status >/dev/null 2>&1)
	! pwned
	ok $? "library: after cordon_end, git status in src/ runs nothing (the command was gone before the guard looked)"
	[ ! -e "$WS/src/.git" ]
	ok $? "library: no src/.git is left after cordon_end"
	is "$(printf '%s\n' "$out" | sed -n 's/^exit //p')" 137 "library: the command not waited for was killed by the end (SIGKILL)"
fi

done_testing
