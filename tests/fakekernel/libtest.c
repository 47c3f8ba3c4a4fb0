/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakekernel_libtest: the library as unit tests use it, in-process in a
 * forked child.  Tables of good and bad profile lists and fail specs, then
 * each profile's effect on the calls, then no_new_privs both ways.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakekernel.h"
#include "macro.h"
#include "missing-syscall.h"

static int failures;

_printf_(1, 2) static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

static const char *ename(int err)
{
	const char *n = fakekernel_errno_name(err);

	return n ? n : "?";
}

/* Result of a call as 0 or -errno; fds are closed. */
static int memfd(unsigned int flags)
{
	int fd = missing_memfd_create("libtest", flags);

	if (fd < 0)
		return -errno;
	safe_close(fd);
	return 0;
}

static int seal_exec(void)
{
	_cleanup_close_ int fd = -EBADF;

	fd = missing_memfd_create("libtest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) < 0)
		return -errno;
	return 0;
}

static int tmpfile_openat(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	safe_close(fd);
	return 0;
}

static int plain_open(void)
{
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	safe_close(fd);
	return 0;
}

static int execveat_probe(void)
{
	/* An invalid fd: EBADF if the syscall exists. */
	char *argv[] = {NULL};

	if (missing_execveat(-1, "", argv, argv, AT_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

static void assert_result(const char *what, int got, int want)
{
	if (got != want)
		fail("%s: got %s, want %s", what, got ? ename(-got) : "OK",
		     want ? ename(-want) : "OK");
}

/* Run fn in a child with a timeout; a crash or a nonzero exit fails. */
static void in_child(const char *name, int (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fail("%s: fork: %s", name, strerror(errno));
		return;
	}
	if (pid == 0) {
		failures = 0;
		alarm(20);
		_exit(fn() == 0 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fail("%s: waitpid: %s", name, strerror(errno));
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("%s: child %s %d", name, WIFEXITED(status) ? "exited" : "killed by signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	else
		printf("ok - %s\n", name);
}

static const char *const good_specs[] = {
	"memfd_create=EACCES",
	"memfd_create[1&0x10==0x10]=EPERM",
	"fcntl[1&0xffffffff==1033]=EPERM",
	"memfd_create[1==0x11]=5",
	"openat[2&020000000==020000000]=0x1c",
	"memfd_create[1&0x10==0x10,1&0x1==0x1]=ENOTSUP",
	"execveat[4&0x1000==0x1000,0==3]=EROFS",
	"memfd_create=4094",
	"fcntl[1==1033]=0",
};

static const char *const bad_specs[] = {
	"",
	"=EPERM",
	"memfd_create",
	"memfd_create=",
	"memfd_create=EBOGUS",
	"memfd_create=eperm",
	"memfd_create=4095",
	"memfd_create=-1",
	"memfd_create=0x",
	"memfd_create=1x",
	"memfd_create[=EPERM",
	"memfd_create[]=EPERM",
	"memfd_create[1]=EPERM",
	"memfd_create[6==1]=EPERM",
	"memfd_create[-1==1]=EPERM",
	"memfd_create[1&==1]=EPERM",
	"memfd_create[1&0x10=0x10]=EPERM",
	"memfd_create[1&0x1==0x2]=EPERM",
	"memfd_create[1&0==0]=EPERM",
	"memfd_create[1&0x1==0x1,1&0x1==0x0]=EPERM",
	"memfd_create[1&08==0]=EPERM",
	"memfd_create[1==99999999999999999999]=EPERM",
	"memfd_create[1== 1]=EPERM",
	"memfd_create[1==1,]=EPERM",
	"memfd_create[1==1]x=EPERM",
	"memfd_create[1==1]",
	"nosuchsyscall=EPERM",
	"MEMFD_CREATE=EPERM",
	" memfd_create=EPERM",
};

static const char *const good_profiles[] = {
	"",
	"nomemfd",
	"6.1",
	"6.3-level2",
	"notmpfile",
	"noexecveat",
	"nomemfd,6.1",
	"6.1,notmpfile,noexecveat",
	"6.1,6.1",
	"6.3-level2,notmpfile",
};

static const char *const bad_profiles[] = {
	"bogus", "6.1,",    ",6.1",	      "6.1,,notmpfile",	    "6.1 ",
	"6.3",	 "NOMEMFD", "6.1,6.3-level2", "nomemfd,6.3-level2",
};

static void test_tables(void)
{
	int mode, r;

	for (size_t i = 0; i < ELEMENTSOF(good_specs); i++) {
		r = fakekernel_check(NULL, &good_specs[i], 1);
		if (r != 0)
			fail("spec '%s': got %s, want OK", good_specs[i], ename(-r));
	}
	for (size_t i = 0; i < ELEMENTSOF(bad_specs); i++) {
		r = fakekernel_check(NULL, &bad_specs[i], 1);
		if (r != -EINVAL)
			fail("spec '%s': got %s, want EINVAL", bad_specs[i], r ? ename(-r) : "OK");
	}
	for (size_t i = 0; i < ELEMENTSOF(good_profiles); i++) {
		r = fakekernel_check(good_profiles[i], NULL, 0);
		if (r != 0)
			fail("profiles '%s': got %s, want OK", good_profiles[i], ename(-r));
	}
	for (size_t i = 0; i < ELEMENTSOF(bad_profiles); i++) {
		r = fakekernel_check(bad_profiles[i], NULL, 0);
		if (r != -EINVAL)
			fail("profiles '%s': got %s, want EINVAL", bad_profiles[i],
			     r ? ename(-r) : "OK");
	}
	if (fakekernel_check(NULL, NULL, 1) != -EINVAL)
		fail("NULL fail_specs with n_fail 1 accepted");

	r = fakekernel_profiles_memfd_noexec("notmpfile,6.1", &mode);
	if (r != 0 || mode != FAKEKERNEL_SYSCTL_HIDE)
		fail("notmpfile,6.1 should imply hide");
	r = fakekernel_profiles_memfd_noexec("6.3-level2", &mode);
	if (r != 0 || mode != 2)
		fail("6.3-level2 should imply 2");
	r = fakekernel_profiles_memfd_noexec(NULL, &mode);
	if (r != 0 || mode != FAKEKERNEL_SYSCTL_REAL)
		fail("no profile should imply the real file");

	if (fakekernel_errno_from_name("EPERM") != EPERM ||
	    fakekernel_errno_from_name("EOPNOTSUPP") != EOPNOTSUPP ||
	    fakekernel_errno_from_name("ENOTSUP") != ENOTSUP ||
	    fakekernel_errno_from_name("EXDEV") != EXDEV ||
	    fakekernel_errno_from_name("EPERMX") != -EINVAL || strcmp(ename(EROFS), "EROFS") != 0)
		fail("errno names");
	printf("ok - tables\n");
}

/* The real kernel must provide everything the profiles take away. */
static int real_level_allows_exec(void)
{
	char c = '0';
	int fd = open("/proc/sys/vm/memfd_noexec", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '0';
		safe_close(fd);
	}
	return c != '2';
}

static int t_baseline(void)
{
	int exec_want = real_level_allows_exec() ? 0 : -EACCES;

	assert_result("memfd plain", memfd(MFD_CLOEXEC), 0);
	assert_result("memfd exec", memfd(MFD_CLOEXEC | MFD_EXEC), exec_want);
	assert_result("seal exec", seal_exec(), 0);
	assert_result("tmpfile", tmpfile_openat(), 0);
	assert_result("execveat", execveat_probe(), -EBADF);
	return failures;
}

static int t_bad_spec_loads_nothing(void)
{
	const char *specs[] = {"memfd_create=EPERM", "bogus=EPERM"};

	assert_result("load with one bad spec", fakekernel_load("nomemfd", specs, 2), -EINVAL);
	assert_result("load with a bad profile", fakekernel_load("nomemfd,bogus", NULL, 0),
		      -EINVAL);
	assert_result("memfd after failed loads", memfd(MFD_CLOEXEC), 0);
	assert_result("nnp after failed loads", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);
	return failures;
}

static int t_nomemfd(void)
{
	assert_result("load", fakekernel_load("nomemfd", NULL, 0), 0);
	assert_result("memfd plain", memfd(MFD_CLOEXEC), -ENOSYS);
	assert_result("memfd sealing", memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING), -ENOSYS);
	assert_result("tmpfile", tmpfile_openat(), 0);
	return failures;
}

static int t_6_1(void)
{
	assert_result("load", fakekernel_load("6.1", NULL, 0), 0);
	assert_result("memfd plain", memfd(MFD_CLOEXEC), 0);
	assert_result("memfd sealing", memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING), 0);
	assert_result("memfd exec", memfd(MFD_CLOEXEC | MFD_EXEC), -EINVAL);
	assert_result("memfd noexec seal", memfd(MFD_CLOEXEC | MFD_NOEXEC_SEAL), -EINVAL);
	assert_result("seal exec", seal_exec(), -EINVAL);
	return failures;
}

static int t_6_3_level2(void)
{
	int exec_want = real_level_allows_exec() ? 0 : -EACCES;

	assert_result("load", fakekernel_load("6.3-level2", NULL, 0), 0);
	assert_result("memfd plain", memfd(MFD_CLOEXEC), -EINVAL);
	assert_result("memfd sealing", memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING), -EINVAL);
	assert_result("memfd exec", memfd(MFD_CLOEXEC | MFD_EXEC), exec_want);
	assert_result("memfd noexec seal", memfd(MFD_CLOEXEC | MFD_NOEXEC_SEAL), 0);
	return failures;
}

static int t_notmpfile(void)
{
	assert_result("load", fakekernel_load("notmpfile", NULL, 0), 0);
	assert_result("tmpfile", tmpfile_openat(), -EOPNOTSUPP);
	assert_result("plain open", plain_open(), 0);
	return failures;
}

static int t_noexecveat(void)
{
	assert_result("load", fakekernel_load("noexecveat", NULL, 0), 0);
	assert_result("execveat", execveat_probe(), -ENOSYS);
	return failures;
}

static int t_fail_specs(void)
{
	const char *specs[] = {
		"memfd_create=EACCES",
		"memfd_create[1&0x10==0x10,1&0x1==0x1]=EPERM",
		"fcntl[1&0xffffffff==1033]=EXDEV",
	};

	/* The profile is overridden by the specs, the specs by later ones. */
	assert_result("load", fakekernel_load("6.1", specs, 3), 0);
	assert_result("memfd plain", memfd(MFD_CLOEXEC), -EACCES);
	assert_result("memfd exec cloexec", memfd(MFD_CLOEXEC | MFD_EXEC), -EPERM);
	assert_result("memfd exec", memfd(MFD_EXEC), -EACCES);
	return failures;
}

static int t_fcntl_spec(void)
{
	const char *spec = "fcntl[1&0xffffffff==1033,2&0x20==0x20]=EXDEV";

	assert_result("load", fakekernel_load(NULL, &spec, 1), 0);
	assert_result("seal exec", seal_exec(), -EXDEV);
	return failures;
}

static int t_older_profile_wins(void)
{
	assert_result("load", fakekernel_load("6.1,nomemfd", NULL, 0), 0);
	assert_result("memfd exec", memfd(MFD_CLOEXEC | MFD_EXEC), -ENOSYS);
	return failures;
}

static int t_nnp_admin(void)
{
	assert_result("load", fakekernel_load("nomemfd", NULL, 0), 0);
	assert_result("nnp", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);
	return failures;
}

static void cap_freep(cap_t *caps)
{
	if (*caps)
		cap_free(*caps);
}

static int t_nnp_no_admin(void)
{
	_cleanup_(cap_freep) cap_t caps = cap_get_proc();
	cap_value_t admin = CAP_SYS_ADMIN;

	if (!caps || cap_set_flag(caps, CAP_EFFECTIVE, 1, &admin, CAP_CLEAR) < 0 ||
	    cap_set_proc(caps) < 0) {
		fail("drop CAP_SYS_ADMIN: %s", strerror(errno));
		return 1;
	}
	assert_result("load", fakekernel_load("nomemfd", NULL, 0), 0);
	assert_result("nnp", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
	assert_result("memfd", memfd(MFD_CLOEXEC), -ENOSYS);
	return failures;
}

int main(void)
{
	test_tables();
	in_child("baseline", t_baseline);
	in_child("bad spec loads nothing", t_bad_spec_loads_nothing);
	in_child("nomemfd", t_nomemfd);
	in_child("6.1", t_6_1);
	in_child("6.3-level2", t_6_3_level2);
	in_child("notmpfile", t_notmpfile);
	in_child("noexecveat", t_noexecveat);
	in_child("fail specs", t_fail_specs);
	in_child("fcntl spec", t_fcntl_spec);
	in_child("older profile wins", t_older_profile_wins);
	if (geteuid() == 0) {
		in_child("nnp off with CAP_SYS_ADMIN", t_nnp_admin);
		in_child("nnp on without CAP_SYS_ADMIN", t_nnp_no_admin);
	} else {
		/* Without CAP_SYS_ADMIN, only the NNP path can work. */
		in_child("nnp on without CAP_SYS_ADMIN", t_nnp_no_admin);
	}
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
