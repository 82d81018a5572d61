/*
 * seccomp layer (the last entry of the Linux layer table): system call
 * uses denied or handed to a supervisor, as a table of rules in groups
 * (enum seccomp_group). A run's plan names its groups; the parent
 * compiles them to a classic BPF filter, which the run's thread installs
 * once per run (seccomp_start_run) for every command it starts, or, in a
 * run without that thread, the child after PR_SET_NO_NEW_PRIVS, as the
 * last step before exec.
 *
 * Why each group:
 *   TERMINAL   a command holding the caller's terminal could queue
 *              keystrokes that the caller's shell runs after cordon exits
 *              (TIOCSTI, bubblewrap's CVE-2017-5226; TIOCLINUX's selection
 *              paste does the same on a virtual console).
 *   SETID      no file the command makes may be setuid or setgid (systemd's
 *              RestrictSUIDSGID=): modes are refused where a call takes
 *              one. openat2 takes its flags and mode in memory, which a
 *              filter cannot read: it fails with ENOSYS, as on kernels
 *              before 5.6, and its callers fall back to openat.
 *   KEYRINGS   the kernel's keyrings are not namespaced: keys of the user
 *              outlive the command and are shared with the user's other
 *              processes.
 *   PROCESSES  without a PID namespace the command sees the user's other
 *              processes; it may not change their limits, priority, CPU
 *              placement or memory placement (pid 0 means the caller).
 *   IO_URING   io_uring performs operations outside the system calls a
 *              filter sees.
 *   UNIX_NOTIFY  connecting and addressed sends go to a supervisor
 *              (SECCOMP_RET_USER_NOTIF); socketcall(2) would hide them
 *              behind a multiplexer, so it fails with ENOSYS and libc
 *              uses the direct calls.
 *   NET_ALL    --network off without a network namespace: no socket but
 *              AF_UNIX can be made (TCP, UDP, ICMP, raw, packet, IPv4 and
 *              IPv6, vsock...); socketcall fails with ENOSYS, for the same
 *              reason, and io_uring is refused always (IO_URING).
 *   NET_NS     --network off with a network namespace: the families it
 *              isolates stay (IP inside it, netlink and packet sockets of
 *              its own loopback); the rest (AF_VSOCK reaches the
 *              hypervisor, Bluetooth and others are not namespaced) is
 *              refused.
 *   USERNS     no user namespace of the command's own (a common route
 *              of kernel exploits: capabilities over namespaces the
 *              kernel then lets it make), where cordon made no user
 *              namespace for the run whose limit would hold it (root, or
 *              no mount layer: layer-userns.c). Never on the run's
 *              thread when cordon itself clones with CLONE_NEWUSER.
 *
 * Arguments are compared on their low 32 bits: the kernel takes most of
 * them as int or unsigned int, so an ioctl request with high bits set
 * still reaches TIOCSTI and a 64-bit compare would be bypassed
 * (CVE-2019-10063). A pointer is tested on both halves where arguments
 * are 64 bits wide (NULL is all 64 bits zero).
 *
 * Every architecture a process can call in gets its own syscall numbers:
 * x86-64, x32 and i386 on an x86-64 kernel; arm64 and arm (EABI) on an
 * arm64 kernel. Any other architecture is killed. A build for an
 * architecture without tables has no filter: the layer is not applied and
 * the status event says so.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <linux/audit.h>
#include <sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* From linux/seccomp.h, for older headers. */
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000u
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000u
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1ul << 3)
#endif

/* The calls the rules name, as the kernel's syscall tables spell them. */
#define SC_CALLS(X)                                                                               \
	X(ioctl), X(chmod), X(fchmod), X(fchmodat), X(fchmodat2), X(creat), X(mknod), X(mknodat), \
		X(open), X(openat), X(openat2), X(add_key), X(request_key), X(keyctl),            \
		X(prlimit64), X(setpriority), X(ioprio_set), X(sched_setaffinity),                \
		X(sched_setscheduler), X(sched_setparam), X(sched_setattr), X(migrate_pages),     \
		X(move_pages), X(io_uring_setup), X(connect), X(sendto), X(sendmsg), X(sendmmsg), \
		X(socketcall), X(bind), X(socket), X(socketpair), X(unshare), X(clone), X(clone3)
