/*
 * The devpts layer (after the mount layer, in its namespace, never the
 * caller's): /dev/pts is a devpts instance of the command's own.
 */
#include "linux-layers.h"

#if defined(__linux__)

#include <errno.h>
#include <sys/mount.h>

/* A devpts instance of the command's own on /dev/pts, and its ptmx as
 * /dev/ptmx: script, expect and pty-using tests make their own ptys,
 * and no other terminal of the machine is there to write to. */
static int private_devpts(void)
{
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=0620") != 0)
		return errno;
	if (mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) != 0)
		return errno;
	return 0;
}

int devpts_trial(const struct linux_trial *t)
{
	if (!(t->passed & (1u << LAYER_MOUNTNS)))
		return EINVAL;
	return private_devpts();
}

int devpts_prepare(cordon *c, const struct policy *p, const struct decision *d,
		   struct linux_plan *plan)
{
	(void)c;
	(void)p;
	(void)d;
	plan->devpts = 1;
	return 0;
}

/* After the mount layer, in its namespace (never the caller's). */
int devpts_apply(const struct linux_plan *plan)
{
	if (plan->mount == NULL)
		return EINVAL;
	return private_devpts();
}

#else
typedef int cordon_no_devpts_here;
#endif
