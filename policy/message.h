/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to policy/ (the name carries the prefix only because a static
 * library exports it): quoting untrusted JSON text inside messages, with
 * the toolkit's one escaper (common/escape.h).
 */
#ifndef POLICY_MESSAGE_H
#define POLICY_MESSAGE_H

#include <stddef.h>

#include "macro.h"

/* How many characters of an untrusted value a message quotes. */
#define MESSAGE_QUOTE_CHARS 40

/*
 * Returns a malloc'd, NUL-terminated rendering of the len bytes at s as a
 * JSON string literal: quotes, \" \\ \n \t \r \b \f, \u00XX for other
 * control bytes and DEL, \uXXXX (and surrogate pairs) for non-ASCII UTF-8,
 * \u00XX for bytes that are not valid UTF-8.  At most MESSAGE_QUOTE_CHARS
 * characters are quoted; a longer value (or full_len > len: a value that
 * was kept only in part) ends in '...' followed by " (N bytes)".
 * Returns NULL only when out of memory.
 */
char *policy_message_quote(const char *s, size_t len, size_t full_len);

#endif
