/*
 * --review's pure parts: the held overlay's options (layer-review.c: the
 * workspace escaped, index and metacopy off, userxattr or
 * redirect_dir=nofollow), what --review gets where no mount layer holds
 * the writes (review.c: macOS, off, unavailable, Landlock alone: a gap in
 * auto, a refusal in required mode and off), the guards'
 * judgement of held changes (reviewjudge.c), and the record's file
 * (reviewrec.c), odd bytes and all.
 */
#include "review.h"
#include "reviewjudge.h"
#include "linux-layers.h"
#include "tap.h"
#include "fixture.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
static void test_options(void)
{
	char out[4096];
	is_int(review_options("/w/p", 1, out, sizeof(out)), 0, "options in a user namespace");
	is_str(out, "lowerdir=/w/p,upperdir=upper,workdir=work,index=off,metacopy=off,userxattr",
	       "userxattr; index and metacopy off: whole files in the upper dir");
	is_int(review_options("/w/a,b:c\\d", 0, out, sizeof(out)), 0, "as root, odd bytes");
	is_str(out,
	       "lowerdir=/w/a\\,b\\:c\\\\d,upperdir=upper,workdir=work,index=off,metacopy=off,"
	       "redirect_dir=nofollow",
	       "',' ':' '\\' escaped (no option or layer of the path's own); no redirects made");
	char small[40];
	is_int(review_options("/w/p", 0, small, sizeof(small)), -1, "too long: refused, not cut");
	ok(review_upper_unfit(0xEF53) == NULL && review_upper_unfit(0x01021994) == NULL,
	   "ext4, tmpfs: fit for an upper layer");
	ok(review_upper_unfit(0x794c7630) != NULL && review_upper_unfit(0x6969) != NULL &&
		   review_upper_unfit(0x65735546) != NULL,
	   "an overlay, NFS, FUSE: not (--review refused before the run, with the reason)");
}
#endif

static void test_refused(void)
{
	struct decision d;
	memset(&d, 0, sizeof(d));
	ok(review_refused(&d), "confinement not applied (off, unavailable): not held");
	is_int(review_hold_in(&d, CORDON_MODE_AUTO), REVIEW_GAP,
	       "... auto (unavailable): the run goes on, the gap");
	is_int(review_hold_in(&d, CORDON_MODE_REQUIRED), REVIEW_REFUSED, "... required: refused");
	is_int(review_hold_in(&d, CORDON_MODE_OFF), REVIEW_REFUSED,
	       "... off: refused (it holds nothing)");
	d.applied = 1;
	d.cov.layers = 1u << LAYER_LANDLOCK | 1u << LAYER_SEATBELT;
	ok(review_refused(&d),
	   "Landlock alone, or Seatbelt (macOS): not held, nothing can hold writes");
	is_int(review_hold_in(&d, CORDON_MODE_AUTO), REVIEW_GAP, "... auto: the gap");
	is_int(review_hold_in(&d, CORDON_MODE_REQUIRED), REVIEW_REFUSED, "... required: refused");
	d.cov.layers |= 1u << LAYER_MOUNTNS;
	ok(!review_refused(&d), "with the mount layer: held");
	is_int(review_hold_in(&d, CORDON_MODE_AUTO), REVIEW_HELD, "... in auto");
	is_int(review_hold_in(&d, CORDON_MODE_REQUIRED), REVIEW_HELD, "... and in required");
}

/* An fd holding text (a memfd-like temp file). */
static int text_fd(const char *text)
{
	char tmpl[] = "/tmp/cordon-test-review.XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	unlink(tmpl);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *judged(const char *rel, char kind, char type, const char *cwd, const char *held,
			  const char *real, int head)
{
	struct judge_in j = { kind, type, cwd, -1, -1, head, 0644 };
	j.held_fd = held ? text_fd(held) : -1;
	j.real_fd = real ? text_fd(real) : -1;
	const char *why = reviewjudge(rel, &j);
	if (j.held_fd >= 0)
		close(j.held_fd);
	if (j.real_fd >= 0)
		close(j.real_fd);
	return why;
}

