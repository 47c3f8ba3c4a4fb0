/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp rule that closes the hugetlbfs hole at vm.memfd_noexec=2
 * (see seccomp-rules.h).  The one libseccomp user of the library folders.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include <seccomp.h>

#include "fd-util.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "seccomp-rules.h"

/*
 * Every ABI whose system calls a process of this build can make: the
 * native one first, then those its kernel may also run (docker's and
 * runc's default profiles list the same).  Building for anything else
 * fails here rather than leaving an ABI unfiltered.
 */
static const uint32_t abis[] = {
#if defined(__x86_64__) && defined(__ILP32__)
	SCMP_ARCH_X32,
	SCMP_ARCH_X86_64,
	SCMP_ARCH_X86,
#elif defined(__x86_64__)
	SCMP_ARCH_X86_64,
	SCMP_ARCH_X86,
	SCMP_ARCH_X32,
#elif defined(__i386__)
	SCMP_ARCH_X86,
#elif defined(__aarch64__)
	SCMP_ARCH_AARCH64,
	SCMP_ARCH_ARM,
#elif defined(__arm__)
	SCMP_ARCH_ARM,
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	SCMP_ARCH_PPC64LE,
#elif defined(__s390x__)
	SCMP_ARCH_S390X,
	SCMP_ARCH_S390,
#elif defined(__riscv) && __riscv_xlen == 64
	SCMP_ARCH_RISCV64,
#elif defined(__mips__) && _MIPS_SIM == _ABI64 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	SCMP_ARCH_MIPSEL64,
	SCMP_ARCH_MIPSEL64N32,
	SCMP_ARCH_MIPSEL,
#elif defined(__mips__) && _MIPS_SIM == _ABI64
	SCMP_ARCH_MIPS64,
	SCMP_ARCH_MIPS64N32,
	SCMP_ARCH_MIPS,
#else
#error "policy/seccomp-rules.c: the system call ABIs of this architecture are not listed; add them (native first) before building"
#endif
};

static void seccomp_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

bool policy_level_denies_hugetlb_memfd(int level)
{
	return level >= POLICY_HUGETLB_MEMFD_LEVEL;
}

/* Whether this kernel knows MFD_NOEXEC_SEAL: 1, 0 (it has no levels), or
 * -errno when the probe itself failed for another reason. */
static int kernel_has_exec_control(void)
{
	int fd = missing_memfd_create("memfd-toolkit-probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);

	if (fd >= 0) {
		(void)close(fd);
		return 1;
	}
	if (errno == EINVAL || errno == ENOSYS)
		return 0;
	return negative_errno();
}

int policy_memfd_noexec_effective_fd(int fd)
{
	struct statfs sfs;

	if (fd < 0) {
		/* Missing: no levels in this kernel, or hidden from us. */
		if (fd == -ENOENT && kernel_has_exec_control() == 0)
			return -EOPNOTSUPP;
		return fd;
	}
	/* Only procfs answers for the reader's namespace; anything else at
	 * that path (an image's file, no procfs on /proc) may lie. */
	if (fstatfs(fd, &sfs) < 0)
		return negative_errno();
	if ((unsigned long)sfs.f_type != (unsigned long)PROC_SUPER_MAGIC)
		return -EMEDIUMTYPE;
	return mt_memfd_noexec_read_fd(fd);
}

int policy_memfd_noexec_effective(void)
{
	_cleanup_close_ int fd = -EBADF;

	fd = open(MT_MEMFD_NOEXEC_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return policy_memfd_noexec_effective_fd(fd < 0 ? negative_errno() : fd);
}

bool policy_hugetlb_rule_needed(int effective)
{
	if (effective < 0)
		return effective != -EOPNOTSUPP;
	return policy_level_denies_hugetlb_memfd(effective);
}

int policy_seccomp_hugetlb_for_effective_level(int *ret_effective, struct mt_error **err)
{
	int effective = policy_memfd_noexec_effective(), r;

	if (ret_effective)
		*ret_effective = effective;
	if (!policy_hugetlb_rule_needed(effective))
		return 0;
	r = policy_seccomp_deny_hugetlb_memfd(err);
	return r < 0 ? r : 1;
}

/* The filter, built but not loaded. */
static int build_filter(scmp_filter_ctx *ret, struct mt_error **err)
{
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
	int r;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return mt_error_set(err, -ENOMEM, "Failed to create a seccomp filter: %s",
				    strerror(ENOMEM));
	/* The container keeps its setuid programs: no no_new_privs. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	/* The kernel's errno (EACCES) rather than libseccomp's ECANCELED. */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		return mt_error_set(err, r, "Failed to set the seccomp filter's attributes: %s",
				    strerror(-r));
	if (seccomp_arch_native() != abis[0])
		return mt_error_set(
			err, -EOPNOTSUPP,
			"Refusing to build the seccomp filter: libseccomp's native ABI 0x%x is not the one this build was compiled for (0x%x)",
			seccomp_arch_native(), abis[0]);
	for (size_t i = 1; i < ELEMENTSOF(abis); i++) {
		r = seccomp_arch_add(ctx, abis[i]);
		if (r < 0 && r != -EEXIST)
			return mt_error_set(err, r,
					    "Failed to add ABI 0x%x to the seccomp filter: %s",
					    abis[i], strerror(-r));
	}
	/* Only the flag bit is compared: the rest of the flags, and the
	 * upper half of the register, stay free. */
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(POLICY_HUGETLB_MEMFD_ERRNO),
			     SCMP_SYS(memfd_create), 1,
			     SCMP_A1(SCMP_CMP_MASKED_EQ, MFD_HUGETLB, MFD_HUGETLB));
	if (r < 0)
		return mt_error_set(
			err, r,
			"Failed to add the memfd_create(MFD_HUGETLB) rule to the seccomp filter: %s",
			strerror(-r));
	*ret = TAKE_PTR(ctx);
	return 0;
}

int policy_seccomp_deny_hugetlb_memfd(struct mt_error **err)
{
	_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
	int r;

	r = build_filter(&ctx, err);
	if (r < 0)
		return r;
	r = seccomp_load(ctx);
	if (r == -EACCES)
		return mt_error_set(
			err, r,
			"Failed to install the seccomp filter that refuses MFD_HUGETLB memfds: %s. The kernel needs CAP_SYS_ADMIN in the caller's user namespace, or no_new_privs, for it.",
			strerror(-r));
	if (r < 0)
		return mt_error_set(
			err, r,
			"Failed to install the seccomp filter that refuses MFD_HUGETLB memfds: %s",
			strerror(-r));
	return 0;
}
