/*
 * userns unshare|clone|clone3|clone-high: try to make a user namespace as
 * a command inside a sandbox would: unshare(CLONE_NEWUSER), the raw clone
 * system call with CLONE_NEWUSER (no libc wrapper in the way), clone3
 * with it in struct clone_args, or clone with CLONE_NEWUSER and bits set
 * above 32 (the kernel takes the low 32 bits of clone's flags, so a
 * filter comparing all 64 would let it through). The namespace is made
 * by a child (clone, clone3) or by the helper itself (unshare), which
 * then reads its own /proc/self/ns/user to show it is another. Prints
 * "made" (exit 0), or "refused: ERRNO" (exit 1); a clone3 that the
 * kernel or a filter does not know says "refused: ..." too (ENOSYS).
 * Test helper only.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

/* struct clone_args of linux/sched.h, version 0 (64 bytes). */
struct clone_args0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static int report(long r, int e)
{
	if (r < 0) {
		printf("refused: %s\n", strerror(e));
		return 1;
	}
	printf("made\n");
	return 0;
}

/* The parent's view of a child that made the namespace: it exits 0. */
static int child_made(long pid, int e)
{
	if (pid < 0)
		return report(-1, e);
	if (pid == 0)
		_exit(0);
	int status = 0;
	if (waitpid((pid_t)pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return report(-1, ECHILD);
	return report(0, 0);
}

int main(int argc, char *argv[])
{
	const char *how = argc > 1 ? argv[1] : "unshare";
	if (strcmp(how, "unshare") == 0) {
		char before[64] = "", after[64] = "";
		(void)!readlink("/proc/self/ns/user", before, sizeof(before) - 1);
		long r = unshare(CLONE_NEWUSER);
		int e = errno;
		(void)!readlink("/proc/self/ns/user", after, sizeof(after) - 1);
		if (r == 0 && strcmp(before, after) == 0)
			return report(-1, EINVAL); /* no new namespace after all */
		return report(r, e);
	}
	if (strcmp(how, "clone") == 0 || strcmp(how, "clone-high") == 0) {
		unsigned long flags = CLONE_NEWUSER | SIGCHLD;
		if (strcmp(how, "clone-high") == 0 && sizeof(long) == 8)
			flags |= (unsigned long)0xdead0000ull << 16 << 16;
		long pid = syscall(SYS_clone, flags, 0L, 0L, 0L, 0L);
		return child_made(pid, errno);
	}
	if (strcmp(how, "clone3") == 0) {
		struct clone_args0 a;
		memset(&a, 0, sizeof(a));
		a.flags = CLONE_NEWUSER;
		a.exit_signal = SIGCHLD;
		long pid = syscall(SYS_clone3, &a, sizeof(a));
		return child_made(pid, errno);
	}
	fprintf(stderr, "usage: userns unshare|clone|clone3|clone-high\n");
	return 2;
}
