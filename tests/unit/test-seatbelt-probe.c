/*
 * The Seatbelt probe and a whole run through the backend, on Linux, with
 * fake sandbox-exec programs. Built with -DCORDON_SEATBELT_TEST_HOOKS and
 * its own object of backend-seatbelt.c: only that object can be pointed at
 * a fake; the library's path is a constant.
 */
#include "agentcfg.h"
#include "handle.h"
#include "review.h"
#include "seatbelt.h"
#include "tap.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* root/NAME with the given content and mode; returns its path (static). */
static const char *fake(const char *name, const char *body, mode_t mode)
{
	static char path[8][400];
	static int next;
	char *p = path[next++ % 8];
	snprintf(p, sizeof(path[0]), "%s/%s", root, name);
	FILE *f = fopen(p, "w");
	if (f == NULL || fputs(body, f) < 0 || fclose(f) != 0 || chmod(p, mode) != 0)
		exit(2);
	return p;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void probe_with(const char *path, int timeout_ms, struct backend_probe *pr)
{
	seatbelt_test_reset(path, timeout_ms);
	memset(pr, 0xa5, sizeof(*pr));
	cordon_backend_seatbelt.probe(&(struct probe_opts){ 0 }, pr);
}

static int file_has(const char *path, const char *text)
{
	char buf[1024];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

static void probe_outcomes(void)
{
	struct backend_probe pr;
	char args[450];

	const char *good = fake("sb-ok", "#!/bin/sh\nprintf '%s\\n' \"$@\" >\"$0.args\"\n", 0755);
	probe_with(good, 2000, &pr);
	ok(pr.available && pr.reason == REASON_NONE && pr.detail == NULL, "exit 0: available");
	snprintf(args, sizeof(args), "%s.args", good);
	ok(file_has(args, "-p\n(version 1)(allow default)\n/usr/bin/true\n"),
	   "the probe runs: sandbox-exec -p '(version 1)(allow default)' /usr/bin/true");

	/* Once per process: the same fake now fails, unseen. */
	unlink(args);
	fake("sb-ok", "#!/bin/sh\n: >\"$0.args\"\nexit 71\n", 0755);
	cordon_backend_seatbelt.probe(&(struct probe_opts){ 0 }, &pr);
	ok(pr.available && access(args, F_OK) != 0, "the answer is kept: not probed twice");

	probe_with(fake("sb-nested", "#!/bin/sh\nexit 71\n", 0755), 2000, &pr);
	ok(!pr.available, "exit 71: unavailable");
	is_str(reason_name(pr.reason), "seatbelt_nested", "exit 71: seatbelt_nested");
	is_str(pr.detail, "sandbox-exec exited with status 71", "... the detail says so");

	probe_with(fake("sb-fails", "#!/bin/sh\nexit 3\n", 0755), 2000, &pr);
	is_str(reason_name(pr.reason), "seatbelt_probe_failed", "exit 3: seatbelt_probe_failed");
	is_str(pr.detail, "sandbox-exec exited with status 3", "... with the exit status");

	probe_with(fake("sb-killed", "#!/bin/sh\nkill -9 $$\n", 0755), 2000, &pr);
	is_str(reason_name(pr.reason), "seatbelt_probe_failed", "killed: seatbelt_probe_failed");
	is_str(pr.detail, "sandbox-exec was killed by signal 9", "... with the signal");

	char missing[400];
	snprintf(missing, sizeof(missing), "%s/no-such-sandbox-exec", root);
	probe_with(missing, 2000, &pr);
	ok(!pr.available, "missing: unavailable");
	is_str(reason_name(pr.reason), "seatbelt_missing", "missing: seatbelt_missing");

	probe_with(fake("sb-noexec", "#!/bin/sh\nexit 0\n", 0644), 2000, &pr);
	is_str(reason_name(pr.reason), "seatbelt_probe_failed",
	       "not executable: seatbelt_probe_failed");
	ok(pr.detail != NULL && strstr(pr.detail, strerror(EACCES)) != NULL,
	   "... the detail has the errno: %s", pr.detail ? pr.detail : "(null)");

	/* exec: the fake itself is what hangs and gets killed. */
	long long t0 = now_ms();
	probe_with(fake("sb-hangs", "#!/bin/sh\nexec sleep 30\n", 0755), 300, &pr);
	long long took = now_ms() - t0;
	is_str(reason_name(pr.reason), "seatbelt_probe_failed", "hangs: seatbelt_probe_failed");
	is_str(pr.detail, "sandbox-exec did not finish in time", "... timed out");
	ok(took >= 300 && took < 5000, "the timeout is kept (%lld ms for 300)", took);

	char detail[96];
	is_str(reason_name(seatbelt_classify(ENOTDIR, 0, 0, detail, sizeof(detail))),
	       "seatbelt_missing", "ENOTDIR: missing");
	ok(seatbelt_classify(0, 0, 0, detail, sizeof(detail)) == REASON_NONE && detail[0] == '\0',
	   "status 0: available, no detail");
}

/* What the probe saw reaches the caller: getter and probe JSON. */
static void detail_reaches_the_caller(void)
{
	struct backend_probe pr;
	probe_with(fake("sb-exit5", "#!/bin/sh\nexit 5\n", 0755), 2000, &pr);
	cordon *c = cordon_new();
	is_int(cordon_probe(c), 0, "probe");
	ok(cordon_reason_detail(c) == NULL, "Landlock's probe has no detail");
	/* As decide() records an unavailable backend's answer. */
	c->dec.applied = 0;
	c->dec.reason = pr.reason;
	c->dec.detail = pr.detail;
	is_str(cordon_reason_detail(c), "sandbox-exec exited with status 5",
	       "cordon_reason_detail() has the exit status");
	char *j = cordon_probe_json(c);
	ok(j != NULL && strstr(j, "\"detail\":\"sandbox-exec exited with status 5\"") != NULL,
	   "so has the probe JSON");
	free(j);
	cordon_free(c);
	ok(cordon_reason_detail(NULL) == NULL, "NULL handle: NULL");
}

/* The NUL-separated words of a file. */
static size_t read_words(const char *path, char *buf, size_t len, const char **words, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	size_t k = 0;
	for (char *p = buf; p < buf + n && k < max; p += strlen(p) + 1)
		words[k++] = p;
	return k;
}

/* Switch a begun run to the Seatbelt backend, as macOS would have
 * chosen it, with launcher as its sandbox-exec. */
static int as_seatbelt(cordon *c, const char *launcher)
{
	launch_release(&c->launch);
	c->dec.backend = &cordon_backend_seatbelt;
	c->dec.applied = 1;
	seatbelt_coverage(&c->dec.cov);
	seatbelt_test_reset(launcher, 2000);
	return run_prepare(c);
}

/* A Unix socket bound at path (the file stays after the fd is closed). */
static void make_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || strlen(path) >= sizeof(a.sun_path))
		exit(2);
	memcpy(a.sun_path, path, strlen(path) + 1);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		exit(2);
	close(fd);
}

