/*
 * The Landlock tables (src/linux/landlock.c): the rights and scopes cordon
 * handles at each ABI, what each ABI covers, and the kernel's view of
 * them: every ABI up to the running kernel's is accepted, a newer one is
 * refused (so the ABI must be detected, never assumed). ABI 9's
 * RESOLVE_UNIX is run for real only on a kernel that has it.
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <unistd.h>

static const uint64_t abi1 = LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE |
			     LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK |
			     LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM;

/* What cordon must handle at each ABI, written out by hand. */
static uint64_t want_fs(int abi)
{
	uint64_t w = abi1;
	if (abi >= 2)
		w |= LL_FS_REFER;
	if (abi >= 3)
		w |= LL_FS_TRUNCATE;
	if (abi >= 5)
		w |= LL_FS_IOCTL_DEV;
	if (abi >= 9)
		w |= LL_FS_RESOLVE_UNIX;
	return w;
}

static void tables(void)
{
	for (int abi = 1; abi <= LL_ABI_KNOWN + 1; abi++) {
		struct ll_ruleset_attr a;
		landlock_attr_for_abi(abi, &a);
		is_int(a.handled_access_fs, want_fs(abi), "ABI %d: handled file rights", abi);
		is_int(a.handled_access_net, 0, "ABI %d: no network rights in the write ruleset",
		       abi);
		is_int(a.scoped, abi >= 6 ? LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET : 0,
		       "ABI %d: scopes", abi);
		/* READ and EXECUTE are never handled: reads stay open. */
		ok((a.handled_access_fs & (LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_EXECUTE)) == 0,
		   "ABI %d: reads and execution not handled", abi);
	}
	ok((LL_FS_FILE_RIGHTS & LL_FS_RESOLVE_UNIX) != 0,
	   "RESOLVE_UNIX may be granted on a socket file itself");
	is_int(LL_FS_RESOLVE_UNIX, 1 << 16, "RESOLVE_UNIX is bit 16 (UAPI)");

	for (int abi = 2; abi <= LL_ABI_KNOWN; abi++) {
		struct coverage cov = { 0 };
		landlock_coverage(abi, 1, &cov);
		is_int((cov.layers >> LAYER_UNIX_LANDLOCK) & 1, abi >= 9,
		       "ABI %d: unix_socket_landlock layer %s", abi, abi >= 9 ? "on" : "off");
		is_int((cov.layers >> LAYER_ABSTRACT_SCOPE) & 1, abi >= 6,
		       "ABI %d: abstract_unix_scope layer", abi);
		is_int((cov.gaps >> GAP_ABSTRACT_SOCKETS) & 1, abi < 6,
		       "ABI %d: abstract socket gap", abi);
		is_int((cov.gaps >> GAP_SIGNALS) & 1, abi < 6, "ABI %d: signal gap", abi);
		is_int((cov.gaps >> GAP_DEVICE_IOCTL) & 1, abi < 5, "ABI %d: ioctl gap", abi);
	}
	struct coverage cov = { 0 };
	landlock_coverage(2, 0, &cov);
	ok(cov.gaps & (1ull << GAP_TRUNCATE), "ABI 2 without the mount layer: truncate gap");
	memset(&cov, 0, sizeof(cov));
	landlock_coverage(2, 1, &cov);
	ok(!(cov.gaps & (1ull << GAP_TRUNCATE)), "ABI 2 with the mount layer: no truncate gap");
}

static long create(const struct ll_ruleset_attr *a)
{
	return syscall(LL_SYS_CREATE_RULESET, a, sizeof(*a), 0U);
}

/* Each ABI's attributes against this kernel. */
static void kernel_view(int kabi)
{
	for (int abi = 1; abi <= LL_ABI_KNOWN; abi++) {
		struct ll_ruleset_attr a;
		landlock_attr_for_abi(abi, &a);
		long fd = create(&a);
		int e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close((int)fd);
		if (abi <= kabi) {
			is_int(e, 0, "kernel ABI %d accepts cordon's ABI %d ruleset", kabi, abi);
		} else {
			struct ll_ruleset_attr prev;
			landlock_attr_for_abi(abi - 1, &prev);
			if (memcmp(&a, &prev, sizeof(a)) == 0)
				continue; /* nothing new at this ABI to be refused */
			is_int(e, EINVAL, "kernel ABI %d refuses cordon's ABI %d ruleset", kabi,
			       abi);
		}
	}
}

/* The network rights by ABI, and the kernel's view: TCP from ABI 4, UDP
 * from ABI 10 (refused, EINVAL, by an older kernel: detected, never
 * assumed). A TCP connect under the ruleset is refused with EACCES. */
