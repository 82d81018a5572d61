/*
 * The caller's terminal's number (src/linux/layer-devpts.c, the pure part):
 * only a name "/dev/pts/N" whose device is that pty's slave is taken,
 * so the child binds nothing but the caller's own node at its own number.
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

static void test_number(void)
{
	is_int(devpts_tty_number("/dev/pts/0", 136, 0), 0, "/dev/pts/0");
	is_int(devpts_tty_number("/dev/pts/7", 136, 7), 7, "/dev/pts/7");
	is_int(devpts_tty_number("/dev/pts/300", 137, 44), 300, "past 255: the next major");
	is_int(devpts_tty_number("/dev/pts/2047", 143, 255), 2047, "the last slave major");
	is_int(devpts_tty_number("/dev/pts/7", 136, 8), -1, "another pty's device: refused");
	is_int(devpts_tty_number("/dev/pts/7", 4, 7), -1, "a virtual console's device: refused");
	is_int(devpts_tty_number("/dev/pts/7", 128, 7), -1, "a pty master's major: refused");
	is_int(devpts_tty_number("/dev/pts/07", 136, 7), -1, "a leading zero: refused");
	is_int(devpts_tty_number("/dev/pts/", 136, 0), -1, "no number");
	is_int(devpts_tty_number("/dev/pts/ptmx", 5, 2), -1, "ptmx");
	is_int(devpts_tty_number("/dev/pts/1/x", 136, 1), -1, "a path below a number");
	is_int(devpts_tty_number("/dev/pts/-1", 136, 1), -1, "a sign");
	is_int(devpts_tty_number("/dev/console", 136, 1), -1, "another name");
	is_int(devpts_tty_number("/x/dev/pts/1", 136, 1), -1, "a prefix");
	is_int(devpts_tty_number("/dev/pts/99999999999999999999", 136, 1), -1,
	       "a number too long: refused, no overflow");
}

int main(void)
{
	test_number();
	return done_testing();
}

#else
int main(void)
{
	skip("devpts is Linux only");
	return done_testing();
}
#endif
