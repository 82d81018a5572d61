/*
 * Starting and reaping the command.
 *
 * Everything that can fail is prepared in the parent: the plan below,
 * and what the backend prepared (struct launch). The child is started
 * with child_start() (compat.c) and makes only async-signal-safe system
 * calls: its own process group, the terminal, closing fds, the backend's
 * hook, the PATH search and execve. It writes only its stack and the
 * scratch of its plan (sh_argv), which the parent made for it alone. If
 * anything fails it reports (stage, errno) on a close-on-exec pipe and
 * _exits; it never execs unconfined. The parent's read of that pipe
 * returns 0 bytes exactly when exec succeeded.
 */
#include "handle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

/* What the child reports on the error pipe. */
enum child_stage { STAGE_SETUP = 1, STAGE_CONFINE, STAGE_EXEC, STAGE_APPLIED, STAGE_CWD };

/* Exit statuses of a child that failed before exec (the pipe carries the
 * details; these are what an outside observer of the pid sees). */
#define CHILD_EXIT_SETUP 125
#define CHILD_EXIT_NOTFOUND 127
#define CHILD_EXIT_NOEXEC 126

/* Grace between SIGTERM and SIGKILL when the timeout fires. */
#define KILL_GRACE_MS 2000
/* How long the run's reaper may take to end after the command did. */
#define REAPER_GRACE_MS 2000

struct plan {
	const char *const *argv;
	char *const *envp;
	const char *path; /* PATH to search */
	/* The child's scratch: argv for running a script without #! via
	 * /bin/sh; the child writes the script's path into slot 1. */
	char **sh_argv;
	int errfd;
	int close_fds;
	int *keep; /* sorted, unique; includes errfd */
	size_t nkeep;
	const int *clear_cloexec; /* the caller's --keep-fd list */
	size_t nclear;
	int tty_fd;
	int new_session; /* no terminal on 0-2: a session of its own */
	sigset_t oldmask;
	int (*hook)(const void *state); /* the backend's last step, or NULL */
	const void *state;
	/* With a reaper (launch.init): the command's stack and the status
	 * pipe's write end. */
	int (*init)(const void *state, int (*cmd)(void *), void *cmd_arg, void *cmd_stack,
		    size_t cmd_stack_size, int statusfd, int errfd);
	void *cmd_stack;
	int statusfd;
	struct spawn_io io; /* the fds the command gets as 0-2 */
	int stdio_tty; /* one of them is a terminal */
	struct stdio_plan stdio; /* fds 0-2 that point outside */
	const char *cwd; /* the run's working directory (workdir.c), or NULL */
	int check_cwd; /* confined: it must also be listable */
	/* Without a reaper but started by the run's thread: the command dies
	 * with that thread, so with cordon even by SIGKILL (its own children
	 * do not: no PID namespace). The parent's pid, or 0. */
	pid_t pdeath_parent;
};

/* One message (stage, errno) on the error pipe: 0, or -1 when it could
 * not be written whole. Async-signal-safe. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int say(int fd, int stage, int err)
{
	int msg[2] = { stage, err };
	ssize_t n;
	do
		n = write(fd, msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(msg) ? 0 : -1;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static void report(int fd, int stage, int err)
{
	(void)say(fd, stage, err);
	if (stage == STAGE_EXEC)
		_exit(err == ENOENT ? CHILD_EXIT_NOTFOUND : CHILD_EXIT_NOEXEC);
	_exit(CHILD_EXIT_SETUP);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
void spawn_report_confine(int errfd, int err)
{
	report(errfd, STAGE_CONFINE, err);
}

/* execvpe without allocation: the PATH search happens in the child,
 * after confinement, with the command's own PATH. Returns errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int exec_search(const struct plan *pl)
{
	const char *file = pl->argv[0];
	char buf[CORDON_PATH_MAX];
	int saw_eacces = 0;

	if (file[0] == '\0')
		return ENOENT;
	if (strchr(file, '/') != NULL) {
		execve(file, (char *const *)pl->argv, pl->envp);
		if (errno == ENOEXEC) {
			pl->sh_argv[1] = (char *)file;
			execve("/bin/sh", pl->sh_argv, pl->envp);
			return ENOEXEC;
		}
		return errno;
	}
	size_t flen = strlen(file);
	for (const char *p = pl->path;; p++) {
		const char *e = strchr(p, ':');
		size_t dlen = e ? (size_t)(e - p) : strlen(p);
		if (dlen + flen + 2 <= sizeof(buf)) {
			if (dlen == 0) {
				buf[0] = '.'; /* an empty entry is the current directory */
				dlen = 1;
			} else {
				memcpy(buf, p, dlen);
			}
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, file, flen);
			buf[dlen + 1 + flen] = '\0';
			execve(buf, (char *const *)pl->argv, pl->envp);
			switch (errno) {
			case EACCES:
				saw_eacces = 1;
				break;
			case ENOENT:
			case ENOTDIR:
			case ENAMETOOLONG:
			case ELOOP:
				break;
			case ENOEXEC:
				pl->sh_argv[1] = buf;
				execve("/bin/sh", pl->sh_argv, pl->envp);
				return ENOEXEC;
			default:
				return errno;
			}
		}
		if (e == NULL)
			break;
		p = e;
	}
	return saw_eacces ? EACCES : ENOENT;
}

