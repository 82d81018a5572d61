/*
 * The Seatbelt profile and argv builders (pure, so tested on Linux):
 * paths only ever appear as -D values, the profile text depends on the
 * number and kind of entries and on nothing else, its rules come in the
 * order that makes the last match right, ancestors of protected paths
 * are found, the agent configuration below the guard's levels is denied
 * where the last match needs it, the argv of docs/macos.md's example is
 * exactly what the builder makes, and the backend reports the layers and
 * gaps the profile gives.
 */
#include "agentcfg.h"
#include "backend.h"
#include "seatbelt.h"
#include "tap.h"
#include "sbargv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A policy written by hand: dirs and files with their kinds, protections. */
struct entry {
	const char *path;
	int is_dir;
	enum wkind kind;
};

static void make_policy(struct policy *p, const struct entry *w, size_t nw, const char *const *prot,
			size_t nprot)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < nw; i++)
		if (policy_add_writable(p, w[i].path, w[i].is_dir, w[i].kind) != 0)
			exit(2);
	p->prot = calloc(nprot + 1, sizeof(*p->prot));
	for (size_t i = 0; p->prot != NULL && i < nprot; i++) {
		p->prot[i].path = strdup(prot[i]);
		p->prot[i].explicit_ = 1;
	}
	p->nprot = nprot;
}

/* --allow-socket paths for a policy made by make_policy. */
static void add_sockets(struct policy *p, const char *const *sock, size_t n)
{
	p->sockets = calloc(n + 1, sizeof(*p->sockets));
	for (size_t i = 0; p->sockets != NULL && i < n; i++)
		p->sockets[i] = strdup(sock[i]);
	p->nsockets = p->sockets != NULL ? n : 0;
}

/* Where needle first occurs in hay at or after from, or NULL. */
static const char *find_from(const char *hay, const char *from, const char *needle)
{
	return hay != NULL && from != NULL ? strstr(from, needle) : NULL;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *a = hay; a != NULL && (a = strstr(a, needle)) != NULL; a++)
		n++;
	return n;
}

