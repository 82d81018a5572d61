/* Unit tests of cordon-sh's agent (cli/agentwatch.c): which names are
 * shells, /proc/PID/stat read, the nearest ancestor that is not a shell. */
#include "agentwatch.h"
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_shells(void)
{
	const char *shells[] = { "sh", "bash", "dash", "zsh", "-bash", "busybox", "mksh" };
	const char *others[] = { "node",  "claude", "codex",	 "python3", "",
				 "bash2", "shx",    "cordon-sh", "-" };
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		ok(agent_is_shell(shells[i]), "'%s' is a shell", shells[i]);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		ok(!agent_is_shell(others[i]), "'%s' is not a shell", others[i]);
}

/* agent_parse_stat on text: 0 with *ppid, state, comm, or -1. */
static int parse(const char *text, pid_t *ppid, char *state, char *comm, size_t commlen)
{
	return agent_parse_stat(text, strlen(text), ppid, state, comm, commlen);
}

static void test_stat(void)
{
	pid_t ppid = 0;
	char comm[16], state = 0;

	is_int(parse("42 (bash) S 7 42 42 0 -1 4194560", &ppid, &state, comm, sizeof(comm)), 0,
	       "a stat line");
	ok(ppid == 7 && state == 'S' && strcmp(comm, "bash") == 0, "... parent 7, S, bash");
	is_int(parse("9 (a) b (c)) Z 1234 9 9", &ppid, &state, comm, sizeof(comm)), 0,
	       "a name with ') ' and '(' in it");
	ok(ppid == 1234 && state == 'Z' && strcmp(comm, "a) b (c)") == 0,
	   "... ends at the last ')': parent 1234, a zombie");
	is_int(parse("5 (averyveryverylongname) R 3 ", &ppid, &state, comm, 8), 0, "a long name");
	is_str(comm, "averyve", "... cut to the buffer");
	const char *bad[] = { "",
			      "42 bash S 7 1",
			      "42 (bash) S",
			      "42 (bash) S x 1",
			      "42 (bash)S 7 1",
			      "42 (bash) S 7",
			      "42 (bash) SS 7 1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse(bad[i], &ppid, &state, comm, sizeof(comm)), -1, "refused: '%s'",
		       bad[i]);
	/* Not NUL-terminated: only len bytes are read. */
	const char cut[] = "42 (bash) S 77 1";
	is_int(agent_parse_stat(cut, 14, &ppid, &state, comm, sizeof(comm)), -1,
	       "the parent's pid must end within len");
	is_int(agent_parse_stat(cut, 15, &ppid, &state, comm, sizeof(comm)), 0, "... and does");
	is_int(ppid, 77, "... 77");
}

/* The pid of the only child of pid (its /proc children file), 0 when
 * none yet. */
static pid_t child_of(pid_t pid)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return (pid_t)strtol(buf, NULL, 10);
}

static void test_find(void)
{
#ifdef __linux__
	char name[64], self[64];
	/* This process under two shells: sh -> bash -> sleep. */
	pid_t sh = fork();
	if (sh == 0) {
		execl("/bin/sh", "sh", "-c", "/bin/bash -c 'sleep 30; :'; :", (char *)NULL);
		_exit(127);
	}
	pid_t bash = 0, sleeper = 0;
	for (int i = 0; i < 500 && sleeper == 0; i++) {
		struct timespec ts = { 0, 10L * 1000 * 1000 };
		nanosleep(&ts, NULL);
		bash = child_of(sh);
		sleeper = bash > 0 ? child_of(bash) : 0;
	}
	FILE *f = fopen("/proc/self/comm", "re");
	ok(f != NULL && fgets(self, sizeof(self), f) != NULL, "this test's own name");
	if (f != NULL)
		fclose(f);
	self[strcspn(self, "\n")] = '\0';
	ok(sleeper > 0, "sh -> bash -> sleep started");
	if (sleeper > 0) {
		is_int(agent_find(sleeper, name, sizeof(name)), getpid(),
		       "the agent of sleep is this test: past bash and sh");
		is_str(name, self, "... by its name");
		is_int(agent_find(bash, name, sizeof(name)), getpid(), "... and of bash");
	}
	kill(sh, SIGKILL);
	if (bash > 0)
		kill(bash, SIGKILL);
	if (sleeper > 0)
		kill(sleeper, SIGKILL);
	waitpid(sh, NULL, 0);
	is_int(agent_find(sh, name, sizeof(name)), -1, "a process gone: the chain cannot be read");
#else
	skip("agent_find reads /proc (Linux)");
#endif
}

int main(void)
{
	test_shells();
	test_stat();
	test_find();
	return done_testing();
}