static void test_judge(void)
{
	const char *plain = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
	const char *fsmon = "[core]\n\tfsmonitor = touch /tmp/x\n";
	ok(judged("src/a.c", 'm', 'f', NULL, "x", "y", 0) == NULL, "a source file lands");
	ok(judged(".git/hooks/pre-commit", 'a', 'f', NULL, "#!/bin/sh", NULL, 0) != NULL,
	   "a hook: refused");
	ok(judged("sub/.git/hooks/post-checkout", 'p', 'f', NULL, "x", NULL, 0) != NULL,
	   "a hook made executable, in a nested repository: refused");
	ok(judged(".git/hooks/pre-commit.sample", 'a', 'f', NULL, "x", NULL, 0) == NULL,
	   "a *.sample hook (git init's): lands");
	ok(judged(".git/hooks/pre-commit.sample", 'l', 'l', NULL, NULL, NULL, 0) != NULL,
	   "... not as a symlink");
	ok(judged(".git/hooks/x", 'd', '-', NULL, NULL, NULL, 0) == NULL, "a hook removed: lands");
	ok(judged(".git/config", 'm', 'f', NULL, plain, plain, 0) == NULL,
	   "a config of git's own keys: lands");
	ok(judged(".git/config", 'm', 'f', NULL, fsmon, plain, 0) != NULL,
	   "core.fsmonitor added: refused");
	ok(judged(".git/config", 'm', 'f', NULL, fsmon, fsmon, 0) == NULL,
	   "core.fsmonitor the real config had already: lands");
	ok(judged(".git/modules/m/config", 'a', 'f', NULL, fsmon, NULL, 0) != NULL,
	   "a submodule's config: judged too");
	ok(judged(".git/commondir", 'a', 'f', NULL, "x", NULL, 0) != NULL, "commondir: refused");
	ok(judged(".git/info/attributes", 'a', 'f', NULL, "x", NULL, 0) != NULL,
	   "info/attributes: refused");
	ok(judged("lib/.git", 'a', 'f', NULL, "gitdir: /x", NULL, 0) != NULL,
	   "a .git file: refused");
	ok(judged("bare/config", 'a', 'f', NULL, fsmon, NULL, 1) != NULL,
	   "a config beside a HEAD (a bare repository): judged as git's");
	ok(judged("app/config", 'a', 'f', NULL, fsmon, NULL, 0) == NULL,
	   "a config with no HEAD beside it: a plain file");
	ok(judged(".claude/settings.json", 'a', 'f', NULL, "{}", NULL, 0) != NULL,
	   "an agent's settings at the top: refused");
	ok(judged(".mcp.json", 'm', 'f', NULL, "{}", NULL, 0) != NULL, ".mcp.json: refused");
	ok(judged("pkg/.vscode/tasks.json", 'a', 'f', "pkg/sub", "{}", NULL, 0) != NULL,
	   "in a directory down to the run's working directory: refused");
	ok(judged("pkg/sub/.gemini/settings.json", 'a', 'f', "pkg/sub", "{}", NULL, 0) != NULL,
	   "in the working directory itself: refused");
	ok(judged("node_modules/x/.vscode/settings.json", 'a', 'f', "pkg", "{}", NULL, 0) != NULL,
	   "deeper than the guard's levels: refused too");
	ok(judged("sub/.claude/skills/x/SKILL.md", 'a', 'f', NULL, "x", NULL, 0) != NULL,
	   "a nested skill (Claude Code loads it when it reads a file there): refused");
	ok(judged("a/b/.env", 'a', 'f', NULL, "BASH_ENV=/x", NULL, 0) != NULL,
	   "a nested .env: refused");
	ok(judged("a/.envrc", 'a', 'f', NULL, "x", NULL, 0) == NULL &&
		   judged("a/x.claude/y", 'a', 'f', NULL, "x", NULL, 0) == NULL &&
		   judged("a/.claudex", 'a', 'f', NULL, "x", NULL, 0) == NULL,
	   "a name that only begins or ends like one: lands");
	ok(judged(".claude", 'd', '-', NULL, NULL, NULL, 0) == NULL,
	   "agent configuration removed: lands");
	struct judge_in j = { 'a', 'f', NULL, -1, -1, 0, 04755 };
	ok(reviewjudge("bin/tool", &j) != NULL, "a setuid file: refused");
}

/* Two slots with changes: the run's commands saw two views (split);
 * an empty slot (a spawn that failed before its command ran) is not one. */
static void test_split(void)
{
	char dir[] = "/tmp/cordon-test-review.XXXXXX", p[200];
	struct rrecord rec;
	if (mkdtemp(dir) == NULL) {
		skip("no temp dir");
		return;
	}
	static const char *const dirs[] = { "ws",	"s0", "s0/upper", "s1",
					    "s1/upper", "s2", "s2/upper" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		mkdir(p, 0700);
	}
	snprintf(p, sizeof(p), "%s/s1/upper/a", dir);
	close(open(p, O_WRONLY | O_CREAT, 0600));
	char wsp[200];
	snprintf(wsp, sizeof(wsp), "%s/ws", dir);
	memset(&rec, 0, sizeof(rec));
	is_int(review_walk(dir, wsp, &rec), 0, "the walk of one slot with a change, two empty");
	ok(rec.n == 1 && !rec.split && strcmp(rec.v[0].slot, "s1") == 0 &&
		   rec.v[0].kind == RK_ADDED,
	   "one change, in s1: not split");
	review_record_free(&rec);
	snprintf(p, sizeof(p), "%s/s2/upper/b", dir);
	close(open(p, O_WRONLY | O_CREAT, 0600));
	is_int(review_walk(dir, wsp, &rec), 0, "the walk of two slots with changes");
	ok(rec.n == 2 && rec.split, "split: apply refuses it");
	review_record_free(&rec);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "cleaned");
}

