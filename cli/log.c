/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"

/* A message longer than this is cut, never split across writes. */
#define LINE_MAX_BYTES 4096

static const char *program = "memfd-toolkit";
static const char *verb;
static bool debug_on;

void cli_log_init(const char *prog, const char *debug_env)
{
	const char *e = debug_env ? getenv(debug_env) : NULL;

	program = prog;
	verb = NULL;
	debug_on = e && strcmp(e, "1") == 0;
}

void cli_log_set_verb(const char *v)
{
	verb = v;
}

void cli_log_set_debug(bool on)
{
	debug_on = on;
}

bool cli_log_debug_enabled(void)
{
	return debug_on;
}

/* prefix, then fmt, then '\n', in one write(2); keeps errno. */
_printf_(3, 0) static void emit(bool with_verb, const char *tag, const char *fmt, va_list ap)
{
	const size_t most = LINE_MAX_BYTES - 2; /* room for '\n' and the NUL */
	char line[LINE_MAX_BYTES];
	int saved = errno, n;
	size_t len = 0;

	n = snprintf(line, most + 1, "%s%s%s: %s", program, with_verb && verb ? " " : "",
		     with_verb && verb ? verb : "", tag);
	if (n > 0)
		len = (size_t)n < most ? (size_t)n : most;
	errno = saved; /* for %m */
	n = vsnprintf(line + len, most + 1 - len, fmt, ap);
	if (n > 0)
		len = len + (size_t)n < most ? len + (size_t)n : most;
	line[len++] = '\n';
	(void)!write(STDERR_FILENO, line, len);
	errno = saved;
}

void cli_verror(const char *fmt, va_list ap)
{
	emit(true, "", fmt, ap);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(true, "", fmt, ap);
	va_end(ap);
}

void cli_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(true, "notice: ", fmt, ap);
	va_end(ap);
}

void cli_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(true, "", fmt, ap);
	va_end(ap);
	exit(status);
}

void cli_debug(const char *fmt, ...)
{
	va_list ap;

	if (!debug_on)
		return;
	va_start(ap, fmt);
	emit(false, "", fmt, ap);
	va_end(ap);
}

void cli_log_line(const char *line)
{
	char buf[LINE_MAX_BYTES];
	int saved = errno;
	size_t len = strnlen(line, sizeof(buf) - 1);

	memcpy(buf, line, len);
	buf[len++] = '\n';
	(void)!write(STDERR_FILENO, buf, len);
	errno = saved;
}

void cli_syslog(int priority, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	openlog(program, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	va_start(ap, fmt);
	vsyslog(priority, fmt, ap);
	va_end(ap);
	closelog();
	errno = saved;
}

const char *cli_bad_option(char *argv[])
{
	static char buf[3];
	const char *cur = argv[optind], *prev = argv[optind - 1];
	/* getopt stops inside "-xj" at x with optind still on "-xj"; after
	 * the last letter of a cluster, or a long option, optind is past it. */
	bool in_cluster = optopt > 0 && optopt < 128 && cur && cur[0] == '-' && cur[1] &&
			  cur[1] != '-' && strchr(cur + 1, optopt);

	if (!in_cluster && strncmp(prev, "--", 2) == 0 && prev[2])
		return prev;
	if (optopt > 0 && optopt < 128) {
		buf[0] = '-';
		buf[1] = (char)optopt;
		buf[2] = '\0';
		return buf;
	}
	return prev;
}

int cli_option_value(int r, const char *option, const char *value, const char *allowed)
{
	if (r < 0)
		cli_die(2, "invalid %s '%s': allowed values are %s", option, value, allowed);
	return r;
}
