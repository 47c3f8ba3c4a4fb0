/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec_apply_memfd_noexec(): see nsexec.h.
 *
 *   caller ──fork──> helper ──setns(pid ns)──fork──> writer (in the ns)
 *      ^                                                  │
 *      └──────────── struct report over a pipe ───────────┘
 *
 * The helper and the writer run only async-signal-safe code and _exit().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "macro.h"
#include "nsexec.h"
#include "pidns.h"

enum stage {
	STAGE_DONE = 1,
	STAGE_SETNS,
	STAGE_FORK,
	STAGE_GUARD,
	STAGE_READ,
	STAGE_OPEN,
	STAGE_WRITE,
	STAGE_REREAD,
};

struct report {
	int stage;
	int err;       /* errno of the failed step */
	int before;    /* -1 if not read */
	int after;     /* -1 if not read */
	int write_err; /* errno of a tolerated write failure (EINVAL), or 0 */
	int written;
};

_printf_(3, 4) static int fail(char **ret_error, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = set_error_va(ret_error, r, fmt, ap);
	va_end(ap);
	return r;
}

static void send_report(int fd, const struct report *rep)
{
	ssize_t n;

	/* One write below PIPE_BUF is atomic. */
	do
		n = write(fd, rep, sizeof(*rep));
	while (n < 0 && errno == EINTR);
}

_noreturn_ static void writer(int report_fd, int level,
			      const struct nsexec_ns_id *target,
			      const struct nsexec_ns_id *forbidden, size_t n)
{
	struct report rep = {.before = -1, .after = -1};
	enum nsexec_write_stage ws = NSEXEC_WRITE_WRITE;
	int r;

	r = nsexec_guard_active_pidns(target, forbidden, n);
	if (r < 0) {
		rep.stage = STAGE_GUARD;
		rep.err = -r;
		send_report(report_fd, &rep);
		_exit(1);
	}

	r = nsexec_sysctl_read();
	if (r < 0) {
		rep.stage = STAGE_READ;
		rep.err = -r;
		send_report(report_fd, &rep);
		_exit(1);
	}
	rep.before = r;

	if (rep.before >= level) {
		/* Already as strict or stricter: never lower it. */
		rep.stage = STAGE_DONE;
		rep.after = rep.before;
		send_report(report_fd, &rep);
		_exit(0);
	}

	r = nsexec_sysctl_write(level, &ws);
	if (r == -EINVAL && ws == NSEXEC_WRITE_WRITE) {
		/* A stricter parent (or a racing writer): re-read decides. */
		rep.write_err = EINVAL;
	} else if (r < 0) {
		rep.stage = ws == NSEXEC_WRITE_OPEN ? STAGE_OPEN : STAGE_WRITE;
		rep.err = -r;
		send_report(report_fd, &rep);
		_exit(1);
	} else {
		rep.written = 1;
	}

	r = nsexec_sysctl_read();
	if (r < 0) {
		rep.stage = STAGE_REREAD;
		rep.err = -r;
		send_report(report_fd, &rep);
		_exit(1);
	}
	rep.after = r;
	rep.stage = STAGE_DONE;
	send_report(report_fd, &rep);
	_exit(0);
}

_noreturn_ static void helper(int ns_fd, int report_fd, int level,
			      const struct nsexec_ns_id *target,
			      const struct nsexec_ns_id *forbidden, size_t n)
{
	struct report rep = {.before = -1, .after = -1};
	int status;
	pid_t pid;

	/* ns_fd is a namespace fd, or a pidfd (5.8+: joins that process's
	 * active PID namespace). */
	if (setns(ns_fd, CLONE_NEWPID) < 0) {
		rep.stage = STAGE_SETNS;
		rep.err = errno;
		send_report(report_fd, &rep);
		_exit(1);
	}
	(void)close(ns_fd);

	pid = fork();
	if (pid < 0) {
		rep.stage = STAGE_FORK;
		rep.err = errno;
		send_report(report_fd, &rep);
		_exit(1);
	}
	if (pid == 0)
		writer(report_fd, level, target, forbidden, n);

	(void)close(report_fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

static void describe_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "ended with wait status 0x%x", status);
}

