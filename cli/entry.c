#include "entry.h"
#include "jsonparse.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __APPLE__
#include <mach-o/dyld.h>
#else
#include <sys/random.h>
#endif

/* path, absolute and an existing directory, canonical into out
 * (PATH_MAX bytes). 0 or -1. */
static int dir_real(const char *path, char *out)
{
	struct stat st;
	return path[0] == '/' && realpath(path, out) != NULL && stat(out, &st) == 0 &&
			       S_ISDIR(st.st_mode)
		       ? 0
		       : -1;
}

static int put(char *out, size_t outlen, const char *s, char *err, size_t errlen)
{
	if (snprintf(out, outlen, "%s", s) >= (int)outlen) {
		snprintf(err, errlen, "the workspace's path is too long");
		return -1;
	}
	return 0;
}

int entry_workspace(const char *configured, const char *const projects[], size_t nprojects,
		    const char *cwd, char *out, size_t outlen, char *err, size_t errlen)
{
	char real[PATH_MAX], here[PATH_MAX], first[PATH_MAX] = "";
	if (configured != NULL && configured[0] != '\0') {
		if (dir_real(configured, real) != 0) {
			snprintf(err, errlen,
				 "the configured workspace %.512s is not an absolute path to a "
				 "directory",
				 configured);
			return -1;
		}
		return put(out, outlen, real, err, errlen);
	}
	int have_cwd = cwd != NULL && dir_real(cwd, here) == 0;
	for (size_t i = 0; i < nprojects; i++) {
		if (projects[i] == NULL || projects[i][0] == '\0' ||
		    dir_real(projects[i], real) != 0)
			continue;
		if (have_cwd && path_within(real, here))
			return put(out, outlen, real, err, errlen);
		if (first[0] == '\0')
			snprintf(first, sizeof(first), "%s", real);
	}
	if (first[0] != '\0')
		return put(out, outlen, first, err, errlen);
	if (!have_cwd) {
		snprintf(err, errlen, "no workspace: the current directory %.512s is not usable",
			 cwd != NULL ? cwd : "(unknown)");
		return -1;
	}
	return put(out, outlen, here, err, errlen);
}

int entry_configure(cordon *c, const char *workspace, char *err, size_t errlen)
{
	/* The workspace first: a policy file's relative paths resolve
	 * against it. The mode by its typed setter, which a "sandbox" line of
	 * the user's own options replaces. */
	if (cordon_set_workspace(c, workspace) != 0 ||
	    cordon_set_mode(c, CORDON_MODE_REQUIRED) != 0 || cordon_use_agent_policy(c) != 0) {
		snprintf(err, errlen, "%s", cordon_last_error(c));
		return -1;
	}
	return 0;
}

const char *entry_mode(const cordon *c)
{
	static const char *const modes[] = { "auto", "required", "off" };
	static const struct jp_limits lim = { 1 << 20, 16 };
	const char *mode = NULL;
	char *j = cordon_status_json(c);
	struct jp_doc d;
	memset(&d, 0, sizeof(d));
	if (j != NULL && jp_parse(j, strlen(j), &lim, &d, NULL, 0) == 0) {
		size_t m = jp_member(&d, 0, "mode");
		for (size_t i = 0; m != JP_NONE && i < 3; i++)
			if (d.nodes[m].kind == JP_STRING && strcmp(d.nodes[m].s, modes[i]) == 0)
				mode = modes[i];
	}
	jp_free(&d);
	free(j);
	return mode;
}

int entry_tmpdir(char *out, size_t outlen)
{
	const char *t = getenv("TMPDIR");
	if (t == NULL || t[0] != '/')
		t = "/tmp";
	size_t n = strlen(t);
	while (n > 1 && t[n - 1] == '/')
		n--;
	if (n >= outlen)
		return -1;
	memcpy(out, t, n);
	out[n] = '\0';
	return 0;
}

int entry_random_name(const char *prefix, char *out, size_t outlen)
{
	unsigned char r[16];
#if defined(__APPLE__)
	arc4random_buf(r, sizeof(r));
#else
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
#endif
	int n = snprintf(out, outlen, "%s", prefix);
	if (n < 0 || (size_t)n + 33 > outlen)
		return -1;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(out + n + 2 * i, 3, "%02x", r[i]);
	return 0;
}

int entry_sh_path(char *out, size_t outlen)
{
	char self[PATH_MAX];
#if defined(__linux__)
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
#elif defined(__APPLE__)
	char given[PATH_MAX];
	uint32_t size = sizeof(given);
	if (_NSGetExecutablePath(given, &size) != 0 || realpath(given, self) == NULL)
		return -1;
#else
	return -1;
#endif
	char *slash = strrchr(self, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	if (snprintf(out, outlen, "%s/cordon-sh", self) >= (int)outlen)
		return -1;
	return access(out, X_OK) == 0 ? 0 : -1;
}
