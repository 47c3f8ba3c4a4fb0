/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc13_shim.h: what runc 1.3 needs of memfd-toolkit beyond the shared
 * runc_memfd_toolkit.h.  runc 1.3 clones its binary in the parent (Go),
 * not in runc init, so the parent asks the loader for the clone; and runc
 * init learns the vm.memfd_noexec level its PID namespace really has,
 * which decides the hugetlb seccomp rule.  The build copies this folder
 * into libcontainer/nsenter/ with the library folders.
 */
#ifndef RUNC13_SHIM_H
#define RUNC13_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "runc_memfd_toolkit.h"

/*
 * For runc's parent, in place of exeseal.CloneSelfExe(): runc's own binary
 * made safe by the loader, for runc init to start from.  The loader's
 * order: a detached read-only overlayfs (no copy; rootless through a user
 * namespace), else a sealed W^X memfd, else an unlinked, read-only file in
 * statedir or the loader's directories, each checked sealed before it is
 * returned.  Returns the fd (O_CLOEXEC) or -errno.  msg gets the loader's
 * lines, newline-separated: its fallbacks and "cloned_binary: using X",
 * or the error.  A no-clone benchmark build returns /proc/self/exe itself
 * (O_PATH), no clone.
 */
int runc_clone_self_exe(const char *statedir, char *msg, size_t msg_size);

/* Whether this is the no-clone benchmark build (RUNC_LOADER_NO_CLONE). */
bool runc_loader_no_clone(void);

/*
 * For nsexec's stage-0, as soon as it knows stage-2's PID and before
 * stage-2 (the PID namespace's init, waiting for SYNC_GRANDCHILD) runs any
 * of the container's code: applies the level of the attribute
 * RUNC_MEMFD_NOEXEC_ATTR (attr; 0 when absent: nothing to do) with
 * nsexec_apply_memfd_noexec(), by its rules: a PID namespace created for
 * the container (new_pidns) is raised, never lowered; one it joins is
 * checked, never changed; CAP_SYS_ADMIN without a user namespace, or
 * rootless below the level without the memfd-noexec service, is refused.
 * Logs the outcome; a refusal at FATAL, with the reason.  Returns 0 or
 * -errno (stage-0 then kills its children and exits).
 */
int runc_apply_memfd_noexec(unsigned attr, bool new_pidns, pid_t stage2_pid);

/*
 * The effective vm.memfd_noexec of runc init's PID namespace
 * (runc_memfd_noexec_effective(), runc_memfd_toolkit.h): nsexec opens the
 * sysctl in stage-0, before it joins or creates any namespace (so the
 * file is the host's procfs, never one a container mounted), and stage-2,
 * in the container's PID namespace and after stage-0 applied the
 * container's level, reads it (the kernel answers for the reader's PID
 * namespace) with policy_memfd_noexec_effective_fd(): 0, 1 or 2, or
 * -EOPNOTSUPP where the kernel has no levels, or another -errno.  Until
 * stage-2 read it, -ENODATA.
 */
void runc_memfd_noexec_open(void);
void runc_memfd_noexec_read(void);

#endif