static void profile_text(void)
{
	struct sb_shape s = { 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0 };
	char *got = seatbelt_profile(&s);
	static const char want[] =
		"(version 1)\n"
		"(allow default)\n"
		"(deny file-write* file-link)\n"
		"(allow file-write* file-link (subpath (param \"ROOT_0\")))\n"
		"(allow file-write* file-link (literal (param \"FILE_0\")))\n"
		"(allow file-write*\n"
		"  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\")\n"
		"  (literal \"/dev/ptmx\") (literal \"/dev/dtracehelper\")\n"
		"  (regex #\"^/dev/ttys[0-9]+$\") (regex #\"^/dev/fd/[0-9]+$\"))\n"
		"(deny file-write* file-link (regex (param \"AGENT_BELOW_0\")))\n"
		"(allow file-write* file-link (literal (param \"AGENT_ALLOW_0\")) "
		"(subpath (param \"AGENT_ALLOW_0\")))\n"
		"(deny file-write* file-link (literal (param \"PROTECT_0\")) "
		"(subpath (param \"PROTECT_0\")))\n"
		"(deny file-write-unlink (literal (param \"PROTECT_PARENT_0\")))\n"
		"(deny file-write* file-link (literal (param \"ABSENT_0\")) "
		"(subpath (param \"ABSENT_0\")))\n"
		"(deny file-write-setugid)\n"
		"(deny signal)\n"
		"(allow signal (target same-sandbox))\n"
		"(deny process-info*)\n"
		"(allow process-info* (target same-sandbox))\n"
		"(deny network-outbound (remote unix-socket (subpath \"/\")))\n"
		"(allow network-outbound\n"
		"  (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\"))\n"
		"  (remote unix-socket (path-literal \"/private/var/run/syslog\")))\n"
		"(allow network-outbound (remote unix-socket (subpath (param \"ROOT_0\"))))\n"
		"(allow network-outbound (remote unix-socket (path-literal (param \"FILE_0\"))))\n"
		"(allow network-outbound (remote unix-socket (subpath (param \"SOCKET_0\"))))\n";
	is_str(got, want, "the profile for one entry of each kind, rule by rule");
	free(got);

	struct sb_shape none = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
			many = { 12, 3, 2, 4, 5, 2, 0, 0, 0, 0, 0, 3, 2, 0 };
	got = seatbelt_profile(&none);
	ok(got != NULL && strstr(got, "param") == NULL &&
		   strstr(got, "(deny file-write* file-link)") &&
		   strstr(got, "(deny file-write-setugid)") &&
		   strstr(got, "(deny network-outbound (remote unix-socket (subpath \"/\")))") &&
		   count(got, "(remote unix-socket") == 3,
	   "no entries: writes and Unix sockets denied except the devices and the two system "
	   "sockets, no parameter");
	free(got);
	got = seatbelt_profile(&many);
	ok(got != NULL && strstr(got, "(param \"ROOT_11\")") && !strstr(got, "ROOT_12") &&
		   strstr(got, "(param \"FILE_2\")") && !strstr(got, "FILE_3") &&
		   strstr(got, "(param \"PROTECT_1\")") && !strstr(got, "PROTECT_2") &&
		   strstr(got, "(param \"PROTECT_PARENT_3\")") && !strstr(got, "PARENT_4") &&
		   strstr(got, "(param \"SOCKET_4\")") && !strstr(got, "SOCKET_5") &&
		   strstr(got, "(param \"ABSENT_1\")") && !strstr(got, "ABSENT_2") &&
		   strstr(got, "(param \"AGENT_BELOW_2\")") && !strstr(got, "AGENT_BELOW_3") &&
		   strstr(got, "(param \"AGENT_ALLOW_1\")") && !strstr(got, "AGENT_ALLOW_2"),
	   "one clause per entry, numbered from 0");
	is_int(count(got, "(remote unix-socket (subpath (param \"ROOT_"), 12,
	       "each writable directory opens its Unix sockets");
	is_int(count(got, "(remote unix-socket (path-literal (param \"FILE_"), 3,
	       "each writable file too, as itself only");
	is_int(count(got, "(remote unix-socket (subpath (param \"SOCKET_"), 5,
	       "each --allow-socket path, as a socket or a tree");

	/* Later rules win. The protections must come after every allow of a
	 * file write, and the setuid/setgid deny after them: nothing after it
	 * allows a file operation. */
	const char *last_file_allow = got;
	for (const char *a = got; (a = strstr(a, "(allow file-")) != NULL; a++)
		last_file_allow = a;
	const char *first_deny = find_from(got, got, "(deny file-write* file-link (literal");
	ok(first_deny != NULL && first_deny > last_file_allow,
	   "protections follow every allow of a file write");
	/* The agent configuration below the levels: denied after the
	 * writable set and the devices, the opt-outs allowed after every such
	 * deny, and both before the protections (which win inside an
	 * opted-out path too). */
	const char *devices = find_from(got, got, "(allow file-write*\n  (literal \"/dev/null\")");
	const char *below0 = find_from(got, got,
				       "(deny file-write* file-link (regex (param "
				       "\"AGENT_BELOW_0\")))\n");
	const char *below2 = find_from(got, got, "(param \"AGENT_BELOW_2\")");
	const char *allow0 =
		find_from(got, got,
			  "(allow file-write* file-link (literal (param "
			  "\"AGENT_ALLOW_0\")) (subpath (param \"AGENT_ALLOW_0\")))\n");
	const char *allow1 = find_from(got, got, "(param \"AGENT_ALLOW_1\")");
	const char *last_root = find_from(got, got,
					  "(allow file-write* file-link (literal (param "
					  "\"FILE_2\")))");
	ok(last_root != NULL && devices > last_root && below0 > devices,
	   "held names below the levels: denied after every writable entry and the devices");
	ok(below2 != NULL && allow0 > below2 && allow1 > allow0 && first_deny > allow1,
	   "the --allow-agent-config paths allowed after every such deny, before the protections");
	ok(count(got, "(regex (param") == 3 &&
		   count(got, "(deny file-write* file-link (regex") == 3,
	   "one pattern rule per tree, each a deny");
	const char *setugid = find_from(got, got, "(deny file-write-setugid)\n");
	const char *last_parent = find_from(got, got, "(param \"PROTECT_PARENT_3\")");
	ok(setugid != NULL && last_parent != NULL && setugid > last_file_allow &&
		   setugid > last_parent,
	   "the setuid/setgid deny follows every allow and every protection");
	int only_other_ops = setugid != NULL;
	for (const char *a = setugid; only_other_ops && (a = strstr(a, "(allow ")) != NULL; a++)
		only_other_ops = strncmp(a, "(allow signal ", 14) == 0 ||
				 strncmp(a, "(allow process-info* ", 21) == 0 ||
				 strncmp(a, "(allow network-outbound", 23) == 0;
	ok(only_other_ops, "after it, only signals, process information and sockets are allowed");
	ok(count(got, "(deny file-write-setugid)") == 1 && count(got, "setugid") == 1,
	   "setugid is named once, in a deny");

	/* Each deny comes before the allows that narrow it, and once. */
	const char *dsig = find_from(got, got, "(deny signal)\n");
	const char *asig = find_from(got, got, "(allow signal (target same-sandbox))\n");
	ok(dsig != NULL && asig > dsig && count(got, "signal") == 2,
	   "signals: denied, then allowed within the sandbox");
	const char *dinfo = find_from(got, got, "(deny process-info*)\n");
	const char *ainfo = find_from(got, got, "(allow process-info* (target same-sandbox))\n");
	ok(dinfo != NULL && ainfo > dinfo && count(got, "process-info") == 2,
	   "process information: denied, then allowed within the sandbox");
	const char *dsock = find_from(got, got, "(deny network-outbound");
	const char *first_sock_allow = find_from(got, got, "(allow network-outbound");
	ok(dsock != NULL && first_sock_allow > dsock && count(got, "(deny network") == 1 &&
		   count(got, "network-outbound") == 1 + 1 + 12 + 3 + 5,
	   "Unix sockets: one deny, then every allow after it");
	ok(strstr(got, "(allow network-outbound)") == NULL &&
		   count(got, "(remote unix-socket") == count(got, "network-outbound") + 1,
	   "every network rule names a Unix socket (no other network rule)");
	free(got);
}

