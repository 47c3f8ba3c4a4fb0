/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd-util.h"
#include "policy.h"

int policy_read_fd(int fd, size_t max_size, char **ret_data, size_t *ret_len)
{
	if (fd < 0 || !ret_data || !ret_len)
		return -EINVAL;
	return read_full_fd(fd, max_size, ret_data, ret_len);
}
