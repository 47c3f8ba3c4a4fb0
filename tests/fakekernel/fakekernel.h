/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakekernel: make a process see an older kernel, or make chosen syscalls
 * (or chosen flags of them) fail with chosen errnos, through seccomp.
 *
 * It is a test tool, not a sandbox: syscalls of a foreign architecture
 * (x32, int 0x80) and io_uring pass untouched.
 *
 * Rule precedence: every profile and every fail spec becomes its own seccomp
 * filter.  The kernel reports the errno of the most recently loaded filter
 * that matches, so where rules overlap a later fail spec beats an earlier
 * one, every fail spec beats every profile, and among profiles the one that
 * emulates the older kernel wins (nomemfd beats 6.1).
 */
#ifndef MEMFD_TOOLKIT_FAKEKERNEL_H
#define MEMFD_TOOLKIT_FAKEKERNEL_H

#include <stddef.h>

/*
 * How /proc/sys/vm/memfd_noexec should look.  The values 0, 1 and 2 mean a
 * read-only file reading "N\n"; the file is only ever faked, never written.
 */
#define FAKEKERNEL_SYSCTL_REAL (-1) /* leave the real file alone */
#define FAKEKERNEL_SYSCTL_HIDE (-2) /* absent: open() gives ENOENT */

struct fakekernel_profile {
	const char *name;
	const char *description; /* one line, no trailing newline */
	int memfd_noexec;	 /* implied FAKEKERNEL_SYSCTL_* or 0..2 */
};

/* The idx-th known profile, or NULL past the last one. */
const struct fakekernel_profile *fakekernel_profile_by_index(size_t idx);

/*
 * The vm.memfd_noexec view that a comma-separated profile list implies:
 * FAKEKERNEL_SYSCTL_REAL if none of them cares.  NULL or "" is no profile.
 *
 * Returns 0, or -EINVAL for an unknown profile, an empty list item, or
 * profiles that imply different views (6.3-level2 with nomemfd or 6.1).
 */
int fakekernel_profiles_memfd_noexec(const char *profile_list, int *ret_mode);

/*
 * Parse the profiles and the fail specs and build the filters, without
 * loading anything.
 *
 * A fail spec is "SYSCALL=ERRNO" or "SYSCALL[ARG&MASK==VALUE,...]=ERRNO":
 * all conditions must hold, ARG is 0-5, "&MASK" may be left out (compare all
 * 64 bits), numbers are decimal, 0x hex or 0 octal, ERRNO is a name (EPERM)
 * or a number 0-4094 (0: the call returns 0 without running, to test that
 * results are verified).  Conditions on the same ARG are merged.
 *
 * Returns 0, or:
 *   -EINVAL  a bad profile list or fail spec: syntax, an unknown or foreign
 *            syscall, an unknown errno, VALUE with bits outside MASK,
 *            contradicting conditions, or n_fail > 0 with fail_specs NULL;
 *   -ENOSYS  libseccomp does not know a syscall a profile needs;
 *   -ENOMEM, or another -errno from libseccomp.
 */
int fakekernel_check(const char *profile_list, const char *const *fail_specs, size_t n_fail);

/*
 * Build and load the filters into the calling thread (call it from a forked
 * child in unit tests; it does not synchronise other threads).  Nothing is
 * loaded if there are neither profiles nor fail specs.
 *
 * no_new_privs is left off when the caller has CAP_SYS_ADMIN in its user
 * namespace, so setuid helpers still work under the filter; otherwise
 * libseccomp sets it, as the kernel requires.
 *
 * Debugging: with FAKEKERNEL_DEBUG=1 in the environment it prints stable
 * "fakekernel: ..." markers to stderr.
 *
 * Returns 0, the errors of fakekernel_check() (then nothing is loaded), or
 * the -errno of capget() or seccomp() (filters loaded before a failing one
 * stay loaded).
 */
int fakekernel_load(const char *profile_list, const char *const *fail_specs, size_t n_fail);

/*
 * errno names: "EPERM" <-> 1.  fakekernel_errno_from_name() also knows the
 * aliases ENOTSUP, EWOULDBLOCK and EDEADLOCK, and returns the errno (> 0) or
 * -EINVAL.  fakekernel_errno_name() returns NULL for an unknown number.
 */
int fakekernel_errno_from_name(const char *name);
const char *fakekernel_errno_name(int err);

#endif
