/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The memfd-noexec service's request format (service.h), shared by the
 * service (service/) and its client, so that both accept exactly the same
 * bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "memfd-sysctl.h"
#include "service.h"

#define REQUEST_PREFIX "raise "

/*
 * Exactly the 7 bytes "raise 0", "raise 1" or "raise 2": no terminator, no
 * newline, no spaces, no sign, no leading zeros, nothing after the digit.
 */
int nsexec_service_parse_request(const char *msg, size_t len)
{
	const size_t plen = sizeof(REQUEST_PREFIX) - 1;

	if (!msg || len != plen + 1 || memcmp(msg, REQUEST_PREFIX, plen) != 0)
		return -EINVAL;
	{
		const char word[2] = {msg[plen], '\0'};

		return mt_memfd_noexec_parse(word);
	}
}
