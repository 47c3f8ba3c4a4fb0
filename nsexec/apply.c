/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec_apply_memfd_noexec(): the rules of nsexec.h.  helper.c does the
 * reading and writing from inside the namespace; this file decides what
 * may be read or written, and says why when it refuses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "macro.h"
#include "missing-syscall.h"
#include "parse.h"
#include "nsexec.h"
#include "pidns.h"
#include "memfd-sysctl.h"
#include "service.h"

#define NO_SYSCTL \
	"this kernel lacks /proc/sys/vm/memfd_noexec (it needs Linux 6.3 or later, with CONFIG_PID_NS). The request cannot be honoured, so creation fails closed; remove the memfd_noexec annotation to run without it"

/* The kernel's PID_MAX_LIMIT on 64-bit, and its deepest PID namespace
 * (MAX_PID_NS_LEVEL, 32, below the initial one). */
#define PID_MAX_LIMIT 4194304
#define MT_MAX_PIDNS_LEVEL 32

struct target {
	pid_t pid;
	int pidfd;  /* pidfd_open(), or -EBADF (before 5.3) */
	int nsfd;   /* its PID namespace, or -EBADF when it cannot be opened
		     * from here (then setns() goes through the pidfd) */
	int parent; /* NS_GET_PARENT of nsfd, or -EBADF */
	int given;  /* the namespace the runtime passed, or -EBADF */
	bool have_id, below, joined;
	struct nsexec_ns_id id, self, init;
	bool have_init;
};

static void target_done(struct target *t)
{
	t->pidfd = safe_close(t->pidfd);
	t->nsfd = safe_close(t->nsfd);
	t->parent = safe_close(t->parent);
	t->given = safe_close(t->given);
}

/* ---- finding the target's namespace ------------------------------------- */

/*
 * Whether t->given is the ACTIVE PID namespace of t->pidfd's process, by
 * what the kernel says of that process rather than by what sent the fd
 * (which opened /proc/self/ns/pid in whatever mount namespace it was in,
 * one the container may have shaped): the pidfd's NSpid (its PID in each
 * namespace from ours down to its own, k entries, read through our own
 * procfs) ends in the PID that NS_GET_PID_IN_PIDNS gives for it in the
 * given namespace, and that namespace lies exactly k - 1 levels below
 * ours.  A process is visible only in its own namespace and the ones above
 * it, one per level, so that pins it down.  The pidfd is alive afterwards,
 * so the PID never named another process meanwhile.  0 if it is;
 * -EXDEV if not; -ENOTTY without the ioctl; -ESRCH if the process exited;
 * -EOPNOTSUPP if /proc is not ours or there is no pidfd; or -errno.
 */
static int given_ns_is_active(const struct target *t)
{
	struct nsexec_ns_id self, id;
	char buf[4096];
	const char *p, *end;
	int nspid[MT_MAX_PIDNS_LEVEL + 1];
	int k = 0, n, r;
	_cleanup_close_ int cur = -EBADF;

	if (t->pidfd < 0 || nsexec_procfs_is_ours() != 1)
		return -EOPNOTSUPP;
	r = read_fdinfo_field(t->pidfd, "NSpid", buf, sizeof(buf), &p);
	if (r < 0)
		return r == -ENODATA ? -EOPNOTSUPP : r;
	/* "-1": it has exited. */
	if (p[strspn(p, " \t")] == '-')
		return -ESRCH;
	for (;;) {
		p += strspn(p, " \t");
		if (*p == '\n' || *p == '\0')
			break;
		if (k > MT_MAX_PIDNS_LEVEL || mt_parse_int(p, PID_MAX_LIMIT, &nspid[k], &end) < 0)
			return -EBADMSG;
		k++;
		p = end;
	}
	/* The first entry is our view of it. */
	if (k == 0 || nspid[0] <= 0)
		return -ESRCH;
	if (nspid[0] != t->pid)
		return -EXDEV;
	n = ioctl(t->given, NS_GET_PID_IN_PIDNS, (unsigned long)t->pid);
	if (n < 0)
		return errno == ESRCH ? -EXDEV : negative_errno();
	if (n != nspid[k - 1])
		return -EXDEV;
	cur = fcntl(t->given, F_DUPFD_CLOEXEC, 3);
	if (cur < 0)
		return negative_errno();
	for (int level = k - 1; level > 0; level--) {
		int parent = ioctl(cur, NS_GET_PARENT);

		/* EPERM: it left our subtree before reaching ours. */
		if (parent < 0)
			return errno == EPERM ? -EXDEV : negative_errno();
		safe_close(cur);
		cur = parent;
	}
	r = nsexec_ns_id_self(&self);
	if (r < 0)
		return r;
	r = nsexec_ns_id_of_fd(cur, &id);
	if (r < 0)
		return r;
	if (!nsexec_ns_id_equal(&id, &self))
		return -EXDEV;
	r = nsexec_pidfd_pid(t->pidfd);
	if (r < 0)
		return r;
	return r == t->pid ? 0 : -ESRCH;
}

