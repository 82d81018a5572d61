/*
 * macOS backend: Seatbelt through /usr/bin/sandbox-exec.
 *
 * The command runs as
 *   /usr/bin/sandbox-exec -p PROFILE -D NAME=VALUE ... -- COMMAND ARG...
 * sandbox-exec applies the profile to itself and then execs COMMAND, so
 * the command and everything it starts inherit it. If the profile cannot
 * be applied, sandbox-exec exits (status 71) without running COMMAND:
 * confinement fails closed.
 *
 * The profile is constant text. Only the number and kind of writable
 * entries shape it; every path reaches it as a -D parameter, never as
 * bytes in the text, so no path can change the rules however it is
 * spelled (quotes, parentheses, backslashes, newlines, "#\"", bytes that
 * are not UTF-8). The one parameter that is a regular expression made
 * from a path (AGENT_BELOW_n) is escaped for the regex syntax where it
 * is built (seatbelt-held.c), and unit-tested there.
 *
 * This file is compiled on every platform, so everything but the use of
 * the real sandbox-exec is unit-tested on Linux. Only macOS selects it
 * (backend_for_platform).
 *
 * SBPL facts relied on (Apple's Sandbox Profile Language; from public
 * profiles of Chromium, OpenAI codex and Anthropic's sandbox-runtime and
 * their issue trackers, not from Apple documentation, which has none).
 * None has been observed by this project yet: tests/macos/run checks each
 * on a real Mac (docs/macos.md records the results). The least certain
 * are marked (unverified).
 *  - "(version 1)" opens a profile; "(allow default)" allows every
 *    operation not decided by a later rule.
 *  - When several rules match an operation the LAST one wins, so the
 *    order is: allow all, deny writes, allow the writable set, deny the
 *    agent configuration below the guard's levels and allow the
 *    --allow-agent-config paths again, deny the protected paths, deny
 *    setuid/setgid bits; then, for operations no earlier rule names,
 *    deny signals and process information and allow them within the
 *    sandbox, deny connects to Unix sockets and allow those of the
 *    system, the writable set and --allow-socket.
 *  - "file-write*" covers every file write operation: data, create,
 *    unlink, mode, owner, flags, times, xattrs, ACLs. A rename is checked
 *    as file-write-unlink on the source and file-write-create on the
 *    destination. Binding a Unix socket creates its file, checked as
 *    file-write-create (unverified).
 *  - "file-link" (link(2)) is a separate operation, checked on the
 *    existing file (unverified: which of the two paths is checked); it is
 *    denied unless that file is in the writable set, so a hard link cannot
 *    give a second, writable name to a file outside (or to a protected
 *    one).
 *  - "file-write-setugid" is the operation of setting a setuid or setgid
 *    bit (chmod, fchmod). Whether "file-write*" covers it is unclear
 *    (Homebrew's sandbox allows both names for its writable paths); a
 *    deny after every allow decides it either way, in the writable set
 *    too (unverified: whether a file created with those bits is checked
 *    as well).
 *  - "signal" is checked when a process signals another (kill, killpg),
 *    "process-info*" when it asks the kernel about another (proc_pidinfo,
 *    proc_pidpath and the like). "(target same-sandbox)" matches a target
 *    in this sandbox: the command itself and its descendants, which
 *    inherit it. The sysctl that lists processes (ps) is not
 *    process-info* (unverified), so other processes stay visible.
 *  - "network-outbound" is checked on connect(2) and on sendto(2) with an
 *    address; "(remote unix-socket F)" matches a pathname Unix socket
 *    whose path matches the path filter F ((subpath P), (path-literal
 *    P)). The path is the one the kernel resolved, as for files
 *    (unverified: reported for /tmp against /private/tmp by others). A
 *    socket with no path (socketpair(2), an inherited connected socket)
 *    matches no path filter, so (subpath "/") denies exactly the
 *    pathname sockets (unverified).
 *  - (subpath P) matches P and everything beneath it; (literal P) only P;
 *    (regex #"...") a regular expression; (param "N") is the value given
 *    with -D N=VALUE. (regex X) also takes a string computed when the
 *    profile is evaluated, such as (param "N") (unverified: public
 *    profiles build theirs with string-append and param). Paths are
 *    matched after the kernel resolves them, so parameters must be
 *    canonical (/tmp is /private/tmp, /var is /private/var).
 *  - sandbox-exec exits 71 (EX_OSERR) when it cannot apply a profile,
 *    which for a profile that compiles means it already runs in a sandbox
 *    (nesting is refused with "sandbox_apply: Operation not permitted").
 *    It reports a COMMAND it cannot execute the same way: execvp's error
 *    and exit status 71 (unverified; reported by others).
 */
