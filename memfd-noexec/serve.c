/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec serve (serve.h): a raise-only privileged service for
 * rootless containers, speaking the protocol of service.h.
 *
 * Why a socket: only global root may write vm.memfd_noexec (the file is
 * 0644 and owned by it, and the handler wants CAP_SYS_ADMIN over the
 * namespace's owner).  A setuid helper cannot help a runtime inside
 * rootless podman's user namespace, where global root is unmapped and the
 * kernel ignores setuid bits; a Unix socket works from anywhere, and
 * SO_PEERCRED tells the service who asks, in its own terms.
 *
 * What it takes from a request: the level (exactly "raise 0|1|2"), one
 * pidfd (a process, never a reusable number), and the connection's peer
 * credentials, which the kernel recorded at connect().  It raises the PID
 * namespace T of the pidfd's process only if
 *  1. T is not the initial PID namespace, nor the service's own, nor the
 *     client's own (C);
 *  2. T lies strictly below C: walking NS_GET_PARENT up from T meets C
 *     (EPERM from NS_GET_PARENT: the walk left our subtree without);
 *  3. the user namespace that owns T (NS_GET_USERNS) was created by the
 *     client's uid (NS_GET_OWNER_UID): the client, or a runtime acting as
 *     that user, made the container;
 * and then only through nsexec_apply_memfd_noexec_pidfd(), which never
 * lowers a value and re-checks where its writer is before it writes.  So a
 * client can only make its own containers stricter.  Nothing from a
 * request is executed or used as a path.
 *
 * The loop: one thread and ppoll(), and fair turns between uids.  A
 * connection is accepted, and its request read, at once.  The cheap
 * checks (the allow-list, the request's form) are answered at once too;
 * a well-formed request then waits in the table for its turn, because
 * raising costs two forks (about 12 ms).  Turns go round the uids that
 * have one waiting, one request each, so another uid's request waits for
 * at most one request of each such uid, however many one uid sends.  A
 * uid may have SERVE_MAX_QUEUED_PER_UID requests waiting, and
 * SERVE_MAX_SILENT_PER_UID connections without a request (each expires
 * after SERVE_TIMEOUT_MS); more are refused at once, which costs no fork.
 * That keeps one flooding uid from delaying anyone else by more than a
 * turn, though not a user with many subordinate uids (each counts alone):
 * a local denial of service stays possible, a wrong raise does not.
 * While the table (SERVE_MAX_HELD) is full, further clients wait in the
 * kernel's listen backlog.
 *
 * For tests, MEMFD_NOEXEC_SERVE_FEATURES=-so_peerpidfd,-pidfd_get_pid_namespace
 * turns those kernel interfaces off here (not in nsexec_apply_*), so that
 * the fallbacks run; with MEMFD_NOEXEC_DEBUG=1 each fallback prints a
 * marker: "memfd-noexec serve: using pidfd_open for the client",
 * "memfd-noexec serve: using /proc for a PID namespace".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "missing_syscall.h"
#include "nsexec.h"
#include "log.h"
#include "parse.h"
#include "kernel-features.h"
#include "pidns.h"
#include "probe.h"
#include "serve.h"
#include "service.h"

#define SERVE_TIMEOUT_MS 1000 /* for a connection's request */
#define SERVE_MAX_HELD 512    /* connections held at once: silent or waiting their turn */
#define SERVE_MAX_SILENT_PER_UID 64
#define SERVE_MAX_QUEUED_PER_UID 64
#define SERVE_MAX_ACCEPT 256 /* per turn, so that timeouts and turns still run */
#define SERVE_MAX_FDS 16     /* received per message; more: refused */
#define SERVE_MAX_ALLOW 64   /* --allow-user, --allow-group entries */
#define SERVE_EXIT_USAGE 2

static bool debug_on;
static volatile sig_atomic_t stop_signal;

struct serve_config {
	const char *socket_path; /* --socket, or NULL */
	uid_t users[SERVE_MAX_ALLOW];
	gid_t groups[SERVE_MAX_ALLOW];
	size_t n_users, n_groups; /* both 0: every local user */
	bool use_peerpidfd, use_pidfd_ns;
};

struct serve_socket {
	int fd;
	const char *path; /* bound by us and removed at exit, or NULL */
	dev_t dev;
	ino_t ino;
};

struct conn {
	int fd; /* -EBADF: a free slot */
	uid_t uid;
	gid_t gid;
	pid_t pid;
	long long deadline;	/* ms of CLOCK_MONOTONIC, while silent */
	struct request *queued; /* well-formed, waiting its turn; NULL: silent */
	unsigned long long seq; /* arrival order, for the turns */
};

struct server {
	const struct serve_config *cfg;
	struct serve_socket sock;
	struct nsexec_ns_id self; /* the service's PID namespace */
	struct conn held[SERVE_MAX_HELD];
	long long accept_paused_until;
	unsigned long long next_seq;
	uid_t last_turn; /* the uid served last */
	bool any_turn;	 /* whether one was */
};

struct request {
	char msg[NSEXEC_SERVICE_MESSAGE_MAX + 1];
	size_t len;
	bool truncated; /* MSG_TRUNC: longer than NSEXEC_SERVICE_MESSAGE_MAX */
	bool ctrunc;	/* more fds than SERVE_MAX_FDS */
	int fds[SERVE_MAX_FDS];
	size_t n_fds;
};

/* What the reply and the log line say. */
struct outcome {
	int level;	   /* asked for; -1 when the request was none */
	unsigned long ino; /* the target's PID namespace; 0: unknown */
	int before, after;
	bool written;
	long long owner; /* refused by rule 3: the target's owner uid, for the log; -1 */
};

/* ---- reporting ---------------------------------------------------------- */

static void debug(const char *marker)
{
	if (debug_on)
		cli_error("%s", marker);
}

/* Copies src into dst (size > 0 bytes) as one line of printable ASCII:
 * every other byte becomes '?', so that neither a log reader nor the
 * client's terminal interprets anything. */
static void one_line(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/* A client's bytes for a message: printable ASCII as is, the rest as \xHH,
 * cut with "..." after about 40 bytes. */
static const char *escape(const char *src, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char ch = (unsigned char)src[i];

		if (i >= 40) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
	}
	buf[o] = '\0';
	return buf;
}

void nsexec_serve_usage(FILE *f)
{
	fprintf(f,
		"Usage: memfd-noexec serve [--socket PATH] [--allow-user USER]...\n                          [--allow-group GROUP]...\n\nRaises vm.memfd_noexec, and never lowers it, for rootless\ncontainers, whose runtime may not write it.  A client sends\n\"raise N\" (0, 1 or 2) with a pidfd of a process in the\ncontainer over a SOCK_SEQPACKET Unix socket; the container's PID\nnamespace is raised when it lies below the client's own and its\nuser namespace was created by the client's uid.  Must run as\nglobal root.  Logs one line per request to stderr.\n\n  --socket PATH        bind PATH, mode 0666 (default %s),\n                       unless systemd passes the socket\n                       (LISTEN_FDS=1); removed on SIGTERM/SIGINT.\n                       For tests and private setups only: the\n                       runtimes (the patched runc, the hook)\n                       always ask at %s\n  --allow-user USER    only this user (name or uid) may ask;\n                       repeatable\n  --allow-group GROUP  members of this group (name or gid) may\n                       ask; repeatable.  Without either option\n                       every local user may.\n",
		NSEXEC_SERVICE_SOCKET, NSEXEC_SERVICE_SOCKET);
}

/* ---- options ------------------------------------------------------------ */

/* A decimal id; (uid_t)-1 is no id.  0 or -EINVAL. */
static int parse_id(const char *s, uint32_t *ret)
{
	uint64_t v;

	if (mt_parse_uint(s, UINT32_MAX - 1, &v, NULL) < 0)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/* A user name or uid; numbers are taken as uids without a lookup, since a
 * runtime may act as a uid with no name (a subordinate id). */
static int resolve_user(const char *s, uid_t *ret)
{
	struct passwd *pw;
	uint32_t v;

	if (parse_id(s, &v) == 0) {
		*ret = v;
		return 0;
	}
	pw = getpwnam(s);
	if (!pw)
		return -ENOENT;
	*ret = pw->pw_uid;
	return 0;
}

static int resolve_group(const char *s, gid_t *ret)
{
	struct group *gr;
	uint32_t v;

	if (parse_id(s, &v) == 0) {
		*ret = v;
		return 0;
	}
	gr = getgrnam(s);
	if (!gr)
		return -ENOENT;
	*ret = gr->gr_gid;
	return 0;
}

static void option_allow(struct serve_config *cfg, int c, const char *arg)
{
	bool user = c == 'u';
	size_t *n = user ? &cfg->n_users : &cfg->n_groups;
	int r;

	if (*n >= SERVE_MAX_ALLOW)
		cli_die(SERVE_EXIT_USAGE, "too many --allow-%s options (at most %d)%s",
			user ? "user" : "group", SERVE_MAX_ALLOW,
			user ? "; put the users in a group and use --allow-group" : "");
	r = user ? resolve_user(arg, &cfg->users[*n]) : resolve_group(arg, &cfg->groups[*n]);
	if (r < 0)
		cli_die(SERVE_EXIT_USAGE,
			"unknown %s '%s' in --allow-%s: give a name from the %s database or a number",
			user ? "user" : "group", arg, user ? "user" : "group",
			user ? "password" : "group");
	(*n)++;
}

static void option_socket(struct serve_config *cfg, const char *arg)
{
	struct sockaddr_un sa;

	if (!*arg || strlen(arg) >= sizeof(sa.sun_path))
		cli_die(SERVE_EXIT_USAGE, "invalid --socket '%s': give a path of 1 to %zu bytes",
			arg, sizeof(sa.sun_path) - 1);
	cfg->socket_path = arg;
}

static void parse_options(int argc, char *argv[], struct serve_config *cfg)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"socket", required_argument, NULL, 's'},
		{"allow-user", required_argument, NULL, 'u'},
		{"allow-group", required_argument, NULL, 'g'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			nsexec_serve_usage(stdout);
			exit(0);
		case 's':
			option_socket(cfg, optarg);
			break;
		case 'u':
		case 'g':
			option_allow(cfg, c, optarg);
			break;
		case ':':
			cli_die(SERVE_EXIT_USAGE, "option '%s' needs a value",
				cli_bad_option(argv));
		default:
			cli_die(SERVE_EXIT_USAGE,
				"unknown option '%s': allowed are --socket PATH, --allow-user USER, --allow-group GROUP, --help",
				cli_bad_option(argv));
		}
	}
	if (optind < argc)
		cli_die(SERVE_EXIT_USAGE, "unexpected argument '%s': serve takes only options",
			argv[optind]);
}

