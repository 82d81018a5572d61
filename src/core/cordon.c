/*
 * The handle's life cycle: begin -> spawn/wait -> end. The decision
 * (backend, applied, reason, coverage) is made once in cordon_begin() and
 * stored in the handle, which every thread shares, so a spawn from any
 * thread sees the same decision. The setters are in config.c.
 */
#include "handle.h"
#include "caches.h"
#include "netproxy.h"
#include "options.h"
#include "path.h"
#include "policyfile.h"
#include "review.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

const char *cordon_version(void)
{
	return CORDON_VERSION;
}

cordon *cordon_new(void)
{
	cordon *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->mode = CORDON_MODE_AUTO;
	c->caches = CORDON_CACHE_DEFAULT;
	c->default_protect = 1;
	c->default_deny_read = 1;
	c->status_fd = -1;
	c->status_file_fd = -1;
	c->tmp_lock_fd = -1;
	c->id = error_new_id();
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	if (pthread_mutex_init(&c->spawn_lock, NULL) != 0) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	return c;
}

size_t cordon_tampered_count(const cordon *c)
{
	return c != NULL ? gitguard_ntampered(c) : 0;
}

const char *cordon_tampered_path(const cordon *c, size_t i)
{
	const struct tamper *t = c != NULL ? gitguard_tamper(c, i) : NULL;
	return t != NULL ? t->path : NULL;
}

const char *cordon_tampered_moved(const cordon *c, size_t i)
{
	const struct tamper *t = c != NULL ? gitguard_tamper(c, i) : NULL;
	return t != NULL ? t->moved : NULL;
}

/* The backend's start, unless the run has what it made already. */
static void early_start(cordon *c)
{
	const struct backend *be = backend_for_platform();
	if (c->early == NULL && be->start != NULL)
		c->early = be->start(c->max_abi, c->network != CORDON_NETWORK_ON);
}

static void early_free(cordon *c)
{
	const struct backend *be = backend_for_platform();
	if (c->early != NULL && be->release != NULL)
		be->release(c->early);
	c->early = NULL;
}

static void release_run(cordon *c)
{
	early_free(c);
	netproxy_release(c);
	gitguard_release(c);
	agentcfg_free(c);
	runtmp_remove(c);
	passfile_release(c);
	launch_release(&c->launch);
	/* Every process of the run is gone, and with the launch its mount
	 * namespace (and --review's overlay): the caches' writes into their
	 * layers, the review's record. */
	cachelayer_end(c);
	review_release(c);
	env_free(c->envp);
	c->envp = NULL;
	strv_free(&c->env_removed);
	if (c->status_file_fd >= 0)
		close(c->status_file_fd);
	c->status_file_fd = -1;
}