#include "backend.h"
#include "compat.h"
#include "json.h"
#include "path.h"
#include "seatbelt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the probe may take before it counts as failed. */
#define PROBE_TIMEOUT_MS 3000
/* sandbox-exec's status when the profile cannot be applied (EX_OSERR). */
#define EXIT_NOT_APPLIED 71

/* ---- the profile ---- */

static const char profile_head[] = "(version 1)\n"
				   "(allow default)\n"
				   "(deny file-write* file-link)\n";

/* Devices every command needs, fixed: /dev/fd/N is how macOS names an
 * inherited fd by path (/dev/stdout links there), /dev/ttysN are the
 * terminals, /dev/dtracehelper is opened read-write by every process that
 * carries DTrace probes. */
static const char profile_devices[] =
	"(allow file-write*\n"
	"  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\")\n"
	"  (literal \"/dev/ptmx\") (literal \"/dev/dtracehelper\")\n"
	"  (regex #\"^/dev/ttys[0-9]+$\") (regex #\"^/dev/fd/[0-9]+$\"))\n";

/* After every allow of file-write*: no setuid or setgid bit, in the
 * writable set either (a setuid file left in the workspace would run as
 * the command's user for whoever runs it; as root's, for anyone). */
static const char profile_setugid[] = "(deny file-write-setugid)\n";

/* Signals and process information (paths, task and thread state,
 * resource use) only within the sandbox: the command cannot stop, kill or
 * inspect the agent that started it or any other process of the user. */
static const char profile_processes[] = "(deny signal)\n"
					"(allow signal (target same-sandbox))\n"
					"(deny process-info*)\n"
					"(allow process-info* (target same-sandbox))\n";

/* Connects and addressed sends to pathname Unix sockets are denied: a
 * daemon listening on one (Docker, an ssh agent, tmux, an editor) acts
 * with its own rights. The clauses after this allow those in the
 * writable set and --allow-socket. Two system sockets stay open, fixed,
 * because ordinary programs need them and neither daemon writes a file
 * the command names: mDNSResponder answers every name lookup
 * (getaddrinfo goes through it on macOS, DNS included); syslogd takes
 * lines for the system log (Python's SysLogHandler and other portable
 * code log there), which every process may append to anyway through
 * os_log. With the network off (and under --network allow) mDNSResponder
 * stays closed: a lookup through it would reach the host's resolver, a
 * way out for data; names then resolve only in the proxy. User and group
 * lookups (getpwnam) go to opendirectoryd over Mach, not this socket. */
static const char profile_sockets_deny[] =
	"(deny network-outbound (remote unix-socket (subpath \"/\")))\n";
static const char profile_sockets_open[] =
	"(allow network-outbound\n"
	"  (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\"))\n"
	"  (remote unix-socket (path-literal \"/private/var/run/syslog\")))\n";
static const char profile_sockets_off[] =
	"(allow network-outbound\n"
	"  (remote unix-socket (path-literal \"/private/var/run/syslog\")))\n";