/* MEMFD_NOEXEC_SERVE_FEATURES (tests only): features to turn off. */
static void parse_features(const char *list, struct serve_config *cfg)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (!list)
		return;
	copy = strdup(list);
	if (!copy)
		cli_die(1, "Failed to copy MEMFD_NOEXEC_SERVE_FEATURES: %m");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "-so_peerpidfd") == 0)
			cfg->use_peerpidfd = false;
		else if (strcmp(t, "-pidfd_get_pid_namespace") == 0)
			cfg->use_pidfd_ns = false;
		else
			cli_die(SERVE_EXIT_USAGE,
				"invalid MEMFD_NOEXEC_SERVE_FEATURES item '%.64s': allowed are -so_peerpidfd and -pidfd_get_pid_namespace",
				t);
	}
}

/* ---- the listening socket ----------------------------------------------- */

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
static int listen_activated(struct serve_socket *s, struct mt_error **e)
{
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	uint32_t pid;
	int r, fl;

	if (!pid_s || !fds_s || parse_id(pid_s, &pid) < 0 || pid != (uint32_t)getpid())
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
	*s = (struct serve_socket){.fd = 3};
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

static int listen_path(const char *path, struct serve_socket *s, struct mt_error **e)
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
	*s = (struct serve_socket){
		.fd = TAKE_FD(fd), .path = path, .dev = st.st_dev, .ino = st.st_ino};
	return 0;
}

