/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakekernel_probe: report what the kernel (real or faked) answers to the
 * calls the toolkit depends on, one "name=OK" or "name=ERRNONAME" a line:
 *
 *   memfd_plain        memfd_create(MFD_CLOEXEC)
 *   memfd_sealing      memfd_create(MFD_CLOEXEC | MFD_ALLOW_SEALING)
 *   memfd_exec         memfd_create(MFD_CLOEXEC | MFD_EXEC)
 *   memfd_noexec_seal  memfd_create(MFD_CLOEXEC | MFD_NOEXEC_SEAL)
 *   seal_exec          F_ADD_SEALS F_SEAL_EXEC on a sealable memfd (SKIP if
 *                      no such memfd can be made)
 *   tmpfile            open("/tmp", O_TMPFILE) through libc (openat)
 *   tmpfile_open       the same through the open syscall (SKIP if none)
 *   openat2            openat2("/") (SKIP if the headers lack it)
 *   execveat           execveat(AT_EMPTY_PATH) of this program, in a child
 *   fsopen             fsopen("") (ENODEV, or EPERM without privilege,
 *                      where the new mount API exists)
 *   fsconfig_string    fsconfig(-1, FSCONFIG_SET_STRING) (EBADF if it exists)
 *   unshare_user       unshare(CLONE_NEWUSER), in a child
 *   sysctl             the contents of /proc/sys/vm/memfd_noexec, newlines
 *                      written as \n, or the errno of open()
 *   sysctl_w           access(W_OK) on it (never opened for writing)
 *   vm_other           reading /proc/sys/vm/overcommit_memory
 *   nnp                prctl(PR_GET_NO_NEW_PRIVS)
 *   cap_eff            the CapEff mask from /proc/self/status
 *   uid, euid          getuid(), geteuid()
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "macro.h"
#include "missing-syscall.h"

#define SYSCTL_PATH "/proc/sys/vm/memfd_noexec"

static const char *errname(int err)
{
	static char buf[32];
	const char *n = strerrorname_np(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/* r is 0 or more for success, -errno for failure. */
static void report(const char *name, int r)
{
	printf("%s=%s\n", name, r >= 0 ? "OK" : errname(-r));
}

static int fd_result(int fd)
{
	if (fd < 0)
		return -errno;
	safe_close(fd);
	return 0;
}

static int probe_memfd(unsigned int flags)
{
	return fd_result(missing_memfd_create("fakekernel-probe", flags));
}

static void probe_seal_exec(void)
{
	_cleanup_close_ int fd = -EBADF;

	fd = missing_memfd_create("fakekernel-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 && errno == EINVAL) /* 6.3-level2 wants an exec flag */
		fd = missing_memfd_create("fakekernel-probe",
					  MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0) {
		printf("seal_exec=SKIP\n");
		return;
	}
	report("seal_exec", fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) < 0 ? -errno : 0);
}

static void probe_tmpfile(void)
{
	report("tmpfile", fd_result(open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)));
#ifdef SYS_open
	report("tmpfile_open",
	       fd_result((int)syscall(SYS_open, "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)));
#else
	printf("tmpfile_open=SKIP\n");
#endif
}

static void probe_openat2(void)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	};

	report("openat2", fd_result((int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how))));
#else
	printf("openat2=SKIP\n");
#endif
}

/* Really execute ourselves through execveat, so "OK" means it works. */
static void probe_execveat(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		report("execveat", -errno);
		return;
	}
	if (pid == 0) {
		char *argv[] = {(char *)"fakekernel_probe", (char *)"--exit0", NULL};
		char *envp[] = {NULL};
		int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);

		if (fd < 0)
			_exit(errno);
		missing_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
		_exit(errno);
	}
	if (waitpid(pid, &status, 0) < 0) {
		report("execveat", -errno);
		return;
	}
	if (!WIFEXITED(status))
		report("execveat", -ECHILD);
	else
		report("execveat", -WEXITSTATUS(status));
}

static int read_small(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static void probe_sysctl(void)
{
	char buf[64];
	int r;

	r = read_small(SYSCTL_PATH, buf, sizeof(buf));
	if (r < 0) {
		report("sysctl", r);
	} else {
		fputs("sysctl=", stdout);
		for (const char *p = buf; *p; p++)
			if (*p == '\n')
				fputs("\\n", stdout);
			else
				putchar(*p);
		putchar('\n');
	}
	report("sysctl_w", access(SYSCTL_PATH, W_OK) < 0 ? -errno : 0);
	report("vm_other", read_small("/proc/sys/vm/overcommit_memory", buf, sizeof(buf)));
}

static void probe_cap_eff(void)
{
	char buf[16384];
	const char *p;
	int r;

	r = read_small("/proc/self/status", buf, sizeof(buf));
	if (r < 0) {
		report("cap_eff", r);
		return;
	}
	p = strstr(buf, "\nCapEff:\t");
	if (!p) {
		report("cap_eff", -ENODATA);
		return;
	}
	p += strlen("\nCapEff:\t");
	printf("cap_eff=%.*s\n", (int)strcspn(p, "\n"), p);
}

static void probe_mount_api(void)
{
	int status;
	pid_t pid;

	report("fsopen", missing_fsopen("", FSOPEN_CLOEXEC) < 0 ? -errno : 0);
	report("fsconfig_string",
	       missing_fsconfig(-1, FSCONFIG_SET_STRING, "k", "v", 0) < 0 ? -errno : 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) < 0 ? errno : 0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		report("unshare_user", -ECHILD);
	else
		report("unshare_user", -WEXITSTATUS(status));
}

int main(int argc, char *argv[])
{
	if (argc > 1 && strcmp(argv[1], "--exit0") == 0)
		return 0;

	report("memfd_plain", probe_memfd(MFD_CLOEXEC));
	report("memfd_sealing", probe_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING));
	report("memfd_exec", probe_memfd(MFD_CLOEXEC | MFD_EXEC));
	report("memfd_noexec_seal", probe_memfd(MFD_CLOEXEC | MFD_NOEXEC_SEAL));
	probe_seal_exec();
	probe_tmpfile();
	probe_openat2();
	probe_execveat();
	probe_mount_api();
	probe_sysctl();
	printf("nnp=%d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	probe_cap_eff();
	printf("uid=%u\neuid=%u\n", getuid(), geteuid());
	return 0;
}
