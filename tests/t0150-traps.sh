#!/usr/bin/env bash
# Traps: what a confined run leaves must not run or write outside later.
# Each attack has two steps: the run that plants, then the later step (a
# plain, unconfined git command, or a second cordon run); the outside
# ($OUT) must be unchanged after both. Controls show each attack works
# without cordon's guard (--sandbox off).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

DENY=$HELPERS/seccomp-deny
# newrepo: a fresh workspace holding a git repository with one commit.
newrepo() {
	chmod -R u+rwx "$WS" 2>/dev/null
	rm -rf "$WS" "$OUT" "$T/s.json"
	mkdir -p "$WS/src" "$OUT"
	(cd "$WS" && git init -q && echo a >src/a && git add src/a && git commit -q -m init)
}
# A git config that runs a command on "git status": the fsmonitor hook.
EVILCFG="[core]
	repositoryformatversion = 0
	fsmonitor = \"touch $OUT/pwned; false\""
pwned() { [ -e "$OUT/pwned" ]; }
# judged HOW CONTROL CONFINED: after a plant run with --sandbox HOW and the
# later git step, the control (off) ran the planted command, a confined run
# did not: one check, named CONTROL or CONFINED.
judged() {
	if [ "$1" = off ]; then
		pwned
		ok $? "$2"
	else
		! pwned
		ok $? "$3"
	fi
}
# srun: crun with a fresh status file, for the checks of its events.
srun() {
	rm -f "$T/s.json"
	crun --status-file "$T/s.json" "$@"
}
tampered() { json_field "$T/s.json" exit '" ".join(t["path"] for t in e["tampered"])'; }

tool_ok git || skip_all "git: $TOOL_WHY"

# ---- .git/commondir: git reads config and hooks from where it points --------
plant_commondir='mkdir -p evil/hooks evil/refs evil/objects && cp .git/HEAD evil/ &&
	printf "%s\n" "$EVILCFG" > evil/config && echo "$PWD/evil" > .git/commondir'
newrepo
(cd "$WS" && EVILCFG=$EVILCFG crun --sandbox off -- sh -c "$plant_commondir")
(cd "$WS" && git status >/dev/null 2>&1)
pwned
ok $? "control (--sandbox off): a planted .git/commondir makes a later git status run a command"

newrepo
(cd "$WS" && EVILCFG=$EVILCFG srun -- sh -c "$plant_commondir") 2>"$T/err"
rc=$?
(cd "$WS" && git status >/dev/null 2>&1)
! pwned
ok $? "confined (auto): the later git status runs nothing"
is "$rc" 0 "auto: the command's status is kept"
is "$(tampered)" "$WS/.git/commondir" "the exit event lists the planted commondir"
[ ! -e "$WS/.git/commondir" ] && [ "$(cat "$WS"/.git/commondir.cordon-tampered-*)" = "$WS/evil" ]
ok $? "it is moved aside under a name git never reads"
is "$(grep -c '^cordon: warning: the run left 1 file that a later program would run' "$T/err")" 1 "one warning line on stderr"

newrepo
(cd "$WS" && EVILCFG=$EVILCFG crun --sandbox required -- sh -c "$plant_commondir") >/dev/null 2>"$T/err"
is "$?:$(grep -c '^cordon: ' "$T/err")" "125:1" "required: the run fails (exit 125, one cordon: line)"
(cd "$WS" && git status >/dev/null 2>&1)
! pwned
ok $? "required: the later git status runs nothing"
newrepo
(cd "$WS" && EVILCFG=$EVILCFG srun --sandbox required -- sh -c "$plant_commondir") >/dev/null 2>&1
is "$?:$(json_field "$T/s.json" exit '[e["exit_code"], e["command_exit_code"]]')" "125:[125, 0]" \
	"required: the exit event says 125 (cordon's status), the command's own 0 beside it"
newrepo
(cd "$WS" && EVILCFG=$EVILCFG crun --sandbox required --on-tamper neutralise -- sh -c "$plant_commondir") >/dev/null 2>&1
is "$?" 0 "required --on-tamper neutralise: moved aside, the command's status kept"
(cd "$WS" && crun --on-tamper bogus -- true) 2>"$T/err"
is "$?:$(cat "$T/err")" "125:cordon: bad --on-tamper 'bogus' (want fail or neutralise)" "a bad --on-tamper value"

