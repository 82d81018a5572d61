/*
 * Landlock user-space ABI, carried by cordon itself: the distribution's
 * <linux/landlock.h> may stop at an older ABI (Debian 12 ships ABI 2), and
 * a build-time check must never decide whether the backend exists. Values
 * are the kernel's stable UAPI (include/uapi/linux/landlock.h). Only the
 * Linux backend includes this file.
 */
#ifndef CORDON_LANDLOCK_ABI_H
#define CORDON_LANDLOCK_ABI_H

#include <stdint.h>

/* The newest ABI whose rights this file knows. Kernels report higher
 * versions; cordon then uses what it knows (rights are additive). */
#define LL_ABI_KNOWN 10

/* Syscall numbers are the same on every architecture (added in 5.13). */
#define LL_SYS_CREATE_RULESET 444
#define LL_SYS_ADD_RULE 445
#define LL_SYS_RESTRICT_SELF 446

#define LL_CREATE_RULESET_VERSION (1U << 0)

#define LL_RULE_PATH_BENEATH 1

/* File system rights (ABI 1 unless noted). */
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13) /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
/* ABI 9: connect/sendmsg to a pathname Unix socket needs this right on
 * the socket (or a directory above it), unless the socket was made in
 * the same domain. A file right: a rule may name the socket itself. */
#define LL_FS_RESOLVE_UNIX (1ULL << 16)

/* Network rights: TCP from ABI 4; UDP from ABI 10 (bind; connect and
 * addressed sends), feature-detected: this kernel (ABI 7) cannot run
 * them, the tables are unit-tested. */
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_NET_BIND_UDP (1ULL << 2)
#define LL_NET_CONNECT_UDP (1ULL << 3)
#define LL_ABI_NET_TCP 4
#define LL_ABI_NET_UDP 10

/* Scopes (ABI 6). */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* Rights that apply to a file (as opposed to a directory). Adding any
 * other right in a rule on a non-directory fails with EINVAL. */
#define LL_FS_FILE_RIGHTS                                                                        \
	(LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV | \
	 LL_FS_RESOLVE_UNIX)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4: --network off without a namespace */
	uint64_t scoped; /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#endif
