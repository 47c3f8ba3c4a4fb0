/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cloned_binary: make a sealed, W^X, executable copy of a file and run from
 * it.  This is the loader that protects a runtime's host binary from being
 * overwritten through /proc/<pid>/exe (CVE-2019-5736).
 *
 * Every function returns 0 or a non-negative value on success and -errno on
 * failure; those that take `struct mt_error **err` then also store an
 * error there (see common/errors.h) naming the step, the method and the
 * errno.  The library never exits, reads no environment variable except
 * its own re-exec marker (cloned_binary_ensure()), and prints only debug
 * markers, and only when the options ask for them.
 */
#ifndef CLONED_BINARY_H
#define CLONED_BINARY_H

#include <stdbool.h>
#include <stddef.h>

#include "errors.h"
#include "kernel-features.h"

enum cloned_binary_method {
	CLONED_BINARY_METHOD_AUTO = 0,
	/* no copy: the binary on a detached, read-only overlayfs, O_PATH */
	CLONED_BINARY_METHOD_OVERLAY,
	/* memfd_create(MFD_EXEC), sealed F_SEAL_EXEC + SEAL|SHRINK|GROW|WRITE
	 */
	CLONED_BINARY_METHOD_MEMFD_EXEC,
	/* memfd_create() without MFD_EXEC (kernels before 6.3), write-sealed */
	CLONED_BINARY_METHOD_MEMFD,
	/* O_TMPFILE|O_EXCL in a checked directory, no write bits, O_PATH */
	CLONED_BINARY_METHOD_TMPFILE,
	/* a named file + unlink where O_TMPFILE is unsupported, then as
	 * tmpfile; no byte is written before the name is gone */
	CLONED_BINARY_METHOD_MKOSTEMP,
	_CLONED_BINARY_METHOD_MAX,
};

/*
 * What the user may ask for.  MEMFD means "a memfd of either kind", TMPFILE
 * means "a file on disk of either kind".  AUTO tries OVERLAY, then the
 * memfds, then the files.
 */
enum cloned_binary_request {
	CLONED_BINARY_REQUEST_AUTO = 0,
	CLONED_BINARY_REQUEST_MEMFD,
	CLONED_BINARY_REQUEST_TMPFILE,
	CLONED_BINARY_REQUEST_OVERLAY,
};

/* Stable names, as printed in the debug markers ("memfd-exec", ...). */
const char *cloned_binary_method_to_string(enum cloned_binary_method m);
/* Returns the request, or -EINVAL for an unknown name. */
int cloned_binary_request_from_string(const char *s);

struct cloned_binary_options {
	enum cloned_binary_request request;
	/*
	 * An explicit directory for the file methods.  It is used alone, and
	 * one that breaks a rule below is an error (-EPERM, or -EROFS for a
	 * read-only or noexec mount).
	 */
	const char *tmpdir;
	/*
	 * Otherwise: candidate directories tried first (NULL-terminated;
	 * NULL for none), then /run, /tmp, /var/tmp and /dev/shm.  A
	 * candidate that breaks a rule is skipped with a debug line
	 * "cloned_binary: skipping DIR: REASON".  The rules: an absolute
	 * path to a directory owned by the effective user or by root; not
	 * writable by group or others unless sticky; not append-only or
	 * immutable; not mounted noexec or read-only; and the new file's
	 * filesystem (fstatfs of the file itself) is tmpfs, ext4, xfs or
	 * btrfs, where the kernel, not the file's owner, enforces its mode
	 * and link count.
	 */
	const char *const *tmpdirs;
	/* The kernel features to use; NULL probes them (cached). */
	const struct mt_features *features;
	/* Debug markers "cloned_binary: ..." go to log (NULL: stderr). */
	bool debug;
	void (*log)(const char *line);
	/*
	 * The overlay method's owner rule, where global root is unmapped
	 * in our user namespace (cloned_binary_unmapped_uid() >= 0): there
	 * root's files show as the overflow uid, and so do every other
	 * unmapped user's, so such an owner is not taken for root unless
	 * the caller proved it is root's for the file and every directory
	 * above it, and sets this.  Proofs: the file was checked from the
	 * initial user namespace (by a parent that hands in its fd), or it
	 * is a path fixed when the program was built, in the system's own
	 * directories (crun-sealed's /usr/bin/crun).  Without it, auto
	 * makes a copy instead (the debug marker names the file and the
	 * reason) and a forced overlay fails with -EPERM.  No effect
	 * outside such a namespace, where the overflow uid is an ordinary
	 * user ("nobody") and never root.
	 */
	bool overflow_uid_is_root;
};

