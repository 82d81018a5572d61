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
has_words() { # has_words LIST WORD...: each WORD is a word of LIST
	local list=" $1 " w
	shift
	for w in "$@"; do
		case $list in
		*" $w "*) ;;
		*)
			diag "no $w in:$list"
			return 1
			;;
		esac
	done
}
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

# ---- a workspace that holds repositories (and is in none) -------------------------------------
DENY=$HELPERS/seccomp-deny
srun() { # srun [WRAP... --] ARGS: crun with a fresh status file
	rm -f "$T/s.json"
	crun --status-file "$T/s.json" "$@"
}
tampered() { json_field "$T/s.json" exit '" ".join(t["path"] for t in e["tampered"])'; }
multi() {
	fresh
	repo "$WS/proj1"
	repo "$WS/group/proj2"
	mkdir -p "$WS/notes" && echo n >"$WS/notes/n"
}
plant_cfg='git -C proj1 config core.fsmonitor "touch $1/pwned; false"'
plant_hook='printf "#!/bin/sh\ntouch %s/pwned\n" "$1" > group/proj2/.git/hooks/pre-commit && chmod +x group/proj2/.git/hooks/pre-commit'
later() { # the user's next git commands in each repository
	(cd "$WS/proj1" && git status >/dev/null 2>&1)
	(cd "$WS/group/proj2" && git commit -q --allow-empty -m later >/dev/null 2>&1)
}
multi
(cd "$WS" && crun --sandbox off -- sh -c "$plant_cfg; $plant_hook" sh "$OUT")
later
pwned
ok $? "control (--sandbox off): a config and a hook planted in repositories below the workspace run later"

for how in all nons; do
	wrap=()
	[ "$how" = nons ] && wrap=("$DENY" nons --)
	multi
	(cd "$WS" && "${wrap[@]}" "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" \
		-- sh -c "$plant_cfg; $plant_hook; echo ran" sh "$OUT") >"$T/o" 2>/dev/null
	is "$(cat "$T/o")" ran "multi-repo ($how): the command ran"
	later
	! pwned
	ok $? "multi-repo ($how): the later git status and commit in each repository run nothing"
	! git -C "$WS/proj1" config core.fsmonitor >/dev/null
	ok $? "multi-repo ($how): proj1's config has no fsmonitor after the run"
	if [ "$how" = all ]; then
		prot=$(json_field "$T/s.json" status '" ".join(p["path"] for p in e["protected"])')
		has_words "$prot" "$WS/proj1/.git/config" "$WS/group/proj2/.git/hooks"
		ok $? "multi-repo: both repositories' config and hooks are protected (start event)"
	else
		has_words "$(tampered)" "$WS/proj1/.git/config" "$WS/group/proj2/.git/hooks"
		ok $? "multi-repo (nons): both plants are moved aside and listed"
	fi
	rm -f "$OUT/pwned"
done

# A .git planted in a tracked directory of a repository below the workspace.
multi
(cd "$WS" && srun -- sh -c 'cd proj1/src && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
(cd "$WS/proj1/src" && git status >/dev/null 2>&1)
! pwned
ok $? "multi-repo: a repository planted in proj1/src is moved aside"
is "$(tampered)" "$WS/proj1/src/.git" "... and listed"

# Repositories the run makes: a clone is git's own work; a planted one is not.
multi
mkdir -p "$T/up" && (cd "$T/up" && git init -q && echo u >u && git add u && git commit -q -m u)
(cd "$WS" && srun -- sh -c 'git clone -q "$1" cloned && echo done' sh "$T/up") >"$T/o" 2>&1
is "$(tail -n 1 "$T/o"):$(tampered)" "done:" "multi-repo: a clone made in the run is kept, nothing tampered"
(cd "$WS" && srun -- sh -c 'git init -q made && git -C made config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
(cd "$WS/made" && git status >/dev/null 2>&1)
! pwned
ok $? "multi-repo: a repository made in the run with a program in its config: moved aside"
is "$(tampered)" "$WS/made/.git/config" "... its config listed"

# The search is bounded: past it, a gap names what was not searched, and
# the run still runs (also in required mode).
fresh
"$PY" -c '
import os, sys
for i in range(4200):
    os.makedirs(os.path.join(sys.argv[1], "tree", "d%d" % i))
' "$WS"
repo "$WS/a/b/deep" # three levels down: read after every directory of the second
(cd "$WS" && srun --sandbox required -- true)
is "$?" 0 "a workspace past the search's bound: the run runs (required)"
case " $(json_field "$T/s.json" status '" ".join(e["gaps"])') " in
*" git_search_incomplete "*) ok 0 "... gap git_search_incomplete" ;;
*) ok 1 "... gap git_search_incomplete" ;;
esac
is "$(json_field "$T/s.json" status 'len(e["git_unsearched"]) > 0')" true "... and git_unsearched names directories"
# The user's repository past the bound is not the run's: when the run
# makes the search reach it at the end, it is not judged as made in the run.
git -C "$WS/a/b/deep" config alias.st status
(cd "$WS" && srun --sandbox required -- sh -c 'rm -r tree/d1?? tree/d2?? && echo done') >"$T/o" 2>&1
is "$(tail -n 1 "$T/o"):$(tampered):$(git -C "$WS/a/b/deep" config alias.st)" "done::status" \
	"a repository past the search's bound at the start is left alone at the end"
