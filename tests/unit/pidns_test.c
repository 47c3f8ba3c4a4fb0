/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for what nsexec/pidns.c reads from /proc: the last NSpid of
 * a status text, the uid_map lines, and the Pid of a pidfd's fdinfo, as
 * tables of text and expected outcome.  The parsers are static, so this
 * file includes pidns.c itself (and links only common/).
 * `pidns_test CASE` runs one case.
 */
#include "../../nsexec/pidns.c"

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
	if (!nsexec_procfs_is_ours())
		FAIL("/proc/self does not read as our PID");
	return 0;
}

static const struct unit_case cases[] = {
	{"nspid_table", case_nspid_table},
	{"uid_map_table", case_uid_map_table},
	{"pidfd_pid", case_pidfd_pid},
	{"procfs_is_ours", case_procfs_is_ours},
};

int main(int argc, char *argv[])
{
	return unit_main("pidns_test", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
