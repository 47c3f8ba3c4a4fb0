/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec serve: runs the service of nsexec/service.h (the daemon is
 * service/, memfd-service.h), which raises vm.memfd_noexec for rootless
 * containers.
 *
 *   memfd-noexec serve [--socket PATH] [--allow-user USER]...
 *                      [--allow-group GROUP]...
 *
 * It must run as global root.  It listens on a SOCK_SEQPACKET Unix socket:
 * the one systemd passes (LISTEN_FDS=1, LISTEN_PID ours: fd 3), else one it
 * binds at PATH (default NSEXEC_SERVICE_SOCKET, mode 0666), which it
 * removes again on SIGTERM or SIGINT.  Another PATH is for tests and
 * private setups only: the clients (the patched runc's nsexec, the hook)
 * always ask at NSEXEC_SERVICE_SOCKET.  One line per request goes to
 * stderr:
 *
 *   memfd-noexec serve: uid U[ (user K)] pid P: raise N pid:[INO]: ok|kept|refused: ...
 */
#ifndef MEMFD_NOEXEC_SERVE_H
#define MEMFD_NOEXEC_SERVE_H

#include <stdio.h>

/*
 * The `serve` command of memfd-noexec; argv[0] is "serve".  Returns the
 * exit status: 0 after SIGTERM or SIGINT, 1 when it cannot start (not
 * global root, the socket cannot be made) or fails, 2 on bad usage (also
 * an unknown user or group).
 */
int verb_serve(int argc, char *argv[]);

/* Its usage text. */
void verb_serve_usage(FILE *f);

#endif
