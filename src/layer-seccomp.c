/*
 * seccomp layer (the last entry of the Linux layer table): a short list
 * of denied system call uses, compiled to a classic BPF filter once per
 * process and installed in the child after PR_SET_NO_NEW_PRIVS, as the
 * last step before exec.
 *
 * Today the list denies pushing input into a terminal: a confined command
 * holding the caller's terminal could otherwise queue keystrokes that the
 * caller's shell runs after cordon exits (TIOCSTI, bubblewrap's
 * CVE-2017-5226; TIOCLINUX's selection paste does the same on a virtual
 * console).
 *
 * Arguments are compared on their low 32 bits only: the kernel's ioctl
 * takes an unsigned int request, so a request with high bits set still
 * reaches TIOCSTI and a 64-bit compare would be bypassed
 * (CVE-2019-10063). Every architecture a process can call in (x86-64,
 * x32 and i386 on an x86-64 kernel; arm64 and arm on an arm64 kernel) gets
 * its own syscall numbers; on an architecture without a table the layer is
 * not applied and the status event says so.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>

enum sc_call { SC_IOCTL, SC_COUNT };

struct sc_rule {
	enum sc_call call;
	unsigned arg; /* argument index */
	uint32_t value; /* compared with the argument's low 32 bits */
	int err; /* errno returned instead of running the call */
};

/* The rules, reviewable as a list. */
static const struct sc_rule rules[] = {
	{ SC_IOCTL, 1, TIOCSTI, EPERM },
	{ SC_IOCTL, 1, TIOCLINUX, EPERM },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

struct sc_abi {
	uint32_t audit_arch;
	uint32_t nr[SC_COUNT];
};

#define X32_BIT 0x40000000u
static const struct sc_abi abis[] = {
#if defined(__x86_64__)
	{ AUDIT_ARCH_X86_64, { [SC_IOCTL] = 16 } },
	{ AUDIT_ARCH_X86_64, { [SC_IOCTL] = X32_BIT | 514 } }, /* x32 */
	{ AUDIT_ARCH_X86_64, { [SC_IOCTL] = X32_BIT | 16 } },
	{ AUDIT_ARCH_I386, { [SC_IOCTL] = 54 } },
#elif defined(__aarch64__)
	{ AUDIT_ARCH_AARCH64, { [SC_IOCTL] = 29 } },
	{ AUDIT_ARCH_ARM, { [SC_IOCTL] = 54 } },
#endif
	{ 0, { 0 } } /* end */
};

/* Offset of the low 32 bits of argument i (little-endian). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (size_t)(i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + sizeof(uint64_t) * (size_t)(i) + 4)
#endif

#define MAX_INSNS 128
static struct sock_filter insns[MAX_INSNS];
static struct sock_fprog program;
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

static size_t rules_for(enum sc_call call)
{
	size_t n = 0;
	for (size_t r = 0; r < NRULES; r++)
		n += rules[r].call == call;
	return n;
}

/*
 * For each ABI entry:
 *   jeq arch ? next : skip-entry
 *   ld nr
 *   for each call: jeq nr ? next : skip-call
 *                  per rule: ld arg-low; jeq value ? next : skip; ret errno
 *                  ret allow
 *   ld arch (the accumulator was overwritten)
 * then: ret allow.
 */
static void build(void)
{
	size_t k = 0;
	insns[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, arch));
	for (size_t a = 0; abis[a].audit_arch != 0; a++) {
		size_t body = 2; /* ld nr ... ld arch */
		for (int c = 0; c < SC_COUNT; c++)
			body += 2 + 3 * rules_for((enum sc_call)c);
		if (k + 1 + body + 1 > MAX_INSNS)
			return; /* never with this table; program stays empty */
		insns[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							  abis[a].audit_arch, 0, (uint8_t)body);
		insns[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							  offsetof(struct seccomp_data, nr));
		for (int c = 0; c < SC_COUNT; c++) {
			size_t n = rules_for((enum sc_call)c);
			insns[k++] = (struct sock_filter)BPF_JUMP(
				BPF_JMP | BPF_JEQ | BPF_K, abis[a].nr[c], 0, (uint8_t)(3 * n + 1));
			for (size_t r = 0; r < NRULES; r++) {
				if (rules[r].call != (enum sc_call)c)
					continue;
				insns[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
									  ARG_LO(rules[r].arg));
				insns[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
									  rules[r].value, 0, 1);
				insns[k++] = (struct sock_filter)BPF_STMT(
					BPF_RET | BPF_K,
					SECCOMP_RET_ERRNO |
						((uint32_t)rules[r].err & SECCOMP_RET_DATA));
			}
			insns[k++] =
				(struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		}
		insns[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							  offsetof(struct seccomp_data, arch));
	}
	insns[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	if (abis[0].audit_arch == 0)
		return; /* no table for this architecture */
	program.len = (unsigned short)k;
	program.filter = insns;
}

const void *seccomp_program(void)
{
	(void)pthread_once(&build_once, build);
	return program.len > 0 ? &program : NULL;
}

static int install(const void *prog)
{
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) != 0)
		return errno;
	return 0;
}

/* After no_new_privs (the trial's earlier layer set it). */
int seccomp_trial(const struct linux_trial *t)
{
	return t->seccomp != NULL ? install(t->seccomp) : ENOSYS;
}

int seccomp_prepare(cordon *c, const struct policy *p, const struct decision *d,
		    struct linux_plan *plan)
{
	(void)c;
	(void)p;
	(void)d;
	plan->seccomp = seccomp_program();
	return 0;
}

int seccomp_apply(const struct linux_plan *plan)
{
	return plan->seccomp != NULL ? install(plan->seccomp) : 0;
}

#else
typedef int cordon_no_seccomp_here;
#endif
