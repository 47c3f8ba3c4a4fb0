/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for what nsexec/pidns.c reads from /proc: the last NSpid of
 * a status text, the uid_map lines, and the Pid of a pidfd's fdinfo, as
 * tables of text and expected outcome; and the namespace helpers that
 * serve.c and apply.c share (a pidfd's PID namespace, the walk up, the
 * owner), on the real kernel.  The parsers are static, so this
 * file includes pidns.c itself (and links only common/).
 * `pidns_test CASE` runs one case.
 */
#include "../../nsexec/pidns.c"

#include <sched.h>
#include <sys/wait.h>

#include "unit-cases.h"

static const struct {
	const char *text;
	int want;
} nspid_rows[] = {
	{"Name:\tx\nNSpid:\t42\nNSsid:\t1\n", 42},
	{"Name:\tx\nNSpid:\t4242\t17\t1\n", 1},
	{"Name:\tx\nNSpid:\t4242 1", 1}, /* the end of the text ends the line */
	{"Name:\tx\nNSpid:\t4194304\n", 4194304},
	{"Name:\tx\nNSpid:\t4194305\n", -EBADMSG}, /* above PID_MAX_LIMIT */
	{"Name:\tx\nNSpid:\t99999999999999999999\n", -EBADMSG},
	{"Name:\tx\nNSpid:\t\n", -EBADMSG}, /* no number */
	{"Name:\tx\nNSpid:\t-1\n", -EBADMSG},
	{"Name:\tx\nNSpid:\t+1\n", -EBADMSG},
	{"Name:\tx\nNSpid:\t12x\n", -EBADMSG},
	{"Name:\tx\nNSpid:\t0x10\n", -EBADMSG},
	{"Name:\tx\nPid:\t1\n", -EOPNOTSUPP}, /* no NSpid line: before 4.1 */
};

static int case_nspid_table(void)
{
	for (size_t i = 0; i < ELEMENTSOF(nspid_rows); i++) {
		int r = last_nspid(nspid_rows[i].text);

		if (r != nspid_rows[i].want)
			FAIL("row %zu: %d, want %d", i, r, nspid_rows[i].want);
	}
	return 0;
}

static const struct {
	const char *text;
	unsigned long uid;
	int want;
} uid_map_rows[] = {
	{"         0          0 4294967295\n", 0, 1},
	{"         0          0 4294967295\n", 4294967294UL, 1},
	{"         0       1000          1\n", 0, 0},
	{"         0       1000          1\n", 1000, 1},
	{"         0     100000      65536\n         1       1000          1\n", 1000, 1},
	{"         0     100000      65536\n", 165535, 1},
	{"         0     100000      65536\n", 165536, 0},
	{"", 0, 0},
	{"0 1000 1", 1000, 1}, /* no newline at the end */
	{"0 1000\n", 1000, -EBADMSG},
	{"0 1000 1 7\n", 1000, -EBADMSG},
	{"0 1000 1\n\n", 1000, 1}, /* found before the blank line */
	{"0 2000 1\n\n0 1000 1\n", 1000, -EBADMSG},
	{"0 -1 1\n", 0, -EBADMSG},
	{"0 +1000 1\n", 1000, -EBADMSG},
	{"0 1000 1x\n", 1000, -EBADMSG},
	{"0 4294967296 1\n", 0, -EBADMSG},
	{"0\n1000\n1\n", 1000, -EBADMSG}, /* one line, three numbers */
};

static int case_uid_map_table(void)
{
	for (size_t i = 0; i < ELEMENTSOF(uid_map_rows); i++) {
		int r = maps_uid(uid_map_rows[i].text, uid_map_rows[i].uid);

		if (r != uid_map_rows[i].want)
			FAIL("row %zu: %d, want %d", i, r, uid_map_rows[i].want);
	}
	return 0;
}

/* The real fdinfo of a pidfd: of ourselves, of an exited child; and of a
 * file that is no pidfd, and of no file at all. */
