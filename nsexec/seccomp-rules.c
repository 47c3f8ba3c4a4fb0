/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp rule that closes the hugetlbfs hole at vm.memfd_noexec=2
 * (nsexec_seccomp_deny_hugetlb_memfd(), runtime.h).  The one libseccomp
 * user of the library folders.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <seccomp.h>

#include "macro.h"
#include "runtime.h"

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
#error "nsexec/seccomp-rules.c: the system call ABIs of this architecture are not listed; add them (native first) before building"
#endif
};

static void seccomp_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
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
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(NSEXEC_HUGETLB_MEMFD_ERRNO),
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

int nsexec_seccomp_deny_hugetlb_memfd(struct mt_error **err)
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