void cordon_free(cordon *c)
{
	if (c == NULL)
		return;
	if (c->stage == ST_BEGUN)
		(void)cordon_end(c);
	release_run(c);
	/* Commands never waited for: their entries (they were killed at
	 * the end). */
	while (c->live != NULL) {
		struct live_proc *e = c->live;
		c->live = e->next;
		if (e->pidfd >= 0)
			close(e->pidfd);
		free(e);
	}
	gitguard_free(c);
	review_refused_free(c);
	netproxy_free(c);
	options_free(c);
	policy_free(&c->pol);
	free(c->workspace_opt);
	free(c->cwd_opt);
	free(c->state_dir_opt);
	free(c->status_file);
	free(c->keep_fds);
	strv_free(&c->allow_write);
	strv_free(&c->pass_file);
	strv_free(&c->allow_socket);
	strv_free(&c->protect);
	strv_free(&c->deny_read);
	strv_free(&c->allow_read);
	strv_free(&c->allow_agent_config);
	strv_free(&c->envspec);
	pthread_mutex_destroy(&c->spawn_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* ---- the decision ---- */

/* The identifier lists of the bit sets. */
static void decision_finish(struct decision *d)
{
	size_t k = 0;
	for (int i = 0; i < LAYER_COUNT; i++)
		if ((d->cov.layers & (1u << i)) &&
		    (d->network_listed || !(d->cov.net_layers & (1u << i))))
			d->layer_list[k++] = cordon_layer_ids[i].id;
	d->layer_list[k] = NULL;
	k = 0;
	for (int i = 0; i < GAP_COUNT; i++)
		if (d->cov.gaps & (1ull << i))
			d->gap_list[k++] = cordon_gap_ids[i].id;
	d->gap_list[k] = NULL;
}

/* The decision; with judge_home, the scratch home's layer is offered
 * only where it can be made on this run's home (a run that asks for one,
 * and the probe, whose answer is such a run's). */
static void decide_into(const cordon *c, struct decision *d, int judge_home)
{
	struct backend_probe pr;

	memset(d, 0, sizeof(*d));
	if (c->mode == CORDON_MODE_OFF) {
		d->backend = &cordon_backend_none;
		d->reason = REASON_OFF;
		d->cov.gaps = 1ull << GAP_UNCONFINED;
		decision_finish(d);
		return;
	}
	d->backend = backend_for_platform();
	memset(&pr, 0, sizeof(pr));
	const char *home = judge_home && c->nhomes > 0 ? c->homes[0] : NULL;
	d->backend->probe(&(struct probe_opts){ .max_abi = c->max_abi, .scratch_home = home }, &pr);
	d->abi = pr.abi;
	d->kernel_abi = pr.kernel_abi;
	if (pr.available) {
		d->applied = 1;
		d->cov = pr.cov;
		d->cov.layers |= 1u << LAYER_FDS_CLOSED; /* spawn.c closes them */
		d->offered = d->cov.layers;
		/* Used, and listed, only by a run with a scratch home. */
		d->cov.layers &= ~(1u << LAYER_SCRATCH_HOME);
		/* --allow-userns: not used, and the run says so. */
		if (c->allow_userns && (d->cov.layers & (1u << LAYER_USERNS))) {
			d->cov.layers &= ~(1u << LAYER_USERNS);
			d->cov.unsure &= ~(1u << LAYER_USERNS);
			d->cov.gaps |= 1ull << GAP_USERNS;
		}
	} else {
		d->cov.gaps = 1ull << GAP_UNCONFINED;
		d->detail = pr.detail;
		if (c->mode == CORDON_MODE_REQUIRED) {
			d->reason = REASON_UNAVAILABLE;
			d->cause = pr.reason;
		} else {
			d->reason = pr.reason;
		}
	}
	decision_finish(d);
}

static void decide(cordon *c)
{
	decide_into(c, &c->dec, c->scratch_home);
}

/* Whether what the process knows now would change this run's decision
 * (another run, or the trial, may have learnt of a refusal since). */
static int decision_changed(cordon *c)
{
	struct decision now;
	decide_into(c, &now, c->scratch_home);
	if (now.applied == c->dec.applied && now.offered == c->dec.offered) {
		c->dec.cov.unsure = now.cov.unsure;
		return 0;
	}
	return 1;
}

int cordon_probe(cordon *c)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	/* The probe tries every layer (a throw-away child), so its answer
	 * is known, not assumed. */
	const struct backend *be = backend_for_platform();
	if (c->mode != CORDON_MODE_OFF)
		be->probe(&(struct probe_opts){ .settle = 1 }, NULL);
	/* The home a run would cover with a scratch home (none when it
	 * cannot be had: a run would have none either). */
	if (homes_load(c) != 0)
		c->nhomes = 0;
	decide_into(c, &c->dec, 1);
	c->stage = ST_PROBED;
	return 0;
}

static int fd_writable(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl >= 0 && ((fl & O_ACCMODE) == O_WRONLY || (fl & O_ACCMODE) == O_RDWR);
}

static int check_fds(cordon *c)
{
	if (c->status_fd >= 0 && !fd_writable(c->status_fd))
		return cordon_fail(c, CORDON_EINVAL, "status fd %d is not open for writing",
				   c->status_fd);
	for (size_t i = 0; i < c->nkeep; i++)
		if (fcntl(c->keep_fds[i], F_GETFD) < 0)
			return cordon_fail(c, CORDON_EINVAL, "--keep-fd %d is not open",
					   c->keep_fds[i]);
	return 0;
}

/* The network: the backend offers its mechanisms (the layers network_*,
 * coverage.net_layers); they are reported only for --network off (and
 * allow, which is off but for the proxy). 1 when off cannot be enforced at
 * all, 2 when the command is given a network socket, 3 when an allow-list
 * cannot be enforced (no network namespace: the network is off). */
static int network_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	d->cov.layers &= ~d->cov.net_layers;
	d->network_listed = 0;
	if (c->network == CORDON_NETWORK_ON || !d->applied)
		return 0;
	d->network_listed = 1;
	d->cov.layers |= d->cov.net_off;
	if (d->cov.net_whole)
		d->cov.gaps &= ~(1ull << GAP_NETWORK);
	if (d->cov.net_whole && !d->cov.net_own_loopback)
		d->cov.gaps |= 1ull << GAP_LOOPBACK;
	/* The proxy is the only way out where the run has its own network
	 * namespace (Linux) or the profile allows only it (macOS). */
	int allow_unenforced = 0;
	if (c->network == CORDON_NETWORK_ALLOW && netproxy_enforced(c))
		d->cov.layers |= 1u << LAYER_NET_PROXY;
	else if (c->network == CORDON_NETWORK_ALLOW)
		allow_unenforced = 1;
	if (allow_unenforced)
		d->cov.gaps |= 1ull << GAP_NETWORK_ALLOWLIST;
	/* A network socket the command is given (stdio, --keep-fd) was made
	 * outside the run's namespace and filters: it reaches the network. */
	if (inherited_network_socket(c)) {
		d->cov.gaps |= 1ull << GAP_INHERITED_SOCKET;
		return 2;
	}
	if (allow_unenforced)
		return 3;
	/* Landlock's TCP rights alone leave UDP and raw sockets: still a
	 * gap, and not what --network off promises. */
	return !d->cov.net_whole;
}

/* The resource bounds asked for: a gap for each the backend could not
 * apply, and for memory bounded per process only. 1 when one of them
 * does not bound the whole run (what "required" refuses: the user asked
 * for a bound of the run; a per-process one lets each of N processes use
 * it all). */
static int limit_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	int whole = 1;
	if (!d->applied)
		return c->max_procs > 0 || c->max_memory > 0 || c->max_tmp > 0;
	if ((c->max_procs > 0 && c->procs_by == LIMIT_BY_NONE) ||
	    (c->max_memory > 0 && c->memory_by == LIMIT_BY_NONE) ||
	    (c->max_tmp > 0 && c->tmp_by == LIMIT_BY_NONE)) {
		d->cov.gaps |= 1ull << GAP_LIMIT;
		whole = 0;
	}
	if (c->max_memory > 0 && c->memory_by == LIMIT_BY_RLIMIT_DATA) {
		d->cov.gaps |= 1ull << GAP_MEMORY_PER_PROCESS;
		whole = 0;
	}
	return !whole;
}

