/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one reader and the one writer of vm.memfd_noexec.
 *
 * The kernel reads and writes the value of the ACTIVE PID namespace of the
 * calling task, whichever procfs the path goes through.  The file holds
 * exactly "0\n", "1\n" or "2\n"; anything else is refused as -EBADMSG.
 *
 * Both are async-signal-safe (plain syscalls, no allocation), because
 * nsexec/ calls them in children forked from a possibly multi-threaded
 * caller.
 */
#ifndef MEMFD_TOOLKIT_MEMFD_SYSCTL_H
#define MEMFD_TOOLKIT_MEMFD_SYSCTL_H

#include <stdbool.h>

#define MT_MEMFD_NOEXEC_PATH "/proc/sys/vm/memfd_noexec"

/*
 * Returns 0, 1 or 2; -ENOENT when the kernel has no such sysctl (before
 * Linux 6.3, or without CONFIG_PID_NS); -EBADMSG when the file holds
 * anything but "N\n" with N in 0..2; or another -errno of open/read.
 */
int mt_memfd_noexec_read(void);

/* The same, from fd, MT_MEMFD_NOEXEC_PATH open for reading (left open). */
int mt_memfd_noexec_read_fd(int fd);

/*
 * Writes "N\n" for level N (0..2; -EINVAL otherwise, before any syscall).
 * Returns 0 or -errno.  *ret_at_open (if not NULL) tells whether it was
 * open() that failed: EACCES there means the writer is not global root,
 * while EPERM from write() means it lacks CAP_SYS_ADMIN over the owner of
 * the PID namespace, and EINVAL from write() a value below the parent's.
 *
 * The CALLER must have made sure that its active PID namespace is not the
 * initial one: this function writes wherever it runs.
 */
int mt_memfd_noexec_write(int level, bool *ret_at_open);

/* Exactly "0", "1" or "2": returns 0..2, else -EINVAL. */
int mt_memfd_noexec_parse(const char *s);

#endif