#define SC_ENUM(n) SC_##n
#define SC_NAME(n) #n
enum sc_call { SC_CALLS(SC_ENUM), SC_COUNT };
static const char *const call_names[SC_COUNT] = { SC_CALLS(SC_NAME) };

/* How a condition tests an argument. */
enum sc_test {
	T_NONE, /* no (further) condition */
	T_EQ, /* low 32 bits == value */
	T_ANY, /* low 32 bits & value != 0 */
	T_NONZERO, /* low 32 bits != 0 (a pid, a "who") */
	T_CREATES, /* low 32 bits & the ABI's O_CREAT | __O_TMPFILE != 0 */
	T_POINTER, /* not NULL: both halves where arguments are 64 bits */
};

struct sc_cond {
	enum sc_test test;
	unsigned arg; /* argument index */
	uint32_t value;
};

/* A rule: when every condition holds, the call gets ret. */
struct sc_rule {
	unsigned group; /* enum seccomp_group */
	enum sc_call call;
	uint32_t ret; /* SECCOMP_RET_* with its data */
	struct sc_cond cond[2];
};

#define DENY(e) (SECCOMP_RET_ERRNO | ((uint32_t)(e)&SECCOMP_RET_DATA))
#define NOTIFY SECCOMP_RET_USER_NOTIF
#define ALWAYS                       \
	{                            \
		{                    \
			T_NONE, 0, 0 \
		}                    \
	}
#define SETID_BITS 06000u /* S_ISUID | S_ISGID */
#define IOPRIO_WHO_USER 3u /* linux/ioprio.h */

/* The rules, reviewable as a list. The rules of one call are tried in
 * this order; the first whose conditions hold decides, else the call runs. */
