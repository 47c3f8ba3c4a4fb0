/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The context every step of the loader gets (cb-internal.h): the options,
 * the features in force, where errors go; and the two ways a step reports,
 * the debug marker and the recorded failure.  Every other file of
 * cloned_binary/ depends on this one, and this one on none of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cb-internal.h"

void cb_ctx_init(struct cb_ctx *c, const struct cloned_binary_options *opts, struct mt_error **err,
		 bool probe)
{
	static const struct cloned_binary_options defaults = {};

	c->opts = opts ? opts : &defaults;
	c->f = (struct mt_features){};
	c->probed = false;
	c->err = err;
	if (c->opts->features) {
		c->f = *c->opts->features;
		c->probed = true;
	} else if (probe) {
		cb_ctx_probe(c);
	}
}

void cb_ctx_probe(struct cb_ctx *c)
{
	if (c->probed)
		return;
	mt_features_probe(&c->f);
	c->probed = true;
}

void cb_debug(const struct cb_ctx *c, const char *fmt, ...)
{
	char line[1536]; /* the overlay's reasons run to 1024 */
	va_list ap;
	int saved = errno;

	if (!c->opts->debug)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (c->opts->log)
		c->opts->log(line);
	else
		(void)dprintf(STDERR_FILENO, "%s\n", line);
	errno = saved;
}

int cb_fail(const struct cb_ctx *c, int r, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	cb_debug(c, "cloned_binary: Failed to %s: %s", what, strerror(-r));
	return mt_error_set(c->err, r, "Failed to %s: %s", what, strerror(-r));
}
