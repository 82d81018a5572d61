/*
 * The Seatbelt profile's hold on agent configuration below the guard's
 * levels (src/macos/seatbelt-held.c), on Linux: the escaping of a path
 * for the regex syntax, checked against POSIX extended regular
 * expressions (glibc's regcomp, in the C locale: byte by byte), the
 * expression each project tree gets, what cannot be written and is
 * refused instead, and the parameters and rules the argv builder makes
 * from a policy: one pattern per outermost tree, none for the temp dir
 * or a cache, the --allow-agent-config paths allowed again (only inside
 * a tree), nothing without the guard.
 */
#include "agentcfg.h"
#include "backend.h"
#include "seatbelt.h"
#include "tap.h"
#include "sbargv.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* seatbelt_regex_quote of s into a string, or NULL when refused. */
static char *quote(const char *s, int fold)
{
	struct jbuf b = { 0 };
	int r = seatbelt_regex_quote(&b, s, strlen(s), fold);
	char *text = jb_finish(&b);
	if (r != 0) {
		free(text);
		return NULL;
	}
	return text != NULL ? text : strdup(""); /* nothing appended */
}

static void quoting(void)
{
	static const struct {
		const char *in, *want;
		int fold;
	} cases[] = {
		{ "/plain/path-1_2,3=4", "/plain/path-1_2,3=4", 0 },
		{ "/a.b", "/a\\.b", 0 },
		{ "^.[$()|*+?{\\", "\\^\\.\\[\\$\\(\\)\\|\\*\\+\\?\\{\\\\", 0 },
		{ "]}", "]}", 0 }, /* ordinary alone */
		{ "sp ace \"q\" 'q' #\"x\" ;~!@%&`<>:", "sp ace \"q\" 'q' #\"x\" ;~!@%&`<>:", 0 },
		{ "/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/x\xf0\x9f\x98\x80y",
		  "/caf[^/]+/[^/]+/x[^/]+y", 0 },
		{ "Ab.z", "Ab\\.z", 0 }, /* no fold: as it is */
		{ "Ab.z", "[aA][bB]\\.[zZ]", 1 },
		{ ".vscode", "\\.[vV]([sS]|[^ -~]+)[cC][oO][dD][eE]", 1 },
		{ "k9-", "([kK]|[^ -~]+)9-", 1 },
		{ "", "", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = quote(cases[i].in, cases[i].fold);
		is_str(got, cases[i].want, "quote%s %s", cases[i].fold ? " (fold)" : "",
		       cases[i].in);
		free(got);
	}
	/* Bytes whose reading by Seatbelt's matcher is not known: refused,
	 * never written as something else. */
	static const char *const refused[] = {
		"/w/new\nline",	       "/w/tab\t", "/w/cr\r", "/w/del\x7f",
		"/w/esc\x1b[0m",       "/w/\xff",  "/w/\xc3", "/w/\xc0\x80", /* overlong */
		"/w/\xed\xa0\x80", /* a UTF-16 surrogate */
		"/w/\xf4\x90\x80\x80", /* past U+10FFFF */
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char *got = quote(refused[i], 0);
		ok(got == NULL, "refused: a control character or bytes not UTF-8 (case %zu)", i);
		free(got);
	}
}

static const char *const two[] = { ".claude", ".env" };

static void expression(void)
{
	char *re = NULL;
	is_int(seatbelt_below_regex("/ws", two, 2, &re), 0, "a tree's expression");
	is_str(re, "^/ws/(.+/)?(\\.[cC][lL][aA][uU][dD][eE]|\\.[eE][nN][vV])(/|$)",
	       "^TREE/(.+/)?(NAMES)(/|$), the names in either case");
	free(re);
	is_int(seatbelt_below_regex("/", two, 2, &re), 0, "the tree /");
	ok(re != NULL && strncmp(re, "^/(.+/)?(", 9) == 0, "/ has no component before the slash");
	free(re);
	re = (char *)1;
	is_int(seatbelt_below_regex("/w/new\nline", two, 2, &re), 1,
	       "a tree with a newline: not written");
	ok(re == NULL, "... and no expression");
	is_int(seatbelt_below_regex("/w/\xff", two, 2, &re), 1, "bytes not UTF-8: not written");
	is_int(seatbelt_below_regex("relative", two, 2, &re), 1, "a relative tree: not written");
	is_int(seatbelt_below_regex("/ws", two, 0, &re), 1, "no names: nothing to write");
}

/* The expression for tree against a path, by POSIX ERE (1: matches). */
static int matches(const regex_t *rx, const char *tree, const char *rest)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s%s", strcmp(tree, "/") == 0 ? "" : tree, rest);
	return regexec(rx, path, 0, NULL, 0) == 0;
}

