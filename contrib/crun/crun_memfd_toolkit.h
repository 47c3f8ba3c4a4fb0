/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crun_memfd_toolkit.h: what crun's patched sources call in
 * crun_loader_shim.c, the one place where crun meets memfd-toolkit.
 * contrib/crun/build.sh copies it and the shim into src/libcrun/ and links
 * crun against the toolkit's static libraries (cloned_binary, nsexec,
 * mtcommon), which need nothing crun does not link already: crun hands
 * them values from its own parse of config.json, never the document.
 * Every function here takes crun's own types and reports through crun's
 * libcrun_error_t, so that the patches stay one call each.
 */
#ifndef CRUN_MEMFD_TOOLKIT_H
#define CRUN_MEMFD_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "container.h"
#include "error.h"

/* The value of libcrun_container_t.memfd_noexec when nothing is asked. */
#define CRUN_MEMFD_NOEXEC_NONE (-1)

/*
 * For crun's constructor (linux.c) and main (crun.c): run from a sealed
 * clone of crun, or re-execute from one.  Returns 0 when running from one;
 * otherwise only returns on failure, with -1 after printing the reason.
 */
int ensure_cloned_binary(void);

/* For `crun --version`: the loader line, e.g. "loader: sealed W^X (...)". */
const char *crun_memfd_toolkit_loader(void);

/*
 * For libcrun_container_load_from_{file,memory}(), right after crun's own
 * parser: the request as crun's parse read it (annotations["memfd_noexec"],
 * linux.sysctl["vm.memfd_noexec"] or ["vm/memfd_noexec"]) into
 * container->memfd_noexec (CRUN_MEMFD_NOEXEC_NONE when nothing is asked),
 * and whether the process keeps CAP_SYS_ADMIN in its bounding set, by
 * libcap's cap_from_name() as crun reads it (no bounding set counts as
 * keeping it) into container->memfd_noexec_sys_admin.  crun's parser keeps
 * every entry of a JSON object, a repeated key too: a key given twice, or
 * an annotation and a sysctl asking different levels, is refused here, and
 * so is a bad value, quoting it and naming the field, before anything
 * exists.  No JSON is parsed here.
 */
int crun_memfd_noexec_load(libcrun_container_t *container, libcrun_error_t *err);

/*
 * The level that decides the huge-page rule is read through
 * /proc/sys/vm/memfd_noexec opened HERE, by crun, on its own procfs: for
 * the container's init before crun clones it into any of the container's
 * namespaces (linux.c), for crun exec before it joins them.  The process
 * that runs the container's code inherits the fd and
 * crun_memfd_noexec_seccomp() reads and closes it there, so that no mount
 * of the container's can stand in for the file.  crun closes its own copy
 * with crun_memfd_noexec_close_level() right after the fork
 * (libcrun_container_free() closes it too).  A failed open is kept as its
 * -errno and counts as "unreadable" (the rule is installed), or as "no
 * levels" where the kernel has none.
 */
void crun_memfd_noexec_open_level(libcrun_container_t *container);
void crun_memfd_noexec_close_level(libcrun_container_t *container);

/*
 * For the container's process (after crun's fork into its PID namespace,
 * if any), before it waits for the mounts: when a request is made, sends its PID
 * namespace (/proc/self/ns/pid) over sync_socket, since the process is
 * not dumpable and a rootless parent may not open it.  Nothing is sent
 * without a request.  Returns 0 or a crun error.
 */
int crun_memfd_noexec_send_pidns(libcrun_container_t *container, int sync_socket,
				 libcrun_error_t *err);

/*
 * For crun's parent, as soon as pid is the container's init in its final
 * namespaces and before any of the container's code runs: applies the
 * request to pid's PID namespace with nsexec_apply_memfd_noexec(), the
 * rules runc and the hook follow.  sync_socket is where
 * crun_memfd_noexec_send_pidns() sent the namespace; the library takes it
 * only where it proves it to be pid's own by what the kernel says of pid
 * (its pidfd), never on the sender's word.  Returns 0, or a crun
 * error; the caller must then kill the container (crun does, through
 * pid_to_clean).
 */
int crun_memfd_noexec_apply(libcrun_container_t *container, pid_t pid, int sync_socket,
			    libcrun_error_t *err);

/*
 * For the container's init and for crun exec, in the process that runs the
 * container's code (in its final PID namespace, after the level was
 * applied), before crun's own seccomp filter and while the process keeps
 * its capabilities: the seccomp rules of the level the process really runs
 * at (memfd_create(MFD_HUGETLB) refused at 2), read through the fd of
 * crun_memfd_noexec_open_level() (which it closes), so for this process's
 * PID namespace: the request, or a stricter level inherited or joined, with
 * or without a request.  Returns 0 or a crun error.
 */
int crun_memfd_noexec_seccomp(libcrun_container_t *container, libcrun_error_t *err);

/*
 * For crun exec, before it joins the container's namespaces: pid is the
 * container's init, process the exec's process (its capabilities, else
 * the container's, count).  A container that asked for a level and has
 * no user namespace of its own gets no process that keeps CAP_SYS_ADMIN,
 * unless its parent already enforces the level: the creation's rule,
 * nsexec_runtime_check_exec().  Returns 0 or a crun error naming the rule.
 */
int crun_memfd_noexec_check_exec(libcrun_container_t *container, pid_t pid,
				 runtime_spec_schema_config_schema_process *process,
				 libcrun_error_t *err);

/* For restore: a request refuses it (CRIU recreates the processes). */
int crun_memfd_noexec_refuse_restore(libcrun_container_t *container, libcrun_error_t *err);

/*
 * For libcrun_set_sysctl(): whether key (crun's '.' or '/' spelling) is
 * the request, which crun_memfd_noexec_apply() applied already, so that
 * crun neither refuses it as "not namespaced" nor writes it itself.
 */
bool crun_memfd_noexec_is_sysctl(const char *key);

#endif
