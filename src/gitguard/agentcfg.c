/*
 * The agent-config guard: what a confined run plants for a later,
 * unconfined program to run is moved aside, as the git guard does for
 * git's files. Agents and editors run code a project names: hooks and
 * MCP servers in .claude/settings.json, .gemini/settings.json,
 * .codex/config.toml, .cursor/hooks.json, .mcp.json; a task VS Code runs
 * when the folder opens; plugins, skills and commands kept in those
 * directories; a .env Gemini CLI loads into its own environment
 * (BASH_ENV, CORDON_*). Each name of agentcfg_names, in each directory of
 * agentcfg_levels, is held:
 *
 *   - one that exists at the start is protected (read-only with the mount
 *     layer or the Seatbelt profile); where it stays writable (Landlock
 *     alone, or no confinement), it is recorded (heldtree.c) and at the end
 *     what changed there is moved aside and the start's content put back;
 *   - one that does not exist cannot be refused on Linux without leaving
 *     something in its place in the user's tree (a bind mount needs a file
 *     to cover), so whatever the run made there is moved aside at the end;
 *     the Seatbelt profile refuses to make it.
 *
 * An --protect path that does not exist is held the same way. What is
 * moved aside is listed with the git guard's (gitjudge.c: tampered_add,
 * gitguard_put_aside), and the run ends as --on-tamper says.
 *
 * Below the levels, at any depth of the workspace and each --allow-write
 * directory, a held name the run made or changed is moved aside at the
 * end too (agentcfg_depth, agentcfg_depth_dir); the Seatbelt profile
 * refuses them there as well (the policy's held_names and agent_opted:
 * src/macos/seatbelt-held.c), all but a directory moved in whole.
 *
 * The cost: a few lstat per directory held, at the start and at the end;
 * a walk only of a held tree that stays writable, within a bound.
 */
#include "agentcfg.h"
#include "gitjudge.h"
#include "heldtree.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries the end looks at below the levels without the kernel's account
 * (in directories made or moved in during the run): past it, what is
 * below is not looked at (the gap agent_config_depth_partial says so). */
#define DEPTH_STEPS_MAX 20000L
/* Directories below one made in the run that the end looks into: a
 * deeper one is listed as not looked at (not clean). */
#define DEPTH_MAX 64

const char *const agentcfg_names[] = {
	".claude",   ".mcp.json",     ".gemini",	".codex",	   ".cursor",
	".vscode",   ".idea",	      ".zed",		".devcontainer",   ".devcontainer.json",
	".opencode", "opencode.json", "opencode.jsonc", ".aider.conf.yml", ".env",
};
const size_t agentcfg_nnames = sizeof(agentcfg_names) / sizeof(agentcfg_names[0]);

/* A name held in this run, and what it was at the start. */
struct held {
	char *path; /* normalised, in a writable tree, no symlink on the way */
	char *prot; /* its protected entry (canonical) when it exists, or NULL */
	int absent; /* it did not exist at the start */
	int err; /* then, why lstat failed */
	struct stat st;
	struct heldtree *tree; /* recorded where it stays writable, or NULL */
	struct heldtree *target; /* a symlink's: its target (prot), recorded so */
};

struct agentcfg {
	struct held *v;
	size_t n, cap;
	struct strv opted; /* --allow-agent-config paths, as the guard names them */
	long steps; /* entries the end may still look at below the levels */
	int state_known; /* state looked up (into_state, at the end) */
	char state[CORDON_PATH_MAX]; /* the state dir, canonical ("": unknown) */
	struct held_budget budget; /* what records may still keep */
	int begun; /* the end has something to compare against */
};

static int push_once(struct strv *out, const char *s)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i], s) == 0)
			return 0;
	return strv_push(out, s) == 0 ? 0 : CORDON_ENOMEM;
}

