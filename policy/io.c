/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "policy.h"

int policy_read_fd(int fd, size_t max_size, char **ret_data, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	if (fd < 0 || !ret_data || !ret_len)
		return -EINVAL;

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