repo "$WS/tree/d1/small" # found within the bound: guarded, no gap
rm -rf "$WS"/tree/d4*
(cd "$WS" && srun -- true)
is "$(json_field "$T/s.json" status '("git_search_incomplete" in e["gaps"], len(e["git_unsearched"]))')" "[false, 0]" \
	"a workspace within the bound: no gap"
case " $(json_field "$T/s.json" status '" ".join(p["path"] for p in e["protected"])') " in
*" $WS/tree/d1/small/.git/config "*) ok 0 "... its repositories are guarded" ;;
*) ok 1 "... its repositories are guarded" ;;
esac

# ---- a repository the run makes where the end's search does not see it ----------------------
# Each plant is a repository made in the run whose config runs a command
# on "git status"; the run then hides it from the end's search. A control
# (the same commands, unconfined, then a plain git status) shows the plant
# runs. After the run the plant is moved aside, or the run fails (exit
# 125) and names what the guard could not look at.
plant_new='git init -q "$2" && git -C "$2" config core.fsmonitor "touch $1/pwned; false"'
moved_names() { json_field "$T/s.json" exit '" ".join(t["path"] for t in e["tampered"] if t["moved_to"] is None)'; }
unlock() { chmod -R u+rwx "$WS" 2>/dev/null; }
# hidden NAME REPO CMD [EXPECT]: plant REPO, then CMD; EXPECT "moved" (the
# plant is moved aside) or a path the exit event must list as not moved.
hidden() {
	local name=$1 rel=$2 cmd=$3 want=$4 rc
	fresh
	(cd "$WS" && sh -c "$plant_new; $cmd" sh "$OUT" "$rel") >/dev/null 2>&1
	unlock
	(cd "$WS/$rel" && git status >/dev/null 2>&1)
	pwned
	ok $? "control ($name): the plant, unconfined, runs on git status"
	fresh
	(cd "$WS" && srun --on-tamper neutralise -- sh -c "$plant_new; $cmd" sh "$OUT" "$rel") >/dev/null 2>&1
	rc=$?
	unlock
	if [ "$want" = moved ]; then
		(cd "$WS/$rel" && git status >/dev/null 2>&1)
		! pwned
		ok $? "$name: the plant is moved aside: git status runs nothing"
		case " $(tampered) " in
		*" $WS/$rel/.git/config "*) ok 0 "... its config is listed" ;;
		*) ok 1 "... its config is listed"; diag "$(tampered)" ;;
		esac
	else
		is "$rc" 125 "$name: the run fails (exit 125, whatever --on-tamper says)"
		case " $(moved_names) " in
		*" $WS/$want "*) ok 0 "... the exit event lists $want, not moved" ;;
		*) ok 1 "... the exit event lists $want, not moved"; diag "$(tampered)" ;;
		esac
	fi
	rm -f "$OUT/pwned"
}
if is_root; then
	# Root reads a directory of mode 000: the search goes on.
	hidden "a parent made unreadable (root)" a/b/r 'chmod 000 a' moved
	skip "a parent made unreadable: root reads it anyway (checked above); the escape is an unprivileged user's"