/*
 * The overflow uid (/proc/sys/kernel/overflowuid, 65534 by default) where
 * global root is unmapped in the caller's user namespace (rootless
 * podman's, `unshare -U -r`): there every owner that is unmapped shows as
 * this uid, root and any other user alike, so a file that shows so may be
 * anyone's.  -1 in the initial user namespace and where root is mapped,
 * where that uid is an ordinary user ("nobody").  Read each time (a
 * process may enter a user namespace after a first call).
 */
long cloned_binary_unmapped_uid(void);

/*
 * Whether exe_fd (an open file, e.g. /proc/self/exe) is the file at path,
 * a path fixed when the program was built in the system's own directories
 * (the distribution's /usr/sbin/runc, /usr/bin/crun): same device and
 * inode, and path a regular file.  A runtime sets overflow_uid_is_root
 * from it where its package installs it: only root installs there, and
 * the mount namespace that could put another file on that path is the
 * caller's own.  Returns 1, 0 (not that file, or path absent), or -errno
 * of fstat(2) on exe_fd or of stat(2) other than ENOENT.
 */
int cloned_binary_exe_is(int exe_fd, const char *path);

/* Seals that every memfd clone must carry (mask, never equality). */
#define CLONED_BINARY_MEMFD_SEALS 0x000fU /* F_SEAL_SEAL|SHRINK|GROW|WRITE */

/*
 * Makes a sealed executable copy of the regular file open at src_fd (which
 * must be readable; its file offset is not used), or, with the overlay
 * method, opens the file itself from a detached read-only overlayfs, which
 * needs its path (/proc/self/fd/N) to lead to it, and is taken only if the
 * file and every directory above it are owned by root or by us (an owner
 * shown as the overflow uid only with overflow_uid_is_root) and are
 * writable by neither group nor others (a sticky directory may be), and
 * all are on tmpfs, ext4, xfs or btrfs, where the kernel, not a daemon or
 * a server, reports owners and modes: no one else may be able to rewrite
 * the file it runs.  On success stores the
 * result in *ret_fd (O_CLOEXEC; a memfd, or an O_PATH fd for the overlay
 * and file methods) and the method in *ret_method, and returns 0.
 *
 * Errors:
 *  -EBADF, -EINVAL  src_fd is not an open regular file;
 *  -EACCES, -EPERM  every permitted method was refused by policy
 *                   (vm.memfd_noexec=2 and no usable directory), the
 *                   explicit tmpdir breaks a rule, or (overlay requested)
 *                   the binary or a directory above it breaks the owner
 *                   or filesystem rule above;
 *  -ESTALE          (overlay) the file found by its name is not src_fd's;
 *  -EROFS           the explicit tmpdir is mounted read-only or noexec;
 *  -ENOEXEC         a copy was made but does not carry the required
 *                   seals, mode or link count (it is destroyed, never
 *                   returned);
 *  -EIO             the source changed size while it was being copied;
 *  -ENOENT          no usable directory for the file methods;
 *  any other -errno from memfd_create, open, write, fcntl, fchmod.
 */
int cloned_binary_clone(int src_fd, const struct cloned_binary_options *opts,
			enum cloned_binary_method *ret_method, int *ret_fd, struct mt_error **err);