int agentcfg_levels(const struct policy *pol, struct strv *out)
{
	size_t first = out->n;
	char buf[CORDON_PATH_MAX];
	const char *t;
	for (size_t k = 0; (t = policy_project_tree(pol, k)) != NULL; k++)
		if (push_once(out, t) != 0)
			return CORDON_ENOMEM;
	const char *cwd = pol->cwd;
	size_t roots = out->n, len = cwd != NULL ? strlen(cwd) : 0;
	if (cwd == NULL || len >= sizeof(buf))
		return 0;
	for (size_t r = first; r < roots; r++) {
		const char *root = out->v[r];
		size_t rl = strlen(root);
		if (!path_within(root, cwd) || rl == len)
			continue;
		/* Each directory below root down to cwd ("/" has no slash to
		 * skip). */
		for (size_t j = rl == 1 ? 1 : rl + 1; j <= len; j++) {
			if (cwd[j] != '/' && cwd[j] != '\0')
				continue;
			memcpy(buf, cwd, j);
			buf[j] = '\0';
			if (push_once(out, buf) != 0)
				return CORDON_ENOMEM;
		}
		break;
	}
	return 0;
}

static struct held *find(const struct agentcfg *a, const char *path)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].path, path) == 0)
			return &a->v[i];
	return NULL;
}

/* Hold path (add: a name of the guard's own, added to the policy; else
 * an --protect path the policy has). 0 or CORDON_ENOMEM. */
static int hold(cordon *c, const char *path, int add)
{
	struct agentcfg *a = c->agentcfg;
	char real[PATH_MAX];
	/* The guard acts unconfined on names the command chose: only on
	 * paths reached without a symlink inside a writable tree. */
	if (find(a, path) != NULL || !gitguard_clean(&c->pol, path))
		return 0;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		struct held *v = realloc(a->v, cap * sizeof(*v));
		if (v == NULL)
			return CORDON_ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	struct held *h = &a->v[a->n];
	memset(h, 0, sizeof(*h));
	if ((h->path = strdup(path)) == NULL)
		return CORDON_ENOMEM;
	a->n++;
	if (lstat(path, &h->st) != 0) {
		h->absent = 1;
		h->err = errno;
		return add ? policy_add_held(&c->pol, path, 1) : 0;
	}
	/* A symlink is recorded whatever holds its target: the link itself
	 * lies in a writable directory. */
	if (S_ISLNK(h->st.st_mode) && (h->tree = heldtree_record(path, &a->budget)) == NULL)
		return CORDON_ENOMEM;
	if (realpath(path, real) != NULL && policy_inside_writable(&c->pol, real) &&
	    (h->prot = strdup(real)) == NULL)
		return CORDON_ENOMEM;
	return add ? policy_add_held(&c->pol, path, 0) : 0;
}

/* An --allow-agent-config path, as the guard names it: its directory
 * canonical, its last component as given. 0, or an error with its
 * message. */
static int opt_out_path(cordon *c, const char *in, char *out)
{
	char norm[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX], dir[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)) == NULL || path_normalize(cwd, in, norm, sizeof(norm)) != 0 ||
	    strcmp(norm, "/") == 0)
		return cordon_fail(c, CORDON_EINVAL, "--allow-agent-config path: %s", in);
	char *slash = strrchr(norm, '/');
	*slash = '\0';
	if (realpath(norm[0] != '\0' ? norm : "/", dir) == NULL)
		return cordon_fail_errno(c, CORDON_EINVAL, errno, "--allow-agent-config path: %s",
					 in);
	if (path_join(out, CORDON_PATH_MAX, dir, slash + 1) != 0)
		return cordon_fail(c, CORDON_EINVAL, "--allow-agent-config path too long: %s", in);
	return 0;
}

int agentcfg_is_name(const char *name, size_t len)
{
	for (size_t k = 0; k < agentcfg_nnames; k++)
		if (strlen(agentcfg_names[k]) == len && memcmp(agentcfg_names[k], name, len) == 0)
			return 1;
	return 0;
}

