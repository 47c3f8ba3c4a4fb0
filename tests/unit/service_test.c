/* SPDX-License-Identifier: Apache-2.0 */
/*
 * service/ at its API (memfd-service.h), on the real kernel:
 *  - service_user_of_client(): whom a client's requests count against:
 *    its own uid in the initial user namespace, else the owner of the
 *    top-most user namespace of its chain (a user's subordinate uids, in
 *    namespaces nested below one the user made, all answer that user);
 *  - service_run(): refuses a bad socket path and leaves nothing; answers
 *    a malformed request, a request for the initial PID namespace, and
 *    stops on SIGTERM, removing its socket and returning the signal.
 *
 * Root only (it writes a user namespace's map and becomes other uids).
 * No vm.memfd_noexec is ever written: every request here is refused
 * before a raise.  Without root the cases exit 77 (skipped) unless CI is
 * "true", where they fail.  `service_test CASE` runs one case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "memfd-service.h"
#include "missing-syscall.h"
#include "unit-cases.h"

#define NOBODY 65534
#define SUB_BASE 3100000UL
#define INITIAL_REFUSED "error 1 the target is in the initial PID namespace"
#define BUSY_PREFIX "error 16 the service is busy"
#define BUSY_GIVEN \
	"error 16 the service is busy: all 512 places for requests are taken, and this one went to a user with fewer; try again in a moment"

static bool in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && strcmp(ci, "true") == 0;
}

/* ---- service_user_of_client() ------------------------------------------- */

static int case_user_initial_namespace(void)
{
	_cleanup_close_ int pidfd = missing_pidfd_open(getpid(), 0);
	uid_t user = 0;
	bool by_proc = true;

	if (pidfd < 0)
		FAIL("pidfd_open: %s", strerror(errno));
	if (service_user_of_client(pidfd, getpid(), 4242, true, &user, &by_proc) != 0)
		FAIL("service_user_of_client failed");
	if (user != 4242)
		FAIL("a client in the initial user namespace counts as %u, not its own uid", user);
	if (service_user_of_client(pidfd, getpid(), 4242, false, &user, &by_proc) != 0 ||
	    !by_proc || user != 4242)
		FAIL("through /proc: user %u, by_proc %d", user, by_proc);
	return 0;
}

/*
 * A child as NOBODY makes a user namespace with uids 0..65535 mapped to
 * SUB_BASE.. (root writes the map), becomes uid 5 there (SUB_BASE+5, a
 * subordinate uid) and makes a nested user namespace of its own; depth 1
 * stops before the nested one.  *ret_hold keeps it alive.
 */