# A hook planted through commondir: the later git commit must not run it.
newrepo
(cd "$WS" && crun -- sh -c 'mkdir -p evil/hooks evil/refs evil/objects && cp .git/HEAD .git/config evil/ &&
	printf "#!/bin/sh\ntouch %s/pwned\n" "$1" > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit &&
	echo "$PWD/evil" > .git/commondir' sh "$OUT") 2>/dev/null
(cd "$WS" && git commit -q --allow-empty -m later >/dev/null 2>&1)
! pwned
ok $? "a pre-commit hook planted through commondir does not run on a later commit"

# ---- config.worktree, with extensions.worktreeConfig set by the user -----------
newrepo
(cd "$WS" && git config extensions.worktreeConfig true)
(cd "$WS" && EVILCFG=$EVILCFG srun -- sh -c 'printf "%s\n" "$EVILCFG" > .git/config.worktree') 2>/dev/null
(cd "$WS" && git status >/dev/null 2>&1)
! pwned
ok $? "config.worktree: a later git status runs nothing"
is "$(tampered)" "$WS/.git/config.worktree" "... it is listed as tampered"

# ---- a worktree's own config.worktree and commondir ---------------------------------
newrepo
(cd "$WS" && git config extensions.worktreeConfig true && git worktree add -q "$T/wt" 2>/dev/null)
(cd "$WS" && EVILCFG=$EVILCFG srun -- sh -c 'printf "%s\n" "$EVILCFG" > .git/worktrees/wt/config.worktree') 2>/dev/null
(cd "$T/wt" && git status >/dev/null 2>&1)
! pwned
ok $? "worktrees/wt/config.worktree: git status in that worktree runs nothing"
is "$(tampered)" "$WS/.git/worktrees/wt/config.worktree" "... it is listed as tampered"

# ---- info/attributes turning on a filter the user defined -----------------------------
newrepo
(cd "$WS" && git config filter.demo.clean "touch $OUT/pwned; cat")
(cd "$WS" && srun -- sh -c 'echo "* filter=demo" > .git/info/attributes; echo b > src/b') 2>/dev/null
(cd "$WS" && git add -A >/dev/null 2>&1)
! pwned
ok $? "info/attributes: a later git add runs no filter"
is "$(tampered)" "$WS/.git/info/attributes" "... it is listed as tampered"

# ---- a ".git" planted in a directory with tracked files ------------------------------------
plant_nested='cd src && git init -q && git config core.fsmonitor "touch $1/pwned; false"'
newrepo
(cd "$WS" && crun --sandbox off -- sh -c "$plant_nested" sh "$OUT")
[ -z "$(cd "$WS" && git status --porcelain)" ]
ok $? "control: git status at the top does not show a repository planted in src/"
(cd "$WS/src" && git status >/dev/null 2>&1)
pwned
ok $? "control (--sandbox off): git status inside src/ then runs its command"
newrepo
(cd "$WS" && srun -- sh -c "$plant_nested" sh "$OUT") 2>/dev/null
(cd "$WS/src" && git status >/dev/null 2>&1)
! pwned
ok $? "confined: the planted src/.git is moved aside, git status in src/ runs nothing"
is "$(tampered)" "$WS/src/.git" "... it is listed as tampered"

# ---- a tracked directory made a git dir of its own (a bare repository) --------------------
# Git takes a directory without a ".git" but with a HEAD, objects and refs
# (or a commondir naming a dir that has them) for a bare repository; the
# plant hides itself from "git status" at the top through info/exclude.
plant_bare='cd src && mkdir -p objects refs && echo "ref: refs/heads/main" > HEAD &&
	printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" > config &&
	printf "/src/HEAD\n/src/config\n/src/objects/\n/src/refs/\n" >> ../.git/info/exclude'
newrepo
(cd "$WS" && crun --sandbox off -- sh -c "$plant_bare" sh "$OUT")
[ -z "$(cd "$WS" && git status --porcelain)" ] && (cd "$WS/src" && git status >/dev/null 2>&1; true) && pwned
ok $? "control (--sandbox off): src/ made a bare repository, hidden at the top, runs its command"
newrepo
(cd "$WS" && srun -- sh -c "$plant_bare" sh "$OUT") 2>/dev/null
(cd "$WS/src" && git status >/dev/null 2>&1)
! pwned
ok $? "confined: src/ made a bare repository: its HEAD moved aside, git status in src/ runs nothing"
is "$(tampered)" "$WS/src/HEAD" "... its HEAD is listed as tampered"
# The same through a commondir naming an untracked dir that has the rest.
plant_common='mkdir -p .cache/g/objects .cache/g/refs && printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../..\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" > .cache/g/config &&
	cd src && echo "ref: refs/heads/main" > HEAD && echo ../.cache/g > commondir'
# (git takes src/ for a bare repository then: whether it is one is the check)
for how in off auto; do
	newrepo
	(cd "$WS" && srun --sandbox "$how" -- sh -c "$plant_common" sh "$OUT") 2>/dev/null
	got=$(cd "$WS/src" && git rev-parse --absolute-git-dir 2>/dev/null)
	if [ "$how" = off ]; then
		is "$got" "$WS/src" "control (--sandbox off): src/ made a git dir through a commondir is a repository of its own"
	else
		is "$got:$(tampered)" "$WS/.git:$WS/src/HEAD" "confined: src/ made a git dir through a commondir: the workspace's repository again, its HEAD listed"
	fi
done
# The workspace itself, a directory of the repository above it.
plant_ws='mkdir -p objects refs && echo "ref: refs/heads/main" > HEAD &&
	printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" > config'
for how in off auto; do
	newrepo
	(cd "$WS/src" && srun --sandbox "$how" -w "$WS/src" -- sh -c "$plant_ws" sh "$OUT") 2>/dev/null
	(cd "$WS/src" && git status >/dev/null 2>&1)
	judged "$how" "control (--sandbox off): the workspace (src/ of a repository) made a bare repository runs its command" "confined: the workspace (src/ of a repository) made a bare repository: git status there runs nothing"
	if [ "$how" != off ]; then
		is "$(tampered)" "$WS/src/HEAD" "... its HEAD is listed as tampered"
	fi
done
# Ordinary work in a repository that tracks a bare repository as a test fixture.
newrepo
(cd "$WS" && git init -q --bare src/fixture.git && git add -f src/fixture.git && git commit -q -m fixture)
sleep 0.2 # made before the run, past the guard's 50 ms of slack
(cd "$WS" && srun -- sh -c 'echo b > src/b && git add src/b && git commit -q -m b && git -C src/fixture.git rev-parse --is-bare-repository') >"$T/o" 2>&1
is "$(tail -n 1 "$T/o"):$(tampered)" "true:" "a tracked bare fixture left alone: nothing tampered"

# ---- linked worktrees inside the workspace: their tracked directories ---------------------
for how in off auto; do
	newrepo
	(cd "$WS" && echo /wt/ >>.git/info/exclude && git worktree add -q wt -b feat 2>/dev/null)
	(cd "$WS" && srun --sandbox "$how" -- sh -c 'cd wt/src && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null
	(cd "$WS/wt/src" && git status >/dev/null 2>&1)
	judged "$how" "control (--sandbox off): a .git planted in a tracked directory of a linked worktree runs its command" "a .git planted in a tracked directory of a linked worktree: moved aside"
	if [ "$how" != off ]; then
		is "$(tampered)" "$WS/wt/src/.git" "... it is listed as tampered"
	fi
done

# ---- submodules: the module's config and hooks -----------------------------------------------
newrepo
mkdir -p "$T/up" && (cd "$T/up" && git init -q && echo u >u && git add u && git commit -q -m u)
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up" sub >/dev/null 2>&1 &&
	git commit -q -m sub); then
	subcfg=$(cat "$WS/.git/modules/sub/config")
	for how in all nons; do
		wrap=()
		[ "$how" = nons ] && wrap=("$DENY" nons --)
		(cd "$WS" && EVILCFG=$EVILCFG "${wrap[@]}" "$CORDON" run --state-dir "$STATE" -- sh -c \
			'git config --file .git/modules/sub/config core.fsmonitor "touch $1/pwned; false"; printf "#!/bin/sh\ntouch %s/pwned\n" "$1" > .git/modules/sub/hooks/pre-commit; chmod +x .git/modules/sub/hooks/pre-commit' sh "$OUT") >/dev/null 2>&1
		(cd "$WS/sub" && git status >/dev/null 2>&1 && git commit -q --allow-empty -m x >/dev/null 2>&1)
		! pwned
		ok $? "submodule config and hooks ($how): later git status and commit in it run nothing"
		is "$(cat "$WS/.git/modules/sub/config")" "$subcfg" "submodule config ($how): as it was"
	done
	# Ordinary use: update a submodule to another commit inside the run.
	(cd "$T/up" && echo v >v && git add v && git commit -q -m v)
	(cd "$WS" && srun -- sh -c \
		'cd sub && git -c protocol.file.allow=always fetch -q origin 2>&1 && git checkout -q FETCH_HEAD && cd .. && git add sub && git commit -q -m bump && git submodule update -q 2>&1 && echo done') >"$T/o" 2>&1
	is "$(tail -n 1 "$T/o"):$(tampered)" "done:" "git submodule update inside the run works, nothing tampered"
else
	skip "git submodule add from a local path does not work here"
fi

# ---- ordinary git use inside the run: nothing flagged -----------------------------------------
newrepo
git init -q --bare "$T/remote.git" && (cd "$WS" && git push -q "$T/remote.git" HEAD:main 2>/dev/null)
(cd "$WS" && srun -- sh -c '
	set -e
	base=$(git symbolic-ref --short HEAD)
	git checkout -q -b feature
	echo b > src/b && git add src/b && git commit -q -m b
	echo c > src/c && git stash -q -u && git stash pop -q && rm src/c
	git checkout -q "$base"
	echo d > src/d && git add src/d && git commit -q -m d
	git checkout -q feature && git rebase -q "$base"
	git fetch -q "$1" main
	git worktree add -q wt-inside
	echo ok' sh "$T/remote.git") >"$T/o" 2>&1
is "$(tail -n 1 "$T/o"):$(tampered)" "ok:" "checkout, commit, stash, rebase, fetch, worktree add: work, nothing tampered"
rm -rf "$WS" && mkdir -p "$WS"
(cd "$WS" && srun -- sh -c 'git init -q && echo x > f && git add f && git commit -q -m x && git log --oneline | wc -l') >"$T/o" 2>&1
is "$(cat "$T/o"):$(tampered)" "1:" "git init + commit in a workspace without .git: works, nothing tampered"
rm -rf "$WS" && mkdir -p "$WS"
(cd "$WS" && EVILCFG=$EVILCFG srun -- sh -c 'git init -q && printf "%s\n" "$EVILCFG" >> .git/config') 2>/dev/null
(cd "$WS" && git status >/dev/null 2>&1)
! pwned
ok $? "a fresh .git whose config runs a command: a later git status runs nothing"
is "$(tampered)" "$WS/.git/config" "... its config is listed as tampered"

# ---- an attacker's review: the guard itself must not be turned against the user ----
# (it runs unconfined, on names the command chose)
newrepo
echo v >"$OUT/victimfile"
(cd "$WS" && crun -- sh -c 'mkdir -p .git/worktrees/x && echo "$1/../outside/victimfile" > .git/worktrees/x/gitdir' sh "$WS") 2>/dev/null
is "$(cat "$OUT/victimfile" 2>/dev/null):$(ls "$OUT")" "v:victimfile" "a worktree gitdir naming ../outside: nothing outside is moved"
newrepo
mkdir -p "$OUT/victimdir/sub" && echo p >"$OUT/victimdir/sub/f"
long=$("$PY" -c "import sys; w=sys.argv[1]; t='/../outside/victimdir'; print(w + '/.' * ((4080 - len(w) - len(t)) // 2) + t, end='')" "$WS")
(cd "$WS" && crun -- sh -c 'mkdir -p .git/worktrees/y && printf %s "$1" > .git/worktrees/y/gitdir' sh "$long") 2>/dev/null
is "$(cat "$OUT/victimdir/sub/f" 2>/dev/null)" p "a gitdir too long to move aside: nothing outside is removed"
newrepo
echo '# user' >"$HOME/.bashrc"
(cd "$WS" && crun -- sh -c 'mkdir -p .git/worktrees/x lurk && printf "gitdir: %s/.git/worktrees/x\necho pwned > %s/pwned\n" "$1" "$2" > lurk/.bashrc && ln -s lurk link && echo "$1/link/.bashrc" > .git/worktrees/x/gitdir' sh "$WS" "$OUT") 2>/dev/null
(cd "$WS" && crun -- sh -c 'ln -sfn "$1" link' sh "$HOME") 2>/dev/null
is "$(cat "$HOME/.bashrc")" "# user" "a worktree gitdir through a symlink swapped between runs: ~/.bashrc untouched"
newrepo
printf '#!/bin/sh\ntrue\n' >"$WS/.git/hooks/pre-commit" && chmod +x "$WS/.git/hooks/pre-commit"
(cd "$WS" && crun -- sh -c 'ln -s . a && printf "[submodule \"a\"]\n\tpath = a\n" > .gitmodules') 2>/dev/null
[ -x "$WS/.git/hooks/pre-commit" ] && [ -f "$WS/.git/config" ]
ok $? "a .gitmodules path through a symlink to the top: the user's hooks and config stay"
newrepo
(cd "$WS" && crun -- sh -c 'ln -s . a; for i in $(seq 60); do printf "[submodule \"s$i\"]\n\tpath = a\n"; done > .gitmodules; cd src && git init -q && git config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") 2>/dev/null &
gp=$!
for _ in $(seq 300); do kill -0 "$gp" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$gp" 2>/dev/null; then
	kill -9 "$gp"
	ok 1 "sixty .gitmodules paths through a symlink loop: the end check finishes"
else
	ok 0 "sixty .gitmodules paths through a symlink loop: the end check finishes"
fi
wait "$gp" 2>/dev/null
(cd "$WS/src" && git status >/dev/null 2>&1)
! pwned
ok $? "... and the repository planted in src/ is still moved aside"

# The index cannot be made to hide a planted .git: split, or a symlink.
for how in split symlink; do
	newrepo
	case $how in
	split) blind='git update-index --split-index' ;;
	symlink) blind='mv .git/index .git/index.real && ln -s index.real .git/index' ;;
	esac
	(cd "$WS" && srun -- sh -c "$blind; cd src && git init -q && git config core.fsmonitor \"touch $OUT/pwned; false\"") 2>/dev/null
	(cd "$WS/src" && git status >/dev/null 2>&1)
	! pwned
	ok $? "index made unreadable ($how): the planted src/.git is still moved aside"
done

# A comment after a .gitmodules path does not hide the submodule.
newrepo
mkdir -p "$T/up2" && (cd "$T/up2" && git init -q && git commit -q --allow-empty -m u)
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up2" sub/x >/dev/null 2>&1 && git commit -q -m sub &&
	git submodule deinit -q -f sub/x >/dev/null 2>&1); then
	(cd "$WS" && srun -- sh -c 'git init -q --separate-git-dir .git/evil sub/y && rm -rf sub/x && mv sub/y sub/x && printf "[core]\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" >> .git/evil/config && sed -i "s|path = sub/x|path = sub/x  # vendored|" .gitmodules' sh "$OUT") 2>/dev/null
	(cd "$WS" && git status >/dev/null 2>&1; cd sub/x 2>/dev/null && git status >/dev/null 2>&1)
	! pwned
	ok $? "a .gitmodules path with a trailing comment: the planted submodule .git is caught"
