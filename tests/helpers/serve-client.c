/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve-client: sends one request to `memfd-noexec serve` exactly as told,
 * well-formed or not, and prints the reply (tests/bats/serve.bats).
 *
 *   serve-client [OPTIONS] SOCKET
 *     -m TEXT   the message, as is (default "raise 2"; '' sends nothing)
 *     -x HEX    the message as hex bytes, e.g. 00ff72 (for garbage)
 *     -p PID    attach a pidfd of PID (repeatable, in order)
 *     -f PATH   attach an fd of PATH, opened read-only (repeatable)
 *     -e        attach a pidfd of a child that has exited and been reaped
 *     -s        attach a pidfd of the process that sends (itself)
 *     -u        send from a new user and PID namespace (as its PID 1);
 *               the -p, -f and -e fds are opened before
 *     -q        connect, send nothing and wait for the reply
 *     -n N      make N connections at once (then send on each)
 *     -E        with -n: send on each right after connecting it (a flood
 *               of requests, not of silent connections)
 *
 * Prints "client pid N" (N as the service sees it) to stderr and the
 * reply to stdout.  Exits 0 if a reply came, 1 if none did or something
 * failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "missing-syscall.h"

#define MAX_FDS 64
#define MAX_CONNS 2000

struct client {
	const char *socket;
	char msg[4096];
	size_t len;
	int fds[MAX_FDS];
	size_t n_fds;
	bool self, unshare, silent, eager;
	int count; /* connections */
};

_noreturn_ static void fail(int status, const char *what)
{
	fprintf(stderr, "serve-client: %s: %s\n", what, strerror(errno));
	exit(status);
}

static void add_fd(struct client *c, int fd, const char *what)
{
	if (fd < 0)
		fail(1, what);
	if (c->n_fds >= MAX_FDS) {
		fprintf(stderr, "serve-client: at most %d fds\n", MAX_FDS);
		exit(2);
	}
	c->fds[c->n_fds++] = fd;
}

/* A pidfd of a child that has exited and been reaped. */
static int exited_pidfd(void)
{
	int fd, p[2];
	pid_t pid;
	char ch;

	if (pipe(p) < 0)
		fail(1, "pipe");
	pid = fork();
	if (pid < 0)
		fail(1, "fork");
	if (pid == 0) {
		(void)close(p[1]);
		(void)read(p[0], &ch, 1);
		_exit(0);
	}
	fd = missing_pidfd_open(pid, 0);
	(void)close(p[1]);
	(void)close(p[0]);
	(void)waitpid(pid, NULL, 0);
	return fd;
}

static size_t parse_hex(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; s[0] && s[1] && n < size; s += 2) {
		unsigned v;

		if (sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = (char)v;
	}
	return n;
}

static int send_request(int sock, const struct client *c)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	} control = {};
	struct iovec iov = {.iov_base = (void *)c->msg, .iov_len = c->len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	int fds[MAX_FDS + 1];
	size_t n = 0;

	memcpy(fds, c->fds, c->n_fds * sizeof(int));
	n = c->n_fds;
	if (c->self)
		fds[n++] = missing_pidfd_open(getpid(), 0);
	if (n > 0) {
		struct cmsghdr *cm;

		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	}
	/* EPIPE, ECONNRESET: the service answered before the request
	 * (busy) and closed; its reply is still there to print. */
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
		return -1;
	return 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 10};
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail(1, "socket");
	strncpy(sa.sun_path, path, sizeof(sa.sun_path) - 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail(1, "connect");
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int print_reply(int fd)
{
	char reply[4096];
	ssize_t n;

	n = recv(fd, reply, sizeof(reply) - 1, 0);
	/* ECONNRESET: the service closed with the request unread; its
	 * reply is still queued behind that error. */
	if (n < 0 && errno == ECONNRESET)
		n = recv(fd, reply, sizeof(reply) - 1, MSG_DONTWAIT);
	if (n < 0)
		fail(1, "recv");
	if (n == 0) {
		fprintf(stderr, "serve-client: no reply\n");
		return 1;
	}
	reply[n] = '\0';
	printf("%s\n", reply);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* Makes c->count connections (all before the first request is sent),
 * sends the request on each (unless silent), prints every reply. */
static int talk(const struct client *c)
{
	int fds[MAX_CONNS], r = 0;

	for (int i = 0; i < c->count; i++) {
		fds[i] = connect_to(c->socket);
		if (c->eager && !c->silent && send_request(fds[i], c) < 0)
			fail(1, "sendmsg");
	}
	for (int i = 0; i < c->count && !c->eager; i++)
		if (!c->silent && send_request(fds[i], c) < 0)
			fail(1, "sendmsg");
	for (int i = 0; i < c->count; i++)
		r |= print_reply(fds[i]);
	return r;
}

/* -u: the request comes from PID 1 of a new user and PID namespace. */
static int talk_from_child_ns(const struct client *c)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
		fail(1, "unshare");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail(1, "fork");
	if (pid == 0)
		_exit(talk(c));
	fprintf(stderr, "client pid %d\n", (int)pid);
	if (waitpid(pid, &status, 0) < 0)
		fail(1, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char *argv[])
{
	static struct client c = {.msg = "raise 2", .len = 7, .count = 1};
	int opt;

	while ((opt = getopt(argc, argv, "m:x:p:f:esuqn:E")) != -1) {
		switch (opt) {
		case 'm':
			c.len = strlen(optarg);
			if (c.len >= sizeof(c.msg))
				c.len = sizeof(c.msg) - 1;
			memcpy(c.msg, optarg, c.len);
			break;
		case 'x':
			c.len = parse_hex(optarg, c.msg, sizeof(c.msg));
			break;
		case 'p':
			add_fd(&c, missing_pidfd_open(atoi(optarg), 0), "pidfd_open");
			break;
		case 'f':
			add_fd(&c, open(optarg, O_RDONLY | O_CLOEXEC), optarg);
			break;
		case 'e':
			add_fd(&c, exited_pidfd(), "pidfd_open (exited)");
			break;
		case 's':
			c.self = true;
			break;
		case 'u':
			c.unshare = true;
			break;
		case 'q':
			c.silent = true;
			break;
		case 'E':
			c.eager = true;
			break;
		case 'n':
			c.count = atoi(optarg);
			if (c.count < 1 || c.count > MAX_CONNS) {
				fprintf(stderr, "serve-client: -n 1..%d\n", MAX_CONNS);
				return 2;
			}
			break;
		default:
			fprintf(stderr,
				"usage: serve-client [-m TEXT | -x HEX] [-p PID]... [-f PATH]... [-e] [-s] [-u] [-q] [-n N [-E]] SOCKET\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "serve-client: give one SOCKET\n");
		return 2;
	}
	c.socket = argv[optind];
	if (c.unshare)
		return talk_from_child_ns(&c);
	fprintf(stderr, "client pid %d\n", (int)getpid());
	return talk(&c);
}
