/*
 * The Landlock read layer (src/linux/landlock-reads.c): which entries the walk
 * grants, in a scratch tree, and what a child restricted with the built
 * ruleset can read. The walk's grants are checked by name (the way and
 * the denied paths are never granted, everything beside them is); the
 * kernel part reads the files for real.
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static void mk(const char *rel, const char *content)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (content == NULL) {
		if (mkdir(p, 0755) != 0)
			exit(2);
		return;
	}
	FILE *f = fopen(p, "w");
	if (f == NULL)
		exit(2);
	fputs(content, f);
	fclose(f);
}

static char *at(const char *rel)
{
	static char bufs[8][512];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, 512, "%s%s%s", root, rel[0] ? "/" : "", rel);
	return b;
}

/* The grants, as full paths. */
struct rec {
	char *v[256];
	size_t n;
	int fail_at; /* > 0: return -EIO at that call */
};

static int record(void *arg, int dfd, const char *name, unsigned char type, int inside)
{
	(void)inside;
	struct rec *r = arg;
	(void)type;
	char link[64], dir[PATH_MAX], full[PATH_MAX + 256];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
	ssize_t n = readlink(link, dir, sizeof(dir) - 1);
	if (n < 0)
		return -errno;
	dir[n] = '\0';
	snprintf(full, sizeof(full), "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
	if (r->n < 256)
		r->v[r->n++] = strdup(full);
	if (r->fail_at > 0 && (int)r->n == r->fail_at)
		return -EIO;
	return 0;
}

static int granted(const struct rec *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i], path) == 0)
			return 1;
	return 0;
}

static void rec_free(struct rec *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	r->n = 0;
}

static struct deny_entry deny_of(const char *path, int is_dir, char **keep, size_t nkeep)
{
	struct deny_entry d;
	memset(&d, 0, sizeof(d));
	d.path = strdup(path); /* at()'s buffers are reused */
	d.is_dir = is_dir;
	d.keep = keep;
	d.nkeep = nkeep;
	return d;
}

/* A home in the scratch tree: root/home with secrets, siblings and a
 * workspace. */
static void make_tree(void)
{
	mk("home", NULL);
	mk("home/.ssh", NULL);
	mk("home/.ssh/id_ed25519", "KEY");
	mk("home/.ssh/known_hosts", "kh");
	mk("home/.config", NULL);
	mk("home/.config/gh", NULL);
	mk("home/.config/gh/hosts.yml", "TOKEN");
	mk("home/.config/git", NULL);
	mk("home/.config/git/config", "cfg");
	mk("home/.netrc", "NETRC");
	mk("home/.gitconfig", "gc");
	mk("home/proj", NULL);
	mk("home/proj/.env", "ENV");
	mk("home/notes", "n");
	mk("other", NULL);
}

static void walk_grants(void)
{
	char *keep[] = { "known_hosts" };
	struct deny_entry d[4];
	d[0] = deny_of(at("home/.ssh"), 1, keep, 1);
	d[1] = deny_of(at("home/.config/gh"), 1, NULL, 0);
	d[2] = deny_of(at("home/.netrc"), 0, NULL, 0);
	/* Inside the workspace: granted with it, so not walked around. */
	d[3] = deny_of(at("home/proj/.env"), 0, NULL, 0);
	struct wentry w = { 0 };
	w.path = strdup(at("home/proj"));
	w.is_dir = 1;
	struct policy p;
	memset(&p, 0, sizeof(p));
	p.deny = d;
	p.ndeny = 4;
	p.w = &w;
	p.nw = 1;

	struct rec r = { .n = 0 };
	is_int(reads_walk(&p, 4096, record, NULL, &r), 0, "walk: succeeds");
	ok(granted(&r, at("other")), "walk: a sibling of the way to the home is granted");
	ok(granted(&r, at("home/notes")), "walk: a file beside the secrets is granted");
	ok(granted(&r, at("home/.gitconfig")), "walk: ~/.gitconfig is granted");
	ok(granted(&r, at("home/proj")), "walk: the workspace's tree is granted whole");
	ok(granted(&r, at("home/.config/git")), "walk: ~/.config/git is granted");
	ok(granted(&r, at("home/.ssh/known_hosts")), "walk: a readable name of ~/.ssh is granted");
	ok(!granted(&r, at("home/.ssh")), "walk: ~/.ssh is not granted");
	ok(!granted(&r, at("home/.ssh/id_ed25519")), "walk: the key is not granted");
	ok(!granted(&r, at("home/.config/gh")), "walk: ~/.config/gh is not granted");
	ok(!granted(&r, at("home/.netrc")), "walk: ~/.netrc is not granted");
	ok(!granted(&r, at("home")), "walk: the home (on the way) is not granted");
	ok(!granted(&r, at("home/.config")), "walk: ~/.config (on the way) is not granted");
	ok(!granted(&r, "/"), "walk: / is not granted");
	ok(!granted(&r, "/tmp"), "walk: /tmp, on the way to the scratch tree, is not granted");
	ok(granted(&r, "/usr") && granted(&r, "/etc"), "walk: /usr and /etc are granted");
	rec_free(&r);

	/* A denied path inside another: the outer one alone is walked
	 * around, so no sibling of the inner one (another key) is granted. */
	struct deny_entry n[2];
	n[0] = deny_of(at("home/.ssh/id_ed25519"), 0, NULL, 0);
	n[1] = deny_of(at("home/.ssh"), 1, NULL, 0);
	p.deny = n;
	p.ndeny = 2;
	is_int(reads_walk(&p, 4096, record, NULL, &r), 0, "nested: succeeds");
	ok(!granted(&r, at("home/.ssh/known_hosts")) && !granted(&r, at("home/.ssh/id_ed25519")),
	   "nested: nothing inside the outer denied directory is granted");
	ok(granted(&r, at("home/notes")), "nested: the home's other entries are granted");
	rec_free(&r);

	/* The bound: past max entries the walk stops with 1. */
	p.deny = d;
	p.ndeny = 3;
	is_int(reads_walk(&p, 3, record, NULL, &r), 1, "bound: more entries than max: 1");
	ok(r.n <= 3, "bound: no grant past max (%zu)", r.n);
	rec_free(&r);

	/* A grant the kernel refuses stops the walk with its error. */
	r.fail_at = 2;
	is_int(reads_walk(&p, 4096, record, NULL, &r), -EIO, "a failing grant: its error");
	is_int((int)r.n, 2, "a failing grant: the walk stopped there");
	r.fail_at = 0;
	rec_free(&r);

	/* Nothing Landlock can hold (left open, or inside the workspace):
	 * nothing walked. */
	d[2].left_open = 1;
	p.deny = &d[2];
	p.ndeny = 2;
	is_int(reads_walk(&p, 4096, record, NULL, &r), 0, "none held: succeeds");
	is_int((int)r.n, 0, "none held: no grant at all");
	rec_free(&r);
	for (size_t i = 0; i < 4; i++)
		free(d[i].path);
	free(n[0].path);
	free(n[1].path);
	free(w.path);
}

