/*
 * Status events: one JSON object per line, a start event and an exit
 * event per run. Every event name, mode, backend, reason, layer, gap and
 * cache name or state is a fixed identifier from ids.c.
 */
#include "handle.h"
#include "json.h"
#include "netproxy.h"
#include "options.h"
#include "review.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void list_of(struct jbuf *b, const char *const *names)
{
	jb_raw(b, "[");
	for (size_t i = 0; names[i] != NULL; i++) {
		if (i > 0)
			jb_raw(b, ",");
		jb_str(b, names[i]);
	}
	jb_raw(b, "]");
}

/* "applied" in a run's event; "available" in the probe's answer, which
 * applies nothing. */
static void decision_fields(struct jbuf *b, const cordon *c, const char *applied_key)
{
	const struct decision *d = &c->dec;
	jb_key(b, "backend");
	jb_str(b, cordon_backend_ids[d->backend ? d->backend->id : BACKEND_NONE].id);
	jb_key(b, applied_key);
	jb_bool(b, d->applied);
	jb_key(b, "reason");
	jb_str(b, reason_name(d->reason));
	jb_key(b, "cause");
	jb_str(b, reason_name(d->cause));
	jb_key(b, "abi");
	jb_int(b, d->abi);
	jb_key(b, "layers");
	list_of(b, d->layer_list);
}

/* The scratch home's layer is applied (cordon.c lists it only then). */
static int scratch_home_on(const cordon *c)
{
	return c->dec.applied && c->pol.scratch_home != NULL &&
	       (c->dec.cov.layers & (1u << LAYER_SCRATCH_HOME)) != 0;
}

/* The writable set, and a scratch home (whose writes are discarded). */
static void write_writable(struct jbuf *b, const cordon *c)
{
	const struct policy *p = &c->pol;
	jb_raw(b, "[");
	for (size_t i = 0; i < p->nw + p->nptmp; i++) {
		if (i > 0)
			jb_raw(b, ",");
		jb_str(b, i < p->nw ? p->w[i].path : p->ptmp[i - p->nw].view);
	}
	if (scratch_home_on(c)) {
		if (p->nw + p->nptmp > 0)
			jb_raw(b, ",");
		jb_str(b, p->scratch_home);
	}
	jb_raw(b, "]");
}

/* n strings as a JSON array. */
static void write_strings(struct jbuf *b, char *const *v, size_t n)
{
	jb_raw(b, "[");
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			jb_raw(b, ",");
		jb_str(b, v[i]);
	}
	jb_raw(b, "]");
}

static void write_private_tmp(struct jbuf *b, const struct policy *p)
{
	jb_raw(b, "[");
	for (size_t i = 0; i < p->nptmp; i++) {
		jb_raw(b, i > 0 ? ",{" : "{");
		jb_key(b, "path");
		jb_str(b, p->ptmp[i].view);
		jb_key(b, "source");
		jb_str(b, p->ptmp[i].src);
		jb_key(b, "shown");
		write_strings(b, p->ptmp[i].shown.v, p->ptmp[i].shown.n);
		jb_raw(b, "}");
	}
	jb_raw(b, "]");
}

/* What --max-tmp's budget holds: the run's temp dir, the private /tmp
 * and /var/tmp it is seen at, and /dev/shm when it draws on it too. */
static void write_tmp_covers(struct jbuf *b, const cordon *c)
{
	jb_key(b, "covers");
	jb_raw(b, "[");
	jb_str(b, c->rundir);
	for (size_t i = 0; i < c->pol.nptmp; i++) {
		jb_raw(b, ", ");
		jb_str(b, c->pol.ptmp[i].view);
	}
	if (c->tmp_shm) {
		jb_raw(b, ", ");
		jb_str(b, "/dev/shm");
	}
	jb_raw(b, "]");
}

/* One resource bound: null when not asked for; else its value, how it is
 * applied (null: not) and over what (the run, or each process); for
 * --max-tmp applied, what it covers. */
