#include "hook.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What each agent sends and how it answers. */
struct agent_fmt {
	const char *name;
	const char *event; /* hook_event_name of its pre-tool hook */
	const char *shell_tool; /* tool_name of its shell (NULL: the event is the shell's) */
};

static const struct agent_fmt fmts[] = {
	[HOOK_CLAUDE] = { "claude", "PreToolUse", "Bash" },
	[HOOK_CODEX] = { "codex", "PreToolUse", "Bash" },
	[HOOK_GEMINI] = { "gemini", "BeforeTool", "run_shell_command" },
	[HOOK_CURSOR] = { "cursor", "beforeShellExecution", NULL },
};

enum hook_agent hook_agent_parse(const char *name)
{
	for (int i = 0; i < HOOK_UNKNOWN; i++)
		if (name != NULL && strcmp(name, fmts[i].name) == 0)
			return (enum hook_agent)i;
	return HOOK_UNKNOWN;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The member key of object obj when it is a string without NUL bytes:
 * its node; JP_NONE when absent. -2 (as size_t) when present and not. */
#define NOT_TEXT ((size_t)-2)
static size_t text_member(const struct jp_doc *d, size_t obj, const char *key)
{
	size_t m = jp_member(d, obj, key);
	if (m == JP_NONE)
		return JP_NONE;
	if (d->nodes[m].kind != JP_STRING || strlen(d->nodes[m].s) != d->nodes[m].len)
		return NOT_TEXT;
	return m;
}

/* Cursor's workspace_roots: an array of strings, kept in call->roots. */
static int read_roots(struct hook_call *call, char *err, size_t errlen)
{
	const struct jp_doc *d = &call->doc;
	size_t r = jp_member(d, 0, "workspace_roots");
	if (r == JP_NONE)
		return 0;
	if (d->nodes[r].kind != JP_ARRAY)
		return fail(err, errlen, "workspace_roots is not an array");
	for (size_t c = jp_first(d, r); c != JP_NONE; c = d->nodes[c].next) {
		if (d->nodes[c].kind != JP_STRING || strlen(d->nodes[c].s) != d->nodes[c].len)
			return fail(err, errlen, "workspace_roots holds something not a path");
		if (call->nroots < sizeof(call->roots) / sizeof(call->roots[0]))
			call->roots[call->nroots++] = d->nodes[c].s;
	}
	return 0;
}

/* The event and the tool: whether this call is the agent's shell. */
static int read_tool(enum hook_agent a, struct hook_call *call, char *err, size_t errlen)
{
	const struct jp_doc *d = &call->doc;
	const struct agent_fmt *f = &fmts[a];
	size_t ev = text_member(d, 0, "hook_event_name");
	if (ev == JP_NONE || ev == NOT_TEXT)
		return fail(err, errlen, "the hook input names no hook_event_name");
	if (strcmp(d->nodes[ev].s, f->event) != 0) {
		if (a == HOOK_CURSOR)
			return 0; /* another of Cursor's events: not a shell command */
		return fail(err, errlen, "cordon hook %s belongs on the %s event, not %.64s",
			    f->name, f->event, d->nodes[ev].s);
	}
	if (f->shell_tool == NULL) {
		call->input = 0;
	} else {
		size_t tn = text_member(d, 0, "tool_name");
		if (tn == JP_NONE || tn == NOT_TEXT)
			return fail(err, errlen, "the hook input names no tool_name");
		if (strcmp(d->nodes[tn].s, f->shell_tool) != 0)
			return 0;
		call->input = jp_member(d, 0, "tool_input");
		if (call->input == JP_NONE || d->nodes[call->input].kind != JP_OBJECT)
			return fail(err, errlen, "the %s call has no tool_input object",
				    f->shell_tool);
	}
	call->command = jp_member(d, call->input, "command");
	if (call->command == JP_NONE || d->nodes[call->command].kind != JP_STRING)
		return fail(err, errlen, "the shell call has no command string");
	call->shell = 1;
	return 0;
}

int hook_read(enum hook_agent a, const char *json, size_t len, struct hook_call *call, char *err,
	      size_t errlen)
{
	static const struct jp_limits lim = { HOOK_MAX_INPUT, HOOK_MAX_DEPTH };
	char perr[160];
	memset(call, 0, sizeof(*call));
	call->input = call->command = JP_NONE;
	if (a == HOOK_UNKNOWN)
		return fail(err, errlen, "unknown agent");
	if (jp_parse(json, len, &lim, &call->doc, perr, sizeof(perr)) != 0)
		return fail(err, errlen, "the hook input is not JSON that cordon accepts (%s)",
			    perr);
	if (call->doc.nodes[0].kind != JP_OBJECT)
		return fail(err, errlen, "the hook input is not a JSON object");
	size_t cwd = text_member(&call->doc, 0, "cwd");
	if (cwd == NOT_TEXT)
		return fail(err, errlen, "the hook input's cwd is not a path");
	call->cwd = cwd == JP_NONE ? NULL : call->doc.nodes[cwd].s;
	if (a == HOOK_CURSOR && read_roots(call, err, errlen) != 0)
		return -1;
	return read_tool(a, call, err, errlen);
}

void hook_call_free(struct hook_call *call)
{
	jp_free(&call->doc);
	memset(call, 0, sizeof(*call));
}

void hook_quote(struct jbuf *b, const char *s, size_t len)
{
	jb_rawn(b, "'", 1);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\'')
			jb_rawn(b, "'\\''", 4);
		else
			jb_rawn(b, s + i, 1);
	}
	jb_rawn(b, "'", 1);
}