/*
 * The namespace the runtime passed (nsexec_apply_memfd_noexec_ns()): used
 * only where ours cannot be opened, and only if it is a PID namespace.
 * Where ours can, the two must be the same.
 */
static int target_given_ns(struct target *t, int ours, struct mt_error **err)
{
	struct nsexec_ns_id a, b;
	int r;

	if (ours >= 0) {
		if (nsexec_ns_id_of_fd(ours, &a) < 0 || nsexec_ns_id_of_fd(t->given, &b) < 0 ||
		    !nsexec_ns_id_equal(&a, &b)) {
			safe_close(ours);
			return mt_error_set(
				err, -EXDEV,
				"Refusing vm.memfd_noexec for process %d: the PID namespace passed for it is not the one it is in.",
				(int)t->pid);
		}
		t->nsfd = ours;
		return 0;
	}
	r = ioctl(t->given, NS_GET_NSTYPE);
	if (r != CLONE_NEWPID)
		return mt_error_set(
			err, -EINVAL,
			"Refusing vm.memfd_noexec for process %d: the namespace fd passed for it is not a PID namespace.",
			(int)t->pid);
	r = given_ns_is_active(t);
	if (r < 0)
		return mt_error_set(
			err, r == -ESRCH ? r : -EXDEV,
			"Refusing vm.memfd_noexec for process %d: the PID namespace passed for it could not be proved to be the one the kernel says it is in (%s). The container's process opened it through whatever /proc its mount namespace showed, so it is not trusted on its word.",
			(int)t->pid,
			r == -EXDEV ? "it is another namespace"
			: r == -ENOTTY
				? "this kernel cannot translate a PID into a namespace (NS_GET_PID_IN_PIDNS)"
				: strerror(-r));
	t->nsfd = fcntl(t->given, F_DUPFD_CLOEXEC, 3);
	if (t->nsfd < 0)
		return mt_error_set(err, negative_errno(),
				    "Failed to duplicate the namespace fd: %m");
	return 0;
}

/*
 * The PID is the caller's view, which /proc shows only if procfs belongs to
 * the caller's PID namespace (not so after a bare `unshare --pid --fork`).
 * So: pidfd_open() (the caller's view, always), then the namespace from
 * the pidfd or /proc (nsexec_pidns_of_pidfd()), else none: setns() then
 * goes through the pidfd (5.8+) and the writer's own check is what refuses.
 * A non-dumpable target's namespace cannot be opened by an unprivileged
 * caller (EACCES); then only one the runtime passed will do.
 */