/*
 * The set of caught signals, from the "SigCgt:" line of /proc/self/status:
 * one read instead of a sigaction() query per signal. Async-signal-safe.
 * Returns 0, or -1 when /proc is not there.
 */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int caught_signals(uint64_t *mask)
{
#if defined(__linux__)
	char buf[2048];
	const char *p = proc_field("/proc/self/status", "\nSigCgt:", buf, sizeof(buf));
	if (p == NULL)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	uint64_t m = 0;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		m = m << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	*mask = m;
	return 0;
#else
	(void)mask;
	return -1;
#endif
}

/* The run's working directory, entered by name in the command's own view
 * of the file system (after every mount, under the confinement): 0 or
 * errno. Confined, it must be listable too: a directory the view hides
 * or denies is an error, never a silent start elsewhere. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int enter_cwd(const struct plan *pl)
{
	if (pl->cwd == NULL)
		return 0;
	if (chdir(pl->cwd) != 0)
		return errno;
	if (!pl->check_cwd)
		return 0;
	int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The command's last steps: its working directory, the caller's signal
 * mask, the PATH search and exec. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int command_main(void *arg)
{
	const struct plan *pl = arg;
	/* Every step before exec is done: said before the exec, so that a
	 * child killed before it (the pipe's end without this) is never
	 * taken for one that applied its confinement. */
	if (say(pl->errfd, STAGE_APPLIED, 0) != 0)
		_exit(CHILD_EXIT_SETUP);
	int e = enter_cwd(pl);
	if (e != 0)
		report(pl->errfd, STAGE_CWD, e);
	sigprocmask(SIG_SETMASK, &pl->oldmask, NULL);
	report(pl->errfd, STAGE_EXEC, exec_search(pl));
	return 0; /* not reached: report() exits */
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int child_main(void *arg)
{
	const struct plan *pl = arg;
	struct sigaction dfl;
	uint64_t caught = ~(uint64_t)0;

	/* All signals are blocked since before the child started. Reset the
	 * caught ones so no handler of the parent's can run here once they
	 * are unblocked (exec would reset them, but only at exec). */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	int known = caught_signals(&caught) == 0;
	for (int sig = 1; sig < NSIG && sig <= 64; sig++) {
		struct sigaction cur;
		if (!(caught & (1ULL << (sig - 1))))
			continue;
		if (known || (sigaction(sig, NULL, &cur) == 0 && cur.sa_handler != SIG_DFL &&
			      cur.sa_handler != SIG_IGN))
			(void)sigaction(sig, &dfl, NULL);
	}
	/* Without a terminal the command gets a session of its own, so no
	 * controlling terminal (/dev/tty) either; with one it leads its own
	 * process group in the caller's session. */
	if ((pl->new_session ? setsid() : setpgid(0, 0)) < 0)
		report(pl->errfd, STAGE_SETUP, errno);
#if defined(__linux__)
	if (pl->pdeath_parent > 0 &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != pl->pdeath_parent))
		report(pl->errfd, STAGE_SETUP, ESRCH); /* cordon is gone already */
