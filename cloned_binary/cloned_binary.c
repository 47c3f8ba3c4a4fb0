/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sealed W^X loader.  See cloned_binary.h for the contract and
 * ../shared/KERNEL.md (in the project's shared notes) for the kernel facts
 * each branch below relies on.
 *
 * Order of methods (auto):
 *   1. memfd-exec: memfd_create(MFD_EXEC), copy, F_SEAL_EXEC (which on an
 *      executable memfd also implies the write seals), then the write seals
 *      explicitly, read back with F_GET_SEALS and checked as a mask.
 *   2. memfd: the same without MFD_EXEC/F_SEAL_EXEC, where the kernel does
 *      not know the flag (EINVAL, before 6.3); the mode must show x bits.
 *   3. tmpfile / mkostemp: an unlinked file in a directory that permits
 *      exec, with no write bits, reopened O_PATH; nlink == 0 is verified.
 * Policy refusals (EACCES/EPERM: vm.memfd_noexec=2) and ENOSYS move on to 3.
 * Every other errno is a real failure and is returned as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cloned_binary.h"
#include "fd-util.h"
#include "macro.h"
#include "missing_syscall.h"

#define REEXEC_ENV "_CLONED_BINARY_REEXEC"
#define CMDLINE_MAX (4U * 1024 * 1024)

extern char **environ;

/* ---- debug markers and error details ------------------------------------ */

static bool debug_on;
static void (*debug_log_fn)(const char *line);
static __thread char last_error[256];

void cloned_binary_set_debug(bool on)
{
	debug_on = on;
}

bool cloned_binary_debug_enabled(void)
{
	const char *e;

	if (debug_on)
		return true;
	e = getenv("SEALEXEC_DEBUG");
	return e && strcmp(e, "1") == 0;
}

void cloned_binary_set_log_fn(void (*log_fn)(const char *line))
{
	debug_log_fn = log_fn;
}

_printf_(1, 2) static void debug(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int saved = errno;

	if (!cloned_binary_debug_enabled())
		return;

	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);

	if (debug_log_fn)
		debug_log_fn(line);
	else
		(void)dprintf(STDERR_FILENO, "%s\n", line);
	errno = saved;
}

/* Records "Failed to <step> (<method>): <strerror>" and returns r. */
_printf_(2, 3) static int fail(int r, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	(void)snprintf(last_error, sizeof(last_error), "Failed to %s: %s", what,
		       strerror(-r));
	debug("cloned_binary: %s", last_error);
	return r;
}

const char *cloned_binary_last_error(void)
{
	return last_error[0] ? last_error : "no error recorded";
}

/* ---- names --------------------------------------------------------------- */

static const char *const method_names[_CLONED_BINARY_METHOD_MAX] = {
	[CLONED_BINARY_METHOD_AUTO] = "auto",
	[CLONED_BINARY_METHOD_MEMFD_EXEC] = "memfd-exec",
	[CLONED_BINARY_METHOD_MEMFD] = "memfd",
	[CLONED_BINARY_METHOD_TMPFILE] = "tmpfile",
	[CLONED_BINARY_METHOD_MKOSTEMP] = "mkostemp",
};

const char *cloned_binary_method_to_string(enum cloned_binary_method m)
{
	if ((unsigned)m >= ELEMENTSOF(method_names))
		return "unknown";
	return method_names[m];
}

int cloned_binary_request_from_string(const char *s)
{
	if (!s)
		return -EINVAL;
	if (strcmp(s, "auto") == 0)
		return CLONED_BINARY_REQUEST_AUTO;
	if (strcmp(s, "memfd") == 0)
		return CLONED_BINARY_REQUEST_MEMFD;
	if (strcmp(s, "tmpfile") == 0)
		return CLONED_BINARY_REQUEST_TMPFILE;
	return -EINVAL;
}

/* ---- feature probe ------------------------------------------------------- */

static struct cloned_binary_features cached_features;
static bool features_cached;

