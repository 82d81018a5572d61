/*
 * lib-spawn - the library benchmark: what cordon costs a program that
 * embeds it (an agent starting many short commands from one process).
 *
 *   lib-spawn [-n N] [-m MB] [--network-off] -w WORKSPACE -s STATE_DIR [-f STATUS_FILE]
 *   lib-spawn --first-begin -w WORKSPACE -s STATE_DIR
 *   lib-spawn --phases [-n N] -w WORKSPACE -s STATE_DIR [-f STATUS_FILE]
 *
 * The first form starts /bin/true N times in each of these ways,
 * interleaved (one of each per iteration, so load changes hit all ways
 * alike), and prints one JSON object with the per-spawn times:
 *   posix_spawn      posix_spawn + waitpid, no cordon (the baseline)
 *   fork_exec        fork + execve + waitpid, no cordon (what a fork-based
 *                    spawner costs, whatever it does in the child)
 *   cordon_spawn     cordon_spawn + cordon_wait inside one begun run
 *                    ("required": Landlock applied to every command)
 *   cordon_spawn_off the same with the sandbox "off"
 *   cordon_run       cordon_new ... cordon_run ... cordon_free per command:
 *                    a run (temp dir, ruleset, two status events) each
 *   ns_spawn         no cordon: the command started as process 1 of new
 *                    PID, mount and IPC namespaces with a /proc of its
 *                    own (nsfloor.h; a network namespace too with
 *                    --network-off): the least the kernel takes for a
 *                    spawn with namespaces of its own, the floor under
 *                    cordon_spawn with every layer; "unavailable" (why)
 *                    where the namespaces are refused
 * --network-off gives the cordon ways --network off (with the mount layer,
 * the run's own network namespace: made by a run's first spawn, joined by
 * the later ones).
 * -m MB first allocates and touches MB megabytes, as a large agent process
 * would have: fork copies the page tables of all of it, vfork-style
 * spawning does not.
 *
 * The second form times the first cordon_begin() of a process (which
 * includes the once-per-process probe) and a second one (which does not),
 * and prints both in microseconds; the harness runs it many times.
 *
 * The third form times each step of a whole run, as `cordon run` makes
 * it (new+setters, begin, spawn, wait, end, free), N times, and prints
 * the median of each: where a run's time goes, apart from starting the
 * cordon program itself.
 */
#include "cordon.h"
#include "nsfloor.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum way { POSIX_SPAWN, FORK_EXEC, CORDON_SPAWN, CORDON_SPAWN_OFF, CORDON_RUN, NS_SPAWN, NWAYS };

static const char *const way_names[NWAYS] = {
	"posix_spawn", "fork_exec", "cordon_spawn", "cordon_spawn_off", "cordon_run", "ns_spawn",
};

static const char *workspace, *state_dir, *status_file;
static int network_off;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "lib-spawn: %s: %s\n", what, why);
	exit(2);
}

static void check_status(int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("/bin/true", "did not exit 0");
}

static cordon *configured(enum cordon_mode mode)
{
	cordon *c = cordon_new();
	if (c == NULL)
		die("cordon_new", "out of memory");
	if (cordon_set_mode(c, mode) != 0 || cordon_set_workspace(c, workspace) != 0 ||
	    cordon_set_state_dir(c, state_dir) != 0 || cordon_set_caches(c, 0) != 0 ||
	    (status_file != NULL && cordon_set_status_file(c, status_file) != 0) ||
	    (network_off && cordon_set_network(c, CORDON_NETWORK_OFF) != 0))
		die("configure", cordon_last_error(c));
	return c;
}

static const char *const true_argv[] = { "/bin/true", NULL };

/* Why ns_spawn cannot run here (a container's filter, user namespaces
 * off), or NULL: found by one try before timing. */
static const char *ns_unavailable;

static pid_t ns_spawn(void)
{
	return nsfloor_spawn((char *const *)true_argv, network_off);
}

/* Whether way w is timed here (ns_spawn only where it can run). */
static int timed(int w)
{
	return w != NS_SPAWN || ns_unavailable == NULL;
}

