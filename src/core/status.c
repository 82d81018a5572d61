/*
 * Status events: one JSON object per line, a start event and an exit
 * event per run. Every event name, mode, backend, reason, layer, gap and
 * cache name or state is a fixed identifier from ids.c.
 */
#include "handle.h"
#include "json.h"
#include "netproxy.h"
#include "options.h"

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

static void write_private_tmp(struct jbuf *b, const struct policy *p)
{
	jb_raw(b, "[");
	for (size_t i = 0; i < p->nptmp; i++) {
		jb_raw(b, i > 0 ? ",{" : "{");
		jb_key(b, "path");
		jb_str(b, p->ptmp[i].view);
		jb_key(b, "source");
		jb_str(b, p->ptmp[i].src);
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

static void write_refusals(struct jbuf *b, const cordon *c);

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
	jb_key(&b, "refusals");
	write_refusals(&b, c);
	jb_raw(&b, "}");
	return jb_finish(&b);
}

/* Bytes that would break one line are written as escapes. */
static void raw_sanitized(struct jbuf *b, const char *s)
{
	char esc[8];
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch < 0x20 || ch == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", ch);
			jb_raw(b, esc);
		} else {
			jb_rawn(b, s, 1);
		}
	}
}

/* A path as the line names it: under the home, as ~/... */
static void raw_path(struct jbuf *b, const cordon *c, const char *path)
{
	size_t n = c->nhomes > 0 ? strlen(c->homes[0]) : 0;
	if (n > 1 && strncmp(path, c->homes[0], n) == 0 && path[n] == '/') {
		jb_raw(b, "~");
		path += n;
	}
	raw_sanitized(b, path);
}

/* At most three names of v, then how many more: the line stays bounded. */
static void raw_some(struct jbuf *b, const cordon *c, const char *const *v, size_t n, int paths)
{
	char num[48];
	for (size_t i = 0; i < n && i < 3; i++) {
		if (i > 0)
			jb_raw(b, ", ");
		if (paths)
			raw_path(b, c, v[i]);
		else
			raw_sanitized(b, v[i]);
	}
	if (n > 3) {
		snprintf(num, sizeof(num), " and %zu more", n - 3);
		jb_raw(b, num);
	}
}

static int layer_on(const cordon *c, enum layer_id l)
{
	return (c->dec.cov.layers & (1u << l)) != 0;
}

/* The tool caches that were missing: those moved under the state dir
 * (the variables cordon set, each once) and those not granted. */
static void refusal_caches(struct jbuf *b, const cordon *c)
{
	const struct policy *p = &c->pol;
	const size_t max = sizeof(p->caches) / sizeof(p->caches[0]);
	const char *vars[sizeof(p->caches) / sizeof(p->caches[0])];
	const char *missing[sizeof(p->caches) / sizeof(p->caches[0])];
	size_t nvars = 0, nmissing = 0;
	for (size_t i = 0; i < p->ncaches && i < max; i++) {
		const struct cache_entry *e = &p->caches[i];
		size_t k = 0;
		while (k < nvars && e->variable != NULL && strcmp(vars[k], e->variable) != 0)
			k++;
		if (e->variable != NULL && k == nvars)
			vars[nvars++] = e->variable;
		else if (e->variable == NULL && e->state == CACHE_MISSING)
			missing[nmissing++] =
				e->path != NULL ? e->path : cordon_cache_tool_ids[e->tool].id;
	}
	if (nvars > 0) {
		jb_raw(b, "; tool caches that did not exist are under the state dir's caches/, "
			  "named to the command by ");
		raw_some(b, c, vars, nvars, 0);
	}
	if (nmissing > 0) {
		jb_raw(b, "; tool caches not granted as they do not exist: ");
		raw_some(b, c, missing, nmissing, 1);
		jb_raw(b, " (make one to have it granted)");
	}
}