else
	skip "git submodule add/deinit from a local path does not work here"
fi

# Inside a submodule's checkout: a .git planted in a directory it tracks.
newrepo
mkdir -p "$T/up4/lib/deep" && (cd "$T/up4" && git init -q && echo f >lib/deep/f && git add -A && git commit -q -m u)
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up4" mod >/dev/null 2>&1 && git commit -q -m sub); then
	plant_sub='cd mod/lib && git init -q . && git config core.fsmonitor "touch $1/pwned; false"'
	cp -a "$WS" "$T/ws-copy"
	(cd "$WS" && crun --sandbox off -- sh -c "$plant_sub" sh "$OUT") 2>/dev/null
	(cd "$WS/mod/lib" && git status >/dev/null 2>&1)
	pwned
	ok $? "control (--sandbox off): a .git planted in a directory a submodule tracks runs its command"
	rm -rf "$WS" "$OUT" && mv "$T/ws-copy" "$WS" && mkdir -p "$OUT"
	(cd "$WS" && srun -- sh -c "$plant_sub" sh "$OUT") 2>/dev/null
	(cd "$WS/mod/lib" && git status >/dev/null 2>&1)
	! pwned
	ok $? "a .git planted in a directory a submodule tracks: moved aside"
	is "$(tampered)" "$WS/mod/lib/.git" "... it is listed as tampered"
	# A UTF-8 byte order mark before .gitmodules' first line: git skips it, so must the guard.
	(cd "$WS" && srun -- sh -c 'printf "\357\273\277" > .gm && cat .gitmodules >> .gm && cat .gm > .gitmodules && rm .gm') 2>/dev/null
	is "$?:$(tampered)" "0:" "a byte order mark put before .gitmodules: nothing tampered"
	(cd "$WS" && srun -- sh -c 'mkdir -p .cache && git clone -q --bare "$2" .cache/g && printf "[core]\n\tbare = false\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" >> .cache/g/config && echo "gitdir: ../.cache/g" > mod/.git' sh "$OUT" "$T/up4") 2>/dev/null
	(cd "$WS" && git status >/dev/null 2>&1)
	! pwned
	ok $? "... the submodule's .git file is still guarded: a later git status runs nothing"
	# A .gitmodules the guard cannot read: the run that made it fails, the next is refused.
	newrepo
	(cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up4" mod >/dev/null 2>&1 && git commit -q -m sub)
	(cd "$WS" && srun --sandbox required -- sh -c 'printf "[submodule \"x\"]\n\turl = %s\n" "$(head -c 5000 /dev/zero | tr "\0" a)" >> .gitmodules') >/dev/null 2>"$T/err"
	is "$?:$(tampered)" "125:$WS/.gitmodules" "a .gitmodules made unreadable to the guard: the run fails, listed"
	(cd "$WS" && crun -- true) 2>"$T/err"
	is "$?:$(grep -c '^cordon: cannot guard the submodules of' "$T/err")" "125:1" "... the next run is refused, one line saying why"
else
	skip "git submodule add from a local path does not work here"
fi

# A submodule whose name starts with ".": its git dir is guarded too.
newrepo
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q --name .vend "$T/up4" vend >/dev/null 2>&1 &&
	git commit -q -m sub && git submodule deinit -q -f vend >/dev/null 2>&1 && rm -rf .git/modules/.vend); then
	(cd "$WS" && srun -- sh -c 'git clone -q --separate-git-dir .git/modules/.vend "$2" "$TMPDIR/w" &&
		printf "#!/bin/sh\ntouch %s/pwned\n" "$1" > .git/modules/.vend/hooks/post-checkout && chmod +x .git/modules/.vend/hooks/post-checkout' sh "$OUT" "$T/up4") 2>/dev/null
	(cd "$WS" && git -c protocol.file.allow=always submodule update -q --init >/dev/null 2>&1)
	! pwned
	ok $? "a submodule named .vend: a hook planted in its git dir does not run"
else
	skip "git submodule add --name from a local path does not work here"
fi

# ---- a second review: a submodule's directory, a sparse index, a repository moved in ----
# Each with its control (--sandbox off), then confined: a later git in
# that directory must not take it for a repository of the run's making.
newrepo
mkdir -p "$T/up5/lib" && (cd "$T/up5" && git init -q && echo y >lib/y && git add -A && git commit -q -m u)
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up5" sub >/dev/null 2>&1 && git commit -q -m sub &&
	git submodule deinit -q -f sub >/dev/null 2>&1 && rm -rf .git/modules/sub); then
	cp -a "$WS" "$T/ws-sub"
	for how in off auto; do
		rm -rf "$WS" && cp -a "$T/ws-sub" "$WS" && sleep 0.1
		(cd "$WS" && srun --sandbox "$how" -- sh -c 'cd sub && mkdir -p objects refs && echo "ref: refs/heads/main" > HEAD &&
			printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n" > config') 2>/dev/null
		got=$(cd "$WS/sub" && git rev-parse --absolute-git-dir 2>/dev/null)
		if [ "$how" = off ]; then
			is "$got" "$WS/sub" "control (--sandbox off): an uninitialised submodule's directory made a repository of its own"
		else
			is "$got:$(tampered)" "$WS/.git:$WS/sub/HEAD" "confined: a submodule's directory made a bare git dir: its HEAD moved aside"
		fi
	done
	# Ordinary use: a submodule the user registered, checked out inside the run.
	rm -rf "$WS" && cp -a "$T/ws-sub" "$WS" && (cd "$WS" && git submodule init -q)
	(cd "$WS" && srun -- sh -c 'git -c protocol.file.allow=always submodule update -q 2>&1 && echo done') >"$T/o" 2>&1
	is "$(tail -n 1 "$T/o"):$(tampered):$(cat "$WS/sub/lib/y" 2>/dev/null)" "done::y" "git submodule update of a registered submodule inside the run: works, nothing tampered"
	rm -rf "$T/ws-sub"
else
	skip "git submodule add/deinit from a local path does not work here"
	skip "git submodule add/deinit from a local path does not work here"
	skip "git submodule add/deinit from a local path does not work here"
fi
# A sparse index: one entry for src/, nothing listed below it.
plant_sparse='set -e; S="-c core.sparseCheckout=true -c core.sparseCheckoutCone=true -c index.sparse=true"
	printf "/*\n!/*/\n" > .git/info/sparse-checkout
	git update-index -q --refresh || true
	git $S read-tree -mu HEAD
	git archive HEAD src | tar x
	rm .git/info/sparse-checkout
	mkdir -p src/deep && git init -q src/deep && git -C src/deep config core.fsmonitor "touch $1/pwned; false"'
for how in off auto; do
	newrepo
	(cd "$WS" && mkdir -p src/deep && echo b >src/deep/b && git add -A && git commit -q -m deep)
	(cd "$WS" && srun --sandbox "$how" -- sh -c "$plant_sparse" sh "$OUT") >/dev/null 2>&1
	(cd "$WS/src/deep" && git status >/dev/null 2>&1)
	judged "$how" "control (--sandbox off): a repository planted below a sparse index's directory entry runs its command" "confined: a sparse index does not hide a repository planted below its directory entry"
done
# A repository that was elsewhere (an ignored directory) moved into a
# tracked directory: its .git keeps its old times, its directory does not.
plant_move='set -e; mv src src.o; mv vendor/foo src; rm -rf src/u; printf "[core]\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" >> src/.git/config; mv src.o/a src/; rmdir src.o'
for how in off auto; do
	newrepo
	(cd "$WS" && echo vendor/ >>.git/info/exclude && mkdir vendor && git clone -q "$T/up" vendor/foo 2>/dev/null)
	sleep 0.2
	(cd "$WS" && srun --sandbox "$how" -- sh -c "$plant_move" sh "$OUT") >/dev/null 2>&1
	(cd "$WS/src" && git status >/dev/null 2>&1)
	judged "$how" "control (--sandbox off): a repository moved into a tracked directory runs its command" "confined: a repository moved into a tracked directory: its .git moved aside"
done

# ---- a third review: a parent moved in, a .git symlink, a gitdir through a symlink ----------
# A repository staged by one run in an excluded directory, moved into place
# with its tracked parent by the next (its .git and directory keep old times).
for how in off auto; do
	newrepo
	(cd "$WS" && mkdir -p src/b && echo f >src/b/f && git add -A && git commit -q -m b)
	(cd "$WS" && srun --sandbox "$how" -- sh -c 'echo /.cache/ >> .git/info/exclude; mkdir -p .cache && cp -a src .cache/src && git init -q .cache/src/b && git -C .cache/src/b config core.fsmonitor "touch $1/pwned; false"' sh "$OUT") >/dev/null 2>&1
	sleep 0.2
	(cd "$WS" && srun --sandbox "$how" -- sh -c 'mv src .cache/old && mv .cache/src src') >/dev/null 2>&1
	(cd "$WS/src/b" && git status >/dev/null 2>&1)
	judged "$how" "control (--sandbox off): a repository staged by one run and moved in with its parent by the next runs its command" "confined: a repository moved in with its parent: its .git moved aside"
done
# The workspace a directory of the repository, a .git symlink planted there.
for how in off auto; do
	newrepo
	(cd "$WS/src" && srun --sandbox "$how" -w "$WS/src" -- sh -c 'mkdir -p n/ev/objects n/ev/refs && echo "ref: refs/heads/main" > n/ev/HEAD && printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" > n/ev/config && ln -s n/ev .git' sh "$OUT") >/dev/null 2>&1
	(cd "$WS/src" && git status >/dev/null 2>&1)
	judged "$how" "control (--sandbox off): a .git symlink planted in the workspace runs its command" "confined: a .git symlink planted in the workspace: moved aside"
done
# A registered submodule not checked out: its .git file naming a dir under
# modules/ through a symlink and "..", which the kernel resolves elsewhere.
newrepo
mkdir -p "$T/up6" && (cd "$T/up6" && git init -q && echo u >u && git add u && git commit -q -m u)
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up6" sub >/dev/null 2>&1 && git commit -q -m sub &&
	git submodule deinit -q -f sub >/dev/null 2>&1 && rm -rf .git/modules/sub && git submodule init -q); then
	cp -a "$WS" "$T/ws-six"
	plant_link='mkdir -p .git/modules/foo && echo "ref: refs/heads/main" > .git/modules/foo/HEAD &&
		mkdir -p .git/x/evil/objects .git/x/evil/refs .git/x/evil/tgt && echo "ref: refs/heads/main" > .git/x/evil/HEAD &&
		printf "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s/pwned; false\"\n" "$1" > .git/x/evil/config &&
		ln -s ../../x/evil/tgt .git/modules/foo/L && echo "gitdir: ../.git/modules/foo/L/.." > sub/.git'
	for how in off auto; do
		rm -rf "$WS" && cp -a "$T/ws-six" "$WS" && rm -f "$OUT/pwned"
		(cd "$WS" && srun --sandbox "$how" -- sh -c "$plant_link" sh "$OUT") >/dev/null 2>&1
		(cd "$WS" && git status >/dev/null 2>&1)
		judged "$how" "control (--sandbox off): a submodule .git file through a symlink and .. runs its command" "confined: a submodule .git file through a symlink and ..: moved aside"
	done
	rm -rf "$T/ws-six"
