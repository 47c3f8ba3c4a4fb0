/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The privilege and semantics probes of memfd-noexec; see probe.h.
 *
 * The semantics probe writes vm.memfd_noexec, so it only ever does that
 * from a process whose active PID namespace it has just created, and the
 * writer checks that again (nsexec_guard_active_pidns()) right before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "fork-report.h"
#include "macro.h"
#include "missing-syscall.h"
#include "pidns.h"
#include "probe.h"
#include "kernel-features.h"
#include "memfd-sysctl.h"

int probe_in_initial_pidns(void)
{
	struct nsexec_ns_id id;
	int r;

	r = nsexec_ns_id_self(&id);
	if (r < 0)
		return r;
	return nsexec_ns_id_is_initial_pid(&id);
}

/* ---- privilege ---------------------------------------------------------- */

static void cap_freep(cap_t *c)
{
	if (*c)
		(void)cap_free(*c);
}

int probe_can_set_level(struct mt_error **err)
{
	_cleanup_(cap_freep) cap_t caps = NULL;
	cap_flag_value_t v = CAP_CLEAR;
	struct nsexec_ns_id user;
	int r;

	if (geteuid() != 0)
		return mt_error_set(err, -EPERM,
				    "euid is not 0 (the sysctl is owned by global root)");
	r = nsexec_ns_id_of_path("/proc/self/ns/user", &user);
	if (r < 0)
		return mt_error_set(err, r, "Failed to open /proc/self/ns/user: %s", strerror(-r));
	if (!nsexec_ns_id_is_initial_user(&user))
		return mt_error_set(err, -EPERM,
				    "in a user namespace, whose root is not global root");
	caps = cap_get_proc();
	if (!caps || cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v) < 0)
		return mt_error_set(err, negative_errno(), "Failed to read our capabilities: %m");
	if (v != CAP_SET)
		return mt_error_set(err, -EPERM, "CAP_SYS_ADMIN is not in the effective set");
	return 0;
}

/* ---- semantics ---------------------------------------------------------- */

const char *probe_semantics_to_string(enum probe_semantics s)
{
	switch (s) {
	case PROBE_SEMANTICS_ABSENT:
		return "absent";
	case PROBE_SEMANTICS_HIERARCHY:
		return "hierarchy";
	case PROBE_SEMANTICS_RATCHET:
		return "ratchet";
	case PROBE_SEMANTICS_UNKNOWN:
	default:
		return "unknown";
	}
}

enum sem_stage {
	SEM_DONE = 1,
	SEM_NOPRIV,   /* unshare or the write: EPERM/EACCES */
	SEM_NOSYSCTL, /* ENOENT */
	SEM_MAXED,    /* already at 2 here: nothing to raise to */
	SEM_ERROR,    /* err, at step */
};

struct sem_report {
	int stage;
	int err;
	int step;	/* for SEM_ERROR and SEM_NOPRIV: what failed */
	int v0;		/* the level inherited by the throwaway namespace */
	int child_read; /* what its child read after the parent raised */
	int lower_err;	/* errno of writing v0 back, 0 if allowed */
};

enum sem_step {
	STEP_UNSHARE = 1,
	STEP_FORK,
	STEP_GUARD,
	STEP_READ,
	STEP_PIPE,
	STEP_UNSHARE_INNER,
	STEP_FORK_INNER,
	STEP_RAISE,
	STEP_CHILD_READ,
};

static const char *step_name(int step)
{
	switch (step) {
	case STEP_UNSHARE:
		return "create a PID namespace";
	case STEP_FORK:
		return "fork into it";
	case STEP_GUARD:
		return "verify the throwaway namespace";
	case STEP_READ:
		return "read the level";
	case STEP_PIPE:
		return "create a pipe";
	case STEP_UNSHARE_INNER:
		return "create a nested PID namespace";
	case STEP_FORK_INNER:
		return "fork into the nested namespace";
	case STEP_RAISE:
		return "raise the level in the throwaway namespace";
	case STEP_CHILD_READ:
		return "read the level in the nested namespace";
	default:
		return "probe";
	}
}

static void sem_send(int fd, struct sem_report *rep)
{
	ssize_t n;

	do
		n = write(fd, rep, sizeof(*rep));
	while (n < 0 && errno == EINTR);
}

_noreturn_ static void sem_fail(int fd, struct sem_report *rep, int step, int err)
{
	rep->stage = (err == EPERM || err == EACCES) ? SEM_NOPRIV : SEM_ERROR;
	rep->step = step;
	rep->err = err;
	sem_send(fd, rep);
	_exit(1);
}

/* B: init of the nested namespace.  Waits for the go, reads, reports. */
_noreturn_ static void sem_inner(int go_fd, int back_fd)
{
	char c;
	int v;

	if (read(go_fd, &c, 1) != 1)
		_exit(1);
	v = mt_memfd_noexec_read();
	if (write(back_fd, &v, sizeof(v)) != sizeof(v))
		_exit(1);
	_exit(0);
}