/* The value of -D NAME=... among the launcher's words, or NULL. */
static const char *word_param(const char **words, size_t n, const char *name)
{
	size_t k = strlen(name);
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(words[i], "-D") == 0 && strncmp(words[i + 1], name, k) == 0 &&
		    words[i + 1][k] == '=')
			return words[i + 1] + k + 1;
	return NULL;
}

/* Agent configuration below the guard's levels, in a run prepared for
 * Seatbelt: the workspace's pattern and the --allow-agent-config path are
 * parameters, and the run's gap is the narrow one while the profile holds
 * every tree, agent_config_depth_partial when it does not. */
static void below_levels(cordon *c, const char **words, size_t n, const char *opted)
{
	char *re = NULL;
	if (seatbelt_below_regex(ws, agentcfg_names, agentcfg_nnames, &re) != 0)
		exit(2);
	is_str(word_param(words, n, "AGENT_BELOW_0"), re,
	       "AGENT_BELOW_0: the workspace's pattern, whatever entry its symlink gave");
	ok(word_param(words, n, "AGENT_BELOW_1") == NULL, "... the only tree");
	free(re);
	is_str(word_param(words, n, "AGENT_ALLOW_0"), opted,
	       "AGENT_ALLOW_0: the --allow-agent-config path, allowed again");
	ok(c->dec.cov.holds_below && c->pol.held_names != NULL && !c->pol.held_depth_unexpressed,
	   "the coverage says the names are held below the levels, for every tree");
	if (!gitguard_depth_partial(c)) {
		skip("the kernel's account (fanotify, as root) holds them here: no gap to decide");
		return;
	}
	uint64_t depth = 1ull << GAP_AGENT_CONFIG_DEPTH, moved = 1ull << GAP_AGENT_CONFIG_MOVED_IN;
	ok(gitguard_depth_gaps(c) == moved,
	   "held by the profile: the gap agent_config_moved_in_partial, not "
	   "agent_config_depth_partial");
	c->pol.held_depth_unexpressed = 1;
	ok(gitguard_depth_gaps(c) == depth,
	   "a tree the profile could not hold: agent_config_depth_partial");
	c->pol.held_depth_unexpressed = 0;
	c->dec.cov.holds_below = 0;
	ok(gitguard_depth_gaps(c) == depth,
	   "a backend that does not hold them (Landlock): as before");
	c->dec.cov.holds_below = 1;
	c->dec.applied = 0;
	ok(gitguard_depth_gaps(c) == depth, "not applied: as before");
	c->dec.applied = 1;
	/* --review: no gap where apply judges the held changes; where
	 * nothing holds them (macOS: review_not_held, no review dir), the
	 * same gap as without it. */
	struct review *rv = c->rv;
	int review = c->review;
	c->review = 1;
	c->rv = NULL;
	ok(gitguard_depth_gaps(c) == moved, "--review not held (no review dir): the gap stays");
	c->rv = (struct review *)&review; /* only compared with NULL */
	ok(gitguard_depth_gaps(c) == 0, "--review held: no gap, apply judges every depth");
	c->rv = rv;
	c->review = review;
}