/* Writes: the writable set, and what a write elsewhere fails with. */
static void refusal_write(struct jbuf *b, const cordon *c)
{
	char num[64];
	const struct decision *d = &c->dec;
	jb_raw(b, "writable: ");
	raw_sanitized(b, c->pol.workspace != NULL ? c->pol.workspace : "?");
	size_t more = 0;
	for (size_t i = 0; i < c->pol.nw; i++)
		more += c->pol.w[i].kind != W_WORKSPACE && c->pol.w[i].kind != W_TMPDIR &&
			c->pol.w[i].kind != W_DEVICE;
	jb_raw(b, ", its TMPDIR");
	for (size_t i = 0; i < c->pol.nptmp; i++) {
		jb_raw(b, i == 0 ? ", its own " : " and ");
		raw_sanitized(b, c->pol.ptmp[i].view);
	}
	snprintf(num, sizeof(num), ", %zu more path%s", more, more == 1 ? "" : "s");
	jb_raw(b, num);
	jb_raw(b, " and the terminal devices (all in the status event); a write elsewhere fails "
		  "with ");
	/* What each mechanism answers (docs/cli-reference.en.md, "Refusals"). */
	if (layer_on(c, LAYER_SEATBELT))
		jb_raw(b, "EPERM \"Operation not permitted\"");
	else if (layer_on(c, LAYER_MOUNTNS))
		jb_raw(b, "EROFS \"Read-only file system\" (EACCES \"Permission denied\" for "
			  "devices), EXDEV \"Invalid cross-device link\" for a rename or link "
			  "across the writable set's edge, EBUSY \"Device or resource busy\" "
			  "for moving a protected path's parent");
	else
		jb_raw(b, "EACCES \"Permission denied\", or EXDEV \"Invalid cross-device link\" "
			  "for a link across the writable set's edge");
	jb_raw(b, ": those mean cordon refused it");
	refusal_caches(b, c);
	if (d->cov.gaps & (1u << GAP_TMP_SHARED))
		jb_raw(b, "; /tmp and /var/tmp are the machine's and read-only here "
			  "(tmp_shared_read_only): write temporary files under $TMPDIR");
	/* Tools that write a scratch folder into the home (nyc's
	 * ~/.node-spawn-wrap-*) fail so; cordon cannot see which write was
	 * refused, so this is said whenever the home was read-only and a
	 * scratch home could have been made. */
	if (!c->scratch_home && c->nhomes > 0 && (d->offered & (1u << LAYER_SCRATCH_HOME)) &&
	    !policy_inside_writable(&c->pol, c->homes[0])) {
		jb_raw(b, "; the home (");
		raw_sanitized(b, c->homes[0]);
		jb_raw(b, ") is read-only: --scratch-home lets writes under it succeed and "
			  "discards them when the run ends");
	}
}

/* The first enforced denied path that is a file (want 0), a directory
 * without kept names (1) or one with them (2), or NULL. */
static const struct deny_entry *denied_example(const struct policy *p, int want)
{
	for (size_t i = 0; i < p->ndeny; i++) {
		const struct deny_entry *d = &p->deny[i];
		int kind = !d->is_dir ? 0 : d->nkeep == 0 ? 1 : 2;
		if (d->enforced != DENY_BY_NONE && kind == want)
			return d;
	}
	return NULL;
}

/*
 * Reads: what a denied path looks like, as measured (the "Refusals"
 * table). The mount layer's covers do not fail alike: an empty read-only
 * file, an empty directory of mode 000 (root, which keeps
 * CAP_DAC_OVERRIDE, lists it as empty and finds nothing in it), or a
 * directory holding only the kept names. root: the caller is root.
 */
