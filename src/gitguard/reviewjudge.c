/*
 * The guards' judgement of a review run's held changes, before cordon
 * apply lands them: what the git guard or the agent-config guard would
 * have moved aside at the end of a run that wrote the workspace itself
 * never lands. It judges each held change on its own, from its path and
 * its held bytes (the run is over: there is no start to compare with),
 * and so is at least as strict as the guards:
 *
 *   - agent configuration: a held change that makes or changes a name of
 *     the agent-config guard (.claude, .mcp.json, .gemini, .codex,
 *     .cursor, .vscode, .env...) at any depth, or anything below one;
 *   - git: in a ".git" directory (also its modules/ and worktrees/), a
 *     hook (anything in hooks/ but a regular *.sample file), a config or
 *     config.worktree with an entry git does not write itself (one the
 *     real file already had is kept), commondir, info/attributes; a ".git"
 *     file (it names the repository git uses); a config beside a HEAD
 *     (a bare repository git would find there).
 *
 * Removing any of them is never refused: nothing is planted. A setuid or
 * setgid file or directory never lands (where the seccomp layer is
 * missing, a run could have made one in its upper dir).
 */
#include "reviewjudge.h"
#include "agentcfg.h"
#include "gitfmt.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JUDGE_FILE_MAX (4u << 20)

/* The first component of p (a relative path) is name. */
static int first_is(const char *p, const char *name)
{
	size_t n = strlen(name);
	return strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static int agent_name_first(const char *p)
{
	for (size_t k = 0; k < agentcfg_nnames; k++)
		if (first_is(p, agentcfg_names[k]))
			return 1;
	return 0;
}

/* rel at or below a name of the guard's, at any depth: a run's guard
 * holds the levels an agent reads at its start, but an agent also finds
 * configuration deeper (Claude Code loads the .claude/skills of a
 * directory holding a file it reads), and apply, which goes over the
 * changes anyway, can hold them all at no extra cost. */
static const char *agent_config(const char *rel)
{
	static const char why[] = "agent configuration: an agent or editor runs what it names "
				  "(the agent-config guard)";
	for (const char *p = rel;; p++) {
		if (agent_name_first(p))
			return why;
		p = strchr(p, '/');
		if (p == NULL)
			return NULL;
	}
}

/* The whole of fd (at most JUDGE_FILE_MAX bytes), NUL-terminated. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	while (buf != NULL) {
		ssize_t r = pread(fd, buf + n, cap - n, (off_t)n);
		if (r < 0) {
			free(buf);
			return NULL;
		}
		n += (size_t)r;
		if (r == 0)
			break;
		if (n == cap) {
			char *nb = cap < JUDGE_FILE_MAX ? realloc(buf, cap * 2 + 1) : NULL;
			if (nb == NULL) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf != NULL) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

struct known {
	const char *real;
	size_t rlen;
};

struct wanted {
	const char *entry;
};

static int same_entry(void *ctx, const char *entry, int safe)
{
	(void)safe;
	return strcmp(((const struct wanted *)ctx)->entry, entry) == 0 ? 2 : 0;
}

/* An entry git writes itself, or one the real file has already. */
static int entry_known(void *ctx, const char *entry, int safe)
{
	const struct known *k = ctx;
	struct wanted w = { entry };
	if (safe)
		return 0;
	if (k->real != NULL &&
	    gitfmt_config_entries(k->real, k->rlen, same_entry, &w, NULL, NULL) == 2)
		return 0;
	return GITFMT_UNSAFE;
}

/* core.worktree: never from a held config (the guard checks its target
 * against the run's writable set, which apply does not have). */
static int no_worktree(void *ctx, const char *value)
{
	(void)ctx;
	(void)value;
	return 0;
}

static const char *config_verdict(int held_fd, int real_fd)
{
	size_t hlen = 0, rlen = 0;
	char *held = held_fd >= 0 ? slurp(held_fd, &hlen) : NULL;
	char *real = real_fd >= 0 ? slurp(real_fd, &rlen) : NULL;
	struct known k = { real, rlen };
	int ok = held != NULL && gitfmt_config_entries(held, hlen, entry_known, &k, no_worktree,
						       NULL) == GITFMT_SAFE;
	free(held);
	free(real);
	return ok ? NULL
		  : "a git config with an entry git does not write itself (a program git "
		    "would run: the git guard)";
}

/* The last component of p. */
static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s != NULL ? s + 1 : p;
}

/* Inside a ".git" directory: in, the path below it. */
static const char *in_git_dir(const char *rel, int type, const struct judge_in *j)
{
	const char *name = base_of(rel);
	char hooks[] = "hooks/";
	for (const char *s = rel; (s = strstr(s, hooks)) != NULL; s++)
		if (s == rel || s[-1] == '/') {
			size_t n = strlen(name);
			if (s[6] == '\0' ||
			    (type == 'f' && n > 7 && strcmp(name + n - 7, ".sample") == 0 &&
			     strchr(s + 6, '/') == NULL))
				return NULL;
			return "a git hook: git runs it (the git guard)";
		}
	if (strcmp(rel, "hooks") == 0 && type != 'd')
		return "a git hooks directory that is not one: the git guard";
	if (strcmp(name, "commondir") == 0)
		return "a git commondir: it moves where git reads its config (the git guard)";
	if (strcmp(name, "attributes") == 0 && strstr(rel, "info/attributes") != NULL)
		return "git attributes: they turn filters on (the git guard)";
	if (strcmp(name, "config") == 0 || strcmp(name, "config.worktree") == 0)
		return type == 'f' ? config_verdict(j->held_fd, j->real_fd)
				   : "a git config that is not a file: the git guard";
	return NULL;
}

const char *reviewjudge(const char *rel, const struct judge_in *j)
{
	if (j->kind == 'd')
		return NULL; /* a removal plants nothing */
	if ((j->type == 'f' || j->type == 'd') && (j->mode & 06000) != 0)
		return "a setuid or setgid file (the seccomp layer refuses to make one)";
	const char *why = agent_config(rel);
	if (why != NULL)
		return why;
	/* The first ".git" component: a ".git" file, or what lies in it. */
	for (size_t at = 0;;) {
		const char *comp = rel + at;
		size_t len = strcspn(comp, "/");
		if (len == 4 && strncmp(comp, ".git", 4) == 0) {
			if (comp[4] == '\0')
				return j->type == 'd' ? NULL
						      : "a .git file: it names the repository git "
							"uses (the git guard)";
			return in_git_dir(comp + 5, j->type, j);
		}
		if (comp[len] == '\0')
			break;
		at += len + 1;
	}
	if (strcmp(base_of(rel), "config") == 0 && j->beside_head)
		return j->type == 'f' ? config_verdict(j->held_fd, j->real_fd)
				      : "a git config that is not a file: the git guard";
	return NULL;
}
