/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe: memfd-noexec's probes (status, check and serve use them; no
 * runtime does): what this process may do about vm.memfd_noexec, and how the
 * kernel's namespaces pass it on.  (The kernel's features are probed in
 * common/kernel-features.h.)  Every answer comes from calling the feature,
 * never from the kernel version.
 */
#ifndef MEMFD_NOEXEC_PROBE_H
#define MEMFD_NOEXEC_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "errors.h"

/* 1 if the caller's active PID namespace is the initial one, 0 if not,
 * -errno if that cannot be told. */
int probe_in_initial_pidns(void);

/*
 * Whether this process could set vm.memfd_noexec for a PID namespace it
 * creates or joins: euid 0, in the initial user namespace, with
 * CAP_SYS_ADMIN in its effective set (libcap).  Returns 0 if it could,
 * -EPERM (with the reason in *err) if it could not, or another -errno
 * (from libcap or /proc/self/ns/user) when it cannot be told.
 */
int probe_can_set_level(struct mt_error **err);

enum probe_semantics {
	PROBE_SEMANTICS_UNKNOWN = 0,
	PROBE_SEMANTICS_ABSENT,	   /* no vm.memfd_noexec at all */
	PROBE_SEMANTICS_HIERARCHY, /* effective = max(own, ancestors); a
				    * namespace may lower its own value to
				    * its parent's; children follow a
				    * parent that raises (6.5.3+, 6.6+) */
	PROBE_SEMANTICS_RATCHET,   /* never lowered; children copy the value
				    * once, at creation (6.3 to 6.5.2) */
};

/* "unknown", "absent", "hierarchy", "ratchet" */
const char *probe_semantics_to_string(enum probe_semantics s);

/*
 * Finds out which semantics the kernel has, entirely inside throwaway PID
 * namespaces (never the caller's or the initial one):
 *   fork C; C: unshare(CLONE_NEWPID), fork A (init of new namespace NA);
 *   A: reads v0 (< 2 needed), unshare(CLONE_NEWPID), forks B (init of
 *      NB, a child of NA) which waits; A writes v0+1 in NA, then B reads:
 *      v0+1 means children follow (hierarchy), v0 that they copied
 *      (ratchet); A then writes v0 back: allowed (hierarchy) or EINVAL
 *      (ratchet).
 * Both tests must agree.  Stores the answer in *ret and one line of detail
 * in detail (size bytes) and returns 0; UNKNOWN (with the reason in the
 * detail) when unprivileged, when the level here is already 2, or when
 * the tests disagree.
 *
 * Errors: -errno of pipe2/fork in the caller.
 */
int probe_kernel_semantics(enum probe_semantics *ret, char *detail, size_t size);

#endif
