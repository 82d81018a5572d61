/* Unit tests of cordon-sh's arguments (cli/shargs.c). */
#include "shargs.h"
#include "tap.h"

#include <string.h>

#define ARGV(...) ((char *[]){ "cordon-sh", __VA_ARGS__, NULL })
/* argv up to its NULL. */
static int parse(char **argv, struct sh_args *a)
{
	int argc = 0;
	while (argv[argc] != NULL)
		argc++;
	return sh_parse(argc, argv, a);
}

/* The flags joined by spaces. */
static const char *flags(const struct sh_args *a)
{
	static char buf[256];
	buf[0] = '\0';
	for (size_t i = 0; i < a->nflags; i++) {
		if (i > 0)
			strcat(buf, " ");
		strcat(buf, a->flags[i]);
	}
	return buf;
}

static void test_forms(void)
{
	struct sh_args a;
	char **v;

	v = ARGV("source x && eval 'ls' && pwd -P >| /tmp/claude-1a2b-cwd");
	is_int(parse(v, &a), 0, "one string: Claude Code's form");
	ok(a.one_string && strcmp(a.string, v[1]) == 0 && a.nflags == 0 && a.nrest == 0,
	   "... the whole string, nothing else");

	v = ARGV("-c", "echo $0 $1", "name", "one");
	is_int(parse(v, &a), 0, "-c STRING NAME ARG");
	ok(!a.one_string && strcmp(a.string, "echo $0 $1") == 0 && a.nrest == 2 &&
		   strcmp(a.rest[0], "name") == 0 && strcmp(a.rest[1], "one") == 0,
	   "... the string, then $0 and $1");

	v = ARGV("-i", "-c", "ls");
	is_int(parse(v, &a), 0, "-i -c STRING");
	is_str(flags(&a), "-i", "... -i passed on");
	v = ARGV("-lc", "ls");
	is_int(parse(v, &a), 0, "-lc STRING (grouped)");
	ok(strcmp(flags(&a), "-l") == 0 && strcmp(a.string, "ls") == 0, "... -l and the string");
	v = ARGV("--login", "-o", "pipefail", "-ec", "ls");
	is_int(parse(v, &a), 0, "--login -o pipefail -ec");
	is_str(flags(&a), "-l -o pipefail -e", "... each passed on");
	v = ARGV("-c", "-x", "ls");
	is_int(parse(v, &a), 0, "-c then another option, as bash takes it");
	ok(strcmp(a.string, "ls") == 0 && strcmp(flags(&a), "-x") == 0, "... the string is ls");

	v = ARGV("--workspace", "/w", "-c", "ls");
	is_int(parse(v, &a), 0, "--workspace DIR first");
	is_str(a.workspace, "/w", "... its directory");
	v = ARGV("--workspace=/w", "-c", "ls");
	is_int(parse(v, &a), 0, "--workspace=DIR");
	is_str(a.workspace, "/w", "... its directory");

	is_int(parse((char *[]){ "cordon-sh", NULL }, &a), 0, "no arguments: a shell on stdin");
	ok(a.string == NULL && a.nflags == 0, "... no string");
	v = ARGV("-l");
	is_int(parse(v, &a), 0, "-l alone: a login shell on stdin");
	ok(a.string == NULL && strcmp(flags(&a), "-l") == 0, "... no string");

	v = ARGV("--cd-file", "/tmp/f", "-c", "cd x");
	is_int(parse(v, &a), 0, "--cd-file FILE -c STRING");
	ok(a.cd_file != NULL && strcmp(a.cd_file, "/tmp/f") == 0 && strcmp(a.string, "cd x") == 0,
	   "... the file and the string");
	v = ARGV("--help");
	ok(parse(v, &a) == 0 && a.help, "--help");
	v = ARGV("--version");
	ok(parse(v, &a) == 0 && a.version, "--version");
}

