/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "fork-report.h"
#include "helper.h"
#include "macro.h"
#include "memfd-sysctl.h"

struct job {
	int user_fd;
	int level;
	const struct nsexec_ns_id *want, *forbidden;
	size_t n;
};

static void send_report(int fd, const struct nsexec_report *rep)
{
	ssize_t n;

	/* One write below PIPE_BUF is atomic. */
	do
		n = write(fd, rep, sizeof(*rep));
	while (n < 0 && errno == EINTR);
}

_noreturn_ static void report_exit(int fd, struct nsexec_report *rep, int stage, int err)
{
	rep->stage = stage;
	rep->err = err;
	send_report(fd, rep);
	_exit(stage == NSEXEC_STAGE_DONE ? 0 : 1);
}

/* Writes the level and reads it back; the guard has already passed. */
_noreturn_ static void raise_level(int fd, struct nsexec_report *rep, int level)
{
	bool at_open = false;
	int r;

	r = mt_memfd_noexec_write(level, &at_open);
	if (r == -EINVAL && !at_open)
		/* A stricter parent (or a racing writer): re-read decides. */
		rep->write_err = EINVAL;
	else if (r < 0)
		report_exit(fd, rep, at_open ? NSEXEC_STAGE_OPEN : NSEXEC_STAGE_WRITE, -r);
	else
		rep->written = 1;

	r = mt_memfd_noexec_read();
	if (r < 0)
		report_exit(fd, rep, NSEXEC_STAGE_REREAD, -r);
	rep->after = r;
	report_exit(fd, rep, NSEXEC_STAGE_DONE, 0);
}

_noreturn_ static void worker(int fd, const void *data)
{
	const struct job *j = data;
	struct nsexec_report rep = {.before = -1, .after = -1};
	int r;

	if (j->level >= 0) {
		r = nsexec_guard_active_pidns(j->want, j->forbidden, j->n);
		if (r < 0)
			report_exit(fd, &rep, NSEXEC_STAGE_GUARD, -r);
	} else if (j->want) {
		struct nsexec_ns_id self;

		/* Reading: only check that we landed where we meant to. */
		r = nsexec_ns_id_self(&self);
		if (r < 0 || !nsexec_ns_id_equal(&self, j->want))
			report_exit(fd, &rep, NSEXEC_STAGE_GUARD, r < 0 ? -r : EPROTO);
	}
	r = mt_memfd_noexec_read();
	if (r < 0)
		report_exit(fd, &rep, NSEXEC_STAGE_READ, -r);
	rep.before = rep.after = r;
	/* Reading only, or already as strict or stricter: never lower it. */
	if (j->level < 0 || rep.before >= j->level)
		report_exit(fd, &rep, NSEXEC_STAGE_DONE, 0);
	raise_level(fd, &rep, j->level);
}

_noreturn_ static void helper(int ns_fd, int fd, const struct job *j)
{
	struct nsexec_report rep = {.before = -1, .after = -1};

	if (setns(ns_fd, CLONE_NEWPID) < 0) {
		bool as_owner = errno == EPERM && j->level < 0 && j->user_fd >= 0;

		if (!as_owner || setns(j->user_fd, CLONE_NEWUSER) < 0 ||
		    setns(ns_fd, CLONE_NEWPID) < 0)
			report_exit(fd, &rep, NSEXEC_STAGE_SETNS, errno);
	}
	(void)close(ns_fd);

	/* setns() moved only where our children go: the worker is inside. */
	report_exit(fd, &rep, NSEXEC_STAGE_FORK, -mt_fork_hand_on(worker, j, fd));
}

/* status: a wait status, or the -errno of waitpid(). */
static void describe_status(int status, char *buf, size_t size)
{
	if (status < 0)
		(void)snprintf(buf, size, "ended");
	else if (WIFEXITED(status))
		(void)snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		(void)snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
			       strsignal(WTERMSIG(status)));
	else
		(void)snprintf(buf, size, "ended with wait status 0x%x", status);
}

/* The helper's side of mt_fork_report(). */
struct helper_args {
	int ns_fd;
	const struct job *j;
};

_noreturn_ static void helper_child(int fd, const void *data)
{
	const struct helper_args *a = data;

	helper(a->ns_fd, fd, a->j);
}

int nsexec_in_pidns(int ns_fd, int user_fd, int level, const struct nsexec_ns_id *want,
		    const struct nsexec_ns_id *forbidden, size_t n, struct nsexec_report *ret,
		    char *how, size_t how_size)
{
	const struct job j = {user_fd, level, want, forbidden, n};
	const struct helper_args a = {ns_fd, &j};
	int status = 0;
	ssize_t got;

	got = mt_fork_report(helper_child, &a, ret, sizeof(*ret), &status);
	if (got < 0)
		return (int)got;
	/* A caller that reaps children itself (SIGCHLD ignored, or a reaper
	 * loop) makes waitpid() fail; the report is what counts. */
	if ((size_t)got != sizeof(*ret)) {
		describe_status(status, how, how_size);
		return -EPROTO;
	}
	return 0;
}
