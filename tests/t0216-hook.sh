#!/usr/bin/env bash
# cordon hook AGENT, end to end: each agent's hook JSON in; the answer's
# command, run by bash as the agent runs it, is the original command
# confined (inside written, outside refused and unchanged), its bytes
# exact however hostile; every other field kept; the workspace the agent's
# project (a cwd outside it does not move it); an already-wrapped command
# left as it is; a non-shell tool left alone; every failure the agent's
# block answer (exit 2, or Codex's and Cursor's deny), also when
# confinement is unavailable in required mode.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

[ -x "$TOP/$B/cordon-sh" ] || {
	echo "not ok 1 - $TOP/$B/cordon-sh is built"
	echo "1..1"
	exit 1
}
mkdir -p "$WS/sub"
WSR=$(cd "$WS" && pwd -P)
unset CORDON_WORKSPACE CLAUDE_PROJECT_DIR GEMINI_PROJECT_DIR CORDON_RUN_ID

# hook_in AGENT COMMAND CWD: the agent's hook JSON for a shell call.
hook_in() {
	"$PY" - "$1" "$2" "$3" <<'PY'
import json, sys
agent, cmd, cwd = sys.argv[1], sys.argv[2].encode("utf-8", "surrogateescape").decode("utf-8"), sys.argv[3]
if agent == "claude":
    d = {"session_id": "s", "transcript_path": "/x.jsonl", "cwd": cwd, "permission_mode": "default",
         "hook_event_name": "PreToolUse", "tool_name": "Bash",
         "tool_input": {"command": cmd, "description": "scripted step", "timeout": 120000},
         "tool_use_id": "toolu_1"}
elif agent == "codex":
    d = {"session_id": "s", "turn_id": "t", "cwd": cwd, "hook_event_name": "PreToolUse",
         "model": "m", "permission_mode": "bypassPermissions", "tool_name": "Bash",
         "tool_input": {"command": cmd}, "tool_use_id": "call_1"}
elif agent == "gemini":
    d = {"session_id": "s", "cwd": cwd, "hook_event_name": "BeforeTool", "timestamp": "t",
         "tool_name": "run_shell_command", "tool_input": {"command": cmd, "description": "x"}}
else:
    d = {"conversation_id": "c", "generation_id": "g", "hook_event_name": "beforeShellExecution",
         "command": cmd, "cwd": cwd, "workspace_roots": [cwd]}
print(json.dumps(d))
PY
}
# answer_field FILE EXPR: a field of the answer (a = the parsed JSON).
answer_field() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
try:
    a = json.load(open(sys.argv[1]))
except Exception as e:
    print("NO-JSON"); sys.exit()
v = eval(sys.argv[2], {"a": a})
print(v if isinstance(v, str) else json.dumps(v))
PY
}
# The command of an allow answer, by agent.
new_command() {
	case $1 in
	claude) answer_field "$2" 'a["hookSpecificOutput"]["updatedInput"]["command"]' ;;
	codex) answer_field "$2" 'a["hookSpecificOutput"]["updatedInput"]["command"]' ;;
	gemini) answer_field "$2" 'a["hookSpecificOutput"]["tool_input"]["command"]' ;;
	cursor) answer_field "$2" 'a["updated_input"]["command"]' ;;
	esac
}

# A command whose bytes are hostile to every layer of quoting: it writes
# its own text (as a heredoc-free printf) into the workspace.
hostile=$'printf \'%s\\n\' "a\'b" \'$HOME `id` $(id) \\\\ "\' > out; touch hostile-ran'
want_out=$'a\'b\n$HOME `id` $(id) \\\\ "'

for agent in claude codex gemini cursor; do
	rm -f "$WS/out" "$WS/hostile-ran"
	hook_in "$agent" "$hostile" "$WSR" >"$T/in.json"
	(cd "$WS" && CLAUDE_PROJECT_DIR=$WSR "$CORDON" hook "$agent" <"$T/in.json" >"$T/ans.json" 2>"$T/err")
	rc=$?
	is "$rc:$(cat "$T/err")" "0:" "$agent: exit 0, nothing on stderr"
	cmd=$(new_command "$agent" "$T/ans.json")
	case $cmd in
	"'$TOP/$B/cordon-sh' --workspace "*) ok 0 "$agent: the command runs under cordon-sh" ;;
	*) ok 1 "$agent: the command runs under cordon-sh (got: $cmd)" ;;
	esac
	# As the agent would: its shell runs the new command in its cwd.
	(cd "$WS" && bash -c "$cmd") >/dev/null 2>&1
	[ -e "$WS/hostile-ran" ] && [ "$(cat "$WS/out")" = "$want_out" ]
	ok $? "$agent: the command ran, its bytes exact (inside written)"

	make_fixture "$OUT/f"
	before=$(snapshot "$OUT/f")
	hook_in "$agent" "echo pwned > '$OUT/f'" "$WSR" >"$T/in.json"
	(cd "$WS" && "$CORDON" hook "$agent" <"$T/in.json" >"$T/ans.json")
	out=$(cd "$WS" && bash -c "$(new_command "$agent" "$T/ans.json")" 2>&1)
	case $out in
	*"Read-only file system"* | *"Permission denied"*) ok 0 "$agent: the outside write refused, the refusal in the output" ;;
	*) ok 1 "$agent: the outside write refused, the refusal in the output (got: $out)" ;;
	esac
	unchanged "$agent" "$OUT/f" "$before"

	# Again through the hook: already wrapped, left as it is.
	hook_in "$agent" "$(new_command "$agent" "$T/ans.json")" "$WSR" >"$T/in2.json"
	(cd "$WS" && "$CORDON" hook "$agent" <"$T/in2.json" >"$T/ans2.json")
	is "$(new_command "$agent" "$T/ans2.json")" "$(new_command "$agent" "$T/ans.json")" \
		"$agent: a command it wrapped comes back unchanged"
