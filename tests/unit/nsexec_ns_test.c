/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec_apply_memfd_noexec_ns() on the real kernel: the namespace fd a
 * runtime passes for its container (crun sends the container's own
 * /proc/self/ns/pid) must be that container's PID namespace.  Where the
 * caller can open the target's namespace itself, a different one is
 * refused (-EXDEV); where it cannot (an unprivileged caller, a target it
 * may not ptrace), a fd that is no PID namespace is refused (-EINVAL).
 * The right fd is honoured.
 *
 * Root only (the target is root's, so that an unprivileged caller cannot
 * open its namespace).  The target is the init of a PID namespace this
 * test creates: the only level ever written is that namespace's, never the
 * initial one's.  Without root, or on a kernel without vm.memfd_noexec,
 * the cases exit 77 (skipped) unless CI is "true", where they fail.
 * `nsexec_ns_test CASE` runs one case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "nsexec.h"
#include "unit-cases.h"

#define SKIP UNIT_SKIP
#define NOBODY 65534

static bool in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && strcmp(ci, "true") == 0;
}

/* The init of a new PID namespace (root's, no user namespace), kept alive
 * until *hold is closed; its PID in ours, or -1. */
struct pidns_init {
	pid_t middle, init;
	int hold;
};

static int spawn_init(struct pidns_init *p)
{
	int ready[2], hold[2];
	pid_t init = -1;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0)
		return -1;
	p->middle = fork();
	if (p->middle < 0)
		return -1;
	if (p->middle == 0) {
		char c;

		(void)close(hold[1]);
		if (unshare(CLONE_NEWPID) == 0)
			init = fork();
		if (init == 0) {
			(void)read(hold[0], &c, 1);
			_exit(0);
		}
		(void)write(ready[1], &init, sizeof(init));
		(void)read(hold[0], &c, 1);
		if (init > 0)
			(void)waitpid(init, NULL, 0);
		_exit(0);
	}
	(void)close(ready[1]);
	(void)close(hold[0]);
	p->hold = hold[1];
	if (read(ready[0], &init, sizeof(init)) != sizeof(init))
		init = -1;
	(void)close(ready[0]);
	p->init = init;
	return init > 0 ? 0 : -1;
}

static void reap_init(struct pidns_init *p)
{
	p->hold = safe_close(p->hold);
	if (p->middle > 0)
		(void)waitpid(p->middle, NULL, 0);
	p->middle = -1;
}

