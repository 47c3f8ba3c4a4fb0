/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for cloned_binary, in the manner of the kernel's memfd_test.c:
 * assert_* / fail_* pairs on the fds the library hands back.
 *
 *   cloned_binary_test CASE     run one case (CTest runs each in its own
 *                               process, with a timeout)
 *   cloned_binary_test --list   print the case names
 *
 * Exit 0 pass, 1 fail, 77 skip (only when CI is not "true": in CI a
 * missing requirement fails).  Cases that need a vm.memfd_noexec level set
 * it in a child PID namespace, never in the initial one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cloned-binary.h"
#include "fakekernel.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"

#define SKIP 77

static const char *current;
/* The options every clone of a case uses, and the last error. */
static struct cloned_binary_options opts;
static struct mt_error *last_err;

static const char *last_error(void)
{
	return mt_error_message(last_err);
}

_noreturn_ _printf_(1, 2) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: ", current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

_noreturn_ static void skip(const char *why)
{
	const char *ci = getenv("CI");

	if (ci && strcmp(ci, "true") == 0)
		die("requirement missing in CI: %s", why);
	fprintf(stderr, "SKIP %s: %s\n", current, why);
	exit(SKIP);
}

/* ---- assert/fail pairs -------------------------------------------------- */

static void assert_seals(int fd, unsigned need)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0)
		die("F_GET_SEALS: %m");
	if (((unsigned)seals & need) != need)
		die("seals 0x%x lack 0x%x", seals, need);
}

static void assert_no_seal(int fd, unsigned bit)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0)
		die("F_GET_SEALS: %m");
	if ((unsigned)seals & bit)
		die("seals 0x%x unexpectedly have 0x%x", seals, bit);
}

static void assert_mode(int fd, mode_t want)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die("fstat: %m");
	if ((st.st_mode & 07777) != want)
		die("mode 0%o, expected 0%o", st.st_mode & 07777, want);
}

static void assert_unlinked(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die("fstat: %m");
	if (st.st_nlink != 0)
		die("nlink %lu, expected 0", (unsigned long)st.st_nlink);
}

static void assert_is_sealed(int fd, int want)
{
	int r = cloned_binary_is_sealed(fd, &opts);

	if (r != want)
		die("cloned_binary_is_sealed = %d, expected %d", r, want);
}

static void fail_write(int fd)
{
	if (pwrite(fd, "x", 1, 0) >= 0)
		die("pwrite to sealed copy succeeded");
	if (errno != EPERM)
		die("pwrite: %m, expected EPERM");
}

static void fail_ftruncate(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die("fstat: %m");
	if (ftruncate(fd, 0) == 0 || errno != EPERM)
		die("shrinking ftruncate: %s", errno ? strerror(errno) : "succeeded");
	errno = 0;
	if (ftruncate(fd, st.st_size + 4096) == 0 || errno != EPERM)
		die("growing ftruncate: %s", errno ? strerror(errno) : "succeeded");
}

static void fail_mmap_shared_writable(int fd)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p != MAP_FAILED)
		die("shared writable mmap of sealed copy succeeded");
	if (errno != EPERM)
		die("shared writable mmap: %m, expected EPERM");
}

static void fail_chmod_x(int fd)
{
	if (fchmod(fd, 0444) == 0)
		die("fchmod clearing x bits succeeded despite F_SEAL_EXEC");
	if (errno != EPERM)
		die("fchmod 0444: %m, expected EPERM");
	if (fchmod(fd, 0554) == 0)
		die("fchmod 0554 succeeded despite F_SEAL_EXEC");
}

static void fail_add_seals(int fd)
{
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) == 0 || errno != EPERM)
		die("F_ADD_SEALS after F_SEAL_SEAL: %s", errno ? strerror(errno) : "succeeded");
}

/* The copy must be byte-identical to the source. */
static void assert_same_content(int fd, int src)
{
	_cleanup_close_ int rfd = -EBADF;
	char path[64], a[65536], b[65536];
	off_t off = 0;

	/* O_PATH fds cannot be read: reopen through /proc. */
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDONLY | O_CLOEXEC);
	if (rfd < 0)
		die("reopen copy: %m");
	for (;;) {
		ssize_t n = pread(src, a, sizeof(a), off);
		ssize_t m = pread(rfd, b, sizeof(b), off);

		if (n < 0 || m < 0)
			die("pread: %m");
		if (n != m || memcmp(a, b, (size_t)n) != 0)
			die("copy differs from source at offset %lld", (long long)off);
		if (n == 0)
			return;
		off += n;
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		die("opendir /proc/self/fd: %m");
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		die("opendir %s: %m", dir);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static int open_self(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open /proc/self/exe: %m");
	return fd;
}

static void require_root(void)
{
	if (geteuid() != 0)
		skip("needs root");
}

/* Becomes PID 1 of a new PID namespace at the given level; the parent
 * waits and exits with the child's status.  Only the child returns. */
static void enter_level(int level)
{
	int status, fd;
	char buf[4];
	pid_t pid;

	require_root();
	if (unshare(CLONE_NEWPID) < 0)
		skip("unshare(CLONE_NEWPID) failed");
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (pid > 0) {
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid: %m");
		/* _exit: after unshare(CLONE_NEWPID) our own new threads
		 * (LeakSanitizer's tracer) would land in the dead namespace. */
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	/* A /proc of our own namespace, so that getpid()-based /proc paths
	 * (as LeakSanitizer uses) resolve to us and not to the host's pid 1. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		die("mount a private /proc: %m");
	fd = open("/proc/sys/vm/memfd_noexec", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		skip("no /proc/sys/vm/memfd_noexec (kernel before 6.3?)");
	(void)snprintf(buf, sizeof(buf), "%d\n", level);
	if (write(fd, buf, strlen(buf)) < 0)
		die("set vm.memfd_noexec=%d in child namespace: %m", level);
	close(fd);
	if (mt_memfd_noexec_read() != level)
		die("mt_memfd_noexec_read() = %d, expected %d", mt_memfd_noexec_read(), level);
}

static void emulate(const char *profiles, const char *fail_spec)
{
	const char *specs[1] = {fail_spec};
	int r = fakekernel_load(profiles ? profiles : "", specs, fail_spec ? 1 : 0);

	if (r < 0)
		die("fakekernel_load(%s, %s): %s", profiles ? profiles : "",
		    fail_spec ? fail_spec : "", strerror(-r));
}

/*
 * Most cases test the chain below the overlay method (memfds, then files):
 * they run with the probed features (probed now, or before a case's
 * filter, as the library would) less fsopen.  The overlay cases set
 * overlay_on.
 */
static bool overlay_on;
static struct mt_features no_overlay;

static int do_clone(enum cloned_binary_request req, const char *tmpdir,
		    enum cloned_binary_method expect, int *ret_fd)
{
	_cleanup_close_ int src = open_self();
	enum cloned_binary_method m;
	int fd, r;

	if (!overlay_on && !opts.features) {
		mt_features_probe(&no_overlay);
		no_overlay.fsopen = false;
		opts.features = &no_overlay;
	}
	opts.request = req;
	opts.tmpdir = tmpdir;
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	if (r < 0)
		return r;
	if (m != expect)
		die("method %s, expected %s", cloned_binary_method_to_string(m),
		    cloned_binary_method_to_string(expect));
	assert_same_content(fd, src);
	*ret_fd = fd;
	return 0;
}

static int must_clone(enum cloned_binary_request req, const char *tmpdir,
		      enum cloned_binary_method expect)
{
	int fd, r;

	r = do_clone(req, tmpdir, expect, &fd);
	if (r < 0)
		die("cloned_binary_clone: %s (%s)", strerror(-r), last_error());
	return fd;
}

static void must_fail_clone(enum cloned_binary_request req, int want, const char *msg_part)
{
	int before = count_fds(), fd = -EBADF, r;

	r = do_clone(req, NULL, CLONED_BINARY_METHOD_AUTO, &fd);
	if (r != want)
		die("cloned_binary_clone = %d (%s), expected %d (%s)", r,
		    r < 0 ? strerror(-r) : "success", want, strerror(-want));
	if (count_fds() != before)
		die("fd leaked on failure: %d before, %d after", before, count_fds());
	if (msg_part && !strstr(last_error(), msg_part))
		die("last error '%s' lacks '%s'", last_error(), msg_part);
}

static void check_memfd_exec_copy(int fd)
{
	assert_seals(fd, CLONED_BINARY_MEMFD_SEALS | F_SEAL_EXEC);
	assert_mode(fd, 0555);
	assert_is_sealed(fd, 1);
	fail_write(fd);
	fail_ftruncate(fd);
	fail_mmap_shared_writable(fd);
	fail_chmod_x(fd);
	fail_add_seals(fd);
}

static void check_tmpfile_copy(int fd)
{
	assert_unlinked(fd);
	assert_mode(fd, 0500);
	assert_is_sealed(fd, 1);
	/* O_PATH: no data access through this fd at all. */
	if (pwrite(fd, "x", 1, 0) >= 0 || errno != EBADF)
		die("pwrite through the O_PATH fd: %s", errno ? strerror(errno) : "succeeded");
	if (fcntl(fd, F_GETFL) < 0 || !(fcntl(fd, F_GETFL) & O_PATH))
		die("tmpfile copy is not an O_PATH fd");
}

/* ---- cases -------------------------------------------------------------- */

static void case_memfd_exec_level0(void)
{
	enter_level(0);
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_MEMFD_EXEC);
	check_memfd_exec_copy(fd);
}

static void case_memfd_exec_level1(void)
{
	enter_level(1);
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_MEMFD_EXEC);
	check_memfd_exec_copy(fd);
}

static void case_level2_falls_back(void)
{
	enter_level(2);
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
}

static void case_level2_memfd_only_fails(void)
{
	enter_level(2);
	must_fail_clone(CLONED_BINARY_REQUEST_MEMFD, -EACCES, "vm.memfd_noexec=2");
}

static void case_request_tmpfile(void)
{
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_TMPFILE, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
}

/* A private tmpfs, noexec or not; nothing may be left in it afterwards. */
static void case_tmpdir_noexec_refused(void)
{
	_cleanup_close_ int src = open_self();
	enum cloned_binary_method m;
	int fd = -EBADF, r;

	require_root();
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		skip("private mount namespace");
	(void)mkdir("/tmp/cbtest-noexec", 0700);
	(void)mkdir("/tmp/cbtest-exec", 0700);
	if (mount("tmpfs", "/tmp/cbtest-noexec", "tmpfs", MS_NOEXEC, NULL) < 0 ||
	    mount("tmpfs", "/tmp/cbtest-exec", "tmpfs", 0, NULL) < 0)
		die("mount tmpfs: %m");

	opts.request = CLONED_BINARY_REQUEST_TMPFILE;
	opts.tmpdir = "/tmp/cbtest-noexec";
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	if (r != -EROFS || !strstr(last_error(), "mounted noexec"))
		die("clone into noexec dir = %d (%s), expected -EROFS", r, last_error());

	opts.tmpdir = "/tmp/cbtest-exec";
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	if (r < 0)
		die("clone into exec dir: %s", last_error());
	check_tmpfile_copy(fd);
	if (count_entries("/tmp/cbtest-exec") != 0)
		die("files left behind in the tmpfile directory");
	safe_close(fd);
	(void)umount("/tmp/cbtest-noexec");
	(void)umount("/tmp/cbtest-exec");
	(void)rmdir("/tmp/cbtest-noexec");
	(void)rmdir("/tmp/cbtest-exec");
}

static void case_emul_61(void)
{
	struct mt_features f;

	emulate("6.1", NULL);
	mt_features_probe(&f);
	if (!f.memfd_create || f.mfd_exec || f.seal_exec)
		die("probe under 6.1: memfd_create=%d mfd_exec=%d seal_exec=%d", f.memfd_create,
		    f.mfd_exec, f.seal_exec);
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_MEMFD);
	assert_seals(fd, CLONED_BINARY_MEMFD_SEALS);
	assert_no_seal(fd, F_SEAL_EXEC);
	assert_mode(fd, 0555);
	assert_is_sealed(fd, 1);
	fail_write(fd);
	fail_ftruncate(fd);
	fail_mmap_shared_writable(fd);
}

