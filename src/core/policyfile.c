/*
 * Policy files and profiles. A policy file holds a run's options, one a
 * line: the option's long name without its dashes, then (for an option
 * that takes one) blanks and its value, the rest of the line trimmed;
 * '#' first on a line is a comment. Nothing richer, so no parser library.
 * Each option goes through the option table (options.c) and so through
 * the setters, exactly as the command line's do.
 *
 * A policy is an input of later runs: a file a confined command could
 * write would let it choose the next run's policy. So a file is read
 * only when its owner is the caller or root and nobody else may write
 * it, and cordon_begin() refuses a file that lies in, or is reached
 * through a symlink in, a tree any run may write (policyfile_check).
 * Nothing is loaded from the workspace implicitly.
 */
#include "handle.h"
#include "json.h"
#include "options.h"
#include "path.h"
#include "policyfile.h"
#include "profiles.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The message for o's line: "NAME:LINE: what". */
static int line_fail(cordon *c, const struct origin *o, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int line_fail(cordon *c, const struct origin *o, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cordon_fail(c, code, "%s:%u: %s", o->name, o->line, msg);
}

/* A file's path value: "~" and "~/..." under $HOME; a relative one
 * against the workspace as set so far (none: left relative, so the
 * current directory at cordon_begin(), the default workspace). The
 * workspace may not change afterwards (config.c). */
static int file_path(cordon *c, const struct origin *o, const char *v, char *out, size_t n)
{
	struct optstate *s = opt_state(c);
	int fits = 1;
	if (s == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	if (v[0] == '~') {
		const char *home = getenv("HOME");
		if (v[1] != '\0' && v[1] != '/')
			return line_fail(c, o, CORDON_EINVAL,
					 "'%s': only '~' and '~/' are expanded (write the path)",
					 v);
		if (home == NULL || home[0] != '/')
			return line_fail(c, o, CORDON_EINVAL,
					 "'%s' needs HOME set to an absolute path", v);
		fits = path_join(out, n, home, v[1] != '\0' ? v + 2 : "") == 0;
	} else if (v[0] == '/' || !o->is_file) {
		fits = snprintf(out, n, "%s", v) < (int)n;
	} else {
		const char *ws = c->workspace_opt;
		fits = ws != NULL ? path_join(out, n, ws, v) == 0
				  : snprintf(out, n, "%s", v) < (int)n;
		if (fits && s->ws_pin_origin == NULL) {
			char here[600];
			snprintf(here, sizeof(here), "%s:%u", o->name, o->line);
			s->ws_pin_origin = strdup(here);
			s->ws_pin = ws != NULL ? strdup(ws) : NULL;
			if (s->ws_pin_origin == NULL || (ws != NULL && s->ws_pin == NULL))
				return cordon_fail(c, CORDON_ENOMEM, "out of memory");
		}
	}
	if (!fits || strlen(out) >= CORDON_PATH_MAX)
		return line_fail(c, o, CORDON_EINVAL, "a path longer than %d bytes",
				 CORDON_PATH_MAX - 1);
	return 0;
}

static int use_profile(cordon *c, const char *name, const struct origin *from);

/* What a value may not look like: its checks before the option's own. */
static int value_checks(cordon *c, const struct origin *o, const char *name, const char *v)
{
	if (v[0] == '"' || v[0] == '\'')
		return line_fail(c, o, CORDON_EINVAL,
				 "%s %s: quotes are not special in a policy file (the value is "
				 "the rest of the line): write it bare",
				 name, v);
	for (const char *p = v; (p = strchr(p, '#')) != NULL; p++)
		if (p[-1] == ' ' || p[-1] == '\t')
			return line_fail(c, o, CORDON_EINVAL,
					 "%s %s: a '#' after a blank: comments are whole lines "
					 "(the first character of a line), never the end of one",
					 name, v);
	return 0;
}

/* One line, without its end of line, trimmed, not a comment. */
static int parse_line(cordon *c, const struct origin *o, char *line)
{
	char *v = line + strcspn(line, " \t");
	if (*v != '\0') {
		*v++ = '\0';
		v += strspn(v, " \t");
	}
	const char *name = line;
	if (strchr(name, '=') != NULL)
		return line_fail(c, o, CORDON_EINVAL,
				 "'%s': write the option's name, blanks, then its value "
				 "(e.g. 'network off'), not NAME=VALUE",
				 name);
	if (name[0] == '-')
		return line_fail(c, o, CORDON_EINVAL,
				 "'%s': write the option's name without its dashes", name);
	if (*v != '\0' && value_checks(c, o, name, v) != 0)
		return CORDON_EINVAL;
	if (strcmp(name, "profile") == 0) {
		if (*v == '\0')
			return line_fail(c, o, CORDON_EINVAL, "profile needs a name");
		if (!o->is_file) /* no profile names another: no loop */
			return line_fail(c, o, CORDON_EINVAL, "a profile includes no profile");
		return use_profile(c, v, o);
	}
	if (strcmp(name, "policy") == 0 || strcmp(name, "agent-policy") == 0)
		return line_fail(c, o, CORDON_EINVAL,
				 "%s is not allowed in a policy file (a file includes no other "
				 "file)",
				 name);
	const struct optdef *d = opt_find(name);
	if (d == NULL)
		return line_fail(c, o, CORDON_EINVAL, "unknown option '%s'", name);
	unsigned f = opt_flags(d);
	if ((f & OPTF_VALUE) && *v == '\0')
		return line_fail(c, o, CORDON_EINVAL, "%s needs a value", name);
	if (!(f & (OPTF_VALUE | OPTF_OPTVAL)) && *v != '\0')
		return line_fail(c, o, CORDON_EINVAL, "%s takes no value (got '%s')", name, v);
	char path[CORDON_PATH_MAX + 1];
	if ((f & OPTF_PATH) && (f & OPTF_FILE)) {
		int r = file_path(c, o, v, path, sizeof(path));
		if (r != 0)
			return r;
		v = path;
	}
	int r = opt_apply(c, d, (f & OPTF_VALUE) || ((f & OPTF_OPTVAL) && *v != '\0') ? v : NULL,
			  o);
	if (r != 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", cordon_last_error(c));
		return line_fail(c, o, r, "%s", msg);
	}
	return 0;
}

static int blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

int policy_parse_text(cordon *c, const char *name, int is_file, const char *text, size_t len)
{
	struct origin o = { .name = name, .line = 0, .is_file = is_file };
	char line[POLICY_LINE_MAX + 1];
	if (len > POLICY_FILE_MAX)
		return cordon_fail(c, CORDON_EINVAL, "%s: larger than %d bytes", name,
				   POLICY_FILE_MAX);
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - (text + at)) : len - at;
		o.line++;
		if (n > POLICY_LINE_MAX)
			return line_fail(c, &o, CORDON_EINVAL, "a line longer than %d bytes",
					 POLICY_LINE_MAX);
		if (memchr(text + at, '\0', n) != NULL)
			return line_fail(c, &o, CORDON_EINVAL, "a NUL byte");
		memcpy(line, text + at, n);
		line[n] = '\0';
		at += n + 1;
		while (n > 0 && blank(line[n - 1]))
			line[--n] = '\0';
		char *p = line;
		while (blank(*p))
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		int r = parse_line(c, &o, p);
		if (r != 0)
			return r;
	}
	return 0;
}