/* Paths a profile would choke on if they were ever spliced into it. */
static const char *const nasty[] = {
	"/w/it's \"quoted\"",
	"/w/(paren) (allow default)",
	"/w/back\\slash\\\"",
	"/w/new\nline",
	"/w/#\"regex\"",
	"/w/\xff\xfe\x80 not utf-8",
	"/w/x\")))(allow file-write* (subpath \"/",
	"/w/equals=sign;comment",
};
#define NNASTY (sizeof(nasty) / sizeof(nasty[0]))

/* Socket paths that would open every socket if they were spliced in. */
static const char *const nasty_sockets[] = {
	"/s/x\")))\n(allow network-outbound)\n(allow signal",
	"/s/(remote unix-socket (subpath \"/Users\"))",
	"/s/agent.sock;#\"\\",
	"/s/\xc3\x28 \"\\\"\n",
};
#define NSOCKETS (sizeof(nasty_sockets) / sizeof(nasty_sockets[0]))

static void paths_only_as_parameters(void)
{
	char dirs[2][NNASTY][256], files[2][256], prots[2][2][300], socks[2][NSOCKETS][256];
	struct entry w[2][NNASTY + 1];
	const char *prot[2][2], *sock[2][NSOCKETS];
	struct policy p[2];
	struct strv argv[2];
	struct sb_shape shape[2];

	for (int v = 0; v < 2; v++) {
		/* Variant 0 uses the nasty names, variant 1 plain ones of other
		 * lengths: the same shape. */
		for (size_t i = 0; i < NNASTY; i++) {
			if (v == 0)
				snprintf(dirs[v][i], sizeof(dirs[v][i]), "%s", nasty[i]);
			else
				snprintf(dirs[v][i], sizeof(dirs[v][i]), "/plain/%zu", i * 7919);
			w[v][i] = (struct entry){ dirs[v][i], 1, W_EXTRA };
		}
		snprintf(files[v], sizeof(files[v]), "%s", v == 0 ? "/f/\n(deny default)" : "/f");
		w[v][NNASTY] = (struct entry){ files[v], 0, W_EXTRA };
		snprintf(prots[v][0], sizeof(prots[v][0]), "%s/.git/hooks", dirs[v][1]);
		snprintf(prots[v][1], sizeof(prots[v][1]), "%s/#\"\\(", dirs[v][5]);
		prot[v][0] = prots[v][0];
		prot[v][1] = prots[v][1];
		for (size_t i = 0; i < NSOCKETS; i++) {
			if (v == 0)
				snprintf(socks[v][i], sizeof(socks[v][i]), "%s", nasty_sockets[i]);
			else
				snprintf(socks[v][i], sizeof(socks[v][i]), "/run/%zu.sock",
					 i * 104729);
			sock[v][i] = socks[v][i];
		}
		make_policy(&p[v], w[v], NNASTY + 1, prot[v], 2);
		add_sockets(&p[v], sock[v], NSOCKETS);
		if (policy_add_absent(&p[v], "/plain/.git/commondir") != 0)
			abort();
		is_int(build(&p[v], &argv[v], &shape[v]), 0, "variant %d builds", v);
	}
	ok(argv[0].n == argv[1].n && argv[0].n > 3, "same shape, same number of arguments");
	is_str(argv[0].v[2], argv[1].v[2], "the profile text is byte-identical whatever the paths");
	ok(shape[0].roots == NNASTY && shape[0].files == 1 && shape[0].protects == 2 &&
		   shape[0].parents == 3 && shape[0].sockets == NSOCKETS,
	   "shape: %zu roots, %zu file, %zu protects, %zu parents, %zu sockets", shape[0].roots,
	   shape[0].files, shape[0].protects, shape[0].parents, shape[0].sockets);

	int all_found = 1;
	char key[32];
	for (size_t i = 0; i < NNASTY; i++) {
		snprintf(key, sizeof(key), "ROOT_%zu", i);
		const char *val = param_value(&argv[0], key);
		if (val == NULL || strcmp(val, nasty[i]) != 0) {
			all_found = 0;
			diag("%s is not %s", key, nasty[i]);
		}
	}
	ok(all_found, "each path is the exact -D value of its parameter");
	all_found = 1;
	for (size_t i = 0; i < NSOCKETS; i++) {
		snprintf(key, sizeof(key), "SOCKET_%zu", i);
		const char *val = param_value(&argv[0], key);
		if (val == NULL || strcmp(val, nasty_sockets[i]) != 0) {
			all_found = 0;
			diag("%s is not %s", key, nasty_sockets[i]);
		}
	}
	snprintf(key, sizeof(key), "SOCKET_%zu", NSOCKETS);
	ok(all_found && param_value(&argv[0], key) == NULL,
	   "each --allow-socket path is the exact -D value of its SOCKET_ parameter, in order");
	is_str(param_value(&argv[0], "FILE_0"), files[0], "a file is a FILE_ parameter");
	is_str(param_value(&argv[0], "ABSENT_0"), "/plain/.git/commondir",
	       "a name the git guard forbids is an ABSENT_ parameter");
	is_str(param_value(&argv[0], "PROTECT_1"), prots[0][1], "protected paths are parameters");
	is_str(param_value(&argv[0], "PROTECT_PARENT_1"), dirs[0][1],
	       "... and so are their parents (nearest first: .git, then the tree)");
	const char *profile = argv[0].v[2];
	int leaked = 0;
	for (size_t i = 0; i < NNASTY; i++)
		leaked |= strstr(profile, nasty[i] + 3) != NULL;
	for (size_t i = 0; i < NSOCKETS; i++)
		leaked |= strstr(profile, nasty_sockets[i] + 3) != NULL;
	ok(!leaked && strchr(profile, '\'') == NULL && strchr(profile, '\\') == NULL &&
		   strchr(profile, ';') == NULL,
	   "no byte of a path is in the profile");
	for (int v = 0; v < 2; v++) {
		strv_free(&argv[v]);
		policy_free(&p[v]);
	}
}