static int case_pidfd_pid(void)
{
	_cleanup_close_ int self = -EBADF, child = -EBADF, file = -EBADF;
	pid_t pid;

	self = missing_pidfd_open(getpid(), 0);
	if (self < 0)
		FAIL("pidfd_open(self): %m");
	if (nsexec_pidfd_pid(self) != getpid())
		FAIL("pidfd of ourselves: %d, want %d", nsexec_pidfd_pid(self), (int)getpid());

	pid = fork();
	if (pid < 0)
		FAIL("fork: %m");
	if (pid == 0)
		_exit(0);
	child = missing_pidfd_open(pid, 0);
	if (child < 0)
		FAIL("pidfd_open(child): %m");
	if (waitpid(pid, NULL, 0) != pid)
		FAIL("waitpid: %m");
	if (nsexec_pidfd_pid(child) != -ESRCH)
		FAIL("pidfd of a reaped child: %d, want -ESRCH", nsexec_pidfd_pid(child));

	file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (file < 0)
		FAIL("open: %m");
	if (nsexec_pidfd_pid(file) != -EBADF)
		FAIL("a plain file: %d, want -EBADF", nsexec_pidfd_pid(file));
	if (nsexec_pidfd_pid(1000000) != -EBADF)
		FAIL("an fd that is not open: %d, want -EBADF", nsexec_pidfd_pid(1000000));
	return 0;
}

static int case_procfs_is_ours(void)
{
	if (nsexec_procfs_is_ours() != 1)
		FAIL("/proc/self does not read as our PID");
	return 0;
}

/* The namespace at fd is ours (the test's active PID namespace). */
static int is_ours(int fd)
{
	struct nsexec_ns_id a, b;

	if (nsexec_ns_id_of_fd(fd, &a) < 0 || nsexec_ns_id_self(&b) < 0)
		return -1;
	return nsexec_ns_id_equal(&a, &b) && a.nsfs;
}

/* A pid, reaped, and a pidfd that outlived it. */
static int reaped_child(int *ret_pidfd, pid_t *ret_pid)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(0);
	fd = missing_pidfd_open(pid, 0);
	if (waitpid(pid, NULL, 0) != pid || fd < 0)
		return -1;
	*ret_pidfd = fd;
	*ret_pid = pid;
	return 0;
}

/* Both ways (the ioctl, /proc) find our namespace from a pidfd of
 * ourselves, and neither lets a recycled PID answer for an exited one. */
static int case_pidns_of_pidfd(void)
{
	_cleanup_close_ int self = missing_pidfd_open(getpid(), 0), dead = -EBADF;
	pid_t dead_pid;

	if (self < 0 || reaped_child(&dead, &dead_pid) < 0)
		FAIL("pidfd_open, fork: %m");
	for (int use_ioctl = 0; use_ioctl <= 1; use_ioctl++) {
		_cleanup_close_ int fd = -EBADF;
		bool by_proc = !use_ioctl;
		int r;

		fd = nsexec_pidns_of_pidfd(self, getpid(), use_ioctl, &by_proc);
		if (fd < 0 || is_ours(fd) != 1)
			FAIL("ioctl %d: %d, not our namespace", use_ioctl, fd);
		if (by_proc != !use_ioctl)
			FAIL("ioctl %d: by_proc %d", use_ioctl, by_proc);
		r = nsexec_pidns_of_pidfd(dead, dead_pid, use_ioctl, NULL);
		if (r != -ESRCH)
			FAIL("ioctl %d, an exited process: %d, want -ESRCH", use_ioctl, r);
		/* Its PID now names a live process (ourselves): the pidfd
		 * must still say it exited. */
		r = nsexec_pidns_of_pidfd(dead, getpid(), use_ioctl, NULL);
		if (r != -ESRCH)
			FAIL("ioctl %d, a recycled PID: %d, want -ESRCH", use_ioctl, r);
		r = nsexec_pidns_of_pidfd(-EBADF, 0, use_ioctl, NULL);
		if (r != -EOPNOTSUPP)
			FAIL("ioctl %d, neither pidfd nor PID: %d, want -EOPNOTSUPP", use_ioctl, r);
	}
	/* Without pidfds (before 5.3): /proc alone. */
	{
		_cleanup_close_ int fd = nsexec_pidns_of_pidfd(-EBADF, getpid(), true, NULL);

		if (fd < 0 || is_ours(fd) != 1)
			FAIL("no pidfd: %d, not our namespace", fd);
	}
	return 0;
}

