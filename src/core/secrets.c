/*
 * The paths a confined command must not read: the user's secrets (one
 * table, below, under each home) and --deny-read. Resolved in the parent
 * at the start of a run; the mount layer covers each one that exists
 * (layer-mountns.c), and the status event lists them (read_denied).
 *
 * Only what exists at the start is covered: a mount needs something to
 * cover. The table (secrets-list.c) names files that hold credentials or
 * tokens, and directories made for them. Of the files that mix settings with tokens,
 * ~/.npmrc is denied and ~/.cargo/config.toml left readable: see
 * docs/compatibility.md for what breaks when each is covered.
 */
#include "handle.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Names inside ~/.ssh that stay readable. */
static int ssh_keeps(const char *name)
{
	return fnmatch("known_hosts*", name, 0) == 0 || strcmp(name, "config") == 0 ||
	       fnmatch("*.pub", name, 0) == 0;
}

/* A path --deny-read names (it is not kept readable by a default). */
static int denied_explicitly(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->ndeny; i++)
		if (p->deny[i].explicit_ && strcmp(p->deny[i].path, path) == 0)
			return 1;
	return 0;
}

/* The regular files of dir whose names stay readable: not symlinks (a
 * link named x.pub may lead to a key), nor a file with another hard link
 * (a known_hosts that is the key under a second name). */
static int list_keeps(const struct policy *pol, struct deny_entry *d)
{
	DIR *dir = opendir(d->path);
	struct dirent *e;
	char p[CORDON_PATH_MAX];
	struct stat st;
	int r = 0;
	if (dir == NULL)
		return 0; /* unreadable to the caller too: nothing to keep */
	while (r == 0 && (e = readdir(dir)) != NULL) {
		if (!ssh_keeps(e->d_name) || path_join(p, sizeof(p), d->path, e->d_name) != 0 ||
		    lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
		    denied_explicitly(pol, p))
			continue;
		r = strlist_push(&d->keep, &d->nkeep, e->d_name);
	}
	closedir(dir);
	return r;
}

/* Already denied, or inside a denied tree. */
static int covered(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->ndeny; i++)
		if (strcmp(p->deny[i].path, path) == 0 ||
		    (p->deny[i].is_dir && path_within(p->deny[i].path, path)))
			return 1;
	return 0;
}

/* A tree that holds a writable path (the workspace inside ~/.config/gh):
 * covering it would hide where the command works. */
static int holds_writable(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->nw; i++)
		if (path_within(path, p->w[i].path))
			return 1;
	return 0;
}

static int add_deny(struct policy *p, const char *real, int is_dir, int explicit_, int carve,
		    int left_open)
{
	if (covered(p, real)) {
		for (size_t i = 0; i < p->ndeny; i++)
			if (strcmp(p->deny[i].path, real) == 0)
				p->deny[i].explicit_ |= explicit_;
		return 0;
	}
	struct deny_entry *v = realloc(p->deny, (p->ndeny + 1) * sizeof(*v));
	if (v == NULL)
		return CORDON_ENOMEM;
	p->deny = v;
	struct deny_entry *d = &v[p->ndeny];
	memset(d, 0, sizeof(*d));
	if ((d->path = strdup(real)) == NULL)
		return CORDON_ENOMEM;
	d->is_dir = is_dir;
	d->explicit_ = explicit_;
	d->left_open = left_open;
	p->ndeny++;
	return carve && is_dir && !left_open ? list_keeps(p, d) : 0;
}

/* Whether --allow-read takes path out (it is at or below an allowed path). */
static int allowed(const char *const *allow, size_t nallow, const char *path)
{
	for (size_t i = 0; i < nallow; i++)
		if (path_within(allow[i], path))
			return 1;
	return 0;
}

int deny_grant_holds(const struct policy *p, const struct deny_entry *d)
{
	return !d->left_open && !policy_inside_writable(p, d->path);
}

/* The --allow-read paths that exist, canonical: what the default list
 * and the capture devices are checked against. */
struct allow_set {
	const char **v; /* into real */
	char (*real)[CORDON_PATH_MAX];
	size_t n;
};

