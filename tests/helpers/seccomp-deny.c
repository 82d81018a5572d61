/*
 * seccomp-deny MODE -- COMMAND [ARG...]
 *
 * Runs COMMAND under a seccomp filter that makes the Landlock system calls
 * fail, as a kernel or container without Landlock would:
 *   enosys      all three calls fail with ENOSYS     (not built in)
 *   eopnotsupp  all three calls fail with EOPNOTSUPP (disabled at boot)
 *   eperm       landlock_restrict_self fails with EPERM (blocked)
 *   nons        namespaces cannot be made: unshare(2) and clone(2) with any
 *               CLONE_NEW* flag fail with EPERM, clone3(2) with ENOSYS (so
 *               libc falls back to clone), as in a container that forbids
 *               user namespaces
 *   nomountns   mount namespaces cannot be made: unshare(2) and clone(2)
 *               with CLONE_NEWNS fail with EPERM, clone3(2) with ENOSYS;
 *               a user namespace alone still can be made (cordon has no
 *               mount layer, the command could make its own)
 *   noseccomp   installing a seccomp filter fails with EINVAL (prctl
 *               PR_SET_SECCOMP and seccomp(2)), as on a kernel without
 *               CONFIG_SECCOMP_FILTER
 *   noexecveat  execveat(2) fails with EPERM, as where a security policy
 *               refuses to run a program from a memfd: cordon's init
 *               program cannot start
 *   killmount   mount(2) kills the process (SIGSYS), as systemd's
 *               SystemCallFilter= does by default: a child that tries the
 *               mount layer dies
 *   nokeys      add_key(2), request_key(2) and keyctl(2) fail with EPERM,
 *               as Docker's default seccomp profile has them
 *   nocapset    capset(2) fails with EPERM, as where a security policy
 *               refuses it: root's capabilities cannot be reduced
 *   nomountapi  open_tree(2) and move_mount(2) fail with EPERM, as where a
 *               security policy knows only mount(2): the private /tmp
 *               cannot be made
 * Test helper only.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp-deny: add this architecture"
#endif

/* Every filter: this architecture only, then the system call number. */
#define PROLOGUE                                                                 \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),                 \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),             \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

#define NR_OPEN_TREE 428 /* the same number on every architecture */
#define NR_MOVE_MOUNT 429
#define NR_CREATE 444
#define NR_ADD 445
#define NR_RESTRICT 446

int main(int argc, char *argv[])
{
	unsigned first = NR_CREATE, err;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr,
			"usage: seccomp-deny enosys|eopnotsupp|eperm|nons|nomountns|noseccomp|noexecveat|"
			"killmount|nokeys|"
			"nocapset|nomountapi -- "
			"COMMAND...\n");
		return 2;
	}
	/* All CLONE_NEW* flags. */
	const unsigned ns_flags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |
				  CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP;
	struct sock_filter nons[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 5, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* unshare(flags) and clone(flags, ...): flags in the low word of arg 0 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, ns_flags, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_filter nomountns[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 5, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWNS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_filter noseccomp[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
	};
	struct sock_filter noexecveat[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter killmount[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter nokeys[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_add_key, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_request_key, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_filter nocapset[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_capset, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter nomountapi[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_OPEN_TREE, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_MOVE_MOUNT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { 0, NULL };
	if (strcmp(argv[1], "nons") == 0) {
		p.len = (unsigned short)(sizeof(nons) / sizeof(nons[0]));
		p.filter = nons;
	} else if (strcmp(argv[1], "nomountns") == 0) {
		p.len = (unsigned short)(sizeof(nomountns) / sizeof(nomountns[0]));
		p.filter = nomountns;
	} else if (strcmp(argv[1], "noseccomp") == 0) {
		p.len = (unsigned short)(sizeof(noseccomp) / sizeof(noseccomp[0]));
		p.filter = noseccomp;
	} else if (strcmp(argv[1], "killmount") == 0) {
		p.len = (unsigned short)(sizeof(killmount) / sizeof(killmount[0]));
		p.filter = killmount;
	} else if (strcmp(argv[1], "noexecveat") == 0) {
		p.len = (unsigned short)(sizeof(noexecveat) / sizeof(noexecveat[0]));
		p.filter = noexecveat;
	} else if (strcmp(argv[1], "nokeys") == 0) {
		p.len = (unsigned short)(sizeof(nokeys) / sizeof(nokeys[0]));
		p.filter = nokeys;
	} else if (strcmp(argv[1], "nocapset") == 0) {
		p.len = (unsigned short)(sizeof(nocapset) / sizeof(nocapset[0]));
		p.filter = nocapset;
	} else if (strcmp(argv[1], "nomountapi") == 0) {
		p.len = (unsigned short)(sizeof(nomountapi) / sizeof(nomountapi[0]));
		p.filter = nomountapi;
	}
	if (p.filter != NULL) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p) != 0) {
			perror("seccomp-deny");
			return 2;
		}
		execvp(argv[3], argv + 3);
		perror("seccomp-deny: exec");
		return 127;
	}
	if (strcmp(argv[1], "enosys") == 0) {
		err = ENOSYS;
	} else if (strcmp(argv[1], "eopnotsupp") == 0) {
		err = EOPNOTSUPP;
	} else if (strcmp(argv[1], "eperm") == 0) {
		err = EPERM;
		first = NR_RESTRICT;
	} else {
		fprintf(stderr, "seccomp-deny: unknown mode %s\n", argv[1]);
		return 2;
	}
	struct sock_filter f[] = {
		PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, first, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, NR_RESTRICT, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("seccomp-deny");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("seccomp-deny: exec");
	return 127;
}
