/*
 * pty-run [-t SECONDS] -- COMMAND [ARG...] < SCRIPT
 *
 * Runs COMMAND as the session leader of a new pseudo-terminal and plays a
 * script against it, one command per line:
 *   send TEXT     write TEXT (C escapes: \n \r \t \\ \xNN) to the terminal
 *   expect TEXT   wait until the output so far contains TEXT
 *   sleep MS      wait MS milliseconds
 * Everything the terminal printed is copied to stdout. Exit status: the
 * command's (128+N on signal N), or 124 when an expect timed out.
 * Test helper only.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char out[1 << 20];
static size_t outlen;

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read what the terminal has for up to ms milliseconds. */
static void drain(int fd, int ms)
{
	long long end = now_ms() + ms;
	for (;;) {
		long long left = end - now_ms();
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, left > 0 ? (int)left : 0) <= 0)
			return;
		ssize_t n = read(fd, out + outlen, sizeof(out) - outlen - 1);
		if (n <= 0)
			return;
		outlen += (size_t)n;
		out[outlen] = '\0';
		if (left <= 0)
			return;
	}
}

static size_t unescape(const char *s, char *d)
{
	size_t n = 0;
	for (; *s != '\0'; s++) {
		if (*s != '\\' || s[1] == '\0') {
			d[n++] = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 'n':
			d[n++] = '\n';
			break;
		case 'r':
			d[n++] = '\r';
			break;
		case 't':
			d[n++] = '\t';
			break;
		case 'x': {
			char hex[3] = { s[1], s[1] ? s[2] : 0, 0 };
			d[n++] = (char)strtol(hex, NULL, 16);
			s += 2;
			break;
		}
		default:
			d[n++] = *s;
		}
	}
	return n;
}

int main(int argc, char *argv[])
{
	int timeout_s = 10, argi = 1;
	char line[4096], buf[4096];

	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		timeout_s = atoi(argv[2]);
		argi = 3;
	}
	if (argi >= argc || strcmp(argv[argi], "--") != 0 || argi + 1 >= argc) {
		fprintf(stderr, "usage: pty-run [-t SECONDS] -- COMMAND... < SCRIPT\n");
		return 2;
	}
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
		perror("pty-run: openpt");
		return 2;
	}
	const char *sname = ptsname(m);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		int s = open(sname, O_RDWR);
		if (s < 0 || ioctl(s, TIOCSCTTY, 0) != 0)
			_exit(2);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
		close(m);
		execvp(argv[argi + 1], argv + argi + 1);
		_exit(127);
	}
	int rc = 0;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "send ", 5) == 0) {
			size_t n = unescape(line + 5, buf);
			if (write(m, buf, n) != (ssize_t)n)
				break;
			drain(m, 50);
		} else if (strncmp(line, "expect ", 7) == 0) {
			size_t n = unescape(line + 7, buf);
			buf[n] = '\0';
			long long end = now_ms() + timeout_s * 1000LL;
			while (strstr(out, buf) == NULL && now_ms() < end)
				drain(m, 100);
			if (strstr(out, buf) == NULL) {
				fprintf(stderr, "pty-run: EXPECT TIMEOUT: %s\n", buf);
				rc = 124;
				break;
			}
		} else if (strncmp(line, "sleep ", 6) == 0) {
			drain(m, atoi(line + 6));
		}
	}
	int status = 0;
	long long end = now_ms() + timeout_s * 1000LL;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() > end) {
			/* Leave nothing behind: the terminal's foreground group
			 * (the command's), then the session leader's. */
			pid_t fg = tcgetpgrp(m);
			if (fg > 0)
				kill(-fg, SIGKILL);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (rc == 0)
				rc = 124;
			break;
		}
		drain(m, 50);
	}
	drain(m, 50);
	fwrite(out, 1, outlen, stdout);
	if (rc != 0)
		return rc;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
