/* SPDX-License-Identifier: Apache-2.0 */
#include "escape.h"
#include "message.h"

char *policy_message_quote(const char *s, size_t len, size_t full_len)
{
	return mt_quote(s, len, full_len);
}
