/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service/: the memfd-noexec service, the raise-only daemon that rootless
 * containers ask for a vm.memfd_noexec level they may not write themselves
 * (only global root may: the file is 0644 and owned by it).  The protocol
 * and its client are nsexec's (nsexec/service.h); `memfd-noexec serve` is
 * the program that runs this daemon.  It links no code that spawns other
 * programs: it only forks nsexec's helpers, which exec nothing.
 *
 * One request per connection: "raise N" with a pidfd of a process in the
 * PID namespace T to raise.  T is raised, and never lowered, through
 * nsexec_apply_memfd_noexec_pidfd() only if
 *  1. T is not the initial PID namespace, nor the service's own, nor the
 *     client's own;
 *  2. T lies strictly below the client's PID namespace;
 *  3. the user namespace that owns T was created by the client's uid
 *     (SO_PEERCRED, as the kernel recorded it at connect()).
 *
 * Fairness: each request counts against a user, the one who owns the
 * client's chain of user namespaces (nsexec_userns_top_owner(): the owner
 * of the top-most user namespace below the initial one), or the client's
 * own uid when it is in the initial user namespace.  So a user's
 * subordinate uids, which act only inside user namespaces the user made,
 * share one quota.  Turns go round the users with a request waiting, one
 * request each; a user may have SERVICE_MAX_QUEUED_PER_USER requests
 * waiting and SERVICE_MAX_SILENT_PER_USER connections without a request.
 * When the table of SERVICE_MAX_HELD connections is full, a newcomer takes
 * the place of the newest connection of the user who holds the most, if
 * that user holds at least two more places than the newcomer's user: so a
 * user with nothing in the service always gets a place, and a turn within
 * one round, unless SERVICE_MAX_HELD users hold one place each.  Beyond
 * that the service still accepts, and answers at once "error 16 (EBUSY)
 * ... busy", so that nobody waits in the listen backlog behind a flood.
 * The log tells at most log_burst such answers one by one per window, and
 * counts the rest in one summary line.
 *
 * Library code: returns -errno with an mt_error; reports through the log
 * callback of its configuration, never to a terminal, and never exits.
 */
#ifndef MEMFD_SERVICE_H
#define MEMFD_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "errors.h"

#define SERVICE_TIMEOUT_MS 1000 /* for a connection's request, by default */
#define SERVICE_MAX_HELD 512	/* connections held at once */
#define SERVICE_MAX_SILENT_PER_USER 64
#define SERVICE_MAX_QUEUED_PER_USER 64
#define SERVICE_MAX_ALLOW 64	      /* allow-list entries of each kind */
#define SERVICE_LOG_INTERVAL_MS 10000 /* the log's window, by default */
#define SERVICE_LOG_BURST 200	      /* request lines per window, by default */

enum service_log_kind {
	SERVICE_LOG_INFO,  /* a line per request (limited), start and stop */
	SERVICE_LOG_DEBUG, /* a fallback's stable marker, for tests */
};

/* One line of printable text, without the newline. */
typedef void (*service_log_fn)(enum service_log_kind kind, const char *line, void *userdata);

struct service_config {
	/* Where to listen when systemd passes no socket (LISTEN_FDS=1 with
	 * LISTEN_PID ours: fd 3); NULL: NSEXEC_SERVICE_SOCKET.  A path
	 * given while systemd passes one is refused. */
	const char *socket_path;
	/* The allow-list; both empty: every local user may ask. */
	uid_t users[SERVICE_MAX_ALLOW];
	gid_t groups[SERVICE_MAX_ALLOW];
	size_t n_users, n_groups;
	/* For tests: false turns SO_PEERPIDFD (6.5), or the pidfd
	 * namespace ioctls (6.11), off, so that the fallbacks run. */
	bool use_peerpidfd, use_pidfd_ns;
	/* How long a connection may stay without a request, in ms (tests
	 * lengthen it to hold a full table); 0: SERVICE_TIMEOUT_MS. */
	int request_timeout_ms;
	/* The log's limit: per window of log_interval_ms, at most log_burst
	 * lines about requests (a raise that wrote is always logged); the
	 * rest are counted and told in one line when the window ends.  0:
	 * SERVICE_LOG_INTERVAL_MS and SERVICE_LOG_BURST. */
	int log_interval_ms;
	unsigned log_burst;
	service_log_fn log; /* NULL: silent */
	void *log_userdata;
};

/* A configuration with every kernel interface on, no allow-list, the
 * default socket and no log. */
void service_config_init(struct service_config *cfg);

/*
 * Runs the service until SIGTERM or SIGINT: listens (see socket_path),
 * answers each request (logging one line each, within the log's limit),
 * and at the end answers the connections still held with "the service is
 * stopping", tells what the log's limit left out, removes the socket it
 * bound (if it is still the one it bound) and returns the signal's
 * number.  The caller must be global root (memfd-noexec's
 * can-set-level probe says so); the service does not check it again, and
 * a raise without the privilege fails for each request.
 *
 * It installs handlers for SIGTERM and SIGINT (blocked except while it
 * waits), ignores SIGPIPE, and raises RLIMIT_NOFILE for a full table.
 *
 * Errors (nothing is left behind):
 *  -ENOENT      the kernel has no vm.memfd_noexec (before 6.3, or without
 *               CONFIG_PID_NS): nothing to serve;
 *  -EINVAL      a bad socket_path, LISTEN_FDS other than 1, both a path and
 *               socket activation, or a passed fd that does not listen;
 *  -EPROTOTYPE  the passed fd is not a SOCK_SEQPACKET Unix socket;
 *  -EEXIST, -EADDRINUSE  socket_path is taken by something not ours, or
 *               by a live service;
 *  any other -errno of socket, bind, listen, sigaction or ppoll.
 */
int service_run(const struct service_config *cfg, struct mt_error **err);

/*
 * The user a connection's requests count against: for a client in the
 * initial user namespace its own uid (peer_uid, SO_PEERCRED's), else the
 * owner of the top-most user namespace of the client's chain.  pidfd is
 * the client's (SO_PEERPIDFD) or -EBADF, pid its PID in our namespace
 * (0 if none); use_ioctl as in service_config.  *ret_by_proc (if not NULL)
 * says whether /proc was read.  0, -ESRCH if the client has exited, or
 * -errno.
 */
int service_user_of_client(int pidfd, pid_t pid, uid_t peer_uid, bool use_ioctl, uid_t *ret,
			   bool *ret_by_proc);

#endif
