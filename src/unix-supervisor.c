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
 *     sendmsg and sendmmsg wait for a supervisor; the commands inherit
 *     it;
 *   - a supervisor thread reads each such call and decides. A socket
 *     whose family is not AF_UNIX, or an AF_UNIX stream or seqpacket
 *     socket's sendmsg, never resolves a path (the family is fixed, and
 *     those ignore msg_name): the call continues. Everything else is
 *     made by the supervisor itself, on the command's own socket (taken
 *     with pidfd_getfd) and with its own copy of the address: a
 *     pathname is resolved in the command's root, the socket it names is
 *     pinned (O_PATH) and checked to lie in the writable set or to be
 *     one the user allowed (--allow-socket), and the connection is made
 *     to that very inode through /proc/self/fd/N. So no address the
 *     command changes after the check is ever used: the call is never
 *     "continued" with it;
 *   - abstract addresses are connected to by the supervisor too: it runs
 *     in a Landlock domain of its own that scopes abstract sockets and
 *     of which every command's domain is a child, so it reaches the
 *     run's own abstract sockets and none of the machine's.
 *
 * A refused connection fails with EACCES, as Landlock's would.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
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

enum call { C_OTHER, C_CONNECT, C_SENDTO, C_SENDMSG, C_SENDMMSG };

struct supervisor {
	pthread_mutex_t lock; /* guards listener until the thread has it */
	pthread_cond_t cond;
	int listener; /* the filter's notification fd; -1 until made */
	int stop[2]; /* a pipe: a byte ends the thread */
	pthread_t thread;
	int running;
	/* guarded by lock: the thread has left its loop; the run has ended
	 * without it, and it frees this itself when it does */
	int finished, orphaned;
	/* where a socket may be: (dev, ino) of allowed trees and sockets */
	struct sup_id {
		dev_t dev;
		ino_t ino;
		int is_dir;
	} * ids;
	size_t nids;
	int own_shm; /* the command's /dev/shm is its own (the mount layer) */
};

static void destroy(struct supervisor *s);

/* ---- which call, for which ABI ---- */

