/*
 * Resource bounds of a run (Linux): --max-procs, --max-memory, --max-tmp.
 *
 * The run's own cgroup bounds every process of the run together: made by
 * the parent under cordon's own cgroup (cgroup v1: the hierarchy of the
 * controller; v2: the unified one, where cordon's cgroup hands the
 * controller down), named cordon.PID.RUNID, its cgroup.procs opened by
 * the parent; each command's child writes "0" to it as its very first
 * step, before any layer and before anything could fork, so nothing of
 * the run runs outside it. The command cannot leave it: cgroupfs is
 * read-only in the mount layer and outside Landlock's writable set. The
 * cgroup is removed when the run's plan is released (every process of
 * the run gone by then; one left is killed first), and a dead cordon's
 * (its pid gone) by the next run that makes one beside it. Making one
 * needs write access to cordon's cgroup: root, or a delegated subtree.
 *
 * Without a cgroup:
 *   - processes: RLIMIT_NPROC, which the kernel counts per user
 *     namespace and uid since Linux 5.14 (ucounts): in the run's own user
 *     namespace (the mount layer makes one when cordon is not root) it
 *     counts the run's processes only. It is set in the child after that
 *     namespace exists: the namespace's outer bound is the creator's
 *     limit when it was made. Without such a namespace it would count
 *     every process of the user, and the kernel exempts real uid 0
 *     altogether: no bound then.
 *   - memory: RLIMIT_DATA (private writable mappings: heap, anonymous
 *     mmap), each process on its own. Not RLIMIT_AS, which counts the
 *     address ranges V8, Go and Java reserve without using.
 *   - the temp dir: the mount layer mounts a tmpfs of that size on the
 *     run's dir in the run's mount namespace; without it, none.
 */
#include "linux-layers.h"
#include "path.h"

#if defined(__linux__)

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- finding cordon's own cgroup ---- */

/* Whether the comma-separated list has token. */
static int has_token(const char *list, size_t n, const char *token)
{
	size_t t = strlen(token);
	for (const char *p = list; p < list + n;) {
		const char *e = memchr(p, ',', (size_t)(list + n - p));
		size_t len = e != NULL ? (size_t)(e - p) : (size_t)(list + n - p);
		if (len == t && memcmp(p, token, t) == 0)
			return 1;
		p += len + 1;
	}
	return 0;
}

/* The mount of the hierarchy with controller ctl (v2: ctl NULL) from one
 * /proc/self/mountinfo line: its root in the hierarchy and mount point. */
static int mount_line(char *line, const char *ctl, char **root, char **point)
{
	char *sep = strstr(line, " - ");
	char *f[5] = { 0 }, *save = NULL;
	if (sep == NULL)
		return 0;
	*sep = '\0';
	char *p = strtok_r(line, " ", &save);
	for (int i = 0; p != NULL && i < 5; i++, p = strtok_r(NULL, " ", &save))
		f[i] = p;
	char *type = strtok_r(sep + 3, " ", &save);
	(void)strtok_r(NULL, " ", &save); /* the source */
	char *opts = strtok_r(NULL, " \n", &save);
	if (f[4] == NULL || type == NULL || strchr(f[4], '\\') != NULL)
		return 0; /* an escaped name: not ours to guess */
	if (ctl == NULL ? strcmp(type, "cgroup2") != 0
			: strcmp(type, "cgroup") != 0 || opts == NULL ||
				  !has_token(opts, strlen(opts), ctl))
		return 0;
	*root = f[3];
	*point = f[4];
	return 1;
}