static int explain(const struct report *rep, pid_t target, int level,
		   char **ret_error)
{
	int e = rep->err;

	switch (rep->stage) {
	case STAGE_SETNS:
		return fail(ret_error, -e,
			    "Failed to join the PID namespace of process %d: "
			    "%s%s",
			    (int)target, strerror(e),
			    e == EPERM ? " (joining needs CAP_SYS_ADMIN over "
					 "the user namespace that owns it)"
				       : "");
	case STAGE_FORK:
		return fail(ret_error, -e,
			    "Failed to fork into the PID namespace of process "
			    "%d: %s%s",
			    (int)target, strerror(e),
			    e == ENOMEM ? " (has the namespace's init process "
					  "exited?)"
					: "");
	case STAGE_GUARD:
		if (e == EEXIST)
			return fail(ret_error, -EEXIST,
				    "Refusing to set vm.memfd_noexec: the "
				    "writer found itself in the initial (or "
				    "the caller's) PID namespace; the host's "
				    "value is never changed.");
		return fail(ret_error, -e,
			    "Failed to verify the PID namespace of the writer "
			    "process: %s; refusing to write.",
			    strerror(e));
	case STAGE_READ:
	case STAGE_REREAD:
		if (e == ENOENT)
			return fail(ret_error, -ENOENT,
				    "Failed to set vm.memfd_noexec=%d: this "
				    "kernel lacks /proc/sys/vm/memfd_noexec "
				    "(it needs Linux 6.3 or later, with "
				    "CONFIG_PID_NS). The request cannot be "
				    "honoured, so creation fails closed; "
				    "remove the memfd_noexec annotation to "
				    "run without it.",
				    level);
		return fail(ret_error, -e,
			    "Failed to read /proc/sys/vm/memfd_noexec in the "
			    "PID namespace of process %d: %s",
			    (int)target, strerror(e));
	case STAGE_OPEN:
	case STAGE_WRITE:
		if (e == EACCES || e == EPERM)
			return fail(
				ret_error, -e,
				"Failed to set vm.memfd_noexec=%d in the PID "
				"namespace of process %d: %s. Only global "
				"root (euid 0 in the initial user namespace, "
				"with CAP_SYS_ADMIN over the namespace's "
				"owner) may write it: rootless runtimes cannot "
				"set it, and their containers inherit the "
				"value of the parent namespace (%d here). Run "
				"this hook or the runtime as host root, or set "
				"vm.memfd_noexec in a parent PID namespace "
				"(e.g. from a root-started `unshare --pid "
				"--fork`) before starting the rootless "
				"runtime.",
				level, (int)target, strerror(e), rep->before);
		return fail(ret_error, -e,
			    "Failed to write vm.memfd_noexec=%d in the PID "
			    "namespace of process %d: %s",
			    level, (int)target, strerror(e));
	default:
		return fail(ret_error, -EPROTO,
			    "Failed to set vm.memfd_noexec: the helper process "
			    "sent an unknown report (stage %d).",
			    rep->stage);
	}
}

struct target {
	int pidfd; /* pidfd_open(), or -EBADF (before 5.3) */
	int nsfd;  /* the PID namespace, or -EBADF if it cannot be opened
		    * from here (then setns() goes through the pidfd) */
	bool have_id;
	struct nsexec_ns_id id;
	struct nsexec_ns_id forbidden[2]; /* ours, and /proc/1's if known */
	size_t n_forbidden;
};

static void target_done(struct target *t)
{
	t->pidfd = safe_close(t->pidfd);
	t->nsfd = safe_close(t->nsfd);
}

/* /proc/<pid>/ns/pid, through the directory fd (the task cannot change
 * under it).  Only meaningful when our procfs is ours. */
