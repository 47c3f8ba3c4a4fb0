/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one escaper: untrusted bytes (a JSON value, a client's message, a
 * process name) rendered as printable ASCII that no terminal, log reader
 * or JSON parser can misread.
 */
#ifndef MEMFD_TOOLKIT_ESCAPE_H
#define MEMFD_TOOLKIT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes mt_escape() writes for one character of its input. */
#define MT_ESCAPE_MAX_PER_CHAR 12

/*
 * Writes the len bytes at s into dst (size > 0 bytes) as the body of a
 * JSON string literal, without the quotes: \" \\ \n \t \r \b \f; \u00XX for
 * other control bytes and DEL; \uXXXX (a surrogate pair beyond U+FFFF) for
 * every non-ASCII character of valid UTF-8; \u00XX for a byte that is not
 * valid UTF-8.  The output is pure printable ASCII and valid JSON.
 *
 * Stops after max_chars characters (SIZE_MAX: no limit), or where dst is
 * full, never inside an escape.  dst is always NUL-terminated.  Returns
 * how many bytes of s were rendered: len when all of them were.
 */
size_t mt_escape(char *dst, size_t size, const char *s, size_t len, size_t max_chars);

/* The whole NUL-terminated s escaped as mt_escape() does, in a new
 * malloc'd string; NULL when out of memory (or s too long to escape). */
char *mt_escape_dup(const char *s);

/*
 * Decodes one UTF-8 sequence at s (n > 0 bytes available): returns its
 * length and stores the code point, or returns 0 for an invalid or
 * truncated sequence (overlong forms, surrogates and values above
 * U+10FFFF are invalid).
 */
size_t mt_utf8_decode(const unsigned char *s, size_t n, uint32_t *ret);

/* True if the len bytes at s are well-formed UTF-8 in that sense. */
bool mt_utf8_valid(const char *s, size_t len);

/* How many characters of an untrusted value a message quotes. */
#define MT_QUOTE_CHARS 40

/*
 * Returns a malloc'd, NUL-terminated rendering of the len bytes at s as a
 * JSON string literal (mt_escape(), between quotes).  At most
 * MT_QUOTE_CHARS characters are quoted; a longer value (or full_len > len:
 * a value that was kept only in part) ends in '...' followed by
 * " (N bytes)".  Returns NULL only when out of memory.
 */
char *mt_quote(const char *s, size_t len, size_t full_len);

#endif
