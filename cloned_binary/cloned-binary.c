/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sealed W^X loader's entry points; see cloned-binary.h for the
 * contract, context.c for the context and the debug log, and overlay.c,
 * memfd.c and tmpdir.c for the methods (proof.c recognises an overlay
 * clone).
 *
 * Order of methods (auto): overlay first (overlay.c: the binary itself on
 * a detached read-only overlayfs, no copy); where that is impossible,
 * memfd-exec, then memfd (memfd.c); then tmpfile or mkostemp (tmpdir.c),
 * which are taken only for a policy answer of the kernel:
 * vm.memfd_noexec=2, memfd_create refused (EACCES/EPERM) or missing
 * (ENOSYS), or a memfd born without x bits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fd-util.h"
#include "cb-internal.h"
#include "missing-syscall.h"
#include "memfd-sysctl.h"
#include "parse.h"

#define REEXEC_ENV CLONED_BINARY_REEXEC_ENV
#define CMDLINE_MAX (4U * 1024 * 1024)

extern char **environ;

/* ---- names -------------------------------------------------------------- */

static const char *const method_names[_CLONED_BINARY_METHOD_MAX] = {
	[CLONED_BINARY_METHOD_AUTO] = "auto",
	[CLONED_BINARY_METHOD_OVERLAY] = "overlay",
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
	if (strcmp(s, "overlay") == 0)
		return CLONED_BINARY_REQUEST_OVERLAY;
	return -EINVAL;
}

/* ---- clone -------------------------------------------------------------- */

/*
 * The overlay method first, where auto may use it; its failure is always a
 * reason to fall back (named in the debug marker), unless it was the one
 * asked for.
 */
static int clone_overlay_first(const struct cb_ctx *c, int src, int *ret_fd)
{
	char why[1024];
	int r;

	r = cb_clone_overlay(c, src, ret_fd, why, sizeof(why));
	if (r == 0)
		return 0;
	cb_debug(c, "cloned_binary: overlay not possible (%s), falling back", why);
	if (c->opts->request == CLONED_BINARY_REQUEST_OVERLAY)
		return mt_error_set(
			c->err, r,
			"Failed to open the binary from a detached overlayfs (overlay): %s", why);
	return r;
}

/*
 * The memfd methods, unless the kernel's policy rules them out.  Sets
 * *ret_fallback when a file may be tried instead.
 */
static int clone_memfd_or_not(const struct cb_ctx *c, int src, size_t size,
			      enum cloned_binary_method *ret_method, int *ret_fd,
			      bool *ret_fallback)
{
	*ret_fallback = true;
	if (!c->f.memfd_create)
		return mt_error_set(
			c->err, -ENOSYS,
			"Failed to create a memfd: this kernel has no memfd_create() (Linux 3.17 or later)");
	/* Honour the namespace's policy even on 6.3-6.5.2, where MFD_EXEC
	 * slipped past it: at 2, no memfd is tried at all. */
	if (c->f.memfd_noexec && mt_memfd_noexec_read() == 2) {
		cb_debug(c, "cloned_binary: vm.memfd_noexec=2 here, not trying a memfd");
		return mt_error_set(
			c->err, -EACCES,
			"Refusing to make an executable memfd: vm.memfd_noexec=2 in this PID namespace forbids it (use the file methods)");
	}
	return cb_clone_memfd(c, src, size, ret_method, ret_fd, ret_fallback);
}

int cloned_binary_clone(int src_fd, const struct cloned_binary_options *opts,
			enum cloned_binary_method *ret_method, int *ret_fd, struct mt_error **err)
{
	enum cloned_binary_method m = CLONED_BINARY_METHOD_AUTO;
	struct cb_ctx c;
	struct stat st;
	int fd = -EBADF, r;

	cb_ctx_init(&c, opts, err, false);
	if (fstat(src_fd, &st) < 0)
		return cb_fail(&c, negative_errno(), "stat the source binary");
	if (!S_ISREG(st.st_mode))
		return mt_error_set(
			err, -EINVAL,
			"Refusing the source binary: it is not a regular file (mode %06o)",
			(unsigned)st.st_mode);

