/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copying the binary into the clone.  AUTO first tries a reflink
 * (FICLONERANGE, Linux 4.5): where the clone is a file on the binary's
 * own btrfs or xfs mount, it shares the binary's extents copy-on-write,
 * so nothing is copied and a later write to either file leaves the other
 * as it was.  Everywhere else (a memfd, another mount: EXDEV; ext4, tmpfs:
 * EOPNOTSUPP) it fails at once and the copy proper follows.  sendfile
 * measured fastest (tests/bench/copy-time.sh, 8.8 MB into a memfd from
 * ext4: 2.8 ms; read/write 1.1x, mmap + write 2.8x).  A source sendfile
 * cannot read (EINVAL) falls back to mmap + write, then to a read/write
 * loop.  A fault while the kernel reads a mapping comes back as EFAULT,
 * not SIGBUS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cb-internal.h"

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* EFAULT: the mapped source shrank under us. */
			return errno == EFAULT ? -EIO : negative_errno();
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int copy_sendfile(int dst, int src, size_t size)
{
	off_t off = 0;

	while ((size_t)off < size) {
		ssize_t n = sendfile(dst, src, &off, size - (size_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			return -EIO; /* source shrank */
	}
	return 0;
}

static int copy_readwrite(int dst, int src, size_t size)
{
	char buf[64 * 1024];
	size_t done = 0;

	while (done < size) {
		ssize_t n = pread(src, buf, sizeof(buf), (off_t)done);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			return -EIO;
		r = write_all(dst, buf, (size_t)n);
		if (r < 0)
			return r;
		done += (size_t)n;
	}
	return 0;
}

static int copy_mmap(int dst, int src, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, src, 0);
	int r;

	if (p == MAP_FAILED)
		return negative_errno();
	r = write_all(dst, p, size);
	(void)munmap(p, size);
	return r;
}

/* Undoes a partial copy before the next strategy starts over. */
static int copy_rewind(int dst)
{
	if (lseek(dst, 0, SEEK_SET) < 0 || ftruncate(dst, 0) < 0)
		return negative_errno();
	return 0;
}

/*
 * The whole of src as dst's first size bytes, sharing extents, leaving
 * dst's offset after them as the other strategies do.  Only into an empty
 * dst at offset 0; -EINVAL, with dst untouched, otherwise.  A failed
 * ioctl leaves dst rewound to empty for the copy proper.
 */
static int copy_reflink(int dst, int src, size_t size)
{
#ifdef FICLONERANGE
	struct file_clone_range range = {
		.src_fd = src,
		.src_offset = 0,
		.src_length = size,
		.dest_offset = 0,
	};
	struct stat st;

	if (fstat(dst, &st) < 0)
		return negative_errno();
	if (st.st_size != 0 || lseek(dst, 0, SEEK_CUR) != 0)
		return -EINVAL;
	if (ioctl(dst, FICLONERANGE, &range) < 0) {
		int r = negative_errno(), q = copy_rewind(dst);

		return q < 0 ? q : r;
	}
	if (lseek(dst, (off_t)size, SEEK_SET) < 0)
		return negative_errno();
	return 0;
#else
	(void)dst, (void)src, (void)size;
	return -EOPNOTSUPP;
#endif
}

/* The errnos with which a reflink is simply not possible here. */
static bool reflink_unsupported(int r)
{
	return r == -EOPNOTSUPP || r == -EXDEV || r == -EINVAL || r == -ENOTTY || r == -ENOSYS;
}

int cloned_binary_copy(int dst, int src, size_t size, enum cloned_binary_copy how)
{
	int r;

	if (size == 0)
		return 0;

	switch (how) {
	case CLONED_BINARY_COPY_SENDFILE:
		return copy_sendfile(dst, src, size);
	case CLONED_BINARY_COPY_MMAP:
		return copy_mmap(dst, src, size);
	case CLONED_BINARY_COPY_READWRITE:
		return copy_readwrite(dst, src, size);
	case CLONED_BINARY_COPY_AUTO:
		break;
	default:
		return -EINVAL;
	}

	r = copy_reflink(dst, src, size);
	if (!reflink_unsupported(r))
		return r;
	r = copy_sendfile(dst, src, size);
	if (r != -EINVAL && r != -ENOSYS)
		return r;
	r = copy_rewind(dst);
	if (r < 0)
		return r;
	r = copy_mmap(dst, src, size);
	if (r != -EINVAL && r != -ENODEV)
		return r;
	r = copy_rewind(dst);
	if (r < 0)
		return r;
	return copy_readwrite(dst, src, size);
}

int cb_copy_checked(int dst, int src, size_t size)
{
	struct stat st;
	int r;

	r = cloned_binary_copy(dst, src, size, CLONED_BINARY_COPY_AUTO);
	if (r < 0)
		return r;
	/* A source that grew or shrank meanwhile gave a torn copy. */
	if (fstat(src, &st) < 0)
		return negative_errno();
	if ((size_t)st.st_size != size)
		return -EIO;
	if (fstat(dst, &st) < 0)
		return negative_errno();
	if ((size_t)st.st_size != size)
		return -EIO;
	return 0;
}