static int target_open_ns(struct target *t, struct mt_error **err)
{
	int r;

	if (t->pidfd < 0)
		t->pidfd = missing_pidfd_open(t->pid, 0);
	if (t->pidfd < 0) {
		r = negative_errno();
		if (r == -ESRCH)
			return mt_error_set(err, r, "Failed to find process %d: no such process",
					    (int)t->pid);
		if (r != -ENOSYS)
			return mt_error_set(err, r, "Failed to open a pidfd for process %d: %s",
					    (int)t->pid, strerror(-r));
		t->pidfd = -EBADF;
	}
	r = nsexec_pidns_of_pidfd(t->pidfd, t->pid, true, NULL);
	if (t->given >= 0 && (r >= 0 || r == -EACCES || r == -EPERM))
		return target_given_ns(t, r, err);
	if (r >= 0) {
		t->nsfd = r;
		return 0;
	}
	if (r == -EOPNOTSUPP && t->pidfd >= 0)
		return 0;
	if (r == -EOPNOTSUPP)
		return mt_error_set(
			err, r,
			"Failed to find the PID namespace of process %d: /proc belongs to another PID namespace and the kernel has no pidfds.",
			(int)t->pid);
	if (r == -ESRCH)
		return mt_error_set(err, r, "Failed to find process %d: it has exited",
				    (int)t->pid);
	return mt_error_set(
		err, r, "Failed to open the PID namespace of process %d: %s%s", (int)t->pid,
		strerror(-r),
		r == -EACCES || r == -EPERM
			? " (it is not dumpable; the runtime must pass the namespace, see nsexec_apply_memfd_noexec_ns())"
			: "");
}

static int target_open(pid_t pid, struct target *t, struct mt_error **err)
{
	int r;

	t->pid = pid;
	r = target_open_ns(t, err);
	if (r < 0)
		return r;
	r = nsexec_ns_id_self(&t->self);
	if (r < 0)
		return mt_error_set(err, r,
				    "Failed to find our own PID namespace (/proc/self/ns/pid): %s",
				    strerror(-r));
	/* /proc/1 may be unreadable (a non-dumpable init) or another
	 * namespace's; the inode constant and NS_GET_PARENT still hold. */
	t->have_init = nsexec_ns_id_of_path("/proc/1/ns/pid", &t->init) >= 0;
	if (t->nsfd < 0)
		return 0;
	r = nsexec_ns_id_of_fd(t->nsfd, &t->id);
	if (r < 0)
		return mt_error_set(err, r, "Failed to stat the PID namespace of process %d: %s",
				    (int)pid, strerror(-r));
	t->have_id = t->id.nsfs;
	/* Strictly below ours: NS_GET_PARENT fails with EPERM for our own
	 * namespace and for anything outside our subtree. */
	t->parent = ioctl(t->nsfd, NS_GET_PARENT);
	t->below = t->parent >= 0;
	if (t->parent < 0)
		t->parent = -EBADF;
	return 0;
}

/* ---- which rule applies ------------------------------------------------- */

static int target_origin(struct target *t, const struct nsexec_request *req, struct mt_error **err)
{
	int r;

	if (req->origin != NSEXEC_ORIGIN_FIND_OUT) {
		t->joined = req->origin == NSEXEC_ORIGIN_JOINED;
		return 0;
	}
	r = nsexec_pid_is_ns_init(t->pid, t->pidfd);
	if (r < 0)
		return mt_error_set(
			err, r == -ESRCH ? r : -EOPNOTSUPP,
			"Refusing vm.memfd_noexec=%d for process %d: cannot tell whether its PID namespace was created for it or only joined (%s). Run the hook where /proc shows the container's process.",
			req->level, (int)t->pid, strerror(-r));
	t->joined = r == 0;
	return 0;
}

/* A namespace created for the target must be below ours, never the host's,
 * ours or that of our /proc's init. */