	if (c.opts->request == CLONED_BINARY_REQUEST_AUTO ||
	    c.opts->request == CLONED_BINARY_REQUEST_OVERLAY) {
		m = CLONED_BINARY_METHOD_OVERLAY;
		r = clone_overlay_first(&c, src_fd, &fd);
		if (r == 0)
			goto done;
		if (c.opts->request == CLONED_BINARY_REQUEST_OVERLAY)
			return r;
	}
	cb_ctx_probe(&c); /* the copies choose by the kernel's features */
	if (c.opts->request != CLONED_BINARY_REQUEST_TMPFILE) {
		bool fallback;

		r = clone_memfd_or_not(&c, src_fd, (size_t)st.st_size, &m, &fd, &fallback);
		if (r == 0)
			goto done;
		if (c.opts->request == CLONED_BINARY_REQUEST_MEMFD || !fallback)
			return r;
		cb_debug(&c, "cloned_binary: memfd not possible (%s), falling back to a file",
			 strerror(-r));
	}

	r = cb_clone_file(&c, src_fd, (size_t)st.st_size, &m, &fd);
	if (r < 0)
		return r;
done:
	mt_error_free(err); /* a memfd refusal that the file made moot */
	cb_debug(&c, "cloned_binary: using %s", cloned_binary_method_to_string(m));
	*ret_method = m;
	*ret_fd = fd;
	return 0;
}

/* ---- recognising a clone ------------------------------------------------ */

static bool is_on_overlay(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && (unsigned long)sfs.f_type == OVERLAYFS_SUPER_MAGIC;
}

/* A memfd, as opposed to a tmpfs file: only memfds carry seals beyond
 * F_SEAL_SEAL, and only they are named "/memfd:...".  Unsure counts as a
 * memfd, whose stricter rule then decides. */
static bool is_memfd(int fd, int seals)
{
	char proc[64], target[16];
	ssize_t n;

	if (seals & ~F_SEAL_SEAL)
		return true;
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target));
	return n < 0 || (n >= 7 && memcmp(target, "/memfd:", 7) == 0);
}

/* vouched: see cb_overlay_is_sealed(). */
static int is_sealed(int fd, const struct cloned_binary_options *opts, bool vouched)
{
	unsigned need = CLONED_BINARY_MEMFD_SEALS;
	struct statfs sfs;
	struct cb_ctx c;
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return 0;
	if ((unsigned long)sfs.f_type == OVERLAYFS_SUPER_MAGIC)
		return cb_overlay_is_sealed(fd, vouched, opts && opts->overflow_uid_is_root);

	seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 && is_memfd(fd, seals)) {
		cb_ctx_init(&c, opts, NULL, true);
		if (c.f.seal_exec)
			need |= F_SEAL_EXEC;
		return ((unsigned)seals & need) == need;
	}
	/* EINVAL: not a shmem file.  EBADF: an O_PATH fd. */
	if (seals < 0 && errno != EINVAL && errno != EBADF)
		return negative_errno();

	/* A file: nothing on disk to overwrite, and the running image is
	 * protected by the kernel's deny-write, on a filesystem where the
	 * kernel (not the file's owner) says what mode and links it has. */
	if (st.st_nlink != 0 || (st.st_mode & 0222) != 0 || (st.st_mode & 0111) == 0)
		return 0;
	return cb_fs_is_trusted((unsigned long)sfs.f_type);
}

int cloned_binary_is_sealed(int fd, const struct cloned_binary_options *opts)
{
	return is_sealed(fd, opts, false);
}

/* ---- exec and ensure ---------------------------------------------------- */

