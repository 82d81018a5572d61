/*
 * Landlock's three system calls, and a rule on a path (Linux): what the
 * write ruleset (landlock.c) and the read layer's (landlock-reads.c)
 * are both built with. Each is a system call or two, safe in the
 * CLONE_VM child.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
long ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
	return syscall(LL_SYS_CREATE_RULESET, attr, size, flags);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
long ll_add_rule(int fd, const struct ll_path_beneath_attr *attr)
{
	return syscall(LL_SYS_ADD_RULE, fd, LL_RULE_PATH_BENEATH, attr, 0U);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
long ll_restrict_self(int fd)
{
	return syscall(LL_SYS_RESTRICT_SELF, fd, 0U);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int landlock_grant_path(const char *path, int ruleset, uint64_t rights)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : errno;
	struct ll_path_beneath_attr pb = { .allowed_access = rights, .parent_fd = fd };
	int e = ll_add_rule(ruleset, &pb) == 0 ? 0 : errno;
	close(fd);
	return e;
}

#else
typedef int cordon_no_landlock_sys_here;
#endif
