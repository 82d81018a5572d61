/*
 * Unit tests for policy files and profiles (src/core/policyfile.c,
 * profiles.c) and the option table they share with the CLI (options.c):
 * the format and each of its errors, where relative paths go, how
 * sources combine, the checks on a file, the profiles, the entry points'
 * lookup and the begin-time refusal of a file a run may write.
 */
#include "handle.h"
#include "options.h"
#include "policyfile.h"
#include "tap.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int text(cordon *c, const char *t)
{
	return policy_parse_text(c, "p.policy", 1, t, strlen(t));
}

/* The text fails with a message that starts with prefix and holds want. */
static void bad(const char *t, const char *prefix, const char *want, const char *name)
{
	cordon *c = cordon_new();
	int r = text(c, t);
	const char *e = cordon_last_error(c);
	int good = r != 0 && strncmp(e, prefix, strlen(prefix)) == 0 && strstr(e, want) != NULL &&
		   strchr(e, '\n') == NULL;
	ok(good, "error: %s", name);
	if (!good)
		diag("got %d '%s', want '%s...%s'", r, e, prefix, want);
	cordon_free(c);
}

static int has_line(const cordon *c, const char *line)
{
	char *t = cordon_options_text(c);
	size_t n = strlen(line);
	int found = 0;
	for (const char *p = t; p != NULL && !found && (p = strstr(p, line)) != NULL; p += n)
		found = (p == t || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0');
	free(t);
	return found;
}

static void test_format(void)
{
	cordon *c = cordon_new();
	int r = text(c, "# a comment\n"
			"\n"
			"   \t\n"
			"  network   off  \r\n"
			"\t# an indented comment\n"
			"env\tGREETING=hello  world \n"
			"scratch-home\n"
			"allow-write /srv/x y\n"
			"cache npm,pip"); /* no final newline */
	ok(r == 0, "a file of comments, blanks, CRLF, tabs and no final newline");
	ok(c->network == CORDON_NETWORK_OFF && c->scratch_home == 1 &&
		   c->caches == (CORDON_CACHE_NPM | CORDON_CACHE_PIP),
	   "... network off, scratch home, the caches");
	ok(c->envspec.n == 1 && strcmp(c->envspec.v[0], "GREETING=hello  world") == 0,
	   "a value is the rest of the line, trimmed: inner blanks kept");
	ok(c->allow_write.n == 1 && strcmp(c->allow_write.v[0], "/srv/x y") == 0,
	   "a path with a blank in it");
	ok(text(c, "") == 0 && text(c, "\n\n# only\n") == 0, "empty and comment-only texts");
	cordon_free(c);

	bad("bogus on\n", "p.policy:1: ", "unknown option 'bogus'", "unknown option");
	bad("# c\n\nnetwork=off\n", "p.policy:3: ", "not NAME=VALUE", "NAME=VALUE");
	bad("--network off\n", "p.policy:1: ", "without its dashes", "dashes");
	bad("network\n", "p.policy:1: ", "network needs a value", "a value missing");
	bad("scratch-home yes\n", "p.policy:1: ", "scratch-home takes no value", "a flag's value");
	bad("explain loud\n", "p.policy:1: ", "bad --explain 'loud'", "explain's value");
	{
		cordon *e = cordon_new();
		is_int(text(e, "explain full\n"), 0, "explain full in a file");
		is_int(e->explain, CORDON_EXPLAIN_FULL, "... the full form");
		cordon_free(e);
	}
	bad("network \"off\"\n", "p.policy:1: ", "quotes are not special", "quotes");
	bad("allow-write '/a b'\n", "p.policy:1: ", "write it bare", "single quotes");
	bad("allow-write /a # cache\n", "p.policy:1: ", "comments are whole lines",
	    "a trailing comment");
	bad("network off\tsecond # x\n", "p.policy:1: ", "comments are whole lines",
	    "a '#' after a tab");
	bad("network bogus\n", "p.policy:1: ", "bad --network 'bogus'", "a bad value");
	bad("cache npm\ncache pip\n",
	    "p.policy:2: ", "--cache given twice (npm from p.policy:1, then pip)",
	    "a single value twice in a file");
	bad("timeout 0\n", "p.policy:1: ", "bad --timeout", "a bad number");
	bad("profile\n", "p.policy:1: ", "profile needs a name", "profile without a name");
	bad("profile nope\n", "p.policy:1: ", "unknown profile 'nope'", "an unknown profile");
	bad("policy /etc/x\n", "p.policy:1: ", "includes no other file", "policy in a file");
	bad("agent-policy\n", "p.policy:1: ", "includes no other file", "agent-policy in a file");
	static const char *const cli_only[] = { "workspace /w", "cwd /", "status-fd 3",
						"keep-fd 3" };
	for (size_t i = 0; i < sizeof(cli_only) / sizeof(cli_only[0]); i++) {
		char t[64];
		snprintf(t, sizeof(t), "%s\n", cli_only[i]);
		bad(t, "p.policy:1: ", "not allowed in a policy file", cli_only[i]);
	}
	bad("allow-write ~root/x\n", "p.policy:1: ", "only '~' and '~/' are expanded", "~user");

	char *big = malloc(POLICY_LINE_MAX + 20);
	memset(big, 'a', POLICY_LINE_MAX + 19);
	memcpy(big, "env A=", 6);
	big[POLICY_LINE_MAX + 1] = '\0';
	bad(big, "p.policy:1: ", "a line longer than 8192 bytes", "a long line");
	big[POLICY_LINE_MAX] = '\0'; /* exactly the bound: accepted */
	cordon *c2 = cordon_new();
	ok(text(c2, big) == 0 && c2->envspec.n == 1, "a line of exactly 8192 bytes");
	cordon_free(c2);
	free(big);

	cordon *c3 = cordon_new();
	r = policy_parse_text(c3, "p.policy", 1, "network off\nscr\0atch-home\n", 27);
	ok(r == CORDON_EINVAL && strcmp(cordon_last_error(c3), "p.policy:2: a NUL byte") == 0,
	   "error: a NUL byte");
	cordon_free(c3);
	char *huge = malloc(POLICY_FILE_MAX + 2);
	memset(huge, '\n', POLICY_FILE_MAX + 1);
	c3 = cordon_new();
	r = policy_parse_text(c3, "p.policy", 1, huge, POLICY_FILE_MAX + 1);
	ok(r == CORDON_EINVAL && strstr(cordon_last_error(c3), "larger than 65536 bytes") != NULL,
	   "error: a text past 64 KiB");
	is_int(policy_parse_text(c3, "p.policy", 1, huge, POLICY_FILE_MAX), 0,
	       "a text of exactly 64 KiB");
	cordon_free(c3);
	free(huge);
}

/* Relative paths in a file: against the workspace as set, else left for
 * the current directory at begin (the default workspace), never moved
 * after. ~ is $HOME. On the command line: as given. */
static void test_paths(void)
{
	cordon *c = cordon_new();
	char want[600];
	is_int(cordon_set_workspace(c, "/w"), 0, "workspace /w");
	is_int(text(c, "protect .env\ndeny-read sub/secret\nallow-write /abs\nallow-read ~/x\n"
		       "allow-socket ~\n"),
	       0, "relative, absolute and ~ paths");
	is_str(c->protect.v[0], "/w/.env", "relative: against the workspace");
	is_str(c->deny_read.v[0], "/w/sub/secret", "... in a subdirectory");
	is_str(c->allow_write.v[0], "/abs", "absolute: as it is");
	snprintf(want, sizeof(want), "%s/x", getenv("HOME"));
	is_str(c->allow_read.v[0], want, "~/x: under HOME");
	is_str(c->allow_socket.v[0], getenv("HOME"), "~: HOME");
	is_int(cordon_set_workspace(c, "/w"), 0, "the same workspace again");
	is_int(cordon_set_workspace(c, "/other"), CORDON_ESTATE, "another workspace: refused");
	ok(strstr(cordon_last_error(c), "set the workspace before loading a policy file") != NULL &&
		   strstr(cordon_last_error(c), "p.policy:1") != NULL,
	   "... naming the file's line");
	cordon_free(c);

	c = cordon_new();
	is_int(text(c, "protect .env\n"), 0, "a relative path, no workspace set");
	is_str(c->protect.v[0], ".env", "... stays relative (the current directory at begin)");
	is_int(cordon_set_workspace(c, "/w"), CORDON_ESTATE, "a workspace set afterwards: refused");
	ok(strstr(cordon_last_error(c), "against the current directory") != NULL, "... says why");
	cordon_free(c);

	c = cordon_new();
	is_int(cordon_set_workspace(c, "rel"), 0, "a relative workspace");
	is_int(text(c, "protect .env\nprotect /abs\n"), 0, "... a file");
	is_str(c->protect.v[0], "rel/.env", "... its paths under it (both against the cwd later)");
	is_int(policy_parse_text(c, "profile x", 0, "protect .git\n", 13), 0,
	       "a profile's relative path");
	is_str(c->protect.v[2], ".git", "... is not moved (profiles hold no relative path)");
	is_int(policy_parse_text(c, "profile x", 0, "profile agent\n", 14), CORDON_EINVAL,
	       "a profile that names a profile: refused (no loop)");
	cordon_free(c);

	c = cordon_new();
	is_int(text(c, "protect /a\n"), 0, "absolute paths only");
	is_int(cordon_set_workspace(c, "/w"), 0, "... do not pin the workspace");
	cordon_free(c);

	char *home = strdup(getenv("HOME"));
	setenv("HOME", "relative", 1);
	bad("allow-write ~/x\n", "p.policy:1: ", "needs HOME set to an absolute path",
	    "~ with a relative HOME");
	unsetenv("HOME");
	bad("allow-write ~\n", "p.policy:1: ", "needs HOME set to an absolute path",
	    "~ without HOME");
	setenv("HOME", home, 1);
	free(home);
	char longp[CORDON_PATH_MAX + 20];
	memset(longp, 'x', sizeof(longp));
	memcpy(longp, "protect ", 8);
	longp[CORDON_PATH_MAX + 10] = '\0';
	bad(longp, "p.policy:1: ", "a path longer than 4095 bytes", "a path too long");
}

/* Every source adds lists and flags; single values must agree. */
static void test_combine(void)
{
	cordon *c = cordon_new();
	is_int(cordon_set_option(c, "network", "off"), 0, "--network off directly");
	is_int(cordon_use_profile(c, "agent"), 0, "profile agent (network off too)");
	is_int(text(c, "protect /p\nscratch-home\nmax-memory 1024M\n"), 0, "a file");
	is_int(cordon_set_option(c, "max-memory", "1G"), 0, "1G directly: the same size");
	is_int(cordon_set_option(c, "protect", "/q"), 0, "another protect");
	ok(c->protect.n == 2 && c->scratch_home == 1 && c->max_memory == 1ULL << 30,
	   "lists add up, flags stay on, the value is the one");
	is_int(cordon_set_option(c, "network", "on"), CORDON_EINVAL, "network on afterwards");
	is_str(cordon_last_error(c),
	       "--network given twice (off, then on): a later value may not override an earlier "
	       "one; give it once",
	       "... refused, naming both");
	is_int(text(c, "max-memory 2G\n"), CORDON_EINVAL, "a file with another max-memory");
	ok(strstr(cordon_last_error(c), "p.policy:1: --max-memory given twice (1024M from "
					"p.policy:3, then 2G)") != NULL,
	   "... refused, naming the first one's line");
	is_int(cordon_use_profile(c, "install"), CORDON_EINVAL, "profile install after agent");
	ok(strstr(cordon_last_error(c), "profile install:4: --network given twice (off, then "
					"allow=@npm") != NULL,
	   "... refused: off against allow");
	is_int(c->network, CORDON_NETWORK_OFF, "the network stays off");
	cordon_free(c);

	c = cordon_new();
	is_int(text(c, "network allow=a.test\nnetwork-allow-local\n"), 0, "allow from a file");
	is_int(cordon_set_option(c, "network", "allow=b.test"), 0, "another allow list directly");
	is_int(options_check(c), 0, "the lists add up, local is with a list");
	is_int(cordon_set_option(c, "no-caches", NULL), 0, "--no-caches");
	is_int(text(c, "cache npm\n"), CORDON_EINVAL, "a file's cache list after it");
	ok(strstr(cordon_last_error(c),
		  "--cache/--no-caches given twice (--no-caches, then npm)") != NULL,
	   "... one setting");
	cordon_free(c);

	c = cordon_new();
	is_int(text(c, "network-allow-http\n"), 0, "allow-http alone in a file");
	is_int(options_check(c), CORDON_EINVAL, "... without the list: the run may not begin");
	is_int(cordon_set_option(c, "network", "allow=a.test"), 0, "the list from elsewhere");
	is_int(options_check(c), 0, "... then it may");
	cordon_free(c);
}

static void test_set_option(void)
{
	cordon *c = cordon_new();
	is_int(cordon_option_takes_value("network"), 1, "network takes a value");
	is_int(cordon_option_takes_value("scratch-home"), 0, "scratch-home does not");
	is_int(cordon_option_takes_value("explain"), 2, "explain may have one (--explain=full)");
	is_int(cordon_option_takes_value("policy"), 1, "policy does");
	is_int(cordon_option_takes_value("profile"), 1, "profile does");
	is_int(cordon_option_takes_value("agent-policy"), 0, "agent-policy does not");
	is_int(cordon_option_takes_value("bogus"), CORDON_EINVAL, "bogus is none");
	is_int(cordon_option_takes_value(NULL), CORDON_EINVAL, "NULL is none");
	is_int(cordon_option_takes_value("help"), CORDON_EINVAL, "help is the CLI's");
	is_int(cordon_set_option(c, "bogus", "x"), CORDON_EINVAL, "set an unknown option");
	is_str(cordon_last_error(c), "unknown option '--bogus'", "... named");
	is_int(cordon_set_option(c, "network", NULL), CORDON_EINVAL, "a value missing");
	is_int(cordon_set_option(c, "clean-env", "1"), CORDON_EINVAL, "a flag with a value");
	is_int(cordon_set_option(c, "explain", "1"), CORDON_EINVAL, "explain with a bad value");
	is_int(cordon_set_option(c, "profile", "verify"), 0, "profile by set_option");
	ok(c->network == CORDON_NETWORK_OFF && c->scratch_home, "... applied");
	is_int(cordon_set_option(c, "explain", NULL), 0, "explain without a value");
	is_int(c->explain, CORDON_EXPLAIN_SHORT, "... the short form");
	is_int(cordon_set_option(c, "explain", "full"), 0, "explain full");
	is_int(cordon_set_option(c, "explain", NULL), 0, "explain again, without a value");
	is_int(c->explain, CORDON_EXPLAIN_FULL, "... the fuller one holds");
	ok(has_line(c, "# from profile verify") && has_line(c, "network off") &&
		   has_line(c, "# given directly") && has_line(c, "explain"),
	   "the options text: each group under its source");
	is_int(cordon_set_option(c, "workspace", "/w"), 0, "workspace directly");
	ok(has_line(c, "# workspace /w  (command line only)"),
	   "the text marks what a file may not hold");
	is_int(cordon_set_option(c, "env", "A=x\ny"), 0, "a value with a newline");
	ok(has_line(c, "# env A=x\\x0ay  (a control character: not in a policy file)"),
	   "... written escaped, as a comment");
	cordon_free(c);
	ok(cordon_options_text(NULL) == NULL, "no handle: no text");
}

/* Each profile: exactly its options, by the same parser. */
static void test_profiles(void)
{
	const char *const *n = cordon_profile_names();
	int count = 0;
	for (; *n != NULL; n++, count++) {
		cordon *c = cordon_new();
		const char *t = cordon_profile_text(*n);
		ok(t != NULL && t[0] == '#' && cordon_use_profile(c, *n) == 0 &&
			   options_check(c) == 0,
		   "profile %s: a comment first, it loads and may run", *n);
		cordon_free(c);
	}
	is_int(count, 4, "four profiles");
	ok(cordon_profile_text("nope") == NULL && cordon_profile_text(NULL) == NULL,
	   "no such profile: NULL");
	cordon *c = cordon_new();
	is_int(cordon_use_profile(c, "agent"), 0, "agent");
	ok(c->network == CORDON_NETWORK_OFF && c->scratch_home &&
		   c->caches == CORDON_CACHE_DEFAULT && c->mode == CORDON_MODE_AUTO &&
		   c->protect.n == 0 && c->allow_write.n == 0,
	   "agent: network off, a scratch home, nothing else");
	cordon_free(c);
	c = cordon_new();
	is_int(cordon_use_profile(c, "install"), 0, "install");
	ok(c->network == CORDON_NETWORK_ALLOW && !c->scratch_home &&
		   c->caches == CORDON_CACHE_DEFAULT &&
		   has_line(c, "network allow=@npm,@pypi,@crates,@go,@github"),
	   "install: the registries through the proxy, the default caches");
	cordon_free(c);
	c = cordon_new();
	is_int(cordon_use_profile(c, "verify"), 0, "verify");
	ok(c->network == CORDON_NETWORK_OFF && c->scratch_home,
	   "verify: network off, scratch home");
	cordon_free(c);
	c = cordon_new();
	is_int(cordon_use_profile(c, "default"), 0, "default");
	ok(c->network == CORDON_NETWORK_ON && !c->scratch_home && c->opts->log.n == 0,
	   "default: nothing");
	is_int(cordon_use_profile(c, "nope"), CORDON_EINVAL, "an unknown profile");
	is_int(options_check(c), CORDON_EINVAL, "... and the handle refuses to begin");
	ok(strstr(cordon_last_error(c), "failed to load (unknown profile 'nope'") != NULL,
	   "... saying why");
	cordon_free(c);
}

static void write_file(const char *path, const char *t, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, t, strlen(t)) != (ssize_t)strlen(t) || fchmod(fd, mode) != 0)
		exit(2);
	close(fd);
}

