/*
 * The seccomp layer's filter (src/linux/layer-seccomp.c): its decisions, found
 * by running the built program in a small classic-BPF interpreter on made
 * up system calls, for every rule and its boundary, in every ABI of this
 * build; its syscall numbers, against the installed UAPI headers; and the
 * kernel's acceptance of the largest filter, in forked children.
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000u
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000u
#endif

#define ALLOW SECCOMP_RET_ALLOW
#define KILL SECCOMP_RET_KILL_PROCESS
#define NOTIF SECCOMP_RET_USER_NOTIF
#define ERR(e) (SECCOMP_RET_ERRNO | (uint32_t)(e))
#define BAD 0xdeadbeefu /* the interpreter's "not a valid program" */

#define X32_BIT 0x40000000L
#define FCHMODAT2_NR 452L
#define PTR 0x7ffd1000u /* a user pointer (low half only) */
#define HIGH_ONLY 0x100000000ull /* a pointer whose low half is 0 */

/* ---- a classic BPF interpreter: only what the builder may emit ---- */

static uint32_t run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	const unsigned char *bytes = (const unsigned char *)d;
	uint32_t a = 0;
	size_t pc = 0;
	while (pc < n) {
		const struct sock_filter *i = &f[pc++];
		size_t off;
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (i->k % 4 != 0 || i->k > sizeof(*d) - 4)
				return BAD;
			memcpy(&a, bytes + i->k, 4);
			break;
		case BPF_JMP | BPF_JA:
			if (i->k >= n - pc)
				return BAD;
			pc += i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K:
			if (BPF_OP(i->code) == BPF_JEQ)
				off = a == i->k ? i->jt : i->jf;
			else
				off = (a & i->k) != 0 ? i->jt : i->jf;
			if (off >= n - pc)
				return BAD;
			pc += off;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			return BAD;
		}
	}
	return BAD; /* ran off the end */
}

/* The filter for a set of groups, built once per set. */
static const struct sock_filter *program(unsigned groups, size_t *n)
{
	static struct sock_filter insns[SECCOMP_GROUPS_ALL + 1][SECCOMP_MAX_INSNS];
	static int len[SECCOMP_GROUPS_ALL + 1];
	groups &= SECCOMP_GROUPS_ALL;
	if (len[groups] == 0)
		len[groups] = seccomp_build(groups, insns[groups], SECCOMP_MAX_INSNS);
	*n = len[groups] > 0 ? (size_t)len[groups] : 0;
	return insns[groups];
}

static uint32_t decide(unsigned groups, uint32_t arch, long nr, const uint64_t args[6])
{
	struct seccomp_data d;
	size_t n;
	const struct sock_filter *f = program(groups, &n);
	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = (int)nr;
	d.instruction_pointer = 0x400000;
	memcpy(d.args, args, sizeof(d.args));
	return run(f, n, &d);
}

static const char *abi_name(enum seccomp_abi abi)
{
	static const char *const names[SCA_COUNT] = { "x86_64", "x32",	   "x32 (64-bit numbers)",
						      "i386",	"aarch64", "arm" };
	return abi < SCA_COUNT ? names[abi] : "?";
}

/* 32-bit argument ABIs: the kernel truncates their arguments. */
static int narrow(enum seccomp_abi abi)
{
	return abi == SCA_I386 || abi == SCA_ARM;
}

