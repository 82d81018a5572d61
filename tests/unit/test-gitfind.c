/*
 * The git guard's search for the repositories of a workspace in none
 * (src/gitguard/gitfind.c): its bound, what it leaves unread, the directories it
 * is told to pass by (the start's unread ones, at the end), and the
 * workspace's own ".git".
 */
#include "gitfind.h"
#include "tap.h"
#include "fixture.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mk(const char *rel)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", ws, rel);
	if (mkdir(p, 0755) != 0)
		diag("mkdir %s failed", p);
}

static int has(const struct strv *v, const char *rel)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", ws, rel);
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], p) == 0)
			return 1;
	return 0;
}

static void test_tops(void)
{
	mk("a");
	mk("a/r");
	mk("a/r/.git");
	mk("a/r/inner");
	mk("a/r/inner/.git");
	mk("node_modules");
	mk("node_modules/p");
	mk("node_modules/p/.git");
	struct strv tops = { 0 }, unread = { 0 };
	struct gitfind f = { .max = GITFIND_MAX };
	is_int(gitfind_repos(ws, &f, &tops, &unread), 0, "search");
	ok(tops.n == 1 && has(&tops, "a/r"), "a repository's top is found; not what is below it, "
					     "nor node_modules");
	is_int(unread.n, 0, "nothing left unread");
	is_int(f.reads, 3, "reads: the workspace, a, a/r");
	strv_free(&tops);
	strv_free(&unread);

	/* The workspace's own ".git" (made in the run) does not stop it. */
	mk(".git");
	struct gitfind g = { .max = GITFIND_MAX };
	gitfind_repos(ws, &g, &tops, &unread);
	ok(tops.n == 1 && has(&tops, "a/r"), "the workspace's own .git: the search goes on below");
	strv_free(&tops);
	strv_free(&unread);
}

static void test_bound(void)
{
	/* Breadth first: b, c, d read at the second level with max 3; the
	 * third level is left unread. */
	mk("b");
	mk("b/x");
	mk("c");
	struct strv tops = { 0 }, unread = { 0 };
	struct gitfind f = { .max = 4 };
	gitfind_repos(ws, &f, &tops, &unread);
	is_int(f.reads, 4, "the bound holds");
	ok(unread.n > 0, "past the bound: directories left unread (%zu)", unread.n);
	/* The start's unread, passed by at the end: neither read nor
	 * listed again. */
	const char **skip = calloc(unread.n + 1, sizeof(*skip));
	for (size_t i = 0; skip != NULL && i < unread.n; i++)
		skip[i] = unread.v[i];
	gitfind_sort(skip, unread.n);
	struct strv t2 = { 0 }, u2 = { 0 };
	struct gitfind g = { .max = 100, .skip = skip, .nskip = unread.n };
	gitfind_repos(ws, &g, &t2, &u2);
	is_int(u2.n, 0, "the end, passing by the start's unread: nothing new unread");
	is_int(g.reads, f.reads, "... and it read what the start read");
	ok(gitfind_has(skip, unread.n, unread.v[0]) && !gitfind_has(skip, unread.n, ws),
	   "gitfind_has");
	free(skip);
	strv_free(&t2);
	strv_free(&u2);
	strv_free(&tops);
	strv_free(&unread);
}

static void test_unreadable(void)
{
	if (geteuid() == 0) {
		skip("root reads a directory of mode 000 (run the unit tests unprivileged)");
		return;
	}
	mk("locked");
	mk("locked/r");
	mk("locked/r/.git");
	char p[600];
	snprintf(p, sizeof(p), "%s/locked", ws);
	chmod(p, 0);
	struct strv tops = { 0 }, unread = { 0 };
	struct gitfind f = { .max = GITFIND_MAX };
	gitfind_repos(ws, &f, &tops, &unread);
	ok(has(&unread, "locked"), "a directory it cannot read is listed as unread");
	chmod(p, 0755);
	strv_free(&tops);
	strv_free(&unread);
}

int main(void)
{
	setup("/tmp/cordon-gitfind.XXXXXX");
	test_tops();
	test_bound();
	test_unreadable();
	teardown();
	return done_testing();
}
