/*
 * cordon changes and cordon diff: a held run's list, and a unified diff
 * of its text files against the real ones. The diff is /usr/bin/diff's
 * (diffutils; never looked up in PATH), run by cordon itself, unconfined,
 * on the two files opened here without following a symlink and handed
 * over as /dev/fd/N: it only reads them. A file with a NUL byte in its
 * first 8 KiB (either side) is binary: named, not dumped; so are
 * symlinks (their targets shown), directories and special files. Paths
 * in the headers are quoted as git quotes them when they hold a byte
 * that is not printable ASCII, a quote or a backslash.
 */
#include "review.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIFF_PROGRAM "/usr/bin/diff"
#define SNIFF 8192

int cordon_changes(cordon *c, const char *run_id, struct cordon_change **out, size_t *n,
		   char **workspace)
{
	struct held h;
	if (c == NULL || out == NULL || n == NULL)
		return CORDON_EINVAL;
	*out = NULL;
	*n = 0;
	int r = review_held_open(c, run_id, 1, &h);
	if (r != 0)
		return r;
	size_t total = 0;
	for (size_t i = 0; i < h.rec.n; i++)
		total += h.rec.v[i].replaced && h.rec.v[i].type == 'd' ? 2 : 1;
	struct cordon_change *v = calloc(total + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; v != NULL && i < h.rec.n; i++) {
		const struct rchange *ch = &h.rec.v[i];
		if (ch->replaced && ch->type == 'd') {
			v[k].kind = "deleted";
			if ((v[k++].path = strdup(ch->path)) == NULL)
				break;
		}
		v[k].kind = review_kind_name(ch->kind);
		v[k].size = ch->size;
		if ((v[k++].path = strdup(ch->path)) == NULL)
			break;
	}
	char *ws = workspace != NULL && v != NULL ? strdup(h.rec.workspace) : NULL;
	int oom =
		v == NULL || (k > 0 && v[k - 1].path == NULL) || (workspace != NULL && ws == NULL);
	review_held_close(&h);
	if (oom) {
		cordon_changes_free(v, k);
		free(ws);
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	}
	*out = v;
	*n = k;
	if (workspace != NULL)
		*workspace = ws;
	return 0;
}

void cordon_changes_free(struct cordon_change *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i].path);
	free(v);
}

/* path as git quotes it: as is, or in quotes with C escapes (octal for
 * bytes outside printable ASCII). */
static void quoted(FILE *f, const char *prefix, const char *path)
{
	int plain = 1;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		plain &= *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
	if (plain) {
		fprintf(f, "%s%s", prefix, path);
		return;
	}
	fputc('"', f);
	fputs(prefix, f);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\%03o", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static int binary(int fd)
{
	char buf[SNIFF];
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf), 0) : 0;
	return n > 0 && memchr(buf, '\0', (size_t)n) != NULL;
}

/* /usr/bin/diff -u on the two fds (-1: /dev/null), its output on out's
 * fd. 0, or -1 when it cannot be run. */
static int run_diff(FILE *out, int a, int b, const char *la, const char *lb)
{
	char pa[32], pb[32];
	snprintf(pa, sizeof(pa), a >= 0 ? "/dev/fd/%d" : "/dev/null", a);
	snprintf(pb, sizeof(pb), b >= 0 ? "/dev/fd/%d" : "/dev/null", b);
	fflush(out);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (dup2(fileno(out), 1) < 0)
			_exit(127);
		if (a >= 0)
			fcntl(a, F_SETFD, 0);
		if (b >= 0)
			fcntl(b, F_SETFD, 0);
		char *const argv[] = { "diff",	   "-u", "--label", (char *)la, "--label",
				       (char *)lb, pa,	 pb,	    NULL };
		char *const envp[] = { "LC_ALL=C", NULL };
		execve(DIFF_PROGRAM, argv, envp);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) <= 1 ? 0 : -1;
}

/* A label for diff: the path with a/ or b/, one line (escaped). */
static char *label(const char *prefix, const char *path)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (f == NULL)
		return NULL;
	quoted(f, prefix, path);
	fclose(f);
	return s;
}

