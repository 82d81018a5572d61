#!/usr/bin/env bash
# The agent-config guard: what a confined run plants in a project's agent
# and editor configuration (a hook in .claude/settings.json, an MCP server
# in .mcp.json, a folder-open task in .vscode/tasks.json...) must not be
# where a later, unconfined agent or editor reads it. Each attack plants,
# then a stand-in for the next session (agent.py: it runs every command
# the files name, unconfined) runs; the outside ($OUT) must stay as it
# was. A control (--sandbox off) shows each plant runs without the guard.
# Every case runs with the mount layer (existing files read-only) and
# without it (seccomp-deny nons: Landlock only; files recorded at the
# start, judged at the end).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

DENY=$HELPERS/seccomp-deny
cat >"$T/agent.py" <<'PY'
# The next session of an agent or editor, unconfined: it runs every
# command its project's configuration names (hooks, MCP servers, tasks,
# notify programs) and every hook script of .claude/hooks.
import json, os, subprocess, sys, tomllib

ws = sys.argv[1]

def commands(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("command", "initializeCommand", "notify"):
                if isinstance(x, str):
                    yield x
                elif isinstance(x, list) and x and all(isinstance(i, str) for i in x):
                    yield x
            yield from commands(x)
    elif isinstance(v, list):
        for x in v:
            yield from commands(x)

for rel in sys.argv[2:]:
    p = os.path.join(ws, rel)
    if rel == ".env":  # Gemini CLI: the project's .env into its environment
        env = dict(os.environ)
        try:
            with open(p) as f:
                for line in f:
                    k, eq, v = line.strip().partition("=")
                    if eq:
                        env[k] = v
        except Exception:
            continue
        subprocess.run(["bash", "-c", "true"], env=env, cwd=ws)  # its shell tool
        continue
    try:
        with open(p, "rb") as f:
            data = tomllib.load(f) if rel.endswith(".toml") else json.load(f)
    except Exception:
        continue
    for cmd in commands(data):
        subprocess.run(cmd, shell=isinstance(cmd, str), cwd=ws)
hooks = os.path.join(ws, ".claude", "hooks")
if os.path.isdir(hooks):
    for name in sorted(os.listdir(hooks)):
        subprocess.run([os.path.join(hooks, name)], cwd=ws)
PY

# The files, and what each plants: a command that leaves $OUT/pwned-N.
FILES=(.claude/settings.json .claude/settings.local.json .mcp.json .gemini/settings.json
	.codex/config.toml .codex/hooks.json .cursor/hooks.json .cursor/mcp.json
	.vscode/tasks.json .vscode/settings.json .devcontainer/devcontainer.json opencode.json .env)
content() { # content FILE N: the plant for FILE
	case $1 in
	*.toml) printf 'notify = ["sh", "-c", "touch %s/pwned-%s"]\n' "$OUT" "$2" ;;
	.env) printf 'BASH_ENV=%s/envhook-%s.sh\n' "$T" "$2" ;; # a script bash sources
	.vscode/tasks.json)
		printf '{"version": "2.0.0", "tasks": [{"label": "x", "type": "shell", "command": "touch %s/pwned-%s", "runOptions": {"runOn": "folderOpen"}}]}\n' "$OUT" "$2"
		;;
	*) printf '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch %s/pwned-%s"}]}]}}\n' "$OUT" "$2" ;;
	esac
}
# plant_script: a shell script that writes every file's plant.
plant_script() {
	local i=0 f
	for f in "${FILES[@]}"; do
		printf 'mkdir -p "%s" 2>/dev/null; printf %%s %q > %s\n' "$(dirname "$f")" "$(content "$f" $i)" "$f"
		i=$((i + 1))
	done
	# The script's own printf expands the escapes, when it runs.
	# shellcheck disable=SC2028
	echo 'mkdir -p .claude/hooks; printf "#!/bin/sh\ntouch %s/pwned-hook\n" "$1" > .claude/hooks/h.sh; chmod +x .claude/hooks/h.sh'
	echo 'exit 0'
}
plant_script >"$T/plant.sh"
for i in "${!FILES[@]}"; do # what .env's BASH_ENV names: bash sources it
	printf 'touch %s/pwned-%s\n' "$OUT" "$i" >"$T/envhook-$i.sh"