static const char *action(uint32_t r, char *buf, size_t n)
{
	if (r == ALLOW)
		return "ALLOW";
	if (r == KILL)
		return "KILL_PROCESS";
	if (r == NOTIF)
		return "USER_NOTIF";
	if (r == BAD)
		return "(bad program)";
	if ((r & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
		snprintf(buf, n, "ERRNO(%s)", strerror((int)(r & SECCOMP_RET_DATA)));
	else
		snprintf(buf, n, "0x%08x", r);
	return buf;
}

/* ---- the rules ---- */

struct rule_case {
	unsigned group; /* the group whose rule decides */
	const char *call;
	uint64_t args[6];
	uint32_t want; /* with the group in the filter */
	uint32_t want32; /* the same on i386 and arm, when it differs (else 0) */
	const char *what;
};

/* A case: group, call, the action, what it shows, the arguments. W: the
 * action differs on the ABIs with 32-bit arguments. */
#define C(g, call, want, what, ...)                     \
	{                                               \
		g, call, { __VA_ARGS__ }, want, 0, what \
	}
#define W(g, call, want, want32, what, ...)                  \
	{                                                    \
		g, call, { __VA_ARGS__ }, want, want32, what \
	}
#define TERM SCG_TERMINAL
#define SETID SCG_SETID
#define KEYS SCG_KEYRINGS
#define PROC SCG_PROCESSES
#define URING SCG_IO_URING
#define UNIX SCG_UNIX_NOTIFY
#define USERNS SCG_USERNS
#define CWD ((uint32_t)AT_FDCWD)
#define EPERM_ ERR(EPERM)

static const struct rule_case cases[] = {
	C(TERM, "ioctl", EPERM_, "TIOCSTI", 0, TIOCSTI),
	C(TERM, "ioctl", EPERM_, "TIOCLINUX", 0, TIOCLINUX),
	C(TERM, "ioctl", EPERM_, "TIOCSETD", 0, TIOCSETD),
	C(TERM, "ioctl", ALLOW, "TIOCGETD", 0, TIOCGETD),
	C(TERM, "ioctl", EPERM_, "TIOCSTI, high bits set (low-32 compare)", 0,
	  0xffffffff00000000ull | TIOCSTI),
	C(TERM, "ioctl", ALLOW, "TIOCSTI in the high half only", 0, (uint64_t)TIOCSTI << 32),
	C(TERM, "ioctl", ALLOW, "TCGETS", 0, TCGETS),

	C(SETID, "chmod", EPERM_, "chmod 04755", PTR, 04755),
	C(SETID, "chmod", EPERM_, "chmod 02755", PTR, 02755),
	C(SETID, "chmod", ALLOW, "chmod 0755", PTR, 0755),
	C(SETID, "chmod", ALLOW, "chmod 01777 (sticky)", PTR, 01777),
	C(SETID, "chmod", EPERM_, "chmod 04755, high bits set", PTR, 0x100000000ull | 04755),
	C(SETID, "chmod", ALLOW, "chmod 0644, setuid bit in the path argument", 04000, 0644),
	C(SETID, "fchmod", EPERM_, "fchmod 06755", 3, 06755),
	C(SETID, "fchmod", ALLOW, "fchmod 0644", 3, 0644),
	C(SETID, "fchmodat", EPERM_, "fchmodat 04755", CWD, PTR, 04755),
	C(SETID, "fchmodat", ALLOW, "fchmodat 0755, setuid bit in the path", CWD, 04000, 0755),
	C(SETID, "fchmodat2", EPERM_, "fchmodat2 02700", CWD, PTR, 02700, 0),
	C(SETID, "fchmodat2", ALLOW, "fchmodat2 0700, setuid bit in the flags", CWD, PTR, 0700,
	  04000),
	C(SETID, "creat", EPERM_, "creat 04755", PTR, 04755),
	C(SETID, "creat", ALLOW, "creat 0644", PTR, 0644),
	C(SETID, "mknod", EPERM_, "mknod S_IFREG|04755", PTR, S_IFREG | 04755, 0),
	C(SETID, "mknod", ALLOW, "mknod S_IFIFO|0644", PTR, S_IFIFO | 0644, 0),
	C(SETID, "mknodat", EPERM_, "mknodat S_IFREG|02755", CWD, PTR, S_IFREG | 02755, 0),
	C(SETID, "mknodat", ALLOW, "mknodat S_IFREG|0644", CWD, PTR, S_IFREG | 0644, 0),
	C(SETID, "open", ALLOW, "open without O_CREAT, mode 04000 (ignored)", PTR, O_RDONLY, 04000),
	C(SETID, "open", EPERM_, "open O_CREAT 04755", PTR, O_CREAT | O_WRONLY, 04755),
	C(SETID, "open", ALLOW, "open O_CREAT 0644", PTR, O_CREAT | O_WRONLY, 0644),
	C(SETID, "open", EPERM_, "open O_TMPFILE 04700", PTR, O_TMPFILE | O_RDWR, 04700),
	C(SETID, "openat", EPERM_, "openat O_CREAT|O_WRONLY 02755", CWD, PTR, O_CREAT | O_WRONLY,
	  02755),
	C(SETID, "openat", EPERM_, "openat O_TMPFILE 04700", CWD, PTR, O_TMPFILE | O_RDWR, 04700),
	C(SETID, "openat", ALLOW, "openat without O_CREAT, mode 04000", CWD, PTR, O_RDONLY, 04000),
	C(SETID, "openat", ALLOW, "openat O_CREAT 0600", CWD, PTR, O_CREAT | O_EXCL, 0600),
	C(SETID, "openat", ALLOW, "openat O_WRONLY, mode 04755", CWD, PTR, O_WRONLY, 04755),
	C(SETID, "openat2", ERR(ENOSYS), "openat2", CWD, PTR, PTR, 24),

	C(KEYS, "add_key", EPERM_, "add_key", PTR, PTR, PTR, 4, 0),
	C(KEYS, "request_key", EPERM_, "request_key", PTR, PTR, 0, 0),
	C(KEYS, "keyctl", EPERM_, "keyctl", 0, (uint32_t)-3, 0),

	C(PROC, "prlimit64", ALLOW, "prlimit64 pid 0, new set", 0, RLIMIT_NOFILE, PTR, 0),
	C(PROC, "prlimit64", EPERM_, "prlimit64 pid 5, new set", 5, RLIMIT_NOFILE, PTR, 0),
	C(PROC, "prlimit64", ALLOW, "prlimit64 pid 5, new NULL", 5, RLIMIT_NOFILE, 0, PTR),
	W(PROC, "prlimit64", EPERM_, ALLOW, "prlimit64 pid 5, new 0x1_0000_0000", 5, RLIMIT_NOFILE,
	  HIGH_ONLY, 0),
	C(PROC, "prlimit64", ALLOW, "prlimit64 pid 0 with high bits, new set",
	  0xffffffff00000000ull, RLIMIT_NOFILE, PTR, 0),
	C(PROC, "setpriority", EPERM_, "setpriority PRIO_USER, who 0", PRIO_USER, 0, 5),
	C(PROC, "setpriority", ALLOW, "setpriority PRIO_PROCESS, who 0", PRIO_PROCESS, 0, 5),
	C(PROC, "setpriority", ALLOW, "setpriority PRIO_PGRP, who 0", PRIO_PGRP, 0, 5),
	C(PROC, "setpriority", EPERM_, "setpriority PRIO_PROCESS, who 5", PRIO_PROCESS, 5, 5),
	C(PROC, "ioprio_set", EPERM_, "ioprio_set IOPRIO_WHO_USER, who 0", 3, 0, 0x6000),
	C(PROC, "ioprio_set", ALLOW, "ioprio_set IOPRIO_WHO_PROCESS, who 0", 1, 0, 0x6000),
	C(PROC, "ioprio_set", EPERM_, "ioprio_set IOPRIO_WHO_PROCESS, who 5", 1, 5, 0x6000),
	C(PROC, "sched_setaffinity", ALLOW, "sched_setaffinity pid 0", 0, 8, PTR),
	C(PROC, "sched_setaffinity", EPERM_, "sched_setaffinity pid 5", 5, 8, PTR),
	C(PROC, "sched_setscheduler", ALLOW, "sched_setscheduler pid 0", 0, 0, PTR),
	C(PROC, "sched_setscheduler", EPERM_, "sched_setscheduler pid 5", 5, 0, PTR),
	C(PROC, "sched_setparam", ALLOW, "sched_setparam pid 0", 0, PTR),
	C(PROC, "sched_setparam", EPERM_, "sched_setparam pid 5", 5, PTR),
	C(PROC, "sched_setattr", ALLOW, "sched_setattr pid 0", 0, PTR, 0),
	C(PROC, "sched_setattr", EPERM_, "sched_setattr pid 5", 5, PTR, 0),
	C(PROC, "migrate_pages", ALLOW, "migrate_pages pid 0", 0, 64, PTR, PTR),
	C(PROC, "migrate_pages", EPERM_, "migrate_pages pid 5", 5, 64, PTR, PTR),
	C(PROC, "move_pages", ALLOW, "move_pages pid 0", 0, 1, PTR, PTR, PTR, 0),
	C(PROC, "move_pages", EPERM_, "move_pages pid 5", 5, 1, PTR, PTR, PTR, 0),

	C(URING, "io_uring_setup", EPERM_, "io_uring_setup", 8, PTR),

	C(UNIX, "connect", NOTIF, "connect", 3, PTR, 16),
	C(UNIX, "sendto", ALLOW, "sendto dest NULL", 3, PTR, 1, 0, 0, 0),
	C(UNIX, "sendto", NOTIF, "sendto dest set", 3, PTR, 1, 0, PTR, 16),
	W(UNIX, "sendto", NOTIF, ALLOW, "sendto dest 0x1_0000_0000", 3, PTR, 1, 0, HIGH_ONLY, 16),
	C(UNIX, "sendmsg", NOTIF, "sendmsg", 3, PTR, 0),
	C(UNIX, "sendmmsg", NOTIF, "sendmmsg", 3, PTR, 1, 0),
	C(UNIX | SCG_NET_ALL | SCG_NET_NS, "socketcall", ERR(ENOSYS), "socketcall", 3, PTR),
	C(UNIX, "bind", NOTIF, "bind", 3, PTR, 16),

	C(USERNS, "unshare", EPERM_, "unshare CLONE_NEWUSER", CLONE_NEWUSER),
	C(USERNS, "unshare", EPERM_, "unshare CLONE_NEWUSER|CLONE_NEWNS",
	  CLONE_NEWUSER | CLONE_NEWNS),
	C(USERNS, "unshare", ALLOW, "unshare CLONE_NEWNS", CLONE_NEWNS),
	C(USERNS, "unshare", ALLOW, "unshare CLONE_NEWPID|CLONE_NEWIPC",
	  CLONE_NEWPID | CLONE_NEWIPC),
	C(USERNS, "clone", EPERM_, "clone CLONE_NEWUSER|SIGCHLD", CLONE_NEWUSER | SIGCHLD, 0),
	C(USERNS, "clone", EPERM_, "clone CLONE_NEWUSER, high bits set (low-32 compare)",
	  0xdead000000000000ull | CLONE_NEWUSER | SIGCHLD, 0),
	C(USERNS, "clone", ALLOW, "clone CLONE_NEWUSER in the high half only",
	  (uint64_t)CLONE_NEWUSER << 32 | SIGCHLD, 0),
	C(USERNS, "clone", ALLOW, "clone a thread",
	  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD, PTR),
	C(USERNS, "clone", ALLOW, "clone SIGCHLD (fork)", SIGCHLD, 0),
	C(USERNS, "clone3", ERR(ENOSYS), "clone3", PTR, 88),
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Each case in each ABI of the build that has the call: the rule's action
 * with its group alone and with every group, ALLOW with every group but
 * its own and with none. */
static void rule_cases(void)
{
	int covered[SCA_COUNT] = { 0 };
	for (size_t i = 0; i < NCASES; i++) {
		const struct rule_case *k = &cases[i];
		for (enum seccomp_abi abi = 0; abi < SCA_COUNT; abi++) {
			long nr = seccomp_abi_nr(abi, k->call);
			if (!seccomp_abi_built(abi) || nr < 0)
				continue;
			covered[abi]++;
			uint32_t arch = seccomp_abi_arch(abi);
			uint32_t want = narrow(abi) && k->want32 ? k->want32 : k->want;
			uint32_t got[4] = {
				decide(k->group, arch, nr, k->args),
				decide(SECCOMP_GROUPS_ALL, arch, nr, k->args),
				decide(SECCOMP_GROUPS_ALL & ~k->group, arch, nr, k->args),
				decide(0, arch, nr, k->args),
			};
			int pass = got[0] == want && got[1] == want && got[2] == ALLOW &&
				   got[3] == ALLOW;
			char b[4][48], w[48];
			ok(pass, "%s: %s -> %s", abi_name(abi), k->what,
			   action(want, w, sizeof(w)));
			if (!pass)
				diag("got %s (its group), %s (all), %s (all others), %s (none)",
				     action(got[0], b[0], 48), action(got[1], b[1], 48),
				     action(got[2], b[2], 48), action(got[3], b[3], 48));
		}
	}
	for (enum seccomp_abi abi = 0; abi < SCA_COUNT; abi++)
		if (seccomp_abi_built(abi))
			ok(covered[abi] > 0, "%s: %d rule cases run", abi_name(abi), covered[abi]);
}

/* --network off's groups, which a plan never holds together: each
 * alone. socket and socketpair by family (the low 32 bits of the first
 * argument), on every ABI of the build. */
static void net_groups(void)
{
	static const struct {
		const char *call;
		uint64_t domain;
		uint32_t all, ns; /* with SCG_NET_ALL, with SCG_NET_NS */
	} k[] = {
		{ "socket", AF_UNIX, ALLOW, ALLOW },
		{ "socket", AF_INET, ERR(EACCES), ALLOW },
		{ "socket", AF_INET6, ERR(EACCES), ALLOW },
		{ "socket", AF_NETLINK, ERR(EACCES), ALLOW },
		{ "socket", AF_PACKET, ERR(EACCES), ALLOW },
		{ "socket", 40 /* AF_VSOCK */, ERR(EACCES), ERR(EACCES) },
		{ "socket", 31 /* AF_BLUETOOTH */, ERR(EACCES), ERR(EACCES) },
		{ "socket", 0x100000000ull | AF_UNIX, ALLOW, ALLOW },
		{ "socket", 0x100000000ull | 40, ERR(EACCES), ERR(EACCES) },
		{ "socketpair", AF_UNIX, ALLOW, ALLOW },
		{ "socketpair", AF_INET, ERR(EACCES), ERR(EACCES) },
	};
	for (enum seccomp_abi abi = 0; abi < SCA_COUNT; abi++) {
		if (!seccomp_abi_built(abi))
			continue;
		uint32_t arch = seccomp_abi_arch(abi);
		for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
			long nr = seccomp_abi_nr(abi, k[i].call);
			if (nr < 0)
				continue;
			uint64_t args[6] = { k[i].domain, SOCK_STREAM, 0, PTR, 0, 0 };
			char w[48];
			is_int(decide(SCG_NET_ALL, arch, nr, args), k[i].all,
			       "%s: network off, no namespace: %s(%llu) -> %s", abi_name(abi),
			       k[i].call, (unsigned long long)k[i].domain,
			       action(k[i].all, w, sizeof(w)));
			is_int(decide(SCG_NET_NS, arch, nr, args), k[i].ns,
			       "%s: network off, a namespace: %s(%llu) -> %s", abi_name(abi),
			       k[i].call, (unsigned long long)k[i].domain,
			       action(k[i].ns, w, sizeof(w)));
			is_int(decide(SECCOMP_GROUPS_ALL & ~(SCG_NET_ALL | SCG_NET_NS), arch, nr,
				      args),
			       ALLOW, "%s: network on: %s(%llu) -> ALLOW", abi_name(abi), k[i].call,
			       (unsigned long long)k[i].domain);
		}
	}
}

/* Calls no rule names, and architectures the build has no table for. */
static void other_decisions(void)
{
	static const uint64_t none[6] = { 0 };
	static const uint32_t foreign[] = { AUDIT_ARCH_X86_64,	AUDIT_ARCH_I386,
					    AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM,
					    AUDIT_ARCH_PPC64LE, 0x12345678u };
	for (enum seccomp_abi abi = 0; abi < SCA_COUNT; abi++) {
		if (!seccomp_abi_built(abi))
			continue;
		uint32_t arch = seccomp_abi_arch(abi);
		long base = abi == SCA_X32 || abi == SCA_X32_OLD ? X32_BIT : 0;
		/* 0 is a call in every table (read, restart_syscall, io_setup):
		 * absent table entries must not stand for it. */
		is_int(decide(SECCOMP_GROUPS_ALL, arch, base + 0, none), ALLOW,
		       "%s: call 0 -> ALLOW", abi_name(abi));
		is_int(decide(SECCOMP_GROUPS_ALL, arch, base + 1000, none), ALLOW,
		       "%s: call 1000 -> ALLOW", abi_name(abi));
	}
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		int known = 0;
		for (enum seccomp_abi abi = 0; abi < SCA_COUNT; abi++)
			known |= seccomp_abi_built(abi) && seccomp_abi_arch(abi) == foreign[i];
		if (known)
			continue;
		is_int(decide(SECCOMP_GROUPS_ALL, foreign[i], 39, none), KILL,
		       "arch 0x%08x (not in this build's filter) -> KILL_PROCESS", foreign[i]);
		is_int(decide(0, foreign[i], 0, none), KILL,
		       "arch 0x%08x, no groups -> KILL_PROCESS", foreign[i]);
	}
}

static void shape(void)
{
	struct sock_filter buf[SECCOMP_MAX_INSNS];
	size_t n;
	const struct sock_filter *all = program(SECCOMP_GROUPS_ALL, &n);
	ok(n > 0 && n <= SECCOMP_MAX_INSNS, "every group: %zu instructions (room for %d)", n,
	   SECCOMP_MAX_INSNS);
	size_t ja = 0, longest = 0;
	for (size_t i = 0; i < n; i++) {
		ja += all[i].code == (BPF_JMP | BPF_JA);
		if (all[i].code == (BPF_JMP | BPF_JA) && all[i].k > longest)
			longest = all[i].k;
	}
	ok(ja > 0 && longest > 255,
	   "blocks longer than a conditional jump reaches are skipped by BPF_JA (%zu, longest %zu)",
	   ja, longest);
	ok(n > 0 && all[n - 1].code == (BPF_RET | BPF_K) && all[n - 1].k == KILL,
	   "the program ends in KILL_PROCESS");
	is_int(seccomp_build(SECCOMP_GROUPS_ALL, buf, n), (long long)n, "it fits in exactly %zu",
	       n);
	is_int(seccomp_build(SECCOMP_GROUPS_ALL, buf, n - 1), -1, "one fewer: -1");
	is_int(seccomp_build(SECCOMP_GROUPS_ALL, buf, 3), -1, "3: -1");
	is_int(seccomp_build(SECCOMP_GROUPS_ALL, buf, 0), -1, "0: -1");
	const struct sock_fprog *p = seccomp_program();
	ok(p != NULL && p->len == n && memcmp(p->filter, all, n * sizeof(all[0])) == 0,
	   "seccomp_program() is the filter of every group");
	size_t n0;
	(void)program(0, &n0);
	ok(n0 > 0 && n0 < n, "no group: a filter of %zu (architecture checks only)", n0);

	struct linux_plan *plan = calloc(1, sizeof(*plan));
	struct run_spec run = { 0 }; /* no policy */
	struct run_result res = { 0 };
	if (plan == NULL)
		exit(2);
	is_int(seccomp_prepare(&run, &res, plan), 0, "seccomp_prepare");
	is_int(plan->seccomp_groups,
	       SCG_TERMINAL | SCG_SETID | SCG_KEYRINGS | SCG_IO_URING | SCG_PROCESSES,
	       "the child's groups without a PID namespace: terminal, setid, keyrings, io_uring, "
	       "processes");
	size_t np;
	const struct sock_filter *want = program(plan->seccomp_groups, &np);
	ok(plan->seccomp.len == np && plan->seccomp.filter == plan->seccomp_insns &&
		   memcmp(plan->seccomp_insns, want, np * sizeof(want[0])) == 0,
	   "the plan holds that filter");
	memset(plan, 0, sizeof(*plan));
	plan->pid_namespace = 1;
	is_int(seccomp_prepare(&run, &res, plan), 0, "seccomp_prepare, PID namespace");
	is_int(plan->seccomp_groups, SCG_TERMINAL | SCG_SETID | SCG_KEYRINGS | SCG_IO_URING,
	       "with a PID namespace: no processes group");
	/* The user namespace layer: by the filter where cordon makes no user
	 * namespace for the run (no mount layer, or root), else by the run's
	 * namespace's limit, never on the filter (cordon's own clone with
	 * CLONE_NEWUSER would meet it on the run's thread). */
	struct decision dec = { 0 };
	run.dec = &dec;
	dec.cov.layers = 1u << LAYER_USERNS;
	memset(plan, 0, sizeof(*plan));
	is_int(seccomp_prepare(&run, &res, plan), 0, "seccomp_prepare, user namespaces refused");
	ok(plan->seccomp_groups & SCG_USERNS, "... no mount layer: by the filter");
	dec.cov.layers = 1u << LAYER_USERNS | 1u << LAYER_MOUNTNS;
	memset(plan, 0, sizeof(*plan));
	is_int(seccomp_prepare(&run, &res, plan), 0, "seccomp_prepare, with the mount layer");
	is_int((plan->seccomp_groups & SCG_USERNS) != 0, geteuid() == 0,
	       "... with the mount layer: by the filter only as root (%s)",
	       geteuid() == 0 ? "no user namespace of cordon's" : "the run's namespace's limit");
	dec.cov.layers = 1u << LAYER_MOUNTNS;
	memset(plan, 0, sizeof(*plan));
	is_int(seccomp_prepare(&run, &res, plan), 0, "seccomp_prepare, user namespaces allowed");
	ok(!(plan->seccomp_groups & SCG_USERNS), "... --allow-userns: not by the filter");
	/* The layer's own: the limit asked of the mount layer, and the
	 * fallback filter (the user namespace rules alone) built whole. */
	struct mount_plan *m = calloc(1, sizeof(*m));
	memset(plan, 0, sizeof(*plan));
	plan->mount = m;
	size_t nu;
	const struct sock_filter *uw = program(SCG_USERNS, &nu);
	ok(m != NULL && userns_prepare(&run, &res, plan) == 0 && plan->userns_refused &&
		   m->limit_userns && plan->userns_filter.len == nu && nu > 0 &&
		   memcmp(plan->userns_insns, uw, nu * sizeof(uw[0])) == 0,
	   "userns_prepare: the namespace's limit asked, the fallback filter (%zu insns) built",
	   nu);
	free(m);
	free(plan);
}

/* ---- the numbers, against the installed UAPI headers ---- */

/* __NR_name in the header: >= 0; -1 when it has none; -2 when the header
 * cannot be read; -3 when the line is not understood. */
static long header_nr(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -2;
	char line[256];
	long nr = -1;
	size_t len = strlen(name);
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = line;
		if (strncmp(p, "#define __NR_", 13) != 0)
			continue;
		p += 13;
		if (strncmp(p, name, len) != 0 || (p[len] != ' ' && p[len] != '\t'))
			continue;
		long v;
		if (sscanf(p + len, " (__X32_SYSCALL_BIT + %ld)", &v) == 1)
			nr = X32_BIT + v;
		else if (sscanf(p + len, " %ld", &v) == 1)
			nr = v;
		else
			nr = -3;
		break;
	}
	fclose(f);
	return nr;
}