int cloned_binary_exec(int fd, char *const argv[], char *const envp[],
		       const struct cloned_binary_options *opts, struct mt_error **err)
{
	struct cb_ctx c;
	char proc[64];
	int r;

	cb_ctx_init(&c, opts, err, false);
	r = cloned_binary_is_sealed(fd, opts);
	if (r < 0)
		return cb_fail(&c, r, "verify the clone before exec");
	if (r == 0)
		return mt_error_set(
			err, -ENOEXEC,
			"Refusing to execute the clone: it is not sealed (a writable or linked file, or a memfd without its seals)");

	(void)missing_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
	if (errno != ENOSYS)
		return cb_fail(&c, negative_errno(), "execute the sealed clone");

	cb_debug(&c, "cloned_binary: execveat unavailable, executing via /proc/self/fd");
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	(void)execve(proc, argv, envp);
	return cb_fail(&c, negative_errno(), "execute the sealed clone via %s", proc);
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

/*
 * The marker's value: "1" after our own re-exec, "fd:N" from a runtime
 * that started us from its clone open at fd N.  Returns N, -1 for "1", or
 * -EINVAL for anything else.
 */
static int marker_fd(const char *value)
{
	int n;

	if (strcmp(value, "1") == 0)
		return -1;
	if (strncmp(value, "fd:", 3) != 0 || mt_parse_int(value + 3, INT_MAX, &n, NULL) < 0 ||
	    n < 3)
		return -EINVAL;
	return n;
}

/* We run from our clone: the runtime's fd of it (marker "fd:N") must be
 * that very file, and is closed, so that it reaches no process of ours. */
static int close_runtime_fd(struct cb_ctx *c, int exe, int n)
{
	struct stat a, b;

	if (n < 0)
		return 0;
	if (fstat(exe, &a) < 0)
		return cb_fail(c, negative_errno(), "inspect /proc/self/exe");
	if (fstat(n, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return mt_error_set(
			c->err, -EBADF,
			"Failed to verify the runtime's fd %d of the sealed clone (%s=fd:%d): it is not the file we run from",
			n, REEXEC_ENV, n);
	(void)close(n);
	return 0;
}

int cloned_binary_ensure(const struct cloned_binary_options *opts, struct mt_error **err)
{
	_cleanup_close_ int exe = -EBADF, clone = -EBADF;
	_cleanup_free_ char **argv = NULL;
	enum cloned_binary_method m = CLONED_BINARY_METHOD_AUTO;
	const char *marker = getenv(REEXEC_ENV);
	int given = marker ? marker_fd(marker) : -1;
	struct cb_ctx c;
	int r;

	cb_ctx_init(&c, opts, err, false);
	if (given == -EINVAL)
		return mt_error_set(
			err, -EINVAL,
			"Invalid %s='%s': allowed are 1 and fd:N (N >= 3); it is set only by this library and by runtimes that start a program from its clone",
			REEXEC_ENV, marker);
	(void)unsetenv(REEXEC_ENV);

	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (exe < 0)
		return cb_fail(&c, negative_errno(), "open /proc/self/exe");

	/* A detached overlay counts only with the marker (below), from its
	 * maker, which checked the file's owner, its directories and the
	 * superblock where it could see them (in a container's user
	 * namespace root's files show as unmapped). */
	r = is_sealed(exe, opts, marker != NULL);
	if (r < 0)
		return cb_fail(&c, r, "inspect /proc/self/exe");
	/* A detached overlay counts only as one we made: any other program
	 * could have been started from one, and then it is not ours. */
	if (r > 0 && !marker && is_on_overlay(exe))
		r = 0;
	if (r > 0) {
		cb_debug(&c, "cloned_binary: running from sealed clone");
		return close_runtime_fd(&c, exe, given);
	}
	if (marker)
		return mt_error_set(
			err, -ELOOP,
			"Failed to recognise the sealed clone after one re-exec (%s was set): not re-executing again",
			REEXEC_ENV);

	r = read_cmdline(&argv);
	if (r < 0)
		return cb_fail(&c, r, "read /proc/self/cmdline");

	r = cloned_binary_clone(exe, opts, &m, &clone, err);
	if (r < 0)
		return r;
	exe = safe_close(exe);

	if (setenv(REEXEC_ENV, "1", 1) < 0)
		return cb_fail(&c, negative_errno(), "set " REEXEC_ENV);
	r = cloned_binary_exec(clone, argv, environ, opts, err);
	(void)unsetenv(REEXEC_ENV);
	return r;
}