static void diff_file(struct apply *a, FILE *out, const struct rchange *ch)
{
	const char *ul = "", *rl = "";
	int up = ch->kind != RK_DELETED ? review_upper_parent(a, ch, &ul) : -1;
	int rp = review_parent_fd(a->ws, ch->path, &rl);
	int x = rp >= 0 && ch->real.type == 'f'
			? openat(rp, rl, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
			: -1;
	int y = up >= 0 ? openat(up, ul, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	char *la = label("a/", ch->path), *lb = label("b/", ch->path);
	if (la == NULL || lb == NULL) {
		fprintf(out, "(out of memory)\n");
	} else if (binary(x) || binary(y)) {
		fprintf(out, "Binary files %s and %s differ\n",
			ch->real.type == 'f' ? la : "/dev/null",
			ch->kind == RK_DELETED ? "/dev/null" : lb);
	} else if (run_diff(out, x, y, ch->real.type == 'f' ? la : "/dev/null",
			    ch->kind == RK_DELETED ? "/dev/null" : lb) != 0) {
		fprintf(out, "(cannot run %s: the files differ)\n", DIFF_PROGRAM);
	}
	free(la);
	free(lb);
	for (int fd = 0; fd < 4; fd++) {
		int v = fd == 0 ? up : fd == 1 ? rp : fd == 2 ? x : y;
		if (v >= 0)
			close(v);
	}
}

static void diff_one(struct apply *a, FILE *out, const struct rchange *ch)
{
	char target[CORDON_PATH_MAX];
	const char *ul = "";
	fputs("diff --cordon ", out);
	quoted(out, "", ch->path);
	fprintf(out, "\n");
	if (ch->real.type == 'd' && (ch->kind == RK_DELETED || ch->replaced))
		fprintf(out, "deleted directory (and all in it)\n");
	if (ch->kind == RK_MODE || (ch->kind == RK_ADDED && ch->type != 'f'))
		fprintf(out, "%s %s, mode %04o\n", ch->kind == RK_MODE ? "mode of" : "new",
			ch->type == 'd' ? "directory" : "entry", ch->mode);
	if (ch->type == 'l') {
		int up = review_upper_parent(a, ch, &ul);
		ssize_t n = up >= 0 ? readlinkat(up, ul, target, sizeof(target) - 1) : -1;
		target[n > 0 ? n : 0] = '\0';
		fputs("symlink to ", out);
		quoted(out, "", target);
		fputc('\n', out);
		if (up >= 0)
			close(up);
	}
	if ((ch->type == 'f' && ch->kind != RK_MODE) ||
	    (ch->kind == RK_DELETED && ch->real.type == 'f'))
		diff_file(a, out, ch);
}

int cordon_diff(cordon *c, const char *run_id, int fd)
{
	struct held h;
	struct apply a = { .c = c, .h = &h, .ws = -1 };
	if (c == NULL)
		return CORDON_EINVAL;
	int r = review_held_open(c, run_id, 1, &h);
	if (r != 0)
		return r;
	int dfd = dup(fd);
	FILE *out = dfd >= 0 ? fdopen(dfd, "w") : NULL;
	a.ws = open(h.rec.workspace, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (int k = 0; k < REVIEW_SLOTS; k++) {
		char up[32];
		snprintf(up, sizeof(up), "s%d/upper", k);
		a.upper[k] = openat(h.fd, up, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (out == NULL)
		r = cordon_fail_errno(c, CORDON_ESYS, errno, "cordon diff: fd %d", fd);
	for (size_t i = 0; r == 0 && i < h.rec.n; i++)
		diff_one(&a, out, &h.rec.v[i]);
	if (out != NULL && fclose(out) != 0 && r == 0)
		r = cordon_fail_errno(c, CORDON_ESYS, errno, "cordon diff: writing");
	else if (out == NULL && dfd >= 0)
		close(dfd);
	for (int k = 0; k < REVIEW_SLOTS; k++)
		if (a.upper[k] >= 0)
			close(a.upper[k]);
	if (a.ws >= 0)
		close(a.ws);
	review_held_close(&h);
	return r;
}
