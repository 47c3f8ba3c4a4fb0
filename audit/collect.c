/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: collection.  Reads /proc, and nothing else, into
 * struct audit: per process its memfds (by dev and inode) and how it uses
 * each, per PID namespace its level.
 *
 * What /proc can show of a running process: whether it runs from a memfd
 * (/proc/PID/exe is "/memfd:NAME (deleted)"), which memfds it maps
 * executable (/proc/PID/maps), which it holds open (/proc/PID/fd), and each
 * memfd's mode and seals, through an fd of it (/proc/PID/exe opens the
 * file; /proc/PID/fd/N; or, with CAP_SYS_ADMIN in the initial user
 * namespace, /proc/PID/map_files).
 *
 * Cost: each process's fd table is read once and its maps once, streamed
 * line by line (no size cap: a process cannot make itself unreadable by
 * mapping much), into one list of memfds sorted by (dev, inode); each
 * memfd's mode and seals are read once, whatever its number of mappings
 * and fds.  So an audit is O(n log n) in fds and mappings.
 *
 * No fd is kept open from one process to the next: a PID namespace's
 * level is read when its first process is seen, through that process's
 * ns/pid opened for the read and closed after it.  The level is read as
 * the kernel reads it: by a task whose active PID namespace it is.  For
 * the auditor's own namespace that is a plain read; for another, a child
 * setns()es into it (which only moves its future children) and forks the
 * reader, which checks where it is and reads /proc/sys/vm/memfd_noexec
 * (O_RDONLY; nothing is ever written).  setns() needs CAP_SYS_ADMIN over
 * the namespace's owner: as a user, other namespaces' levels are
 * "unknown".
 *
 * Errors say which read failed and why; a process that exits while it is
 * read is counted as gone; running short of memory or fds stops the
 * audit (it is never reported as a process being unreadable).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "audit.h"
#include "collect-internal.h"
#include "fd-util.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "nsexec.h"
#include "parse.h"

#define PF_KTHREAD_FLAG 0x00200000U /* include/linux/sched.h */

int audit_parse_pid(const char *s, pid_t *ret)
{
	int v, r;

	r = mt_parse_int(s, INT_MAX, &v, NULL);
	if (r < 0)
		return r;
	if (v < 1)
		return -ERANGE;
	*ret = (pid_t)v;
	return 0;
}

/* ---- one process ------------------------------------------------------------ */

void audit_proc_done(struct audit_proc *p)
{
	for (size_t i = 0; i < p->n_memfds; i++)
		free(p->memfds[i].path);
	free(p->memfds);
	free(p->xmaps);
	free(p->comm);
	free(p->cgroup);
	free(p->ctr_id);
	free(p->exe);
	free(p->j.reason);
	*p = (struct audit_proc){};
}

/* State and flags from /proc/PID/stat (world-readable): after the comm in
 * parentheses, "S ppid pgrp session tty_nr tpgid flags ...".  0 or -errno. */
static int read_stat(int dirfd, char *ret_state, unsigned *ret_flags)
{
	_cleanup_free_ char *buf = NULL;
	const char *s;
	uint64_t flags;
	size_t len;
	int r;

	r = read_at(dirfd, "stat", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	s = strrchr(buf, ')'); /* comm may hold ')' itself */
	if (!s || s[1] != ' ' || s[2] == '\0' || s[3] != ' ')
		return -EBADMSG;
	*ret_state = s[2];
	s += 4;
	/* ppid, pgrp, session, tty_nr and tpgid (which may be -1): skipped. */
	for (int i = 0; i < 5; i++) {
		s = strchr(s, ' ');
		if (!s)
			return -EBADMSG;
		s++;
	}
	if (mt_parse_uint(s, UINT32_MAX, &flags, &s) < 0 || *s != ' ')
		return -EBADMSG;
	*ret_flags = (unsigned)flags;
	return 0;
}

/* The tab-separated numbers after a status key: each, and how many.
 * 0 or -EBADMSG. */
static int status_numbers(const char *s, uint64_t *first, uint64_t *last, unsigned *ret_n)
{
	unsigned n = 0;
	uint64_t v;

	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0')
			break;
		if (mt_parse_uint(s, INT32_MAX, &v, &s) < 0 || (*s != '\0' && *s != '\t'))
			return -EBADMSG;
		if (n++ == 0)
			*first = v;
		*last = v;
	}
	*ret_n = n;
	return n > 0 ? 0 : -EBADMSG;
}