static int check_created(const struct target *t, int level, struct mt_error **err)
{
	const char *which = NULL;

	if (!t->have_id)
		return 0; /* the writer's guard decides */
	if (nsexec_ns_id_is_initial_pid(&t->id))
		which = "the initial PID namespace, whose value is the host's";
	else if (nsexec_ns_id_equal(&t->id, &t->self))
		which = "the caller's own PID namespace, so the change would apply to the caller and its parent environment too";
	else if (t->have_init && nsexec_ns_id_equal(&t->id, &t->init))
		which = "the PID namespace of /proc/1 (this procfs's init)";
	else if (!t->below)
		which = "a PID namespace that is not below the caller's, so it may be an ancestor's";
	if (!which)
		return 0;
	return mt_error_set(
		err, -EEXIST,
		"Refusing to set vm.memfd_noexec=%d for process %d: it is in %s. The container needs a PID namespace of its own (\"linux\": {\"namespaces\": [{\"type\": \"pid\"}]}).",
		level, (int)t->pid, which);
}

/* ---- reading a namespace's level ---------------------------------------- */

/* The effective level of the namespace at fd, or of ours; or -errno.  A
 * rootless caller enters as the owner of the namespace's user namespace. */
static int level_in(int fd, bool ours)
{
	_cleanup_close_ int user_fd = -EBADF;
	struct nsexec_report rep = {};
	struct nsexec_ns_id id;
	char how[96];
	int r;

	if (ours)
		return mt_memfd_noexec_read();
	if (fd < 0)
		return -EOPNOTSUPP;
	r = nsexec_ns_id_of_fd(fd, &id);
	if (r < 0)
		return r;
	user_fd = ioctl(fd, NS_GET_USERNS);
	r = nsexec_in_pidns(fd, user_fd, -1, &id, NULL, 0, &rep, how, sizeof(how));
	if (r < 0)
		return r;
	return rep.stage == NSEXEC_STAGE_DONE ? rep.before : -rep.err;
}

static int read_level(const struct target *t, struct mt_error **err)
{
	bool ours = t->have_id && nsexec_ns_id_equal(&t->id, &t->self);
	int r = level_in(t->nsfd, ours);

	if (r == -ENOENT)
		return mt_error_set(err, r,
				    "Failed to read vm.memfd_noexec for process %d: " NO_SYSCTL,
				    (int)t->pid);
	if (r < 0)
		return mt_error_set(
			err, r,
			"Failed to read vm.memfd_noexec in the PID namespace pid:[%lu] of process %d: %s",
			(unsigned long)t->id.ino, (int)t->pid, strerror(-r));
	return r;
}

/* "the initial PID namespace (the host's), pid:[4026531836]", ... */
static const char *ns_label(const struct target *t, char *buf, size_t size)
{
	const char *what = "the existing PID namespace";

	if (t->have_id && nsexec_ns_id_is_initial_pid(&t->id))
		what = "the initial PID namespace (the host's)";
	else if (t->have_id && nsexec_ns_id_equal(&t->id, &t->self))
		what = "the PID namespace of the caller (the runtime)";
	(void)snprintf(buf, size, "%s, pid:[%lu]", what, (unsigned long)t->id.ino);
	return buf;
}

/* A namespace the target only joined: read it, never write it. */
static int check_joined(const struct target *t, int level, struct nsexec_result *ret,
			struct mt_error **err)
{
	bool ours = t->have_id && nsexec_ns_id_equal(&t->id, &t->self);
	char label[128];
	int have;

	if (!ours && (!t->have_id || !t->below))
		return mt_error_set(
			err, -EOPNOTSUPP,
			"Refusing vm.memfd_noexec=%d for process %d: it joins a PID namespace that is not ours nor below ours, whose level cannot be read from here.",
			level, (int)t->pid);
	have = read_level(t, err);
	if (have < 0)
		return have;
	if (have < level)
		return mt_error_set(
			err, -EPERM,
			"Refusing vm.memfd_noexec=%d for process %d: it joins %s, which is at level %d. A namespace that the container only joins is never changed, since every process in it would change too. Raise the level where that namespace is created (the container or pod that owns it), or remove the request.",
			level, (int)t->pid, ns_label(t, label, sizeof(label)), have);
	*ret = (struct nsexec_result){
		.requested = level,
		.before = have,
		.after = have,
		.kept = have > level,
		.joined = true,
		.ino = (unsigned long)t->id.ino,
	};
	return 0;
}