#endif
	/* SIGTTOU is blocked, so a background group may take the terminal. */
	if (pl->tty_fd >= 0)
		(void)tcsetpgrp(pl->tty_fd, getpgrp());
	/* The spawn's own fds 0-2 in place, before the rest are closed. */
	if (pl->io.own != 0) {
		int e = stdio_take(&pl->io);
		if (e != 0)
			report(pl->errfd, STAGE_SETUP, e);
	}
	/* fds first, so the backend's hook can be the last step before exec
	 * (the keep list holds the fds the hook needs; they are
	 * close-on-exec). */
	if (pl->close_fds && close_fds_except(pl->keep, pl->nkeep) != 0)
		report(pl->errfd, STAGE_SETUP, errno);
	for (size_t i = 0; i < pl->nclear; i++)
		if (fcntl(pl->clear_cloexec[i], F_SETFD, 0) != 0)
			report(pl->errfd, STAGE_SETUP, errno);
	if (pl->hook != NULL) {
		int e = pl->hook(pl->state);
		if (e != 0)
			report(pl->errfd, STAGE_CONFINE, e);
	}
	/* After the hook: reopened in the command's (read-only) view. */
	int se = stdio_plan_apply(&pl->stdio);
	if (se != 0)
		report(pl->errfd, STAGE_CONFINE, se);
	if (pl->init != NULL) /* this process stays behind as the reaper */
		report(pl->errfd, STAGE_CONFINE,
		       pl->init(pl->state, command_main, arg, pl->cmd_stack, CHILD_STACK_SIZE,
				pl->statusfd, pl->errfd));
	return command_main(arg);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The terminal to hand over: the caller's own fd 0-2 that the command
 * keeps (never one the spawn gives), whose foreground group the caller
 * must be. */
static int foreground_tty(const struct spawn_io *io)
{
	for (int fd = 0; fd <= 2; fd++)
		if (!(io->own & (1u << fd)) && isatty(fd) && tcgetpgrp(fd) == getpgrp())
			return fd;
	return -1;
}