/* What was loaded, for the start event: kind ("profile" or "file") and
 * what. */
static int add_source(cordon *c, const char *kind, const char *what)
{
	struct optstate *s = opt_state(c);
	if (s == NULL || strv_push(&s->sources, kind) != 0 || strv_push(&s->sources, what) != 0)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

/* A load that failed leaves the handle refusing to begin. */
static int load_failed(cordon *c, int r)
{
	struct optstate *s = opt_state(c);
	if (r != 0 && r != CORDON_ESTATE && s != NULL && s->failed == NULL)
		s->failed = strdup(cordon_last_error(c));
	return r;
}

static int use_profile(cordon *c, const char *name, const struct origin *from)
{
	const struct profile *p = profile_find(name);
	char label[64];
	if (p == NULL) {
		if (from != NULL)
			return line_fail(c, from, CORDON_EINVAL,
					 "unknown profile '%s' (cordon profile list)", name);
		return cordon_fail(c, CORDON_EINVAL, "unknown profile '%s' (cordon profile list)",
				   name);
	}
	snprintf(label, sizeof(label), "profile %s", p->name);
	int r = add_source(c, "profile", p->name);
	if (r == 0)
		r = policy_parse_text(c, label, 0, p->text, strlen(p->text));
	return r;
}

int cordon_use_profile(cordon *c, const char *name)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	return load_failed(c, use_profile(c, name, NULL));
}

/* A policy file may be read: a regular file of the caller's or root's
 * that nobody else may write, with no other name (a hard link elsewhere
 * may lie where a run writes). */