static void test_record(void)
{
	char dir[] = "/tmp/cordon-test-review.XXXXXX";
	struct rrecord a, b;
	memset(&a, 0, sizeof(a));
	if (mkdtemp(dir) == NULL) {
		skip("no temp dir");
		return;
	}
	struct rchange v[2];
	memset(v, 0, sizeof(v));
	v[0].path = "odd\nname\xff";
	v[0].kind = RK_ADDED;
	v[0].type = 'f';
	v[0].size = 12;
	v[0].mode = 0640;
	v[0].uino = 77;
	memcpy(v[0].slot, "s0", 3);
	v[0].real.type = '-';
	v[1].path = "gone";
	v[1].kind = RK_DELETED;
	v[1].type = '-';
	memcpy(v[1].slot, "s1", 3);
	v[1].real = (struct rstate){ 'd', 4096, 1, 2, 3, 4, 5, 6, 0xfedcba9876543210ULL };
	a.workspace = "/w/p q";
	a.cwd = NULL;
	strv_push(&a.protect, "frozen/in put");
	a.ended = 1700000000;
	a.v = v;
	a.n = 2;
	is_int(review_record_write(dir, &a), 0, "the record written");
	is_int(review_record_read(dir, &b), 0, "... and read back");
	ok(b.n == 2 && strcmp(b.workspace, "/w/p q") == 0 && b.cwd == NULL && b.ended == a.ended &&
		   b.protect.n == 1 && strcmp(b.protect.v[0], "frozen/in put") == 0,
	   "its header (workspace, no working directory below it, end, protected paths)");
	ok(b.n == 2 && strcmp(b.v[0].path, v[0].path) == 0 && b.v[0].kind == RK_ADDED &&
		   b.v[0].mode == 0640 && b.v[0].uino == 77 && strcmp(b.v[0].slot, "s0") == 0,
	   "a change with a newline and a byte that is not UTF-8 in its path");
	ok(b.n == 2 && review_same_state(&b.v[1].real, &v[1].real),
	   "a real counterpart's state, its tree digest whole");
	review_record_free(&b);
	strv_free(&a.protect);
	char p[64];
	snprintf(p, sizeof(p), "%s/record", dir);
	int fd = open(p, O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		ok(write(fd, "cordon-review 1\0/w\0", 19) == 19, "a record cut short");
		close(fd);
	}
	is_int(review_record_read(dir, &b), -1, "a cut record: refused, not half read");
	unlink(p);
	rmdir(dir);
}

/* The library's life cycle of a held run: cordon_set_review, the run,
 * cordon_changes, cordon_apply; the workspace unchanged until then. */
static void test_library(void)
{
	char f[400];
	struct cordon_result res;
	struct cordon_change *v = NULL;
	size_t n = 0;
	const char *argv[] = { "sh", "-c", "echo held > f", NULL };
	setup("/tmp/cordon-test-review.XXXXXX");
	snprintf(f, sizeof(f), "%s/f", ws);
	cordon *c = cordon_new();
	cordon_set_state_dir(c, state);
	cordon_set_review(c, 1);
	int r = cordon_run(c, argv, &res);
	/* Refused (required mode), or run without the review (auto). */
	int unheld = r != 0;
	for (const char *const *g = cordon_gaps(c); !unheld && *g != NULL; g++)
		unheld = strcmp(*g, "review_not_held") == 0;
	if (unheld) {
		skip("no mount layer here: --review is not held (t0200 checks that)");
		skip("the held run's list: untested");
		skip("apply: untested");
		cordon_free(c);
		teardown();
		return;
	}
	ok(r == 0 && res.exit_code == 0 && access(f, F_OK) != 0,
	   "cordon_run with cordon_set_review: the command wrote f, the workspace has none");
	char id[40];
	snprintf(id, sizeof(id), "%s", cordon_run_id(c));
	cordon_free(c);
	c = cordon_new(); /* a later process: only the state dir and the id */
	cordon_set_state_dir(c, state);
	r = cordon_changes(c, id, &v, &n, NULL);
	ok(r == 0 && n == 1 && strcmp(v[0].path, "f") == 0 && strcmp(v[0].kind, "added") == 0 &&
		   v[0].size == 5,
	   "cordon_changes: one change, f added, 5 bytes");
	cordon_changes_free(v, n);
	ok(cordon_apply(c, id, 0) == 0 && access(f, F_OK) == 0 &&
		   cordon_changes(c, id, &v, &n, NULL) == CORDON_EINVAL,
	   "cordon_apply lands it, and the held run is gone");
	cordon_free(c);
	teardown();
}

int main(void)
{
#if defined(__linux__)
	test_options();
#endif
	test_refused();
	test_judge();
	test_record();
	test_split();
	test_library();
	return done_testing();
}