static void one_cordon_spawn(cordon *c)
{
	cordon_proc *p;
	struct cordon_result r;
	if (cordon_spawn(c, true_argv, &p) != 0)
		die("cordon_spawn", cordon_last_error(c));
	if (cordon_wait(p, &r) != 0)
		die("cordon_wait", cordon_last_error(c));
	if (r.exit_code != 0)
		die("/bin/true", "did not exit 0 under cordon");
}

static double one(enum way w, cordon *begun, cordon *begun_off)
{
	double t0 = now_us();
	pid_t pid;
	int status;

	switch (w) {
	case POSIX_SPAWN:
		if (posix_spawn(&pid, true_argv[0], NULL, NULL, (char *const *)true_argv,
				environ) != 0)
			die("posix_spawn", strerror(errno));
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid", strerror(errno));
		check_status(status);
		break;
	case FORK_EXEC:
		pid = fork();
		if (pid < 0)
			die("fork", strerror(errno));
		if (pid == 0) {
			execve(true_argv[0], (char *const *)true_argv, environ);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid", strerror(errno));
		check_status(status);
		break;
	case NS_SPAWN:
		pid = ns_spawn();
		if (pid < 0)
			die("clone into new namespaces", strerror(errno));
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid", strerror(errno));
		check_status(status);
		break;
	case CORDON_SPAWN:
		one_cordon_spawn(begun);
		break;
	case CORDON_SPAWN_OFF:
		one_cordon_spawn(begun_off);
		break;
	case CORDON_RUN:
	default: {
		cordon *c = configured(CORDON_MODE_REQUIRED);
		struct cordon_result r;
		if (cordon_run(c, true_argv, &r) != 0 || r.exit_code != 0)
			die("cordon_run", cordon_last_error(c));
		cordon_free(c);
		break;
	}
	}
	return now_us() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

static int first_begin(void)
{
	double t[2];
	for (int i = 0; i < 2; i++) {
		cordon *c = configured(CORDON_MODE_REQUIRED);
		double t0 = now_us();
		if (cordon_begin(c) != 0)
			die("cordon_begin", cordon_last_error(c));
		t[i] = now_us() - t0;
		cordon_end(c);
		cordon_free(c);
	}
	printf("{\"first_begin_us\":%.1f,\"second_begin_us\":%.1f}\n", t[0], t[1]);
	return 0;
}

enum phase { PH_NEW, PH_BEGIN, PH_SPAWN, PH_WAIT, PH_END, PH_FREE, NPHASES };
static const char *const phase_names[NPHASES] = {
	"new_and_setters", "begin", "spawn", "wait", "end", "free"
};

static int phases(long n)
{
	double *t[NPHASES];
	for (int k = 0; k < NPHASES; k++)
		if ((t[k] = calloc((size_t)n, sizeof(double))) == NULL)
			die("calloc", "out of memory");
	for (long i = -1; i < n; i++) { /* i == -1: warm-up, includes the probe */
		double m[NPHASES + 1];
		cordon_proc *p;
		struct cordon_result r;
		m[0] = now_us();
		cordon *c = configured(CORDON_MODE_REQUIRED);
		m[1] = now_us();
		if (cordon_begin(c) != 0)
			die("cordon_begin", cordon_last_error(c));
		m[2] = now_us();
		if (cordon_spawn(c, true_argv, &p) != 0)
			die("cordon_spawn", cordon_last_error(c));
		m[3] = now_us();
		if (cordon_wait(p, &r) != 0 || r.exit_code != 0)
			die("cordon_wait", cordon_last_error(c));
		m[4] = now_us();
		cordon_end(c);
		m[5] = now_us();
		cordon_free(c);
		m[6] = now_us();
		for (int k = 0; i >= 0 && k < NPHASES; k++)
			t[k][i] = m[k + 1] - m[k];
	}
	printf("{\"n\":%ld,\"phases\":{", n);
	for (int k = 0; k < NPHASES; k++) {
		printf("%s\"%s\":{\"median_us\":%.1f,\"p10_us\":%.1f,\"p90_us\":%.1f}",
		       k ? "," : "", phase_names[k], quantile(t[k], (size_t)n, 0.5),
		       quantile(t[k], (size_t)n, 0.1), quantile(t[k], (size_t)n, 0.9));
		free(t[k]);
	}
	printf("}}\n");
	return 0;
}

int main(int argc, char *argv[])
{
	long n = 500, heavy_mb = 0;
	int first = 0, by_phase = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--network-off") == 0) {
			network_off = 1;
			continue;
		}
		if (strcmp(a, "--first-begin") == 0 || strcmp(a, "--phases") == 0) {
			first = a[2] == 'f';
			by_phase = a[2] == 'p';
			continue;
		}
		if (v == NULL)
			die(a, "needs a value");
		if (strcmp(a, "-n") == 0)
			n = strtol(v, NULL, 10);
		else if (strcmp(a, "-m") == 0)
			heavy_mb = strtol(v, NULL, 10);
		else if (strcmp(a, "-w") == 0)
			workspace = v;
		else if (strcmp(a, "-s") == 0)
			state_dir = v;
		else if (strcmp(a, "-f") == 0)
			status_file = v;
		else
			die(a, "unknown option");
		i++;
	}
	if (workspace == NULL || state_dir == NULL || n < 1 || heavy_mb < 0)
		die("usage", "lib-spawn [-n N] [-m MB] [--network-off] -w WORKSPACE -s STATE_DIR "
			     "[-f FILE]");
	if (first)
		return first_begin();
	if (by_phase)
		return phases(n);

	char *ballast = NULL;
	if (heavy_mb > 0) {
		ballast = malloc((size_t)heavy_mb << 20);
		if (ballast == NULL)
			die("ballast", "out of memory");
		memset(ballast, 1, (size_t)heavy_mb << 20);
	}

	cordon *begun = configured(CORDON_MODE_REQUIRED);
	cordon *begun_off = configured(CORDON_MODE_OFF);
	if (cordon_begin(begun) != 0)
		die("cordon_begin", cordon_last_error(begun));
	if (!cordon_applied(begun))
		die("cordon_begin", "confinement was not applied");
	if (cordon_begin(begun_off) != 0)
		die("cordon_begin (off)", cordon_last_error(begun_off));

	pid_t tried = ns_spawn();
	int st = 0;
	if (tried < 0)
		ns_unavailable = strerror(errno);
	else if (waitpid(tried, &st, 0) != tried || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ns_unavailable = "its child failed (exit 121: private /, 122: /proc, 127: exec)";

	double *t[NWAYS];
	for (int w = 0; w < NWAYS; w++)
		if ((t[w] = calloc((size_t)n, sizeof(double))) == NULL)
			die("calloc", "out of memory");
	for (int w = 0; w < NWAYS; w++) /* warm-up: one of each */
		if (timed(w))
			(void)one((enum way)w, begun, begun_off);
	for (long i = 0; i < n; i++)
		for (int k = 0; k < NWAYS; k++) {
			int w = (int)((i + k) % NWAYS); /* rotate the order too */
			if (timed(w))
				t[w][i] = one((enum way)w, begun, begun_off);
		}

	printf("{\"n\":%ld,\"ballast_mb\":%ld,\"ways\":{", n, heavy_mb);
	for (int w = 0; w < NWAYS; w++) {
		if (!timed(w)) {
			printf(",\"%s\":{\"unavailable\":\"%s\"}", way_names[w], ns_unavailable);
			continue;
		}
		double med = quantile(t[w], (size_t)n, 0.5);
		printf("%s\"%s\":{\"median_us\":%.1f,\"p10_us\":%.1f,\"p90_us\":%.1f}",
		       w ? "," : "", way_names[w], med, quantile(t[w], (size_t)n, 0.1),
		       quantile(t[w], (size_t)n, 0.9));
	}
	printf("}}\n");

	cordon_end(begun);
	cordon_end(begun_off);
	cordon_free(begun);
	cordon_free(begun_off);
	for (int w = 0; w < NWAYS; w++)
		free(t[w]);
	free(ballast);
	return 0;
}
