/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for common/: the one integer parser and the one escaper, as
 * tables of input and expected outcome; the vm.memfd_noexec level's
 * three words; and cli/'s name of a refused option.  `common_test CASE`
 * runs one case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escape.h"
#include "fork-report.h"
#include "log.h"
#include "memfd-sysctl.h"
#include "parse.h"
#include "unit-cases.h"

static const struct parse_row {
	const char *in;
	uint64_t max;
	bool prefix;
	int want_r;
	uint64_t want_v;
	size_t want_end; /* with prefix: bytes consumed */
} parse_rows[] = {
	{"0", 10, false, 0, 0, 0},
	{"7", 10, false, 0, 7, 0},
	{"007", 10, false, 0, 7, 0},
	{"10", 10, false, 0, 10, 0},
	{"11", 10, false, -ERANGE, 0, 0},
	{"4294967295", UINT32_MAX, false, 0, UINT32_MAX, 0},
	{"4294967296", UINT32_MAX, false, -ERANGE, 0, 0},
	{"18446744073709551615", UINT64_MAX, false, 0, UINT64_MAX, 0},
	{"18446744073709551616", UINT64_MAX, false, -ERANGE, 0, 0},
	{"99999999999999999999999", UINT64_MAX, false, -ERANGE, 0, 0},
	{"", 10, false, -EINVAL, 0, 0},
	{"-1", 10, false, -EINVAL, 0, 0},
	{"+1", 10, false, -EINVAL, 0, 0},
	{" 1", 10, false, -EINVAL, 0, 0},
	{"1 ", 10, false, -EINVAL, 0, 0},
	{"1\n", 10, false, -EINVAL, 0, 0},
	{"0x10", 100, false, -EINVAL, 0, 0},
	{"1a", 100, false, -EINVAL, 0, 0},
	{"12 34", 100, true, 0, 12, 2},
	{"5\n", 10, true, 0, 5, 1},
	{"x5", 10, true, -EINVAL, 0, 0},
	{"50 1", 10, true, -ERANGE, 0, 0},
};

static int case_parse_table(void)
{
	for (size_t i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		const struct parse_row *t = &parse_rows[i];
		const char *end = NULL;
		uint64_t v = 12345;
		int r = mt_parse_uint(t->in, t->max, &v, t->prefix ? &end : NULL);

		if (r != t->want_r)
			FAIL("mt_parse_uint(\"%s\", %ju): %d, want %d", t->in, (uintmax_t)t->max, r,
			     t->want_r);
		if (r < 0 && v != 12345)
			FAIL("mt_parse_uint(\"%s\") wrote *ret on failure", t->in);
		if (r == 0 && v != t->want_v)
			FAIL("mt_parse_uint(\"%s\"): %ju, want %ju", t->in, (uintmax_t)v,
			     (uintmax_t)t->want_v);
		if (r == 0 && t->prefix && (size_t)(end - t->in) != t->want_end)
			FAIL("mt_parse_uint(\"%s\"): end at %td, want %zu", t->in, end - t->in,
			     t->want_end);
	}
	return 0;
}

static int case_parse_null_and_int(void)
{
	int v = -1;

	if (mt_parse_uint(NULL, 1, &(uint64_t){0}, NULL) != -EINVAL)
		FAIL("NULL is not a number");
	if (mt_parse_int("2147483647", INT32_MAX, &v, NULL) != 0 || v != INT32_MAX)
		FAIL("mt_parse_int: INT_MAX");
	if (mt_parse_int("3", 2, &v, NULL) != -ERANGE)
		FAIL("mt_parse_int: over max");
	if (mt_parse_int("1", -1, &v, NULL) != -EINVAL)
		FAIL("mt_parse_int: negative max");
	return 0;
}

