/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "message.h"

char *policy_message_quote(const char *s, size_t len, size_t full_len)
{
	/* '"' + the escaped characters + '"' + "..." + " (N bytes)" + NUL */
	size_t size = 1 + MESSAGE_QUOTE_CHARS * MT_ESCAPE_MAX_PER_CHAR + 1 + 3 + 48 + 1, used, o;
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	buf[0] = '"';
	used = mt_escape(buf + 1, size - 1, s, len, MESSAGE_QUOTE_CHARS);
	o = 1 + strlen(buf + 1);
	buf[o++] = '"';
	buf[o] = '\0';
	if (used < len || full_len > len)
		(void)snprintf(buf + o, size - o, "... (%zu bytes)",
			       full_len > len ? full_len : len);
	return buf;
}