/* This process's path in that hierarchy, from /proc/self/cgroup. */
static int own_path(const char *ctl, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];
	int found = 0;
	if (f == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char *a = strchr(line, ':'), *b = a != NULL ? strchr(a + 1, ':') : NULL;
		if (b == NULL)
			continue;
		size_t clen = (size_t)(b - a - 1);
		if (ctl == NULL ? strncmp(line, "0:", 2) != 0 || clen != 0
				: !has_token(a + 1, clen, ctl))
			continue;
		b[strcspn(b, "\n")] = '\0';
		found = snprintf(out, n, "%s", b + 1) < (int)n;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* The directory of this process's cgroup for controller ctl (NULL: v2). */
static int own_dir(const char *ctl, char *out, size_t n)
{
	char path[CORDON_PATH_MAX], line[2048], *root = NULL, *point = NULL;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;
	if (f == NULL || own_path(ctl, path, sizeof(path)) != 0) {
		if (f != NULL)
			fclose(f);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = mount_line(line, ctl, &root, &point);
	fclose(f);
	if (!found || !path_within(root, path))
		return -1; /* outside the mount's part of the hierarchy */
	const char *rest = path + (strcmp(root, "/") == 0 ? 0 : strlen(root));
	return snprintf(out, n, "%s%s", point, rest) < (int)n ? 0 : -1;
}

/* dir/name holds text (a cgroup's own file). 0 or errno. */
static int cg_write(const char *dir, const char *name, const char *text)
{
	char p[CORDON_PATH_MAX];
	if (path_join(p, sizeof(p), dir, name) != 0)
		return ENAMETOOLONG;
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	size_t len = strlen(text);
	int e = write(fd, text, len) == (ssize_t)len ? 0 : errno;
	close(fd);
	return e;
}

/* Whether v2 hands ctl down from the cgroup at dir. */
static int v2_delegates(const char *dir, const char *ctl)
{
	char p[CORDON_PATH_MAX], buf[512];
	if (path_join(p, sizeof(p), dir, "cgroup.subtree_control") != 0)
		return 0;
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (char *s = buf, *save = NULL, *t; (t = strtok_r(s, " \n", &save)) != NULL; s = NULL)
		if (strcmp(t, ctl) == 0)
			return 1;
	return 0;
}

/* ---- the run's cgroups ---- */

/* Remove the cgroups of cordons that died beside it (empty ones only:
 * rmdir refuses a cgroup with processes). */
static void sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char p[CORDON_PATH_MAX], *end;
		if (strncmp(e->d_name, "cordon.", 7) != 0)
			continue;
		long pid = strtol(e->d_name + 7, &end, 10);
		if (pid <= 0 || *end != '.' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (path_join(p, sizeof(p), parent, e->d_name) == 0)
			(void)rmdir(p);
	}
	closedir(d);
}

/* The run's cgroup under parent (made, or the one made already for
 * another controller of the same hierarchy): its index in l, or -1. */
static int run_cgroup(const char *run_id, struct limits_plan *l, const char *parent)
{
	char dir[CORDON_PATH_MAX], name[64];
	snprintf(name, sizeof(name), "cordon.%ld.%s", (long)getpid(), run_id);
	if (path_join(dir, sizeof(dir), parent, name) != 0)
		return -1;
	for (size_t i = 0; i < l->ndirs; i++)
		if (strcmp(l->dirs[i], dir) == 0)
			return (int)i;
	if (l->ndirs == LIMITS_MAX_CGROUPS)
		return -1;
	sweep(parent);
	if (mkdir(dir, 0755) != 0)
		return -1;
	char procs[CORDON_PATH_MAX];
	int fd = path_join(procs, sizeof(procs), dir, "cgroup.procs") == 0
			 ? open(procs, O_WRONLY | O_CLOEXEC)
			 : -1;
	char *dup = fd >= 0 ? strdup(dir) : NULL;
	if (dup == NULL) {
		if (fd >= 0)
			close(fd);
		(void)rmdir(dir);
		return -1;
	}
	l->dirs[l->ndirs] = dup;
	l->procs_fd[l->ndirs] = fd;
	return (int)l->ndirs++;
}

/* Bound controller ctl ("pids", "memory") at value in the run's cgroup:
 * 1 when done, 0 when no cgroup can hold it here. */
static int cg_bound(const char *run_id, struct limits_plan *l, const char *ctl, uint64_t value)
{
	char parent[CORDON_PATH_MAX], num[32];
	int v2 = 0;
	if (own_dir(ctl, parent, sizeof(parent)) != 0) {
		if (own_dir(NULL, parent, sizeof(parent)) != 0 || !v2_delegates(parent, ctl))
			return 0;
		v2 = 1;
	}
	int i = run_cgroup(run_id, l, parent);
	if (i < 0)
		return 0;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)value);
	const char *dir = l->dirs[i];
	if (strcmp(ctl, "pids") == 0)
		return cg_write(dir, "pids.max", num) == 0;
	if (cg_write(dir, v2 ? "memory.max" : "memory.limit_in_bytes", num) != 0)
		return 0;
	/* Swap too, where the kernel accounts it: v1 bounds memory and swap
	 * together, v2 gets none. */
	(void)(v2 ? cg_write(dir, "memory.swap.max", "0")
		  : cg_write(dir, "memory.memsw.limit_in_bytes", num));
	return 1;
}

static uint64_t clamp_rlimit(int resource, uint64_t want)
{
	struct rlimit r;
	if (getrlimit(resource, &r) == 0 && r.rlim_max != RLIM_INFINITY && r.rlim_max < want)
		return (uint64_t)r.rlim_max; /* it cannot be raised: tighter already */
	return want;
}