static const struct sc_rule rules[] = {
	{ SCG_TERMINAL, SC_ioctl, DENY(EPERM), { { T_EQ, 1, TIOCSTI } } },
	{ SCG_TERMINAL, SC_ioctl, DENY(EPERM), { { T_EQ, 1, TIOCLINUX } } },
	/* A line discipline set on the caller's terminal outlives the run. */
	{ SCG_TERMINAL, SC_ioctl, DENY(EPERM), { { T_EQ, 1, TIOCSETD } } },

	{ SCG_SETID, SC_chmod, DENY(EPERM), { { T_ANY, 1, SETID_BITS } } },
	{ SCG_SETID, SC_fchmod, DENY(EPERM), { { T_ANY, 1, SETID_BITS } } },
	{ SCG_SETID, SC_fchmodat, DENY(EPERM), { { T_ANY, 2, SETID_BITS } } },
	{ SCG_SETID, SC_fchmodat2, DENY(EPERM), { { T_ANY, 2, SETID_BITS } } },
	{ SCG_SETID, SC_creat, DENY(EPERM), { { T_ANY, 1, SETID_BITS } } },
	{ SCG_SETID, SC_mknod, DENY(EPERM), { { T_ANY, 1, SETID_BITS } } },
	{ SCG_SETID, SC_mknodat, DENY(EPERM), { { T_ANY, 2, SETID_BITS } } },
	/* The mode counts only when the call creates: otherwise the kernel
	 * ignores it, and callers pass whatever is in the register. */
	{ SCG_SETID, SC_open, DENY(EPERM), { { T_CREATES, 1, 0 }, { T_ANY, 2, SETID_BITS } } },
	{ SCG_SETID, SC_openat, DENY(EPERM), { { T_CREATES, 2, 0 }, { T_ANY, 3, SETID_BITS } } },
	{ SCG_SETID, SC_openat2, DENY(ENOSYS), ALWAYS },

	{ SCG_KEYRINGS, SC_add_key, DENY(EPERM), ALWAYS },
	{ SCG_KEYRINGS, SC_request_key, DENY(EPERM), ALWAYS },
	{ SCG_KEYRINGS, SC_keyctl, DENY(EPERM), ALWAYS },

	/* prlimit64(pid, resource, new, old): reading is harmless. */
	{ SCG_PROCESSES, SC_prlimit64, DENY(EPERM), { { T_NONZERO, 0, 0 }, { T_POINTER, 2, 0 } } },
	/* setpriority(which, who, prio), ioprio_set(which, who, ioprio): the
	 * "user" target reaches every process of a user, even with who 0. */
	{ SCG_PROCESSES, SC_setpriority, DENY(EPERM), { { T_NONZERO, 1, 0 } } },
	{ SCG_PROCESSES, SC_setpriority, DENY(EPERM), { { T_EQ, 0, PRIO_USER } } },
	{ SCG_PROCESSES, SC_ioprio_set, DENY(EPERM), { { T_NONZERO, 1, 0 } } },
	{ SCG_PROCESSES, SC_ioprio_set, DENY(EPERM), { { T_EQ, 0, IOPRIO_WHO_USER } } },
	{ SCG_PROCESSES, SC_sched_setaffinity, DENY(EPERM), { { T_NONZERO, 0, 0 } } },
	{ SCG_PROCESSES, SC_sched_setscheduler, DENY(EPERM), { { T_NONZERO, 0, 0 } } },
	{ SCG_PROCESSES, SC_sched_setparam, DENY(EPERM), { { T_NONZERO, 0, 0 } } },
	{ SCG_PROCESSES, SC_sched_setattr, DENY(EPERM), { { T_NONZERO, 0, 0 } } },
	{ SCG_PROCESSES, SC_migrate_pages, DENY(EPERM), { { T_NONZERO, 0, 0 } } },
	{ SCG_PROCESSES, SC_move_pages, DENY(EPERM), { { T_NONZERO, 0, 0 } } },

	{ SCG_IO_URING, SC_io_uring_setup, DENY(EPERM), ALWAYS },

	/* sendto(fd, buf, len, flags, dest, destlen): without an address it
	 * goes where the socket is already connected. */
	{ SCG_UNIX_NOTIFY, SC_connect, NOTIFY, ALWAYS },
	{ SCG_UNIX_NOTIFY, SC_sendto, NOTIFY, { { T_POINTER, 4, 0 } } },
	{ SCG_UNIX_NOTIFY, SC_sendmsg, NOTIFY, ALWAYS },
	{ SCG_UNIX_NOTIFY, SC_sendmmsg, NOTIFY, ALWAYS },
	/* bind: the supervisor learns the run's abstract names. */
	{ SCG_UNIX_NOTIFY, SC_bind, NOTIFY, ALWAYS },
	{ SCG_UNIX_NOTIFY, SC_socketcall, DENY(ENOSYS), ALWAYS },

	/* socket(domain, type, protocol), socketpair(domain, ...): the
	 * families allowed first, then every other one refused. */
	{ SCG_NET_ALL | SCG_NET_NS, SC_socket, SECCOMP_RET_ALLOW, { { T_EQ, 0, AF_UNIX } } },
	{ SCG_NET_NS, SC_socket, SECCOMP_RET_ALLOW, { { T_EQ, 0, AF_INET } } },
	{ SCG_NET_NS, SC_socket, SECCOMP_RET_ALLOW, { { T_EQ, 0, AF_INET6 } } },
	{ SCG_NET_NS, SC_socket, SECCOMP_RET_ALLOW, { { T_EQ, 0, AF_NETLINK } } },
	{ SCG_NET_NS, SC_socket, SECCOMP_RET_ALLOW, { { T_EQ, 0, AF_PACKET } } },
	{ SCG_NET_ALL | SCG_NET_NS, SC_socket, DENY(EACCES), ALWAYS },
	{ SCG_NET_ALL | SCG_NET_NS, SC_socketpair, SECCOMP_RET_ALLOW, { { T_EQ, 0, AF_UNIX } } },
	{ SCG_NET_ALL | SCG_NET_NS, SC_socketpair, DENY(EACCES), ALWAYS },
	{ SCG_NET_ALL | SCG_NET_NS, SC_socketcall, DENY(ENOSYS), ALWAYS },

	/* unshare(flags), clone(flags, ...): the flags are the first
	 * argument on every ABI here (arm's and i386's CLONE_BACKWARDS order
	 * only the later ones); clone takes their low 32 bits
	 * (lower_32_bits(clone_flags)), and unshare refuses any other bit.
	 * clone3 takes them in memory, which a filter cannot read: ENOSYS,
	 * as before 5.3, and libc falls back to clone. */
	{ SCG_USERNS, SC_unshare, DENY(EPERM), { { T_ANY, 0, CLONE_NEWUSER } } },
	{ SCG_USERNS, SC_clone, DENY(EPERM), { { T_ANY, 0, CLONE_NEWUSER } } },
	{ SCG_USERNS, SC_clone3, DENY(ENOSYS), ALWAYS },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

struct sc_abi {
	uint32_t arch; /* AUDIT_ARCH_*, as seccomp_data.arch has it */
	int wide; /* arguments are 64 bits: pointers are tested on both halves */
	uint32_t creates; /* O_CREAT | __O_TMPFILE in this ABI's open flags */
};

/* O_CREAT 0100 and __O_TMPFILE 020000000: asm-generic/fcntl.h, which x86,
 * arm and arm64 use for both (arm overrides other flags only). */
#define GENERIC_CREATES (0100u | 020000000u)

static const struct sc_abi abis[SCA_COUNT] = {
	[SCA_X86_64] = { AUDIT_ARCH_X86_64, 1, GENERIC_CREATES },
	/* x32 shares AUDIT_ARCH_X86_64; its numbers carry the x32 bit. */
	[SCA_X32] = { AUDIT_ARCH_X86_64, 1, GENERIC_CREATES },
	[SCA_X32_OLD] = { AUDIT_ARCH_X86_64, 1, GENERIC_CREATES },
	[SCA_I386] = { AUDIT_ARCH_I386, 0, GENERIC_CREATES },
	[SCA_AARCH64] = { AUDIT_ARCH_AARCH64, 1, GENERIC_CREATES },
	[SCA_ARM] = { AUDIT_ARCH_ARM, 0, GENERIC_CREATES },
};

/* Marks a number as present (bit 31 is in no syscall number), so that a
 * call an ABI lacks (0) is not taken for number 0. */
#define PRESENT 0x80000000u
#define NR(n) (PRESENT | (uint32_t)(n))
#define X32_BIT 0x40000000u
#define X32(n) NR(X32_BIT | (uint32_t)(n))
#define NONE 0u

/*
 * The numbers, per call, in the order of enum seccomp_abi:
 *   x86-64, x32, x32 by 64-bit numbers, i386, arm64, arm (EABI).
 * From the kernel's tables: arch/x86/entry/syscalls/syscall_64.tbl
 * (x86-64: "common" and "64" entries; x32: "common" and "x32", with the
 * x32 bit) and syscall_32.tbl (i386); arm64 uses include/uapi/asm-generic/
 * unistd.h; arm: arch/arm/tools/syscall.tbl, "common" and "eabi" entries
 * (mainline, torvalds/linux at cdd5b5a9761f; fchmodat2 from 6.18).
 * fchmodat2 is 452 everywhere. test-seccomp checks the x86 and arm64
 * numbers against the installed UAPI headers.
 *
 * x32 has numbers of its own from 512 up for ioctl, sendmsg, move_pages
 * and sendmmsg. Older kernels ran x32 calls from the 64-bit table (x32
 * got a table of its own in Linux 5.4), where the x32 bit with the 64-bit
 * number reached these calls too; newer kernels answer ENOSYS.
 *
 * arm64 has no open, creat, chmod or mknod (only their *at forms);
 * socketcall is i386's (arm's is OABI only, and an arm64 kernel runs EABI
 * only).
 */
static const uint32_t numbers[SC_COUNT][SCA_COUNT] = {
	[SC_ioctl] = { NR(16), X32(514), X32(16), NR(54), NR(29), NR(54) },
	[SC_chmod] = { NR(90), X32(90), NONE, NR(15), NONE, NR(15) },
	[SC_fchmod] = { NR(91), X32(91), NONE, NR(94), NR(52), NR(94) },
	[SC_fchmodat] = { NR(268), X32(268), NONE, NR(306), NR(53), NR(333) },
	[SC_fchmodat2] = { NR(452), X32(452), NONE, NR(452), NR(452), NR(452) },
	[SC_creat] = { NR(85), X32(85), NONE, NR(8), NONE, NR(8) },
	[SC_mknod] = { NR(133), X32(133), NONE, NR(14), NONE, NR(14) },
	[SC_mknodat] = { NR(259), X32(259), NONE, NR(297), NR(33), NR(324) },
	[SC_open] = { NR(2), X32(2), NONE, NR(5), NONE, NR(5) },
	[SC_openat] = { NR(257), X32(257), NONE, NR(295), NR(56), NR(322) },
	[SC_openat2] = { NR(437), X32(437), NONE, NR(437), NR(437), NR(437) },
	[SC_add_key] = { NR(248), X32(248), NONE, NR(286), NR(217), NR(309) },
	[SC_request_key] = { NR(249), X32(249), NONE, NR(287), NR(218), NR(310) },
	[SC_keyctl] = { NR(250), X32(250), NONE, NR(288), NR(219), NR(311) },
	[SC_prlimit64] = { NR(302), X32(302), NONE, NR(340), NR(261), NR(369) },
	[SC_setpriority] = { NR(141), X32(141), NONE, NR(97), NR(140), NR(97) },
	[SC_ioprio_set] = { NR(251), X32(251), NONE, NR(289), NR(30), NR(314) },
	[SC_sched_setaffinity] = { NR(203), X32(203), NONE, NR(241), NR(122), NR(241) },
	[SC_sched_setscheduler] = { NR(144), X32(144), NONE, NR(156), NR(119), NR(156) },
	[SC_sched_setparam] = { NR(142), X32(142), NONE, NR(154), NR(118), NR(154) },
	[SC_sched_setattr] = { NR(314), X32(314), NONE, NR(351), NR(274), NR(380) },
	[SC_migrate_pages] = { NR(256), X32(256), NONE, NR(294), NR(238), NR(400) },
	[SC_move_pages] = { NR(279), X32(533), X32(279), NR(317), NR(239), NR(344) },
	[SC_io_uring_setup] = { NR(425), X32(425), NONE, NR(425), NR(425), NR(425) },
	[SC_connect] = { NR(42), X32(42), NONE, NR(362), NR(203), NR(283) },
	[SC_sendto] = { NR(44), X32(44), NONE, NR(369), NR(206), NR(290) },
	[SC_sendmsg] = { NR(46), X32(518), X32(46), NR(370), NR(211), NR(296) },
	[SC_sendmmsg] = { NR(307), X32(538), X32(307), NR(345), NR(269), NR(374) },
	[SC_socketcall] = { NONE, NONE, NONE, NR(102), NONE, NONE },
	[SC_bind] = { NR(49), X32(49), NONE, NR(361), NR(200), NR(282) },
	[SC_socket] = { NR(41), X32(41), NONE, NR(359), NR(198), NR(281) },
	[SC_socketpair] = { NR(53), X32(53), NONE, NR(360), NR(199), NR(288) },
	[SC_unshare] = { NR(272), X32(272), NONE, NR(310), NR(97), NR(337) },
	[SC_clone] = { NR(56), X32(56), NONE, NR(120), NR(220), NR(120) },
	[SC_clone3] = { NR(435), X32(435), NONE, NR(435), NR(435), NR(435) },
};

/* The ABIs this build's filter holds, ended by SCA_COUNT. */
static const enum seccomp_abi built[] = {
#if defined(__x86_64__)
	SCA_X86_64, SCA_X32, SCA_X32_OLD, SCA_I386,
#elif defined(__aarch64__)
	SCA_AARCH64, SCA_ARM,
#endif
	SCA_COUNT
};

/* Offsets of the halves of argument i in struct seccomp_data (the
 * kernel's byte order). */
#define ARG(i) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (size_t)(i))
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) ARG(i)
#define ARG_HI(i) (ARG(i) + 4)
#else
#define ARG_LO(i) (ARG(i) + 4)
#define ARG_HI(i) ARG(i)
#endif