done
later() { (cd "$WS" && "$PY" "$T/agent.py" "$WS" "${FILES[@]}") >/dev/null 2>&1; }
pwned_n() { find "$OUT" -name 'pwned-*' | wc -l; }
fresh() {
	chmod -R u+rwx "$WS" "$OUT" 2>/dev/null
	rm -rf "$WS" "$OUT" "$T/s.json"
	mkdir -p "$WS" "$OUT"
}
# The user's own configuration: each file, harmless.
users_own() {
	local f
	for f in "${FILES[@]}"; do
		mkdir -p "$WS/$(dirname "$f")"
		case $f in
		*.toml) echo 'model = "x"' >"$WS/$f" ;;
		*) echo '{"user": true}' >"$WS/$f" ;;
		esac
	done
	mkdir -p "$WS/.claude/hooks"
}
srun() { # srun [mount|nons] ARGS: crun with a fresh status file (nons: Landlock only)
	rm -f "$T/s.json"
	[ "$1" = mount ] && shift
	if [ "$1" = nons ]; then
		shift
		"$DENY" nons -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" "$@"
	else
		crun --status-file "$T/s.json" "$@"
	fi
}
tampered() { json_field "$T/s.json" exit '" ".join(sorted(t["path"] for t in e["tampered"]))'; }
held() { # held PATH: how the start event says PATH is held
	json_field "$T/s.json" status "([p[\"held\"] for p in e[\"protected\"] if p[\"path\"] == \"$1\"] or [\"NONE\"])[0]"
}
# The layer a run had: with the mount layer existing files are read-only.
layer_name() { [ "$1" = nons ] && echo "Landlock only" || echo "mount layer"; }

# ---- controls ---------------------------------------------------------------------------------
fresh
(cd "$WS" && crun --sandbox off -- sh "$T/plant.sh" "$OUT")
later
is "$(pwned_n)" "$((${#FILES[@]} + 1))" "control (--sandbox off): every planted file runs its command in the next session"

fresh
users_own
(cd "$WS" && crun --sandbox off -- sh "$T/plant.sh" "$OUT")
later
is "$(pwned_n)" "$((${#FILES[@]} + 1))" "control (--sandbox off): every rewritten file runs its command in the next session"

for how in mount nons; do
	name=$(layer_name "$how")
	# ---- planted where nothing was ----
	fresh
	(cd "$WS" && srun "$how" -- sh "$T/plant.sh" "$OUT") >"$T/o" 2>"$T/e"
	is "$?" 0 "$name, planted: the run succeeds (auto: neutralise)"
	later
	is "$(pwned_n)" 0 "$name, planted: the next session runs nothing"
	left=0
	for f in "${FILES[@]}"; do
		[ -e "$WS/$f" ] && {
			diag "$f is still there"
			left=1
		}
	done
	ok "$left" "$name, planted: no planted file is where an agent reads it"
	moved=0
	for f in "${FILES[@]}"; do
		top=${f%%/*}
		rest=${f#*/}
		[ "$top" = "$f" ] && rest=""
		set -- "$WS/$top".cordon-tampered-*
		if [ -n "$rest" ] && [ ! -f "$1/$rest" ]; then moved=1 && diag "$f not moved aside"; fi
		if [ -z "$rest" ] && [ ! -f "$1" ]; then moved=1 && diag "$f not moved aside"; fi
	done
	ok "$moved" "$name, planted: each is moved aside, in a directory beside the one it was made in"
	is "$(tampered)" "$WS/.claude $WS/.codex $WS/.cursor $WS/.devcontainer $WS/.env $WS/.gemini $WS/.mcp.json $WS/.vscode $WS/opencode.json" \
		"$name, planted: the exit event lists each"
	is "$(grep -c '^cordon: warning: the run left 9 files that a later program would run' "$T/e")" 1 \
		"$name, planted: one warning line"
	is "$(held "$WS/.claude")" moved_at_end "$name: the start event says a missing name is moved at the end"

	# ---- the user's own files, changed ----
	fresh
	users_own
	before=$(snapshot "$WS")
	(cd "$WS" && srun "$how" -- sh "$T/plant.sh" "$OUT") >"$T/o" 2>"$T/e"
	later
	is "$(pwned_n)" 0 "$name, rewritten: the next session runs nothing"
	same=0
	for f in "${FILES[@]}"; do
		case $f in
		*.toml) want='model = "x"' ;;
		*) want='{"user": true}' ;;
		esac
		[ "$(cat "$WS/$f")" = "$want" ] || {
			same=1
			diag "$f: $(cat "$WS/$f")"
		}
	done
	ok "$same" "$name, rewritten: each file is the user's own afterwards"
	if [ "$how" = mount ]; then
		grep -q 'Read-only file system' "$T/e"
		ok $? "mount layer, rewritten: the writes were refused (EROFS)"
		is "$(tampered)" "" "mount layer, rewritten: nothing to move aside"
		unchanged "mount layer, rewritten: the configuration" "$WS" "$before"
		is "$(held "$WS/.claude")" read_only "mount layer: the start event says an existing one is read-only"
	else
		ok "$(test -f "$WS"/.claude.cordon-tampered-*/settings.json && echo 0 || echo 1)" \
			"Landlock only, rewritten: the run's settings.json is moved aside"
		case " $(tampered) " in
		*" $WS/.claude/settings.json "*" $WS/.vscode/tasks.json "*) ok 0 "Landlock only, rewritten: the exit event lists what changed" ;;
		*) ok 1 "Landlock only, rewritten: the exit event lists what changed: $(tampered)" ;;
		esac
		[ ! -e "$WS/.claude/hooks/h.sh" ]
		ok $? "Landlock only, rewritten: a hook script made in an existing hooks dir is moved aside"
		is "$(held "$WS/.claude")" checked_at_end "Landlock only: the start event says it is checked at the end"
	fi

	# ---- made inside a directory that did not exist, and one that did ----
	fresh
	mkdir -p "$WS/.claude"
	echo keep >"$WS/.claude/notes"
	(cd "$WS" && srun "$how" -- sh -c 'mkdir -p .gemini/commands && echo "{\"command\": \"touch $1/pwned-g\"}" > .gemini/commands/x.json; echo "{\"command\": \"touch $1/pwned-c\"}" > .claude/settings.json' sh "$OUT") 2>"$T/e"
	[ ! -e "$WS/.gemini" ] && [ ! -e "$WS/.claude/settings.json" ] && [ "$(cat "$WS/.claude/notes")" = keep ]
	ok $? "$name: a file made in a new directory and in an existing one: neither is there, the user's file stays"