#define H64 "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
#define HX32 "/usr/include/x86_64-linux-gnu/asm/unistd_x32.h"
#define H32 "/usr/include/x86_64-linux-gnu/asm/unistd_32.h"
#define HGEN "/usr/include/asm-generic/unistd.h"

static const char *nr_text(long nr, char *buf, size_t n)
{
	if (nr >= X32_BIT)
		snprintf(buf, n, "x32 bit + %ld", nr - X32_BIT);
	else
		snprintf(buf, n, "%ld", nr);
	return buf;
}

static void numbers_of(enum seccomp_abi abi, const char *header, long base)
{
	if (access(header, R_OK) != 0) {
		char why[200];
		snprintf(why, sizeof(why), "%s numbers: %s is not installed", abi_name(abi),
			 header);
		skip(why);
		return;
	}
	for (size_t i = 0; seccomp_call_name(i) != NULL; i++) {
		const char *name = seccomp_call_name(i);
		long want = header_nr(header, name);
		long got = seccomp_abi_nr(abi, name);
		const char *note = "";
		if (want == -1 && strcmp(name, "fchmodat2") == 0) {
			want = base + FCHMODAT2_NR; /* these headers predate it (Linux 6.6) */
			note = " (not in these headers: 452)";
		}
		char g[32], w[32];
		ok(got == want, "%s %s: %s%s", abi_name(abi), name, nr_text(got, g, sizeof(g)),
		   note);
		if (got != want)
			diag("%s says %s", header, nr_text(want, w, sizeof(w)));
	}
}

