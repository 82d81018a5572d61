/*
 * Configuration setters. They only check and record their arguments;
 * nothing touches the file system or the kernel until cordon_begin().
 * Every one returns 0 or a negative CORDON_E* with a message on the
 * handle, and refuses (CORDON_ESTATE) once the run has begun.
 */
#include "handle.h"
#include "options.h"
#include "testhooks.h"

#include <stdlib.h>
#include <string.h>

/* Setters: only before the run begins. */
int configurable(cordon *c)
{
	if (c == NULL)
		return CORDON_EINVAL;
	if (c->stage >= ST_BEGUN)
		return cordon_fail(c, CORDON_ESTATE, "the run has already begun");
	return 0;
}

static int set_path(cordon *c, char **slot, const char *what, const char *path)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	/* A relative path is kept as given: every use resolves it against
	 * the current directory at cordon_begin(), as realpath() and open()
	 * do. */
	if (path == NULL || path[0] == '\0')
		return cordon_fail(c, CORDON_EINVAL, "empty %s", what);
	if (strlen(path) >= CORDON_PATH_MAX)
		return cordon_fail(c, CORDON_EINVAL, "%s is longer than %d bytes", what,
				   CORDON_PATH_MAX - 1);
	char *dup = strdup(path);
	if (dup == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	free(*slot);
	*slot = dup;
	return 0;
}

static int add_path(cordon *c, struct strv *list, const char *what, const char *path)
{
	char *tmp = NULL;
	int r = set_path(c, &tmp, what, path);
	if (r != 0)
		return r;
	if (strv_take(list, tmp) != 0)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

int cordon_parse_mode(const char *s, enum cordon_mode *out)
{
	for (int i = 0; s != NULL && i < 3; i++)
		if (strcmp(s, cordon_mode_ids[i].id) == 0) {
			*out = (enum cordon_mode)i;
			return 0;
		}
	return CORDON_EINVAL;
}

int cordon_set_mode(cordon *c, enum cordon_mode mode)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (mode != CORDON_MODE_AUTO && mode != CORDON_MODE_REQUIRED && mode != CORDON_MODE_OFF)
		return cordon_fail(c, CORDON_EINVAL, "unknown mode %d", (int)mode);
	c->mode = mode;
	return 0;
}

int cordon_set_workspace(cordon *c, const char *dir)
{
	/* A policy file's relative paths were resolved against the
	 * workspace of that moment: it stays. */
	const struct optstate *s = c != NULL ? c->opts : NULL;
	if (s != NULL && s->ws_pin_origin != NULL && dir != NULL &&
	    (s->ws_pin == NULL || strcmp(s->ws_pin, dir) != 0))
		return cordon_fail(c, CORDON_ESTATE,
				   "set the workspace before loading a policy file with relative "
				   "paths: %s resolved one against %s",
				   s->ws_pin_origin,
				   s->ws_pin != NULL ? s->ws_pin : "the current directory");
	return set_path(c, &c->workspace_opt, "workspace", dir);
}

int cordon_add_allow_write(cordon *c, const char *path)
{
	return add_path(c, &c->allow_write, "--allow-write path", path);
}

int cordon_add_pass_file(cordon *c, const char *path)
{
	return add_path(c, &c->pass_file, "--pass-file path", path);
}

int cordon_add_allow_socket(cordon *c, const char *path)
{
	return add_path(c, &c->allow_socket, "--allow-socket path", path);
}

int cordon_add_deny_read(cordon *c, const char *path)
{
	return add_path(c, &c->deny_read, "--deny-read path", path);
}

int cordon_add_allow_read(cordon *c, const char *path)
{
	return add_path(c, &c->allow_read, "--allow-read path", path);
}

int cordon_add_protect(cordon *c, const char *path)
{
	return add_path(c, &c->protect, "--protect path", path);
}

int cordon_add_allow_agent_config(cordon *c, const char *path)
{
	return add_path(c, &c->allow_agent_config, "--allow-agent-config path", path);
}

int cordon_set_state_dir(cordon *c, const char *dir)
{
	return set_path(c, &c->state_dir_opt, "state directory", dir);
}

int cordon_set_status_file(cordon *c, const char *path)
{
	return set_path(c, &c->status_file, "status file name", path);
}

int cordon_parse_caches(const char *list, unsigned *out)
{
	unsigned mask = 0;
	if (list == NULL)
		return CORDON_EINVAL;
	for (const char *p = list;;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		unsigned bit = 0;
		/* CORDON_CACHE_* bit i is cache tool i. */
		for (unsigned i = 0; i < CACHE_TOOL_COUNT; i++)
			if (strlen(cordon_cache_tool_ids[i].id) == n &&
			    strncmp(cordon_cache_tool_ids[i].id, p, n) == 0)
				bit = 1u << i;
		if (bit == 0)
			return CORDON_EINVAL;
		mask |= bit;
		if (e == NULL)
			break;
		p = e + 1;
	}
	*out = mask;
	return 0;
}

int cordon_set_caches(cordon *c, unsigned mask)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (mask & ~CORDON_CACHE_ALL)
		return cordon_fail(c, CORDON_EINVAL, "unknown cache bits 0x%x", mask);
	c->caches = mask;
	return 0;
}

#define FLAG_SETTER(fn, field)           \
	int fn(cordon *c, int on)        \
	{                                \
		int r = configurable(c); \
		if (r != 0)              \
			return r;        \
		c->field = on ? 1 : 0;   \
		return 0;                \
	}

FLAG_SETTER(cordon_set_default_protect, default_protect)
FLAG_SETTER(cordon_set_default_deny_read, default_deny_read)

