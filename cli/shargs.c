#include "shargs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(struct sh_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct sh_args *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int flag(struct sh_args *a, const char *f)
{
	if (a->nflags == SH_MAX_FLAGS)
		return fail(a, "too many shell options (at most %d)", SH_MAX_FLAGS);
	a->flags[a->nflags++] = f;
	return 0;
}

/* One grouped argument, -abc: each letter its own flag; c marks the
 * command string's form. The letters as static strings. */
static int letters(struct sh_args *a, const char *arg, int *cmd)
{
	static const char known[] = "ilexuv";
	static const char *const as_flag[] = { "-i", "-l", "-e", "-x", "-u", "-v" };
	for (const char *p = arg + 1; *p != '\0'; p++) {
		if (*p == 'c') {
			*cmd = 1;
			continue;
		}
		const char *k = strchr(known, *p);
		if (k == NULL)
			return fail(a,
				    "unsupported shell option -%c in '%.64s' (cordon-sh takes -c, "
				    "-i, -l, -e, -u, -x, -v, -o NAME)",
				    *p, arg);
		if (flag(a, as_flag[k - known]) != 0)
			return -1;
	}
	return 0;
}

/* The shell's options from argv[*i] on; *i left at the first operand. */
static int shell_options(struct sh_args *a, int argc, char *const argv[], int *i, int *cmd)
{
	for (; *i < argc; (*i)++) {
		const char *arg = argv[*i];
		if (strcmp(arg, "--") == 0 || strcmp(arg, "-") == 0) {
			(*i)++;
			return 0;
		}
		if (arg[0] != '-' && arg[0] != '+')
			return 0;
		if (strcmp(arg, "-o") == 0 || strcmp(arg, "+o") == 0) {
			if (*i + 1 >= argc)
				return fail(a, "%s needs an option name", arg);
			if (flag(a, arg) != 0 || flag(a, argv[++*i]) != 0)
				return -1;
		} else if (strcmp(arg, "--login") == 0) {
			if (flag(a, "-l") != 0)
				return -1;
		} else if (strcmp(arg, "--noprofile") == 0 || strcmp(arg, "--norc") == 0) {
			if (flag(a, arg) != 0)
				return -1;
		} else if (arg[0] == '-' && arg[1] != '-' && arg[1] != '\0') {
			if (letters(a, arg, cmd) != 0)
				return -1;
		} else {
			return fail(a, "unsupported shell option '%.64s'", arg);
		}
	}
	return 0;
}

/* cordon-sh's own options, first: --workspace DIR, --help, --version. */
static int own_options(struct sh_args *a, int argc, char *const argv[], int *i)
{
	for (; *i < argc; (*i)++) {
		const char *arg = argv[*i];
		if (strcmp(arg, "--help") == 0) {
			a->help = 1;
		} else if (strcmp(arg, "--version") == 0) {
			a->version = 1;
		} else if (strncmp(arg, "--workspace=", 12) == 0) {
			a->workspace = arg + 12;
		} else if (strcmp(arg, "--workspace") == 0 || strcmp(arg, "--cd-file") == 0) {
			if (*i + 1 >= argc)
				return fail(a, "%s needs a path", arg);
			if (arg[2] == 'w')
				a->workspace = argv[++*i];
			else
				a->cd_file = argv[++*i];
		} else {
			break;
		}
		if ((a->workspace != NULL && a->workspace[0] == '\0') ||
		    (a->cd_file != NULL && a->cd_file[0] == '\0'))
			return fail(a, "empty %s", arg);
	}
	return 0;
}

int sh_parse(int argc, char *const argv[], struct sh_args *a)
{
	int i = 1, cmd = 0;
	memset(a, 0, sizeof(*a));
	if (own_options(a, argc, argv, &i) != 0)
		return -1;
	if (a->help || a->version)
		return 0;
	if (shell_options(a, argc, argv, &i, &cmd) != 0)
		return -1;
	int operands = argc - i;
	if (a->cd_file != NULL && !cmd)
		return fail(a, "--cd-file needs -c STRING");
	if (cmd) {
		if (operands == 0)
			return fail(a, "-c needs a command string");
		a->string = argv[i];
		a->rest = argv + i + 1;
		a->nrest = (size_t)(operands - 1);
		return 0;
	}
	if (operands == 0)
		return 0; /* a shell reading stdin */
	if (operands > 1 || a->nflags > 0)
		return fail(a, "without -c, cordon-sh takes one command string and nothing else "
			       "(Claude Code's form); a script file is run as 'cordon-sh -c "
			       "\"bash FILE\"'");
	a->string = argv[i];
	a->one_string = 1;
	return 0;
}

int sh_claude_cwd_file(const char *string, const char *tmpdir, char *out, size_t outlen)
{
	static const char tail[] = " && pwd -P >| ";
	const char *at = NULL;
	for (const char *p = strstr(string, tail); p != NULL; p = strstr(p + 1, tail))
		at = p;
	if (at == NULL)
		return -1;
	const char *path = at + strlen(tail);
	const char *base = strrchr(path, '/');
	size_t dirlen = base != NULL ? (size_t)(base - path) : 0;
	const char *dir = tmpdir != NULL && tmpdir[0] == '/' ? tmpdir : "/tmp";
	size_t want = strlen(dir);
	while (want > 1 && dir[want - 1] == '/')
		want--;
	if (base == NULL || dirlen != want || strncmp(path, dir, want) != 0)
		return -1;
	/* claude-HEX-cwd, and nothing after it. */
	base++;
	size_t hex = strncmp(base, "claude-", 7) == 0 ? strspn(base + 7, "0123456789abcdef") : 0;
	if (hex == 0 || hex > 64 || strcmp(base + 7 + hex, "-cwd") != 0)
		return -1;
	if (strcspn(path, " \t\n'\"\\$`;&|<>(){}*?[]~") != strlen(path))
		return -1;
	if (snprintf(out, outlen, "%s", path) >= (int)outlen)
		return -1;
	return 0;
}