/* "required" refused a bound: which, and why. */
static int limit_refusal(cordon *c)
{
	const char *what[3] = { "", "", "" };
	if (c->max_procs > 0 && c->procs_by == LIMIT_BY_NONE)
		what[0] =
			" --max-procs (neither a cgroup of the run nor, not as root, its own user "
			"namespace here)";
	if (c->max_memory > 0 && c->memory_by != LIMIT_BY_CGROUP)
		what[1] = " --max-memory (no cgroup of the run here: only each process could be "
			  "bounded)";
	if (c->max_tmp > 0 && c->tmp_by == LIMIT_BY_NONE)
		what[2] = " --max-tmp (no mount layer here)";
	return cordon_fail(c, CORDON_EUNAVAILABLE,
			   "confinement unavailable (%s): cannot bound the whole run by%s%s%s",
			   reason_name(REASON_LIMIT_NOT_ENFORCEABLE), what[0], what[1], what[2]);
}

/* The protected paths: enforced when the backend's coverage says so, and
 * how each is held. One that does not exist is held at the end wherever
 * its creation cannot be refused (agentcfg.c moves aside what is made
 * there): no gap, no refusal. 1 when one the user named that exists is
 * not enforced. */
static int protect_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	int explicit_unenforced = 0;
	for (size_t i = 0; i < c->pol.nprot; i++) {
		struct protect_entry *e = &c->pol.prot[i];
		if (e->absent) {
			e->enforced = d->applied && d->cov.refuses_absent;
			e->held = e->enforced ? HELD_CREATION_REFUSED : HELD_MOVED_AT_END;
			continue;
		}
		e->enforced = d->cov.protects;
		e->held = e->enforced  ? HELD_READ_ONLY
			  : e->checked ? HELD_CHECKED_AT_END
				       : HELD_NONE;
		if (e->enforced)
			continue;
		d->cov.gaps |= 1ull << GAP_PROTECT;
		explicit_unenforced |= e->explicit_;
	}
	/* Where a path is writable, the agent-config guard records it now
	 * (before any command), so that the end can put it back. */
	agentcfg_hold(c);
	return explicit_unenforced;
}

/* Denied reads: covers of the mount layer, what the Landlock read layer
 * does not grant (not a writable tree's inside), or Seatbelt's denials.
 * Readable disks and capture devices: the mount layer covers them; any
 * other way leaves them (the secrets can be read raw, what the user
 * types or sees read live). 1 when a path the user named is left
 * readable. */
static int deny_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	int deny_unenforced = 0;
	for (size_t i = 0; i < c->pol.ndeny; i++) {
		const struct deny_entry *e = &c->pol.deny[i];
		enum deny_by by = d->applied && !e->left_open ? d->cov.denies_reads : DENY_BY_NONE;
		if (by == DENY_BY_LANDLOCK &&
		    (c->pol.reads_unbuilt || !deny_grant_holds(&c->pol, e)))
			by = DENY_BY_NONE;
		c->pol.deny[i].enforced = by;
		if (by != DENY_BY_NONE) {
			d->cov.layers |= 1u << LAYER_READ_DENY;
		} else if (d->applied) {
			d->cov.gaps |= 1ull << GAP_SECRETS;
			deny_unenforced |= c->pol.deny[i].explicit_;
		}
	}
	if (d->applied && c->pol.secrets_scan_partial)
		d->cov.gaps |= 1ull << GAP_SECRETS;
	if (d->applied && c->pol.blockdevs.n > 0 && d->cov.denies_reads != DENY_BY_MOUNT)
		d->cov.gaps |= 1ull << GAP_BLOCK_DEVICES;
	if (d->applied && c->pol.capturedevs.n > 0 && d->cov.denies_reads != DENY_BY_MOUNT)
		d->cov.gaps |= 1ull << GAP_CAPTURE_DEVICES;
	return deny_unenforced;
}

/* The scratch home's layer is listed only for a run that has one. 1 when
 * the run asked for one that cannot be made. */
static int scratch_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	int scratch_unmade = 0;
	if (!d->applied || c->pol.scratch_home == NULL)
		d->cov.layers &= ~(1u << LAYER_SCRATCH_HOME);
	else if (d->offered & (1u << LAYER_SCRATCH_HOME))
		d->cov.layers |= 1u << LAYER_SCRATCH_HOME;
	else
		scratch_unmade = 1;
	if (scratch_unmade)
		d->cov.gaps |= 1ull << GAP_SCRATCH_HOME;
	return scratch_unmade;
}

/* What the controls the user asked for left unenforced (policy_coverage). */
struct unenforced {
	int explicit_protect, explicit_deny, network, limit, scratch, review;
};

/* The reason "required" refuses a run that leaves u unenforced, else
 * REASON_NONE: a control the user asked for is never dropped silently. */