static void argv_layout(void)
{
	static const struct entry w[] = {
		{ "/ws", 1, W_WORKSPACE },   { "/dev/null", 0, W_DEVICE },
		{ "/extra/f", 0, W_EXTRA },  { "/state/runs/A", 1, W_TMPDIR },
		{ "/dev/pts", 1, W_DEVICE }, { "/cache/npm", 1, W_CACHE },
	};
	static const char *const prot[] = { "/ws/.git/hooks", "/ws/.git/config", "/ws/sub/x" };
	static const char *const sock[] = { "/run/user/agent.sock", "/srv/sockets" };
	static const char *const want[] = {
		SEATBELT_EXEC, "-p",
		NULL, /* the profile */
		"-D",	       "ROOT_0=/ws",
		"-D",	       "ROOT_1=/state/runs/A",
		"-D",	       "ROOT_2=/cache/npm",
		"-D",	       "FILE_0=/extra/f",
		"-D",	       "PROTECT_0=/ws/.git/hooks",
		"-D",	       "PROTECT_1=/ws/.git/config",
		"-D",	       "PROTECT_2=/ws/sub/x",
		"-D",	       "PROTECT_PARENT_0=/ws/.git",
		"-D",	       "PROTECT_PARENT_1=/ws",
		"-D",	       "PROTECT_PARENT_2=/ws/sub",
		"-D",	       "SOCKET_0=/run/user/agent.sock",
		"-D",	       "SOCKET_1=/srv/sockets",
		"--",
	};
	struct policy p;
	struct strv argv;
	make_policy(&p, w, sizeof(w) / sizeof(w[0]), prot, 3);
	add_sockets(&p, sock, 2);
	is_int(build(&p, &argv, NULL), 0, "builds");
	size_t n = sizeof(want) / sizeof(want[0]);
	is_int(argv.n, n, "argument count");
	for (size_t i = 0; i < n && i < argv.n; i++)
		if (want[i] != NULL)
			is_str(argv.v[i], want[i], "argv[%zu]", i);
	ok(argv.v[argv.n] == NULL, "NULL-terminated");
	ok(strstr(argv.v[2], "/dev/pts") == NULL && strstr(argv.v[2], "ROOT_3") == NULL,
	   "devices are not parameters: the profile names macOS's own");
	strv_free(&argv);
	policy_free(&p);

	/* A protected path in an --allow-write tree, with "/" writable. */
	static const struct entry w2[] = { { "/", 1, W_EXTRA } };
	static const char *const prot2[] = { "/a/b" };
	make_policy(&p, w2, 1, prot2, 1);
	build(&p, &argv, NULL);
	is_str(param_value(&argv, "PROTECT_PARENT_0"), "/a", "parents: /a ...");
	is_str(param_value(&argv, "PROTECT_PARENT_1"), "/", "... and / itself when writable");
	strv_free(&argv);
	policy_free(&p);

	/* Ancestors outside every writable dir are left out. */
	static const struct entry w3[] = { { "/x/ws", 1, W_WORKSPACE }, { "/x/ws2", 1, W_EXTRA } };
	static const char *const prot3[] = { "/x/ws2/deep/er/p" };
	make_policy(&p, w3, 2, prot3, 1);
	struct sb_shape s;
	build(&p, &argv, &s);
	is_int(s.parents, 3, "parents stop at the writable dir: er, deep, ws2");
	is_str(param_value(&argv, "PROTECT_PARENT_2"), "/x/ws2", "the writable dir itself");
	strv_free(&argv);
	policy_free(&p);
}

