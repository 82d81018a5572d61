/*
 * Test-only hooks of the library. Not part of the API: they are not in
 * include/cordon.h nor in cordon.map, so libcordon.so does not export
 * them and libcordon.a holds them as local symbols (make symbols-check
 * proves both). The unit tests reach them through libcordon-internal.a;
 * cordon(1) links a copy of the library object that keeps them global,
 * for its undocumented --test-max-abi; tests/helpers/cordon-first-child.c
 * is the CLI with the first-child trial set. Both can only weaken what
 * cordon applies or change when it finds out, never widen a permission
 * silently: the ABI in use and the gaps are in the status event.
 */
#ifndef CORDON_TESTHOOKS_H
#define CORDON_TESTHOOKS_H

#include "cordon.h"

/* Use at most this Landlock ABI version (0: no cap), to show the
 * behaviour of older kernels on a newer one. 0 or CORDON_EINVAL (abi < 0),
 * like a setter: only before cordon_begin(). */
int cordon_test_set_max_abi(cordon *c, int abi);

/* Linux: on (non-zero), ignore the hint that a refusal is likely (a
 * seccomp filter on the process, user namespaces off by sysctl), so the
 * first child of a run is always the trial and meets a refusal itself.
 * For the whole process; call it before the first cordon_begin() or
 * cordon_probe(). */
void cordon_test_first_child_trial(int on);

/* Linux: on (non-zero), the spawn that makes a run's namespaces returns
 * only once its command has ended (its process 1 gone, not reaped): the
 * widest window for a quick first command, so that what the run keeps
 * of that spawn must have been taken before its command could end. For
 * the whole process; only for commands that end by themselves. */
void cordon_test_first_spawn_waits_end(int on);

#endif