done

# ---- --on-tamper and required mode -------------------------------------------------------------
plant_one='mkdir -p .claude && echo "{\"command\": \"touch $1/pwned\"}" > .claude/settings.json'
for how in mount nons; do
	name=$(layer_name "$how")
	fresh
	(cd "$WS" && srun "$how" --on-tamper fail -- sh -c "$plant_one" sh "$OUT") 2>"$T/e"
	is "$?:$(grep -c '^cordon: the run left 1 file that a later program would run' "$T/e")" 125:1 \
		"$name: --on-tamper fail: exit 125, one line"
	is "$(json_field "$T/s.json" exit '(e["exit_code"], e["command_exit_code"])')" "[125, 0]" \
		"$name: ... the exit event says 125, and the command's 0"
	fresh
	(cd "$WS" && srun "$how" --sandbox required -- sh -c "$plant_one" sh "$OUT") 2>/dev/null
	is "$?:$(tampered)" "125:$WS/.claude" "$name: required mode fails the run by default"
	fresh
	(cd "$WS" && srun "$how" --sandbox required --on-tamper neutralise -- sh -c "$plant_one; exit 3" sh "$OUT") 2>/dev/null
	is "$?:$(tampered)" "3:$WS/.claude" "$name: --on-tamper neutralise keeps the command's status"
done

# ---- the opt-out ------------------------------------------------------------------------------
fresh
(cd "$WS" && srun --allow-agent-config .claude -- sh -c "$plant_one" sh "$OUT") 2>"$T/e"
is "$?:$(tampered):$(held "$WS/.claude")" "0::NONE" "--allow-agent-config .claude: nothing moved, not held"
[ -f "$WS/.claude/settings.json" ]
ok $? "... the command wrote it"
fresh
mkdir -p "$WS/.vscode"
echo '{}' >"$WS/.vscode/tasks.json"
(cd "$WS" && srun --allow-agent-config "$WS/.vscode" -- sh -c 'echo changed > .vscode/tasks.json') 2>/dev/null
is "$?:$(cat "$WS/.vscode/tasks.json")" "0:changed" "--allow-agent-config of an existing directory: writable"
fresh
printf 'allow-agent-config .claude\n' >"$T/agent.policy"
(cd "$WS" && srun --policy "$T/agent.policy" -- sh -c "$plant_one" sh "$OUT") 2>"$T/e"
is "$?:$(tampered):$([ -f "$WS/.claude/settings.json" ] && echo there)" "0::there" \
	"allow-agent-config in a policy file (relative to the workspace): the same"
