/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec check --runtime PATH [--json]: does an OCI runtime honour
 * the memfd_noexec annotation?  The verb: options, usage, the call into
 * the runtime-check library (runtime-check/runtime-check.h, which has how
 * the check works and why it is safe), and the report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "escape.h"
#include "log.h"
#include "macro.h"
#include "memfd-noexec.h"
#include "runtime-check.h"

static void usage_check(FILE *f)
{
	static const char *const lines[] = {
		"Usage: memfd-noexec check --runtime PATH [--json]",
		"",
		"Tells whether the OCI runtime at PATH honours the memfd_noexec",
		"annotation, by running small containers with it (as root): one",
		"annotated \"2\" must see vm.memfd_noexec=2, one annotated \"3\"",
		"must be refused.  The containers run this program from a",
		"read-only bind of \"/\"; nothing is pulled.  The runtime runs in",
		"a throwaway PID and mount namespace: neither this namespace's",
		"level nor the host's can change.  Its state and bundle live in a",
		"private directory that is removed afterwards.",
		"",
		"Verdicts: honours (exit 0); ignores: containers run unprotected;",
		"refuses; cannot-tell, e.g. when the level here is already 2",
		"(exit 1 for these).  Exit 2: bad usage, or PATH is not an",
		"executable file.",
		"",
		"  -r, --runtime PATH  the runtime binary (runc, crun, ...)",
		"  -j, --json          one JSON object instead of text",
		"      --inside        (internal) what the test container runs",
		"",
		"crun shows a failing OCI hook only as \"error executing hook\":",
		"memfd-noexec hook also logs its refusals to syslog (see them with",
		"journalctl -t memfd-noexec), or give the container the annotation",
		"run.oci.hooks.stderr=FILE.",
		NULL,
	};

	print_lines(f, lines);
}

/* What the test container runs (RUNTIME_CHECK_INSIDE_ARGS). */
static int check_inside(void)
{
	int r = runtime_check_inside(stdout);

	if (r < 0) {
		/* No report: the check shows this line as the reason. */
		cli_error("Failed to read vm.memfd_noexec inside the test container: %s",
			  strerror(-r));
		return 1;
	}
	return 0;
}

static int check(const char *runtime, bool json)
{
	_cleanup_error_ struct mt_error *err = NULL;
	_cleanup_free_ char *shown = mt_escape_dup(runtime);
	struct runtime_check_outcome o;
	int r, status = 1;

	if (!shown) {
		cli_error("Failed to allocate memory");
		return 1;
	}
	r = runtime_check_run(runtime, &o, &err);
	if (o.left_behind)
		cli_error("Failed to remove the private directory %s: %s; remove it by hand",
			  o.left_behind, strerror(-o.left_error));
	if (r < 0) {
		cli_error("%s", mt_error_message(err));
		runtime_check_outcome_done(&o);
		return 1;
	}
	/* JSON carries the path itself (the writer escapes it) when it can. */
	r = json ? runtime_check_print_json(
			   stdout, mt_utf8_valid(runtime, strlen(runtime)) ? runtime : shown, &o)
		 : runtime_check_print_text(stdout, shown, &o);
	if (r < 0)
		cli_error("Failed to print the result: %s", strerror(-r));
	else if (o.verdict == RUNTIME_CHECK_HONOURS)
		status = 0;
	if (o.verdict == RUNTIME_CHECK_IGNORES)
		cli_error(
			"WARNING: %s IGNORES the memfd_noexec annotation: containers that ask for it run UNPROTECTED",
			shown);
	/* crun hides a failing hook's stderr: say where the hook's refusals
	 * are, since the hook is how a stock crun gets the level. */
	if (strstr(basename(runtime), "crun"))
		cli_notice(
			"crun shows a failing OCI hook only as \"error executing hook ... (exit code: 1)\", even with --debug: the reason for a refusal by memfd-noexec hook is in syslog (journalctl -t memfd-noexec), or in FILE with the container annotation run.oci.hooks.stderr=FILE");
	runtime_check_outcome_done(&o);
	return status;
}

int verb_check(int argc, char *argv[])
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"runtime", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"inside", no_argument, NULL, 'I'},
		{},
	};
	const char *runtime = NULL;
	_cleanup_error_ struct mt_error *err = NULL;
	bool json = false, inside = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "+:hr:j", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_check(stdout);
			return 0;
		case 'r':
			runtime = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'I':
			inside = true;
			break;
		case ':':
			cli_error("option '%s' needs a value: the path of an OCI runtime binary",
				  argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_error("unknown option '%s': allowed are --runtime PATH, --json, --help",
				  optopt > 0 && optopt < 128 ? (char[]){'-', (char)optopt, 0}
							     : argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s': check takes --runtime PATH [--json]",
			  argv[optind]);
		return EXIT_USAGE;
	}
	if (inside)
		return check_inside();
	if (!runtime || !*runtime) {
		cli_error("missing --runtime PATH (e.g. --runtime /usr/sbin/runc)");
		return EXIT_USAGE;
	}
	r = runtime_check_validate(runtime, &err);
	if (r < 0) {
		cli_error("%s", mt_error_message(err));
		return EXIT_USAGE;
	}
	return check(runtime, json);
}
