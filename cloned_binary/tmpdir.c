/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The file methods: an unlinked, non-writable copy in a directory that the
 * kernel, not some user, is in charge of.
 *
 * A directory is used only if it is owned by the effective user or by
 * root, is not writable by group or others without the sticky bit, is not
 * append-only or immutable, and is not mounted noexec or read-only; and
 * the new file itself must sit on tmpfs, ext4, xfs or btrfs (fstatfs of
 * the file, after it exists and before a byte is written).  On FUSE or a
 * network filesystem the file's owner decides what mode, link count and
 * bytes the kernel sees, so nothing checked there would hold.
 *
 * Everything happens through one directory fd, so the directory checked is
 * the directory used.  tmpfile is O_TMPFILE|O_EXCL (never linkable);
 * mkostemp creates a random name, unlinks it and verifies nlink == 0
 * before writing anything, so a name that could not be removed never holds
 * a copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cb-internal.h"

#define REASON_MAX CB_REASON_MAX

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

bool cb_fs_is_trusted(unsigned long f_type)
{
	return f_type == TMPFS_MAGIC || f_type == EXT4_SUPER_MAGIC || f_type == XFS_SUPER_MAGIC ||
	       f_type == BTRFS_SUPER_MAGIC;
}

const char *cb_fs_name(unsigned long f_type, char *buf, size_t size)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} names[] = {
		{TMPFS_MAGIC, "tmpfs"},
		{EXT4_SUPER_MAGIC, "ext4"},
		{XFS_SUPER_MAGIC, "xfs"},
		{BTRFS_SUPER_MAGIC, "btrfs"},
		{FUSE_SUPER_MAGIC, "fuse"},
		{NFS_SUPER_MAGIC, "nfs"},
		{OVERLAYFS_SUPER_MAGIC, "overlayfs"},
		{V9FS_MAGIC, "9p"},
		{SMB_SUPER_MAGIC, "smb"},
	};

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (names[i].magic == f_type)
			return names[i].name;
	(void)snprintf(buf, size, "filesystem 0x%lx", f_type);
	return buf;
}

/* The mode and ownership rules; 0 or -EPERM with the reason. */
static int dir_check_owner(const struct stat *st, char *why)
{
	uid_t me = geteuid();

	if (st->st_uid != me && st->st_uid != 0) {
		(void)snprintf(why, REASON_MAX, "owned by uid %u, not by us (uid %u) or root",
			       (unsigned)st->st_uid, (unsigned)me);
		return -EPERM;
	}
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX)) {
		(void)snprintf(why, REASON_MAX,
			       "writable by group or others without the sticky bit (mode %04o)",
			       (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* The mount and inode-flag rules; 0 or -errno with the reason. */
static int dir_check_mount(int dfd, char *why)
{
	struct statvfs sv;
	int flags = 0;

	if (fstatvfs(dfd, &sv) < 0) {
		int r = negative_errno();

		(void)snprintf(why, REASON_MAX, "cannot read its mount flags: %s", strerror(-r));
		return r;
	}
	if (sv.f_flag & (ST_NOEXEC | ST_RDONLY)) {
		(void)snprintf(why, REASON_MAX, "mounted %s",
			       sv.f_flag & ST_NOEXEC ? "noexec" : "read-only");
		return -EROFS;
	}
	/* ENOTTY/EOPNOTSUPP: no inode flags here, so none are set. */
	if (ioctl(dfd, FS_IOC_GETFLAGS, &flags) == 0 &&
	    (flags & (FS_APPEND_FL | FS_IMMUTABLE_FL))) {
		(void)snprintf(
			why, REASON_MAX,
			"append-only or immutable (chattr +a/+i): a temporary name could not be removed there");
		return -EPERM;
	}
	return 0;
}

/* Opens dir and checks it; returns the fd, or -errno with the reason. */
int cb_dir_open_checked(const char *dir, char *why)
{
	_cleanup_close_ int dfd = -EBADF;
	struct stat st;
	int r;

	why[0] = '\0';
	if (dir[0] != '/') {
		(void)snprintf(why, REASON_MAX, "not an absolute path");
		return -EINVAL;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = negative_errno();
		(void)snprintf(why, REASON_MAX, "cannot open it: %s", strerror(-r));
		return r;
	}
	if (fstat(dfd, &st) < 0) {
		r = negative_errno();
		(void)snprintf(why, REASON_MAX, "cannot stat it: %s", strerror(-r));
		return r;
	}
	r = dir_check_owner(&st, why);
	if (r < 0)
		return r;
	r = dir_check_mount(dfd, why);
	if (r < 0)
		return r;
	return TAKE_FD(dfd);
}

/* A fresh ".cloned_binary-XXXXXX" name; no libc state involved. */
static void random_name(char *buf, size_t size, unsigned attempt)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6] = {};

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)(getpid() * 31 + attempt * 7 + i * 13);
	(void)snprintf(buf, size, ".cloned_binary-%c%c%c%c%c%c", chars[rnd[0] % 36],
		       chars[rnd[1] % 36], chars[rnd[2] % 36], chars[rnd[3] % 36],
		       chars[rnd[4] % 36], chars[rnd[5] % 36]);
}