static bool probe_tmpfile_dir(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0) {
		safe_close(fd);
		return true;
	}
	/* EISDIR/EINVAL/EOPNOTSUPP: unknown flag or unsupported filesystem. */
	return false;
}

static void probe(struct cloned_binary_features *f)
{
	_cleanup_close_ int fd = -EBADF;
	const char *tmpdirs[] = {"/tmp", "/var/tmp", "/dev/shm", "/run"};

	*f = (struct cloned_binary_features){};

	/* Anything but ENOSYS means the syscall exists (EINVAL can come from
	 * the 6.3-6.5.2 kernels at vm.memfd_noexec=2 for flag-less calls). */
	fd = missing_memfd_create("cloned_binary-probe",
				  MFD_CLOEXEC | MFD_ALLOW_SEALING);
	f->memfd_create = fd >= 0 || errno != ENOSYS;
	fd = safe_close(fd);

	/* MFD_NOEXEC_SEAL is known exactly when MFD_EXEC is, and unlike
	 * MFD_EXEC it is never refused by vm.memfd_noexec, so the probe does
	 * not trigger the kernel's refusal log line. */
	if (f->memfd_create) {
		fd = missing_memfd_create("cloned_binary-probe",
					  MFD_CLOEXEC | MFD_NOEXEC_SEAL);
		f->mfd_exec = fd >= 0;
		fd = safe_close(fd);
	}

	if (f->memfd_create) {
		fd = missing_memfd_create("cloned_binary-probe",
					  MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (fd >= 0)
			f->seal_exec = fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) >= 0;
		else if (f->mfd_exec)
			/* A NOEXEC_SEAL memfd is born with F_SEAL_EXEC. */
			f->seal_exec = true;
		fd = safe_close(fd);
	}

	for (size_t i = 0; i < ELEMENTSOF(tmpdirs) && !f->o_tmpfile; i++)
		f->o_tmpfile = probe_tmpfile_dir(tmpdirs[i]);

	/* fd -1 with an empty path: EBADF if execveat exists, never an exec. */
	(void)missing_execveat(-1, "", NULL, NULL, AT_EMPTY_PATH);
	f->execveat = errno != ENOSYS;
}

void cloned_binary_features(struct cloned_binary_features *ret)
{
	if (!features_cached) {
		probe(&cached_features);
		features_cached = true;
	}
	*ret = cached_features;
}

void cloned_binary_features_override(const struct cloned_binary_features *f)
{
	if (f) {
		cached_features = *f;
		features_cached = true;
	} else {
		features_cached = false;
	}
}

int cloned_binary_memfd_noexec(void)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[16] = {};
	ssize_t n;

	fd = open("/proc/sys/vm/memfd_noexec", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return negative_errno();
	if (n < 1 || buf[0] < '0' || buf[0] > '2' || (n > 1 && buf[1] != '\n'))
		return -EINVAL;
	return buf[0] - '0';
}

