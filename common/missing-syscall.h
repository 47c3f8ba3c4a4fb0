/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every raw syscall wrapper and every kernel constant that Debian 12's
 * headers may lack lives here, each behind #ifndef and tagged with the
 * release that introduced it.  Never hard-code a syscall number: use
 * __NR_* from <sys/syscall.h>.
 */
#ifndef MEMFD_TOOLKIT_MISSING_SYSCALL_H
#define MEMFD_TOOLKIT_MISSING_SYSCALL_H

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* memfd_create(2) flags. */
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U /* 3.17 */
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U /* 3.17 */
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* 6.3 */
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* 6.3 */
#endif

/* File seals (fcntl F_ADD_SEALS / F_GET_SEALS). */
#ifndef F_LINUX_SPECIFIC_BASE
#define F_LINUX_SPECIFIC_BASE 1024
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS (F_LINUX_SPECIFIC_BASE + 9) /* 3.17 */
#endif
#ifndef F_GET_SEALS
#define F_GET_SEALS (F_LINUX_SPECIFIC_BASE + 10) /* 3.17 */
#endif
#ifndef F_SEAL_SEAL
#define F_SEAL_SEAL 0x0001 /* 3.17 */
#endif
#ifndef F_SEAL_SHRINK
#define F_SEAL_SHRINK 0x0002 /* 3.17 */
#endif
#ifndef F_SEAL_GROW
#define F_SEAL_GROW 0x0004 /* 3.17 */
#endif
#ifndef F_SEAL_WRITE
#define F_SEAL_WRITE 0x0008 /* 3.17 */
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010 /* 5.1; MAP_PRIVATE bug fixed in 5.5 */
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020 /* 6.3 */
#endif

/* open(2) */
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY) /* 3.11 */
#endif
#ifndef O_PATH
#define O_PATH 010000000 /* 2.6.39 */
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000 /* 2.6.39 */
#endif

/*
 * Wrappers return what the kernel returns: -1 with errno on failure.  They
 * exist so that the library neither depends on a libc wrapper (glibc's
 * memfd_create is 2.27+) nor on the libc translating flags.
 */
static inline int missing_memfd_create(const char *name, unsigned int flags)
{
#ifdef __NR_memfd_create
	return (int)syscall(__NR_memfd_create, name, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static inline int missing_execveat(int dirfd, const char *path, char *const argv[],
				   char *const envp[], int flags)
{
#ifdef __NR_execveat
	return (int)syscall(__NR_execveat, dirfd, path, argv, envp, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The new mount API (the loader's overlay method).  Only the constants:
 * glibc 2.36's <sys/mount.h> and <linux/mount.h> cannot both be used. */
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001 /* 5.2 */
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001 /* 5.2 */
#endif
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_STRING 1 /* 5.2 */
#endif
#ifndef FSCONFIG_CMD_CREATE
#define FSCONFIG_CMD_CREATE 6 /* 5.2 */
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001 /* 5.2 */
#endif
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x00000002 /* 5.2 */
#endif
#ifndef MOUNT_ATTR_NODEV
#define MOUNT_ATTR_NODEV 0x00000004 /* 5.2 */
#endif
#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630 /* magic.h */
#endif

static inline int missing_fsopen(const char *fsname, unsigned int flags)
{
#ifdef __NR_fsopen
	return (int)syscall(__NR_fsopen, fsname, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static inline int missing_fsconfig(int fd, unsigned int cmd, const char *key, const void *value,
				   int aux)
{
#ifdef __NR_fsconfig
	return (int)syscall(__NR_fsconfig, fd, cmd, key, value, aux);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static inline int missing_fsmount(int fd, unsigned int flags, unsigned int attr_flags)
{
#ifdef __NR_fsmount
	return (int)syscall(__NR_fsmount, fd, flags, attr_flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* Namespaces and pidfds (used by nsexec/). */
#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673 /* 3.19 (nsfs); magic.h */
#endif
#ifndef NS_GET_USERNS
#define NS_GET_USERNS 0xb701 /* _IO(0xb7, 0x1), 4.9; linux/nsfs.h */
#endif
#ifndef NS_GET_PARENT
#define NS_GET_PARENT 0xb702 /* _IO(0xb7, 0x2), 4.9; linux/nsfs.h */
#endif
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE 0xb703 /* _IO(0xb7, 0x3), 4.11; linux/nsfs.h */
#endif
#ifndef NS_GET_OWNER_UID
#define NS_GET_OWNER_UID 0xb704 /* _IO(0xb7, 0x4), 4.11; linux/nsfs.h */
#endif
#ifndef NS_GET_PID_IN_PIDNS
/* _IOR(0xb7, 0x8, int): a PID of the caller's namespace as the namespace
 * at the fd numbers it; linux/nsfs.h, newer than Debian 12's headers
 * (ENOTTY where the kernel lacks it). */
#define NS_GET_PID_IN_PIDNS 0x8004b708
#endif
/* Fixed inode numbers of the initial namespaces (include/linux/proc_ns.h,
 * not exported to user space), stable since 3.8. */
#ifndef PROC_USER_INIT_INO
#define PROC_USER_INIT_INO 0xEFFFFFFDU
#endif
#ifndef PROC_PID_INIT_INO
#define PROC_PID_INIT_INO 0xEFFFFFFCU
#endif

/* Unix socket options (asm-generic/socket.h). */
#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59 /* 4.13 */
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* 6.5 */
#endif

#ifndef PIDFD_GET_PID_NAMESPACE
#define PIDFD_GET_PID_NAMESPACE 0xff05 /* _IO(0xff, 5), 6.11; linux/pidfd.h */
#endif
#ifndef PIDFD_GET_USER_NAMESPACE
#define PIDFD_GET_USER_NAMESPACE 0xff09 /* _IO(0xff, 9), 6.11; linux/pidfd.h */
#endif

/* pidfd_open(2), 5.3; -1 with errno, ENOSYS where the headers lack it. */
static inline int missing_pidfd_open(pid_t pid, unsigned int flags)
{
#ifdef __NR_pidfd_open
	return (int)syscall(__NR_pidfd_open, pid, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* pidfd_send_signal(2), 5.1. */
static inline int missing_pidfd_send_signal(int pidfd, int sig)
{
#ifdef __NR_pidfd_send_signal
	return (int)syscall(__NR_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* struct mount_attr (5.12, mount_setattr(2)). */
struct missing_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static inline int missing_mount_setattr(int dfd, const char *path, unsigned int flags,
					struct missing_mount_attr *attr)
{
#ifdef __NR_mount_setattr
	return (int)syscall(__NR_mount_setattr, dfd, path, flags, attr, sizeof(*attr));
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* open_tree(2) and move_mount(2), 5.2 (linux/mount.h). */
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

static inline int missing_open_tree(int dfd, const char *path, unsigned int flags)
{
#ifdef __NR_open_tree
	return (int)syscall(__NR_open_tree, dfd, path, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static inline int missing_move_mount(int from_dfd, const char *from, int to_dfd, const char *to,
				     unsigned int flags)
{
#ifdef __NR_move_mount
	return (int)syscall(__NR_move_mount, from_dfd, from, to_dfd, to, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

#endif
