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

/* tmpl: a mkdtemp template such as "/tmp/cordon-api.XXXXXX". */
static void setup(const char *tmpl)
{
	char buf[400];
	snprintf(root, sizeof(root), "%s", tmpl);
	if (mkdtemp(root) == NULL)
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
