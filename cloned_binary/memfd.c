/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The memfd methods.
 *   memfd-exec: memfd_create(MFD_EXEC), copy, F_SEAL_EXEC (which on an
 *     executable memfd also implies the write seals), then the write seals
 *     explicitly, read back with F_GET_SEALS and checked as a mask.
 *   memfd: the same without MFD_EXEC/F_SEAL_EXEC, where the kernel does not
 *     know them (EINVAL, before 6.3); the mode must show x bits.
 * Policy refusals (EACCES/EPERM: vm.memfd_noexec=2; ENOSYS: before 3.17)
 * and a memfd born without x bits let the caller fall back to a file.
 * Every other errno, and any failure once the memfd exists, is a real
 * failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cb-internal.h"
#include "missing-syscall.h"

static int memfd_seal(const struct cb_ctx *c, int fd, bool *ret_exec_sealed)
{
	unsigned need = CLONED_BINARY_MEMFD_SEALS;
	bool exec_sealed = false;
	int seals;

	/* No write bits: defence in depth; the seals are what binds. */
	if (fchmod(fd, 0555) < 0)
		return negative_errno();

	if (c->f.seal_exec) {
		/* On an executable memfd this also adds SHRINK|GROW|WRITE|
		 * FUTURE_WRITE.  We never map the copy, so the implied write
		 * seal cannot hit EBUSY. */
		if (fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) >= 0)
			exec_sealed = true;
		else if (errno != EINVAL)
			return negative_errno();
		else
			cb_debug(c,
				 "cloned_binary: F_SEAL_EXEC unknown (EINVAL), sealing without it");
	}

	/* Explicitly too: older kernels don't imply them, and F_SEAL_SEAL
	 * must come last. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return negative_errno();

	/* Never trust F_ADD_SEALS' return value alone: read them back. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return negative_errno();
	if (exec_sealed)
		need |= F_SEAL_EXEC;
	if (((unsigned)seals & need) != need)
		return -ENOEXEC;

	*ret_exec_sealed = exec_sealed;
	return 0;
}

/* Policy answers from the kernel that mean "use a file instead". */
static bool is_policy_refusal(int r)
{
	return r == -EACCES || r == -EPERM || r == -ENOSYS;
}

static int memfd_open(const struct cb_ctx *c, enum cloned_binary_method *ret_method, int *ret_fd,
		      bool *ret_policy_refused)
{
	const unsigned base = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	int fd, r;

	if (c->f.mfd_exec) {
		fd = missing_memfd_create("cloned_binary", base | MFD_EXEC);
		if (fd >= 0) {
			*ret_method = CLONED_BINARY_METHOD_MEMFD_EXEC;
			*ret_fd = fd;
			return 0;
		}
		if (errno != EINVAL) {
			r = negative_errno();
			*ret_policy_refused = is_policy_refusal(r);
			return cb_fail(c, r, "create memfd (memfd-exec)");
		}
		cb_debug(c, "cloned_binary: MFD_EXEC unknown (EINVAL), retrying without it");
	}
	fd = missing_memfd_create("cloned_binary", base);
	if (fd < 0) {
		r = negative_errno();
		*ret_policy_refused = is_policy_refusal(r);
		return cb_fail(c, r, "create memfd (memfd)");
	}
	*ret_method = CLONED_BINARY_METHOD_MEMFD;
	*ret_fd = fd;
	return 0;
}

int cb_clone_memfd(const struct cb_ctx *c, int src, size_t size,
		   enum cloned_binary_method *ret_method, int *ret_fd, bool *ret_policy_refused)
{
	_cleanup_close_ int fd = -EBADF;
	enum cloned_binary_method m = CLONED_BINARY_METHOD_MEMFD;
	const char *name;
	bool exec_sealed = false;
	struct stat st;
	int r;

	*ret_policy_refused = false;
	r = memfd_open(c, &m, &fd, ret_policy_refused);
	if (r < 0)
		return r;
	name = cloned_binary_method_to_string(m);

	if (fstat(fd, &st) < 0)
		return cb_fail(c, negative_errno(), "stat memfd (%s)", name);
	/* Without MFD_EXEC a 6.3+ kernel at level >= 1 makes it 0666 and
	 * exec-sealed: the kernel refuses exec, which is a policy answer. */
	if ((st.st_mode & 0111) == 0) {
		*ret_policy_refused = true;
		return mt_error_set(
			c->err, -EACCES,
			"Failed to get an executable memfd (%s): it came out mode %04o (vm.memfd_noexec is 1 or 2 here)",
			name, (unsigned)(st.st_mode & 07777));
	}

	r = cb_copy_checked(fd, src, size);
	if (r < 0)
		return cb_fail(c, r, "copy the binary into the memfd (%s)", name);

	r = memfd_seal(c, fd, &exec_sealed);
	if (r < 0)
		return cb_fail(c, r, "seal the memfd (%s)", name);
	if (m == CLONED_BINARY_METHOD_MEMFD_EXEC && !exec_sealed)
		m = CLONED_BINARY_METHOD_MEMFD;

	*ret_method = m;
	*ret_fd = TAKE_FD(fd);
	return 0;
}
