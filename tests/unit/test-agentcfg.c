/*
 * The agent-config guard's parts: the names it holds and the directories
 * it holds them in (agentcfg.c, pure), and a held tree recorded at the
 * start and judged at the end (heldtree.c): what the run made or changed
 * is moved aside into the tree beside it, what it removed or changed is
 * put back, within the bounds. Every check looks at the files themselves.
 */
#include "agentcfg.h"
#include "gitjudge.h"
#include "handle.h"
#include "heldtree.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[CORDON_PATH_MAX];
#define RUN "0123abcd" /* the run id's first 8 digits, in moved-aside names */

static const char *at(const char *rel)
{
	static char buf[8][CORDON_PATH_MAX + 64];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, rel);
	return buf[k];
}

static void put(const char *rel, const char *text, mode_t mode)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) != 0)
		exit(2);
	close(fd);
}

/* The file's content ("" when it cannot be read, "ABSENT" when missing). */
static const char *content(const char *rel)
{
	static char buf[4][256];
	static int k;
	k = (k + 1) % 4;
	int fd = open(at(rel), O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? "ABSENT" : "";
	ssize_t n = read(fd, buf[k], sizeof(buf[k]) - 1);
	close(fd);
	buf[k][n > 0 ? n : 0] = '\0';
	return buf[k];
}

static int missing(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) != 0 && errno == ENOENT;
}

static mode_t mode_of(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) == 0 ? st.st_mode & 07777 : 0;
}

/* Whether path's tampered entry is listed, moved to moved ("" for not
 * moved, NULL for anywhere). */
static int listed(const cordon *c, const char *path, const char *moved)
{
	for (size_t i = 0; i < cordon_tampered_count(c); i++)
		if (strcmp(cordon_tampered_path(c, i), path) == 0)
			return moved == NULL || strcmp(cordon_tampered_moved(c, i), moved) == 0;
	return 0;
}

static int has(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return 1;
	return 0;
}

static void names(void)
{
	static const char *const must[] = { ".claude",	 ".gemini",	  ".codex",
					    ".cursor",	 ".vscode",	  ".mcp.json",
					    ".idea",	 ".devcontainer", ".zed",
					    ".opencode", "opencode.json", ".env" };
	static const char *const never[] = { "AGENTS.md", "CLAUDE.md", "GEMINI.md",
					     ".envrc",	  ".git",      ".husky" };
	int all = 1, none = 1;
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
		int found = 0;
		for (size_t k = 0; k < agentcfg_nnames; k++)
			found |= strcmp(agentcfg_names[k], must[i]) == 0;
		if (!found)
			diag("%s is not held", must[i]);
		all &= found;
	}
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		for (size_t k = 0; k < agentcfg_nnames; k++)
			if (strcmp(agentcfg_names[k], never[i]) == 0) {
				diag("%s is held", never[i]);
				none = 0;
			}
	ok(all, "the agents' configuration directories and files are held");
	ok(none, "instructions (AGENTS.md...), .envrc and git's files are not");
	int plain = 1;
	for (size_t k = 0; k < agentcfg_nnames; k++)
		plain &= strchr(agentcfg_names[k], '/') == NULL && agentcfg_names[k][0] != '\0';
	ok(plain, "each is one path component");
}