/* ---- copying ------------------------------------------------------------- */

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* EFAULT: the mapped source shrank under us. */
			return errno == EFAULT ? -EIO : negative_errno();
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int copy_sendfile(int dst, int src, size_t size)
{
	off_t off = 0;

	while ((size_t)off < size) {
		ssize_t n = sendfile(dst, src, &off, size - (size_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			return -EIO; /* source shrank */
	}
	return 0;
}

static int copy_readwrite(int dst, int src, size_t size)
{
	char buf[64 * 1024];
	size_t done = 0;

	while (done < size) {
		ssize_t n = pread(src, buf, sizeof(buf), (off_t)done);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			return -EIO;
		r = write_all(dst, buf, (size_t)n);
		if (r < 0)
			return r;
		done += (size_t)n;
	}
	return 0;
}

/*
 * sendfile measured fastest here (tests/bench/clone_bench: 8.8 MB in
 * ~4.8 ms, mmap + write 1.09x, read/write 1.13x).  A source sendfile cannot
 * read (EINVAL) falls back to mmap + write, then to a read/write loop.  A
 * fault while the kernel reads a mapping comes back as EFAULT, not SIGBUS.
 */
static int copy_mmap(int dst, int src, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, src, 0);
	int r;

	if (p == MAP_FAILED)
		return negative_errno();
	r = write_all(dst, p, size);
	(void)munmap(p, size);
	return r;
}

/* Undoes a partial copy before the next strategy starts over. */
static int copy_rewind(int dst)
{
	if (lseek(dst, 0, SEEK_SET) < 0 || ftruncate(dst, 0) < 0)
		return negative_errno();
	return 0;
}

int cloned_binary_copy(int dst, int src, size_t size,
		       enum cloned_binary_copy how)
{
	int r;

	if (size == 0)
		return 0;

	switch (how) {
	case CLONED_BINARY_COPY_SENDFILE:
		return copy_sendfile(dst, src, size);
	case CLONED_BINARY_COPY_MMAP:
		return copy_mmap(dst, src, size);
	case CLONED_BINARY_COPY_READWRITE:
		return copy_readwrite(dst, src, size);
	case CLONED_BINARY_COPY_AUTO:
		break;
	default:
		return -EINVAL;
	}

	r = copy_sendfile(dst, src, size);
	if (r != -EINVAL && r != -ENOSYS)
		return r;
	r = copy_rewind(dst);
	if (r < 0)
		return r;
	r = copy_mmap(dst, src, size);
	if (r != -EINVAL && r != -ENODEV)
		return r;
	r = copy_rewind(dst);
	if (r < 0)
		return r;
	return copy_readwrite(dst, src, size);
}

/* Copies src into dst and checks that both still have the expected size. */
static int copy_checked(int dst, int src, size_t size)
{
	struct stat st;
	int r;

	r = cloned_binary_copy(dst, src, size, CLONED_BINARY_COPY_AUTO);
	if (r < 0)
		return r;
	if (fstat(src, &st) < 0)
		return negative_errno();
	if ((size_t)st.st_size != size)
		return -EIO;
	if (fstat(dst, &st) < 0)
		return negative_errno();
	if ((size_t)st.st_size != size)
		return -EIO;
	return 0;
}

/* ---- memfd methods --------------------------------------------------------
 */

static int memfd_seal(int fd, bool want_exec_seal, bool *ret_exec_sealed)
{
	unsigned need = CLONED_BINARY_MEMFD_SEALS;
	bool exec_sealed = false;
	int seals;

	/* No write bits: defence in depth; the seals are what binds. */
	if (fchmod(fd, 0555) < 0)
		return negative_errno();

	if (want_exec_seal) {
		/* On an executable memfd this also adds SHRINK|GROW|WRITE|
		 * FUTURE_WRITE.  There is no writable mapping (we never map
		 * the copy), so the implied write seal cannot hit EBUSY. */
		if (fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) >= 0)
			exec_sealed = true;
		else if (errno != EINVAL)
			return negative_errno();
		else
			debug("cloned_binary: F_SEAL_EXEC unknown (EINVAL), "
			      "sealing without it");
	}

	/* Explicitly too: older kernels don't imply them, and F_SEAL_SEAL
	 * must come last. */
	if (fcntl(fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return negative_errno();

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return negative_errno();
	if (exec_sealed)
		need |= F_SEAL_EXEC;
	if (((unsigned)seals & need) != need)
		return -ENOEXEC;

	*ret_exec_sealed = exec_sealed;
	return 0;
}

/* Policy answers from the kernel that mean "use a file instead". */
static bool is_policy_refusal(int r)
{
	return r == -EACCES || r == -EPERM || r == -ENOSYS;
}

/*
 * *policy_refused is set when the kernel refused an executable memfd by
 * policy (memfd_create EACCES/EPERM/ENOSYS, or a non-executable mode);
 * any later failure (copy, seal) is a real error and never falls back.
 */
static int clone_memfd(int src, size_t size,
		       const struct cloned_binary_features *f,
		       enum cloned_binary_method *ret_method, int *ret_fd,
		       bool *policy_refused)
{
	_cleanup_close_ int fd = -EBADF;
	const unsigned base = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	enum cloned_binary_method m = CLONED_BINARY_METHOD_MEMFD;
	bool exec_sealed = false;
	struct stat st;
	int r;

	if (f->mfd_exec) {
		fd = missing_memfd_create("cloned_binary", base | MFD_EXEC);
		if (fd >= 0) {
			m = CLONED_BINARY_METHOD_MEMFD_EXEC;
		} else if (errno == EINVAL) {
			debug("cloned_binary: MFD_EXEC unknown (EINVAL), "
			      "retrying without it");
		} else {
			r = negative_errno();
			*policy_refused = is_policy_refusal(r);
			return fail(r, "create memfd (memfd-exec)");
		}
	}
	if (fd < 0) {
		fd = missing_memfd_create("cloned_binary", base);
		if (fd < 0) {
			r = negative_errno();
			*policy_refused = is_policy_refusal(r);
			return fail(r, "create memfd (memfd)");
		}
	}

	if (fstat(fd, &st) < 0)
		return fail(negative_errno(), "stat memfd (%s)",
			    cloned_binary_method_to_string(m));
	/* Without MFD_EXEC a 6.3+ kernel at level >= 1 makes it 0666 and
	 * exec-sealed: the kernel refuses exec, which is a policy answer. */
	if ((st.st_mode & 0111) == 0) {
		*policy_refused = true;
		return fail(-EACCES, "get an executable memfd (%s): mode %04o",
			    cloned_binary_method_to_string(m),
			    (unsigned)(st.st_mode & 07777));
	}

	r = copy_checked(fd, src, size);
	if (r < 0)
		return fail(r, "copy binary into memfd (%s)",
			    cloned_binary_method_to_string(m));

	r = memfd_seal(fd, f->seal_exec, &exec_sealed);
	if (r < 0)
		return fail(r, "seal memfd (%s)",
			    cloned_binary_method_to_string(m));
	if (m == CLONED_BINARY_METHOD_MEMFD_EXEC && !exec_sealed)
		m = CLONED_BINARY_METHOD_MEMFD;

	*ret_method = m;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* ---- tmpfile methods ------------------------------------------------------
 */

/* Makes the rw file read-only and executable, and returns an O_PATH fd. */
static int tmpfile_finish(int rwfd, size_t size, int *ret_fd)
{
	_cleanup_close_ int pathfd = -EBADF;
	char proc[64];
	struct stat st;

	if (fchmod(rwfd, 0500) < 0)
		return negative_errno();

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", rwfd);
	pathfd = open(proc, O_PATH | O_CLOEXEC);
	if (pathfd < 0)
		return negative_errno();

	if (fstat(pathfd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode) || st.st_nlink != 0 ||
	    (st.st_mode & 0222) != 0 || (st.st_mode & 0100) == 0 ||
	    (size_t)st.st_size != size)
		return -ENOEXEC;

	*ret_fd = TAKE_FD(pathfd);
	return 0;
}

static bool dir_permits_exec(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) < 0)
		return false;
	if (sv.f_flag & ST_NOEXEC) {
		debug("cloned_binary: %s is mounted noexec, skipping", dir);
		return false;
	}
	if (sv.f_flag & ST_RDONLY)
		return false;
	return true;
}

/* Returns 0 and the rw fd, or -errno; *ret_method says which way. */
static int tmpfile_create(const char *dir, bool use_o_tmpfile,
			  enum cloned_binary_method *ret_method, int *ret_fd)
{
	_cleanup_free_ char *path = NULL;
	int fd;

	if (use_o_tmpfile) {
		/* O_EXCL: the file can never be linked into the filesystem. */
		fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0700);
		if (fd >= 0) {
			*ret_method = CLONED_BINARY_METHOD_TMPFILE;
			*ret_fd = fd;
			return 0;
		}
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return negative_errno();
		debug("cloned_binary: O_TMPFILE unsupported in %s (%m), trying "
		      "mkostemp",
		      dir);
	}

	if (asprintf(&path, "%s/.cloned_binary-XXXXXX", dir) < 0)
		return -ENOMEM;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (unlink(path) < 0) {
		int r = negative_errno();
		safe_close(fd);
		return r;
	}
	*ret_method = CLONED_BINARY_METHOD_MKOSTEMP;
	*ret_fd = fd;
	return 0;
}

