/*
 * The public API's contract: one error convention (0 or a negative
 * CORDON_E*, with a message), the life cycle, spawns from several threads
 * sharing one decision, the fixed identifiers, and that the Linux build
 * contains the Landlock backend.
 */
#include "cordon.h"
#include "handle.h"
#include "testhooks.h"
#include "tap.h"
#include "fixture.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int exists(const char *dir, const char *name)
{
	char p[400];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static cordon *fresh(void)
{
	cordon *c = cordon_new();
	if (c == NULL || cordon_set_workspace(c, ws) != 0 || cordon_set_state_dir(c, state) != 0)
		exit(2);
	return c;
}

static const int all_codes[] = { CORDON_EINVAL,	  CORDON_ESYS,	   CORDON_ENOMEM,
				 CORDON_ESTATE,	  CORDON_EREFUSED, CORDON_EUNAVAILABLE,
				 CORDON_ECONFINE, CORDON_EEXEC };

static void error_convention(void)
{
	size_t n = sizeof(all_codes) / sizeof(all_codes[0]);
	int distinct = 1;
	for (size_t i = 0; i < n; i++) {
		if (all_codes[i] >= 0)
			distinct = 0;
		for (size_t j = i + 1; j < n; j++)
			if (all_codes[i] == all_codes[j])
				distinct = 0;
	}
	ok(distinct, "error codes are negative and distinct");

	cordon *c = cordon_new();
	/* A path one byte longer than any system call takes. */
	static char longpath[4097];
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	struct {
		const char *name;
		int r;
	} bad[] = {
		{ "set_mode(99)", cordon_set_mode(c, (enum cordon_mode)99) },
		{ "set_workspace(\"\")", cordon_set_workspace(c, "") },
		{ "set_workspace(4096 bytes)", cordon_set_workspace(c, longpath) },
		{ "set_workspace(NULL)", cordon_set_workspace(c, NULL) },
		{ "add_allow_write(\"\")", cordon_add_allow_write(c, "") },
		{ "add_allow_socket(NULL)", cordon_add_allow_socket(c, NULL) },
		{ "add_allow_socket(4096 bytes)", cordon_add_allow_socket(c, longpath) },
		{ "add_protect(NULL)", cordon_add_protect(c, NULL) },
		{ "add_allow_agent_config(NULL)", cordon_add_allow_agent_config(c, NULL) },
		{ "add_allow_agent_config(\"\")", cordon_add_allow_agent_config(c, "") },
		{ "set_state_dir(4096 bytes)", cordon_set_state_dir(c, longpath) },
		{ "set_status_fd(-1)", cordon_set_status_fd(c, -1) },
		{ "set_status_file(\"\")", cordon_set_status_file(c, "") },
		{ "set_timeout_ms(huge)", cordon_set_timeout_ms(c, UINT64_MAX) },
		{ "add_env(\"=x\")", cordon_add_env(c, "=x") },
		{ "add_env(\"\")", cordon_add_env(c, "") },
		{ "add_keep_fd(-2)", cordon_add_keep_fd(c, -2) },
		{ "test_set_max_abi(-1)", cordon_test_set_max_abi(c, -1) },
		{ "set_caches(0x10000)", cordon_set_caches(c, 0x10000) },
		{ "set_on_tamper(7)", cordon_set_on_tamper(c, (enum cordon_on_tamper)7) },
		{ "set_explain(3)", cordon_set_explain(c, 3) },
		{ "set_max_procs(4194305)", cordon_set_max_procs(c, 4194305) },
		{ "set_max_memory(1 MiB - 1)", cordon_set_max_memory(c, (1 << 20) - 1) },
		{ "set_max_memory(huge)", cordon_set_max_memory(c, UINT64_MAX) },
		{ "set_max_tmp(1)", cordon_set_max_tmp(c, 1) },
		{ "set_max_tmp(2^62 + 1)", cordon_set_max_tmp(c, ((uint64_t)1 << 62) + 1) },
		{ "set_cwd(\"\")", cordon_set_cwd(c, "") },
		{ "set_cwd(NULL)", cordon_set_cwd(c, NULL) },
		{ "set_cwd(4096 bytes)", cordon_set_cwd(c, longpath) },
		{ "set_cwd(missing)", cordon_set_cwd(c, "cordon-api-no-such-dir") },
		{ "set_cwd(a file)", cordon_set_cwd(c, "/dev/null") },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		is_int(bad[i].r, CORDON_EINVAL, "%s returns CORDON_EINVAL", bad[i].name);
	}
	ok(cordon_last_error(c)[0] != '\0', "a failure leaves a message: %s", cordon_last_error(c));

	struct {
		const char *name;
		int r;
	} good[] = {
		{ "set_mode(required)", cordon_set_mode(c, CORDON_MODE_REQUIRED) },
		{ "set_workspace", cordon_set_workspace(c, ws) },
		{ "add_allow_write", cordon_add_allow_write(c, outside) },
		{ "set_caches", cordon_set_caches(c, CORDON_CACHE_NPM) },
		{ "set_default_protect", cordon_set_default_protect(c, 0) },
		{ "add_allow_agent_config", cordon_add_allow_agent_config(c, ".claude") },
		{ "set_on_tamper", cordon_set_on_tamper(c, CORDON_TAMPER_FAIL) },
		{ "set_state_dir", cordon_set_state_dir(c, state) },
		{ "set_timeout_ms", cordon_set_timeout_ms(c, 5000) },
		{ "set_clean_env", cordon_set_clean_env(c, 1) },
		{ "add_env", cordon_add_env(c, "A=b") },
		{ "add_keep_fd(1)", cordon_add_keep_fd(c, 1) },
		{ "set_allow_broad", cordon_set_allow_broad(c, 0) },
		{ "set_foreground", cordon_set_foreground(c, 0) },
		{ "set_max_procs(4194304)", cordon_set_max_procs(c, 4194304) },
		{ "set_max_procs(0: none)", cordon_set_max_procs(c, 0) },
		{ "set_max_memory(1 MiB)", cordon_set_max_memory(c, 1 << 20) },
		{ "set_max_memory(0: none)", cordon_set_max_memory(c, 0) },
		{ "set_max_tmp(2^62)", cordon_set_max_tmp(c, (uint64_t)1 << 62) },
		{ "set_max_tmp(0: none)", cordon_set_max_tmp(c, 0) },
		{ "set_scratch_home", cordon_set_scratch_home(c, 0) },
		{ "set_allow_userns", cordon_set_allow_userns(c, 0) },
		{ "set_cwd", cordon_set_cwd(c, outside) },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		is_int(good[i].r, 0, "%s returns 0", good[i].name);

	enum cordon_mode m;
	unsigned mask;
	is_int(cordon_parse_mode("bogus", &m), CORDON_EINVAL, "parse_mode(bogus)");
	is_int(cordon_parse_mode("off", &m), 0, "parse_mode(off)");
	is_int(m, CORDON_MODE_OFF, "parse_mode(off) -> CORDON_MODE_OFF");
	enum cordon_on_tamper how = CORDON_TAMPER_DEFAULT;
	is_int(cordon_parse_on_tamper("bogus", &how), CORDON_EINVAL, "parse_on_tamper(bogus)");
	is_int(cordon_parse_on_tamper("neutralise", &how), 0, "parse_on_tamper(neutralise)");
	is_int(how, CORDON_TAMPER_NEUTRALISE, "... -> CORDON_TAMPER_NEUTRALISE");
	is_int(cordon_parse_on_tamper("fail", &how), 0, "parse_on_tamper(fail)");
	is_int(how, CORDON_TAMPER_FAIL, "... -> CORDON_TAMPER_FAIL");
	is_int((int)cordon_tampered_count(c), 0, "tampered_count before a run: 0");
	ok(cordon_tampered_path(c, 0) == NULL && cordon_tampered_moved(c, 0) == NULL,
	   "tampered_path/moved past the end: NULL");
	is_int(cordon_parse_caches("npm,bogus", &mask), CORDON_EINVAL, "parse_caches(bogus)");
	is_int(cordon_parse_caches("npm,pip", &mask), 0, "parse_caches(npm,pip)");
	is_int(mask, CORDON_CACHE_NPM | CORDON_CACHE_PIP, "parse_caches mask");
	is_int(cordon_parse_caches("cargo,npm,pip,playwright,go,yarn,pnpm,bun,deno,gradle,maven,"
				   "composer,gem,ccache,sccache,huggingface",
				   &mask),
	       0, "parse_caches(every tool)");
	is_int(mask, CORDON_CACHE_ALL, "parse_caches: every tool is CORDON_CACHE_ALL");
	is_int(cordon_set_caches(c, CORDON_CACHE_ALL), 0, "set_caches(CORDON_CACHE_ALL)");

	const char *argv[] = { "true", NULL };
	cordon_proc *p;
	is_int(cordon_spawn(c, argv, &p), CORDON_ESTATE, "spawn before begin: CORDON_ESTATE");
	is_int(cordon_end(c), CORDON_ESTATE, "end before begin: CORDON_ESTATE");
	is_int(cordon_wait(NULL, NULL), CORDON_EINVAL, "wait(NULL): CORDON_EINVAL");
	cordon_free(c);
}

static int contains(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static void life_cycle(void)
{
	int fds[2];
	char buf[8192];
	if (pipe(fds) != 0)
		exit(2);
	cordon *c = fresh();
	cordon_set_status_fd(c, fds[1]);
	int r = cordon_begin(c);
	is_int(r, 0, "begin: %s", cordon_last_error(c));
	/* The process's first run: what begin assumes of the layers, its
	 * first child settles; only a decision known at begin (no
	 * confinement here) is written by begin. */
	struct pollfd pf = { fds[0], POLLIN, 0 };
	int early = poll(&pf, 1, 0) > 0;
	if (cordon_applied(c))
		ok(!early, "begin of the first run writes no start event before its first child");
	else
		ok(early, "begin without confinement writes the start event at once");
	const char *first[] = { "true", NULL };
	cordon_proc *p;
	struct cordon_result res;
	is_int(cordon_spawn(c, first, &p), 0, "first spawn");
	pf.revents = 0;
	ok(poll(&pf, 1, 0) > 0, "the start event is out when the first spawn returns");
	is_int(cordon_wait(p, &res), 0, "first wait");
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	ok(strncmp(buf, "{\"event\":\"" CORDON_EVENT_STATUS "\"", 30) == 0 &&
		   buf[strlen(buf) - 1] == '\n' && strchr(buf, '\n') == buf + strlen(buf) - 1,
	   "begin writes one start event line");
	static const char *const keys[] = { "\"mode\":",     "\"backend\":",   "\"applied\":",
					    "\"reason\":",   "\"abi\":",       "\"layers\":",
					    "\"writable\":", "\"protected\":", "\"caches\":",
					    "\"tmpdir\":",   "\"gaps\":",      NULL };
	int all = 1;
	for (size_t i = 0; keys[i] != NULL; i++)
		if (strstr(buf, keys[i]) == NULL) {
			diag("missing %s", keys[i]);
			all = 0;
		}
	ok(all, "the start event has every field of design section 2");

	is_int(cordon_set_mode(c, CORDON_MODE_OFF), CORDON_ESTATE, "setters refuse after begin");
	is_int(cordon_set_max_procs(c, 10), CORDON_ESTATE, "... the bounds too");
	is_int(cordon_begin(c), CORDON_ESTATE, "begin twice: CORDON_ESTATE");
	const char *tmp = cordon_tmpdir(c);
	char tmpcopy[512];
	snprintf(tmpcopy, sizeof(tmpcopy), "%s", tmp ? tmp : "");
	ok(tmp != NULL && access(tmp, F_OK) == 0, "the run's temp dir exists during the run");

	const char *const *ids = cordon_identifiers();
	ok(contains(ids, cordon_backend_name(c)), "backend name is a fixed identifier");
	int layers_ok = 1, gaps_ok = 1;
	for (const char *const *l = cordon_layers(c); *l; l++)
		layers_ok &= contains(ids, *l);
	for (const char *const *g = cordon_gaps(c); *g; g++)
		gaps_ok &= contains(ids, *g);
	ok(layers_ok, "every layer is a fixed identifier");
	ok(gaps_ok, "every gap is a fixed identifier");
	ok(cordon_reason(c) == NULL || contains(ids, cordon_reason(c)),
	   "the reason is a fixed identifier");
	ok(contains(ids, CORDON_EVENT_STATUS) && contains(ids, CORDON_EVENT_EXIT) &&
		   contains(ids, CORDON_REASON_UNAVAILABLE) &&
		   contains(ids, "landlock_not_built_in") && contains(ids, "landlock_disabled") &&
		   contains(ids, "landlock_abi_too_old") && contains(ids, "landlock_blocked"),
	   "the identifier list holds the events and reasons");

	const char *argv[] = { "sh", "-c", "echo inside > made-by-api", NULL };
	is_int(cordon_spawn(c, argv, &p), 0, "spawn");
	ok(cordon_proc_pid(p) > 0, "the process has a pid");
	is_int(cordon_wait(p, &res), 0, "wait");
	is_int(res.exit_code, 0, "the command exited 0");
	ok(exists(ws, "made-by-api"), "the command wrote inside the workspace");

	const char *missing[] = { "cordon-api-no-such-cmd", NULL };
	is_int(cordon_spawn(c, missing, &p), CORDON_EEXEC,
	       "spawn of a missing command: CORDON_EEXEC");
	is_int(cordon_last_result(c, &res), 0, "... has a result");
	is_int(res.exit_code, 127, "... exit code 127");
	is_int(res.exec_errno, ENOENT, "... errno ENOENT");

	is_int(cordon_end(c), 0, "end");
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	ok(strstr(buf, "\"event\":\"" CORDON_EVENT_EXIT "\",") != NULL &&
		   strstr(buf, "\"exit_code\":127") != NULL,
	   "end writes the exit event of the last command");
	ok(access(tmpcopy, F_OK) != 0, "end removed the temp dir");
	is_int(cordon_end(c), CORDON_ESTATE, "end twice: CORDON_ESTATE");
	cordon_free(c);
	close(fds[0]);
	close(fds[1]);
}

/* The threads of this process. */
static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (d == NULL)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void begin_failure_leaves_nothing(void)
{
	char bogus[400], runs[400];
	snprintf(bogus, sizeof(bogus), "%s/no-such-ws", root);
	snprintf(runs, sizeof(runs), "%s/state2", root);
	cordon *c = cordon_new();
	cordon_set_workspace(c, bogus);
	cordon_set_state_dir(c, runs);
	int threads = count_threads();
	is_int(cordon_begin(c), CORDON_EINVAL, "begin with a missing workspace: CORDON_EINVAL");
	ok(strstr(cordon_last_error(c), "does not exist") != NULL, "... says so: %s",
	   cordon_last_error(c));
	ok(access(runs, F_OK) != 0, "... and created nothing (no state dir)");
	/* What the run started before its policy failed (its thread, the
	 * supervisor's) has ended (a thread may take a moment to go). */
	int now = count_threads();
	for (int i = 0; i < 300 && now > threads; i++) {
		usleep(10000);
		now = count_threads();
	}
	/* At most as many as before: a thread an earlier test left to end by
	 * itself (a detached name lookup of the proxy) may be gone by now. */
	ok(now <= threads, "... and left no thread running (%d threads before, %d after)", threads,
	   now);
	is_int(cordon_set_workspace(c, ws), 0,
	       "the handle is still configurable after a failed begin");
	is_int(cordon_begin(c), 0, "and begins once fixed");
	cordon_free(c); /* ends the run */
	ok(access(runs, F_OK) == 0, "the state dir now exists");
	char cmd[500];
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s/runs')\"", runs);
	ok(system(cmd) == 0, "cordon_free of a begun run removed its temp dir");

	c = cordon_new();
	cordon_set_workspace(c, "/");
	cordon_set_state_dir(c, runs);
	is_int(cordon_begin(c), CORDON_EREFUSED, "workspace / is refused: CORDON_EREFUSED");
	cordon_free(c);
}

/* The status events where a command of the run could replace them are
 * refused at cordon_begin(): a file named in the workspace (nothing
 * made), a status fd on one (the file untouched); outside, they work. */
static void status_inside_refused(void)
{
	char path[400], out[400];
	snprintf(path, sizeof(path), "%s/status.jsonl", ws);
	snprintf(out, sizeof(out), "%s/status-out.jsonl", root);
	cordon *c = fresh();
	cordon_set_status_file(c, path);
	is_int(cordon_begin(c), CORDON_EREFUSED, "a status file in the workspace: CORDON_EREFUSED");
	ok(strstr(cordon_last_error(c), "lies inside") != NULL, "... says why: %s",
	   cordon_last_error(c));
	ok(access(path, F_OK) != 0, "... and made no file there");
	cordon_free(c);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	c = fresh();
	cordon_set_status_fd(c, fd);
	is_int(cordon_begin(c), CORDON_EREFUSED,
	       "a status fd on a file in the workspace: CORDON_EREFUSED");
	struct stat st;
	ok(fstat(fd, &st) == 0 && st.st_size == 0, "... and nothing was written to it");
	cordon_free(c);
	close(fd);
	unlink(path);
	c = fresh();
	cordon_set_mode(c, CORDON_MODE_OFF);
	cordon_set_status_file(c, path);
	is_int(cordon_begin(c), 0, "... accepted in CORDON_MODE_OFF (a plain exec)");
	cordon_free(c);
	unlink(path);
	c = fresh();
	cordon_set_status_file(c, out);
	is_int(cordon_begin(c), 0, "a status file outside every writable tree: accepted");
	cordon_free(c);
	ok(access(out, F_OK) == 0, "... and written");
	unlink(out);
}

/* fn(fd) in a forked child (a process that has run nothing the caller
 * did not), its status events on fd read into buf until it ends. Its
 * exit status, or 8 when it did not exit. */
static int in_child(int (*fn)(int statusfd), char *buf, size_t size)
{
	int fds[2];
	if (pipe(fds) != 0)
		exit(2);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(fn(fds[1]));
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t n;
	while (got < size - 1 && (n = read(fds[0], buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 8;
}

struct thread_arg {
	cordon *c;
	const char *cmd;
	int exit_code;
};

static void *spawn_thread(void *v)
{
	struct thread_arg *a = v;
	const char *argv[] = { "sh", "-c", a->cmd, NULL };
	cordon_proc *p;
	struct cordon_result res = { -1, 0, 0, 0 };
	if (cordon_spawn(a->c, argv, &p) == 0)
		cordon_wait(p, &res);
	a->exit_code = res.exit_code;
	return NULL;
}

/* Four threads spawn at once as the first spawns of a process that has
 * run nothing yet (a forked child): one child settles the decision, the
 * others wait for it and apply the same, and one start event is written.
 * The child's exit status: bit 0 the workspace spawns succeeded, bit 1
 * the outside ones were refused, bit 2 unconfined here, 8 setup. */
static int threads_child(int statusfd)
{
	char in_cmd[600], out_cmd[600];
	cordon *c = fresh();
	cordon_set_status_fd(c, statusfd);
	if (cordon_begin(c) != 0)
		return 8;
	snprintf(in_cmd, sizeof(in_cmd), "echo t > '%s/from-thread'", ws);
	snprintf(out_cmd, sizeof(out_cmd), "exec 2>/dev/null; echo t > '%s/from-thread'", outside);
	struct thread_arg a[4] = {
		{ c, in_cmd, -1 }, { c, out_cmd, -1 }, { c, in_cmd, -1 }, { c, out_cmd, -1 }
	};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spawn_thread, &a[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	int in_ok = a[0].exit_code == 0 && a[2].exit_code == 0;
	int out_refused =
		a[1].exit_code != 0 && a[3].exit_code != 0 && !exists(outside, "from-thread");
	int r = in_ok | out_refused << 1 | !cordon_applied(c) << 2;
	cordon_free(c);
	return r;
}

static void threads(void)
{
	char buf[16384];
	int r = in_child(threads_child, buf, sizeof(buf));
	if (r & 4) {
		skip("confinement unavailable here: threads share the decision, untested");
		return;
	}
	ok(r != 8, "a run whose first spawns come from four threads at once begins");
	ok(r & 1, "spawns from threads write the workspace");
	ok(r & 2, "spawns from threads are confined too (same decision)");
	int starts = 0;
	for (const char *q = buf; (q = strstr(q, "\"event\":\"" CORDON_EVENT_STATUS "\"")) != NULL;
	     q++)
		starts++;
	is_int(starts, 1, "... and one start event is written");
}

/* With the mount layer each spawn of a run gets its own empty tmpfs on
 * /dev/shm, writable (the child grants it; later spawns hold the earlier
 * spawns' rules too, which must not matter). */
/* One shell line of a spawn's view: its namespaces, how many processes
 * its /proc shows, what /dev/shm holds (a printf format: %% doubled). */
/* Whether the run's layers name this one. */
static int has_layer(const cordon *c, const char *name)
{
	for (const char *const *l = cordon_layers(c); *l; l++)
		if (strcmp(*l, name) == 0)
			return 1;
	return 0;
}

/* Whether the run has a thread of its own (linux-runner.c): a PID
 * namespace or the supervisor among its layers. */
static int has_run_thread(const cordon *c)
{
	return has_layer(c, "pid_namespace") || has_layer(c, "unix_socket_supervisor");
}

/* A fresh handle with this network setting, begun; NULL (said why) when
 * the begin failed. */
static cordon *begun(enum cordon_network network)
{
	cordon *c = fresh();
	cordon_set_network(c, network);
	if (cordon_begin(c) != 0) {
		diag("begin: %s", cordon_last_error(c));
		cordon_free(c);
		return NULL;
	}
	return c;
}

/* One spawn of a begun run, its stdout (up to size - 1 bytes) into out;
 * the command's exit code, or -1 when it did not run. */
static int spawn_capture(cordon *c, const char *const argv[], char *out, size_t size)
{
	int fds[2];
	if (pipe(fds) != 0)
		exit(2);
	cordon_proc *p;
	struct cordon_result res = { -1, 0, 0, 0 };
	int keep = dup(1);
	dup2(fds[1], 1);
	close(fds[1]);
	if (cordon_spawn(c, argv, &p) == 0)
		cordon_wait(p, &res);
	dup2(keep, 1);
	close(keep);
	ssize_t n = read(fds[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	return res.exit_code;
}

#define NS_LINE                                                                                    \
	"for n in user mnt ipc net pid; do printf '%%s ' \"$(readlink /proc/self/ns/$n)\"; done; " \
	"printf '%%s ' \"$(stat -c %%d /dev/pts 2>/dev/null || echo -)\" "                         \
	"\"$(ls /proc | grep -c '^[0-9]')\" \"$(ls /dev/shm | tr '\\n' ,)\"; "

/* A library run's spawns share the run's namespaces (linux-runner.c):
 * the user (not root), IPC and network namespaces and the mount view
 * with its private /dev/shm are made by the first spawn and joined by the
 * later ones; each has a PID namespace, and so a /proc, of its own, and
 * each is confined as the first (a write outside refused). */
static void namespaces_per_run(void)
{
	cordon *c = begun(CORDON_NETWORK_OFF);
	if (c == NULL)
		return;
	char *j = cordon_probe_json(c);
	int mountns = j != NULL && strstr(j, "\"mount_namespace\"") != NULL;
	free(j);
	if (!cordon_applied(c) || !mountns) {
		skip("no mount layer here: the run's namespaces are not made, untested");
		cordon_free(c);
		return;
	}
	char later[1024], first[1100], out[3][512];
	snprintf(later, sizeof(later),
		 NS_LINE "echo x > /dev/shm/from-$1; (echo t > '%s/from-spawn') 2>/dev/null && "
			 "exit 4; [ \"$$\" = 2 ] || exit 5",
		 outside);
	/* Only the first must find /dev/shm empty. */
	snprintf(first, sizeof(first), "[ -z \"$(ls -A /dev/shm)\" ] || exit 3; %s", later);
	int good = 0;
	for (int i = 0; i < 3; i++) {
		char tag[2] = { (char)('0' + i), '\0' };
		const char *argv[] = { "sh", "-c", i == 0 ? first : later, "sh", tag, NULL };
		int code = spawn_capture(c, argv, out[i], sizeof(out[i]));
		if (code != 0)
			diag("spawn %d: exit %d: %s", i, code, out[i]);
		good += code == 0;
	}
	is_int(good, 3,
	       "three spawns of one run: each confined (a write outside refused), "
	       "process 1 of its own PID namespace");
	ok(!exists(outside, "from-spawn"), "... and nothing reached the outside");
	char user[3][64], mnt[3][64], ipc[3][64], net[3][64], pid[3][64], pts[3][24], nproc[3][16],
		shm[3][128];
	int parsed = 1;
	for (int i = 0; i < 3; i++) {
		shm[i][0] = '\0';
		parsed &= sscanf(out[i], "%63s %63s %63s %63s %63s %23s %15s %127s", user[i],
				 mnt[i], ipc[i], net[i], pid[i], pts[i], nproc[i], shm[i]) >= 7;
	}
	ok(parsed, "each spawn reported its namespaces");
	if (!parsed) {
		cordon_free(c);
		return;
	}
	ok(strcmp(user[0], user[1]) == 0 && strcmp(user[1], user[2]) == 0 &&
		   strcmp(ipc[0], ipc[1]) == 0 && strcmp(ipc[1], ipc[2]) == 0 &&
		   strcmp(net[0], net[1]) == 0 && strcmp(net[1], net[2]) == 0,
	   "later spawns joined the first one's user, IPC and network namespaces (%s %s %s)",
	   user[0], ipc[0], net[0]);
	ok(strcmp(pid[0], pid[1]) != 0 && strcmp(pid[1], pid[2]) != 0 &&
		   strcmp(pid[0], pid[2]) != 0,
	   "each spawn has a PID namespace of its own (%s %s %s)", pid[0], pid[1], pid[2]);
	/* The first's stays mounted in the run's view; a later one's device
	 * number may be reused by the next once it is gone. */
	ok(strcmp(pts[0], pts[1]) != 0 && strcmp(pts[0], pts[2]) != 0 && strcmp(pts[0], "-") != 0,
	   "later spawns have a devpts instance of their own, not the run's (devices %s %s %s)",
	   pts[0], pts[1], pts[2]);
	/* How many of the shell's own children (the command substitution,
	 * ls, grep) are alive when ls reads /proc varies from run to run:
	 * each sees a handful, the machine has many more. */
	int few = 1;
	for (int i = 0; i < 3; i++)
		few &= atoi(nproc[i]) >= 2 && atoi(nproc[i]) <= 8;
	ok(few, "a later spawn's /proc shows only its own processes, as the first's (%s %s %s)",
	   nproc[0], nproc[1], nproc[2]);
	ok(strcmp(shm[1], "from-0,") == 0 && strcmp(shm[2], "from-0,from-1,") == 0,
	   "the run's /dev/shm: empty at the first spawn, shared by the later ones (%s | %s)",
	   shm[1], shm[2]);
	cordon_free(c);
}

/* A library run's spawns share its temp dir: with --max-tmp a tmpfs in
 * the run's mount namespace, on $TMPDIR (and /tmp, which this fixture's
 * home in /tmp leaves the machine's, read-only). What the first
 * command leaves there is there for the next, however quickly it ended:
 * the test hook holds the first spawn until its command has ended (its
 * process 1 gone), where the run used to find nothing left to keep of its
 * namespaces, and the next spawn made its own, with an empty tmpfs. */
static void tmp_per_run_after_first_end(void)
{
	cordon *c = fresh();
	cordon_set_max_tmp(c, (uint64_t)1 << 20);
	if (cordon_begin(c) != 0) {
		ok(0, "a run with --max-tmp begins: %s", cordon_last_error(c));
		cordon_free(c);
		return;
	}
	char *j = cordon_probe_json(c);
	int mountns = j != NULL && strstr(j, "\"mount_namespace\"") != NULL;
	free(j);
	if (!cordon_applied(c) || !mountns) {
		skip("no mount layer here: no tmpfs of the run's, untested");
		cordon_free(c);
		return;
	}
	cordon_test_first_spawn_waits_end(1);
	char out[2][256];
	const char *first[] = { "sh", "-c", "echo kept > \"$TMPDIR/x\"", NULL };
	const char *second[] = { "sh", "-c", "cat \"$TMPDIR/x\"", NULL };
	int code0 = spawn_capture(c, first, out[0], sizeof(out[0]));
	cordon_test_first_spawn_waits_end(0);
	int code1 = spawn_capture(c, second, out[1], sizeof(out[1]));
	is_int(code0, 0, "a first command that writes $TMPDIR/x and ends at once");
	ok(code1 == 0 && strcmp(out[1], "kept\n") == 0,
	   "the next spawn reads it: the run's tmpfs kept (exit %d: %s)", code1, out[1]);
	cordon_free(c);
}

/* The seccomp layer is one filter per run, carried by the run's thread
 * (layer-seccomp.c: seccomp_start_run), not one per spawn: each of a
 * run's commands runs under one filter of cordon's (two before: the
 * supervisor's and its own), and the layer's rules hold for every one of
 * them: a setuid bit asked for on a file in the workspace is refused,
 * and the file outside the run keeps its mode. */
static void filter_per_run(void)
{
	cordon *c = begun(CORDON_NETWORK_OFF);
	if (c == NULL)
		return;
	if (!cordon_applied(c) || !has_layer(c, "seccomp")) {
		skip("no seccomp layer here: its filter is not installed, untested");
		cordon_free(c);
		return;
	}
	char cmd[512], out[3][128];
	snprintf(cmd, sizeof(cmd),
		 "f='%s/suid-'$1; : > \"$f\"; chmod 4755 \"$f\" 2>/dev/null && exit 6; "
		 "grep '^Seccomp_filters:' /proc/self/status | tr -dc 0-9",
		 ws);
	int good = 0;
	for (int i = 0; i < 3; i++) {
		char tag[2] = { (char)('0' + i), '\0' };
		const char *argv[] = { "sh", "-c", cmd, "sh", tag, NULL };
		int code = spawn_capture(c, argv, out[i], sizeof(out[i]));
		char path[400];
		struct stat st;
		snprintf(path, sizeof(path), "%s/suid-%d", ws, i);
		good += code == 0 && stat(path, &st) == 0 && !(st.st_mode & S_ISUID);
		unlink(path);
	}
	cordon_end(c);
	cordon_free(c);
	ok(good == 3,
	   "every spawn of a run: a setuid bit refused, the file keeps its mode (%d of 3)", good);
	if (out[0][0] == '\0') {
		skip("no Seccomp_filters line in /proc (kernel before 5.9): the count is untested");
		return;
	}
	/* This process's own filters (a container's) are inherited too. */
	int base = 0;
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Seccomp_filters:", 16) == 0)
			base = atoi(line + 16);
	if (f != NULL)
		fclose(f);
	ok(atoi(out[0]) == base + 1 && atoi(out[1]) == base + 1 && atoi(out[2]) == base + 1,
	   "... each under one filter of the run's (%s %s %s; this process has %d)", out[0], out[1],
	   out[2], base);
}

static void landlock_backend_present(void)
{
#if defined(__linux__)
	cordon *c = cordon_new();
	is_int(cordon_probe(c), 0, "probe");
	is_str(cordon_backend_name(c), "landlock", "the Linux build uses the Landlock backend");
	char *j = cordon_probe_json(c);
	ok(j != NULL && strstr(j, "\"backend\":\"landlock\"") != NULL, "probe JSON names it");
	ok(j != NULL && strstr(j, "\"available\":") != NULL && strstr(j, "\"applied\"") == NULL,
	   "probe JSON says available, not applied (it applies nothing)");
	free(j);
	cordon_free(c);
#else
	skip("not Linux");
#endif
}

/* The whole of a small file, or "" when it cannot be read. */
static const char *slurp_small(const char *path)
{
	static char buf[2048];
	FILE *f = fopen(path, "r");
	size_t n = f != NULL ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f != NULL)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

struct cwd_run {
	cordon *c;
	int rc;
	struct cordon_result res;
};

static void *cwd_thread(void *v)
{
	struct cwd_run *a = v;
	/* Relative: lands where the command starts. */
	const char *argv[] = { "sh", "-c", "pwd -P >here; echo \"$PWD\" >>here", NULL };
	a->rc = cordon_run(a->c, argv, &a->res);
	return NULL;
}

/* 1 when the run's start event names dir as its cwd, from from. */
static int start_names_cwd(const cordon *c, const char *dir, const char *from)
{
	char want[1200];
	char *j = cordon_status_json(c);
	snprintf(want, sizeof(want), "\"cwd\":\"%s\",\"cwd_from\":\"%s\"", dir, from);
	int found = j != NULL && strstr(j, want) != NULL;
	if (!found)
		diag("start event: %s", j != NULL ? j : "(null)");
	free(j);
	return found;
}

/* One process, one current directory (the fixture's ws), two runs with
 * workspaces of their own from two threads at once: each command starts
 * in its run's directory, named with cordon_set_cwd() (relative, resolved
 * when set) or by default (the workspace, as the process's directory lies
 * outside it), and its PWD says so. */
static void cwd_per_run(void)
{
	char a[400], b[400], asub[420], want[1000], path[1000];
	snprintf(a, sizeof(a), "%s/cwd-a", root);
	snprintf(b, sizeof(b), "%s/cwd-b", root);
	snprintf(asub, sizeof(asub), "%s/sub", a);
	if (mkdir(a, 0755) != 0 || mkdir(b, 0755) != 0 || mkdir(asub, 0755) != 0)
		exit(2);
	struct cwd_run r[2] = { { cordon_new(), -1, { -1, 0, 0, 0 } },
				{ cordon_new(), -1, { -1, 0, 0, 0 } } };
	for (int i = 0; i < 2; i++)
		if (r[i].c == NULL || cordon_set_workspace(r[i].c, i == 0 ? a : b) != 0 ||
		    cordon_set_state_dir(r[i].c, state) != 0)
			exit(2);
	if (chdir(root) != 0)
		exit(2);
	is_int(cordon_set_cwd(r[0].c, "cwd-a/sub"), 0, "set_cwd of a relative path");
	if (chdir(ws) != 0)
		exit(2);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, cwd_thread, &r[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ok(r[0].rc == 0 && r[0].res.exit_code == 0 && r[1].rc == 0 && r[1].res.exit_code == 0,
	   "two runs from two threads: both ran (%d/%d, %d/%d)", r[0].rc, r[0].res.exit_code,
	   r[1].rc, r[1].res.exit_code);
	snprintf(path, sizeof(path), "%s/here", asub);
	snprintf(want, sizeof(want), "%s\n%s\n", asub, asub);
	is_str(slurp_small(path), want,
	       "the run with cordon_set_cwd() started there (resolved when set), PWD too");
	snprintf(path, sizeof(path), "%s/here", b);
	snprintf(want, sizeof(want), "%s\n%s\n", b, b);
	is_str(slurp_small(path), want,
	       "the other started in its workspace (the process's directory lies outside)");
	ok(!exists(ws, "here"), "neither started in the process's current directory");
	ok(start_names_cwd(r[0].c, asub, "option"), "start event: cwd and cwd_from \"option\"");
	ok(start_names_cwd(r[1].c, b, "workspace"), "start event: cwd_from \"workspace\"");
	for (int i = 0; i < 2; i++)
		cordon_free(r[i].c);

	/* The process's directory in the workspace: the default is it. */
	cordon *c = fresh();
	const char *argv[] = { "true", NULL };
	struct cordon_result res;
	is_int(cordon_run(c, argv, &res), 0, "a run from inside its workspace");
	ok(start_names_cwd(c, ws, "current"), "start event: cwd_from \"current\"");
	cordon_free(c);
}

/* A working directory the command cannot enter or list in its view: the
 * command is never started elsewhere. */
static void cwd_unusable(void)
{
	char gone[400], denied[400];
	snprintf(gone, sizeof(gone), "%s/cwd-gone", ws);
	snprintf(denied, sizeof(denied), "%s/cwd-denied", ws);
	if (mkdir(gone, 0755) != 0 || mkdir(denied, 0755) != 0)
		exit(2);
	cordon *c = fresh();
	is_int(cordon_set_cwd(c, gone), 0, "set_cwd");
	is_int(cordon_begin(c), 0, "begin: %s", cordon_last_error(c));
	rmdir(gone);
	const char *argv[] = { "sh", "-c", "touch \"$0\"/ran-in-gone", ws, NULL };
	cordon_proc *p;
	struct cordon_result res;
	is_int(cordon_spawn(c, argv, &p), CORDON_EINVAL,
	       "its directory gone since begin: the spawn fails, CORDON_EINVAL");
	ok(strstr(cordon_last_error(c), "working directory") != NULL &&
		   strstr(cordon_last_error(c), gone) != NULL,
	   "... the message names it: %s", cordon_last_error(c));
	ok(cordon_last_result(c, &res) == 0 && res.exit_code == 125, "... exit code 125");
	ok(!exists(ws, "ran-in-gone"), "... and the command did not run");
	cordon_end(c);
	cordon_free(c);

	c = fresh();
	cordon_add_deny_read(c, denied);
	cordon_set_cwd(c, denied);
	int r = cordon_begin(c);
	if (r == 0 && !cordon_applied(c)) {
		skip("confinement unavailable here: nothing is denied");
		cordon_end(c);
	} else {
		is_int(r, CORDON_EINVAL, "a working directory in a --deny-read path: refused");
		ok(strstr(cordon_last_error(c), "may not read") != NULL, "... and says why: %s",
		   cordon_last_error(c));
	}
	cordon_free(c);
	rmdir(denied);
}

static void run_convenience(void)
{
	cordon *c = fresh();
	const char *argv[] = { "sh", "-c", "exit 9", NULL };
	struct cordon_result res;
	is_int(cordon_run(c, argv, &res), 0, "cordon_run");
	is_int(res.exit_code, 9, "cordon_run reports the exit status");
	cordon_free(c);
}

/* The library keeps the default secret list out of every spawn of a run
 * (the environment is the run's, built once), lists the names in its
 * start event, and passes one that cordon_add_env() names. */
static void env_secrets_per_run(void)
{
	const char *argv[] = { "sh", "-c", "echo \"${CORDON_API_TOKEN-unset}\"", NULL };
	char out[64], out2[64];
	setenv("CORDON_API_TOKEN", "api-secret-value", 1);
	cordon *c = begun(CORDON_NETWORK_ON);
	if (c != NULL) {
		spawn_capture(c, argv, out, sizeof(out));
		spawn_capture(c, argv, out2, sizeof(out2));
		is_str(out, "unset\n", "library: a secret of the environment stays out of a spawn");
		is_str(out2, "unset\n", "library: ... and out of the next spawn of the run");
		char *j = cordon_status_json(c);
		ok(j != NULL && strstr(j, "\"CORDON_API_TOKEN\"") != NULL &&
			   strstr(j, "api-secret-value") == NULL,
		   "library: the start event names it, without its value");
		free(j);
		cordon_end(c);
		cordon_free(c);
	}
	for (int i = 0; i < 2; i++) {
		c = fresh();
		if (i == 0)
			cordon_add_env(c, "CORDON_API_TOKEN");
		else
			cordon_set_default_deny_read(c, 0);
		out[0] = '\0';
		if (cordon_begin(c) == 0) {
			spawn_capture(c, argv, out, sizeof(out));
			cordon_end(c);
		}
		is_str(out, "api-secret-value\n", "library: %s: the secret passes",
		       i == 0 ? "cordon_add_env(NAME)" : "without the default deny-read list");
		cordon_free(c);
	}
	unsetenv("CORDON_API_TOKEN");
}

/* In a child that has run nothing yet (so nothing of the layers is
 * known in it): a run that spawns nothing still writes its start event,
 * at cordon_end(), with what a trial of every layer found, the same as
 * cordon_probe() says. */
static char no_spawn_event[8192];

static int begin_end(int statusfd)
{
	cordon *c = fresh();
	cordon_set_status_fd(c, statusfd);
	int r = cordon_begin(c) != 0 || cordon_end(c) != 0;
	cordon_free(c);
	return r;
}

static void end_without_spawn(void)
{
	char buf[8192];
	int r = in_child(begin_end, buf, sizeof(buf));
	ok(r == 0, "begin and end without a spawn succeed");
	ok(strncmp(buf, "{\"event\":\"" CORDON_EVENT_STATUS "\"", 30) == 0 &&
		   strchr(buf, '\n') == buf + strlen(buf) - 1,
	   "... and write exactly one event, the start event");
	snprintf(no_spawn_event, sizeof(no_spawn_event), "%s", buf);
}

/* A process's first run, whose layers are only assumed until its first
 * child applies them: that spawn plans again only when what is known
 * changed, so a run that met no refusal makes its plan (the ruleset,
 * the mount plan, the run's thread) once. With the default read denials
 * and --network off, whose layers the run's policy adds and takes. */
static int first_run_plans(int fd)
{
	cordon *c = fresh();
	cordon_set_network(c, CORDON_NETWORK_OFF);
	const char *argv[] = { "true", NULL };
	cordon_proc *p;
	struct cordon_result res = { -1, 0, 0, 0 };
	int r = cordon_begin(c);
	unsigned at_begin = c->plans;
	if (r == 0 && (r = cordon_spawn(c, argv, &p)) == 0)
		r = cordon_wait(p, &res);
	int thread = has_run_thread(c);
	dprintf(fd, "r=%d applied=%d begin=%u spawn=%u exit=%d early=%d thread=%d", r,
		cordon_applied(c), at_begin, c->plans, res.exit_code, c->early_adopted, thread);
	if (c->stage == ST_BEGUN)
		cordon_end(c);
	cordon_free(c);
	return 0;
}

static void first_run_plans_once(void)
{
	char buf[256];
	int r = -1, applied = 0, exit_code = -1, early = 0, thread = 0;
	unsigned at_begin = 0, plans = 0;
	in_child(first_run_plans, buf, sizeof(buf));
	sscanf(buf, "r=%d applied=%d begin=%u spawn=%u exit=%d early=%d thread=%d", &r, &applied,
	       &at_begin, &plans, &exit_code, &early, &thread);
	if (r == 0 && !applied) {
		skip("no confinement here: nothing to plan");
		return;
	}
	ok(r == 0 && exit_code == 0 && at_begin == 1 && plans == 1,
	   "a process's first run plans once, not again at its first spawn (%s)", buf);
	/* The run's thread (with a PID namespace or the supervisor, and so
	 * the filter) was started at the top of the run and taken by its
	 * plan. */
	if (!thread)
		skip("no run's thread here (no PID namespace, no supervisor): nothing started early");
	else
		ok(early == 1, "... and its plan took the run's thread started at its top (%s)",
		   buf);
}

/* Later: the probe settles this process (a trial of every layer). */
static void end_without_spawn_is_probe(void)
{
	const char *buf = no_spawn_event;
	cordon *c = fresh();
	is_int(cordon_probe(c), 0, "probe");
	char want[2048] = "\"layers\":[";
	for (const char *const *l = cordon_layers(c); *l; l++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s\"%s\"",
			 l == cordon_layers(c) ? "" : ",", *l);
	ok(strstr(buf, want) != NULL, "... whose layers are the probe's: %s", want);
	cordon_free(c);
}

/* After the probe's trial (cordon_probe above): a run knows its answer,
 * so its thread is started early again and adopted by its plan. */
static void early_thread_after_probe(void)
{
	cordon *c = begun(CORDON_NETWORK_ON);
	if (c == NULL)
		return;
	if (!has_run_thread(c))
		skip("no run's thread here (no PID namespace, no supervisor): nothing started early");
	else
		is_int(c->early_adopted, 1,
		       "after the probe's trial, a run's thread starts early again");
	cordon_end(c);
	cordon_free(c);
}

/* Spawns from two threads of one run at once: the pre-exec children of
 * the PID namespace share the run's thread's errno until they exec, so
 * the run's thread starts the next only when the last has exec'd. A
 * shared errno shows as a PATH search that takes another child's error:
 * "foo" found in the second directory instead of the first (a script
 * without #!, which execve answers with ENOEXEC), while the other thread
 * spawns a command that is nowhere (ENOENT) along 2000 directories. */
static volatile int noise_stop;

static void *noise_spawns(void *v)
{
	cordon *c = v;
	const char *a[] = { "cordon-api-nowhere", NULL };
	while (!noise_stop) {
		cordon_proc *p;
		struct cordon_result r;
		if (cordon_spawn(c, a, &p) == 0)
			cordon_wait(p, &r);
	}
	return NULL;
}

static void concurrent_path_search(void)
{
	char dir[400], file[450], out[450];
	size_t cap = 64 * 1024;
	char *path = malloc(cap);
	if (path == NULL)
		exit(2);
	snprintf(path, cap, "PATH=%s/pa", root);
	for (int i = 0; i < 2000; i++)
		snprintf(path + strlen(path), cap - strlen(path), ":/nonexistent/%d", i);
	snprintf(path + strlen(path), cap - strlen(path), ":%s/pb:/bin:/usr/bin", root);
	for (int k = 0; k < 2; k++) {
		snprintf(dir, sizeof(dir), "%s/p%c", root, k == 0 ? 'a' : 'b');
		mkdir(dir, 0755);
		snprintf(file, sizeof(file), "%s/foo", dir);
		FILE *f = fopen(file, "w");
		if (f == NULL)
			exit(2);
		fprintf(f, "%secho %c >> found\n", k == 0 ? "" : "#!/bin/sh\n", k == 0 ? 'A' : 'B');
		fclose(f);
		chmod(file, 0755);
	}
	snprintf(out, sizeof(out), "%s/found", ws);
	unlink(out);
	cordon *c = fresh();
	cordon_add_env(c, path);
	free(path);
	if (cordon_begin(c) != 0) {
		ok(0, "begin: %s", cordon_last_error(c));
		cordon_free(c);
		return;
	}
	pthread_t t;
	noise_stop = 0;
	pthread_create(&t, NULL, noise_spawns, c);
	const char *a[] = { "foo", NULL };
	int failed = 0;
	for (int i = 0; i < 150; i++) {
		cordon_proc *p;
		struct cordon_result r;
		if (cordon_spawn(c, a, &p) != 0 || cordon_wait(p, &r) != 0 || r.exit_code != 0)
			failed++;
	}
	noise_stop = 1;
	pthread_join(t, NULL);
	cordon_free(c);
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "test \"$(grep -c A '%s')\" = 150 && ! grep -q B '%s'", out,
		 out);
	ok(failed == 0 && system(cmd) == 0,
	   "150 PATH searches beside another thread's spawns all find the first foo (%d failed)",
	   failed);
}

/* ---- refusals met by the first spawn (the test re-run under
 * tests/helpers/seccomp-deny, as a process that has run nothing) ---- */

/* In the re-run: one scenario; its results as "name=value" words on
 * stdout, its status events on fd 3. */
static int scenario(const char *name, const char *top)
{
	snprintf(root, sizeof(root), "%s", top);
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(outside, sizeof(outside), "%s/outside", root);
	snprintf(state, sizeof(state), "%s/state", root);
	cordon *c = fresh();
	cordon_set_status_fd(c, 3);
	if (strcmp(name, "replan-fails") == 0) {
		/* An allowed path gone by the first spawn, whose child met a
		 * refusal: the plan made again fails; the run must end, never
		 * go on with what it had prepared. */
		char extra[400], target[400];
		snprintf(extra, sizeof(extra), "%s/extra", root);
		snprintf(target, sizeof(target), "%s/written", outside);
		mkdir(extra, 0755);
		cordon_add_allow_write(c, extra);
		int b = cordon_begin(c);
		rmdir(extra);
		cordon_proc *p;
		struct cordon_result res;
		const char *a1[] = { "true", NULL };
		int r1 = cordon_spawn(c, a1, &p);
		if (r1 == 0)
			cordon_wait(p, &res);
		char cmd[500];
		snprintf(cmd, sizeof(cmd), "echo x > '%s'", target);
		const char *a2[] = { "sh", "-c", cmd, NULL };
		int r2 = cordon_spawn(c, a2, &p);
		if (r2 == 0)
			cordon_wait(p, &res);
		printf("begin=%d first=%d second=%d written=%d\n", b, r1, r2,
		       access(target, F_OK) == 0);
	} else if (strcmp(name, "early-after-trial") == 0) {
		/* Under the refusal hint the trial runs at the top of the run,
		 * so the run's thread is started once the plan's decide has its
		 * answer, and adopted by the plan. */
		int b = cordon_begin(c);
		int thread = b == 0 && has_run_thread(c);
		printf("begin=%d thread=%d early=%d\n", b, thread, c->early_adopted);
		if (b == 0)
			cordon_end(c);
	} else if (strcmp(name, "end-refuses") == 0) {
		cordon_set_mode(c, CORDON_MODE_REQUIRED);
		int b = cordon_begin(c);
		int e = cordon_end(c);
		printf("begin=%d end=%d\n", b, e);
	} else if (strcmp(name, "run-refused") == 0) {
		cordon_set_mode(c, CORDON_MODE_REQUIRED);
		const char *a[] = { "true", NULL };
		struct cordon_result res = { 0, 0, 0, 0 };
		int r = cordon_run(c, a, &res);
		printf("run=%d exit=%d unavailable_said=%d\n", r, res.exit_code,
		       strstr(cordon_last_error(c), "unavailable") != NULL);
	}
	cordon_free(c);
	return 0;
}

/* Runs scenario NAME under seccomp-deny MODE; its stdout into out, its
 * events into events. 0 when it ran. */
static int rerun_as(const char *self, const char *mode, const char *name, int hint, char *out,
		    size_t nout, char *events, size_t nevents)
{
	char deny[600], evpath[400], cmd[2000];
	snprintf(deny, sizeof(deny), "%s", self);
	char *slash = strrchr(deny, '/');
	if (slash == NULL)
		return -1;
	snprintf(slash, sizeof(deny) - (size_t)(slash - deny), "/../helpers/seccomp-deny");
	if (access(deny, X_OK) != 0)
		return -1;
	snprintf(evpath, sizeof(evpath), "%s/events-%s", root, name);
	/* The filter is a hint to try every layer at once: unless hint,
	 * the re-run ignores it (--first-child), and these are the paths
	 * of a first child that meets the refusal itself. */
	snprintf(cmd, sizeof(cmd), "'%s' %s -- '%s' --scenario %s '%s'%s 3>'%s'", deny, mode, self,
		 name, root, hint ? "" : " --first-child", evpath);
	FILE *f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	size_t n = fread(out, 1, nout - 1, f);
	while (n > 0 && out[n - 1] == '\n')
		n--;
	out[n] = '\0';
	if (pclose(f) != 0)
		return -1;
	f = fopen(evpath, "r");
	n = f != NULL ? fread(events, 1, nevents - 1, f) : 0;
	events[n] = '\0';
	if (f != NULL)
		fclose(f);
	return 0;
}

static int rerun(const char *self, const char *mode, const char *name, char *out, size_t nout,
		 char *events, size_t nevents)
{
	return rerun_as(self, mode, name, 0, out, nout, events, nevents);
}

static int count_of(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *q = hay; (q = strstr(q, needle)) != NULL; q++)
		k++;
	return k;
}

/* Under the refusal hint (namespaces refused by a filter of the
 * caller's, as in a container) the run's thread starts once the trial's
 * answer is in, beside the rest of the plan, and the plan adopts it. */
static void early_thread_under_hint(const char *self)
{
	char out[256], ev[16384];
	if (rerun_as(self, "nons", "early-after-trial", 1, out, sizeof(out), ev, sizeof(ev)) != 0) {
		skip("seccomp-deny helper not built next to this test");
		return;
	}
	int b = -1, thread = 0, early = 0;
	sscanf(out, "begin=%d thread=%d early=%d", &b, &thread, &early);
	if (b == 0 && !thread)
		skip("no run's thread without namespaces here (Landlock checks sockets itself)");
	else
		ok(b == 0 && early == 1,
		   "under the refusal hint the plan adopts the run's thread started after the "
		   "trial (%s)",
		   out);
}

static void first_spawn_refusals(const char *self)
{
	char out[512], ev[16384];
	if (rerun(self, "nons", "replan-fails", out, sizeof(out), ev, sizeof(ev)) != 0) {
		skip("seccomp-deny helper not built next to this test");
		return;
	}
	int b = -1, r1 = -1, r2 = -1, written = -1;
	sscanf(out, "begin=%d first=%d second=%d written=%d", &b, &r1, &r2, &written);
	if (b != 0) {
		skip("confinement unavailable here: the refusal paths are untested");
		return;
	}
	ok(r1 != 0, "a plan that fails after a refusal fails the first spawn");
	ok(r2 != 0 && written == 0,
	   "... and ends the run: a later spawn is refused, nothing written outside (%s)", out);
	ok(count_of(ev, CORDON_EVENT_STATUS) == 1 && count_of(ev, CORDON_EVENT_EXIT) == 1 &&
		   strstr(ev, "\"exit_code\":125") != NULL,
	   "... with its start event and an exit event of 125");

	rerun(self, "eperm", "end-refuses", out, sizeof(out), ev, sizeof(ev));
	int e = 0;
	sscanf(out, "begin=%d end=%d", &b, &e);
	is_int(e, CORDON_EUNAVAILABLE,
	       "required, Landlock refused, no spawn: cordon_end refuses (%s)", out);
	ok(count_of(ev, CORDON_EVENT_STATUS) == 1 && count_of(ev, CORDON_EVENT_EXIT) == 1 &&
		   strstr(ev, "\"exit_code\":125") != NULL &&
		   strstr(ev, "\"applied\":false") != NULL,
	   "... with both events, not applied, exit code 125");

	rerun(self, "eperm", "run-refused", out, sizeof(out), ev, sizeof(ev));
	int r = 0, code = 0, said = 0;
	sscanf(out, "run=%d exit=%d unavailable_said=%d", &r, &code, &said);
	ok(r == CORDON_EUNAVAILABLE && code == 125 && said == 1,
	   "required, Landlock refused: cordon_run refuses and says why (%s)", out);
}

/* The allow-list's setters: a bad pattern, file line or resolve entry
 * is CORDON_EINVAL with one line naming it, the list unchanged; a good
 * one sets the network to allow; the start event names the list. */
static void network_allow_setters(void)
{
	cordon *c = cordon_new();
	char file[400];
	is_int(cordon_set_network_allow(c, "a.test,,b.test"), CORDON_EINVAL, "an empty entry");
	ok(strstr(cordon_last_error(c), "a.test,,b.test") != NULL, "... the message names it: %s",
	   cordon_last_error(c));
	is_int(cordon_set_network_allow(c, "a.test,@npm"), 0, "a name and a preset");
	snprintf(file, sizeof(file), "%s/allow.txt", outside);
	FILE *f = fopen(file, "w");
	fputs("# registries\n  **.b.test:8443  # ours\n\n[::1]\nbad..name\n", f);
	fclose(f);
	is_int(cordon_set_network_allow_file(c, file), CORDON_EINVAL, "a bad line in the file");
	ok(strstr(cordon_last_error(c), "line 5") != NULL, "... named by its number: %s",
	   cordon_last_error(c));
	f = fopen(file, "w");
	fputs("# registries\n  **.b.test:8443  # ours\n\n[::1]\n", f);
	fclose(f);
	is_int(cordon_set_network_allow_file(c, file), 0, "the file, comments and blanks ignored");
	is_int(cordon_add_network_resolve(c, "a.test=10.0.0.1"), 0, "resolve NAME=IPv4");
	is_int(cordon_add_network_resolve(c, "a.test=[::1]"), 0, "resolve NAME=[IPv6]");
	is_int(cordon_add_network_resolve(c, "a.test=example.org"), CORDON_EINVAL,
	       "resolve to a name: refused");
	is_int(cordon_add_network_resolve(c, "=10.0.0.1"), CORDON_EINVAL, "resolve without a name");
	is_int(cordon_set_network_allow_local(c, 1), 0, "allow local");
	is_int(cordon_set_network(c, (enum cordon_network)3), CORDON_EINVAL,
	       "an unknown network value");
	cordon_set_mode(c, CORDON_MODE_OFF);
	cordon_set_state_dir(c, state);
	is_int(cordon_begin(c), 0, "a run (mode off) begins");
	char *json = cordon_status_json(c);
	ok(json != NULL && strstr(json, "\"network\":\"allow\"") != NULL &&
		   strstr(json, "\"network_allow\":[\"a.test\",\"registry.npmjs.org\"") != NULL &&
		   strstr(json, "\"**.b.test:8443\",\"[::1]\"]") != NULL &&
		   strstr(json, "\"network_allow_local\":true") != NULL &&
		   strstr(json, "\"network_proxy\":null") != NULL,
	   "the start event names the mode and the list (no proxy in mode off)");
	if (json != NULL && strstr(json, "\"network_allow\":[\"a.test\"") == NULL)
		diag("%s", json);
	free(json);
	cordon_end(c);
	cordon_free(c);
}

/* The agents' guard through the library: a planted .claude/settings.json
 * is moved aside at cordon_end() and counted; cordon_add_allow_agent_config
 * lets the command write it; a path the guard does not hold is refused at
 * cordon_begin(). */
static void agent_config(void)
{
	char settings[400], moved[450];
	const char *argv[] = { "sh", "-c", "mkdir -p .claude && echo '{}' > .claude/settings.json",
			       NULL };
	snprintf(settings, sizeof(settings), "%s/.claude/settings.json", ws);
	cordon *c = fresh();
	cordon_set_on_tamper(c, CORDON_TAMPER_FAIL);
	struct cordon_result res;
	is_int(cordon_run(c, argv, &res), CORDON_ETAMPERED, "a planted .claude: CORDON_ETAMPERED");
	ok(access(settings, F_OK) != 0, "... it is not where an agent reads it");
	snprintf(moved, sizeof(moved), "%s/.claude", ws);
	ok(cordon_tampered_count(c) == 1 && strcmp(cordon_tampered_path(c, 0), moved) == 0 &&
		   strstr(cordon_tampered_moved(c, 0), ".claude.cordon-tampered-") != NULL,
	   "... counted, with where it went: %s", cordon_tampered_moved(c, 0));
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/.claude*", ws);
	if (system(cmd) != 0)
		exit(2);
	cordon_free(c);

	c = fresh();
	cordon_set_on_tamper(c, CORDON_TAMPER_FAIL);
	is_int(cordon_add_allow_agent_config(c, moved), 0, "allow .claude");
	is_int(cordon_run(c, argv, &res), 0, "... the command may write it");
	ok(access(settings, F_OK) == 0 && cordon_tampered_count(c) == 0, "... it stays");
	if (system(cmd) != 0)
		exit(2);
	cordon_free(c);

	c = fresh();
	snprintf(moved, sizeof(moved), "%s/src", ws);
	cordon_add_allow_agent_config(c, moved);
	is_int(cordon_begin(c), CORDON_EINVAL, "allowing a path the guard does not hold: refused");
	ok(strstr(cordon_last_error(c), "--allow-agent-config") != NULL &&
		   strstr(cordon_last_error(c), "/src") != NULL,
	   "... the message names it: %s", cordon_last_error(c));
	cordon_free(c);
}

int main(int argc, char *argv[])
{
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "--scenario") == 0) {
		if (argc == 5 && strcmp(argv[4], "--first-child") == 0)
			cordon_test_first_child_trial(1);
		return scenario(argv[2], argv[3]);
	}
	setup("/tmp/cordon-api.XXXXXX");
	is_str(cordon_version(), CORDON_VERSION, "version");
	network_allow_setters();
	/* These fork before this process has run anything. */
	end_without_spawn();
	first_run_plans_once();
	threads();
	error_convention();
	life_cycle();
	begin_failure_leaves_nothing();
	status_inside_refused();
	namespaces_per_run();
	tmp_per_run_after_first_end();
	filter_per_run();
	landlock_backend_present();
	run_convenience();
	agent_config();
	cwd_per_run();
	cwd_unusable();
	env_secrets_per_run();
	concurrent_path_search();
	end_without_spawn_is_probe();
	early_thread_after_probe();
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	first_spawn_refusals(self);
	early_thread_under_hint(self);
	teardown();
	return done_testing();
}
