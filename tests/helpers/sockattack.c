/*
 * tests/helpers/sockattack: attacks on the Unix socket supervisor, run as
 * a confined command (each found by a review; each must stay refused).
 *
 *   sockattack fdrace PATH      connect fd 100 to the stream socket PATH
 *                               while another thread swaps fd 100 between
 *                               an AF_INET and an AF_UNIX socket (against a
 *                               check of the family followed by "continue")
 *   sockattack dgramrace PATH   the same with sendmsg to the datagram
 *                               socket PATH
 *   sockattack badcmsg          a datagram sendmsg whose SCM_RIGHTS header
 *                               claims more bytes than the control buffer
 *   sockattack chroot DIR PATH  chroot to DIR (keeping the cwd, with a new
 *                               user namespace first when not root), then
 *                               connect to PATH, relative to the cwd
 *
 * Prints one line: "escaped N" (N connects or sends reached PATH), "held",
 * or the error name of the call; exit 0, or 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SLOT 100
#define ROUNDS 3000

static volatile int stop;
static int inet_fd, unix_fd;

static void *swapper(void *arg)
{
	(void)arg;
	while (!stop) {
		(void)dup2(inet_fd, SLOT);
		(void)dup2(unix_fd, SLOT);
	}
	return NULL;
}

static int unix_address(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -1;
	memcpy(a->sun_path, path, strlen(path));
	return 0;
}

static int race(const char *path, int type)
{
	struct sockaddr_un a;
	pthread_t th;
	int escaped = 0;
	if (unix_address(path, &a) != 0)
		return 2;
	for (int i = 0; i < ROUNDS; i++) {
		inet_fd = socket(AF_INET, type, 0);
		unix_fd = socket(AF_UNIX, type, 0);
		if (inet_fd < 0 || unix_fd < 0 || dup2(inet_fd, SLOT) < 0)
			return 2;
		stop = 0;
		if (pthread_create(&th, NULL, swapper, NULL) != 0)
			return 2;
		int r;
		if (type == SOCK_STREAM) {
			r = connect(SLOT, (struct sockaddr *)&a, sizeof(a));
		} else {
			char msg[] = "escaped\n";
			struct iovec iov = { msg, sizeof(msg) - 1 };
			struct msghdr mh = { .msg_name = &a,
					     .msg_namelen = sizeof(a),
					     .msg_iov = &iov,
					     .msg_iovlen = 1 };
			r = (int)sendmsg(SLOT, &mh, MSG_NOSIGNAL);
		}
		stop = 1;
		pthread_join(th, NULL);
		if (r >= 0) {
			int d = -1;
			socklen_t l = sizeof(d);
			if (getsockopt(SLOT, SOL_SOCKET, SO_DOMAIN, &d, &l) == 0 && d == AF_UNIX) {
				escaped++;
				if (type == SOCK_STREAM)
					(void)!write(SLOT, "escaped\n", 8);
			}
		}
		close(SLOT);
		close(inet_fd);
		close(unix_fd);
	}
	if (escaped)
		printf("escaped %d\n", escaped);
	else
		printf("held\n");
	return 0;
}

static int badcmsg(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return 2;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 2)];
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	ctl.h.cmsg_len = CMSG_LEN(256); /* far past the buffer */
	char data = 'x';
	struct iovec iov = { &data, 1 };
	struct sockaddr_un self;
	socklen_t sl = sizeof(self);
	(void)getsockname(sv[1], (struct sockaddr *)&self, &sl);
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = &ctl,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * 2) };
	if (sendmsg(sv[0], &mh, 0) >= 0)
		printf("sent\n");
	else
		printf("%s\n", strerrorname_np(errno));
	return 0;
}

static int in_chroot(const char *dir, const char *path)
{
	struct sockaddr_un a;
	if (unix_address(path, &a) != 0)
		return 2;
	if (geteuid() != 0 && unshare(CLONE_NEWUSER) != 0) {
		printf("%s (unshare)\n", strerrorname_np(errno));
		return 0;
	}
	if (chroot(dir) != 0) {
		printf("%s (chroot)\n", strerrorname_np(errno));
		return 0;
	}
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0) {
		(void)!write(s, "escaped\n", 8);
		printf("escaped 1\n");
	} else {
		printf("%s\n", strerrorname_np(errno));
	}
	/* Out of /proc's sight after the chroot: leave without the
	 * sanitizers' exit-time scans, which read /proc. */
	(void)fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "fdrace") == 0)
		return race(argv[2], SOCK_STREAM);
	if (argc == 3 && strcmp(argv[1], "dgramrace") == 0)
		return race(argv[2], SOCK_DGRAM);
	if (argc == 2 && strcmp(argv[1], "badcmsg") == 0)
		return badcmsg();
	if (argc == 4 && strcmp(argv[1], "chroot") == 0)
		return in_chroot(argv[2], argv[3]);
	fprintf(stderr, "usage: sockattack fdrace|dgramrace PATH | badcmsg | chroot DIR PATH\n");
	return 2;
}
