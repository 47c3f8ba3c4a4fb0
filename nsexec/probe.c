/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Feature, privilege and semantics probes; see probe.h.
 *
 * The semantics probe writes vm.memfd_noexec, so it only ever does that
 * from a process whose active PID namespace it has just created, and the
 * writer checks that again (nsexec_guard_active_pidns()) right before.
 */
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
#include "macro.h"
#include "missing_syscall.h"
#include "pidns.h"
#include "probe.h"

/* ---- features ----------------------------------------------------------- */

static bool features_cached;
static struct nsexec_features features_cache;

static bool probe_mfd_exec(void)
{
	_cleanup_close_ int fd =
		missing_memfd_create("nsexec-probe", MFD_CLOEXEC | MFD_EXEC);

	/* EACCES: known, but refused here (vm.memfd_noexec=2). */
	return fd >= 0 || errno == EACCES;
}

static bool probe_seal_exec(bool mfd_exec)
{
	_cleanup_close_ int fd = -EBADF;
	int seals;

	fd = missing_memfd_create("nsexec-probe",
				  MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 && errno == EINVAL && mfd_exec) {
		/* 6.3 to 6.5.2 at level 2 refuse a memfd without an exec
		 * flag; one made with MFD_NOEXEC_SEAL carries F_SEAL_EXEC. */
		fd = missing_memfd_create("nsexec-probe",
					  MFD_CLOEXEC | MFD_NOEXEC_SEAL);
		if (fd < 0)
			return false;
		seals = fcntl(fd, F_GET_SEALS);
		return seals >= 0 && (seals & F_SEAL_EXEC);
	}
	if (fd < 0)
		return false;
	return fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) == 0;
}

static void apply_features_env(struct nsexec_features *f)
{
	const char *e = getenv("NSEXEC_FEATURES");
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (!e || !*e)
		return;
	copy = strdup(e);
	if (!copy)
		return;
	for (char *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "-memfd_create") == 0)
			f->memfd_create = false;
		else if (strcmp(t, "-mfd_exec") == 0)
			f->mfd_exec = false;
		else if (strcmp(t, "-seal_exec") == 0)
			f->seal_exec = false;
		else if (strcmp(t, "-sysctl") == 0)
			f->sysctl = false;
	}
}

void nsexec_probe_features(struct nsexec_features *ret)
{
	if (!features_cached) {
		struct nsexec_features f = {};
		_cleanup_close_ int fd =
			missing_memfd_create("nsexec-probe", MFD_CLOEXEC);

		f.memfd_create = fd >= 0;
		if (f.memfd_create) {
			f.mfd_exec = probe_mfd_exec();
			f.seal_exec = probe_seal_exec(f.mfd_exec);
		}
		f.sysctl = access(NSEXEC_SYSCTL_PATH, F_OK) == 0;
		apply_features_env(&f);
		features_cache = f;
		features_cached = true;
	}
	*ret = features_cache;
}

void nsexec_features_override(const struct nsexec_features *f)
{
	if (f) {
		features_cache = *f;
		features_cached = true;
	} else {
		features_cached = false;
	}
}

int nsexec_read_level(void)
{
	return nsexec_sysctl_read();
}

int nsexec_in_initial_pidns(void)
{
	struct nsexec_ns_id id;
	int r;

	r = nsexec_ns_id_of_path("/proc/thread-self/ns/pid", &id);
	if (r < 0)
		r = nsexec_ns_id_of_path("/proc/self/ns/pid", &id);
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

int nsexec_can_set_level(const char **ret_reason)
{
	_cleanup_(cap_freep) cap_t caps = NULL;
	cap_flag_value_t v = CAP_CLEAR;
	struct nsexec_ns_id user;
	const char *reason = NULL;
	int r;

	if (geteuid() != 0) {
		reason = "euid is not 0 (the sysctl is owned by global root)";
	} else {
		r = nsexec_ns_id_of_path("/proc/self/ns/user", &user);
		if (r < 0)
			return r;
		if (!nsexec_ns_id_is_initial_user(&user)) {
			reason = "in a user namespace, whose root is not "
				 "global root";
		} else {
			caps = cap_get_proc();
			if (!caps)
				return negative_errno();
			if (cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE,
					 &v) < 0)
				return negative_errno();
			if (v != CAP_SET)
				reason = "CAP_SYS_ADMIN is not in the "
					 "effective set";
		}
	}
	if (reason) {
		if (ret_reason)
			*ret_reason = reason;
		return 0;
	}
	return 1;
}

/* ---- semantics ---------------------------------------------------------- */