static void write_limit(struct jbuf *b, const cordon *c, const char *key, uint64_t value,
			enum limit_by by)
{
	jb_key(b, key);
	if (value == 0) {
		jb_raw(b, "null");
		return;
	}
	char num[32];
	snprintf(num, sizeof(num), "%llu", (unsigned long long)value);
	jb_raw(b, "{");
	jb_key(b, "limit");
	jb_raw(b, num);
	jb_key(b, "by");
	jb_str(b, cordon_limit_by_ids[by].id);
	jb_key(b, "scope");
	jb_str(b, by == LIMIT_BY_NONE ? NULL : by == LIMIT_BY_RLIMIT_DATA ? "process" : "run");
	if (by == LIMIT_BY_TMPFS)
		write_tmp_covers(b, c);
	jb_raw(b, "}");
}

static void write_limits(struct jbuf *b, const cordon *c)
{
	int applied = c->dec.applied;
	jb_raw(b, "{");
	write_limit(b, c, "max_procs", c->max_procs, applied ? c->procs_by : LIMIT_BY_NONE);
	write_limit(b, c, "max_memory", c->max_memory, applied ? c->memory_by : LIMIT_BY_NONE);
	write_limit(b, c, "max_tmp", c->max_tmp, applied ? c->tmp_by : LIMIT_BY_NONE);
	jb_raw(b, "}");
}

static void write_protected(struct jbuf *b, const struct policy *p)
{
	jb_raw(b, "[");
	for (size_t i = 0; i < p->nprot; i++) {
		jb_raw(b, i > 0 ? ",{" : "{");
		jb_key(b, "path");
		jb_str(b, p->prot[i].path);
		jb_key(b, "explicit");
		jb_bool(b, p->prot[i].explicit_);
		jb_key(b, "enforced");
		jb_bool(b, p->prot[i].enforced);
		/* How: read-only, creation refused, or checked at the end. */
		jb_key(b, "held");
		jb_str(b, cordon_held_ids[p->prot[i].held].id);
		jb_raw(b, "}");
	}
	jb_raw(b, "]");
}

/* The layer that keeps a denied path unreadable, by its identifier. */
static const enum layer_id deny_by_layer[] = {
	[DENY_BY_MOUNT] = LAYER_MOUNTNS,
	[DENY_BY_LANDLOCK] = LAYER_LANDLOCK,
	[DENY_BY_SEATBELT] = LAYER_SEATBELT,
};

static void write_denied(struct jbuf *b, const struct policy *p)
{
	jb_raw(b, "[");
	for (size_t i = 0; i < p->ndeny; i++) {
		const struct deny_entry *d = &p->deny[i];
		jb_raw(b, i > 0 ? ",{" : "{");
		jb_key(b, "path");
		jb_str(b, d->path);
		jb_key(b, "explicit");
		jb_bool(b, d->explicit_);
		jb_key(b, "enforced");
		jb_bool(b, d->enforced != DENY_BY_NONE);
		jb_key(b, "by");
		if (d->enforced == DENY_BY_NONE)
			jb_raw(b, "null");
		else
			jb_str(b, cordon_layer_ids[deny_by_layer[d->enforced]].id);
		jb_key(b, "readable");
		write_strings(b, d->keep, d->nkeep);
		jb_raw(b, "}");
	}
	jb_raw(b, "]");
}

static void write_caches(struct jbuf *b, const struct policy *p)
{
	jb_raw(b, "[");
	for (size_t i = 0; i < p->ncaches; i++) {
		jb_raw(b, i > 0 ? ",{" : "{");
		jb_key(b, "name");
		jb_str(b, cordon_cache_tool_ids[p->caches[i].tool].id);
		jb_key(b, "path");
		jb_str(b, p->caches[i].path);
		jb_key(b, "state");
		jb_str(b, cordon_cache_state_ids[p->caches[i].state].id);
		/* The variable cordon set to move the tool here, under its
		 * state dir, or null. */
		jb_key(b, "variable");
		jb_str(b, p->caches[i].variable);
		/* Where the writes go: overlay (into the layer), moved
		 * (cordon's own directory), direct; null: not granted. */
		jb_key(b, "how");
		jb_str(b, p->caches[i].how < CACHE_HOW_COUNT
				  ? cordon_cache_how_ids[p->caches[i].how].id
				  : NULL);
		jb_key(b, "layer");
		jb_str(b, p->caches[i].layer);
		jb_key(b, "from");
		jb_str(b, p->caches[i].from);
		jb_raw(b, "}");
	}
	jb_raw(b, "]");
}