/* A file's own checks, at load. */
static void test_files(void)
{
	char p[400], q[400];
	snprintf(p, sizeof(p), "%s/a.policy", outside);
	write_file(p, "network off\nprotect .env\n", 0644);
	cordon *c = cordon_new();
	is_int(cordon_load_policy(c, p), 0, "a file of the caller's, 0644");
	ok(c->network == CORDON_NETWORK_OFF && c->opts->sources.n == 2 &&
		   strcmp(c->opts->sources.v[0], "file") == 0 &&
		   strcmp(c->opts->sources.v[1], p) == 0,
	   "... applied, its path kept for the start event");
	cordon_free(c);

	c = cordon_new();
	is_int(cordon_load_policy(c, "../outside/a.policy"), 0, "a relative file name");
	ok(c->opts->inputs.n == 2 && strcmp(c->opts->inputs.v[0], "/") > 0 &&
		   strstr(c->opts->inputs.v[0], "/ws/../outside/a.policy") != NULL,
	   "... kept absolute for the check at begin");
	cordon_free(c);

	static const struct {
		mode_t mode;
		const char *want;
	} modes[] = { { 0664, "writable by its group or others (mode 664)" },
		      { 0646, "writable by its group or others (mode 646)" } };
	for (size_t i = 0; i < 2; i++) {
		write_file(p, "network off\n", modes[i].mode);
		c = cordon_new();
		is_int(cordon_load_policy(c, p), CORDON_EREFUSED, "mode %03o refused",
		       (unsigned)modes[i].mode);
		ok(strstr(cordon_last_error(c), modes[i].want) != NULL, "... saying why");
		cordon_free(c);
	}
	write_file(p, "network off\n", 0600);
	snprintf(q, sizeof(q), "%s/link.policy", outside);
	if (link(p, q) != 0)
		exit(2);
	c = cordon_new();
	is_int(cordon_load_policy(c, p), CORDON_EREFUSED, "a file with two hard links");
	ok(strstr(cordon_last_error(c), "has 2 hard links") != NULL, "... refused");
	cordon_free(c);
	unlink(q);

	c = cordon_new();
	is_int(cordon_load_policy(c, "/dev/null"), CORDON_EINVAL, "a device");
	is_str(cordon_last_error(c), "/dev/null: not a regular file", "... not a regular file");
	cordon_free(c);
	c = cordon_new();
	is_int(cordon_load_policy(c, outside), CORDON_EINVAL, "a directory");
	cordon_free(c);
	c = cordon_new();
	is_int(cordon_load_policy(c, "missing.policy"), CORDON_EINVAL, "a missing file");
	ok(strstr(cordon_last_error(c), "cannot read the policy file missing.policy") != NULL,
	   "... named");
	is_int(cordon_load_policy(c, ""), CORDON_EINVAL, "an empty name");
	cordon_free(c);

	char *big = malloc(POLICY_FILE_MAX + 2);
	memset(big, '#', POLICY_FILE_MAX + 1);
	big[POLICY_FILE_MAX + 1] = '\0';
	write_file(p, big, 0600);
	free(big);
	c = cordon_new();
	is_int(cordon_load_policy(c, p), CORDON_EINVAL, "a file past 64 KiB");
	ok(strstr(cordon_last_error(c), "larger than 65536 bytes") != NULL, "... refused");
	cordon_free(c);

	write_file(p, "network off\n", 0600);
	if (geteuid() == 0 && chown(p, 65534, 65534) == 0) {
		c = cordon_new();
		is_int(cordon_load_policy(c, p), CORDON_EREFUSED, "a file of another user");
		ok(strstr(cordon_last_error(c), "owned by uid 65534, neither you nor root") != NULL,
		   "... refused");
		cordon_free(c);
	} else {
		skip("a file of another user: needs root to give one away");
		skip("a file of another user: needs root to give one away");
	}
	unlink(p);
}

