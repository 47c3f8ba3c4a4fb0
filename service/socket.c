/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's listening socket: the one systemd passes (fd 3), or one
 * bound at a path, replacing only a stale socket of our own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "parse.h"
#include "service-internal.h"

/* fd must be a listening SOCK_SEQPACKET Unix socket. */
static int check_listen_fd(int fd, struct mt_error **e)
{
	int domain = -1, type = -1, listening = 0;
	socklen_t l1 = sizeof(int), l2 = sizeof(int), l3 = sizeof(int);
	struct stat st;

	if (fstat(fd, &st) < 0)
		return mt_error_set(e, negative_errno(),
				    "Failed to use fd %d from socket activation: %m", fd);
	if (!S_ISSOCK(st.st_mode) || getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &l1) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l2) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l3) < 0 || domain != AF_UNIX ||
	    type != SOCK_SEQPACKET)
		return mt_error_set(
			e, -EPROTOTYPE,
			"fd %d from socket activation is not a SOCK_SEQPACKET Unix socket: the .socket unit must say ListenSequentialPacket=%s",
			fd, NSEXEC_SERVICE_SOCKET);
	if (!listening)
		return mt_error_set(
			e, -EINVAL,
			"fd %d from socket activation is not a listening socket: the .socket unit must say Accept=no",
			fd);
	return 0;
}

/* The socket systemd passed: 1 and its fd in s, or 0 when none was
 * passed to us (LISTEN_PID names another process: sd_listen_fds() does
 * the same), or -errno. */
static int listen_activated(struct service_socket *s, struct mt_error **e)
{
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	uint64_t pid;
	int r, fl;

	if (!pid_s || !fds_s || mt_parse_uint(pid_s, UINT32_MAX, &pid, NULL) < 0 ||
	    pid != (uint64_t)getpid())
		return 0;
	if (strcmp(fds_s, "1") != 0)
		return mt_error_set(
			e, -EINVAL,
			"LISTEN_FDS=%.16s: socket activation must pass exactly one socket", fds_s);
	r = check_listen_fd(3, e);
	if (r < 0)
		return r;
	fl = fcntl(3, F_GETFL);
	if (fl < 0 || fcntl(3, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
		return mt_error_set(e, negative_errno(), "Failed to set up fd 3: %m");
	(void)unsetenv("LISTEN_PID");
	(void)unsetenv("LISTEN_FDS");
	(void)unsetenv("LISTEN_FDNAMES");
	*s = (struct service_socket){.fd = 3};
	return 1;
}

/*
 * Clears the way for bind(): nothing at path, or a stale socket of ours (a
 * socket owned by our euid on which nobody listens) that is removed.
 * Anything else is refused.
 */
static int remove_stale(const char *path, struct mt_error **e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0
				       : mt_error_set(e, negative_errno(),
						      "Failed to look at %s: %m", path);
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return mt_error_set(
			e, -EEXIST,
			"Refusing to replace %s: it is not a socket of ours (a %s owned by uid %u). Remove it, or choose another --socket.",
			path, S_ISSOCK(st.st_mode) ? "socket" : "file", (unsigned)st.st_uid);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return mt_error_set(e, negative_errno(), "Failed to create a socket: %m");
	memcpy(sa.sun_path, path, strlen(path));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return mt_error_set(
			e, -EADDRINUSE,
			"Refusing to replace the socket %s: a service listens there. Stop it, or choose another --socket.",
			path);
	if (errno != ECONNREFUSED)
		return mt_error_set(
			e, -EADDRINUSE,
			"Refusing to replace the socket %s: cannot tell whether it is stale (connecting gave %m). Remove it, or choose another --socket.",
			path);
	if (unlink(path) < 0 && errno != ENOENT)
		return mt_error_set(e, negative_errno(), "Failed to remove the stale socket %s: %m",
				    path);
	return 0;
}

static int listen_path(const char *path, struct service_socket *s, struct mt_error **e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	mode_t old;
	int r;

	r = remove_stale(path, e);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return mt_error_set(e, negative_errno(), "Failed to create a socket: %m");
	memcpy(sa.sun_path, path, strlen(path));
	/* 0666: every local user may connect; the checks are ours. */
	old = umask(0111);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	(void)umask(old);
	if (r < 0)
		return mt_error_set(e, negative_errno(), "Failed to bind %s: %m", path);
	if (lstat(path, &st) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = negative_errno();
		(void)unlink(path);
		return mt_error_set(e, r, "Failed to listen on %s: %s", path, strerror(-r));
	}
	*s = (struct service_socket){
		.fd = TAKE_FD(fd), .path = path, .dev = st.st_dev, .ino = st.st_ino};
	return 0;
}

int open_socket(const struct service_config *cfg, struct service_socket *s, struct mt_error **e)
{
	int r = listen_activated(s, e);

	if (r < 0)
		return r;
	if (r > 0 && cfg->socket_path)
		return mt_error_set(
			e, -EINVAL,
			"both --socket %s and socket activation (LISTEN_FDS) name a socket: drop one",
			cfg->socket_path);
	if (r > 0)
		return 0;
	if (cfg->socket_path &&
	    (!*cfg->socket_path ||
	     strlen(cfg->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)))
		return mt_error_set(
			e, -EINVAL, "invalid socket path '%s': give a path of 1 to %zu bytes",
			cfg->socket_path, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	return listen_path(cfg->socket_path ? cfg->socket_path : NSEXEC_SERVICE_SOCKET, s, e);
}

/* Removes the socket we bound, if it is still the one we bound; says so
 * when it cannot, so that a socket left behind is never silent. */
void close_socket(const struct server *srv, struct service_socket *s)
{
	struct stat st;

	if (!s->path) {
		/* systemd's socket: systemd removes it (RemoveOnStop=). */
	} else if (lstat(s->path, &st) < 0) {
		service_log(
			srv, SERVICE_LOG_INFO,
			"Failed to look at %s before removing it: %s; remove it if it is still there",
			s->path, strerror(errno));
	} else if (st.st_dev != s->dev || st.st_ino != s->ino) {
		service_log(srv, SERVICE_LOG_INFO, "left %s: it is no longer the socket we bound",
			    s->path);
	} else if (unlink(s->path) < 0) {
		service_log(srv, SERVICE_LOG_INFO, "Failed to remove %s: %s; remove it by hand",
			    s->path, strerror(errno));
	} else {
		service_log(srv, SERVICE_LOG_INFO, "removed %s", s->path);
	}
	s->fd = safe_close(s->fd);
}