static enum call which(const struct seccomp_data *d, int *compat)
{
	static const char *const names[] = { NULL, "connect", "sendto", "sendmsg", "sendmmsg" };
	for (int a = 0; a < SCA_COUNT; a++) {
		if (!seccomp_abi_built((enum seccomp_abi)a) ||
		    seccomp_abi_arch((enum seccomp_abi)a) != d->arch)
			continue;
		for (int k = 1; k < 5; k++)
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

/* 1 when the directory dirfd lies in an allowed tree: walk up by "..",
 * comparing each directory with the allowed ones, until the root. */
static int dir_allowed(const struct supervisor *s, int dirfd, const struct stat *shm)
{
	struct stat st, up;
	int fd = dup(dirfd);
	if (fd < 0)
		return 0;
	for (int depth = 0; depth < 4096; depth++) {
		if (fstat(fd, &st) != 0)
			break;
		for (size_t i = 0; i < s->nids; i++)
			if (s->ids[i].is_dir && same(&st, &s->ids[i])) {
				close(fd);
				return 1;
			}
		if (shm != NULL && st.st_dev == shm->st_dev && st.st_ino == shm->st_ino) {
			close(fd);
			return 1;
		}
		int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) != 0) {
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break; /* the root */
	}
	close(fd);
	return 0;
}

/* The command's thread group and thread ids in its own PID namespace
 * (the last of NStgid and NSpid in /proc/TID/status), for "self" and
 * "thread-self" in its /proc. 0, or -errno. */
static int ns_ids(pid_t tid, long *tgid, long *ns_tid)
{
	char buf[4096], path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
static int pin_socket(const struct supervisor *s, pid_t pid, const char *sun, size_t n)
{
	char rest[PATH_MAX], tmp[PATH_MAX], proc[64];
	int root, cur = -1, hops = 0, r;
	struct stat st, shm, *shmp = NULL;

	memcpy(rest, sun, n);
	rest[n] = '\0';
	if (rest[0] == '\0')
		return -EINVAL;
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)pid);
	if ((root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)pid);
	cur = rest[0] == '/' ? dup(root) : open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		r = -errno;
		goto out;
	}
	/* The command's own /dev/shm (the mount layer's tmpfs) is its. */
	if (s->own_shm && fstatat(root, "dev/shm", &shm, 0) == 0)
		shmp = &shm;

	char *p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (*p == '\0') {
			r = -ECONNREFUSED; /* it names a directory */
			goto out;
		}
		char *comp = p;
		while (*p != '\0' && *p != '/')
			p++;
		int last = *p == '\0';
		if (!last)
			*p++ = '\0';
		int fd;
		if (strcmp(comp, ".") == 0) {
			if (last) {
				r = -ECONNREFUSED;
				goto out;
			}
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			if (!is_dir_fd(cur, root)) {
				fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (fd < 0) {
					r = -errno;
					goto out;
				}
				step(&cur, fd);
			}
			if (last) {
				r = -ECONNREFUSED;
				goto out;
			}
			continue;
		}
		char self[48];
		int procfs = on_procfs(cur);
		if (procfs && (strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0)) {
			long tg = 0, t = 0;
			if ((r = ns_ids(pid, &tg, &t)) != 0)
				goto out;
			if (comp[0] == 's')
				snprintf(self, sizeof(self), "%ld", tg);
			else
				snprintf(self, sizeof(self), "%ld/task/%ld", tg, t);
			/* Put it back in front of what is left. */
			int w = snprintf(tmp, sizeof(tmp), "%s%s%s", self, last ? "" : "/",
					 last ? "" : p);
			if (w < 0 || (size_t)w >= sizeof(tmp)) {
				r = -ENAMETOOLONG;
				goto out;
			}
			memcpy(rest, tmp, (size_t)w + 1);
			p = rest;
			continue;
		}
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode) && procfs) {
			/* fd/N, cwd, root: the kernel's object. */
			close(fd);
			fd = openat(cur, comp, O_PATH | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) != 0) {
				r = -errno;
				if (fd >= 0)
					close(fd);
				goto out;
			}
			if (S_ISSOCK(st.st_mode) && last) {
				/* No directory to judge it by: only an allowed
				 * socket itself. */
				r = -EACCES;
				for (size_t i = 0; r < 0 && i < s->nids; i++)
					if (!s->ids[i].is_dir && same(&st, &s->ids[i]))
						r = fd;
				if (r < 0)
					close(fd);
				goto out;
			}
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t k = readlinkat(fd, "", tmp, sizeof(tmp) - 1);
			close(fd);
			if (k <= 0 || ++hops > 40) {
				r = k <= 0 ? -ENOENT : -ELOOP;
				goto out;
			}
			tmp[k] = '\0';
			/* The target, then what is left after the link. */
			char joined[PATH_MAX];
			int w = snprintf(joined, sizeof(joined), "%s%s%s", tmp, last ? "" : "/",
					 last ? "" : p);
			if (w < 0 || (size_t)w >= sizeof(joined)) {
				r = -ENAMETOOLONG;
				goto out;
			}
			if (tmp[0] == '/') {
				if ((fd = dup(root)) < 0) {
					r = -errno;
					goto out;
				}
				step(&cur, fd);
			}
			memcpy(rest, joined, (size_t)w + 1);
			p = rest;
			continue;
		}
		if (!last) {
			if (!S_ISDIR(st.st_mode)) {
				close(fd);
				r = -ENOTDIR;
				goto out;
			}
			step(&cur, fd);
			continue;
		}
		if (!S_ISSOCK(st.st_mode)) {
			close(fd);
			r = -ECONNREFUSED;
			goto out;
		}
		int ok = 0;
		for (size_t i = 0; !ok && i < s->nids; i++)
			ok = !s->ids[i].is_dir && same(&st, &s->ids[i]);
		if (!ok)
			ok = dir_allowed(s, cur, shmp);
		if (!ok) {
			close(fd);
			r = -EACCES;
		} else {
			r = fd;
		}
		goto out;
	}
out:
	if (cur >= 0)
		close(cur);
	close(root);
	return r;
}

/* The address to use for the command: its pathname pinned and checked
 * (*out a /proc/self/fd/N address, *pin the fd to close), or its own
 * copy for an abstract or unnamed one. 0 or -errno. */
