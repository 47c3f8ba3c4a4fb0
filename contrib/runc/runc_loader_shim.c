/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc_loader_shim: connects runc's nsexec.c to memfd-toolkit's sealed W^X
 * loader.
 *
 * As runc init, nsexec() calls ensure_cloned_binary() before anything else,
 * so that the container can never reach the host's runc binary through
 * /proc/self/exe (CVE-2019-5736).  contrib/runc/build.sh deletes runc's
 * libcontainer/nsenter/cloned_binary.c and copies this file, together with
 * the library folders (cloned_binary/, common/, nsexec/, policy/), into
 * that directory in its place.  runc's bind-mount clone (rootful) and its memfd clone (which
 * vm.memfd_noexec >= 1 breaks) are both gone; every caller gets our loader.
 *
 * The loader's debug markers ("cloned_binary: using memfd-exec") and its
 * failure detail go into runc's log pipe through nsexec_loader_log(), which
 * the patch nsexec-forward-loader-log adds to nsexec.c, so that
 * `runc --debug` shows them next to the other nsexec messages.
 *
 * For the benchmark only (tests/bench/runc-start.sh), build.sh's
 * LOADER_REQUEST compiles in one of these (default: neither, i.e. auto):
 *   RUNC_LOADER_REQUEST=CLONED_BINARY_REQUEST_xxx  forces a method;
 *   RUNC_LOADER_NO_CLONE=1  clones nothing: runc init runs from the host's
 *       binary, exposed to CVE-2019-5736.  The physical limit to measure
 *       against; such a runc must never be installed or shipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cloned_binary.h"

#ifndef RUNC_LOADER_REQUEST
#define RUNC_LOADER_REQUEST CLONED_BINARY_REQUEST_AUTO
#endif

/* Both are in nsexec.c (patch nsexec-forward-loader-log). */
extern void nsexec_loader_log(bool error, const char *line);
extern bool nsexec_loader_debug(void);

/* Called by nsexec(), which has its own extern declaration of it. */
int ensure_cloned_binary(void);

static void loader_log_debug(const char *line)
{
	nsexec_loader_log(false, line);
}

/*
 * Returns 0 when running from a sealed clone; otherwise re-executes and
 * only returns on failure, with -errno (also left in errno, for the %m in
 * nsexec's bail()).
 */
int ensure_cloned_binary(void)
{
#if defined(RUNC_LOADER_NO_CLONE) && RUNC_LOADER_NO_CLONE
	/* The benchmark's no-clone runc: unprotected, never installed. */
	loader_log_debug("cloned_binary: using none (no-clone benchmark build, unprotected)");
	return 0;
#else
	/*
	 * The file methods (vm.memfd_noexec=2) try the container's state
	 * directory first: runc owns it in both rootful and rootless mode,
	 * and runc 1.1's bind-mount clone used it too.  The loader still
	 * applies its ownership, mode and filesystem rules to it, and moves
	 * on to its defaults if it is unusable.
	 */
	const char *tmpdirs[] = {getenv("_LIBCONTAINER_STATEDIR"), NULL};
	struct cloned_binary_options opts = {
		.request = RUNC_LOADER_REQUEST,
		.tmpdirs = tmpdirs,
		.debug = nsexec_loader_debug(),
		.log = loader_log_debug,
	};
	struct mt_error *err = NULL;
	char line[512];
	int r;

	r = cloned_binary_ensure(&opts, &err);
	if (r < 0) {
		(void)snprintf(line, sizeof(line), "cloned_binary: %s", mt_error_message(err));
		nsexec_loader_log(true, line);
		mt_error_free(&err);
		errno = -r;
	}
	return r;
#endif
}

/*
 * For runc's parent (libcontainer/nsenter/sealed_self.go): this binary on
 * a new detached read-only overlay, as an O_PATH fd from which runc starts
 * runc init directly, with CLONED_BINARY_REEXEC_ENV set, so that runc init
 * finds itself on the clone and need not execute itself a second time (a
 * second start of an 8.8 MB binary costs more than the overlay).  Only
 * the overlay: a copy made here would be a copy per container, as in runc
 * init.  -errno with the reason in why when no overlay can be made here (a
 * benchmark build forcing another method says so); runc init then clones
 * itself as before, with its own markers and fallbacks.
 */
int runc_open_sealed_self(char *why, size_t size)
{
	struct cloned_binary_options opts = {
		.request = CLONED_BINARY_REQUEST_OVERLAY,
	};
	enum cloned_binary_method m;
	struct mt_error *err = NULL;
	int exe, fd = -1, r;

#if defined(RUNC_LOADER_NO_CLONE) && RUNC_LOADER_NO_CLONE
	const bool forced = true;
#else
	const bool forced = RUNC_LOADER_REQUEST != CLONED_BINARY_REQUEST_AUTO &&
			    RUNC_LOADER_REQUEST != CLONED_BINARY_REQUEST_OVERLAY;
#endif
	if (forced) {
		(void)snprintf(why, size, "this build forces another method");
		return -EOPNOTSUPP;
	}
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0) {
		r = -errno;
		(void)snprintf(why, size, "cannot open /proc/self/exe: %m");
		return r;
	}
	r = cloned_binary_clone(exe, &opts, &m, &fd, &err);
	(void)close(exe);
	if (r < 0) {
		(void)snprintf(why, size, "%s", mt_error_message(err));
		mt_error_free(&err);
		return r;
	}
	return fd;
}