/*
 * mkostemp's way, through the directory fd: create a new name, remove it,
 * and prove it is gone (nlink == 0) before the caller writes a byte.  A
 * name that will not go away is reported with its path; it is empty.
 */
static int file_create_named(const struct cb_ctx *c, int dfd, const char *dir, int *ret_fd,
			     bool *ret_left)
{
	_cleanup_close_ int fd = -EBADF;
	char name[32];
	struct stat st;
	int r;

	for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
		random_name(name, sizeof(name), attempt);
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
		if (fd < 0 && errno != EEXIST)
			return negative_errno();
	}
	if (fd < 0)
		return -EEXIST;

	if (unlinkat(dfd, name, 0) < 0) {
		r = negative_errno();
		*ret_left = true;
		return mt_error_set(
			c->err, r,
			"Failed to remove the temporary name %s/%s: %s. It is empty; remove it by hand",
			dir, name, strerror(-r));
	}
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_nlink != 0) {
		(void)unlinkat(dfd, name, 0);
		*ret_left = true;
		return mt_error_set(
			c->err, -ENOEXEC,
			"Refusing %s/%s for the sealed copy: it still has %lu link(s) after unlink. It is empty; remove it by hand",
			dir, name, (unsigned long)st.st_nlink);
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/*
 * An empty, nameless, writable file in dfd; *ret_method says which way.
 * *ret_left is set when a temporary name could not be removed: that
 * failure is final (the error names it), never a reason to try elsewhere.
 */
static int file_create(const struct cb_ctx *c, int dfd, const char *dir,
		       enum cloned_binary_method *ret_method, int *ret_fd, bool *ret_left)
{
	int fd;

	if (c->f.o_tmpfile) {
		/* O_EXCL: the file can never be linked into the filesystem. */
		fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0700);
		if (fd >= 0) {
			*ret_method = CLONED_BINARY_METHOD_TMPFILE;
			*ret_fd = fd;
			return 0;
		}
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return negative_errno();
		cb_debug(c,
			 "cloned_binary: O_TMPFILE unsupported in %s (%m), using a temporary name",
			 dir);
	}
	*ret_method = CLONED_BINARY_METHOD_MKOSTEMP;
	return file_create_named(c, dfd, dir, ret_fd, ret_left);
}

/* The new file's own filesystem must be one whose answers we can trust. */
static int file_check_fs(int fd, char *why)
{
	struct statfs sfs;
	char buf[32];

	if (fstatfs(fd, &sfs) < 0) {
		int r = negative_errno();

		(void)snprintf(why, REASON_MAX, "cannot read the new file's filesystem: %s",
			       strerror(-r));
		return r;
	}
	if (cb_fs_is_trusted((unsigned long)sfs.f_type))
		return 0;
	(void)snprintf(
		why, REASON_MAX,
		"on %s, where the file's owner, not the kernel, decides its mode, link count and bytes",
		cb_fs_name((unsigned long)sfs.f_type, buf, sizeof(buf)));
	return -EPERM;
}

