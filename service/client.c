/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who the client is (its pidfd, the user it counts against, the
 * allow-list), and the three rules of memfd-service.h before a raise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "missing-syscall.h"
#include "nsexec.h"
#include "service-internal.h"

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
int client_allowed(const struct service_config *cfg, const struct conn *c)
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
 * namespaces that its own uid created.  The user it counts against may
 * then be the other process's too: that race costs fairness, never a
 * wrong raise.
 */
static int client_pidfd(const struct server *s, const struct conn *c)
{
	socklen_t len = sizeof(int);
	int fd = -EBADF;

	if (s->cfg->use_peerpidfd) {
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
	service_log(s, SERVICE_LOG_DEBUG, "using pidfd_open for the client");
	if (c->pid <= 0)
		return -ESRCH; /* not in our PID namespace, or none */
	fd = missing_pidfd_open(c->pid, 0);
	return fd < 0 ? negative_errno() : fd;
}

int service_user_of_client(int pidfd, pid_t pid, uid_t peer_uid, bool use_ioctl, uid_t *ret,
			   bool *ret_by_proc)
{
	_cleanup_close_ int fd = nsexec_userns_of_pidfd(pidfd, pid, use_ioctl, ret_by_proc);
	bool top = false;
	uid_t owner;
	int r;

	if (fd < 0)
		return fd;
	r = nsexec_userns_top_owner(fd, &owner, &top);
	if (r < 0)
		return r;
	*ret = top ? owner : peer_uid;
	return 0;
}

int client_identify(const struct server *s, struct conn *c, struct mt_error **e)
{
	bool by_proc = false;
	int r;

	c->pidfd = client_pidfd(s, c);
	if (c->pidfd == -ESRCH)
		return mt_error_set(e, -ESRCH, "the client (pid %d) exited right after connecting",
				    (int)c->pid);
	if (c->pidfd < 0)
		return mt_error_set(e, c->pidfd, "Failed to open a pidfd of the client: %s",
				    strerror(-c->pidfd));
	r = service_user_of_client(c->pidfd, c->pid, c->uid, s->cfg->use_pidfd_ns, &c->user,
				   &by_proc);
	if (r == -ESRCH)
		return mt_error_set(
			e, r, "the client (pid %d) exited before its user namespace could be read",
			(int)c->pid);
	if (r < 0)
		return mt_error_set(e, r, "Failed to find who owns the client's user namespace: %s",
				    strerror(-r));
	if (by_proc)
		service_log(s, SERVICE_LOG_DEBUG, "using /proc for a user namespace");
	return 0;
}

/* ---- PID namespaces ----------------------------------------------------- */

/* The PID namespace of the process pidfd refers to (PID pid here); see
 * nsexec_pidns_of_pidfd(). */
static int ns_of_pidfd(const struct server *s, int pidfd, pid_t pid)
{
	bool by_proc = false;
	int fd = nsexec_pidns_of_pidfd(pidfd, pid, s->cfg->use_pidfd_ns, &by_proc);

	if (fd >= 0 && by_proc)
		service_log(s, SERVICE_LOG_DEBUG, "using /proc for a PID namespace");
	return fd;
}

/* ---- the checks --------------------------------------------------------- */

/* The attached fd must be a pidfd of a live process: its PID namespace. */
static int open_target_ns(const struct server *s, int pidfd, struct mt_error **e)
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
	fd = ns_of_pidfd(s, pidfd, pid);
	if (fd < 0)
		return mt_error_set(e, fd,
				    "Failed to find the PID namespace of the target (pid %d): %s",
				    (int)pid, fd == -ESRCH ? "it has exited" : strerror(-fd));
	return fd;
}

/* The client's PID namespace, through the pidfd taken when it connected. */
static int open_client_ns(const struct server *s, const struct conn *c, struct mt_error **e)
{
	int fd = ns_of_pidfd(s, c->pidfd, c->pid);

	if (fd == -ESRCH)
		return mt_error_set(
			e, fd, "the client (pid %d) exited before its PID namespace could be read",
			(int)c->pid);
	if (fd < 0)
		return mt_error_set(e, fd, "Failed to find the client's PID namespace: %s",
				    strerror(-fd));
	return fd;
}

/* Rules 1 and 2 (memfd-service.h). */
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

/* Rule 3 (memfd-service.h). */
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

int raise_target(const struct server *s, const struct conn *c, int pidfd, struct outcome *o,
		 struct mt_error **e)
{
	struct nsexec_request req = {.level = o->level, .origin = NSEXEC_ORIGIN_CREATED};
	_cleanup_close_ int tfd = -EBADF, cfd = -EBADF;
	struct nsexec_result res;
	int r;

	tfd = open_target_ns(s, pidfd, e);
	if (tfd < 0)
		return tfd;
	cfd = open_client_ns(s, c, e);
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
