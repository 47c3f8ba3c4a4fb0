/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the memfd-noexec program: what its verbs share.
 *
 * Each verb is a file of its own with one entry point, int fn(int argc,
 * char *argv[]), called by memfd-noexec.c's verb table with argv[0] the
 * verb's name, getopt reset (optind 1, opterr 0) and cli_log_set_verb()
 * done; it returns the exit status (or exits through cli_die()).  Every
 * verb is declared here, verb_<name> in <name>.c; serve, which the
 * service library will hold, still in serve.h.
 */
#ifndef MEMFD_NOEXEC_H
#define MEMFD_NOEXEC_H

#include <stdio.h>

#include "nsexec.h"

#define PROGRAM_NAME "memfd-noexec"

/* Exit statuses shared by the verbs (0 success, 1 failure). */
#define EXIT_USAGE 2
/* run: memfd-noexec failed before CMD started, or CMD could not be
 * executed, or was not found (as env(1) and unshare(1) report them). */
#define EXIT_RUN_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

int verb_status(int argc, char *argv[]);
int verb_run(int argc, char *argv[]);
int verb_hook(int argc, char *argv[]);

/*
 * audit: before an operator raises vm.memfd_noexec to 1 or 2, what would
 * break, per process, grouped by PID namespace (container).  It reads
 * /proc only and changes nothing: no write anywhere, no signal, no ptrace;
 * memfds are opened read-only to read their mode and seals (the verdicts'
 * rules are in audit/verdict.c).  Prints the report to stdout.  Returns 0
 * when the audit ran (whatever it found), 1 when it could not (no process
 * N, /proc unreadable, out of memory), 2 on bad usage.
 */
int verb_audit(int argc, char *argv[]);

/*
 * check: does an OCI runtime honour the memfd_noexec annotation?  Told by
 * behaviour, by running containers, not by version (check.c).  Returns 0
 * when the runtime honours it, 1 when it does not or that cannot be told
 * (or the check failed), 2 on bad usage (including a --runtime that is not
 * an executable file).
 */
int verb_check(int argc, char *argv[]);

/*
 * After nsexec_apply_memfd_noexec() succeeded: the notice for a level kept
 * or a namespace only joined, and the debug marker ("memfd-noexec: wrote
 * 2", "kept 1", "joined 2") that the tests assert on.
 */
void report_result(const struct nsexec_result *res);

/* Prints lines (NULL-terminated), each with a newline: a help text, one
 * literal per line. */
void print_lines(FILE *f, const char *const *lines);

#endif