/* --network off: every IP socket's traffic, both ways, loopback
 * included (Seatbelt has no loopback of the command's own, and the
 * host's loopback services must stay out of reach): connect and
 * addressed sends, accepted and received connections, and binding a
 * local address. Unix sockets are not IP: their rules above stay. */
/* With the default deny-read list: the camera and the microphone, which
 * macOS reaches through its own operations, not device files. */
static const char profile_capture[] = "(deny device-camera)\n(deny device-microphone)\n";

static const char profile_network_off[] = "(deny network-outbound (remote ip))\n"
					  "(deny network-inbound (local ip))\n"
					  "(deny network-bind (local ip))\n";

/* --network allow: the same, but for the proxy cordon serves on the
 * host's loopback (its port a parameter; the proxy asks the run's
 * credential of every client, since any local process can dial it). */
static const char profile_proxy[] =
	"(allow network-outbound (remote ip (string-append \"localhost:\" (param "
	"\"PROXY_PORT_0\"))))\n";

/* One clause per entry, naming its parameter NAME_n once or (with mid)
 * twice. A protected path is denied as itself and as a tree; its
 * ancestors inside the writable set cannot be unlinked, so cannot be
 * renamed away with it. A writable directory, a writable file and an
 * --allow-socket path (a socket, or a directory of them) open Unix
 * sockets again, by the parameters the file clauses use. */
struct clause {
	const char *name, *head, *mid, *tail;
};
enum {
	C_ROOT,
	C_FILE,
	C_BELOW,
	C_AGENT_ALLOW,
	C_PROTECT,
	C_PARENT,
	C_ABSENT,
	C_DENY_READ,
	C_DENY_MOVE,
	C_READ_KEEP,
	C_SOCK_ROOT,
	C_SOCK_FILE,
	C_SOCKET
};
static const struct clause clauses[] = {
	[C_ROOT] = { "ROOT", "(allow file-write* file-link (subpath ", NULL, "))\n" },
	[C_FILE] = { "FILE", "(allow file-write* file-link (literal ", NULL, "))\n" },
	/* An agent-configuration name at any depth of the workspace or an
	 * --allow-write directory (the parameter is a regular expression:
	 * seatbelt-held.c), then the --allow-agent-config paths allowed
	 * again, before the protections, which still win inside them. */
	[C_BELOW] = { SB_BELOW, "(deny file-write* file-link (regex ", NULL, "))\n" },
	[C_AGENT_ALLOW] = { SB_AGENT_ALLOW, "(allow file-write* file-link (literal ", ") (subpath ",
			    "))\n" },
	[C_PROTECT] = { "PROTECT", "(deny file-write* file-link (literal ", ") (subpath ", "))\n" },
	[C_PARENT] = { "PROTECT_PARENT", "(deny file-write-unlink (literal ", NULL, "))\n" },
	/* A name that does not exist yet and must not be made (the git
	 * guard's, the agent configuration, an --protect path): it cannot be
	 * made, linked or renamed into place, nor anything beneath it. */
	[C_ABSENT] = { "ABSENT", "(deny file-write* file-link (literal ", ") (subpath ", "))\n" },
	/* A path the command must not read (a file, or a tree), which cannot
	 * be unlinked (so not renamed away either); its ancestors inside the
	 * writable set are PROTECT_PARENT_n. Then the files of it that stay
	 * readable (~/.ssh's known_hosts...): the last rule that matches
	 * wins. */
	[C_DENY_READ] = { "DENY_READ", "(deny file-read* (subpath ", NULL, "))\n" },
	[C_DENY_MOVE] = { "DENY_READ", "(deny file-write-unlink (literal ", NULL, "))\n" },
	[C_READ_KEEP] = { "READ_KEEP", "(allow file-read* (literal ", NULL, "))\n" },
	[C_SOCK_ROOT] = { "ROOT", "(allow network-outbound (remote unix-socket (subpath ", NULL,
			  ")))\n" },
	[C_SOCK_FILE] = { "FILE", "(allow network-outbound (remote unix-socket (path-literal ",
			  NULL, ")))\n" },
	[C_SOCKET] = { "SOCKET", "(allow network-outbound (remote unix-socket (subpath ", NULL,
		       ")))\n" },
};