/* The fenced block after MARKER in docs/macos.md, one string per line. */
static int doc_block(const char *marker, struct strv *out)
{
	FILE *f = fopen("docs/macos.md", "r");
	char line[1024];
	int state = 0; /* 0 before marker, 1 before fence, 2 inside */
	memset(out, 0, sizeof(*out));
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (state == 0 && strcmp(line, marker) == 0)
			state = 1;
		else if (state == 1 && strncmp(line, "```", 3) == 0)
			state = 2;
		else if (state == 2 && strcmp(line, "```") == 0)
			break;
		else if (state == 2)
			strv_push(out, line);
	}
	fclose(f);
	return state == 2 ? 0 : -1;
}

/* The example run of docs/macos.md: caches, an extra tree and file,
 * default and explicit protections. */
static void docs_example(void)
{
	static const struct entry w[] = {
		{ "/Users/u/proj", 1, W_WORKSPACE },
		{ "/Users/u/shared", 1, W_EXTRA },
		{ "/Users/u/notes.txt", 0, W_EXTRA },
		{ "/Users/u/.cargo/registry", 1, W_CACHE },
		{ "/Users/u/.cargo/git", 1, W_CACHE },
		{ "/Users/u/.cargo/.package-cache", 0, W_CACHE },
		{ "/Users/u/.npm", 1, W_CACHE },
		{ "/Users/u/.local/state/cordon/runs/Ab12Cd", 1, W_TMPDIR },
		{ "/dev/null", 0, W_DEVICE },
		{ "/dev/tty", 0, W_DEVICE },
	};
	static const char *const prot[] = { "/Users/u/shared/frozen", "/Users/u/proj/.git/hooks",
					    "/Users/u/proj/.git/config" };
	static const char *const sock[] = { "/private/tmp/com.apple.launchd.x1Y2z3/Listeners" };
	struct policy p;
	struct strv argv, doc_argv, doc_profile;
	make_policy(&p, w, sizeof(w) / sizeof(w[0]), prot, 3);
	add_sockets(&p, sock, 1);
	/* The agent-config guard's names, and --allow-agent-config
	 * /Users/u/proj/tools/.vscode. */
	p.workspace = strdup("/Users/u/proj");
	p.held_names = agentcfg_names;
	p.nheld_names = agentcfg_nnames;
	if (p.workspace == NULL || strv_push(&p.agent_opted, "/Users/u/proj/tools/.vscode") != 0)
		abort();
	build(&p, &argv, NULL);
	strv_push(&argv, "cargo");
	strv_push(&argv, "test");
	if (getenv("SEATBELT_PRINT_EXAMPLE") != NULL)
		for (size_t i = 0; i < argv.n; i++)
			printf("# %s\n", i == 2 ? "PROFILE" : argv.v[i]);

	ok(doc_block("<!-- example: argv -->", &doc_argv) == 0, "docs/macos.md has the argv");
	ok(doc_block("<!-- example: profile -->", &doc_profile) == 0,
	   "docs/macos.md has the profile");
	int same = doc_argv.n == argv.n;
	for (size_t i = 0; same && i < argv.n; i++)
		same = strcmp(doc_argv.v[i], i == 2 ? "PROFILE" : argv.v[i]) == 0;
	ok(same, "the argv is exactly what docs/macos.md says");
	size_t len = 0;
	for (size_t i = 0; i < doc_profile.n; i++)
		len += strlen(doc_profile.v[i]) + 1;
	char *text = calloc(len + 1, 1);
	for (size_t i = 0; text != NULL && i < doc_profile.n; i++) {
		strcat(text, doc_profile.v[i]);
		strcat(text, "\n");
	}
	is_str(text, argv.v[2], "the profile is exactly what docs/macos.md says");
	free(text);
	strv_free(&doc_argv);
	strv_free(&doc_profile);
	strv_free(&argv);
	policy_free(&p);
}

/* What the backend reports: the profile's layers and exactly the gaps it
 * leaves. */