static void allow_free(struct allow_set *a)
{
	free(a->v);
	free(a->real);
}

/* An allowed path that does not exist takes nothing out. One that leads
 * through a symlink inside a writable tree (a previous run may have
 * planted ws/data -> ~/.aws) is refused, not followed. 0, CORDON_ENOMEM
 * or an error with its message; *a is to be freed either way. */
static int allow_load(cordon *c, struct allow_set *a)
{
	a->n = 0;
	a->v = calloc(c->allow_read.n + 1, sizeof(*a->v));
	a->real = calloc(c->allow_read.n + 1, sizeof(*a->real));
	if (a->v == NULL || a->real == NULL)
		return CORDON_ENOMEM;
	for (size_t i = 0; i < c->allow_read.n; i++) {
		char checked[CORDON_PATH_MAX];
		if (policy_resolve_untampered(&c->pol, c->allow_read.v[i], checked,
					      sizeof(checked)) == POLICY_REDIRECTED)
			return cordon_fail(c, CORDON_EINVAL,
					   "--allow-read %s leads through the symlink %s inside a "
					   "writable tree: give the path it means",
					   c->allow_read.v[i], checked);
		if (realpath(c->allow_read.v[i], a->real[a->n]) != NULL)
			a->v[a->n] = a->real[a->n], a->n++;
	}
	return 0;
}

/* Each --deny-read path, checked and added. 0 or an error with its
 * message. */
static int deny_given(cordon *c)
{
	struct policy *p = &c->pol;
	const char *hv[2] = { c->homes[0], c->homes[1] };
	char real[CORDON_PATH_MAX];
	struct stat st;
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->deny_read.n; i++) {
		const char *given = c->deny_read.v[i];
		if (realpath(given, real) == NULL || stat(real, &st) != 0)
			return cordon_fail_errno(c, CORDON_EINVAL, errno,
						 "--deny-read path does not exist: %s", given);
		if (path_is_broad(real, hv, (size_t)c->nhomes))
			return cordon_fail(c, CORDON_EINVAL,
					   "--deny-read path %s would hide the home directory or "
					   "the system",
					   given);
		if (holds_writable(p, real))
			return cordon_fail(
				c, CORDON_EINVAL,
				"--deny-read path %s holds the workspace or a writable path",
				given);
		if (S_ISREG(st.st_mode) && st.st_nlink > 1)
			return cordon_fail(
				c, CORDON_EINVAL,
				"--deny-read path %s has %lu hard links: the other names would "
				"stay readable",
				given, (unsigned long)st.st_nlink);
		r = add_deny(p, real, S_ISDIR(st.st_mode), 1, 0, 0);
	}
	return r;
}

/* One entry of the default table, rel under base (a home, the runtime
 * dir), added when it is there and not allowed. 0 or CORDON_ENOMEM. */
static int deny_default(cordon *c, const struct allow_set *allows, const char *base,
			const char *rel, int carve)
{
	struct policy *p = &c->pol;
	const char *const *allow = allows->v;
	size_t nallow = allows->n;
	char path[CORDON_PATH_MAX], real[CORDON_PATH_MAX];
	struct stat st;

	if (path_join(path, sizeof(path), base, rel) != 0)
		return 0;
	/* Most are not there: one lstat says so, where realpath reads the
	 * home's link first (a run checks ~45). */
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return 0;
	if (realpath(path, real) == NULL || stat(real, &st) != 0) {
		/* Not there: nothing to cover. There but out of the caller's
		 * reach (a directory on its way made 0600, maybe by an
		 * earlier run, since chmod outside is a gap without the mount
		 * layer): listed, left open, reported, never skipped in
		 * silence. */
		int e = errno;
		if ((e == EACCES || e == EPERM) && !allowed(allow, nallow, path))
			return add_deny(p, path, 0, 0, 0, 1);
		return 0;
	}
	if (allowed(allow, nallow, real) || allowed(allow, nallow, path))
		return 0;
	/* Where the command works, or a link to a broad place: listed, left
	 * open, reported. */
	const char *hv[2] = { c->homes[0], c->homes[1] };
	int open = holds_writable(p, real) || path_is_broad(real, hv, (size_t)c->nhomes);
	return add_deny(p, real, S_ISDIR(st.st_mode), 0, carve, open);
}