int limits_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	struct limits_plan *l = &plan->limits;
	struct mount_plan *m = plan->mount;
	if (run->max_procs > 0) {
		if (cg_bound(run->run_id, l, "pids", run->max_procs)) {
			res->procs_by = LIMIT_BY_CGROUP;
		} else if (m != NULL && m->userns && getuid() != 0) {
			l->nproc = clamp_rlimit(RLIMIT_NPROC, run->max_procs);
			res->procs_by = LIMIT_BY_RLIMIT;
		}
	}
	if (run->max_memory > 0) {
		if (cg_bound(run->run_id, l, "memory", run->max_memory)) {
			res->memory_by = LIMIT_BY_CGROUP;
		} else {
			l->data = clamp_rlimit(RLIMIT_DATA, run->max_memory);
			res->memory_by = LIMIT_BY_RLIMIT_DATA;
		}
	}
	if (run->max_tmp > 0 && m != NULL && run->rundir != NULL) {
		/* One inode per KiB: its inodes cost kernel memory its size
		 * does not count. */
		uint64_t inodes = run->max_tmp / 1024 > 1024 ? run->max_tmp / 1024 : 1024;
		snprintf(m->tmpfs_opts, sizeof(m->tmpfs_opts), "size=%llu,nr_inodes=%llu,mode=0700",
			 (unsigned long long)run->max_tmp, (unsigned long long)inodes);
		if ((m->tmpfs_on = strdup(run->rundir)) == NULL)
			return backend_fail(res, CORDON_ENOMEM, "out of memory");
		res->tmp_by = LIMIT_BY_TMPFS;
		/* /dev/shm draws on the same budget (not a tmpfs of half the
		 * RAM): one tmpfs, two directories bound where each is seen. */
		char p[CORDON_PATH_MAX];
		if (!m->shm_kept) {
			if (path_join(p, sizeof(p), run->rundir, "tmp") != 0 ||
			    (m->tmpfs_tmp = strdup(p)) == NULL ||
			    path_join(p, sizeof(p), run->rundir, "shm") != 0 ||
			    (m->tmpfs_shm = strdup(p)) == NULL)
				return backend_fail(res, CORDON_ENOMEM, "out of memory");
			res->tmp_shm = 1;
		}
	}
	return 0;
}

/* ---- child ---- */

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int limits_enter(const struct linux_plan *plan)
{
	const struct limits_plan *l = &plan->limits;
	for (size_t i = 0; i < l->ndirs; i++)
		if (write(l->procs_fd[i], "0", 1) != 1)
			return errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int limits_apply(const struct linux_plan *plan)
{
	const struct limits_plan *l = &plan->limits;
	struct rlimit r;
	if (l->nproc > 0) {
		r.rlim_cur = r.rlim_max = (rlim_t)l->nproc;
		if (setrlimit(RLIMIT_NPROC, &r) != 0)
			return errno;
	}
	if (l->data > 0) {
		r.rlim_cur = r.rlim_max = (rlim_t)l->data;
		if (setrlimit(RLIMIT_DATA, &r) != 0)
			return errno;
	}
	return 0;
}

/* ---- the end ---- */

/* Kill what is left in the cgroup at dir (the run's processes only). */
static void kill_members(const char *dir)
{
	char p[CORDON_PATH_MAX];
	if (cg_write(dir, "cgroup.kill", "1") == 0)
		return; /* v2, Linux 5.14 */
	if (path_join(p, sizeof(p), dir, "cgroup.procs") != 0)
		return;
	FILE *f = fopen(p, "re");
	char line[32];
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *end;
		long pid = strtol(line, &end, 10);
		if (pid > 0 && (*end == '\n' || *end == '\0'))
			(void)kill((pid_t)pid, SIGKILL);
	}
	fclose(f);
}

void limits_free(struct limits_plan *l)
{
	for (size_t i = 0; i < l->ndirs; i++) {
		close(l->procs_fd[i]);
		/* Up to a second for what was killed to be gone. */
		for (int t = 0; rmdir(l->dirs[i]) != 0 && errno == EBUSY && t < 100; t++) {
			struct timespec ts = { 0, 10000000L }; /* 10 ms */
			kill_members(l->dirs[i]);
			nanosleep(&ts, NULL);
		}
		free(l->dirs[i]);
	}
	memset(l, 0, sizeof(*l));
}

#else
typedef int cordon_no_limits_here;
#endif