/* A: init of the throwaway namespace. */
_noreturn_ static void sem_outer(int fd, const void *data)
{
	const struct nsexec_ns_id *caller = data;
	struct sem_report rep = {.v0 = -1, .child_read = -1};
	int go[2], back[2], r, v;
	pid_t b;

	r = nsexec_guard_active_pidns(NULL, caller, 1);
	if (r < 0)
		sem_fail(fd, &rep, STEP_GUARD, -r);

	r = mt_memfd_noexec_read();
	if (r == -ENOENT) {
		rep.stage = SEM_NOSYSCTL;
		sem_send(fd, &rep);
		_exit(0);
	}
	if (r < 0)
		sem_fail(fd, &rep, STEP_READ, -r);
	rep.v0 = r;
	if (rep.v0 >= 2) {
		rep.stage = SEM_MAXED;
		sem_send(fd, &rep);
		_exit(0);
	}

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(back, O_CLOEXEC) < 0)
		sem_fail(fd, &rep, STEP_PIPE, errno);
	if (unshare(CLONE_NEWPID) < 0)
		sem_fail(fd, &rep, STEP_UNSHARE_INNER, errno);
	/* A bare fork(), not mt_fork_hand_on(): B does not report; A raises
	 * the level between B's start and B's read, so the two talk both
	 * ways (go, back) while A stays in charge of the report. */
	b = fork();
	if (b < 0)
		sem_fail(fd, &rep, STEP_FORK_INNER, errno);
	if (b == 0) {
		(void)close(go[1]);
		(void)close(back[0]);
		sem_inner(go[0], back[1]);
	}
	(void)close(go[0]);
	(void)close(back[1]);

	/* The guard above still holds: unshare() changed only where our
	 * children go, not our own active namespace. */
	r = mt_memfd_noexec_write(rep.v0 + 1, NULL);
	if (r < 0)
		sem_fail(fd, &rep, STEP_RAISE, -r); /* closing go ends B */

	if (write(go[1], "g", 1) != 1 || read(back[0], &v, sizeof(v)) != sizeof(v))
		sem_fail(fd, &rep, STEP_CHILD_READ, EPROTO);
	rep.child_read = v;
	while (waitpid(b, NULL, 0) < 0 && errno == EINTR)
		;

	r = mt_memfd_noexec_write(rep.v0, NULL);
	rep.lower_err = r < 0 ? -r : 0;
	rep.stage = SEM_DONE;
	sem_send(fd, &rep);
	_exit(0);
}

/* C: in the caller's namespace; creates the throwaway one, never writes. */
_noreturn_ static void sem_creator(int fd, const void *data)
{
	const struct nsexec_ns_id *caller = data;
	struct sem_report rep = {.v0 = -1, .child_read = -1};

	if (unshare(CLONE_NEWPID) < 0)
		sem_fail(fd, &rep, STEP_UNSHARE, errno);
	sem_fail(fd, &rep, STEP_FORK, -mt_fork_hand_on(sem_outer, caller, fd));
}

/* The verdict from a complete report; the detail says what was seen. */
static enum probe_semantics verdict(const struct sem_report *rep, char *detail, size_t size)
{
	bool follows = rep->child_read == rep->v0 + 1;
	bool copies = rep->child_read == rep->v0;

	if (follows && rep->lower_err == 0) {
		(void)snprintf(
			detail, size,
			"a child namespace followed its parent from %d to %d; the parent could lower its own value back to %d",
			rep->v0, rep->v0 + 1, rep->v0);
		return PROBE_SEMANTICS_HIERARCHY;
	}
	if (copies && rep->lower_err == EINVAL) {
		(void)snprintf(
			detail, size,
			"a child namespace kept the %d it copied when its parent went to %d; lowering it back was refused (EINVAL)",
			rep->v0, rep->v0 + 1);
		return PROBE_SEMANTICS_RATCHET;
	}
	(void)snprintf(
		detail, size,
		"inconsistent results: inherited %d, raised to %d, the child read %d, lowering back gave %s",
		rep->v0, rep->v0 + 1, rep->child_read,
		rep->lower_err ? strerror(rep->lower_err) : "success");
	return PROBE_SEMANTICS_UNKNOWN;
}

/* Runs the probe's processes; returns 0 and whether a report came. */
static int sem_run(struct sem_report *rep, bool *ret_got)
{
	struct nsexec_ns_id caller;
	ssize_t got;
	int r;

	r = nsexec_ns_id_self(&caller);
	if (r < 0)
		return r;
	got = mt_fork_report(sem_creator, &caller, rep, sizeof(*rep), NULL);
	if (got < 0)
		return (int)got;
	*ret_got = (size_t)got == sizeof(*rep);
	return 0;
}

int probe_kernel_semantics(enum probe_semantics *ret, char *detail, size_t size)
{
	struct sem_report rep = {};
	struct mt_features f;
	bool got = false;
	int r;

	*ret = PROBE_SEMANTICS_UNKNOWN;
	mt_features_probe(&f);
	if (!f.memfd_noexec) {
		*ret = PROBE_SEMANTICS_ABSENT;
		(void)snprintf(detail, size, "no /proc/sys/vm/memfd_noexec");
		return 0;
	}
	r = sem_run(&rep, &got);
	if (r < 0)
		return r;
	if (!got)
		rep.stage = 0;
	switch (rep.stage) {
	case SEM_NOPRIV:
		(void)snprintf(detail, size, "no privilege: cannot %s: %s", step_name(rep.step),
			       strerror(rep.err));
		break;
	case SEM_NOSYSCTL:
		*ret = PROBE_SEMANTICS_ABSENT;
		(void)snprintf(detail, size, "no /proc/sys/vm/memfd_noexec in a new PID namespace");
		break;
	case SEM_MAXED:
		(void)snprintf(
			detail, size,
			"the level here is already 2, which leaves nothing to raise in a throwaway namespace");
		break;
	case SEM_ERROR:
		(void)snprintf(detail, size, "probe failed to %s: %s", step_name(rep.step),
			       strerror(rep.err));
		break;
	case SEM_DONE:
		*ret = verdict(&rep, detail, size);
		break;
	default:
		(void)snprintf(detail, size, "the probe process ended without a valid report");
	}
	return 0;
}
