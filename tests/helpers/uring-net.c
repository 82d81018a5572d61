/*
 * uring-net: make an IP socket WITHOUT socket(2), through io_uring's
 * IORING_OP_SOCKET (Linux 5.19), as a command would to walk around a
 * seccomp filter that only watches socket(2). Test helper only.
 *
 *   uring-net probe          a ring and one socket made through it
 *   uring-net tcp4 PORT      ... then connect to 127.0.0.1:PORT, send a
 *                            line, wait up to 3 s for the reply
 *   uring-net udp4 PORT      ... a datagram to 127.0.0.1:PORT, the same
 *
 * Prints one line: "reached" (a reply came back) or "sent" (none) on
 * stdout, or "<step> refused: <error>" on stderr; exit 0 for "reached" and
 * for a working probe, 1 otherwise, 2 on bad usage. Raw syscalls: no
 * liburing.
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int refused(const char *step)
{
	fprintf(stderr, "%s refused: %s\n", step, strerror(errno));
	return 1;
}

/* One IORING_OP_SOCKET through a fresh ring: the new fd, or -1 (errno). */
static int uring_socket(int domain, int type)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	int ring = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		return -2;
	size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
	char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
			IORING_OFF_SQ_RING);
	char *cq = sq;
	if (sq != MAP_FAILED && !(p.features & IORING_FEAT_SINGLE_MMAP))
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
			  IORING_OFF_CQ_RING);
	struct io_uring_sqe *sqes =
		mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -2;

	uint32_t *sq_tail = (uint32_t *)(sq + p.sq_off.tail);
	uint32_t mask = *(uint32_t *)(sq + p.sq_off.ring_mask);
	uint32_t *array = (uint32_t *)(sq + p.sq_off.array);
	uint32_t tail = *sq_tail;
	struct io_uring_sqe *e = &sqes[tail & mask];
	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_SOCKET;
	e->fd = domain;
	e->off = (uint64_t)type;
	e->len = 0;
	array[tail & mask] = tail & mask;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -2;

	uint32_t *cq_head = (uint32_t *)(cq + p.cq_off.head);
	uint32_t *cq_tail = (uint32_t *)(cq + p.cq_off.tail);
	uint32_t cmask = *(uint32_t *)(cq + p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	uint32_t head = *cq_head;
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
		errno = EAGAIN;
		return -1;
	}
	int res = cqes[head & cmask].res;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	close(ring);
	if (res < 0) {
		errno = -res;
		return -1;
	}
	return res;
}

int main(int argc, char *argv[])
{
	int stream = argc == 3 && strcmp(argv[1], "tcp4") == 0;
	if (!(argc == 2 && strcmp(argv[1], "probe") == 0) && !stream &&
	    !(argc == 3 && strcmp(argv[1], "udp4") == 0)) {
		fprintf(stderr, "usage: uring-net probe | tcp4 PORT | udp4 PORT\n");
		return 2;
	}
	int fd = uring_socket(AF_INET, stream || argc == 2 ? SOCK_STREAM : SOCK_DGRAM);
	if (fd == -2)
		return refused("io_uring");
	if (fd < 0)
		return refused("IORING_OP_SOCKET");
	if (argc == 2) {
		printf("socket made through io_uring\n");
		return 0;
	}
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)atoi(argv[2]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return refused("connect");
	if (send(fd, "from io_uring\n", 14, 0) < 0)
		return refused("send");
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	char buf[64];
	if (poll(&pf, 1, 3000) == 1 && recv(fd, buf, sizeof(buf), 0) > 0) {
		printf("reached\n");
		return 0;
	}
	printf("sent\n");
	return 1;
}
