/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "parse.h"

int mt_parse_uint(const char *s, uint64_t max, uint64_t *ret, const char **ret_end)
{
	const char *p = s;
	uint64_t v = 0;
	bool over = false;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		/* Keep consuming digits after an overflow, so that the error
		 * is ERANGE for "99999999999999999999", not EINVAL. */
		if (v > (UINT64_MAX - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (!ret_end && *p != '\0')
		return -EINVAL;
	if (over || v > max)
		return -ERANGE;
	*ret = v;
	if (ret_end)
		*ret_end = p;
	return 0;
}

int mt_parse_int(const char *s, int max, int *ret, const char **ret_end)
{
	uint64_t v;
	int r;

	if (max < 0)
		return -EINVAL;
	r = mt_parse_uint(s, (uint64_t)max, &v, ret_end);
	if (r < 0)
		return r;
	*ret = (int)v;
	return 0;
}
