/*
 * The private /tmp's plan (src/linux/layer-tmp.c, tmp_plan_view): which
 * trees of a run that lie in the machine's temp dir are carried into the
 * run's own, and how. The view is a directory of the test's own (the
 * plan reads paths, and stats only sockets and read-only trees).
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static char top[64]; /* the "temp dir": a directory of this test */

static char *at(const char *rel)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];
	snprintf(b, sizeof(buf[0]), "%s/%s", top, rel);
	return b;
}

static void add_w(struct policy *p, const char *path, int is_dir, enum wkind kind)
{
	p->w = realloc(p->w, (p->nw + 1) * sizeof(*p->w));
	p->w[p->nw++] = (struct wentry){ strdup(path), is_dir, kind, NULL };
}

/* The carries of the view as "kind:path-below-view" lines. */
static void describe(const struct tmp_view *v, char *out, size_t n)
{
	static const char *const kinds[] = { "w", "ro", "sock" };
	out[0] = '\0';
	for (size_t i = 0; i < v->ncarry; i++) {
		char path[CORDON_PATH_MAX];
		if (tmp_carry_path(v, &v->carry[i], path, sizeof(path)) != 0)
			snprintf(path, sizeof(path), "?");
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%s:%s", len ? " " : "", kinds[v->carry[i].kind],
			 path + strlen(top));
	}
}

static void plan(const struct policy *p, const char (*homes)[CORDON_PATH_MAX], int nhomes,
		 const char *cwd, char *out, size_t n)
{
	struct run_spec run = { 0 };
	struct tmp_view v = { 0 };
	run.pol = p;
	run.homes = homes;
	run.nhomes = nhomes;
	v.view = strdup(top);
	if (tmp_plan_view(&run, cwd, &v) != 0)
		snprintf(out, n, "ERROR");
	else
		describe(&v, out, n);
	tmp_view_free(&v);
}

static void free_policy(struct policy *p)
{
	for (size_t i = 0; i < p->nw; i++)
		free(p->w[i].path);
	free(p->w);
	memset(p, 0, sizeof(*p));
}

static void test_trees(void)
{
	struct policy p = { 0 };
	char homes[2][CORDON_PATH_MAX];
	char out[1024];
	mkdir(at("home"), 0700);
	mkdir(at("home/proj"), 0700);
	mkdir(at("ro"), 0700);
	mkdir(at("ws"), 0700);

	/* The workspace and the run's dir there: writable, as they are. */
	add_w(&p, at("ws"), 1, W_WORKSPACE);
	add_w(&p, at("state/runs/x"), 1, W_TMPDIR);
	add_w(&p, "/dev/null", 0, W_DEVICE);
	plan(&p, NULL, 0, NULL, out, sizeof(out));
	is_str(out, "w:/ws w:/state/runs/x", "writable trees in the temp dir are carried");

	/* A home there outside the writable set: read-only. */
	snprintf(homes[0], sizeof(homes[0]), "%s", at("home"));
	plan(&p, (const char(*)[CORDON_PATH_MAX])homes, 1, NULL, out, sizeof(out));
	is_str(out, "w:/ws ro:/home w:/state/runs/x",
	       "a home in the temp dir is carried read-only (it was not before)");

	/* A tree below the home: carried with it (its copy has every mount
	 * below it), once. */
	add_w(&p, at("home/proj"), 1, W_EXTRA);
	plan(&p, (const char(*)[CORDON_PATH_MAX])homes, 1, at("home/proj"), out, sizeof(out));
	is_str(out, "w:/ws ro:/home w:/state/runs/x",
	       "a writable tree and the cwd below the home come with it");

	/* The working directory outside the writable set. */
	plan(&p, NULL, 0, at("ro"), out, sizeof(out));
	is_str(out, "ro:/ro w:/ws w:/home/proj w:/state/runs/x",
	       "a working directory outside the writable set is carried read-only");

	/* The scratch home's overlay: writable (granted where it lies). */
	p.scratch_home = at("home");
	plan(&p, (const char(*)[CORDON_PATH_MAX])homes, 1, NULL, out, sizeof(out));
	is_str(out, "w:/ws w:/home w:/state/runs/x",
	       "--scratch-home: the home's overlay is carried as writable");
	p.scratch_home = NULL;

	/* A home that is the temp dir itself: the view takes its place. */
	snprintf(homes[0], sizeof(homes[0]), "%s", top);
	snprintf(homes[1], sizeof(homes[1]), "%s", at("gone"));
	plan(&p, (const char(*)[CORDON_PATH_MAX])homes, 2, top, out, sizeof(out));
	is_str(out, "w:/ws w:/home/proj w:/state/runs/x",
	       "a home or cwd that is the temp dir, or that does not exist: not carried");

	/* A home inside the writable set: carried as writable, not read-only. */
	add_w(&p, at("home"), 1, W_EXTRA);
	snprintf(homes[0], sizeof(homes[0]), "%s", at("home"));
	plan(&p, (const char(*)[CORDON_PATH_MAX])homes, 1, NULL, out, sizeof(out));
	is_str(out, "w:/ws w:/home w:/state/runs/x",
	       "a home in the writable set is carried writable");
	free_policy(&p);
}

static void test_denied_and_sockets(void)
{
	struct policy p = { 0 };
	char out[1024];
	struct deny_entry deny = { 0 };
	char *socks[2];
	mkdir(at("hidden"), 0700);
	mkdir(at("sockdir"), 0700);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("hidden/s.sock"));
	ok(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "a socket made");
	socks[0] = at("hidden/s.sock");
	socks[1] = at("sockdir");
	p.sockets = socks;
	p.nsockets = 2;
	plan(&p, NULL, 0, NULL, out, sizeof(out));
	is_str(out, "sock:/sockdir sock:/hidden/s.sock", "allowed sockets are carried as sockets");
	deny.path = at("hidden");
	deny.is_dir = 1;
	p.deny = &deny;
	p.ndeny = 1;
	plan(&p, NULL, 0, NULL, out, sizeof(out));
	is_str(out, "sock:/sockdir", "nothing below a denied path is carried");
	deny.left_open = 1;
	plan(&p, NULL, 0, NULL, out, sizeof(out));
	is_str(out, "sock:/sockdir sock:/hidden/s.sock", "a denied path left open hides nothing");
	if (fd >= 0)
		close(fd);
	unlink(at("hidden/s.sock"));
	memset(&p, 0, sizeof(p));
}

int main(void)
{
	snprintf(top, sizeof(top), "/tmp/cordon-unit-ptmp.XXXXXX");
	if (mkdtemp(top) == NULL) {
		skip("no temp dir");
		return done_testing();
	}
	test_trees();
	test_denied_and_sockets();
	const char *dirs[] = { "home/proj", "home", "ro", "ws", "hidden", "sockdir" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		rmdir(at(dirs[i]));
	rmdir(top);
	return done_testing();
}

#else
int main(void)
{
	skip("the private /tmp is Linux only");
	return done_testing();
}
#endif
