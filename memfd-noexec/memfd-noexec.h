/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the memfd-noexec program: what its verbs share.
 *
 * Each verb is a file of its own with one entry point, int fn(int argc,
 * char *argv[]), called by memfd-noexec.c's verb table with argv[0] the
 * verb's name, getopt reset (optind 1, opterr 0) and cli_log_set_verb()
 * done; it returns the exit status (or exits through cli_die()).  status,
 * run and hook are declared here; audit, check and serve in audit.h,
 * check_runtime.h and serve.h.
 */
#ifndef MEMFD_NOEXEC_H
#define MEMFD_NOEXEC_H

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
 * After nsexec_apply_memfd_noexec() succeeded: the notice for a level kept
 * or a namespace only joined, and the debug marker ("memfd-noexec: wrote
 * 2", "kept 1", "joined 2") that the tests assert on.
 */
void report_result(const struct nsexec_result *res);

#endif