#define CONFIG_PATTERN "~/.config/*/"
#define RUNTIME_PREFIX "$XDG_RUNTIME_DIR/"

/* The entries "~/.config/<any>/NAME" of the table: for each directory
 * directly under the home's .config (one readdir, never recursive; at
 * most SECRETS_CONFIG_SCAN_MAX entries, past which the rest are not
 * looked at and the run reports secrets_readable), one lstat per NAME.
 * Only directories, links and entries of unknown type are looked in.
 * 0 or CORDON_ENOMEM. */
static int deny_config_patterns(cordon *c, const struct allow_set *allows, const char *home)
{
	char dir[CORDON_PATH_MAX], rel[CORDON_PATH_MAX];
	size_t pl = strlen(CONFIG_PATTERN);
	struct stat st;
	if (path_join(dir, sizeof(dir), home, ".config") != 0)
		return 0;
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	int dfd = dirfd(d);
	struct dirent *e;
	unsigned long seen = 0;
	int r = 0;
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (++seen > SECRETS_CONFIG_SCAN_MAX) {
			c->pol.secrets_scan_partial = 1;
			break;
		}
		if (e->d_type != DT_DIR && e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		for (size_t i = 0; r == 0 && i < cordon_nsecret_defaults; i++) {
			const char *p = cordon_secret_defaults[i].rel;
			if (strncmp(p, CONFIG_PATTERN, pl) != 0)
				continue;
			/* Looked up from .config's fd: most are not there. */
			int n = snprintf(rel, sizeof(rel), ".config/%s/%s", e->d_name, p + pl);
			if (n > 0 && (size_t)n < sizeof(rel) &&
			    !(fstatat(dfd, rel + 8, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
			      errno == ENOENT))
				r = deny_default(c, allows, home, rel, 0);
		}
	}
	closedir(d);
	return r;
}

/* The user's runtime dir ($XDG_RUNTIME_DIR when absolute, else Linux's
 * /run/user/UID) into out: 0, or -1 when there is none. */
static int runtime_dir(char *out, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	int n = -1;
	if (x != NULL && x[0] == '/')
		n = snprintf(out, len, "%s", x);
#if defined(__linux__)
	else
		n = snprintf(out, len, "/run/user/%u", (unsigned)geteuid());
#endif
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* An entry "$VAR/REL" (REL under the directory VAR names) or "$VAR" (each
 * absolute path of VAR's ':'-separated list), VAR from the caller's
 * environment; nothing when VAR is unset or names a relative path. 0 or
 * CORDON_ENOMEM. */
static int deny_by_variable(cordon *c, const struct allow_set *allows, const char *entry)
{
	char var[64], one[CORDON_PATH_MAX];
	const char *name = entry + 1, *slash = strchr(name, '/');
	size_t vl = slash != NULL ? (size_t)(slash - name) : strlen(name);
	if (vl == 0 || vl >= sizeof(var))
		return 0;
	memcpy(var, name, vl);
	var[vl] = '\0';
	const char *val = getenv(var);
	if (val == NULL || val[0] != '/')
		return 0;
	if (slash != NULL)
		return deny_default(c, allows, val, slash + 1, 0);
	int r = 0;
	for (const char *at = val; r == 0 && *at != '\0';) {
		size_t n = strcspn(at, ":");
		if (n > 1 && n < sizeof(one) && at[0] == '/') {
			memcpy(one, at + 1, n - 1);
			one[n - 1] = '\0';
			r = deny_default(c, allows, "/", one, 0);
		}
		at += n + (at[n] == ':');
	}
	return r;
}

/* The default table: each home's entries, its .config's patterns, the
 * runtime dir's, then those a tool's variable places. 0 or
 * CORDON_ENOMEM. */
static int deny_defaults(cordon *c, const struct allow_set *allows)
{
	char rt[CORDON_PATH_MAX];
	int have_rt = runtime_dir(rt, sizeof(rt)) == 0, r = 0;
	size_t pl = strlen(CONFIG_PATTERN), rl = strlen(RUNTIME_PREFIX);
	for (int h = 0; r == 0 && h < c->nhomes; h++) {
		for (size_t i = 0; r == 0 && i < cordon_nsecret_defaults; i++) {
			const struct secret_default *sd = &cordon_secret_defaults[i];
			if (strncmp(sd->rel, "~/", 2) == 0 &&
			    strncmp(sd->rel, CONFIG_PATTERN, pl) != 0)
				r = deny_default(c, allows, c->homes[h], sd->rel + 2,
						 sd->carve_ssh);
		}
		if (r == 0)
			r = deny_config_patterns(c, allows, c->homes[h]);
	}
	for (size_t i = 0; r == 0 && have_rt && i < cordon_nsecret_defaults; i++) {
		const struct secret_default *sd = &cordon_secret_defaults[i];
		if (strncmp(sd->rel, RUNTIME_PREFIX, rl) == 0)
			r = deny_default(c, allows, rt, sd->rel + rl, sd->carve_ssh);
	}
	for (size_t i = 0; r == 0 && i < cordon_nsecret_defaults; i++) {
		const char *e = cordon_secret_defaults[i].rel;
		if (e[0] == '$' && strncmp(e, RUNTIME_PREFIX, rl) != 0)
			r = deny_by_variable(c, allows, e);
	}
	return r;
}

/* An allowed path inside a denied tree cannot be uncovered alone (nor
 * one that does not exist there yet): say so rather than leave it
 * unreadable in silence. 0 or an error with its message. */
static int allow_inside_denied(cordon *c)
{
	const struct policy *p = &c->pol;
	for (size_t i = 0; i < c->allow_read.n; i++) {
		const char *a = c->allow_read.v[i];
		char abs[CORDON_PATH_MAX], cwd[CORDON_PATH_MAX];
		if (realpath(a, abs) == NULL) {
			int n = -1;
			if (a[0] == '/')
				n = snprintf(abs, sizeof(abs), "%s", a);
			else if (getcwd(cwd, sizeof(cwd)) != NULL)
				n = snprintf(abs, sizeof(abs), "%s/%s", cwd, a);
			if (n < 0 || n >= (int)sizeof(abs))
				continue;
		}
		for (size_t k = 0; k < p->ndeny; k++)
			if (p->deny[k].is_dir && strcmp(p->deny[k].path, abs) != 0 &&
			    path_within(p->deny[k].path, abs))
				return cordon_fail(
					c, CORDON_EINVAL,
					"--allow-read %s is inside %s, which stays denied: "
					"allow %s itself",
					a, p->deny[k].path, p->deny[k].path);
	}
	return 0;
}

/* The paths of the run that the command must not read: --deny-read's,
 * the default table's under each home, then the --allow-read paths that
 * cannot be taken out of them. */
static int resolve(cordon *c, const struct allow_set *allows)
{
	int r = deny_given(c);
	c->pol.secrets_scan_partial = 0;
	if (r == 0 && c->default_deny_read)
		r = deny_defaults(c, allows);
	return r != 0 ? r : allow_inside_denied(c);
}

/* Digits only, at least one (min 1) or none (min 0). */
static int digits(const char *s, int min)
{
	int n = 0;
	for (; *s != '\0'; s++, n++)
		if (*s < '0' || *s > '9')
			return 0;
	return n >= min;
}

int secrets_capture_name(const char *name)
{
	static const struct {
		const char *prefix;
		int min; /* digits after it */
	} names[] = {
		{ "tty", 1 }, /* the virtual consoles' input (tty0: the current one) */
		{ "vcs", 0 },
		{ "vcsa", 0 },
		{ "vcsu", 0 }, /* their screens */
		{ "fb", 1 }, /* framebuffers: what a screen shows */
		{ "video", 1 }, /* cameras */
		{ "hidraw", 1 }, /* raw HID: keyboards, security keys */
		{ "dsp", 0 },
		{ "audio", 0 }, /* OSS sound: a read records */
		/* Consoles systemd starts a login on wherever they exist. */
		{ "hvc", 1 },
		{ "hvsi", 1 },
		{ "xvc", 1 },
		{ "usbmon", 1 }, /* every USB packet: keyboards' too */
		{ "hiddev", 1 }, /* HID reports (under /dev/usb) */
		{ "adsp", 0 },
		{ "midi", 0 },
		{ "dmmidi", 0 }, /* OSS: a read records */
		{ "lirc", 1 }, /* infrared remotes */
		{ "v4l-touch", 1 }, /* touch screens through video4linux */
	};
	if (strcmp(name, "console") == 0 || strcmp(name, "sclp_line0") == 0 ||
	    strcmp(name, "ttysclp0") == 0)
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].prefix);
		if (strncmp(name, names[i].prefix, n) == 0 && digits(name + n, names[i].min))
			return 1;
	}
	return 0;
}

