/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one error type of memfd-toolkit: an errno and a message, made by one
 * constructor and given context on the way up, in the manner of crun's
 * libcrun_error_t.
 *
 * Functions that can fail take a last parameter `struct mt_error **err`,
 * return -errno, and on failure store an error there when err is not NULL:
 *
 *	_cleanup_error_ struct mt_error *err = NULL;
 *
 *	r = cloned_binary_clone(fd, &opts, &m, &clone, &err);
 *	if (r < 0)
 *		die("%s", mt_error_message(err));
 *
 * A caller that adds context does so with mt_error_wrap(), which prepends
 * "<context>: " to the message.  Nothing here prints or exits.
 */
#ifndef MEMFD_TOOLKIT_ERRORS_H
#define MEMFD_TOOLKIT_ERRORS_H

#include <stdarg.h>

#include "macro.h"

struct mt_error {
	int err;   /* a positive errno */
	char *msg; /* never NULL */
};

/*
 * Stores a new error with errno -r and the formatted message in *err
 * (replacing one that is there) and returns r, which must be negative.
 * With err NULL it only returns r.  Out of memory, *err becomes a shared
 * static error that says so; r is still returned.
 */
_printf_(3, 4) int mt_error_set(struct mt_error **err, int r, const char *fmt, ...);
_printf_(3, 0) int mt_error_setv(struct mt_error **err, int r, const char *fmt, va_list ap);

/*
 * Prepends "<context>: " to the message of *err and returns its -errno.
 * With no error in *err (or err NULL) it returns -EIO: a caller must only
 * wrap an error it was given.
 */
_printf_(2, 3) int mt_error_wrap(struct mt_error **err, const char *fmt, ...);

/* The message, or "no error" for NULL. */
const char *mt_error_message(const struct mt_error *e);

/* Frees *err (NULL and the static out-of-memory error are fine). */
void mt_error_free(struct mt_error **err);
#define _cleanup_error_ _cleanup_(mt_error_free)

#endif
