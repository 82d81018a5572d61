/*
 * The Unix socket supervisor (Linux, Landlock ABI < 9).
 *
 * A confined command must not reach a daemon through a pathname Unix
 * socket outside its writable set (docker.sock, the D-Bus session bus,
 * tmux's socket, an editor's IPC socket): the daemon would act for it
 * with its own rights. Landlock ABI 9 checks this itself
 * (LANDLOCK_ACCESS_FS_RESOLVE_UNIX); before that, cordon does, with
 * seccomp user notification:
 *
 *   - the run's thread, which starts every command of the run, installs
 *     a filter on itself that makes connect, sendto with an address,
 *     sendmsg, sendmmsg and bind wait for the supervisor; the commands
 *     inherit it;
 *   - the supervisor (workers, one of which waits on the listener at a
 *     time, see "the threads") makes each such
 *     call itself, on the command's own socket (taken with pidfd_getfd)
 *     with its own copy of every argument, whatever the socket's family,
 *     and answers with the result. It never lets the call "continue":
 *     the kernel would look the fd and the address up again, and
 *     another thread of the command could change either in between;
 *   - a pathname is resolved by the supervisor in the command's root
 *     and from its cwd (the thread's /proc/TID/root and cwd): one
 *     without symlinks by the kernel in one openat2 (RESOLVE_IN_ROOT,
 *     or RESOLVE_BENEATH from the cwd, following no symlink), any other
 *     one component at a time; the socket it names is pinned (O_PATH)
 *     and allowed when it is an --allow-socket or when its directory
 *     lies in the writable set (walking up by ".."; the run's dir counts
 *     only when the walk stayed on one mount: the private /tmp, which is
 *     the run's dir, shows read-only trees below it, layer-tmp.c); the
 *     call is made to that very inode through /proc/self/fd/N;
 *   - an abstract name is allowed only when the run bound it, in the
 *     network namespace of the socket that connects or sends: binds of
 *     abstract names are made by the supervisor, which keeps the socket
 *     (so the name stays the run's until the run ends); the machine's
 *     abstract sockets (X11, D-Bus) are refused with EPERM. Other binds
 *     continue: the kernel judges them with the command's own rights.
 *
 * A refused pathname fails with EACCES, as Landlock's would.
 *
 * The calls are made with no more privilege than the command's: a
 * worker lowers its effective capabilities to what the run's commands
 * may hold (caps.c; capabilities are per thread) before each socket
 * call made for a command where a capability could decide it, and
 * stays lowered after it (no capset per call). Its own work is tried
 * lowered and made again raised where the kernel refuses it (taking a
 * non-dumpable command's fds and memory needs CAP_SYS_PTRACE); a path
 * refused or not resolved lowered is judged again raised (what succeeds
 * lowered is what succeeds raised: a capability only lets a lookup
 * through); a signal to the command is sent raised. Root's
 * other capabilities would otherwise reach the kernel's checks of the
 * call: SO_MARK and SO_PRIORITY control messages, IPv6 hop-by-hop and
 * destination options, IPv4 options, rtnetlink changes (a netlink
 * message with an address is checked against its sender only), netlink
 * messages to other sockets and groups, the limit on fds in flight. Not
 * root, cordon owns the run's user namespace, and the kernel grants the
 * owner every capability in a network namespace made there (--network
 * off), whatever its sets: on a socket of that namespace, those control
 * messages and netlink addresses are refused (EPERM), as they are to the
 * command, and a netlink message to the kernel goes without its address.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* The most a datagram sent for the command may hold. */
#define MAX_DGRAM ((size_t)256 * 1024)

enum call { C_OTHER, C_CONNECT, C_SENDTO, C_SENDMSG, C_SENDMMSG, C_BIND };

struct supervisor {
	pthread_mutex_t lock; /* guards the fields below it */
	pthread_cond_t cond;
	int listener; /* the filter's notification fd; -1 until made, -2 never */
	pthread_cond_t spare; /* spare workers wait on it for the listener */
	int workers, spares, stopping;
	int polling; /* a worker waits on the listener (at most one does) */
	int refs; /* the owner (the run) and each live thread */
	int stop[2]; /* a pipe: a byte ends the workers */
	/* where a socket may be: (dev, ino) of allowed trees and sockets */
	struct sup_id {
		dev_t dev;
		ino_t ino;
		int is_dir;
		/* The run's dir: it holds a socket only on its own mount. It
		 * is the private /tmp's root (layer-tmp.c), below which a home
		 * in /tmp is shown read-only on a mount of its own: a walk up
		 * from there reaches it, and must not count. */
		int own_mount;
	} * ids;
	size_t nids;
	/* The run's abstract names: each bound by the supervisor for a
	 * command, its socket held (so the name stays the run's) until the
	 * run ends. Guarded by lock. */
	struct abstract_name {
		char name[sizeof(((struct sockaddr_un *)0)->sun_path)];
		socklen_t len; /* bytes of name */
		uint64_t netns; /* the network namespace it is bound in */
		int fd;
	} * names;
	size_t nnames;
	/* --network off without a network namespace: a call on a network
	 * socket (one the command was given: it cannot make one) is refused,
	 * never made by this thread, which Landlock's TCP rules do not see. */
	int refuse_network;
	/* What the run's commands may hold (caps_ceiling): a worker's
	 * effective set for each call it makes for one. */
	uint64_t caps_ceiling;
	/* The first worker's capabilities (caps_known), made every later
	 * worker's: one started by a worker inherits its lowered set. */
	struct __user_cap_data_struct caps_own[2];
	int caps_known;
	/* Not root, with a network namespace made in the run's user
	 * namespace (cordon's): on a socket outside cordon's own network
	 * namespace (own_netns, its cookie; 0: unknown), what the kernel
	 * would grant cordon as the namespace's owner is refused. */
	int owns_netns;
	uint64_t own_netns;
};

static void destroy(struct supervisor *s);

/* ---- which call, for which ABI ---- */

static enum call which(const struct seccomp_data *d, int *compat)
{
	static const char *const names[] = { NULL,	"connect",  "sendto",
					     "sendmsg", "sendmmsg", "bind" };
	for (int a = 0; a < SCA_COUNT; a++) {
		if (!seccomp_abi_built((enum seccomp_abi)a) ||
		    seccomp_abi_arch((enum seccomp_abi)a) != d->arch)
			continue;
		for (int k = 1; k <= C_BIND; k++)
			if (seccomp_abi_nr((enum seccomp_abi)a, names[k]) ==
			    (long)(uint32_t)d->nr) {
				/* Pointers and struct layouts of 32-bit ABIs. */
				*compat = a == SCA_X32 || a == SCA_X32_OLD || a == SCA_I386 ||
					  a == SCA_ARM;
				return (enum call)k;
			}
	}
	return C_OTHER;
}

/* ---- the command's memory and fds ---- */

static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	/* An address in the command's memory, not ours. */
	struct iovec local = { buf, len },
		     remote = { (void *)(uintptr_t)addr, len }; // NOLINT(performance-no-int-to-ptr)
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static int write_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len },
		     remote = { (void *)(uintptr_t)addr, len }; // NOLINT(performance-no-int-to-ptr)
	ssize_t n = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* The notification still stands (its task did not die and its pid was
 * not reused). */
static int still_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* ---- where a socket may be ---- */

static int same(const struct stat *st, const struct sup_id *id)
{
	return st->st_dev == id->dev && st->st_ino == id->ino;
}

/* The allowed directory st is, or NULL. */
static const struct sup_id *dir_listed(const struct supervisor *s, const struct stat *st)
{
	for (size_t i = 0; i < s->nids; i++)
		if (s->ids[i].is_dir && same(st, &s->ids[i]))
			return &s->ids[i];
	return NULL;
}