static void refusal_read(struct jbuf *b, const cordon *c, int root)
{
	const struct policy *p = &c->pol;
	const char *v[4];
	size_t n = 0;
	char num[64];
	for (size_t i = 0; i < p->ndeny; i++)
		if (p->deny[i].enforced != DENY_BY_NONE) {
			if (n < 4)
				v[n] = p->deny[i].path;
			n++;
		}
	snprintf(num, sizeof(num), "reads: %zu denied path%s (", n, n == 1 ? "" : "s");
	jb_raw(b, num);
	raw_some(b, c, v, n, 1);
	jb_raw(b, ", all in the status event's read_denied): ");
	if (layer_on(c, LAYER_SEATBELT)) {
		jb_raw(b, "reading one fails with EPERM \"Operation not permitted\"");
		return;
	}
	if (c->dec.cov.denies_reads != DENY_BY_MOUNT) {
		jb_raw(b, "opening one fails with EACCES \"Permission denied\", and so does "
			  "listing a directory on the way to one (ls ~)");
		return;
	}
	const char *sep = "";
	const struct deny_entry *e = denied_example(p, 0);
	if (e != NULL) {
		jb_raw(b, "a denied file (");
		raw_path(b, c, e->path);
		jb_raw(b, ") reads as empty, with no error");
		sep = "; ";
	}
	if ((e = denied_example(p, 1)) != NULL) {
		jb_raw(b, sep);
		jb_raw(b, "a denied directory (");
		raw_path(b, c, e->path);
		jb_raw(b, root ? ") lists as empty, a file in it is ENOENT \"No such file or "
				 "directory\""
			       : ") and a file in it fail with EACCES \"Permission denied\"");
		sep = "; ";
	}
	if ((e = denied_example(p, 2)) != NULL) {
		jb_raw(b, sep);
		raw_path(b, c, e->path);
		jb_raw(b, " holds only ");
		raw_some(b, c, (const char *const *)e->keep, e->nkeep, 0);
		jb_raw(b, ": any other file in it (a key) is ENOENT \"No such file or directory\"");
	}
}

static void refusal_network(struct jbuf *b, const cordon *c)
{
	if (c->network == CORDON_NETWORK_ALLOW && netproxy_explain(b, c)) {
		if (netproxy_enforced(c))
			return;
		jb_raw(b, "; ");
	}
	jb_raw(b, "--network off: ");
	if (layer_on(c, LAYER_SEATBELT)) {
		jb_raw(b, "a connect or send to an IP address, loopback included, fails with "
			  "EPERM \"Operation not permitted\"");
		return;
	}
	if (layer_on(c, LAYER_NETNS))
		jb_raw(b, "a connect out fails with ENETUNREACH \"Network is unreachable\", one "
			  "to the host's loopback services with ECONNREFUSED \"Connection "
			  "refused\"");
	else
		jb_raw(b, "making an IP socket, loopback too, fails with EACCES \"Permission "
			  "denied\"");
	jb_raw(b, " (curl: \"Couldn't connect to server\"), a name lookup with EAI_AGAIN "
		  "\"Temporary failure in name resolution\" (curl: \"Could not resolve host\", "
		  "npm: EAI_AGAIN)");
}

static void refusal_unix_socket(struct jbuf *b, const cordon *c)
{
	jb_raw(b, "Unix sockets: a connect or send to one outside the writable set (not "
		  "--allow-socket: an ssh or gpg agent, docker.sock) fails with ");
	jb_raw(b, layer_on(c, LAYER_SEATBELT) ? "EPERM \"Operation not permitted\""
					      : "EACCES \"Permission denied\"");
}

static void refusal_env(struct jbuf *b, const cordon *c)
{
	char num[96];
	size_t n = c->env_removed.n;
	snprintf(num, sizeof(num), "environment: %zu variable%s of the secret list removed (", n,
		 n == 1 ? "" : "s");
	jb_raw(b, num);
	raw_some(b, c, (const char *const *)c->env_removed.v, n, 0);
	jb_raw(b, "): unset for the command; --env NAME passes one");
}

/* What the bounds in force look like when the command meets them. */
static void refusal_limit(struct jbuf *b, const cordon *c)
{
	char num[160];
	const char *sep = "";
	if (c->max_procs > 0 && c->procs_by != LIMIT_BY_NONE) {
		snprintf(num, sizeof(num),
			 "--max-procs %llu: fork or thread creation failing with EAGAIN "
			 "\"Resource temporarily unavailable\" met it",
			 (unsigned long long)c->max_procs);
		jb_raw(b, num);
		sep = "; ";
	}
	if (c->max_memory > 0 && c->memory_by == LIMIT_BY_CGROUP) {
		jb_raw(b, sep);
		jb_raw(b, "--max-memory: a process killed by SIGKILL (the run's cgroup out of "
			  "memory) or an allocation failing met it");
		sep = "; ";
	} else if (c->max_memory > 0 && c->memory_by == LIMIT_BY_RLIMIT_DATA) {
		jb_raw(b, sep);
		jb_raw(b, "--max-memory: an allocation failing with ENOMEM \"Cannot allocate "
			  "memory\" (per process) met it");
		sep = "; ";
	}
	if (c->max_tmp > 0 && c->tmp_by != LIMIT_BY_NONE) {
		jb_raw(b, sep);
		jb_raw(b, c->tmp_shm
				  ? "--max-tmp: ENOSPC \"No space left on device\" in $TMPDIR, "
				    "/tmp or /dev/shm (one budget) met it"
				  : "--max-tmp: ENOSPC \"No space left on device\" in $TMPDIR or "
				    "/tmp met it");
	}
}

