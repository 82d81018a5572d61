/*
 * tiocsti [high]: try to push one byte into the terminal on fd 0 with
 * TIOCSTI, as an attacker inside a sandbox would to type commands into the
 * caller's shell. "high" sets bits above 32 in the request: the kernel
 * ignores them, so a seccomp filter comparing all 64 bits would let it
 * through (CVE-2019-10063). Prints "injected" (exit 0) or
 * "refused: ERRNO" (exit 1). Test helper only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	char c = '#';
	unsigned long req = TIOCSTI;
	if (argc > 1 && strcmp(argv[1], "high") == 0)
		req |= 0xdeadbeef00000000UL;
	if (syscall(SYS_ioctl, 0, req, &c) == 0) {
		printf("injected\n");
		return 0;
	}
	printf("refused: %s\n", strerror(errno));
	return 1;
}
