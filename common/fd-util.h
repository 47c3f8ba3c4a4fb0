/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading an fd whole or to a fixed size, and one field of an fd's fdinfo.
 * Header-only: each helper is small, and every component (and the runc
 * build) shares one copy.
 */
#ifndef MEMFD_TOOLKIT_FD_UTIL_H
#define MEMFD_TOOLKIT_FD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"

/*
 * Reads fd to EOF into a malloc'd buffer, NUL-terminated after the data.
 * Returns 0 and stores the buffer and its length (without the terminator),
 * -E2BIG for more than max_size bytes, -ENOMEM, or -errno of read(2)
 * (EINTR is retried).
 */
static inline int read_full_fd(int fd, size_t max_size, char **ret_data, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			size_t ncap = cap ? cap * 2 : 4096;
			char *p;

			/* Room for max_size + 1 bytes (to see the excess)
			 * and the terminator. */
			if (ncap > max_size + 2)
				ncap = max_size + 2;
			if (ncap <= cap)
				return -E2BIG;
			p = realloc(buf, ncap);
			if (!p)
				return -ENOMEM;
			buf = p;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max_size)
			return -E2BIG;
	}

	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -ENOMEM;
	}
	buf[len] = '\0';
	*ret_data = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

/*
 * Reads up to size bytes, retrying short reads and EINTR, and stops at EOF
 * or on an error.  Returns how many bytes arrived: a caller that needs all
 * of them compares with size.
 */
static inline size_t read_up_to(int fd, void *p, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t k = read(fd, (char *)p + got, size - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

/*
 * Reads /proc/self/fdinfo/FD into buf (size bytes, NUL-terminated) and
 * points *ret_value at the value of its line "KEY:", after the blanks: the
 * text up to the line's '\n', which the caller parses.  Returns 0;
 * -ENODATA when there is no such line (fd is not that kind of file);
 * -ENOENT when fd is not open; or another -errno of open/read.
 */
static inline int read_fdinfo_field(int fd, const char *key, char *buf, size_t size,
				    const char **ret_value)
{
	_cleanup_close_ int info = -EBADF;
	size_t klen = strlen(key);
	char path[64];
	const char *p;
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	if (info < 0)
		return negative_errno();
	n = read(info, buf, size - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	for (p = buf;; p++) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			p += klen + 1;
			*ret_value = p + strspn(p, " \t");
			return 0;
		}
		p = strchr(p, '\n');
		if (!p)
			return -ENODATA;
	}
}

#endif