/* Whether this run's policy can cause refusal k (confinement applied). */
static int refusal_applies(const cordon *c, enum refusal_id k)
{
	const struct decision *d = &c->dec;
	switch (k) {
	case REFUSAL_WRITE:
		return 1;
	case REFUSAL_READ:
		for (size_t i = 0; i < c->pol.ndeny; i++)
			if (c->pol.deny[i].enforced != DENY_BY_NONE)
				return 1;
		return 0;
	case REFUSAL_NETWORK:
		return c->network != CORDON_NETWORK_ON && d->network_listed &&
		       !(d->cov.gaps & (1u << GAP_NETWORK));
	case REFUSAL_UNIX_SOCKET:
		return !(d->cov.gaps & (1u << GAP_UNIX_SOCKETS));
	case REFUSAL_ENV:
		return c->env_removed.n > 0;
	case REFUSAL_LIMIT:
		return (c->max_procs > 0 && c->procs_by != LIMIT_BY_NONE) ||
		       (c->max_memory > 0 && (c->memory_by == LIMIT_BY_CGROUP ||
					      c->memory_by == LIMIT_BY_RLIMIT_DATA)) ||
		       (c->max_tmp > 0 && c->tmp_by != LIMIT_BY_NONE);
	case REFUSAL_COUNT:
		break;
	}
	return 0;
}

/* What refusal k looks like to the command, as text (one line). */
static void refusal_means(struct jbuf *b, const cordon *c, enum refusal_id k)
{
	switch (k) {
	case REFUSAL_WRITE:
		refusal_write(b, c);
		break;
	case REFUSAL_READ:
		refusal_read(b, c, geteuid() == 0);
		break;
	case REFUSAL_NETWORK:
		refusal_network(b, c);
		break;
	case REFUSAL_UNIX_SOCKET:
		refusal_unix_socket(b, c);
		break;
	case REFUSAL_ENV:
		refusal_env(b, c);
		break;
	case REFUSAL_LIMIT:
		refusal_limit(b, c);
		break;
	case REFUSAL_COUNT:
		break;
	}
}

/* The exit event's "refusals": {kind, means} per kind of refusal this
 * run's policy can cause; null when confinement was not applied. */
static void write_refusals(struct jbuf *b, const cordon *c)
{
	if (!c->dec.applied) {
		jb_raw(b, "null");
		return;
	}
	int first = 1;
	jb_raw(b, "[");
	for (int k = 0; k < REFUSAL_COUNT; k++) {
		if (!refusal_applies(c, (enum refusal_id)k))
			continue;
		struct jbuf m = { 0 };
		refusal_means(&m, c, (enum refusal_id)k);
		char *text = jb_finish(&m);
		jb_raw(b, first ? "{" : ",{");
		first = 0;
		jb_key(b, "kind");
		jb_str(b, cordon_refusal_ids[k].id);
		jb_key(b, "means");
		jb_str(b, text != NULL ? text : "");
		jb_raw(b, "}");
		free(text);
	}
	jb_raw(b, "]");
}

char *status_explain(const cordon *c, const struct cordon_result *r)
{
	struct jbuf b = { 0 };
	char num[64];
	if (!c->dec.applied)
		return NULL;
	jb_raw(&b, "cordon: explain: the command ran confined and ");
	if (r->signal > 0)
		snprintf(num, sizeof(num), "was killed by signal %d", r->signal);
	else
		snprintf(num, sizeof(num), "exited with status %d", r->exit_code);
	jb_raw(&b, num);
	for (int k = 0; k < REFUSAL_COUNT; k++)
		if (refusal_applies(c, (enum refusal_id)k)) {
			jb_raw(&b, "; ");
			refusal_means(&b, c, (enum refusal_id)k);
		}
	return jb_finish(&b);
}
