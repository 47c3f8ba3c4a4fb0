/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client of the memfd-noexec service; see service.h for the protocol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"
#include "memfd-sysctl.h"
#include "parse.h"
#include "service.h"

#define SERVICE_TIMEOUT_SEC 10

static int service_connect(const char *path, struct mt_error **err)
{
	_cleanup_close_ int fd = -EBADF;
	struct timeval tv = {.tv_sec = SERVICE_TIMEOUT_SEC};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return mt_error_set(err, -ENAMETOOLONG,
				    "Refusing the service socket path %s: too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return mt_error_set(err, negative_errno(), "Failed to create a socket: %m");
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = negative_errno();
		/* Plain words: runtimes such as podman read "no such file or
		 * directory" in an error as "command not found" (exit 127). */
		return mt_error_set(
			err, r,
			"The memfd-noexec service, which could raise it, is not running at %s (%s): enable it with `systemctl enable --now memfd-noexec.socket`",
			path,
			r == -ENOENT	     ? "there is no socket"
			: r == -ECONNREFUSED ? "nothing listens there"
					     : strerror(-r));
	}
	return TAKE_FD(fd);
}

static int service_send(int fd, int pidfd, int level, struct mt_error **err)
{
	char msg[16], cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = {.iov_base = msg};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	iov.iov_len = (size_t)snprintf(msg, sizeof(msg), "raise %d", level);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pidfd, sizeof(int));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		return mt_error_set(err, negative_errno(),
				    "Failed to ask the memfd-noexec service: %m");
	return 0;
}

/* "ok N", "kept N" or "error ERRNO MESSAGE". */
static int service_reply(const char *msg, int *ret_level, struct mt_error **err)
{
	const char *end;
	int v;

	if (strncmp(msg, "ok ", 3) == 0 || strncmp(msg, "kept ", 5) == 0) {
		v = mt_memfd_noexec_parse(msg + (msg[0] == 'o' ? 3 : 5));
		if (v < 0)
			return -EPROTO;
		*ret_level = v;
		return msg[0] == 'k';
	}
	if (strncmp(msg, "error ", 6) != 0)
		return -EPROTO;
	if (mt_parse_int(msg + 6, 4095, &v, &end) < 0 || *end != ' ' || v == 0)
		return -EPROTO;
	if (v == EBUSY)
		return mt_error_set(
			err, -EBUSY,
			"The memfd-noexec service is busy and did not raise it (%s). Start the container again in a moment; if the service stays busy, its log (journalctl -u memfd-noexec.service) names the user whose requests fill it.",
			end + 1);
	return mt_error_set(err, (int)-v, "The memfd-noexec service refused to raise it: %s",
			    end + 1);
}

int nsexec_service_raise(const char *socket_path, int pidfd, int level, int *ret_level,
			 struct mt_error **err)
{
	const char *path = socket_path ? socket_path : NSEXEC_SERVICE_SOCKET;
	_cleanup_close_ int fd = -EBADF;
	char msg[NSEXEC_SERVICE_MESSAGE_MAX + 1];
	ssize_t n;
	int r;

	fd = service_connect(path, err);
	if (fd < 0)
		return fd;
	r = service_send(fd, pidfd, level, err);
	/* EPIPE, ECONNRESET: the service answered at once, before reading
	 * the request (busy), and closed; its answer is still to be read. */
	if (r < 0 && r != -EPIPE && r != -ECONNRESET)
		return r;
	n = recv(fd, msg, sizeof(msg) - 1, MSG_CMSG_CLOEXEC);
	/* ECONNRESET: the service closed with our request unread (it
	 * answered before reading it); its answer is still queued behind
	 * that error, which this recv() has cleared. */
	if (n < 0 && errno == ECONNRESET)
		n = recv(fd, msg, sizeof(msg) - 1, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (r < 0 && n <= 0)
		return r; /* no answer after all: the send's error */
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return mt_error_set(err, -ETIMEDOUT,
				    "The memfd-noexec service at %s did not answer within %d s",
				    path, SERVICE_TIMEOUT_SEC);
	if (n < 0)
		return mt_error_set(err, negative_errno(),
				    "Failed to read the memfd-noexec service's answer: %m");
	if (n == 0)
		return mt_error_set(
			err, -EPROTO,
			"The memfd-noexec service at %s closed the connection without an answer",
			path);
	msg[n] = '\0';
	r = service_reply(msg, ret_level, err);
	if (r == -EPROTO)
		return mt_error_set(
			err, r,
			"The memfd-noexec service at %s gave an answer that is not \"ok N\", \"kept N\" or \"error ERRNO MESSAGE\"",
			path);
	return r;
}