static void param(struct jbuf *b, const char *name, size_t i)
{
	char idx[24];
	snprintf(idx, sizeof(idx), "_%zu", i);
	jb_raw(b, "(param \"");
	jb_raw(b, name);
	jb_raw(b, idx);
	jb_raw(b, "\")");
}

static void add_clauses(struct jbuf *b, const struct clause *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		jb_raw(b, c->head);
		param(b, c->name, i);
		if (c->mid != NULL) {
			jb_raw(b, c->mid);
			param(b, c->name, i);
		}
		jb_raw(b, c->tail);
	}
}

char *seatbelt_profile(const struct sb_shape *s)
{
	struct jbuf b = { 0 };
	jb_raw(&b, profile_head);
	add_clauses(&b, &clauses[C_ROOT], s->roots);
	add_clauses(&b, &clauses[C_FILE], s->files);
	jb_raw(&b, profile_devices);
	add_clauses(&b, &clauses[C_BELOW], s->below);
	add_clauses(&b, &clauses[C_AGENT_ALLOW], s->agent_allows);
	add_clauses(&b, &clauses[C_PROTECT], s->protects);
	add_clauses(&b, &clauses[C_PARENT], s->parents);
	add_clauses(&b, &clauses[C_ABSENT], s->absents);
	add_clauses(&b, &clauses[C_DENY_READ], s->denies);
	add_clauses(&b, &clauses[C_DENY_MOVE], s->denies);
	add_clauses(&b, &clauses[C_READ_KEEP], s->keeps);
	jb_raw(&b, profile_setugid);
	jb_raw(&b, profile_processes);
	jb_raw(&b, profile_sockets_deny);
	jb_raw(&b, s->network_off ? profile_sockets_off : profile_sockets_open);
	add_clauses(&b, &clauses[C_SOCK_ROOT], s->roots);
	add_clauses(&b, &clauses[C_SOCK_FILE], s->files);
	add_clauses(&b, &clauses[C_SOCKET], s->sockets);
	if (s->capture_denied)
		jb_raw(&b, profile_capture);
	if (s->network_off)
		jb_raw(&b, profile_network_off);
	if (s->network_off && s->proxy)
		jb_raw(&b, profile_proxy);
	return jb_finish(&b);
}

/* ---- the argv ---- */

static int push_param(struct strv *out, const char *name, size_t i, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 24;
	char *kv = malloc(len);
	if (kv == NULL)
		return CORDON_ENOMEM;
	snprintf(kv, len, "%s_%zu=%s", name, i, value);
	int r = strv_push(out, "-D");
	if (r != 0) {
		free(kv);
		return r;
	}
	return strv_take(out, kv);
}

int seatbelt_push_param(struct strv *out, const char *name, size_t i, const char *value)
{
	return push_param(out, name, i, value);
}

static int in_writable_dir(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind != W_DEVICE && p->w[i].is_dir && path_within(p->w[i].path, path))
			return 1;
	return 0;
}

static int contains(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return 1;
	return 0;
}

/* Every ancestor of each protected or read-denied path that lies in a writable
 * directory (the directory itself included), nearest first, each once.
 * Ancestors outside the writable set cannot be renamed anyway. */
static int protect_parents(const struct policy *p, struct strv *out)
{
	char buf[CORDON_PATH_MAX];
	for (size_t k = 0; k < p->nprot + p->ndeny; k++) {
		const char *path = k < p->nprot ? p->prot[k].path : p->deny[k - p->nprot].path;
		size_t len = strlen(path);
		if (len >= sizeof(buf))
			continue; /* cannot happen: paths come from realpath */
		while (len > 1) {
			size_t i = len - 1;
			while (i > 0 && path[i] != '/')
				i--;
			len = i == 0 ? 1 : i;
			memcpy(buf, path, len);
			buf[len] = '\0';
			if (in_writable_dir(p, buf) && !contains(out, buf) &&
			    strv_push(out, buf) != 0)
				return CORDON_ENOMEM;
		}
	}
	return 0;
}

