/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cloned_binary: make a sealed, W^X, executable copy of a file and run from
 * it.  This is the loader that protects a runtime's host binary from being
 * overwritten through /proc/<pid>/exe (CVE-2019-5736).
 *
 * Every function returns 0 or a non-negative value on success and -errno on
 * failure.  The library never exits and prints only debug markers (to
 * stderr, or to the log function), and only while debugging is on.
 */
#ifndef CLONED_BINARY_H
#define CLONED_BINARY_H

#include <stdbool.h>
#include <stddef.h>

enum cloned_binary_method {
	CLONED_BINARY_METHOD_AUTO = 0,
	/* memfd_create(MFD_EXEC), sealed F_SEAL_EXEC + SEAL|SHRINK|GROW|WRITE
	 */
	CLONED_BINARY_METHOD_MEMFD_EXEC,
	/* memfd_create() without MFD_EXEC (kernels before 6.3), write-sealed */
	CLONED_BINARY_METHOD_MEMFD,
	/* O_TMPFILE|O_EXCL in an exec-permitting directory, no write bits,
	   O_PATH */
	CLONED_BINARY_METHOD_TMPFILE,
	/* mkostemp() + unlink() where O_TMPFILE is unsupported, then as tmpfile
	 */
	CLONED_BINARY_METHOD_MKOSTEMP,
	_CLONED_BINARY_METHOD_MAX,
};

/*
 * What the user may ask for.  MEMFD means "a memfd of either kind", TMPFILE
 * means "a file on disk of either kind".
 */
enum cloned_binary_request {
	CLONED_BINARY_REQUEST_AUTO = 0,
	CLONED_BINARY_REQUEST_MEMFD,
	CLONED_BINARY_REQUEST_TMPFILE,
};

/* Stable names, as printed in the debug markers ("memfd-exec", ...). */
const char *cloned_binary_method_to_string(enum cloned_binary_method m);
/* Returns the request, or -EINVAL for an unknown name. */
int cloned_binary_request_from_string(const char *s);

/*
 * Kernel features, probed by calling each feature and reading the errno.
 * The probe runs once and is cached; cloned_binary_features_override()
 * replaces the cache (for tests), as does the environment variable
 * CLONED_BINARY_FEATURES, a comma-separated list such as "-mfd_exec,-o_tmpfile"
 * that turns features off (never on).
 */
struct cloned_binary_features {
	bool memfd_create; /* memfd_create(2) exists (3.17) */
	bool mfd_exec;	   /* MFD_EXEC / MFD_NOEXEC_SEAL are known (6.3) */
	bool seal_exec;	   /* F_SEAL_EXEC is known (6.3) */
	bool o_tmpfile; /* O_TMPFILE works in some candidate directory (3.11) */
	bool execveat;	/* execveat(2) exists (3.19) */
};

/* Fills *ret.  Never fails: a feature that cannot be probed counts as absent.
 */
void cloned_binary_features(struct cloned_binary_features *ret);
/* Replaces the cached probe result; NULL drops the cache so it is re-probed. */
void cloned_binary_features_override(const struct cloned_binary_features *f);

/*
 * Reads vm.memfd_noexec as this task's PID namespace sees it.  Returns 0, 1
 * or 2, or -ENOENT when the kernel has no such sysctl (before 6.3, or no
 * CONFIG_PID_NS), or another -errno from open/read, or -EINVAL if the file
 * holds something else.
 */
int cloned_binary_memfd_noexec(void);

/* Debugging: markers "cloned_binary: ..." go to stderr or to log_fn. */
void cloned_binary_set_debug(bool on);
bool cloned_binary_debug_enabled(void); /* also true if SEALEXEC_DEBUG=1 */
void cloned_binary_set_log_fn(void (*log_fn)(const char *line));

struct cloned_binary_options {
	enum cloned_binary_request request;
	/* Directory for the tmpfile methods; NULL tries the defaults:
	 * $SEALEXEC_TMPDIR, $XDG_RUNTIME_DIR, /run, /tmp, /var/tmp, /dev/shm.
	 * Directories mounted noexec are skipped. */
	const char *tmpdir;
};

/* Seals that every memfd clone must carry (mask, never equality). */
#define CLONED_BINARY_MEMFD_SEALS 0x000fU /* F_SEAL_SEAL|SHRINK|GROW|WRITE */

/*
 * Makes a sealed executable copy of the regular file open at src_fd (which
 * must be readable; its file offset is not used).  On success stores the
 * copy in *ret_fd (O_CLOEXEC; a memfd, or an O_PATH fd for the tmpfile
 * methods) and the method in *ret_method, and returns 0.
 *
 * Errors:
 *  -EBADF, -EINVAL  src_fd is not an open regular file;
 *  -EACCES, -EPERM  every permitted method was refused by policy
 *                   (vm.memfd_noexec=2 and no exec-permitting directory);
 *  -ENOEXEC         a copy was made but does not carry the required
 *                   seals or mode (it is destroyed, never returned);
 *  -EIO             the source changed size while it was being copied;
 *  -ENOENT          no usable directory for the tmpfile methods;
 *  any other -errno from memfd_create, open, mkostemp, write, fcntl, fchmod.
 */
int cloned_binary_clone(int src_fd, const struct cloned_binary_options *opts,
			enum cloned_binary_method *ret_method, int *ret_fd);

/*
 * Checks that fd is a sealed clone: a memfd whose seals include
 * CLONED_BINARY_MEMFD_SEALS (and F_SEAL_EXEC where that exists), or an
 * unlinked (nlink == 0) regular file with no write bits.  Returns 1 if it
 * is, 0 if it is not, -errno if fd cannot be inspected.
 */
int cloned_binary_is_sealed(int fd);

/*
 * Executes the clone at fd with argv and envp.  Re-verifies the clone first
 * and refuses (-ENOEXEC) to execute anything writable.  Returns only on
 * failure, with -errno from execveat (or the /proc/self/fd fallback).
 */
int cloned_binary_exec(int fd, char *const argv[], char *const envp[]);

/*
 * For runtimes: unless the running program already runs from a sealed
 * clone, re-execute it from one, with argv read from /proc/self/cmdline and
 * the current environment.  Re-executes at most once: the child sees the
 * environment marker _CLONED_BINARY_REEXEC=1 and, if it still is not a
 * sealed clone, this returns -ELOOP instead of looping.  Returns 0 when
 * running from a clone (the marker is removed again), or -errno.
 */
int cloned_binary_ensure(const struct cloned_binary_options *opts);

/*
 * A human-readable description of the last failure in this thread, naming
 * the step, the method and the errno: "Failed to seal memfd (memfd-exec):
 * Device or resource busy".  Never NULL.
 */
const char *cloned_binary_last_error(void);

/*
 * The copy step on its own, exported for the benchmark.  Copies size bytes
 * from offset 0 of src to the current offset of dst, handling short
 * writes.  AUTO is sendfile, falling back to mmap + write, then read/write.
 * Returns 0, -EIO if the source ended early, or -errno.
 */
enum cloned_binary_copy {
	CLONED_BINARY_COPY_AUTO = 0,
	CLONED_BINARY_COPY_MMAP,
	CLONED_BINARY_COPY_SENDFILE,
	CLONED_BINARY_COPY_READWRITE,
};
int cloned_binary_copy(int dst, int src, size_t size,
		       enum cloned_binary_copy how);

#endif