size_t agentcfg_topmost(const char *root, const char *path)
{
	size_t rl = strlen(root), i = rl == 1 ? 1 : rl + 1;
	if (!path_within(root, path) || strlen(path) <= rl)
		return 0;
	for (;;) {
		size_t j = i;
		while (path[j] != '\0' && path[j] != '/')
			j++;
		if (agentcfg_is_name(path + i, j - i))
			return j;
		if (path[j] == '\0')
			return 0;
		i = j + 1;
	}
}

/* path lies in a tree whose names the guard holds (a project tree). */
static int in_project(const struct policy *pol, const char *path)
{
	const char *t;
	for (size_t k = 0; (t = policy_project_tree(pol, k)) != NULL; k++)
		if (path_within(t, path))
			return 1;
	return 0;
}

/* path (as opt_out_path names it) is a held name below the levels: an
 * agent-configuration name in the workspace or an --allow-write tree,
 * held there when the kernel tells what the run made (agentcfg_depth). */
static int held_below(const cordon *c, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash != NULL && agentcfg_is_name(slash + 1, strlen(slash + 1)) &&
	       in_project(&c->pol, path);
}

/* The names in every level, but those opted out (each found marked). */
static int hold_names(cordon *c, const struct strv *opted, char *found)
{
	struct strv levels = { 0 };
	char p[CORDON_PATH_MAX];
	int r = agentcfg_levels(&c->pol, &levels);
	for (size_t l = 0; r == 0 && l < levels.n; l++)
		for (size_t k = 0; r == 0 && k < agentcfg_nnames; k++) {
			if (path_join(p, sizeof(p), levels.v[l], agentcfg_names[k]) != 0)
				continue; /* longer than a path can be: it cannot be made */
			size_t o = 0;
			while (o < opted->n && strcmp(opted->v[o], p) != 0)
				o++;
			if (o < opted->n)
				found[o] = 1;
			else
				r = hold(c, p, 1);
		}
	strv_free(&levels);
	return r;
}

int agentcfg_begin(cordon *c)
{
	agentcfg_free(c);
	struct agentcfg *a = calloc(1, sizeof(*a));
	char p[CORDON_PATH_MAX], *found = calloc(c->allow_agent_config.n + 1, 1);
	int r = a == NULL || found == NULL ? CORDON_ENOMEM : 0;
	if (r == 0) {
		a->budget = (struct held_budget){ HT_ENTRIES_MAX, HT_BYTES_MAX };
		a->steps = DEPTH_STEPS_MAX;
		c->agentcfg = a;
	} else {
		free(a);
	}
	struct strv *opted = a != NULL ? &a->opted : NULL;
	for (size_t i = 0; r == 0 && i < c->allow_agent_config.n; i++)
		if ((r = opt_out_path(c, c->allow_agent_config.v[i], p)) == 0 &&
		    strv_push(opted, p) != 0)
			r = CORDON_ENOMEM;
	if (r == 0 && c->default_protect)
		r = hold_names(c, opted, found);
	/* The --protect paths that do not exist (policy.c made them). */
	for (size_t i = 0; r == 0 && i < c->pol.nprot; i++)
		if (c->pol.prot[i].absent && c->pol.prot[i].explicit_)
			r = hold(c, c->pol.prot[i].path, 0);
	/* An opt-out that names nothing held is a mistake to say. */
	for (size_t i = 0; r == 0 && c->default_protect && i < opted->n; i++)
		if (!found[i] && !held_below(c, opted->v[i]))
			r = cordon_fail(
				c, CORDON_EINVAL,
				"--allow-agent-config %s: not a path cordon holds in this run "
				"(an agent-configuration name in the workspace or an "
				"--allow-write directory)",
				c->allow_agent_config.v[i]);
	/* The names below the levels, for a backend that refuses them by a
	 * pattern (Seatbelt), and what it must leave writable. */
	c->pol.held_names = NULL;
	c->pol.nheld_names = 0;
	strv_free(&c->pol.agent_opted);
	if (r == 0 && c->default_protect) {
		c->pol.held_names = agentcfg_names;
		c->pol.nheld_names = agentcfg_nnames;
		for (size_t i = 0; r == 0 && i < opted->n; i++)
			if (strv_push(&c->pol.agent_opted, opted->v[i]) != 0)
				r = CORDON_ENOMEM;
	}
	free(found);
	if (r == CORDON_ENOMEM)
		return cordon_fail(c, r, "out of memory");
	if (r == 0)
		c->agentcfg->begun = 1;
	return r;
}

