/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the audit-* helpers (tests/bats/audit.bats): each one puts
 * itself into one memfd situation that `memfd-noexec audit` must judge,
 * then either holds (sleeps until killed) so that the audit can look at
 * it, or, with --once, exits at once so that a test can see whether the
 * situation can be reached at a given vm.memfd_noexec level.
 *
 * Protocol, on stdout, one line each:
 *   NAME: ready pid=N      the situation is in place; holding
 *   NAME: ok               the same, with --once; exits 0
 *   NAME: STEP=ERRNO       a step the kernel refused, e.g.
 *                          "audit-mfdexec: memfd_create=EACCES"
 * Exit status: 0 ok; 3 memfd_create() refused; 4 execveat() or
 * mmap(PROT_EXEC) refused; 1 any other failure (message on stderr);
 * 2 bad usage.
 */
#ifndef AUDIT_HELPER_H
#define AUDIT_HELPER_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "missing-syscall.h"

#define EXIT_REFUSED_CREATE 3
#define EXIT_REFUSED_EXEC 4

extern char **environ;

static inline const char *helper_errno_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "EUNKNOWN";
}

/* Reports a step the kernel refused and exits with status. */
_noreturn_ static inline void helper_refused(const char *name, const char *step, int e, int status)
{
	printf("%s: %s=%s\n", name, step, helper_errno_name(e));
	fflush(stdout);
	exit(status);
}

_noreturn_ _printf_(2, 3) static inline void helper_die(const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The situation is in place: say so, then exit (once) or hold. */
_noreturn_ static inline void helper_hold(const char *name, bool once)
{
	(void)prctl(PR_SET_NAME, name);
	if (once) {
		printf("%s: ok\n", name);
		fflush(stdout);
		exit(0);
	}
	printf("%s: ready pid=%d\n", name, (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}

/* Copies this program (/proc/self/exe) into fd. */
static inline void helper_copy_self(const char *name, int fd)
{
	_cleanup_close_ int src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	off_t off = 0;

	if (src < 0 || fstat(src, &st) < 0)
		helper_die(name, "Failed to open /proc/self/exe: %m");
	while (off < st.st_size) {
		ssize_t n = sendfile(fd, src, &off, (size_t)(st.st_size - off));

		if (n <= 0)
			helper_die(name, "Failed to copy into the memfd: %m");
	}
}

/*
 * Executes the memfd fd (this program's copy) with argv; never returns.
 * A file open for writing cannot be executed (ETXTBSY), so only a
 * read-only descriptor, reopened through /proc/self/fd, is kept.
 */
_noreturn_ static inline void helper_exec_memfd(const char *name, int fd, char *const argv[])
{
	char path[64];
	int ro;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	if (ro < 0)
		helper_die(name, "Failed to reopen the memfd read-only: %m");
	(void)close(fd);
	fflush(stdout);
	missing_execveat(ro, "", argv, environ, AT_EMPTY_PATH);
	helper_refused(name, "exec", errno, EXIT_REFUSED_EXEC);
}

#endif