static int open_socket(const struct serve_config *cfg, struct serve_socket *s, struct mt_error **e)
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
	return listen_path(cfg->socket_path ? cfg->socket_path : NSEXEC_SERVICE_SOCKET, s, e);
}

/* Removes the socket we bound, if it is still the one we bound. */
static void close_socket(struct serve_socket *s)
{
	struct stat st;

	if (s->path && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino &&
	    unlink(s->path) == 0)
		cli_error("removed %s", s->path);
	s->fd = safe_close(s->fd);
}

/* ---- signals ------------------------------------------------------------ */

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* SIGTERM and SIGINT stay blocked except inside ppoll() (with the mask in
 * *ret_unblocked), so that they end the loop between requests only. */
static int setup_signals(sigset_t *ret_unblocked)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
		return negative_errno();
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		return negative_errno();
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, ret_unblocked) < 0)
		return negative_errno();
	sigdelset(ret_unblocked, SIGTERM);
	sigdelset(ret_unblocked, SIGINT);
	return 0;
}

/* ---- the client --------------------------------------------------------- */

static bool has_id(const uint32_t *list, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == id)
			return true;
	return false;
}

/* 1 if the client may ask (the allow-list), 0 if not, or -errno.  Groups
 * are the client's own at connect() (SO_PEERGROUPS), not a database's. */
static int client_allowed(const struct serve_config *cfg, const struct conn *c)
{
	gid_t small[64], *groups = small;
	_cleanup_free_ gid_t *big = NULL;
	socklen_t len = sizeof(small);

	if (cfg->n_users == 0 && cfg->n_groups == 0)
		return 1;
	if (has_id(cfg->users, cfg->n_users, c->uid) || has_id(cfg->groups, cfg->n_groups, c->gid))
		return 1;
	if (cfg->n_groups == 0)
		return 0;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		if (errno == ENOPROTOOPT)
			return 0; /* before 4.13: the primary group only */
		if (errno != ERANGE)
			return negative_errno();
		big = malloc(len);
		if (!big)
			return -ENOMEM;
		groups = big;
		if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
			return negative_errno();
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (has_id(cfg->groups, cfg->n_groups, groups[i]))
			return 1;
	return 0;
}