/* ---- the builder ---- */

struct out {
	struct sock_filter *insn;
	size_t n, max;
	int overflow; /* an instruction did not fit */
};

static void emit(struct out *o, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (o->n >= o->max) {
		o->overflow = 1;
		return;
	}
	o->insn[o->n++] = (struct sock_filter){ code, jt, jf, k };
}

static void load(struct out *o, size_t offset)
{
	emit(o, BPF_LD | BPF_W | BPF_ABS, (uint32_t)offset, 0, 0);
}

/* Make the block from start to the end one that runs only when the
 * accumulator equals k, by a jump over it put in front. The block ends in
 * returns, so the jump lands where the next block will begin. A
 * conditional jump's offset has 8 bits: a longer block is skipped by
 * BPF_JA, whose offset has 32. */
static void guard(struct out *o, size_t start, uint32_t k)
{
	size_t len = o->n - start;
	size_t extra = len <= 255 ? 1 : 2;
	if (o->overflow || o->n + extra > o->max) {
		o->overflow = 1;
		return;
	}
	memmove(&o->insn[start + extra], &o->insn[start], len * sizeof(o->insn[0]));
	if (extra == 1) {
		o->insn[start] =
			(struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, (uint8_t)len);
	} else {
		o->insn[start] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 1, 0);
		o->insn[start + 1] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, (uint32_t)len);
	}
	o->n += extra;
}