/* A child that made a user and a PID namespace, with an init in it, and
 * waits for EOF on the pipe *ret_wait_fd: the parent sees the new
 * namespace at /proc/<child>/ns/pid_for_children.  Unprivileged users may
 * do this. */
static pid_t spawn_unsharer(int *ret_wait_fd)
{
	int ready[2], hold[2];
	char c = 0;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		pid_t init = -1;

		/* The namespace shows once its init exists. */
		(void)close(hold[1]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) == 0)
			init = fork();
		if (init == 0) {
			(void)read(hold[0], &c, 1);
			_exit(0);
		}
		c = init > 0 ? 'y' : 'n';
		(void)write(ready[1], &c, 1);
		(void)read(hold[0], &c, 1);
		if (init > 0)
			(void)waitpid(init, NULL, 0);
		_exit(0);
	}
	(void)close(ready[1]);
	(void)close(hold[0]);
	if (read(ready[0], &c, 1) != 1 || c != 'y') {
		(void)close(hold[1]);
		(void)waitpid(pid, NULL, 0);
		pid = -1;
	}
	(void)close(ready[0]);
	*ret_wait_fd = hold[1];
	return pid;
}

static int case_pidns_walk(void)
{
	_cleanup_close_ int below = -EBADF, ours = -EBADF, hold = -EBADF;
	struct nsexec_ns_id self, child;
	char path[64];
	uid_t owner = (uid_t)-1;
	pid_t pid = spawn_unsharer(&hold);
	int r1, r2, r3, r4;

	if (pid < 0)
		FAIL("unshare(CLONE_NEWUSER|CLONE_NEWPID) in a child: %m");
	(void)snprintf(path, sizeof(path), "/proc/%d/ns/pid_for_children", (int)pid);
	below = open(path, O_RDONLY | O_CLOEXEC);
	ours = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	r1 = below < 0 || ours < 0 ? -errno : nsexec_ns_id_of_fd(below, &child);
	if (r1 >= 0)
		r1 = nsexec_ns_id_self(&self);
	r2 = r1 < 0 ? r1 : nsexec_pidns_is_below(below, &self);
	r3 = r1 < 0 ? r1 : nsexec_pidns_is_below(ours, &child);
	r4 = r1 < 0 ? r1 : nsexec_pidns_is_below(below, &child);
	if (r1 >= 0)
		r1 = nsexec_ns_owner_uid(below, &owner);
	hold = safe_close(hold);
	(void)waitpid(pid, NULL, 0);
	if (r1 < 0)
		FAIL("the child's new PID namespace: %s", strerror(-r1));
	if (r2 != 1)
		FAIL("the child's namespace below ours: %d, want 1", r2);
	if (r3 != 0)
		FAIL("ours below the child's: %d, want 0", r3);
	if (r4 != 0)
		FAIL("the child's below itself: %d, want 0 (strictly below)", r4);
	if (owner != getuid())
		FAIL("its owner: uid %u, want %u", (unsigned)owner, (unsigned)getuid());
	if (nsexec_ns_owner_uid(hold, &owner) != -EBADF)
		FAIL("the owner of a closed fd: not -EBADF");
	return 0;
}

static const struct unit_case cases[] = {
	{"nspid_table", case_nspid_table},	 {"uid_map_table", case_uid_map_table},
	{"pidfd_pid", case_pidfd_pid},		 {"procfs_is_ours", case_procfs_is_ours},
	{"pidns_of_pidfd", case_pidns_of_pidfd}, {"pidns_walk", case_pidns_walk},
};

int main(int argc, char *argv[])
{
	return unit_main("pidns_test", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