static int clone_tmpfile_in(int src, size_t size, const char *dir,
			    const struct cloned_binary_features *f,
			    enum cloned_binary_method *ret_method, int *ret_fd)
{
	_cleanup_close_ int rwfd = -EBADF;
	enum cloned_binary_method m;
	int r;

	if (!dir_permits_exec(dir))
		return -EACCES;

	r = tmpfile_create(dir, f->o_tmpfile, &m, &rwfd);
	if (r < 0)
		return fail(r, "create file in %s (tmpfile)", dir);

	r = copy_checked(rwfd, src, size);
	if (r < 0)
		return fail(r, "copy binary into %s (%s)", dir,
			    cloned_binary_method_to_string(m));

	r = tmpfile_finish(rwfd, size, ret_fd);
	if (r < 0)
		return fail(r, "seal copy in %s (%s)", dir,
			    cloned_binary_method_to_string(m));
	*ret_method = m;
	return 0;
}

static int clone_tmpfile(int src, size_t size, const char *tmpdir,
			 const struct cloned_binary_features *f,
			 enum cloned_binary_method *ret_method, int *ret_fd)
{
	const char *candidates[] = {
		getenv("SEALEXEC_TMPDIR"),
		getenv("XDG_RUNTIME_DIR"),
		"/run",
		"/tmp",
		"/var/tmp",
		"/dev/shm",
	};
	int r = -ENOENT;

