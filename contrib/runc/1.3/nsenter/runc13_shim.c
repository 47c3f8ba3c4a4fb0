/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc13_shim: runc 1.3's parent clones its binary through the loader, and
 * runc init's log.  See runc13_shim.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runc13_shim.h"

/* For runc_loader_shim.c: the loader's and the level's lines go into runc
 * init's log pipe (runc 1.3's log.c exports what runc 1.1's nsexec.c kept
 * static; its levels are RUNC_LOG_*'s). */
bool nsexec_loader_debug(void)
{
	return logfd >= 0 && log_enabled_for(DEBUG);
}

void nsexec_loader_log(int level, const char *line)
{
	write_log(level, "%s", line);
}

#ifndef RUNC_LOADER_REQUEST
#define RUNC_LOADER_REQUEST CLONED_BINARY_REQUEST_AUTO
#endif

/*
 * The loader's lines of one runc_clone_self_exe() call.  The loader's log
 * callback takes no argument, and cgo runs the call on one thread:
 * thread-local, so concurrent callers (libcontainer users) never mix.
 */
static __thread char *clone_msg;
static __thread size_t clone_msg_size;

static void clone_log(const char *line)
{
	size_t len;

	if (!clone_msg || clone_msg_size == 0)
		return;
	len = strlen(clone_msg);
	(void)snprintf(clone_msg + len, clone_msg_size - len, "%s%s", len ? "\n" : "", line);
}

bool runc_loader_no_clone(void)
{
#if defined(RUNC_LOADER_NO_CLONE) && RUNC_LOADER_NO_CLONE
	return true;
#else
	return false;
#endif
}

int runc_clone_self_exe(const char *statedir, bool *ret_overlay, char *msg, size_t msg_size)
{
	const char *tmpdirs[] = {statedir, NULL};
	struct cloned_binary_options opts = {
		.request = RUNC_LOADER_REQUEST,
		.tmpdirs = tmpdirs,
		.debug = true,
		.log = clone_log,
	};
	enum cloned_binary_method m;
	struct mt_error *err = NULL;
	int exe, fd = -1, r;

	msg[0] = '\0';
	*ret_overlay = false;
	if (runc_loader_no_clone()) {
		/* The benchmark's lower bound: runc init runs from the host's
		 * binary, open to CVE-2019-5736.  Never installed. */
		fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		(void)snprintf(msg, msg_size,
			       CLONED_BINARY_LOG_PREFIX
			       "using none (no-clone benchmark build, unprotected)");
		return fd;
	}
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0) {
		r = -errno;
		(void)snprintf(msg, msg_size,
			       CLONED_BINARY_LOG_PREFIX "Failed to open /proc/self/exe: %m");
		return r;
	}
	opts.overflow_uid_is_root = runc_exe_is_packaged(exe);
	clone_msg = msg;
	clone_msg_size = msg_size;
	r = cloned_binary_clone(exe, &opts, &m, &fd, &err);
	clone_msg = NULL;
	(void)close(exe);
	if (r < 0) {
		size_t len = strlen(msg);

		(void)snprintf(msg + len, msg_size - len, "%s" CLONED_BINARY_LOG_PREFIX "%s",
			       len ? "\n" : "", mt_error_message(err));
		mt_error_free(&err);
		return r;
	}
	/* The loader checked it; check again what runc init will run. */
	r = cloned_binary_is_sealed(fd, &opts);
	if (r <= 0) {
		(void)close(fd);
		(void)snprintf(msg, msg_size,
			       CLONED_BINARY_LOG_PREFIX "Refusing the clone (%s): it is not sealed",
			       cloned_binary_method_to_string(m));
		return r < 0 ? r : -ENOEXEC;
	}
	/* The loader logged "cloned_binary: using METHOD". */
	*ret_overlay = m == CLONED_BINARY_METHOD_OVERLAY;
	return fd;
}
