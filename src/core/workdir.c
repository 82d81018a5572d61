/*
 * The run's working directory: where every command of the run starts.
 *
 * A library caller may run several workspaces from several threads of one
 * process, which has one current directory: so the run names its own
 * (cordon_set_cwd), or takes the caller's current directory when that
 * lies in the workspace, else the workspace itself. It is chosen once, at
 * cordon_begin(), canonical; the child enters it by name just before exec
 * (spawn.c), inside the command's view of the file system, and a
 * directory it cannot enter or list there fails the spawn: the command
 * never starts somewhere else.
 */
#include "handle.h"
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Unlike the other setters, this one looks at the file system: a relative
 * dir is resolved against the current directory now, when the caller
 * knows what it is, not at cordon_begin() (another thread may have
 * changed it by then). */
int cordon_set_cwd(cordon *c, const char *dir)
{
	char real[CORDON_PATH_MAX];
	struct stat st;
	int r = configurable(c);
	if (r != 0)
		return r;
	if (dir == NULL || dir[0] == '\0')
		return cordon_fail(c, CORDON_EINVAL, "empty working directory");
	if (strlen(dir) >= CORDON_PATH_MAX)
		return cordon_fail(c, CORDON_EINVAL, "working directory is longer than %d bytes",
				   CORDON_PATH_MAX - 1);
	if (realpath(dir, real) == NULL || stat(real, &st) != 0)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "working directory %s", dir);
	if (!S_ISDIR(st.st_mode))
		return cordon_fail(c, CORDON_EINVAL, "working directory is not a directory: %s",
				   dir);
	char *dup = strdup(real);
	if (dup == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	free(c->cwd_opt);
	c->cwd_opt = dup;
	return 0;
}

static int set_cwd(cordon *c, const char *path, enum cwd_from from)
{
	free(c->pol.cwd);
	if ((c->pol.cwd = strdup(path)) == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	c->pol.cwd_from = from;
	return 0;
}

int workdir_choose(cordon *c)
{
	char cur[CORDON_PATH_MAX], ws[CORDON_PATH_MAX];
	struct stat st;
	if (c->cwd_opt != NULL) {
		/* Checked again: it may have gone since it was set. */
		if (stat(c->cwd_opt, &st) != 0)
			return cordon_fail_errno(c, CORDON_EINVAL, errno, "working directory %s",
						 c->cwd_opt);
		if (!S_ISDIR(st.st_mode))
			return cordon_fail(c, CORDON_EINVAL,
					   "working directory is not a directory: %s", c->cwd_opt);
		return set_cwd(c, c->cwd_opt, CWD_FROM_OPTION);
	}
	/* getcwd(3) gives the canonical path (Linux, macOS); it fails when
	 * the directory was deleted. */
	int have_cur = getcwd(cur, sizeof(cur)) != NULL;
	if (c->workspace_opt == NULL) {
		if (!have_cur)
			return cordon_fail_errno(c, CORDON_EINVAL, errno,
						 "cannot get the current directory");
		return set_cwd(c, cur, CWD_FROM_CURRENT);
	}
	if (realpath(c->workspace_opt, ws) == NULL) {
		if (c->mode != CORDON_MODE_OFF)
			return 0; /* policy_resolve_writable() says why */
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "workspace %s", c->workspace_opt);
	}
	if (have_cur && path_within(ws, cur))
		return set_cwd(c, cur, CWD_FROM_CURRENT);
	return set_cwd(c, ws, CWD_FROM_WORKSPACE);
}

int workdir_confirm(cordon *c)
{
	const char *ws = c->pol.workspace;
	if (c->pol.cwd == NULL)
		return workdir_choose(c); /* the workspace exists now */
	if (c->pol.cwd_from == CWD_FROM_OPTION ||
	    (c->pol.cwd_from == CWD_FROM_CURRENT ? path_within(ws, c->pol.cwd)
						 : strcmp(ws, c->pol.cwd) == 0))
		return 0;
	return cordon_fail(c, CORDON_EREFUSED,
			   "refusing workspace %s: it changed while it was resolved",
			   c->workspace_opt != NULL ? c->workspace_opt : ws);
}

int workdir_readable(cordon *c)
{
	const struct policy *p = &c->pol;
	for (size_t i = 0; p->cwd != NULL && i < p->ndeny; i++) {
		const struct deny_entry *d = &p->deny[i];
		if (d->enforced == DENY_BY_NONE || !path_within(d->path, p->cwd))
			continue;
		return cordon_fail(c, CORDON_EINVAL,
				   "the working directory %s lies in %s, which the command may not "
				   "read (%s); give another with --cwd",
				   p->cwd, d->path,
				   d->explicit_ ? "--deny-read" : "the default deny-read list");
	}
	return 0;
}

int workdir_env(cordon *c)
{
	/* The caller's PWD names its current directory, which is the run's
	 * only when chosen from it; an explicit --env PWD=... stays. */
	if (c->pol.cwd == NULL || c->pol.cwd_from == CWD_FROM_CURRENT)
		return 0;
	for (size_t i = 0; i < c->envspec.n; i++)
		if (strncmp(c->envspec.v[i], "PWD=", 4) == 0)
			return 0;
	for (size_t i = 0; c->envp[i] != NULL; i++) {
		if (strncmp(c->envp[i], "PWD=", 4) != 0)
			continue;
		size_t n = strlen(c->pol.cwd);
		char *pwd = malloc(n + 5);
		if (pwd == NULL)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
		snprintf(pwd, n + 5, "PWD=%s", c->pol.cwd);
		free(c->envp[i]);
		c->envp[i] = pwd;
		break;
	}
	return 0;
}
