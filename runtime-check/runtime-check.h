/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime-check: what `memfd-noexec check --runtime PATH` does, as a
 * library.  Tells whether an OCI runtime binary honours the memfd_noexec
 * annotation, by running containers with it rather than by reading its
 * version:
 *
 *   1. annotations["memfd_noexec"] = "2": the container reports the
 *      vm.memfd_noexec it sees and what memfd_create(MFD_EXEC) gives;
 *   2. if it saw 2: the annotation "3", which an honouring runtime must
 *      refuse (a bad value has to fail creation, not run unprotected);
 *   3. if 1 failed: a control container without the annotation, which
 *      separates "refuses the annotation" from "cannot run containers
 *      here at all".
 *
 * Verdicts: honours (exit 0), ignores (the container runs unprotected),
 * refuses, cannot-tell (exit 1 for all three).
 *
 * Safety.  The check itself never writes vm.memfd_noexec.  Each runtime
 * runs as PID 1's child in a throwaway PID namespace with a private mount
 * namespace and a fresh /proc, so even a runtime that wrote the sysctl in
 * its own namespace would change only that throwaway one, never the
 * caller's or the host's; the container gets a PID namespace of its own
 * below it.  After each run the throwaway namespace's own level is read
 * back: a runtime that changed it (and so would change the host's when
 * run there) is reported as a danger, never as honouring.  Everything
 * lives in a private directory under /run (or /tmp) that is removed
 * afterwards, and the container is deleted with the runtime's own
 * `delete -f` inside the same namespace (where its PIDs mean what the
 * runtime's state says).
 *
 * The rootfs.  The container runs this very program (`check --inside`),
 * so it needs no image.  A root.path of "/" does not work: runc 1.1.5
 * fails with "pivot_root .: device or resource busy".  So, in the private
 * mount namespace, "/" is bound recursively onto an empty directory
 * <dir>/rootfs, which is then the read-only root.path; runc 1.1.5 (stock
 * and patched) and crun 1.8.1 both run it.  crun refuses hybrid cgroup
 * hierarchies ("cgroups in hybrid mode not supported"), so on a hybrid
 * host the cgroup2 mount at /sys/fs/cgroup/unified is detached inside the
 * private mount namespace (nowhere else); that changes nothing about the
 * annotation.
 */
#ifndef RUNTIME_CHECK_H
#define RUNTIME_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "errors.h"

/*
 * The test container runs this very program (/proc/self/exe) with these
 * arguments: its main() must answer them with runtime_check_inside().
 */
#define RUNTIME_CHECK_INSIDE_ARGS "check", "--inside"

/* What the namespace's init reports about one container. */
struct runtime_check_report {
	int step;	   /* the step that failed (internal.h), or 0 */
	int error;	   /* its -errno */
	int status;	   /* wait status of `runtime run` */
	bool timed_out;	   /* `runtime run` was killed after the timeout */
	bool delete_clean; /* `runtime delete -f` exited 0 */
	int level_after;   /* the throwaway namespace's level afterwards */
};

/* One container's outcome. */
struct runtime_check_container {
	const char *annotation; /* "2", "3", or NULL for the control */
	bool done;		/* this run took place */
	bool ran;		/* the container printed its report */
	int level;		/* what it saw, or -1 */
	char mfd_exec[32];	/* "ok" or an errno name */
	struct runtime_check_report rep;
	char *message; /* the last line the runtime printed on stderr */
};

enum runtime_check_verdict {
	RUNTIME_CHECK_HONOURS,
	RUNTIME_CHECK_IGNORES,
	RUNTIME_CHECK_REFUSES,
	RUNTIME_CHECK_CANNOT_TELL,
};

struct runtime_check_outcome {
	enum runtime_check_verdict verdict;
	char *reason;
	int level_here;				/* vm.memfd_noexec where the check ran, or -errno */
	struct runtime_check_container runs[3]; /* "2", "3", control */
	/* The private directory when it could not be removed (-left_error
	 * says why), for the caller to report; else NULL. */
	char *left_behind;
	int left_error;
};

/* "honours", "ignores", "refuses", "cannot-tell" */
const char *runtime_check_verdict_to_string(enum runtime_check_verdict v);

/*
 * Checks that path names an executable regular file, given as a path (a
 * bare name is refused).  0, or -EINVAL / -errno of stat() or access()
 * with the message in *err.
 */
int runtime_check_validate(const char *path, struct mt_error **err);

/*
 * Runs the check of the runtime at path (validated) and fills *ret, which
 * the caller releases with runtime_check_outcome_done() in every case.
 * Returns 0 with a verdict, or -errno when the check itself failed
 * (-ENOMEM, the private directory, a pipe, fork), with the message in
 * *err.  SIGINT, SIGTERM, SIGHUP and SIGQUIT wait while it runs, so that
 * the private directory is always removed.
 */
int runtime_check_run(const char *path, struct runtime_check_outcome *ret, struct mt_error **err);

void runtime_check_outcome_done(struct runtime_check_outcome *o);

/*
 * The outcome as text (one "key: value" line each) or as one JSON object,
 * on f, with runtime as the runtime's name: for text, already escaped for
 * display; for JSON, the path itself (the writer escapes it).  0 or
 * -errno.
 */
int runtime_check_print_text(FILE *f, const char *runtime, const struct runtime_check_outcome *o);
int runtime_check_print_json(FILE *f, const char *runtime, const struct runtime_check_outcome *o);

/*
 * Inside the test container: prints the one line the check reads (the
 * level seen and what memfd_create(MFD_EXEC) gives) on f.  0, or -errno
 * when the level cannot be read (no line then) or f fails.
 */
int runtime_check_inside(FILE *f);

#endif
