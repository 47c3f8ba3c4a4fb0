/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to nsexec/: namespace identities and the vm.memfd_noexec file.
 * Everything here is async-signal-safe (no allocation, no stdio), because
 * it runs in children forked from a possibly multi-threaded caller.
 *
 * The constants below belong in common/missing_syscall.h; they sit here
 * until that header (owned elsewhere) takes them.
 */
#ifndef NSEXEC_PIDNS_H
#define NSEXEC_PIDNS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "missing_syscall.h"

#define NSEXEC_SYSCTL_PATH "/proc/sys/vm/memfd_noexec"

struct nsexec_ns_id {
	dev_t dev;
	ino_t ino;
	bool nsfs; /* the file lives on nsfs, so ino can be compared with
		    * the PROC_*_INIT_INO constants */
};

/*
 * True if /proc shows this process under its own PID, i.e. the procfs
 * mount belongs to the caller's active PID namespace, so /proc/<pid> names
 * the process that <pid> names for the caller.  After a bare
 * `unshare --pid --fork` it does not.
 */
bool nsexec_procfs_is_ours(void);

/* Identity of the namespace open at fd / named by path.  0 or -errno. */
int nsexec_ns_id_of_fd(int fd, struct nsexec_ns_id *ret);
int nsexec_ns_id_of_path(const char *path, struct nsexec_ns_id *ret);

bool nsexec_ns_id_equal(const struct nsexec_ns_id *a,
			const struct nsexec_ns_id *b);
/* True if id is the initial PID namespace (inode PROC_PID_INIT_INO). */
bool nsexec_ns_id_is_initial_pid(const struct nsexec_ns_id *id);
bool nsexec_ns_id_is_initial_user(const struct nsexec_ns_id *id);

/*
 * Reads vm.memfd_noexec as the calling task's ACTIVE PID namespace sees it
 * (the procfs mount does not matter).  Returns the value (>= 0), or -ENOENT
 * when the sysctl does not exist, -EBADMSG if the file holds no number, or
 * another -errno from open/read.
 */
int nsexec_sysctl_read(void);

enum nsexec_write_stage {
	NSEXEC_WRITE_OPEN = 1, /* open(O_WRONLY) failed: EACCES when the
				* writer is not global root */
	NSEXEC_WRITE_WRITE,    /* write() failed: EPERM without CAP_SYS_ADMIN
				* over the owner, EINVAL below the parent */
};

/*
 * Writes "<level>\n".  Returns 0 or -errno, and on failure the stage in
 * *ret_stage.  The CALLER must have checked that its active PID namespace
 * is not the initial one (nsexec_guard_active_pidns()).
 */
int nsexec_sysctl_write(int level, enum nsexec_write_stage *ret_stage);

/*
 * The last line of defence before any write: fails with -EEXIST if the
 * caller's active PID namespace is the initial one or equal to one of the
 * n ids in forbidden, and with -EPROTO if want is not NULL and the active
 * namespace is not want.  Other -errno if it cannot be determined (which
 * also forbids the write).
 */
int nsexec_guard_active_pidns(const struct nsexec_ns_id *want,
			      const struct nsexec_ns_id *forbidden, size_t n);

#endif