static void take_terminal(int fd, pid_t pgrp)
{
	sigset_t ttou, old;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	(void)tcsetpgrp(fd, pgrp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; envp[i] != NULL; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* A backend that confines through a launcher (Seatbelt: sandbox-exec)
 * prepared its argv prefix in the parent; the child execs prefix + argv.
 * The prefix starts with an absolute path, so no PATH search finds it. */
static const char **launcher_argv(const struct launch *l, const char *const argv[])
{
	size_t argc = 0;
	while (argv[argc] != NULL)
		argc++;
	const char **v = calloc(l->nprefix + argc + 1, sizeof(*v));
	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < l->nprefix; i++)
		v[i] = l->argv_prefix[i];
	memcpy(v + l->nprefix, argv, argc * sizeof(*v));
	return v;
}

static void set_last(cordon *c, const struct cordon_result *r)
{
	pthread_mutex_lock(&c->lock);
	c->last = *r;
	c->have_last = 1;
	pthread_mutex_unlock(&c->lock);
}

static int live_add(cordon *c, cordon_proc *p, int whole_ns);

/* What spawn_command holds until its one exit, where spawn_release frees
 * what is still there: a resource handed on is set to NULL or -1. */
struct spawn {
	struct plan pl;
	const char *const *argv; /* as run: the launcher's prefix first */
	const char **launch; /* that prefixed argv, or NULL */
	cordon_proc *p; /* with its entry of c->live (p->live) */
	int pipefd[2]; /* the error pipe */
	int statusfd[2]; /* the reaper's status pipe (launch.init) */
	void *stack; /* the child's */
	pid_t pid;
	int fork_err;
	int msg[2]; /* the child's last message */
	ssize_t n; /* its size: 0 when the command was exec'd */
};

/* The launcher's argv, the process's record and the plan's scratch:
 * 0, or CORDON_ENOMEM. */
static int spawn_alloc(cordon *c, const char *const argv[], struct spawn *s)
{
	const struct launch *l = &c->launch;
	size_t argc = 0;

	if (l->nprefix > 0) {
		if ((s->launch = launcher_argv(l, argv)) == NULL)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
		argv = s->launch;
	}
	s->argv = argv;
	while (argv[argc] != NULL)
		argc++;
	cordon_proc *p = calloc(1, sizeof(*p));
	struct live_proc *live = calloc(1, sizeof(*live));
	s->pl.sh_argv = calloc(argc + 2, sizeof(char *));
	s->pl.keep = calloc(c->nkeep + l->nkeep + 2, sizeof(int));
	if (p == NULL || live == NULL) {
		free(p);
		free(live);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	p->live = live;
	s->p = p;
	if (s->pl.sh_argv == NULL || s->pl.keep == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	s->pl.sh_argv[0] = (char *)"/bin/sh";
	for (size_t i = 1; i < argc; i++)
		s->pl.sh_argv[i + 1] = (char *)argv[i];
	return 0;
}

/* The fds the child keeps open, sorted: the caller's, the error pipe's
 * write end, the backend's and the status pipe's write end. */
static void plan_keep(const cordon *c, struct spawn *s)
{
	const struct launch *l = &c->launch;
	struct plan *pl = &s->pl;

	if (c->nkeep > 0)
		memcpy(pl->keep, c->keep_fds, c->nkeep * sizeof(int));
	pl->nkeep = c->nkeep;
	pl->keep[pl->nkeep++] = s->pipefd[1];
	for (size_t i = 0; i < l->nkeep; i++)
		pl->keep[pl->nkeep++] = l->keep_fds[i];
	if (s->statusfd[1] >= 0)
		pl->keep[pl->nkeep++] = s->statusfd[1];
	qsort(pl->keep, pl->nkeep, sizeof(int), cmp_int);
	pl->clear_cloexec = c->keep_fds;
	pl->nclear = c->nkeep;
}

/* Everything the child needs, made in the parent: 0 or a CORDON_E*. */
static int spawn_prepare(cordon *c, const char *const argv[], const struct spawn_io *io,
			 struct spawn *s)
{
	const struct launch *l = &c->launch;
	struct plan *pl = &s->pl;

	memset(s, 0, sizeof(*s));
	s->pipefd[0] = s->pipefd[1] = -1;
	s->statusfd[0] = s->statusfd[1] = -1;
	s->pid = -1;
	int r = stdio_refusal(c, io);
	if (r == 0)
		r = spawn_alloc(c, argv, s);
	if (r != 0)
		return r;
	if (pipe_cloexec(s->pipefd) != 0 || (l->init != NULL && pipe_cloexec(s->statusfd) != 0))
		return cordon_fail_errno(c, CORDON_ESYS, errno, "pipe");
	pl->argv = s->argv;
	pl->envp = c->envp;
	pl->path = env_get(c->envp, "PATH");
	if (pl->path == NULL)
		pl->path = "/bin:/usr/bin";
	pl->errfd = s->pipefd[1];
	pl->close_fds = c->mode != CORDON_MODE_OFF;
	plan_keep(c, s);
	pl->io = *io;
	pl->stdio_tty = isatty(io->src[0]) || isatty(io->src[1]) || isatty(io->src[2]);
	pl->tty_fd = c->foreground ? foreground_tty(io) : -1;
	pl->new_session = c->dec.applied && !pl->stdio_tty;
	stdio_plan_make(c, io, &pl->stdio);
	pl->cwd = c->pol.cwd;
	pl->check_cwd = c->dec.applied;
	pl->pdeath_parent = c->dec.applied && l->start != NULL && l->init == NULL ? getpid() : 0;
	pl->hook = l->hook;
	pl->state = l->state;
	pl->init = l->init;
	pl->statusfd = s->statusfd[1];
	return 0;
}

/* Start the child (s->pid, or -1 and s->fork_err) with every signal
 * blocked, and close the parent's copies of the pipes' write ends. */
static void start_child(const struct launch *l, struct spawn *s)
{
	struct plan *pl = &s->pl;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &pl->oldmask);
	/* The child shares our memory until it execs (CLONE_VFORK): no copy
	 * of the caller's page tables, and we sleep until it has exec'd. */
	s->stack = malloc(CHILD_STACK_SIZE);
	pl->cmd_stack = l->init != NULL ? malloc(CHILD_STACK_SIZE) : NULL;
	errno = ENOMEM;
	if (s->stack != NULL && (l->init == NULL || pl->cmd_stack != NULL))
		s->pid = l->start != NULL
				 ? l->start(l->state, child_main, pl, s->stack, CHILD_STACK_SIZE,
					    pl->stdio_tty, pl->io.src[0])
				 : child_start(child_main, pl, s->stack, CHILD_STACK_SIZE, 1);
	s->fork_err = errno;
	/* Also here, for a child that was not waited for: no race with it (a
	 * session leader refuses the setpgid). Not with a reaper: the
	 * command may have made a group of its own by now (an interactive
	 * shell does), which the terminal must stay with; the reaper took
	 * the terminal before starting it. */
	if (s->pid > 0 && l->init == NULL) {
		if (!pl->new_session)
			(void)setpgid(s->pid, s->pid);
		if (pl->tty_fd >= 0)
			(void)tcsetpgrp(pl->tty_fd, s->pid);
	}
	pthread_sigmask(SIG_SETMASK, &pl->oldmask, NULL);
	close(s->pipefd[1]);
	s->pipefd[1] = -1;
	if (s->statusfd[1] >= 0) {
		close(s->statusfd[1]);
		s->statusfd[1] = -1;
	}
}

/* The pipe's end: every process that held its write end has exec'd or
 * gone. Until then the command may still run on our memory (with a
 * reaper it starts after the reaper's exec): its stack, the plan, argv.
 * Returns s->n: 0 when the command was exec'd, else the child's
 * message is in s->msg. */
static ssize_t await_exec(const struct launch *l, struct spawn *s)
{
	int reached = 0; /* the child said it applied every step */
	ssize_t n;

	for (;;) {
		do
			n = read(s->pipefd[0], s->msg, sizeof(s->msg));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(s->msg) || s->msg[0] != STAGE_APPLIED)
			break;
		reached = 1;
	}
	/* The pipe's end without that word: the child was killed before
	 * its exec. */
	if (n == 0 && !reached) {
		n = (ssize_t)sizeof(s->msg);
		s->msg[0] = STAGE_SETUP;
		s->msg[1] = ECHILD;
	}
	/* A child that reported still runs on its stack until it exits:
	 * wait for the end of the pipe before freeing it. */
	char rest[64];
	ssize_t m = n;
	while (m != 0 && ((m = read(s->pipefd[0], rest, sizeof(rest))) > 0 || errno == EINTR))
		;
	if (l->after_exec != NULL)
		l->after_exec(l->state, s->pid, reached);
	close(s->pipefd[0]);
	s->pipefd[0] = -1;
	s->n = n;
	return n;
}

/* The child failed before exec (its message in s->msg): reap it, take
 * the terminal back and say why. Messages name argv[0] as run: the
 * launcher, as prepared, when there is one. Returns a CORDON_E*. */
static int child_failed(cordon *c, struct spawn *s)
{
	const char *name = s->argv[0];
	int *msg = s->msg;
	int status;

	while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (s->pl.tty_fd >= 0)
		take_terminal(s->pl.tty_fd, getpgrp());
	struct cordon_result r = { CHILD_EXIT_SETUP, 0, 0, 0 };
	if (s->n != (ssize_t)sizeof(s->msg))
		msg[0] = STAGE_SETUP, msg[1] = EIO;
	if (msg[0] == STAGE_EXEC) {
		r.exit_code = msg[1] == ENOENT ? CHILD_EXIT_NOTFOUND : CHILD_EXIT_NOEXEC;
		r.exec_errno = msg[1];
		set_last(c, &r);
		if (msg[1] == ENOENT)
			return cordon_fail(c, CORDON_EEXEC, "%s: command not found", name);
		return cordon_fail_errno(c, CORDON_EEXEC, msg[1], "cannot execute %s", name);
	}
	set_last(c, &r);
	if (msg[0] == STAGE_CWD)
		return cordon_fail(c, CORDON_EINVAL,
				   "the command was not run: cannot enter its working "
				   "directory %s: %s",
				   c->pol.cwd, strerror(msg[1]));
	if (msg[0] == STAGE_CONFINE)
		return cordon_fail_errno(c, CORDON_ECONFINE, msg[1],
					 "could not apply confinement in the child; "
					 "the command was not run");
	if (msg[0] == STAGE_SETUP && msg[1] == ECHILD)
		return cordon_fail(c, CORDON_ESYS,
				   "the command's child ended before its exec (killed?); "
				   "the command was not run");
	return cordon_fail_errno(c, CORDON_ESYS, msg[1], "setting up the child failed");
}

/* The command was exec'd: its record goes to the caller (*out) and to
 * c->live, unless the run is ending (then it was killed). */
static int record_command(cordon *c, struct spawn *s, cordon_proc **out)
{
	cordon_proc *p = s->p;

	p->c = c;
	p->pid = s->pid;
	p->tty_fd = s->pl.tty_fd;
	p->statusfd = s->statusfd[0];
	p->pidfd = -1;
	/* A deadline sleeps on the child, and so does the wait for a reaper
	 * to end after its record; a plain waitpid does else. */
	if (c->timeout_ms > 0 || p->statusfd >= 0)
		p->pidfd = pidfd_of(s->pid);
	if (live_add(c, p, c->launch.init != NULL) != 0) {
		/* live_add freed p->live; spawn_release closes the rest. */
		int status;
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (p->pidfd >= 0)
			close(p->pidfd);
		return cordon_fail(c, CORDON_ESTATE, "the run is ending: the command was killed");
	}
	s->p = NULL;
	s->statusfd[0] = -1;
	*out = p;
	return 0;
}

/* What spawn_command still holds at its end. */
static void spawn_release(struct spawn *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->pipefd[i] >= 0)
			close(s->pipefd[i]);
		if (s->statusfd[i] >= 0)
			close(s->statusfd[i]);
	}
	free(s->stack);
	free(s->pl.cmd_stack);
	free(s->pl.sh_argv);
	free(s->pl.keep);
	free(s->launch);
	if (s->p != NULL) {
		free(s->p->live);
		free(s->p);
	}
}

