/*
 * Capability reduction for a command run by root (Linux).
 *
 * Landlock confines paths, but root's capabilities reach past the file
 * system: loading modules, raw I/O, mounting, ptrace, device nodes, the
 * clock, BPF. The confined command keeps only the capabilities ordinary
 * root work inside a tree needs, and nothing it runs gets the rest back.
 *
 * Kept, and why:
 *   CHOWN, FOWNER, DAC_OVERRIDE  package managers and archive
 *            extraction running as root (cp -a, tar, npm) set owners and
 *            modes and read root-owned trees; writes stay confined by
 *            Landlock.
 * Not FSETID: it keeps a setuid bit on a file root rewrites (a setuid
 * file in the workspace would keep it with other contents), and setuid
 * and setgid bits cannot be set anyway (the seccomp layer).
 *   SETUID, SETGID                       tools that drop to another user.
 *   NET_BIND_SERVICE                     dev servers on ports below 1024.
 *   SYS_CHROOT                           build tools that chroot (debootstrap).
 *   IPC_LOCK, LEASE                      mlock buffers, file leases.
 * Everything else is dropped, notably SYS_MODULE, SYS_RAWIO, SYS_ADMIN,
 * FSETID, SYS_PTRACE, MKNOD, SYS_TIME, SYS_BOOT, BPF, PERFMON, AUDIT_*,
 * DAC_READ_SEARCH (open_by_handle_at), NET_ADMIN, NET_RAW, KILL,
 * LINUX_IMMUTABLE, SETPCAP, SETFCAP, SYS_RESOURCE, SYS_NICE, MAC_*.
 *
 * What holds them away is the permitted set, reduced with capset(2),
 * which needs no privilege, and no_new_privs, applied before this layer:
 * with it, exec intersects what root would gain with the permitted set
 * it had (commoncap.c, cap_bprm_creds_from_file), so neither root's exec
 * nor a setuid or file-capability program gives anything back. The
 * bounding set is reduced too where the process may (PR_CAPBSET_DROP
 * needs CAP_SETPCAP, refused even for a capability already gone); where
 * it may not (a nested run, whose outer run took CAP_SETPCAP, or a
 * container without it), what stays in the bounding set cannot be
 * raised, and the layer holds all the same. It fails only where capset
 * itself is refused (a seccomp filter, another security policy): the
 * command would keep root's capabilities, which reach past Landlock
 * (loading a kernel module, raw I/O, BPF); the trial finds that, the run
 * reports the gap capabilities_not_reduced, and "required" refuses
 * (cordon.c): root with its capabilities is not confined in effect.
 *
 * The socket supervisor's workers make calls for the command in cordon's
 * process: for each, a worker's own effective set is cut to the same
 * kept set (caps_thread_*), and raised again only where its own work
 * needs it.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int kept_caps[] = {
	CAP_CHOWN,	CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_SETGID, CAP_SETUID, CAP_NET_BIND_SERVICE,
	CAP_SYS_CHROOT, CAP_IPC_LOCK,	  CAP_LEASE,
};

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static uint64_t kept_mask(void)
{
	uint64_t m = 0;
	for (size_t i = 0; i < sizeof(kept_caps) / sizeof(kept_caps[0]); i++)
		m |= 1ULL << kept_caps[i];
	return m;
}

uint64_t caps_kept(void)
{
	return kept_mask();
}

/* Of the calling thread only: the system call, never libc's wrappers
 * (which may set every thread's). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int cap_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	memset(d, 0, 2 * sizeof(*d)); /* valgrind marks only the first filled */
	return (int)syscall(SYS_capget, &h, d);
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int cap_set(const struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return (int)syscall(SYS_capset, &h, d);
}

/* Parent: does this process hold anything the command must lose? Root
 * regains the whole bounding set at exec, so uid 0 always reduces. */
int caps_would_reduce(void)
{
	struct __user_cap_data_struct d[2];
	if (geteuid() == 0 || getuid() == 0)
		return 1;
	if (cap_get(d) != 0)
		return 0;
	uint64_t perm = (uint64_t)d[1].permitted << 32 | d[0].permitted;
	return (perm & ~kept_mask()) != 0;
}

