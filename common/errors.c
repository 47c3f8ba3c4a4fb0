/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"

static struct mt_error error_oom = {
	.err = ENOMEM,
	.msg = (char *)"Out of memory while describing an error",
};

static void error_replace(struct mt_error **err, struct mt_error *e)
{
	mt_error_free(err);
	*err = e;
}

int mt_error_setv(struct mt_error **err, int r, const char *fmt, va_list ap)
{
	struct mt_error *e;

	if (r >= 0)
		r = -EIO; /* a programming error: never report success */
	if (!err)
		return r;

	e = malloc(sizeof(*e));
	if (!e) {
		error_replace(err, &error_oom);
		return r;
	}
	e->err = -r;
	if (vasprintf(&e->msg, fmt, ap) < 0) {
		free(e);
		error_replace(err, &error_oom);
		return r;
	}
	error_replace(err, e);
	return r;
}

int mt_error_set(struct mt_error **err, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = mt_error_setv(err, r, fmt, ap);
	va_end(ap);
	return r;
}

int mt_error_wrap(struct mt_error **err, const char *fmt, ...)
{
	char *context = NULL, *msg = NULL;
	va_list ap;
	int n;

	if (!err || !*err)
		return -EIO;
	if (*err == &error_oom)
		return -ENOMEM;

	va_start(ap, fmt);
	n = vasprintf(&context, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -(*err)->err; /* keep the message as it is */
	if (asprintf(&msg, "%s: %s", context, (*err)->msg) >= 0) {
		free((*err)->msg);
		(*err)->msg = msg;
	}
	free(context);
	return -(*err)->err;
}

const char *mt_error_message(const struct mt_error *e)
{
	return e ? e->msg : "no error";
}

void mt_error_free(struct mt_error **err)
{
	if (!err || !*err)
		return;
	if (*err != &error_oom) {
		free((*err)->msg);
		free(*err);
	}
	*err = NULL;
}