/* What the target's namespace could be lowered to: its parent's level (0
 * for the initial namespace, which has none). */
static int parent_level_of(const struct target *t, struct mt_error **err)
{
	struct nsexec_ns_id id;
	int r;

	if (t->have_id && nsexec_ns_id_is_initial_pid(&t->id))
		return 0;
	r = level_in(t->parent, t->parent >= 0 && nsexec_ns_id_of_fd(t->parent, &id) == 0 &&
					nsexec_ns_id_equal(&id, &t->self));
	if (r < 0)
		return mt_error_set(
			err, r,
			"Refusing vm.memfd_noexec for process %d: it keeps CAP_SYS_ADMIN without a user namespace, and the level of its PID namespace's parent cannot be read from here (%s).",
			(int)t->pid, strerror(-r));
	return r;
}

/*
 * A container that keeps CAP_SYS_ADMIN in the initial user namespace may
 * remount /proc/sys and lower its namespace's own value down to its
 * parent's: the request only holds if the parent already enforces it.
 */
static int check_sys_admin(const struct target *t, const struct nsexec_request *req,
			   struct mt_error **err)
{
	int r, parent_level;

	if (!req->keeps_sys_admin || req->level == 0)
		return 0;
	r = nsexec_pid_maps_global_root(t->pid, t->pidfd);
	if (r < 0)
		return mt_error_set(
			err, r == -ESRCH ? r : -EOPNOTSUPP,
			"Refusing vm.memfd_noexec=%d for process %d: it keeps CAP_SYS_ADMIN, and whether its user namespace maps global root cannot be told here (%s).",
			req->level, (int)t->pid, strerror(-r));
	if (r == 0)
		return 0; /* its root is not global root: EACCES, checked */
	parent_level = parent_level_of(t, err);
	if (parent_level < 0)
		return parent_level;
	if (parent_level >= req->level)
		return 0;
	return mt_error_set(
		err, -EPERM,
		"Refusing vm.memfd_noexec=%d for process %d: the container keeps CAP_SYS_ADMIN in its bounding set and has no user namespace (or one that maps global root), so it could remount /proc/sys read-write and lower the value again, down to its parent's %d. Drop CAP_SYS_ADMIN from process.capabilities.bounding, or give the container a user namespace that does not map root to root (then the kernel refuses its writes).",
		req->level, (int)t->pid, parent_level);
}

/* ---- raising a namespace created for the target ------------------------- */

static int explain_write(const struct target *t, int level, const struct nsexec_report *rep,
			 struct mt_error **err)
{
	int e = rep->err;

	if ((e == EACCES || e == EPERM) && rep->before >= 0)
		return mt_error_set(
			err, -e,
			"Failed to set vm.memfd_noexec=%d in the PID namespace of process %d: %s. Only global root (euid 0 in the initial user namespace, with CAP_SYS_ADMIN over the namespace's owner) may write it, so rootless runtimes cannot set it; a rootless container inherits the level of the PID namespace it starts in, which is %d here. To get %d, set it as root in a parent PID namespace (for example, start the rootless runtime under `memfd-noexec run --level %d --`), run the runtime as root, or remove the request.",
			level, (int)t->pid, strerror(e), rep->before, level, level);
	return mt_error_set(
		err, -e,
		"Failed to write vm.memfd_noexec=%d in the PID namespace of process %d: %s", level,
		(int)t->pid, strerror(e));
}

static int explain(const struct target *t, int level, const struct nsexec_report *rep,
		   struct mt_error **err)
{
	int e = rep->err;