static int file_trusted(cordon *c, const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return cordon_fail(c, CORDON_EINVAL, "%s: not a regular file", path);
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return cordon_fail(c, CORDON_EREFUSED,
				   "%s: owned by uid %u, neither you nor root: another user could "
				   "choose your policy",
				   path, (unsigned)st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return cordon_fail(c, CORDON_EREFUSED,
				   "%s: writable by its group or others (mode %03o): another user "
				   "could choose your policy (chmod go-w)",
				   path, (unsigned)(st->st_mode & 0777));
	if (st->st_nlink > 1)
		return cordon_fail(c, CORDON_EREFUSED,
				   "%s: has %lu hard links: another of its names may lie where a "
				   "confined run writes (copy it)",
				   path, (unsigned long)st->st_nlink);
	if (st->st_size > POLICY_FILE_MAX)
		return cordon_fail(c, CORDON_EINVAL, "%s: larger than %d bytes", path,
				   POLICY_FILE_MAX);
	return 0;
}

/* Read the whole file into buf (POLICY_FILE_MAX + 1 bytes): its length,
 * or -1 with the message set and *code; -2 when missing and optional. */
static long read_policy(cordon *c, const char *path, int optional, char *buf, int *code)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0) {
		if (optional && (errno == ENOENT || errno == ENOTDIR))
			return -2;
		cordon_fail_errno(c, CORDON_EINVAL, errno, "cannot read the policy file %s", path);
		return -1;
	}
	long len = 0;
	if (fstat(fd, &st) != 0) {
		cordon_fail_errno(c, CORDON_EINVAL, errno, "cannot read the policy file %s", path);
		len = -1;
	} else if ((*code = file_trusted(c, path, &st)) != 0) {
		len = -1;
	}
	while (len >= 0 && len <= POLICY_FILE_MAX) {
		ssize_t k = read(fd, buf + len, (size_t)(POLICY_FILE_MAX + 1 - len));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			cordon_fail_errno(c, CORDON_EINVAL, errno, "cannot read the policy file %s",
					  path);
			len = -1;
		}
		if (k <= 0)
			break;
		len += k;
	}
	close(fd);
	if (len > POLICY_FILE_MAX) {
		cordon_fail(c, CORDON_EINVAL, "%s: larger than %d bytes", path, POLICY_FILE_MAX);
		len = -1;
	}
	return len;
}

/* 0, an error, or 1 when optional and missing. */
static int load_file(cordon *c, const char *path, int optional)
{
	char abs[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX];
	if (path == NULL || path[0] == '\0')
		return cordon_fail(c, CORDON_EINVAL, "empty policy file name");
	if (path[0] == '/' ? snprintf(abs, sizeof(abs), "%s", path) >= (int)sizeof(abs)
			   : getcwd(cwd, sizeof(cwd)) == NULL ||
				     path_join(abs, sizeof(abs), cwd, path) != 0)
		return cordon_fail(c, CORDON_EINVAL, "the policy file name %s is too long", path);
	char *buf = malloc(POLICY_FILE_MAX + 1);
	if (buf == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	int code = 0;
	long len = read_policy(c, path, optional, buf, &code);
	int r = len == -2 ? 1 : len < 0 ? (code != 0 ? code : CORDON_EINVAL) : 0;
	if (r == 0 && (r = add_source(c, "file", abs)) == 0)
		r = opt_add_input(c, abs, "policy file");
	if (r == 0)
		r = policy_parse_text(c, path, 1, buf, (size_t)len);
	free(buf);
	return r;
}

int cordon_load_policy(cordon *c, const char *path)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	return load_failed(c, load_file(c, path, 0));
}

/* CORDON_PROFILE: names separated by commas. */
static int env_profiles(cordon *c, const char *list)
{
	char name[64];
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(name))
			return cordon_fail(c, CORDON_EINVAL,
					   "CORDON_PROFILE: bad list '%s' (want NAME[,NAME...])",
					   list);
		memcpy(name, p, n);
		name[n] = '\0';
		int r = use_profile(c, name, NULL);
		if (r != 0)
			return r;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

/* The user's file: $XDG_CONFIG_HOME/cordon/agent.policy (an absolute
 * XDG_CONFIG_HOME), else $HOME/.config/cordon/agent.policy; "" when
 * neither can be named. */
static void user_file(char *out, size_t n)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	out[0] = '\0';
	if (xdg != NULL && xdg[0] == '/') {
		if (snprintf(out, n, "%s/cordon/agent.policy", xdg) >= (int)n)
			out[0] = '\0';
	} else if (home != NULL && home[0] == '/') {
		if (snprintf(out, n, "%s/.config/cordon/agent.policy", home) >= (int)n)
			out[0] = '\0';
	}
}

static int agent_policy(cordon *c)
{
	const char *prof = getenv("CORDON_PROFILE");
	const char *pol = getenv("CORDON_POLICY");
	char path[CORDON_PATH_MAX];
	int r = 0;
	if ((prof != NULL && prof[0] != '\0') || (pol != NULL && pol[0] != '\0')) {
		if (prof != NULL && prof[0] != '\0' && (r = env_profiles(c, prof)) != 0)
			return r;
		if (pol == NULL || pol[0] == '\0')
			return 0;
		if (pol[0] != '/')
			return cordon_fail(c, CORDON_EINVAL,
					   "CORDON_POLICY must be an absolute path (got '%s')",
					   pol);
		return load_file(c, pol, 0);
	}
	user_file(path, sizeof(path));
	if (path[0] != '\0' && (r = load_file(c, path, 1)) != 1)
		return r;
	return use_profile(c, "agent", NULL);
}