/* NSpid (the PID in each namespace from procfs's down) and the real
 * uid, from /proc/PID/status (world-readable). */
static int read_status(int dirfd, struct audit_proc *p)
{
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	uint64_t first, last;
	unsigned n;
	size_t len;
	int r;

	r = read_at(dirfd, "status", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (has_prefix(line, "Uid:")) {
			/* The real uid first; uids go up to 2^32 - 2. */
			const char *s = line + 4 + strspn(line + 4, "\t ");

			if (mt_parse_uint(s, UINT32_MAX, &first, &s) < 0 ||
			    (*s != '\t' && *s != '\0'))
				return -EBADMSG;
			p->uid = (long)first;
		} else if (has_prefix(line, "CapEff:") || has_prefix(line, "CapPrm:")) {
			/* CAP_SYS_ADMIN is bit 21. */
			uint64_t caps;
			const char *s = line + 7 + strspn(line + 7, "\t ");

			if (sscanf(s, "%" SCNx64, &caps) != 1)
				return -EBADMSG;
			p->sys_admin |= (caps >> 21) & 1;
		} else if (has_prefix(line, "NSpid:")) {
			r = status_numbers(line + 6, &first, &last, &n);
			if (r < 0)
				return r;
			p->ns_pid = (pid_t)last;
			p->ns_depth = n;
		}
	}
	return 0;
}

/* What anyone may read: comm, status, cgroup.  0 or -errno, with
 * p->err_what naming the step. */
static int read_public(int dirfd, struct audit_proc *p)
{
	_cleanup_free_ char *comm = NULL;
	size_t len;
	int r;

	p->err_what = "comm";
	r = read_at(dirfd, "comm", MAX_SMALL_FILE, &comm, &len);
	if (r < 0)
		return r;
	while (len > 0 && comm[len - 1] == '\n')
		comm[--len] = '\0';
	p->comm = TAKE_PTR(comm);
	p->err_what = "status";
	r = read_status(dirfd, p);
	if (r < 0)
		return r;
	p->err_what = "cgroup";
	return audit_read_cgroup(dirfd, p);
}

/* The executable and the PID namespace (ptrace-read access: the owner, or
 * CAP_SYS_PTRACE).  0 or -errno, with p->err_what naming the step. */
static int read_identity(int dirfd, struct audit_proc *p)
{
	struct stat st;
	int r;

	p->err_what = "exe";
	r = readlink_at(dirfd, "exe", &p->exe);
	if (r < 0)
		return r;
	p->err_what = "ns/pid";
	if (fstatat(dirfd, "ns/pid", &st, 0) < 0)
		return negative_errno();
	p->ns_dev = st.st_dev;
	p->ns_ino = st.st_ino;
	/* The initial user namespace has a fixed inode (PROC_USER_INIT_INO). */
	p->err_what = "ns/user";
	if (fstatat(dirfd, "ns/user", &st, 0) < 0)
		return negative_errno();
	p->init_userns = st.st_ino == PROC_USER_INIT_INO;
	return 0;
}

/* ---- PID namespaces ---------------------------------------------------------- */

/* The level of the namespace that ns/pid under dirfd is (ns), read now;
 * the fd is closed before this returns.  >= 0, or -errno. */