/* The protected entry of a held path that exists. */
static struct protect_entry *entry_of(const cordon *c, const struct held *h)
{
	for (size_t i = 0; h->prot != NULL && i < c->pol.nprot; i++)
		if (strcmp(c->pol.prot[i].path, h->prot) == 0)
			return &c->pol.prot[i];
	return NULL;
}

void agentcfg_hold(cordon *c)
{
	struct agentcfg *a = c->agentcfg;
	for (size_t i = 0; a != NULL && a->begun && i < a->n; i++) {
		struct held *h = &a->v[i];
		struct protect_entry *e = entry_of(c, h);
		if (h->absent || e == NULL || e->enforced)
			continue;
		/* A symlink (its own record: the link) to a tree in the writable
		 * set: what an agent reads through it is the target, recorded
		 * and judged as the name would be; not a target that holds the
		 * link (all of the workspace, say): that stays "held": "none". */
		struct heldtree **t = S_ISLNK(h->st.st_mode) ? &h->target : &h->tree;
		if (t == &h->target &&
		    (!gitguard_clean(&c->pol, h->prot) || path_within(h->prot, h->path))) {
			e->held = HELD_NONE;
			continue;
		}
		if (*t == NULL)
			*t = heldtree_record(t == &h->target ? h->prot : h->path, &a->budget);
		e->held = *t == NULL		 ? HELD_NONE /* no memory: not recorded */
			  : heldtree_partial(*t) ? HELD_CHECKED_IN_PART
						 : HELD_CHECKED_AT_END;
	}
}

/* What exists at path now is not what was there at the start. */
static int replaced(const struct held *h, const struct stat *now)
{
	return now->st_ino != h->st.st_ino || now->st_dev != h->st.st_dev ||
	       (now->st_mode & S_IFMT) != (h->st.st_mode & S_IFMT);
}

void agentcfg_end(cordon *c)
{
	struct agentcfg *a = c->agentcfg;
	if (a == NULL || !a->begun)
		return;
	a->begun = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct held *h = &a->v[i];
		struct stat st;
		int there = lstat(h->path, &st) == 0, e = errno;
		/* Its directory made unsearchable by the run (not by the user:
		 * it was searchable at the start): searchable again. */
		if (!there && e == EACCES && h->err != EACCES && gitguard_parent_usable(h->path)) {
			there = lstat(h->path, &st) == 0;
			e = errno;
		}
		/* Not there, or unseen now where it could be seen then: it may
		 * be there. */
		int unseen = !there && e != ENOENT && e != ENOTDIR;
		if (h->absent) {
			if (there || (unseen && e != h->err))
				(void)gitguard_put_aside(c, h->path);
		} else if (h->tree != NULL) {
			heldtree_judge(c, h->path, h->tree);
			if (h->target != NULL)
				heldtree_judge(c, h->prot, h->target);
		} else if (unseen || (there && replaced(h, &st))) {
			/* Read-only for the run, yet not the same: moved aside
			 * (nothing recorded to put back). */
			(void)gitguard_put_aside(c, h->path);
		}
	}
}

/* ---- below the levels ---- */

static int opted_out(const struct agentcfg *a, const char *path)
{
	for (size_t i = 0; i < a->opted.n; i++)
		if (strcmp(a->opted.v[i], path) == 0)
			return 1;
	return 0;
}

/* path (a held name below the levels, or at one: the end of the levels
 * judges those) made or changed by the run: moved aside, or listed as
 * tampered when it cannot be looked at. */
