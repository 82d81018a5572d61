/*
 * The events' writer: each line whole, one at a time (the allow-list
 * proxy's threads emit too), to the status fd and the status file.
 * Below the event's makers (status.c, netproxy.c): it formats nothing.
 */
#include "handle.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Take sig when it is pending (it is blocked here). sigwait() returns at
 * once for a pending signal; macOS has no sigtimedwait(). */
static void consume_pending(const sigset_t *set, int sig)
{
	sigset_t pend;
	int got;
	if (sigpending(&pend) == 0 && sigismember(&pend, sig))
		(void)sigwait(set, &got);
}

/*
 * Write all of buf to fd: 0, or the errno of the write that failed.
 * SIGPIPE is blocked in this thread for the write, and a SIGPIPE the
 * write raised is consumed, so a closed reader of the status stream
 * cannot kill cordon (and the command's own SIGPIPE disposition is left
 * as it was).
 */
static int write_all_nosigpipe(int fd, const char *buf, size_t len)
{
	int err = 0;
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	int was_pending = 0;
	sigset_t pend;
	if (sigpending(&pend) == 0)
		was_pending = sigismember(&pend, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			if (errno == EPIPE && !was_pending)
				consume_pending(&pipe_set, SIGPIPE);
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* One event at a time: the proxy's threads write too. */
static pthread_mutex_t emit_lock = PTHREAD_MUTEX_INITIALIZER;

/* A status fd or file that cannot be written (its reader has gone, the
 * disk is full): one line on fd 2, once per run and destination (bit
 * STATUS_LOST_FD or STATUS_LOST_FILE of c->status_lost), since what the
 * run writes there from now on is lost. The run goes on and ends with
 * its command's status: the events report it, they do not confine. */
static void lost(cordon *c, unsigned which, int err)
{
	char line[CORDON_PATH_MAX + 256];
	if (c->status_lost & which)
		return;
	c->status_lost |= which;
	if (which == STATUS_LOST_FD)
		snprintf(line, sizeof(line),
			 "cordon: warning: cannot write the status events to fd %d (%s%s): this "
			 "run's events from here on are lost; its exit status stays the "
			 "command's\n",
			 c->status_fd, strerror(err), err == EPIPE ? ": its reader has gone" : "");
	else
		snprintf(line, sizeof(line),
			 "cordon: warning: cannot write the status events to %s (%s): this run's "
			 "events from here on are lost; its exit status stays the command's\n",
			 c->status_file != NULL ? c->status_file : "the status file",
			 strerror(err));
	(void)write_all_nosigpipe(2, line, strlen(line));
}

void status_emit(cordon *c, const char *line)
{
	if (line == NULL)
		return;
	size_t len = strlen(line);
	char *buf = malloc(len + 2);
	if (buf == NULL)
		return;
	memcpy(buf, line, len + 1);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	pthread_mutex_lock(&emit_lock);
	int e;
	if (c->status_fd >= 0 && (e = write_all_nosigpipe(c->status_fd, buf, len + 1)) != 0)
		lost(c, STATUS_LOST_FD, e);
	if (c->status_file_fd >= 0 &&
	    (e = write_all_nosigpipe(c->status_file_fd, buf, len + 1)) != 0)
		lost(c, STATUS_LOST_FILE, e);
	pthread_mutex_unlock(&emit_lock);
	free(buf);
}