static void test_refusals(void)
{
	struct sh_args a;
	struct {
		char **v;
		const char *name;
	} bad[] = {
		{ ARGV("a", "b"), "two operands without -c" },
		{ ARGV("-l", "ls"), "an option and a string without -c" },
		{ ARGV("-c"), "-c without a string" },
		{ ARGV("-s", "ls"), "-s (not supported)" },
		{ ARGV("-Z", "-c", "ls"), "an unknown letter" },
		{ ARGV("-lZc", "ls"), "an unknown letter in a group" },
		{ ARGV("--rcfile", "x", "-c", "ls"), "--rcfile (reads a file of its choice)" },
		{ ARGV("--posix", "-c", "ls"), "an unknown long option" },
		{ ARGV("-o"), "-o without a name" },
		{ ARGV("--workspace"), "--workspace without a directory" },
		{ ARGV("--cd-file", "/f"), "--cd-file without -c" },
		{ ARGV("--cd-file", "/f", "cd x"), "--cd-file with the one-string form" },
		{ ARGV("--cd-file", "", "-c", "x"), "an empty --cd-file" },
		{ ARGV("--workspace", "", "-c", "x"), "an empty --workspace" },
		{ ARGV("-c", "ls", "--workspace", "/w"),
		  "--workspace after the string: an operand" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].v, &a);
		if (i == sizeof(bad) / sizeof(bad[0]) - 1) {
			ok(r == 0 && a.workspace == NULL && a.nrest == 2,
			   "--workspace after -c STRING is $0 and $1, not an option");
			continue;
		}
		ok(r == -1 && a.err[0] != '\0', "refused: %s (%s)", bad[i].name, a.err);
	}
}

static void test_claude_file(void)
{
	char out[256];
	const char *pre =
		"source /h/s.sh 2>/dev/null || true && eval 'x' < /dev/null && pwd -P >| ";
	char s[512];
	struct {
		const char *tail;
		const char *tmpdir;
		const char *want; /* NULL: none */
	} cases[] = {
		{ "/tmp/claude-1a2b-cwd", NULL, "/tmp/claude-1a2b-cwd" },
		{ "/tmp/claude-0123456789abcdef-cwd", "relative",
		  "/tmp/claude-0123456789abcdef-cwd" },
		{ "/run/t/claude-beef-cwd", "/run/t", "/run/t/claude-beef-cwd" },
		{ "/run/t/claude-beef-cwd", "/run/t/", "/run/t/claude-beef-cwd" },
		{ "/tmp/claude-beef-cwd", "/run/t", NULL },
		{ "/run/t/claude-beef-cwd", NULL, NULL },
		{ "/home/u/.bashrc", NULL, NULL },
		{ "/tmp/claude-BEEF-cwd", NULL, NULL },
		{ "/tmp/claude--cwd", NULL, NULL },
		{ "/tmp/claude-beef-cwd; rm -rf ~", NULL, NULL },
		{ "/tmp/claude-beef-cwd.x", NULL, NULL },
		{ "/tmp/sub/claude-beef-cwd", NULL, NULL },
		{ "/tmp/../home/claude-beef-cwd", NULL, NULL },
		{ "claude-beef-cwd", NULL, NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(s, sizeof(s), "%s%s", pre, cases[i].tail);
		int r = sh_claude_cwd_file(s, cases[i].tmpdir, out, sizeof(out));
		if (cases[i].want != NULL)
			ok(r == 0 && strcmp(out, cases[i].want) == 0, "cwd file found: %s",
			   cases[i].tail);
		else
			ok(r == -1, "no cwd file passed for: %s (TMPDIR %s)", cases[i].tail,
			   cases[i].tmpdir ? cases[i].tmpdir : "unset");
	}
	ok(sh_claude_cwd_file("echo hi", NULL, out, sizeof(out)) == -1, "a plain string: none");
	ok(sh_claude_cwd_file("x && pwd -P >| /tmp/claude-ab-cwd && true", NULL, out,
			      sizeof(out)) == -1,
	   "the pwd write not at the end: none");
	ok(sh_claude_cwd_file("a && pwd -P >| /tmp/claude-ab-cwd && pwd -P >| /tmp/claude-cd-cwd",
			      NULL, out, sizeof(out)) == 0 &&
		   strcmp(out, "/tmp/claude-cd-cwd") == 0,
	   "two such writes: the last one, at the end");
}

int main(void)
{
	test_forms();
	test_refusals();
	test_claude_file();
	return done_testing();
}
