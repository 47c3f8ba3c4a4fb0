/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "memfd-sysctl.h"

int mt_memfd_noexec_parse(const char *s)
{
	/* Three words, not a number: "00", "+1" or " 2" are not levels. */
	static const char *const levels[] = {"0", "1", "2"};

	for (int i = 0; s && i < (int)ELEMENTSOF(levels); i++)
		if (strcmp(s, levels[i]) == 0)
			return i;
	return -EINVAL;
}

int mt_memfd_noexec_read(void)
{
	_cleanup_close_ int fd = -EBADF;

	fd = open(MT_MEMFD_NOEXEC_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	return mt_memfd_noexec_read_fd(fd);
}

int mt_memfd_noexec_read_fd(int fd)
{
	char buf[4];
	ssize_t n;
	int r;

	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	/* One read of a sysctl file returns it whole: "N\n". */
	if (n != 2 || buf[1] != '\n')
		return -EBADMSG;
	buf[1] = '\0';
	r = mt_memfd_noexec_parse(buf);
	return r < 0 ? -EBADMSG : r;
}

int mt_memfd_noexec_write(int level, bool *ret_at_open)
{
	_cleanup_close_ int fd = -EBADF;
	const char buf[2] = {(char)('0' + level), '\n'};
	ssize_t n;

	if (ret_at_open)
		*ret_at_open = false;
	if (level < 0 || level > 2)
		return -EINVAL;
	fd = open(MT_MEMFD_NOEXEC_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (ret_at_open)
			*ret_at_open = true;
		return negative_errno();
	}
	do
		n = write(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	return n == (ssize_t)sizeof(buf) ? 0 : -EIO;
}