	switch (rep->stage) {
	case NSEXEC_STAGE_SETNS:
		return mt_error_set(
			err, -e, "Failed to join the PID namespace of process %d: %s%s",
			(int)t->pid, strerror(e),
			e == EPERM
				? " (joining needs CAP_SYS_ADMIN over the user namespace that owns it)"
				: "");
	case NSEXEC_STAGE_FORK:
		return mt_error_set(
			err, -e, "Failed to fork into the PID namespace of process %d: %s%s",
			(int)t->pid, strerror(e),
			e == ENOMEM ? " (has the namespace's init process exited?)" : "");
	case NSEXEC_STAGE_GUARD:
		return mt_error_set(
			err, e == EEXIST ? -EEXIST : -e,
			"Refusing to set vm.memfd_noexec: the writer found itself in the initial PID namespace, or in the caller's (%s); the host's value is never changed.",
			strerror(e));
	case NSEXEC_STAGE_READ:
	case NSEXEC_STAGE_REREAD:
		if (e == ENOENT)
			return mt_error_set(err, -ENOENT,
					    "Failed to set vm.memfd_noexec=%d: " NO_SYSCTL, level);
		return mt_error_set(
			err, -e,
			"Failed to read /proc/sys/vm/memfd_noexec in the PID namespace of process %d: %s",
			(int)t->pid, strerror(e));
	case NSEXEC_STAGE_OPEN:
	case NSEXEC_STAGE_WRITE:
		return explain_write(t, level, rep, err);
	default:
		return mt_error_set(
			err, -EPROTO,
			"Failed to set vm.memfd_noexec: the helper process sent an unknown report (stage %d)",
			rep->stage);
	}
}

/*
 * Joining was refused (EPERM): the rootless case, where writing would be
 * refused too.  Read the level as the namespace's owner instead: if it
 * already meets the request, rep says so (nothing written); if not, rep
 * becomes the refused write, with the level that is there.
 */
static void rootless_read(const struct target *t, int level, struct nsexec_report *rep)
{
	int r = level_in(t->nsfd, false);

	if (r < 0)
		return;
	*rep = (struct nsexec_report){.before = r, .after = r};
	rep->stage = r >= level ? NSEXEC_STAGE_DONE : NSEXEC_STAGE_WRITE;
	rep->err = r >= level ? 0 : EPERM;
}

/* The write was refused for want of privilege (rootless). */
static bool needs_privilege(const struct nsexec_report *rep)
{
	return (rep->stage == NSEXEC_STAGE_OPEN || rep->stage == NSEXEC_STAGE_WRITE) &&
	       (rep->err == EACCES || rep->err == EPERM) && rep->before >= 0;
}

/*
 * Rootless: ask the memfd-noexec service, then read the level back
 * ourselves, as the namespace's owner: its answer is never trusted alone.
 */
static int raise_by_service(const struct target *t, const struct nsexec_request *req,
			    const struct nsexec_report *rep, struct nsexec_result *ret,
			    struct mt_error **err)
{
	_cleanup_error_ struct mt_error *base = NULL, *why = NULL;
	int got = -1, have, r;

	r = explain_write(t, req->level, rep, &base);
	if (t->pidfd < 0 || (req->service_socket && !*req->service_socket))
		return mt_error_set(err, r, "%s", mt_error_message(base));
	r = nsexec_service_raise(req->service_socket, t->pidfd, req->level, &got, &why);
	if (r < 0)
		return mt_error_set(err, r, "%s %s.", mt_error_message(base),
				    mt_error_message(why));
	have = level_in(t->nsfd, false);
	if (have < req->level)
		return mt_error_set(
			err, have < 0 ? have : -EIO,
			"Failed to set vm.memfd_noexec=%d in the PID namespace of process %d: the memfd-noexec service answered %d, but it reads %d (%s); refusing to go on.",
			req->level, (int)t->pid, got, have, have < 0 ? strerror(-have) : "too low");
	*ret = (struct nsexec_result){
		.requested = req->level,
		.before = rep->before,
		.after = have,
		.written = r == 0,
		.kept = have > req->level,
		.ino = (unsigned long)t->id.ino,
	};
	return 0;
}