static const struct escape_row {
	const char *in;
	size_t len; /* 0: strlen */
	size_t size, max_chars;
	const char *want;
	size_t want_used;
} escape_rows[] = {
	{"plain", 0, 64, SIZE_MAX, "plain", 5},
	{"a\"b\\c", 0, 64, SIZE_MAX, "a\\\"b\\\\c", 5},
	{"\n\t\r\b\f", 0, 64, SIZE_MAX, "\\n\\t\\r\\b\\f", 5},
	{"\x01\x1f\x7f", 0, 64, SIZE_MAX, "\\u0001\\u001f\\u007f", 3},
	{"\xc3\xa9", 0, 64, SIZE_MAX, "\\u00e9", 2},
	{"\xe2\x82\xac", 0, 64, SIZE_MAX, "\\u20ac", 3},
	{"\xf0\x9f\x98\x80", 0, 64, SIZE_MAX, "\\ud83d\\ude00", 4},
	{"\xff", 0, 64, SIZE_MAX, "\\u00ff", 1},		       /* not UTF-8 */
	{"\xc0\xaf", 0, 64, SIZE_MAX, "\\u00c0\\u00af", 2},	       /* overlong */
	{"\xed\xa0\x80", 0, 64, SIZE_MAX, "\\u00ed\\u00a0\\u0080", 3}, /* surrogate */
	{"\xe2\x82", 0, 64, SIZE_MAX, "\\u00e2\\u0082", 2},	       /* truncated */
	{"a\0b", 3, 64, SIZE_MAX, "a\\u0000b", 3},
	{"abcdef", 0, 64, 3, "abc", 3},
	{"abcdef", 0, 4, SIZE_MAX, "abc", 3},
	{"ab\ncd", 0, 4, SIZE_MAX, "ab", 2}, /* never half an escape */
	{"x", 0, 1, SIZE_MAX, "", 0},
};

static int case_escape_table(void)
{
	for (size_t i = 0; i < sizeof(escape_rows) / sizeof(escape_rows[0]); i++) {
		const struct escape_row *t = &escape_rows[i];
		size_t len = t->len ? t->len : strlen(t->in), used;
		char buf[128];

		memset(buf, 'Z', sizeof(buf));
		used = mt_escape(buf, t->size, t->in, len, t->max_chars);
		if (strcmp(buf, t->want) != 0)
			FAIL("row %zu: \"%s\", want \"%s\"", i, buf, t->want);
		if (used != t->want_used)
			FAIL("row %zu: used %zu, want %zu", i, used, t->want_used);
		if (strlen(buf) >= t->size)
			FAIL("row %zu: wrote past size %zu", i, t->size);
		for (const char *p = buf; *p; p++)
			if (*p < 0x20 || *p >= 0x7f)
				FAIL("row %zu: byte 0x%02x is not printable ASCII", i,
				     (unsigned char)*p);
	}
	return 0;
}

static int case_utf8_valid(void)
{
	if (!mt_utf8_valid("ab\xc3\xa9\xf0\x9f\x98\x80", 8))
		FAIL("valid UTF-8 refused");
	if (mt_utf8_valid("\xc0\xaf", 2) || mt_utf8_valid("\xed\xa0\x80", 3) ||
	    mt_utf8_valid("\xf4\x90\x80\x80", 4) || mt_utf8_valid("\xe2\x82", 2))
		FAIL("invalid UTF-8 accepted");
	return 0;
}

static int case_level_parse(void)
{
	static const char *const bad[] = {"3",	 "00", "01", " 1", "1 ",
					  "1\n", "",   "-1", "+1", "1.0"};

	for (int l = 0; l <= 2; l++)
		if (mt_memfd_noexec_parse((const char[]){(char)('0' + l), '\0'}) != l)
			FAIL("level %d refused", l);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mt_memfd_noexec_parse(bad[i]) != -EINVAL)
			FAIL("level \"%s\" accepted", bad[i]);
	if (mt_memfd_noexec_parse(NULL) != -EINVAL)
		FAIL("NULL accepted as a level");
	return 0;
}

/* getopt_long() over argv (NULL-terminated), then cli_bad_option() at the
 * first error: what the message would name. */
static const struct bad_option_row {
	const char *argv[6];
	const char *want;
} bad_option_rows[] = {
	{{"status", "--bogus"}, "--bogus"},
	{{"status", "--bogus=3"}, "--bogus=3"},
	{{"status", "--json=1"}, "--json=1"},
	{{"status", "-x"}, "-x"},
	{{"status", "-jx"}, "-x"},
	{{"status", "-xj"}, "-x"},
	{{"status", "--json", "-xj"}, "-x"},
	{{"status", "--json", "-jx", "--json"}, "-x"},
	{{"run", "--level"}, "--level"},
	{{"run", "-l"}, "-l"},
	{{"run", "-jl"}, "-l"},
	{{"run", "--json", "-l"}, "-l"},
};