/* The word s[0..len) undone as hook_quote writes it (quoted runs, and \'
 * between them), into out; -1 when it is not made only of those. */
static int unquote(const char *s, size_t len, struct jbuf *out)
{
	size_t i = 0;
	if (len == 0)
		return -1;
	while (i < len) {
		if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\'') {
			jb_rawn(out, "'", 1);
			i += 2;
			continue;
		}
		if (s[i] != '\'')
			return -1;
		const char *end = memchr(s + i + 1, '\'', len - i - 1);
		if (end == NULL)
			return -1;
		jb_rawn(out, s + i + 1, (size_t)(end - (s + i + 1)));
		i = (size_t)(end - s) + 1;
	}
	return out->failed ? -1 : 0;
}

/* The line that runs cmd[0..len) under sh in ws; with f, one that also
 * carries the command's final directory to the agent's shell. */
static void line_for(struct jbuf *b, const char *sh, const char *ws, const char *f, const char *cmd,
		     size_t len)
{
	hook_quote(b, sh, strlen(sh));
	jb_raw(b, " --workspace ");
	hook_quote(b, ws, strlen(ws));
	if (f != NULL) {
		jb_raw(b, " --cd-file ");
		hook_quote(b, f, strlen(f));
	}
	jb_raw(b, " -c ");
	hook_quote(b, cmd, len);
	if (f == NULL)
		return;
	/* The agent's own shell, unconfined: cordon-sh's status kept, its
	 * final directory (checked by cordon-sh: inside the workspace)
	 * entered, the file removed, the status given back. After the cd
	 * nothing is looked up in PATH (a relative entry would find what the
	 * confined command left there): builtins and HOOK_RM only. */
	jb_raw(b, "; __cordon_s=$?; [ -s ");
	hook_quote(b, f, strlen(f));
	jb_raw(b, " ] && cd -- \"$(< ");
	hook_quote(b, f, strlen(f));
	jb_raw(b, ")\"; " HOOK_RM " -f -- ");
	hook_quote(b, f, strlen(f));
	jb_raw(b, "; (exit $__cordon_s)");
}

/* The length of the shell word at s: up to the first blank or ';'
 * outside quotes (hook_quote writes neither there). */
static size_t word_len(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && s[i] != ' ' && s[i] != ';') {
		if (s[i] == '\\') { /* \' outside quotes: a quote, taken as it is */
			i += 2;
			continue;
		}
		const char *e = s[i] == '\'' ? memchr(s + i + 1, '\'', len - i - 1) : NULL;
		if (s[i] == '\'' && e == NULL)
			return len;
		i = e != NULL ? (size_t)(e - s) + 1 : i + 1;
	}
	return i < len ? i : len;
}

/* 1 when f is a name hook_wrap could have chosen in cd->dir:
 * DIR/cordon-cd- and 32 hex digits. */
static int cd_name_ok(const struct hook_cd *cd, const char *f)
{
	size_t dl = strlen(cd->dir);
	if (strncmp(f, cd->dir, dl) != 0 || f[dl] != '/')
		return 0;
	const char *n = f + dl + 1;
	return strncmp(n, "cordon-cd-", 10) == 0 && strlen(n + 10) == 32 &&
	       strspn(n + 10, "0123456789abcdef") == 32;
}

/* The cd file named at the start of rest (a word, then " -c "), into f;
 * the bytes it took, or 0 when there is none hook_wrap would write. */
static size_t cd_word(const struct hook_cd *cd, const char *rest, size_t len, struct jbuf *f)
{
	size_t w = word_len(rest, len);
	if (unquote(rest, w, f) != 0 || f->p == NULL || strlen(f->p) != f->len ||
	    !cd_name_ok(cd, f->p) || len - w < 4 || memcmp(rest + w, " -c ", 4) != 0)
		return 0;
	return w + 4;
}

/* 1 when cmd is byte for byte the line hook_wrap writes for some inner
 * command (and, with cd, some cd file it could have chosen). */