int cordon_set_network(cordon *c, enum cordon_network net)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (net != CORDON_NETWORK_ON && net != CORDON_NETWORK_OFF && net != CORDON_NETWORK_ALLOW)
		return cordon_fail(c, CORDON_EINVAL, "unknown network value %d", (int)net);
	c->network = net;
	return 0;
}

int cordon_parse_network(const char *s, enum cordon_network *out)
{
	if (s == NULL || out == NULL)
		return CORDON_EINVAL;
	if (strcmp(s, "on") == 0)
		*out = CORDON_NETWORK_ON;
	else if (strcmp(s, "off") == 0)
		*out = CORDON_NETWORK_OFF;
	else
		return CORDON_EINVAL;
	return 0;
}

int cordon_set_on_tamper(cordon *c, enum cordon_on_tamper how)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (how != CORDON_TAMPER_DEFAULT && how != CORDON_TAMPER_NEUTRALISE &&
	    how != CORDON_TAMPER_FAIL)
		return cordon_fail(c, CORDON_EINVAL, "unknown on-tamper value %d", (int)how);
	c->on_tamper = how;
	return 0;
}

int cordon_parse_on_tamper(const char *s, enum cordon_on_tamper *out)
{
	if (s == NULL || out == NULL)
		return CORDON_EINVAL;
	if (strcmp(s, "fail") == 0)
		*out = CORDON_TAMPER_FAIL;
	else if (strcmp(s, "neutralise") == 0 || strcmp(s, "neutralize") == 0)
		*out = CORDON_TAMPER_NEUTRALISE;
	else
		return CORDON_EINVAL;
	return 0;
}
FLAG_SETTER(cordon_set_clean_env, clean_env)
FLAG_SETTER(cordon_set_allow_broad, allow_broad)
FLAG_SETTER(cordon_set_foreground, foreground)
FLAG_SETTER(cordon_set_review, review)
FLAG_SETTER(cordon_set_reap_all, reap_all)
FLAG_SETTER(cordon_set_scratch_home, scratch_home)
FLAG_SETTER(cordon_set_allow_userns, allow_userns)

int cordon_set_explain(cordon *c, int how)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (how != CORDON_EXPLAIN_OFF && how != CORDON_EXPLAIN_SHORT && how != CORDON_EXPLAIN_FULL)
		return cordon_fail(c, CORDON_EINVAL, "unknown explain value %d", how);
	c->explain = how;
	return 0;
}

int cordon_set_status_fd(cordon *c, int fd)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (fd < 0)
		return cordon_fail(c, CORDON_EINVAL, "bad status fd %d", fd);
	c->status_fd = fd;
	return 0;
}

int cordon_set_timeout_ms(cordon *c, uint64_t ms)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (ms > (uint64_t)1000 * 60 * 60 * 24 * 366 * 10)
		return cordon_fail(c, CORDON_EINVAL, "timeout too long");
	c->timeout_ms = ms;
	return 0;
}

/* The largest --max-procs: the kernel's PID_MAX_LIMIT. */
#define MAX_PROCS_LIMIT ((uint64_t)4194304)
#define MAX_BYTES_MIN ((uint64_t)1 << 20)
#define MAX_BYTES_MAX ((uint64_t)1 << 62)

static int set_bound(cordon *c, uint64_t *slot, uint64_t v, uint64_t lo, uint64_t hi,
		     const char *what)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (v != 0 && (v < lo || v > hi))
		return cordon_fail(
			c, CORDON_EINVAL, "bad %s %llu (want %llu to %llu, or 0 for none)", what,
			(unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
	*slot = v;
	return 0;
}

int cordon_set_max_procs(cordon *c, uint64_t n)
{
	return set_bound(c, c != NULL ? &c->max_procs : NULL, n, 1, MAX_PROCS_LIMIT,
			 "process bound");
}

int cordon_set_max_memory(cordon *c, uint64_t bytes)
{
	return set_bound(c, c != NULL ? &c->max_memory : NULL, bytes, MAX_BYTES_MIN, MAX_BYTES_MAX,
			 "memory bound");
}

int cordon_set_max_tmp(cordon *c, uint64_t bytes)
{
	return set_bound(c, c != NULL ? &c->max_tmp : NULL, bytes, MAX_BYTES_MIN, MAX_BYTES_MAX,
			 "temp dir bound");
}

int cordon_add_env(cordon *c, const char *spec)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (!env_spec_valid(spec))
		return cordon_fail(c, CORDON_EINVAL,
				   "bad --env (want NAME or NAME=VALUE; a NAME is "
				   "letters, digits and '_', not starting with a digit): %s",
				   spec ? spec : "(null)");
	if (strv_push(&c->envspec, spec) != 0)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return 0;
}

int cordon_add_keep_fd(cordon *c, int fd)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (fd < 0)
		return cordon_fail(c, CORDON_EINVAL, "bad fd %d", fd);
	if (fd <= 2)
		return 0; /* always kept */
	for (size_t i = 0; i < c->nkeep; i++)
		if (c->keep_fds[i] == fd)
			return 0;
	int *n = realloc(c->keep_fds, (c->nkeep + 1) * sizeof(int));
	if (n == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	c->keep_fds = n;
	c->keep_fds[c->nkeep++] = fd;
	return 0;
}

int cordon_test_set_max_abi(cordon *c, int abi)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	if (abi < 0)
		return cordon_fail(c, CORDON_EINVAL, "bad ABI cap %d", abi);
	c->max_abi = abi;
	return 0;
}
