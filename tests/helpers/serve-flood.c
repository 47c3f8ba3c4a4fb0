/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serve-flood: a flood of `memfd-noexec serve` from subordinate uids,
 * then one request of another user, timed (tests/bats/serve.bats).  Run as
 * root; it stops by itself (alarm) and kills what it started.
 *
 *   serve-flood [-U] [-k SUBUIDS] [-n REQUESTS] [-b BASE] [-t SECONDS] SOCKET FLOOD_UID OTHER_UID
 *
 * FLOOD_UID makes a user namespace whose uids 0..65535 are BASE.. (as a
 * rootless runtime's subordinate ids; root writes the map, so /etc/subuid
 * is not involved).  In it, SUBUIDS processes (default 8), each as uid
 * 1..SUBUIDS there (BASE+1.. on the host), make a container of their own
 * (a new user and PID namespace, its init paused) and send REQUESTS
 * (default 3000) in all, "raise 2" with a pidfd of their container's init,
 * each on a connection of its own, and send a new one as soon as one is
 * answered, so that REQUESTS always wait.  When all are sent, OTHER_UID
 * makes its container the same way and asks once; the time from its
 * connect() to the reply is printed:
 *
 *   flood: 3000 requests from 8 subordinate uids of uid U sent in N ms
 *   other: uid V answered in N ms: REPLY
 *
 * With -U the SUBUIDS flooding uids are distinct users instead, in the
 * initial user namespace: FLOOD_UID, FLOOD_UID+1, ... (they need no
 * passwd entry), and the first line says "from K users uid U..".
 *
 * Exits 0 when the other user got a reply, 1 when not (or on a failure),
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "missing-syscall.h"

#define MAX_SUBUIDS 64

static const char *sock_path;
static pid_t started[2]; /* the flood's owner and the other user's client */

_Noreturn static void die(const char *what)
{
	fprintf(stderr, "serve-flood: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static long long now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void on_alarm(int sig)
{
	static const char msg[] = "serve-flood: time is up\n";

	for (int i = 0; i < 2; i++)
		if (started[i] > 0)
			(void)kill(started[i], SIGKILL);
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(1);
}

/* Dies with its parent, so that nothing outlives the test. */
static void tie_to_parent(void)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die("prctl");
	if (getppid() == 1)
		_exit(1);
}

static void become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		die("setresuid");
}

/* A container as a rootless runtime makes it: a new user and PID
 * namespace (owned by our uid), its init paused.  A pidfd of that init. */
static int make_container(void)
{
	pid_t init;
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
		die("unshare (container)");
	init = fork();
	if (init < 0)
		die("fork (container)");
	if (init == 0) {
		tie_to_parent();
		for (;;)
			pause();
	}
	fd = missing_pidfd_open(init, 0);
	if (fd < 0)
		die("pidfd_open");
	return fd;
}

static int connect_service(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 60};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	strncpy(sa.sun_path, sock_path, sizeof(sa.sun_path) - 1);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("connect");
	return fd;
}

/* "raise 2" with pidfd; a service that answered before reading (busy) and
 * closed gives EPIPE, which is no failure here. */
static void send_raise(int fd, int pidfd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = {.iov_base = "raise 2", .iov_len = 7};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pidfd, sizeof(int));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
		die("sendmsg");
}

/* One subordinate uid: its container, then n requests in flight; reports
 * on ready when they are sent, and from then on sends a new request as
 * soon as one is answered, so that n of its requests always wait: the
 * flood does not end by itself (only when it is killed). */
_Noreturn static void subuid_flood(uid_t uid, int n, int ready)
{
	struct rlimit rl = {.rlim_cur = (rlim_t)n + 64, .rlim_max = (rlim_t)n + 64};
	struct pollfd *pfd = calloc((size_t)n, sizeof(*pfd));
	char reply[1100];
	int pidfd;

	if (!pfd)
		die("calloc");
	become(uid, uid);
	tie_to_parent();		     /* after: a change of euid clears it */
	(void)setrlimit(RLIMIT_NOFILE, &rl); /* lowering is allowed; raising may fail */
	pidfd = make_container();
	for (int i = 0; i < n; i++) {
		pfd[i] = (struct pollfd){.fd = connect_service(), .events = POLLIN};
		send_raise(pfd[i].fd, pidfd);
	}
	if (write(ready, "x", 1) != 1)
		die("write");
	for (;;) {
		if (poll(pfd, (nfds_t)n, -1) < 0 && errno != EINTR)
			die("poll");
		for (int i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			(void)!recv(pfd[i].fd, reply, sizeof(reply), MSG_DONTWAIT);
			(void)close(pfd[i].fd);
			pfd[i].fd = connect_service();
			send_raise(pfd[i].fd, pidfd);
		}
	}
}

/* Tells the user namespace of child its map: 0..65535 -> base.. */
static void write_maps(pid_t child, unsigned long base)
{
	static const char *const files[] = {"uid_map", "gid_map"};
	char path[64], map[64];

	for (int i = 0; i < 2; i++) {
		int fd, len = snprintf(map, sizeof(map), "0 %lu 65536\n", base);

		(void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)child, files[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, map, (size_t)len) != len)
			die(path);
		(void)close(fd);
	}
}

