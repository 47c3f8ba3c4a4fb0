/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc_loader_shim: connects runc's nsexec.c to memfd-toolkit's sealed W^X
 * loader.
 *
 * As runc init, nsexec() calls ensure_cloned_binary() before anything else,
 * so that the container can never reach the host's runc binary through
 * /proc/self/exe (CVE-2019-5736).  contrib/runc/build.sh deletes runc's
 * libcontainer/nsenter/cloned_binary.c and copies this file, together with
 * cloned_binary/cloned_binary.[ch] and common/ headers, into that directory in
 * its place.  runc's bind-mount clone (rootful) and its memfd clone (which
 * vm.memfd_noexec >= 1 breaks) are both gone; every caller gets our loader.
 *
 * The loader's debug markers ("cloned_binary: using memfd-exec") and its
 * failure detail go into runc's log pipe through nsexec_loader_log(), which
 * 0002-nsexec-forward-loader-log.patch adds to nsexec.c, so that
 * `runc --debug` shows them next to the other nsexec messages.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cloned_binary.h"

/* Both are in nsexec.c (0002-nsexec-forward-loader-log.patch). */
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
	const char *statedir = getenv("_LIBCONTAINER_STATEDIR");
	int r;

	cloned_binary_set_log_fn(loader_log_debug);
	cloned_binary_set_debug(nsexec_loader_debug());

	/*
	 * The tmpfile methods (vm.memfd_noexec=2) try $SEALEXEC_TMPDIR first.
	 * Point it at the container's state directory: runc owns it in both
	 * rootful and rootless mode, and runc 1.1's bind-mount clone used it
	 * too.  If it is unusable (noexec, read-only) the loader moves on to
	 * its other candidates.  runc init's environment is runc's own, so
	 * nothing of the user's is overridden; the re-executed child sets it
	 * again and it is dropped before the Go runtime starts.
	 */
	if (statedir && statedir[0] == '/')
		(void)setenv("SEALEXEC_TMPDIR", statedir, 1);

	r = cloned_binary_ensure(NULL);

	(void)unsetenv("SEALEXEC_TMPDIR");
	if (r < 0) {
		char line[320];

		(void)snprintf(line, sizeof(line), "cloned_binary: %s",
			       cloned_binary_last_error());
		nsexec_loader_log(true, line);
		errno = -r;
	}
	return r;
}