done
bash -c "echo x > '$OUT/control'"
[ -f "$OUT/control" ]
ok $? "control: unwrapped, the same write reaches the outside"

# ---- the other fields, and the workspace --------------------------------------
hook_in claude "ls" "$WSR/sub" >"$T/in.json"
(cd "$WS/sub" && CLAUDE_PROJECT_DIR=$WSR "$CORDON" hook claude <"$T/in.json" >"$T/ans.json")
is "$(answer_field "$T/ans.json" '[a["hookSpecificOutput"]["updatedInput"][k] for k in ("description", "timeout")]')" \
	'["scripted step", 120000]' "claude: the other fields of the input are kept"
is "$(answer_field "$T/ans.json" '"permissionDecision" in a["hookSpecificOutput"]')" false \
	"claude: no permission decision"
hook_in codex "ls" "$WSR" >"$T/in.json"
(cd "$WS" && "$CORDON" hook codex <"$T/in.json" >"$T/ans.json")
is "$(answer_field "$T/ans.json" 'a["hookSpecificOutput"]["permissionDecision"]')" allow \
	"codex: permissionDecision allow (Codex ignores updatedInput without it)"

# Codex names no project, and its JSON's cwd follows the workdir the model
# gives exec_command: the workspace is the hook's own directory (Codex's
# session directory), and a command whose workdir lies outside it writes
# nothing there (Codex runs the line in that workdir).
for wd in "$OUT" "$(dirname "$WSR")"; do
	rm -f "$OUT/via-workdir" "$(dirname "$WSR")/via-workdir"
	hook_in codex "echo x > via-workdir; echo x > '$OUT/via-workdir'; true" "$wd" >"$T/in.json"
	(cd "$WS" && "$CORDON" hook codex <"$T/in.json" >"$T/ans.json")
	(cd "$wd" && bash -c "$(new_command codex "$T/ans.json")") >/dev/null 2>&1
	[ ! -e "$OUT/via-workdir" ] && [ ! -e "$(dirname "$WSR")/via-workdir" ]
	ok $? "codex, the model's workdir $wd: nothing written outside the session's directory"
done
rm -f "$WS/via-workdir"

# Claude in a subdir of its project: the workspace is the project.
hook_in claude "touch '$WS/top' && echo wrote" "$WSR/sub" >"$T/in.json"
(cd "$WS/sub" && CLAUDE_PROJECT_DIR=$WSR "$CORDON" hook claude <"$T/in.json" >"$T/ans.json")
is "$(cd "$WS/sub" && bash -c "$(new_command claude "$T/ans.json")")" wrote \
	"claude in a subdir: the project is writable"
rm -f "$WS/top"
# A cwd outside the project (where an earlier command might have led the
# agent) moves neither the workspace nor what may be written.
hook_in claude "pwd; touch top2 && echo wrote" "$OUT" >"$T/in.json"
(cd "$OUT" && CLAUDE_PROJECT_DIR=$WSR "$CORDON" hook claude <"$T/in.json" >"$T/ans.json")
out=$(cd "$OUT" && bash -c "$(new_command claude "$T/ans.json")" 2>&1)
[ -e "$OUT/top2" ] && out="$out (top2 written outside)"
is "$out" "$WSR
wrote" "a cwd outside the project: the command runs in the project, writes nothing outside"