static int read_level(const struct audit_pidns *ns, int dirfd)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	if (ns->own)
		return mt_memfd_noexec_read();
	fd = openat(dirfd, "ns/pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_dev != ns->dev || st.st_ino != ns->ino)
		return -ESTALE;
	return nsexec_read_memfd_noexec(fd);
}

/* The level of the parent of the namespace that ns/pid under dirfd is:
 * >= 0, or -errno (-ENOENT for the initial namespace, which has none;
 * -EPERM when the parent is outside ours). */
static int read_parent_level(const struct audit_pidns *ns, int dirfd)
{
	_cleanup_close_ int fd = -EBADF, parent = -EBADF;

	if (ns->initial)
		return -ENOENT;
	fd = openat(dirfd, "ns/pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	parent = ioctl(fd, NS_GET_PARENT);
	if (parent < 0)
		return negative_errno();
	return nsexec_read_memfd_noexec(parent);
}

/* The process's PID namespace entry; when it is the first process seen
 * there, the entry is added and its level read.  0 or -errno (fatal). */
static int attach_ns(struct audit *a, struct audit_proc *p, int dirfd)
{
	struct audit_pidns *ns;

	for (size_t i = 0; i < a->n_ns; i++)
		if (a->ns[i].dev == p->ns_dev && a->ns[i].ino == p->ns_ino) {
			p->ns_index = i;
			a->ns[i].n_procs++;
			return 0;
		}
	ns = grow(&a->ns, &a->n_ns, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->dev = p->ns_dev;
	ns->ino = p->ns_ino;
	ns->initial = p->ns_ino == PROC_PID_INIT_INO;
	ns->own = a->have_self && a->self_dev == p->ns_dev && a->self_ino == p->ns_ino;
	ns->n_procs = 1;
	p->ns_index = a->n_ns - 1;
	ns->level = read_level(ns, dirfd);
	if (fatal_error(ns->level))
		return ns->level;
	ns->parent_level = read_parent_level(ns, dirfd);
	return fatal_error(ns->parent_level) ? ns->parent_level : 0;
}

static int keep(struct audit_proc **array, size_t *n, struct audit_proc *p)
{
	struct audit_proc *slot = grow(array, n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	*slot = *p;
	*p = (struct audit_proc){};
	return 0;
}

/* In scope?  For a container, an unreadable process counts when its
 * NSpid depth matches (it may be there); others provably are not. */
static bool in_scope(const struct audit *a, const struct audit_proc *p, bool have_ns)
{
	if (a->scope != AUDIT_SCOPE_CONTAINER)
		return true;
	if (!have_ns)
		return p->ns_depth == a->target_depth;
	return p->ns_dev == a->target_dev && p->ns_ino == a->target_ino;
}

/* Reads /proc/PID into p.  1 if p is to be kept (readable or not), 0 if
 * the process is not to be listed (a kernel thread, a zombie, gone, out of
 * scope), or -errno (fatal, a->fail_* set). */
static int read_proc(struct audit *a, int dirfd, struct audit_proc *p)
{
	bool have_ns = false;
	unsigned flags = 0;
	char state = '?';
	int r;

	p->err_what = "stat";
	r = read_stat(dirfd, &state, &flags);
	if (r == 0 && (flags & PF_KTHREAD_FLAG)) {
		a->kthreads++;
		return 0;
	}
	if (r == 0 && (state == 'Z' || state == 'X')) {
		a->zombies++;
		return 0;
	}
	if (r == 0)
		r = read_public(dirfd, p);
	if (r == 0)
		r = read_identity(dirfd, p);
	have_ns = r == 0;
	if (r == 0 && !in_scope(a, p, true))
		return 0;
	if (r == 0)
		r = audit_read_memfds(dirfd, p);
	if (fatal_error(r)) {
		a->fail_pid = p->pid;
		a->fail_what = p->err_what;
		return r;
	}
	if (gone_error(r)) {
		a->gone++;
		return 0;
	}
	if (r < 0) {
		p->err = -r;
		if (!in_scope(a, p, have_ns))
			return 0;
	}
	return 1;
}

/* One process into a->procs or a->unreadable (or a count).  0 or -errno
 * (fatal); -ESRCH only for AUDIT_SCOPE_PID's target, which must exist. */
static int collect_proc(struct audit *a, pid_t pid)
{
	_cleanup_(audit_proc_done) struct audit_proc p = {.pid = pid, .uid = -1};
	_cleanup_close_ int dirfd = -EBADF;
	char path[32];
	int r;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = dirfd < 0 ? negative_errno() : 0;
	if (fatal_error(r)) {
		a->fail_pid = pid;
		a->fail_what = "";
		return r;
	}
	if (gone_error(r) && a->scope == AUDIT_SCOPE_PID)
		return -ESRCH;
	if (gone_error(r)) {
		a->gone++;
		return 0;
	}
	if (r < 0) {
		p.err = -r;
		p.err_what = "open";
		return keep(&a->unreadable, &a->n_unreadable, &p);
	}
	r = read_proc(a, dirfd, &p);
	if (r <= 0)
		return r;
	if (p.err)
		return keep(&a->unreadable, &a->n_unreadable, &p);
	r = attach_ns(a, &p, dirfd);
	if (r < 0) {
		a->fail_pid = pid;
		a->fail_what = "ns/pid";
		return r;
	}
	return keep(&a->procs, &a->n_procs, &p);
}

static int scan_all(struct audit *a)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t pid;
	int r;

	a->fail_pid = 0;
	a->fail_what = "";
	if (!d)
		return negative_errno();
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			return errno ? -errno : 0;
		if (audit_parse_pid(de->d_name, &pid) < 0)
			continue;
		r = collect_proc(a, pid);
		if (r < 0)
			return r;
	}
}

/* AUDIT_SCOPE_CONTAINER: the PID namespace of process a->target. */
static int resolve_container(struct audit *a)
{
	_cleanup_(audit_proc_done) struct audit_proc p = {.uid = -1};
	_cleanup_close_ int dirfd = -EBADF;
	struct stat st;
	char path[32];
	int r;

	a->fail_pid = a->target;
	a->fail_what = "ns/pid";
	snprintf(path, sizeof(path), "/proc/%d", (int)a->target);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return gone_error(negative_errno()) ? -ESRCH : negative_errno();
	if (fstatat(dirfd, "ns/pid", &st, 0) < 0)
		return gone_error(negative_errno()) ? -ESRCH : negative_errno();
	a->fail_what = "status";
	r = read_status(dirfd, &p);
	if (r < 0)
		return gone_error(r) ? -ESRCH : r;
	if (st.st_ino == PROC_PID_INIT_INO)
		return -EEXIST;
	a->target_dev = st.st_dev;
	a->target_ino = st.st_ino;
	a->target_depth = p.ns_depth;
	return 0;
}

int audit_collect(struct audit *a)
{
	struct stat st;
	int r;

	if (stat("/proc/thread-self/ns/pid", &st) == 0 || stat("/proc/self/ns/pid", &st) == 0) {
		a->have_self = true;
		a->self_dev = st.st_dev;
		a->self_ino = st.st_ino;
	}
	if (a->scope == AUDIT_SCOPE_CONTAINER) {
		r = resolve_container(a);
		if (r < 0)
			return r;
	}
	if (a->scope == AUDIT_SCOPE_PID)
		return collect_proc(a, a->target);
	return scan_all(a);
}

void audit_done(struct audit *a)
{
	for (size_t i = 0; i < a->n_procs; i++)
		audit_proc_done(&a->procs[i]);
	for (size_t i = 0; i < a->n_unreadable; i++)
		audit_proc_done(&a->unreadable[i]);
	free(a->procs);
	free(a->unreadable);
	free(a->ns);
	a->procs = a->unreadable = NULL;
	a->ns = NULL;
	a->n_procs = a->n_unreadable = a->n_ns = 0;
}
