/*
 * Unit tests for removing a tree (remove_tree_at, src/util/fsutil.c): any
 * depth with a few fds, never a symlink followed out, dirs made
 * unreadable or unwritable, the work linear in the entries, the budget
 * and the stop flag (a removal resumed later finishes), entries that
 * cannot be removed (a failure, not a hang), and a process that keeps
 * adding entries meanwhile (the removal still ends). Runs as root and as
 * any user; the immutable case needs root.
 */
#include "handle.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __linux__
#include <linux/fs.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[256];
static int rootfd, outfd;

#define BIG (1ul << 30)

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(2);
}

static void write_file(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die(name);
	close(fd);
}

/* A chain of depth dirs "d" below a new dir name in rootfd; at the
 * bottom a file and symlinks to the outside file and dir. With hostile
 * set: beside every 500th level a file, a dir with a file in it made
 * 000, a symlink out; every 1000th level made 000 and every 1000th + 500
 * made 0500 once its child exists; the bottom made 000. */
static void tree(const char *name, int depth, int hostile)
{
	char out[300];
	if (mkdirat(rootfd, name, 0700) != 0)
		die(name);
	int fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die(name);
	for (int i = 1; i <= depth; i++) {
		if (mkdirat(fd, "d", 0700) != 0)
			die("mkdir d");
		int c = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (c < 0)
			die("open d");
		if (hostile && i % 500 == 0) {
			write_file(fd, "f", "x");
			if (mkdirat(fd, "s", 0700) != 0)
				die("mkdir s");
			int s = openat(fd, "s", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			write_file(s, "f", "x");
			fchmod(s, 0);
			close(s);
			snprintf(out, sizeof(out), "%s/outside/keepdir", root);
			if (symlinkat(out, fd, "l") != 0)
				die("symlink");
			fchmod(fd, i % 1000 == 0 ? 0 : 0500);
		}
		close(fd);
		fd = c;
	}
	write_file(fd, "f", "bottom");
	snprintf(out, sizeof(out), "%s/outside/keep", root);
	if (symlinkat(out, fd, "lf") != 0)
		die("symlink");
	snprintf(out, sizeof(out), "%s/outside/keepdir", root);
	if (symlinkat(out, fd, "ld") != 0)
		die("symlink");
	if (hostile)
		fchmod(fd, 0);
	close(fd);
}

static int exists(const char *name)
{
	struct stat st;
	return fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The outside: keep (a file), keepdir (a dir holding a file), as made. */
static int outside_intact(void)
{
	char buf[16] = { 0 };
	struct stat a, b, c;
	int fd = openat(outfd, "keepdir/f", O_RDONLY | O_CLOEXEC);
	int fine = fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 6 && strcmp(buf, "inside") == 0;
	if (fd >= 0)
		close(fd);
	fd = openat(outfd, "keep", O_RDONLY | O_CLOEXEC);
	memset(buf, 0, sizeof(buf));
	fine = fine && fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 4 && strcmp(buf, "keep") == 0;
	if (fd >= 0)
		close(fd);
	return fine && fstatat(outfd, "keep", &a, 0) == 0 && (a.st_mode & 07777) == 0644 &&
	       fstatat(outfd, "keepdir", &b, 0) == 0 && (b.st_mode & 07777) == 0755 &&
	       fstatat(outfd, "keepdir/f", &c, 0) == 0 && (c.st_mode & 07777) == 0644;
}

static int removal(const char *name, int queue_fd, struct rm_budget *b)
{
	return remove_tree_at(rootfd, name, -1, queue_fd, b);
}

static void deep(void)
{
	struct rm_budget b = { BIG, 0, NULL, 0, 0, 0 };
	tree("deep", 5000, 1);
	/* In a child with 12 fds at most: a walk keeping an fd per level,
	 * or one per 48 levels, runs out of them. */
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 12, 12 };
		int limited = setrlimit(RLIMIT_NOFILE, &rl) == 0; /* not under valgrind */
		_exit(removal("deep", -1, &b) != 0 ? 1 : limited ? 0 : 3);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (code == 3)
		skip("the fd limit cannot be lowered here");
	else
		is_int(code, 0,
		       "a chain of 5,000 dirs (some 000, some 0500, symlinks out) is removed "
		       "with 12 fds");
	ok(!exists("deep"), "nothing of it is left");
	ok(outside_intact(), "what its symlinks point to is unchanged");

	/* The work is linear in the entries. */
	tree("deep", 5000, 0);
	int r = removal("deep", -1, &b);
	ok(r == 0 && !exists("deep"), "removed again (queue in the tree)");
	ok(b.done <= 5004 + 16, "work linear in the entries: %lu units for 5,004", b.done);

	/* With the queue outside the tree. */
	struct rm_budget b2 = { BIG, 0, NULL, 0, 0, 0 };
	tree("deep", 5000, 1);
	if (mkdirat(rootfd, "q", 0700) != 0)
		die("q");
	int q = openat(rootfd, "q", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = removal("deep", q, &b2);
	ok(r == 0 && !exists("deep"), "removed with the queue outside the tree");
	ok(unlinkat(rootfd, "q", AT_REMOVEDIR) == 0, "the queue is left empty");
	ok(b2.done <= 5004 + 16 + 10 * 4, "work linear in the entries: %lu units for %d", b2.done,
	   5004 + 10 * 4);
	close(q);
	ok(outside_intact(), "the outside is unchanged");
}

static void tops(void)
{
	struct rm_budget b = { BIG, 0, NULL, 0, 0, 0 };
	char out[300];
	snprintf(out, sizeof(out), "%s/outside/keepdir", root);
	if (symlinkat(out, rootfd, "link") != 0)
		die("symlink");
	ok(removal("link", -1, &b) == 0 && !exists("link"), "a symlink as the top is unlinked");
	write_file(rootfd, "file", "x");
	ok(removal("file", -1, &b) == 0 && !exists("file"), "a file as the top is unlinked");
	ok(removal("none", -1, &b) == 0, "nothing there: done");
	ok(outside_intact(), "the symlink's target is unchanged");

	/* A top the command made 000 (as any user: the removal opens it). */
	tree("locked", 10, 0);
	if (fchmodat(rootfd, "locked", 0, 0) != 0)
		die("chmod");
	ok(removal("locked", -1, &b) == 0 && !exists("locked"), "a top made 000 is removed");
}

/* Names like the queue's planted in the tree beforehand. */
static void planted(void)
{
	struct rm_budget b = { BIG, 0, NULL, 0, 0, 0 };
	char name[96];
	tree("p", 20, 0);
	int fd = openat(rootfd, "p", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (unsigned long seq = 1; seq < 64; seq++) {
		for (int n = 0; n < 3; n++) {
			snprintf(name, sizeof(name), ".cordon-rm.%ld.%lu.%d", (long)getpid(), seq,
				 n == 2 ? 999 : n);
			if (n == 0)
				write_file(fd, name, "x");
			else if (mkdirat(fd, name, 0700) == 0 && n == 1) {
				int s = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				write_file(s, "f", "x");
				close(s);
			}
		}
	}
	close(fd);
	ok(removal("p", -1, &b) == 0 && !exists("p"),
	   "names like the queue's in the tree: removed");
}

/* Entries left for a later removal: a budget, a stop flag. */
static unsigned long entries_below(const char *name)
{
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "find '%s/%s' 2>/dev/null | wc -l", root, name);
	FILE *p = popen(cmd, "r");
	unsigned long n = 0;
	if (p == NULL || fscanf(p, "%lu", &n) != 1)
		n = 0;
	if (p != NULL)
		pclose(p);
	return n;
}

static void budget(void)
{
	tree("b", 1200, 0);
	int fd = openat(rootfd, "b", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; i < 300; i++) {
		char n[16];
		snprintf(n, sizeof(n), "f%d", i);
		write_file(fd, n, "x");
	}
	close(fd);
	unsigned long before = entries_below("b"), calls = 0, most = 0;
	int r = -1, progress = 1, out = 1;
	while (r != 0 && calls < 1000) {
		struct rm_budget b = { 100, 0, NULL, 0, 0, 0 };
		r = removal("b", -1, &b);
		calls++;
		unsigned long now = entries_below("b");
		progress &= r == 0 || now < before;
		out &= r == 0 || (b.out && !b.failed);
		most = b.done > most ? b.done : most;
		before = now;
	}
	ok(r == 0 && !exists("b"), "a removal with a budget of 100, resumed, finishes");
	ok(calls <= 2 * 1504 / 100 + 2, "in %lu calls for 1,504 entries", calls);
	ok(progress && out, "each call stops at its budget, having removed some");
	ok(most <= 100, "no call does more than its budget (%lu)", most);

	int stop = 1;
	struct rm_budget s = { BIG, 10, &stop, 0, 0, 0 };
	tree("s", 100, 0);
	r = removal("s", -1, &s);
	ok(r != 0 && s.out && s.done == 10, "stopped: it does what it may not stop (%lu), no more",
	   s.done);
	stop = 0;
	struct rm_budget s2 = { BIG, 0, &stop, 0, 0, 0 };
	ok(removal("s", -1, &s2) == 0 && !exists("s"), "resumed, it finishes");
}

static void immutable(void)
{
	struct rm_budget b = { BIG, 0, NULL, 0, 0, 0 };
#ifndef FS_IOC_SETFLAGS
	skip("no FS_IOC_SETFLAGS here");
	skip("no FS_IOC_SETFLAGS here");
	(void)b;
	return;
#else
	if (geteuid() != 0) {
		skip("an immutable file needs root");
		skip("an immutable file needs root");
		return;
	}
	tree("i", 50, 0);
	int fd = openat(rootfd, "i/d/d/d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	write_file(fd, "frozen", "x");
	int f = openat(fd, "frozen", O_RDONLY | O_CLOEXEC), flags = 0, set = 0;
	if (f >= 0 && ioctl(f, FS_IOC_GETFLAGS, &flags) == 0) {
		flags |= FS_IMMUTABLE_FL;
		set = ioctl(f, FS_IOC_SETFLAGS, &flags) == 0;
	}
	if (!set) {
		skip("this file system has no immutable files");
		skip("this file system has no immutable files");
	} else {
		alarm(60);
		int r = removal("i", -1, &b);
		alarm(0);
		ok(r != 0 && b.failed && !b.out, "an immutable entry: a failure, reported");
		flags &= ~FS_IMMUTABLE_FL;
		(void)ioctl(f, FS_IOC_SETFLAGS, &flags);
		struct rm_budget b2 = { BIG, 0, NULL, 0, 0, 0 };
		ok(removal("i", -1, &b2) == 0 && !exists("i"), "once mutable, removed");
	}
	if (f >= 0)
		close(f);
	close(fd);
#endif
}

/* A process that keeps adding entries while the tree is removed: in the
 * top (files, dirs), or at the bottom of a chain it keeps deepening. The
 * removal ends; SIGALRM fails the test if it does not. */
static void adder(void)
{
	for (int kind = 0; kind < 3; kind++) {
		const char *what[] = { "files in the top", "dirs in the top",
				       "a chain it keeps deepening" };
		tree("a", 200, 0);
		int pfd[2];
		if (pipe(pfd) != 0)
			die("pipe");
		pid_t pid = fork();
		if (pid == 0) {
			int top = openat(rootfd, "a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			char n[32];
			if (kind == 2 && (fchdir(top) != 0 || chdir("d") != 0))
				_exit(1);
			(void)!write(pfd[1], "x", 1);
			for (unsigned long i = 0;; i++) {
				snprintf(n, sizeof(n), "n%lu", i);
				if (kind == 0)
					close(openat(top, n, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
				else if (kind == 1)
					(void)mkdirat(top, n, 0700);
				else if (mkdir("d", 0700) != 0 || chdir("d") != 0)
					(void)!chdir("..");
			}
		}
		char c;
		(void)!read(pfd[0], &c, 1);
		usleep(20000);
		/* In the top, the removal's own rule ends it; below, where
		 * this process is not cut off (no Landlock here), its budget. */
		struct rm_budget b = { kind < 2 ? BIG : 1ul << 14, 0, NULL, 0, 0, 0 };
		alarm(120);
		int r = removal("a", -1, &b);
		alarm(0);
		if (kind < 2)
			ok(!b.out, "%s: the removal ends by itself (%s, %lu units)", what[kind],
			   r == 0 ? "all gone" : "some left", b.done);
		else
			ok(r == 0 || (b.out && b.done <= 1ul << 14),
			   "%s: the removal ends, at the latest when its budget is spent (%lu)",
			   what[kind], b.done);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pfd[0]);
		close(pfd[1]);
		struct rm_budget b2 = { BIG, 0, NULL, 0, 0, 0 };
		ok(removal("a", -1, &b2) == 0 && !exists("a"),
		   "%s: the rest removed once it stopped", what[kind]);
	}
}

int main(void)
{
	char cmd[600];
	/* A tmpfs when there is one: the same code, faster than a disk. */
	snprintf(root, sizeof(root), "/dev/shm/cordon-fsutil.XXXXXX");
	if (mkdtemp(root) == NULL) {
		snprintf(root, sizeof(root), "/tmp/cordon-fsutil.XXXXXX");
		if (mkdtemp(root) == NULL)
			die("mkdtemp");
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || mkdirat(rootfd, "outside", 0755) != 0 ||
	    mkdirat(rootfd, "outside/keepdir", 0755) != 0)
		die(root);
	outfd = openat(rootfd, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	write_file(outfd, "keep", "keep");
	write_file(outfd, "keepdir/f", "inside");
	if (fchmodat(outfd, "keep", 0644, 0) != 0 || fchmodat(outfd, "keepdir/f", 0644, 0) != 0)
		die("chmod");

	deep();
	tops();
	planted();
	budget();
	immutable();
	adder();

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", root, root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
	return done_testing();
}