int caps_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	(void)run;
	(void)res;
	plan->reduce_caps = caps_would_reduce();
	return 0;
}

/* Async-signal-safe: everything outside keep leaves the bounding and
 * ambient sets, then the permitted, effective and inheritable sets. 0
 * or an errno value. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int reduce(uint64_t keep)
{
	struct __user_cap_data_struct d[2];

	for (int cap = 0; cap < 64; cap++) {
		if (keep & (1ULL << cap))
			continue;
		/* Only what is still there: a nested run finds its bounding
		 * set reduced by the outer run, which took CAP_SETPCAP too,
		 * and everything it would drop already gone. */
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (in < 0 && errno == EINVAL)
			break; /* past the kernel's last capability */
		if (in < 0)
			return errno;
		if (in == 0 || prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		/* EPERM: no CAP_SETPCAP. It stays in the bounding set, and
		 * no_new_privs keeps exec from raising it (see the top). */
		if (errno != EPERM)
			return errno;
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			return EPERM;
	}
	/* Ambient capabilities need kernel 4.3; EINVAL before that means
	 * there are none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		return errno;
	if (cap_get(d) != 0)
		return errno;
	for (int i = 0; i < 2; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));
		d[i].effective &= k;
		d[i].permitted &= k;
		d[i].inheritable &= k;
	}
	if (cap_set(d) != 0)
		return errno;
	return 0;
}

/* In the probe's child, after no_new_privs, as a command's child would:
 * the later trials (Landlock, the supervisor's, seccomp) need none of
 * what it drops, and a command's child applies them after it too. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int caps_trial(const struct linux_trial *t)
{
	return t->reduce_caps ? reduce(kept_mask()) : 0;
}

/* Child: async-signal-safe. 0 or an errno value. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int caps_apply(const struct linux_plan *plan)
{
	return plan->reduce_caps ? reduce(kept_mask()) : 0;
}

uint64_t caps_ceiling(const struct linux_plan *plan)
{
	return plan->reduce_caps ? kept_mask() : ~(uint64_t)0;
}

int caps_lowered(const struct __user_cap_data_struct own[2], uint64_t ceiling,
		 struct __user_cap_data_struct low[2])
{
	int differs = 0;
	for (int i = 0; i < 2; i++) {
		low[i] = own[i];
		low[i].effective &= (uint32_t)(ceiling >> (32 * i));
		differs |= low[i].effective != own[i].effective;
	}
	return differs;
}

/*
 * Capabilities belong to each thread (the kernel's credentials are per
 * task): capset(2) on the calling thread changes no other thread of
 * cordon. Only the effective set is lowered; the permitted set stays, so
 * the thread may raise it again after the call, and keeps what its own
 * work needs (taking a non-dumpable command's fds and memory needs
 * CAP_SYS_PTRACE in the effective set).
 */
void caps_thread_init(struct thread_caps *tc, uint64_t ceiling)
{
	memset(tc, 0, sizeof(*tc));
	if (cap_get(tc->own) != 0)
		tc->state = -1;
	else
		tc->state = caps_lowered(tc->own, ceiling, tc->low);
}

void caps_thread_adopt(struct thread_caps *tc, const struct __user_cap_data_struct own[2],
		       uint64_t ceiling)
{
	memset(tc, 0, sizeof(*tc));
	memcpy(tc->own, own, sizeof(tc->own));
	tc->state = caps_lowered(tc->own, ceiling, tc->low);
	/* Made by a thread that was lowered around a call: raised back. */
	if (cap_set(tc->own) != 0)
		tc->state = -1;
}

int caps_thread_lower(struct thread_caps *tc)
{
	if (tc->state < 0)
		return EPERM;
	if (tc->state == 0 || tc->lowered)
		return 0;
	if (cap_set(tc->low) != 0)
		return errno;
	tc->lowered = 1;
	return 0;
}

void caps_thread_restore(struct thread_caps *tc)
{
	int e = errno;
	/* A failure leaves the thread lowered: its later calls for a
	 * command may fail, none has more than the command's. */
	if (tc->state > 0 && tc->lowered && cap_set(tc->own) == 0)
		tc->lowered = 0;
	errno = e;
}

#else
typedef int cordon_no_caps_here;
#endif
