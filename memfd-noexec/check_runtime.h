/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec check: does an OCI runtime honour the memfd_noexec
 * annotation?  Told by behaviour, not by version: see check_runtime.c.
 *
 * Tool code (part of the memfd-noexec executable, not of the nsexec
 * library): it prints its findings and messages itself.
 */
#ifndef NSEXEC_CHECK_RUNTIME_H
#define NSEXEC_CHECK_RUNTIME_H

/*
 * `memfd-noexec check` with argv[0] = "check".  Returns the exit status:
 * 0 the runtime honours the annotation, 1 it does not or it cannot be
 * told (or the check failed), 2 bad usage (including a --runtime that is
 * not an executable file).
 */
int nsexec_cmd_check(int argc, char *argv[]);

#endif
