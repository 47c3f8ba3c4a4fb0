/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc_loader_shim: connects runc to memfd-toolkit: nsexec.c to the sealed
 * W^X loader and to the runtime interface (nsexec/runtime.h: the level
 * applied in stage-0, the MFD_HUGETLB rule in stage-2), and runc's Go
 * side (through cgo) to the loader.  Everything runc-specific that is C lives here; the
 * names both sides use are in runc_memfd_toolkit.h.
 *
 * As runc init, nsexec() calls ensure_cloned_binary() before anything else,
 * so that the container can never reach the host's runc binary through
 * /proc/self/exe (CVE-2019-5736).  contrib/runc/build.sh deletes runc's
 * libcontainer/nsenter/cloned_binary.c and puts this file and
 * runc_memfd_toolkit.h in libcontainer/nsenter/ in its place, with every
 * file of the library folders cloned_binary/, common/ and nsexec/, flat
 * (so their names must not meet runc's own there, such as escape.c).
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
#include <sched.h>
#include <stdarg.h>

#include "fd-util.h"
#include "macro.h"
#include "runc_memfd_toolkit.h"

#ifndef RUNC_LOADER_REQUEST
#define RUNC_LOADER_REQUEST CLONED_BINARY_REQUEST_AUTO
#endif

#ifndef RUNC_PACKAGED_PATH
#define RUNC_PACKAGED_PATH "/usr/sbin/runc"
#endif

bool runc_exe_is_packaged(int exe)
{
	return cloned_binary_exe_is(exe, RUNC_PACKAGED_PATH) == 1;
}

/* The same, for the running binary (false when /proc/self/exe is unreadable:
 * then no proof, and the loader copies where it cannot tell the owner). */
static bool self_is_packaged(void)
{
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	bool r;

	if (exe < 0)
		return false;
	r = runc_exe_is_packaged(exe);
	(void)close(exe);
	return r;
}

static void loader_log_debug(const char *line)
{
	nsexec_loader_log(RUNC_LOG_DEBUG, line);
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
		/* runc init started from a clone its parent made is vouched
		 * for by the marker; one that clones itself has this proof. */
		.overflow_uid_is_root = self_is_packaged(),
	};
	struct mt_error *err = NULL;
	char line[512];
	int r;

	r = cloned_binary_ensure(&opts, &err);
	if (r < 0) {
		(void)snprintf(line, sizeof(line), CLONED_BINARY_LOG_PREFIX "%s",
			       mt_error_message(err));
		nsexec_loader_log(RUNC_LOG_ERROR, line);
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
	opts.overflow_uid_is_root = runc_exe_is_packaged(exe);
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

/* ---- vm.memfd_noexec (runtime.h) --------------------------------------- */

static void log_line(int level, const char *fmt, ...) _printf_(2, 3);
static void log_line(int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	nsexec_loader_log(level, line);
}

/* The sysctl, opened in stage-0 (or the -errno of the open): inherited by
 * stage-1 and stage-2, read (and closed) by stage-2. */
static int memfd_noexec_fd = -EBADF;

void runc_memfd_noexec_open(void)
{
	memfd_noexec_fd = nsexec_runtime_level_open();
}

int runc_memfd_noexec_apply(uint32_t attr, uint32_t cloneflags, pid_t stage2_pid)
{
	struct nsexec_runtime_request req = {
		.level = (int)(attr & RUNC_MEMFD_NOEXEC_LEVEL_MASK),
		.keeps_sys_admin = attr & RUNC_MEMFD_NOEXEC_SYS_ADMIN,
		.new_userns = cloneflags & CLONE_NEWUSER,
		.pidns = (cloneflags & CLONE_NEWPID) ? NSEXEC_ORIGIN_CREATED : NSEXEC_ORIGIN_JOINED,
	};
	struct mt_error *err = NULL;
	struct nsexec_result res;
	int r;

	if (!(attr & RUNC_MEMFD_NOEXEC_PRESENT) || !(attr & RUNC_MEMFD_NOEXEC_APPLY))
		return 0;
	r = nsexec_runtime_apply(stage2_pid, &req, &res, &err);
	if (r < 0) {
		nsexec_loader_log(RUNC_LOG_FATAL, mt_error_message(err));
		mt_error_free(&err);
		return r;
	}
	if (res.joined || res.kept)
		log_line(RUNC_LOG_WARNING, "vm.memfd_noexec: %s %d (asked for %d)",
			 res.joined ? "joined a namespace already at" : "kept stricter inherited",
			 res.after, req.level);
	else if (res.written)
		log_line(RUNC_LOG_DEBUG, "vm.memfd_noexec: set %d (was %d)", res.after, res.before);
	else
		log_line(RUNC_LOG_DEBUG, "vm.memfd_noexec: already %d", res.after);
	return 0;
}

int runc_memfd_noexec_rule(uint32_t attr)
{
	bool asked = attr & RUNC_MEMFD_NOEXEC_PRESENT;
	int level = (int)(attr & RUNC_MEMFD_NOEXEC_LEVEL_MASK);
	struct mt_error *err = NULL;
	char request[32] = "";
	int effective, r;

	/* runc create checked the level; a changed state is refused. */
	if (asked && level > 2) {
		if (memfd_noexec_fd >= 0)
			(void)close(TAKE_FD(memfd_noexec_fd));
		log_line(
			RUNC_LOG_FATAL,
			"Refusing the annotations[\"%s\"] that runc init was given: it is not \"0\", \"1\" or \"2\", which runc create checked. Was the container's state changed?",
			NSEXEC_RUNTIME_ANNOTATION);
		return -EINVAL;
	}
	r = nsexec_runtime_hugetlb_rule(TAKE_FD(memfd_noexec_fd),
					asked ? level : NSEXEC_RUNTIME_LEVEL_NONE, &effective,
					&err);
	if (r < 0) {
		nsexec_loader_log(RUNC_LOG_FATAL, mt_error_message(err));
		mt_error_free(&err);
		return r;
	}
	if (asked)
		(void)snprintf(request, sizeof(request), ", asked for %d", level);
	if (effective >= 0)
		log_line(RUNC_LOG_DEBUG, "vm.memfd_noexec=%d here%s: %s", effective, request,
			 r > 0 ? "memfd_create(MFD_HUGETLB) refused (seccomp)"
			       : "no MFD_HUGETLB rule needed");
	else
		log_line(RUNC_LOG_DEBUG, "vm.memfd_noexec unreadable here (%s): %s",
			 strerror(-effective),
			 r > 0 ? "memfd_create(MFD_HUGETLB) refused (seccomp), to be safe"
			       : "no MFD_HUGETLB rule needed (this kernel has no levels)");
	return 0;
}