/* The entry points' lookup: the environment, the user's file, the
 * profile agent. */
static void test_agent_policy(void)
{
	char dir[400], p[450];
	snprintf(dir, sizeof(dir), "%s/xdgconf", root);
	mkdir(dir, 0755);
	setenv("XDG_CONFIG_HOME", dir, 1);
	unsetenv("CORDON_PROFILE");
	unsetenv("CORDON_POLICY");

	cordon *c = cordon_new();
	is_int(cordon_use_agent_policy(c), 0, "nothing set, no user file");
	ok(c->opts->sources.n == 2 && strcmp(c->opts->sources.v[1], "agent") == 0 &&
		   c->network == CORDON_NETWORK_OFF,
	   "... the profile agent");
	cordon_free(c);

	snprintf(p, sizeof(p), "%s/cordon", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cordon/agent.policy", dir);
	write_file(p, "profile verify\nmax-procs 100\n", 0644);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), 0, "a user file");
	ok(c->opts->sources.n == 4 && strcmp(c->opts->sources.v[1], p) == 0 &&
		   strcmp(c->opts->sources.v[3], "verify") == 0 && c->max_procs == 100,
	   "... it, not the profile agent");
	cordon_free(c);

	write_file(p, "network maybe\n", 0644);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), CORDON_EINVAL, "a bad user file");
	ok(options_check(c) == CORDON_EINVAL, "... fails closed: the run may not begin");
	cordon_free(c);

	setenv("CORDON_PROFILE", "install", 1);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), 0, "CORDON_PROFILE=install");
	ok(c->network == CORDON_NETWORK_ALLOW && c->opts->sources.n == 2,
	   "... only it: the user file is not read");
	cordon_free(c);
	setenv("CORDON_PROFILE", "verify,nope", 1);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), CORDON_EINVAL, "CORDON_PROFILE with an unknown name");
	cordon_free(c);
	setenv("CORDON_PROFILE", "verify,", 1);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), CORDON_EINVAL, "CORDON_PROFILE with an empty name");
	cordon_free(c);
	unsetenv("CORDON_PROFILE");

	setenv("CORDON_POLICY", "rel.policy", 1);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), CORDON_EINVAL, "CORDON_POLICY relative");
	ok(strstr(cordon_last_error(c), "CORDON_POLICY must be an absolute path") != NULL,
	   "... refused");
	cordon_free(c);
	snprintf(p, sizeof(p), "%s/env.policy", outside);
	write_file(p, "max-procs 7\n", 0600);
	setenv("CORDON_POLICY", p, 1);
	setenv("CORDON_PROFILE", "verify", 1);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), 0, "CORDON_POLICY and CORDON_PROFILE");
	ok(c->max_procs == 7 && c->scratch_home && c->opts->sources.n == 4, "... both");
	cordon_free(c);
	setenv("CORDON_POLICY", "", 1);
	setenv("CORDON_PROFILE", "", 1);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), CORDON_EINVAL, "both empty: the (bad) user file");
	cordon_free(c);
	unsetenv("CORDON_POLICY");
	unsetenv("CORDON_PROFILE");
	setenv("XDG_CONFIG_HOME", "relative", 1);
	snprintf(p, sizeof(p), "%s/.config", getenv("HOME"));
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.config/cordon", getenv("HOME"));
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.config/cordon/agent.policy", getenv("HOME"));
	write_file(p, "max-procs 9\n", 0600);
	c = cordon_new();
	is_int(cordon_use_agent_policy(c), 0, "a relative XDG_CONFIG_HOME: ~/.config");
	is_int(c->max_procs, 9, "... its file");
	cordon_free(c);
	unsetenv("XDG_CONFIG_HOME");
}

