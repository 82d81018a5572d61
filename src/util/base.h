/*
 * What every file of the library shares: the longest path, and whether
 * this is an AddressSanitizer build. Part of src/util/.
 */
#ifndef CORDON_BASE_H
#define CORDON_BASE_H

#include "cordon.h"

/* AddressSanitizer builds start children with fork() instead of
 * clone(CLONE_VM) (see child_start in compat.c). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORDON_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CORDON_ASAN 1
#endif

/* The longest path cordon handles, in bytes with the NUL: the kernel's
 * PATH_MAX, beyond which no system call accepts a path. Every path buffer
 * has this size; a longer path (argument, environment value or computed)
 * is a clear error, never truncated. */
#define CORDON_PATH_MAX 4096

#endif