static int already_wrapped(const char *sh, const char *ws, const struct hook_cd *cd,
			   const char *cmd, size_t len)
{
	struct jbuf pre = { 0 }, f = { 0 }, inner = { 0 }, again = { 0 };
	int same = 0;
	hook_quote(&pre, sh, strlen(sh));
	jb_raw(&pre, " --workspace ");
	hook_quote(&pre, ws, strlen(ws));
	jb_raw(&pre, cd != NULL ? " --cd-file " : " -c ");
	if (!pre.failed && len > pre.len && memcmp(cmd, pre.p, pre.len) == 0) {
		const char *rest = cmd + pre.len;
		size_t rl = len - pre.len, took = cd != NULL ? cd_word(cd, rest, rl, &f) : 0;
		if (cd == NULL || took > 0) {
			rest += took;
			rl -= took;
			size_t w = cd != NULL ? word_len(rest, rl) : rl;
			if (unquote(rest, w, &inner) == 0) {
				line_for(&again, sh, ws, f.p, inner.p != NULL ? inner.p : "",
					 inner.len);
				same = !again.failed && again.len == len &&
				       memcmp(again.p, cmd, len) == 0;
			}
		}
	}
	free(pre.p);
	free(f.p);
	free(inner.p);
	free(again.p);
	return same;
}

char *hook_wrap(const char *sh, const char *ws, const struct hook_cd *cd, const char *cmd,
		size_t len, int *already)
{
	struct jbuf b = { 0 }, f = { 0 };
	*already = already_wrapped(sh, ws, cd, cmd, len);
	if (*already) {
		jb_rawn(&b, cmd, len);
		return jb_finish(&b);
	}
	if (cd != NULL) {
		jb_raw(&f, cd->dir);
		jb_raw(&f, "/");
		jb_raw(&f, cd->name);
	}
	line_for(&b, sh, ws, cd != NULL ? f.p : NULL, cmd, len);
	free(f.p);
	if (f.failed)
		b.failed = 1;
	return jb_finish(&b);
}

int hook_allow(enum hook_agent a, const struct hook_call *call, const char *cmd,
	       struct hook_answer *ans)
{
	struct jbuf b = { 0 };
	memset(ans, 0, sizeof(*ans));
	if (a == HOOK_CURSOR) {
		jb_raw(&b, "{\"permission\":\"allow\",\"updated_input\":{\"command\":");
		jb_str(&b, cmd);
		jb_raw(&b, "}}\n");
	} else {
		jb_raw(&b, "{\"hookSpecificOutput\":{\"hookEventName\":");
		jb_str(&b, fmts[a].event);
		/* Codex applies updatedInput only with "allow"; Claude Code
		 * without a decision keeps its own permission rules in force. */
		if (a == HOOK_CODEX)
			jb_raw(&b, ",\"permissionDecision\":\"allow\"");
		jb_raw(&b, a == HOOK_GEMINI ? ",\"tool_input\":" : ",\"updatedInput\":");
		jp_emit(&b, &call->doc, call->input, call->command, cmd, strlen(cmd));
		jb_raw(&b, "}}\n");
	}
	ans->out = jb_finish(&b);
	return ans->out != NULL ? 0 : -1;
}

void hook_block(enum hook_agent a, const char *reason, struct hook_answer *ans)
{
	char line[700];
	memset(ans, 0, sizeof(*ans));
	/* One line, whatever the reason holds. */
	size_t n = 0;
	for (const char *r = reason; *r != '\0' && n < sizeof(line) - 1; r++) {
		if ((unsigned char)*r < 0x20)
			line[n++] = ' ';
		else
			line[n++] = *r;
	}
	line[n] = '\0';
	struct jbuf b = { 0 };
	if (a == HOOK_CODEX) {
		jb_raw(&b, "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
			   "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":");
		jb_str(&b, line);
		jb_raw(&b, "}}\n");
	} else if (a == HOOK_CURSOR) {
		jb_raw(&b, "{\"permission\":\"deny\",\"user_message\":");
		jb_str(&b, line);
		jb_raw(&b, ",\"agent_message\":");
		jb_str(&b, line);
		jb_raw(&b, "}\n");
	}
	char *j = jb_finish(&b);
	if (j != NULL && strlen(j) < sizeof(ans->fixed_out)) {
		memcpy(ans->fixed_out, j, strlen(j) + 1);
		ans->out = ans->fixed_out;
	}
	free(j);
	snprintf(ans->fixed_err, sizeof(ans->fixed_err), "%s\n", line);
	ans->err = ans->fixed_err;
	/* Claude Code and Gemini CLI block on exit 2 (any other failure
	 * runs the command); so does an agent cordon does not know. */
	ans->exit_code = a == HOOK_CODEX || a == HOOK_CURSOR ? 0 : 2;
	if (ans->exit_code == 0 && ans->out == NULL) {
		ans->exit_code = 2; /* no JSON: the exit status must block */
	}
}

void hook_pass(enum hook_agent a, struct hook_answer *ans)
{
	memset(ans, 0, sizeof(*ans));
	if (a == HOOK_CURSOR) {
		memcpy(ans->fixed_out, "{}\n", 4);
		ans->out = ans->fixed_out;
	}
}

void hook_answer_free(struct hook_answer *ans)
{
	if (ans->out != ans->fixed_out)
		free(ans->out);
	ans->out = ans->err = NULL;
}