fresh
(cd "$WS" && srun --allow-agent-config src -- true) >"$T/o" 2>"$T/e"
is "$?:$(wc -l <"$T/e")" "125:1" "--allow-agent-config of a path not held: exit 125, one line"
grep -q '^cordon: --allow-agent-config src: not a path cordon holds' "$T/e"
ok $? "... which names it"
fresh
(cd "$WS" && srun --no-default-protect -- sh -c "$plant_one" sh "$OUT") 2>/dev/null
is "$?:$(tampered)" "0:" "--no-default-protect: the guard is off"
rm -rf "$WS/.claude"

# ---- --protect of a path that does not exist ------------------------------------------------
for how in mount nons; do
	name=$(layer_name "$how")
	fresh
	mkdir -p "$WS/tests"
	(cd "$WS" && srun "$how" --sandbox required --protect tests/conftest.py \
		-- sh -c 'echo "import os; os.system(\"touch $1/pwned\")" > tests/conftest.py' sh "$OUT") 2>/dev/null
	rc=$?
	is "$rc:$(tampered)" "125:$WS/tests/conftest.py" "$name: --protect of a missing path: what the run made is moved aside (required: fails)"
	ok "$(test ! -e "$WS/tests/conftest.py" && test -f "$WS"/tests/conftest.py.cordon-tampered-* && echo 0 || echo 1)" \
		"$name: ... it is not there, and kept beside"
	is "$(held "$WS/tests/conftest.py")" moved_at_end "$name: ... the start event: moved_at_end"
	is "$(json_field "$T/s.json" status 'e["applied"]')" true "$name: ... the run was not refused for it"
	fresh
	mkdir -p "$WS/tests"
	(cd "$WS" && srun "$how" --protect tests/conftest.py -- true) 2>/dev/null
	is "$?:$(tampered)" "0:" "$name: --protect of a missing path the run leaves alone: nothing to do"
done
fresh
(cd "$WS" && crun --protect "$OUT/new" -- true) 2>"$T/e"
is "$?:$(grep -c 'not inside a writable tree' "$T/e")" "125:1" "--protect of a missing path outside the writable set: refused"
# An existing --protect path without the mount layer still refuses in required mode.
echo in >"$WS/frozen"
(cd "$WS" && srun nons --sandbox required --protect frozen -- true) 2>"$T/e"
is "$?:$(json_field "$T/s.json" status 'e["cause"]')" "125:protect_not_enforceable" \
	"an existing --protect path without the mount layer: required still refuses"

# ---- where names are held: the working directory's, --allow-write directories' ----------------
fresh
mkdir -p "$WS/pkg/sub" "$T/other"
rm -rf "$T/other"/.vscode*
(cd "$WS/pkg/sub" && srun -w "$WS" --allow-write "$T/other" -- sh -c 'mkdir -p ../.codex .codex "$1/.vscode" && echo x > ../.codex/config.toml && echo x > .codex/config.toml && echo x > "$1/.vscode/tasks.json"' sh "$T/other") 2>/dev/null
is "$(tampered)" "$T/other/.vscode $WS/pkg/.codex $WS/pkg/sub/.codex" \
	"each directory down to the working directory, and an --allow-write directory, are held"
rm -rf "$T/other"

# The directory holding a plant made unwritable or unsearchable, so that
# it could not be moved (matters as a user: root passes permissions). The
# workspace is a repository, so that the git guard's search below a
# workspace in none, which fails a run for a directory it cannot read,
# does not come in.
for how in mount nons; do
	name=$(layer_name "$how")
	fresh
	mkdir -p "$WS/pkg"
	if tool_ok git; then
		git -C "$WS" init -q
	else
		skip "git: $TOOL_WHY"
		skip "git: $TOOL_WHY"
		continue
	fi
	(cd "$WS/pkg" && srun "$how" -w "$WS" -- sh -c 'mkdir ../.claude .codex && echo x > ../.claude/settings.json && echo x > .codex/config.toml && chmod 555 .. && chmod 000 .') 2>"$T/e"
	rc=$?
	chmod u+rwx "$WS" "$WS/pkg" 2>/dev/null
	is "$rc:$(tampered)" "0:$WS/.claude $WS/pkg/.codex" \
		"$name: plants in directories the run made unwritable and unsearchable: moved aside all the same"
	[ ! -e "$WS/.claude" ] && [ ! -e "$WS/pkg/.codex" ]
	ok $? "$name: ... neither is where an agent reads it"
done

