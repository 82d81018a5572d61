/*
 * cordon-sh: a shell-shaped cordon. `cordon-sh STRING` (Claude Code's
 * CLAUDE_CODE_SHELL_PREFIX), `cordon-sh -c STRING` ($SHELL-style callers)
 * and a bare `cordon-sh` (a terminal) run bash confined: the workspace
 * from entry.c's rule, the options of the entry points (entry.c), bash by
 * absolute path. Claude Code's string ends by writing its final directory
 * to a file in the machine's temp dir: that file is passed through the run
 * (--pass-file), and checked after it before Claude reads it; --cd-file
 * FILE does the same for a caller that names its file (cordon hook's line
 * for Claude Code).
 */
#include "agentwatch.h"
#include "entry.h"
#include "hook.h"
#include "path.h"
#include "runcmd.h"
#include "shargs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: cordon-sh STRING                    run STRING with bash, confined\n"
	"       cordon-sh [OPTS] -c STRING [NAME [ARG...]]\n"
	"       cordon-sh [OPTS]                    a confined shell reading stdin\n"
	"\n"
	"OPTS: --workspace DIR (first), then bash's -i -l --login -e -u -x -v -o NAME.\n"
	"The workspace: --workspace, else CORDON_WORKSPACE, else the agent's project\n"
	"dir (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR) holding the current dir, else\n"
	"the current dir. Sandbox mode required unless the options say otherwise.\n"
	"See cordon-sh(1). Exit status: the command's; 125 when cordon could not run it.\n";

#define die(...)                                  \
	do {                                      \
		cli_msg("cordon: ", __VA_ARGS__); \
		exit(CLI_EXIT_CORDON);            \
	} while (0)

/* bash, by absolute path (no PATH lookup before the run), else sh. */
static const char *shell_path(void)
{
	static const char *const shells[] = { "/bin/bash", "/usr/bin/bash", "/bin/sh" };
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (access(shells[i], X_OK) == 0)
			return shells[i];
	return NULL;
}

/* With --cd-file, the string the shell runs: the command as Claude Code
 * runs it, then its final directory into the file. Caller frees. */
static char *cd_script(const struct sh_args *a)
{
	struct jbuf b = { 0 };
	jb_raw(&b, "eval ");
	hook_quote(&b, a->string, strlen(a->string));
	jb_raw(&b, " && pwd -P >| ");
	hook_quote(&b, a->cd_file, strlen(a->cd_file));
	char *s = jb_finish(&b);
	if (s == NULL)
		die("out of memory");
	return s;
}

/* The shell's argv: the shell, its options, then -c STRING (with
 * --cd-file, script: its own string) and the rest. */
static const char **shell_argv(const char *shell, const struct sh_args *a, const char *script)
{
	const char **v = calloc(a->nflags + a->nrest + 4, sizeof(*v));
	size_t n = 0;
	if (v == NULL)
		die("out of memory");
	v[n++] = shell;
	for (size_t i = 0; i < a->nflags; i++)
		v[n++] = a->flags[i];
	if (a->string != NULL) {
		v[n++] = "-c";
		v[n++] = script != NULL ? script : a->string;
	}
	for (size_t i = 0; i < a->nrest; i++)
		v[n++] = a->rest[i];
	return v;
}

/* What Claude Code reads as its next directory must lie in the workspace:
 * what the command left in the file is kept when it names a directory
 * there (its physical path, as pwd -P writes it), else the file names the
 * workspace. A file the command did not write is left as it is (none, if
 * the run made it: then Claude keeps its directory). This runs unconfined,
 * on a name a command may have had a hand in: the file is opened once,
 * never through a symlink, and written through that fd only when it is
 * the caller's regular file with one link (a second name could be a file
 * outside: a hard link made before the run, which the run then refused:
 * left as it is); anything but a regular file at the name is unlinked
 * (the name only), so the agent finds no file and keeps its directory. */
