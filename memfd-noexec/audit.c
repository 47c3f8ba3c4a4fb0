/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec audit: what would break at vm.memfd_noexec 1 or 2.  This
 * file is the verb: its options and its flow.  The work is in three
 * parts, the audit library (audit/audit.h):
 *   collect.c, memfds.c, cgroup.c  read /proc: processes, their memfds,
 *                                  namespace levels;
 *   verdict.c  judges them (pure functions; the rules are there);
 *   render.c   prints the text report or the JSON document.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "log.h"
#include "macro.h"
#include "memfd-noexec.h"

static void audit_usage(FILE *f)
{
	static const char *const lines[] = {
		"Usage: memfd-noexec audit [--json] [--pid N | --container-pid N | --all]",
		"",
		"Reads /proc (and changes nothing) to tell, per process and per",
		"PID namespace (container), what raising vm.memfd_noexec would",
		"break: \"fine at 2\", \"breaks at 2 only\" or \"breaks at 1 and 2\",",
		"with the reason; \"(worst case)\" where the kernel cannot tell",
		"how a memfd was made.  Ends with a summary line.",
		"",
		"  --all              every process /proc shows (default)",
		"  --pid N            process N only",
		"  --container-pid N  the PID namespace of process N (a container's",
		"                     init), every process in it",
		"  --json             one JSON document instead of text",
		"",
		"PIDs are as this /proc shows them.  As root every process and",
		"every namespace's level can be read; a user reads their own",
		"processes, the level of their own PID namespace only, and gets",
		"the others listed as unreadable.  Exit status: 0 audited",
		"(whatever the verdicts), 1 failure, 2 bad usage.",
		NULL,
	};

	print_lines(f, lines);
}

/* Sets the scope; refuses a second one.  0 or -EINVAL (reported). */
static int set_scope(struct audit *a, enum audit_scope s, const char *opt, const char *arg,
		     bool *chosen)
{
	if (*chosen) {
		cli_error(
			"only one of --all, --pid N, --container-pid N may be given ('%s' comes after another)",
			opt);
		return -EINVAL;
	}
	*chosen = true;
	a->scope = s;
	if (s != AUDIT_SCOPE_ALL && audit_parse_pid(arg, &a->target) < 0) {
		cli_error("invalid %s '%s': a process ID is a decimal number from 1 to %d", opt,
			  arg, INT_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Options into a and *json.  0, 1 for --help (printed), or -EINVAL
 * (reported). */
static int parse_options(int argc, char *argv[], struct audit *a, bool *json)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"json", no_argument, NULL, 'j'},
		{"all", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'},
		{"container-pid", required_argument, NULL, 'c'},
		{},
	};
	bool chosen = false;
	int c, r = 0;

	optind = 1;
	opterr = 0;
	while (r == 0 && (c = getopt_long(argc, argv, "+:hjap:c:", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			audit_usage(stdout);
			return 1;
		case 'j':
			*json = true;
			break;
		case 'a':
			r = set_scope(a, AUDIT_SCOPE_ALL, "--all", NULL, &chosen);
			break;
		case 'p':
			r = set_scope(a, AUDIT_SCOPE_PID, "--pid", optarg, &chosen);
			break;
		case 'c':
			r = set_scope(a, AUDIT_SCOPE_CONTAINER, "--container-pid", optarg, &chosen);
			break;
		case ':':
			cli_error("option '%s' needs a process ID", cli_bad_option(argv));
			return -EINVAL;
		default:
			cli_error(
				"unknown option '%s': allowed are --json, --all, --pid N, --container-pid N, --help",
				cli_bad_option(argv));
			return -EINVAL;
		}
	}
	if (r == 0 && optind < argc) {
		cli_error("unexpected argument '%s': audit takes only options (see --help)",
			  argv[optind]);
		return -EINVAL;
	}
	return r;
}

static const char *hint(int r)
{
	if ((r == -EACCES || r == -EPERM) && geteuid() != 0)
		return " (another user's process: run as root)";
	if (r == -EMFILE || r == -ENFILE)
		return " (the audit keeps only a few fds open at a time: raise ulimit -n)";
	return "";
}

/* Collects the processes of the chosen scope.  0, or 1 after a message. */
static int collect(struct audit *a)
{
	int r = audit_collect(a);

	if (r == 0)
		return 0;
	if (r == -ESRCH)
		cli_error("no process %d in /proc", (int)a->target);
	else if (r == -EEXIST)
		cli_error(
			"process %d is in the initial PID namespace, so it is no container's init; use --pid %d for it or --all for the host",
			(int)a->target, (int)a->target);
	else if (a->fail_pid > 0)
		cli_error("Failed to read /proc/%d%s%s: %s%s", (int)a->fail_pid,
			  a->fail_what && *a->fail_what ? "/" : "",
			  a->fail_what ? a->fail_what : "", strerror(-r), hint(r));
	else
		cli_error("Failed to read /proc: %s", strerror(-r));
	return 1;
}

int verb_audit(int argc, char *argv[])
{
	_cleanup_(audit_done) struct audit a = {.scope = AUDIT_SCOPE_ALL};
	bool json = false;
	int r;

	cli_log_init("memfd-noexec", "MEMFD_NOEXEC_DEBUG");
	cli_log_set_verb("audit");
	r = parse_options(argc, argv, &a, &json);
	if (r != 0)
		return r > 0 ? 0 : EXIT_USAGE;
	if (collect(&a) != 0)
		return 1;
	r = audit_judge_all(&a);
	if (r == 0)
		r = json ? audit_print_json(&a) : audit_print_text(&a);
	if (r < 0) {
		cli_error("Failed to write the report: %s", strerror(-r));
		return 1;
	}
	if (fflush(stdout) != 0) {
		cli_error("Failed to write the report: %m");
		return 1;
	}
	return 0;
}