/* x32's 512+ calls are also listed by their 64-bit numbers (with the x32
 * bit) for older kernels; no other call is. */
static void numbers_x32_old(void)
{
	if (access(H64, R_OK) != 0 || access(HX32, R_OK) != 0) {
		skip("x32 64-bit numbers: the x86 headers are not installed");
		return;
	}
	int n = 0;
	for (size_t i = 0; seccomp_call_name(i) != NULL; i++) {
		const char *name = seccomp_call_name(i);
		long x32 = header_nr(HX32, name), n64 = header_nr(H64, name);
		long want = x32 >= X32_BIT + 512 && n64 >= 0 ? X32_BIT + n64 : -1;
		long got = seccomp_abi_nr(SCA_X32_OLD, name);
		n += want >= 0;
		char g[32];
		ok(got == want, "%s %s: %s", abi_name(SCA_X32_OLD), name,
		   nr_text(got, g, sizeof(g)));
	}
	ok(n == 4,
	   "x32 has its own numbers for %d of the calls (ioctl, sendmsg, move_pages, sendmmsg)", n);
}

static void numbers(void)
{
	numbers_of(SCA_X86_64, H64, 0);
	numbers_of(SCA_X32, HX32, X32_BIT);
	numbers_x32_old();
	numbers_of(SCA_I386, H32, 0);
	numbers_of(SCA_AARCH64, HGEN, 0);
	/* No header to check arm against: its table (from the kernel's
	 * arch/arm/tools/syscall.tbl) must at least be whole. */
	for (size_t i = 0; seccomp_call_name(i) != NULL; i++) {
		const char *name = seccomp_call_name(i);
		long got = seccomp_abi_nr(SCA_ARM, name);
		int want_none = strcmp(name, "socketcall") == 0;
		ok(want_none ? got == -1 : got > 0, "arm %s: %ld%s", name, got,
		   want_none ? " (OABI only)" : "");
	}
	ok(seccomp_abi_arch(SCA_ARM) == AUDIT_ARCH_ARM &&
		   seccomp_abi_arch(SCA_I386) == AUDIT_ARCH_I386 &&
		   seccomp_abi_arch(SCA_AARCH64) == AUDIT_ARCH_AARCH64 &&
		   seccomp_abi_arch(SCA_X86_64) == AUDIT_ARCH_X86_64 &&
		   seccomp_abi_arch(SCA_X32) == AUDIT_ARCH_X86_64,
	   "audit architectures");
#if defined(__x86_64__)
	ok(seccomp_abi_built(SCA_X86_64) && seccomp_abi_built(SCA_X32) &&
		   seccomp_abi_built(SCA_I386) && !seccomp_abi_built(SCA_ARM),
	   "an x86-64 build filters x86-64, x32 and i386");
#elif defined(__aarch64__)
	ok(seccomp_abi_built(SCA_AARCH64) && seccomp_abi_built(SCA_ARM) &&
		   !seccomp_abi_built(SCA_X86_64),
	   "an arm64 build filters arm64 and arm");
#endif
}