static enum reason_id required_refusal(const cordon *c, const struct unenforced *u)
{
	const struct decision *d = &c->dec;
	if (c->mode != CORDON_MODE_REQUIRED)
		return REASON_NONE;
	if (u->review)
		return REASON_REVIEW_NOT_ENFORCEABLE;
	/* Root keeping its capabilities is not confined in effect: it may
	 * load a kernel module, which no layer refuses. */
	if (d->cov.gaps & (1ull << GAP_CAPABILITIES))
		return REASON_CAPABILITIES_NOT_REDUCIBLE;
	if (u->network == 2)
		return REASON_NETWORK_SOCKET_INHERITED;
	if (u->network == 3)
		return REASON_NETWORK_ALLOWLIST_NOT_ENFORCEABLE;
	if (u->limit)
		return REASON_LIMIT_NOT_ENFORCEABLE;
	if (u->network)
		return REASON_NETWORK_NOT_ENFORCEABLE;
	if (u->explicit_protect)
		return REASON_PROTECT_NOT_ENFORCEABLE;
	if (u->explicit_deny)
		return REASON_DENY_READ_NOT_ENFORCEABLE;
	if (u->scratch)
		return REASON_SCRATCH_HOME_NOT_ENFORCEABLE;
	if (c->pol.nsockets > 0 && (d->cov.gaps & (1ull << GAP_UNIX_SOCKETS)) != 0)
		return REASON_SOCKET_NOT_ENFORCEABLE;
	return REASON_NONE;
}

/* Gaps and refusals that depend on this run's policy: protections are
 * enforced when the backend's coverage says so. The reason to refuse
 * when a control the user asked for cannot be enforced in required
 * mode, else REASON_NONE. */
static enum reason_id policy_coverage(cordon *c)
{
	struct decision *d = &c->dec;
	struct unenforced u = { 0 };

	if (c->nkeep > 0)
		d->cov.gaps |= 1ull << GAP_KEPT_FDS;
	/* The private /tmp and /var/tmp (layer-tmp.c): listed when it made
	 * one; a home or working directory shown read-only there is a gap
	 * (its FIFOs). */
	if (c->pol.nptmp == 0)
		d->cov.layers &= ~(1u << LAYER_PRIVATE_TMP);
	if (d->applied && c->pol.tmp_read_only_shown)
		d->cov.gaps |= 1ull << GAP_TMP_TREE_FIFOS;
	if (stdio_metadata_gap(c))
		d->cov.gaps |= 1ull << GAP_STDIO;
	u.explicit_protect = protect_coverage(c);
	u.explicit_deny = deny_coverage(c);
	/* Without a PID namespace, what leaves the command's process group
	 * still comes to a child subreaper, which kills it at the end. */
	if (c->subreaper)
		d->cov.gaps &= ~(1ull << GAP_SURVIVORS);
	/* Repositories the git guard did not search for: not guarded. */
	const struct strv *unsearched = gitguard_unsearched(c);
	if (unsearched != NULL && unsearched->n > 0)
		d->cov.gaps |= 1ull << GAP_GIT_SEARCH;
	u.network = network_coverage(c);
	u.limit = limit_coverage(c);
	u.scratch = scratch_coverage(c);
	/* Again: a decision made again at the end (no command ran) may
	 * have lost the mount layer. */
	u.review = review_coverage(c) == REVIEW_REFUSED;
	/* After it: a --review that holds nothing has nothing judged. */
	d->cov.gaps |= gitguard_depth_gaps(c);
	decision_finish(d);
	return required_refusal(c, &u);
}

static void emit_start(cordon *c)
{
	char *json = status_start_json(c);
	status_emit(c, json);
	free(json);
	c->start_written = 1;
	netproxy_started(c);
}

/* The run ends before any command ran: its start event if not out yet,
 * and an exit event of 125. */
static void end_unrun(cordon *c)
{
	struct cordon_result r = { 125, 0, 0, 0 };
	if (!c->start_written)
		emit_start(c);
	char *json = status_exit_json(c, &r, r.exit_code);
	status_emit(c, json);
	free(json);
	pthread_mutex_lock(&c->lock);
	c->last = r;
	c->have_last = 1;
	pthread_mutex_unlock(&c->lock);
	c->stage = ST_ENDED;
}

static void emit_refusal(cordon *c, enum reason_id cause)
{
	c->dec.applied = 0;
	c->dec.reason = REASON_UNAVAILABLE;
	c->dec.cause = cause;
	c->dec.cov.layers = 0;
	c->dec.cov.gaps = 1ull << GAP_UNCONFINED;
	decision_finish(&c->dec);
	end_unrun(c);
}

/* The run as the backend sees it: built once per plan, from the handle,
 * and never changed while the backend prepares. */
static void run_spec_make(const cordon *c, struct run_spec *run)
{
	*run = (struct run_spec){
		.pol = &c->pol,
		.dec = &c->dec,
		.rundir = c->rundir,
		.homes = (const char(*)[CORDON_PATH_MAX])c->homes,
		.nhomes = c->nhomes,
		.max_procs = c->max_procs,
		.max_memory = c->max_memory,
		.max_tmp = c->max_tmp,
		.run_id = c->run_id,
		.review_dir = c->rv != NULL ? c->rv->dir : NULL,
		.started = c->early,
	};
}

/* What the backend's prepare learnt, into the handle (the status event
 * reads it there). */
static void run_result_take(cordon *c, struct run_result *res)
{
	c->launch = res->launch;
	if (res->started_taken)
		c->early = NULL;
	if (res->started_adopted)
		c->early_adopted = 1;
	if (res->tmp_planned) {
		policy_clear_private_tmp(&c->pol);
		memcpy(c->pol.ptmp, res->ptmp, sizeof(c->pol.ptmp));
		c->pol.nptmp = res->nptmp;
		c->pol.tmp_read_only_shown = res->tmp_read_only_shown;
	}
	if (res->reads_unbuilt >= 0)
		c->pol.reads_unbuilt = res->reads_unbuilt;
	c->procs_by = res->procs_by;
	c->memory_by = res->memory_by;
	c->tmp_by = res->tmp_by;
	c->tmp_shm = res->tmp_shm;
	c->pol.held_depth_unexpressed = res->held_depth_unexpressed;
}