/*
 * A pidfd of the client, the process that called connect().  SO_PEERPIDFD
 * (6.5+) is exact.  pidfd_open() of SO_PEERCRED's pid leaves a small race:
 * if the client exited after connect() and its PID was reused before this
 * call, the pidfd names another process, whose PID namespace then stands
 * for the client's in rules 1 and 2.  Rule 3 still holds, since it uses
 * the uid the kernel recorded at connect(): a client can still only raise
 * namespaces that its own uid created.
 */
static int client_pidfd(const struct serve_config *cfg, const struct conn *c)
{
	socklen_t len = sizeof(int);
	int fd = -EBADF;

	if (cfg->use_peerpidfd) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0) {
			if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
				int r = negative_errno();

				(void)close(fd);
				return r;
			}
			return fd;
		}
		/* EINVAL or ESRCH: the client has exited (been reaped). */
		if (errno == EINVAL || errno == ESRCH)
			return -ESRCH;
		if (errno != ENOPROTOOPT)
			return negative_errno();
	}
	debug("using pidfd_open for the client");
	if (c->pid <= 0)
		return -ESRCH; /* not in our PID namespace, or none */
	fd = missing_pidfd_open(c->pid, 0);
	return fd < 0 ? negative_errno() : fd;
}

/* ---- PID namespaces ----------------------------------------------------- */

/* The PID namespace of the process pidfd refers to (PID pid here); see
 * nsexec_pidns_of_pidfd(). */
static int ns_of_pidfd(const struct serve_config *cfg, int pidfd, pid_t pid)
{
	bool by_proc = false;
	int fd = nsexec_pidns_of_pidfd(pidfd, pid, cfg->use_pidfd_ns, &by_proc);

	if (fd >= 0 && by_proc)
		debug("using /proc for a PID namespace");
	return fd;
}

/* ---- the checks --------------------------------------------------------- */

/* The attached fd must be a pidfd of a live process: its PID namespace. */
static int open_target_ns(const struct serve_config *cfg, int pidfd, struct mt_error **e)
{
	pid_t pid = nsexec_pidfd_pid(pidfd);
	int fd;

	if (pid == -EBADF)
		return mt_error_set(
			e, -EBADF,
			"the attached fd is not a pidfd: attach a pidfd (pidfd_open(2)) of a process in the PID namespace to raise, never a PID");
	if (pid == -ESRCH)
		return mt_error_set(
			e, -ESRCH,
			"the process of the attached pidfd has exited (or is outside the service's PID namespace)");
	if (pid < 0)
		return mt_error_set(e, pid, "Failed to read the attached fd's fdinfo: %s",
				    strerror(-pid));
	fd = ns_of_pidfd(cfg, pidfd, pid);
	if (fd < 0)
		return mt_error_set(e, fd,
				    "Failed to find the PID namespace of the target (pid %d): %s",
				    (int)pid, fd == -ESRCH ? "it has exited" : strerror(-fd));
	return fd;
}

static int open_client_ns(const struct serve_config *cfg, const struct conn *c, struct mt_error **e)
{
	_cleanup_close_ int pidfd = client_pidfd(cfg, c);
	int fd;

	if (pidfd >= 0)
		fd = ns_of_pidfd(cfg, pidfd, c->pid);
	else
		fd = pidfd;
	if (fd == -ESRCH)
		return mt_error_set(
			e, fd, "the client (pid %d) exited before its PID namespace could be read",
			(int)c->pid);
	if (fd < 0)
		return mt_error_set(e, fd, "Failed to find the client's PID namespace: %s",
				    strerror(-fd));
	return fd;
}

/* Rules 1 and 2 (see the top of this file). */
static int check_position(const struct server *s, int tfd, int cfd, struct outcome *o,
			  struct mt_error **e)
{
	struct nsexec_ns_id t, c;
	int r;

	r = nsexec_ns_id_of_fd(tfd, &t);
	if (r >= 0)
		r = nsexec_ns_id_of_fd(cfd, &c);
	if (r >= 0 && (!t.nsfs || !c.nsfs))
		r = -EOPNOTSUPP;
	if (r < 0)
		return mt_error_set(e, r, "Failed to identify the PID namespaces: %s",
				    strerror(-r));
	o->ino = (unsigned long)t.ino;
	if (nsexec_ns_id_is_initial_pid(&t))
		return mt_error_set(
			e, -EPERM,
			"the target is in the initial PID namespace (the host's), which this service never changes");
	if (nsexec_ns_id_equal(&t, &s->self))
		return mt_error_set(
			e, -EPERM,
			"the target is in the service's own PID namespace, which this service never changes");
	if (nsexec_ns_id_equal(&t, &c))
		return mt_error_set(
			e, -EPERM,
			"the target is in the client's own PID namespace; only a PID namespace below it (a container's) may be raised");
	r = nsexec_pidns_is_below(tfd, &c);
	if (r < 0)
		return mt_error_set(e, r, "Failed to walk up from the target's PID namespace: %s",
				    strerror(-r));
	if (r == 0)
		return mt_error_set(
			e, -EPERM,
			"the target's PID namespace is not below the client's own, pid:[%lu]",
			(unsigned long)c.ino);
	return 0;
}

