/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "macro.h"
#include "pidns.h"

int nsexec_ns_id_of_fd(int fd, struct nsexec_ns_id *ret)
{
	struct statfs sfs;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (fstatfs(fd, &sfs) < 0)
		return negative_errno();
	*ret = (struct nsexec_ns_id){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.nsfs = (unsigned long)sfs.f_type == NSFS_MAGIC,
	};
	return 0;
}

int nsexec_ns_id_of_path(const char *path, struct nsexec_ns_id *ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return negative_errno();
	return nsexec_ns_id_of_fd(fd, ret);
}

bool nsexec_procfs_is_ours(void)
{
	char buf[32];
	ssize_t n;
	long v = 0;

	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] < '0' || buf[i] > '9' || v > 1000000000L)
			return false;
		v = v * 10 + (buf[i] - '0');
	}
	return v == (long)getpid();
}

bool nsexec_ns_id_equal(const struct nsexec_ns_id *a,
			const struct nsexec_ns_id *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

bool nsexec_ns_id_is_initial_pid(const struct nsexec_ns_id *id)
{
	return id->nsfs && id->ino == PROC_PID_INIT_INO;
}

bool nsexec_ns_id_is_initial_user(const struct nsexec_ns_id *id)
{
	return id->nsfs && id->ino == PROC_USER_INIT_INO;
}

int nsexec_sysctl_read(void)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[16];
	ssize_t n;
	int v = 0;

	fd = open(NSEXEC_SYSCTL_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	if (n == 0 || buf[0] < '0' || buf[0] > '9')
		return -EBADMSG;
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
		if (v > 1000)
			return -EBADMSG;
		v = v * 10 + (buf[i] - '0');
	}
	return v;
}

int nsexec_sysctl_write(int level, enum nsexec_write_stage *ret_stage)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[2] = {(char)('0' + level), '\n'};
	ssize_t n;

	if (level < 0 || level > 9) {
		*ret_stage = NSEXEC_WRITE_WRITE;
		return -EINVAL;
	}
	fd = open(NSEXEC_SYSCTL_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		*ret_stage = NSEXEC_WRITE_OPEN;
		return negative_errno();
	}
	do
		n = write(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		*ret_stage = NSEXEC_WRITE_WRITE;
		return negative_errno();
	}
	if (n != (ssize_t)sizeof(buf)) {
		*ret_stage = NSEXEC_WRITE_WRITE;
		return -EIO;
	}
	return 0;
}

int nsexec_guard_active_pidns(const struct nsexec_ns_id *want,
			      const struct nsexec_ns_id *forbidden, size_t n)
{
	struct nsexec_ns_id self;
	int r;

	/* thread-self: the calling thread's own active namespace. */
	r = nsexec_ns_id_of_path("/proc/thread-self/ns/pid", &self);
	if (r < 0)
		r = nsexec_ns_id_of_path("/proc/self/ns/pid", &self);
	if (r < 0)
		return r;
	if (!self.nsfs || nsexec_ns_id_is_initial_pid(&self))
		return -EEXIST;
	for (size_t i = 0; i < n; i++)
		if (nsexec_ns_id_equal(&self, &forbidden[i]))
			return -EEXIST;
	if (want && !nsexec_ns_id_equal(&self, want))
		return -EPROTO;
	return 0;
}
