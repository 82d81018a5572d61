/*
 * cordon-init: process 1 of a run's PID namespace (Linux).
 *
 * The library embeds this program (built static, without libc) and the
 * run's first process execs it, from a memfd, once it has started the
 * command as its child. It then only waits:
 *
 *   - it reaps every process of the namespace that ends (orphans are
 *     re-parented to it), so no zombie piles up;
 *   - when the command stops (Ctrl-Z), it says so on the status fd, so
 *     that cordon can stop too, as a shell's job would;
 *   - when the command ends, it writes the command's wait status on the
 *     status fd and exits, which ends the namespace: the kernel then
 *     kills every other process of it (SIGKILL, whatever its uid) and
 *     waits for them before process 1 is gone. (A kill(-1) of its own
 *     would skip processes of another uid, which a root command may
 *     start, since it has no CAP_KILL; waiting for them would never
 *     end.)
 *
 * It holds every signal blocked: process 1 ignores signals it has no
 * handler for, and a blocked signal merely stays pending, so the
 * command's process group may be signalled as a whole (cordon's
 * forwarding, the terminal's Ctrl-C) without disturbing it; it sleeps in
 * wait4(), which no blocked signal interrupts. Its parent death signal
 * (SIGKILL, set before the exec and kept across it) ends the namespace
 * when cordon dies.
 *
 *   cordon-init COMMAND-PID STATUS-FD    as process 1
 *   cordon-init t                        the probe's trial: exit 0
 *
 * Status records, 8 bytes each: "S" + pad + int32 signal (stopped), or
 * "X" + pad + int32 wait status (ended).
 *
 * Everything here is a raw system call: no libc, no errno, no heap.
 */

typedef unsigned long u64;
typedef long s64;

#if defined(__x86_64__)
#define NR_write 1
#define NR_close 3
#define NR_rt_sigprocmask 14
#define NR_wait4 61
#define NR_exit_group 231
#define NR_prctl 157

static s64 sys6(s64 n, s64 a, s64 b, s64 c, s64 d, s64 e, s64 f)
{
	s64 ret;
	register s64 r10 __asm__("r10") = d;
	register s64 r8 __asm__("r8") = e;
	register s64 r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The kernel enters at _start with the stack pointer on argc. */
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call init_main\n"
	"	hlt\n");

#elif defined(__aarch64__)
#define NR_write 64
#define NR_close 57
#define NR_rt_sigprocmask 135
#define NR_wait4 260
#define NR_exit_group 94
#define NR_prctl 167

static s64 sys6(s64 n, s64 a, s64 b, s64 c, s64 d, s64 e, s64 f)
{
	register s64 x8 __asm__("x8") = n;
	register s64 x0 __asm__("x0") = a;
	register s64 x1 __asm__("x1") = b;
	register s64 x2 __asm__("x2") = c;
	register s64 x3 __asm__("x3") = d;
	register s64 x4 __asm__("x4") = e;
	register s64 x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	and sp, x0, #-16\n"
	"	bl init_main\n"
	"	brk #0\n");

#else
#error "cordon-init has no system call table for this architecture"
#endif

#define PR_SET_DUMPABLE 4
#define SIG_SETMASK 2
#define WUNTRACED 2
#define WALL 0x40000000
#define EINTR 4

void init_main(s64 *sp) __attribute__((noreturn, used));

static __attribute__((noreturn)) void quit(int code)
{
	for (;;)
		sys6(NR_exit_group, code, 0, 0, 0, 0, 0);
}

static int number(const char *s, s64 *out)
{
	s64 v = 0;
	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

static void record(int fd, char kind, int value)
{
	char buf[8] = { kind, 0, 0, 0 };
	unsigned v = (unsigned)value;
	/* Native byte order: the reader is cordon on the same machine. */
	for (int i = 0; i < 4; i++)
		buf[4 + i] = ((const char *)&v)[i];
	while (sys6(NR_write, fd, (s64)buf, 8, 0, 0, 0) == -EINTR)
		;
}

void init_main(s64 *sp)
{
	s64 argc = sp[0];
	char **argv = (char **)(sp + 1);
	s64 cmd, fd;
	u64 all = ~0UL;

	if (argc == 2 && argv[1][0] == 't' && argv[1][1] == '\0')
		quit(0);
	if (argc != 3 || number(argv[1], &cmd) != 0 || number(argv[2], &fd) != 0)
		quit(125);
	sys6(NR_rt_sigprocmask, SIG_SETMASK, (s64)&all, 0, 8, 0, 0);
	/* Not dumpable: no ptrace, and no /proc/1/fd, mem or environ, for
	 * anything without CAP_SYS_PTRACE (the command is also in a nested
	 * Landlock domain, which refuses both already). */
	sys6(NR_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0);
	/* Nothing of the command's is held here but the status fd. */
	for (int i = 0; i < 3; i++)
		if (i != fd)
			sys6(NR_close, i, 0, 0, 0, 0, 0);

	int status = 125 << 8;
	for (;;) {
		int st = 0;
		s64 pid = sys6(NR_wait4, -1, (s64)&st, WUNTRACED | WALL, 0, 0, 0);
		if (pid == -EINTR)
			continue;
		if (pid < 0) /* ECHILD: the command is gone unseen; cannot be */
			break;
		if (pid != cmd)
			continue; /* an orphan, reaped */
		if ((st & 0xff) == 0x7f) { /* stopped */
			record((int)fd, 'S', (st >> 8) & 0xff);
			continue;
		}
		status = st;
		break;
	}
	/* The run ends with its command: nothing of it may stay behind.
	 * Process 1's exit ends the namespace; the kernel kills and reaps
	 * the rest before this process is reaped. */
	record((int)fd, 'X', status);
	quit(0);
}