else
	skip "git submodule add/deinit/init from a local path does not work here"
	skip "git submodule add/deinit/init from a local path does not work here"
fi
# Ordinary work that a walk of every directory used to flag: a repository
# made in the run, or kept with a sparse index, and throwaway repositories
# in an ignored directory.
rm -rf "$WS" && mkdir -p "$WS"
(cd "$WS" && srun -- sh -c 'git init -q && printf "tmp/\n" > .gitignore && git add . && git commit -q -m i && mkdir -p tmp && git init -q tmp/scratch && echo done') >"$T/o" 2>&1
is "$(tail -n 1 "$T/o"):$(tampered)" "done:" "a repository made in the run, then one in its ignored tmp/: nothing tampered"
newrepo
(cd "$WS" && mkdir -p docs && echo d >docs/d && printf "tmp/\n" >.gitignore && git add -A && git commit -q -m d &&
	git sparse-checkout set --cone --sparse-index src >/dev/null 2>&1)
if [ -f "$WS/.git/info/sparse-checkout" ]; then
	(cd "$WS" && srun -- sh -c 'git init -q tmp/x && mkdir -p src/t && git init -q src/t/untracked && echo done') >"$T/o" 2>&1
	is "$(tail -n 1 "$T/o"):$(tampered)" "done:" "a sparse index, throwaway repositories in ignored and untracked dirs: nothing tampered"
