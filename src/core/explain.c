/*
 * What a refusal by cordon looks like to the command, on this machine and
 * for this run's policy: the exit event's possible_refusals, and the
 * --explain lines after a confined command failed. cordon sees few
 * refusals (a write refused by the kernel is the command's error alone):
 * these say what one would look like, per kind the policy can cause.
 * --explain is short (a line of the errors each kind gives, and how to
 * have the rest) unless cordon saw a refusal of the run's (its proxy
 * refused a connection, its memory bound killed a process): then, and
 * with --explain=full, the whole text.
 */
#include "handle.h"
#include "json.h"
#include "netproxy.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	const char *ro[sizeof(p->caches) / sizeof(p->caches[0])];
	size_t nvars = 0, nmissing = 0, nro = 0;
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
		else if (e->state == CACHE_READ_ONLY)
			ro[nro++] = e->path;
	}
	if (nvars > 0) {
		jb_raw(b, "; tool caches moved under the state dir's caches/ (cold: they did not "
			  "exist, or no mount layer shows yours through an overlay), named to the "
			  "command by ");
		raw_some(b, c, vars, nvars, 0);
	}
	if (nro > 0) {
		jb_raw(b, "; tool caches left read-only (no mount layer, and no variable moves "
			  "them alone): ");
		raw_some(b, c, ro, nro, 1);
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
	if (d->cov.gaps & (1ull << GAP_TMP_SHARED)) {
		jb_raw(b, "; /tmp and /var/tmp are the machine's and read-only here "
			  "(tmp_shared_read_only: ");
		/* Why: only where there is no mount layer to make one. */
		if (layer_on(c, LAYER_SEATBELT))
			jb_raw(b, "macOS gives a run no /tmp of its own");
		else if (!layer_on(c, LAYER_MOUNTNS))
			jb_raw(b, "no mount layer here: cordon probe says why");
		else
			jb_raw(b, "the mount layer could not make one: open_tree(2) or "
				  "move_mount(2) refused");
		jb_raw(b, "): write temporary files under $TMPDIR");
	}
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
		       !(d->cov.gaps & (1ull << GAP_NETWORK));
	case REFUSAL_UNIX_SOCKET:
		return !(d->cov.gaps & (1ull << GAP_UNIX_SOCKETS));
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

void status_possible_refusals(struct jbuf *b, const cordon *c)
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

/* What a refusal of kind k gives the command, in a few words (the short
 * --explain's): the errors of refusal_means, without the paths. */
static void refusal_brief(struct jbuf *b, const cordon *c, enum refusal_id k)
{
	char num[64];
	int seatbelt = layer_on(c, LAYER_SEATBELT);
	switch (k) {
	case REFUSAL_WRITE:
		jb_raw(b, seatbelt ? "a write outside the writable set: EPERM"
			  : layer_on(c, LAYER_MOUNTNS)
				  ? "a write outside the writable set: EROFS "
				    "(EXDEV for a rename or link across its edge)"
				  : "a write outside the writable set: EACCES "
				    "(EXDEV for a link across its edge)");
		if (!c->scratch_home && c->nhomes > 0 &&
		    (c->dec.offered & (1u << LAYER_SCRATCH_HOME)) &&
		    !policy_inside_writable(&c->pol, c->homes[0]))
			jb_raw(b, ", under the home too (--scratch-home lets them succeed)");
		break;
	case REFUSAL_READ:
		jb_raw(b, seatbelt ? "a denied secret: EPERM"
			  : c->dec.cov.denies_reads == DENY_BY_MOUNT
				  ? "a denied secret: reads empty, or ENOENT or EACCES"
				  : "a denied secret: EACCES");
		break;
	case REFUSAL_NETWORK:
		if (c->network == CORDON_NETWORK_ALLOW && netproxy_enforced(c))
			jb_raw(b,
			       "the network: only through the proxy of HTTPS_PROXY, to the hosts "
			       "allowed (403 or a SOCKS error else)");
		else
			jb_raw(b, seatbelt ? "the network: EPERM"
				  : layer_on(c, LAYER_NETNS)
					  ? "the network: ENETUNREACH or "
					    "ECONNREFUSED, a name lookup EAI_AGAIN"
					  : "the network: EACCES, a name lookup "
					    "EAI_AGAIN");
		break;
	case REFUSAL_UNIX_SOCKET:
		jb_raw(b,
		       seatbelt ? "a Unix socket outside: EPERM" : "a Unix socket outside: EACCES");
		break;
	case REFUSAL_ENV:
		snprintf(num, sizeof(num), "%zu secret variable%s unset", c->env_removed.n,
			 c->env_removed.n == 1 ? "" : "s");
		jb_raw(b, num);
		break;
	case REFUSAL_LIMIT:
		jb_raw(b, "a bound met: ");
		jb_raw(b, c->max_procs > 0 && c->procs_by != LIMIT_BY_NONE ? "EAGAIN (--max-procs) "
									   : "");
		jb_raw(b, c->max_memory > 0 && c->memory_by == LIMIT_BY_CGROUP
				  ? "SIGKILL (--max-memory) "
			  : c->max_memory > 0 && c->memory_by == LIMIT_BY_RLIMIT_DATA
				  ? "ENOMEM (--max-memory) "
				  : "");
		jb_raw(b, c->max_tmp > 0 && c->tmp_by != LIMIT_BY_NONE ? "ENOSPC (--max-tmp)" : "");
		break;
	case REFUSAL_COUNT:
		break;
	}
}

/* A refusal of this run that cordon saw, in words, into buf; NULL when
 * none. cordon sees only a few: its proxy's (a connection refused), and
 * its memory bound's likely one (the run's cgroup holds it, and the
 * command died of SIGKILL without a timeout). */
static const char *refusal_seen(const cordon *c, const struct cordon_result *r, char *buf, size_t n)
{
	unsigned long refused = netproxy_refused(c);
	if (refused > 0) {
		snprintf(buf, n, "the proxy refused %lu of the run's connection%s", refused,
			 refused == 1 ? "" : "s");
		return buf;
	}
	if (r->signal == SIGKILL && !r->timed_out && c->max_memory > 0 &&
	    c->memory_by == LIMIT_BY_CGROUP) {
		snprintf(buf, n,
			 "the command died of SIGKILL with --max-memory in force: the run's "
			 "memory bound likely killed it");
		return buf;
	}
	return NULL;
}

char *status_explain(const cordon *c, const struct cordon_result *r)
{
	struct jbuf b = { 0 };
	char num[64], seen[160];
	if (!c->dec.applied)
		return NULL;
	const char *why = refusal_seen(c, r, seen, sizeof(seen));
	int full = c->explain == CORDON_EXPLAIN_FULL || why != NULL;
	jb_raw(&b, "cordon: explain: the command ran confined and ");
	if (r->signal > 0)
		snprintf(num, sizeof(num), "was killed by signal %d", r->signal);
	else
		snprintf(num, sizeof(num), "exited with status %d", r->exit_code);
	jb_raw(&b, num);
	if (why != NULL) {
		jb_raw(&b, "; cordon saw a refusal: ");
		jb_raw(&b, why);
	}
	const char *sep = full ? "; " : "; what a refusal by cordon gives it: ";
	for (int k = 0; k < REFUSAL_COUNT; k++) {
		if (!refusal_applies(c, (enum refusal_id)k))
			continue;
		jb_raw(&b, sep);
		sep = "; ";
		if (full)
			refusal_means(&b, c, (enum refusal_id)k);
		else
			refusal_brief(&b, c, (enum refusal_id)k);
	}
	if (c->dec.cov.gaps & (1ull << GAP_REVIEW)) {
		/* Not a refusal, but what the failure left: the writes are in
		 * the workspace, with no held run to drop. */
		jb_raw(&b, "; --review held nothing (review_not_held: ");
		jb_raw(&b, layer_on(c, LAYER_SEATBELT) ? "macOS: Seatbelt cannot redirect a write"
						       : "no mount layer here, Landlock alone: "
							 "cordon probe says why");
		jb_raw(&b, "): the command's writes landed in the workspace at once, and "
			   "cordon changes, diff and apply have nothing of this run");
	}
	if (!full)
		jb_raw(&b, "\ncordon: explain: what each means in this run, and where: "
			   "--explain=full, or the exit event's possible_refusals");
	return jb_finish(&b);
}