/* The backend's prepare, for the run as it is now. 0, or its error with
 * its message. */
int run_prepare(cordon *c)
{
	struct run_spec run;
	struct run_result res = { .reads_unbuilt = -1 };
	run_spec_make(c, &run);
	int r = c->dec.backend->prepare(&run, &res);
	run_result_take(c, &res);
	if (r != 0) {
		launch_release(&c->launch); /* nothing half-prepared is ever used */
		if (res.error[0] != '\0')
			(void)cordon_fail(c, r, "%s", res.error);
	}
	return r;
}

/* The tool caches for the decision: seen through overlays where its
 * backend can make them, else moved by their variables. Resolved again
 * when a plan made again changes that (a mount layer only assumed to
 * work was refused): what the first made is dropped, its run dirs
 * removed. 0, or an error with its message. */
static int plan_caches(cordon *c)
{
	int layered = cachelayer_usable(c);
	if (c->caches_resolved && layered == c->caches_layered)
		return 0;
	if (c->caches_resolved) {
		cachelayer_end(c); /* nothing ran: nothing to merge */
		policy_drop_caches(&c->pol);
	}
	int r = caches_resolve(c, layered);
	if (r != 0)
		return r;
	c->caches_resolved = 1;
	c->caches_layered = layered;
	return 0;
}

/* --review where the workspace's writes cannot be held aside: refused
 * in required mode (a control the user asked for is never dropped) and
 * off (which holds nothing: the two ask for opposite things); auto runs
 * without it, the gap review_not_held said (review_coverage). Where it
 * can be held, the run's review dir, once, before the backend's prepare. */
static int review_plan(cordon *c)
{
	enum review_hold h = review_coverage(c);
	if (h == REVIEW_HELD)
		return c->rv == NULL ? review_begin(c) : 0;
	if (h == REVIEW_GAP)
		return 0;
	if (c->rundir != NULL)
		runtmp_remove(c);
	emit_refusal(c, REASON_REVIEW_NOT_ENFORCEABLE);
	return cordon_fail(c, CORDON_EUNAVAILABLE, "%s (%s)",
			   cordon_reason_ids[REASON_REVIEW_NOT_ENFORCEABLE].text,
			   reason_name(REASON_REVIEW_NOT_ENFORCEABLE));
}

/* The decision, and the plan the backend prepares from it. 0, or a
 * CORDON_E* code; CORDON_EUNAVAILABLE when required mode refused (its
 * events are written; the run has ended). */