else
	skip "git sparse-checkout does not work here"
fi

# core.worktree of a submodule through a symlink, or with a CR.
newrepo
mkdir -p "$T/up3" && (cd "$T/up3" && git init -q && git commit -q --allow-empty -m u)
if (cd "$WS" && git -c protocol.file.allow=always submodule add -q "$T/up3" sub >/dev/null 2>&1 && git commit -q -m sub); then
	(cd "$WS" && srun -- sh -c 'ln -s "$1" .git/modules/wt; git config -f .git/modules/sub/config core.worktree ../wt' sh "$HOME") 2>/dev/null
	is "$(git -C "$WS/sub" rev-parse --show-toplevel 2>/dev/null)" "$WS/sub" "core.worktree through a symlink to ~: put back"
	(cd "$WS" && srun -- sh -c 'printf "[core]\n\tworktree = %s/..\r\n" "$1" >> .git/modules/sub/config' sh "$WS") 2>/dev/null
	is "$(git -C "$WS/sub" rev-parse --show-toplevel 2>/dev/null)" "$WS/sub" "core.worktree with a CR: put back"
else
	skip "git submodule add from a local path does not work here"
fi

# ---- cache symlinks ----------------------------------------------------------------------------
rm -rf "$WS" "$OUT" && mkdir -p "$WS" "$OUT/dir"
export CARGO_HOME="$WS/.cargo"
(cd "$WS" && srun -- sh -c 'mkdir -p .cargo && rm -rf .cargo/registry && ln -s "$1" .cargo/registry' sh "$OUT/dir")
(cd "$WS" && srun -- sh -c 'echo evil > .cargo/registry/planted' 2>/dev/null)
[ ! -e "$OUT/dir/planted" ]
ok $? "CARGO_HOME in the workspace, registry replaced by a symlink: the next run cannot write through it"
is "$(json_field "$T/s.json" status '[c["state"] for c in e["caches"] if c["path"].endswith("registry")]')" '["redirected"]' \
	"... the cache is reported redirected, not granted"
