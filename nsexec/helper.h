/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to nsexec/: reading, and raising, vm.memfd_noexec from inside a
 * PID namespace.
 *
 *   caller ──fork──> helper ──setns(pid ns)──fork──> worker (in the ns)
 *      ^                                                  │
 *      └──────────── struct nsexec_report over a pipe ────┘
 *
 * The helper and the worker run only async-signal-safe code and _exit().
 */
#ifndef NSEXEC_HELPER_H
#define NSEXEC_HELPER_H

#include <stddef.h>

#include "pidns.h"

enum nsexec_stage {
	NSEXEC_STAGE_DONE = 1,
	NSEXEC_STAGE_SETNS,
	NSEXEC_STAGE_FORK,
	NSEXEC_STAGE_GUARD,
	NSEXEC_STAGE_READ,
	NSEXEC_STAGE_OPEN,
	NSEXEC_STAGE_WRITE,
	NSEXEC_STAGE_REREAD,
};

struct nsexec_report {
	int stage;     /* enum nsexec_stage: where it ended */
	int err;       /* errno of the failed step */
	int before;    /* -1 if not read */
	int after;     /* -1 if not read */
	int write_err; /* errno of a tolerated write failure (EINVAL), or 0 */
	int written;
};

/*
 * Runs a worker in the PID namespace at ns_fd (a namespace fd, or a pidfd:
 * 5.8+ joins that process's active PID namespace) and fills *ret.
 *
 * level < 0: the worker only reads (in want, if not NULL).  When joining the
 * PID namespace is refused (EPERM: setns() also wants CAP_SYS_ADMIN in the
 * caller's own user namespace, which a rootless caller lacks) and user_fd is
 * the user namespace that owns it (>= 0), the helper joins that first, as its
 * owner may, and then the PID namespace.  Writing never does this: the
 * write needs the caller's own credentials.  level 0..2: before writing
 * anything, it checks that it is in want (if not NULL) and in none of the n
 * forbidden namespaces nor the initial one; it reads, writes the level if
 * the value is below it (never lowers), tolerates EINVAL from the write
 * (a stricter parent: the re-read decides) and reads back.
 *
 * Returns 0 when a report arrived (which may describe a failure), -EPROTO
 * if the helper ended without one (how says how), or -errno of pipe/fork.
 */
int nsexec_in_pidns(int ns_fd, int user_fd, int level, const struct nsexec_ns_id *want,
		    const struct nsexec_ns_id *forbidden, size_t n, struct nsexec_report *ret,
		    char *how, size_t how_size);

#endif
