/*
 * The devpts layer (after the mount layer, in its namespace, never the
 * caller's): /dev/pts is a devpts instance of the command's own, and its
 * ptmx is /dev/ptmx. script, expect and pty-using tests make their own
 * ptys there, and no other terminal of the machine is there to write to.
 *
 * The caller's terminal keeps its name. ttyname(3) (tty, GPG_TTY=$(tty),
 * sudo) takes the name /proc/self/fd shows, "/dev/pts/N", and accepts it
 * only when that path is the same node; the new instance has no pty N,
 * and nothing can be created in a devpts. So the child takes the
 * instance's ptys 0..N (ptmx hands out the lowest free number), binds
 * the caller's node over pty N, and closes the others: their numbers are
 * free again for the command. That bind is the caller's node alone,
 * from the mount layer's read-only view (no chmod, no chown): no other
 * pty of the machine's devpts comes with it.
 *
 * The kernel takes a pty's node out of the tree (and with it the way to
 * the bind on it) when its master is closed: process 1 of the PID
 * namespace keeps that master, not dumpable, for as long as the
 * command's processes live (layer-pidns.c). Without a PID namespace,
 * past DEVPTS_TTY_MAX, or when the ptys or fds run out, the terminal has
 * no name inside, as before.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* open_tree(2) and move_mount(2), Linux 5.2; our own definitions: libc
 * may lack them. The numbers are the same on every architecture. */
#define CORDON_SYS_open_tree 428
#define CORDON_SYS_move_mount 429
#define CORDON_OPEN_TREE_CLONE 1
#define CORDON_MOVE_MOUNT_F_EMPTY_PATH 0x00000004

/* The pty slaves' majors (UNIX98_PTY_SLAVE_MAJOR and the 7 after it). */
#define PTS_MAJOR 136
#define PTS_MAJORS 8
/* The highest terminal number named inside: the child holds N+1 ptys
 * (and fds) for a moment; the kernel's default pty limit is 4096. */
#define DEVPTS_TTY_MAX 1023

long devpts_tty_number(const char *name, unsigned maj, unsigned min)
{
	static const char prefix[] = "/dev/pts/";
	const char *d = name + sizeof(prefix) - 1;
	unsigned long n = 0;
	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0 || *d == '\0' ||
	    (d[0] == '0' && d[1] != '\0'))
		return -1;
	for (; *d != '\0'; d++) {
		if (*d < '0' || *d > '9' || n > (unsigned long)PTS_MAJORS * 256)
			return -1;
		n = n * 10 + (unsigned long)(*d - '0');
	}
	if (maj < PTS_MAJOR || maj >= PTS_MAJOR + PTS_MAJORS || min > 255 ||
	    n != (unsigned long)(maj - PTS_MAJOR) * 256 + min)
		return -1;
	return (long)n;
}

/* Parent: the caller's terminal, when one of fds 0-2 is /dev/pts/N (the
 * first such: one session, one terminal). NULL: none, or no memory. */
static struct devpts_tty *callers_tty(void)
{
	char name[sizeof(((struct devpts_tty *)0)->name)];
	struct stat st;
	for (int fd = 0; fd <= 2; fd++) {
		if (!isatty(fd) || ttyname_r(fd, name, sizeof(name)) != 0 || fstat(fd, &st) != 0 ||
		    !S_ISCHR(st.st_mode))
			continue;
		long n = devpts_tty_number(name, major(st.st_rdev), minor(st.st_rdev));
		if (n < 0 || n > DEVPTS_TTY_MAX)
			continue;
		struct devpts_tty *t = calloc(1, sizeof(*t));
		if (t == NULL || (t->masters = calloc((size_t)n + 1, sizeof(int))) == NULL) {
			free(t);
			return NULL;
		}
		memcpy(t->name, name, sizeof(name));
		t->index = (unsigned)n;
		t->dev = st.st_dev;
		t->rdev = st.st_rdev;
		t->ino = st.st_ino;
		t->held = -1;
		return t;
	}
	return NULL;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int same_node(const struct stat *st, const struct devpts_tty *t)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == t->rdev && st->st_dev == t->dev &&
	       st->st_ino == t->ino;
}

