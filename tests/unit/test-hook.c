/*
 * Unit tests of `cordon hook` (cli/hook.c, cli/hookmain.c): each agent's
 * hook JSON in, its answer out; every failure is that agent's block
 * answer; hostile commands come back byte-exact (checked by splitting the
 * rewritten line into words with a shell-quote reader of this file's own);
 * an already-wrapped command is recognised only when it is exactly what
 * cordon would have written.
 */
#include "hook.h"
#include "hookmain.h"
#include "shwords.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64] = "/tmp/cordon-hook.XXXXXX", ws[128], sub[128], other[128];
#define SH "/opt/cordon/bin/cordon-sh"
#define CDN "cordon-cd-0123456789abcdef0123456789abcdef"
#define CDF "/tmp/" CDN
static const struct hook_cd cd = { "/tmp", CDN };

/* 1 when line is the five words SH --workspace WS -c CMD exactly. */
static int runs_exactly(const char *line, const char *wsp, const char *cmd, size_t len)
{
	struct words w;
	int okk = split_words(line, &w) == 0 && w.n == 5 && strcmp(w.w[0], SH) == 0 &&
		  strcmp(w.w[1], "--workspace") == 0 && strcmp(w.w[2], wsp) == 0 &&
		  strcmp(w.w[3], "-c") == 0 && w.len[4] == len && memcmp(w.w[4], cmd, len) == 0;
	words_free(&w);
	return okk;
}

/* Claude Code's line: the seven words SH --workspace WS --cd-file F -c
 * CMD, then exactly the tail that enters F's directory (written here from
 * the documented form, not by hook.c). */
static int claude_runs_exactly(const char *line, const char *wsp, const char *f, const char *cmd,
			       size_t len)
{
	char tail[512];
	snprintf(tail, sizeof(tail),
		 "; __cordon_s=$?; [ -s '%s' ] && cd -- \"$(< '%s')\"; /bin/rm -f -- '%s'; "
		 "(exit $__cordon_s)",
		 f, f, f);
	const char *t = strstr(line, "; __cordon_s=$?; ");
	size_t n = strlen(line);
	if (t == NULL || strcmp(line + n - strlen(tail), tail) != 0)
		return 0;
	char *head = strndup(line, (size_t)(line + n - strlen(tail) - line));
	struct words w;
	int okk = split_words(head, &w) == 0 && w.n == 7 && strcmp(w.w[0], SH) == 0 &&
		  strcmp(w.w[1], "--workspace") == 0 && strcmp(w.w[2], wsp) == 0 &&
		  strcmp(w.w[3], "--cd-file") == 0 && strcmp(w.w[4], f) == 0 &&
		  strcmp(w.w[5], "-c") == 0 && w.len[6] == len && memcmp(w.w[6], cmd, len) == 0;
	words_free(&w);
	free(head);
	return okk;
}

/* ---- the answers ---- */
static struct hook_env env(const char *agent)
{
	struct hook_env e = {
		.agent = agent, .sh = SH, .cwd = ws, .probe = 0, .cd_dir = "/tmp", .cd_name = CDN
	};
	return e;
}

static void respond(const struct hook_env *e, const char *in, struct hook_answer *ans)
{
	hook_respond(e, in, strlen(in), ans);
}

/* The string at the path of keys in the answer's JSON, or NULL. */
static char *answer_str(const char *out, const char *k1, const char *k2, const char *k3)
{
	static const struct jp_limits lim = { 1 << 22, 16 };
	struct jp_doc d;
	char *r = NULL;
	if (out == NULL || jp_parse(out, strlen(out), &lim, &d, NULL, 0) != 0) {
		jp_free(&d);
		return NULL;
	}
	size_t n = jp_member(&d, 0, k1);
	if (n != JP_NONE && k2 != NULL)
		n = jp_member(&d, n, k2);
	if (n != JP_NONE && k3 != NULL)
		n = jp_member(&d, n, k3);
	if (n != JP_NONE && d.nodes[n].kind == JP_STRING)
		r = strdup(d.nodes[n].s);
	jp_free(&d);
	return r;
}