	if (tmpdir)
		return clone_tmpfile_in(src, size, tmpdir, f, ret_method,
					ret_fd);

	for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
		if (!candidates[i] || candidates[i][0] != '/')
			continue;
		r = clone_tmpfile_in(src, size, candidates[i], f, ret_method,
				     ret_fd);
		if (r == 0)
			return 0;
		/* Only "not here" errors move on to the next directory. */
		if (r != -EACCES && r != -EPERM && r != -EROFS &&
		    r != -ENOENT && r != -ENOTDIR && r != -ENOSPC &&
		    r != -EDQUOT)
			return r;
	}
	return fail(r, "find a writable directory that permits exec (tmpfile)");
}

/* ---- public entry points --------------------------------------------------
 */

int cloned_binary_clone(int src_fd, const struct cloned_binary_options *opts,
			enum cloned_binary_method *ret_method, int *ret_fd)
{
	static const struct cloned_binary_options defaults = {};
	struct cloned_binary_features f;
	enum cloned_binary_method m = CLONED_BINARY_METHOD_AUTO;
	struct stat st;
	int fd = -EBADF, r;

	if (!opts)
		opts = &defaults;
	last_error[0] = 0;

	if (fstat(src_fd, &st) < 0)
		return fail(negative_errno(), "stat source binary");
	if (!S_ISREG(st.st_mode))
		return fail(-EINVAL, "use source binary: not a regular file");

	cloned_binary_features(&f);

	if (opts->request != CLONED_BINARY_REQUEST_TMPFILE) {
		int level = cloned_binary_memfd_noexec();
		bool fallback = true;

		if (!f.memfd_create) {
			r = -ENOSYS;
			(void)fail(r, "create memfd (memfd)");
		} else if (level == 2) {
			/* Honour the namespace's policy even on 6.3-6.5.2,
			 * where MFD_EXEC slipped past it. */
			r = -EACCES;
			(void)fail(
				r,
				"create executable memfd: vm.memfd_noexec=2");
		} else {
			fallback = false;
			r = clone_memfd(src_fd, (size_t)st.st_size, &f, &m, &fd,
					&fallback);
		}
		if (r == 0)
			goto done;
		if (opts->request == CLONED_BINARY_REQUEST_MEMFD || !fallback)
			return r;
		debug("cloned_binary: memfd not possible (%s), falling back to "
		      "a file",
		      strerror(-r));
	}

