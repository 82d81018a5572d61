/*
 * A scratch tree for unit tests that run commands, removed at the end:
 *   root/ws       the workspace, and the current directory
 *   root/outside  a place outside it
 *   root/state    the state dir
 * HOME, XDG_STATE_HOME and XDG_CACHE_HOME point into root too, so a run
 * never touches the real home. Needs tap.h (diag).
 */
#ifndef CORDON_FIXTURE_H
#define CORDON_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256], ws[300], outside[300], state[300];

static int fixture_usable(const char *d)
{
	struct stat st;
	return d != NULL && d[0] == '/' && stat(d, &st) == 0 && S_ISDIR(st.st_mode) &&
	       access(d, W_OK | X_OK) == 0;
}

/* Where the tree is made: not in /tmp, where a command run confined has a
 * /tmp of its own and would not see the outside (as tests/lib.sh:
 * CORDON_TEST_TMPDIR, /run for root, XDG_RUNTIME_DIR, else /tmp). */
static const char *fixture_base(void)
{
	const char *e = getenv("CORDON_TEST_TMPDIR");
	if (fixture_usable(e))
		return e;
	if (geteuid() == 0 && fixture_usable("/run"))
		return "/run";
	e = getenv("XDG_RUNTIME_DIR");
	return fixture_usable(e) ? e : "/tmp";
}

/* tmpl: a mkdtemp template such as "/tmp/cordon-api.XXXXXX"; its /tmp is
 * fixture_base(). */
static void setup(const char *tmpl)
{
	char buf[400];
	int n = strncmp(tmpl, "/tmp/", 5) == 0
			? snprintf(root, sizeof(root), "%s/%s", fixture_base(), tmpl + 5)
			: snprintf(root, sizeof(root), "%s", tmpl);
	if (n < 0 || (size_t)n >= sizeof(root) || mkdtemp(root) == NULL)
		exit(2);
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(outside, sizeof(outside), "%s/outside", root);
	snprintf(state, sizeof(state), "%s/state", root);
	mkdir(ws, 0755);
	mkdir(outside, 0755);
	snprintf(buf, sizeof(buf), "%s/home", root);
	mkdir(buf, 0755);
	setenv("HOME", buf, 1);
	snprintf(buf, sizeof(buf), "%s/xdg", root);
	setenv("XDG_STATE_HOME", buf, 1);
	setenv("XDG_CACHE_HOME", buf, 1);
	if (chdir(ws) != 0)
		exit(2);
}

static void teardown(void)
{
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
}

#endif