/* k distinct users owner, owner+1, ... flood, from the initial user
 * namespace.  Writes one byte on ready when all n are sent. */
static pid_t start_users_flood(uid_t owner, int k, int n, int ready)
{
	int fds[2];
	pid_t pid;
	char ch;

	if (pipe2(fds, O_CLOEXEC) < 0)
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		tie_to_parent();
		for (int i = 0; i < k; i++) {
			pid_t c = fork();

			if (c < 0)
				die("fork (user)");
			if (c == 0)
				subuid_flood(owner + (uid_t)i, n / k + (i < n % k), fds[1]);
		}
		for (int i = 0; i < k; i++)
			if (read(fds[0], &ch, 1) != 1)
				die("read (user)");
		if (write(ready, "x", 1) != 1)
			die("write");
		for (;;)
			pause();
	}
	return pid;
}

/* The flood's owner: a user namespace with 65536 uids; k subordinate uids
 * in it flood.  Writes one byte on ready when all n are sent. */
static pid_t start_flood(uid_t owner, unsigned long base, int k, int n, int ready)
{
	int go[2], made[2], fds[2];
	pid_t pid;
	char ch;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(made, O_CLOEXEC) < 0 || pipe2(fds, O_CLOEXEC) < 0)
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		become(owner, owner);
		tie_to_parent(); /* after: a change of euid clears it */
		if (unshare(CLONE_NEWUSER) < 0)
			die("unshare (the user's namespace)");
		if (write(made[1], "x", 1) != 1 || read(go[0], &ch, 1) != 1)
			die("sync");
		for (int i = 0; i < k; i++) {
			pid_t c = fork();

			if (c < 0)
				die("fork (subordinate uid)");
			if (c == 0)
				subuid_flood((uid_t)i + 1, n / k + (i < n % k), fds[1]);
		}
		for (int i = 0; i < k; i++)
			if (read(fds[0], &ch, 1) != 1)
				die("read (subordinate uid)");
		if (write(ready, "x", 1) != 1)
			die("write");
		for (;;)
			pause();
	}
	if (read(made[0], &ch, 1) != 1)
		die("the flood's owner did not start");
	write_maps(pid, base);
	if (write(go[1], "x", 1) != 1)
		die("write");
	return pid;
}

/* The other user: its container, one request, timed. */
static pid_t start_other(uid_t uid, int out)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char reply[1100];
		long long t0;
		ssize_t n;
		int fd, pidfd;

		become(uid, uid);
		tie_to_parent(); /* after: a change of euid clears it */
		pidfd = make_container();
		t0 = now_ms();
		fd = connect_service();
		send_raise(fd, pidfd);
		n = recv(fd, reply, sizeof(reply) - 1, 0);
		if (n <= 0) {
			dprintf(out, "other: uid %u got no reply after %lld ms (%s)\n",
				(unsigned)uid, now_ms() - t0, n < 0 ? strerror(errno) : "closed");
			_exit(1);
		}
		reply[n] = '\0';
		dprintf(out, "other: uid %u answered in %lld ms: %s\n", (unsigned)uid,
			now_ms() - t0, reply);
		_exit(0);
	}
	return pid;
}

int main(int argc, char *argv[])
{
	int k = 8, n = 3000, secs = 120, opt, ready[2], status;
	bool users = false;
	unsigned long base = 3000000;
	long long t0;
	char ch;

	while ((opt = getopt(argc, argv, "Uk:n:b:t:")) != -1) {
		switch (opt) {
		case 'U':
			users = true;
			break;
		case 'k':
			k = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'b':
			base = strtoul(optarg, NULL, 10);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind + 3 != argc || k < 1 || k > MAX_SUBUIDS || n < k || secs < 1)
		goto usage;
	sock_path = argv[optind];
	(void)signal(SIGALRM, on_alarm);
	(void)alarm((unsigned)secs);
	if (pipe2(ready, O_CLOEXEC) < 0)
		die("pipe2");
	t0 = now_ms();
	if (users)
		started[0] = start_users_flood((uid_t)atol(argv[optind + 1]), k, n, ready[1]);
	else
		started[0] = start_flood((uid_t)atol(argv[optind + 1]), base, k, n, ready[1]);
	if (read(ready[0], &ch, 1) != 1)
		die("the flood did not start");
	printf("flood: %d requests from %d %s %s sent in %lld ms\n", n, k,
	       users ? "users from uid" : "subordinate uids of uid", argv[optind + 1],
	       now_ms() - t0);
	fflush(stdout);
	started[1] = start_other((uid_t)atol(argv[optind + 2]), STDOUT_FILENO);
	if (waitpid(started[1], &status, 0) < 0)
		die("waitpid");
	started[1] = 0;
	(void)kill(started[0], SIGKILL);
	(void)waitpid(started[0], NULL, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
usage:
	fprintf(stderr,
		"usage: serve-flood [-U] [-k SUBUIDS] [-n REQUESTS] [-b BASE] [-t SECONDS] SOCKET FLOOD_UID OTHER_UID\n");
	return 2;
}
