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

int main(void)
{
	test_options();
	return done_testing();
}

#else
int main(void)
{
	skip("the scratch home is Linux only");
	return done_testing();
}
#endif