static int add_entries(const struct policy *p, int dirs, struct strv *out, size_t *n)
{
	const char *name = clauses[dirs ? C_ROOT : C_FILE].name;
	for (size_t i = 0; i < p->nw; i++) {
		const struct wentry *w = &p->w[i];
		/* Seatbelt has no overlay: a cache to be seen through one
		 * (caches.c never asks it of this backend, whose cache_layers
		 * is NULL) is never granted, which would write the user's. */
		if (w->kind == W_DEVICE || w->layer != NULL || (w->is_dir ? 1 : 0) != dirs)
			continue;
		if (push_param(out, name, (*n)++, w->path) != 0)
			return CORDON_ENOMEM;
	}
	return 0;
}

int seatbelt_argv(const struct policy *p, const char *exec_path, struct strv *out,
		  struct sb_shape *shape)
{
	struct sb_shape s = { 0 };
	s.network_off = p->network_off;
	s.capture_denied = p->deny_capture;
	struct strv params = { 0 }, parents = { 0 };
	int r = add_entries(p, 1, &params, &s.roots);
	if (r == 0)
		r = add_entries(p, 0, &params, &s.files);
	if (r == 0)
		r = seatbelt_held_params(p, &params, &s);
	for (size_t i = 0; r == 0 && i < p->nprot; i++)
		if (!p->prot[i].absent)
			r = push_param(&params, clauses[C_PROTECT].name, s.protects++,
				       p->prot[i].path);
	if (r == 0)
		r = protect_parents(p, &parents);
	for (size_t i = 0; r == 0 && i < parents.n; i++)
		r = push_param(&params, clauses[C_PARENT].name, s.parents++, parents.v[i]);
	strv_free(&parents);
	for (size_t i = 0; r == 0 && i < p->nsockets; i++)
		r = push_param(&params, clauses[C_SOCKET].name, s.sockets++, p->sockets[i]);
	for (size_t i = 0; r == 0 && i < p->nabsent; i++)
		r = push_param(&params, clauses[C_ABSENT].name, s.absents++, p->absent[i]);
	for (size_t i = 0; r == 0 && i < p->nprot; i++)
		if (p->prot[i].absent)
			r = push_param(&params, clauses[C_ABSENT].name, s.absents++,
				       p->prot[i].path);
	if (r == 0 && p->network_off && p->proxy_port != 0) {
		char port[16];
		snprintf(port, sizeof(port), "%u", p->proxy_port);
		s.proxy = 1;
		r = push_param(&params, "PROXY_PORT", 0, port);
	}
	for (size_t i = 0; r == 0 && i < p->ndeny; i++) {
		const struct deny_entry *d = &p->deny[i];
		char keep[CORDON_PATH_MAX];
		if (d->left_open)
			continue;
		r = push_param(&params, clauses[C_DENY_READ].name, s.denies++, d->path);
		for (size_t k = 0; r == 0 && k < d->nkeep; k++)
			if (path_join(keep, sizeof(keep), d->path, d->keep[k]) == 0)
				r = push_param(&params, clauses[C_READ_KEEP].name, s.keeps++, keep);
	}

	char *profile = r == 0 ? seatbelt_profile(&s) : NULL;
	if (profile == NULL || strv_push(out, exec_path) != 0 || strv_push(out, "-p") != 0 ||
	    strv_take(out, profile) != 0) {
		strv_free(&params);
		return CORDON_ENOMEM;
	}
	for (size_t i = 0; i < params.n; i++) {
		if (strv_take(out, params.v[i]) != 0) {
			params.v[i] = NULL;
			for (size_t j = i + 1; j < params.n; j++)
				free(params.v[j]);
			free(params.v);
			return CORDON_ENOMEM;
		}
	}
	free(params.v); /* the strings now belong to out */
	if (shape != NULL)
		*shape = s;
	return strv_push(out, "--");
}