static void run_through_launcher(void)
{
	char log[400], link[400], frozen[400], sock[400], sock_link[400], buf[65536], out[8192];
	char later[400];
	const char *words[512];
	snprintf(log, sizeof(log), "%s/launcher.log", root);
	snprintf(link, sizeof(link), "%s/ws-link", root);
	snprintf(frozen, sizeof(frozen), "%s/frozen", ws);
	snprintf(later, sizeof(later), "%s/not-yet/conftest.py", ws);
	snprintf(sock, sizeof(sock), "%s/agent.sock", root);
	snprintf(sock_link, sizeof(sock_link), "%s/agent-link", root);
	setenv("CORDON_FAKE_LOG", log, 1);
	if (symlink(ws, link) != 0 || close(open(frozen, O_CREAT | O_WRONLY, 0644)) != 0)
		exit(2);
	make_socket(sock);
	if (symlink(sock, sock_link) != 0)
		exit(2);
	/* Records its argv, then runs what follows "--", as sandbox-exec would. */
	const char *launcher = fake("launcher",
				    "#!/bin/sh\nprintf '%s\\0' \"$@\" >\"$CORDON_FAKE_LOG\"\n"
				    "pwd -P >\"$CORDON_FAKE_LOG.cwd\"\n"
				    "while [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n",
				    0755);
	/* The run's working directory: a directory of the workspace the
	 * process is not in. */
	char cwd[400], cwd_log[450];
	snprintf(cwd, sizeof(cwd), "%s/sb-cwd", ws);
	snprintf(cwd_log, sizeof(cwd_log), "%s.cwd", log);
	if (mkdir(cwd, 0755) != 0)
		exit(2);
	/* A held name below the levels the command may write after all. */
	char deep[400], opted[450];
	snprintf(deep, sizeof(deep), "%s/deep", ws);
	snprintf(opted, sizeof(opted), "%s/.claude", deep);
	if (mkdir(deep, 0755) != 0)
		exit(2);

	cordon *c = cordon_new();
	cordon_set_workspace(c, ws);
	is_int(cordon_set_cwd(c, cwd), 0, "set_cwd");
	cordon_set_state_dir(c, state);
	cordon_set_caches(c, 0);
	cordon_add_protect(c, frozen);
	cordon_add_protect(c, later); /* does not exist: refused by name */
	cordon_add_allow_socket(c, sock);
	is_int(cordon_add_allow_agent_config(c, opted), 0, "--allow-agent-config below the levels");
	is_int(cordon_begin(c), 0, "begin: %s", cordon_last_error(c));
	/* The workspace entry and the socket as symlinks: prepare must
	 * resolve them. */
	free(c->pol.w[0].path);
	c->pol.w[0].path = strdup(link);
	ok(c->pol.nsockets == 1, "one --allow-socket path");
	free(c->pol.sockets[0]);
	c->pol.sockets[0] = strdup(sock_link);
	is_int(as_seatbelt(c, launcher), 0, "prepare: %s", cordon_last_error(c));
	/* The --protect paths, and the agent configuration's names (none of
	 * which exists here). */
	int frozen_held = 0, later_held = 0, names = 0;
	for (size_t i = 0; i < c->pol.nprot; i++) {
		const struct protect_entry *e = &c->pol.prot[i];
		frozen_held |= strcmp(e->path, frozen) == 0 && e->explicit_ && !e->absent;
		later_held |= strcmp(e->path, later) == 0 && e->explicit_ && e->absent;
		names += !e->explicit_ && e->absent;
	}
	ok(frozen_held && c->dec.cov.protects, "the protection is enforced (coverage)");
	ok(later_held && c->dec.cov.refuses_absent,
	   "an --protect path that does not exist: its creation is refused (coverage)");
	ok(names > 0, "so is the agent configuration's (%d names)", names);
	is_str(c->pol.w[0].path, link, "prepare leaves the policy as it was");
	is_str(c->pol.sockets[0], sock_link, "... its sockets too");
	ok(!(c->dec.cov.gaps & (1ull << GAP_UNIX_SOCKETS)),
	   "Unix sockets are not a gap: --allow-socket can be enforced");

	const char *argv[] = { "sh", "-c", "printf %s \"$TMPDIR\" >out; exit 7", NULL };
	cordon_proc *p;
	struct cordon_result res;
	is_int(cordon_spawn(c, argv, &p), 0, "spawn through the launcher");
	is_int(cordon_wait(p, &res), 0, "wait");
	is_int(res.exit_code, 7, "the command's exit status comes through");
	c->explain = CORDON_EXPLAIN_FULL;
	char *line = status_explain(c, &res);
	ok(line != NULL && strstr(line, "exited with status 7") != NULL &&
		   strstr(line, "EPERM \"Operation not permitted\"") != NULL &&
		   strstr(line, "EROFS") == NULL && strchr(line, '\n') == NULL,
	   "--explain=full under Seatbelt names EPERM, in one line: %s", line ? line : "(null)");
	free(line);
	c->explain = CORDON_EXPLAIN_SHORT;
	line = status_explain(c, &res);
	ok(line != NULL && strstr(line, "a write outside the writable set: EPERM") != NULL &&
		   strstr(line, "a Unix socket outside: EPERM") != NULL &&
		   strstr(line, "EROFS") == NULL && strstr(line, "EACCES") == NULL,
	   "--explain under Seatbelt: EPERM for each kind, in short: %s", line ? line : "(null)");
	free(line);

	/* The log has the launcher's arguments: the prefix after its path. */
	size_t n = read_words(log, buf, sizeof(buf), words, 512);
	const char *const *prefix = (const char *const *)c->launch.argv_prefix;
	size_t np = c->launch.nprefix;
	is_str(prefix[0], launcher, "the prefix starts with the launcher's absolute path");
	int same = n == np - 1 + 3;
	for (size_t i = 1; same && i < np; i++)
		same = strcmp(words[i - 1], prefix[i]) == 0;
	for (size_t i = 0; same && i < 3; i++)
		same = strcmp(words[np - 1 + i], argv[i]) == 0;
	ok(same, "the launcher got the prepared prefix, then the command unchanged");
	ok(n > 4 && strcmp(words[0], "-p") == 0 && strcmp(words[n - 4], "--") == 0,
	   "-p PROFILE ... -- COMMAND");
	snprintf(out, sizeof(out), "ROOT_0=%s", ws);
	int found = 0;
	for (size_t i = 0; i < n; i++)
		found |= strcmp(words[i], out) == 0;
	ok(found, "ROOT_0 is the workspace, resolved again from its symlink");
	snprintf(out, sizeof(out), "SOCKET_0=%s", sock);
	found = 0;
	for (size_t i = 0; i < n; i++)
		found |= strcmp(words[i], out) == 0;
	ok(found, "SOCKET_0 is the --allow-socket path, resolved again from its symlink");
	ok(n > 1 && strstr(words[1], "(subpath (param \"SOCKET_0\"))") != NULL,
	   "the profile opens it");
	/* Names that do not exist are ABSENT_ parameters, resolved as far as
	 * they exist (/tmp is /private/tmp on a Mac). */
	char claude[450];
	snprintf(claude, sizeof(claude), "%s/.claude", ws);
	int absent_later = 0, absent_claude = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(words[i], "-D") == 0 && strncmp(words[i + 1], "ABSENT_", 7) == 0) {
			const char *v = strchr(words[i + 1], '=');
			absent_later |= v != NULL && strcmp(v + 1, later) == 0;
			absent_claude |= v != NULL && strcmp(v + 1, claude) == 0;
		}
	ok(absent_later && absent_claude,
	   "the missing --protect path and .claude are ABSENT_ parameters");
	below_levels(c, words, n, opted);
	snprintf(out, sizeof(out), "%s/out", cwd);
	ok(file_has(out, cordon_tmpdir(c)),
	   "TMPDIR is the run's temp dir (written where the command started)");
	snprintf(out, sizeof(out), "%s\n", cwd);
	ok(file_has(cwd_log, out), "sandbox-exec starts in the run's working directory");

	/* sandbox-exec gone since the probe: the run fails and says so. */
	launch_release(&c->launch);
	snprintf(out, sizeof(out), "%s/gone/sandbox-exec", root);
	seatbelt_test_reset(out, 2000);
	(void)run_prepare(c);
	unlink(log);
	is_int(cordon_spawn(c, argv, &p), CORDON_EEXEC, "a missing launcher: CORDON_EEXEC");
	ok(strstr(cordon_last_error(c), out) != NULL, "the message names it: %s",
	   cordon_last_error(c));
	ok(access(log, F_OK) != 0, "nothing ran");
	is_int(cordon_end(c), 0, "end");
	cordon_free(c);
}

