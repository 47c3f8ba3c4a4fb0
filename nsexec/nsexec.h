/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec: vm.memfd_noexec for a container's PID namespace, one rule for
 * every caller (the patched runc's nsexec, the rebuilt crun, the OCI hook,
 * memfd-noexec run).
 *
 * vm.memfd_noexec is per PID namespace, and the kernel reads it from the
 * ACTIVE PID namespace of the task that calls memfd_create() (and of the
 * task that reads or writes /proc/sys/vm/memfd_noexec), whichever procfs
 * is mounted.  So every read or write is made by a grandchild: a helper
 * setns()es into the namespace (which affects only its future children)
 * and forks; that grandchild is in the namespace, and reads, writes and
 * reads back.  Only the PID namespace is joined, never the user namespace:
 * the write needs the caller's credentials, euid 0 in the initial user
 * namespace (the file is owned by global root) and CAP_SYS_ADMIN over the
 * user namespace that owns the PID namespace.
 *
 * The rules:
 *  - A namespace created for the container is raised to the level; a
 *    stricter value stays (never lowered), with a notice.
 *  - A namespace the container only joins (it is not its init: another
 *    container's, a pod's, the host's) is never changed.  The request is
 *    accepted when that namespace already meets it, and refused, naming
 *    the namespace and its level, when it does not.
 *  - A container that keeps CAP_SYS_ADMIN without a user namespace could
 *    remount /proc/sys and lower its value again: such a request is
 *    refused unless the parent namespace already enforces the level.  The
 *    same holds for a later exec that adds CAP_SYS_ADMIN (the runtime
 *    checks it).  A process that joins the PID namespace without a
 *    request (a sidecar) is not checked at join time; memfd-noexec audit
 *    flags it.
 *  - The host's value, and the caller's own, are never written: the
 *    writer re-checks where it is right before it writes.
 *
 * Library code: returns -errno and stores an error (common/errors.h); never
 * prints or exits.
 */
#ifndef NSEXEC_H
#define NSEXEC_H

#include <stdbool.h>
#include <sys/types.h>

#include "errors.h"

/* Whether the container's PID namespace was created for it. */
enum nsexec_origin {
	NSEXEC_ORIGIN_FIND_OUT = 0, /* the target's PID decides: it is the
				     * namespace's init (PID 1) or it joined */
	NSEXEC_ORIGIN_CREATED,	    /* the caller created it for the target */
	NSEXEC_ORIGIN_JOINED,	    /* the target joined an existing one */
};

struct nsexec_request {
	int level; /* 0, 1 or 2 */
	enum nsexec_origin origin;
	/* The container keeps CAP_SYS_ADMIN in its bounding set (see
	 * policy.h); checked against its actual user namespace. */
	bool keeps_sys_admin;
	/* Where to ask the memfd-noexec service (service.h) when our own
	 * write is refused (rootless): NULL for the default socket, "" for
	 * never. */
	const char *service_socket;
};

struct nsexec_result {
	int requested;	   /* the level asked for */
	int before;	   /* the namespace's effective level before */
	int after;	   /* its effective level afterwards, read back */
	bool written;	   /* requested was written (before < requested) */
	bool kept;	   /* after > requested: a stricter value stays; the
			    * caller should print a notice */
	bool joined;	   /* a namespace the target only joined: read, never
			    * written */
	unsigned long ino; /* the namespace's inode, for messages */
};

/*
 * Makes the effective vm.memfd_noexec of target's PID namespace at least
 * req->level, by the rules above.  On success fills *ret and returns 0.
 *
 * Errors:
 *  -EINVAL   level is not 0, 1 or 2, or target <= 0; or the kernel refused
 *            the write with EINVAL and the value is still below level;
 *  -ESRCH    there is no process target;
 *  -EEXIST   refused: a namespace created for the target is the initial
 *            one, the caller's own, or not below the caller's;
 *  -EPERM    refused: the target joined a namespace below the level, or it
 *            keeps CAP_SYS_ADMIN without a user namespace; or no
 *            CAP_SYS_ADMIN over the namespace's owner (setns or write);
 *  -EACCES   the caller's euid is not global root (rootless), the
 *            namespace is below the level, and the memfd-noexec service
 *            is absent or refused (its reason is in the message);
 *  -ENOENT   the kernel has no vm.memfd_noexec (before Linux 6.3, or
 *            without CONFIG_PID_NS), so the request cannot be honoured;
 *  -EOPNOTSUPP  whether the target created or joined its namespace, or
 *            which user namespace it is in, cannot be told from here;
 *  -EIO      the value read back is below level although the write
 *            succeeded;
 *  -EPROTO   the helper process died without reporting (e.g. the
 *            namespace's init exited meanwhile);
 *  any other -errno of open, setns, pipe2, fork, read or write.
 */
int nsexec_apply_memfd_noexec(pid_t target, const struct nsexec_request *req,
			      struct nsexec_result *ret, struct mt_error **err);

/* The same, for the process that pidfd refers to (kept open by the caller;
 * -ESRCH if it has exited, -EBADF if it is no pidfd). */
int nsexec_apply_memfd_noexec_pidfd(int pidfd, const struct nsexec_request *req,
				    struct nsexec_result *ret, struct mt_error **err);

/*
 * The same, with target's PID namespace open at ns_fd (kept open by the
 * caller), as the target itself opened it (/proc/self/ns/pid, or its
 * parent's pid_for_children) and sent it back: for a runtime whose
 * container process is not dumpable, so that an unprivileged caller may
 * not open its namespace (crun, rootless).  Where the caller can open it,
 * it must be the same namespace (-EXDEV otherwise); ns_fd must be a PID
 * namespace (-EINVAL otherwise).  Where the caller cannot, it is never
 * taken on the sender's word (which opened it through whatever /proc its
 * mount namespace showed): the kernel's view of target must prove it to be
 * target's active PID namespace (its pidfd's NSpid through our own procfs,
 * NS_GET_PID_IN_PIDNS on ns_fd, its depth below ours by NS_GET_PARENT),
 * -EXDEV otherwise, or when the kernel cannot tell (no NS_GET_PID_IN_PIDNS,
 * a /proc of another PID namespace).
 */
int nsexec_apply_memfd_noexec_ns(pid_t target, int ns_fd, const struct nsexec_request *req,
				 struct nsexec_result *ret, struct mt_error **err);

/*
 * For a process added to a running container (runc exec, crun exec) whose
 * init is target and which asked for level (0..2, or below 0 for none):
 * the CAP_SYS_ADMIN rule of nsexec_apply_memfd_noexec() again, for the new
 * process.  If it keeps CAP_SYS_ADMIN in its bounding set (the runtime's
 * own reading of the exec's capabilities; none given counts as keeping
 * it) while the container's user namespace maps global root, it could
 * remount /proc/sys and lower the container's level down to its parent's:
 * refused unless that parent already enforces the level.  Never writes.
 *
 * Errors: -EPERM refused (the message names the rule); -EINVAL a level
 * above 2 or target <= 0; -ESRCH target exited; -EOPNOTSUPP whether the
 * user namespace maps global root cannot be told from here; or those of
 * nsexec_apply_memfd_noexec() while finding the parent's level.
 */
int nsexec_check_exec_sys_admin(pid_t target, int level, bool keeps_sys_admin,
				struct mt_error **err);

/*
 * The effective vm.memfd_noexec of the PID namespace open at ns_fd, read
 * from inside it (which needs CAP_SYS_ADMIN over its owner, or being that
 * owner).  Never writes.  Returns 0, 1 or 2, or -errno: -EPERM when it may
 * not be entered, -ENOENT without the sysctl.
 *
 * Only memfd-noexec audit calls it today, yet it stays here, shipped to
 * runtimes: a runtime that reads the effective level of its container
 * (the runc and crun rebuilds may) needs exactly this, through the same
 * helper as the write.
 */
int nsexec_read_memfd_noexec(int ns_fd);

#endif