/* Rule 3. */
static int check_owner(int tfd, const struct conn *c, struct outcome *o, struct mt_error **e)
{
	uid_t owner;
	int r = nsexec_ns_owner_uid(tfd, &owner);

	if (r < 0)
		return mt_error_set(e, r,
				    "Failed to find the owner of the target's PID namespace: %s",
				    strerror(-r));
	/* The reply names no other user's uid; the log does. */
	if (owner != c->uid) {
		o->owner = owner;
		return mt_error_set(
			e, -EPERM,
			"the target's PID namespace belongs to a user namespace that another uid created, not the client's uid %u",
			(unsigned)c->uid);
	}
	return 0;
}

static int raise_target(const struct server *s, const struct conn *c, int pidfd, struct outcome *o,
			struct mt_error **e)
{
	struct nsexec_request req = {.level = o->level, .origin = NSEXEC_ORIGIN_CREATED};
	_cleanup_close_ int tfd = -EBADF, cfd = -EBADF;
	struct nsexec_result res;
	int r;

	tfd = open_target_ns(s->cfg, pidfd, e);
	if (tfd < 0)
		return tfd;
	cfd = open_client_ns(s->cfg, c, e);
	if (cfd < 0)
		return cfd;
	r = check_position(s, tfd, cfd, o, e);
	if (r < 0)
		return r;
	r = check_owner(tfd, c, o, e);
	if (r < 0)
		return r;
	/* The pidfd's process cannot change its active PID namespace, so
	 * this raises the namespace just checked. */
	r = nsexec_apply_memfd_noexec_pidfd(pidfd, &req, &res, e);
	if (r < 0)
		return r;
	if (res.ino != 0 && res.ino != o->ino)
		return mt_error_set(e, -EIO,
				    "the PID namespace raised, pid:[%lu], is not the one checked",
				    res.ino);
	o->before = res.before;
	o->after = res.after;
	o->written = res.written;
	return 0;
}

/* The request's form: "raise N" and exactly one fd. */
static int check_request(const struct request *q, struct outcome *o, struct mt_error **e)
{
	char shown[256];

	if (q->truncated)
		return mt_error_set(
			e, -EMSGSIZE,
			"the request is longer than %d bytes; expected \"raise 0\", \"raise 1\" or \"raise 2\"",
			NSEXEC_SERVICE_MESSAGE_MAX);
	o->level = nsexec_service_parse_request(q->msg, q->len);
	if (o->level < 0)
		return mt_error_set(
			e, -EINVAL,
			"the request \"%s\" is not exactly \"raise 0\", \"raise 1\" or \"raise 2\"",
			escape(q->msg, q->len, shown, sizeof(shown)));
	if (q->ctrunc || q->n_fds > 1)
		return mt_error_set(
			e, -EINVAL,
			"the request carries %s%zu fds; it must carry exactly one pidfd",
			q->ctrunc ? "more than " : "", q->n_fds);
	if (q->n_fds == 0)
		return mt_error_set(
			e, -EBADF,
			"the request carries no fd; it must carry exactly one pidfd (SCM_RIGHTS) of a process in the PID namespace to raise");
	return 0;
}

/* The checks that cost no fork, made as the request arrives: the
 * allow-list and the request's form. */
static int judge_form(const struct server *s, const struct conn *c, const struct request *q,
		      struct outcome *o, struct mt_error **e)
{
	int r = client_allowed(s->cfg, c);

	if (r < 0)
		return mt_error_set(e, r, "Failed to read the client's groups: %s", strerror(-r));
	if (r == 0)
		return mt_error_set(
			e, -EACCES,
			"uid %u may not use this service: it is not among its --allow-user and --allow-group; ask the administrator",
			(unsigned)c->uid);
	return check_request(q, o, e);
}

/* ---- requests ----------------------------------------------------------- */

static void request_done(struct request *q)
{
	for (size_t i = 0; i < q->n_fds; i++)
		q->fds[i] = safe_close(q->fds[i]);
	q->n_fds = 0;
}

/* Keeps every fd that arrived (to close it), at most SERVE_MAX_FDS. */
static void take_fds(struct msghdr *mh, struct request *q)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (q->n_fds < SERVE_MAX_FDS) {
				q->fds[q->n_fds++] = fd;
			} else {
				(void)close(fd);
				q->ctrunc = true;
			}
		}
	}
}

