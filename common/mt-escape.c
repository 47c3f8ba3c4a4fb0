/* SPDX-License-Identifier: Apache-2.0 */
/* escape.h; named mt-escape.c because runc's libcontainer/nsenter/, where
 * contrib/runc/build.sh copies common/, has an escape.c of its own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

size_t mt_utf8_decode(const unsigned char *s, size_t n, uint32_t *ret)
{
	uint32_t cp, min;
	size_t len;

	if (s[0] < 0x80) {
		*ret = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret = cp;
	return len;
}

bool mt_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	for (size_t i = 0; i < len; i += n) {
		n = mt_utf8_decode(u + i, len - i, &cp);
		if (n == 0)
			return false;
	}
	return true;
}

/* One character's escape into out (at least MT_ESCAPE_MAX_PER_CHAR + 1
 * bytes); returns its length. */
static size_t escape_one(char *out, uint32_t cp, bool valid)
{
	static const char short_forms[][2] = {
		{'"', '"'},  {'\\', '\\'}, {'\n', 'n'}, {'\t', 't'},
		{'\r', 'r'}, {'\b', 'b'},  {'\f', 'f'},
	};

	if (valid) {
		for (size_t i = 0; i < sizeof(short_forms) / sizeof(short_forms[0]); i++)
			if (cp == (uint32_t)short_forms[i][0]) {
				out[0] = '\\';
				out[1] = short_forms[i][1];
				return 2;
			}
		if (cp >= 0x20 && cp < 0x7f) {
			out[0] = (char)cp;
			return 1;
		}
	}
	if (cp >= 0x10000) {
		cp -= 0x10000;
		return (size_t)snprintf(out, MT_ESCAPE_MAX_PER_CHAR + 1, "\\u%04x\\u%04x",
					0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
	}
	return (size_t)snprintf(out, MT_ESCAPE_MAX_PER_CHAR + 1, "\\u%04x", cp);
}

size_t mt_escape(char *dst, size_t size, const char *s, size_t len, size_t max_chars)
{
	const unsigned char *u = (const unsigned char *)s;
	char one[MT_ESCAPE_MAX_PER_CHAR + 1];
	size_t i = 0, o = 0, chars = 0;

	while (i < len && chars < max_chars) {
		uint32_t cp;
		size_t n = mt_utf8_decode(u + i, len - i, &cp), k;

		k = escape_one(one, n ? cp : u[i], n != 0);
		if (o + k >= size)
			break;
		memcpy(dst + o, one, k);
		o += k;
		i += n ? n : 1;
		chars++;
	}
	dst[o] = '\0';
	return i;
}

char *mt_escape_dup(const char *s)
{
	size_t len = strlen(s), size;
	char *buf;

	if (len > (SIZE_MAX - 1) / MT_ESCAPE_MAX_PER_CHAR)
		return NULL;
	size = len * MT_ESCAPE_MAX_PER_CHAR + 1;
	buf = malloc(size);
	if (buf)
		(void)mt_escape(buf, size, s, len, SIZE_MAX);
	return buf;
}

char *mt_quote(const char *s, size_t len, size_t full_len)
{
	/* '"' + the escaped characters + '"' + "..." + " (N bytes)" + NUL */
	size_t size = 1 + MT_QUOTE_CHARS * MT_ESCAPE_MAX_PER_CHAR + 1 + 3 + 48 + 1, used, o;
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	buf[0] = '"';
	used = mt_escape(buf + 1, size - 1, s, len, MT_QUOTE_CHARS);
	o = 1 + strlen(buf + 1);
	buf[o++] = '"';
	buf[o] = '\0';
	if (used < len || full_len > len)
		(void)snprintf(buf + o, size - o, "... (%zu bytes)",
			       full_len > len ? full_len : len);
	return buf;
}