/* ---- the kernel: the largest filter installed in forked children ---- */

struct kernel_result {
	int nnp; /* errno of PR_SET_NO_NEW_PRIVS */
	int install; /* errno of the install, 0 when it worked */
	int chmod_setuid, chmod_plain; /* errno or 0 */
	int open_setuid, open_plain;
	int fchmodat2_setuid, fchmodat2_plain;
	int keyctl;
	int prlimit_read;
	int listener; /* the fd, or -errno */
	int listener_cloexec;
	int notified_nr; /* the call the supervisor thread saw, or -1 */
	int connect_err; /* what connect got back (the thread's answer) */
	int sendto_plain; /* sendto without an address: bytes sent, or -errno */
};

static char tmpfile_path[64];

/* 0 for a call that succeeded (any result >= 0), else its errno. */
static int err_of(long r)
{
	return r >= 0 ? 0 : errno;
}

static void file_checks(struct kernel_result *r)
{
	char created[80];
	r->chmod_setuid = err_of(chmod(tmpfile_path, 04755));
	r->chmod_plain = err_of(chmod(tmpfile_path, 0755));
	snprintf(created, sizeof(created), "%s.new", tmpfile_path);
	int fd = open(created, O_CREAT | O_WRONLY | O_EXCL, 04755);
	r->open_setuid = fd >= 0 ? 0 : errno;
	if (fd >= 0)
		close(fd);
	fd = open(tmpfile_path, O_RDONLY, 04000);
	r->open_plain = fd >= 0 ? 0 : errno;
	if (fd >= 0)
		close(fd);
	r->fchmodat2_setuid = err_of(syscall(FCHMODAT2_NR, AT_FDCWD, tmpfile_path, 04755, 0));
	r->fchmodat2_plain = err_of(syscall(FCHMODAT2_NR, AT_FDCWD, tmpfile_path, 0700, 0));
	/* KEYCTL_GET_KEYRING_ID of KEY_SPEC_SESSION_KEYRING */
	r->keyctl = err_of(syscall(SYS_keyctl, 0, -3, 0));
	struct rlimit old;
	r->prlimit_read = err_of(prlimit(getppid(), RLIMIT_NOFILE, NULL, &old));
}