/* Trees whose every special character must stay itself, each with a path
 * the same characters read as syntax would match. */
static const struct {
	const char *tree, *impostor;
} nasty[] = {
	{ "/w/a.b", "/w/aXb" },
	{ "/w/a+b", "/w/aab" },
	{ "/w/a*b", "/w/b" },
	{ "/w/ab?", "/w/a" },
	{ "/w/(x)", "/w/x" },
	{ "/w/[ab]", "/w/a" },
	{ "/w/a|b", "/w/b" },
	{ "/w/x{2}", "/w/xx" },
	{ "/w/^a", "/w/a" },
	{ "/w/a$b", "/w/a" },
	{ "/w/back\\slash", "/w/backslash" },
	{ "/w/back\\.x", "/w/back\\ax" },
	{ "/w/back\\.y", "/w/back.y" },
	{ "/w/q\"uote and 'sp ace'", "/w/q\"uote and 'sp acex'" },
	{ "/w/#\")))(allow default)", "/w/#\"allow default" },
	{ "/w/]}", "/w/]}x" },
	{ "/Users/u/Proj", "/Users/u/proj" }, /* the tree's case is its own */
	{ "/w/caf\xc3\xa9", "/w/caf" }, /* not ASCII: one character or more */
	{ "/", NULL },
};

static void against_posix(void)
{
	const char *const *names = agentcfg_names;
	size_t n = agentcfg_nnames;
	for (size_t i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++) {
		const char *t = nasty[i].tree;
		char *re = NULL;
		regex_t rx;
		if (seatbelt_below_regex(t, names, n, &re) != 0 ||
		    regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) {
			ok(0, "%s: the expression compiles", t);
			free(re);
			continue;
		}
		ok(matches(&rx, t, "/.claude") && matches(&rx, t, "/.claude/settings.json") &&
			   matches(&rx, t, "/a/b/.CLAUDE/skills/x/SKILL.md") &&
			   matches(&rx, t, "/pkg/.Vscode/tasks.json") &&
			   matches(&rx, t, "/sub/.env") && matches(&rx, t, "/sub/.mcp.json") &&
			   matches(&rx, t, "/x/opencode.jsonc") &&
			   matches(&rx, t, "/x/.aider.conf.yml") &&
			   matches(&rx, t,
				   "/x/.v\xc5\xbf"
				   "code/tasks.json"),
		   "%s: each held name at any depth, in any case, as itself or a tree", t);
		ok(!matches(&rx, t, "/x.claude") && !matches(&rx, t, "/.claudex") &&
			   !matches(&rx, t, "/.claude.bak") && !matches(&rx, t, "/sub/env") &&
			   !matches(&rx, t, "/sub/.en") && !matches(&rx, t, "/sub/.env.example") &&
			   !matches(&rx, t, "/.vscode-test/x") && !matches(&rx, t, "/mcp.json") &&
			   !matches(&rx, t, "") && !matches(&rx, t, "/src/main.c"),
		   "%s: not another name, nor the tree itself", t);
		char below_elsewhere[512];
		snprintf(below_elsewhere, sizeof(below_elsewhere), "%s/.claude", t);
		if (nasty[i].impostor != NULL)
			ok(!matches(&rx, nasty[i].impostor, "/.claude") &&
				   !matches(&rx, nasty[i].impostor, "/sub/.claude") &&
				   !matches(&rx, "/elsewhere", below_elsewhere),
			   "%s: its special characters are not syntax (%s is another tree)", t,
			   nasty[i].impostor);
		regfree(&rx);
		free(re);
	}
}

/* Random trees of every printable character (and some that are not
 * ASCII): each compiles, holds the tree's names, and no tree that differs
 * from it in one ASCII byte. */