int spawn_command(cordon *c, const char *const argv[], const struct spawn_io *io, cordon_proc **out)
{
	struct spawn s;
	int r = spawn_prepare(c, argv, io, &s);
	if (r == 0) {
		start_child(&c->launch, &s);
		if (s.pid < 0)
			r = cordon_fail_errno(c, CORDON_ESYS, s.fork_err, "cannot start a process");
		else if (await_exec(&c->launch, &s) != 0)
			r = child_failed(c, &s);
		else
			r = record_command(c, &s, out);
	}
	spawn_release(&s);
	return r;
}

/* ---- the run's commands not waited for yet ---- */

/* Record the command p started (its entry made with p) in c->live, where
 * the end of the run finds it; when the end has begun already (a spawn
 * racing cordon_end from another thread), kill it instead: -1. */
static int live_add(cordon *c, cordon_proc *p, int whole_ns)
{
	struct live_proc *e = p->live;
	e->pid = p->pid;
	e->whole_ns = whole_ns;
	e->pidfd = pidfd_of(p->pid);
	pthread_mutex_lock(&c->lock);
	int ending = c->ending;
	if (!ending) {
		e->next = c->live;
		c->live = e;
	}
	pthread_mutex_unlock(&c->lock);
	if (!ending)
		return 0;
	(void)killpg(p->pid, SIGKILL);
	(void)kill(p->pid, SIGKILL);
	if (e->pidfd >= 0)
		close(e->pidfd);
	free(e);
	p->live = NULL;
	return -1;
}