static int vet_address(const struct supervisor *s, pid_t pid, const struct sockaddr_un *in,
		       socklen_t len, struct sockaddr_un *out, socklen_t *outlen, int *pin)
{
	size_t head = offsetof(struct sockaddr_un, sun_path);
	*pin = -1;
	if (len < head || in->sun_family != AF_UNIX || len == head || in->sun_path[0] == '\0') {
		/* Not a pathname: the kernel judges it, on this copy (an
		 * abstract name is scoped by the supervisor's own domain). */
		memcpy(out, in, len);
		*outlen = len;
		return 0;
	}
	int fd = pin_socket(s, pid, in->sun_path, len - head);
	if (fd < 0)
		return fd;
	memset(out, 0, sizeof(*out));
	out->sun_family = AF_UNIX;
	snprintf(out->sun_path, sizeof(out->sun_path), "/proc/self/fd/%d", fd);
	*outlen = (socklen_t)(head + strlen(out->sun_path) + 1);
	*pin = fd;
	return 0;
}

/* ---- the calls ---- */

static int sock_int(int fd, int opt)
{
	int v = -1;
	socklen_t l = sizeof(v);
	return getsockopt(fd, SOL_SOCKET, opt, &v, &l) == 0 ? v : -1;
}

/* The command's fd n, or -errno. */
static int their_fd(pid_t pid, int n)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	int fd = (int)syscall(SYS_pidfd_getfd, pidfd, n, 0);
	int e = errno;
	close(pidfd);
	return fd >= 0 ? fd : -e;
}

static long do_connect(const struct supervisor *s, const struct seccomp_notif *n, int sfd)
{
	pid_t pid = (pid_t)n->pid;
	struct sockaddr_un addr = { 0 }, use;
	socklen_t len = (socklen_t)n->data.args[2], ulen;
	int pin;
	if (len > sizeof(addr))
		len = sizeof(addr);
	long r = read_mem(pid, n->data.args[1], &addr, len);
	if (r == 0)
		r = vet_address(s, pid, &addr, len, &use, &ulen, &pin);
	if (r == 0) {
		r = connect(sfd, (struct sockaddr *)&use, ulen) == 0 ? 0 : -errno;
		if (pin >= 0)
			close(pin);
	}
	return r;
}

static long do_sendto(const struct supervisor *s, const struct seccomp_notif *n, int sfd)
{
	pid_t pid = (pid_t)n->pid;
	struct sockaddr_un addr = { 0 }, use;
	socklen_t len = (socklen_t)n->data.args[5], ulen;
	size_t dlen = (size_t)n->data.args[2];
	int pin = -1;
	if (len > sizeof(addr))
		len = sizeof(addr);
	if (dlen > MAX_DGRAM)
		return -EMSGSIZE;
	char *data = malloc(dlen + 1);
	if (data == NULL)
		return -ENOMEM;
	long r = read_mem(pid, n->data.args[1], data, dlen);
	if (r == 0)
		r = read_mem(pid, n->data.args[4], &addr, len);
	if (r == 0)
		r = vet_address(s, pid, &addr, len, &use, &ulen, &pin);
	if (r == 0) {
		ssize_t k = sendto(sfd, data, dlen, (int)n->data.args[3] | MSG_NOSIGNAL,
				   (struct sockaddr *)&use, ulen);
		r = k >= 0 ? (long)k : -errno;
	}
	if (pin >= 0)
		close(pin);
	free(data);
	return r;
}

/* sendmsg on an AF_UNIX datagram socket, made for the command: its
 * address vetted, its data and fds copied (native ABI only). */