#if defined(SECCOMP_IOCTL_NOTIF_RECV)
static int listener_fd;
static int seen_nr = -1;

/* The supervisor: one notification, answered with EXDEV. */
static void *supervise(void *unused)
{
	(void)unused;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	memset(&req, 0, sizeof(req));
	if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return NULL;
	seen_nr = req.data.nr;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = -EXDEV;
	(void)ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	return NULL;
}
#endif

static void notify_checks(struct kernel_result *r)
{
	r->notified_nr = -1;
	r->connect_err = -1;
#if defined(SECCOMP_IOCTL_NOTIF_RECV)
	int sv[2];
	char c = 'x';
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
		return;
	ssize_t sent = sendto(sv[0], &c, 1, 0, NULL, 0);
	r->sendto_plain = sent >= 0 ? (int)sent : -errno;
	pthread_t t;
	listener_fd = r->listener;
	if (pthread_create(&t, NULL, supervise, NULL) != 0)
		return;
	struct sockaddr_un a;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s.sock", tmpfile_path);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	r->connect_err = connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
	pthread_join(t, NULL);
	r->notified_nr = seen_nr;
#endif
}

/* In a child: no_new_privs, the filter (by listener or not), the checks;
 * the results go back through a pipe. A USER_NOTIF nobody answers would
 * hang: the alarm ends that. */