/*
 * Checks that fd is a sealed clone.  A memfd is judged on its seals alone:
 * they must include CLONED_BINARY_MEMFD_SEALS, and F_SEAL_EXEC where the
 * features (opts, or the probe) have it.  A file on overlayfs must be on a
 * read-only one that is attached to no mount tree we can see (a detached
 * mount, as the overlay method makes) and refuse opening for writing with
 * EROFS; it must be owned by root or by us (where root is unmapped, an
 * owner shown as the overflow uid counts only with the options'
 * overflow_uid_is_root) and be writable by neither group nor others,
 * since the overlay is the file itself; and its superblock must be
 * read-only without an upper layer (a read-only mount flag alone can be
 * cleared by its owner).  That proof fails closed: where it cannot be made
 * the answer is 0, except without CAP_SYS_ADMIN over our mount namespace
 * (EPERM: the EROFS stands) and on a kernel that clones no detached mount
 * (before 6.15).  An overlay this process made, and the program's own
 * running executable, need no proof.  Any other file must be unlinked
 * (nlink == 0), executable, without write bits, and on tmpfs, ext4, xfs or
 * btrfs.  Returns 1 if it is, 0 if it is not, -errno if fd cannot be
 * inspected.
 */
int cloned_binary_is_sealed(int fd, const struct cloned_binary_options *opts);

/*
 * Executes the clone at fd with argv and envp.  Re-verifies the clone first
 * and refuses (-ENOEXEC) to execute anything that is not sealed.  Returns
 * only on failure, with -errno from execveat (or the /proc/self/fd
 * fallback).
 */
int cloned_binary_exec(int fd, char *const argv[], char *const envp[],
		       const struct cloned_binary_options *opts, struct mt_error **err);

/*
 * For runtimes: unless the running program already runs from a sealed
 * clone, re-execute it from one, with argv read from /proc/self/cmdline and
 * the current environment.  Re-executes at most once: the child sees the
 * environment marker CLONED_BINARY_REEXEC_ENV=1 and, if it still is not a
 * sealed clone, this returns -ELOOP instead of looping.  A program on a
 * detached read-only overlayfs counts only with the marker (one we made).
 * Returns 0 when running from a clone (the marker is removed again), or
 * -errno.
 *
 * A runtime that starts its helper from a clone itself (runc's parent
 * starts runc init from an overlay fd made with cloned_binary_clone(),
 * passed as fd N) sets CLONED_BINARY_REEXEC_ENV=fd:N in the helper's
 * environment: ensure() then accepts the clone instead of making another,
 * checks that fd N is the file it runs from, and closes it.  Any other
 * value of the marker is refused with -EINVAL.
 */
#define CLONED_BINARY_REEXEC_ENV "_CLONED_BINARY_REEXEC"
/* The marker's value from such a runtime: this prefix, then N. */
#define CLONED_BINARY_REEXEC_FD "fd:"
/* The prefix of every debug marker and message line of the loader. */
#define CLONED_BINARY_LOG_PREFIX "cloned_binary: "
int cloned_binary_ensure(const struct cloned_binary_options *opts, struct mt_error **err);

/*
 * The copy step on its own, exported for the benchmark.  Copies size bytes
 * from offset 0 of src to the current offset of dst, handling short
 * writes.  AUTO is a reflink (FICLONERANGE, into an empty dst on src's own
 * btrfs or xfs mount), else sendfile, falling back to mmap + write, then
 * read/write.
 * Returns 0, -EIO if the source ended early, or -errno.
 */
enum cloned_binary_copy {
	CLONED_BINARY_COPY_AUTO = 0,
	CLONED_BINARY_COPY_MMAP,
	CLONED_BINARY_COPY_SENDFILE,
	CLONED_BINARY_COPY_READWRITE,
};
int cloned_binary_copy(int dst, int src, size_t size, enum cloned_binary_copy how);

#endif