static void random_trees(void)
{
	static const char alphabet[] = " !\"#$%&'()*+,-.0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~";
	int bad = 0;
	srand(12345);
	for (int k = 0; k < 2000 && bad < 5; k++) {
		char tree[64], other[64];
		size_t len = 1 + (size_t)(rand() % 20), j = 0;
		tree[j++] = '/';
		for (size_t i = 0; i < len; i++) {
			/* A canonical path: no "//", no '/' at the end. */
			int slash = rand() % 16 == 0 && tree[j - 1] != '/' && i + 1 < len;
			tree[j++] = slash ? '/' : alphabet[rand() % (sizeof(alphabet) - 1)];
		}
		tree[j] = '\0';
		memcpy(other, tree, j + 1);
		size_t at = 1 + (size_t)rand() % (j - 1);
		char was = other[at];
		do
			other[at] = alphabet[rand() % (sizeof(alphabet) - 1)];
		while (other[at] == was);
		char *re = NULL;
		regex_t rx;
		if (seatbelt_below_regex(tree, agentcfg_names, agentcfg_nnames, &re) != 0 ||
		    regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) {
			diag("does not compile: %s -> %s", tree, re ? re : "(none)");
			free(re);
			bad++;
			continue;
		}
		if (!matches(&rx, tree, "/d/.claude/x") || matches(&rx, other, "/d/.claude/x")) {
			diag("wrong: %s (%s) -> %s", tree, other, re);
			bad++;
		}
		regfree(&rx);
		free(re);
	}
	is_int(bad, 0, "2000 random trees: each holds its own names, none of a tree one byte off");
}

static void add(struct policy *p, const char *path, int is_dir, enum wkind kind)
{
	if (policy_add_writable(p, path, is_dir, kind) != 0)
		abort();
}

static int is_regex_of(const char *got, const char *tree)
{
	char *re = NULL;
	int same = seatbelt_below_regex(tree, agentcfg_names, agentcfg_nnames, &re) == 0 &&
		   got != NULL && strcmp(got, re) == 0;
	free(re);
	return same;
}