/* One message, without waiting: -EAGAIN when none has arrived. */
static int recv_request(int fd, struct request *q)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SERVE_MAX_FDS)];
	} control = {};
	struct iovec iov = {.iov_base = q->msg, .iov_len = sizeof(q->msg) - 1};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	ssize_t n;

	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	q->len = (size_t)n;
	q->msg[q->len] = '\0';
	q->truncated = mh.msg_flags & MSG_TRUNC;
	q->ctrunc = mh.msg_flags & MSG_CTRUNC;
	take_fds(&mh, q);
	return 0;
}

static void send_reply(int fd, int r, const struct outcome *o, const struct mt_error *e)
{
	char buf[NSEXEC_SERVICE_MESSAGE_MAX];
	int n;

	if (r >= 0) {
		n = snprintf(buf, sizeof(buf), "%s %d", o->written ? "ok" : "kept", o->after);
	} else {
		n = snprintf(buf, sizeof(buf), "error %d ", -r);
		one_line(buf + n, sizeof(buf) - (size_t)n, mt_error_message(e));
		n = (int)strlen(buf);
	}
	(void)send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void log_request(const struct conn *c, int r, const struct outcome *o,
			const struct mt_error *e)
{
	char level[16] = "?", ino[24] = "?", why[NSEXEC_SERVICE_MESSAGE_MAX];

	if (o->level >= 0)
		(void)snprintf(level, sizeof(level), "%d", o->level);
	if (o->ino)
		(void)snprintf(ino, sizeof(ino), "%lu", o->ino);
	if (r >= 0 && o->written)
		(void)snprintf(why, sizeof(why), "now %d (was %d)", o->after, o->before);
	else if (r >= 0)
		(void)snprintf(why, sizeof(why), "already %d", o->after);
	else
		one_line(why, sizeof(why), mt_error_message(e));
	if (r < 0 && o->owner >= 0)
		(void)snprintf(why + strlen(why), sizeof(why) - strlen(why),
			       " (created by uid %lld)", o->owner);
	cli_error("uid %u pid %d: raise %s pid:[%s]: %s: %s", (unsigned)c->uid, (int)c->pid, level,
		  ino,
		  r < 0	       ? "refused"
		  : o->written ? "ok"
			       : "kept",
		  why);
}

/* Sends the reply, logs it, closes c and frees its slot. */
static void conn_answer(struct conn *c, int r, const struct outcome *o, const struct mt_error *e)
{
	send_reply(c->fd, r, o, e);
	log_request(c, r, o, e);
	c->fd = safe_close(c->fd);
	if (c->queued) {
		request_done(c->queued);
		free(c->queued);
		c->queued = NULL;
	}
}

/* Answers the error r (-errno) with the formatted message on c, logs it
 * and closes c. */
_printf_(3, 4) static void conn_refuse(struct conn *c, int r, const char *fmt, ...)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct outcome o = {.level = -1, .owner = -1};
	va_list ap;

	va_start(ap, fmt);
	r = mt_error_setv(&e, r, fmt, ap);
	va_end(ap);
	conn_answer(c, r, &o, e);
}

/* Reads c's request, without waiting: -EAGAIN if none has arrived yet.
 * A well-formed one from an allowed client comes back in *ret (return
 * 1), to wait its turn; anything else is answered, and c closed (0). */
static int conn_receive(const struct server *s, struct conn *c, struct request **ret)
{
	struct outcome o = {.level = -1, .before = -1, .after = -1, .owner = -1};
	_cleanup_error_ struct mt_error *e = NULL;
	struct request *q = calloc(1, sizeof(*q));
	int r;

	if (!q) {
		conn_refuse(c, -ENOMEM, "out of memory for the request; try again");
		return 0;
	}
	r = recv_request(c->fd, q);
	if (r == -EAGAIN) {
		free(q);
		return r;
	}
	if (r < 0)
		r = mt_error_set(&e, r, "Failed to receive the request: %s", strerror(-r));
	else
		r = judge_form(s, c, q, &o, &e);
	if (r >= 0) {
		*ret = q;
		return 1;
	}
	request_done(q);
	free(q);
	conn_answer(c, r, &o, e);
	return 0;
}

/* ---- the loop ----------------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Connections in the table: uid's (every uid's if NULL), silent or
 * waiting their turn. */
static size_t held_count(const struct server *s, const uid_t *uid, bool queued)
{
	size_t n = 0;

	for (size_t i = 0; i < SERVE_MAX_HELD; i++) {
		const struct conn *c = &s->held[i];

		if (c->fd >= 0 && (!uid || c->uid == *uid) && !!c->queued == queued)
			n++;
	}
	return n;
}

static struct conn *free_slot(struct server *s)
{
	for (size_t i = 0; i < SERVE_MAX_HELD; i++)
		if (s->held[i].fd < 0)
			return &s->held[i];
	return NULL;
}

/* A connection whose request has not arrived yet: into the table, unless
 * its uid already has SERVE_MAX_SILENT_PER_UID there. */
