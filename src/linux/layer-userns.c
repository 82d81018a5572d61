/*
 * No user namespace of the command's own (the Linux layer table's last
 * entry). A user namespace gives its maker every capability over the
 * namespaces it then makes, and so reaches kernel code an unprivileged
 * process never does: a common route of kernel exploits. A command that
 * runs a sandbox of its own needs them (cordon_set_allow_userns, the
 * CLI's --allow-userns): then this layer is not used and the run reports
 * user_namespaces_allowed.
 *
 * Two mechanisms, each where it holds:
 *   - where cordon makes a user namespace for the run (the mount layer,
 *     not root), that namespace allows none below it: the child writes 0
 *     to /proc/sys/user/max_user_namespaces right after writing its maps,
 *     while it still holds CAP_SYS_RESOURCE there and before the view is
 *     made read-only (userns_limit, from the mount layer's enter). The
 *     kernel counts each new user namespace against the limit of every
 *     ancestor, so the command's unshare, clone and clone3 with
 *     CLONE_NEWUSER fail with ENOSPC, at any depth. bubblewrap's
 *     --disable-userns does the same but writes 1 and then makes one more
 *     user namespace below for its sandbox: its sandbox may be uid 0 with
 *     capabilities in the first one (--uid 0, --cap-add) and could raise
 *     the limit again there, which it cannot in an ancestor namespace it
 *     does not own. cordon's command never holds CAP_SYS_RESOURCE in the
 *     run's namespace (its uid is the caller's, not 0, so exec clears its
 *     capabilities; no_new_privs keeps file capabilities and set-id bits
 *     from granting any; /proc/sys is read-only in its view), so the run's
 *     own namespace is enough, and a joining spawn finds the limit there.
 *     Where the write fails (a /proc/sys read-only already), this layer's
 *     apply installs the filter below instead;
 *   - where cordon makes none (root, or no mount layer), the seccomp
 *     layer's group SCG_USERNS: unshare and clone with CLONE_NEWUSER fail
 *     with EPERM, clone3 (whose flags a filter cannot read) with ENOSYS,
 *     and libc falls back to clone.
 * Its trial passes when either holds in the probe's child. macOS has no
 * user namespaces: nothing to refuse there.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAX_USERNS "/proc/sys/user/max_user_namespaces"

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
void userns_limit(void)
{
	int fd = open(MAX_USERNS, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = write(fd, "0", 1);
	(void)n; /* whether it took, the layer's apply reads back */
	close(fd);
}

/* Whether the calling process's user namespace allows none below it. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int limited(void)
{
	char buf[8];
	int fd = open(MAX_USERNS, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == 2 && buf[0] == '0' && buf[1] == '\n';
}

int userns_by_filter(unsigned layers_on)
{
	return (layers_on & (1u << LAYER_USERNS)) &&
	       (!(layers_on & (1u << LAYER_MOUNTNS)) || geteuid() == 0);
}

/* After the mount layer's trial (which made a user namespace when not
 * root, and limited it) and the seccomp layer's (whose filter holds
 * every group). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int userns_trial(const struct linux_trial *t)
{
	if (t->userns && (t->passed & (1u << LAYER_MOUNTNS)) && limited())
		return 0;
	return (t->passed & (1u << LAYER_SECCOMP)) ? 0 : EPERM;
}

int userns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	(void)run;
	plan->userns_refused = 1;
	int n = seccomp_build(SCG_USERNS, plan->userns_insns,
			      sizeof(plan->userns_insns) / sizeof(plan->userns_insns[0]));
	if (n <= 0)
		return backend_fail(res, CORDON_ECONFINE,
				    "seccomp filter of the user namespace rules: %s",
				    n == 0 ? "no syscall table for this architecture" : "too long");
	plan->userns_filter.len = (unsigned short)n;
	plan->userns_filter.filter = plan->userns_insns;
	if (plan->mount != NULL)
		plan->mount->limit_userns = 1;
	return 0;
}

/* The limit in the run's user namespace when cordon made one (a joining
 * spawn finds it there), else the run's filter; where the limit could
 * not be set, a filter of the child's own (no_new_privs is set: the layer
 * comes after it). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int userns_apply(const struct linux_plan *plan)
{
	if (!plan->userns_refused || (plan->seccomp_groups & SCG_USERNS))
		return 0;
	if (plan->mount != NULL && plan->mount->userns && limited())
		return 0;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &plan->userns_filter, 0, 0) != 0)
		return errno;
	return 0;
}

#else
typedef int cordon_no_userns_layer_here;
#endif