static void test_claude(void)
{
	struct hook_answer a;
	char in[2048];
	struct hook_env e = env("claude");
	e.projects[0] = ws;
	snprintf(
		in, sizeof(in),
		"{\"session_id\":\"s\",\"cwd\":\"%s\",\"hook_event_name\":\"PreToolUse\","
		"\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo \\\"a'b\\\" && cd sub\","
		"\"description\":\"d \\u00e9\",\"timeout\":120000,\"run_in_background\":false},"
		"\"tool_use_id\":\"t\"}",
		sub);
	respond(&e, in, &a);
	is_int(a.exit_code, 0, "claude: exit 0");
	ok(a.err == NULL, "claude: nothing on stderr");
	char *cmd = answer_str(a.out, "hookSpecificOutput", "updatedInput", "command");
	ok(cmd != NULL && claude_runs_exactly(cmd, ws, CDF, "echo \"a'b\" && cd sub", 20),
	   "claude: updatedInput.command runs the command, byte-exact, under cordon-sh, and "
	   "enters the directory it ended in");
	free(cmd);
	char *desc = answer_str(a.out, "hookSpecificOutput", "updatedInput", "description");
	is_str(desc, "d \xc3\xa9", "claude: every other field of the input is kept (description)");
	free(desc);
	ok(a.out != NULL &&
		   strstr(a.out, "\"timeout\":120000,\"run_in_background\":false}") != NULL,
	   "claude: ... numbers and booleans too, in order");
	ok(a.out != NULL && strstr(a.out, "permissionDecision") == NULL,
	   "claude: no permission decision (its own rules stay in force)");
	char *ev = answer_str(a.out, "hookSpecificOutput", "hookEventName", NULL);
	is_str(ev, "PreToolUse", "claude: hookEventName");
	free(ev);
	hook_answer_free(&a);
}

static void test_codex_gemini_cursor(void)
{
	struct hook_answer a;
	char in[1024];
	struct hook_env e = env("codex");
	snprintf(in, sizeof(in),
		 "{\"cwd\":\"%s\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
		 "\"tool_input\":{\"command\":\"ls\"}}",
		 ws);
	respond(&e, in, &a);
	char *cmd = answer_str(a.out, "hookSpecificOutput", "updatedInput", "command");
	char *dec = answer_str(a.out, "hookSpecificOutput", "permissionDecision", NULL);
	ok(a.exit_code == 0 && cmd != NULL && runs_exactly(cmd, ws, "ls", 2),
	   "codex: updatedInput.command wraps the command");
	is_str(dec, "allow", "codex: with permissionDecision allow (else Codex ignores it)");
	free(cmd);
	free(dec);
	hook_answer_free(&a);
	/* The JSON's cwd follows the model's exec_command workdir. */
	respond(&e,
		"{\"cwd\":\"/\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
		"\"tool_input\":{\"command\":\"ls\"}}",
		&a);
	cmd = answer_str(a.out, "hookSpecificOutput", "updatedInput", "command");
	ok(a.exit_code == 0 && cmd != NULL && runs_exactly(cmd, ws, "ls", 2),
	   "codex: a cwd the model chose (/) is not the workspace: the hook's own is");
	free(cmd);
	hook_answer_free(&a);

	e = env("gemini");
	e.projects[0] = ws;
	snprintf(in, sizeof(in),
		 "{\"cwd\":\"%s\",\"hook_event_name\":\"BeforeTool\",\"tool_name\":"
		 "\"run_shell_command\",\"tool_input\":{\"command\":\"ls\",\"dir_path\":\"sub\"}}",
		 ws);
	respond(&e, in, &a);
	cmd = answer_str(a.out, "hookSpecificOutput", "tool_input", "command");
	char *dp = answer_str(a.out, "hookSpecificOutput", "tool_input", "dir_path");
	ok(a.exit_code == 0 && cmd != NULL && runs_exactly(cmd, ws, "ls", 2),
	   "gemini: tool_input.command wraps the command");
	is_str(dp, "sub", "gemini: dir_path kept");
	free(cmd);
	free(dp);
	hook_answer_free(&a);

	e = env("cursor");
	snprintf(in, sizeof(in),
		 "{\"conversation_id\":\"c\",\"hook_event_name\":\"beforeShellExecution\","
		 "\"command\":\"ls\",\"cwd\":\"%s\",\"workspace_roots\":[\"%s\",\"%s\"]}",
		 sub, other, ws);
	respond(&e, in, &a);
	cmd = answer_str(a.out, "updated_input", "command", NULL);
	char *perm = answer_str(a.out, "permission", NULL, NULL);
	ok(a.exit_code == 0 && cmd != NULL && runs_exactly(cmd, ws, "ls", 2),
	   "cursor: the workspace root that holds cwd, not the first");
	is_str(perm, "allow", "cursor: permission allow");
	free(cmd);
	free(perm);
	hook_answer_free(&a);
}