const char *nsexec_semantics_to_string(enum nsexec_semantics s)
{
	switch (s) {
	case NSEXEC_SEMANTICS_ABSENT:
		return "absent";
	case NSEXEC_SEMANTICS_HIERARCHY:
		return "hierarchy";
	case NSEXEC_SEMANTICS_RATCHET:
		return "ratchet";
	case NSEXEC_SEMANTICS_UNKNOWN:
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

_noreturn_ static void sem_fail(int fd, struct sem_report *rep, int step,
				int err)
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
	v = nsexec_sysctl_read();
	if (write(back_fd, &v, sizeof(v)) != sizeof(v))
		_exit(1);
	_exit(0);
}

/* A: init of the throwaway namespace. */
_noreturn_ static void sem_outer(int fd, const struct nsexec_ns_id *caller)
{
	struct sem_report rep = {.v0 = -1, .child_read = -1};
	enum nsexec_write_stage ws;
	int go[2], back[2], r, v;
	pid_t b;

	r = nsexec_guard_active_pidns(NULL, caller, 1);
	if (r < 0)
		sem_fail(fd, &rep, STEP_GUARD, -r);

	r = nsexec_sysctl_read();
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
	r = nsexec_sysctl_write(rep.v0 + 1, &ws);
	if (r < 0)
		sem_fail(fd, &rep, STEP_RAISE, -r); /* closing go ends B */

	if (write(go[1], "g", 1) != 1 ||
	    read(back[0], &v, sizeof(v)) != sizeof(v))
		sem_fail(fd, &rep, STEP_CHILD_READ, EPROTO);
	rep.child_read = v;
	while (waitpid(b, NULL, 0) < 0 && errno == EINTR)
		;

	r = nsexec_sysctl_write(rep.v0, &ws);
	rep.lower_err = r < 0 ? -r : 0;
	rep.stage = SEM_DONE;
	sem_send(fd, &rep);
	_exit(0);
}

/* C: in the caller's namespace; creates the throwaway one, never writes. */
_noreturn_ static void sem_creator(int fd, const struct nsexec_ns_id *caller)
{
	struct sem_report rep = {.v0 = -1, .child_read = -1};
	pid_t a;

	if (unshare(CLONE_NEWPID) < 0)
		sem_fail(fd, &rep, STEP_UNSHARE, errno);
	a = fork();
	if (a < 0)
		sem_fail(fd, &rep, STEP_FORK, errno);
	if (a == 0)
		sem_outer(fd, caller);
	(void)close(fd);
	while (waitpid(a, NULL, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

_printf_(2, 3) static int detail(char **ret_detail, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!ret_detail)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(ret_detail, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*ret_detail = NULL;
		return -ENOMEM;
	}
	return 0;
}

int nsexec_probe_semantics(enum nsexec_semantics *ret, char **ret_detail)
{
	_cleanup_close_ int rfd = -EBADF, wfd = -EBADF;
	struct sem_report rep = {};
	struct nsexec_ns_id caller;
	int pipefd[2], r;
	size_t got = 0;
	bool follows, copies;
	pid_t pid;

	if (!ret)
		return -EINVAL;

	if (access(NSEXEC_SYSCTL_PATH, F_OK) < 0 && errno == ENOENT) {
		*ret = NSEXEC_SEMANTICS_ABSENT;
		return detail(ret_detail, "no /proc/sys/vm/memfd_noexec");
	}

	r = nsexec_ns_id_of_path("/proc/thread-self/ns/pid", &caller);
	if (r < 0)
		r = nsexec_ns_id_of_path("/proc/self/ns/pid", &caller);
	if (r < 0)
		return r;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return negative_errno();
	rfd = pipefd[0];
	wfd = pipefd[1];

	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		(void)close(rfd);
		sem_creator(wfd, &caller);
	}
	wfd = safe_close(wfd);

	got = read_up_to(rfd, &rep, sizeof(rep));
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;

	*ret = NSEXEC_SEMANTICS_UNKNOWN;
	if (got != sizeof(rep))
		return detail(ret_detail, "probe process ended without "
					  "reporting");

	switch (rep.stage) {
	case SEM_NOPRIV:
		return detail(ret_detail, "no privilege: cannot %s: %s",
			      step_name(rep.step), strerror(rep.err));
	case SEM_NOSYSCTL:
		*ret = NSEXEC_SEMANTICS_ABSENT;
		return detail(ret_detail, "no /proc/sys/vm/memfd_noexec in a "
					  "new PID namespace");
	case SEM_MAXED:
		return detail(ret_detail, "the level here is already 2, which "
					  "leaves nothing to raise in a "
					  "throwaway namespace");
	case SEM_ERROR:
		return detail(ret_detail, "probe failed to %s: %s",
			      step_name(rep.step), strerror(rep.err));
	case SEM_DONE:
		break;
	default:
		return detail(ret_detail, "probe sent an unknown report");
	}

	follows = rep.child_read == rep.v0 + 1;
	copies = rep.child_read == rep.v0;
	if (follows && rep.lower_err == 0) {
		*ret = NSEXEC_SEMANTICS_HIERARCHY;
		return detail(ret_detail,
			      "a child namespace followed its parent from %d "
			      "to %d; the parent could lower its own value "
			      "back to %d",
			      rep.v0, rep.v0 + 1, rep.v0);
	}
	if (copies && rep.lower_err == EINVAL) {
		*ret = NSEXEC_SEMANTICS_RATCHET;
		return detail(ret_detail,
			      "a child namespace kept the %d it copied when "
			      "its parent went to %d; lowering it back was "
			      "refused (EINVAL)",
			      rep.v0, rep.v0 + 1);
	}
	return detail(ret_detail,
		      "inconsistent results: inherited %d, raised to %d, "
		      "the child read %d, lowering back gave %s",
		      rep.v0, rep.v0 + 1, rep.child_read,
		      rep.lower_err ? strerror(rep.lower_err) : "success");
}
