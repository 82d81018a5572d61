/*
 * The allow-list proxy's way to a destination (proxydial.c), apart from
 * its connections and protocols (proxy.c): the addresses of a host, which
 * of them may be reached, the connect; and the socket helpers both use.
 * Internal to the proxy. Every wait here also returns when stop_fd (the
 * proxy's stop pipe) is readable.
 */
#ifndef CORDON_PROXYDIAL_H
#define CORDON_PROXYDIAL_H

#include "netallow.h"

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

enum io { IO_OK, IO_EOF, IO_ERR, IO_TIMEOUT, IO_STOP };

long long pxd_now_ms(void);
/* Non-blocking, close-on-exec, and no SIGPIPE where a socket option is
 * the way (macOS). 0 or -1. */
int pxd_set_flags(int fd);
/* A pipe, both ends non-blocking and close-on-exec. 0 or -1. */
int pxd_pipe(int fds[2]);
/* Wait for ev on fd (-1: none), stop_fd, or the deadline (-1: none). */
enum io pxd_wait(int stop_fd, int fd, short ev, long long deadline);
/* All of b to the socket fd. */
enum io pxd_send_all(int stop_fd, int fd, const void *b, size_t n, long long deadline);

#define PXD_MAX_ADDRS 16
struct pxd_addrs {
	struct sockaddr_storage v[PXD_MAX_ADDRS];
	size_t n;
};

/* The addresses of a destination as netallow_canon gives it (canon,
 * kind): an address literal's own; for a name, those of the resolve
 * entries (NAME=ADDR) that name it, else the system resolver's, by the
 * deadline. IO_OK (none found: as->n 0), IO_STOP, IO_TIMEOUT, IO_ERR. */
enum io pxd_addresses(const char *canon, enum netallow_kind kind, const char *const *resolve,
		      size_t nresolve, int stop_fd, long long deadline, struct pxd_addrs *as);
/* Keep of as the addresses that are neither proxy_address_local() nor
 * one of this host's (getifaddrs): how many are left. */
size_t pxd_vet(struct pxd_addrs *as);

struct pxd_dialed {
	int fd; /* connected, non-blocking, close-on-exec, TCP_NODELAY */
	char address[INET6_ADDRSTRLEN]; /* the one connected to */
	int timed_out, refused; /* how the last one failed */
};
/* Connect to port of the first address of as that answers by the
 * deadline: 0, -1 (none did), or -2 (stop). */
int pxd_connect(const struct pxd_addrs *as, unsigned port, int stop_fd, long long deadline,
		struct pxd_dialed *d);

#endif