static int plan(cordon *c)
{
	int r;
	c->plans++;
	decide(c);
	/* Not started at the top of the run (a trial child was running
	 * then, whose answer decide had to wait for): now, beside the
	 * caches, the secrets and the rest of the plan. */
	if (c->dec.applied)
		early_start(c);
	if (c->mode == CORDON_MODE_REQUIRED && !c->dec.applied) {
		enum reason_id cause = c->dec.cause;
		runtmp_remove(c); /* not run: no temp dir in the event, none left */
		emit_refusal(c, cause);
		return cordon_fail(c, CORDON_EUNAVAILABLE, "confinement unavailable (%s): %s%s%s",
				   reason_name(cause), cordon_reason_ids[cause].text,
				   c->dec.detail ? "; " : "", c->dec.detail ? c->dec.detail : "");
	}
	if (c->review && (r = review_plan(c)) != 0)
		return r;
	if (c->mode != CORDON_MODE_OFF) {
		if (c->dec.applied && (r = plan_caches(c)) != 0)
			return r;
		if (policy_add_writable(&c->pol, c->rundir, 1, W_TMPDIR) != 0)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	if (c->dec.applied)
		policy_add_devices(&c->pol);
	/* Before the backend's prepare, which makes it. */
	if (c->dec.applied && (r = policy_scratch_home(c)) != 0)
		return r;
	if (c->pol.scratch_home != NULL)
		c->dec.cov.layers |= c->dec.offered & (1u << LAYER_SCRATCH_HOME);
	/* Once the writable set is whole (caches, the run's dir, devices):
	 * a denied path may not hold any of it. */
	if (c->mode != CORDON_MODE_OFF && !c->secrets_resolved) {
		if ((r = secrets_resolve(c)) != 0)
			return r;
		c->secrets_resolved = 1;
	}
	/* allow: off, but for the proxy's listener. */
	c->pol.network_off = c->network != CORDON_NETWORK_ON;
	if ((r = netproxy_plan(c)) != 0)
		return r;
	c->procs_by = c->memory_by = c->tmp_by = LIMIT_BY_NONE; /* the backend's prepare says */
	c->tmp_shm = 0;
	if (c->dec.applied && (r = run_prepare(c)) != 0)
		return r;
	early_free(c); /* not taken: not made for this decision */
	enum reason_id refuse = policy_coverage(c);
	if (refuse != REASON_NONE) {
		runtmp_remove(c);
		emit_refusal(c, refuse);
		if (refuse == REASON_LIMIT_NOT_ENFORCEABLE)
			return limit_refusal(c);
		return cordon_fail(c, CORDON_EUNAVAILABLE, "%s", cordon_reason_ids[refuse].text);
	}
	return 0;
}

/* The command's environment for the run's decision (env.c), made again
 * after a plan made again (CORDON_RUN_ID, the caches' variables may have
 * changed). 0 or an error. */
static int command_env(cordon *c)
{
	/* Secrets leave the environment whenever cordon confines or tries
	 * to (auto unconfined too: the same command sees the same
	 * environment on every host); off is a plain exec. CORDON_RUN_ID
	 * says the command runs confined: only when it does. */
	struct env_opts eo = {
		.clean = c->clean_env,
		.drop_secrets = c->mode != CORDON_MODE_OFF && c->default_deny_read,
		.specs = (const char *const *)c->envspec.v,
		.nspecs = c->envspec.n,
		.tmpdir = c->rundir,
		.run_id = c->dec.applied ? c->run_id : NULL,
		.set = (const char *const *)c->pol.cache_env.v,
		.nset = c->pol.cache_env.n,
	};
	env_free(c->envp);
	strv_free(&c->env_removed);
	c->envp = env_build((const char *const *)environ, &eo, &c->env_removed);
	if (c->envp == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	return workdir_env(c);
}

/* Plan again, what was prepared released first. */
static int replan(cordon *c)
{
	launch_release(&c->launch);
	int r = plan(c);
	/* After begin made it: the environment of the plan as it is now
	 * (CORDON_RUN_ID only when confined; the caches' variables). */
	if (r == 0 && c->envp != NULL)
		r = command_env(c);
	return r;
}

/* Plan again once every layer is known: after a refusal met on a layer
 * that was only assumed to work. */
static int plan_settled(cordon *c)
{
	c->dec.backend->probe(&(struct probe_opts){ .settle = 1 }, NULL);
	return replan(c);
}

/* A plan made again at a spawn failed: the run cannot go on with what
 * it prepared before (released), so it ends here, as a refusal does:
 * its events written (exit code 125), its temp dir removed. Returns e. */
static int run_failed(cordon *c, int e)
{
	if (c->stage == ST_BEGUN)
		end_unrun(c);
	release_run(c);
	return e;
}

/* The writable set, the caches' locations cordon must not follow links
 * in, then every path checked again against both (policy.c, caches.c). */
static int resolve_policy(cordon *c)
{
	int r;
	if ((r = policy_resolve_writable(c)) == 0 && (r = caches_untrusted(c)) == 0)
		r = policy_resolve(c);
	return r == CORDON_ENOMEM ? cordon_fail(c, r, "out of memory") : r;
}

static int begin(cordon *c)
{
	int r;
	if ((r = options_check(c)) != 0 || (r = check_fds(c)) != 0)
		return r;
	status_run_begins(c);
	c->status_lost = 0; /* no event of this run is written yet */
	pthread_mutex_lock(&c->lock);
	c->ending = 0;
	pthread_mutex_unlock(&c->lock);
	c->start_written = 0;
	c->plans = 0;
	c->early_adopted = 0;
	c->caches_resolved = 0;
	c->secrets_resolved = 0;
	if (c->mode == CORDON_MODE_OFF && (r = statusdest_open_file(c)) != 0)
		return r;
	/* What the run leaves behind comes to this process, to be killed
	 * at the end ("off" leaves it alone, as a plain exec would). */
	c->subreaper = c->reap_all && c->mode != CORDON_MODE_OFF && become_subreaper() == 0;
	const struct backend *be = backend_for_platform();
	if (c->mode != CORDON_MODE_OFF)
		be->probe(&(struct probe_opts){ .early = 1 }, NULL);
	if (c->mode != CORDON_MODE_OFF)
		early_start(c);
	if (c->mode != CORDON_MODE_OFF) {
		gitguard_free(c); /* the last run's list of what it left */
		if ((r = workdir_choose(c)) != 0 || (r = homes_load(c)) != 0 ||
		    (r = passfile_prepare(c)) != 0 || (r = resolve_policy(c)) != 0 ||
		    (r = policyfile_check(c)) != 0 || (r = workdir_confirm(c)) != 0 ||
		    (r = runtmp_create(c)) != 0 || (r = statusdest_check_fd(c)) != 0 ||
		    (r = statusdest_open_file(c)) != 0 || (r = gitguard_open(c)) != 0 ||
		    (c->default_protect && (r = gitguard_begin(c)) != 0) ||
		    (r = agentcfg_begin(c)) != 0) {
			struct backend_probe reap; /* collect a trial started early */
			be->probe(&(struct probe_opts){ 0 }, &reap);
			return r;
		}
		review_sweep(c); /* held runs that expired or never ended */
	} else if ((r = workdir_choose(c)) != 0) {
		return r;
	}
	r = plan(c);
	/* What failed to prepare may be a layer only assumed to work. */
	if (r != 0 && r != CORDON_EUNAVAILABLE && c->dec.cov.unsure != 0)
		r = plan_settled(c);
	if (r == 0)
		r = workdir_readable(c);
	if (r != 0)
		return r;
	if ((r = command_env(c)) != 0)
		return r;
	/* With a layer still unsure, the first spawn's child settles it and
	 * the start event waits for its report. */
	if (c->dec.cov.unsure == 0)
		emit_start(c);
	c->stage = ST_BEGUN;
	return 0;
}

int cordon_begin(cordon *c)
{
	int r = configurable(c);
	if (r != 0)
		return r;
	r = begin(c);
	if (r != 0 && c->stage != ST_ENDED) {
		/* Nothing half-done: undo what this begin made. */
		release_run(c);
		policy_free(&c->pol);
		c->stage = ST_NEW;
	} else if (r != 0) {
		release_run(c);
	}
	return r;
}

/* The run's first spawn while a layer is only assumed to work: its child
 * is the trial. It applies every layer before exec and says so (the
 * error pipe's end); on a refusal the layers are all tried (settle) and
 * the command started again under the decision that holds. The command
 * has not run when a child fails before exec, so it never runs twice. */
static int first_spawn(cordon *c, const char *const argv[], const struct spawn_io *io,
		       cordon_proc **out)
{
	const struct backend *be = c->dec.backend;
	/* Another run of this process may have learnt more meanwhile. */
	if (c->dec.cov.unsure != 0 && decision_changed(c)) {
		int e = replan(c);
		if (e != 0)
			return run_failed(c, e);
	}
	if (c->dec.cov.unsure == 0) {
		emit_start(c);
		return spawn_command(c, argv, io, out);
	}
	int r = spawn_command(c, argv, io, out);
	/* Refused before any child (an fd of the spawn's own): nothing
	 * learnt; the next spawn is the trial. */
	if (r == CORDON_EREFUSED)
		return r;
	if (r == 0 || r == CORDON_EEXEC || r == CORDON_EINVAL) {
		/* Every layer was applied: the command (or its exec, or the
		 * working directory: CORDON_EINVAL) ran. */
		be->probe(&(struct probe_opts){ .confirmed = c->dec.cov.layers }, NULL);
		c->dec.cov.unsure = 0;
		emit_start(c);
		return r;
	}
	/* (Only a backend whose probe can settle has unsure layers.) */
	if (r == CORDON_ENOMEM)
		return r; /* the next spawn tries again */
	be->probe(&(struct probe_opts){ .settle = 1 }, NULL);
	if (!decision_changed(c)) {
		emit_start(c); /* every layer works: the failure stands */
		return r;
	}
	pthread_mutex_lock(&c->lock);
	c->have_last = 0; /* that child ran nothing */
	pthread_mutex_unlock(&c->lock);
	int e = plan_settled(c);
	if (e != 0)
		return run_failed(c, e);
	emit_start(c);
	return spawn_command(c, argv, io, out);
}

int spawn_run(cordon *c, const char *const argv[], const struct spawn_io *io, cordon_proc **out)
{
	pthread_mutex_lock(&c->spawn_lock);
	int r = 0, settled = c->start_written;
	if (c->stage != ST_BEGUN) /* another thread's first spawn was refused */
		r = cordon_fail(c, CORDON_EUNAVAILABLE, "%s",
				"confinement unavailable: the run was refused");
	else if (!settled)
		r = first_spawn(c, argv, io, out);
	pthread_mutex_unlock(&c->spawn_lock);
	/* Once the decision is final, spawns run side by side. */
	if (r == 0 && settled)
		return spawn_command(c, argv, io, out);
	return r;
}

/* The checks every spawn makes first: 0, or an error with its message. */
int spawn_check(cordon *c, const char *const argv[], cordon_proc **out)
{
	if (out == NULL)
		return cordon_fail(c, CORDON_EINVAL, "no place for the process");
	if (c->stage != ST_BEGUN)
		return cordon_fail(c, CORDON_ESTATE, "cordon_begin() has not succeeded");
	if (argv == NULL || argv[0] == NULL)
		return cordon_fail(c, CORDON_EINVAL, "empty command");
	return 0;
}

int cordon_spawn(cordon *c, const char *const argv[], cordon_proc **out)
{
	struct spawn_io io;
	if (c == NULL)
		return CORDON_EINVAL;
	int r = spawn_check(c, argv, out);
	if (r != 0)
		return r;
	spawn_io_inherit(&io);
	return spawn_run(c, argv, &io, out);
}

long cordon_proc_pid(const cordon_proc *p)
{
	return p ? (long)p->pid : -1;
}

int cordon_wait(cordon_proc *p, struct cordon_result *res)
{
	if (p == NULL)
		return CORDON_EINVAL;
	return wait_command(p, res);
}

/* cordon_end of a run whose start event is not out: the decision
 * settled first (a trial), a refusal as at begin. 1 when refused (the
 * run has ended, its events written). */
static int end_unsettled(cordon *c)
{
	if (c->start_written)
		return 0;
	/* No child settled the decision: the trial does, so the start event
	 * says what holds here. Nothing ran under it; what "required" cannot
	 * have is a refusal, as at begin. */
	c->dec.backend->probe(&(struct probe_opts){ .settle = 1 }, NULL);
	enum reason_id refuse = REASON_NONE;
	if (decision_changed(c)) {
		decide(c);
		refuse = c->mode == CORDON_MODE_REQUIRED && !c->dec.applied ? c->dec.cause
									    : policy_coverage(c);
	}
	if (refuse == REASON_NONE) {
		emit_start(c);
		return 0;
	}
	runtmp_remove(c);
	emit_refusal(c, refuse);
	release_run(c);
	return 1;
}

int cordon_end(cordon *c)
{
	if (c == NULL)
		return CORDON_EINVAL;
	if (c->stage != ST_BEGUN)
		return cordon_fail(c, CORDON_ESTATE, "no run to end");
	pthread_mutex_lock(&c->spawn_lock);
	int refused = end_unsettled(c);
	pthread_mutex_unlock(&c->spawn_lock);
	if (refused)
		return cordon_fail(c, CORDON_EUNAVAILABLE, "confinement unavailable (%s): %s",
				   reason_name(c->dec.cause), cordon_reason_ids[c->dec.cause].text);
	/* The end, in this order: every process of the run killed (a
	 * command not waited for could plant again behind the guard), then
	 * the git guard (before anyone runs git again), then the run's dir,
	 * whose removal takes as long as the command made it (never before
	 * the guard), then the exit event ("ended" means cleaned up). */
	spawn_end_all(c);
	netproxy_stop(c); /* its counts are final */
	int unheld = review_end(c); /* before the guards: nothing of it is in the workspace */
	(void)gitguard_end(c);
	agentcfg_end(c);
	int tampered = (int)gitguard_ntampered(c);
	runtmp_remove(c);
	enum cordon_on_tamper how = c->on_tamper;
	if (how == CORDON_TAMPER_DEFAULT)
		how = c->mode == CORDON_MODE_REQUIRED ? CORDON_TAMPER_FAIL
						      : CORDON_TAMPER_NEUTRALISE;
	/* What could not be moved aside is still there: never a success. */
	int unmoved = 0;
	for (size_t i = 0; i < gitguard_ntampered(c); i++)
		unmoved |= gitguard_tamper(c, i)->moved[0] == '\0';
	int failed = tampered > 0 && (how == CORDON_TAMPER_FAIL || unmoved);
	pthread_mutex_lock(&c->lock);
	int have = c->have_last;
	struct cordon_result last = c->last;
	pthread_mutex_unlock(&c->lock);
	if (have) {
		/* The status the run ends with (the CLI's: 125 when it fails
		 * for what it left), and the command's own beside it. */
		char *json = status_exit_json(c, &last, failed ? 125 : last.exit_code);
		status_emit(c, json);
		free(json);
	}
	release_run(c);
	c->stage = ST_ENDED;
	if (unheld != 0)
		return cordon_fail(
			c, CORDON_ESYS,
			"--review: the run's held changes could not be recorded; nothing "
			"of them can land (the workspace is unchanged)");
	if (failed)
		return cordon_fail(c, CORDON_ETAMPERED,
				   "the run left %d file%s that a later program would run or read "
				   "(git's, or an agent's configuration; first: %s); %s",
				   tampered, tampered == 1 ? "" : "s", gitguard_tamper(c, 0)->path,
				   unmoved ? "NOT all could be moved aside: see the exit event"
					   : "moved aside");
	return 0;
}

int cordon_last_result(cordon *c, struct cordon_result *out)
{
	if (c == NULL)
		return CORDON_EINVAL;
	if (out == NULL)
		return cordon_fail(c, CORDON_EINVAL, "no result to fill");
	pthread_mutex_lock(&c->lock);
	int have = c->have_last;
	if (have)
		*out = c->last;
	pthread_mutex_unlock(&c->lock);
	return have ? 0 : cordon_fail(c, CORDON_ESTATE, "no command has been waited for");
}

int cordon_run(cordon *c, const char *const argv[], struct cordon_result *res)
{
	cordon_proc *p = NULL;
	int r = cordon_begin(c);
	if (r != 0)
		return r;
	r = cordon_spawn(c, argv, &p);
	if (r == 0)
		r = cordon_wait(p, res);
	else if (res != NULL)
		(void)cordon_last_result(c, res);
	/* A refusal at the first spawn ended the run already. */
	int e = c->stage == ST_BEGUN ? cordon_end(c) : 0; /* no error when it succeeds */
	return r != 0 ? r : e;
}

/* ---- getters ---- */

int cordon_applied(const cordon *c)
{
	return c != NULL && c->dec.applied;
}

const char *cordon_backend_name(const cordon *c)
{
	return cordon_backend_ids[c != NULL && c->dec.backend != NULL ? c->dec.backend->id
								      : BACKEND_NONE]
		.id;
}

const char *cordon_reason(const cordon *c)
{
	return c != NULL ? reason_name(c->dec.reason) : NULL;
}

const char *cordon_cause(const cordon *c)
{
	return c != NULL ? reason_name(c->dec.cause) : NULL;
}

const char *cordon_reason_detail(const cordon *c)
{
	return c != NULL ? c->dec.detail : NULL;
}

int cordon_abi(const cordon *c)
{
	return c != NULL ? c->dec.abi : 0;
}

const char *const *cordon_layers(const cordon *c)
{
	static const char *const none[] = { NULL };
	return c != NULL ? c->dec.layer_list : none;
}

const char *const *cordon_gaps(const cordon *c)
{
	static const char *const none[] = { NULL };
	return c != NULL ? c->dec.gap_list : none;
}

const char *cordon_run_id(const cordon *c)
{
	return c != NULL ? c->run_id : "";
}

const char *cordon_tmpdir(const cordon *c)
{
	return c != NULL ? c->rundir : NULL;
}

char *cordon_status_json(const cordon *c)
{
	if (c == NULL || c->stage == ST_NEW)
		return NULL;
	return status_start_json(c);
}

int cordon_proc_kill(const cordon_proc *p, int sig)
{
	if (p == NULL)
		return CORDON_EINVAL;
	if (killpg(p->pid, sig) != 0)
		return cordon_fail_errno(p->c, CORDON_ESYS, errno,
					 "cannot signal process group %ld", (long)p->pid);
	return 0;
}
