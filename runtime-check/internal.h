/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to runtime-check/: what running the containers (run.c) and
 * deciding (decide.c) share.
 */
#ifndef RUNTIME_CHECK_INTERNAL_H
#define RUNTIME_CHECK_INTERNAL_H

#include <signal.h>

#include "errors.h"
#include "runtime-check.h"

/* Generous: a cold runtime binary on a loaded machine can take seconds. */
#define RUN_TIMEOUT_MS 30000

struct check_ctx {
	const char *runtime; /* as given, for exec */
	char *self;	     /* this program, for the container */
	char *dir;	     /* the private directory; NULL once removed */
	char *bundle, *config, *state, *rootfs, *out, *err;
	char id[64];
	int level_here;
};

/* The private directory under /run (or /tmp) and its paths.  0 or -errno. */
int runtime_check_make_dir(struct check_ctx *c);
/* Removes it and frees c's strings: 0, or the -errno of the removal (the
 * directory's path is then still in c->dir, which the caller frees). */
int runtime_check_ctx_done(struct check_ctx *c);

/* Runs one container with the annotation (NULL: none) in a throwaway PID
 * and mount namespace, the signals of mask restored in the children.
 * 0 with *res filled, or -errno with the message in *err. */
int runtime_check_run_one(struct check_ctx *c, const char *annotation, const sigset_t *mask,
			  struct runtime_check_container *res, struct mt_error **err);

void runtime_check_container_done(struct runtime_check_container *r);

#endif