static void case_emul_nomemfd(void)
{
	struct mt_features f;

	emulate("nomemfd", NULL);
	mt_features_probe(&f);
	if (f.memfd_create)
		die("probe under nomemfd says memfd_create exists");
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
	must_fail_clone(CLONED_BINARY_REQUEST_MEMFD, -ENOSYS, "memfd");
}

static void case_emul_nomemfd_notmpfile(void)
{
	emulate("nomemfd,notmpfile", NULL);
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, "/tmp", CLONED_BINARY_METHOD_MKOSTEMP);
	check_tmpfile_copy(fd);
	{
		/* No name may remain after the unlink. */
		DIR *d = opendir("/tmp");
		struct dirent *de;

		while (d && (de = readdir(d)))
			if (strncmp(de->d_name, ".cloned_binary-", 15) == 0)
				die("left behind /tmp/%s", de->d_name);
		if (d)
			closedir(d);
	}
}

/* A kernel whose probe said MFD_EXEC exists but refuses the flag with
 * EINVAL: the EINVAL retry must run. */
static void case_mfd_exec_einval_retry(void)
{
	struct mt_features f;

	mt_features_probe(&f); /* probe (and cache) before the filter */
	if (!f.mfd_exec)
		skip("kernel without MFD_EXEC");
	emulate(NULL, "memfd_create[1&0x10==0x10]=EINVAL");
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_MEMFD);
	assert_seals(fd, CLONED_BINARY_MEMFD_SEALS);
	assert_mode(fd, 0555);
}

static void case_seal_exec_einval(void)
{
	struct mt_features f;

	mt_features_probe(&f);
	if (!f.seal_exec)
		skip("kernel without F_SEAL_EXEC");
	emulate(NULL, "fcntl[1&0xffffffff==1033,2&0x20==0x20]=EINVAL");
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_MEMFD);
	assert_seals(fd, CLONED_BINARY_MEMFD_SEALS);
	assert_no_seal(fd, F_SEAL_EXEC);
}

/* A sealing failure is a real error: no fallback, no fd left open. */
static void case_add_seals_eperm_fails(void)
{
	mt_features_probe(&(struct mt_features){});
	emulate(NULL, "fcntl[1&0xffffffff==1033]=EPERM");
	must_fail_clone(CLONED_BINARY_REQUEST_AUTO, -EPERM, "seal the memfd");
}

static void case_copy_enospc_fails(void)
{
	mt_features_probe(&(struct mt_features){});
	emulate(NULL, "sendfile=ENOSPC");
	must_fail_clone(CLONED_BINARY_REQUEST_AUTO, -ENOSPC, "copy the binary");
}

/* sendfile refusing the source (EINVAL) falls back to mmap + write, and a
 * failing write then is a real error. */
static void case_copy_fallbacks(void)
{
	mt_features_probe(&(struct mt_features){});
	emulate(NULL, "sendfile=EINVAL");
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_MEMFD_EXEC);
	check_memfd_exec_copy(fd);
	emulate(NULL, "write=EIO");
	must_fail_clone(CLONED_BINARY_REQUEST_AUTO, -EIO, "copy the binary");
}

static void case_memfd_eacces_falls_back(void)
{
	mt_features_probe(&(struct mt_features){});
	emulate(NULL, "memfd_create=EACCES");
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
}

static void case_memfd_enomem_fails(void)
{
	mt_features_probe(&(struct mt_features){});
	emulate(NULL, "memfd_create[1&0x10==0x10]=ENOMEM");
	must_fail_clone(CLONED_BINARY_REQUEST_AUTO, -ENOMEM, "create memfd");
}

