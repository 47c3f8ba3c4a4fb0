/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec: set vm.memfd_noexec for containers, per PID namespace.
 *
 *   memfd-noexec status [--json] [--no-probe]
 *   memfd-noexec run --level N [--proc] [--] CMD [ARG...]
 *   memfd-noexec hook
 *   memfd-noexec audit [--json] [--pid N | --container-pid N | --all]
 *   memfd-noexec check --runtime PATH [--json]
 *   memfd-noexec serve [--socket PATH] [--allow-user U]... [--allow-group G]...
 *   memfd-noexec --help | --version
 *
 * This file is main(): the global options, the verb table and the
 * top-level usage.  Each verb is a file of its own (status.c, run.c,
 * hook.c, audit.c, check.c, serve.c); a new verb is a new file and
 * a row in verbs[] below.  Every verb reports through cli/log.h.
 *
 * Exit status: 0 success; 1 failure (status, hook; audit when it could not
 * run; check when the runtime does not honour the annotation or that
 * cannot be told; serve when it cannot start); 2 bad usage; for run, CMD's
 * own status (128+N if killed by signal N), 125 if memfd-noexec failed
 * before CMD started, 126 if CMD could not be executed, 127 if it was not
 * found.
 *
 * Debug markers (MEMFD_NOEXEC_DEBUG=1) go to stderr as
 * "memfd-noexec: <marker>", e.g. "memfd-noexec: wrote 2",
 * "memfd-noexec: kept 1", "memfd-noexec: joined 2", "memfd-noexec: no
 * request".  MEMFD_TOOLKIT_FEATURES=-name,... turns probed features off.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "memfd-noexec.h"
#include "serve.h"

/* The column at which a verb's description starts in the usage. */
#define HELP_COLUMN 32

static const struct verb {
	const char *name;
	int (*fn)(int argc, char *argv[]);
	/* Its synopsis and its description, one line each, under "Commands:"
	 * in the top-level usage. */
	const char *synopsis;
	const char *const *help;
} verbs[] = {
	{"status", verb_status, "status [--json] [--no-probe]",
	 (const char *const[]){"kernel support and the level here", NULL}},
	{"run", verb_run, "run --level N [--] CMD...",
	 (const char *const[]){"run CMD in a new PID namespace at N", NULL}},
	{"hook", verb_hook, "hook",
	 (const char *const[]){
		 "OCI hook (prestart/createRuntime):",
		 "applies the container's memfd_noexec",
		 "annotation; OCI state on stdin",
		 NULL,
	 }},
	{"audit", verb_audit, "audit [--json] [--pid N | --container-pid N | --all]",
	 (const char *const[]){"what levels 1 and 2 would break", NULL}},
	{"check", verb_check, "check --runtime PATH [--json]",
	 (const char *const[]){
		 "does that runtime honour the",
		 "annotation? (runs test containers)",
		 NULL,
	 }},
	{"serve", verb_serve, "serve [--socket PATH] [--allow-user U]... [--allow-group G]...",
	 (const char *const[]){
		 "as root: raise the level for rootless",
		 "containers that ask over a socket",
		 "(runtimes always ask at /run/memfd-noexec.sock;",
		 "--socket is for tests and private setups)",
		 NULL,
	 }},
};

static void usage(FILE *f)
{
	static const char *const head[] = {
		"Usage: " PROGRAM_NAME " COMMAND [OPTIONS]",
		"       " PROGRAM_NAME " --help | --version",
		"",
		"Sets vm.memfd_noexec for a PID namespace (Linux 6.3+):",
		"  0  memfd_create() makes executable memfds unless asked not to",
		"  1  memfds are non-executable and sealed unless MFD_EXEC",
		"  2  like 1, and MFD_EXEC is refused (EACCES)",
		"",
		"Commands:",
		NULL,
	};

	print_lines(f, head);
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		/* The description beside the synopsis when it fits, else
		 * below it; its other lines below, aligned. */
		int w = fprintf(f, "  %s", verbs[i].synopsis);

		for (const char *const *l = verbs[i].help; *l; l++) {
			if (w >= HELP_COLUMN) {
				fputc('\n', f);
				w = 0;
			}
			fprintf(f, "%*s%s", HELP_COLUMN - w, "", *l);
			w = HELP_COLUMN;
		}
		fputc('\n', f);
	}
	fprintf(f, "\nRun '%s COMMAND --help' for a command's options.\n", PROGRAM_NAME);
}

_noreturn_ static void unknown_verb(const char *name)
{
	char names[128] = "";

	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		if (i > 0)
			strncat(names, ", ", sizeof(names) - strlen(names) - 1);
		strncat(names, verbs[i].name, sizeof(names) - strlen(names) - 1);
	}
	cli_die(EXIT_USAGE, "unknown command '%s': allowed are %s (or --help, --version)", name,
		names);
}

int main(int argc, char *argv[])
{
	cli_log_init(PROGRAM_NAME, "MEMFD_NOEXEC_DEBUG");
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", PROGRAM_NAME, PROJECT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		if (strcmp(argv[1], verbs[i].name) != 0)
			continue;
		cli_log_set_verb(verbs[i].name);
		/* getopt sees the verb as argv[0]. */
		optind = 1;
		opterr = 0;
		return verbs[i].fn(argc - 1, argv + 1);
	}
	unknown_verb(argv[1]);
}
