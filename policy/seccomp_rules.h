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
 */
bool policy_level_denies_hugetlb_memfd(int level);

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
