/*
 * syscost - what the operations a cordon run is made of cost on this
 * machine, each measured alone in a loop (bench/profile runs it).
 *
 *   syscost [-n N] -w WORKSPACE -s STATE_DIR [-t TMPFS_DIR]
 *
 * Prints one JSON object: for each operation the median and p10/p90 in
 * microseconds over N iterations, all operations interleaved so that load
 * changes hit them alike. The operations:
 *   fork_wait         fork + _exit + waitpid: the Landlock trial and the
 *                     command's start, as cordon makes them today
 *   vfork_wait        clone(CLONE_VM|CLONE_VFORK) + _exit + waitpid: the
 *                     same without copying the page tables
 *   getpwuid_r        one password-database lookup of the caller
 *   realpath_ws       realpath() of the workspace
 *   tmpdir_state      mkdtemp + rmdir under STATE_DIR (the run's temp dir)
 *   tmpdir_tmpfs      the same under TMPFS_DIR (-t), e.g. a dir in /dev/shm
 *   ruleset_8         landlock_create_ruleset + 8 x (open O_PATH, fstat,
 *                     landlock_add_rule, close) + close
 *   sigaction_64      sigaction(sig, NULL, &old) for 64 signals (the
 *                     child's reset of caught handlers)
 *   capbset_read_41   41 x prctl(PR_CAPBSET_READ) (the child's bounding-set
 *                     walk makes that many reads, and root's as many drops)
 *   fault_16          mmap of 16 fresh anonymous pages, a write to each,
 *                     munmap: what touching new memory costs (a new
 *                     thread's stack, a fresh heap, a process's first
 *                     writes); on a virtual machine that shadows page
 *                     tables, far more than a system call
 *   syscall_getppid   one trivial system call: the unit of the others
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#endif

enum op {
	FORK_WAIT,
	VFORK_WAIT,
	GETPWUID,
	REALPATH_WS,
	TMPDIR_STATE,
	TMPDIR_TMPFS,
	RULESET_8,
	SIGACTION_64,
	CAPBSET_41,
	FAULT_16,
	GETPPID,
	NOPS
};

static const char *const op_names[NOPS] = {
	"fork_wait",	   "vfork_wait",   "getpwuid_r",      "realpath_ws",
	"tmpdir_state",	   "tmpdir_tmpfs", "ruleset_8",	      "sigaction_64",
	"capbset_read_41", "fault_16",	   "syscall_getppid",
};

static const char *workspace, *state_dir, *tmpfs_dir;
static char child_stack[16384];

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "syscost: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int child_exit(void *arg)
{
	(void)arg;
	_exit(0);
}

static void tmpdir_cycle(const char *dir)
{
	char t[PATH_MAX];
	snprintf(t, sizeof(t), "%s/XXXXXX", dir);
	if (mkdtemp(t) == NULL)
		die("mkdtemp");
	if (rmdir(t) != 0)
		die("rmdir");
}

/* Struct layouts of the Landlock ABI (linux/landlock.h, packed). */
struct ruleset_attr {
	uint64_t handled_access_fs;
};
struct path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

static int ruleset(void)
{
	struct ruleset_attr attr = { 1ULL << 1 }; /* WRITE_FILE */
	long fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0U);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 8; i++) {
		struct stat st;
		int pfd = open(workspace, O_PATH | O_CLOEXEC | O_NOFOLLOW);
		if (pfd < 0 || fstat(pfd, &st) != 0)
			die("open workspace");
		struct path_beneath pb = { 1ULL << 1, pfd };
		(void)syscall(SYS_landlock_add_rule, (int)fd, 1, &pb, 0U);
		close(pfd);
	}
	close((int)fd);
	return 0;
}

static int have_landlock = 1;

static double one(enum op o)
{
	double t0 = now_us();
	int status;
	pid_t pid;
	switch (o) {
	case FORK_WAIT:
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			die("fork");
		break;
	case VFORK_WAIT:
		pid = clone(child_exit, child_stack + sizeof(child_stack),
			    CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			die("clone");
		break;
	case GETPWUID: {
		struct passwd pw, *res;
		char buf[4096];
		(void)getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res);
		break;
	}
	case REALPATH_WS: {
		char real[PATH_MAX];
		if (realpath(workspace, real) == NULL)
			die("realpath");
		break;
	}
	case TMPDIR_STATE:
		tmpdir_cycle(state_dir);
		break;
	case TMPDIR_TMPFS:
		if (tmpfs_dir == NULL)
			return -1;
		tmpdir_cycle(tmpfs_dir);
		break;
	case RULESET_8:
		if (!have_landlock || ruleset() != 0) {
			have_landlock = 0;
			return -1;
		}
		break;
	case SIGACTION_64:
		for (int sig = 1; sig <= 64; sig++) {
			struct sigaction old;
			(void)sigaction(sig, NULL, &old);
		}
		break;
	case CAPBSET_41:
		for (int cap = 0; cap < 41; cap++)
			(void)prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		break;
	case FAULT_16: {
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, (size_t)(16 * pg), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die("mmap");
		for (long i = 0; i < 16; i++)
			m[i * pg] = 1;
		(void)munmap(m, (size_t)(16 * pg));
		break;
	}
	case GETPPID:
	default:
		(void)syscall(SYS_getppid);
		break;
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
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

int main(int argc, char *argv[])
{
	long n = 300;
	int opt;
	while ((opt = getopt(argc, argv, "n:w:s:t:")) != -1) {
		switch (opt) {
		case 'n':
			n = strtol(optarg, NULL, 10);
			break;
		case 'w':
			workspace = optarg;
			break;
		case 's':
			state_dir = optarg;
			break;
		case 't':
			tmpfs_dir = optarg;
			break;
		default:
			return 2;
		}
	}
	if (workspace == NULL || state_dir == NULL || n < 1) {
		fprintf(stderr, "usage: syscost [-n N] -w WORKSPACE -s STATE_DIR [-t TMPFS_DIR]\n");
		return 2;
	}
	double *t[NOPS];
	for (int k = 0; k < NOPS; k++)
		if ((t[k] = calloc((size_t)n, sizeof(double))) == NULL)
			die("calloc");
	for (int k = 0; k < NOPS; k++) /* warm-up */
		(void)one((enum op)k);
	for (long i = 0; i < n; i++)
		for (int k = 0; k < NOPS; k++)
			t[k][i] = one((enum op)k);
	printf("{\"n\":%ld,\"ops\":{", n);
	int first = 1;
	for (int k = 0; k < NOPS; k++) {
		if (t[k][0] < 0) {
			free(t[k]);
			continue; /* not measurable here */
		}
		qsort(t[k], (size_t)n, sizeof(double), cmp_double);
		printf("%s\"%s\":{\"median_us\":%.2f,\"p10_us\":%.2f,\"p90_us\":%.2f}",
		       first ? "" : ",", op_names[k], quantile(t[k], (size_t)n, 0.5),
		       quantile(t[k], (size_t)n, 0.1), quantile(t[k], (size_t)n, 0.9));
		first = 0;
		free(t[k]);
	}
	printf("}}\n");
	return 0;
}