static void case_not_regular(void)
{
	_cleanup_close_ int fd = -EBADF;
	enum cloned_binary_method m;
	int p[2], r;

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe2: %m");
	r = cloned_binary_clone(p[0], &opts, &m, &fd, &last_err);
	if (r != -EINVAL)
		die("clone of a pipe = %d, expected -EINVAL", r);
	close(p[0]);
	close(p[1]);
	r = cloned_binary_clone(-1, &opts, &m, &fd, NULL);
	if (r != -EBADF)
		die("clone of fd -1 = %d, expected -EBADF", r);
}

static int make_memfd(unsigned flags, const char *content)
{
	int fd = missing_memfd_create("cbtest", flags);

	if (fd < 0)
		die("memfd_create: %m");
	if (content && write(fd, content, strlen(content)) < 0)
		die("write: %m");
	return fd;
}

/*
 * The reflink is tried only into an empty destination at offset 0: a
 * destination that already holds a prefix keeps it, and the binary
 * follows it.  (If the reflink were tried, the emulated EPERM would fail
 * the copy.)
 */
static void case_copy_reflink_keeps_prefix(void)
{
	_cleanup_close_ int self = open_self(), dst = -EBADF;
	off_t size = lseek(self, 0, SEEK_END);
	char head[5];

	dst = make_memfd(0, "hello");
	emulate(NULL, "ioctl[1==0x4020940d]=EPERM");
	if (cloned_binary_copy(dst, self, (size_t)size, CLONED_BINARY_COPY_AUTO) < 0)
		die("copy after a prefix: %m");
	if (lseek(dst, 0, SEEK_END) != size + 5 ||
	    pread(dst, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, "hello", 5) != 0)
		die("the prefix was not kept, or the copy is incomplete");
}

/*
 * A reflink that is not possible here (EOPNOTSUPP, EXDEV, ENOTTY,
 * EINVAL) moves on to the copy proper, which is complete; any other
 * failure of the ioctl (EPERM) is a real error.
 */
static void case_copy_reflink_errnos(void)
{
	static const struct {
		const char *spec;
		int want;
	} t[] = {
		{"ioctl[1==0x4020940d]=EOPNOTSUPP", 0}, {"ioctl[1==0x4020940d]=EXDEV", 0},
		{"ioctl[1==0x4020940d]=ENOTTY", 0},	{"ioctl[1==0x4020940d]=EINVAL", 0},
		{"ioctl[1==0x4020940d]=EPERM", -EPERM},
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %m");
		if (pid == 0) {
			_cleanup_close_ int self = open_self(), dst = make_memfd(0, "");
			size_t size = (size_t)lseek(self, 0, SEEK_END);
			int r;

			emulate(NULL, t[i].spec);
			r = cloned_binary_copy(dst, self, size, CLONED_BINARY_COPY_AUTO);
			if (r != t[i].want)
				die("%s: copy = %d, want %d", t[i].spec, r, t[i].want);
			if (r == 0)
				assert_same_content(dst, self);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			die("%s failed", t[i].spec);
	}
}

/* Table: what is and is not recognised as a sealed clone. */
static void case_is_sealed_table(void)
{
	char path[] = "/tmp/cbtest-XXXXXX";
	_cleanup_close_ int plain = make_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING, "x");
	_cleanup_close_ int partial = make_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING, "x");
	_cleanup_close_ int full = make_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING, "x");
	_cleanup_close_ int disk = -EBADF, unlinked = -EBADF;
	struct mt_features no_seal_exec;

	if (fcntl(partial, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0 ||
	    fcntl(full, F_ADD_SEALS, 0xf) < 0)
		die("F_ADD_SEALS: %m");

	disk = mkostemp(path, O_CLOEXEC);
	if (disk < 0)
		die("mkostemp: %m");
	if (fchmod(disk, 0555) < 0)
		die("fchmod: %m");

	assert_is_sealed(plain, 0);
	assert_is_sealed(partial, 0);
	assert_is_sealed(disk, 0); /* linked: still reachable on disk */

	/* 0xf is enough only where the kernel has no F_SEAL_EXEC. */
	mt_features_probe(&no_seal_exec);
	assert_is_sealed(full, !no_seal_exec.seal_exec);
	no_seal_exec.seal_exec = false;
	opts.features = &no_seal_exec;
	assert_is_sealed(full, 1);
	opts.features = NULL;

	unlinked = open(path, O_RDONLY | O_CLOEXEC);
	if (unlink(path) < 0)
		die("unlink: %m");
	assert_is_sealed(unlinked, 1); /* unlinked, no write bits, ext4 */
	if (fchmod(disk, 0755) < 0)
		die("fchmod: %m");
	assert_is_sealed(unlinked, 0); /* unlinked but writable */
	if (cloned_binary_is_sealed(-1, &opts) != -EBADF)
		die("is_sealed(-1) did not return -EBADF");
}

/*
 * A memfd is judged on its seals alone.  Memfds always
 * have link count 0, so the file rule ("unlinked, no write bits") must
 * never apply to one: an executable memfd that is still writable by its
 * owner (seals F_SEAL_SEAL only, or none) is not a sealed clone.
 */