/* Child, before the instance covers the machine's ptys: a detached bind
 * of the caller's node, when it is still on fds 0-2 (the same node the
 * parent saw) and reachable by its name; else -1. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int tty_tree(const struct devpts_tty *t)
{
	struct stat st;
	int on_stdio = 0;
	for (int fd = 0; fd <= 2 && !on_stdio; fd++)
		on_stdio = fstat(fd, &st) == 0 && same_node(&st, t);
	if (!on_stdio)
		return -1;
	int tree = (int)syscall(CORDON_SYS_open_tree, AT_FDCWD, t->name,
				CORDON_OPEN_TREE_CLONE | O_CLOEXEC | AT_SYMLINK_NOFOLLOW);
	if (tree >= 0 && (fstat(tree, &st) != 0 || !same_node(&st, t))) {
		close(tree);
		tree = -1;
	}
	return tree;
}

/* Child, in the new instance: its ptys 0..N taken, the caller's node
 * bound over pty N, the other masters closed. t->held: pty N's master
 * (fd 3 or above: process 1 closes 0-2), or -1 when any step failed
 * (then nothing is bound, and the terminal has no name). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static void name_tty(struct devpts_tty *t, int tree)
{
	size_t n = 0;
	int ok = 1;
	t->held = -1;
	while (ok && n <= t->index) {
		int m = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
		unsigned got = ~0U;
		if (m < 0) {
			ok = 0;
			break;
		}
		t->masters[n++] = m;
		ok = ioctl(m, TIOCGPTN, &got) == 0 && got == n - 1;
	}
	if (ok && t->masters[t->index] < 3) {
		int m = fcntl(t->masters[t->index], F_DUPFD_CLOEXEC, 3);
		ok = m >= 0;
		if (ok) {
			close(t->masters[t->index]);
			t->masters[t->index] = m;
		}
	}
	ok = ok && syscall(CORDON_SYS_move_mount, tree, "", AT_FDCWD, t->name,
			   CORDON_MOVE_MOUNT_F_EMPTY_PATH) == 0;
	for (size_t i = 0; i < n; i++)
		if (ok && i == t->index)
			t->held = t->masters[i];
		else
			close(t->masters[i]);
}

/* The instance on /dev/pts, its ptmx bound on /dev/ptmx; the caller's
 * terminal named in it when t is not NULL. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int private_devpts(struct devpts_tty *t)
{
	int tree = t != NULL ? tty_tree(t) : -1;
	if (t != NULL)
		t->held = -1;
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") != 0 ||
	    mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) != 0) {
		int e = errno;
		if (tree >= 0)
			close(tree);
		return e;
	}
	if (tree >= 0) {
		name_tty(t, tree);
		close(tree);
	}
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int devpts_trial(const struct linux_trial *t)
{
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL;
	return private_devpts(NULL);
}

int devpts_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	(void)run;
	(void)res;
	plan->devpts = 1;
	/* No memory for it: the terminal has no name inside, nothing worse. */
	plan->tty = callers_tty();
	return 0;
}

/* After the mount layer, in its namespace (never the caller's). The
 * terminal is named only where process 1 can keep its pty's master. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int devpts_apply(const struct linux_plan *plan)
{
	if (plan->mount == NULL)
		return EINVAL;
	return private_devpts(plan->pid_namespace ? plan->tty : NULL);
}

void devpts_free(struct linux_plan *plan)
{
	if (plan->tty != NULL)
		free(plan->tty->masters);
	free(plan->tty);
	plan->tty = NULL;
}

#else
typedef int cordon_no_devpts_here;
#endif
