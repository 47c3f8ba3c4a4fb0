/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec probes: what the kernel offers around exec-controlled memfds, and
 * what this process may do about vm.memfd_noexec.  Every answer comes from
 * calling the feature, never from the kernel version.
 */
#ifndef NSEXEC_PROBE_H
#define NSEXEC_PROBE_H

#include <stdbool.h>

struct nsexec_features {
	bool memfd_create; /* memfd_create(2) exists (3.17) */
	bool mfd_exec;	   /* MFD_EXEC / MFD_NOEXEC_SEAL are known (6.3) */
	bool seal_exec;	   /* F_SEAL_EXEC is known (6.3) */
	bool sysctl;	   /* /proc/sys/vm/memfd_noexec exists (6.3) */
};

/*
 * Fills *ret.  Probed once and cached.  NSEXEC_FEATURES, a comma-separated
 * list such as "-mfd_exec,-sysctl", turns features off (never on), for
 * tests; so does nsexec_features_override().
 */
void nsexec_probe_features(struct nsexec_features *ret);
/* Replaces the cache; NULL drops it so the next call probes again. */
void nsexec_features_override(const struct nsexec_features *f);

/*
 * vm.memfd_noexec as the caller's active PID namespace sees it: 0..2, or
 * -ENOENT (no such sysctl), or another -errno from open/read.
 */
int nsexec_read_level(void);

/* 1 if the caller's active PID namespace is the initial one, 0 if not,
 * -errno if that cannot be told. */
int nsexec_in_initial_pidns(void);

/*
 * Whether this process could set vm.memfd_noexec for a PID namespace it
 * creates or joins: euid 0, in the initial user namespace, with
 * CAP_SYS_ADMIN in its effective set (libcap).  Returns 1 (yes) or 0 (no,
 * with a static reason in *ret_reason), or -errno (-ENOMEM, or from
 * reading /proc/self/ns/user) when it cannot be told.
 */
int nsexec_can_set_level(const char **ret_reason);

enum nsexec_semantics {
	NSEXEC_SEMANTICS_UNKNOWN = 0,
	NSEXEC_SEMANTICS_ABSENT,    /* no vm.memfd_noexec at all */
	NSEXEC_SEMANTICS_HIERARCHY, /* effective = max(own, ancestors); a
				     * namespace may lower its own value to
				     * its parent's; children follow a
				     * parent that raises (6.5.3+, 6.6+) */
	NSEXEC_SEMANTICS_RATCHET,   /* never lowered; children copy the value
				     * once, at creation (6.3 to 6.5.2) */
};

/* "unknown", "absent", "hierarchy", "ratchet" */
const char *nsexec_semantics_to_string(enum nsexec_semantics s);

/*
 * Finds out which semantics the kernel has, entirely inside throwaway PID
 * namespaces (never the caller's or the initial one):
 *   fork C; C: unshare(CLONE_NEWPID), fork A (init of new namespace NA);
 *   A: reads v0 (< 2 needed), unshare(CLONE_NEWPID), forks B (init of
 *      NB, a child of NA) which waits; A writes v0+1 in NA, then B reads:
 *      v0+1 means children follow (hierarchy), v0 that they copied
 *      (ratchet); A then writes v0 back: allowed (hierarchy) or EINVAL
 *      (ratchet).
 * Both tests must agree.  Stores the answer in *ret and a malloc'd detail
 * line in *ret_detail (if not NULL) and returns 0; UNKNOWN (with the
 * reason in the detail) when unprivileged, when the level here is already
 * 2, or when the tests disagree.
 *
 * Errors: -ENOMEM; -errno of pipe2/fork in the caller.
 */
int nsexec_probe_semantics(enum nsexec_semantics *ret, char **ret_detail);

#endif