static void case_memfd_judged_by_seals(void)
{
	_cleanup_close_ int noseal = make_memfd(MFD_CLOEXEC, "x");
	_cleanup_close_ int open_seals = make_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING, "x");
	_cleanup_close_ int exec_sealed = make_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING, "x");
	struct mt_features f;

	mt_features_probe(&f);
	if (fchmod(noseal, 0555) < 0 || fchmod(open_seals, 0555) < 0 ||
	    fchmod(exec_sealed, 0555) < 0)
		die("fchmod: %m");
	assert_seals(noseal, F_SEAL_SEAL);
	assert_unlinked(noseal);
	assert_is_sealed(noseal, 0);
	assert_is_sealed(open_seals, 0);
	/* Root can still write into them: that is what "not sealed" means. */
	if (pwrite(noseal, "y", 1, 0) != 1 || pwrite(open_seals, "y", 1, 0) != 1)
		die("pwrite to an unsealed memfd: %m");
	if (!f.seal_exec)
		return;
	if (fcntl(exec_sealed, F_ADD_SEALS,
		  F_SEAL_EXEC | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		die("F_ADD_SEALS: %m");
	assert_is_sealed(exec_sealed, 1);
}

static void case_exec_refuses_unsealed(void)
{
	_cleanup_close_ int fd = make_memfd(MFD_CLOEXEC | MFD_ALLOW_SEALING, NULL);
	_cleanup_close_ int src = open("/bin/true", O_RDONLY | O_CLOEXEC);
	char *argv[] = {"true", NULL};
	int r;

	if (src < 0)
		die("open /bin/true: %m");
	if (cloned_binary_copy(fd, src, (size_t)lseek(src, 0, SEEK_END), CLONED_BINARY_COPY_AUTO) <
	    0)
		die("copy: %m");
	r = cloned_binary_exec(fd, argv, argv + 1, &opts, &last_err);
	if (r != -ENOEXEC)
		die("exec of an unsealed memfd = %d, expected -ENOEXEC", r);
}

/* execveat missing: the /proc/self/fd fallback must run the copy. */
static void case_exec_without_execveat(void)
{
	_cleanup_close_ int src = open("/bin/true", O_RDONLY | O_CLOEXEC);
	enum cloned_binary_method m;
	char *argv[] = {"true", NULL};
	int fd, status;
	pid_t pid;

	if (src < 0)
		die("open /bin/true: %m");
	emulate("noexecveat", NULL);
	if (cloned_binary_clone(src, &opts, &m, &fd, &last_err) < 0)
		die("clone: %s", last_error());
	pid = fork();
	if (pid == 0) {
		cloned_binary_exec(fd, argv, argv + 1, &opts, NULL);
		_exit(42);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("copy of /bin/true did not run via /proc/self/fd (status 0x%x)", status);
	safe_close(fd);
}

static void case_copy_methods(void)
{
	static const enum cloned_binary_copy hows[] = {
		CLONED_BINARY_COPY_AUTO,
		CLONED_BINARY_COPY_MMAP,
		CLONED_BINARY_COPY_SENDFILE,
		CLONED_BINARY_COPY_READWRITE,
	};
	_cleanup_close_ int src = make_memfd(MFD_CLOEXEC, NULL);
	size_t size = 3 * 1024 * 1024 + 17;
	_cleanup_free_ char *buf = malloc(size);

	if (!buf)
		die("malloc");
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)(i * 2654435761U >> 13);
	if (write(src, buf, size) != (ssize_t)size)
		die("write source: %m");

	for (size_t i = 0; i < ELEMENTSOF(hows); i++) {
		_cleanup_close_ int dst = make_memfd(MFD_CLOEXEC, NULL);
		_cleanup_close_ int dst2 = make_memfd(MFD_CLOEXEC, NULL);
		int r;

		r = cloned_binary_copy(dst, src, size, hows[i]);
		if (r < 0)
			die("copy method %zu: %s", i, strerror(-r));
		assert_same_content(dst, src);
		/* Asking for more than the source has: -EIO, not a short copy.
		 */
		r = cloned_binary_copy(dst2, src, size + 8192, hows[i]);
		if (r != -EIO)
			die("copy method %zu of a short source = %d, expected -EIO", i, r);
	}
}

static void case_features_override(void)
{
	struct mt_features none = {.o_tmpfile = true, .execveat = true};

	opts.features = &none;
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
	none.o_tmpfile = false;
	_cleanup_close_ int fd2 =
		must_clone(CLONED_BINARY_REQUEST_AUTO, "/tmp", CLONED_BINARY_METHOD_MKOSTEMP);
	check_tmpfile_copy(fd2);
	opts.features = NULL;
	_cleanup_close_ int fd3 =
		must_clone(CLONED_BINARY_REQUEST_TMPFILE, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd3);
}

static void case_names(void)
{
	if (strcmp(cloned_binary_method_to_string(CLONED_BINARY_METHOD_MEMFD_EXEC), "memfd-exec") !=
		    0 ||
	    strcmp(cloned_binary_method_to_string(CLONED_BINARY_METHOD_MEMFD), "memfd") != 0 ||
	    strcmp(cloned_binary_method_to_string(CLONED_BINARY_METHOD_TMPFILE), "tmpfile") != 0 ||
	    strcmp(cloned_binary_method_to_string(CLONED_BINARY_METHOD_MKOSTEMP), "mkostemp") !=
		    0 ||
	    strcmp(cloned_binary_method_to_string(99), "unknown") != 0)
		die("method names");
	if (cloned_binary_request_from_string("memfd") != CLONED_BINARY_REQUEST_MEMFD ||
	    cloned_binary_request_from_string("tmpfile") != CLONED_BINARY_REQUEST_TMPFILE ||
	    cloned_binary_request_from_string("auto") != CLONED_BINARY_REQUEST_AUTO ||
	    cloned_binary_request_from_string("Memfd") != -EINVAL ||
	    cloned_binary_request_from_string("") != -EINVAL ||
	    cloned_binary_request_from_string(NULL) != -EINVAL)
		die("request names");
}

static void case_emul_63_level2(void)
{
	/* The 6.3-6.5.2 bug: flag-less memfd_create is EINVAL at level 2
	 * while MFD_EXEC gets through.  With the sysctl reading 2 the loader
	 * must not use a memfd at all. */
	enter_level(2);
	emulate("6.3-level2", NULL);
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
}

/* ---- the overlay method ------------------------------------------------- */

static char debug_lines[4096];

static void capture(const char *line)
{
	size_t n = strlen(debug_lines);

	(void)snprintf(debug_lines + n, sizeof(debug_lines) - n, "%s\n", line);
}

static int count_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int n = 0;

	if (!f)
		die("open mountinfo: %m");
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static void check_overlay_copy(int fd)
{
	struct statfs sfs;
	char proc[64];
	int w;

	assert_is_sealed(fd, 1);
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != 0x794c7630 || !(sfs.f_flags & ST_RDONLY))
		die("not on a read-only overlayfs");
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	w = open(proc, O_WRONLY | O_CLOEXEC);
	if (w >= 0 || errno != EROFS)
		die("open for writing: %s, expected EROFS", w >= 0 ? "succeeded" : strerror(errno));
	if (fcntl(fd, F_GETFL) < 0 || !(fcntl(fd, F_GETFL) & O_PATH))
		die("overlay fd is not O_PATH");
}

/* No copy: the very file, from a detached mount that no mountinfo shows. */
static void case_overlay_root(void)
{
	int before = count_mounts();
	struct stat a, b;

	require_root();
	overlay_on = true;
	_cleanup_close_ int src = open_self();
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_OVERLAY);
	check_overlay_copy(fd);
	if (fstat(src, &a) < 0 || fstat(fd, &b) < 0 || a.st_ino != b.st_ino)
		die("the overlay file is not the binary itself");
	if (count_mounts() != before)
		die("a mount appeared in mountinfo");
}

/* As a user: through a throwaway user namespace, the same result. */
static void case_overlay_user(void)
{
	require_root();
	if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
		die("become nobody: %m");
	(void)prctl(PR_SET_DUMPABLE, 1);
	overlay_on = true;
	opts.debug = true;
	opts.log = capture;
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_OVERLAY, NULL, CLONED_BINARY_METHOD_OVERLAY);
	check_overlay_copy(fd);
}

/* Each reason to fall back is named, and the chain goes on. */
static void expect_fallback(const char *profile, const char *spec, const char *reason,
			    enum cloned_binary_method m)
{
	overlay_on = true;
	opts.debug = true;
	opts.log = capture;
	emulate(profile, spec);
	safe_close(must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, m));
	if (!strstr(debug_lines, "cloned_binary: overlay not possible (") ||
	    !strstr(debug_lines, reason))
		die("debug lines lack the reason '%s': %s", reason, debug_lines);
}

static void case_overlay_nofsopen(void)
{
	expect_fallback("nofsopen", NULL, "no fsopen() (before Linux 5.2)",
			CLONED_BINARY_METHOD_MEMFD_EXEC);
}

static void case_overlay_nooverlay(void)
{
	require_root();
	expect_fallback("nooverlay", NULL, "setting lowerdir failed",
			CLONED_BINARY_METHOD_MEMFD_EXEC);
}

static void case_overlay_refused(void)
{
	require_root();
	/* FSCONFIG_CMD_CREATE refused, as by an LSM or a bad layer. */
	expect_fallback(NULL, "fsconfig[1==6]=EPERM",
			"making the empty tmpfs layer failed: Operation not permitted",
			CLONED_BINARY_METHOD_MEMFD_EXEC);
}

static void case_overlay_nouserns(void)
{
	require_root();
	if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
		die("become nobody: %m");
	(void)prctl(PR_SET_DUMPABLE, 1);
	expect_fallback("nouserns", NULL, "no unprivileged user namespaces",
			CLONED_BINARY_METHOD_MEMFD_EXEC);
}

/* Asked for by name, a refusal is an error, not a fallback. */
static void case_overlay_forced_fails(void)
{
	overlay_on = true;
	emulate("nofsopen", NULL);
	must_fail_clone(CLONED_BINARY_REQUEST_OVERLAY, -ENOSYS,
			"Failed to open the binary from a detached overlayfs");
}

/*
 * Only a detached, read-only overlay counts: an attached one could be
 * remounted by whoever owns it, and a read-only bind mount of the binary
 * is the original file.
 */