static void levels(void)
{
	struct policy p;
	struct strv out = { 0 };
	memset(&p, 0, sizeof(p));
	p.workspace = strdup("/ws");
	if (policy_add_writable(&p, "/ws", 1, W_WORKSPACE) != 0 ||
	    policy_add_writable(&p, "/extra", 1, W_EXTRA) != 0 ||
	    policy_add_writable(&p, "/file", 0, W_EXTRA) != 0 ||
	    policy_add_writable(&p, "/cache", 1, W_CACHE) != 0 ||
	    policy_add_writable(&p, "/state/runs/X", 1, W_TMPDIR) != 0)
		exit(2);
	p.cwd = strdup("/ws");
	is_int(agentcfg_levels(&p, &out), 0, "levels");
	ok(out.n == 2 && has(&out, "/ws") && has(&out, "/extra"),
	   "the workspace and an --allow-write directory; not a file, a cache or the run's dir "
	   "(%zu)",
	   out.n);
	strv_free(&out);
	free(p.cwd);
	p.cwd = strdup("/ws/a/bb/c");
	(void)agentcfg_levels(&p, &out);
	ok(out.n == 5 && has(&out, "/ws/a") && has(&out, "/ws/a/bb") && has(&out, "/ws/a/bb/c"),
	   "each directory down to the working directory (%zu)", out.n);
	strv_free(&out);
	free(p.cwd);
	p.cwd = strdup("/extra/x");
	(void)agentcfg_levels(&p, &out);
	ok(out.n == 3 && has(&out, "/extra/x"), "... also below an --allow-write directory");
	strv_free(&out);
	free(p.cwd);
	p.cwd = strdup("/elsewhere/x");
	(void)agentcfg_levels(&p, &out);
	ok(out.n == 2, "a working directory outside them adds nothing");
	strv_free(&out);
	free(p.cwd);
	p.cwd = strdup("/wsx/y"); /* "/ws" is a string prefix only */
	(void)agentcfg_levels(&p, &out);
	ok(out.n == 2, "a sibling whose name starts with the workspace's adds nothing");
	strv_free(&out);
	free(p.cwd);
	p.cwd = NULL;
	(void)agentcfg_levels(&p, &out);
	ok(out.n == 2, "no working directory chosen: the trees only");
	strv_free(&out);
	policy_free(&p);

	memset(&p, 0, sizeof(p));
	p.workspace = strdup("/"); /* --allow-broad */
	p.cwd = strdup("/a/b");
	(void)agentcfg_levels(&p, &out);
	ok(out.n == 3 && has(&out, "/") && has(&out, "/a") && has(&out, "/a/b"),
	   "from / down (%zu)", out.n);
	strv_free(&out);
	policy_free(&p);
}

/* A handle whose writable set is top/ws, with a run id and the list of
 * what a run left, as cordon_begin makes them. */
static cordon *handle(void)
{
	cordon *c = cordon_new();
	if (c == NULL || policy_add_writable(&c->pol, at("ws"), 1, W_WORKSPACE) != 0 ||
	    (c->pol.workspace = strdup(at("ws"))) == NULL || gitguard_open(c) != 0)
		exit(2);
	memcpy(c->run_id, RUN "0123456789abcdef0123456789ab", 33);
	return c;
}

/* .claude as a user has it. */
static void claude_tree(void)
{
	if (system("rm -rf ws && mkdir -p ws/.claude/hooks ws/.claude/skills/mine") != 0)
		exit(2);
	put("ws/.claude/settings.json", "{\"user\": 1}", 0640);
	put("ws/.claude/hooks/check.sh", "#!/bin/sh\n", 0755);
	put("ws/.claude/skills/mine/SKILL.md", "mine", 0644);
	if (symlink("hooks/check.sh", at("ws/.claude/link")) != 0)
		exit(2);
}