	r = clone_tmpfile(src_fd, (size_t)st.st_size, opts->tmpdir, &f, &m,
			  &fd);
	if (r < 0)
		return r;

done:
	debug("cloned_binary: using %s", cloned_binary_method_to_string(m));
	*ret_method = m;
	*ret_fd = fd;
	return 0;
}

int cloned_binary_is_sealed(int fd)
{
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return 0;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 && ((unsigned)seals & CLONED_BINARY_MEMFD_SEALS) ==
				  CLONED_BINARY_MEMFD_SEALS)
		return 1;
	/* EINVAL: not a shmem file.  EBADF: an O_PATH fd. */
	if (seals < 0 && errno != EINVAL && errno != EBADF)
		return negative_errno();

	/* An unlinked file without write bits: nothing on disk to overwrite,
	 * and the running image is protected by the kernel's deny-write. */
	if (st.st_nlink == 0 && (st.st_mode & 0222) == 0)
		return 1;
	return 0;
}

int cloned_binary_exec(int fd, char *const argv[], char *const envp[])
{
	char proc[64];
	int r;

	r = cloned_binary_is_sealed(fd);
	if (r < 0)
		return fail(r, "verify clone before exec");
	if (r == 0)
		return fail(-ENOEXEC,
			    "verify clone before exec: it is not sealed");

	(void)missing_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
	if (errno != ENOSYS)
		return fail(negative_errno(), "execute sealed clone");

	debug("cloned_binary: execveat unavailable, executing via "
	      "/proc/self/fd");
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	(void)execve(proc, argv, envp);
	return fail(negative_errno(), "execute sealed clone via %s", proc);
}

/* Reads /proc/self/cmdline into a NULL-terminated argv (one allocation). */
static int read_cmdline(char ***ret_argv)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	size_t len, argc = 0;
	char **argv, *p, *s;
	int r;

	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = read_full_fd(fd, CMDLINE_MAX, &buf, &len);
	if (r < 0)
		return r;
	if (len == 0 || buf[len - 1] != '\0')
		return -EINVAL;

	for (size_t i = 0; i < len; i++)
		argc += buf[i] == '\0';

	/* argv pointers first, then a copy of the strings. */
	argv = malloc((argc + 1) * sizeof(char *) + len);
	if (!argv)
		return -ENOMEM;
	p = (char *)(argv + argc + 1);
	memcpy(p, buf, len);
	s = p;
	for (size_t i = 0; i < argc; i++) {
		argv[i] = s;
		s += strlen(s) + 1;
	}
	argv[argc] = NULL;
	*ret_argv = argv;
	return 0;
}

int cloned_binary_ensure(const struct cloned_binary_options *opts)
{
	_cleanup_close_ int exe = -EBADF, clone = -EBADF;
	_cleanup_free_ char **argv = NULL;
	enum cloned_binary_method m = CLONED_BINARY_METHOD_AUTO;
	bool reexeced;
	int r;

	last_error[0] = 0;
	reexeced = getenv(REEXEC_ENV) != NULL;
	(void)unsetenv(REEXEC_ENV);

	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0)
		return fail(negative_errno(), "open /proc/self/exe");

	r = cloned_binary_is_sealed(exe);
	if (r < 0)
		return fail(r, "inspect /proc/self/exe");
	if (r > 0) {
		debug("cloned_binary: running from sealed clone");
		return 0;
	}
	if (reexeced)
		return fail(-ELOOP, "recognise the sealed clone after one "
				    "re-exec (not re-executing again)");

	r = read_cmdline(&argv);
	if (r < 0)
		return fail(r, "read /proc/self/cmdline");

	r = cloned_binary_clone(exe, opts, &m, &clone);
	if (r < 0)
		return r;
	exe = safe_close(exe);

	if (setenv(REEXEC_ENV, "1", 1) < 0)
		return fail(negative_errno(), "set " REEXEC_ENV);
	r = cloned_binary_exec(clone, argv, environ);
	(void)unsetenv(REEXEC_ENV);
	return r;
}
