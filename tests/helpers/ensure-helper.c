/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ensure-helper: calls cloned_binary_ensure() first, the way a runtime's
 * constructor would, then reports how it is running.
 *
 *   ensure-helper [ARG...]
 *
 * Prints "ensure-helper: sealed=1 argv=ARG,ARG reexec-marker=unset" and
 * exits 0, or "ensure-helper: Failed to ensure a sealed clone: ..." and
 * exits 1.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloned_binary.h"
#include "macro.h"

int main(int argc, char *argv[])
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_error_ struct mt_error *err = NULL;
	struct cloned_binary_options opts = {};
	const char *m = getenv("ENSURE_METHOD"), *d = getenv("SEALEXEC_DEBUG");
	int r;

	/* A test program, so it may fill the options from its environment
	 * the way sealexec does; the library itself reads none. */
	opts.debug = d && strcmp(d, "1") == 0;
	if (m) {
		r = cloned_binary_request_from_string(m);
		if (r < 0) {
			fprintf(stderr,
				"ensure-helper: bad ENSURE_METHOD '%s'\n", m);
			return 2;
		}
		opts.request = r;
	}

	r = cloned_binary_ensure(&opts, &err);
	if (r < 0) {
		printf("ensure-helper: Failed to ensure a sealed clone: %s\n",
		       mt_error_message(err));
		return 1;
	}

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	printf("ensure-helper: sealed=%d argv=",
	       cloned_binary_is_sealed(fd, &opts));
	for (int i = 1; i < argc; i++)
		printf("%s%s", i > 1 ? "," : "", argv[i]);
	printf(" reexec-marker=%s\n",
	       getenv("_CLONED_BINARY_REEXEC") ? "set" : "unset");
	return 0;
}
