/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime interface (runtime.h): the request's values checked, applied,
 * and the level that decides the huge-page rule read through an fd opened
 * before the container's namespaces and mounts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "escape.h"
#include "fd-util.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "runtime.h"

/* ---- the request ---------------------------------------------------------- */

int nsexec_runtime_parse_level(const char *name, const char *where,
			       const struct nsexec_runtime_value *value, struct mt_error **err)
{
	_cleanup_free_ char *quoted = NULL;
	size_t kept;

	if (!name || !where || !value || !value->text)
		return mt_error_set(err, -EINVAL,
				    "Refusing a vm.memfd_noexec request: no value given");
	if (value->len == 1) {
		const char word[2] = {value->text[0], '\0'};
		int level = mt_memfd_noexec_parse(word);

		if (level >= 0)
			return level;
	}
	kept = value->len < NSEXEC_RUNTIME_MAX_VALUE ? value->len : NSEXEC_RUNTIME_MAX_VALUE;
	quoted = mt_quote(value->text, kept, value->len);
	if (!quoted)
		return mt_error_set(err, -ENOMEM, "Failed to quote %s: %s", name, strerror(ENOMEM));
	if (value->len > NSEXEC_RUNTIME_MAX_VALUE)
		return mt_error_set(
			err, -E2BIG,
			"Refusing %s = %s in %s: the value is longer than %u bytes. Allowed values are \"0\", \"1\" or \"2\" (JSON strings). Set one of them, or remove it to keep the inherited vm.memfd_noexec.",
			name, quoted, where, NSEXEC_RUNTIME_MAX_VALUE);
	return mt_error_set(
		err, -EINVAL,
		"Refusing %s = %s in %s: allowed values are \"0\", \"1\" or \"2\" (a JSON string holding exactly one digit, without spaces or a newline). Set one of them, or remove it to keep the inherited vm.memfd_noexec.",
		name, quoted, where);
}

int nsexec_runtime_level(const struct nsexec_runtime_values *values, const char *where,
			 struct mt_error **err)
{
	const struct {
		const struct nsexec_runtime_value *value;
		const char *name;
	} fields[] = {
		{&values->annotation, "annotations[\"" NSEXEC_RUNTIME_ANNOTATION "\"]"},
		{&values->sysctl, "linux.sysctl[\"" NSEXEC_RUNTIME_SYSCTL "\"]"},
		{&values->sysctl_slash, "linux.sysctl[\"" NSEXEC_RUNTIME_SYSCTL_SLASH "\"]"},
	};
	int level = NSEXEC_RUNTIME_LEVEL_NONE;
	const char *from = NULL;

	for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
		int v;

		if (!fields[i].value->text)
			continue;
		v = nsexec_runtime_parse_level(fields[i].name, where, fields[i].value, err);
		if (v < 0)
			return v;
		if (from && v != level)
			return mt_error_set(
				err, -EINVAL,
				"Refusing %s: %s = \"%d\" and %s = \"%d\" ask for different vm.memfd_noexec levels. Make them equal (allowed values are \"0\", \"1\" or \"2\") or remove one of them.",
				where, from, level, fields[i].name, v);
		level = v;
		from = fields[i].name;
	}
	return level;
}

/* ---- applying it ---------------------------------------------------------- */

int nsexec_runtime_apply(pid_t target, const struct nsexec_runtime_request *req,
			 struct nsexec_result *ret, struct mt_error **err)
{
	struct nsexec_request r = {
		.level = req->level,
		.origin = req->pidns,
		.keeps_sys_admin = req->keeps_sys_admin,
		.service_socket = req->service_socket,
	};

	if (req->level < 0 || req->level > 2)
		return mt_error_set(err, -EINVAL,
				    "Refusing vm.memfd_noexec=%d: allowed values are 0, 1 or 2",
				    req->level);
	return nsexec_apply_memfd_noexec(target, &r, ret, err);
}

int nsexec_runtime_check_exec(pid_t target, int level, bool keeps_sys_admin, struct mt_error **err)
{
	return nsexec_check_exec_sys_admin(target, level, keeps_sys_admin, err);
}

/* ---- the huge-page rule --------------------------------------------------- */

/* Only procfs answers for the reader's namespace; anything else at that
 * path (an image's file, no procfs on /proc) may lie. */
static int check_procfs(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return negative_errno();
	if ((unsigned long)sfs.f_type != (unsigned long)PROC_SUPER_MAGIC)
		return -EMEDIUMTYPE;
	return 0;
}

int nsexec_runtime_level_open(void)
{
	int fd, r;

	fd = open(MT_MEMFD_NOEXEC_PATH, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	r = check_procfs(fd);
	if (r < 0) {
		(void)close(fd);
		return r;
	}
	return fd;
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

/* What the file says, unclamped. */
static int level_read(int fd)
{
	int r;

	if (fd < 0) {
		/* Missing: no levels in this kernel, or hidden from us. */
		if (fd == -ENOENT && kernel_has_exec_control() == 0)
			return -EOPNOTSUPP;
		return fd;
	}
	r = check_procfs(fd);
	if (r < 0)
		return r;
	return mt_memfd_noexec_read_fd(fd);
}

int nsexec_runtime_level_read(int level_fd, int requested)
{
	int effective = level_read(level_fd);

	if (level_fd >= 0)
		(void)close(level_fd);
	/* The request held before this process went on (the runtime applied
	 * it, or refused the container): never decide below it.  An
	 * unreadable level stays an error, which gets the rule. */
	if (effective >= 0 && requested > effective && requested <= 2)
		return requested;
	return effective;
}

bool nsexec_hugetlb_rule_needed(int effective)
{
	if (effective < 0)
		return effective != -EOPNOTSUPP;
	return effective >= NSEXEC_HUGETLB_MEMFD_LEVEL;
}

int nsexec_runtime_hugetlb_rule(int level_fd, int requested, int *ret_effective,
				struct mt_error **err)
{
	int effective = nsexec_runtime_level_read(level_fd, requested), r;

	if (ret_effective)
		*ret_effective = effective;
	if (!nsexec_hugetlb_rule_needed(effective))
		return 0;
	r = nsexec_seccomp_deny_hugetlb_memfd(err);
	return r < 0 ? r : 1;
}