/* ---- the probe ---- */

enum reason_id seatbelt_classify(int exec_err, int timed_out, int status, char *detail,
				 size_t detail_len)
{
	if (exec_err == ENOENT || exec_err == ENOTDIR) {
		snprintf(detail, detail_len, "sandbox-exec is not installed");
		return REASON_SEATBELT_MISSING;
	}
	if (exec_err != 0) {
		snprintf(detail, detail_len, "sandbox-exec could not be run: %s",
			 strerror(exec_err));
		return REASON_SEATBELT_PROBE_FAILED;
	}
	if (timed_out) {
		snprintf(detail, detail_len, "sandbox-exec did not finish in time");
		return REASON_SEATBELT_PROBE_FAILED;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		detail[0] = '\0';
		return REASON_NONE;
	}
	if (WIFEXITED(status)) {
		snprintf(detail, detail_len, "sandbox-exec exited with status %d",
			 WEXITSTATUS(status));
		return WEXITSTATUS(status) == EXIT_NOT_APPLIED ? REASON_SEATBELT_NESTED
							       : REASON_SEATBELT_PROBE_FAILED;
	}
	if (WIFSIGNALED(status))
		snprintf(detail, detail_len, "sandbox-exec was killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(detail, detail_len, "sandbox-exec ended with wait status %d", status);
	return REASON_SEATBELT_PROBE_FAILED;
}

#if defined(CORDON_SEATBELT_TEST_HOOKS)
static const char *exec_path = SEATBELT_EXEC;
static int probe_timeout_ms = PROBE_TIMEOUT_MS;
#else
/* Release builds: the path and the timeout are constants. */
static const char exec_path[] = SEATBELT_EXEC;
static const int probe_timeout_ms = PROBE_TIMEOUT_MS;
#endif

/* The answer, found once per process. */
static struct {
	enum reason_id reason; /* REASON_NONE when available */
	char detail[96];
} probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

/* The probe could not even start (no fd, no process). */
static void cannot_probe(int err)
{
	snprintf(probed.detail, sizeof(probed.detail), "cannot start the probe: %s", strerror(err));
	probed.reason = REASON_SEATBELT_PROBE_FAILED;
}

/*
 * Run sandbox-exec with a profile that allows everything and /usr/bin/true,
 * with its output discarded. Exit 0: Seatbelt can be applied here.
 */
static void probe_run(void)
{
	static const char *const argv[] = { "sandbox-exec", "-p", "(version 1)(allow default)",
					    "/usr/bin/true", NULL };
	static const char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	int saved = errno, pfd[2], status = 0, err = 0;

	int nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nullfd < 0 || pipe_cloexec(pfd) != 0) {
		cannot_probe(errno);
		if (nullfd >= 0)
			close(nullfd);
		errno = saved;
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		(void)dup2(nullfd, 0);
		(void)dup2(nullfd, 1);
		(void)dup2(nullfd, 2);
		execve(exec_path, (char *const *)argv, (char *const *)envp);
		err = errno;
		(void)!write(pfd[1], &err, sizeof(err));
		_exit(127);
	}
	int fork_err = errno;
	close(nullfd);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		cannot_probe(fork_err);
		errno = saved;
		return;
	}
	/* 0 bytes: the exec worked (the pipe closed on exec). */
	ssize_t n;
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n != (ssize_t)sizeof(err))
		err = 0;
	int timed_out = reap_with_timeout(pid, &status, probe_timeout_ms) != 0;
	probed.reason =
		seatbelt_classify(err, timed_out, status, probed.detail, sizeof(probed.detail));
	errno = saved;
}