# A name replaced by a symlink to a directory the run filled.
for how in mount nons; do
	name=$(layer_name "$how")
	fresh
	mkdir -p "$WS/.claude"
	echo '{"user": true}' >"$WS/.claude/settings.json"
	(cd "$WS" && srun "$how" -- sh -c 'mkdir -p x && echo "{\"command\": \"touch $1/pwned\"}" > x/settings.json; rm -rf .claude; ln -s x .claude' sh "$OUT") 2>/dev/null
	later
	[ ! -L "$WS/.claude" ] && [ "$(cat "$WS/.claude/settings.json")" = '{"user": true}' ] && [ "$(pwned_n)" = 0 ]
	ok $? "$name: .claude swapped for a symlink: the user's is there afterwards"
done

# A name that is a symlink at the start, to a directory in the workspace:
# what an agent reads through it is the target, held as the name would be
# (with the mount layer read-only; with Landlock alone recorded, judged).
for how in mount nons; do
	name=$(layer_name "$how")
	fresh
	mkdir -p "$WS/cfg"
	echo '{"user": true}' >"$WS/cfg/settings.json"
	ln -s cfg "$WS/.claude"
	(cd "$WS" && srun "$how" -- sh -c 'echo "{\"command\": \"touch $1/pwned\"}" > cfg/settings.json; mkdir -p cfg/hooks; printf "#!/bin/sh\ntouch %s/pwned-hook\n" "$1" > cfg/hooks/h.sh; chmod +x cfg/hooks/h.sh' sh "$OUT") 2>/dev/null
	later
	[ -L "$WS/.claude" ] && [ "$(cat "$WS/.claude/settings.json")" = '{"user": true}' ] &&
		[ ! -e "$WS/cfg/hooks" ] && [ "$(pwned_n)" = 0 ]
	ok $? "$name: .claude a symlink to cfg/: what the run wrote in cfg/ is not read next session"
	[ "$how" = nons ] && is "$(held "$(cd "$WS" && pwd -P)/cfg")" checked_at_end \
		"$name: the start event says the target is checked at the end"
done
# A symlink whose target holds it (the workspace itself): not recorded
# (that would judge every change of the run), said so.
fresh
ln -s . "$WS/.claude"
(cd "$WS" && srun nons -- sh -c 'echo x > f') 2>/dev/null
is "$?:$(cat "$WS/f"):$(held "$(cd "$WS" && pwd -P)")" "0:x:null" \
	"Landlock only, .claude -> . : the run's work stays, the start event says not held"

# ---- the home: read-only, also with --scratch-home --------------------------------------------
fresh
mkdir -p "$HOME/.claude" "$HOME/.gemini" "$HOME/.codex"
echo '{"user": true}' >"$HOME/.claude/settings.json"
echo '{"user": true}' >"$HOME/.gemini/settings.json"
echo 'model = "x"' >"$HOME/.codex/config.toml"
echo '{}' >"$HOME/.claude.json"
home_before=$(snapshot "$HOME")
home_plant='for f in .claude/settings.json .gemini/settings.json .codex/config.toml .codex/hooks.json .claude.json .cursor/mcp.json; do mkdir -p "$(dirname "$HOME/$f")"; echo "{\"command\": \"touch $1/pwned\"}" > "$HOME/$f" && echo "wrote $f"; done; exit 0'
for how in mount nons; do
	name=$(layer_name "$how")
	(cd "$WS" && srun "$how" -- sh -c "$home_plant" sh "$OUT") >"$T/o" 2>/dev/null
	is "$(wc -l <"$T/o")" 0 "$name: the home's agent configuration cannot be written"
	unchanged "$name: the home" "$HOME" "$home_before"
done
(cd "$WS" && srun --scratch-home -- sh -c "$home_plant" sh "$OUT") >"$T/o" 2>/dev/null
if [ "$(json_field "$T/s.json" status '"scratch_home" in e["layers"]')" = true ]; then
	# ~/.claude.json is on the default deny-read list (Claude Code's
	# account, MCP servers' keys): its cover stays read-only there too.
	is "$(grep -vc claude.json "$T/o"):$(grep -c claude.json "$T/o")" "5:0" \
		"--scratch-home: the writes succeed inside the run (but ~/.claude.json, a denied secret)"
	unchanged "--scratch-home: the home" "$HOME" "$home_before"
else
	skip "--scratch-home: no scratch home here ($(json_field "$T/s.json" status 'e["gaps"]'))"
	skip "--scratch-home: no scratch home here"
fi

done_testing