static void judged(void)
{
	struct held_budget b = { HT_ENTRIES_MAX, HT_BYTES_MAX };
	claude_tree();
	struct heldtree *t = heldtree_record(at("ws/.claude"), &b);
	ok(t != NULL && !heldtree_partial(t) && heldtree_size(t) == 8,
	   "recorded whole: 8 entries (%zu)", heldtree_size(t));
	ok(b.entries == HT_ENTRIES_MAX - 8 && b.bytes < HT_BYTES_MAX, "... from the run's budget");

	/* What a run does there. */
	put("ws/.claude/settings.json", "{\"hooks\": \"evil\"}", 0666);
	put("ws/.claude/hooks/new.sh", "evil", 0755);
	if (system("mkdir -p ws/.claude/skills/evil && echo evil > ws/.claude/skills/evil/SKILL.md"
		   " && rm ws/.claude/hooks/check.sh && rm ws/.claude/link"
		   " && ln -s /evil ws/.claude/link && chmod 0777 ws/.claude/skills/mine") != 0)
		exit(2);
	cordon *c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	is_str(content("ws/.claude/settings.json"), "{\"user\": 1}",
	       "a file changed: its content of the start is back");
	is_int((int)mode_of("ws/.claude/settings.json"), 0640, "... with its mode");
	is_str(content("ws/.claude.cordon-tampered-" RUN "/settings.json"), "{\"hooks\": \"evil\"}",
	       "... the run's is in the tree beside it");
	ok(listed(c, at("ws/.claude/settings.json"),
		  at("ws/.claude.cordon-tampered-" RUN "/settings.json")),
	   "... and listed, with where it went");
	ok(missing("ws/.claude/hooks/new.sh") &&
		   listed(c, at("ws/.claude/hooks/new.sh"),
			  at("ws/.claude.cordon-tampered-" RUN "/hooks/new.sh")),
	   "a file made: moved aside, listed");
	ok(missing("ws/.claude/skills/evil") &&
		   !missing("ws/.claude.cordon-tampered-" RUN "/skills/evil/SKILL.md"),
	   "a directory made (a skill): moved aside whole, out of skills/");
	is_str(content("ws/.claude/hooks/check.sh"), "#!/bin/sh\n", "a file removed: put back");
	is_int((int)mode_of("ws/.claude/hooks/check.sh"), 0755, "... executable as it was");
	char link[64] = "";
	ssize_t n = readlink(at("ws/.claude/link"), link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	is_str(link, "hooks/check.sh", "a symlink changed: the start's is back");
	is_int((int)mode_of("ws/.claude/skills/mine"), 0755,
	       "a directory's mode changed: put back");
	is_str(content("ws/.claude/skills/mine/SKILL.md"), "mine", "... with what it held");
	ok(!listed(c, at("ws/.claude/hooks/check.sh"), NULL),
	   "a removal is put back, not listed (nothing was planted)");
	heldtree_free(t);
	cordon_free(c);

	/* Unchanged: nothing moved, nothing listed. */
	b = (struct held_budget){ HT_ENTRIES_MAX, HT_BYTES_MAX };
	claude_tree();
	t = heldtree_record(at("ws/.claude"), &b);
	c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	ok(cordon_tampered_count(c) == 0 && missing("ws/.claude.cordon-tampered-" RUN),
	   "a tree left as it was: nothing moved, nothing listed");
	heldtree_free(t);
	cordon_free(c);

	/* The whole directory replaced. */
	b = (struct held_budget){ HT_ENTRIES_MAX, HT_BYTES_MAX };
	claude_tree();
	t = heldtree_record(at("ws/.claude"), &b);
	if (system("mv ws/.claude ws/elsewhere && mkdir ws/.claude && echo evil > "
		   "ws/.claude/settings.json") != 0)
		exit(2);
	c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	is_str(content("ws/.claude/settings.json"), "{\"user\": 1}",
	       "the directory replaced: what it held is put back");
	is_str(content("ws/.claude/skills/mine/SKILL.md"), "mine", "... all of it");
	is_str(content("ws/.claude.cordon-tampered-" RUN "/settings.json"), "evil\n",
	       "... the run's is moved aside whole");
	ok(listed(c, at("ws/.claude"), at("ws/.claude.cordon-tampered-" RUN)), "... and listed");
	heldtree_free(t);
	cordon_free(c);
}

static void bounds(void)
{
	/* A budget of 3 entries: the root and two of its entries. */
	struct held_budget b = { 3, HT_BYTES_MAX };
	claude_tree();
	struct heldtree *t = heldtree_record(at("ws/.claude"), &b);
	ok(t != NULL && heldtree_partial(t) && heldtree_size(t) == 3,
	   "past the budget: recorded in part (%zu entries)", heldtree_size(t));
	put("ws/.claude/new", "x", 0644);
	cordon *c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	ok(!missing("ws/.claude/new") && cordon_tampered_count(c) == 0,
	   "... what was not recorded is not judged (the start event says checked_in_part)");
	heldtree_free(t);
	cordon_free(c);

	/* A file over the content bound: compared, moved aside, not put back. */
	b = (struct held_budget){ HT_ENTRIES_MAX, HT_BYTES_MAX };
	claude_tree();
	char *big = malloc(HT_FILE_MAX + 2);
	if (big == NULL)
		exit(2);
	memset(big, 'a', HT_FILE_MAX + 1);
	big[HT_FILE_MAX + 1] = '\0';
	put("ws/.claude/big", big, 0644);
	t = heldtree_record(at("ws/.claude"), &b);
	big[0] = 'b';
	put("ws/.claude/big", big, 0644);
	free(big);
	c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	ok(missing("ws/.claude/big") &&
		   listed(c, at("ws/.claude/big"), at("ws/.claude.cordon-tampered-" RUN "/big")),
	   "a file over %u bytes changed: moved aside, not put back", HT_FILE_MAX);
	heldtree_free(t);
	cordon_free(c);

	/* More made than the end may look at: listed as not moved. */
	b = (struct held_budget){ HT_ENTRIES_MAX, HT_BYTES_MAX };
	claude_tree();
	t = heldtree_record(at("ws/.claude"), &b);
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
		 "cd ws/.claude/hooks && i=0; while [ $i -lt %d ]; do : > f$i; i=$((i+1)); done",
		 HT_NEW_MAX + 16);
	if (system(cmd) != 0)
		exit(2);
	c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	ok(listed(c, at("ws/.claude"), ""),
	   "more than %d entries made: the tree is listed as not checked (the run fails)",
	   HT_NEW_MAX);
	heldtree_free(t);
	cordon_free(c);
}