static void check_cwd_file(const char *path, const char *ws)
{
	char buf[PATH_MAX + 2], real[PATH_MAX];
	struct stat st;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return;
	int ok = fd >= 0 && fstat(fd, &st) == 0;
	if (!ok || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != geteuid()) {
		if (fd >= 0)
			close(fd);
		if (!ok || !S_ISREG(st.st_mode))
			(void)unlink(path); /* a symlink, a FIFO...: the name only */
		return;
	}
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n == 0) { /* empty, as the command left it */
		close(fd);
		return;
	}
	if (n > 0) {
		buf[n] = '\0';
		if (buf[n - 1] == '\n')
			buf[--n] = '\0';
		if ((size_t)n == strlen(buf) && buf[0] == '/' && realpath(buf, real) != NULL &&
		    strcmp(real, buf) == 0 && path_within(ws, real)) {
			close(fd);
			return;
		}
	}
	/* Not a directory of the workspace: the file names the workspace. */
	size_t wl = strlen(ws);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, ws, wl, 0) != (ssize_t)wl ||
	    pwrite(fd, "\n", 1, (off_t)wl) != 1)
		cli_msg("cordon: ", "cannot write %s: %s", path, strerror(errno));
	close(fd);
}

/* The run ends with the agent that started cordon-sh (agentwatch.h).
 * An agent already gone refuses the run; a chain of parents that cannot
 * be read is said once, and the run goes on without the watch. */
static void watch_agent(void)
{
	char name[64];
	pid_t agent = agent_find(getpid(), name, sizeof(name));
	if (agent < 0) {
		cli_msg("cordon: warning: ",
			"cordon-sh: cannot read which process started it: the run will not end "
			"when its agent does");
		return;
	}
	if (agent > 0 && agent_watch(agent) != 0) {
		if (errno == ESRCH)
			die("cordon-sh: the agent that started it (pid %ld, %s) is gone",
			    (long)agent, name);
		die("cordon-sh: cannot watch its agent (pid %ld, %s): %s", (long)agent, name,
		    strerror(errno));
	}
}

int main(int argc, char *argv[])
{
	struct sh_args a;
	char ws[PATH_MAX], here[PATH_MAX], pass[PATH_MAX], err[700];

	cli_sanitize_std_fds();
	if (sh_parse(argc, argv, &a) != 0)
		die("cordon-sh: %s", a.err);
	if (a.help || a.version) {
		if (a.help)
			fputs(usage, stdout);
		else
			printf("cordon-sh %s\n", cordon_version());
		return 0;
	}
	const char *shell = shell_path();
	if (shell == NULL)
		die("cordon-sh: no shell at /bin/bash, /usr/bin/bash or /bin/sh");
	char *script = a.cd_file != NULL ? cd_script(&a) : NULL;
	const char **sv = shell_argv(shell, &a, script);
	/* Always a run of its own, even where the environment says this
	 * process is inside one already: the environment is the caller's
	 * (an agent loads a workspace's .env into its own), and no kernel
	 * interface tells a process that it is confined. */
	const char *projects[] = { getenv("CLAUDE_PROJECT_DIR"), getenv("GEMINI_PROJECT_DIR") };
	const char *configured = a.workspace != NULL ? a.workspace : getenv("CORDON_WORKSPACE");
	if (entry_workspace(configured, projects, 2, getcwd(here, sizeof(here)), ws, sizeof(ws),
			    err, sizeof(err)) != 0)
		die("cordon-sh: %s", err);
	cordon *c = cordon_new();
	if (c == NULL)
		die("out of memory");
	if (entry_configure(c, ws, err, sizeof(err)) != 0)
		die("%s", err);
	cordon_set_foreground(c, 1);
	cordon_set_reap_all(c, 1);
	watch_agent();
	int passing = a.one_string &&
		      sh_claude_cwd_file(a.string, getenv("TMPDIR"), pass, sizeof(pass)) == 0;
	if (a.cd_file != NULL) {
		if (snprintf(pass, sizeof(pass), "%s", a.cd_file) >= (int)sizeof(pass))
			die("cordon-sh: --cd-file is too long");
		passing = 1;
	}
	if (passing && cordon_add_pass_file(c, pass) != 0)
		die("%s", cordon_last_error(c));
	int rc = cli_run(c, sv);
	if (passing)
		check_cwd_file(pass, ws);
	free(sv);
	free(script);
	return rc;
}