/* The profiles and policy files the options came from, in order:
 * [{"profile":"agent"},{"file":"/abs/path"}]. */
static void write_policy_sources(struct jbuf *b, const cordon *c)
{
	const struct strv *s = c->opts != NULL ? &c->opts->sources : NULL;
	jb_raw(b, "[");
	for (size_t i = 0; s != NULL && i + 1 < s->n; i += 2) {
		jb_raw(b, i > 0 ? ",{" : "{");
		jb_key(b, s->v[i]);
		jb_str(b, s->v[i + 1]);
		jb_raw(b, "}");
	}
	jb_raw(b, "]");
}

char *status_start_json(const cordon *c)
{
	struct jbuf b = { 0 };
	const struct policy *p = &c->pol;

	jb_raw(&b, "{");
	jb_key(&b, "event");
	jb_str(&b, cordon_event_ids[EVENT_STATUS].id);
	jb_key(&b, "run_id");
	jb_str(&b, c->run_id);
	jb_key(&b, "mode");
	jb_str(&b, cordon_mode_ids[c->mode].id);
	decision_fields(&b, c, "applied");
	/* Unconfined, nothing is granted: everything is writable, so the
	 * lists that describe a confinement are null, never a misleading []. */
	int confined = c->dec.applied;
	jb_key(&b, "writable");
	if (confined)
		write_writable(&b, c);
	else
		jb_raw(&b, "null");
	jb_key(&b, "private_tmp");
	if (confined)
		write_private_tmp(&b, p);
	else
		jb_raw(&b, "null");
	jb_key(&b, "scratch_home");
	jb_bool(&b, scratch_home_on(c));
	jb_key(&b, "protected");
	if (confined)
		write_protected(&b, p);
	else
		jb_raw(&b, "null");
	/* The search for a workspace's repositories stopped at its bound
	 * before these (at most 16 named); null when the guard is off. */
	jb_key(&b, "git_unsearched");
	const struct strv *u = gitguard_unsearched(c);
	if (u != NULL)
		write_strings(&b, u->v, u->n < 16 ? u->n : 16);
	else
		jb_raw(&b, "null");
	jb_key(&b, "allowed_sockets");
	if (confined)
		write_strings(&b, p->sockets, p->nsockets);
	else
		jb_raw(&b, "null");
	jb_key(&b, "caches");
	if (confined)
		write_caches(&b, p);
	else
		jb_raw(&b, "null");
	jb_key(&b, "read_denied");
	if (confined)
		write_denied(&b, p);
	else
		jb_raw(&b, "null");
	/* Names only, never values; [] when none was removed (off too). */
	jb_key(&b, "env_removed");
	write_strings(&b, c->env_removed.v, c->env_removed.n);
	jb_key(&b, "network");
	jb_str(&b, cordon_network_ids[c->network].id);
	netproxy_start_fields(&b, c);
	/* Where the commands start, and why there (workdir.c). */
	jb_key(&b, "cwd");
	jb_str(&b, p->cwd);
	jb_key(&b, "cwd_from");
	jb_str(&b, p->cwd != NULL ? cordon_cwd_from_ids[p->cwd_from].id : NULL);
	jb_key(&b, "tmpdir");
	jb_str(&b, c->rundir);
	jb_key(&b, "limits");
	write_limits(&b, c);
	jb_key(&b, "policy");
	write_policy_sources(&b, c);
	jb_key(&b, "gaps");
	list_of(&b, c->dec.gap_list);
	jb_raw(&b, "}");
	return jb_finish(&b);
}

char *cordon_probe_json(cordon *c)
{
	struct jbuf b = { 0 };
	if (c == NULL || c->stage == ST_NEW)
		return NULL;
	jb_raw(&b, "{");
	decision_fields(&b, c, "available");
	jb_key(&b, "detail");
	jb_str(&b, c->dec.detail);
	jb_key(&b, "kernel_abi");
	jb_int(&b, c->dec.kernel_abi);
	/* Whether --scratch-home can be honoured here (its layer is listed
	 * only by a run that uses it). */
	jb_key(&b, "scratch_home");
	jb_bool(&b, (c->dec.offered & (1u << LAYER_SCRATCH_HOME)) != 0);
	jb_key(&b, "default_deny_read");
	list_of(&b, cordon_default_deny_read());
	jb_key(&b, "default_deny_env");
	list_of(&b, cordon_default_deny_env());
	jb_key(&b, "gaps");
	list_of(&b, c->dec.gap_list);
	jb_raw(&b, "}");
	return jb_finish(&b);
}