int cordon_use_agent_policy(cordon *c)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	return load_failed(c, agent_policy(c));
}

int cordon_option_takes_value(const char *name)
{
	const struct optdef *d = opt_find(name);
	if (d != NULL)
		return (opt_flags(d) & OPTF_OPTVAL) ? 2 : (opt_flags(d) & OPTF_VALUE) != 0;
	if (name != NULL && (strcmp(name, "policy") == 0 || strcmp(name, "profile") == 0))
		return 1;
	if (name != NULL && strcmp(name, "agent-policy") == 0)
		return 0;
	return CORDON_EINVAL;
}

int cordon_set_option(cordon *c, const char *name, const char *value)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	int tv = cordon_option_takes_value(name);
	if (tv < 0)
		return cordon_fail(c, CORDON_EINVAL, "unknown option '--%s'", name ? name : "");
	if (tv == 1 && value == NULL)
		return cordon_fail(c, CORDON_EINVAL, "option '--%s' needs a value", name);
	if (tv == 0 && value != NULL)
		return cordon_fail(c, CORDON_EINVAL, "option '--%s' takes no value", name);
	if (strcmp(name, "policy") == 0)
		return cordon_load_policy(c, value);
	if (strcmp(name, "profile") == 0)
		return cordon_use_profile(c, value);
	if (strcmp(name, "agent-policy") == 0)
		return cordon_use_agent_policy(c);
	return opt_apply(c, opt_find(name), value, NULL);
}

int policyfile_check(cordon *c)
{
	char real[CORDON_PATH_MAX];
	if (c->opts == NULL || c->mode == CORDON_MODE_OFF)
		return 0;
	const struct strv *in = &c->opts->inputs;
	for (size_t i = 0; i + 1 < in->n; i += 2) {
		const char *path = in->v[i], *what = in->v[i + 1];
		int r = policy_resolve_untampered(&c->pol, path, real, sizeof(real));
		if (r == POLICY_REDIRECTED)
			return cordon_fail(
				c, CORDON_EREFUSED,
				"refusing the %s %s: it is reached through a symlink in a "
				"tree a confined run may write (%s), so a command could "
				"choose the policy of a later run; keep it outside",
				what, path, real);
		if (r != 0)
			return cordon_fail_errno(c, CORDON_EREFUSED, errno, "the %s %s", what,
						 path);
		if (policy_inside_untrusted(&c->pol, real))
			return cordon_fail(
				c, CORDON_EREFUSED,
				"refusing the %s %s: it lies in a tree a confined run may "
				"write (the workspace, an --allow-write path or a tool "
				"cache), so a command could choose the policy of a later "
				"run; keep it outside",
				what, real);
	}
	return 0;
}

/* A value with a byte a policy line cannot hold, written escaped. */
static int has_control(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

static void text_value(struct jbuf *b, const char *v)
{
	char esc[8];
	for (const unsigned char *p = (const unsigned char *)v; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			jb_raw(b, esc);
		} else {
			jb_rawn(b, (const char *)p, 1);
		}
	}
}

char *cordon_options_text(const cordon *c)
{
	struct jbuf b = { 0 };
	if (c == NULL)
		return NULL;
	jb_raw(&b, "# The options given by name (command line, policy files, profiles), in the\n"
		   "# policy file's format; an option not listed keeps cordon's default.\n");
	const struct strv *log = c->opts != NULL ? &c->opts->log : NULL;
	const char *last = NULL;
	for (size_t i = 0; log != NULL && i + 2 < log->n; i += 3) {
		const char *name = log->v[i], *v = log->v[i + 1], *src = log->v[i + 2];
		if (last == NULL || strcmp(last, src) != 0) {
			jb_raw(&b, src[0] != '\0' ? "# from " : "# given directly\n");
			if (src[0] != '\0') {
				text_value(&b, src);
				jb_raw(&b, "\n");
			}
			last = src;
		}
		const struct optdef *d = opt_find(name);
		int in_file = d != NULL && (opt_flags(d) & OPTF_FILE) != 0, ctl = has_control(v);
		if (!in_file || ctl)
			jb_raw(&b, "# ");
		jb_raw(&b, name);
		if (v[0] != '\0') {
			jb_raw(&b, " ");
			text_value(&b, v);
		}
		if (!in_file)
			jb_raw(&b, "  (command line only)");
		else if (ctl)
			jb_raw(&b, "  (a control character: not in a policy file)");
		jb_raw(&b, "\n");
	}
	return jb_finish(&b);
}
