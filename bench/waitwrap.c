/*
 * waitwrap [--ns|--ns-net] COMMAND [ARG...]: start COMMAND with
 * posix_spawnp, wait for it, and exit with its status (128+N when it dies
 * of signal N).
 *
 * The least any wrapper does that outlives its command, which cordon run
 * must (it removes the run's temp dir, writes the exit event and enforces
 * --timeout after the command ends). bench/run times it next to env (a
 * wrapper that only execs) so the ratios show which part of cordon's cost
 * is the waiting itself and which part is cordon's own work.
 *
 * --ns starts COMMAND instead as process 1 of new PID, mount and IPC
 * namespaces with a /proc of its own (and a user namespace when not root;
 * --ns-net a network namespace too): what the kernel alone takes for the
 * namespaces of cordon's every-layer runs (nsfloor.h), with nothing
 * confined and no reaper. Exit 125 when the namespaces are refused; 121
 * or 122 when its child cannot make its mounts private or mount /proc.
 */
#include "nsfloor.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	int ns = argc > 1 && (strcmp(argv[1], "--ns") == 0 || strcmp(argv[1], "--ns-net") == 0);
	if (argc < 2 + ns) {
		fputs("usage: waitwrap [--ns|--ns-net] COMMAND [ARG...]\n", stderr);
		return 125;
	}
	char **cmd = argv + 1 + ns;
	pid_t pid;
	if (ns) {
		pid = nsfloor_spawn(cmd, strcmp(argv[1], "--ns-net") == 0);
		if (pid < 0) {
			fprintf(stderr, "waitwrap: new namespaces refused: %s\n", strerror(errno));
			return 125;
		}
	} else {
		int err = posix_spawnp(&pid, cmd[0], NULL, NULL, cmd, environ);
		if (err != 0) {
			fprintf(stderr, "waitwrap: %s: cannot start it (error %d)\n", cmd[0], err);
			return 127;
		}
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
