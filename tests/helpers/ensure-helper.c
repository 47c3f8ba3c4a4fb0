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
 *
 * With ENSURE_LAUNCH set it first plays the runtime that starts its helper
 * from a clone (runc's parent, patch 0004): it opens itself on a detached
 * overlay, keeps that fd N open across exec and executes /proc/self/fd/N
 * with _CLONED_BINARY_REEXEC=fd:N ("fd"), or naming another open fd:
 * /dev/null ("wrongfd"), or a second overlay clone of itself, the same
 * inode number on another device ("otherclone").  The started copy then
 * also prints "given-fd=open|closed".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloned-binary.h"
#include "macro.h"

/* The runtime's side: exec ourselves from our overlay clone as fd N. */
static int launch(const char *how, char *argv[])
{
	struct cloned_binary_options o = {.request = CLONED_BINARY_REQUEST_OVERLAY};
	_cleanup_error_ struct mt_error *err = NULL;
	enum cloned_binary_method m;
	int self, fd = -EBADF, other, named;
	char path[64], env[64];

	self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (self < 0 || cloned_binary_clone(self, &o, &m, &fd, &err) < 0) {
		printf("ensure-helper: no overlay here: %s\n", mt_error_message(err));
		return 77;
	}
	/* Both survive the exec, as runc's ExtraFiles do. */
	fd = fcntl(fd, F_DUPFD, 10);
	if (strcmp(how, "otherclone") == 0) {
		if (cloned_binary_clone(self, &o, &m, &other, &err) < 0) {
			printf("ensure-helper: no second overlay: %s\n", mt_error_message(err));
			return 77;
		}
		other = fcntl(other, F_DUPFD, 10);
	} else {
		other = open("/dev/null", O_RDONLY);
	}
	named = strcmp(how, "fd") == 0 ? fd : other;
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	(void)snprintf(env, sizeof(env), "%d", named);
	(void)setenv("ENSURE_GIVEN_FD", env, 1);
	(void)snprintf(env, sizeof(env), "fd:%d", named);
	(void)setenv("_CLONED_BINARY_REEXEC", env, 1);
	(void)unsetenv("ENSURE_LAUNCH");
	execv(path, argv);
	printf("ensure-helper: exec %s: %m\n", path);
	return 1;
}

int main(int argc, char *argv[])
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_error_ struct mt_error *err = NULL;
	struct cloned_binary_options opts = {};
	const char *m = getenv("ENSURE_METHOD"), *d = getenv("SEALEXEC_DEBUG");
	const char *launch_how = getenv("ENSURE_LAUNCH");
	const char *given = getenv("ENSURE_GIVEN_FD");
	int r;

	if (launch_how)
		return launch(launch_how, argv);

	/* A test program, so it may fill the options from its environment
	 * the way sealexec does; the library itself reads none. */
	opts.debug = d && strcmp(d, "1") == 0;
	if (m) {
		r = cloned_binary_request_from_string(m);
		if (r < 0) {
			fprintf(stderr, "ensure-helper: bad ENSURE_METHOD '%s'\n", m);
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
	printf("ensure-helper: sealed=%d argv=", cloned_binary_is_sealed(fd, &opts));
	for (int i = 1; i < argc; i++)
		printf("%s%s", i > 1 ? "," : "", argv[i]);
	printf(" reexec-marker=%s", getenv("_CLONED_BINARY_REEXEC") ? "set" : "unset");
	if (given)
		printf(" given-fd=%s", fcntl(atoi(given), F_GETFD) < 0 ? "closed" : "open");
	printf("\n");
	return 0;
}