/* Whether the directory fd is the root of a mount (statx, Linux 5.8:
 * wherever Landlock runs); 1 when that cannot be told. */
static int mount_root(int fd)
{
	struct statx sx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, 0, &sx) != 0 ||
	    !(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return 1;
	return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
}

/* 1 when the directory dirfd lies in an allowed tree: walk up by "..",
 * comparing each directory with the allowed ones, until the root. The
 * run's dir counts only when the walk stayed on one mount. */
static int dir_allowed(const struct supervisor *s, int dirfd)
{
	struct stat st, up;
	const struct sup_id *id = NULL;
	if (fstat(dirfd, &st) != 0)
		return 0;
	int fd = dirfd, crossed = 0;
	for (int depth = 0; depth < 4096; depth++) {
		if ((id = dir_listed(s, &st)) != NULL)
			break;
		crossed |= mount_root(fd);
		int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent >= 0 && fstat(parent, &up) != 0) {
			close(parent);
			parent = -1;
		}
		if (fd != dirfd)
			close(fd);
		fd = parent;
		if (fd < 0 || (up.st_dev == st.st_dev && up.st_ino == st.st_ino))
			break; /* the root, or lost */
		st = up;
	}
	if (fd >= 0 && fd != dirfd)
		close(fd);
	return id != NULL && !(id->own_mount && crossed);
}

/* The command's thread group and thread ids in its own PID namespace
 * (the last of NStgid and NSpid in /proc/TID/status, procfd its
 * /proc/TID), for "self" and "thread-self" in its /proc. 0, or -errno. */
