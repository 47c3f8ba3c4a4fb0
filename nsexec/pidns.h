/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Part of nsexec's API: what /proc tells about a process's namespaces, and
 * the writer's guard, which memfd-noexec's probes use to guard their
 * throwaway namespaces.  The identities and the pidfd lookups, which the
 * memfd-noexec service builds on, are in nsexec-ns.h.  The /proc parsers
 * behind them stay static in pidns.c.
 * nsexec_guard_active_pidns() is async-signal-safe (no allocation, no
 * stdio): it runs in children forked from a possibly multi-threaded
 * caller.
 */
#ifndef NSEXEC_PIDNS_H
#define NSEXEC_PIDNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "nsexec-ns.h"

/*
 * 1 if /proc shows this process under its own PID, i.e. the procfs mount
 * belongs to the caller's active PID namespace, so /proc/<pid> names the
 * process that <pid> names for the caller; 0 if not (after a bare
 * `unshare --pid --fork`); -errno if /proc/self cannot be read.
 */
int nsexec_procfs_is_ours(void);

/*
 * About process pid, through /proc (which must be ours), checked against
 * its pidfd afterwards so that a recycled PID cannot answer for it:
 *  - nsexec_pid_is_ns_init(): 1 if it is PID 1 of its own PID namespace
 *    (the last NSpid field), 0 if not;
 *  - nsexec_pid_maps_global_root(): 1 if global root (uid 0 of the
 *    initial user namespace) is mapped in its user namespace, so that a
 *    process of it could write root-owned files such as the sysctl: true
 *    in the initial user namespace, and in one that maps 0 to 0; 0 if not
 *    (also whenever global root is not mapped in the caller's own).
 * -EOPNOTSUPP when /proc is not ours, -ESRCH when it exited, or -errno.
 */
int nsexec_pid_is_ns_init(pid_t pid, int pidfd);
int nsexec_pid_maps_global_root(pid_t pid, int pidfd);

/*
 * The last line of defence before any write: fails with -EEXIST if the
 * caller's active PID namespace is the initial one or equal to one of the
 * n ids in forbidden, and with -EPROTO if want is not NULL and the active
 * namespace is not want.  Other -errno if it cannot be determined (which
 * also forbids the write).
 */
int nsexec_guard_active_pidns(const struct nsexec_ns_id *want, const struct nsexec_ns_id *forbidden,
			      size_t n);

#endif
