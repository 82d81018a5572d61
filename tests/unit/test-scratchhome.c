/*
 * The scratch home's overlay options (src/linux/layer-scratchhome.c, the pure
 * part): the home is escaped so that no path can add an option or a
 * lower layer, userxattr in a user namespace, and options that would not
 * fit are refused, never cut.
 */
#include "linux-layers.h"
#include "tap.h"

#if defined(__linux__)

#include <string.h>

static void test_options(void)
{
	char out[4096];
	is_int(scratchhome_options("/home/u", 0, out, sizeof(out)), 0, "a plain home");
	is_str(out, "lowerdir=/home/u,upperdir=upper,workdir=work", "root: no userxattr");
	is_int(scratchhome_options("/home/u", 1, out, sizeof(out)), 0, "in a user namespace");
	is_str(out, "lowerdir=/home/u,upperdir=upper,workdir=work,userxattr",
	       "a user namespace: userxattr (the metadata in user.overlay.* xattrs)");
	is_int(scratchhome_options("/h/a,upperdir=/x:/y\\z", 0, out, sizeof(out)), 0,
	       "a home with , : and \\");
	is_str(out, "lowerdir=/h/a\\,upperdir=/x\\:/y\\\\z,upperdir=upper,workdir=work",
	       "',', ':' and '\\' are escaped: no option or layer of the path's own");

	char small[48];
	is_int(scratchhome_options("/home/u", 1, small, sizeof(small)), -1,
	       "options that do not fit: refused");
	char exact[sizeof("lowerdir=/h,upperdir=upper,workdir=work")];
	is_int(scratchhome_options("/h", 0, exact, sizeof(exact)), 0, "options that just fit");
	is_int(scratchhome_options("/h,", 0, exact, sizeof(exact)), -1,
	       "one escaped byte more: refused");
	static char longhome[4200];
	longhome[0] = '/';
	memset(longhome + 1, 'a', sizeof(longhome) - 2);
	is_int(scratchhome_options(longhome, 0, out, sizeof(out)), -1,
	       "a home longer than a page of options: refused");
}

/* The mount points of /proc/self/mountinfo lines: what the check of
 * mounts below a home reads (a run in a user namespace cannot overlay a
 * home with one: the kernel refuses locked mounts below a lower layer). */
static void test_mount_point(void)
{
	char out[64];
	is_int(scratchhome_mount_point("36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 "
				       "/dev/root rw,errors=continue\n",
				       out, sizeof(out)),
	       0, "a mountinfo line");
	is_str(out, "/mnt/parent", "its fifth field is the mount point");
	is_int(scratchhome_mount_point("40 1 0:40 / /home/u/my\\040dir\\011x\\134y rw - tmpfs t rw",
				       out, sizeof(out)),
	       0, "escaped bytes");
	is_str(out, "/home/u/my dir\tx\\y", "\\040, \\011 and \\134 decoded");
	is_int(scratchhome_mount_point("40 1 0:40 /", out, sizeof(out)), -1, "a cut line: none");
	char small[8];
	is_int(scratchhome_mount_point("1 2 3:4 / /home/user/x rw - t t rw", small, sizeof(small)),
	       -1, "a mount point that does not fit: none, never cut");
	is_int(scratchhome_mount_point("1 2 3:4 / rel rw - t t rw", out, sizeof(out)), -1,
	       "a mount point that is not absolute: none");
}

int main(void)
{
	test_options();
	test_mount_point();
	return done_testing();
}

#else
int main(void)
{
	skip("the scratch home is Linux only");
	return done_testing();
}
#endif
