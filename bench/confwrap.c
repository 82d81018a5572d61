/*
 * confwrap [--ns|--ns-net] [--write PATH]... -- COMMAND [ARG...]: as
 * waitwrap, but the child takes, before its exec, the kernel's part of
 * cordon's confinement and nothing else: no_new_privs, a Landlock domain
 * of the ABI's write rights (cordon's own table, src/linux/landlock.c) with one
 * rule per --write path (all rights beneath a directory, the file rights
 * on a file), and cordon's seccomp program for the run's groups
 * (src/linux/layer-seccomp.c; without the socket supervisor's notifying rules,
 * which need a thread answering them). With --ns (--ns-net) the child is
 * also process 1 of new namespaces with a /proc of its own, as
 * waitwrap --ns starts it (nsfloor.h).
 *
 * A floor under cordon's figures, not a sandbox: it leaves out everything
 * of cordon's own (the policy, the home, the secrets, the run's dir, the
 * events, the capability drops, the mount layer's view, the reaper), so a
 * target below what it measures cannot be met by any way of applying
 * those layers on that machine.
 *
 * Exit codes: the command's (128+N when it dies of signal N); 125 when it
 * cannot start the child or a --write path cannot be opened; in the child,
 * 121/122 as waitwrap --ns, 123 when a layer is refused, 127 when the
 * command cannot be run.
 */
#include "nsfloor.h"

#include "linux-layers.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum { CONFWRAP_ELAYER = 123, CONFWRAP_MAX_WRITES = 64 };

struct conf {
	char *const *argv;
	int network;
	struct ll_ruleset_attr attr;
	size_t n;
	int fds[CONFWRAP_MAX_WRITES];
	uint64_t rights[CONFWRAP_MAX_WRITES];
	struct sock_fprog prog;
	struct sock_filter insns[SECCOMP_MAX_INSNS];
};

/* In the child, after its namespaces: the layers, then the command. */
static int confine(const struct conf *c)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return CONFWRAP_ELAYER;
	long rs = ll_create_ruleset(&c->attr, sizeof(c->attr), 0);
	if (rs < 0)
		return CONFWRAP_ELAYER;
	for (size_t i = 0; i < c->n; i++) {
		struct ll_path_beneath_attr pb = { .allowed_access = c->rights[i],
						   .parent_fd = c->fds[i] };
		if (ll_add_rule((int)rs, &pb) != 0)
			return CONFWRAP_ELAYER;
	}
	if (syscall(LL_SYS_RESTRICT_SELF, (int)rs, 0U) != 0)
		return CONFWRAP_ELAYER;
	(void)close((int)rs);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0U, &c->prog) != 0)
		return CONFWRAP_ELAYER;
	return 0;
}

static int child(void *v)
{
	const struct conf *c = v;
	int e = c->network >= 0 ? nsfloor_mounts() : 0;
	if (e == 0)
		e = confine(c);
	if (e != 0)
		_exit(e);
	execvp(c->argv[0], c->argv);
	_exit(NSFLOOR_EEXEC);
}

static int usage(void)
{
	fputs("usage: confwrap [--ns|--ns-net] [--write PATH]... -- COMMAND [ARG...]\n", stderr);
	return 125;
}

int main(int argc, char **argv)
{
	static struct conf c = { .network = -1 };
	static char stack[64 * 1024] __attribute__((aligned(16)));
	int i = 1, abi = landlock_query_abi();
	if (abi <= 0) {
		fprintf(stderr, "confwrap: no Landlock here: %s\n", strerror(-abi));
		return 125;
	}
	landlock_attr_for_abi(abi, &c.attr);
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		struct stat st;
		if (strcmp(argv[i], "--ns") == 0 || strcmp(argv[i], "--ns-net") == 0) {
			c.network = strcmp(argv[i], "--ns-net") == 0;
			continue;
		}
		if (strcmp(argv[i], "--write") != 0 || i + 1 >= argc || c.n == CONFWRAP_MAX_WRITES)
			return usage();
		const char *path = argv[++i];
		int fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0) {
			fprintf(stderr, "confwrap: %s: %s\n", path, strerror(errno));
			return 125;
		}
		c.fds[c.n] = fd;
		c.rights[c.n++] = c.attr.handled_access_fs &
				  (S_ISDIR(st.st_mode) ? ~(uint64_t)0 : LL_FS_FILE_RIGHTS);
	}
	if (i + 1 >= argc)
		return usage();
	c.argv = argv + i + 1;
	int n = seccomp_build(seccomp_groups_for(c.network >= 0, 0, 0, 0), c.insns,
			      SECCOMP_MAX_INSNS);
	if (n <= 0) {
		fputs("confwrap: no seccomp program for this architecture\n", stderr);
		return 125;
	}
	c.prog.len = (unsigned short)n;
	c.prog.filter = c.insns;
	pid_t pid = c.network >= 0 ? nsfloor_clone(child, &c, c.network)
				   : clone(child, stack + sizeof(stack),
					   CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
	if (pid < 0) {
		fprintf(stderr, "confwrap: cannot start the child: %s\n", strerror(errno));
		return 125;
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