static void net_rights(int kabi)
{
	is_int(landlock_net_rights(3), 0, "net: ABI 3 has no network rights");
	is_int(landlock_net_rights(4), LL_NET_BIND_TCP | LL_NET_CONNECT_TCP, "net: ABI 4: TCP");
	is_int(landlock_net_rights(9), LL_NET_BIND_TCP | LL_NET_CONNECT_TCP, "net: ABI 9: TCP");
	is_int(landlock_net_rights(10),
	       LL_NET_BIND_TCP | LL_NET_CONNECT_TCP | LL_NET_BIND_UDP | LL_NET_CONNECT_UDP,
	       "net: ABI 10: TCP and UDP");
	is_int(LL_NET_BIND_UDP, 1 << 2, "net: BIND_UDP is bit 2 (UAPI)");
	is_int(LL_NET_CONNECT_UDP, 1 << 3, "net: CONNECT_UDP is bit 3 (UAPI)");
	for (int abi = 4; abi <= LL_ABI_NET_UDP; abi++) {
		struct ll_ruleset_attr a = { .handled_access_fs = LL_FS_WRITE_FILE,
					     .handled_access_net = landlock_net_rights(abi) };
		long fd = create(&a);
		int e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close((int)fd);
		if (abi <= kabi)
			is_int(e, 0, "net: kernel ABI %d accepts ABI %d's network rights", kabi,
			       abi);
		else if (landlock_net_rights(abi) != landlock_net_rights(abi - 1))
			is_int(e, EINVAL, "net: kernel ABI %d refuses ABI %d's network rights",
			       kabi, abi);
	}
	if (kabi < 4) {
		skip("net: a TCP connect under the ruleset needs Landlock ABI 4");
		return;
	}
	int srv = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	if (srv < 0 || bind(srv, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(srv, 1) != 0 ||
	    getsockname(srv, (struct sockaddr *)&sa, &len) != 0) {
		skip("net: no loopback TCP listener here");
		if (srv >= 0)
			close(srv);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct ll_ruleset_attr a = { .handled_access_fs = LL_FS_WRITE_FILE,
					     .handled_access_net = landlock_net_rights(kabi) };
		long rs = create(&a);
		if (rs < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(LL_SYS_RESTRICT_SELF, (int)rs, 0U) != 0)
			_exit(100);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			_exit(0);
		_exit(errno == EACCES ? 1 : 101);
	}
	int st = -1;
	if (pid > 0)
		waitpid(pid, &st, 0);
	is_int(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 1,
	       "net: a TCP connect to the host's loopback under the ruleset: EACCES");
	close(srv);
}

/* In a child: restrict with RESOLVE_UNIX handled (and a rule on allowed
 * when it is >= 0), then connect to path. The child's errno, or 0. */
static int confined_connect(const char *path, int allowed)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct ll_ruleset_attr a = { .handled_access_fs = LL_FS_RESOLVE_UNIX };
		long rs = create(&a);
		if (rs < 0)
			_exit(100);
		if (allowed >= 0) {
			struct ll_path_beneath_attr pb = { .allowed_access = LL_FS_RESOLVE_UNIX,
							   .parent_fd = allowed };
			if (syscall(LL_SYS_ADD_RULE, (int)rs, LL_RULE_PATH_BENEATH, &pb, 0U) != 0)
				_exit(101);
		}
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(LL_SYS_RESTRICT_SELF, (int)rs, 0U) != 0)
			_exit(102);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			_exit(0);
		_exit(errno == EACCES ? 1 : 103);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void resolve_unix(int kabi)
{
	if (kabi < 9) {
		skip("Landlock RESOLVE_UNIX needs ABI 9 (Linux 7.1); this kernel has a lower ABI");
		return;
	}
	char dir[] = "/tmp/cordon-test-ll-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "%s/s", dir);
	int srv = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ok(bind(srv, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(srv, 4) == 0,
	   "a listening socket outside the domain");
	is_int(confined_connect(path, -1), 1, "RESOLVE_UNIX handled, no rule: EACCES");
	int fd = open(path, O_PATH | O_CLOEXEC);
	is_int(confined_connect(path, fd), 0, "a rule on the socket file itself: allowed");
	close(fd);
	close(srv);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	tables();
	int kabi = landlock_query_abi();
	if (kabi <= 0) {
		skip("Landlock is not available on this kernel");
	} else {
		kernel_view(kabi);
		resolve_unix(kabi);
		net_rights(kabi);
	}
	return done_testing();
}

#else
int main(void)
{
	skip("Landlock is Linux only");
	return done_testing();
}
#endif
