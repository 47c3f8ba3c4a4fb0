/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to policy/ (the name carries the prefix only because a static
 * library exports it): quoting untrusted JSON text inside messages, with
 * the toolkit's one escaper (common/escape.h).
 */
#ifndef POLICY_MESSAGE_H
#define POLICY_MESSAGE_H

#include <stddef.h>

#include "escape.h"
#include "macro.h"

/* How many characters of an untrusted value a message quotes. */
#define MESSAGE_QUOTE_CHARS MT_QUOTE_CHARS

/*
 * mt_quote() (common/escape.h), the quoting every library shares.
 */
char *policy_message_quote(const char *s, size_t len, size_t full_len);

#endif