static void argv_params(void)
{
	struct policy p;
	struct strv argv;
	struct sb_shape s;
	memset(&p, 0, sizeof(p));
	p.workspace = strdup("/ws");
	add(&p, "/ws", 1, W_WORKSPACE);
	add(&p, "/ws/sub", 1, W_EXTRA); /* inside the workspace: its rule covers it */
	add(&p, "/other (1)+", 1, W_EXTRA);
	add(&p, "/notes/.env", 0, W_EXTRA); /* a file: no tree */
	add(&p, "/cache/npm", 1, W_CACHE);
	add(&p, "/state/runs/Ab12", 1, W_TMPDIR);
	is_int(build(&p, &argv, &s), 0, "without the guard: builds");
	ok(s.below == 0 && s.agent_allows == 0 && param_value(&argv, "AGENT_BELOW_0") == NULL &&
		   strstr(argv.v[2], "AGENT_") == NULL,
	   "without the guard (--no-default-protect): no pattern, no rule");
	strv_free(&argv);

	p.held_names = agentcfg_names;
	p.nheld_names = agentcfg_nnames;
	if (strv_push(&p.agent_opted, "/ws/sub/.vscode") != 0 ||
	    strv_push(&p.agent_opted, "/elsewhere/.claude") != 0 ||
	    strv_push(&p.agent_opted, "/state/runs/Ab12/.claude") != 0)
		abort();
	is_int(build(&p, &argv, &s), 0, "with the guard: builds");
	ok(s.below == 2 && s.unexpressed == 0, "two patterns: the workspace and the outer tree");
	ok(is_regex_of(param_value(&argv, "AGENT_BELOW_0"), "/ws"),
	   "AGENT_BELOW_0: the workspace's expression");
	ok(is_regex_of(param_value(&argv, "AGENT_BELOW_1"), "/other (1)+"),
	   "AGENT_BELOW_1: the --allow-write tree's, escaped: %s",
	   param_value(&argv, "AGENT_BELOW_1"));
	ok(param_value(&argv, "AGENT_BELOW_2") == NULL,
	   "none for a tree inside another, a file, a cache or the temp dir");
	ok(s.agent_allows == 1 && param_value(&argv, "AGENT_ALLOW_0") != NULL &&
		   strcmp(param_value(&argv, "AGENT_ALLOW_0"), "/ws/sub/.vscode") == 0 &&
		   param_value(&argv, "AGENT_ALLOW_1") == NULL,
	   "the --allow-agent-config path in a tree is allowed again; none outside the trees");
	const char *profile = argv.v[2];
	ok(strstr(profile, "(deny file-write* file-link (regex (param \"AGENT_BELOW_1\")))\n") &&
		   strstr(profile,
			  "(allow file-write* file-link (literal (param \"AGENT_ALLOW_0\")) "
			  "(subpath (param \"AGENT_ALLOW_0\")))\n"),
	   "the profile denies by each pattern and allows the opted-out path again");
	ok(strchr(profile, '\\') == NULL && strstr(profile, "/ws") == NULL &&
		   strstr(profile, "claude") == NULL && strstr(profile, "other") == NULL,
	   "no byte of a tree or a name in the profile: only parameters");
	char *text = strdup(profile);
	strv_free(&argv);

	/* The same shape with other bytes: the same profile text. */
	struct policy q;
	struct strv qargv;
	struct sb_shape qs;
	memset(&q, 0, sizeof(q));
	q.workspace = strdup("/[w]s");
	add(&q, "/[w]s", 1, W_WORKSPACE);
	add(&q, "/[w]s/x", 1, W_EXTRA);
	add(&q, "/o\"th$er", 1, W_EXTRA);
	add(&q, "/n", 0, W_EXTRA);
	add(&q, "/c", 1, W_CACHE);
	add(&q, "/s/r", 1, W_TMPDIR);
	q.held_names = agentcfg_names;
	q.nheld_names = agentcfg_nnames;
	if (strv_push(&q.agent_opted, "/[w]s/x/.idea") != 0)
		abort();
	is_int(build(&q, &qargv, &qs), 0, "the same shape, other paths: builds");
	ok(qs.below == s.below && qs.agent_allows == s.agent_allows,
	   "... of the same shape (%zu patterns, %zu allowed)", qs.below, qs.agent_allows);
	is_str(qargv.v[2], text, "the profile text is byte-identical whatever the paths");
	free(text);
	strv_free(&qargv);
	policy_free(&q);

	/* A tree whose path cannot be written: no rule for it, and counted
	 * (the run reports the gap agent_config_depth_partial). */
	memset(&q, 0, sizeof(q));
	q.workspace = strdup("/ws/new\nline");
	add(&q, "/ws/new\nline", 1, W_WORKSPACE);
	add(&q, "/good", 1, W_EXTRA);
	q.held_names = agentcfg_names;
	q.nheld_names = agentcfg_nnames;
	is_int(build(&q, &qargv, &qs), 0, "a tree with a newline: builds");
	ok(qs.unexpressed == 1 && qs.below == 1 &&
		   is_regex_of(param_value(&qargv, "AGENT_BELOW_0"), "/good") &&
		   param_value(&qargv, "AGENT_BELOW_1") == NULL,
	   "that tree gets no rule and is counted; the other one keeps its own");
	strv_free(&qargv);
	policy_free(&q);
	policy_free(&p);

	/* The trees are the workspace and the --allow-write directories,
	 * whichever writable entry covers them: an --allow-write parent of
	 * the workspace (its rule covers the workspace), a cache that holds
	 * the workspace (which stays held). */
	memset(&q, 0, sizeof(q));
	q.workspace = strdup("/p/ws");
	add(&q, "/p/ws", 1, W_WORKSPACE);
	add(&q, "/p", 1, W_EXTRA); /* takes the workspace's entry's place */
	q.held_names = agentcfg_names;
	q.nheld_names = agentcfg_nnames;
	is_int(build(&q, &qargv, &qs), 0, "--allow-write of the workspace's parent: builds");
	ok(qs.below == 1 && is_regex_of(param_value(&qargv, "AGENT_BELOW_0"), "/p"),
	   "one pattern, the parent's, which covers the workspace");
	strv_free(&qargv);
	policy_free(&q);
	memset(&q, 0, sizeof(q));
	q.workspace = strdup("/c/src/ws");
	add(&q, "/c", 1, W_CACHE);
	add(&q, "/c/src/ws", 1, W_WORKSPACE); /* covered by the cache: not added */
	q.held_names = agentcfg_names;
	q.nheld_names = agentcfg_nnames;
	is_int(build(&q, &qargv, &qs), 0, "a workspace inside a cache: builds");
	ok(q.nw == 1 && qs.below == 1 &&
		   is_regex_of(param_value(&qargv, "AGENT_BELOW_0"), "/c/src/ws"),
	   "the workspace keeps its pattern (not the cache's whole tree)");
	strv_free(&qargv);
	policy_free(&q);
}

int main(void)
{
	quoting();
	expression();
	against_posix();
	random_trees();
	argv_params();
	return done_testing();
}