static int raise_created(const struct target *t, const struct nsexec_request *req,
			 struct nsexec_result *ret, struct mt_error **err)
{
	int level = req->level;
	const struct nsexec_ns_id forbidden[2] = {t->self, t->init};
	struct nsexec_report rep = {};
	char how[96];
	int r;

	r = nsexec_in_pidns(t->nsfd >= 0 ? t->nsfd : t->pidfd, -1, level,
			    t->have_id ? &t->id : NULL, forbidden, t->have_init ? 2 : 1, &rep, how,
			    sizeof(how));
	if (r == 0 && rep.stage == NSEXEC_STAGE_SETNS && rep.err == EPERM)
		/* Not allowed in (rootless): read it as the owner instead;
		 * enough if it already meets the level. */
		rootless_read(t, level, &rep);
	if (r == -EPROTO)
		return mt_error_set(
			err, r,
			"Failed to set vm.memfd_noexec in the PID namespace of process %d: the helper process %s without reporting (has the namespace's init process exited?)",
			(int)t->pid, how);
	if (r < 0)
		return mt_error_set(err, r, "Failed to start a helper process: %s", strerror(-r));
	if (needs_privilege(&rep))
		return raise_by_service(t, req, &rep, ret, err);
	if (rep.stage != NSEXEC_STAGE_DONE)
		return explain(t, level, &rep, err);
	if (rep.after < level && rep.write_err == EINVAL)
		return mt_error_set(
			err, -EINVAL,
			"Failed to set vm.memfd_noexec=%d in the PID namespace of process %d: the kernel refused the value (EINVAL) and it still reads %d.",
			level, (int)t->pid, rep.after);
	if (rep.after < level)
		return mt_error_set(
			err, -EIO,
			"Failed to set vm.memfd_noexec=%d in the PID namespace of process %d: it reads %d after the write; refusing to go on (fails closed).",
			level, (int)t->pid, rep.after);
	*ret = (struct nsexec_result){
		.requested = level,
		.before = rep.before,
		.after = rep.after,
		.written = rep.written,
		.kept = rep.after > level,
		.ino = (unsigned long)t->id.ino,
	};
	return 0;
}

int nsexec_read_memfd_noexec(int ns_fd)
{
	return level_in(ns_fd, false);
}

int nsexec_check_exec_sys_admin(pid_t target, int level, bool keeps_sys_admin,
				struct mt_error **err)
{
	_cleanup_(target_done) struct target t = {
		.pidfd = -EBADF, .nsfd = -EBADF, .parent = -EBADF, .given = -EBADF};
	int r, parent_level;

	if (!keeps_sys_admin || level <= 0)
		return 0;
	if (level > 2)
		return mt_error_set(err, -EINVAL,
				    "Refusing vm.memfd_noexec=%d: allowed values are 0, 1 or 2.",
				    level);
	if (target <= 0)
		return mt_error_set(err, -EINVAL, "Refusing process ID %d.", (int)target);
	/* Its root is not global root: the kernel refuses its writes.  An
	 * unprivileged caller may not look (a non-dumpable init), but could
	 * not join a container whose user namespace maps global root either:
	 * that takes CAP_SYS_ADMIN over the initial user namespace. */
	r = nsexec_pid_maps_global_root(target, -EBADF);
	if (r == 0 || ((r == -EACCES || r == -EPERM) && geteuid() != 0))
		return 0;
	if (r < 0)
		return mt_error_set(
			err, r == -ESRCH ? r : -EOPNOTSUPP,
			"Refusing to add a process that keeps CAP_SYS_ADMIN to the container of process %d, which asked for vm.memfd_noexec=%d: whether its user namespace maps global root cannot be told here (%s).",
			(int)target, level, strerror(-r));
	r = target_open(target, &t, err);
	if (r < 0)
		return r;
	parent_level = parent_level_of(&t, err);
	if (parent_level < 0)
		return parent_level;
	if (parent_level >= level)
		return 0;
	return mt_error_set(
		err, -EPERM,
		"Refusing to add a process that keeps CAP_SYS_ADMIN in its bounding set to the container of process %d: the container asked for vm.memfd_noexec=%d and has no user namespace of its own (or one that maps global root), so that process could remount /proc/sys read-write and lower the level again, down to its parent's %d; the container's creation refuses CAP_SYS_ADMIN by the same rule. Leave CAP_SYS_ADMIN out of the process's capabilities (e.g. no --cap CAP_SYS_ADMIN, no CAP_SYS_ADMIN in process.capabilities.bounding).",
		(int)target, level, parent_level);
}