#if defined(CORDON_SEATBELT_TEST_HOOKS)
void seatbelt_test_reset(const char *path, int timeout_ms)
{
	static const pthread_once_t fresh = PTHREAD_ONCE_INIT;
	exec_path = path;
	probe_timeout_ms = timeout_ms;
	memset(&probed, 0, sizeof(probed));
	probe_once = fresh;
}
#endif

static void sb_probe(const struct probe_opts *o, struct backend_probe *out)
{
	/* Seatbelt has no versions to cap, nothing to start early, no layer
	 * it is unsure of. */
	if (out == NULL || o->early)
		return;
	pthread_once(&probe_once, probe_run);
	memset(out, 0, sizeof(*out));
	out->available = probed.reason == REASON_NONE;
	out->reason = probed.reason;
	out->detail = probed.detail[0] != '\0' ? probed.detail : NULL;
	if (out->available)
		seatbelt_coverage(&out->cov);
}

void seatbelt_coverage(struct coverage *out)
{
	/* The profile denies file writes (and with them metadata changes
	 * outside and the protected paths), setuid/setgid bits, signals and
	 * process information outside the sandbox, and Unix sockets outside
	 * the writable set and --allow-socket; with --network off, IP
	 * (network_seatbelt, loopback included). Left as without it: reads,
	 * the network when on, device ioctls (TIOCSTI included), SysV and POSIX IPC,
	 * which are global on macOS, the list of processes (a sysctl), and
	 * processes that leave the command's process group, which cordon
	 * kills (macOS has no PID namespace). /tmp and /var/tmp stay the
	 * machine's, read-only: the profile cannot give a path another
	 * directory. */
	out->layers = 1u << LAYER_SEATBELT | 1u << LAYER_SETID | 1u << LAYER_NET_SEATBELT;
	out->gaps = 1ull << GAP_DEVICE_IOCTL | 1ull << GAP_TERMINAL | 1ull << GAP_READS |
		    1ull << GAP_NETWORK | 1ull << GAP_PROCESSES | 1ull << GAP_SURVIVORS |
		    1ull << GAP_IPC | 1ull << GAP_TMP_SHARED;
	out->protects = 1;
	out->refuses_absent = 1; /* the profile matches paths, existing or not */
	/* ... and patterns of paths: the agent configuration at any depth of
	 * the workspace and the --allow-write directories (seatbelt-held.c),
	 * but a directory moved in whole with some inside (the gap
	 * agent_config_moved_in_partial). */
	out->holds_below = 1;
	out->denies_reads = DENY_BY_SEATBELT;
	/* The profile's network rule refuses every IP socket, loopback
	 * included: the run has no loopback of its own. */
	out->net_layers = out->net_off = 1u << LAYER_NET_SEATBELT;
	out->net_whole = 1;
	out->net_own_loopback = 0;
}

/* Seatbelt matches resolved paths: resolve each entry once more, now,
 * into the copy the profile's parameters are made from. */