static size_t test_len(const struct sc_abi *abi, enum sc_test t)
{
	if (t == T_NONE)
		return 0;
	return t == T_POINTER && abi->wide ? 4 : 2;
}

/* One rule: each condition loads its argument and, when it does not
 * hold, jumps past the rule's return. At most 2 conditions of at most 4
 * instructions: every offset fits in 8 bits. */
static void emit_rule(struct out *o, const struct sc_abi *abi, const struct sc_rule *r)
{
	size_t after = 0; /* instructions after the current test, return included */
	for (size_t c = 0; c < 2; c++)
		after += test_len(abi, r->cond[c].test);
	after += 1;
	for (size_t c = 0; c < 2 && r->cond[c].test != T_NONE; c++) {
		const struct sc_cond *k = &r->cond[c];
		after -= test_len(abi, k->test);
		uint8_t fail = (uint8_t)after; /* past the return */
		load(o, ARG_LO(k->arg));
		switch (k->test) {
		case T_EQ:
			emit(o, BPF_JMP | BPF_JEQ | BPF_K, k->value, 0, fail);
			break;
		case T_ANY:
			emit(o, BPF_JMP | BPF_JSET | BPF_K, k->value, 0, fail);
			break;
		case T_CREATES:
			emit(o, BPF_JMP | BPF_JSET | BPF_K, abi->creates, 0, fail);
			break;
		case T_NONZERO:
			emit(o, BPF_JMP | BPF_JEQ | BPF_K, 0, fail, 0);
			break;
		case T_POINTER:
			if (abi->wide) {
				/* Low half set: not NULL, past the high half's test. */
				emit(o, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2);
				load(o, ARG_HI(k->arg));
			}
			emit(o, BPF_JMP | BPF_JEQ | BPF_K, 0, fail, 0);
			break;
		case T_NONE:
			break;
		}
	}
	emit(o, BPF_RET | BPF_K, r->ret, 0, 0);
}