static int open_ns_by_proc(pid_t target, char **ret_error)
{
	_cleanup_close_ int dfd = -EBADF;
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d", (int)target);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = negative_errno();
		if (r == -ENOENT)
			return fail(ret_error, -ESRCH,
				    "Failed to find process %d: no such "
				    "process",
				    (int)target);
		return fail(ret_error, r, "Failed to open %s: %s", path,
			    strerror(-r));
	}
	fd = openat(dfd, "ns/pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = negative_errno();
		return fail(ret_error, r, "Failed to open /proc/%d/ns/pid: %s",
			    (int)target, strerror(-r));
	}
	return fd;
}

/*
 * Finds target's PID namespace and refuses the host's and the caller's.
 *
 * The PID is the caller's view, which /proc shows only if procfs belongs
 * to the caller's PID namespace (not so after a bare `unshare --pid
 * --fork`).  So: pidfd_open() (the caller's view, always), then the
 * namespace from PIDFD_GET_PID_NAMESPACE (6.11+), else from /proc when
 * procfs is ours (re-checking that the pidfd's process still lives, so the
 * PID was not recycled in between), else none: then setns() goes through
 * the pidfd (5.8+) and the writer's own check is what refuses.
 */
static int open_target(pid_t target, struct target *t, char **ret_error)
{
	struct nsexec_ns_id self, init;
	_cleanup_close_ int parent = -EBADF;
	int r;

	t->pidfd = missing_pidfd_open(target, 0);
	if (t->pidfd < 0) {
		r = negative_errno();
		if (r == -ESRCH)
			return fail(ret_error, -ESRCH,
				    "Failed to find process %d: no such "
				    "process",
				    (int)target);
		if (r != -ENOSYS)
			return fail(ret_error, r,
				    "Failed to open a pidfd for process %d: "
				    "%s",
				    (int)target, strerror(-r));
		t->pidfd = -EBADF;
	}

	if (t->pidfd >= 0)
		t->nsfd = ioctl(t->pidfd, PIDFD_GET_PID_NAMESPACE, 0);
	if (t->nsfd < 0) {
		t->nsfd = -EBADF;
		if (nsexec_procfs_is_ours()) {
			t->nsfd = open_ns_by_proc(target, ret_error);
			if (t->nsfd < 0)
				return t->nsfd;
			if (t->pidfd >= 0 &&
			    missing_pidfd_send_signal(t->pidfd, 0) < 0 &&
			    errno == ESRCH)
				return fail(ret_error, -ESRCH,
					    "Failed to find process %d: it "
					    "exited meanwhile",
					    (int)target);
		} else if (t->pidfd < 0) {
			return fail(ret_error, -EOPNOTSUPP,
				    "Failed to find the PID namespace of "
				    "process %d: /proc belongs to another PID "
				    "namespace and the kernel has no pidfds.",
				    (int)target);
		}
	}

	r = nsexec_ns_id_of_path("/proc/thread-self/ns/pid", &self);
	if (r < 0)
		r = nsexec_ns_id_of_path("/proc/self/ns/pid", &self);
	if (r < 0)
		return fail(ret_error, r,
			    "Failed to find our own PID namespace "
			    "(/proc/self/ns/pid): %s",
			    strerror(-r));
	t->n_forbidden = 0;
	t->forbidden[t->n_forbidden++] = self;
	/* /proc/1 may be unreadable (a non-dumpable init) or another
	 * namespace's; the inode constant and NS_GET_PARENT still hold. */
	if (nsexec_ns_id_of_path("/proc/1/ns/pid", &init) >= 0)
		t->forbidden[t->n_forbidden++] = init;

	if (t->nsfd < 0)
		return 0;

	r = nsexec_ns_id_of_fd(t->nsfd, &t->id);
	if (r < 0)
		return fail(ret_error, r,
			    "Failed to stat the PID namespace of process %d: "
			    "%s",
			    (int)target, strerror(-r));
	t->have_id = true;

	if (!t->id.nsfs || nsexec_ns_id_is_initial_pid(&t->id) ||
	    (t->n_forbidden > 1 && nsexec_ns_id_equal(&t->id, &init)))
		return fail(ret_error, -EEXIST,
			    "Refusing to set vm.memfd_noexec for process %d: "
			    "it is in the initial PID namespace, whose value "
			    "is the host's. The container needs its own PID "
			    "namespace (\"linux\": {\"namespaces\": "
			    "[{\"type\": \"pid\"}]}).",
			    (int)target);
	if (nsexec_ns_id_equal(&t->id, &self))
		return fail(ret_error, -EEXIST,
			    "Refusing to set vm.memfd_noexec for process %d: "
			    "it shares the caller's PID namespace, so the "
			    "change would apply to the caller and its parent "
			    "environment as well. The target needs a PID "
			    "namespace of its own.",
			    (int)target);

	/* Must be strictly below ours: NS_GET_PARENT fails with EPERM for
	 * our own namespace and anything outside our subtree. */
	parent = ioctl(t->nsfd, NS_GET_PARENT);
	if (parent < 0 && errno == EPERM)
		return fail(ret_error, -EEXIST,
			    "Refusing to set vm.memfd_noexec for process %d: "
			    "its PID namespace is not below the caller's, so "
			    "it may be the host's or an ancestor's.",
			    (int)target);
	return 0;
}