static int canonical(struct run_result *res, const char *path, char **out)
{
	char real[CORDON_PATH_MAX];
	if (realpath(path, real) == NULL)
		return backend_fail_errno(res, CORDON_ESYS, errno, "cannot resolve %s", path);
	if ((*out = strdup(real)) == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	return 0;
}

/* A path that may not exist: its nearest existing ancestor canonical,
 * the rest as it is (macOS: /tmp is /private/tmp). */
static int canonical_absent(struct run_result *res, const char *path, char **out)
{
	char head[CORDON_PATH_MAX], real[CORDON_PATH_MAX], full[CORDON_PATH_MAX];
	if (snprintf(head, sizeof(head), "%s", path) >= (int)sizeof(head))
		return backend_fail(res, CORDON_EINVAL, "path too long: %s", path);
	while (realpath(head, real) == NULL) {
		char *slash = strrchr(head, '/');
		if (slash == NULL || slash == head)
			return backend_fail_errno(res, CORDON_ESYS, errno, "cannot resolve %s",
						  path);
		*slash = '\0';
	}
	const char *rest = path + strlen(head);
	if (snprintf(full, sizeof(full), "%s%s", real, rest) >= (int)sizeof(full))
		return backend_fail(res, CORDON_EINVAL, "path too long: %s", path);
	if ((*out = strdup(full)) == NULL)
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	return 0;
}

static void free_copy(struct policy *q)
{
	for (size_t i = 0; i < q->nw; i++)
		free(q->w[i].path);
	for (size_t i = 0; i < q->nprot; i++)
		free(q->prot[i].path);
	for (size_t i = 0; i < q->nsockets; i++)
		free(q->sockets[i]);
	for (size_t i = 0; i < q->nabsent; i++)
		free(q->absent[i]);
	free(q->workspace);
	free(q->w);
	free(q->prot);
	free(q->sockets);
	free(q->absent);
	strv_free(&q->agent_opted);
}

static int sb_prepare(const struct run_spec *run, struct run_result *res)
{
	const struct policy *p = run->pol;
	struct launch *out = &res->launch;
	struct policy q = { 0 };
	struct strv argv = { 0 };
	int r = 0;

	/* A copy of the policy with every path canonical again; the policy
	 * itself is the caller's and stays as it is. */
	q.w = calloc(p->nw + 1, sizeof(*q.w));
	q.prot = calloc(p->nprot + 1, sizeof(*q.prot));
	q.sockets = calloc(p->nsockets + 1, sizeof(*q.sockets));
	q.absent = calloc(p->nabsent + 1, sizeof(*q.absent));
	if (q.w == NULL || q.prot == NULL || q.sockets == NULL || q.absent == NULL) {
		free_copy(&q);
		return backend_fail(res, CORDON_ENOMEM, "out of memory");
	}
	for (size_t i = 0; r == 0 && i < p->nw; i++) {
		q.w[i] = p->w[i];
		q.w[i].path = NULL;
		q.nw++;
		r = canonical(res, p->w[i].path, &q.w[i].path);
	}
	for (size_t i = 0; r == 0 && i < p->nprot; i++) {
		q.prot[i] = p->prot[i];
		q.prot[i].path = NULL;
		q.nprot++;
		r = p->prot[i].absent ? canonical_absent(res, p->prot[i].path, &q.prot[i].path)
				      : canonical(res, p->prot[i].path, &q.prot[i].path);
	}
	for (size_t i = 0; r == 0 && i < p->nsockets; i++) {
		q.nsockets++;
		r = canonical(res, p->sockets[i], &q.sockets[i]);
	}
	for (size_t i = 0; r == 0 && i < p->nabsent; i++) {
		q.nabsent++;
		r = canonical_absent(res, p->absent[i], &q.absent[i]);
	}
	if (r == 0 && p->workspace != NULL)
		r = canonical(res, p->workspace, &q.workspace);
	q.held_names = p->held_names;
	q.nheld_names = p->nheld_names;
	for (size_t i = 0; r == 0 && i < p->agent_opted.n; i++) {
		char *path = NULL;
		r = canonical_absent(res, p->agent_opted.v[i], &path);
		if (r == 0 && strv_take(&q.agent_opted, path) != 0)
			r = backend_fail(res, CORDON_ENOMEM, "out of memory");
	}
	struct sb_shape shape = { 0 };
	if (r == 0 && seatbelt_argv(&q, exec_path, &argv, &shape) != 0)
		r = backend_fail(res, CORDON_ENOMEM, "out of memory");
	res->held_depth_unexpressed = shape.unexpressed > 0;
	free_copy(&q);
	if (r != 0) {
		strv_free(&argv);
		return r;
	}
	out->argv_prefix = argv.v;
	out->nprefix = argv.n;
	return 0;
}

const struct backend cordon_backend_seatbelt = {
	.id = BACKEND_SEATBELT,
	.probe = sb_probe,
	.prepare = sb_prepare,
};