is "$(json_field "$T/s.json" status '[w for w in e["writable"] if w.startswith("'"$OUT"'")]')" "[]" \
	"... nothing outside is writable"
rm -rf "$WS/.cargo"
(cd "$WS" && srun -- true)
is "$(json_field "$T/s.json" status '[c["state"] for c in e["caches"] if c["name"] == "cargo"]')" '["inside", "inside", "inside"]' \
	"a cache inside the workspace gets no grant of its own"
# A legitimately symlinked cargo home outside every writable tree still works.
mkdir -p "$T/disk/cargo/registry" && ln -s "$T/disk/cargo" "$HOME/.cargo-link"
export CARGO_HOME="$HOME/.cargo-link"
(cd "$WS" && srun -- sh -c 'echo ok > "$CARGO_HOME/registry/x"')
got=$(cd "$WS" && srun -- cat "$CARGO_HOME/registry/x" 2>&1)
is "$got:$(ls -A "$T/disk/cargo/registry")" "ok:" \
	"a symlinked CARGO_HOME outside the workspace keeps working (seen through its overlay: the next run reads the write, the cache itself unchanged)"
unset CARGO_HOME

# ---- status file and state dir --------------------------------------------------------------------
# The status events must be where no command can reach them: a status file
# inside a writable tree is refused (the command could rename it and leave
# a forged exit event at its name), whether named or open on the status fd.
rm -rf "$OUT" && mkdir -p "$OUT" && echo keep >"$OUT/target"
forge='mv "$1" "$1.real"; echo "{\"event\":\"bash_sandbox_exit\",\"exit_code\":0,\"tampered\":[]}" > "$1"; exit 3'
mkdir -p "$T/ctl" && echo '{"event":"bash_sandbox_status"}' >"$T/ctl/s.jsonl"
sh -c "$forge" sh "$T/ctl/s.jsonl"
is "$(grep -c '"exit_code":0' "$T/ctl/s.jsonl")" 1 "control: a command that can write the status file's dir forges its exit event"
rm -rf "$T/ctl"
(cd "$WS" && crun --status-file s.jsonl -- sh -c "$forge" sh s.jsonl) >"$T/o" 2>"$T/err"
is "$?:$(cat "$T/o"):$(ls -A "$WS")" "125::" "a status file in the workspace: refused, nothing run, nothing made"
is "$(cat "$T/err")" "cordon: refusing status file s.jsonl: it lies inside $WS, which the command may write (it could replace the file and forge the events); write the events outside every writable tree" \
	"... with one line saying why"