/* p was waited for: its entry goes. */
static void live_remove(cordon *c, cordon_proc *p)
{
	struct live_proc *e = p->live;
	if (e == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	for (struct live_proc **at = &c->live; *at != NULL; at = &(*at)->next)
		if (*at == e) {
			*at = e->next;
			break;
		}
	pthread_mutex_unlock(&c->lock);
	if (e->pidfd >= 0)
		close(e->pidfd);
	free(e);
	p->live = NULL;
}

/* Whether pid (with its pidfd, when there is one) has ended, without
 * reaping it: its reaping stays with cordon_wait. */
static int gone(pid_t pid, int pidfd)
{
	if (pidfd >= 0) {
		struct pollfd pfd = { pidfd, POLLIN, 0 };
		return poll(&pfd, 1, 0) != 0;
	}
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | WNOHANG) != 0)
		return errno != EINTR; /* not our child (reaped, or SIGCHLD ignored) */
	return si.si_pid == pid;
}

/* How long the end waits for the run's processes to die (a process in
 * an uninterruptible sleep, e.g. on a hung network file system). */
#define END_KILL_WAIT_MS 30000

static int listed(const struct live_proc *l, pid_t pid)
{
	for (; l != NULL; l = l->next)
		if (l->pid == pid)
			return 1;
	return 0;
}

/* A child subreaper's end (cordon_set_reap_all): every child of this
 * process is the run's, or was left by it (an orphan comes here): each
 * is killed and reaped, round after round (a dying one's own children
 * come here next), until none is left. The commands not waited for yet
 * (keep) are killed but left to cordon_wait. */
