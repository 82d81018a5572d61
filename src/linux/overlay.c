/*
 * Overlays the mount layer makes over a real tree whose writes are held
 * under the state dir (--review's workspace, layer-review.c), and the
 * option text every overlay of the mount layer is built with (the
 * scratch home's too, layer-scratchhome.c).
 *
 * A held overlay, in the command's mount namespace:
 *
 *   lower  the real tree itself (overlayfs never writes a lower layer);
 *   upper  RUNDIR/sK/upper, its work dir RUNDIR/sK/work beside it: K is
 *          the first number free, made by the child itself, so two mount
 *          namespaces of one run (a spawn that could not join the run's)
 *          never share an upper dir, which overlayfs leaves undefined.
 *
 * The state dir is read-only in the namespace, and overlayfs refuses an
 * upper dir on a read-only mount, so RUNDIR is bound onto itself
 * read-write for a moment: the child makes sK, sK/upper (with the tree's
 * own mode and owner: it is the overlay's root) and sK/work, mounts the
 * overlay with its upper and work dirs named relative to sK, and
 * unmounts the bind again (the overlay keeps a private clone of its upper
 * mount): the command never reaches the state dir.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OVL_SYS_mount_setattr 442
#define OVL_MOUNT_ATTR_RDONLY 0x00000001ULL

struct ovl_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int ovl_put_escaped(char *out, size_t size, size_t *at, const char *s)
{
	for (; *s != '\0'; s++) {
		int esc = *s == ',' || *s == ':' || *s == '\\';
		if (*at + (size_t)esc + 2 > size)
			return -1;
		if (esc)
			out[(*at)++] = '\\';
		out[(*at)++] = *s;
	}
	out[*at] = '\0';
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int ovl_put(char *out, size_t size, size_t *at, const char *s)
{
	size_t n = strlen(s);
	if (*at + n + 1 > size)
		return -1;
	memcpy(out + *at, s, n + 1);
	*at += n;
	return 0;
}

/* The first free "sK" in the cwd, made: 0 or errno. name: 16 bytes. */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int make_slot(char *name)
{
	for (unsigned k = 0; k < 100000; k++) {
		char digits[8];
		size_t n = 0;
		unsigned v = k;
		do
			digits[n++] = (char)('0' + v % 10);
		while ((v /= 10) != 0);
		name[0] = 's';
		for (size_t i = 0; i < n; i++)
			name[1 + i] = digits[n - 1 - i];
		name[1 + n] = '\0';
		if (mkdir(name, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return errno;
	}
	return EMLINK;
}

/* In a slot of the cwd (RUNDIR, bound read-write). */
/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
static int mount_in_slot(const struct ovl_held *o)
{
	char slot[16];
	int e = make_slot(slot);
	if (e != 0)
		return e;
	if (chdir(slot) != 0 || mkdir("upper", 0700) != 0 || mkdir("work", 0700) != 0 ||
	    chmod("upper", o->mode) != 0)
		return errno;
	/* The overlay's root is the upper dir: the tree's owner where it
	 * can be set (root's run of another user's tree), else the
	 * command's own. */
	if (chown("upper", o->uid, o->gid) != 0 && errno != EPERM && errno != EINVAL)
		return errno;
	if (mount("cordon-held", o->target, "overlay", MS_NOSUID | MS_NODEV, o->opts) != 0)
		return errno;
	return 0;
}

/* CHILD: runs in the CLONE_VM child: no allocation, no locks, no stdio */
int ovl_held_mount(const struct ovl_held *o)
{
	struct ovl_mount_attr rw = { 0, OVL_MOUNT_ATTR_RDONLY, 0, 0 };
	int back = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (back < 0)
		return errno;
	int e = 0, bound = mount(o->rundir, o->rundir, NULL, MS_BIND, NULL) == 0;
	if (!bound ||
	    syscall(OVL_SYS_mount_setattr, AT_FDCWD, o->rundir, 0, &rw, sizeof(rw)) != 0 ||
	    chdir(o->rundir) != 0)
		e = errno;
	if (e == 0)
		e = mount_in_slot(o);
	if (fchdir(back) != 0 && e == 0)
		e = errno;
	if (bound && umount2(o->rundir, MNT_DETACH) != 0 && e == 0)
		e = errno;
	close(back);
	return e;
}

#else
typedef int cordon_no_overlay_here;
#endif
