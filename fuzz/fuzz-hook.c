/*
 * Fuzz target for cordon hook's pure part (cli/hook.c) and cordon-sh's
 * reading of Claude Code's string (cli/shargs.c). The first byte picks
 * the agent, the rest is the hook input. Whatever it is:
 *  - a call read as a shell command wraps into a line that a shell splits
 *    (tests/unit/shwords.h, independent of hook.c) into exactly
 *    SH --workspace WS -c COMMAND, the command byte for byte; wrapping
 *    that line again gives it back unchanged, and it is "already wrapped";
 *  - the allow answer is valid JSON, and the command it carries is that
 *    line;
 *  - the block answer for the same agent is valid JSON or nothing, its
 *    reason on one line, and its exit status blocks (2, or 0 with a deny);
 *  - a cwd file found in the input (as a Claude string) is one name in
 *    /tmp: /tmp/claude-HEX-cwd, nothing else.
 */
#include "hook.h"
#include "json-check.h"
#include "shargs.h"
#include "shwords.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SH "/usr/local/bin/cordon-sh"
#define WS "/home/u/project it's"
static const struct hook_cd cd = { "/tmp", "cordon-cd-0123456789abcdef0123456789abcdef" };

/* The line's part before its tail (Claude's line: the tail enters the
 * directory), as split_words takes it. */
static void check_line(const char *line, const char *cmd, size_t len, const struct hook_cd *c)
{
	struct words w;
	char *head = strdup(line);
	if (head == NULL)
		abort();
	if (c != NULL) {
		/* The tail is the last one (the command may hold its text). */
		char *t = NULL;
		for (char *p = strstr(head, "'; __cordon_s=$?; [ -s "); p != NULL;
		     p = strstr(p + 1, "'; __cordon_s=$?; [ -s "))
			t = p;
		if (t == NULL)
			abort();
		t[1] = '\0';
	}
	size_t want = c != NULL ? 7 : 5, at = want - 1;
	int r = split_words(head, &w);
	free(head);
	if (r != 0 || w.n != want || strcmp(w.w[0], SH) != 0 ||
	    strcmp(w.w[1], "--workspace") != 0 || strcmp(w.w[2], WS) != 0 ||
	    strcmp(w.w[at - 1], "-c") != 0 || w.len[at] != len || memcmp(w.w[at], cmd, len) != 0)
		abort();
	words_free(&w);
	int already;
	char *again = hook_wrap(SH, WS, c, line, strlen(line), &already);
	if (again == NULL || !already || strcmp(again, line) != 0)
		abort();
	free(again);
}

static void check_allow(enum hook_agent a, const struct hook_call *call, const char *line)
{
	struct hook_answer ans;
	if (hook_allow(a, call, line, &ans) != 0)
		abort();
	size_t n = strlen(ans.out);
	if (n == 0 || ans.out[n - 1] != '\n')
		abort();
	ans.out[n - 1] = '\0';
	if (!valid_json(ans.out, n - 1) || strstr(ans.out, "\"deny\"") != NULL)
		abort();
	/* The line is in the answer, as jb_str writes it. */
	struct jbuf b = { 0 };
	jb_str(&b, line);
	char *quoted = jb_finish(&b);
	if (quoted == NULL || strstr(ans.out, quoted) == NULL)
		abort();
	free(quoted);
	hook_answer_free(&ans);
}

static void check_block(enum hook_agent a, const char *reason)
{
	struct hook_answer ans;
	hook_block(a, reason, &ans);
	if (ans.err == NULL || strchr(ans.err, '\n') != ans.err + strlen(ans.err) - 1)
		abort();
	if (ans.out != NULL) {
		size_t n = strlen(ans.out);
		ans.out[n - 1] = '\0';
		if (!valid_json(ans.out, n - 1) || strstr(ans.out, "deny") == NULL)
			abort();
	}
	if (!(ans.exit_code == 2 || (ans.exit_code == 0 && ans.out != NULL)))
		abort();
	hook_answer_free(&ans);
}

static void check_cwd_file(const char *s)
{
	char out[256];
	if (sh_claude_cwd_file(s, NULL, out, sizeof(out)) != 0)
		return;
	size_t n = strlen(out);
	if (strncmp(out, "/tmp/claude-", 12) != 0 || n < 17 || strcmp(out + n - 4, "-cwd") != 0 ||
	    strspn(out + 12, "0123456789abcdef") != n - 16)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	enum hook_agent a = (enum hook_agent)(data[0] % 4);
	const char *json = (const char *)data + 1;
	struct hook_call call;
	char err[600];

	char *s = malloc(size);
	if (s == NULL)
		return 0;
	memcpy(s, json, size - 1);
	s[size - 1] = '\0';
	check_cwd_file(s);
	check_block(a, s);
	free(s);

	if (hook_read(a, json, size - 1, &call, err, sizeof(err)) != 0) {
		check_block(a, err);
	} else if (call.shell) {
		const struct jp_node *c = &call.doc.nodes[call.command];
		if (memchr(c->s, '\0', c->len) == NULL) {
			int already;
			const struct hook_cd *carry = a == HOOK_CLAUDE ? &cd : NULL;
			char *line = hook_wrap(SH, WS, carry, c->s, c->len, &already);
			if (line == NULL)
				abort();
			if (!already)
				check_line(line, c->s, c->len, carry);
			check_allow(a, &call, line);
			free(line);
		}
	}
	hook_call_free(&call);
	return 0;
}
