/*
 * What the socket supervisor's workers hold while they make a call for a
 * command (src/linux/caps.c, src/linux/unix-supervisor.c): the kept set, the lowered
 * effective set, that lowering one thread leaves the others as they are
 * (and, as root, that the kernel then refuses a SO_MARK the thread could
 * send before), and the control messages refused in a network namespace
 * cordon owns.
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint64_t effective(pid_t tid)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, tid };
	struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } }; /* valgrind marks one */
	if (syscall(SYS_capget, &h, d) != 0)
		return 0;
	return (uint64_t)d[1].effective << 32 | d[0].effective;
}

/* A datagram to a socket of ours on 127.0.0.1 carrying SO_MARK: 0, or
 * errno. */
static int send_marked(void)
{
	int r = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int e = r < 0 || s < 0 ? errno : 0;
	if (e == 0 && (bind(r, (struct sockaddr *)&a, sizeof(a)) != 0 ||
		       getsockname(r, (struct sockaddr *)&a, &alen) != 0))
		e = errno;
	if (e == 0) {
		union {
			char buf[CMSG_SPACE(sizeof(uint32_t))];
			struct cmsghdr align;
		} u = { { 0 } };
		uint32_t mark = 42;
		char byte = 'x';
		struct iovec iov = { &byte, 1 };
		struct msghdr m = { .msg_name = &a,
				    .msg_namelen = sizeof(a),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SO_MARK;
		c->cmsg_len = CMSG_LEN(sizeof(mark));
		memcpy(CMSG_DATA(c), &mark, sizeof(mark));
		if (sendmsg(s, &m, 0) < 0)
			e = errno;
	}
	if (r >= 0)
		close(r);
	if (s >= 0)
		close(s);
	return e;
}

struct seen {
	pid_t main_tid;
	uint64_t own, lowered, main_while, restored;
	int lower_err, mark_lowered, mark_restored;
};

static void *lowering_thread(void *arg)
{
	struct seen *v = arg;
	struct thread_caps tc;
	pid_t self = (pid_t)syscall(SYS_gettid);
	caps_thread_init(&tc, caps_kept());
	v->own = effective(self);
	v->lower_err = caps_thread_lower(&tc);
	v->lowered = effective(self);
	v->main_while = effective(v->main_tid);
	v->mark_lowered = send_marked();
	caps_thread_restore(&tc);
	v->restored = effective(self);
	v->mark_restored = send_marked();
	return NULL;
}

int main(void)
{
	uint64_t kept = caps_kept();
	ok((kept & (1ULL << CAP_CHOWN)) && (kept & (1ULL << CAP_DAC_OVERRIDE)) &&
		   (kept & (1ULL << CAP_NET_BIND_SERVICE)),
	   "kept: CHOWN, DAC_OVERRIDE, NET_BIND_SERVICE among them");
	ok(!(kept & (1ULL << CAP_NET_RAW | 1ULL << CAP_NET_ADMIN | 1ULL << CAP_SYS_PTRACE |
		     1ULL << CAP_SYS_ADMIN | 1ULL << CAP_SYS_RESOURCE)),
	   "kept: not NET_RAW, NET_ADMIN, SYS_PTRACE, SYS_ADMIN, SYS_RESOURCE");

	/* caps_lowered: only the effective set, only what the ceiling cuts. */
	struct __user_cap_data_struct own[2] = { { 0xffffffffu, 0xffffffffu, 0x5u },
						 { 0x1ffu, 0x1ffu, 0 } },
				      low[2];
	is_int(caps_lowered(own, kept, low), 1, "lowered: root's full set is cut");
	is_int((uint64_t)low[1].effective << 32 | low[0].effective, kept,
	       "... its effective set is the kept one");
	ok(low[0].permitted == own[0].permitted && low[1].permitted == own[1].permitted &&
		   low[0].inheritable == 0x5u,
	   "... permitted and inheritable untouched (the thread may raise it again)");
	struct __user_cap_data_struct none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	is_int(caps_lowered(none, kept, low), 0, "lowered: nothing held, nothing to do");
	is_int(caps_lowered(own, ~(uint64_t)0, low), 0, "lowered: no ceiling, nothing to do");
	struct __user_cap_data_struct some[2] = { { 1u << CAP_CHOWN, 1u << CAP_CHOWN, 0 },
						  { 0, 0, 0 } };
	is_int(caps_lowered(some, kept, low), 0, "lowered: only kept ones held, nothing to do");

	/* A thread lowered: itself only, and the kernel sees it. */
	struct seen v = { .main_tid = (pid_t)syscall(SYS_gettid) };
	uint64_t main_before = effective(v.main_tid);
	pthread_t th;
	if (pthread_create(&th, NULL, lowering_thread, &v) == 0)
		pthread_join(th, NULL);
	is_int(v.lower_err, 0, "thread: lowered without error");
	is_int(v.lowered, v.own & kept, "thread: its effective set is cut to the kept one");
	is_int(v.main_while, main_before, "thread: the other threads keep theirs meanwhile");
	is_int(v.restored, v.own, "thread: restored after the call");
	if ((main_before & (1ULL << CAP_NET_ADMIN)) && (main_before & (1ULL << CAP_NET_RAW))) {
		is_int(v.mark_lowered, EPERM,
		       "root, lowered: a SO_MARK control message gets EPERM");
		is_int(v.mark_restored, 0, "root, restored: the same is sent (the control)");
	} else {
		skip("not root: no CAP_NET_ADMIN to lower (the kernel's answer)");
		skip("not root: no CAP_NET_ADMIN to lower (the control)");
	}

	/* The control messages refused in a namespace cordon owns. */
	uint32_t six = 6, seven = 7;
	int one = 1;
	is_int(supervisor_cmsg_privileged(SOL_SOCKET, SO_MARK, &seven, 4), 1,
	       "privileged: SO_MARK");
	is_int(supervisor_cmsg_privileged(SOL_SOCKET, SO_PRIORITY, &seven, 4), 1,
	       "privileged: SO_PRIORITY 7");
	is_int(supervisor_cmsg_privileged(SOL_SOCKET, SO_PRIORITY, &six, 4), 0,
	       "not privileged: SO_PRIORITY 6");
	is_int(supervisor_cmsg_privileged(SOL_SOCKET, SO_PRIORITY, &seven, 2), 0,
	       "SO_PRIORITY of the wrong size: the kernel's EINVAL");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, 54, "", 0), 1, "privileged: IPV6_HOPOPTS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, 59, "", 0), 1, "privileged: IPV6_DSTOPTS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, 55, "", 0), 1,
	       "privileged: IPV6_RTHDRDSTOPTS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, 3, "", 0), 1,
	       "privileged: IPV6_2292HOPOPTS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, 4, "", 0), 1,
	       "privileged: IPV6_2292DSTOPTS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IP, IP_RETOPTS, "", 0), 1,
	       "privileged: IP_RETOPTS (whole)");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, 57, "", 0), 0,
	       "not privileged: IPV6_RTHDR (no capability asked)");
	is_int(supervisor_cmsg_privileged(IPPROTO_IPV6, IPV6_TCLASS, &one, 4), 0,
	       "not privileged: IPV6_TCLASS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IP, IP_TOS, &one, 4), 0,
	       "not privileged: IP_TOS");
	is_int(supervisor_cmsg_privileged(IPPROTO_IP, IP_TTL, &one, 4), 0,
	       "not privileged: IP_TTL");
	is_int(supervisor_cmsg_privileged(SOL_SOCKET, SCM_RIGHTS, &one, 4), 0,
	       "not privileged: SCM_RIGHTS");
	return done_testing();
}

#else
int main(void)
{
	skip("Linux only");
	return done_testing();
}
#endif
