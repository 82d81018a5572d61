/*
 * Portability and process helpers (compat.c).
 */
#ifndef CORDON_COMPAT_H
#define CORDON_COMPAT_H

#include "base.h"

#include <stddef.h>
#include <sys/types.h>

int pipe_cloexec(int fds[2]);
/* n random bytes from the kernel (getrandom, arc4random_buf); 0 or -1. */
int random_bytes(void *buf, size_t n);
/* The stack a child started by child_start() runs on: below malloc's
 * mmap threshold, so no mmap/munmap per start. The child's deepest frame
 * holds a CORDON_PATH_MAX buffer. */
#define CHILD_STACK_SIZE ((size_t)64 * 1024)
pid_t child_start(int (*fn)(void *), void *arg, void *stack, size_t size, int wait_exec);
/* Reap pid within timeout_ms (then SIGKILL it): 0, or -1 on timeout. */
int reap_with_timeout(pid_t pid, int *status, int timeout_ms);
/* Close every fd above 2 that is not in keep (sorted ascending). 0 or -1.
 * Async-signal-safe. */
int close_fds_except(const int *keep, size_t nkeep);
/* Close every fd from first to last (close_range, or one by one): 0 or -1. */
int close_fd_range(unsigned first, unsigned last);
/* Make this process a child subreaper (Linux): 0, or -1 where it cannot
 * be one. */
int become_subreaper(void);
/* The children of this process (of any of its threads), at most max,
 * into pids: their number, or -1 when they cannot be listed. */
long children_of_self(pid_t *pids, size_t max);
/* A pidfd for pid (close-on-exec), or -1 where there are none. */
int pidfd_of(pid_t pid);
long long monotonic_ms(void);
/* The text right after key (e.g. "\nTgid:") in a small file read in one
 * read() into buf (a /proc status file), or NULL. Async-signal-safe. */
const char *proc_field(const char *path, const char *key, char *buf, size_t size);
/* Sleep until the child of pidfd (when >= 0) may have changed state, at
 * most ms milliseconds (10 without a pidfd). */
void child_nap(int pidfd, long long ms);

#endif