static int kernel_child(const struct sock_fprog *prog, int listener, struct kernel_result *r)
{
	int p[2];
	memset(r, 0, sizeof(*r));
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(10);
		struct kernel_result k;
		memset(&k, 0, sizeof(k));
		k.nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno;
		if (k.nnp == 0 && prog != NULL && listener) {
			k.listener = seccomp_install_listener(prog);
			k.install = k.listener >= 0 ? 0 : -k.listener;
			k.listener_cloexec =
				k.listener >= 0 && (fcntl(k.listener, F_GETFD) & FD_CLOEXEC);
		} else if (k.nnp == 0 && prog != NULL) {
			struct linux_trial t;
			memset(&t, 0, sizeof(t));
			t.seccomp = prog;
			k.install = seccomp_trial(&t);
		} else if (k.nnp == 0) {
			/* Allow everything: is seccomp there at all? */
			struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
			struct sock_fprog trivial = { 1, &allow };
			k.install = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &trivial, 0, 0) == 0
					    ? 0
					    : errno;
		}
		if (k.nnp == 0 && k.install == 0 && prog != NULL) {
			file_checks(&k);
			if (listener)
				notify_checks(&k);
		}
		_exit(write(p[1], &k, sizeof(k)) == (ssize_t)sizeof(k) ? 0 : 1);
	}
	close(p[1]);
	ssize_t got = pid > 0 ? read(p[0], r, sizeof(*r)) : -1;
	close(p[0]);
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	return got == (ssize_t)sizeof(*r) && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void expect_errno(int got, int want, const char *what)
{
	ok(got == want, "%s: %s", what, want ? strerror(want) : "succeeds");
	if (got != want)
		diag("got %s", got ? strerror(got) : "success");
}

