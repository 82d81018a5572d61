/*
 * The network namespace layer (Linux), for --network off.
 *
 * The command gets a network namespace of its own whose only interface
 * is a loopback, brought up here: nothing it sends over IP leaves it
 * (there is no route out, so a connect or a DNS query fails at once with
 * ENETUNREACH), the host's loopback services (a database, a Docker TCP
 * API, a metadata proxy on 127.0.0.1 or ::1) are not there, and a test
 * suite's own server on 127.0.0.1 works. Unix sockets are files and
 * abstract names: their rules are the socket layers'. AF_VSOCK and the
 * other families a namespace does not isolate are refused by the seccomp
 * layer's network group.
 *
 * It needs the mount layer (the capabilities of its user namespace, when
 * not root). Only applied with --network off; the trial tries it always,
 * so the decision knows whether it could be.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int netns_loopback_up(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	int e = 0;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
		e = errno;
	} else {
		ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
			e = errno;
	}
	close(fd);
	return e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int netns_trial(const struct linux_trial *t)
{
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL;
	if (unshare(CLONE_NEWNET) != 0)
		return errno;
	return netns_loopback_up();
}

int netns_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *p = run->pol;
	(void)res;
	plan->net_namespace = p->network_off;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int netns_apply(const struct linux_plan *plan)
{
	if (!plan->net_namespace)
		return 0;
	if (unshare(CLONE_NEWNET) != 0)
		return errno;
	return netns_loopback_up();
}

#else
typedef int cordon_no_netns_here;
#endif
