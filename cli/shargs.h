/*
 * cordon-sh's arguments, pure (unit-tested and fuzzed): what bash-shaped
 * callers pass, and the one-string form of Claude Code's
 * CLAUDE_CODE_SHELL_PREFIX.
 *
 *   cordon-sh STRING                      Claude Code's prefix: exactly one
 *                                         argument, the whole command string
 *   cordon-sh [OPTS] -c STRING [NAME [ARG...]]
 *   cordon-sh [OPTS]                      a shell reading its stdin (a
 *                                         terminal: interactive)
 * OPTS: cordon-sh's own --workspace DIR and --cd-file FILE (first; the
 * second only with -c: the command is run as `eval 'STRING' && pwd -P >|
 * 'FILE'`, Claude Code's own way, FILE passed through the run), then the
 * shell's -i -l
 * --login -e -u -x -v, -o NAME / +o NAME, --noprofile --norc, single
 * letters grouped as bash takes them (-lc, -ic, -ec). Anything else is
 * refused: a shell option cordon-sh does not know might change what runs.
 */
#ifndef CORDON_CLI_SHARGS_H
#define CORDON_CLI_SHARGS_H

#include <stddef.h>

#define SH_MAX_FLAGS 32

struct sh_args {
	const char *workspace; /* --workspace DIR */
	const char *cd_file; /* --cd-file FILE: where the final directory goes */
	/* The shell's options, each an argument to pass on (-o and its NAME
	 * are two). */
	const char *flags[SH_MAX_FLAGS];
	size_t nflags;
	const char *string; /* the command string; NULL: read stdin */
	int one_string; /* Claude Code's form: the only argument */
	char *const *rest; /* after -c STRING: $0 and the positional ones */
	size_t nrest;
	int help, version;
	char err[256];
};

/* 0, or -1 with err set. Strings point into argv. */
int sh_parse(int argc, char *const argv[], struct sh_args *a);

/* In Claude Code's string (its prefix form), the file it ends by writing
 * its final directory to:  ... && pwd -P >| DIR/claude-HEX-cwd
 * where DIR is tmpdir (the caller's TMPDIR, absolute) or /tmp. The path
 * into out (outlen bytes), or -1 when the string does not end so. Only
 * that one name, in that one directory, is ever passed: a string that
 * ends otherwise passes nothing. */
int sh_claude_cwd_file(const char *string, const char *tmpdir, char *out, size_t outlen);

#endif
