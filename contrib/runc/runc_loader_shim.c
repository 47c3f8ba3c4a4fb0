/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc_loader_shim: connects runc to memfd-toolkit: nsexec.c to the sealed
 * W^X loader, and runc's Go side (through cgo) to the loader, the policy
 * and its seccomp rule.  Everything runc-specific that is C lives here; the
 * names both sides use are in runc_memfd_toolkit.h.
 *
 * As runc init, nsexec() calls ensure_cloned_binary() before anything else,
 * so that the container can never reach the host's runc binary through
 * /proc/self/exe (CVE-2019-5736).  contrib/runc/build.sh deletes runc's
 * libcontainer/nsenter/cloned_binary.c and puts this file and
 * runc_memfd_toolkit.h in libcontainer/nsenter/ in its place, with every
 * file of the library folders cloned_binary/, common/, nsexec/ and policy/,
 * flat (so their names must not meet runc's own there, such as escape.c).
 * runc's bind-mount clone
 * (rootful) and its memfd clone (which vm.memfd_noexec >= 1 breaks) are
 * both gone; every caller gets our loader.
 *
 * The loader's debug markers ("cloned_binary: using memfd-exec") and its
 * failure detail go into runc's log pipe through nsexec_loader_log(), which
 * patch 0001 adds to nsexec.c, so that `runc --debug` shows them next to
 * the other nsexec messages.
 *
 * For the benchmark only (tests/bench/start.sh), build.sh's
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
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>

#include "memfd-sysctl.h"
#include "runc_memfd_toolkit.h"

#ifndef RUNC_LOADER_REQUEST
#define RUNC_LOADER_REQUEST CLONED_BINARY_REQUEST_AUTO
#endif

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
		(void)snprintf(line, sizeof(line), CLONED_BINARY_LOG_PREFIX "%s",
			       mt_error_message(err));
		nsexec_loader_log(true, line);
		mt_error_free(&err);
		errno = -r;
	}
	return r;
#endif
}

/* The overlay alone (see runc_memfd_toolkit.h); -errno with the reason. */
static int open_sealed_self(char *why, size_t size)
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

/*
 * runc's parent starts runc init from this binary on a new detached
 * read-only overlay, so that runc init finds itself on the clone and need
 * not execute itself a second time (a second start of an 8.8 MB binary
 * costs more than the overlay).  Only the overlay: a copy made here would
 * be a copy per container, as in runc init.  Where no overlay can be made
 * (a benchmark build forcing another method says so), runc init clones
 * itself as before, with its own markers and fallbacks.
 */
int runc_open_sealed_self(int child_fd, char *env, size_t env_size, char *msg, size_t msg_size)
{
	char why[512];
	int fd;

	fd = open_sealed_self(why, sizeof(why));
	if (fd < 0) {
		(void)snprintf(msg, msg_size,
			       CLONED_BINARY_LOG_PREFIX "runc init clones itself: %s", why);
		return fd;
	}
	(void)snprintf(env, env_size, CLONED_BINARY_REEXEC_ENV "=" CLONED_BINARY_REEXEC_FD "%d",
		       child_fd);
	(void)snprintf(msg, msg_size, CLONED_BINARY_LOG_PREFIX "using %s",
		       cloned_binary_method_to_string(CLONED_BINARY_METHOD_OVERLAY));
	return fd;
}

/* The annotation's value as runc's main package left it: exactly "0", "1"
 * or "2", else -EINVAL. */
static int label_level(const char *level)
{
	return mt_memfd_noexec_parse(level);
}

uint32_t runc_memfd_noexec_attr(const char *level, const char *const *bounding, size_t n,
				bool have_bounding)
{
	int l = label_level(level);
	uint32_t v = RUNC_MEMFD_NOEXEC_PRESENT;
	bool keeps = !have_bounding;

	v |= l < 0 ? RUNC_MEMFD_NOEXEC_BAD_LEVEL : (uint32_t)l;
	for (size_t i = 0; i < n && !keeps; i++) {
		int c = policy_capability_value(bounding[i]);

		keeps = c < 0 || c == CAP_SYS_ADMIN;
	}
	return keeps ? v | RUNC_MEMFD_NOEXEC_SYS_ADMIN : v;
}

int runc_memfd_noexec_seccomp(const char *level, char *msg, size_t msg_size, struct mt_error **err)
{
	int effective, r;

	/* The label is runc create's, checked then; a changed one is refused. */
	if (level && label_level(level) < 0)
		return mt_error_set(
			err, -EINVAL,
			"Refusing the annotations[\"%s\"] that runc init was given: it is not \"0\", \"1\" or \"2\", which runc create checked. Was the container's state changed?",
			POLICY_ANNOTATION);
	/* The level this process really runs at (stage-0 applied the request
	 * before this): asked for, inherited or joined. */
	effective = runc_memfd_noexec_effective();
	r = 0;
	if (policy_hugetlb_rule_needed(effective)) {
		r = policy_seccomp_deny_hugetlb_memfd(err);
		if (r < 0)
			return r;
		r = 1;
	}
	if (effective >= 0)
		(void)snprintf(msg, msg_size, "vm.memfd_noexec=%d here%s%s: %s", effective,
			       level ? ", asked for " : "", level ? level : "",
			       r > 0 ? "memfd_create(MFD_HUGETLB) refused (seccomp)"
				     : "no MFD_HUGETLB rule needed");
	else
		(void)snprintf(msg, msg_size, "vm.memfd_noexec unreadable here (%s): %s",
			       strerror(-effective),
			       r > 0 ? "memfd_create(MFD_HUGETLB) refused (seccomp), to be safe"
				     : "no MFD_HUGETLB rule needed (this kernel has no levels)");
	return r;
}