static int case_bad_option_table(void)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"level", required_argument, NULL, 'l'},
		{},
	};

	for (size_t i = 0; i < sizeof(bad_option_rows) / sizeof(bad_option_rows[0]); i++) {
		const struct bad_option_row *t = &bad_option_rows[i];
		char *argv[6] = {};
		int argc = 0, c;

		while (t->argv[argc]) {
			argv[argc] = (char *)t->argv[argc];
			argc++;
		}
		optind = 1;
		opterr = 0;
		while ((c = getopt_long(argc, argv, "+:jl:", options, NULL)) == 'j' || c == 'l')
			;
		if (c != '?' && c != ':')
			FAIL("row %zu: getopt_long() found no error", i);
		if (strcmp(cli_bad_option(argv), t->want) != 0)
			FAIL("row %zu: named '%s', want '%s'", i, cli_bad_option(argv), t->want);
	}
	return 0;
}

/* mt_fork_report(): the child's report, whole or cut short, and its
 * status; with SIGCHLD ignored the report still comes. */
_noreturn_ static void report_whole(int fd, const void *data)
{
	_exit(write(fd, data, 8) == 8 ? 3 : 4);
}

_noreturn_ static void report_short(int fd, const void *data)
{
	_exit(write(fd, data, 3) == 3 ? 0 : 4);
}

static int case_fork_report(void)
{
	char buf[8] = "";
	int status = -1;
	ssize_t got;

	got = mt_fork_report(report_whole, "abcdefgh", buf, sizeof(buf), &status);
	if (got != 8 || memcmp(buf, "abcdefgh", 8) != 0)
		FAIL("whole: got %zd '%.8s'", got, buf);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 3)
		FAIL("whole: status 0x%x, want exit 3", status);
	got = mt_fork_report(report_short, "xyz", buf, sizeof(buf), &status);
	if (got != 3 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("short: got %zd, status 0x%x", got, status);
	return 0;
}

static int case_fork_report_sigchld_ignored(void)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	char buf[8] = "";
	int status = 0;
	ssize_t got;

	if (sigaction(SIGCHLD, &ign, &old) < 0)
		FAIL("sigaction: %m");
	got = mt_fork_report(report_whole, "abcdefgh", buf, sizeof(buf), &status);
	(void)sigaction(SIGCHLD, &old, NULL);
	if (got != 8 || memcmp(buf, "abcdefgh", 8) != 0)
		FAIL("got %zd '%.8s'", got, buf);
	if (status != -ECHILD)
		FAIL("status %d, want -ECHILD (the kernel reaped the child)", status);
	return 0;
}

/* mt_fork_pipe() and mt_fork_wait(): a report far larger than a pipe's
 * buffer comes whole as a stream, then the child's status. */
#define STREAM_SIZE (256 * 1024)

_noreturn_ static void report_stream(int fd, const void *data)
{
	static char chunk[4096];

	for (size_t i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)('a' + i % 26);
	for (size_t done = 0; done < STREAM_SIZE; done += sizeof(chunk))
		if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk))
			_exit(4);
	_exit(5);
}

_noreturn_ static void die_by_signal(int fd, const void *data)
{
	(void)raise(SIGKILL);
	_exit(4);
}

static int case_fork_pipe_stream(void)
{
	char buf[4096];
	size_t total = 0;
	int fd = 0, status;
	ssize_t n;
	pid_t pid;

	pid = mt_fork_pipe(report_stream, NULL, &fd);
	if (pid < 0)
		FAIL("mt_fork_pipe: %s", strerror((int)-pid));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != (char)('a' + (total + (size_t)i) % 4096 % 26)) {
				close(fd);
				FAIL("byte %zu is '%c'", total + (size_t)i, buf[i]);
			}
		total += (size_t)n;
	}
	close(fd);
	status = mt_fork_wait(pid);
	if (total != STREAM_SIZE)
		FAIL("read %zu bytes, want %d", total, STREAM_SIZE);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 5)
		FAIL("status 0x%x, want exit 5", status);
	pid = mt_fork_pipe(die_by_signal, NULL, &fd);
	if (pid < 0)
		FAIL("mt_fork_pipe: %s", strerror((int)-pid));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	status = mt_fork_wait(pid);
	if (n != 0)
		FAIL("a child that wrote nothing: read %zd, want EOF", n);
	if (status < 0 || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		FAIL("status 0x%x, want killed by SIGKILL", status);
	if (mt_fork_wait(pid) != -ECHILD)
		FAIL("a second wait for the same child did not give -ECHILD");
	return 0;
}