/* At begin: a policy file in a tree the run may write is refused. */
static void test_begin_refuses(void)
{
	char p[400], l[400];
	snprintf(p, sizeof(p), "%s/in.policy", ws);
	write_file(p, "max-procs 50\n", 0600);
	cordon *c = cordon_new();
	cordon_set_state_dir(c, state);
	is_int(cordon_load_policy(c, "in.policy"), 0, "a file in the workspace loads");
	is_int(cordon_begin(c), CORDON_EREFUSED, "... but the run does not begin");
	ok(strstr(cordon_last_error(c), "lies in a tree a confined run may write") != NULL,
	   "... saying why");
	cordon_free(c);

	snprintf(p, sizeof(p), "%s/out.policy", outside);
	write_file(p, "max-procs 50\n", 0600);
	snprintf(l, sizeof(l), "%s/link.policy", ws);
	if (symlink(p, l) != 0)
		exit(2);
	c = cordon_new();
	cordon_set_state_dir(c, state);
	is_int(cordon_load_policy(c, l), 0, "a symlink in the workspace to a file outside");
	is_int(cordon_begin(c), CORDON_EREFUSED, "... refused at begin");
	ok(strstr(cordon_last_error(c), "reached through a symlink") != NULL, "... saying why");
	cordon_free(c);

	c = cordon_new();
	cordon_set_state_dir(c, state);
	cordon_set_mode(c, CORDON_MODE_OFF);
	is_int(cordon_load_policy(c, l), 0, "the same with --sandbox off");
	is_int(cordon_begin(c), 0, "... begins: nothing is confined, nothing to poison");
	cordon_end(c);
	cordon_free(c);
}

int main(void)
{
	setup("/tmp/cordon-policyfile.XXXXXX");
	test_format();
	test_paths();
	test_combine();
	test_set_option();
	test_profiles();
	test_files();
	test_agent_policy();
	test_begin_refuses();
	teardown();
	return done_testing();
}