static void hold_silent(struct server *s, struct conn *c)
{
	struct conn *slot = free_slot(s);

	if (slot && held_count(s, &c->uid, false) < SERVE_MAX_SILENT_PER_UID) {
		*slot = *c;
		return;
	}
	conn_refuse(
		c, -EAGAIN,
		"uid %u has too many connections without a request; send the request right after connecting",
		(unsigned)c->uid);
}

/* A well-formed request q on c (in the table or not yet): into the table
 * to wait its turn, unless its uid already has SERVE_MAX_QUEUED_PER_UID
 * waiting. */
static void hold_queued(struct server *s, struct conn *c, struct request *q)
{
	struct conn *slot = c >= s->held && c < s->held + SERVE_MAX_HELD ? c : free_slot(s);

	if (slot && held_count(s, &c->uid, true) < SERVE_MAX_QUEUED_PER_UID) {
		*slot = *c;
		slot->queued = q;
		slot->seq = s->next_seq++;
		return;
	}
	c->queued = q;
	conn_refuse(
		c, -EAGAIN,
		"uid %u has %d requests waiting for their turn already; wait for their answers before sending more",
		(unsigned)c->uid, SERVE_MAX_QUEUED_PER_UID);
}

static void conn_arrived(struct server *s, struct conn *c)
{
	struct request *q = NULL;
	int r = conn_receive(s, c, &q);

	if (r == -EAGAIN && c->deadline == 0) {
		c->deadline = now_ms() + SERVE_TIMEOUT_MS;
		hold_silent(s, c);
	} else if (r > 0) {
		hold_queued(s, c, q);
	}
}