(cd "$WS" && crun --status-fd 3 -- sh -c "$forge" sh s.jsonl 3>"$WS/s.jsonl") >"$T/o" 2>"$T/err"
is "$?:$(cat "$T/o"):$(ls -A "$WS"):$(stat -c %s "$WS/s.jsonl")" "125::s.jsonl:0" \
	"a status fd on a file in the workspace (3>ws/s.jsonl): refused, the file untouched"
is "$(wc -l <"$T/err"):$(grep -c "^cordon: refusing status fd 3: its file $WS/s.jsonl lies inside $WS" "$T/err")" "1:1" "... with one line saying why"
rm -f "$WS/s.jsonl"
mkdir -p "$T/extra" && echo keep >"$T/extra-file"
(cd "$WS" && crun --allow-write "$T/extra" --status-file "$T/extra/s.jsonl" -- true) 2>/dev/null
is "$?:$(ls -A "$T/extra")" "125:" "a status file in an --allow-write tree: refused"
before=$(snapshot "$T/extra-file")
(cd "$WS" && crun --allow-write "$T/extra-file" --status-file "$T/extra-file" -- true) 2>/dev/null
is "$?" 125 "a status file that is an --allow-write file: refused"
unchanged "... the file" "$T/extra-file" "$before"
mkdir -p "$HOME/.npm"
(cd "$WS" && crun --status-file "$HOME/.npm/s.jsonl" -- true) 2>/dev/null
is "$?:$(ls -A "$HOME/.npm")" "125:" "a status file in a tool cache's location: refused"
echo '{}' >"$T/hl.jsonl" && ln "$T/hl.jsonl" "$WS/hl"
before=$(snapshot "$T/hl.jsonl")
(cd "$WS" && crun --status-file "$T/hl.jsonl" -- true) 2>"$T/err"
is "$?:$(grep -c 'has 2 names, on the file system of' "$T/err")" "125:1" \
	"a status file outside with another name on a writable tree's file system: refused"
(cd "$WS" && crun --status-fd 3 -- true 3>>"$T/hl.jsonl") 2>/dev/null
is "$?" 125 "... and as the status fd"
unchanged "... the file" "$T/hl.jsonl" "$before"
rm -f "$WS/hl" "$T/hl.jsonl"
(cd "$WS" && crun --status-fd 3 --keep-fd 3 -- sh -c 'echo forged >&3' 3>>"$T/kept.jsonl") 2>"$T/err"
is "$?:$(cat "$T/kept.jsonl" 2>/dev/null):$(grep -c 'also a --keep-fd' "$T/err")" "125::1" \
	"a status fd the command keeps (--keep-fd): refused"
rm -f "$T/kept.jsonl"
(cd "$WS" && crun --status-file "$T/s-out.jsonl" -- sh -c "$forge" sh "$T/s-out.jsonl") 2>/dev/null
is "$?:$(grep -c '"exit_code":3' "$T/s-out.jsonl"):$(grep -c '"exit_code":0' "$T/s-out.jsonl")" "3:1:0" \
	"a status file outside every writable tree: the command cannot forge it"
rm -f "$T/s-out.jsonl"
# A second view of the workspace (a bind mount: a container's volume, an
# fstab entry) names the status file outside every tree by its path: it
# is refused all the same (where it lies in its file system), whole or a
# directory below it, by --status-file and on the status fd.
if [ "$(id -u)" = 0 ] && mkdir -p "$T/al ias" "$T/alias2" "$WS/sub" &&
	mount --bind "$WS" "$T/al ias" 2>/dev/null && mount --bind "$WS/sub" "$T/alias2"; then
	(cd "$WS" && crun --status-file "$T/al ias/s.jsonl" -- sh -c "$forge" sh s.jsonl) >"$T/o" 2>"$T/err"
	is "$?:$(cat "$T/o"):$(ls -A "$WS")" "125::sub" \
		"a status file in a bind mount of the workspace: refused, nothing run, nothing made"
	is "$(wc -l <"$T/err"):$(grep -c "is a second view (a bind mount) of a place inside $WS" "$T/err")" "1:1" \
		"... with one line saying why"
	(cd "$WS" && crun --status-file "$T/alias2/s.jsonl" -- sh -c "$forge" sh sub/s.jsonl) >/dev/null 2>&1
	is "$?:$(ls -A "$WS/sub")" "125:" "a status file in a bind mount of a directory of the workspace: refused"
	(cd "$WS" && crun --status-fd 3 -- sh -c "$forge" sh s.jsonl 3>"$T/al ias/s.jsonl") >/dev/null 2>&1
	is "$?:$(stat -c %s "$WS/s.jsonl")" "125:0" "... and as the status fd, the file untouched"
	umount "$T/al ias" "$T/alias2"
	rm -f "$WS/s.jsonl"
	rmdir "$WS/sub"
else
	skip "a bind mount of the workspace: only root may make one (the refusal is the same code as root's)"
