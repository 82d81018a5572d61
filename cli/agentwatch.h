/*
 * cordon-sh's run ends with the agent that started it. An agent runs each
 * shell call as a child process of its own (often through a shell of its
 * own, in a session of its own); when the agent is killed (SIGKILL, the
 * OOM killer, a crash), nothing ends that shell or cordon-sh, so the run
 * would live on with nobody reading it. cordon-sh therefore finds its
 * agent when it starts, the nearest ancestor that is not a shell, and
 * watches it (a pidfd on Linux, kqueue on macOS): once the agent is gone,
 * the command's process group gets SIGHUP, then SIGKILL after a grace,
 * and the run ends as with any signal (every process of it killed, its
 * exit event written, its temp dir removed).
 */
#ifndef CORDON_CLI_AGENTWATCH_H
#define CORDON_CLI_AGENTWATCH_H

#include <stddef.h>
#include <sys/types.h>

/* How long the command has between SIGHUP and SIGKILL (ms). */
#define AGENT_GRACE_MS 2000

/* 1 when comm, a process's name (Linux: /proc/PID/comm, at most 15
 * bytes; macOS: p_comm), is a shell's: sh, bash, dash, zsh, ksh... */
int agent_is_shell(const char *comm);

/* From /proc/PID/stat's text, buf[0..len), the parent's pid, the state
 * letter (Z: a zombie) and the process's name (into comm, commlen bytes,
 * cut to fit). 0, or -1 when it is not that file's format. Pure. */
int agent_parse_stat(const char *buf, size_t len, pid_t *ppid, char *state, char *comm,
		     size_t commlen);

/* The agent of process from: its nearest ancestor whose name is not a
 * shell's, its name into name (namelen bytes). The pid, or 0 when there
 * is none (every ancestor up to process 1 is a shell) and -1 when the
 * chain could not be read. */
pid_t agent_find(pid_t from, char *name, size_t namelen);

/* Watches pid from a thread of its own: when it is gone, cli_run's
 * command gets SIGHUP, then SIGKILL AGENT_GRACE_MS later. 0, or -1 with
 * errno (ESRCH: pid is already gone). */
int agent_watch(pid_t pid);

#endif
