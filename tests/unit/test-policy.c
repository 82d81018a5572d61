/* Unit tests for resolving a path without following a symlink that lies
 * in a writable tree (policy_resolve_untampered, src/core/policy.c). */
#include "handle.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[CORDON_PATH_MAX];

static const char *at(const char *rel)
{
	static char buf[4][CORDON_PATH_MAX + 64];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, rel);
	return buf[k];
}

int main(void)
{
	char tmpl[] = "/tmp/cordon-unit-policy.XXXXXX", out[CORDON_PATH_MAX];
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, top) == NULL)
		return 1;
	if (mkdir(at("ws"), 0700) || mkdir(at("ws/real"), 0700) || mkdir(at("out"), 0700) ||
	    mkdir(at("disk"), 0700) || symlink(at("out"), at("ws/planted")) ||
	    symlink("real", at("ws/rel")) || symlink(at("disk"), at("home-link")) ||
	    symlink(at("ws"), at("into-ws")) || symlink("loop", at("ws/loop")))
		return 1;
	struct policy p;
	memset(&p, 0, sizeof(p));
	if (policy_add_writable(&p, at("ws"), 1, W_WORKSPACE) != 0)
		return 1;

	is_int(policy_resolve_untampered(&p, at("ws/real/x"), out, sizeof(out)), 0,
	       "a plain path inside: resolved");
	is_str(out, at("ws/real/x"), "... missing tail kept");
	is_int(policy_resolve_untampered(&p, at("ws/planted/x"), out, sizeof(out)),
	       POLICY_REDIRECTED, "a symlink inside the writable tree: refused");
	is_str(out, at("ws/planted"), "... the symlink is named");
	is_int(policy_resolve_untampered(&p, at("ws/rel"), out, sizeof(out)), POLICY_REDIRECTED,
	       "even one that stays inside");
	is_int(policy_resolve_untampered(&p, at("home-link/cache"), out, sizeof(out)), 0,
	       "a symlink outside every writable tree: followed");
	is_str(out, at("disk/cache"), "... to where it points");
	is_int(policy_resolve_untampered(&p, at("into-ws/real"), out, sizeof(out)), 0,
	       "a symlink outside into the tree: followed");
	is_str(out, at("ws/real"), "... canonical");
	is_int(policy_resolve_untampered(&p, at("ws/real/../real/./y"), out, sizeof(out)), 0,
	       "dot and dot-dot");
	is_str(out, at("ws/real/y"), "... applied");
	is_int(policy_resolve_untampered(&p, at("ws/none/../real"), out, sizeof(out)), 0,
	       "dot-dot after a missing component");
	is_str(out, at("ws/real"), "... lexical from there");
	struct policy empty;
	memset(&empty, 0, sizeof(empty));
	int r = policy_resolve_untampered(&empty, at("ws/loop"), out, sizeof(out));
	is_int(r == -1 && errno == ELOOP, 1, "a symlink loop: ELOOP");
	is_int(policy_resolve_untampered(&empty, at("ws/planted/x"), out, sizeof(out)), 0,
	       "no writable tree: every symlink followed");
	is_str(out, at("out/x"), "... like realpath");
	char cwd[CORDON_PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)) != NULL && chdir(at("ws")) == 0) {
		is_int(policy_resolve_untampered(&p, "real", out, sizeof(out)), 0, "relative");
		is_str(out, at("ws/real"), "... against the cwd");
		if (chdir(cwd) != 0)
			return 1;
	}
	char small[8];
	r = policy_resolve_untampered(&p, at("ws/real"), small, sizeof(small));
	is_int(r == -1 && errno == ENAMETOOLONG, 1, "a result too long for out: ENAMETOOLONG");
	policy_free(&p);
	char cmd[CORDON_PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		return 1;
	return done_testing();
}