/* The run may know its run id, and make the tree things are moved to:
 * nothing goes through it (test-gitjudge: the names themselves). */
static void aside_names_taken(void)
{
	struct held_budget b = { HT_ENTRIES_MAX, HT_BYTES_MAX };
	claude_tree();
	struct heldtree *t = heldtree_record(at("ws/.claude"), &b);
	put("ws/.claude/hooks/new.sh", "evil", 0755);
	if (system("mkdir -p outside && ln -s ../outside ws/.claude.cordon-tampered-" RUN) != 0)
		exit(2);
	cordon *c = handle();
	heldtree_judge(c, at("ws/.claude"), t);
	ok(missing("outside/hooks") && missing("ws/.claude/hooks/new.sh") &&
		   listed(c, at("ws/.claude/hooks/new.sh"),
			  at("ws/.claude.cordon-tampered-" RUN "-1/hooks/new.sh")),
	   "the tree beside it planted as a symlink out: nothing goes there, another name is "
	   "taken");
	heldtree_free(t);
	cordon_free(c);
}

/* Below the levels: the first held name on the way down from the root
 * (agentcfg_topmost), which the end moves aside. */
static void topmost(void)
{
	ok(agentcfg_is_name(".claude", 7) && agentcfg_is_name(".claudex", 7) &&
		   !agentcfg_is_name(".claudex", 8) && !agentcfg_is_name(".clau", 5),
	   "a held name is matched whole, by its length");
	is_int((long)agentcfg_topmost("/ws", "/ws/a/b/.claude/skills/x"), 15,
	       "the held name on the way: /ws/a/b/.claude");
	is_int((long)agentcfg_topmost("/ws", "/ws/a/.vscode/b/.claude"), 13,
	       "the first one down, not a later one");
	is_int((long)agentcfg_topmost("/ws", "/ws/a/b"), 0, "none on the way");
	is_int((long)agentcfg_topmost("/ws", "/ws"), 0, "the root itself is not below it");
	is_int((long)agentcfg_topmost("/ws", "/ws/.env"), 8, "a held file at the top");
	is_int((long)agentcfg_topmost("/ws", "/wsx/.claude"), 0,
	       "a sibling whose name starts with the root's is not below it");
	is_int((long)agentcfg_topmost("/ws/.claude", "/ws/.claude/x/.gemini"), 21,
	       "only what is below the root is looked at");
	is_int((long)agentcfg_topmost("/", "/.claude/x"), 8, "from /");
	is_int((long)agentcfg_topmost("/ws", "/ws/a/.claude.cordon-tampered-1234/x"), 0,
	       "what the guard moved aside is no held name");
}

int main(void)
{
	char tmpl[] = "/tmp/cordon-unit-agentcfg.XXXXXX";
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, top) == NULL || chdir(top) != 0)
		return 1;
	umask(022);
	names();
	levels();
	topmost();
	judged();
	bounds();
	aside_names_taken();
	char cmd[CORDON_PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		diag("could not remove %s", top);
	return done_testing();
}
