/*
 * The network namespace layer (Linux), for --network off and allow.
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
 * With --network allow the namespace is the same, and the child makes
 * one more thing in it: the proxy's listener on 127.0.0.1:PORT, sent to
 * cordon over the run's socketpair (SCM_RIGHTS) and served from there
 * (src/core/netproxy.c). It is the only way out, and exists nowhere but
 * inside the namespace: no other process of the host can dial it.
 *
 * It needs the mount layer (the capabilities of its user namespace, when
 * not root). Only applied with --network off or allow; the trial tries it
 * always, so the decision knows whether it could be.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
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
	plan->proxy_port = p->network_off && p->proxy_sock >= 0 ? p->proxy_port : 0;
	plan->proxy_sock = plan->proxy_port != 0 ? p->proxy_sock : -1;
	return 0;
}

/* The proxy's listener, made in the namespace and sent to the parent: 0
 * or errno (the command does not run without its way out). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int proxy_listener_send(const struct linux_plan *plan)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = (in_port_t)(((plan->proxy_port & 0xff) << 8) | (plan->proxy_port >> 8));
	a.sin_addr.s_addr = (in_addr_t)(127u | 1u << 24); /* 127.0.0.1, network order */
	char byte = 'L';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m;
	memset(&m, 0, sizeof(m));
	memset(&u, 0, sizeof(u));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &s, sizeof(int));
	int e = 0;
	if (bind(s, (const struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 128) != 0 ||
	    sendmsg(plan->proxy_sock, &m, MSG_NOSIGNAL) != 1)
		e = errno != 0 ? errno : EIO;
	close(s);
	return e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int netns_apply(const struct linux_plan *plan)
{
	if (!plan->net_namespace)
		return 0;
	if (unshare(CLONE_NEWNET) != 0)
		return errno;
	int e = netns_loopback_up();
	if (e == 0 && plan->proxy_port != 0)
		e = proxy_listener_send(plan);
	return e;
}

#else
typedef int cordon_no_netns_here;
#endif
