/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakekernel-preload.so: fakekernel's --fail rules loaded from inside the
 * program, by a constructor, instead of before its exec.
 *
 *   LD_PRELOAD=.../fakekernel-preload.so FAKEKERNEL_PRELOAD_FAIL=SPEC CMD
 *
 * SPEC is one --fail=SPEC of fakekernel(1).  The filter then spares the
 * dynamic loader, which would otherwise be the first to meet a failing
 * openat() or mmap() and end the run before CMD's own code ever made the
 * call: tests/bats/faults.bats needs the failure to reach the program.
 * Both variables are removed, so that the programs CMD executes inherit
 * the filter (as always with seccomp) but do not load it again.
 * A SPEC that does not load is reported, and the process exits 125, as
 * fakekernel does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakekernel.h"

#define EXIT_FAILURE_SELF 125

__attribute__((constructor)) static void fakekernel_preload(void)
{
	const char *env = getenv("FAKEKERNEL_PRELOAD_FAIL");
	char *spec;
	int r;

	if (!env || !*env)
		return;
	spec = strdup(env);
	(void)unsetenv("FAKEKERNEL_PRELOAD_FAIL");
	(void)unsetenv("LD_PRELOAD");
	r = spec ? fakekernel_load(NULL, (const char *const *)&spec, 1) : -ENOMEM;
	if (r < 0) {
		fprintf(stderr, "fakekernel-preload: Failed to load the filter for --fail=%s: %s\n",
			spec ? spec : env, strerror(-r));
		_exit(EXIT_FAILURE_SELF);
	}
	free(spec);
}