int nsexec_apply_memfd_noexec(pid_t target, int level,
			      struct nsexec_result *ret, char **ret_error)
{
	_cleanup_(target_done) struct target t = {.pidfd = -EBADF,
						  .nsfd = -EBADF};
	_cleanup_close_ int rfd = -EBADF, wfd = -EBADF;
	struct report rep = {};
	size_t got = 0;
	int pipefd[2], status = 0, r;
	char how[96];
	pid_t pid;

	if (level < 0 || level > 2)
		return fail(ret_error, -EINVAL,
			    "Refusing vm.memfd_noexec=%d: allowed values are "
			    "0, 1 or 2.",
			    level);
	if (target <= 0)
		return fail(ret_error, -EINVAL, "Refusing process ID %d.",
			    (int)target);

	r = open_target(target, &t, ret_error);
	if (r < 0)
		return r;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		r = negative_errno();
		return fail(ret_error, r, "Failed to create a pipe: %s",
			    strerror(-r));
	}
	rfd = pipefd[0];
	wfd = pipefd[1];

	pid = fork();
	if (pid < 0) {
		r = negative_errno();
		return fail(ret_error, r, "Failed to fork: %s", strerror(-r));
	}
	if (pid == 0) {
		(void)close(rfd);
		helper(t.nsfd >= 0 ? t.nsfd : t.pidfd, wfd, level,
		       t.have_id ? &t.id : NULL, t.forbidden, t.n_forbidden);
	}
	wfd = safe_close(wfd);

	got = read_up_to(rfd, &rep, sizeof(rep));
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	/* A caller that reaps children itself (SIGCHLD ignored, or a reaper
	 * loop) makes waitpid() fail; the report is what counts. */

	if (got != sizeof(rep)) {
		if (r < 0)
			snprintf(how, sizeof(how), "ended");
		else
			describe_status(status, how, sizeof(how));
		return fail(ret_error, -EPROTO,
			    "Failed to set vm.memfd_noexec in the PID "
			    "namespace of process %d: the helper process %s "
			    "without reporting (has the namespace's init "
			    "process exited?)",
			    (int)target, how);
	}
	if (rep.stage != STAGE_DONE)
		return explain(&rep, target, level, ret_error);

	if (rep.after < level) {
		if (rep.write_err == EINVAL)
			return fail(ret_error, -EINVAL,
				    "Failed to set vm.memfd_noexec=%d in the "
				    "PID namespace of process %d: the kernel "
				    "refused the value (EINVAL) and it still "
				    "reads %d.",
				    level, (int)target, rep.after);
		return fail(ret_error, -EIO,
			    "Failed to set vm.memfd_noexec=%d in the PID "
			    "namespace of process %d: it reads %d after the "
			    "write; refusing to go on (fails closed).",
			    level, (int)target, rep.after);
	}

	*ret = (struct nsexec_result){
		.requested = level,
		.before = rep.before,
		.after = rep.after,
		.written = rep.written,
		.kept = rep.after > level,
	};
	return 0;
}
