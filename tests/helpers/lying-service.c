/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lying-service: speaks the memfd-noexec service's protocol
 * (nsexec/service.h) and lies: it answers every request with REPLY
 * (default "ok 2") and raises nothing.  A client must not believe it
 * (serve.bats: nsexec reads the level back itself).
 *
 *   lying-service SOCKET [REPLY]
 *
 * Binds SOCKET (mode 0666), prints "listening" on stderr, answers until
 * SIGTERM or 60 s have passed (it stops by itself), then removes SOCKET.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

int main(int argc, char *argv[])
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *reply = argc > 2 ? argv[2] : "ok 2";
	struct sigaction act = {.sa_handler = on_signal};
	int fd, n = 0;

	if (argc < 2 || argc > 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: lying-service SOCKET [REPLY]\n");
		return 2;
	}
	(void)sigaction(SIGTERM, &act, NULL);
	(void)sigaction(SIGALRM, &act, NULL);
	(void)alarm(60);
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	(void)umask(0111);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		fprintf(stderr, "lying-service: Failed to listen on %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	fprintf(stderr, "lying-service: listening\n");
	while (!stop) {
		char buf[1100], cbuf[CMSG_SPACE(16 * sizeof(int))];
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			continue; /* EINTR: the loop checks stop */
		if (recvmsg(c, &mh, MSG_CMSG_CLOEXEC) >= 0) {
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
				for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				     i++) {
					int got;

					memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(got));
					(void)close(got);
				}
			(void)send(c, reply, strlen(reply), MSG_NOSIGNAL);
			fprintf(stderr, "lying-service: answered \"%s\" (%d)\n", reply, ++n);
		}
		(void)close(c);
	}
	(void)unlink(argv[1]);
	return 0;
}
