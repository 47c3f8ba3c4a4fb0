/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc_memfd_toolkit.h: what runc's patched nsexec.c, runc_loader_shim.c
 * and our Go files (through cgo, as C.RUNC_..., C.NSEXEC_...) share, each
 * written once.  contrib/runc/build.sh copies it into
 * libcontainer/nsenter/ with the library folders' headers.
 *
 * runc parses config.json itself (encoding/json, once) and hands the
 * library values through nsexec/runtime.h, the interface every runtime
 * calls.  The names that come from the library folders themselves:
 *   NSEXEC_RUNTIME_ANNOTATION, NSEXEC_RUNTIME_SYSCTL,
 *   NSEXEC_RUNTIME_SYSCTL_SLASH, NSEXEC_RUNTIME_MAX_VALUE   (runtime.h)
 *   CLONED_BINARY_REEXEC_ENV, CLONED_BINARY_REEXEC_FD,
 *   CLONED_BINARY_LOG_PREFIX                               (cloned-binary.h)
 */
#ifndef RUNC_MEMFD_TOOLKIT_H
#define RUNC_MEMFD_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cloned-binary.h"
#include "errors.h"
#include "runtime.h"

/*
 * bootstrapData's netlink attribute that carries the request to nsexec
 * (27290 is MountSourcesAttr in runc 1.1 and TimeOffsetsAttr in 1.2).  Its
 * value: the level, or RUNC_MEMFD_NOEXEC_BAD_LEVEL, which nsexec refuses;
 * | SYS_ADMIN if the container keeps CAP_SYS_ADMIN (runc's own capability
 * parsing); | APPLY for the container's init (stage-0 applies the level;
 * runc exec only gets the level, which its rule is clamped up to);
 * | PRESENT.
 */
#define RUNC_MEMFD_NOEXEC_ATTR 27291
#define RUNC_MEMFD_NOEXEC_LEVEL_MASK 0xffU
#define RUNC_MEMFD_NOEXEC_BAD_LEVEL 0xffU
#define RUNC_MEMFD_NOEXEC_SYS_ADMIN 0x100U
#define RUNC_MEMFD_NOEXEC_PRESENT 0x200U
#define RUNC_MEMFD_NOEXEC_APPLY 0x400U

/* runc's nsexec log levels (logrus's, as nsexec numbers them). */
#define RUNC_LOG_FATAL 1
#define RUNC_LOG_ERROR 2
#define RUNC_LOG_WARNING 3
#define RUNC_LOG_DEBUG 5

/* In nsexec.c (1.1: patch 0001) or runc13_shim.c (1.3, over log.h): lines
 * into runc init's log pipe, at a RUNC_LOG_ level. */
bool nsexec_loader_debug(void);
void nsexec_loader_log(int level, const char *line);

/* In runc_loader_shim.c. */

/* For nsexec(): run from a sealed clone, or re-execute from one. */
int ensure_cloned_binary(void);

/*
 * Whether exe (runc's own binary, open) is the file at RUNC_PACKAGED_PATH
 * (default /usr/sbin/runc, where Debian's runc package installs it).
 * Where global root is unmapped (rootless podman runs runc in such a user
 * namespace) root's runc shows as the overflow uid, as any other unmapped
 * user's file would; the packaged path is the proof the loader's owner
 * rule takes (cloned_binary_options.overflow_uid_is_root), so that runc
 * runs from the overlay there without a copy.  Elsewhere it gets a sealed
 * copy, with the reason in its debug log.
 */
bool runc_exe_is_packaged(int exe);

/*
 * For runc's parent (1.1: sealed_self.go): this binary on a new detached
 * read-only overlayfs, for runc init to start from as child_fd.  Returns
 * the fd (O_PATH, O_CLOEXEC) and writes the environment entry that tells
 * runc init so ("_CLONED_BINARY_REEXEC=fd:N") to env; or returns -errno.
 * Either way, msg gets the debug line to log.
 */
int runc_open_sealed_self(int child_fd, char *env, size_t env_size, char *msg, size_t msg_size);

/*
 * For nsexec's stage-0, first thing after reading bootstrapData and before
 * any namespace is joined or created (and so before any of the
 * container's mounts): opens the sysctl on runc's own procfs
 * (nsexec_runtime_level_open()), for stage-2 to read.  Init and exec.
 */
void runc_memfd_noexec_open(void);

/*
 * For nsexec's stage-0, as soon as it knows stage-2's PID and before
 * stage-2 (waiting for SYNC_GRANDCHILD) runs any of the container's code:
 * applies the level of attr (0 or no APPLY bit: nothing to do) with
 * nsexec_runtime_apply(), by its rules.  cloneflags are the container's
 * CLONE_NEW* flags (its PID and user namespaces).  Logs the outcome; a
 * refusal at FATAL, with the reason.  Returns 0 or -errno (stage-0 then
 * kills its children and exits).
 */
int runc_memfd_noexec_apply(uint32_t attr, uint32_t cloneflags, pid_t stage2_pid);

/*
 * For nsexec's stage-2, right after SYNC_GRANDCHILD (its PID namespace is
 * final and stage-0 applied the level), for every container's init and
 * every runc exec: reads the level through the fd stage-0 opened, clamps
 * it up to attr's level, and installs the MFD_HUGETLB seccomp rule when
 * needed (nsexec_runtime_hugetlb_rule()), before runc's own filter and
 * while stage-2 still has CAP_SYS_ADMIN in its user namespace.  Logs
 * "vm.memfd_noexec=N here[, asked for M]: ..." at debug.  Returns 0 or
 * -errno, logged at FATAL (stage-2 then bails).
 */
int runc_memfd_noexec_rule(uint32_t attr);

#endif