/* The devices open for reading on fd 0-2 (a zeroed stat where none):
 * the caller's own terminal, which the command reads anyway, is never
 * covered; a console it only writes to (a service's log) is. */
static void stdio_devices(struct stat out[3])
{
	for (int fd = 0; fd <= 2; fd++) {
		int fl = fcntl(fd, F_GETFL);
#if defined(O_PATH)
		if (fl >= 0 && (fl & O_PATH))
			fl = -1; /* a name only: nothing read through it */
#endif
		if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY || fstat(fd, &out[fd]) != 0 ||
		    !S_ISCHR(out[fd].st_mode))
			memset(&out[fd], 0, sizeof(out[fd]));
	}
}

/* The node st is the one on one of fd 0-2: the same device, and the same
 * node (pty numbers repeat across devpts instances: a console bound from
 * another instance can share the caller's pty's number). */
static int callers_terminal(const struct stat stdio[3], const struct stat *st)
{
	for (int fd = 0; fd <= 2; fd++)
		if (S_ISCHR(stdio[fd].st_mode) && stdio[fd].st_rdev == st->st_rdev &&
		    stdio[fd].st_dev == st->st_dev && stdio[fd].st_ino == st->st_ino)
			return 1;
	return 0;
}

/* The number of a virtual console from its one or two digits (checked
 * by the caller), folded into 0-63. */
