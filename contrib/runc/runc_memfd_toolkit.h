/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc_memfd_toolkit.h: what runc's patched nsexec.c, runc_loader_shim.c
 * and our Go files (through cgo, as C.RUNC_..., C.POLICY_...) share, each
 * written once.  contrib/runc/build.sh copies it into
 * libcontainer/nsenter/ with the library folders' headers.
 *
 * The names that come from the library folders themselves:
 *   POLICY_ANNOTATION, POLICY_SYSCTL, POLICY_SYSCTL_SLASH   (policy.h)
 *   CLONED_BINARY_REEXEC_ENV, CLONED_BINARY_REEXEC_FD,
 *   CLONED_BINARY_LOG_PREFIX                                 (cloned-binary.h)
 *   POLICY_HUGETLB_MEMFD_ERRNO                               (seccomp-rules.h)
 */
#ifndef RUNC_MEMFD_TOOLKIT_H
#define RUNC_MEMFD_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloned-binary.h"
#include "errors.h"
#include "nsexec.h"
#include "policy.h"
#include "seccomp-rules.h"

/*
 * bootstrapData's netlink attribute that carries the level to nsexec, for
 * the container's init only (27290 is MountSourcesAttr in runc 1.1 and
 * TimeOffsetsAttr in 1.2).  Its value: the level, or
 * RUNC_MEMFD_NOEXEC_BAD_LEVEL, which nsexec refuses; | SYS_ADMIN if the
 * container keeps CAP_SYS_ADMIN; | PRESENT.
 */
#define RUNC_MEMFD_NOEXEC_ATTR 27291
#define RUNC_MEMFD_NOEXEC_LEVEL_MASK 0xffU
#define RUNC_MEMFD_NOEXEC_BAD_LEVEL 0xffU
#define RUNC_MEMFD_NOEXEC_SYS_ADMIN 0x100U
#define RUNC_MEMFD_NOEXEC_PRESENT 0x200U

/* In nsexec.c (patch 0001): the loader's lines go into runc's log pipe. */
bool nsexec_loader_debug(void);
void nsexec_loader_log(bool error, const char *line);

/* In runc_loader_shim.c. */

/* For nsexec(): run from a sealed clone, or re-execute from one. */
int ensure_cloned_binary(void);

/*
 * For runc's parent (sealed_self.go): this binary on a new detached
 * read-only overlayfs, for runc init to start from as child_fd.  Returns
 * the fd (O_PATH, O_CLOEXEC) and writes the environment entry that tells
 * runc init so ("_CLONED_BINARY_REEXEC=fd:N") to env; or returns -errno.
 * Either way, msg gets the debug line to log.
 */
int runc_open_sealed_self(int child_fd, char *env, size_t env_size, char *msg, size_t msg_size);

/*
 * For bootstrapData (memfd_noexec_linux.go): the attribute's value for the
 * annotation's value (exactly "0", "1" or "2", else BAD_LEVEL) and the
 * container's bounding set.  have_bounding false: none given (crun then
 * leaves the capabilities alone), which counts as keeping CAP_SYS_ADMIN,
 * as does a name policy_capability_value() refuses (runc's main package
 * refused it already).
 */
uint32_t runc_memfd_noexec_attr(const char *level, const char *const *bounding, size_t n,
				bool have_bounding);

/*
 * For runc init (patch 0005), in the container's process before runc's own
 * seccomp filter and before it drops capabilities, for every container and
 * every runc exec: the seccomp rules that go with the level the process
 * really runs at, read in its PID namespace, whether the container asked
 * for it (level: the annotation's value, checked again; NULL: none),
 * inherited it or joined a namespace at it (runc_memfd_noexec_effective();
 * policy_hugetlb_rule_needed(): at 2, or when the level cannot be read,
 * memfd_create(MFD_HUGETLB) fails with EPERM).  msg gets the line to log,
 * the same in every series ("vm.memfd_noexec=N here, asked for M: ...").
 * Returns 1 if it installed them, 0 if none are needed, or -errno with
 * *err set.
 */
int runc_memfd_noexec_seccomp(const char *level, char *msg, size_t msg_size, struct mt_error **err);

/*
 * The level runc init's PID namespace really has, as
 * policy_memfd_noexec_effective() returns it (0..2 or -errno).  Each
 * series says where it is read: runc 1.1's runc init reads it itself
 * (1.1/nsenter/runc11_shim.c); runc 1.3's nsexec opens the sysctl before
 * it enters any namespace and reads it in stage-2 (runc13_shim.c).
 */
int runc_memfd_noexec_effective(void);

#endif