static void coverage(void)
{
	struct coverage cov;
	memset(&cov, 0xa5, sizeof(cov));
	seatbelt_coverage(&cov);
	is_int(cov.layers, 1u << LAYER_SEATBELT | 1u << LAYER_SETID | 1u << LAYER_NET_SEATBELT,
	       "layers: seatbelt, setid_files_refused, network_seatbelt (used by --network off)");
	ok(!(cov.gaps & (1ull << GAP_SIGNALS)) && !(cov.gaps & (1ull << GAP_UNIX_SOCKETS)) &&
		   !(cov.gaps & (1ull << GAP_SETID)),
	   "signals, Unix sockets and setuid/setgid files are not gaps");
	ok(!(cov.gaps & (1ull << GAP_METADATA)) && !(cov.gaps & (1ull << GAP_PROTECT)) &&
		   cov.protects,
	   "metadata outside and protected paths are enforced");
	ok(cov.denies_reads, "denied reads are enforced (the profile's DENY_READ_ clauses)");
	ok(cov.holds_below == 1,
	   "agent configuration below the guard's levels is held (the AGENT_BELOW_ patterns)");
	uint64_t want = 1ull << GAP_DEVICE_IOCTL | 1ull << GAP_TERMINAL | 1ull << GAP_READS |
			1ull << GAP_NETWORK | 1ull << GAP_PROCESSES | 1ull << GAP_SURVIVORS |
			1ull << GAP_IPC | 1ull << GAP_TMP_SHARED;
	ok(cov.gaps == want, "gaps: exactly what the profile leaves");
	for (int g = 0; g < GAP_COUNT; g++)
		if ((cov.gaps ^ want) & (1ull << g))
			diag("differs: %s", cordon_gap_ids[g].id);
}

/* The argv builder's profile (given with -p) for p holds frag; *got gets
 * the shape. */
static int argv_holds(const struct policy *p, struct sb_shape *got, const char *frag)
{
	struct strv argv;
	int r = build(p, &argv, got) == 0 && argv.n > 2 && strstr(argv.v[2], frag) != NULL;
	strv_free(&argv);
	return r;
}

/* The default deny-read list: the camera and the microphone denied (by
 * operation: macOS has no device file for them), before the network
 * rules; absent without the list. The argv builder takes it from the
 * policy. */
static void capture(void)
{
	struct sb_shape s = { 0 };
	char *without = seatbelt_profile(&s);
	s.capture_denied = 1;
	char *with = seatbelt_profile(&s);
	s.network_off = 1;
	char *both = seatbelt_profile(&s);
	static const char frag[] = "(deny device-camera)\n(deny device-microphone)\n";
	ok(without != NULL && strstr(without, "device-") == NULL,
	   "without the default list: no camera or microphone rule");
	ok(with != NULL && strlen(with) >= strlen(frag) &&
		   strcmp(with + strlen(with) - strlen(frag), frag) == 0,
	   "with it: the camera and the microphone denied, closing the profile");
	ok(both != NULL && strstr(both, frag) != NULL &&
		   strstr(both, frag) < strstr(both, "(remote ip)"),
	   "with --network off: before the IP denials, which still close it");
	free(without);
	free(with);
	free(both);

	struct policy p;
	memset(&p, 0, sizeof(p));
	struct sb_shape got;
	p.deny_capture = 1;
	ok(argv_holds(&p, &got, frag) && got.capture_denied == 1,
	   "capture denied: the shape says so, the profile given with -p holds it");
	policy_free(&p);
}

/* --network off: three fixed denials at the end of the profile (after
 * the Unix socket allowances, which they do not touch: they name IP
 * only), no parameter; absent when on. The argv builder takes the shape
 * from the policy. */
static void network_off(void)
{
	struct sb_shape s = { 0 };
	char *on = seatbelt_profile(&s);
	s.network_off = 1;
	char *off = seatbelt_profile(&s);
	static const char frag[] = "(deny network-outbound (remote ip))\n"
				   "(deny network-inbound (local ip))\n"
				   "(deny network-bind (local ip))\n";
	ok(on != NULL && strstr(on, "(remote ip)") == NULL && strstr(on, "(local ip)") == NULL,
	   "network on: no IP rule in the profile");
	ok(off != NULL && strlen(off) >= strlen(frag) &&
		   strcmp(off + strlen(off) - strlen(frag), frag) == 0,
	   "network off: the IP denials close the profile");
	ok(off != NULL && strstr(off, "param") == NULL && strstr(off, "localhost") == NULL,
	   "network off: no parameter, no host text, loopback not allowed back");
	ok(off != NULL &&
		   strstr(off, "(allow network-outbound\n  (remote unix-socket (path-literal "
			       "\"/private/var/run/syslog\")))\n") != NULL,
	   "network off: syslog's Unix socket stays allowed");
	ok(on != NULL && strstr(on, "mDNSResponder") != NULL && off != NULL &&
		   strstr(off, "mDNSResponder") == NULL,
	   "network off: mDNSResponder (the host's resolver) not allowed; on: allowed");
	free(on);
	free(off);

	struct policy p;
	memset(&p, 0, sizeof(p));
	struct strv argv;
	struct sb_shape got;
	p.network_off = 1;
	ok(argv_holds(&p, &got, "(deny network-outbound (remote ip))") && got.network_off == 1,
	   "network off: the shape says so, the profile given with -p holds the IP denials");
	p.network_off = 0;
	is_int(build(&p, &argv, &got), 0, "network on: argv built");
	ok(got.network_off == 0 && argv.n > 2 && strstr(argv.v[2], "(remote ip)") == NULL,
	   "network on: no IP denial");
	strv_free(&argv);
}

/* --network allow: the IP denials, then one allowance after them (the
 * last rule that matches wins): outbound to the proxy's port on
 * localhost, the port a parameter; nothing else of IP. */