/* --review on macOS: Seatbelt can refuse a write but not redirect it, so
 * nothing holds the workspace's writes aside. auto runs without the
 * review (the gap review_not_held; the write lands; no held run), required
 * mode refuses (as on Linux without the mount layer, whose refusal
 * t0200 checks). */
static void review_on_seatbelt(void)
{
	struct decision d;
	memset(&d, 0, sizeof(d));
	d.applied = 1;
	seatbelt_coverage(&d.cov);
	is_int(review_hold_in(&d, CORDON_MODE_AUTO), REVIEW_GAP,
	       "Seatbelt's coverage, auto: --review is a gap");
	is_int(review_hold_in(&d, CORDON_MODE_REQUIRED), REVIEW_REFUSED, "... required: refused");

	char f[400], held[400];
	snprintf(f, sizeof(f), "%s/rv.txt", ws);
	snprintf(held, sizeof(held), "%s/review", state);
	const char *launcher = fake("launcher-rv",
				    "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\n"
				    "exec \"$@\"\n",
				    0755);
	for (int required = 0; required <= 1; required++) {
		const char *mode = required ? "required" : "auto";
		cordon *c = cordon_new();
		cordon_set_workspace(c, ws);
		cordon_set_state_dir(c, state);
		cordon_set_caches(c, 0);
		cordon_set_review(c, 1);
		cordon_set_mode(c, required ? CORDON_MODE_REQUIRED : CORDON_MODE_AUTO);
		if (cordon_begin(c) != 0) {
			/* Linux without the mount layer, required: refused at begin. */
			diag("%s: %s", mode, cordon_last_error(c));
			skip("begin refused here (no mount layer, required): Seatbelt's case untested");
			cordon_free(c);
			continue;
		}
		/* As macOS decides: the Seatbelt backend and its coverage, then
		 * the plan's --review part (a review dir Linux made goes). */
		launch_release(&c->launch);
		c->dec.backend = &cordon_backend_seatbelt;
		c->dec.applied = 1;
		seatbelt_coverage(&c->dec.cov);
		seatbelt_test_reset(launcher, 2000);
		enum review_hold h = review_coverage(c);
		ok(c->rv == NULL && (c->dec.cov.gaps & (1ull << GAP_REVIEW)) &&
			   !(c->dec.cov.layers & (1u << LAYER_REVIEW)),
		   "%s on Seatbelt: the gap review_not_held, no layer review, no held run", mode);
		if (required) {
			is_int(h, REVIEW_REFUSED,
			       "... required: refused (the command does not run)");
			is_int(cordon_end(c), 0, "end");
			cordon_free(c);
			continue;
		}
		is_int(h, REVIEW_GAP, "... auto: the run goes on without it");
		is_int(run_prepare(c), 0, "prepare on Seatbelt %s", cordon_last_error(c));
		const char *argv[] = { "sh", "-c", "echo landed >rv.txt", NULL };
		cordon_proc *p;
		struct cordon_result res = { 0 };
		is_int(cordon_spawn(c, argv, &p), 0, "spawn through the launcher");
		is_int(cordon_wait(p, &res), 0, "wait");
		ok(res.exit_code == 0 && file_has(f, "landed\n"),
		   "the write landed in the workspace at once");
		char *j = status_exit_json(c, &res, res.exit_code);
		ok(j != NULL && strstr(j, "\"review\":null") != NULL,
		   "the exit event holds no review (null)");
		free(j);
		is_int(cordon_end(c), 0, "end");
		cordon_free(c);
	}
	struct stat st;
	ok(stat(held, &st) != 0 || rmdir(held) == 0, "nothing held under the state dir");
}

int main(void)
{
	setup("/tmp/cordon-sb.XXXXXX");
	probe_outcomes();
	detail_reaches_the_caller();
	run_through_launcher();
	review_on_seatbelt();
	teardown();
	return done_testing();
}