/* The workspace: configured, else the project, else cwd; never a cwd
 * outside the project. */
static void test_workspace(void)
{
	struct hook_answer a;
	char in[1024];
	struct hook_env e = env("claude");
	snprintf(in, sizeof(in),
		 "{\"cwd\":\"%s\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
		 "\"tool_input\":{\"command\":\"ls\"}}",
		 other);
	e.projects[0] = ws;
	respond(&e, in, &a);
	char *cmd = answer_str(a.out, "hookSpecificOutput", "updatedInput", "command");
	ok(cmd != NULL && claude_runs_exactly(cmd, ws, CDF, "ls", 2),
	   "a cwd outside the agent's project: the workspace is still the project");
	free(cmd);
	hook_answer_free(&a);

	e.projects[0] = NULL;
	respond(&e, in, &a);
	cmd = answer_str(a.out, "hookSpecificOutput", "updatedInput", "command");
	ok(cmd != NULL && claude_runs_exactly(cmd, other, CDF, "ls", 2),
	   "no project named: the JSON's cwd");
	free(cmd);
	hook_answer_free(&a);

	e.workspace = sub;
	e.projects[0] = ws;
	respond(&e, in, &a);
	cmd = answer_str(a.out, "hookSpecificOutput", "updatedInput", "command");
	ok(cmd != NULL && claude_runs_exactly(cmd, sub, CDF, "ls", 2),
	   "CORDON_WORKSPACE comes first");
	free(cmd);
	hook_answer_free(&a);

	e.workspace = "relative/dir";
	respond(&e, in, &a);
	ok(a.exit_code == 2 && a.err != NULL && strstr(a.err, "configured workspace") != NULL,
	   "a relative CORDON_WORKSPACE: blocked");
	hook_answer_free(&a);
}