static void judge_below(cordon *c, const char *path)
{
	struct agentcfg *a = c->agentcfg;
	struct stat st;
	if (a == NULL || !a->begun || find(a, path) != NULL || opted_out(a, path) ||
	    !in_project(&c->pol, path) || !gitguard_clean(&c->pol, path))
		return;
	int there = lstat(path, &st) == 0;
	if (!there && errno == EACCES && gitguard_parent_usable(path))
		there = lstat(path, &st) == 0;
	if (there)
		(void)gitguard_put_aside(c, path);
	else if (errno != ENOENT && errno != ENOTDIR)
		(void)tampered_add(c, path, ""); /* unseen: it may be there */
}

void agentcfg_depth(cordon *c, const struct strv *paths)
{
	for (size_t i = 0; paths != NULL && i < paths->n; i++)
		judge_below(c, paths->v[i]);
}

/* dir, or an entry of it, made or changed since since_ns (a file's
 * content written changes its change time, not its directory's); deep:
 * or anything below it, within the run's budget and DEPTH_MAX. What
 * cannot be read, or lies past those bounds, counts as changed. */
static int changed_in(cordon *c, const char *dir, long long since_ns, int deep, int depth)
{
	struct agentcfg *a = c->agentcfg;
	char p[CORDON_PATH_MAX];
	struct stat st;
	DIR *d = depth < DEPTH_MAX ? gitguard_open_dir(dir) : NULL;
	if (d == NULL)
		return 1;
	int changed = fstat(dirfd(d), &st) != 0 || gg_since(&st, since_ns);
	struct dirent *e;
	while (!changed && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		changed = (deep && --a->steps < 0) ||
			  fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			  gg_since(&st, since_ns) ||
			  (deep && S_ISDIR(st.st_mode) &&
			   (path_join(p, sizeof(p), dir, e->d_name) != 0 ||
			    changed_in(c, p, since_ns, 1, depth + 1)));
	}
	closedir(d);
	return changed;
}

/* Entry e of the open directory d (at dir): a held name made or changed
 * since since_ns is moved aside; a directory made or moved in then
 * (recent) is looked into whole, within the run's budget (what it holds
 * came with it); and each of its entries the same way. */
static void look_in(cordon *c, DIR *d, const char *dir, long long since_ns, int recent, int depth);

/* name is what the guard moved aside in this run (NAME.cordon-tampered-
 * RUN...): left as it is. One of an earlier run's, or one the command
 * named so, is looked at as any other. */
static int aside_now(const cordon *c, const char *name)
{
	const char *t = strstr(name, ".cordon-tampered-");
	return t != NULL && strncmp(t + 17, c->run_id, 8) == 0;
}

/* A symlink the run made at path that leads into cordon's state dir (the
 * caches moved there, the layers: they outlive the run, and what a run
 * writes there an unconfined program would read through the link). */
static int into_state(const cordon *c, const char *path)
{
	struct agentcfg *a = c->agentcfg;
	char real[PATH_MAX];
	if (!a->state_known) { /* once, and only for a link the run made */
		a->state_known = 1;
		if (runtmp_state_of_run(c, a->state, sizeof(a->state)) != 0)
			a->state[0] = '\0';
	}
	return a->state[0] != '\0' && realpath(path, real) != NULL && path_within(a->state, real);
}

/* A directory the run made or changed, opened; one the run made
 * unreadable or unsearchable for its owner (the caller) has those bits
 * given back first, as the guard does for a held name's directory. */
static DIR *open_usable(const char *path)
{
	struct stat st;
	DIR *d = gitguard_open_dir(path);
	if (d != NULL || errno != EACCES)
		return d;
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    chmod(path, (st.st_mode & 07777) | 0700) != 0) {
		errno = EACCES;
		return NULL;
	}
	return gitguard_open_dir(path);
}

/* dir (made or changed in the run) cannot be looked into: what it holds
 * is listed as unchecked (not clean), unless it is gone. */
static void unseen_dir(cordon *c, const char *dir)
{
	if (errno != ENOENT && errno != ENOTDIR)
		(void)tampered_add(c, dir, "");
}

