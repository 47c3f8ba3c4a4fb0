/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy: the seccomp rules that go with a vm.memfd_noexec level, for the
 * runtimes to install in the container's process (runc: runc init, before
 * its own filter and before it drops capabilities).
 *
 * Library code: returns -errno with an error in *err (common/errors.h);
 * never prints or exits.
 */
#ifndef POLICY_SECCOMP_RULES_H
#define POLICY_SECCOMP_RULES_H

#include <errno.h>
#include <stdbool.h>

#include "errors.h"

/*
 * What a refused memfd_create(MFD_HUGETLB) returns: EPERM, the errno that
 * memfd_create(2) documents for a caller not allowed huge pages, which
 * programs that try a huge-page memfd already handle (and fall back to a
 * plain one), and what seccomp profiles answer by convention.  EACCES
 * would look like the kernel's own refusal of MFD_EXEC at level 2, which
 * it is not.  contrib/seccomp/memfd-hugetlb.json says the same (errnoRet 1).
 */
#define POLICY_HUGETLB_MEMFD_ERRNO EPERM

/* From this level on, the level comes with the rule below. */
#define POLICY_HUGETLB_MEMFD_LEVEL 2

/*
 * Whether a vm.memfd_noexec level needs the rule below: hugetlbfs ignores
 * F_SEAL_EXEC, so a MFD_HUGETLB memfd made at level 2 can be chmod'ed
 * executable and run.  At 0 and 1 MFD_EXEC is allowed anyway.
 *
 * The level that counts is the one a process really runs at, not the one
 * its container asked for: a request for 1 under a parent namespace at 2
 * runs at 2, and so does a container that joins a namespace at 2 without
 * asking.  Decide with policy_hugetlb_rule_needed() on the effective
 * level, below.
 */
bool policy_level_denies_hugetlb_memfd(int level);

/*
 * The effective vm.memfd_noexec of the CALLER's active PID namespace: the
 * level the kernel applies to the caller's memfd_create() calls, i.e. the
 * maximum of its namespace's own value and every ancestor's, whether the
 * runtime set it, the namespace inherited it or the caller joined a
 * namespace that was already at it.  Read from MT_MEMFD_NOEXEC_PATH, which
 * must be on a procfs (any procfs mount will do: the kernel answers for
 * the reader's namespace, not the mount's).  A runtime calls it in the
 * container's process, after the level has been applied.
 *
 * Returns 0, 1 or 2, or:
 *  -EOPNOTSUPP   the kernel has no memfd exec control at all: it does not
 *                know MFD_NOEXEC_SEAL (EINVAL, before Linux 6.3) or has no
 *                memfd_create() (ENOSYS), so there are no levels;
 *  -EMEDIUMTYPE  the file is not on a procfs (no procfs mounted at /proc:
 *                what is there comes from the image, and may lie);
 *  -EBADMSG      the file holds anything but "N\n", N in 0..2;
 *  any other -errno of open(2), fstatfs(2), read(2) or of the probe's
 *  memfd_create(2) (e.g. -ENOENT: the file is missing on a kernel that
 *  has exec control, such as a masked /proc/sys or no CONFIG_PID_NS).
 */
int policy_memfd_noexec_effective(void);

/*
 * The same, read from fd, a file the caller opened at MT_MEMFD_NOEXEC_PATH
 * earlier (read once, from its start; not closed), or the -errno of that
 * open(2): for a runtime that opens the sysctl on the host's procfs
 * before it enters the container and reads it in the container's PID
 * namespace (runc 1.3's nsexec).  Same returns.
 */
int policy_memfd_noexec_effective_fd(int fd);

/*
 * THE decision, for every runtime (runc 1.1 and 1.3, the crun shim,
 * memfd-noexec run): whether a process needs the rule below, given
 * effective, what policy_memfd_noexec_effective() returned in that
 * process (0..2 or -errno).
 *
 *   2            -> true
 *   0, 1         -> false
 *   -EOPNOTSUPP  -> false: no levels in this kernel, hence no level 2
 *   other -errno -> true, fail-safe: the level could not be read, and
 *                   the rule only refuses huge-page memfds (EPERM, which
 *                   their users handle), while leaving it out at a real
 *                   level 2 would leave an executable memfd open.
 */
bool policy_hugetlb_rule_needed(int effective);

/*
 * Both, in the calling thread: reads the effective level
 * (policy_memfd_noexec_effective()) and installs the rule below iff
 * policy_hugetlb_rule_needed() says so.  *ret_effective (if not NULL) gets
 * what was read, for the caller's log, also when nothing is installed.
 * Returns 1 if it installed the rule, 0 if none is needed, or the -errno
 * of policy_seccomp_deny_hugetlb_memfd() with *err set.
 */
int policy_seccomp_hugetlb_for_effective_level(int *ret_effective, struct mt_error **err);

/*
 * Installs, in the calling thread (and so in everything it forks or
 * executes), a seccomp filter that refuses memfd_create() with
 * POLICY_HUGETLB_MEMFD_ERRNO when MFD_HUGETLB is set in its flags, and
 * lets every other call, memfd_create() without MFD_HUGETLB included,
 * through.  It covers every system call ABI a process of this build can
 * use (x86-64: also i386 and x32; arm64: also arm; s390x: also s390;
 * mips64: also its n32 and o32); any other ABI kills the process.  It
 * stacks with the runtime's own filter (the kernel applies the strictest
 * answer) and leaves no_new_privs alone.
 *
 * Errors:
 *  -EACCES  the caller has neither CAP_SYS_ADMIN in its user namespace
 *           nor no_new_privs set, so the kernel refuses a filter;
 *  -EINVAL, -EFAULT, -ENOMEM, or any -errno from seccomp(2) or libseccomp
 *           (-EOPNOTSUPP: no seccomp filters in this kernel).
 */
int policy_seccomp_deny_hugetlb_memfd(struct mt_error **err);

#endif
