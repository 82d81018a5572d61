#include "runcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Print bytes that would break the one-line message as escapes. */
static void put_sanitized(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

void cli_msg(const char *prefix, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(prefix, stderr);
	put_sanitized(stderr, buf);
	fputc('\n', stderr);
	fflush(stderr);
}

unsigned cli_sanitize_std_fds(void)
{
	unsigned closed = 0;
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		closed |= 1u << fd;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (n < 0)
			exit(CLI_EXIT_CORDON);
		if (n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
	return closed;
}

/* Signals that reach cordon go to the command's process group. */
static volatile sig_atomic_t child_pgid;
static volatile sig_atomic_t pending_sig;

static void forward(int sig)
{
	int saved = errno;
	if (child_pgid > 0)
		(void)kill(-child_pgid, sig);
	else
		pending_sig = sig;
	errno = saved;
}

void cli_run_signal(int sig)
{
	int saved = errno;
	if (child_pgid > 0)
		(void)kill(-child_pgid, sig);
	else if (pending_sig == 0 || sig == SIGKILL)
		pending_sig = sig;
	errno = saved;
}

static void install_forwarding(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* A signal ignored at start stays ignored, for cordon and the
		 * command alike (as with nohup). */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* One line for what the run planted and cordon moved aside. */
static void warn_tampered(const cordon *c)
{
	size_t n = cordon_tampered_count(c);
	if (n == 0)
		return;
	const char *moved = cordon_tampered_moved(c, 0);
	cli_msg("cordon: warning: ",
		"the run left %zu file%s that a later program would run or read (git's, or an "
		"agent's configuration); moved aside: %s -> %s%s",
		n, n == 1 ? "" : "s", cordon_tampered_path(c, 0),
		moved[0] != '\0' ? moved : "(not moved: left where it is)",
		n > 1 ? " (all in the exit event)" : "");
}

/* In auto mode, a run without confinement says so on stderr (off is
 * unconfined by request; required never runs unconfined). 1 when it
 * did. */
static int warn_unconfined(cordon *c)
{
	if (cordon_applied(c) || strcmp(cordon_reason(c), CORDON_REASON_OFF) == 0)
		return 0;
	cli_msg("cordon: warning: ", "running UNCONFINED: %s (%s%s%s)",
		cordon_reason_text(cordon_reason(c)), cordon_reason(c),
		cordon_reason_detail(c) ? ": " : "",
		cordon_reason_detail(c) ? cordon_reason_detail(c) : "");
	return 1;
}

/* Why --review cannot be held in this run (the gap review_not_held). */
static const char *review_why(cordon *c)
{
	if (!cordon_applied(c))
		return "confinement is not applied";
	if (strcmp(cordon_backend_name(c), "seatbelt") == 0)
		return "macOS: Seatbelt cannot redirect a write";
	return "no mount layer: Landlock alone; cordon probe says why";
}

/* Controls asked for that auto mode runs without, said once each on
 * stderr (the start event has their gaps): --network allow runs with the
 * network off; --review holds nothing. */
static void warn_gaps(cordon *c)
{
	for (const char *const *g = cordon_gaps(c); *g != NULL; g++)
		if (strcmp(*g, "network_allowlist_not_enforced") == 0)
			cli_msg("cordon: warning: ", "%s",
				"--network allow cannot be enforced here (no network namespace of "
				"the run's own): the network is OFF, nothing is allowed");
		else if (strcmp(*g, "review_not_held") == 0)
			cli_msg("cordon: warning: ",
				"--review cannot be held here (%s): the command's writes land in "
				"the workspace at once, and nothing is held for cordon apply "
				"(review_not_held)",
				review_why(c));
}

int cli_run(cordon *c, const char *const argv[])
{
	struct cordon_result res;
	cordon_proc *p;
	install_forwarding();

	int r = cordon_begin(c);
	if (r != 0) {
		cli_msg("cordon: ", "%s", cordon_last_error(c));
		cordon_free(c);
		return CLI_EXIT_CORDON;
	}
	int warned = warn_unconfined(c);

	r = cordon_spawn(c, argv, &p);
	/* The first command's child may have met a refusal the begin could
	 * only assume away (the start event says so too). Only when it ran:
	 * a spawn that failed ran nothing. */
	if (!warned && r == 0)
		(void)warn_unconfined(c);
	warn_gaps(c);
	if (r != 0) {
		/* Not found (127), not executable (126), or confinement could
		 * not be applied in the child (125: the command never ran). */
		cli_msg("cordon: ", "%s", cordon_last_error(c));
		int code = CLI_EXIT_CORDON;
		if (r == CORDON_EEXEC && cordon_last_result(c, &res) == 0)
			code = res.exit_code;
		cordon_end(c);
		cordon_free(c);
		return code;
	}
	child_pgid = (sig_atomic_t)cordon_proc_pid(p);
	if (pending_sig != 0)
		(void)cordon_proc_kill(p, pending_sig);
	r = cordon_wait(p, &res);
	child_pgid = 0;
	if (r != 0)
		cli_msg("cordon: ", "%s", cordon_last_error(c));
	int e = cordon_end(c);
	if (e == CORDON_ETAMPERED)
		cli_msg("cordon: ", "%s", cordon_last_error(c));
	else
		warn_tampered(c);
	/* --review: the held changes' run id, or why they could not be held. */
	if (e != 0 && e != CORDON_ETAMPERED)
		cli_msg("cordon: ", "%s", cordon_last_error(c));
	else
		cli_review_note(c);
	cordon_free(c);
	return r != 0 || e != 0 ? CLI_EXIT_CORDON : res.exit_code;
}