fi
(cd "$WS" && crun --sandbox off --status-file s.jsonl -- true)
is "$?:$(grep -c bash_sandbox_exit "$WS/s.jsonl")" "0:1" "off (a plain exec, nothing confined): a status file in the workspace is written"
rm -f "$WS/s.jsonl"
# A symlink planted where the status file would be: refused, the outside file unchanged.
ln -s "$OUT/target" "$WS/status.jsonl"
(cd "$WS" && crun --status-file "$WS/status.jsonl" -- true) 2>"$T/err"
is "$?:$(cat "$OUT/target")" "125:keep" "a status file replaced by a symlink: refused, the outside file unchanged"
is "$(grep -c '^cordon: refusing status file' "$T/err")" 1 "... with one line saying why"
rm -f "$WS/status.jsonl"
mkdir -p "$OUT/state/runs/older" && echo keep >"$OUT/state/runs/older/f"
(cd "$WS" && "$CORDON" run --state-dir "$WS/.cordon-state" -- true) 2>"$T/err"
is "$?:$(grep -c 'inside a tree the command may write' "$T/err")" "125:1" "a state dir inside the workspace is refused"
ln -s "$OUT/state" "$T/state-link-in-ws" && mv "$T/state-link-in-ws" "$WS/sl"
(cd "$WS" && "$CORDON" run --state-dir "$WS/sl" -- true) 2>/dev/null
is "$?:$(cat "$OUT/state/runs/older/f")" "125:keep" "a state dir symlinked from the workspace: refused, nothing swept outside"
mkdir -p "$T/gw" && chmod 0777 "$T/gw"
(cd "$WS" && "$CORDON" run --state-dir "$T/gw" -- true) 2>"$T/err"
is "$?:$(grep -c 'not writable by group or others' "$T/err")" "125:1" "a world-writable state dir is refused"
# A symlink at the status file's last component is refused wherever it
# lies: here one planted by an earlier run whose workspace was another
# tree, so it is outside every writable tree of this run.
mkdir -p "$T/ws2" && echo keep >"$OUT/target"
(cd "$T/ws2" && crun -w "$T/ws2" -- ln -s "$OUT/target" status.jsonl)
[ -L "$T/ws2/status.jsonl" ]
ok $? "the earlier run planted the symlink in its own workspace"
ln -s "$OUT/ctl" "$T/ctl-link" && sh -c 'echo appended >> "$1"' sh "$T/ctl-link"
is "$(cat "$OUT/ctl" 2>/dev/null)" appended "control: an append through such a symlink lands outside"
before=$(snapshot "$OUT/target")
(cd "$WS" && crun --status-file "$T/ws2/status.jsonl" -- echo RAN) >"$T/o" 2>"$T/err"
is "$?:$(cat "$T/o")" "125:" "a status file that is a symlink outside the writable trees: refused, nothing run"
is "$(cat "$T/err")" "cordon: refusing status file $T/ws2/status.jsonl: it is a symlink, which is not followed (name the file itself, or use --status-fd)" \
	"... with one line saying why"
unchanged "a status file that is a symlink outside the writable trees" "$OUT/target" "$before"
(cd "$WS" && crun --sandbox off --status-file "$T/ws2/status.jsonl" -- echo RAN) >"$T/o" 2>/dev/null
is "$?:$(cat "$T/o")" "125:" "... refused in off mode too"
unchanged "... off mode" "$OUT/target" "$before"
ln -s "$T/real-status.jsonl" "$T/status-link"
(cd "$WS" && crun --status-file "$T/status-link" -- true) 2>/dev/null
is "$?:$(cat "$T/real-status.jsonl" 2>/dev/null)" "125:" "a symlink the user made is refused too (only the named file is written)"
mkdir -p "$T/sdir" && ln -s "$T/sdir" "$T/sdir-link"
(cd "$WS" && crun --status-file "$T/sdir-link/s.jsonl" -- true)
is "$?:$(grep -c bash_sandbox_exit "$T/sdir/s.jsonl")" "0:1" "a symlinked directory outside the writable trees is followed"
rm -rf "$T/ws2" "$T/ctl-link" "$T/status-link" "$T/sdir" "$T/sdir-link"
echo keep >"$OUT/target"
# The state dir and its runs/: refused when group- or other-writable, not
# when only readable (what it holds is 0700 and 0600 itself).
for m in 0770 0757 0730; do
	rm -rf "$T/sm" && mkdir -p "$T/sm" && chmod "$m" "$T/sm"
	(cd "$WS" && "$CORDON" run --state-dir "$T/sm" -- echo RAN) >"$T/o" 2>"$T/err"
	is "$?:$(cat "$T/o"):$(grep -c 'not writable by group or others' "$T/err")" "125::1" "a state dir of mode $m is refused"
done
rm -rf "$T/sm" && mkdir -p "$T/sm/runs" && chmod 0700 "$T/sm" && chmod 0775 "$T/sm/runs"
(cd "$WS" && "$CORDON" run --state-dir "$T/sm" -- echo RAN) >"$T/o" 2>"$T/err"
is "$?:$(cat "$T/o"):$(grep -c 'not writable by group or others' "$T/err")" "125::1" "a group-writable runs/ is refused"
rm -rf "$T/sm" && mkdir -p "$T/sm/runs" && chmod 0755 "$T/sm" "$T/sm/runs"
(cd "$WS" && "$CORDON" run --state-dir "$T/sm" -- sh -c 'stat -c %a "$TMPDIR"') >"$T/o" 2>"$T/err"
is "$?:$(cat "$T/o")" "0:700" "a state dir and runs/ of mode 0755 are accepted; the run's dir is 0700"
rm -rf "$T/sm" && (cd "$WS" && "$CORDON" run --state-dir "$T/sm/new" -- true)
is "$?:$(stat -c %a "$T/sm" "$T/sm/new" "$T/sm/new/runs" | tr '\n' ' ')" "0:700 700 700 " \
	"a missing state dir (and its missing parents, runs/) is created 0700"
rm -rf "$T/sm"

# ---- --allow-write, --protect, --allow-socket through a planted symlink ------------------------
mkdir -p "$OUT/dir" "$WS/real"
ln -sfn "$OUT/dir" "$WS/out"
(cd "$WS" && crun --allow-write "$WS/out" -- sh -c 'echo x > out/planted') 2>"$T/err"
is "$?:$(ls "$OUT/dir")" "125:" "--allow-write through a symlink planted in the workspace: refused"
# A later --allow-write naming the tree that holds the symlink.
mkdir -p "$T/shared" && ln -sfn "$OUT/dir" "$T/shared/out"
(cd "$WS" && crun --allow-write "$T/shared/out" --allow-write "$T/shared" -- sh -c 'echo x > "$1/planted"' sh "$T/shared/out") 2>/dev/null
is "$?:$(ls "$OUT/dir")" "125:" "--allow-write through a symlink in a tree named after it: refused"
# A status file through a symlink in a tool cache (some run's command may write there).
mkdir -p "$HOME/.npm" && ln -sfn "$OUT/target" "$HOME/.npm/status.log"
(cd "$WS" && crun --status-file "$HOME/.npm/status.log" -- true) 2>/dev/null
is "$?:$(cat "$OUT/target")" "125:keep" "a status file through a symlink in a cache dir: refused"
rm -f "$HOME/.npm/status.log"
ln -sfn "$WS/real" "$WS/frozen"
(cd "$WS" && crun --protect "$WS/frozen" -- true) 2>"$T/err"
is "$?:$(grep -c 'leads through a symlink inside a writable tree' "$T/err")" "125:1" \
	"--protect through a symlink planted in the workspace: refused"

done_testing