static void network_proxy(void)
{
	struct sb_shape s = { 0 };
	s.network_off = 1;
	s.proxy = 1;
	char *got = seatbelt_profile(&s);
	static const char allow[] = "(allow network-outbound (remote ip (string-append "
				    "\"localhost:\" (param \"PROXY_PORT_0\"))))\n";
	const char *deny = got != NULL ? strstr(got, "(deny network-outbound (remote ip))") : NULL;
	const char *al = find_from(got, deny, allow);
	ok(deny != NULL && al != NULL && strcmp(al, allow) == 0,
	   "network allow: the proxy's port allowed after the IP denials, closing the profile");
	ok(got != NULL && strstr(got, "(allow network-inbound") == NULL &&
		   strstr(got, "(allow network-bind") == NULL,
	   "network allow: nothing inbound, no bind");
	ok(got != NULL && strstr(got, "mDNSResponder") == NULL &&
		   count(got, "(remote unix-socket") == 2,
	   "network allow: no mDNSResponder rule (names resolve only in the proxy), syslog "
	   "still allowed");
	free(got);
	s.network_off = 0;
	got = seatbelt_profile(&s);
	ok(got != NULL && strstr(got, "PROXY_PORT") == NULL,
	   "no proxy allowance without the IP denials");
	free(got);

	struct policy p;
	memset(&p, 0, sizeof(p));
	struct strv argv;
	struct sb_shape shape;
	p.network_off = 1;
	p.proxy_port = 43210;
	is_int(build(&p, &argv, &shape), 0, "network allow: argv built");
	const char *port = param_value(&argv, "PROXY_PORT_0");
	ok(shape.proxy == 1 && port != NULL && strcmp(port, "43210") == 0 &&
		   strstr(argv.v[2], "43210") == NULL,
	   "network allow: the port is a parameter (PROXY_PORT_0=43210), not profile text");
	strv_free(&argv);
	p.network_off = 0;
	is_int(build(&p, &argv, &shape), 0, "network on: argv built");
	ok(shape.proxy == 0 && param_value(&argv, "PROXY_PORT_0") == NULL,
	   "a proxy port without the network off: no allowance, no parameter");
	strv_free(&argv);
}

/* Read-deny: a DENY_READ_ parameter per denied path (denied as a tree,
 * and not unlinkable), its ancestors inside the writable set made
 * PROTECT_PARENT_, and the files kept readable allowed after the denies,
 * since the last rule that matches wins. */
static void deny_read(void)
{
	struct sb_shape s = { 0 };
	s.denies = 2;
	s.keeps = 1;
	char *got = seatbelt_profile(&s);
	const char *d0 =
		got != NULL ? strstr(got, "(deny file-read* (subpath (param \"DENY_READ_0\")))")
			    : NULL;
	const char *d1 = find_from(got, d0, "(deny file-read* (subpath (param \"DENY_READ_1\")))");
	const char *u0 =
		find_from(got, d1, "(deny file-write-unlink (literal (param \"DENY_READ_0\")))");
	const char *k0 = find_from(got, u0, "(allow file-read* (literal (param \"READ_KEEP_0\")))");
	ok(d0 && d1 && u0 && k0 && !strstr(got, "DENY_READ_2") && !strstr(got, "READ_KEEP_1"),
	   "deny-read clauses: read denied per tree, unlink denied, kept files allowed after");
	free(got);

	static const struct entry w[] = { { "/ws", 1, W_WORKSPACE } };
	struct policy p;
	struct strv argv;
	struct sb_shape shape;
	make_policy(&p, w, 1, NULL, 0);
	p.deny = calloc(3, sizeof(*p.deny));
	if (p.deny == NULL)
		abort();
	p.deny[0].path = strdup("/home/me/.ssh");
	p.deny[0].is_dir = 1;
	p.deny[0].keep = calloc(1, sizeof(char *));
	if (p.deny[0].keep == NULL)
		abort();
	p.deny[0].keep[0] = strdup("known_hosts");
	p.deny[0].nkeep = 1;
	p.deny[1].path = strdup("/ws/sub/.env");
	/* A default entry at a tool's macOS place (sops' age keys, doctl):
	 * its space reaches sandbox-exec in the parameter, never the text. */
	p.deny[2].path = strdup("/Users/me/Library/Application Support/sops/age/keys.txt");
	p.ndeny = 3;
	is_int(build(&p, &argv, &shape), 0, "a policy with denied reads builds");
	ok(shape.denies == 3 && shape.keeps == 1, "shape: 3 denies, 1 kept file");
	is_str(param_value(&argv, "DENY_READ_2"),
	       "/Users/me/Library/Application Support/sops/age/keys.txt",
	       "a denied macOS path with a space is DENY_READ_2, whole");
	is_str(param_value(&argv, "DENY_READ_0"), "/home/me/.ssh", "a denied tree is DENY_READ_0");
	is_str(param_value(&argv, "DENY_READ_1"), "/ws/sub/.env", "a denied file is DENY_READ_1");
	is_str(param_value(&argv, "READ_KEEP_0"), "/home/me/.ssh/known_hosts",
	       "a kept name is READ_KEEP_0, as a full path");
	is_str(param_value(&argv, "PROTECT_PARENT_0"), "/ws/sub",
	       "the denied file's parent in the workspace cannot be renamed away");
	ok(strstr(argv.v[2], "/home") == NULL && strstr(argv.v[2], ".env") == NULL &&
		   strstr(argv.v[2], "Application Support") == NULL,
	   "no byte of a denied path is in the profile");
	strv_free(&argv);
	policy_free(&p);
}