static int ns_ids(int procfd, long *tgid, long *ns_tid)
{
	char buf[4096];
	int fd = openat(procfd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	const char *keys[2] = { "\nNStgid:", "\nNSpid:" };
	long *out[2] = { tgid, ns_tid };
	for (int k = 0; k < 2; k++) {
		const char *l = strstr(buf, keys[k]);
		if (l == NULL)
			return -ENOENT;
		l += strlen(keys[k]);
		const char *end = strchr(l, '\n');
		const char *last = end != NULL ? end : l + strlen(l);
		while (last > l && (last[-1] == ' ' || last[-1] == '\t'))
			last--;
		while (last > l && last[-1] >= '0' && last[-1] <= '9')
			last--;
		*out[k] = strtol(last, NULL, 10);
	}
	return 0;
}

static int on_procfs(int fd)
{
	struct statfs sf;
	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

static int is_dir_fd(int fd, int of)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstat(of, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Replace *cur with fd (which it then owns). */
static void step(int *cur, int fd)
{
	close(*cur);
	*cur = fd;
}

/* A walk of pin_socket's: what is left of the path (from p, in rest),
 * the directory reached (cur), the command's root. */
struct sock_walk {
	const struct supervisor *s;
	int procfd; /* the command's thread's /proc/TID */
	char rest[PATH_MAX];
	char *p;
	int root, cur, hops;
};

/* A step's answer when the walk goes on (else: an fd, or -errno). */
#define WALK_ON INT_MIN

/* -errno of a failed openat or fstat, fd closed when it was open. */
static int open_failed(int fd)
{
	int r = -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* Whether st is a socket named by --allow-socket. */
static int socket_listed(const struct supervisor *s, const struct stat *st)
{
	for (size_t i = 0; i < s->nids; i++)
		if (!s->ids[i].is_dir && same(st, &s->ids[i]))
			return 1;
	return 0;
}

/* The start: rest, the command's root, and cur at its root or cwd. */
static int walk_begin(struct sock_walk *w, const char *sun, size_t n)
{
	w->root = w->cur = -1;
	w->hops = 0;
	memcpy(w->rest, sun, n);
	w->rest[n] = '\0';
	w->p = w->rest;
	if (w->rest[0] == '\0')
		return -EINVAL;
	if ((w->root = openat(w->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	w->cur = w->rest[0] == '/' ? dup(w->root)
				   : openat(w->procfd, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return w->cur < 0 ? -errno : WALK_ON;
}

/* The walk goes on at head, then what is left after the current
 * component. */
static int walk_restart(struct sock_walk *w, const char *head, int last)
{
	char joined[PATH_MAX];
	int n = snprintf(joined, sizeof(joined), "%s%s%s", head, last ? "" : "/", last ? "" : w->p);
	if (n < 0 || (size_t)n >= sizeof(joined))
		return -ENAMETOOLONG;
	memcpy(w->rest, joined, (size_t)n + 1);
	w->p = w->rest;
	return WALK_ON;
}

/* "..": up, but never above the command's root. */
static int walk_up(struct sock_walk *w, int last)
{
	if (!is_dir_fd(w->cur, w->root)) {
		int fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		step(&w->cur, fd);
	}
	return last ? -ECONNREFUSED : WALK_ON;
}

/* /proc's "self" or "thread-self" (comp): the command's, in its PID
 * namespace, put back in front of what is left. */
static int walk_proc_self(struct sock_walk *w, const char *comp, int last)
{
	char self[48];
	long tg = 0, t = 0;
	int r = ns_ids(w->procfd, &tg, &t);
	if (r != 0)
		return r;
	if (comp[0] == 's')
		snprintf(self, sizeof(self), "%ld", tg);
	else
		snprintf(self, sizeof(self), "%ld/task/%ld", tg, t);
	return walk_restart(w, self, last);
}

/* A symlink (fd) read by cordon: its target, then what is left after it. */
static int walk_link(struct sock_walk *w, int fd, int last)
{
	char target[PATH_MAX];
	ssize_t k = readlinkat(fd, "", target, sizeof(target) - 1);
	close(fd);
	if (k <= 0 || ++w->hops > 40)
		return k <= 0 ? -ENOENT : -ELOOP;
	target[k] = '\0';
	int r = walk_restart(w, target, last);
	if (r == WALK_ON && target[0] == '/') {
		int root = dup(w->root);
		if (root < 0)
			return -errno;
		step(&w->cur, root);
	}
	return r;
}

/* fd (st) reached: a directory to go on in, or the last component, the
 * socket, judged by its identity or the directory it was found in. */
static int walk_reached(struct sock_walk *w, int fd, const struct stat *st, int last)
{
	if (!last) {
		if (!S_ISDIR(st->st_mode)) {
			close(fd);
			return -ENOTDIR;
		}
		step(&w->cur, fd);
		return WALK_ON;
	}
	if (!S_ISSOCK(st->st_mode)) {
		close(fd);
		return -ECONNREFUSED;
	}
	if (socket_listed(w->s, st) || dir_allowed(w->s, w->cur))
		return fd;
	close(fd);
	return -EACCES;
}

/* The component comp, opened in cur without following a symlink but
 * those of /proc (fd/N, cwd, root: the kernel's object). */
static int walk_into(struct sock_walk *w, const char *comp, int last, int procfs)
{
	struct stat st;
	int fd = openat(w->cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		return open_failed(fd);
	if (S_ISLNK(st.st_mode) && procfs) {
		close(fd);
		fd = openat(w->cur, comp, O_PATH | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0)
			return open_failed(fd);
		/* No directory to judge it by: only an allowed socket itself. */
		if (S_ISSOCK(st.st_mode) && last) {
			if (socket_listed(w->s, &st))
				return fd;
			close(fd);
			return -EACCES;
		}
	} else if (S_ISLNK(st.st_mode)) {
		return walk_link(w, fd, last);
	}
	return walk_reached(w, fd, &st, last);
}

/* The next component of what is left. */
static int walk_next(struct sock_walk *w)
{
	while (*w->p == '/')
		w->p++;
	if (*w->p == '\0')
		return -ECONNREFUSED; /* it names a directory */
	char *comp = w->p;
	while (*w->p != '\0' && *w->p != '/')
		w->p++;
	int last = *w->p == '\0';
	if (!last)
		*w->p++ = '\0';
	if (strcmp(comp, ".") == 0)
		return last ? -ECONNREFUSED : WALK_ON;
	if (strcmp(comp, "..") == 0)
		return walk_up(w, last);
	int procfs = on_procfs(w->cur);
	if (procfs && (strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0))
		return walk_proc_self(w, comp, last);
	return walk_into(w, comp, last, procfs);
}

/* path's last component (*base) and the path of its directory, from
 * the command's root (absolute) or cwd, into dir (as large as path; ""
 * for the cwd itself). -1 when path ends in a directory ("", "x/", ".",
 * ".."): the walk's to answer. */
static int direct_split(const char *path, char *dir, const char **base)
{
	const char *slash = strrchr(path, '/');
	*base = slash != NULL ? slash + 1 : path;
	if (**base == '\0' || strcmp(*base, ".") == 0 || strcmp(*base, "..") == 0)
		return -1;
	size_t len = slash != NULL ? (size_t)(slash - path) : 0;
	memcpy(dir, path, len);
	dir[len] = '\0';
	if (slash == path) {
		dir[0] = '/';
		dir[1] = '\0';
	}
	return 0;
}

/* The common path in a few calls: no symlink on the way and a socket
 * at its end. Its directory is opened by the kernel in one call
 * (openat2): in the command's root for an absolute path (".." stops
 * there), beneath its cwd for a relative one, following no symlink at
 * all (so neither /proc's "self", which the kernel would read as
 * cordon's, nor a magic link); then the socket in it, not followed. That
 * is the directory and the socket the walk reaches, judged the same way.
 * WALK_ON for anything else (a symlink, "..", a path above the cwd, an
 * error): the walk resolves it and gives the exact error. An O_PATH fd
 * on the socket, -EACCES, or WALK_ON. */
static int pin_direct(const struct supervisor *s, int procfd, const char *sun, size_t n)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1], dir[sizeof(path)];
	const char *base;
	if (n == 0 || n >= sizeof(path))
		return WALK_ON;
	memcpy(path, sun, n);
	path[n] = '\0';
	if (direct_split(path, dir, &base) != 0)
		return WALK_ON;
	int abs = path[0] == '/';
	int dfd = openat(procfd, abs ? "root" : "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && dir[0] != '\0') {
		struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
					.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
						   (abs ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) };
		int start = dfd;
		dfd = (int)syscall(SYS_openat2, start, dir, &how, sizeof(how));
		close(start);
	}
	if (dfd < 0)
		return WALK_ON;
	struct stat st;
	int r = WALK_ON, fd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
		r = socket_listed(s, &st) || dir_allowed(s, dfd) ? fd : -EACCES;
	if (fd >= 0 && r != fd)
		close(fd);
	close(dfd);
	return r;
}

/*
 * Resolve the socket path (n bytes, not NUL-terminated) as the kernel
 * would for the command, one component at a time, in its root and from
 * its cwd (so in its mount namespace, and "/" and ".." stop at its
 * root), and pin the socket it names. Symlinks are read and followed by
 * cordon, never by the kernel, except those of /proc (fd/N, root, cwd:
 * their target is an object, not a path), which the kernel follows, as
 * cordon, to the object; /proc's "self" is the command. The socket is
 * allowed when it is one named by --allow-socket or when the directory
 * it was found in lies in an allowed tree. Returns an O_PATH fd on the
 * socket, or -errno (-EACCES: outside what is allowed).
 */
static int pin_socket(const struct supervisor *s, int procfd, const char *sun, size_t n)
{
	struct sock_walk w;
	w.s = s;
	w.procfd = procfd;
	int r = pin_direct(s, procfd, sun, n);
	if (r != WALK_ON)
		return r;
	r = walk_begin(&w, sun, n);
	while (r == WALK_ON)
		r = walk_next(&w);
	if (w.cur >= 0)
		close(w.cur);
	if (w.root >= 0)
		close(w.root);
	return r;
}

/* The network namespace a socket was made in: its cookie
 * (SO_NETNS_COOKIE, Linux 5.14; every kernel with Landlock ABI 2 has
 * it), 0 when the kernel cannot say. Abstract names are per network
 * namespace: the same name in a namespace the command made is another
 * socket than the machine's. */
#define CORDON_SO_NETNS_COOKIE 71
static uint64_t netns_of(int fd)
{
	uint64_t c = 0;
	socklen_t l = sizeof(c);
	return getsockopt(fd, SOL_SOCKET, CORDON_SO_NETNS_COOKIE, &c, &l) == 0 ? c : 0;
}

/* 1 when socket fd lies in a network namespace where cordon holds every
 * capability as the owner of its user namespace and the command does
 * not (the run's, with --network off, not root), or when that cannot be
 * told. */
static int in_owned_netns(const struct supervisor *s, int fd)
{
	if (!s->owns_netns)
		return 0;
	uint64_t ns = netns_of(fd);
	return ns == 0 || s->own_netns == 0 || ns != s->own_netns;
}

/* A netlink address in a namespace cordon owns. With an address the
 * kernel checks the sender's capabilities only, not those of the
 * socket's opener: cordon's, as the owner, would pass where the
 * command's fail (rtnetlink changes, messages to other sockets and
 * groups). The kernel's own address (port 0, no group) is dropped when
 * the socket's peer is the kernel already, which sends the same message
 * and makes the kernel ask the opener too; any other is refused. 0 (the
 * address in *outlen, maybe 0: none) or -EPERM. */
static int vet_netlink(const struct supervisor *s, int sfd, int sending,
		       const struct sockaddr_storage *in, socklen_t len, socklen_t *outlen)
{
	struct sockaddr_nl a, peer = { 0 };
	socklen_t plen = sizeof(peer);
	if (len < sizeof(a) || !in_owned_netns(s, sfd))
		return 0;
	memcpy(&a, in, sizeof(a));
	if (!sending)
		return a.nl_groups != 0 ? -EPERM : 0;
	if (a.nl_pid != 0 || a.nl_groups != 0)
		return -EPERM;
	if (getpeername(sfd, (struct sockaddr *)&peer, &plen) != 0 || plen < sizeof(peer) ||
	    peer.nl_pid != 0 || peer.nl_groups != 0)
		return -EPERM;
	*outlen = 0;
	return 0;
}

/* 1 when name (len bytes, from its leading NUL) is one the run bound in
 * the network namespace of socket fd. */
static int abstract_known(struct supervisor *s, int fd, const char *name, socklen_t len)
{
	int found = 0;
	uint64_t ns = netns_of(fd);
	if (ns == 0)
		return 0; /* unknown: never the run's */
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; !found && i < s->nnames; i++)
		found = s->names[i].len == len && s->names[i].netns == ns &&
			memcmp(s->names[i].name, name, len) == 0;
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* The address to use for the command (for a send, else a connect),
 * from its copy in (len bytes) on socket sfd of family domain: an
 * AF_UNIX pathname pinned and checked (*out a /proc/self/fd/N address,
 * *pin the fd to close); an abstract name only when the run bound it, in
 * sfd's network namespace; a netlink address as vet_netlink says;
 * anything else as it is (other families are not this layer's). 0 or
 * -errno. */
static int vet_address(struct supervisor *s, int procfd, int sfd, int domain, int sending,
		       const struct sockaddr_storage *in, socklen_t len,
		       struct sockaddr_storage *out, socklen_t *outlen, int *pin)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)in;
	size_t head = offsetof(struct sockaddr_un, sun_path);
	*pin = -1;
	if (domain != AF_UNIX || len <= head || un->sun_family != AF_UNIX) {
		memcpy(out, in, len);
		*outlen = len;
		return domain == AF_NETLINK ? vet_netlink(s, sfd, sending, in, len, outlen) : 0;
	}
	if (un->sun_path[0] == '\0') {
		/* Abstract: only a name the run bound (held by the
		 * supervisor, so it is still the run's) in the namespace of
		 * the socket that connects or sends (a name bound in a
		 * namespace the command made is not the machine's); EPERM
		 * otherwise, as Landlock's scope answers. */
		if (!abstract_known(s, sfd, un->sun_path, (socklen_t)(len - head)))
			return -EPERM;
		memcpy(out, in, len);
		*outlen = len;
		return 0;
	}
	size_t n = len - head;
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	int fd = pin_socket(s, procfd, un->sun_path, n);
	if (fd < 0)
		return fd;
	struct sockaddr_un *o = (struct sockaddr_un *)out;
	memset(out, 0, sizeof(*out));
	o->sun_family = AF_UNIX;
	snprintf(o->sun_path, sizeof(o->sun_path), "/proc/self/fd/%d", fd);
	*outlen = (socklen_t)(head + strlen(o->sun_path) + 1);
	*pin = fd;
	return 0;
}

/* ---- the calls ----
 *
 * Every notified call is made by the supervisor, on the command's own
 * socket (pidfd_getfd), with its own copies of the arguments, whatever
 * the socket's family: the kernel's "continue" would look the fd number
 * up again, and another thread of the command could have put an AF_UNIX
 * socket there by then (seccomp_unotify(2): never continue to enforce a
 * policy). The result (or error) is the command's. */

/* The most bytes one emulated send on a stream socket carries (a short
 * send, as the kernel may make); a datagram larger than this fails. */
#define CHUNK ((size_t)256 * 1024)
#define MAX_CONTROL ((size_t)64 * 1024)
#define MAX_IOV 1024 /* UIO_MAXIOV */
#define MAX_FDS 253 /* SCM_MAX_FD */

/* The thread that made the call: a pidfd to take its fds and signal it;
 * the capabilities of the worker that serves it. */
struct task {
	pid_t tid;
	int pidfd;
	int procfd; /* its /proc/TID: its root, cwd and status */
	struct thread_caps *caps;
	struct supervisor *s;
	int handed; /* this worker handed the listener on (hand_on) */
	int cached; /* pidfd is the worker's, kept from an earlier call */
	int thread; /* pidfd names the thread (PIDFD_THREAD), not its group */
};

/* A worker's pidfds and /proc/TID of the threads it served last: a
 * thread that makes many calls (a loop of sends) costs a pidfd_open and
 * an open of /proc/TID once. A /proc/TID opened names that thread (its
 * struct pid) as long as it lives: once it is gone, nothing can be
 * opened in it, even when its id is reused. */
#define PIDCACHE 8
struct pidcache {
	pid_t tid[PIDCACHE];
	int fd[PIDCACHE], procfd[PIDCACHE];
	unsigned next;
};

static void hand_on(struct task *t);

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/* The thread group id of thread tid, from /proc, or -1. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	const char *l = proc_field(path, "\nTgid:", buf, sizeof(buf));
	return l != NULL ? (pid_t)strtol(l, NULL, 10) : -1;
}

static int task_open(struct task *t, pid_t tid, struct thread_caps *caps)
{
	t->tid = tid;
	t->caps = caps;
	t->handed = 0;
	t->cached = 0;
	t->thread = 1;
	/* A thread's own pidfd (its fd table, which it may have unshared);
	 * before 6.9 its thread group's, which share one in practice. */
	t->pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (t->pidfd < 0 && errno == EINVAL) {
		pid_t tg = tgid_of(tid);
		t->thread = 0;
		t->pidfd = tg > 0 ? (int)syscall(SYS_pidfd_open, tg, 0) : -1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	t->procfd = t->pidfd >= 0 ? open(path, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (t->procfd < 0 && t->pidfd >= 0) {
		close(t->pidfd);
		t->pidfd = -1;
	}
	return t->pidfd >= 0 ? 0 : -ESRCH;
}

/* The task's pidfd from the worker's cache: 1, or 0 (none kept). */
static int task_cached(struct task *t, pid_t tid, struct thread_caps *caps,
		       const struct pidcache *pc)
{
	for (unsigned i = 0; i < PIDCACHE; i++)
		if (pc->tid[i] == tid && pc->fd[i] >= 0) {
			t->tid = tid;
			t->caps = caps;
			t->handed = 0;
			t->cached = 1;
			t->pidfd = pc->fd[i];
			t->procfd = pc->procfd[i];
			return 1;
		}
	return 0;
}

/* Keep a pidfd checked for a call (by NOTIF_ID_VALID): its thread is
 * the one of that tid as long as it lives (a pidfd names one thread). */
static void cache_keep(struct pidcache *pc, struct task *t)
{
	unsigned i = pc->next++ % PIDCACHE;
	if (pc->fd[i] >= 0) {
		close(pc->fd[i]);
		close(pc->procfd[i]);
	}
	pc->tid[i] = t->tid;
	pc->fd[i] = t->pidfd;
	pc->procfd[i] = t->procfd;
	t->cached = 1;
}

static void cache_drop(struct pidcache *pc, int pidfd)
{
	for (unsigned i = 0; i < PIDCACHE; i++)
		if (pc->fd[i] == pidfd) {
			close(pidfd);
			close(pc->procfd[i]);
			pc->fd[i] = pc->procfd[i] = -1;
			pc->tid[i] = 0;
		}
}

/* A worker stays lowered after a call made for a command (no capset
 * per call): its own work is tried so, and made again raised where the
 * kernel refused it (a command that is not dumpable needs
 * CAP_SYS_PTRACE). 1 when it was lowered and is raised now. */
static int raise_again(const struct task *t, int err)
{
	if ((err != -EPERM && err != -EACCES) || !t->caps->lowered)
		return 0;
	caps_thread_restore(t->caps);
	return !t->caps->lowered;
}

/* The command's fd n, as an fd of ours, or -errno. */
static int task_fd(const struct task *t, int n)
{
	int fd = (int)syscall(SYS_pidfd_getfd, t->pidfd, n, 0);
	if (fd < 0 && raise_again(t, -errno))
		fd = (int)syscall(SYS_pidfd_getfd, t->pidfd, n, 0);
	return fd >= 0 ? fd : -errno;
}

/* read_mem and write_mem for the task. */
static int task_read(const struct task *t, uint64_t addr, void *buf, size_t len)
{
	int r = read_mem(t->tid, addr, buf, len);
	return r != 0 && raise_again(t, r) ? read_mem(t->tid, addr, buf, len) : r;
}

static int task_write(const struct task *t, uint64_t addr, void *buf, size_t len)
{
	int r = write_mem(t->tid, addr, buf, len);
	return r != 0 && raise_again(t, r) ? write_mem(t->tid, addr, buf, len) : r;
}

static int sock_int(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);
	return getsockopt(fd, SOL_SOCKET, opt, &v, &l) == 0 ? v : -1;
}

/* The command's socket (our copy), its family and type asked for only
 * when a call needs them (-2: not asked yet). */
struct sockq {
	int fd;
	int domain, type;
};

static int sq_domain(struct sockq *q)
{
	if (q->domain == -2)
		q->domain = sock_int(q->fd, SO_DOMAIN);
	return q->domain;
}

static int sq_stream(struct sockq *q)
{
	if (q->type == -2)
		q->type = sock_int(q->fd, SO_TYPE);
	return q->type == SOCK_STREAM;
}

/* A copy of the command's address argument (up to a sockaddr_storage,
 * as the kernel takes), vetted for the socket. 0 or -errno. */
static int copy_address(struct supervisor *s, const struct task *t, int sfd, int domain,
			int sending, uint64_t addr, uint64_t len, struct sockaddr_storage *use,
			socklen_t *ulen, int *pin)
{
	struct sockaddr_storage a = { 0 };
	*pin = -1;
	if (len > sizeof(a))
		return -EINVAL;
	int r = task_read(t, addr, &a, (size_t)len);
	if (r != 0)
		return r;
	r = vet_address(s, t->procfd, sfd, domain, sending, &a, (socklen_t)len, use, ulen, pin);
	/* Refused or failed lowered: judged again raised, as always before
	 * (a path is resolved with cordon's rights, the command's /proc/TID
	 * may need CAP_SYS_PTRACE); what succeeds lowered is the same. */
	if (r != 0 && t->caps->lowered) {
		caps_thread_restore(t->caps);
		if (!t->caps->lowered)
			r = vet_address(s, t->procfd, sfd, domain, sending, &a, (socklen_t)len, use,
					ulen, pin);
	}
	return r;
}

/* Around each call made on a command's socket: the worker's effective
 * capabilities lowered to what the run's commands may hold, so that the
 * kernel judges the call as it would the command's (0), or -errno: make
 * no call. The worker stays lowered after it (raise_again). */
static int lower(const struct task *t)
{
	return -caps_thread_lower(t->caps);
}

/* lower() where a capability could decide the call: anything but a
 * Unix socket's send without control messages (the kernel checks no
 * capability there: not the sender's address, not its data). 0 or
 * -errno. */
static int lower_for(const struct task *t, struct sockq *q, int control)
{
	if (t->caps->state == 0 || t->caps->lowered || (!control && sq_domain(q) == AF_UNIX))
		return 0;
	return lower(t);
}

static long do_connect(struct supervisor *s, const struct task *t, const struct seccomp_notif *n,
		       struct sockq *q)
{
	struct sockaddr_storage use;
	socklen_t ulen = 0;
	int pin, sfd = q->fd;
	long r = copy_address(s, t, sfd, sq_domain(q), 0, n->data.args[1], n->data.args[2], &use,
			      &ulen, &pin);
	if (r == 0 && (r = lower(t)) == 0) {
		hand_on((struct task *)t); /* a connect may wait for its peer */
		r = connect(sfd, (struct sockaddr *)&use, ulen) == 0 ? 0 : -errno;
	}
	if (pin >= 0)
		close(pin);
	return r;
}

/* A send that may wait for room: first made without waiting, so that in
 * the common case the worker keeps the listener; when it would wait, and
 * the command's own would (a blocking socket, no MSG_DONTWAIT), the
 * listener is handed on first (hand_on), then it is made as asked. A
 * TCP Fast Open send is a connect, so always handed on first. */
static ssize_t send_waiting(struct task *t, int sfd, const struct msghdr *m, int flags)
{
	if (flags & MSG_FASTOPEN) { /* a connect first: tried without waiting, it would be
				     * left in progress (EINPROGRESS) */
		hand_on(t);
		return sendmsg(sfd, m, flags);
	}
	ssize_t k = sendmsg(sfd, m, flags | MSG_DONTWAIT);
	if (k >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || (flags & MSG_DONTWAIT))
		return k;
	int fl = fcntl(sfd, F_GETFL);
	if (fl < 0 || (fl & O_NONBLOCK)) {
		errno = EAGAIN;
		return -1;
	}
	hand_on(t);
	return sendmsg(sfd, m, flags);
}

/* The bytes one send takes: a stream socket takes at most CHUNK (a short
 * send), anything else all of it, up to CHUNK. -EMSGSIZE beyond. */
static long send_size(struct sockq *q, uint64_t total)
{
	if (total <= CHUNK)
		return (long)total;
	return sq_stream(q) ? (long)CHUNK : -EMSGSIZE;
}

static long do_sendto(struct supervisor *s, const struct task *t, const struct seccomp_notif *n,
		      struct sockq *q, int *flags)
{
	struct sockaddr_storage use;
	socklen_t ulen = 0;
	int pin = -1, sfd = q->fd;
	*flags = (int)n->data.args[3];
	long size = send_size(q, n->data.args[2]);
	if (size < 0)
		return size;
	char *data = malloc((size_t)size + 1);
	if (data == NULL)
		return -ENOMEM;
	long r = task_read(t, n->data.args[1], data, (size_t)size);
	if (r == 0)
		r = copy_address(s, t, sfd, sq_domain(q), 1, n->data.args[4], n->data.args[5], &use,
				 &ulen, &pin);
	if (r == 0 && (r = lower_for(t, q, 0)) == 0) {
		struct iovec one = { data, (size_t)size };
		struct msghdr out = { .msg_name = ulen > 0 ? &use : NULL,
				      .msg_namelen = ulen,
				      .msg_iov = &one,
				      .msg_iovlen = 1 };
		ssize_t k = send_waiting((struct task *)t, sfd, &out, *flags | MSG_NOSIGNAL);
		r = k >= 0 ? (long)k : -errno;
	}
	if (pin >= 0)
		close(pin);
	free(data);
	return r;
}

#ifndef IPV6_2292HOPOPTS
#define IPV6_2292HOPOPTS 3
#endif
#ifndef IPV6_2292DSTOPTS
#define IPV6_2292DSTOPTS 4
#endif
#ifndef IPV6_HOPOPTS
#define IPV6_HOPOPTS 54
#endif
#ifndef IPV6_RTHDRDSTOPTS
#define IPV6_RTHDRDSTOPTS 55
#endif
#ifndef IPV6_DSTOPTS
#define IPV6_DSTOPTS 59
#endif
#define PRIO_UNPRIVILEGED_MAX 6u /* TC_PRIO_INTERACTIVE */

/*
 * The control messages the kernel takes only from a sender holding
 * CAP_NET_RAW or CAP_NET_ADMIN in the socket's network namespace:
 * SO_MARK; SO_PRIORITY above 6; IPv6 hop-by-hop and destination options
 * (both RFC 3542 and RFC 2292 numbers); IPv4 options (IP_RETOPTS: some
 * of them, the security and unknown ones; refused whole). data: its len
 * bytes; a malformed one is the kernel's to refuse.
 */
int supervisor_cmsg_privileged(int level, int type, const void *data, size_t len)
{
	if (level == SOL_SOCKET && type == SO_MARK)
		return 1;
	if (level == SOL_SOCKET && type == SO_PRIORITY) {
		uint32_t v;
		if (len != sizeof(v))
			return 0;
		memcpy(&v, data, sizeof(v));
		return v > PRIO_UNPRIVILEGED_MAX;
	}
	if (level == IPPROTO_IP)
		return type == IP_RETOPTS;
	if (level == IPPROTO_IPV6)
		return type == IPV6_HOPOPTS || type == IPV6_DSTOPTS || type == IPV6_RTHDRDSTOPTS ||
		       type == IPV6_2292HOPOPTS || type == IPV6_2292DSTOPTS;
	return 0;
}

/* The command's control messages in ctl (len bytes, a copy): each
 * header checked against the buffer; SCM_RIGHTS fds replaced by ours
 * (taken from the command; recorded in fds to close); with owned (a
 * socket of a network namespace cordon owns), those that need a
 * capability there refused; every other message passed as it is. 0 or
 * -errno. */
static int translate_control(const struct task *t, char *ctl, size_t len, int *fds, int *nfds,
			     int owned)
{
	size_t off = 0;
	while (off + sizeof(struct cmsghdr) <= len) {
		struct cmsghdr h;
		memcpy(&h, ctl + off, sizeof(h));
		if (h.cmsg_len < CMSG_LEN(0) || h.cmsg_len > len - off)
			return -EINVAL;
		/* Credentials would be cordon's to vouch for, with cordon's
		 * privileges (root may name any pid and ids): refused. The
		 * kernel attaches cordon's own where the receiver asks. */
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_CREDENTIALS)
			return -EPERM;
		if (owned &&
		    supervisor_cmsg_privileged(h.cmsg_level, h.cmsg_type, ctl + off + CMSG_LEN(0),
					       h.cmsg_len - CMSG_LEN(0)))
			return -EPERM;
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			size_t k = (h.cmsg_len - CMSG_LEN(0)) / sizeof(int);
			char *data = ctl + off + CMSG_LEN(0);
			for (size_t j = 0; j < k; j++) {
				int theirs, ours;
				if (*nfds >= MAX_FDS)
					return -EINVAL;
				memcpy(&theirs, data + j * sizeof(int), sizeof(int));
				if ((ours = task_fd(t, theirs)) < 0)
					return ours;
				fds[(*nfds)++] = ours;
				memcpy(data + j * sizeof(int), &ours, sizeof(int));
			}
		}
		size_t step_len = CMSG_ALIGN(h.cmsg_len);
		if (step_len > len - off)
			break;
		off += step_len;
	}
	return 0;
}

/* One sendmsg(2) of the command, its struct msghdr at msgaddr (native
 * layout), made on sfd. Bytes sent, or -errno. */
static long send_one(struct supervisor *s, const struct task *t, struct sockq *q, uint64_t msgaddr,
		     int flags)
{
	struct msghdr mh = { 0 };
	struct sockaddr_storage use;
	socklen_t ulen = 0;
	int pin = -1, nfds = 0, fds[MAX_FDS], sfd = q->fd;
	struct iovec *iov = NULL;
	char *data = NULL, *ctl = NULL;
	long r = task_read(t, msgaddr, &mh, sizeof(mh));
	if (r != 0)
		return r;
	if (mh.msg_iovlen > MAX_IOV)
		return -EMSGSIZE;
	if (mh.msg_controllen > MAX_CONTROL)
		return -ENOBUFS;
	if ((iov = calloc(mh.msg_iovlen + 1, sizeof(*iov))) == NULL)
		return -ENOMEM;
	r = task_read(t, (uintptr_t)mh.msg_iov, iov, mh.msg_iovlen * sizeof(*iov));
	uint64_t total = 0;
	for (size_t i = 0; r == 0 && i < mh.msg_iovlen; i++) {
		if (iov[i].iov_len > CHUNK * 2)
			total = CHUNK * 2; /* enough to know it is too much */
		else
			total += iov[i].iov_len;
		if (total > CHUNK * 2)
			total = CHUNK * 2;
	}
	long size = r == 0 ? send_size(q, total) : r;
	if (size < 0)
		r = size;
	if (r == 0 && (data = malloc((size_t)size + 1)) == NULL)
		r = -ENOMEM;
	for (size_t i = 0, off = 0; r == 0 && i < mh.msg_iovlen && off < (size_t)size; i++) {
		size_t take =
			iov[i].iov_len < (size_t)size - off ? iov[i].iov_len : (size_t)size - off;
		r = task_read(t, (uintptr_t)iov[i].iov_base, data + off, take);
		off += take;
	}
	if (r == 0 && mh.msg_name != NULL && mh.msg_namelen > 0)
		r = copy_address(s, t, sfd, sq_domain(q), 1, (uintptr_t)mh.msg_name, mh.msg_namelen,
				 &use, &ulen, &pin);
	if (r == 0 && mh.msg_control != NULL && mh.msg_controllen > 0) {
		if ((ctl = malloc(mh.msg_controllen)) == NULL)
			r = -ENOMEM;
		else
			r = task_read(t, (uintptr_t)mh.msg_control, ctl, mh.msg_controllen);
		if (r == 0)
			r = translate_control(t, ctl, mh.msg_controllen, fds, &nfds,
					      sq_domain(q) != AF_UNIX && in_owned_netns(s, sfd));
	}
	if (r == 0 && (r = lower_for(t, q, ctl != NULL)) == 0) {
		struct iovec one = { data, (size_t)size };
		struct msghdr out = { .msg_name = ulen > 0 ? &use : NULL,
				      .msg_namelen = ulen,
				      .msg_iov = &one,
				      .msg_iovlen = 1,
				      .msg_control = ctl,
				      .msg_controllen = ctl != NULL ? mh.msg_controllen : 0 };
		ssize_t k = send_waiting((struct task *)t, sfd, &out, flags | MSG_NOSIGNAL);
		r = k >= 0 ? (long)k : -errno;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (pin >= 0)
		close(pin);
	free(ctl);
	free(data);
	free(iov);
	return r;
}

static long do_sendmsg(struct supervisor *s, const struct task *t, const struct seccomp_notif *n,
		       struct sockq *q, int *flags)
{
	*flags = (int)n->data.args[2];
	return send_one(s, t, q, n->data.args[1], *flags);
}

/* sendmmsg: one send_one per message, each msg_len written back; the
 * count sent, or the first message's error. */
static long do_sendmmsg(struct supervisor *s, const struct task *t, const struct seccomp_notif *n,
			struct sockq *q, int *flags)
{
	unsigned vlen = (unsigned)n->data.args[2];
	*flags = (int)n->data.args[3];
	if (vlen > MAX_IOV)
		vlen = MAX_IOV;
	long sent = 0;
	for (unsigned i = 0; i < vlen; i++) {
		uint64_t at = n->data.args[1] + (uint64_t)i * sizeof(struct mmsghdr);
		long r = send_one(s, t, q, at, *flags);
		if (r < 0)
			return sent > 0 ? sent : r;
		/* The send may have waited for its peer as long as the command
		 * liked: its thread may be gone by now and its id another
		 * process's, which the write back and the next message's reads
		 * (by id) would reach. Only while the call stands is the id its
		 * thread's. */
		if (!still_valid(s->listener, n->id))
			return sent > 0 ? sent : -EINTR;
		unsigned len = (unsigned)r;
		if (task_write(t, at + offsetof(struct mmsghdr, msg_len), &len, sizeof(len)) != 0)
			return sent > 0 ? sent : -EFAULT;
		sent++;
	}
	return sent;
}

/* The most abstract names one run may bind. */
#define MAX_NAMES 4096

/* bind: an abstract name (or an autobind) is bound by the supervisor on
 * the command's socket and recorded, its socket held, so that connects
 * and sends to it can be told from those to the machine's abstract
 * sockets. Any other bind is the kernel's to judge with the command's
 * own rights (Landlock's MAKE_SOCK for a pathname): *cont is set, as a
 * bind in place of another only binds what the command may. */
static long do_bind(struct supervisor *s, const struct task *t, const struct seccomp_notif *n,
		    struct sockq *q, int *cont)
{
	int sfd = q->fd;
	struct sockaddr_un a = { 0 };
	size_t head = offsetof(struct sockaddr_un, sun_path);
	uint64_t len = n->data.args[2];
	if (sq_domain(q) != AF_UNIX || len > sizeof(a) ||
	    task_read(t, n->data.args[1], &a, (size_t)len) != 0 || a.sun_family != AF_UNIX ||
	    (len > head && a.sun_path[0] != '\0')) {
		*cont = 1;
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	int full = s->nnames >= MAX_NAMES;
	pthread_mutex_unlock(&s->lock);
	if (full)
		return -ENOSPC;
	long r = lower(t);
	if (r == 0) {
		r = bind(sfd, (struct sockaddr *)&a, (socklen_t)len) == 0 ? 0 : -errno;
	}
	if (r != 0)
		return r;
	/* The name the kernel gave (an autobind's is its own choice). */
	struct sockaddr_un got = { 0 };
	socklen_t glen = sizeof(got);
	int held = fcntl(sfd, F_DUPFD_CLOEXEC, 3);
	if (held < 0 || getsockname(sfd, (struct sockaddr *)&got, &glen) != 0 || glen <= head) {
		if (held >= 0)
			close(held);
		return 0; /* bound, but unknown: connects to it are refused */
	}
	pthread_mutex_lock(&s->lock);
	struct abstract_name *v = realloc(s->names, (s->nnames + 1) * sizeof(*v));
	if (v != NULL) {
		s->names = v;
		v[s->nnames].len = glen - (socklen_t)head;
		v[s->nnames].netns = netns_of(sfd);
		memcpy(v[s->nnames].name, got.sun_path, v[s->nnames].len);
		v[s->nnames++].fd = held;
		held = -1;
	}
	pthread_mutex_unlock(&s->lock);
	if (held >= 0)
		close(held);
	return 0;
}

/* The notifying thread (t) and our copy of its fd args[0] (or -errno);
 * -ECANCELED when the notification is gone (no answer is due). A kept
 * pidfd whose thread still lives names the notifying thread (a live
 * thread's id is its own); one whose thread is gone fails (ESRCH) and a
 * fresh one is opened. Only a thread's own pidfd is kept (Linux 6.9):
 * its group's would outlive it. */
static int notif_task(struct supervisor *s, struct thread_caps *caps, struct pidcache *pc,
		      const struct seccomp_notif *n, struct task *t)
{
	int sfd = -ESRCH;
	if (task_cached(t, (pid_t)n->pid, caps, pc)) {
		sfd = task_fd(t, (int)n->data.args[0]);
		if (sfd == -ESRCH)
			cache_drop(pc, t->pidfd);
	}
	if (sfd != -ESRCH)
		return sfd;
	if (task_open(t, (pid_t)n->pid, caps) != 0)
		return -ESRCH; /* t->pidfd < 0 */
	sfd = task_fd(t, (int)n->data.args[0]);
	/* The pidfd and the fd are the notifying thread's, not those of a
	 * process that reused its id: it is still blocked in the call. */
	if (!still_valid(s->listener, n->id)) {
		if (sfd >= 0)
			close(sfd);
		close(t->pidfd);
		close(t->procfd);
		return -ECANCELED;
	}
	if (t->thread)
		cache_keep(pc, t);
	return sfd;
}

/* One notification: the call made for the command, its result the
 * answer. Never "continue" where the supervisor decides: only a bind
 * that the kernel judges itself with the command's rights continues. */
static void handle(struct supervisor *s, struct thread_caps *caps, struct pidcache *pc,
		   const struct seccomp_notif *n, struct seccomp_notif_resp *resp, int *handed)
{
	*handed = 0;
	int compat = 0, flags = 0;
	enum call c = which(&n->data, &compat);
	struct task t;
	resp->id = n->id;
	resp->flags = 0;
	resp->val = 0;
	resp->error = 0;
	if (c == C_OTHER) {
		resp->error = -ENOSYS;
		return;
	}
	int sfd = notif_task(s, caps, pc, n, &t);
	if (sfd == -ECANCELED)
		return;
	if (sfd == -ESRCH && t.pidfd < 0) {
		resp->error = -ESRCH;
		return;
	}
	t.s = s;
	long r = sfd;
	struct sockq q = { sfd, -2, -2 };
	if (sfd >= 0) {
		/* connect and sendto take the same arguments on every ABI (a
		 * socket address has no pointer); a 32-bit ABI's msghdr
		 * differs: its sendmsg and sendmmsg are refused (documented). */
		int cont = 0;
		if (s->refuse_network && sq_domain(&q) != AF_UNIX)
			r = -EACCES;
		else if (c == C_BIND) {
			r = do_bind(s, &t, n, &q, &cont);
			if (cont)
				resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		} else if (c == C_CONNECT)
			r = do_connect(s, &t, n, &q);
		else if (c == C_SENDTO)
			r = do_sendto(s, &t, n, &q, &flags);
		else if (compat)
			r = -EPERM;
		else if (c == C_SENDMSG)
			r = do_sendmsg(s, &t, n, &q, &flags);
		else
			r = do_sendmmsg(s, &t, n, &q, &flags);
		close(sfd);
	}
	/* The signal the kernel would have sent the command. */
	if (r == -EPIPE && c != C_CONNECT && !(flags & MSG_NOSIGNAL)) {
		caps_thread_restore(t.caps); /* as cordon, as before */
		(void)syscall(SYS_pidfd_send_signal, t.pidfd, SIGPIPE, NULL, 0);
	}
	if (!t.cached) {
		close(t.pidfd);
		close(t.procfd);
	}
	*handed = t.handed;
	if (r < 0)
		resp->error = (int)r;
	else
		resp->val = r;
}

/* ---- the threads ----
 *
 * Workers take the notifications off the listener themselves: one waits
 * on it at a time (the poller), the others (spares) wait on s->spare. A
 * poller makes the calls it takes, and stays the poller; before a call
 * that may wait (a connect, a send that would block) it hands the
 * listener on (hand_on): a spare wakes, or a new worker is made (up to
 * MAX_WORKERS), so a call that blocks holds only its own command. With
 * the listener's synchronous wake-up (layer-seccomp.c) the poller runs
 * on the CPU of the call it takes, and no other thread wakes per call.
 * A worker started by another (lowered around a call, see caps.c) takes
 * the first worker's capabilities, not the set it inherited.
 * Every thread holds a reference to the supervisor; the last one frees
 * it, so the run can end while a worker is still blocked in a call made
 * for a command that is gone. */

#define MAX_WORKERS 32

static void release(struct supervisor *s)
{
	pthread_mutex_lock(&s->lock);
	int last = --s->refs == 0;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (last)
		destroy(s);
}

static void *work(void *arg);

/* A worker more, under s->lock, which it drops and takes again. */
static int spawn_worker(struct supervisor *s)
{
	pthread_t th;
	pthread_attr_t attr;
	s->workers++;
	s->refs++;
	pthread_mutex_unlock(&s->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int e = pthread_create(&th, &attr, work, s);
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&s->lock);
	if (e != 0) {
		s->workers--;
		s->refs--; /* the owner still holds one: never the last */
	}
	return e;
}

/* The listener to another worker, before this one makes a call that
 * may wait. Where none can be had, this one keeps it (the calls of the
 * run's other commands then wait for this one's). */
static void hand_on(struct task *t)
{
	struct supervisor *s = t->s;
	if (t->handed)
		return;
	pthread_mutex_lock(&s->lock);
	s->polling = 0;
	t->handed = 1;
	if (s->spares > 0)
		pthread_cond_signal(&s->spare);
	else if (s->workers >= MAX_WORKERS || spawn_worker(s) != 0)
		s->polling = 1, t->handed = 0;
	pthread_mutex_unlock(&s->lock);
}

/* As the poller: take calls and make them until one was handed on (0),
 * or the run ends (-1). */
static int serve(struct supervisor *s, struct thread_caps *caps, struct pidcache *pc)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp resp;
	for (;;) {
		struct pollfd p[2] = { { s->listener, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[1].revents != 0 || (p[0].revents & (POLLHUP | POLLERR)))
			return -1;
		if (!(p[0].revents & POLLIN))
			continue;
		memset(&n, 0, sizeof(n));
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
			continue; /* its task died meanwhile (ENOENT) */
		int handed = 0;
		handle(s, caps, pc, &n, &resp, &handed);
		(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		if (handed)
			return 0;
	}
}

static void *work(void *arg)
{
	struct supervisor *s = arg;
	struct thread_caps caps;
	struct pidcache pc;
	memset(&pc, 0, sizeof(pc));
	for (unsigned i = 0; i < PIDCACHE; i++)
		pc.fd[i] = pc.procfd[i] = -1;
	pthread_mutex_lock(&s->lock);
	uint64_t ceiling = s->caps_ceiling;
	if (s->caps_known)
		caps_thread_adopt(&caps, s->caps_own, ceiling);
	else {
		caps_thread_init(&caps, ceiling);
		memcpy(s->caps_own, caps.own, sizeof(s->caps_own));
		s->caps_known = caps.state >= 0;
	}
	/* The filter (and its listener) is made after the first worker
	 * exists, so that the workers are not filtered themselves. */
	while (s->listener == -1 && !s->stopping)
		pthread_cond_wait(&s->cond, &s->lock);
	while (!s->stopping && s->listener >= 0) {
		if (s->polling) {
			s->spares++;
			pthread_cond_wait(&s->spare, &s->lock);
			s->spares--;
			continue;
		}
		s->polling = 1;
		pthread_mutex_unlock(&s->lock);
		int r = serve(s, &caps, &pc);
		pthread_mutex_lock(&s->lock);
		if (r < 0) {
			s->stopping = 1;
			pthread_cond_broadcast(&s->spare);
		}
	}
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < PIDCACHE; i++)
		if (pc.fd[i] >= 0) {
			close(pc.fd[i]);
			close(pc.procfd[i]);
		}
	release(s);
	return NULL;
}

/* ---- the layer ---- */

/* The calls it relies on exist here: seccomp listeners, pidfd_getfd
 * and openat2 (in the probe's child, after no_new_privs). */
int supervisor_ptrace_blocked(void)
{
	char buf[4096];
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no Yama */
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	int scope = n > 0 ? buf[0] - '0' : 0;
	if (scope >= 3)
		return 1;
	if (scope < 2)
		return 0;
	/* Scope 2: only with CAP_SYS_PTRACE (bit 19 of CapEff). */
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	const char *cap = strstr(buf, "CapEff:");
	unsigned long long eff = cap != NULL ? strtoull(cap + 7, NULL, 16) : 0;
	return (eff >> 19 & 1) ? 0 : 1;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int supervisor_trial(const struct linux_trial *t)
{
	if (t->ptrace_blocked)
		return EPERM;
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	if (syscall(SYS_pidfd_getfd, -1, 0, 0) >= 0 || errno == ENOSYS)
		return ENOSYS;
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	if (fd < 0)
		return errno;
	close((int)fd);
	int l = seccomp_install_listener(&prog);
	if (l < 0)
		return -l;
	close(l);
	return 0;
}

static int add_id(struct supervisor *s, const char *path, int own_mount)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0; /* gone since the policy was made: nothing to allow */
	struct sup_id *n = realloc(s->ids, (s->nids + 1) * sizeof(*n));
	if (n == NULL)
		return -1;
	s->ids = n;
	s->ids[s->nids].dev = st.st_dev;
	s->ids[s->nids].ino = st.st_ino;
	s->ids[s->nids].is_dir = S_ISDIR(st.st_mode) ? 1 : 0;
	s->ids[s->nids].own_mount = own_mount;
	s->nids++;
	return 0;
}

struct supervisor *supervisor_new(void)
{
	struct supervisor *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->listener = -1;
	s->refs = 1; /* the run's */
	s->caps_ceiling = caps_kept(); /* until supervisor_prepare says */
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_cond_init(&s->spare, NULL);
	if (pipe_cloexec(s->stop) != 0) {
		int e = errno;
		s->stop[0] = s->stop[1] = -1;
		destroy(s);
		errno = e;
		return NULL;
	}
	return s;
}

/* The run's policy, into a supervisor made before it was known (whose
 * threads may run already: under its lock, which they take before they
 * serve any call). */
int supervisor_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *p = run->pol;
	const struct decision *d = run->dec;
	struct supervisor *s = plan->supervisor;
	if (s == NULL && (s = plan->supervisor = supervisor_new()) == NULL)
		return backend_fail_errno(res, CORDON_ESYS, errno, "cannot make the supervisor");
	int bad = 0;
	/* cordon's own network namespace, by the cookie of a socket made
	 * here. */
	int owns = plan->net_namespace && plan->mount != NULL && plan->mount->userns;
	uint64_t own = 0;
	int probe = owns ? socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1;
	if (probe >= 0) {
		own = netns_of(probe);
		close(probe);
	}
	pthread_mutex_lock(&s->lock);
	s->refuse_network = p->network_off && !(d->cov.layers & (1u << LAYER_NETNS));
	s->caps_ceiling = caps_ceiling(plan);
	s->owns_netns = owns;
	s->own_netns = own;
	/* Not the command's private /dev/shm: which tmpfs that is cannot be
	 * told from outside the command (its root, its links are its own);
	 * sockets there are refused (Landlock ABI 9 allows them). */
	for (size_t i = 0; !bad && i < p->nw; i++)
		bad = p->w[i].kind != W_DEVICE &&
		      add_id(s, p->w[i].path, p->w[i].kind == W_TMPDIR) != 0;
	for (size_t i = 0; !bad && i < p->nsockets; i++)
		bad = add_id(s, p->sockets[i], 0) != 0;
	pthread_mutex_unlock(&s->lock);
	return bad ? backend_fail(res, CORDON_ENOMEM, "out of memory") : 0;
}

static void hand_over(struct supervisor *s, int listener)
{
	pthread_mutex_lock(&s->lock);
	s->listener = listener;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* In the run's thread, before it starts any command: the first worker
 * (which starts the others as needed), then the run's filter with the
 * notifying rules (seccomp_start_run), on this thread only, so the
 * supervisor's threads are not filtered. (No Landlock domain
 * here: every command would inherit it as a layer of its own, and a
 * layer without rules refuses every rename and link across
 * directories.) 0 or errno. */
int supervisor_start(struct supervisor *s, unsigned groups)
{
	pthread_t th;
	pthread_attr_t attr;
	int e;

	pthread_mutex_lock(&s->lock);
	s->refs++;
	s->workers++;
	pthread_mutex_unlock(&s->lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&th, &attr, work, s);
	pthread_attr_destroy(&attr);
	if (e != 0) {
		pthread_mutex_lock(&s->lock);
		s->refs--;
		s->workers--;
		pthread_mutex_unlock(&s->lock);
		return e;
	}
	int l = -1;
	e = seccomp_start_run(groups, &l);
	hand_over(s, e != 0 ? -2 : l);
	return e;
}

/* The end of the run. Its threads stop at once unless a worker is inside
 * a call that blocks (a connect to a server that never accepts): after a
 * second the run goes on without them, and the last one frees s. */
void supervisor_free(struct supervisor *s)
{
	if (s == NULL)
		return;
	char b = 1;
	(void)!write(s->stop[1], &b, 1);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_cond_broadcast(&s->spare);
	while (s->refs > 1 && pthread_cond_timedwait(&s->cond, &s->lock, &until) == 0)
		;
	pthread_mutex_unlock(&s->lock);
	release(s);
}

static void destroy(struct supervisor *s)
{
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	pthread_cond_destroy(&s->spare);
	if (s->listener >= 0)
		close(s->listener);
	if (s->stop[0] >= 0) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	for (size_t i = 0; i < s->nnames; i++)
		close(s->names[i].fd);
	free(s->names);
	free(s->ids);
	free(s);
}

#else
typedef int cordon_no_unix_supervisor_here;
#endif
