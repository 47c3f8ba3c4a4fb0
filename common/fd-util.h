/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading an fd whole or to a fixed size.  Header-only: each helper is
 * small, and every component (and the runc build) shares one copy.
 */
#ifndef MEMFD_TOOLKIT_FD_UTIL_H
#define MEMFD_TOOLKIT_FD_UTIL_H

#include <errno.h>
#include <stdlib.h>
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

#endif