static void look_at(cordon *c, DIR *d, const char *dir, const char *name, long long since_ns,
		    int recent, int depth)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	if (aside_now(c, name) || path_join(p, sizeof(p), dir, name) != 0 ||
	    fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	int made = gg_since(&st, since_ns);
	if (agentcfg_is_name(name, strlen(name))) {
		if (made || (S_ISDIR(st.st_mode) && changed_in(c, p, since_ns, 0, 0)))
			judge_below(c, p);
		return;
	}
	if (S_ISLNK(st.st_mode) && made && into_state(c, p))
		judge_below(c, p);
	if (!S_ISDIR(st.st_mode) || !(recent || made))
		return;
	if (depth >= DEPTH_MAX) {
		(void)tampered_add(c, p, ""); /* deeper than the end looks */
		return;
	}
	DIR *sub = open_usable(p);
	if (sub == NULL) {
		unseen_dir(c, p);
		return;
	}
	look_in(c, sub, p, since_ns, 1, depth + 1);
	closedir(sub);
}

static void look_in(cordon *c, DIR *d, const char *dir, long long since_ns, int recent, int depth)
{
	struct agentcfg *a = c->agentcfg;
	struct dirent *e;
	while (a->steps > 0 && (e = readdir(d)) != NULL) {
		a->steps--;
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			look_at(c, d, dir, e->d_name, since_ns, recent, depth);
	}
}

void agentcfg_depth_dir(cordon *c, const char *dir, long long since_ns)
{
	char p[CORDON_PATH_MAX];
	if (c->agentcfg == NULL || !c->agentcfg->begun)
		return;
	size_t top = agentcfg_topmost(c->pol.workspace, dir);
	if (top > 0) {
		/* In a held name's tree: anything changed there changes it. */
		if (top < sizeof(p)) {
			memcpy(p, dir, top);
			p[top] = '\0';
			if (changed_in(c, dir, since_ns, 0, 0))
				judge_below(c, p);
		}
		return;
	}
	DIR *d = open_usable(dir);
	if (d == NULL) {
		unseen_dir(c, dir);
		return;
	}
	look_in(c, d, dir, since_ns, 0, 0);
	closedir(d);
}

void agentcfg_depth_held(cordon *c, const char *dir, long long since_ns)
{
	char p[CORDON_PATH_MAX], real[PATH_MAX];
	struct stat st, ts;
	for (size_t k = 0; c->agentcfg != NULL && k < agentcfg_nnames; k++) {
		if (path_join(p, sizeof(p), dir, agentcfg_names[k]) != 0 || lstat(p, &st) != 0)
			continue;
		/* Made or changed in place; or a symlink whose target (a file, a
		 * tree) the run changed: what an agent reads through it. */
		if (gg_since(&st, since_ns) ||
		    (S_ISLNK(st.st_mode) && realpath(p, real) != NULL && stat(real, &ts) == 0 &&
		     (gg_since(&ts, since_ns) ||
		      (S_ISDIR(ts.st_mode) && changed_in(c, real, since_ns, 1, 0)))))
			judge_below(c, p);
	}
}

void agentcfg_depth_links(cordon *c, const struct strv *dirs, long long since_ns)
{
	char p[CORDON_PATH_MAX];
	struct stat st;
	for (size_t i = 0; c->agentcfg != NULL && dirs != NULL && i < dirs->n; i++) {
		if (!in_project(&c->pol, dirs->v[i]))
			continue;
		DIR *d = gitguard_open_dir(dirs->v[i]);
		struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL)
			if ((e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) &&
			    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode) && gg_since(&st, since_ns) &&
			    path_join(p, sizeof(p), dirs->v[i], e->d_name) == 0 && into_state(c, p))
				judge_below(c, p);
		if (d != NULL)
			closedir(d);
	}
}

void agentcfg_free(cordon *c)
{
	struct agentcfg *a = c->agentcfg;
	if (a == NULL)
		return;
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].path);
		free(a->v[i].prot);
		heldtree_free(a->v[i].tree);
		heldtree_free(a->v[i].target);
	}
	free(a->v);
	strv_free(&a->opted);
	free(a);
	c->agentcfg = NULL;
}
