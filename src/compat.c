/*
 * Small portability helpers for calls Linux has and macOS lacks. Each
 * keeps the Linux behaviour and gives other systems the closest fallback.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int pipe_cloexec(int fds[2])
{
#if defined(__linux__)
	return pipe2(fds, O_CLOEXEC);
#else
	/* No pipe2 (macOS): between pipe() and fcntl() a fork in another
	 * thread could inherit the ends; that child's exec closes nothing
	 * of ours, it only holds a copy until it execs or exits. */
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
			int e = errno;
			close(fds[0]);
			close(fds[1]);
			errno = e;
			return -1;
		}
	}
	return 0;
#endif
}
