/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec's namespace identities, for callers outside nsexec/ that check
 * namespaces themselves: the memfd-noexec service (service/) judges where
 * a client and its target sit before it asks nsexec to raise a level.
 * Only what such a caller needs is here; the rest of pidns.c stays
 * internal (pidns.h).
 */
#ifndef NSEXEC_NS_H
#define NSEXEC_NS_H

#include <stdbool.h>
#include <sys/types.h>

struct nsexec_ns_id {
	dev_t dev;
	ino_t ino;
	bool nsfs; /* the file lives on nsfs, so ino can be compared with
		    * the PROC_*_INIT_INO constants */
};

/* Identity of the namespace open at fd / named by path.  0 or -errno. */
int nsexec_ns_id_of_fd(int fd, struct nsexec_ns_id *ret);
int nsexec_ns_id_of_path(const char *path, struct nsexec_ns_id *ret);
/* The calling thread's active PID namespace. */
int nsexec_ns_id_self(struct nsexec_ns_id *ret);

bool nsexec_ns_id_equal(const struct nsexec_ns_id *a, const struct nsexec_ns_id *b);
/* True if id is the initial PID (user) namespace: inode PROC_PID_INIT_INO
 * (PROC_USER_INIT_INO) on nsfs. */
bool nsexec_ns_id_is_initial_pid(const struct nsexec_ns_id *id);
bool nsexec_ns_id_is_initial_user(const struct nsexec_ns_id *id);

/*
 * The PID namespace (nsexec_pidns_of_pidfd) or the user namespace
 * (nsexec_userns_of_pidfd) of the process that pidfd refers to (PID pid in
 * ours), as a new O_CLOEXEC fd: from the pidfd's ioctl
 * (PIDFD_GET_PID_NAMESPACE, PIDFD_GET_USER_NAMESPACE: 6.11+) if use_ioctl,
 * else (or before 6.11) from /proc/<pid>/ns/{pid,user}, which must be
 * ours, checked against pidfd afterwards so that a recycled PID cannot
 * answer.  pidfd may be -EBADF (a kernel without pidfds): /proc alone,
 * unchecked.  On success *ret_by_proc (if not NULL) says whether /proc was
 * used.  -ESRCH if it has exited, -EOPNOTSUPP if /proc is not ours (or pid
 * is no PID), -EACCES if we may not look at it (ptrace rules), or -errno.
 */
int nsexec_pidns_of_pidfd(int pidfd, pid_t pid, bool use_ioctl, bool *ret_by_proc);
int nsexec_userns_of_pidfd(int pidfd, pid_t pid, bool use_ioctl, bool *ret_by_proc);

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

/*
 * The uid (as we see it) that created the top-most user namespace of the
 * chain that the user namespace at userns_fd belongs to: walking
 * NS_GET_PARENT up, the last one below the initial user namespace, its
 * NS_GET_OWNER_UID.  So every user namespace a user made, and every one
 * nested in those (where the user's subordinate uids act), answers that
 * user.  *ret_top is false (and *ret untouched) when userns_fd is the
 * initial user namespace itself.  0, -ELOOP after more levels than the
 * kernel nests, or -errno (EPERM: the chain leaves the caller's view
 * before the initial namespace).
 */
int nsexec_userns_top_owner(int userns_fd, uid_t *ret, bool *ret_top);

/* The PID (in our namespace) of the process pidfd refers to: fdinfo's
 * "Pid:" line; -ESRCH if it has exited (or lives in no namespace of ours),
 * -EBADF if fd is no pidfd (or not open), -EBADMSG if the line is not a
 * PID. */
pid_t nsexec_pidfd_pid(int pidfd);

#endif