/* In a child: restrict with the read ruleset and try each path; bit i
 * of the result is set when paths[i] could be opened for reading. */
static int child_reads(int read_fd, const char *const *paths, size_t n)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(LL_SYS_RESTRICT_SELF, read_fd, 0U) != 0)
			_exit(255);
		int bits = 0;
		for (size_t i = 0; i < n; i++) {
			int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				bits |= 1 << i;
				close(fd);
			}
		}
		_exit(bits);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void kernel_reads(void)
{
	struct policy pol = { 0 };
	char *keep[] = { "known_hosts" };
	struct deny_entry d[2];
	d[0] = deny_of(at("home/.ssh"), 1, keep, 1);
	d[1] = deny_of(at("home/.netrc"), 0, NULL, 0);
	struct wentry w = { 0 };
	w.path = strdup(at("home/proj"));
	w.is_dir = 1;
	pol.deny = d;
	pol.ndeny = 2;
	pol.w = &w;
	pol.nw = 1;
	struct landlock_plan l;
	memset(&l, 0, sizeof(l));
	struct run_result res = { .reads_unbuilt = -1 };
	is_int(reads_prepare(&pol, &l, &res), 0, "prepare: builds");
	is_int(res.reads_unbuilt, 0, "prepare: not reported unbuilt");
	ok(l.read_fd >= 0, "prepare: a ruleset fd");
	const char *paths[] = { at("home/.ssh/id_ed25519"),
				at("home/.ssh/known_hosts"),
				at("home/.netrc"),
				at("home/notes"),
				at("home/proj/.env"),
				"/etc/passwd",
				at("home/.ssh"),
				at("home") };
	int bits = child_reads(l.read_fd, paths, 8);
	ok(bits >= 0, "child: ran");
	ok(!(bits & 1), "child: the key is unreadable");
	ok(bits & 2, "child: known_hosts is readable");
	ok(!(bits & 4), "child: ~/.netrc is unreadable");
	ok(bits & 8, "child: a file beside them is readable");
	ok(bits & 16, "child: the workspace is readable");
	ok(bits & 32, "child: /etc/passwd is readable");
	ok(!(bits & 64), "child: ~/.ssh cannot be listed");
	ok(!(bits & 128), "child: the home (on the way) cannot be listed");
	if (l.read_fd >= 0)
		close(l.read_fd);

	/* Nothing Landlock can hold: no ruleset at all. */
	memset(&l, 0, sizeof(l));
	d[0].left_open = 1;
	d[1].left_open = 1;
	is_int(reads_prepare(&pol, &l, &res), 0, "nothing to hold: succeeds");
	is_int(l.read_fd, -1, "nothing to hold: no ruleset");
	free(d[0].path);
	free(d[1].path);
	free(w.path);
	pol.deny = NULL;
	pol.ndeny = 0;
	pol.w = NULL;
	pol.nw = 0;
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/cordon-reads.XXXXXX");
	if (mkdtemp(root) == NULL)
		return 2;
	make_tree();
	walk_grants();
	if (landlock_query_abi() < 2)
		skip("the read layer needs Landlock ABI 2 (REFER) on this kernel");
	else
		kernel_reads();
	cleanup();
	return done_testing();
}

#else
int main(void)
{
	skip("the read layer is Linux only");
	return done_testing();
}
#endif