static void kernel(void)
{
	struct kernel_result r;
	const struct sock_fprog *prog = seccomp_program();
	if (prog == NULL) {
		skip("no seccomp table for this architecture");
		return;
	}
	if (kernel_child(NULL, 0, &r) != 0) {
		ok(0, "the trivial filter's child reported back");
		return;
	}
	if (r.nnp != 0 || r.install != 0) {
		char why[160];
		snprintf(why, sizeof(why), "seccomp filters are unavailable here (%s: %s)",
			 r.nnp ? "PR_SET_NO_NEW_PRIVS" : "PR_SET_SECCOMP",
			 strerror(r.nnp ? r.nnp : r.install));
		skip(why);
		return;
	}
	int fd = -1;
	snprintf(tmpfile_path, sizeof(tmpfile_path), "/tmp/cordon-test-seccomp-XXXXXX");
	fd = mkstemp(tmpfile_path);
	if (fd < 0) {
		ok(0, "a temporary file");
		return;
	}
	close(fd);
	char created[80];
	snprintf(created, sizeof(created), "%s.new", tmpfile_path);

	/* Control: the same checks without a filter would succeed. */
	is_int(chmod(tmpfile_path, 04755), 0, "control: chmod 04755 works without the filter");

	for (int listener = 0; listener < 2; listener++) {
		const char *how = listener ? "seccomp_install_listener" : "seccomp_trial";
		unlink(created);
		chmod(tmpfile_path, 0600);
		if (kernel_child(prog, listener, &r) != 0) {
			ok(0, "%s: the child reported back", how);
			continue;
		}
		char what[120];
		snprintf(what, sizeof(what), "%s: the kernel takes the largest filter (%u insns)",
			 how, prog->len);
		/* seccomp(2) came in Linux 3.17; valgrind 3.19 does not know it. */
		if (listener && r.install == ENOSYS) {
			skip("seccomp(2) is not available here (ENOSYS)");
			continue;
		}
		expect_errno(r.install, 0, what);
		if (r.install != 0)
			continue;
		struct stat st;
		snprintf(what, sizeof(what), "%s: chmod 04755", how);
		expect_errno(r.chmod_setuid, EPERM, what);
		snprintf(what, sizeof(what), "%s: chmod 0755", how);
		expect_errno(r.chmod_plain, 0, what);
		ok(stat(tmpfile_path, &st) == 0 && (st.st_mode & 06000) == 0,
		   "%s: the file never became setuid", how);
		snprintf(what, sizeof(what), "%s: open O_CREAT 04755", how);
		expect_errno(r.open_setuid, EPERM, what);
		ok(access(created, F_OK) != 0, "%s: ... and no file was made", how);
		snprintf(what, sizeof(what), "%s: open without O_CREAT, mode 04000", how);
		expect_errno(r.open_plain, 0, what);
		/* Kernels before 6.6 have no fchmodat2, but the filter answers
		 * first. A call that never reaches the kernel (valgrind 3.19
		 * does not know it) cannot be checked. */
		snprintf(what, sizeof(what), "%s: fchmodat2 04755", how);
		if (r.fchmodat2_setuid == ENOSYS && r.fchmodat2_plain == ENOSYS)
			skip("fchmodat2 does not reach the kernel here (ENOSYS either way)");
		else
			expect_errno(r.fchmodat2_setuid, EPERM, what);
		ok(r.fchmodat2_plain == 0 || r.fchmodat2_plain == ENOSYS, "%s: fchmodat2 0700: %s",
		   how, r.fchmodat2_plain ? strerror(r.fchmodat2_plain) : "succeeds");
		snprintf(what, sizeof(what), "%s: keyctl", how);
		expect_errno(r.keyctl, EPERM, what);
		snprintf(what, sizeof(what), "%s: prlimit of the parent, reading only", how);
		expect_errno(r.prlimit_read, 0, what);
		if (!listener)
			continue;
		ok(r.listener >= 0, "seccomp_install_listener returns the listener fd (%d)",
		   r.listener);
		ok(r.listener_cloexec, "... close-on-exec");
#if defined(SECCOMP_IOCTL_NOTIF_RECV)
		is_int(r.sendto_plain, 1, "listener: sendto without an address is not notified");
		is_int(r.notified_nr, SYS_connect, "listener: connect reaches the supervisor");
		expect_errno(r.connect_err, EXDEV,
			     "listener: connect gets the supervisor's answer");
#else
		skip("these headers have no SECCOMP_IOCTL_NOTIF_RECV");
#endif
	}
	unlink(created);
	unlink(tmpfile_path);
}

int main(void)
{
	rule_cases();
	net_groups();
	other_decisions();
	shape();
	numbers();
	kernel();
	return done_testing();
}

#else
int main(void)
{
	skip("not Linux: no seccomp layer");
	return done_testing();
}
#endif