static pid_t spawn_subuid(int depth, int *ret_hold)
{
	int made[2], go[2], hold[2];
	char path[64], map[] = "0 3100000 65536\n", c;
	pid_t pid;

	if (pipe2(made, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
		    setresuid(NOBODY, NOBODY, NOBODY) < 0 || unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (write(made[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		if (setresgid(5, 5, 5) < 0 || setresuid(5, 5, 5) < 0)
			_exit(1);
		if (depth > 1 && unshare(CLONE_NEWUSER) < 0)
			_exit(1);
		if (write(made[1], "x", 1) != 1)
			_exit(1);
		(void)close(hold[1]);
		(void)read(hold[0], &c, 1);
		_exit(0);
	}
	(void)close(hold[0]);
	(void)close(made[1]);
	if (read(made[0], &c, 1) != 1)
		return -1;
	for (int i = 0; i < 2; i++) {
		int fd;

		(void)snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid,
			       i ? "gid_map" : "uid_map");
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, map, strlen(map)) != (ssize_t)strlen(map))
			return -1;
		(void)close(fd);
	}
	if (write(go[1], "x", 1) != 1 || read(made[0], &c, 1) != 1)
		return -1;
	*ret_hold = hold[1];
	return pid;
}

static int check_subuid_counts_as_owner(int depth)
{
	_cleanup_close_ int hold = -EBADF, pidfd = -EBADF;
	pid_t pid = spawn_subuid(depth, &hold);
	uid_t user = 0;
	bool by_proc = false;
	int r = 0;

	if (pid < 0)
		FAIL("could not make the subordinate uid's namespaces: %s", strerror(errno));
	pidfd = missing_pidfd_open(pid, 0);
	if (pidfd < 0)
		r = -errno;
	else if ((r = service_user_of_client(pidfd, pid, SUB_BASE + 5, true, &user, NULL)) == 0 &&
		 user != NOBODY)
		r = 1;
	else if (r == 0 &&
		 ((r = service_user_of_client(pidfd, pid, SUB_BASE + 5, false, &user, &by_proc)) ==
		  0) &&
		 (user != NOBODY || !by_proc))
		r = 2;
	hold = safe_close(hold);
	(void)waitpid(pid, NULL, 0);
	if (r != 0)
		FAIL("depth %d: subordinate uid %lu counts as user %u (want %d; r %d)", depth,
		     SUB_BASE + 5, user, NOBODY, r);
	return 0;
}

static int case_user_subuid(void)
{
	return check_subuid_counts_as_owner(1);
}

static int case_user_subuid_nested(void)
{
	return check_subuid_counts_as_owner(2);
}

static int case_user_exited(void)
{
	_cleanup_close_ int pidfd = -EBADF;
	uid_t user;
	pid_t pid = fork();

	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	pidfd = missing_pidfd_open(pid, 0);
	(void)waitpid(pid, NULL, 0);
	if (pidfd < 0)
		FAIL("pidfd_open: %s", strerror(errno));
	if (service_user_of_client(pidfd, pid, 1, true, &user, NULL) != -ESRCH)
		FAIL("an exited client is not -ESRCH");
	if (service_user_of_client(pidfd, pid, 1, false, &user, NULL) != -ESRCH)
		FAIL("an exited client is not -ESRCH through /proc");
	return 0;
}

/* ---- service_run() ------------------------------------------------------ */

static int case_run_bad_socket(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct service_config cfg;
	char path[200];
	int r;

	memset(path, 'x', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	service_config_init(&cfg);
	cfg.socket_path = path;
	r = service_run(&cfg, &e);
	if (r != -EINVAL || !strstr(mt_error_message(e), "invalid socket path"))
		FAIL("a 199-byte socket path: %d, %s", r, mt_error_message(e));
	return 0;
}

static void log_to_fd(enum service_log_kind kind, const char *line, void *userdata)
{
	dprintf(*(int *)userdata, "%s\n", line);
}

/* connect() to path, again while the service has bound it but does not
 * listen yet (ECONNREFUSED), for up to 5 s. */
static int connect_retry(int s, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	strncpy(sa.sun_path, path, sizeof(sa.sun_path) - 1);
	for (int i = 0; i < 500; i++) {
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return 0;
		if (errno != ECONNREFUSED && errno != ENOENT)
			return -errno;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Sends msg (with fd attached if >= 0) to the service at path; the reply
 * in buf. */
static int ask(const char *path, const char *msg, int fd, char *buf, size_t size, int timeout_s)
{
	struct timeval tv = {.tv_sec = timeout_s};
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = strlen(msg)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (s < 0)
		return -errno;
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect_retry(s, path) < 0)
		return -ECONNREFUSED;
	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (sendmsg(s, &mh, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
		return -errno;
	n = recv(s, buf, size - 1, 0);
	if (n < 0 && errno == ECONNRESET)
		n = recv(s, buf, size - 1, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The log's limit for the services start_service() starts; 0: default. */
static int log_interval_ms;
static unsigned log_burst;

/* service_run() in a child on DIR/sock, logging to DIR/log, with the
 * request timeout ms (0: the default); its PID once it listens. */
static pid_t start_service(const char *dir, int timeout_ms, int logfd)
{
	char path[64];
	pid_t pid;

	(void)snprintf(path, sizeof(path), "%s/sock", dir);
	pid = fork();
	if (pid == 0) {
		_cleanup_error_ struct mt_error *e = NULL;
		struct service_config cfg;
		int r;

		service_config_init(&cfg);
		cfg.socket_path = path;
		cfg.request_timeout_ms = timeout_ms;
		cfg.log_interval_ms = log_interval_ms;
		cfg.log_burst = log_burst;
		cfg.log = log_to_fd;
		cfg.log_userdata = &logfd;
		r = service_run(&cfg, &e);
		if (r < 0)
			dprintf(logfd, "service_run: %s\n", mt_error_message(e));
		_exit(r == SIGTERM ? 0 : 1);
	}
	for (int i = 0; i < 500 && access(path, F_OK) < 0; i++)
		usleep(10000);
	return pid;
}

/* In a user's child: how many of its connections were answered that
 * their place went to a user with fewer. */
static int count_given_way(const int *fds, int n)
{
	char reply[1100];
	int given = 0;

	for (int i = 0; i < n; i++) {
		ssize_t k = recv(fds[i], reply, sizeof(reply) - 1, MSG_DONTWAIT);

		if (k > 0) {
			reply[k] = '\0';
			given += strcmp(reply, BUSY_GIVEN) == 0;
		}
	}
	return given;
}

/* As uid, "raise 2" with a pidfd of our own: the reply in reply. */
static int ask_as(uid_t uid, const char *path, char *reply, size_t size)
{
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		int self;

		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(1);
		self = missing_pidfd_open(getpid(), 0);
		if (ask(path, "raise 2", self, reply, size, 5) < 0 ||
		    write(p[1], reply, strlen(reply)) < 0)
			_exit(1);
		_exit(0);
	}
	(void)close(p[1]);
	ssize_t n = read(p[0], reply, size - 1);
	(void)close(p[0]);
	reply[n > 0 ? n : 0] = '\0';
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -EIO;
	return 0;
}

/*
 * The table full (8 users with 64 silent connections each, held for 30
 * s): one more of theirs is told at once that the service is busy,
 * instead of waiting in the listen backlog for a place; but a user with
 * nothing in the table gets one, taken from the newest connection of a
 * user with the most (answered that its place went to a user with fewer).
 */
static int case_run_full_table_newcomer(void)
{
	char dir[] = "/tmp/service-test.XXXXXX", path[64], logp[64], reply[1100] = "";
	_cleanup_close_ int self = missing_pidfd_open(getpid(), 0), logfd = -EBADF;
	int hold[2], ready[2], r = 0, given = 0, status;
	pid_t pid, users[8];
	char c;

	if (!mkdtemp(dir))
		FAIL("mkdtemp: %s", strerror(errno));
	(void)chmod(dir, 0755);
	(void)snprintf(path, sizeof(path), "%s/sock", dir);
	(void)snprintf(logp, sizeof(logp), "%s/log", dir);
	logfd = open(logp, O_RDWR | O_CREAT | O_CLOEXEC | O_APPEND, 0600);
	pid = start_service(dir, 30000, logfd);
	/* (after the service's fork, so that it holds no end of them) */
	if (pipe2(hold, O_CLOEXEC) < 0 || pipe2(ready, O_CLOEXEC) < 0)
		FAIL("pipe2: %s", strerror(errno));
	for (int u = 0; u < 8; u++) {
		users[u] = fork();
		if (users[u] == 0) {
			uid_t uid = 3200001 + (uid_t)u;
			int fds[SERVICE_MAX_SILENT_PER_USER];

			if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
			    setresuid(uid, uid, uid) < 0)
				_exit(100);
			for (int i = 0; i < SERVICE_MAX_SILENT_PER_USER; i++) {
				struct sockaddr_un sa = {.sun_family = AF_UNIX};

				fds[i] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
				strncpy(sa.sun_path, path, sizeof(sa.sun_path) - 1);
				if (fds[i] < 0 ||
				    connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0)
					_exit(100);
			}
			if (write(ready[1], "x", 1) != 1)
				_exit(100);
			(void)close(hold[1]);
			(void)read(hold[0], &c, 1);
			_exit(count_given_way(fds, SERVICE_MAX_SILENT_PER_USER));
		}
	}
	(void)close(hold[0]);
	(void)close(ready[1]); /* a user that fails: read() sees the end */
	for (int u = 0; u < 8; u++)
		if (read(ready[0], &c, 1) != 1)
			r = 1;
	(void)close(ready[0]);
	/* The service has held every one of them once it has 2 fds each. */
	for (int i = 0; i < 500 && r == 0; i++) {
		char fdd[64];
		DIR *d;
		int n = 0;

		(void)snprintf(fdd, sizeof(fdd), "/proc/%d/fd", (int)pid);
		d = opendir(fdd);
		while (d && readdir(d))
			n++;
		if (d)
			(void)closedir(d);
		if (n >= 2 * SERVICE_MAX_HELD)
			break;
		usleep(10000);
	}
	/* One of theirs more: busy at once, and no place is taken. */
	if (r == 0 && (ask_as(3200001, path, reply, sizeof(reply)) < 0 ||
		       strncmp(reply, BUSY_PREFIX, strlen(BUSY_PREFIX)) != 0))
		r = 2;
	/* Root, with nothing in the table: served (its own namespace is
	 * refused, which only a request that got a place hears). */
	else if (r == 0 && (ask(path, "raise 2", self, reply, sizeof(reply), 5) < 0 ||
			    strncmp(reply, INITIAL_REFUSED, strlen(INITIAL_REFUSED)) != 0))
		r = 3;
	(void)close(hold[1]);
	for (int u = 0; u < 8; u++) {
		if (waitpid(users[u], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) >= 100)
			r = r ?: 4;
		else
			given += WEXITSTATUS(status);
	}
	(void)kill(pid, SIGTERM);
	(void)waitpid(pid, NULL, 0);
	(void)unlink(logp);
	(void)rmdir(dir);
	if (r != 0)
		FAIL("step %d: the reply while the table is full: '%s'", r, reply);
	if (given != 1)
		FAIL("%d connections gave their place to the newcomer; expected 1", given);
	return 0;
}

static int case_run_answers_and_stops(void)
{
	char dir[] = "/tmp/service-test.XXXXXX", path[64], logp[64], reply[1100], log[8192];
	_cleanup_close_ int self = missing_pidfd_open(getpid(), 0), logfd = -EBADF;
	int status = 0, r = 0;
	ssize_t n;
	pid_t pid;

	if (!mkdtemp(dir))
		FAIL("mkdtemp: %s", strerror(errno));
	(void)snprintf(path, sizeof(path), "%s/sock", dir);
	(void)snprintf(logp, sizeof(logp), "%s/log", dir);
	logfd = open(logp, O_RDWR | O_CREAT | O_CLOEXEC | O_APPEND, 0600);
	pid = start_service(dir, 0, logfd);
	if (ask(path, "lower 0", -1, reply, sizeof(reply), 10) < 0 ||
	    strcmp(reply,
		   "error 22 the request \"lower 0\" is not exactly \"raise 0\", \"raise 1\" or \"raise 2\"") !=
		    0)
		r = 1;
	else if (ask(path, "raise 2", self, reply, sizeof(reply), 10) < 0 ||
		 strncmp(reply, INITIAL_REFUSED, strlen(INITIAL_REFUSED)) != 0)
		r = 2;
	(void)kill(pid, SIGTERM);
	(void)waitpid(pid, &status, 0);
	n = pread(logfd, log, sizeof(log) - 1, 0);
	log[n > 0 ? n : 0] = '\0';
	(void)unlink(logp);
	if (access(path, F_OK) == 0)
		r = 3;
	(void)rmdir(dir);
	if (r != 0)
		FAIL("step %d; last reply: %s; log:\n%s", r, reply, log);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("service_run did not return SIGTERM; log:\n%s", log);
	if (!strstr(log, "listening on ") || !strstr(log, "stopped by SIGTERM") ||
	    !strstr(log, "refused: the request \"lower 0\""))
		FAIL("the log lacks a line:\n%s", log);
	return 0;
}

/* How many lines of log contain needle. */
static int count_lines(const char *log, const char *needle)
{
	int n = 0;

	for (const char *p = log; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * The log's limit: with 5 lines per 400 ms window, 30 refusals in one
 * window log 5 lines and one summary for the other 25 when the window
 * ends (without another request to trigger it); the next window logs
 * one by one again.
 */
static int case_run_log_limit(void)
{
	char dir[] = "/tmp/service-test.XXXXXX", path[64], logp[64], reply[1100], log[16384];
	_cleanup_close_ int logfd = -EBADF;
	const char *refused = ": raise ? pid:[?]: refused: the request \"lower 0\"";
	int r = 0;
	ssize_t n;
	pid_t pid;

	if (!mkdtemp(dir))
		FAIL("mkdtemp: %s", strerror(errno));
	(void)snprintf(path, sizeof(path), "%s/sock", dir);
	(void)snprintf(logp, sizeof(logp), "%s/log", dir);
	logfd = open(logp, O_RDWR | O_CREAT | O_CLOEXEC | O_APPEND, 0600);
	log_interval_ms = 400;
	log_burst = 5;
	pid = start_service(dir, 0, logfd);
	for (int i = 0; i < 30 && r == 0; i++)
		if (ask(path, "lower 0", -1, reply, sizeof(reply), 10) < 0)
			r = 1;
	usleep(700 * 1000);
	if (r == 0 && ask(path, "lower 0", -1, reply, sizeof(reply), 10) < 0)
		r = 2;
	(void)kill(pid, SIGTERM);
	(void)waitpid(pid, NULL, 0);
	n = pread(logfd, log, sizeof(log) - 1, 0);
	log[n > 0 ? n : 0] = '\0';
	(void)unlink(logp);
	(void)rmdir(dir);
	if (r != 0)
		FAIL("step %d: no reply; log:\n%s", r, log);
	if (count_lines(log, refused) != 6)
		FAIL("%d request lines, expected 5 and 1 in the next window; log:\n%s",
		     count_lines(log, refused), log);
	if (!strstr(log,
		    "25 more requests in the last 400 ms not logged one by one (at most 5 are), 0 of them refused busy; the most, 25, of user 0\n"))
		FAIL("no summary line for the 25 others; log:\n%s", log);
	/* The summary came when the window ended, before the next request. */
	if (strstr(log, "25 more requests") > strstr(log, "stopped by") ||
	    strstr(strstr(log, "25 more requests"), refused) == NULL)
		FAIL("the summary is not between the windows; log:\n%s", log);
	return 0;
}

static const struct unit_case cases[] = {
	{"user_initial_namespace", case_user_initial_namespace},
	{"user_subuid", case_user_subuid},
	{"user_subuid_nested", case_user_subuid_nested},
	{"user_exited", case_user_exited},
	{"run_bad_socket", case_run_bad_socket},
	{"run_answers_and_stops", case_run_answers_and_stops},
	{"run_full_table_newcomer", case_run_full_table_newcomer},
	{"run_log_limit", case_run_log_limit},
};

int main(int argc, char *argv[])
{
	if (geteuid() != 0) {
		fprintf(stderr, "service_test: needs root (it maps a user namespace)%s\n",
			in_ci() ? ", and CI=true" : "; skipped");
		return in_ci() ? 1 : UNIT_SKIP;
	}
	return unit_main("service_test", cases, ELEMENTSOF(cases), argc, argv);
}