static long do_sendmsg(const struct supervisor *s, const struct seccomp_notif *n, int sfd)
{
	pid_t pid = (pid_t)n->pid;
	struct msghdr mh = { 0 };
	struct sockaddr_un addr = { 0 }, use;
	socklen_t ulen = 0;
	int pin = -1, nfds = 0, fds[64];
	long r = read_mem(pid, n->data.args[1], &mh, sizeof(mh));
	if (r != 0)
		return r;
	if (mh.msg_iovlen > 1024 || mh.msg_controllen > 4096 || mh.msg_namelen > sizeof(addr))
		return -EMSGSIZE;
	struct iovec *iov = calloc(mh.msg_iovlen + 1, sizeof(*iov));
	char *data = NULL, *ctl = NULL;
	size_t total = 0;
	if (iov == NULL)
		return -ENOMEM;
	r = read_mem(pid, (uintptr_t)mh.msg_iov, iov, mh.msg_iovlen * sizeof(*iov));
	for (size_t i = 0; r == 0 && i < mh.msg_iovlen; i++) {
		if (iov[i].iov_len > MAX_DGRAM || (total += iov[i].iov_len) > MAX_DGRAM)
			r = -EMSGSIZE;
	}
	if (r == 0 && (data = malloc(total + 1)) == NULL)
		r = -ENOMEM;
	for (size_t i = 0, off = 0; r == 0 && i < mh.msg_iovlen; off += iov[i].iov_len, i++)
		r = read_mem(pid, (uintptr_t)iov[i].iov_base, data + off, iov[i].iov_len);
	if (r == 0 && mh.msg_name != NULL && mh.msg_namelen > 0) {
		r = read_mem(pid, (uintptr_t)mh.msg_name, &addr, mh.msg_namelen);
		if (r == 0)
			r = vet_address(s, pid, &addr, mh.msg_namelen, &use, &ulen, &pin);
	}
	if (r == 0 && mh.msg_control != NULL && mh.msg_controllen > 0) {
		if ((ctl = malloc(mh.msg_controllen)) == NULL)
			r = -ENOMEM;
		else
			r = read_mem(pid, (uintptr_t)mh.msg_control, ctl, mh.msg_controllen);
		/* Only SCM_RIGHTS: the command's fds, taken into ours. */
		struct msghdr cm = { .msg_control = ctl, .msg_controllen = mh.msg_controllen };
		for (struct cmsghdr *c = r == 0 ? CMSG_FIRSTHDR(&cm) : NULL; c != NULL && r == 0;
		     c = CMSG_NXTHDR(&cm, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
				r = -EPERM;
				break;
			}
			int *p = (int *)CMSG_DATA(c);
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t j = 0; j < k && r == 0; j++) {
				int fd = nfds < 64 ? their_fd(pid, p[j]) : -EMSGSIZE;
				if (fd < 0)
					r = fd;
				else
					p[j] = fds[nfds++] = fd;
			}
		}
	}
	if (r == 0) {
		struct iovec one = { data, total };
		struct msghdr out = { .msg_name = ulen > 0 ? &use : NULL,
				      .msg_namelen = ulen,
				      .msg_iov = &one,
				      .msg_iovlen = 1,
				      .msg_control = ctl,
				      .msg_controllen = ctl != NULL ? mh.msg_controllen : 0 };
		ssize_t k = sendmsg(sfd, &out, (int)n->data.args[2] | MSG_NOSIGNAL);
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

/* One notification: answered with a result, or continued where no path
 * can be resolved by the call. */
static void handle(struct supervisor *s, const struct seccomp_notif *n,
		   struct seccomp_notif_resp *resp)
{
	int compat = 0;
	enum call c = which(&n->data, &compat);
	resp->id = n->id;
	resp->flags = 0;
	resp->val = 0;
	resp->error = 0;
	if (c == C_OTHER) {
		resp->error = -ENOSYS;
		return;
	}
	int sfd = their_fd((pid_t)n->pid, (int)n->data.args[0]);
	if (sfd < 0) {
		resp->error = sfd == -EBADF ? -EBADF : -ENOTSOCK;
		return;
	}
	/* The socket's family and type are fixed: these resolve no path. */
	int domain = sock_int(sfd, SO_DOMAIN), type = sock_int(sfd, SO_TYPE);
	int continues =
		domain != AF_UNIX || ((c == C_SENDMSG || c == C_SENDMMSG) && type != SOCK_DGRAM);
	if (continues) {
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		close(sfd);
		return;
	}
	if (!still_valid(s->listener, n->id)) {
		close(sfd);
		return;
	}
	long r;
	/* connect and sendto take the same arguments on every ABI (a
	 * sockaddr_un has no pointer); a 32-bit ABI's msghdr differs, and
	 * its datagram sendmsg is refused, as is sendmmsg on a datagram
	 * Unix socket (documented). */
	if (c == C_CONNECT)
		r = do_connect(s, n, sfd);
	else if (c == C_SENDTO)
		r = do_sendto(s, n, sfd);
	else if (c == C_SENDMSG && !compat)
		r = do_sendmsg(s, n, sfd);
	else
		r = -EPERM;
	close(sfd);
	if (r < 0)
		resp->error = (int)r;
	else
		resp->val = r;
}

static void *supervise(void *arg)
{
	struct supervisor *s = arg;
	struct seccomp_notif n;
	struct seccomp_notif_resp resp;
	/* The filter (and its listener) comes after this thread exists, so
	 * that it is not filtered itself. */
	pthread_mutex_lock(&s->lock);
	while (s->listener == -1)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (s->listener < 0)
		return NULL; /* never made: the run's thread failed */
	for (;;) {
		struct pollfd p[2] = { { s->listener, POLLIN, 0 }, { s->stop[0], POLLIN, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents != 0 || (p[0].revents & (POLLHUP | POLLERR)))
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		memset(&n, 0, sizeof(n));
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
			continue; /* its task died meanwhile (ENOENT) */
		handle(s, &n, &resp);
		(void)ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	pthread_mutex_lock(&s->lock);
	s->finished = 1;
	int orphaned = s->orphaned;
	pthread_mutex_unlock(&s->lock);
	if (orphaned)
		destroy(s);
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

static int add_id(struct supervisor *s, const char *path)
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
	s->nids++;
	return 0;
}

int supervisor_prepare(cordon *c, const struct policy *p, const struct decision *d,
		       struct linux_plan *plan)
{
	struct supervisor *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	plan->supervisor = s;
	s->listener = s->stop[0] = s->stop[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->own_shm = (d->cov.layers & (1u << LAYER_MOUNTNS)) != 0;
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].kind != W_DEVICE && add_id(s, p->w[i].path) != 0)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->nsockets; i++)
		if (add_id(s, p->sockets[i]) != 0)
			return cordon_fail(c, CORDON_ENOMEM, "out of memory");
	if (pipe_cloexec(s->stop) != 0)
		return cordon_fail_errno(c, CORDON_ESYS, errno, "pipe");
	return 0;
}

/* In the run's thread, before it starts any command: its own Landlock
 * domain (abstract sockets scoped), the supervisor thread (which
 * inherits the domain), then the filter, on this thread only, so the
 * supervisor itself is not filtered. 0 or errno. */
static void hand_over(struct supervisor *s, int listener)
{
	pthread_mutex_lock(&s->lock);
	s->listener = listener;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

int supervisor_start(struct linux_plan *plan, int abi)
{
	struct supervisor *s = plan->supervisor;
	struct sock_filter insns[SECCOMP_MAX_INSNS];
	int e;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	if ((e = landlock_scope_self(abi)) != 0)
		return e;
	if ((e = pthread_create(&s->thread, NULL, supervise, s)) != 0)
		return e;
	s->running = 1;
	int n = seccomp_build(SCG_UNIX_NOTIFY | SCG_IO_URING, insns, SECCOMP_MAX_INSNS);
	int l = n > 0 ? seccomp_install_listener(&(struct sock_fprog){ (unsigned short)n, insns })
		      : -ENOSYS;
	hand_over(s, l < 0 ? -2 : l);
	return l < 0 ? -l : 0;
}

/* The end of the run. The thread stops at once unless it is inside a
 * call made for a command that can block (a connect to a server that
 * never accepts): then it is left to end by itself, owning s, so the run
 * can end. */
void supervisor_free(struct supervisor *s)
{
	if (s == NULL)
		return;
	if (s->running) {
		char b = 1;
		struct timespec until;
		(void)!write(s->stop[1], &b, 1);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		if (pthread_timedjoin_np(s->thread, NULL, &until) != 0) {
			pthread_mutex_lock(&s->lock);
			int finished = s->finished;
			s->orphaned = !finished;
			pthread_mutex_unlock(&s->lock);
			if (!finished) {
				pthread_detach(s->thread);
				return;
			}
			(void)pthread_join(s->thread, NULL);
		}
	}
	destroy(s);
}

static void destroy(struct supervisor *s)
{
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	if (s->listener >= 0)
		close(s->listener);
	if (s->stop[0] >= 0) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	free(s->ids);
	free(s);
}

#else
typedef int cordon_no_unix_supervisor_here;
#endif