static void reap_children(const struct live_proc *keep)
{
	pid_t kids[256];
	long long until = monotonic_ms() + END_KILL_WAIT_MS;
	for (;;) {
		long n = children_of_self(kids, sizeof(kids) / sizeof(kids[0]));
		long others = 0;
		for (long i = 0; i < n; i++) {
			(void)kill(kids[i], SIGKILL);
			others += !listed(keep, kids[i]);
		}
		if (n <= 0 || others == 0 || monotonic_ms() >= until)
			return;
		for (long i = 0; i < n; i++)
			if (!listed(keep, kids[i]))
				while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
					;
	}
}

void spawn_end_all(cordon *c)
{
	struct live_proc *todo = NULL;
	pthread_mutex_lock(&c->lock);
	c->ending = 1;
	for (struct live_proc *e = c->live; e != NULL; e = e->next) {
		/* Process 1 of a PID namespace: the kernel kills every
		 * process of the namespace when it dies. Without one, the
		 * command's process group (it leads it); the leader is not
		 * reaped yet (it is in this list), so its id still names it. */
#if defined(__linux__) && defined(SYS_pidfd_send_signal)
		if (e->pidfd >= 0 && e->whole_ns)
			(void)syscall(SYS_pidfd_send_signal, e->pidfd, SIGKILL, NULL, 0);
		else
#endif
			if (e->whole_ns)
			(void)kill(e->pid, SIGKILL);
		else
			(void)killpg(e->pid, SIGKILL);
		struct live_proc *w = malloc(sizeof(*w));
		if (w == NULL)
			continue; /* not waited for: it was sent SIGKILL */
		*w = *e;
		w->pidfd = e->pidfd >= 0 ? fcntl(e->pidfd, F_DUPFD_CLOEXEC, 3) : -1;
		w->next = todo;
		todo = w;
	}
	pthread_mutex_unlock(&c->lock);
	if (c->subreaper)
		reap_children(todo);
	/* Gone, not only signalled: a dying process 1 returns once every
	 * process of its namespace has exited. */
	long long until = monotonic_ms() + END_KILL_WAIT_MS;
	while (todo != NULL) {
		struct live_proc *e = todo;
		if (gone(e->pid, e->pidfd) || monotonic_ms() >= until) {
			todo = e->next;
			if (e->pidfd >= 0)
				close(e->pidfd);
			free(e);
			continue;
		}
		child_nap(e->pidfd, until - monotonic_ms());
	}
}

/* The command stopped (Ctrl-Z) while holding the terminal: stop too, as
 * a shell's job would, and give it the terminal back when continued. */
static void follow_stop(const cordon_proc *p)
{
	/* The group that held the terminal: the command's own, or one it
	 * made (an interactive shell leads its own; under a reaper its
	 * group is not the reaper's). */
	pid_t fg = tcgetpgrp(p->tty_fd);
	if (fg <= 0 || fg == getpgrp())
		fg = p->pid;
	take_terminal(p->tty_fd, getpgrp());
	(void)kill(getpid(), SIGSTOP);
	take_terminal(p->tty_fd, fg);
	(void)killpg(fg, SIGCONT);
	if (fg != p->pid)
		(void)killpg(p->pid, SIGCONT);
}

/* --explain: one line on fd 2 (see status_explain). */
static void explain(const cordon *c, const struct cordon_result *r)
{
	char *line = status_explain(c, r);
	if (line == NULL)
		return;
	size_t n = strlen(line);
	line[n] = '\n'; /* jb_finish's buffer has room: it was NUL-terminated */
	ssize_t w;
	do
		w = write(2, line, n + 1);
	while (w < 0 && errno == EINTR);
	free(line);
}

/* What happened to the command: */
enum event { EV_NONE, EV_STOPPED, EV_ENDED, EV_ERROR };

/* Wait up to ms (-1: no limit) for the command to stop or end. With a
 * reaper (statusfd), its records say so, and the reaper is reaped
 * once the command has ended; otherwise the child is the command. */