/* Every failure: the agent's block answer. */
static void test_blocks(void)
{
	static const char *const bad[] = {
		"",
		"not json",
		"[]",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\"}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":[]}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		"{\"command\":[\"ls\"]}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		"{\"command\":\"a\\u0000b\"}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		"{\"command\":\"ls\",\"command\":\"rm -rf ~\"}}",
		"{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		"{\"command\":\"ls\"}}",
		"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{\"command\":\"ls\"}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"cwd\":7,"
		"\"tool_input\":{\"command\":\"ls\"}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"cwd\":\"/nonexistent/x\","
		"\"tool_input\":{\"command\":\"ls\"}}",
	};
	struct hook_answer a;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hook_env e = env("claude");
		if (strstr(bad[i], "nonexistent") != NULL)
			e.cwd = NULL;
		respond(&e, bad[i], &a);
		ok(a.exit_code == 2 && a.err != NULL &&
			   strncmp(a.err, "cordon: blocked: ", 17) == 0 && a.out == NULL,
		   "claude, bad input [%zu]: exit 2 with the reason on stderr", i);
		hook_answer_free(&a);

		e.agent = "codex";
		respond(&e, bad[i], &a);
		char *dec = answer_str(a.out, "hookSpecificOutput", "permissionDecision", NULL);
		char *why =
			answer_str(a.out, "hookSpecificOutput", "permissionDecisionReason", NULL);
		ok(a.exit_code == 0 && dec != NULL && strcmp(dec, "deny") == 0 && why != NULL &&
			   strncmp(why, "cordon: blocked: ", 17) == 0,
		   "codex, bad input [%zu]: deny with the reason", i);
		free(dec);
		free(why);
		hook_answer_free(&a);
	}
	/* The same for the other agents, once. */
	struct hook_env e = env("gemini");
	respond(&e, "{", &a);
	ok(a.exit_code == 2 && a.err != NULL, "gemini, bad input: exit 2 with the reason");
	hook_answer_free(&a);
	e = env("cursor");
	respond(&e, "{", &a);
	char *perm = answer_str(a.out, "permission", NULL, NULL);
	char *msg = answer_str(a.out, "agent_message", NULL, NULL);
	ok(perm != NULL && strcmp(perm, "deny") == 0 && msg != NULL,
	   "cursor, bad input: permission deny with the reason for the agent");
	free(perm);
	free(msg);
	hook_answer_free(&a);
	e = env("nosuchagent");
	respond(&e, "{}", &a);
	ok(a.exit_code == 2 && a.err != NULL && strstr(a.err, "unknown agent") != NULL,
	   "an unknown agent: exit 2, which every agent takes as a block");
	hook_answer_free(&a);
	e = env("claude");
	e.sh = NULL;
	char in[512];
	snprintf(in, sizeof(in),
		 "{\"cwd\":\"%s\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\","
		 "\"tool_input\":{\"command\":\"ls\"}}",
		 ws);
	respond(&e, in, &a);
	ok(a.exit_code == 2 && a.err != NULL && strstr(a.err, "cordon-sh") != NULL,
	   "cordon-sh not found: blocked");
	hook_answer_free(&a);
}

static void test_too_long(void)
{
	struct hook_answer a;
	struct hook_env e = env("claude");
	size_t n = HOOK_MAX_ARG + 200;
	char *in = malloc(n + 200);
	int k = snprintf(
		in, 200,
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		"{\"command\":\"");
	memset(in + k, 'x', HOOK_MAX_ARG - 1);
	strcpy(in + k + HOOK_MAX_ARG - 1, "\"}}");
	respond(&e, in, &a);
	ok(a.exit_code == 2 && a.err != NULL && strstr(a.err, "longer than one argument") != NULL,
	   "a command of 131071 bytes: its wrapped line does not fit, blocked");
	hook_answer_free(&a);
	memset(in + k, '\'', 40000);
	strcpy(in + k + 40000, "\"}}");
	respond(&e, in, &a);
	ok(a.exit_code == 2, "40000 quotes (4 bytes each when quoted): blocked");
	hook_answer_free(&a);
	free(in);
}

/* Not a shell: no opinion. */
static void test_pass(void)
{
	struct hook_answer a;
	struct hook_env e = env("claude");
	respond(&e,
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Write\",\"tool_input\":"
		"{\"file_path\":\"/x\",\"content\":\"y\"}}",
		&a);
	ok(a.exit_code == 0 && a.out == NULL && a.err == NULL,
	   "claude Write: exit 0, nothing written (no opinion)");
	hook_answer_free(&a);
	e = env("codex");
	respond(&e,
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"apply_patch\",\"tool_input\":"
		"{\"command\":\"*** Begin Patch\"}}",
		&a);
	ok(a.exit_code == 0 && a.out == NULL,
	   "codex apply_patch (a command-shaped input that is no shell): left alone");
	hook_answer_free(&a);
	e = env("cursor");
	respond(&e, "{\"hook_event_name\":\"beforeMCPExecution\",\"tool_name\":\"q\"}", &a);
	is_str(a.out, "{}\n", "cursor, another event: an empty answer");
	hook_answer_free(&a);
}

/* Hostile commands come back byte-exact. */
static void test_quoting(void)
{
	static const char *const cmds[] = {
		"'",
		"''",
		"'\\''",
		"a'b'c",
		"$(touch /tmp/x)",
		"`id`",
		"echo \"$HOME\" \\\\ \\n",
		"line1\nline2\n",
		"\t\x01\x7f",
		"--workspace / -c 'x'",
		"caf\xc3\xa9 \xf0\x9f\x98\x80",
		"",
		"x'; rm -rf ~; echo '",
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int already;
		char *line = hook_wrap(SH, ws, NULL, cmds[i], strlen(cmds[i]), &already);
		ok(line != NULL && !already && runs_exactly(line, ws, cmds[i], strlen(cmds[i])),
		   "quoting [%zu]: the shell reads back exactly the command", i);
		free(line);
		line = hook_wrap(SH, ws, &cd, cmds[i], strlen(cmds[i]), &already);
		ok(line != NULL && !already &&
			   claude_runs_exactly(line, ws, CDF, cmds[i], strlen(cmds[i])),
		   "quoting [%zu], Claude's line: exactly the command too", i);
		free(line);
	}
	/* A NUL inside is refused before wrapping (test_blocks); the wrapper
	 * itself is exact for every other byte. */
	char all[255];
	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	int already;
	char *line = hook_wrap(SH, ws, NULL, all, sizeof(all), &already);
	struct jbuf b = { 0 };
	hook_quote(&b, all, sizeof(all));
	ok(line != NULL && strlen(line) > sizeof(all), "all 255 non-NUL bytes wrap");
	free(b.p);
	free(line);
}

/* Already wrapped: only cordon's exact line counts. */
static void test_already(void)
{
	int already;
	char *once = hook_wrap(SH, ws, NULL, "echo 'hi'", 9, &already);
	char *twice = hook_wrap(SH, ws, NULL, once, strlen(once), &already);
	ok(already && strcmp(once, twice) == 0, "wrapping cordon's own line again changes nothing");
	free(twice);

	/* Each spoof: before, what goes between, after. */
	const char *q = "'" SH "' --workspace '";
	struct {
		const char *a, *b, *c, *name;
	} spoofs[] = {
		{ "", once, "; touch /tmp/pwned", "its line followed by more" },
		{ "", once, " 'extra'", "its line with another word" },
		{ "true && ", once, "", "its line after another command" },
		{ "'" SH "' --workspace '/' -c 'touch /x'", "", "", "another workspace" },
		{ SH " --workspace '", ws, "' -c 'touch /x'", "the path unquoted" },
		{ q, ws, "' -c \"touch /x\"", "double quotes" },
		{ q, ws, "' -c \\'", "a quote written another way" },
		{ q, ws, "' -c 'a''b'", "two quoted runs side by side" },
		{ q, ws, "' -c ", "nothing after -c" },
		{ "'/usr/bin/cordon-sh' --workspace '", ws, "' -c 'x'", "another cordon-sh" },
		{ "'" SH "'  --workspace '", ws, "' -c 'x'", "two spaces" },
	};
	for (size_t i = 0; i < sizeof(spoofs) / sizeof(spoofs[0]); i++) {
		char spoof[1024];
		snprintf(spoof, sizeof(spoof), "%s%s%s", spoofs[i].a, spoofs[i].b, spoofs[i].c);
		char *line = hook_wrap(SH, ws, NULL, spoof, strlen(spoof), &already);
		ok(line != NULL && !already && runs_exactly(line, ws, spoof, strlen(spoof)),
		   "not taken as wrapped, wrapped again whole: %s", spoofs[i].name);
		free(line);
	}
	char *other_ws = hook_wrap(SH, sub, NULL, "x", 1, &already);
	char *line = hook_wrap(SH, ws, NULL, other_ws, strlen(other_ws), &already);
	ok(!already && runs_exactly(line, ws, other_ws, strlen(other_ws)),
	   "wrapped for another workspace: wrapped again for this one");
	free(line);
	free(other_ws);
	free(once);
}

/* Claude's line: recognised with any name hook_wrap could choose in the
 * same directory, and with nothing else. */
static void test_already_claude(void)
{
	int already;
	static const struct hook_cd other_name = { "/tmp",
						   "cordon-cd-ffffffffffffffffffffffffffffffff" };
	char *once = hook_wrap(SH, ws, &cd, "cd sub", 6, &already);
	char *twice = hook_wrap(SH, ws, &other_name, once, strlen(once), &already);
	ok(already && strcmp(once, twice) == 0,
	   "Claude's line wrapped again (another fresh name): left as it was");
	free(twice);
	static const char hard[] = "echo 'a; b' \\' ;x; '";
	char *q1 = hook_wrap(SH, ws, &cd, hard, strlen(hard), &already);
	char *q2 = hook_wrap(SH, ws, &cd, q1, strlen(q1), &already);
	ok(already && strcmp(q1, q2) == 0,
	   "... also when the command holds quotes, blanks and ';'");
	free(q1);
	free(q2);
	struct {
		const char *from, *to, *name;
	} spoofs[] = {
		{ CDF, "/home/u/.bashrc", "a cd file that is not cordon's name" },
		{ CDF, "/var/tmp/" CDN, "cordon's name in another directory" },
		{ CDF, "/tmp/cordon-cd-0123", "a short name" },
		{ CDF, "/tmp/cordon-cd-0123456789ABCDEF0123456789ABCDEF", "capital hex" },
		{ "(exit $__cordon_s)", "(exit 0)", "another tail" },
		{ "--cd-file", "--cd-file  ", "other blanks" },
	};
	for (size_t i = 0; i < sizeof(spoofs) / sizeof(spoofs[0]); i++) {
		/* once with every `from` replaced by `to` */
		char spoof[2048] = "";
		const char *p = once;
		for (const char *q; (q = strstr(p, spoofs[i].from)) != NULL;
		     p = q + strlen(spoofs[i].from)) {
			strncat(spoof, p, (size_t)(q - p));
			strcat(spoof, spoofs[i].to);
		}
		strcat(spoof, p);
		char *line = hook_wrap(SH, ws, &cd, spoof, strlen(spoof), &already);
		ok(line != NULL && !already &&
			   claude_runs_exactly(line, ws, CDF, spoof, strlen(spoof)),
		   "Claude's line, not taken as wrapped: %s", spoofs[i].name);
		free(line);
	}
	free(once);
}

int main(void)
{
	if (mkdtemp(root) == NULL)
		return 2;
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(sub, sizeof(sub), "%s/ws/sub", root);
	snprintf(other, sizeof(other), "%s/other", root);
	mkdir(ws, 0755);
	mkdir(sub, 0755);
	mkdir(other, 0755);
	unsetenv("CORDON_WORKSPACE");
	unsetenv("CORDON_PROFILE");
	unsetenv("CORDON_POLICY");
	setenv("XDG_CONFIG_HOME", root, 1); /* no user's agent.policy: the profile agent */
	test_claude();
	test_codex_gemini_cursor();
	test_workspace();
	test_blocks();
	test_too_long();
	test_pass();
	test_quoting();
	test_already();
	test_already_claude();
	rmdir(sub);
	rmdir(ws);
	rmdir(other);
	rmdir(root);
	return done_testing();
}