/* Makes the rw file read-only and executable; returns an O_PATH fd. */
static int file_finish(int rwfd, size_t size, int *ret_fd)
{
	_cleanup_close_ int pathfd = -EBADF;
	char proc[64];
	struct stat st;

	if (fchmod(rwfd, 0500) < 0)
		return negative_errno();

	/* Only a non-writable reference may stay: execve refuses a file
	 * that is open for writing (ETXTBSY). */
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", rwfd);
	pathfd = open(proc, O_PATH | O_CLOEXEC);
	if (pathfd < 0)
		return negative_errno();

	if (fstat(pathfd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode) || st.st_nlink != 0 || (st.st_mode & 0222) != 0 ||
	    (st.st_mode & 0100) == 0 || (size_t)st.st_size != size)
		return -ENOEXEC;

	*ret_fd = TAKE_FD(pathfd);
	return 0;
}

/*
 * The copy in one directory.  *ret_skip tells the caller that this
 * directory is unusable (a rule, or a "not here" errno before anything
 * was created) and another may be tried; every other failure is final.
 */
static int clone_in(const struct cb_ctx *c, int src, size_t size, const char *dir,
		    enum cloned_binary_method *ret_method, int *ret_fd, char *why, bool *ret_skip)
{
	_cleanup_close_ int dfd = -EBADF, rwfd = -EBADF;
	enum cloned_binary_method m;
	const char *name;
	bool left = false;
	int r;

	*ret_skip = true;
	dfd = cb_dir_open_checked(dir, why);
	if (dfd < 0)
		return dfd;
	r = file_create(c, dfd, dir, &m, &rwfd, &left);
	if (r < 0) {
		*ret_skip = !left;
		(void)snprintf(why, REASON_MAX, "cannot create a file there: %s", strerror(-r));
		return r;
	}
	r = file_check_fs(rwfd, why);
	if (r < 0)
		return r;
	*ret_skip = false;
	name = cloned_binary_method_to_string(m);

	r = cb_copy_checked(rwfd, src, size);
	if (r < 0)
		return cb_fail(c, r, "copy the binary into %s (%s)", dir, name);
	r = file_finish(rwfd, size, ret_fd);
	if (r < 0)
		return cb_fail(c, r, "seal the copy in %s (%s)", dir, name);
	*ret_method = m;
	return 0;
}

static int clone_explicit(const struct cb_ctx *c, int src, size_t size,
			  enum cloned_binary_method *ret_method, int *ret_fd)
{
	const char *dir = c->opts->tmpdir;
	char why[REASON_MAX];
	bool skip;
	int r;

	r = clone_in(c, src, size, dir, ret_method, ret_fd, why, &skip);
	if (r < 0 && skip)
		return mt_error_set(
			c->err, r,
			"Refusing %s for the sealed copy: %s. Use a directory owned by you or root, not writable by others (or sticky), on tmpfs, ext4, xfs or btrfs, mounted with exec",
			dir, why);
	return r;
}

/* Only "not here" errors move on to the next directory. */
static bool is_not_here(int r)
{
	return r == -EACCES || r == -EPERM || r == -EROFS || r == -ENOENT || r == -ENOTDIR ||
	       r == -ENOSPC || r == -EDQUOT || r == -EINVAL;
}

int cb_clone_file(const struct cb_ctx *c, int src, size_t size,
		  enum cloned_binary_method *ret_method, int *ret_fd)
{
	static const char *const defaults[] = {"/run", "/tmp", "/var/tmp", "/dev/shm", NULL};
	const char *const *lists[] = {c->opts->tmpdirs, defaults};
	const char *last = "none";
	char why[REASON_MAX] = "missing";
	int r = -ENOENT;

	if (c->opts->tmpdir)
		return clone_explicit(c, src, size, ret_method, ret_fd);

	for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
		for (size_t i = 0; lists[l] && lists[l][i]; i++) {
			bool skip;

			r = clone_in(c, src, size, lists[l][i], ret_method, ret_fd, why, &skip);
			if (r == 0)
				return 0;
			if (!skip || !is_not_here(r))
				return r;
			last = lists[l][i];
			cb_debug(c, "cloned_binary: skipping %s: %s", lists[l][i], why);
		}
	}
	return mt_error_set(
		c->err, r,
		"Failed to find a usable directory for the sealed copy (tmpfile); the last one tried, %s: %s",
		last, why);
}
