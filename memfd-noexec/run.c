/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec run: CMD as PID 1 of a new PID namespace whose level is
 * set, from out here and through the hook's path
 * (nsexec_apply_memfd_noexec()), before CMD starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "memfd-noexec.h"
#include "memfd-sysctl.h"
#include "runtime.h"

static void usage_run(FILE *f)
{
	static const char *const lines[] = {
		"Usage: " PROGRAM_NAME " run --level N [--proc] [--] CMD [ARG...]",
		"",
		"Creates a PID namespace, sets its vm.memfd_noexec to N (0, 1 or 2)",
		"and runs CMD as its init.  A stricter inherited value is kept,",
		"with a notice.  Where the level CMD really runs at is 2 (or",
		"cannot be read), memfd_create(MFD_HUGETLB) fails with EPERM",
		"for CMD and all it starts (seccomp; hugetlbfs ignores",
		"F_SEAL_EXEC).  Needs global root.  Exits with CMD's status",
		"(128+N for signal N); 125 if the namespace could not be set up,",
		"126/127 if CMD could not be executed/found.",
		"",
		"  -l, --level N   0, 1 or 2",
		"  -p, --proc      also a mount namespace with a /proc of the new",
		"                  PID namespace (for runtimes such as runc)",
		NULL,
	};

	print_lines(f, lines);
}

/* run --proc: a mount namespace of its own with a /proc of the new PID
 * namespace, as a runtime started inside needs (unshare --mount-proc). */
static bool run_mount_proc;

/*
 * The sysctl, opened on the caller's procfs before any namespace or mount
 * is made (nsexec_runtime_level_open()), or the -errno of that open: the
 * child reads its level through it, whatever its /proc holds by then.
 */
static int run_level_fd = -EBADF;

/*
 * In the child, with its level set: the MFD_HUGETLB rule when the level it
 * really runs at (read here through run_level_fd, in its namespace: set,
 * or a stricter one inherited; never below level) is 2, or cannot be read
 * (nsexec_hugetlb_rule_needed()).  It survives the exec and covers
 * everything CMD starts.  Fails closed.
 */
static void run_hugetlb_rule(int level)
{
	_cleanup_error_ struct mt_error *e = NULL;
	int effective, r;

	r = nsexec_runtime_hugetlb_rule(TAKE_FD(run_level_fd), level, &effective, &e);
	if (r < 0) {
		cli_error("%s", mt_error_message(e));
		_exit(EXIT_RUN_FAILED);
	}
	if (effective < 0 && r > 0)
		cli_notice(
			"cannot read vm.memfd_noexec in the new PID namespace (%s): memfd_create(MFD_HUGETLB) refused (seccomp), to be safe",
			strerror(-effective));
	else if (effective < 0)
		cli_debug("vm.memfd_noexec: this kernel has no levels, no MFD_HUGETLB rule");
	else if (r > 0)
		cli_debug("vm.memfd_noexec=%d: memfd_create(MFD_HUGETLB) refused (seccomp)",
			  effective);
	else
		cli_debug("vm.memfd_noexec=%d: no MFD_HUGETLB rule needed", effective);
}

_noreturn_ static void run_child(int sync_fd, int level, char *argv[])
{
	char c;
	ssize_t n;

	/* Die with memfd-noexec, like unshare --kill-child. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	do
		n = read(sync_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || c != 'g')
		_exit(EXIT_RUN_FAILED); /* the parent failed and reported */
	(void)close(sync_fd);

	if (run_mount_proc &&
	    (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	     mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)) {
		cli_error("Failed to mount a /proc of the new PID namespace: %m");
		_exit(EXIT_RUN_FAILED);
	}
	run_hugetlb_rule(level);
	execvp(argv[0], argv);
	cli_error("Failed to execute %s: %m", argv[0]);
	_exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

/* Parses run's options; returns the level, leaves optind at CMD. */
static int run_options(int argc, char *argv[])
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"level", required_argument, NULL, 'l'},
		{"proc", no_argument, NULL, 'p'},
		{},
	};
	int c, level = -1;

	while ((c = getopt_long(argc, argv, "+:hl:p", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_run(stdout);
			exit(0);
		case 'p':
			run_mount_proc = true;
			break;
		case 'l':
			level = cli_option_value(mt_memfd_noexec_parse(optarg), "--level", optarg,
						 "0, 1 or 2");
			break;
		case ':':
			cli_die(EXIT_USAGE, "option '%s' needs a value: 0, 1 or 2",
				cli_bad_option(argv));
		default:
			cli_die(EXIT_USAGE,
				"unknown option '%s': allowed are --level N, --proc, --help",
				cli_bad_option(argv));
		}
	}
	if (level < 0)
		cli_die(EXIT_USAGE, "missing --level N (allowed values are 0, 1 or 2)");
	if (optind >= argc)
		cli_die(EXIT_USAGE, "missing the command to run after --level %d", level);
	return level;
}

/* Forks CMD as PID 1 of a new PID namespace, waiting on the sync pipe.  A
 * bare fork(), not fork-report.h: the pipe runs the other way (the parent
 * says go once it has set the level), and the child execs CMD. */
static pid_t run_spawn(int level, char *argv[], int *ret_sync)
{
	int sync[2];
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) < 0)
		cli_die(EXIT_RUN_FAILED, "Failed to create a pipe: %m");
	/* Before any namespace or mount: the file is the caller's procfs. */
	run_level_fd = nsexec_runtime_level_open();
	if (unshare(CLONE_NEWPID | (run_mount_proc ? CLONE_NEWNS : 0)) < 0)
		cli_die(EXIT_RUN_FAILED, "Failed to create a PID namespace: %m%s",
			errno == EPERM
				? " (needs CAP_SYS_ADMIN; setting vm.memfd_noexec needs global root)"
				: "");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		cli_die(EXIT_RUN_FAILED, "Failed to fork: %m");
	if (pid == 0) {
		(void)close(sync[1]);
		run_child(sync[0], level, argv);
	}
	(void)close(sync[0]);
	if (run_level_fd >= 0)
		(void)close(TAKE_FD(run_level_fd));
	*ret_sync = sync[1];
	return pid;
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			cli_die(EXIT_RUN_FAILED, "Failed to wait for the command: %m");
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUN_FAILED;
}

int verb_run(int argc, char *argv[])
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct nsexec_request req = {.origin = NSEXEC_ORIGIN_CREATED};
	struct nsexec_result res;
	int sync_fd, r;
	pid_t pid;

	req.level = run_options(argc, argv);
	pid = run_spawn(req.level, argv + optind, &sync_fd);

	/* The child is PID 1 of the new namespace and waits; set its level
	 * from out here, through the same path the hook uses. */
	r = nsexec_apply_memfd_noexec(pid, &req, &res, &e);
	if (r < 0) {
		(void)kill(pid, SIGKILL);
		(void)close(sync_fd);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		cli_die(EXIT_RUN_FAILED, "%s", mt_error_message(e));
	}
	report_result(&res);

	if (write(sync_fd, "g", 1) != 1) {
		(void)kill(pid, SIGKILL);
		cli_die(EXIT_RUN_FAILED, "Failed to start the command: %m");
	}
	(void)close(sync_fd);
	return wait_status(pid);
}