/* A tool cache is never the user's own on macOS: Seatbelt has no
 * overlay (the backend offers none), and an entry to be seen through one
 * is not granted if it ever came. */
static void caches_not_layered(void)
{
	static const struct entry w[] = {
		{ "/ws", 1, W_WORKSPACE },
		{ "/Users/u/.npm", 1, W_CACHE },
		{ "/state/caches/pip", 1, W_CACHE },
	};
	struct policy p;
	struct strv argv;
	struct cache_layer layer = { NULL, NULL, -1 };
	ok(cordon_backend_seatbelt.cache_layers == NULL,
	   "the Seatbelt backend sees no cache through an overlay: caches.c moves them");
	make_policy(&p, w, sizeof(w) / sizeof(w[0]), NULL, 0);
	p.w[1].layer = &layer;
	is_int(build(&p, &argv, NULL), 0, "builds with an entry seen through an overlay");
	is_str(param_value(&argv, "ROOT_1"), "/state/caches/pip",
	       "cordon's own cache (moved) is writable");
	ok(param_value(&argv, "ROOT_2") == NULL, "... and nothing more");
	int found = 0;
	for (size_t i = 0; i < argv.n; i++)
		found |= strstr(argv.v[i], "/Users/u/.npm") != NULL;
	ok(!found, "the user's ~/.npm is in no parameter (never writable)");
	p.w[1].layer = NULL;
	strv_free(&argv);
	policy_free(&p);
}

/* Protected entries that do not exist (the agent-config guard's, an
 * --protect path not made yet): ABSENT_ parameters, never PROTECT_ ones,
 * denied as a name and as a tree; their parents in the writable set
 * cannot be removed either. */
static void held_absent(void)
{
	static const struct entry w[] = { { "/ws", 1, W_WORKSPACE } };
	static const char *const prot[] = { "/ws/.claude", "/ws/.vscode", "/ws/tests/conftest.py" };
	struct policy p;
	struct strv argv;
	struct sb_shape shape;
	make_policy(&p, w, 1, prot, 3);
	p.prot[1].absent = 1;
	p.prot[1].explicit_ = 0;
	p.prot[2].absent = 1;
	is_int(build(&p, &argv, &shape), 0, "a policy with names that do not exist builds");
	ok(shape.protects == 1 && shape.absents == 2,
	   "one PROTECT_ (what exists), two ABSENT_ (%zu, %zu)", shape.protects, shape.absents);
	is_str(param_value(&argv, "PROTECT_0"), "/ws/.claude",
	       "what exists is a PROTECT_ parameter");
	ok(param_value(&argv, "PROTECT_1") == NULL, "... and only that");
	is_str(param_value(&argv, "ABSENT_0"), "/ws/.vscode",
	       "a name that does not exist is ABSENT_");
	is_str(param_value(&argv, "ABSENT_1"), "/ws/tests/conftest.py",
	       "... so is an --protect path not made yet");
	int parent_tests = 0, parent_ws = 0;
	char key[48];
	for (size_t i = 0; i < shape.parents; i++) {
		snprintf(key, sizeof(key), "PROTECT_PARENT_%zu", i);
		const char *v = param_value(&argv, key);
		parent_tests |= v != NULL && strcmp(v, "/ws/tests") == 0;
		parent_ws |= v != NULL && strcmp(v, "/ws") == 0;
	}
	ok(parent_tests && parent_ws, "its directories in the writable set cannot be removed");
	ok(argv.n > 2 &&
		   strstr(argv.v[2], "(deny file-write* file-link (literal (param "
				     "\"ABSENT_1\")) (subpath (param \"ABSENT_1\")))") != NULL,
	   "the profile denies making it, or anything beneath it");
	struct coverage cov;
	memset(&cov, 0, sizeof(cov));
	seatbelt_coverage(&cov);
	ok(cov.refuses_absent && cov.protects,
	   "the coverage says a name that does not exist is refused");
	strv_free(&argv);
	policy_free(&p);
}

int main(void)
{
	profile_text();
	held_absent();
	paths_only_as_parameters();
	argv_layout();
	docs_example();
	coverage();
	deny_read();
	capture();
	network_off();
	network_proxy();
	caches_not_layered();
	return done_testing();
}
