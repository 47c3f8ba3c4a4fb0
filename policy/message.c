/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

struct sbuf {
	char *data;
	size_t len, cap;
	bool oom;
};

static void sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	char *p;
	size_t cap;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* "\\uXXXX" */
static void sbuf_put_u(struct sbuf *b, unsigned long v)
{
	char tmp[16];
	int n;

	n = snprintf(tmp, sizeof(tmp), "\\u%04lx", v);
	if (n > 0)
		sbuf_put(b, tmp, (size_t)n);
}

static void sbuf_put_size(struct sbuf *b, size_t v)
{
	char tmp[48];
	int n;

	n = snprintf(tmp, sizeof(tmp), " (%zu bytes)", v);
	if (n > 0)
		sbuf_put(b, tmp, (size_t)n);
}

/*
 * Decodes one UTF-8 sequence at s (n bytes available).  Returns its length
 * and stores the code point, or returns 0 for an invalid or truncated
 * sequence (overlong forms, surrogates and values above U+10FFFF count as
 * invalid).
 */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *ret)
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

char *policy_message_quote(const char *s, size_t len, size_t full_len)
{
	struct sbuf b = {};
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, chars = 0;
	uint32_t cp;

	sbuf_put(&b, "\"", 1);
	while (i < len && chars < MESSAGE_QUOTE_CHARS) {
		size_t n = utf8_decode(u + i, len - i, &cp);

		if (n == 0) {
			/* Only reachable for bytes yajl did not validate. */
			sbuf_put_u(&b, u[i]);
			i++;
		} else if (cp == '"') {
			sbuf_put(&b, "\\\"", 2);
		} else if (cp == '\\') {
			sbuf_put(&b, "\\\\", 2);
		} else if (cp == '\n') {
			sbuf_put(&b, "\\n", 2);
		} else if (cp == '\t') {
			sbuf_put(&b, "\\t", 2);
		} else if (cp == '\r') {
			sbuf_put(&b, "\\r", 2);
		} else if (cp == '\b') {
			sbuf_put(&b, "\\b", 2);
		} else if (cp == '\f') {
			sbuf_put(&b, "\\f", 2);
		} else if (cp < 0x20 || cp == 0x7f) {
			sbuf_put_u(&b, cp);
		} else if (cp < 0x80) {
			sbuf_put(&b, (const char *)u + i, 1);
		} else if (cp < 0x10000) {
			sbuf_put_u(&b, cp);
		} else {
			cp -= 0x10000;
			sbuf_put_u(&b, 0xd800 + (cp >> 10));
			sbuf_put_u(&b, 0xdc00 + (cp & 0x3ff));
		}
		if (n > 0)
			i += n;
		chars++;
	}
	sbuf_put(&b, "\"", 1);
	if (i < len || full_len > len) {
		sbuf_put(&b, "...", 3);
		sbuf_put_size(&b, full_len > len ? full_len : len);
	}
	if (b.oom) {
		free(b.data);
		return NULL;
	}
	return b.data;
}

bool policy_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8_decode(u + i, len - i, &cp);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}