else
	hidden "a parent made unreadable" a/b/r 'chmod 000 a' a
	hidden "the repository's top made unreadable" r 'chmod 000 r' r
	hidden "its .git made unreadable" r 'chmod 000 r/.git' r/.git/config
fi
# More directories than the end's search reads, made before the plant.
many='"$PY" -c "import os
for i in range(5000): os.mkdir(\"d%d\" % i)" && mkdir -p zz/y && git init -q zz/y/r && git -C zz/y/r config core.fsmonitor "touch $1/pwned; false"'
fresh
(cd "$WS" && PY=$PY sh -c "$many" sh "$OUT") >/dev/null 2>&1
(cd "$WS/zz/y/r" && git status >/dev/null 2>&1)
pwned
ok $? "control (many dirs): the plant, unconfined, runs on git status"
for mode in auto required; do
	fresh
	(cd "$WS" && PY=$PY srun --sandbox "$mode" --on-tamper neutralise -- sh -c "$many" sh "$OUT") >/dev/null 2>&1
	is "$?" 125 "many dirs ($mode): the run fails (exit 125): the end's search could not reach all"
	n=$(json_field "$T/s.json" exit 'len([t for t in e["tampered"] if t["moved_to"] is None])')
	[ "$n" -ge 2 ] && [ "$n" -le 17 ]
	ok $? "... the exit event lists the dirs left unread, not moved (up to 16, then the workspace: $n)"
	case " $(moved_names) " in
	*" $WS "*) ok 0 "... and the workspace for the rest" ;;
	*) ok 1 "... and the workspace for the rest" ;;
	esac
done
rm -f "$OUT/pwned"
# A run that makes fewer directories than that is clean.
fresh
(cd "$WS" && PY=$PY srun -- sh -c '"$PY" -c "import os
for i in range(3000): os.makedirs(\"t/d%d\" % i)" && echo done') >"$T/o" 2>&1
is "$(tail -n 1 "$T/o"):$(tampered)" "done:" "a run that makes 3000 directories: nothing tampered"
# The workspace made a repository itself: the search goes on below it.
hidden "the workspace made a repository" a/r 'git init -q .' moved
# node_modules is not searched (SECURITY.md: a named limit).
skip "a repository made in node_modules: not searched, a documented limit (SECURITY.md)"
# A workspace in a repository: a tracked directory made unreadable.
if is_root; then
	skip "a tracked directory made unreadable: root reads it anyway; the escape is an unprivileged user's"
else
	fresh
	repo "$WS"
	(cd "$WS" && srun -- sh -c 'git init -q src && git -C src config core.fsmonitor "touch $1/pwned; false" && chmod 000 src' sh "$OUT") >/dev/null 2>&1
	# The end gives the run's dir its owner's bits back (the agent-config
	# guard looks into what the run changed), so the plant is seen and
	# moved aside rather than listed unseen.
	is "$?:$(moved_names)" "0:" "a tracked directory made unreadable after a plant: given back, nothing left unseen (exit 0)"
	case " $(tampered) " in
	*" $WS/src/.git "*) ok 0 "... the plant is moved aside" ;;
	*) ok 1 "... the plant is moved aside"; diag "$(tampered)" ;;
	esac
	unlock
	(cd "$WS/src" && git status >/dev/null 2>&1)
	ok "$([ ! -e "$OUT/pwned" ] && echo 0 || echo 1)" "... git started there runs nothing"
fi

