/*
 * waitwrap COMMAND [ARG...]: start COMMAND with posix_spawnp, wait for it,
 * and exit with its status (128+N when it dies of signal N).
 *
 * The least any wrapper does that outlives its command, which cordon run
 * must (it removes the run's temp dir, writes the exit event and enforces
 * --timeout after the command ends). bench/run times it next to env (a
 * wrapper that only execs) so the ratios show which part of cordon's cost
 * is the waiting itself and which part is cordon's own work.
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: waitwrap COMMAND [ARG...]\n", stderr);
		return 125;
	}
	pid_t pid;
	int err = posix_spawnp(&pid, argv[1], NULL, NULL, argv + 1, environ);
	if (err != 0) {
		fprintf(stderr, "waitwrap: %s: cannot start it (error %d)\n", argv[1], err);
		return 127;
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