void status_run_begins(cordon *c)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[16];
	if (random_bytes(raw, sizeof(raw)) != 0) {
		/* No randomness to be had: unique enough within this host. */
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		unsigned long long v[2] = { (unsigned long long)t.tv_sec * 1000000000ULL +
						    (unsigned long long)t.tv_nsec,
					    (unsigned long long)getpid() << 32 ^ c->id };
		memcpy(raw, v, sizeof(raw));
	}
	for (size_t i = 0; i < sizeof(raw); i++) {
		c->run_id[2 * i] = hex[raw[i] >> 4];
		c->run_id[2 * i + 1] = hex[raw[i] & 15];
	}
	c->run_id[32] = '\0';
	clock_gettime(CLOCK_MONOTONIC, &c->begun_mono);
	clock_gettime(CLOCK_REALTIME, &c->begun_real);
}

/* RFC 3339 UTC with milliseconds: 2026-12-03T16:20:01.123Z */
static void jb_time(struct jbuf *b, const struct timespec *t)
{
	struct tm tm;
	char s[40];
	time_t sec = t->tv_sec;
	if (gmtime_r(&sec, &tm) == NULL) {
		jb_raw(b, "null");
		return;
	}
	size_t n = strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(s + n, sizeof(s) - n, ".%03ldZ", t->tv_nsec / 1000000);
	jb_str(b, s);
}

char *status_exit_json(const cordon *c, const struct cordon_result *r, int run_code)
{
	struct jbuf b = { 0 };
	struct timespec end_mono, end_real;
	clock_gettime(CLOCK_MONOTONIC, &end_mono);
	clock_gettime(CLOCK_REALTIME, &end_real);
	long long ms = (long long)(end_mono.tv_sec - c->begun_mono.tv_sec) * 1000 +
		       (end_mono.tv_nsec - c->begun_mono.tv_nsec) / 1000000;
	jb_raw(&b, "{");
	jb_key(&b, "event");
	jb_str(&b, cordon_event_ids[EVENT_EXIT].id);
	jb_key(&b, "run_id");
	jb_str(&b, c->run_id);
	jb_key(&b, "exit_code");
	jb_int(&b, run_code);
	jb_key(&b, "command_exit_code");
	jb_int(&b, r->exit_code);
	jb_key(&b, "signal");
	if (r->signal > 0)
		jb_int(&b, r->signal);
	else
		jb_raw(&b, "null");
	jb_key(&b, "timed_out");
	jb_bool(&b, r->timed_out);
	jb_key(&b, "duration_ms");
	jb_int(&b, ms > 0 ? ms : 0);
	jb_key(&b, "started_at");
	jb_time(&b, &c->begun_real);
	jb_key(&b, "ended_at");
	jb_time(&b, &end_real);
	jb_key(&b, "tampered");
	jb_raw(&b, "[");
	for (size_t i = 0; i < gitguard_ntampered(c); i++) {
		const struct tamper *t = gitguard_tamper(c, i);
		if (i > 0)
			jb_raw(&b, ",");
		jb_raw(&b, "{");
		jb_key(&b, "path");
		jb_str(&b, t->path);
		jb_key(&b, "moved_to");
		if (t->moved[0] != '\0')
			jb_str(&b, t->moved);
		else
			jb_raw(&b, "null");
		jb_raw(&b, "}");
	}
	jb_raw(&b, "]");
	netproxy_exit_fields(&b, c);
	review_exit_fields(&b, c);
	/* The kinds this run's policy can cause, not refusals seen (named
	 * "refusals" until 2026-12-06). */
	jb_key(&b, "possible_refusals");
	status_possible_refusals(&b, c);
	jb_raw(&b, "}");
	return jb_finish(&b);
}