# ---- the index's directories: a copy kept in the state dir, the index's changes -------------
fresh
repo "$WS"
(cd "$WS" && srun -- true)
cache=$(find "$STATE/git" -type f 2>/dev/null | head -n 1)
[ -n "$cache" ]
ok $? "the index's directories are kept in the state dir"
printf 'garbage' >"$cache"
(cd "$WS" && srun -- sh -c 'cd src && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
(cd "$WS/src" && git status >/dev/null 2>&1)
! pwned
ok $? "a damaged copy is not trusted: the plant in src/ is still moved aside"
# A directory first tracked during the run.
fresh
repo "$WS"
(cd "$WS" && srun -- sh -c 'mkdir newdir && echo x > newdir/x && git add newdir && git commit -q -m new && cd newdir && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
(cd "$WS/newdir" && git status >/dev/null 2>&1)
! pwned
ok $? "a directory the run added to the index: a repository planted there is moved aside"
# The run leaves an index the guard cannot read: nothing can be called clean.
fresh
repo "$WS"
(cd "$WS" && srun -- sh -c 'mkdir newdir && echo x > newdir/x && git add newdir && printf "DIRCgarbage" > .git/index && cd newdir && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>"$T/err"
is "$?" 125 "an index the run made unreadable: the run fails (exit 125)"
case " $(tampered) " in
*" $WS/.git/index "*) ok 0 "... the index is listed as tampered" ;;
*) ok 1 "... the index is listed as tampered"; diag "$(tampered)" ;;
esac
# A split index at the start: read through its shared index.
fresh
repo "$WS"
if (cd "$WS" && git update-index --split-index 2>/dev/null && git status >/dev/null 2>&1 &&
	ls .git/sharedindex.* >/dev/null 2>&1); then
	(cd "$WS" && srun --sandbox required -- true)
	is "$?" 0 "a split index at the start: the run runs (required)"
	(cd "$WS" && srun -- sh -c 'cd src && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
	(cd "$WS/src" && git status >/dev/null 2>&1)
	! pwned
	ok $? "a split index at the start: the plant in src/ is moved aside"
else
	skip "git update-index --split-index did not make a shared index here"
fi

# ---- an embedded repository: a gitlink that no .gitmodules names ------------------------------
# git warns but adds it; "git status" at the top then runs git in it, so
# its config and hooks are as dangerous as a submodule's, yet the guard
# cannot make them read-only (it learns the gitlinks from the index,
# while the command runs): the end judges them when the run changed them.
embedded() { # embedded: the workspace a repository with lib/ an embedded one
	fresh
	repo "$WS"
	repo "$WS/lib"
	(cd "$WS" && git add lib 2>/dev/null && git commit -q -m embedded)
}
plant_embedded='printf "[core]\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" >> lib/.git/config'
embedded
(cd "$WS" && crun --sandbox off -- sh -c "$plant_embedded" sh "$OUT")
(cd "$WS" && git status >/dev/null 2>&1)
pwned
ok $? "control (--sandbox off): core.fsmonitor appended to an embedded repository's config runs on git status at the top"
embedded
(cd "$WS" && srun -- sh -c "$plant_embedded" sh "$OUT") 2>/dev/null
(cd "$WS" && git status >/dev/null 2>&1)
! pwned
ok $? "an embedded repository's config changed in place: put aside, git status at the top runs nothing"
case " $(tampered) " in
*" $WS/lib/.git/config "*) ok 0 "... lib/.git/config is listed as tampered" ;;
*) ok 1 "... lib/.git/config is listed as tampered"; diag "$(tampered)" ;;
esac
embedded
(cd "$WS" && srun -- sh -c 'printf "#!/bin/sh\ntouch %s/pwned\n" "$1" > lib/.git/hooks/pre-commit && chmod +x lib/.git/hooks/pre-commit' sh "$OUT") 2>/dev/null
(cd "$WS/lib" && git commit -q --allow-empty -m later >/dev/null 2>&1)
! pwned
ok $? "an embedded repository's hook written in the run: put aside, a later commit there runs nothing"
# Ordinary work in it is not a plant: nothing is put aside.
embedded
(cd "$WS" && srun -- sh -c 'cd lib && echo b > b && git add b && git commit -q -m b') 2>/dev/null
is "$(tampered)" "" "ordinary work in an embedded repository (a commit there): nothing is called tampered"
# A repository made in one run in an untracked dir, moved onto a new
# gitlink in the next (the plant's own times are older than that run).
embedded
(cd "$WS" && srun -- sh -c 'mkdir -p .cache/sub && cd .cache/sub && git init -q && echo s > s && git add s && git commit -q -m s && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
sleep 1.2
(cd "$WS" && srun -- sh -c 'mv .cache/sub sub && git update-index --add --cacheinfo "160000,$(git -C sub rev-parse HEAD),sub"') 2>/dev/null
(cd "$WS" && git status >/dev/null 2>&1)
! pwned
ok $? "a repository moved onto a gitlink the run added: its config is put aside, git status at the top runs nothing"

done_testing
