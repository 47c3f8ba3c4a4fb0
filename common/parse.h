/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one integer parser: strict unsigned decimal, as every number this
 * toolkit reads (options, /proc text, the service's protocol, markers) is
 * written.  No sign, no blanks, no "0x", no locale: what strtol() would
 * accept around the digits is refused here.
 */
#ifndef MEMFD_TOOLKIT_PARSE_H
#define MEMFD_TOOLKIT_PARSE_H

#include <stdint.h>

/*
 * Parses the digits at the start of s, at least one, as a value from 0 to
 * max.  With ret_end NULL the digits must be the whole string; else
 * *ret_end is set to the first byte after them.  Leading zeros are
 * accepted ("007" is 7).
 *
 * Returns 0 with *ret (and *ret_end); -EINVAL when s is NULL or does not
 * start with a digit, or (ret_end NULL) has anything after the digits;
 * -ERANGE when the value exceeds max.  Writes nothing on failure.
 */
int mt_parse_uint(const char *s, uint64_t max, uint64_t *ret, const char **ret_end);

/* The same into an int, for values from 0 to max (max <= INT_MAX). */
int mt_parse_int(const char *s, int max, int *ret, const char **ret_end);

#endif