/*
 * The program:
 *   ld arch
 *   for each architecture (its ABIs' calls together: x86-64 and x32):
 *     [jeq arch, else past the block]
 *       ld nr
 *       for each call with a rule in the groups:
 *         [jeq nr, else past the call]
 *           per rule: per condition: ld arg; jump past the rule unless it holds
 *                     ret the rule's action
 *           ret allow
 *       ret allow
 *   ret kill_process
 * Every block ends in returns, so the accumulator a skipped block leaves
 * is the one it was entered with (arch, then nr).
 */
int seccomp_build(unsigned groups, struct sock_filter *out, size_t max)
{
	struct out o = { out, 0, max, 0 };
	if (built[0] == SCA_COUNT)
		return 0;
	load(&o, offsetof(struct seccomp_data, arch));
	for (size_t a = 0; built[a] != SCA_COUNT; a++) {
		uint32_t arch = abis[built[a]].arch;
		int seen = 0;
		for (size_t b = 0; b < a; b++)
			seen |= abis[built[b]].arch == arch;
		if (seen)
			continue;
		size_t arch_start = o.n;
		load(&o, offsetof(struct seccomp_data, nr));
		for (size_t b = a; built[b] != SCA_COUNT; b++) {
			const struct sc_abi *abi = &abis[built[b]];
			if (abi->arch != arch)
				continue;
			for (int c = 0; c < SC_COUNT; c++) {
				if (numbers[c][built[b]] == NONE)
					continue;
				size_t call_start = o.n;
				for (size_t r = 0; r < NRULES; r++)
					if (rules[r].call == (enum sc_call)c &&
					    (rules[r].group & groups))
						emit_rule(&o, abi, &rules[r]);
				if (o.n == call_start)
					continue;
				emit(&o, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
				guard(&o, call_start, numbers[c][built[b]] & ~PRESENT);
			}
		}
		emit(&o, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
		guard(&o, arch_start, arch);
	}
	emit(&o, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS, 0, 0);
	return o.overflow ? -1 : (int)o.n;
}

/* ---- the tables, for tests ---- */

uint32_t seccomp_abi_arch(enum seccomp_abi abi)
{
	return abi < SCA_COUNT ? abis[abi].arch : 0;
}

int seccomp_abi_built(enum seccomp_abi abi)
{
	for (size_t a = 0; built[a] != SCA_COUNT; a++)
		if (built[a] == abi)
			return 1;
	return 0;
}

const char *seccomp_call_name(size_t i)
{
	return i < SC_COUNT ? call_names[i] : NULL;
}

long seccomp_abi_nr(enum seccomp_abi abi, const char *name)
{
	for (size_t c = 0; abi < SCA_COUNT && c < SC_COUNT; c++)
		if (strcmp(call_names[c], name) == 0)
			return numbers[c][abi] != NONE ? (long)(numbers[c][abi] & ~PRESENT) : -1;
	return -1;
}

/* ---- the layer ---- */

static struct sock_filter all_insns[SECCOMP_MAX_INSNS];
static struct sock_fprog all_program;
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

static void build_all(void)
{
	int n = seccomp_build(SECCOMP_GROUPS_ALL, all_insns, SECCOMP_MAX_INSNS);
	if (n > 0) {
		all_program.len = (unsigned short)n;
		all_program.filter = all_insns;
	}
}

const struct sock_fprog *seccomp_program(void)
{
	(void)pthread_once(&build_once, build_all);
	return all_program.len > 0 ? &all_program : NULL;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int install(const struct sock_fprog *prog)
{
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) != 0)
		return errno;
	return 0;
}

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, uint64_t) /* Linux 6.6 */
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5) /* Linux 5.19 */
#endif

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int seccomp_install_listener(const struct sock_fprog *prog)
{
	/* Once the supervisor has taken a call, only a fatal signal ends
	 * the wait: an interrupted call would otherwise have been made
	 * after all, and its result lost. */
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			  prog);
	if (fd < 0 && errno == EINVAL) /* before 5.19 */
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     prog);
	if (fd < 0)
		return -errno;
	/* The supervisor woken on the CPU of the call that waits for it,
	 * and the call on the supervisor's when answered (Linux 6.6): no
	 * wake-up of an idle CPU each way, which in a virtual machine costs
	 * tens of microseconds per call. Older kernels say EINVAL: as
	 * before. */
	uint64_t sync = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
	(void)ioctl((int)fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, sync);
	return (int)fd;
}

