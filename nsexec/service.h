/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The memfd-noexec service: a privileged party that raises vm.memfd_noexec
 * for rootless containers, which may not write it themselves (only global
 * root may: the file is 0644 and owned by it).  `memfd-noexec serve` is the
 * service; nsexec_service_raise() the client, used by nsexec (the patched
 * runc, the rebuilt crun, the hook) when its own write is refused.
 *
 * The protocol, one request per connection on a SOCK_SEQPACKET Unix
 * socket:
 *
 *   request: one message, the text "raise N" (N = 0, 1 or 2, nothing
 *            else), with exactly one fd attached (SCM_RIGHTS): a pidfd of
 *            a process in the PID namespace to raise (never a bare pid, so
 *            that pid reuse cannot redirect the request);
 *   reply:   one message, "ok N" (raised; N is what it reads now),
 *            "kept N" (already N, at least as strict), or
 *            "error ERRNO MESSAGE" (refused or failed; ERRNO a decimal
 *            errno, MESSAGE one line for the user).  ERRNO 16 (EBUSY)
 *            says the service is busy and may come before the request
 *            was read (the client's send may then fail with EPIPE).
 *
 * The service takes the client's uid and pid from SO_PEERCRED (and its
 * pidfd from SO_PEERPIDFD where the kernel has it), and only raises a
 * PID namespace strictly below the client's own whose owning user
 * namespace the client's uid created.  It never lowers a level.
 */
#ifndef NSEXEC_SERVICE_H
#define NSEXEC_SERVICE_H

#include "errors.h"

#define NSEXEC_SERVICE_SOCKET "/run/memfd-noexec.sock"
#define NSEXEC_SERVICE_MESSAGE_MAX 1024 /* bytes of a request or reply */

/*
 * Asks the service at socket_path (NULL: NSEXEC_SERVICE_SOCKET) to raise
 * the PID namespace of the process pidfd refers to to level.  On success
 * stores the level it reports in *ret_level and returns 0 (1 if it was
 * already there: "kept").  Waits at most a few seconds.
 *
 * Errors:
 *  -ENOENT, -ECONNREFUSED  no service listens there;
 *  -EPROTO  the reply is not one of the three forms;
 *  -ETIMEDOUT  no reply in time;
 *  -EBUSY   the service is busy (too many requests wait, from this user
 *           or in all): the message says to try again in a moment;
 *  the ERRNO of an "error" reply, with its MESSAGE;
 *  any other -errno of socket, connect, sendmsg, recv.
 */
int nsexec_service_raise(const char *socket_path, int pidfd, int level, int *ret_level,
			 struct mt_error **err);

/* Parses a request; 0..2, or -EINVAL.  Shared with the service. */
int nsexec_service_parse_request(const char *msg, size_t len);

#endif
