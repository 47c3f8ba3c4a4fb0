/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fd-util.h"
#include "macro.h"
#include "missing-syscall.h"
#include "memfd-sysctl.h"
#include "parse.h"
#include "pidns.h"

/* The kernel's PID_MAX_LIMIT on 64-bit: no PID is larger. */
#define PID_MAX_LIMIT 4194304
/* PID namespaces nest 32 deep at most (MAX_PID_NS_LEVEL). */
#define PIDNS_MAX_DEPTH 40
/* User namespaces nest 32 deep at most too. */
#define USERNS_MAX_DEPTH 40

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

int nsexec_ns_id_self(struct nsexec_ns_id *ret)
{
	/* thread-self: the calling thread's own active namespace. */
	int r = nsexec_ns_id_of_path("/proc/thread-self/ns/pid", ret);

	if (r < 0)
		r = nsexec_ns_id_of_path("/proc/self/ns/pid", ret);
	return r;
}

int nsexec_procfs_is_ours(void)
{
	char buf[32];
	ssize_t n;
	int v;

	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n < 0)
		/* ENOENT: a procfs of a PID namespace that does not hold us. */
		return errno == ENOENT ? 0 : negative_errno();
	if (n == 0)
		return 0;
	buf[n] = '\0';
	return mt_parse_int(buf, PID_MAX_LIMIT, &v, NULL) == 0 && v == (int)getpid();
}

bool nsexec_ns_id_equal(const struct nsexec_ns_id *a, const struct nsexec_ns_id *b)
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

/* Opens /proc/<pid>; the caller re-checks the pidfd after reading. */
static int open_proc_pid(pid_t pid)
{
	int r = nsexec_procfs_is_ours(), fd;
	char path[32];

	if (r <= 0)
		return r < 0 ? r : -EOPNOTSUPP;
	(void)snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : negative_errno();
	return fd;
}

static int still_alive(int pidfd)
{
	if (pidfd >= 0 && missing_pidfd_send_signal(pidfd, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	return 0;
}

/* The namespace "name" ("pid", "user") of pidfd's process: see nsexec-ns.h. */
static int ns_of_pidfd(int pidfd, pid_t pid, bool use_ioctl, unsigned long request,
		       const char *name, bool *ret_by_proc)
{
	_cleanup_close_ int dfd = -EBADF, fd = -EBADF;
	char path[16];
	int r;

	if (use_ioctl && pidfd >= 0) {
		fd = ioctl(pidfd, request, 0);
		if (fd < 0 && errno != ENOTTY && errno != EINVAL)
			return negative_errno();
	}
	if (fd < 0) {
		if (pid <= 0)
			return -EOPNOTSUPP;
		dfd = open_proc_pid(pid);
		if (dfd < 0)
			return dfd;
		(void)snprintf(path, sizeof(path), "ns/%s", name);
		fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) /* ENOENT: it is exiting, its namespaces gone */
			return errno == ENOENT ? -ESRCH : negative_errno();
		r = still_alive(pidfd);
		if (r < 0)
			return r;
	}
	if (ret_by_proc)
		*ret_by_proc = dfd >= 0;
	return TAKE_FD(fd);
}

int nsexec_pidns_of_pidfd(int pidfd, pid_t pid, bool use_ioctl, bool *ret_by_proc)
{
	return ns_of_pidfd(pidfd, pid, use_ioctl, PIDFD_GET_PID_NAMESPACE, "pid", ret_by_proc);
}

int nsexec_userns_of_pidfd(int pidfd, pid_t pid, bool use_ioctl, bool *ret_by_proc)
{
	return ns_of_pidfd(pidfd, pid, use_ioctl, PIDFD_GET_USER_NAMESPACE, "user", ret_by_proc);
}

int nsexec_pidns_is_below(int fd, const struct nsexec_ns_id *above)
{
	_cleanup_close_ int cur = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	struct nsexec_ns_id id;
	int r;

	if (cur < 0)
		return negative_errno();
	for (int depth = 0; depth < PIDNS_MAX_DEPTH; depth++) {
		int parent = ioctl(cur, NS_GET_PARENT);

		if (parent < 0)
			return errno == EPERM ? 0 : negative_errno();
		(void)close(cur);
		cur = parent;
		r = nsexec_ns_id_of_fd(cur, &id);
		if (r < 0)
			return r;
		if (nsexec_ns_id_equal(&id, above))
			return 1;
	}
	return -ELOOP;
}

int nsexec_ns_owner_uid(int fd, uid_t *ret)
{
	_cleanup_close_ int user = ioctl(fd, NS_GET_USERNS);
	uid_t uid;

	if (user < 0)
		return negative_errno();
	if (ioctl(user, NS_GET_OWNER_UID, &uid) < 0)
		return negative_errno();
	*ret = uid;
	return 0;
}

int nsexec_userns_top_owner(int userns_fd, uid_t *ret, bool *ret_top)
{
	_cleanup_close_ int cur = fcntl(userns_fd, F_DUPFD_CLOEXEC, 3);
	struct nsexec_ns_id id;
	uid_t uid;
	int r;

	if (cur < 0)
		return negative_errno();
	r = nsexec_ns_id_of_fd(cur, &id);
	if (r < 0)
		return r;
	if (nsexec_ns_id_is_initial_user(&id)) {
		*ret_top = false;
		return 0;
	}
	for (int depth = 0;; depth++) {
		_cleanup_close_ int parent = -EBADF;

		if (depth >= USERNS_MAX_DEPTH)
			return -ELOOP;
		parent = ioctl(cur, NS_GET_PARENT);
		if (parent < 0)
			return negative_errno();
		r = nsexec_ns_id_of_fd(parent, &id);
		if (r < 0)
			return r;
		if (nsexec_ns_id_is_initial_user(&id))
			break;
		(void)close(cur);
		cur = TAKE_FD(parent);
	}
	if (ioctl(cur, NS_GET_OWNER_UID, &uid) < 0)
		return negative_errno();
	*ret = uid;
	*ret_top = true;
	return 0;
}

/*
 * The next blank-separated number of a /proc line at *p, up to max:
 * returns 0 and moves *p past its digits; -ENODATA at the end of the line
 * (or of the text); -EBADMSG for anything else (a sign, a letter, a
 * number out of range).  So "12x" is 12, then -EBADMSG.
 */
static int next_number(const char **p, uint64_t max, uint64_t *ret)
{
	const char *s = *p, *end;

	s += strspn(s, " \t");
	if (*s == '\n' || *s == '\0')
		return -ENODATA;
	if (mt_parse_uint(s, max, ret, &end) < 0)
		return -EBADMSG;
	*p = end;
	return 0;
}

/* The last number of the "NSpid:" line of a /proc/<pid>/status text. */
static int last_nspid(const char *status)
{
	const char *line = strstr(status, "\nNSpid:"), *p;
	uint64_t v;
	int r, last = -EBADMSG;

	if (!line)
		return -EOPNOTSUPP; /* before 4.1, or no CONFIG_PID_NS */
	p = line + 7;
	while ((r = next_number(&p, PID_MAX_LIMIT, &v)) == 0)
		last = (int)v;
	return r == -ENODATA ? last : r;
}

int nsexec_pid_is_ns_init(pid_t pid, int pidfd)
{
	_cleanup_close_ int dfd = -EBADF, fd = -EBADF;
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r, v;

	dfd = open_proc_pid(pid);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = read_full_fd(fd, 64 * 1024, &text, &len);
	if (r < 0)
		return r;
	v = last_nspid(text);
	if (v < 0)
		return v;
	r = still_alive(pidfd);
	if (r < 0)
		return r;
	return v == 1;
}

/* True if some "inside outside count" line of a uid_map text maps the
 * outside uid g; -EBADMSG unless every line is exactly three numbers. */
static int maps_uid(const char *text, unsigned long g)
{
	for (const char *p = text; *p; p++) {
		uint64_t inside, outside, count, more;

		if (next_number(&p, UINT32_MAX, &inside) < 0 ||
		    next_number(&p, UINT32_MAX, &outside) < 0 ||
		    next_number(&p, UINT32_MAX, &count) < 0 ||
		    next_number(&p, UINT64_MAX, &more) != -ENODATA)
			return -EBADMSG;
		if (g >= outside && g - outside < count)
			return 1;
		p += strspn(p, " \t");
		if (*p == '\0')
			break;
	}
	return 0;
}

/*
 * Global root as our user namespace sees it: the owner of the sysctl,
 * which always belongs to it.  1 with its uid here, or 0 when it is not
 * mapped here (stat shows the overflow uid): then no namespace below ours
 * can map it either.
 */
static int global_root_here(unsigned long *ret)
{
	_cleanup_close_ int fd = -EBADF;
	uint64_t overflow = 65534; /* the kernel's default */
	struct stat st;
	char buf[16] = "";
	const char *end;
	ssize_t n;

	if (stat(MT_MEMFD_NOEXEC_PATH, &st) < 0)
		return negative_errno();
	fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0)
			return negative_errno();
		if (mt_parse_uint(buf, UINT32_MAX, &overflow, &end) < 0 || strcmp(end, "\n") != 0)
			return -EBADMSG;
	}
	*ret = st.st_uid;
	return st.st_uid != overflow;
}