/* After no_new_privs (the trial's earlier layer set it). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int seccomp_trial(const struct linux_trial *t)
{
	return t->seccomp != NULL ? install(t->seccomp) : ENOSYS;
}

unsigned seccomp_groups_for(int pid_namespace, int network_off, int net_namespace, int userns)
{
	/* io_uring always: its OPENAT would make setuid files, and its
	 * CONNECT and SENDMSG would pass the supervisor, unseen by seccomp. */
	unsigned g = SCG_TERMINAL | SCG_SETID | SCG_KEYRINGS | SCG_IO_URING;
	if (!pid_namespace)
		g |= SCG_PROCESSES;
	if (network_off)
		g |= net_namespace ? SCG_NET_NS : SCG_NET_ALL;
	if (userns)
		g |= SCG_USERNS;
	return g;
}

int seccomp_prepare(const struct run_spec *run, struct run_result *res, struct linux_plan *plan)
{
	const struct policy *p = run->pol;
	plan->seccomp_groups = seccomp_groups_for(
		plan->pid_namespace, p != NULL && p->network_off, plan->net_namespace,
		run->dec != NULL && userns_by_filter(run->dec->cov.layers));
	int n = seccomp_build(plan->seccomp_groups, plan->seccomp_insns, SECCOMP_MAX_INSNS);
	if (n == 0)
		return backend_fail(res, CORDON_ECONFINE,
				    "seccomp filter: no syscall table for this architecture");
	if (n < 0)
		return backend_fail(res, CORDON_ECONFINE,
				    "seccomp filter: more than %d instructions", SECCOMP_MAX_INSNS);
	plan->seccomp.len = (unsigned short)n;
	plan->seccomp.filter = plan->seccomp_insns;
	return 0;
}