static unsigned console_number(const char *d)
{
	unsigned v = 0;
	for (; *d >= '0' && *d <= '9'; d++)
		v = v * 10 + (unsigned)(*d - '0');
	return v & 63;
}

/* What one directory of devices is looked at for. */
struct dev_dir {
	const char *dir;
	int disks; /* its block devices */
	int capture; /* 1: its char devices named by secrets_capture_name;
		      * 2: every char device in it */
};

/* What a scan of the device dirs knows of the caller. */
struct dev_scan {
	struct stat stdio[3]; /* stdio_devices */
	const struct allow_set *allow;
	/* The kernel's consoles (/sys/class/tty/console/active: where
	 * its messages go and, on a server, where an admin logs in, such as
	 * a serial port), each between spaces: " ttyS0 tty0 ". */
	char consoles[256];
};

/* name is one of the kernel's consoles. */
static int kernel_console(const struct dev_scan *sc, const char *name)
{
	char key[64];
	int n = snprintf(key, sizeof(key), " %s ", name);
	return n > 0 && (size_t)n < sizeof(key) && strstr(sc->consoles, key) != NULL;
}

static void read_consoles(struct dev_scan *sc)
{
	sc->consoles[0] = ' ';
	sc->consoles[1] = '\0';
	int fd = open("/sys/class/tty/console/active", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t got = read(fd, sc->consoles + 1, sizeof(sc->consoles) - 3);
	(void)close(fd);
	if (got <= 0)
		return;
	sc->consoles[got + 1] = ' ';
	sc->consoles[got + 2] = '\0';
	for (char *q = sc->consoles; *q != '\0'; q++)
		if (*q == '\n' || *q == '\t')
			*q = ' ';
}

/* The readable devices of one directory: disks into blockdevs, capture
 * devices (but those --allow-read takes out, and the caller's terminal)
 * into capturedevs. A node counts whatever readdir says it is when it
 * could be a device bound over a file (containers make /dev/console so):
 * lstat decides. Of the virtual consoles, tty0 (the current one), tty1
 * to tty12 (where gettys start when the user switches to them) and any
 * with a screen (vcsN: opened) are covered; a cover for each of the 63
 * would cost every run. Each candidate costs an access (and an lstat
 * when readable); the rest, none. 0 or CORDON_ENOMEM. */
static int devices_in(struct policy *p, const struct dev_dir *dd, const struct dev_scan *sc)
{
	DIR *d = opendir(dd->dir);
	if (d == NULL)
		return 0;
	struct strv cand = { 0 };
	unsigned char screens[64] = { 0 }; /* vcsN seen */
	struct dirent *e;
	int r = 0;
	while (r == 0 && (e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		int any = e->d_type == DT_UNKNOWN || e->d_type == DT_REG;
		int blk = e->d_type == DT_BLK || any;
		int chr = e->d_type == DT_CHR || any;
		if (dd->capture == 1 && chr && strncmp(n, "vcs", 3) == 0 && digits(n + 3, 1) &&
		    strlen(n) < 6)
			screens[console_number(n + 3)] = 1;
		if ((dd->disks && blk) ||
		    (chr && (dd->capture == 2 || (dd->capture == 1 && (secrets_capture_name(n) ||
								       kernel_console(sc, n))))))
			r = strv_push(&cand, n);
	}
	closedir(d);
	for (size_t i = 0; r == 0 && i < cand.n; i++) {
		const char *n = cand.v[i];
		char path[CORDON_PATH_MAX];
		struct stat st;
		if (dd->capture == 1 && strncmp(n, "tty", 3) == 0 && digits(n + 3, 1) &&
		    !kernel_console(sc, n) &&
		    (strlen(n) > 5 ||
		     (console_number(n + 3) > 12 && !screens[console_number(n + 3)])))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dd->dir, n) >= (int)sizeof(path) ||
		    access(path, R_OK) != 0 || lstat(path, &st) != 0)
			continue;
		if (S_ISBLK(st.st_mode) && dd->disks) {
			r = strv_push(&p->blockdevs, path);
			continue;
		}
		if (!S_ISCHR(st.st_mode) || !dd->capture || callers_terminal(sc->stdio, &st))
			continue;
		if (!allowed(sc->allow->v, sc->allow->n, path))
			r = strv_push(&p->capturedevs, path);
	}
	strv_free(&cand);
	return r;
}

