/*
 * Moving aside what a run left (gitjudge.c), as the guards do at the end
 * of a run: never through a symlink or out of the writable set, never
 * over a name the run made (it may know its run id: a directory there
 * would make the rename fail and leave the plant where it was), and a
 * file put back with its content and mode. Every check looks at the
 * files themselves.
 */
#include "gitjudge.h"
#include "handle.h"
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

static int missing(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) != 0 && errno == ENOENT;
}

static void sh(const char *cmd)
{
	if (system(cmd) != 0)
		exit(2);
}

/* Whether path is listed as left by the run, moved to moved ("": not moved). */
static int listed(const cordon *c, const char *path, const char *moved)
{
	for (size_t i = 0; i < cordon_tampered_count(c); i++)
		if (strcmp(cordon_tampered_path(c, i), path) == 0)
			return strcmp(cordon_tampered_moved(c, i), moved) == 0;
	return 0;
}

/* A handle whose writable set is top/ws, with a run id and the list of
 * what a run left, without the git guard itself. */
static cordon *handle(void)
{
	cordon *c = cordon_new();
	if (c == NULL || policy_add_writable(&c->pol, at("ws"), 1, W_WORKSPACE) != 0 ||
	    (c->pol.workspace = strdup(at("ws"))) == NULL || gitguard_open(c) != 0)
		exit(2);
	memcpy(c->run_id, RUN "0123456789abcdef0123456789ab", 33);
	return c;
}

int main(void)
{
	char tmpl[] = "/tmp/cordon-unit-gitjudge.XXXXXX";
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, top) == NULL || chdir(top) != 0)
		return 1;
	umask(022);

	sh("mkdir -p ws && echo evil > ws/plant");
	cordon *c = handle();
	is_int(gitguard_put_aside(c, at("ws/plant")), 0, "put aside");
	ok(missing("ws/plant") && listed(c, at("ws/plant"), at("ws/plant.cordon-tampered-" RUN)),
	   "moved to NAME.cordon-tampered-RUN, listed with where it went");
	cordon_free(c);

	/* The name it would go to, made by the run: a directory with
	 * something in it (rename(2) cannot replace it), a symlink out. */
	sh("rm -rf ws && mkdir -p ws/plant.cordon-tampered-" RUN "/x outside && "
	   "ln -s ../outside ws/plant.cordon-tampered-" RUN "-1 && echo evil > ws/plant");
	c = handle();
	(void)gitguard_put_aside(c, at("ws/plant"));
	ok(missing("ws/plant") && missing("outside/plant") &&
		   listed(c, at("ws/plant"), at("ws/plant.cordon-tampered-" RUN "-2")),
	   "names the run made in the way are passed by: moved to the next free one");
	cordon_free(c);

	/* Through a symlink in the writable set, or outside it: not moved. */
	sh("rm -rf ws real && mkdir -p ws real && ln -s ../real ws/sub && echo x > real/plant");
	c = handle();
	(void)gitguard_put_aside(c, at("ws/sub/plant"));
	ok(!missing("real/plant") && listed(c, at("ws/sub/plant"), ""),
	   "through a symlink in the writable set: not followed, listed as not moved");
	(void)gitguard_put_aside(c, at("real/plant"));
	ok(!missing("real/plant") && listed(c, at("real/plant"), ""),
	   "outside the writable set: not touched, listed as not moved");
	cordon_free(c);

	/* Put back: the content and the permission bits, whatever the umask. */
	umask(077);
	is_int(gitguard_put_back(at("ws/back"), "abc", 3, 0100755), 0, "put back");
	struct stat st;
	char buf[8] = "";
	int fd = open(at("ws/back"), O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (stat(at("ws/back"), &st) != 0)
		memset(&st, 0, sizeof(st));
	ok(n == 3 && strcmp(buf, "abc") == 0 && (st.st_mode & 07777) == 0755,
	   "a file put back has its content and mode (0%o)", (unsigned)(st.st_mode & 07777));
	is_int(gitguard_put_back(at("ws/back"), "x", 1, 0644), -1,
	       "... never over what is there (O_EXCL)");
	sh("ln -s ../outside/target ws/link");
	is_int(gitguard_put_back(at("ws/link"), "x", 1, 0644), -1, "... nor through a symlink");
	ok(missing("outside/target"), "... which stays as it was");

	char cmd[CORDON_PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		diag("could not remove %s", top);
	return done_testing();
}
