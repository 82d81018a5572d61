#include "hookmain.h"
#include "entry.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void block(enum hook_agent a, struct hook_answer *ans, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void block(enum hook_agent a, struct hook_answer *ans, const char *fmt, ...)
{
	char reason[600];
	int n = snprintf(reason, sizeof(reason), "cordon: blocked: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason + n, sizeof(reason) - (size_t)n, fmt, ap);
	va_end(ap);
	hook_block(a, reason, ans);
}

/* The workspace for call (entry.c's rule): the agent's project dirs are
 * its variables, and for Cursor the roots the JSON names. Codex names no
 * project, and its JSON's cwd follows the workdir the model gives
 * exec_command (a parent of the project, anywhere): for Codex the cwd is
 * the hook's own, which Codex starts in the session's directory. */
static int call_workspace(const struct hook_env *env, const struct hook_call *call, char *ws,
			  size_t wslen, char *err, size_t errlen)
{
	const char *projects[2 + sizeof(call->roots) / sizeof(call->roots[0])];
	size_t n = 0;
	for (size_t i = 0; i < 2; i++)
		projects[n++] = env->projects[i];
	for (size_t i = 0; i < call->nroots; i++)
		projects[n++] = call->roots[i];
	int model_cwd = hook_agent_parse(env->agent) == HOOK_CODEX;
	const char *cwd = call->cwd != NULL && !model_cwd ? call->cwd : env->cwd;
	return entry_workspace(env->workspace, projects, n, cwd, ws, wslen, err, errlen);
}

/* The options, and in required mode whether confinement works here. 0,
 * or -1 with the reason in err. */
static int check_options(const struct hook_env *env, const char *ws, char *err, size_t errlen)
{
	cordon *c = cordon_new();
	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int r = entry_configure(c, ws, err, errlen);
	if (r == 0 && env->probe) {
		if (cordon_probe(c) != 0) {
			snprintf(err, errlen, "%s", cordon_last_error(c));
			r = -1;
		} else if (!cordon_applied(c) && entry_mode(c) != NULL &&
			   strcmp(entry_mode(c), "required") == 0) {
			const char *why =
				cordon_cause(c) != NULL ? cordon_cause(c) : cordon_reason(c);
			snprintf(err, errlen,
				 "confinement is not available here (%s: %s) and the sandbox mode "
				 "is required",
				 why, cordon_reason_text(why));
			r = -1;
		}
	}
	cordon_free(c);
	return r;
}

/* What stops the call, in err; 0 when nothing does. */
static int vet_call(const struct hook_env *env, const struct hook_call *call, char *ws,
		    size_t wslen, char *err, size_t errlen)
{
	const struct jp_node *cmd = &call->doc.nodes[call->command];
	if (memchr(cmd->s, '\0', cmd->len) != NULL) {
		snprintf(err, errlen,
			 "the command holds a NUL byte, which no program can be passed");
		return -1;
	}
	if (cmd->len >= HOOK_MAX_ARG) {
		snprintf(err, errlen, "the command is longer than one argument may be (%u bytes)",
			 HOOK_MAX_ARG - 1);
		return -1;
	}
	if (call_workspace(env, call, ws, wslen, err, errlen) != 0 ||
	    check_options(env, ws, err, errlen) != 0)
		return -1;
	if (env->sh == NULL) {
		snprintf(err, errlen, "cordon-sh is not installed beside cordon");
		return -1;
	}
	return 0;
}

/* The allow answer for the command wrapped; 0, or -1 with err. */
static int allow(enum hook_agent a, const struct hook_env *env, const struct hook_call *call,
		 const char *ws, struct hook_answer *ans, char *err, size_t errlen)
{
	const struct jp_node *cmd = &call->doc.nodes[call->command];
	int already, r = -1;
	/* Only Claude Code carries a cd from one call to the next. */
	struct hook_cd cd = { env->cd_dir, env->cd_name };
	int carry =
		a == HOOK_CLAUDE && cd.dir != NULL && cd.name != NULL && access(HOOK_RM, X_OK) == 0;
	char *line = hook_wrap(env->sh, ws, carry ? &cd : NULL, cmd->s, cmd->len, &already);
	if (line != NULL && strlen(line) >= HOOK_MAX_ARG)
		snprintf(err, errlen,
			 "the confined command line would be longer than one argument may be "
			 "(%u bytes)",
			 HOOK_MAX_ARG - 1);
	else if (line == NULL || hook_allow(a, call, line, ans) != 0)
		snprintf(err, errlen, "out of memory");
	else
		r = 0;
	free(line);
	return r;
}

void hook_respond(const struct hook_env *env, const char *in, size_t len, struct hook_answer *ans)
{
	enum hook_agent a = hook_agent_parse(env->agent);
	struct hook_call call;
	char err[600], ws[PATH_MAX];

	if (a == HOOK_UNKNOWN) {
		block(a, ans,
		      "unknown agent '%.64s' for cordon hook (want claude, codex, gemini or "
		      "cursor)",
		      env->agent != NULL ? env->agent : "");
		return;
	}
	int r = hook_read(a, in, len, &call, err, sizeof(err));
	if (r == 0 && !call.shell) {
		hook_pass(a, ans);
		hook_call_free(&call);
		return;
	}
	if (r == 0)
		r = vet_call(env, &call, ws, sizeof(ws), err, sizeof(err));
	if (r == 0)
		r = allow(a, env, &call, ws, ans, err, sizeof(err));
	if (r != 0)
		block(a, ans, "%s", err);
	hook_call_free(&call);
}

/* stdin, whole, up to HOOK_MAX_INPUT bytes (one more: too long). */
static char *read_all(size_t *len, int *too_long)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	*too_long = 0;
	while (buf != NULL) {
		if (n == cap) {
			if (cap > HOOK_MAX_INPUT) {
				*too_long = 1;
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (nb == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(0, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0) {
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	free(buf);
	return NULL;
}

/* Writes s whole to fd: 0, or -1. */
static int put_all(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int cmd_hook(const char *agent)
{
	struct hook_env env = { .agent = agent };
	struct hook_answer ans;
	char sh[PATH_MAX], here[PATH_MAX];
	size_t len = 0;
	int too_long;

	/* A reader gone is a write error here, never a death by signal
	 * (which agents take for "run the command"). */
	signal(SIGPIPE, SIG_IGN);
	enum hook_agent a = hook_agent_parse(agent);
	env.sh = entry_sh_path(sh, sizeof(sh)) == 0 ? sh : NULL;
	env.workspace = getenv("CORDON_WORKSPACE");
	env.projects[0] =
		a == HOOK_CLAUDE || a == HOOK_GEMINI ? getenv("CLAUDE_PROJECT_DIR") : NULL;
	env.projects[1] = a == HOOK_GEMINI ? getenv("GEMINI_PROJECT_DIR") : NULL;
	if (a == HOOK_GEMINI) { /* Gemini's own name first */
		env.projects[0] = env.projects[1];
		env.projects[1] = getenv("CLAUDE_PROJECT_DIR");
	}
	env.cwd = getcwd(here, sizeof(here));
	env.probe = 1;
	char tmp[PATH_MAX], name[48];
	if (entry_tmpdir(tmp, sizeof(tmp)) == 0 &&
	    entry_random_name("cordon-cd-", name, sizeof(name)) == 0) {
		env.cd_dir = tmp;
		env.cd_name = name;
	}
	char *in = read_all(&len, &too_long);
	if (in == NULL && too_long)
		block(a, &ans, "the hook input is larger than %u bytes", HOOK_MAX_INPUT);
	else if (in == NULL)
		block(a, &ans, "the hook input could not be read");
	else
		hook_respond(&env, in, len, &ans);
	free(in);
	int rc = ans.exit_code;
	if ((ans.out != NULL && put_all(1, ans.out) != 0) ||
	    (ans.err != NULL && put_all(2, ans.err) != 0)) {
		/* An answer half written may read as "allow" or as nothing:
		 * exit 2, which every agent takes for "block". */
		rc = 2;
	}
	hook_answer_free(&ans);
	return rc;
}