static void accept_some(struct server *s)
{
	for (int k = 0; k < SERVE_MAX_ACCEPT; k++) {
		struct conn c = {.fd = -EBADF};
		struct ucred uc;
		socklen_t len = sizeof(uc);

		if (!free_slot(s))
			return;
		c.fd = accept4(s->sock.fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c.fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (c.fd < 0) {
			if (errno == EAGAIN)
				return;
			/* EMFILE, ENOBUFS...: let the backlog wait. */
			cli_error("Failed to accept a connection: %m; pausing 100 ms");
			s->accept_paused_until = now_ms() + 100;
			return;
		}
		if (getsockopt(c.fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0) {
			cli_error("Failed to read a client's credentials: %m");
			c.fd = safe_close(c.fd);
			continue;
		}
		c.uid = uc.uid;
		c.gid = uc.gid;
		c.pid = uc.pid;
		conn_arrived(s, &c);
	}
}

/*
 * Whose turn it is: the waiting request of the next uid after the one
 * served last (in uid order, wrapping round), its oldest.  So each uid
 * with a request waiting gets one turn per round, however many it sent.
 */
static struct conn *next_turn(struct server *s)
{
	struct conn *after = NULL, *first = NULL;

	for (size_t i = 0; i < SERVE_MAX_HELD; i++) {
		struct conn *c = &s->held[i];

		if (c->fd < 0 || !c->queued)
			continue;
		if (!first || c->uid < first->uid || (c->uid == first->uid && c->seq < first->seq))
			first = c;
		if (s->any_turn && c->uid <= s->last_turn)
			continue;
		if (!after || c->uid < after->uid || (c->uid == after->uid && c->seq < after->seq))
			after = c;
	}
	return after ? after : first;
}

/* Raises for one waiting request, whose turn it is; false if none waits. */
static bool serve_turn(struct server *s)
{
	struct outcome o = {.level = -1, .before = -1, .after = -1, .owner = -1};
	_cleanup_error_ struct mt_error *e = NULL;
	struct conn *c = next_turn(s);
	int r;

	if (!c)
		return false;
	s->last_turn = c->uid;
	s->any_turn = true;
	o.level = nsexec_service_parse_request(c->queued->msg, c->queued->len);
	r = raise_target(s, c, c->queued->fds[0], &o, &e);
	conn_answer(c, r, &o, e);
	return true;
}

/* Fills pfd (pfd[0]: the listening socket, or -1 while paused or full)
 * and map with the silent connections; expires those past their
 * deadline.  Returns the count; *timeout_ms is how long ppoll() may
 * sleep (0 while a request waits its turn). */
static size_t build_pollset(struct server *s, struct pollfd *pfd, struct conn **map,
			    long long *timeout_ms)
{
	long long now = now_ms(), wake = now + 60 * 1000;
	bool paused = s->accept_paused_until > now, queued = false;
	size_t n = 1;

	if (paused)
		wake = s->accept_paused_until;
	for (size_t i = 0; i < SERVE_MAX_HELD; i++) {
		struct conn *c = &s->held[i];

		if (c->fd < 0)
			continue;
		if (c->queued) {
			queued = true;
			continue;
		}
		if (c->deadline <= now) {
			conn_refuse(c, -ETIMEDOUT, "no request within %d ms", SERVE_TIMEOUT_MS);
			continue;
		}
		if (c->deadline < wake)
			wake = c->deadline;
		map[n - 1] = c;
		pfd[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
	}
	paused |= !free_slot(s);
	pfd[0] = (struct pollfd){.fd = paused ? -1 : s->sock.fd, .events = POLLIN};
	*timeout_ms = queued ? 0 : wake - now;
	return n;
}

/*
 * Each round: wait for something (not at all while a request waits its
 * turn), read the requests that arrived, accept new connections, then
 * raise for one request.  Reading and refusing cost no fork, so a round
 * is about one raise long, and new clients are heard between raises.
 */
static int serve_loop(struct server *s, const sigset_t *unblocked)
{
	struct pollfd pfd[1 + SERVE_MAX_HELD];
	struct conn *map[SERVE_MAX_HELD];

	while (!stop_signal) {
		long long timeout;
		size_t n = build_pollset(s, pfd, map, &timeout);
		struct timespec ts = {.tv_sec = timeout / 1000,
				      .tv_nsec = (timeout % 1000) * 1000000};

		if (ppoll(pfd, n, &ts, unblocked) < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		for (size_t i = 1; i < n; i++)
			if (pfd[i].revents)
				conn_arrived(s, map[i - 1]);
		if (pfd[0].revents)
			accept_some(s);
		(void)serve_turn(s);
	}
	return 0;
}

/* ---- main --------------------------------------------------------------- */

static void announce(const struct serve_config *cfg, const struct server *s)
{
	char who[1024] = "every local user";
	size_t o = 0;

	for (size_t i = 0; i < cfg->n_users && o < sizeof(who) - 16; i++)
		o += (size_t)snprintf(who + o, sizeof(who) - o, "%suid %u", o ? ", " : "",
				      (unsigned)cfg->users[i]);
	for (size_t i = 0; i < cfg->n_groups && o < sizeof(who) - 16; i++)
		o += (size_t)snprintf(who + o, sizeof(who) - o, "%sgid %u", o ? ", " : "",
				      (unsigned)cfg->groups[i]);
	cli_error("listening on %s (%s), for %s", s->sock.path ? s->sock.path : "fd 3",
		  s->sock.path ? "bound" : "socket activation", who);
}

/* Room for a full table: each held connection may bring a pidfd. */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	rlim_t want = 2 * SERVE_MAX_HELD + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		cli_error(
			"Failed to raise the fd limit to %llu: %m; a full table may pause accepting",
			(unsigned long long)want);
}

static void start(struct server *s, sigset_t *unblocked)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct mt_features f;
	int r;

	if (nsexec_can_set_level(&e) < 0)
		cli_die(1,
			"must run as global root (euid 0 in the initial user namespace, with CAP_SYS_ADMIN), which alone may write vm.memfd_noexec: %s",
			mt_error_message(e));
	mt_features_probe(&f);
	if (!f.memfd_noexec)
		cli_die(1,
			"this kernel has no /proc/sys/vm/memfd_noexec (it needs Linux 6.3 or later, with CONFIG_PID_NS): nothing to serve");
	r = nsexec_ns_id_self(&s->self);
	if (r < 0)
		cli_die(1, "Failed to find our own PID namespace: %s", strerror(-r));
	r = setup_signals(unblocked);
	if (r < 0)
		cli_die(1, "Failed to set up signal handling: %s", strerror(-r));
	raise_fd_limit();
	if (open_socket(s->cfg, &s->sock, &e) < 0)
		cli_die(1, "%s", mt_error_message(e));
	announce(s->cfg, s);
}

int nsexec_serve_main(int argc, char *argv[])
{
	struct serve_config cfg = {.use_peerpidfd = true, .use_pidfd_ns = true};
	static struct server s;
	sigset_t unblocked;
	const char *d = getenv("MEMFD_NOEXEC_DEBUG");
	int r;

	debug_on = d && strcmp(d, "1") == 0;
	parse_options(argc, argv, &cfg);
	parse_features(getenv("MEMFD_NOEXEC_SERVE_FEATURES"), &cfg);
	s.cfg = &cfg;
	s.sock.fd = -EBADF;
	for (size_t i = 0; i < SERVE_MAX_HELD; i++)
		s.held[i].fd = -EBADF;
	start(&s, &unblocked);

	r = serve_loop(&s, &unblocked);
	if (r < 0)
		cli_error("Failed to wait for clients: %s", strerror(-r));
	for (size_t i = 0; i < SERVE_MAX_HELD; i++)
		if (s.held[i].fd >= 0)
			conn_refuse(&s.held[i], -ESHUTDOWN, "the service is stopping; try again");
	close_socket(&s.sock);
	if (stop_signal)
		cli_error("stopped by SIG%s", sigabbrev_np(stop_signal));
	return r < 0 ? 1 : 0;
}