static enum event next_event(cordon_proc *p, long long ms, int *status)
{
	if (p->statusfd >= 0) {
		struct pollfd pfd = { p->statusfd, POLLIN, 0 };
		int r = poll(&pfd, 1, ms < 0 ? -1 : ms > INT_MAX ? INT_MAX : (int)ms);
		if (r < 0)
			return errno == EINTR ? EV_NONE : EV_ERROR;
		if (r == 0)
			return EV_NONE;
		int rec[2];
		ssize_t n;
		do
			n = read(p->statusfd, rec, sizeof(rec));
		while (n < 0 && errno == EINTR);
		if (n == (ssize_t)sizeof(rec) && ((const char *)rec)[0] == 'S') {
			*status = (rec[1] & 0xff) << 8 | 0x7f; /* as WIFSTOPPED reads */
			return EV_STOPPED;
		}
		/* The reaper ends right after its record (it has killed the
		 * rest); one that does not, within REAPER_GRACE_MS, is killed. */
		int st = 0;
		long long until = monotonic_ms() + REAPER_GRACE_MS;
		for (;;) {
			pid_t w = waitpid(p->pid, &st, WNOHANG);
			if (w == p->pid)
				break;
			if (w < 0 && errno != EINTR)
				return EV_ERROR;
			if (w == 0 && until && monotonic_ms() >= until) {
				(void)kill(p->pid, SIGKILL);
				until = 0;
			}
			/* Woken when it ends (pidfd), else a short nap. */
			child_nap(p->pidfd, until ? until - monotonic_ms() : 20);
		}
		/* The reaper's record, or its own end when it was killed. */
		*status = n == (ssize_t)sizeof(rec) && ((const char *)rec)[0] == 'X' ? rec[1] : st;
		return EV_ENDED;
	}
	int flags = p->tty_fd >= 0 ? WUNTRACED : 0;
	if (ms >= 0)
		flags |= WNOHANG;
	pid_t w = waitpid(p->pid, status, flags);
	if (w == p->pid)
		return WIFSTOPPED(*status) ? EV_STOPPED : EV_ENDED;
	if (w < 0 && errno != EINTR)
		return EV_ERROR;
	if (ms > 0)
		child_nap(p->pidfd, ms);
	return EV_NONE;
}

int wait_command(cordon_proc *p, struct cordon_result *res)
{
	cordon *c = p->c;
	long long deadline = c->timeout_ms ? monotonic_ms() + (long long)c->timeout_ms : 0;
	long long kill_at = 0;
	int timed_out = 0, status = 0;
	/* Poll only when something must happen without the child changing
	 * state: a deadline; otherwise block. */
	for (;;) {
		long long wait_ms = -1;
		if (deadline) {
			long long t = monotonic_ms();
			if (!timed_out && t >= deadline) {
				timed_out = 1;
				(void)killpg(p->pid, SIGTERM);
				(void)killpg(p->pid, SIGCONT);
				kill_at = t + KILL_GRACE_MS;
			}
			if (timed_out && kill_at && t >= kill_at) {
				(void)killpg(p->pid, SIGKILL);
				kill_at = 0;
			}
			long long next = timed_out ? (kill_at ? kill_at : t + 100) : deadline;
			wait_ms = next > t ? next - t : 0;
		}
		/* With a terminal and a plain child, also look for stops now
		 * and then. */
		if (p->tty_fd >= 0 && p->statusfd < 0 && wait_ms != -1 && wait_ms > 100)
			wait_ms = 100;
		enum event ev = next_event(p, wait_ms, &status);
		if (ev == EV_ENDED)
			break;
		if (ev == EV_STOPPED && p->tty_fd >= 0)
			follow_stop(p);
		if (ev == EV_ERROR) {
			int e = errno;
			if (p->statusfd >= 0)
				close(p->statusfd);
			p->live = NULL; /* not reaped: the end still kills it */
			free(p);
			return cordon_fail_errno(c, CORDON_ESYS, e, "waiting for the command");
		}
	}
	/* The run ends with its command: what it left behind in its process
	 * group goes too (its temp dir is about to be removed). "off" runs
	 * exactly as a plain exec would and leaves them alone. */
	if (c->mode != CORDON_MODE_OFF || timed_out)
		(void)killpg(p->pid, SIGKILL);
	live_remove(c, p);
	if (p->tty_fd >= 0)
		take_terminal(p->tty_fd, getpgrp());
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->statusfd >= 0)
		close(p->statusfd);

	struct cordon_result r = { 0, 0, timed_out, 0 };
	if (WIFEXITED(status)) {
		r.exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r.signal = WTERMSIG(status);
		r.exit_code = 128 + r.signal;
	}
	if (timed_out)
		r.exit_code = 124;
	set_last(c, &r);
	if (c->explain && r.exit_code != 0)
		explain(c, &r);
	if (res != NULL)
		*res = r;
	free(p);
	return 0;
}