static int apply(struct target *t, pid_t target, const struct nsexec_request *req,
		 struct nsexec_result *ret, struct mt_error **err);

int nsexec_apply_memfd_noexec(pid_t target, const struct nsexec_request *req,
			      struct nsexec_result *ret, struct mt_error **err)
{
	_cleanup_(target_done) struct target t = {
		.pidfd = -EBADF, .nsfd = -EBADF, .parent = -EBADF, .given = -EBADF};

	return apply(&t, target, req, ret, err);
}

int nsexec_apply_memfd_noexec_ns(pid_t target, int ns_fd, const struct nsexec_request *req,
				 struct nsexec_result *ret, struct mt_error **err)
{
	_cleanup_(target_done) struct target t = {
		.pidfd = -EBADF, .nsfd = -EBADF, .parent = -EBADF, .given = -EBADF};

	if (ns_fd < 0)
		return mt_error_set(err, -EBADF, "Refusing a PID namespace fd of %d.", ns_fd);
	t.given = fcntl(ns_fd, F_DUPFD_CLOEXEC, 3);
	if (t.given < 0)
		return mt_error_set(err, negative_errno(),
				    "Failed to duplicate the namespace fd: %m");
	return apply(&t, target, req, ret, err);
}

int nsexec_apply_memfd_noexec_pidfd(int pidfd, const struct nsexec_request *req,
				    struct nsexec_result *ret, struct mt_error **err)
{
	_cleanup_(target_done) struct target t = {
		.pidfd = -EBADF, .nsfd = -EBADF, .parent = -EBADF, .given = -EBADF};
	pid_t pid = nsexec_pidfd_pid(pidfd);

	if (pid < 0)
		return mt_error_set(err, pid, "Refusing the process given by its pidfd: %s",
				    pid == -ESRCH
					    ? "it has exited"
					    : "not a pidfd of a process in our PID namespace");
	t.pidfd = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
	if (t.pidfd < 0)
		return mt_error_set(err, negative_errno(), "Failed to duplicate the pidfd: %m");
	return apply(&t, pid, req, ret, err);
}

static int apply(struct target *t, pid_t target, const struct nsexec_request *req,
		 struct nsexec_result *ret, struct mt_error **err)
{
	int r;

	if (!req || req->level < 0 || req->level > 2)
		return mt_error_set(err, -EINVAL,
				    "Refusing vm.memfd_noexec=%d: allowed values are 0, 1 or 2.",
				    req ? req->level : -1);
	if (target <= 0)
		return mt_error_set(err, -EINVAL, "Refusing process ID %d.", (int)target);

	r = target_open(target, t, err);
	if (r < 0)
		return r;
	r = target_origin(t, req, err);
	if (r < 0)
		return r;
	if (!t->joined) {
		r = check_created(t, req->level, err);
		if (r < 0)
			return r;
	}
	r = check_sys_admin(t, req, err);
	if (r < 0)
		return r;
	if (t->joined)
		return check_joined(t, req->level, ret, err);
	return raise_created(t, req, ret, err);
}