# ---- Claude Code keeps a cd: its own shell enters where the command ended ----
# As Claude runs a command: eval of it, then its own cwd file (agent-facts).
mkdir -m 0700 "$T/tmpd"
claude_call() { # claude_call COMMAND: the command's status, then Claude's next cwd
	local q="'\"'\"'" line
	rm -f "$T/tmpd/claude-ab-cwd"
	hook_in claude "$1" "$WSR" >"$T/in.json"
	(cd "$WS" && TMPDIR=$T/tmpd CLAUDE_PROJECT_DIR=$WSR "$CORDON" hook claude <"$T/in.json" >"$T/ans.json")
	line=$(new_command claude "$T/ans.json")
	(cd "$WS" && TMPDIR=$T/tmpd bash -c "eval '${line//\'/$q}' < /dev/null && pwd -P >| $T/tmpd/claude-ab-cwd" >/dev/null 2>&1)
	echo "$?:$(cat "$T/tmpd/claude-ab-cwd" 2>/dev/null)"
}
is "$(claude_call 'cd sub')" "0:$WSR/sub" "claude: a cd reaches Claude's own cwd tracking"
is "$(claude_call 'cd /')" "0:$WSR" "claude: a cd out of the workspace: the workspace instead"
is "$(claude_call "cd '$OUT'")" "0:$WSR" "claude: a cd outside: the workspace instead"
is "$(claude_call 'cd sub; exit 3')" "3:" "claude: a failing command: its status, no cd (as without cordon)"
is "$(find "$T/tmpd" -name 'cordon-cd-*' | wc -l)" 0 "claude: no cd file is left behind"
# The line's tail runs in Claude's own shell, unconfined, after entering
# the directory the confined command ended in: with a relative PATH entry
# (./node_modules/.bin) nothing the command left there may run.
mkdir -p "$WS/d/node_modules/.bin"
printf '#!/bin/sh\necho planted >> %s/pwned-rm\n' "$OUT" >"$WS/d/node_modules/.bin/rm"
chmod +x "$WS/d/node_modules/.bin/rm"
is "$(PATH=./node_modules/.bin:$PATH claude_call 'cd d')" "0:$WSR/d" \
	"claude, PATH=./node_modules/.bin:...: the cd reaches Claude's cwd tracking"
[ ! -e "$OUT/pwned-rm" ]
ok $? "... and no program the confined command left in that directory ran outside cordon"
is "$(find "$T/tmpd" -name 'cordon-cd-*' | wc -l)" 0 "... the cd file removed all the same"
rm -rf "$WS/d" "$OUT/pwned-rm"

# ---- not a shell: left alone ---------------------------------------------------
echo '{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/x","content":"y"}}' |
	"$CORDON" hook claude >"$T/ans" 2>"$T/err"
is "$?:$(cat "$T/ans" "$T/err")" "0:" "claude, another tool: exit 0, no answer"

# ---- failures: the agent's block answer ------------------------------------------
for input in 'not json' '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"}}'; do
	for agent in claude gemini; do
		out=$(echo "$input" | "$CORDON" hook "$agent" 2>&1 >/dev/null)
		is "$?:${out%%: *}" "2:cordon" "$agent, bad input: exit 2, the reason on stderr"
	done
	echo "$input" | "$CORDON" hook codex >"$T/ans"
	is "$?:$(answer_field "$T/ans" 'a["hookSpecificOutput"]["permissionDecision"]')" "0:deny" \
		"codex, bad input: permissionDecision deny"
	echo "$input" | "$CORDON" hook cursor >"$T/ans"
	is "$(answer_field "$T/ans" 'a["permission"]')" deny "cursor, bad input: permission deny"
done
printf 'netwrok off\n' >"$T/bad.policy"
hook_in claude "ls" "$WSR" >"$T/in.json"
out=$(cd "$WS" && CORDON_POLICY=$T/bad.policy "$CORDON" hook claude <"$T/in.json" 2>&1 >/dev/null)
is "$?:$(echo "$out" | grep -c 'bad.policy:1:')" "2:1" "a bad line in the user's policy: blocked, the line named"
out=$(echo '{}' | "$CORDON" hook nosuch 2>&1)
is "$?:$(echo "$out" | grep -c 'unknown agent')" "2:1" "an unknown agent: exit 2"
out=$("$CORDON" hook </dev/null 2>&1)
is "$?" 2 "no agent named: exit 2"
out=$(echo '{}' | "$CORDON" hook claude extra 2>&1)
is "$?" 2 "two arguments: exit 2"

if "$HELPERS/seccomp-deny" enosys -- true 2>/dev/null; then
	hook_in claude "touch '$WS/ran'" "$WSR" >"$T/in.json"
	out=$(cd "$WS" && "$HELPERS/seccomp-deny" enosys -- "$CORDON" hook claude <"$T/in.json" 2>&1 >/dev/null)
	is "$?:$(echo "$out" | grep -c 'not available here')" "2:1" \
		"no Landlock, required by default: claude's call blocked (exit 2)"
	hook_in codex "touch '$WS/ran'" "$WSR" >"$T/in.json"
	(cd "$WS" && "$HELPERS/seccomp-deny" enosys -- "$CORDON" hook codex <"$T/in.json" >"$T/ans")
	is "$(answer_field "$T/ans" 'a["hookSpecificOutput"]["permissionDecision"]')" deny \
		"no Landlock: codex's call denied"
else
	skip "seccomp-deny cannot run here"
	skip "seccomp-deny cannot run here"
fi
[ ! -e "$WS/ran" ]
ok $? "nothing ran"

done_testing
