/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec audit: before an operator raises vm.memfd_noexec to 1 or
 * 2, what would break, per process, grouped by PID namespace (container).
 *
 *   memfd-noexec audit [--json] [--pid N | --container-pid N | --all]
 *
 * It reads /proc only and changes nothing: no write anywhere, no signal,
 * no ptrace; memfds are opened read-only to read their mode and seals.
 * See audit.c for how each verdict is reached.
 */
#ifndef NSEXEC_AUDIT_H
#define NSEXEC_AUDIT_H

#include <stdio.h>

/*
 * The `audit` command of memfd-noexec; argv[0] is "audit".  Prints the
 * report to stdout and messages to stderr.  Returns the exit status: 0 when
 * the audit ran (whatever it found: the verdicts are in the report), 1 when
 * it could not (e.g. no process N, /proc unreadable, out of memory), 2 on
 * bad usage.
 */
int nsexec_audit_main(int argc, char *argv[]);

/* Its usage text, for memfd-noexec's --help. */
void nsexec_audit_usage(FILE *f);

#endif