int nsexec_pid_maps_global_root(pid_t pid, int pidfd)
{
	_cleanup_close_ int dfd = -EBADF, fd = -EBADF;
	_cleanup_free_ char *text = NULL;
	struct nsexec_ns_id ours, theirs;
	unsigned long g;
	size_t len;
	int r;

	r = global_root_here(&g);
	if (r <= 0)
		return r;
	dfd = open_proc_pid(pid);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, "ns/user", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = nsexec_ns_id_of_fd(fd, &theirs);
	if (r >= 0)
		r = nsexec_ns_id_of_path("/proc/self/ns/user", &ours);
	if (r < 0)
		return r;
	if (nsexec_ns_id_equal(&ours, &theirs))
		return still_alive(pidfd) < 0 ? -ESRCH : 1;
	/* From outside the target's namespace the outside ids of its
	 * uid_map are ours: global root is g there. */
	fd = safe_close(fd);
	fd = openat(dfd, "uid_map", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = read_full_fd(fd, 64 * 1024, &text, &len);
	if (r < 0)
		return r;
	r = maps_uid(text, g);
	if (r < 0)
		return r;
	return still_alive(pidfd) < 0 ? -ESRCH : r;
}

pid_t nsexec_pidfd_pid(int pidfd)
{
	char buf[1024];
	const char *p, *end;
	int v, r;

	r = read_fdinfo_field(pidfd, "Pid", buf, sizeof(buf), &p);
	if (r < 0)
		return r == -ENODATA || r == -ENOENT ? -EBADF : r;
	/* "-1" once it has exited, "0" when it is in no namespace of ours. */
	if (strncmp(p, "-1\n", 3) == 0)
		return -ESRCH;
	if (mt_parse_int(p, PID_MAX_LIMIT, &v, &end) < 0 || *end != '\n')
		return -EBADMSG;
	return v > 0 ? (pid_t)v : -ESRCH;
}

int nsexec_guard_active_pidns(const struct nsexec_ns_id *want, const struct nsexec_ns_id *forbidden,
			      size_t n)
{
	struct nsexec_ns_id self;
	int r;

	r = nsexec_ns_id_self(&self);
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
