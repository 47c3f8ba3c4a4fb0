/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc13_shim.h: what runc 1.3 needs of memfd-toolkit beyond the shared
 * runc_memfd_toolkit.h.  runc 1.3 clones its binary in the parent (Go),
 * not in runc init, so the parent asks the loader for the clone.  The
 * build copies this folder into libcontainer/nsenter/ with the library
 * folders.
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
 * returned.  Returns the fd (O_CLOEXEC) or -errno; *ret_overlay tells
 * whether it is the overlay (runc's parent then also says so in the words
 * of runc's exeseal, which runc's own tests check).  msg gets the loader's
 * lines, newline-separated: its fallbacks and "cloned_binary: using X",
 * or the error.  A no-clone benchmark build returns /proc/self/exe itself
 * (O_PATH), no clone.
 */
int runc_clone_self_exe(const char *statedir, bool *ret_overlay, char *msg, size_t msg_size);

/* Whether this is the no-clone benchmark build (RUNC_LOADER_NO_CLONE). */
bool runc_loader_no_clone(void);

#endif
