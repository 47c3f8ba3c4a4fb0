/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec: set vm.memfd_noexec inside another process's PID namespace.
 *
 * vm.memfd_noexec is per PID namespace, and the kernel reads it from the
 * ACTIVE PID namespace of the task that calls memfd_create() (and of the
 * task that reads or writes /proc/sys/vm/memfd_noexec), whichever procfs
 * is mounted.  So the write is made by a grandchild: a child setns()es into
 * the target's PID namespace (which affects only its future children) and
 * forks; that grandchild is in the namespace, and writes and reads back.
 * Only the PID namespace is joined, never the user namespace: the write
 * needs the caller's credentials, euid 0 in the initial user namespace
 * (the file is owned by global root) and CAP_SYS_ADMIN over the user
 * namespace that owns the PID namespace.
 *
 * The host's value is never touched: a target in the initial PID
 * namespace, in the caller's own one, or in one that is not a descendant of
 * the caller's, is refused, and the writer re-checks its own namespace
 * before it writes.
 *
 * Library code: returns -errno, never prints or exits.  ret_error (if not
 * NULL) receives a malloc'd message on failure (NULL only for -ENOMEM).
 */
#ifndef NSEXEC_H
#define NSEXEC_H

#include <stdbool.h>
#include <sys/types.h>

struct nsexec_result {
	int requested; /* the level asked for */
	int before;    /* the namespace's effective level before */
	int after;     /* its effective level afterwards, read back */
	bool written;  /* requested was written (before < requested) */
	bool kept;     /* after > requested: a stricter value (inherited from
			* an ancestor namespace, or set earlier) was kept; the
			* caller should print a notice */
};

/*
 * Makes the effective vm.memfd_noexec of target's PID namespace at least
 * level (0, 1 or 2).  A value that is already >= level is kept (never
 * lowered) and is not an error; nor is EINVAL from the write when a
 * stricter parent namespace makes the effective value >= level anyway.
 * On success fills *ret and returns 0.
 *
 * Errors:
 *  -EINVAL   level is not 0, 1 or 2, or target <= 0; or the kernel refused
 *            the write with EINVAL and the value is still below level;
 *  -ESRCH    there is no process target;
 *  -EEXIST   refused: target is in the initial PID namespace, in the
 *            caller's own PID namespace, or in one that is not below the
 *            caller's (setting it would change the host's, or the
 *            caller's, value);
 *  -ENOENT   the kernel has no vm.memfd_noexec (before Linux 6.3, or
 *            without CONFIG_PID_NS), so the request cannot be honoured;
 *  -EACCES   the caller's euid is not global root (open() of the sysctl),
 *            or it may not inspect target's namespaces;
 *  -EPERM    no CAP_SYS_ADMIN over the namespace's owner (setns() or the
 *            write): the case of rootless runtimes, which cannot set it;
 *  -EIO      the value read back is below level although the write
 *            succeeded;
 *  -EPROTO   the helper process died without reporting (e.g. the
 *            namespace's init exited meanwhile);
 *  -ENOMEM   out of memory, or fork() into a namespace whose init has
 *            exited;
 *  any other -errno of open, setns, pipe2, fork, read or write.
 */
int nsexec_apply_memfd_noexec(pid_t target, int level,
			      struct nsexec_result *ret, char **ret_error);

#endif
