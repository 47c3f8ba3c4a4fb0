/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How the programs (sealexec, memfd-noexec) report: one line on stderr per
 * message, "PROGRAM[ VERB]: TEXT", written with a single write(2) so that
 * the lines of parallel processes never interleave.  This folder belongs
 * to the programs alone: library code (cloned_binary/, common/, nsexec/,
 * policy/) never prints above its debug log and never links this.
 */
#ifndef MEMFD_TOOLKIT_CLI_LOG_H
#define MEMFD_TOOLKIT_CLI_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include "macro.h"

/*
 * program: "sealexec" or "memfd-noexec", the prefix of every line.
 * debug_env: the variable that turns debug lines on when it is exactly
 * "1" (NULL: off until cli_log_set_debug()).
 */
void cli_log_init(const char *program, const char *debug_env);
/* The verb after the program in error and notice lines ("run"); NULL: none. */
void cli_log_set_verb(const char *verb);
void cli_log_set_debug(bool on);
bool cli_log_debug_enabled(void);

/* "PROGRAM[ VERB]: TEXT" */
_printf_(1, 2) void cli_error(const char *fmt, ...);
_printf_(1, 0) void cli_verror(const char *fmt, va_list ap);
/* "PROGRAM[ VERB]: notice: TEXT" */
_printf_(1, 2) void cli_notice(const char *fmt, ...);
/* cli_error(), then exit(status). */
_noreturn_ _printf_(2, 3) void cli_die(int status, const char *fmt, ...);
/* Only when debugging is on: "PROGRAM: TEXT" (a stable marker for tests). */
_printf_(1, 2) void cli_debug(const char *fmt, ...);
/* A ready line as it is (the loader's debug markers,
 * cloned_binary_options.log), as one write. */
void cli_log_line(const char *line);

/*
 * One message to syslog (/dev/log; the journal on systemd machines), with
 * the program as its ident ("memfd-noexec"), facility LOG_DAEMON, and
 * priority (LOG_ERR...): for what an admin must find when stderr is lost
 * (crun shows a hook's stderr only with run.oci.hooks.stderr).  Without
 * a syslog daemon nothing is written, and nothing is reported.
 */
_printf_(2, 3) void cli_syslog(int priority, const char *fmt, ...);

/*
 * Right after getopt_long() returned '?' or ':', the option it refused, as
 * the user wrote it: "-x" for a short one (also inside a cluster such as
 * "-jx"), the whole argument for a long one ("--long", "--long=VALUE").
 * The result lives until the next call.
 */
const char *cli_bad_option(char *argv[]);

/*
 * The value of an option that a parser took (r: the value, >= 0, or
 * -errno): returns r when it is a value, else dies with status 2 (bad
 * usage) and "invalid OPTION 'VALUE': allowed values are ALLOWED".
 */
int cli_option_value(int r, const char *option, const char *value, const char *allowed);

#endif
