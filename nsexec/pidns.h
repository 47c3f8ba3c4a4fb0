/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Part of nsexec's API: namespace identities, and what /proc tells about a
 * process's namespaces.  nsexec/ builds its rules on them, and so do the
 * memfd-noexec service (which checks a client's namespace) and
 * memfd-noexec's probes (which guard their throwaway namespaces).  The
 * /proc parsers behind them stay static in pidns.c.
 * nsexec_guard_active_pidns() is async-signal-safe (no allocation, no
 * stdio): it runs in children forked from a possibly multi-threaded
 * caller.
 */
#ifndef NSEXEC_PIDNS_H
#define NSEXEC_PIDNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct nsexec_ns_id {
	dev_t dev;
	ino_t ino;
	bool nsfs; /* the file lives on nsfs, so ino can be compared with
		    * the PROC_*_INIT_INO constants */
};

/*
 * True if /proc shows this process under its own PID, i.e. the procfs
 * mount belongs to the caller's active PID namespace, so /proc/<pid> names
 * the process that <pid> names for the caller.  After a bare
 * `unshare --pid --fork` it does not.
 */
bool nsexec_procfs_is_ours(void);

/* Identity of the namespace open at fd / named by path.  0 or -errno. */
int nsexec_ns_id_of_fd(int fd, struct nsexec_ns_id *ret);
int nsexec_ns_id_of_path(const char *path, struct nsexec_ns_id *ret);
/* The calling thread's active PID namespace. */
int nsexec_ns_id_self(struct nsexec_ns_id *ret);

bool nsexec_ns_id_equal(const struct nsexec_ns_id *a, const struct nsexec_ns_id *b);
/* True if id is the initial PID namespace (inode PROC_PID_INIT_INO). */
bool nsexec_ns_id_is_initial_pid(const struct nsexec_ns_id *id);
bool nsexec_ns_id_is_initial_user(const struct nsexec_ns_id *id);

/*
 * About process pid, through /proc (which must be ours), checked against
 * its pidfd afterwards so that a recycled PID cannot answer for it:
 *  - nsexec_pid_is_ns_init(): 1 if it is PID 1 of its own PID namespace
 *    (the last NSpid field), 0 if not;
 *  - nsexec_pid_maps_global_root(): 1 if global root (uid 0 of the
 *    initial user namespace) is mapped in its user namespace, so that a
 *    process of it could write root-owned files such as the sysctl: true
 *    in the initial user namespace, and in one that maps 0 to 0; 0 if not
 *    (also whenever global root is not mapped in the caller's own).
 * -EOPNOTSUPP when /proc is not ours, -ESRCH when it exited, or -errno.
 */
int nsexec_pid_is_ns_init(pid_t pid, int pidfd);
int nsexec_pid_maps_global_root(pid_t pid, int pidfd);

/*
 * The PID namespace of the process that pidfd refers to (PID pid in ours),
 * as a new O_CLOEXEC fd: from PIDFD_GET_PID_NAMESPACE (6.11+) if use_ioctl,
 * else (or before 6.11) from /proc/<pid>/ns/pid, which must be ours,
 * checked against pidfd afterwards so that a recycled PID cannot answer.
 * pidfd may be -EBADF (a kernel without pidfds): /proc alone, unchecked.
 * On success *ret_by_proc (if not NULL) says whether /proc was used.
 * -ESRCH if it has exited, -EOPNOTSUPP if /proc is not ours (or pid is no
 * PID), -EACCES if we may not look at it (ptrace rules), or -errno.
 */
int nsexec_pidns_of_pidfd(int pidfd, pid_t pid, bool use_ioctl, bool *ret_by_proc);

/*
 * 1 if the PID namespace at fd lies strictly below the one whose id is
 * above (walking NS_GET_PARENT up meets it), 0 if not (the walk left the
 * caller's subtree first: EPERM), -ELOOP after more levels than the
 * kernel nests, or -errno.
 */
int nsexec_pidns_is_below(int fd, const struct nsexec_ns_id *above);

/* The uid (as we see it) that created the user namespace owning the
 * namespace at fd (NS_GET_USERNS, NS_GET_OWNER_UID).  0 or -errno. */
int nsexec_ns_owner_uid(int fd, uid_t *ret);

/* The PID (in our namespace) of the process pidfd refers to: fdinfo's
 * "Pid:" line; -ESRCH if it has exited (or lives in no namespace of ours),
 * -EBADF if fd is no pidfd (or not open), -EBADMSG if the line is not a
 * PID. */
pid_t nsexec_pidfd_pid(int pidfd);

/*
 * The last line of defence before any write: fails with -EEXIST if the
 * caller's active PID namespace is the initial one or equal to one of the
 * n ids in forbidden, and with -EPROTO if want is not NULL and the active
 * namespace is not want.  Other -errno if it cannot be determined (which
 * also forbids the write).
 */
int nsexec_guard_active_pidns(const struct nsexec_ns_id *want, const struct nsexec_ns_id *forbidden,
			      size_t n);

#endif