static void case_overlay_attached_not_sealed(void)
{
	_cleanup_close_ int fd = -EBADF, bind = -EBADF;
	char dir[] = "/tmp/cbtest-attached-XXXXXX", ovl[64], empty[64], lower[128], bdir[64];

	require_root();
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		skip("private mount namespace");
	if (!mkdtemp(dir))
		die("mkdtemp: %m");
	(void)snprintf(ovl, sizeof(ovl), "%s/ovl", dir);
	(void)snprintf(empty, sizeof(empty), "%s/empty", dir);
	(void)snprintf(bdir, sizeof(bdir), "%s/bind", dir);
	(void)snprintf(lower, sizeof(lower), "lowerdir=/bin:%s", empty);
	if (mkdir(ovl, 0700) < 0 || mkdir(empty, 0700) < 0 || mkdir(bdir, 0700) < 0)
		die("mkdir: %m");
	if (mount("overlay", ovl, "overlay", MS_RDONLY, lower) < 0)
		die("mount an attached overlay: %m");
	{
		char path[96];

		(void)snprintf(path, sizeof(path), "%s/true", ovl);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		die("open on the attached overlay: %m");
	assert_is_sealed(fd, 0);
	if (mount("/bin", bdir, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, bdir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
		die("read-only bind mount: %m");
	{
		char path[96];

		(void)snprintf(path, sizeof(path), "%s/true", bdir);
		bind = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (bind < 0)
		die("open on the bind mount: %m");
	assert_is_sealed(bind, 0);
	/* The mounts go with this process's mount namespace; the
	 * directories are removed here. */
	fd = safe_close(fd);
	bind = safe_close(bind);
	(void)umount2(ovl, MNT_DETACH);
	(void)umount2(bdir, MNT_DETACH);
	(void)rmdir(ovl);
	(void)rmdir(empty);
	(void)rmdir(bdir);
	(void)rmdir(dir);
}

/*
 * The overlay opens the binary by its path: a different file found there
 * (here one literally named "prog (deleted)", next to the original's
 * unlinked name) must be refused, never run in its place.  The impostor
 * has the original's size and mtime, so only its inode tells.
 */
static void case_overlay_same_file_verified(void)
{
	char dir[] = "/tmp/cbtest-swap-XXXXXX", a[128], b[128], c[128];
	_cleanup_close_ int src = -EBADF, self = open_self();
	enum cloned_binary_method m;
	int fd = -EBADF, r, out;

	require_root();
	if (!mkdtemp(dir))
		die("mkdtemp: %m");
	(void)snprintf(a, sizeof(a), "%s/prog", dir);
	(void)snprintf(b, sizeof(b), "%s/keep", dir);
	(void)snprintf(c, sizeof(c), "%s/prog (deleted)", dir);
	out = open(a, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	if (out < 0 || cloned_binary_copy(out, self, (size_t)lseek(self, 0, SEEK_END),
					  CLONED_BINARY_COPY_READWRITE) < 0)
		die("make the binary: %m");
	close(out);
	src = open(a, O_RDONLY | O_CLOEXEC);
	if (src < 0 || link(a, b) < 0 || unlink(a) < 0)
		die("link and unlink: %m");
	out = open(c, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	if (out < 0 || cloned_binary_copy(out, self, (size_t)lseek(self, 0, SEEK_END),
					  CLONED_BINARY_COPY_READWRITE) < 0)
		die("plant the impostor: %m");
	{
		struct stat st;
		struct timespec ts[2];

		if (fstat(src, &st) < 0)
			die("fstat: %m");
		ts[0] = st.st_atim;
		ts[1] = st.st_mtim;
		if (futimens(out, ts) < 0)
			die("futimens: %m");
	}
	close(out);
	overlay_on = true;
	opts.request = CLONED_BINARY_REQUEST_OVERLAY;
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	(void)unlink(b);
	(void)unlink(c);
	(void)rmdir(dir);
	if (r != -ESTALE || !strstr(last_error(), "verifying it is the same"))
		die("clone = %d (%s), expected -ESTALE", r, last_error());
}

/*
 * Detached is not enough: an overlay with an upper layer is writable, so
 * a file on it is no sealed copy however it was mounted.
 */
static void case_overlay_writable_not_sealed(void)
{
	char dir[] = "/tmp/cbtest-rw-XXXXXX", upper[64], work[64];
	_cleanup_close_ int fsfd = -EBADF, mnt = -EBADF, fd = -EBADF;

	require_root();
	if (!mkdtemp(dir))
		die("mkdtemp: %m");
	(void)snprintf(upper, sizeof(upper), "%s/upper", dir);
	(void)snprintf(work, sizeof(work), "%s/work", dir);
	if (mkdir(upper, 0700) < 0 || mkdir(work, 0700) < 0)
		die("mkdir: %m");
	fsfd = missing_fsopen("overlay", FSOPEN_CLOEXEC);
	if (fsfd < 0)
		skip("no fsopen() for overlayfs");
	if (missing_fsconfig(fsfd, FSCONFIG_SET_STRING, "lowerdir", "/bin", 0) < 0 ||
	    missing_fsconfig(fsfd, FSCONFIG_SET_STRING, "upperdir", upper, 0) < 0 ||
	    missing_fsconfig(fsfd, FSCONFIG_SET_STRING, "workdir", work, 0) < 0 ||
	    missing_fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die("configure a writable overlay: %m");
	mnt = missing_fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID);
	if (mnt < 0)
		die("fsmount: %m");
	fd = openat(mnt, "true", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open on the writable overlay: %m");
	assert_is_sealed(fd, 0);
	fd = safe_close(fd);
	mnt = safe_close(mnt);
	/* The mount is gone with its last fd; the kernel's own work dirs are
	 * left empty. */
	for (const char *const *sub = (const char *const[]){"/work/work", "/work/index", "/work",
							    "/upper", "", NULL};
	     *sub; sub++) {
		char p[96];
		(void)snprintf(p, sizeof(p), "%s%s", dir, *sub);
		(void)rmdir(p);
	}
}

/* ---- the overlay only for a file no one else can rewrite --------------- */

/* dir/sub/prog, a copy of this program; modes and owners set by the case.
 * Paths in the static buffers below. */
static char t35_dir[] = "/tmp/cbtest-trust-XXXXXX", t35_sub[64], t35_prog[96];

static void trust_tree(void)
{
	_cleanup_close_ int self = open_self();
	int out;

	if (!mkdtemp(t35_dir) || chmod(t35_dir, 0755) < 0)
		die("mkdtemp: %m");
	(void)snprintf(t35_sub, sizeof(t35_sub), "%s/sub", t35_dir);
	(void)snprintf(t35_prog, sizeof(t35_prog), "%s/prog", t35_sub);
	if (mkdir(t35_sub, 0755) < 0)
		die("mkdir: %m");
	out = open(t35_prog, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0 || cloned_binary_copy(out, self, (size_t)lseek(self, 0, SEEK_END),
					  CLONED_BINARY_COPY_READWRITE) < 0)
		die("make the binary: %m");
	close(out);
}

static void trust_tree_remove(void)
{
	(void)unlink(t35_prog);
	(void)rmdir(t35_sub);
	(void)rmdir(t35_dir);
}

/* The clone of t35_prog with request req: its result, method and fd. */
static int trust_clone(enum cloned_binary_request req, enum cloned_binary_method *m, int *fd)
{
	_cleanup_close_ int src = open(t35_prog, O_RDONLY | O_CLOEXEC);

	if (src < 0)
		die("open %s: %m", t35_prog);
	mt_error_free(&last_err);
	debug_lines[0] = '\0';
	opts.request = req;
	opts.debug = true;
	opts.log = capture;
	return cloned_binary_clone(src, &opts, m, fd, &last_err);
}

/*
 * Table: what is changed (owner, mode) on which path, and whether the
 * overlay may still be used.  Each untrusted row: auto falls back to a
 * memfd with the reason in the debug line, a forced overlay fails with
 * -EPERM and a message naming the path, owner and mode, rule, remedy.
 */
static void case_overlay_trust_rules(void)
{
	static const struct {
		int which; /* 0 the file, 1 its directory, 2 the one above */
		uid_t uid;
		mode_t mode;
		bool overlay;
		const char *found;
	} rows[] = {
		{0, 0, 0755, true, NULL},
		{0, 65534, 0755, false, "is owned by another user (owner uid 65534, mode 0755"},
		{0, 0, 0775, false,
		 "is writable by group or others (or by a POSIX ACL entry) (owner uid 0, mode 0775"},
		{0, 0, 01775, false,
		 "is writable by group or others (or by a POSIX ACL entry) (owner uid 0, mode 1775"},
		{0, 0, 0757, false,
		 "is writable by group or others (or by a POSIX ACL entry) (owner uid 0, mode 0757"},
		{1, 65534, 0755, false, "is owned by another user (owner uid 65534"},
		{1, 0, 0777, false,
		 "is writable by group or others without the sticky bit (owner uid 0, mode 0777"},
		{1, 0, 01777, true, NULL},
		{2, 65534, 0755, false, "is owned by another user"},
		{2, 0, 0775, false, "is writable by group or others without the sticky bit"},
		{2, 0, 01777, true, NULL},
	};

	require_root();
	overlay_on = true;
	trust_tree();
	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		const char *path = rows[i].which == 0	? t35_prog
				   : rows[i].which == 1 ? t35_sub
							: t35_dir;
		enum cloned_binary_method m;
		char want[256];
		int fd = -EBADF, r;

		if (chown(path, rows[i].uid, 0) < 0 || chmod(path, rows[i].mode) < 0)
			die("chown/chmod %s: %m", path);
		r = trust_clone(CLONED_BINARY_REQUEST_AUTO, &m, &fd);
		if (r < 0)
			die("row %zu: auto failed: %s", i, last_error());
		safe_close(fd);
		if (rows[i].overlay != (m == CLONED_BINARY_METHOD_OVERLAY))
			die("row %zu: auto used %s: %s", i, cloned_binary_method_to_string(m),
			    debug_lines);
		r = trust_clone(CLONED_BINARY_REQUEST_OVERLAY, &m, &fd);
		if (rows[i].overlay) {
			if (r < 0)
				die("row %zu: overlay refused: %s", i, last_error());
			safe_close(fd);
		} else {
			(void)snprintf(want, sizeof(want), "the %s %s %s",
				       rows[i].which ? "directory" : "file", path, rows[i].found);
			if (r != -EPERM || !strstr(last_error(), want) ||
			    !strstr(last_error(),
				    "Failed to open the binary from a detached overlayfs (overlay): ") ||
			    !strstr(last_error(), "no one else can rewrite") ||
			    !strstr(last_error(), "chmod go-w"))
				die("row %zu: overlay = %d (%s), expected -EPERM with '%s'", i, r,
				    last_error(), want);
			if (!strstr(debug_lines, "cloned_binary: overlay not possible (") ||
			    !strstr(debug_lines, want))
				die("row %zu: the debug line lacks '%s': %s", i, want, debug_lines);
		}
		if (chown(path, 0, 0) < 0 || chmod(path, 0755) < 0)
			die("restore %s: %m", path);
	}
	trust_tree_remove();
}

/*
 * --check (is_sealed) of an overlay file: owned by another user, or
 * writable by group or others, it is no sealed clone; the same overlay over
 * a root-owned 0755 file is (the test holds the mount fd, so the superblock
 * proof runs for real).
 */
static int test_overlay(const char *lower, const char *name, int *ret_mnt)
{
	_cleanup_close_ int ctx = missing_fsopen("overlay", FSOPEN_CLOEXEC);
	int mnt, fd;

	if (ctx < 0)
		skip("no fsopen() for overlayfs");
	if (missing_fsconfig(ctx, FSCONFIG_SET_STRING, "lowerdir", lower, 0) < 0 ||
	    missing_fsconfig(ctx, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die("make an overlay of %s: %m", lower);
	mnt = missing_fsmount(ctx, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mnt < 0)
		die("fsmount: %m");
	fd = openat(mnt, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open %s on the overlay: %m", name);
	*ret_mnt = mnt;
	return fd;
}

static void case_overlay_owner_not_sealed(void)
{
	char lower[160], empty[96];

	require_root();
	trust_tree();
	(void)snprintf(empty, sizeof(empty), "%s/empty", t35_dir);
	(void)snprintf(lower, sizeof(lower), "%s:%s", t35_sub, empty);
	if (mkdir(empty, 0700) < 0)
		die("mkdir: %m");
	for (int row = 0; row < 3; row++) {
		_cleanup_close_ int mnt = -EBADF, fd = -EBADF;

		if (chown(t35_prog, row == 1 ? 65534 : 0, 0) < 0 ||
		    chmod(t35_prog, row == 2 ? 0775 : 0755) < 0)
			die("chown/chmod: %m");
		fd = test_overlay(lower, "prog", &mnt);
		assert_is_sealed(fd, row == 0 ? 1 : 0);
	}
	(void)rmdir(empty);
	trust_tree_remove();
}

/* ---- where global root is unmapped ----------------------------------------
 *
 * In a user namespace that maps one ordinary uid only (as rootless podman's
 * and `unshare -U -r` do), root's files and every other unmapped user's show
 * as the overflow uid: the overlay takes such an owner for root only when
 * the caller proved it (overflow_uid_is_root).  Each row runs in a child
 * that enters such a namespace; the parent (root) sets the owners.
 */
#define T41_USER 4242  /* the namespace's only uid, shown there as 0 */
#define T41_OTHER 4343 /* another user, unmapped there */

static void write_or_die(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("write %s: %m", path);
}

static void enter_userns_of(uid_t uid)
{
	char map[64];

	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		die("become uid %u: %m", (unsigned)uid);
	(void)prctl(PR_SET_DUMPABLE, 1);
	if (unshare(CLONE_NEWUSER) < 0)
		skip("no unprivileged user namespaces");
	(void)snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	write_or_die("/proc/self/setgroups", "deny");
	write_or_die("/proc/self/uid_map", map);
	write_or_die("/proc/self/gid_map", map);
}

/* Runs fn in a child; dies if the child failed. */
static void in_child(const char *what, void (*fn)(const void *), const void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		die("%s: the child did not exit", what);
	if (WEXITSTATUS(status) == SKIP)
		exit(SKIP);
	if (WEXITSTATUS(status) != 0)
		die("%s: failed (above)", what);
}

static char t41_ram[96], t41_prog[128];

/* The trees of the cases below, removed at exit: a failed row too (a
 * child that fails removes them as it exits; its parent then fails). */
static void t41_remove(void)
{
	if (t41_ram[0])
		(void)rmdir(t41_ram);
	trust_tree_remove();
}

struct t41_row {
	uid_t file, dir;    /* owners of t35_prog and t35_sub */
	bool proven;	    /* overflow_uid_is_root */
	bool overlay;	    /* auto takes the overlay */
	const char *refuse; /* else: the path the reason names, and how */
};

/* auto and a forced overlay with the row's proof, and is_sealed. */
static void clone_expect(const char *src_path, bool overlay, const char *want)
{
	_cleanup_close_ int src = open(src_path, O_RDONLY | O_CLOEXEC);
	enum cloned_binary_method m;
	int fd = -EBADF, r;

	if (src < 0)
		die("open %s: %m", src_path);
	opts.debug = true;
	opts.log = capture;
	debug_lines[0] = '\0';
	opts.request = CLONED_BINARY_REQUEST_AUTO;
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	if (r < 0)
		die("auto failed: %s", last_error());
	if (overlay != (m == CLONED_BINARY_METHOD_OVERLAY))
		die("auto used %s: %s", cloned_binary_method_to_string(m), debug_lines);
	if (overlay) {
		/* An owner proven root counts only with the proof, for
		 * exec's check too. */
		assert_is_sealed(fd, 1);
		if (opts.overflow_uid_is_root) {
			opts.overflow_uid_is_root = false;
			assert_is_sealed(fd, 0);
			opts.overflow_uid_is_root = true;
		}
		safe_close(fd);
		return;
	}
	safe_close(fd);
	if (!strstr(debug_lines, "cloned_binary: overlay not possible (") ||
	    !strstr(debug_lines, want))
		die("the debug line lacks '%s': %s", want, debug_lines);
	opts.request = CLONED_BINARY_REQUEST_OVERLAY;
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	if (r != -EPERM || !strstr(last_error(), want) ||
	    !strstr(last_error(),
		    "Failed to open the binary from a detached overlayfs (overlay): "))
		die("forced overlay = %d (%s), expected -EPERM with '%s'", r, last_error(), want);
}

static void t41_child(const void *arg)
{
	const struct t41_row *row = arg;
	char want[256];
	long unmapped;

	enter_userns_of(T41_USER);
	unmapped = cloned_binary_unmapped_uid();
	if (unmapped < 0)
		die("cloned_binary_unmapped_uid() = %ld where root is unmapped", unmapped);
	overlay_on = true;
	opts.overflow_uid_is_root = row->proven;
	(void)snprintf(
		want, sizeof(want),
		"%s shows as owned by uid %ld, the overflow uid (mode 0755; we are uid 0): global root is unmapped in this user namespace",
		row->refuse ? row->refuse : "", unmapped);
	clone_expect(t35_prog, row->overlay, want);
}

/*
 * Only procfs's own overflowuid counts: a file of uid 4343 holding "4343",
 * mounted over it, would make 4343's files pass for root's wherever a
 * caller gives the proof.
 */
static void t41_forged_child(const void *arg)
{
	char path[] = "/tmp/cbtest-overflowuid-XXXXXX";
	int fd = mkstemp(path);

	(void)arg;
	if (fd < 0 || write(fd, "4343\n", 5) != 5 || fchown(fd, T41_OTHER, 0) < 0)
		die("make %s: %m", path);
	close(fd);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(path, "/proc/sys/kernel/overflowuid", NULL, MS_BIND, NULL) < 0) {
		(void)unlink(path);
		die("bind %s on /proc/sys/kernel/overflowuid: %m", path);
	}
	(void)unlink(path);
	if (cloned_binary_unmapped_uid() != -1)
		die("a file mounted over overflowuid was believed: %ld",
		    cloned_binary_unmapped_uid());
}

/* The packaged-path proof: the same inode, and nothing else passes. */
static void case_exe_is(void)
{
	char path[] = "/tmp/cbtest-exe-is-XXXXXX", link[64];
	int exe, r;

	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0)
		die("open /proc/self/exe: %m");
	r = cloned_binary_exe_is(exe, "/proc/self/exe");
	if (r != 1)
		die("our own exe: got %d, want 1", r);
	/* A copy of the same bytes is another file. */
	if (mkstemp(path) < 0)
		die("mkstemp: %m");
	r = cloned_binary_exe_is(exe, path);
	if (r != 0)
		die("another file: got %d, want 0", r);
	/* A symlink to it is followed (the path names where it is installed). */
	(void)snprintf(link, sizeof(link), "%s.link", path);
	if (symlink("/proc/self/exe", link) < 0)
		die("symlink: %m");
	r = cloned_binary_exe_is(exe, link);
	(void)unlink(link);
	(void)unlink(path);
	if (r != 1)
		die("a link to our exe: got %d, want 1", r);
	if ((r = cloned_binary_exe_is(exe, path)) != 0)
		die("a path that is gone: got %d, want 0", r);
	if ((r = cloned_binary_exe_is(exe, "relative")) != -EINVAL)
		die("a relative path: got %d, want -EINVAL", r);
	if ((r = cloned_binary_exe_is(exe, "/")) != 0)
		die("a directory: got %d, want 0", r);
	(void)close(exe);
	if ((r = cloned_binary_exe_is(exe, "/proc/self/exe")) != -EBADF)
		die("a closed fd: got %d, want -EBADF", r);
}

static void case_overlay_overflow_uid(void)
{
	char file[128], dir[128];
	const struct t41_row rows[] = {
		/* root's file: it cannot be told from another's there */
		{0, 0, false, false, file},
		/* the case: another user's, mode 0755 */
		{T41_OTHER, 0, false, false, file},
		/* ours, in root's directory */
		{T41_USER, 0, false, false, dir},
		/* the caller proved it: root's file and directories */
		{0, 0, true, true, NULL},
	};

	require_root();
	/* In the initial user namespace the overflow uid is an ordinary
	 * user (case_overlay_trust_rules refuses it as one). */
	if (cloned_binary_unmapped_uid() != -1)
		die("cloned_binary_unmapped_uid() = %ld in the initial user namespace",
		    cloned_binary_unmapped_uid());
	in_child("forged overflowuid", t41_forged_child, NULL);
	trust_tree();
	atexit(t41_remove);
	(void)snprintf(file, sizeof(file), "the file %s", t35_prog);
	(void)snprintf(dir, sizeof(dir), "the directory %s", t35_sub);
	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		char what[32];

		if (chown(t35_prog, rows[i].file, 0) < 0 || chown(t35_sub, rows[i].dir, 0) < 0)
			die("chown: %m");
		(void)snprintf(what, sizeof(what), "row %zu", i);
		in_child(what, t41_child, &rows[i]);
	}
}

/*
 * The filesystem rule for the directories above the binary: a binary on
 * ext4 whose directory is mounted inside a directory of a filesystem the
 * file methods refuse (ramfs here, which the kernel keeps honest but which
 * stands for FUSE, NFS, 9p and SMB in one privileged test: tmpdir.bats
 * has the FUSE file) gets a copy; the same file through its ext4 path gets
 * the overlay.
 */
static void t41_fs_child(const void *arg)
{
	char want[160], sub[112];

	(void)arg;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("a mount namespace: %m");
	if (mount("ramfs", t41_ram, "ramfs", 0, "mode=0755") < 0)
		skip("no ramfs");
	(void)snprintf(sub, sizeof(sub), "%s/sub", t41_ram);
	if (mkdir(sub, 0755) < 0 || mount(t35_sub, sub, NULL, MS_BIND, NULL) < 0)
		die("bind %s on %s: %m", t35_sub, sub);
	overlay_on = true;
	clone_expect(t35_prog, true, NULL);
	(void)snprintf(want, sizeof(want), "the directory %s is on filesystem 0x%lx, where",
		       t41_ram, (unsigned long)RAMFS_MAGIC);
	clone_expect(t41_prog, false, want);
}

static void case_overlay_untrusted_fs_dir(void)
{
	require_root();
	trust_tree();
	atexit(t41_remove);
	(void)snprintf(t41_ram, sizeof(t41_ram), "%s/ram", t35_dir);
	(void)snprintf(t41_prog, sizeof(t41_prog), "%s/sub/prog", t41_ram);
	if (mkdir(t41_ram, 0755) < 0)
		die("mkdir %s: %m", t41_ram);
	in_child("ramfs", t41_fs_child, NULL);
}

/* ---- the superblock proof fails closed ------------------------------------
 *
 * An overlay of /usr/bin made here (not by the loader, so the proof runs),
 * judged with open_tree() failing in each way.  Only EPERM (no privilege)
 * and an EINVAL from a kernel that clones no detached mount at all (the
 * probe's open_tree(".") fails too) leave it sealed; an EINVAL for this
 * mount alone (AT_EMPTY_PATH: the proof's own call, as an unbindable mount
 * makes it) and any other errno do not.
 */
static void proof_row(const char *spec, int want)
{
	char empty[] = "/tmp/cbtest-proof-XXXXXX", lower[64];
	_cleanup_close_ int mnt = -EBADF, fd = -EBADF;
	pid_t pid;
	int status;

	require_root();
	if (!mkdtemp(empty))
		die("mkdtemp: %m");
	(void)snprintf(lower, sizeof(lower), "/usr/bin:%s", empty);
	fd = test_overlay(lower, "true", &mnt);
	pid = fork();
	if (pid == 0) {
		emulate(NULL, spec);
		assert_is_sealed(fd, want);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		die("fork: %m");
	(void)rmdir(empty);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("%s: is_sealed was not %d", spec ? spec : "no fault", want);
}

static void case_proof_fails_closed(void)
{
	proof_row(NULL, 1);
	proof_row("open_tree=ENOMEM", 0);
	proof_row("open_tree[2&0x1000==0x1000]=EINVAL", 0);
	proof_row("pipe2=EMFILE", 0);
	proof_row("unshare=ENOMEM", 0);
}

static void case_proof_documented_cases(void)
{
	proof_row("open_tree=EPERM", 1);  /* rootless: no CAP_SYS_ADMIN */
	proof_row("open_tree=EINVAL", 1); /* before 6.15: none cloned */
}

/* ---- results are verified, not trusted ---------------------------------- */

/* F_ADD_SEALS "succeeds" without sealing: the read-back must catch it. */
static void case_seals_verified(void)
{
	mt_features_probe(&(struct mt_features){});
	emulate(NULL, "fcntl[1&0xffffffff==1033]=0");
	must_fail_clone(CLONED_BINARY_REQUEST_MEMFD, -ENOEXEC, "seal the memfd");
}

/* unlink "succeeds" without unlinking: the name must be refused before
 * a byte is written, so nothing but an empty file can be left. */
static void case_unlink_verified(void)
{
	char dir[] = "/tmp/cbtest-unlink-XXXXXX";
	struct dirent *de;
	DIR *d;

	if (!mkdtemp(dir))
		die("mkdtemp: %m");
	emulate("nomemfd,notmpfile", "unlinkat=0");
	opts.request = CLONED_BINARY_REQUEST_TMPFILE;
	opts.tmpdir = dir;
	{
		_cleanup_close_ int src = open_self();
		enum cloned_binary_method m;
		int fd = -EBADF, r;

		r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
		if (r != -ENOEXEC || !strstr(last_error(), "still has 1 link"))
			die("clone = %d (%s), expected -ENOEXEC", r, last_error());
	}
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char path[512];
		struct stat st;

		if (de->d_name[0] == '.' && strncmp(de->d_name, ".cloned", 7))
			continue;
		(void)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || st.st_size != 0)
			die("a named copy was left: %s", path);
		(void)remove(path);
	}
	if (d)
		closedir(d);
	(void)rmdir(dir);
}

/* The source grows while it is copied: a torn copy, never used. */
static const char *grow_path;
extern ssize_t __real_sendfile(int out, int in, off_t *off, size_t n);
ssize_t __wrap_sendfile(int out, int in, off_t *off, size_t n);
ssize_t __wrap_sendfile(int out, int in, off_t *off, size_t n)
{
	ssize_t r = __real_sendfile(out, in, off, n);
	int fd;

	if (grow_path && r > 0) {
		fd = open(grow_path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			(void)!write(fd, "x", 1);
			close(fd);
		}
		grow_path = NULL;
	}
	return r;
}

static void case_source_size_rechecked(void)
{
	char path[] = "/tmp/cbtest-grow-XXXXXX";
	_cleanup_close_ int self = open_self();
	_cleanup_close_ int src = -EBADF;
	enum cloned_binary_method m;
	int tmp, fd = -EBADF, r;

	tmp = mkostemp(path, O_CLOEXEC);
	if (tmp < 0 || cloned_binary_copy(tmp, self, (size_t)lseek(self, 0, SEEK_END),
					  CLONED_BINARY_COPY_READWRITE) < 0)
		die("make a source: %m");
	close(tmp);
	src = open(path, O_RDONLY | O_CLOEXEC);
	grow_path = path;
	opts.request = CLONED_BINARY_REQUEST_MEMFD;
	r = cloned_binary_clone(src, &opts, &m, &fd, &last_err);
	(void)unlink(path);
	if (r != -EIO || !strstr(last_error(), "copy the binary"))
		die("clone of a growing source = %d (%s), expected -EIO", r, last_error());
}

/* A memfd that comes out without x bits (level 1, no MFD_EXEC) is a
 * policy answer: the copy goes to a file. */
static void case_no_x_bits_falls_back(void)
{
	struct mt_features f;

	enter_level(1);
	mt_features_probe(&f);
	f.mfd_exec = false;
	f.fsopen = false;
	opts.features = &f;
	opts.debug = true;
	opts.log = capture;
	_cleanup_close_ int fd =
		must_clone(CLONED_BINARY_REQUEST_AUTO, NULL, CLONED_BINARY_METHOD_TMPFILE);
	check_tmpfile_copy(fd);
	if (!strstr(debug_lines, "memfd not possible"))
		die("no fallback marker: %s", debug_lines);
}

/* The re-exec marker stops a second re-exec (the loop guard). */
static void case_ensure_loop_guard(void)
{
	setenv("_CLONED_BINARY_REEXEC", "1", 1);
	if (cloned_binary_ensure(&opts, &last_err) != -ELOOP ||
	    !strstr(last_error(), "after one re-exec"))
		die("ensure with the marker set: %s", last_error());
	if (getenv("_CLONED_BINARY_REEXEC"))
		die("the marker was left set");
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{"memfd_exec_level0", case_memfd_exec_level0},
	{"memfd_exec_level1", case_memfd_exec_level1},
	{"level2_falls_back", case_level2_falls_back},
	{"level2_memfd_only_fails", case_level2_memfd_only_fails},
	{"request_tmpfile", case_request_tmpfile},
	{"tmpdir_noexec_refused", case_tmpdir_noexec_refused},
	{"emul_61", case_emul_61},
	{"emul_nomemfd", case_emul_nomemfd},
	{"emul_nomemfd_notmpfile", case_emul_nomemfd_notmpfile},
	{"emul_63_level2", case_emul_63_level2},
	{"mfd_exec_einval_retry", case_mfd_exec_einval_retry},
	{"seal_exec_einval", case_seal_exec_einval},
	{"add_seals_eperm_fails", case_add_seals_eperm_fails},
	{"copy_enospc_fails", case_copy_enospc_fails},
	{"copy_fallbacks", case_copy_fallbacks},
	{"memfd_eacces_falls_back", case_memfd_eacces_falls_back},
	{"memfd_enomem_fails", case_memfd_enomem_fails},
	{"not_regular", case_not_regular},
	{"is_sealed_table", case_is_sealed_table},
	{"memfd_judged_by_seals", case_memfd_judged_by_seals},
	{"exec_refuses_unsealed", case_exec_refuses_unsealed},
	{"exec_without_execveat", case_exec_without_execveat},
	{"copy_methods", case_copy_methods},
	{"features_override", case_features_override},
	{"names", case_names},
	{"overlay_root", case_overlay_root},
	{"overlay_user", case_overlay_user},
	{"overlay_nofsopen", case_overlay_nofsopen},
	{"overlay_nooverlay", case_overlay_nooverlay},
	{"overlay_refused", case_overlay_refused},
	{"overlay_nouserns", case_overlay_nouserns},
	{"overlay_forced_fails", case_overlay_forced_fails},
	{"overlay_attached_not_sealed", case_overlay_attached_not_sealed},
	{"overlay_same_file_verified", case_overlay_same_file_verified},
	{"copy_reflink_keeps_prefix", case_copy_reflink_keeps_prefix},
	{"copy_reflink_errnos", case_copy_reflink_errnos},
	{"overlay_writable_not_sealed", case_overlay_writable_not_sealed},
	{"overlay_trust_rules", case_overlay_trust_rules},
	{"overlay_owner_not_sealed", case_overlay_owner_not_sealed},
	{"overlay_overflow_uid", case_overlay_overflow_uid},
	{"exe_is", case_exe_is},
	{"overlay_untrusted_fs_dir", case_overlay_untrusted_fs_dir},
	{"proof_fails_closed", case_proof_fails_closed},
	{"proof_documented_cases", case_proof_documented_cases},
	{"seals_verified", case_seals_verified},
	{"unlink_verified", case_unlink_verified},
	{"source_size_rechecked", case_source_size_rechecked},
	{"no_x_bits_falls_back", case_no_x_bits_falls_back},
	{"ensure_loop_guard", case_ensure_loop_guard},
};

int main(int argc, char *argv[])
{
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < ELEMENTSOF(cases); i++)
			puts(cases[i].name);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "Usage: cloned_binary_test CASE|--list\n");
		return 2;
	}
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		if (strcmp(argv[1], cases[i].name) == 0) {
			current = cases[i].name;
			cases[i].fn();
			printf("PASS %s\n", current);
			return 0;
		}
	fprintf(stderr, "cloned_binary_test: unknown case '%s'; see --list\n", argv[1]);
	return 2;
}
