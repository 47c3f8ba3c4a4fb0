/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel-features.h"
#include "macro.h"
#include "missing-syscall.h"
#include "memfd-sysctl.h"

static const struct {
	const char *name;
	size_t offset;
} table[] = {
	{"memfd_create", offsetof(struct mt_features, memfd_create)},
	{"mfd_exec", offsetof(struct mt_features, mfd_exec)},
	{"seal_exec", offsetof(struct mt_features, seal_exec)},
	{"memfd_noexec", offsetof(struct mt_features, memfd_noexec)},
	{"o_tmpfile", offsetof(struct mt_features, o_tmpfile)},
	{"execveat", offsetof(struct mt_features, execveat)},
	{"fsopen", offsetof(struct mt_features, fsopen)},
	{"so_peerpidfd", offsetof(struct mt_features, so_peerpidfd)},
	{"pidfd_get_pid_namespace", offsetof(struct mt_features, pidfd_get_pid_namespace)},
};

const size_t mt_features_count = ELEMENTSOF(table);

const char *mt_feature_name(size_t i)
{
	return i < ELEMENTSOF(table) ? table[i].name : NULL;
}

static bool *feature_ptr(struct mt_features *f, size_t i)
{
	return (bool *)((char *)f + table[i].offset);
}

bool mt_feature_value(const struct mt_features *f, size_t i)
{
	return i < ELEMENTSOF(table) && *(const bool *)((const char *)f + table[i].offset);
}

static bool probe_o_tmpfile(void)
{
	static const char *const dirs[] = {"/tmp", "/var/tmp", "/dev/shm", "/run"};

	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		_cleanup_close_ int fd =
			open(dirs[i], O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

		/* EISDIR/EINVAL/EOPNOTSUPP: unknown flag or unsupported
		 * filesystem; EACCES: not ours to write. */
		if (fd >= 0)
			return true;
	}
	return false;
}

/*
 * MFD_NOEXEC_SEAL is known exactly when MFD_EXEC is, is never refused by
 * vm.memfd_noexec (so no refusal is logged), and makes a memfd born with
 * F_SEAL_EXEC: one call answers both mfd_exec and seal_exec.  Without it,
 * F_SEAL_EXEC is tried on a plain sealable memfd.
 */
static void probe_memfd(struct mt_features *f)
{
	_cleanup_close_ int fd = -EBADF;
	int seals;

	/* Anything but ENOSYS means the syscall exists (EINVAL comes from
	 * 6.3-6.5.2 at vm.memfd_noexec=2 for a call without exec flag). */
	fd = missing_memfd_create("mt-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	f->memfd_create = fd >= 0 || errno != ENOSYS;
	if (!f->memfd_create)
		return;

	if (fd >= 0)
		f->seal_exec = fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) >= 0;
	fd = safe_close(fd);

	fd = missing_memfd_create("mt-probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
	if (fd < 0)
		return;
	f->mfd_exec = true;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 && (seals & F_SEAL_EXEC))
		f->seal_exec = true;
}

/* Unknown socket option: ENOPROTOOPT (before 6.5). */
static bool probe_so_peerpidfd(void)
{
	_cleanup_close_ int a = -EBADF, b = -EBADF, pidfd = -EBADF;
	socklen_t len = sizeof(pidfd);
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return false;
	a = sv[0];
	b = sv[1];
	return getsockopt(a, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0;
}

/* Unknown ioctl on a pidfd: ENOTTY (before 6.11). */
static bool probe_pidfd_ns(void)
{
	_cleanup_close_ int pidfd = missing_pidfd_open(getpid(), 0), ns = -EBADF;

	if (pidfd < 0)
		return false;
	ns = ioctl(pidfd, PIDFD_GET_PID_NAMESPACE, 0);
	return ns >= 0;
}

void mt_features_probe(struct mt_features *ret)
{
	static struct mt_features cache;
	static bool cached;

	if (!cached) {
		struct mt_features f = {};

		probe_memfd(&f);
		f.memfd_noexec = access(MT_MEMFD_NOEXEC_PATH, F_OK) == 0;
		f.o_tmpfile = probe_o_tmpfile();
		/* fd -1, empty path: EBADF if execveat exists; never runs
		 * anything. */
		(void)missing_execveat(-1, "", NULL, NULL, AT_EMPTY_PATH);
		f.execveat = errno != ENOSYS;
		/* No such filesystem: ENODEV, or EPERM without privilege. */
		(void)missing_fsopen("", FSOPEN_CLOEXEC);
		f.fsopen = errno != ENOSYS;
		f.so_peerpidfd = probe_so_peerpidfd();
		f.pidfd_get_pid_namespace = probe_pidfd_ns();
		cache = f;
		cached = true;
	}
	*ret = cache;
}

static int feature_index(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (strcmp(name, table[i].name) == 0)
			return (int)i;
	return -EINVAL;
}

static int allowed_names(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(table) && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s-%s", i ? ", " : "", table[i].name);

		if (n < 0)
			return -EIO;
		used += (size_t)n;
	}
	return 0;
}

int mt_features_disable(struct mt_features *f, const char *list, const char *what,
			struct mt_error **err)
{
	_cleanup_free_ char *copy = NULL;
	struct mt_features g = *f;
	char *save = NULL, names[256];

	if (!list || !*list)
		return 0;
	copy = strdup(list);
	if (!copy)
		return mt_error_set(err, -ENOMEM, "Failed to parse %s: %s", what, strerror(ENOMEM));
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i = t[0] == '-' ? feature_index(t + 1) : -EINVAL;

		if (i < 0) {
			(void)allowed_names(names, sizeof(names));
			return mt_error_set(
				err, -EINVAL,
				"Refusing %s=%s: '%s' is not one of %s (features can only be turned off, for tests).",
				what, list, t, names);
		}
		*feature_ptr(&g, (size_t)i) = false;
	}
	*f = g;
	return 0;
}
