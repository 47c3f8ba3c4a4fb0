/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime-check: the verdict from the containers' outcomes, and its text
 * and JSON forms (runtime-check.h has the whole design).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "escape.h"
#include "fd-util.h"
#include "json-writer.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "parse.h"
#include "internal.h"

#include "probe.h"

/* ---- verdict ------------------------------------------------------------ */

const char *runtime_check_verdict_to_string(enum runtime_check_verdict v)
{
	switch (v) {
	case RUNTIME_CHECK_HONOURS:
		return "honours";
	case RUNTIME_CHECK_IGNORES:
		return "ignores";
	case RUNTIME_CHECK_REFUSES:
		return "refuses";
	default:
		return "cannot-tell";
	}
}

void runtime_check_outcome_done(struct runtime_check_outcome *o)
{
	free(o->reason);
	free(o->left_behind);
	for (size_t i = 0; i < ELEMENTSOF(o->runs); i++)
		runtime_check_container_done(&o->runs[i]);
}

_printf_(3, 4) static int set_verdict(struct runtime_check_outcome *o, enum runtime_check_verdict v,
				      const char *fmt, ...)
{
	va_list ap;
	int r;

	o->verdict = v;
	free(o->reason);
	va_start(ap, fmt);
	r = vasprintf(&o->reason, fmt, ap);
	va_end(ap);
	if (r < 0) {
		o->reason = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* "exit status 1" / "killed by signal 9" / "timed out" */
static void describe_exit(const struct runtime_check_container *r, char *buf, size_t n)
{
	if (r->rep.timed_out)
		snprintf(buf, n, "timed out after %d s", RUN_TIMEOUT_MS / 1000);
	else if (WIFEXITED(r->rep.status))
		snprintf(buf, n, "exit status %d", WEXITSTATUS(r->rep.status));
	else if (WIFSIGNALED(r->rep.status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(r->rep.status));
	else
		snprintf(buf, n, "wait status 0x%x", (unsigned)r->rep.status);
}

static const char *msg_or(const struct runtime_check_container *r)
{
	return r->message ? r->message : "(it printed nothing on stderr)";
}

static int changed_own_level(const struct check_ctx *c, struct runtime_check_outcome *o,
			     const struct runtime_check_container *r)
{
	return set_verdict(
		o, RUNTIME_CHECK_CANNOT_TELL,
		"DANGER: with the annotation \"%s\" the runtime changed vm.memfd_noexec of the PID namespace it runs in (from %d to %d): started on the host, it would change the host's level.  (The check ran it in a throwaway namespace: nothing here changed.)",
		r->annotation ? r->annotation : "", c->level_here, r->rep.level_after);
}

/* After "2" ran at level 2: does "3" fail, as a bad value must? */
static int decide_three(struct check_ctx *c, const sigset_t *mask, struct runtime_check_outcome *o,
			struct mt_error **err)
{
	struct runtime_check_container *three = &o->runs[1];
	int r;

	r = runtime_check_run_one(c, "3", mask, three, err);
	if (r < 0)
		return r;
	if (three->rep.level_after != c->level_here)
		return changed_own_level(c, o, three);
	if (three->ran)
		return set_verdict(
			o, RUNTIME_CHECK_IGNORES,
			"it accepts the invalid value \"3\" and runs the container (at level %d): a mistyped annotation runs without the protection it asked for instead of failing",
			three->level);
	if (three->rep.timed_out)
		return set_verdict(
			o, RUNTIME_CHECK_CANNOT_TELL,
			"the container annotated \"3\" timed out instead of being refused");
	return set_verdict(
		o, RUNTIME_CHECK_HONOURS,
		"a container annotated \"2\" saw vm.memfd_noexec=2 (here: %d), and \"3\" was refused",
		c->level_here);
}

/* "2" failed: because of the annotation, or does nothing run here? */
static int decide_failed(struct check_ctx *c, const sigset_t *mask, struct runtime_check_outcome *o,
			 struct mt_error **err)
{
	struct runtime_check_container *two = &o->runs[0], *ctl = &o->runs[2];
	char how[64];
	int r;

	r = runtime_check_run_one(c, NULL, mask, ctl, err);
	if (r < 0)
		return r;
	describe_exit(two, how, sizeof(how));
	if (ctl->ran)
		return set_verdict(
			o, RUNTIME_CHECK_REFUSES,
			"a container annotated \"2\" failed (%s: %s), while one without the annotation ran",
			how, msg_or(two));
	return set_verdict(
		o, RUNTIME_CHECK_CANNOT_TELL,
		"the runtime cannot run the check's container here even without the annotation (%s: %s)",
		how, msg_or(two));
}

/*
 * Runs the containers and decides.  Returns 0 with a verdict in *o, or
 * -errno when the check itself failed (message in *err).
 */
static int decide(struct check_ctx *c, const sigset_t *mask, struct runtime_check_outcome *o,
		  struct mt_error **err)
{
	struct runtime_check_container *two = &o->runs[0];
	int r;

	r = runtime_check_run_one(c, "2", mask, two, err);
	if (r >= 0 && two->rep.level_after != c->level_here)
		return changed_own_level(c, o, two);
	if (r >= 0 && two->ran && two->level == 2)
		r = decide_three(c, mask, o, err);
	else if (r >= 0 && two->ran)
		r = set_verdict(
			o, RUNTIME_CHECK_IGNORES,
			"a container annotated \"2\" ran at vm.memfd_noexec=%d (MFD_EXEC: %s): it runs UNPROTECTED, without any error.  Use the memfd-noexec OCI hook with this runtime, or a runtime that honours the annotation",
			two->level, two->mfd_exec);
	else if (r >= 0 && two->rep.timed_out)
		r = set_verdict(o, RUNTIME_CHECK_CANNOT_TELL,
				"the container annotated \"2\" timed out");
	else if (r >= 0)
		r = decide_failed(c, mask, o, err);
	return r;
}

/* ---- output ------------------------------------------------------------- */

static void print_container_text(FILE *f, const struct runtime_check_container *r)
{
	char how[64];

	if (!r->done)
		return;
	if (r->annotation)
		fprintf(f, "annotation \"%s\": ", r->annotation);
	else
		fprintf(f, "no annotation: ");
	if (r->ran) {
		fprintf(f, "ran at level %d (MFD_EXEC: %s)\n", r->level, r->mfd_exec);
		return;
	}
	describe_exit(r, how, sizeof(how));
	fprintf(f, "failed (%s%s): %s\n", how,
		strcmp(how, "exit status 0") == 0 ? ", but the container printed no report" : "",
		msg_or(r));
}

int runtime_check_print_text(FILE *f, const char *runtime, const struct runtime_check_outcome *o)
{
	fprintf(f, "runtime: %s\n", runtime);
	if (o->level_here >= 0)
		fprintf(f, "level here: %d\n", o->level_here);
	for (size_t i = 0; i < ELEMENTSOF(o->runs); i++)
		print_container_text(f, &o->runs[i]);
	fprintf(f, "verdict: %s\n", runtime_check_verdict_to_string(o->verdict));
	fprintf(f, "reason: %s\n", o->reason);
	return fflush(f) == 0 ? 0 : negative_errno();
}

static void add_run_json(struct policy_json_writer *w, const struct runtime_check_container *r)
{
	char how[64];

	if (!r->done)
		return;
	(void)policy_json_writer_open_object(w, !r->annotation			  ? "control"
						: strcmp(r->annotation, "2") == 0 ? "annotation_2"
										  : "annotation_3");
	(void)policy_json_writer_add_bool(w, "ran", r->ran);
	if (r->ran) {
		(void)policy_json_writer_add_int(w, "level", r->level);
		(void)policy_json_writer_add_string(w, "mfd_exec", r->mfd_exec);
	} else {
		(void)policy_json_writer_add_null(w, "level");
		(void)policy_json_writer_add_null(w, "mfd_exec");
	}
	describe_exit(r, how, sizeof(how));
	(void)policy_json_writer_add_string(w, "runtime_exit", how);
	(void)policy_json_writer_add_string(w, "message", r->message);
	(void)policy_json_writer_add_bool(w, "deleted", r->rep.delete_clean);
	(void)policy_json_writer_close_object(w);
}

int runtime_check_print_json(FILE *f, const char *runtime, const struct runtime_check_outcome *o)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	int r;

	r = policy_json_writer_new_object(&w);
	if (r < 0)
		return r;
	(void)policy_json_writer_add_string(w, "runtime", runtime);
	if (o->level_here >= 0)
		(void)policy_json_writer_add_int(w, "level_here", o->level_here);
	else
		(void)policy_json_writer_add_null(w, "level_here");
	(void)policy_json_writer_add_string(w, "verdict",
					    runtime_check_verdict_to_string(o->verdict));
	(void)policy_json_writer_add_string(w, "reason", o->reason);
	for (size_t i = 0; i < ELEMENTSOF(o->runs); i++)
		add_run_json(w, &o->runs[i]);
	(void)policy_json_writer_close_object(w);
	return policy_json_writer_print(w, f);
}

/* ---- the command -------------------------------------------------------- */

int runtime_check_validate(const char *path, struct mt_error **err)
{
	struct stat st;

	if (!strchr(path, '/'))
		return mt_error_set(
			err, -EINVAL,
			"--runtime '%s' is a name, not a path: give the binary's path, e.g. --runtime \"$(command -v %s)\"",
			path, path);
	if (stat(path, &st) < 0)
		return mt_error_set(
			err, negative_errno(),
			"Failed to find the runtime '%s': %m; --runtime needs the path of an OCI runtime binary such as /usr/sbin/runc",
			path);
	if (!S_ISREG(st.st_mode))
		return mt_error_set(
			err, -EINVAL,
			"The runtime '%s' is not a regular file; --runtime needs the path of an OCI runtime binary such as /usr/sbin/runc",
			path);
	if (access(path, X_OK) < 0)
		return mt_error_set(err, negative_errno(), "The runtime '%s' is not executable: %m",
				    path);
	return 0;
}

/* The verdict without running anything, when the setup rules it out. */
static int precheck(struct check_ctx *c, struct runtime_check_outcome *o)
{
	_cleanup_error_ struct mt_error *reason = NULL;
	int r;

	c->level_here = mt_memfd_noexec_read();
	if (c->level_here == -ENOENT)
		return set_verdict(
			o, RUNTIME_CHECK_CANNOT_TELL,
			"this kernel has no vm.memfd_noexec (it needs Linux 6.3 or later, with CONFIG_PID_NS): no runtime can honour the annotation here");
	if (c->level_here < 0)
		return set_verdict(o, RUNTIME_CHECK_CANNOT_TELL,
				   "Failed to read vm.memfd_noexec here: %s",
				   strerror(-c->level_here));
	if (c->level_here >= 2)
		return set_verdict(
			o, RUNTIME_CHECK_CANNOT_TELL,
			"vm.memfd_noexec is already 2 in this PID namespace, and every container below it inherits 2: honouring and ignoring the annotation look the same.  Run the check from a PID namespace at 0 or 1 (e.g. the host's)");
	r = probe_can_set_level(&reason);
	if (r == -EPERM)
		return set_verdict(
			o, RUNTIME_CHECK_CANNOT_TELL,
			"the check needs global root, as a rootful runtime would run (%s)",
			mt_error_message(reason));
	if (r < 0)
		return set_verdict(o, RUNTIME_CHECK_CANNOT_TELL,
				   "Failed to tell whether this process is privileged: %s",
				   mt_error_message(reason));
	return 1;
}

int runtime_check_run(const char *path, struct runtime_check_outcome *ret, struct mt_error **err)
{
	struct check_ctx c = {.runtime = path, .level_here = -1};
	sigset_t block, old;
	int r, k;

	*ret = (struct runtime_check_outcome){.level_here = -1};
	r = precheck(&c, ret);
	ret->level_here = c.level_here;
	if (r != 1)
		return r < 0 ? mt_error_set(err, r, "Failed to decide: %s", strerror(-r)) : 0;

	/* Finish and clean up even on ^C: the signals wait until the private
	 * directory is gone.  Children restore the mask. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	(void)sigprocmask(SIG_BLOCK, &block, &old);

	c.self = realpath("/proc/self/exe", NULL);
	snprintf(c.id, sizeof(c.id), "memfd-noexec-check-%d", (int)getpid());
	if (!c.self)
		r = mt_error_set(err, negative_errno(),
				 "Failed to find this program's path (/proc/self/exe): %m");
	else if ((r = runtime_check_make_dir(&c)) < 0)
		r = mt_error_set(err, r, "Failed to create a private directory in /run or /tmp: %s",
				 strerror(-r));
	else
		r = decide(&c, &old, ret, err);
	k = runtime_check_ctx_done(&c);
	if (k < 0) {
		ret->left_behind = TAKE_PTR(c.dir);
		ret->left_error = k;
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return r < 0 ? r : 0;
}