/* mt_fork_hand_on(): the grandchild's report comes through the same pipe,
 * the middle child exits with the grandchild's status; in a new PID
 * namespace (root only) the grandchild is its init. */
struct hand_report {
	pid_t pid, ppid, middle;
};

struct hand_job {
	int exit_code; /* -1: die by SIGKILL */
	bool newpid;
};

_noreturn_ static void grandchild(int fd, const void *data)
{
	const struct hand_job *job = data;
	struct hand_report rep = {getpid(), getppid(), 0};

	if (write(fd, &rep, sizeof(rep)) != sizeof(rep))
		_exit(4);
	if (job->exit_code < 0)
		(void)raise(SIGKILL);
	_exit(job->exit_code);
}

_noreturn_ static void middle(int fd, const void *data)
{
	const struct hand_job *job = data;

	if (job->newpid && unshare(CLONE_NEWPID) < 0)
		_exit(2);
	(void)mt_fork_hand_on(grandchild, data, fd);
	_exit(3);
}

static int case_fork_hand_on(void)
{
	static const struct hand_job jobs[] = {{7, false}, {-1, false}, {0, true}};

	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct hand_report rep = {};
		int status = 0;
		ssize_t got;

		if (jobs[i].newpid && geteuid() != 0)
			continue;
		got = mt_fork_report(middle, &jobs[i], &rep, sizeof(rep), &status);
		if (got != sizeof(rep))
			FAIL("job %zu: report of %zd bytes, status 0x%x", i, got, status);
		if (rep.ppid == getpid())
			FAIL("job %zu: the report came from the middle child, not its child", i);
		if (jobs[i].newpid && rep.pid != 1)
			FAIL("job %zu: the grandchild is pid %d in the new namespace, want 1", i,
			     (int)rep.pid);
		if (!jobs[i].newpid && rep.pid == rep.ppid)
			FAIL("job %zu: pid %d is its own parent", i, (int)rep.pid);
		if (!WIFEXITED(status))
			FAIL("job %zu: the middle child ended with status 0x%x", i, status);
		if (WEXITSTATUS(status) !=
		    (jobs[i].exit_code < 0 ? 128 + SIGKILL : jobs[i].exit_code))
			FAIL("job %zu: the middle child exited %d", i, WEXITSTATUS(status));
	}
	return 0;
}

/* cli_option_value(): a value passes, an error exits 2 (in a child). */
_noreturn_ static void refuse_value(int fd, const void *data)
{
	(void)cli_option_value(-EINVAL, "--level", "3", "0, 1 or 2");
	_exit(0);
}

static int case_option_value(void)
{
	int status = 0;

	if (cli_option_value(2, "--level", "2", "0, 1 or 2") != 2)
		FAIL("a value is not passed through");
	if (mt_fork_report(refuse_value, NULL, NULL, 0, &status) < 0)
		FAIL("fork: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2)
		FAIL("a refused value: status 0x%x, want exit 2", status);
	return 0;
}

/* mt_escape_dup(): the whole string, as mt_escape() renders it. */
static int case_escape_dup(void)
{
	char *s = mt_escape_dup("a\"b\\c\td\xc3\xa9\xff");

	if (!s)
		FAIL("mt_escape_dup: out of memory");
	if (strcmp(s, "a\\\"b\\\\c\\td\\u00e9\\u00ff") != 0) {
		fprintf(stderr, "got '%s'\n", s);
		free(s);
		FAIL("mt_escape_dup rendered it differently");
	}
	free(s);
	return 0;
}

static const struct unit_case cases[] = {
	{"escape_dup", case_escape_dup},
	{"option_value", case_option_value},
	{"fork_report", case_fork_report},
	{"fork_report_sigchld_ignored", case_fork_report_sigchld_ignored},
	{"fork_pipe_stream", case_fork_pipe_stream},
	{"fork_hand_on", case_fork_hand_on},
	{"parse_table", case_parse_table},
	{"parse_null_and_int", case_parse_null_and_int},
	{"escape_table", case_escape_table},
	{"utf8_valid", case_utf8_valid},
	{"level_parse", case_level_parse},
	{"bad_option_table", case_bad_option_table},
};

int main(int argc, char *argv[])
{
	return unit_main("common_test", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