/* A disk the caller can read holds every secret raw: where there is
 * something to deny, such devices are listed. What the user types, sees
 * or hears, read live (Linux's names): with the default list, whether or
 * not the home holds secrets. The mount layer covers both; without it,
 * each is a gap. */
static int devices(cordon *c, const struct allow_set *a)
{
	int disks = c->pol.ndeny > 0;
	int capture = 0;
#if defined(__linux__)
	capture = c->default_deny_read;
#endif
	const struct dev_dir dirs[] = { { "/dev", disks, capture },
					{ "/dev/mapper", disks, 0 },
					{ "/dev/input", 0, 2 * capture },
					{ "/dev/snd", 0, 2 * capture },
					{ "/dev/usb", 0, capture } };
	struct dev_scan sc;
	memset(&sc, 0, sizeof(sc));
	sc.consoles[0] = ' ';
	sc.allow = a;
	int r = 0;
	if (capture) {
		stdio_devices(sc.stdio);
		read_consoles(&sc);
	}
	for (size_t i = 0; r == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (dirs[i].disks || dirs[i].capture)
			r = devices_in(&c->pol, &dirs[i], &sc);
	return r;
}

int secrets_resolve(cordon *c)
{
	struct allow_set a;
	int r = allow_load(c, &a);
	if (r == 0)
		r = resolve(c, &a);
	c->pol.deny_capture = c->default_deny_read;
	if (r == 0)
		r = devices(c, &a);
	allow_free(&a);
	return r == CORDON_ENOMEM ? cordon_fail(c, r, "out of memory") : r;
}