/* KEYCTL_JOIN_SESSION_KEYRING with no name: a new, empty, anonymous
 * session keyring; KEYCTL_GET_KEYRING_ID of KEY_SPEC_SESSION_KEYRING
 * (linux/keyctl.h). */
#define CORDON_KEYCTL_GET_KEYRING_ID 0
#define CORDON_KEYCTL_JOIN_SESSION_KEYRING 1
#define CORDON_KEY_SPEC_SESSION_KEYRING (-3L)

/* Whether keyctl fails for everyone here with EPERM or ENOSYS: a filter
 * of the caller's (Docker's default profile refuses add_key, keyctl and
 * request_key), inherited by every command too. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int keyctl_refused_here(void)
{
	if (syscall(SYS_keyctl, CORDON_KEYCTL_GET_KEYRING_ID, CORDON_KEY_SPEC_SESSION_KEYRING, 0L,
		    0L, 0L) >= 0)
		return 0;
	return errno == EPERM || errno == ENOSYS;
}

/* The command gets a session keyring of its own, so the caller's is not
 * in its possession chain; then every keyring call is refused, so none of
 * the caller's or the user's keys can be reached by serial number
 * either. Where keyctl is refused already (a container's filter), the
 * join is too: the command keeps the caller's session keyring, which no
 * call of its can reach either, and the rest of the layer holds. 0 or
 * errno. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int own_session_keyring(unsigned groups)
{
	if (!(groups & SCG_KEYRINGS) ||
	    syscall(SYS_keyctl, CORDON_KEYCTL_JOIN_SESSION_KEYRING, 0L, 0L, 0L, 0L) >= 0)
		return 0;
	int e = errno;
	return (e == EPERM || e == ENOSYS) && keyctl_refused_here() ? 0 : e;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int seccomp_apply(const struct linux_plan *plan)
{
	if (plan->seccomp.len == 0 || plan->seccomp_on_runner)
		return 0;
	int e = own_session_keyring(plan->seccomp_groups);
	return e != 0 ? e : install(&plan->seccomp);
}

/*
 * Once per run instead of once per spawn: the kernel compiles each
 * filter it is given (0.2-0.5 ms on a slow machine), and a spawn with the
 * supervisor carried two, the run's thread's and the child's own. Every
 * child of the run's thread inherits its filter, its no_new_privs and its
 * session keyring; nothing a child does before exec is in the plan's
 * groups (mounts, setns, Landlock, capabilities, the init program), and
 * the groups' rules never give one call two answers, so one program of
 * both answers each call as the two stacked did. The run's commands share
 * one empty session keyring, which none of them can use.
 */
int seccomp_start_run(unsigned groups, int *listener)
{
	struct sock_filter insns[SECCOMP_MAX_INSNS];
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	int e = own_session_keyring(groups);
	if (e != 0)
		return e;
	int n = seccomp_build(groups, insns, SECCOMP_MAX_INSNS);
	if (n <= 0)
		return ENOSYS;
	struct sock_fprog prog = { (unsigned short)n, insns };
	if (listener == NULL)
		return install(&prog);
	int l = seccomp_install_listener(&prog);
	if (l < 0)
		return -l;
	*listener = l;
	return 0;
}

#else
typedef int cordon_no_seccomp_here;
#endif