static int open_ns_of(pid_t pid)
{
	char path[64];

	(void)snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static bool message_has(const struct mt_error *e, const char *what)
{
	const char *m = e ? mt_error_message(e) : NULL;

	return m && strstr(m, what);
}

static int apply(pid_t target, int ns_fd, int level, struct mt_error **e)
{
	struct nsexec_request req = {
		.level = level,
		.origin = NSEXEC_ORIGIN_CREATED,
		.service_socket = "", /* never the service */
	};
	struct nsexec_result res;

	return nsexec_apply_memfd_noexec_ns(target, ns_fd, &req, &res, e);
}

/* Root can open the target's namespace: any other fd is refused, and the
 * level is left as it was. */
static int case_other_namespace_exdev(void)
{
	static const char *const others[] = {"/proc/self/ns/pid", "/proc/self/ns/net",
					     "/proc/self/status"};
	struct pidns_init p = {.middle = -1, .hold = -EBADF};
	_cleanup_close_ int right = -EBADF;
	int before, after, failed = 0;

	if (spawn_init(&p) < 0)
		FAIL("a PID namespace with an init: %m");
	right = open_ns_of(p.init);
	before = right < 0 ? -errno : nsexec_read_memfd_noexec(right);
	for (size_t i = 0; before >= 0 && i < ELEMENTSOF(others); i++) {
		_cleanup_close_ int fd = open(others[i], O_RDONLY | O_CLOEXEC);
		_cleanup_error_ struct mt_error *e = NULL;
		int r = fd < 0 ? -errno : apply(p.init, fd, 2, &e);

		if (r != -EXDEV || !message_has(e, "is not the one it is in")) {
			fprintf(stderr, "%s passed for process %d: %d (%s), want -EXDEV\n",
				others[i], (int)p.init, r, e ? mt_error_message(e) : "no message");
			failed = 1;
		}
	}
	after = before < 0 ? before : nsexec_read_memfd_noexec(right);
	reap_init(&p);
	if (before == -ENOENT)
		return in_ci() ? (fprintf(stderr, "no vm.memfd_noexec on this kernel\n"), 1) : SKIP;
	if (before < 0)
		FAIL("the new namespace's level: %s", strerror(-before));
	if (after != before)
		FAIL("its level went from %d to %d after refused requests", before, after);
	return failed;
}

/* The right fd is honoured: the new namespace reads the level after. */
static int case_right_namespace_applied(void)
{
	struct pidns_init p = {.middle = -1, .hold = -EBADF};
	_cleanup_close_ int right = -EBADF;
	_cleanup_error_ struct mt_error *e = NULL;
	int r, after;

	if (spawn_init(&p) < 0)
		FAIL("a PID namespace with an init: %m");
	right = open_ns_of(p.init);
	r = right < 0 ? -errno : apply(p.init, right, 1, &e);
	after = r < 0 ? r : nsexec_read_memfd_noexec(right);
	reap_init(&p);
	if (r == -ENOENT && !in_ci())
		return SKIP;
	if (r < 0)
		FAIL("the right namespace fd: %d (%s)", r, e ? mt_error_message(e) : "no message");
	if (after < 1)
		FAIL("the namespace reads %d after level 1 was applied", after);
	return 0;
}

/*
 * An unprivileged caller cannot open root's target's namespace, so only the
 * fd passed will do: one that is no PID namespace is refused before it is
 * used; the right one passes that check (and then fails for want of
 * privilege, which is not what is tested here).  Exit status of the
 * caller: 0 as wanted, 1 wrong result, 3 the premise does not hold.
 */
static int unprivileged_caller(pid_t target, int right, int net, int file)
{
	struct {
		int fd;
		bool refused;
	} rows[] = {{net, true}, {file, true}, {right, false}};
	_cleanup_close_ int peek = -EBADF;
	gid_t g = NOBODY;

	if (setgroups(1, &g) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0) {
		fprintf(stderr, "cannot become uid %d: %m\n", NOBODY);
		return 3;
	}
	peek = open_ns_of(target);
	if (peek >= 0 || (errno != EACCES && errno != EPERM)) {
		fprintf(stderr, "uid %d could open process %d's namespace (%m)\n", NOBODY,
			(int)target);
		return 3;
	}
	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		_cleanup_error_ struct mt_error *e = NULL;
		int r = apply(target, rows[i].fd, 2, &e);
		bool refused = r == -EINVAL && message_has(e, "is not a PID namespace");

		if (refused != rows[i].refused || (!rows[i].refused && r == 0)) {
			fprintf(stderr, "row %zu: %d (%s), want %s\n", i, r,
				e ? mt_error_message(e) : "no message",
				rows[i].refused ? "-EINVAL, not a PID namespace"
						: "past the type check, then refused");
			return 1;
		}
	}
	return 0;
}

static int case_not_pidns_einval(void)
{
	struct pidns_init p = {.middle = -1, .hold = -EBADF};
	_cleanup_close_ int right = -EBADF, net = -EBADF, file = -EBADF;
	int before, after, status = 0;
	pid_t caller = -1;

	if (spawn_init(&p) < 0)
		FAIL("a PID namespace with an init: %m");
	right = open_ns_of(p.init);
	net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	before = right < 0 ? -errno : nsexec_read_memfd_noexec(right);
	if (before >= 0 && net >= 0 && file >= 0) {
		caller = fork();
		if (caller == 0)
			_exit(unprivileged_caller(p.init, right, net, file));
		if (caller < 0 || waitpid(caller, &status, 0) != caller)
			status = -1;
	}
	after = before < 0 ? before : nsexec_read_memfd_noexec(right);
	reap_init(&p);
	if (before == -ENOENT)
		return in_ci() ? (fprintf(stderr, "no vm.memfd_noexec on this kernel\n"), 1) : SKIP;
	if (before < 0 || net < 0 || file < 0 || caller < 0)
		FAIL("set-up: namespace level %d, fds %d %d, caller %d: %m", before, net, file,
		     (int)caller);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("the unprivileged caller: status 0x%x", (unsigned)status);
	if (after != before)
		FAIL("the level went from %d to %d after refused requests", before, after);
	return 0;
}

static const struct unit_case cases[] = {
	{"other_namespace_exdev", case_other_namespace_exdev},
	{"right_namespace_applied", case_right_namespace_applied},
	{"not_pidns_einval", case_not_pidns_einval},
};

int main(int argc, char *argv[])
{
	if (geteuid() != 0) {
		fprintf(stderr,
			"nsexec_ns_test: needs root (it creates PID namespaces and calls as uid 65534)%s\n",
			in_ci() ? ", and CI=true" : "; skipped");
		return in_ci() ? 1 : SKIP;
	}
	return unit_main("nsexec_ns_test", cases, ELEMENTSOF(cases), argc, argv);
}
