/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for runtime-check/ at its API (runtime-check.h): which
 * --runtime paths it refuses and why, the verdicts' words, the text and
 * JSON forms of an outcome, and the line the test container prints.
 * Running real containers is tests/bats/containerd.bats's part.
 * `runtime_check_test CASE` runs one case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"
#include "runtime-check.h"
#include "unit-cases.h"

/* One path to validate: its errno, and words its message must hold. */
static const struct validate_row {
	const char *path;
	int want;
	const char *has;
} validate_rows[] = {
	{"runc", -EINVAL, "is a name, not a path"},
	{"/nonexistent/runc", -ENOENT, "Failed to find the runtime '/nonexistent/runc'"},
	{"/", -EINVAL, "is not a regular file"},
	{"/bin/sh", 0, NULL},
};

static int case_validate_table(void)
{
	for (size_t i = 0; i < sizeof(validate_rows) / sizeof(validate_rows[0]); i++) {
		const struct validate_row *row = &validate_rows[i];
		_cleanup_error_ struct mt_error *err = NULL;
		int r;

		r = runtime_check_validate(row->path, &err);
		if (r != row->want)
			FAIL("%s: got %d, want %d (%s)", row->path, r, row->want,
			     mt_error_message(err));
		if (row->has && !strstr(mt_error_message(err), row->has))
			FAIL("%s: message '%s' lacks '%s'", row->path, mt_error_message(err),
			     row->has);
		if (!row->has && err)
			FAIL("%s: accepted with a message '%s'", row->path, mt_error_message(err));
	}
	return 0;
}

/* A regular file without x bits (the table has none: a system file's mode
 * is the machine's, /etc/hostname is 0755 on some), as root too. */
static int case_validate_not_executable(void)
{
	char path[] = "/tmp/runtime_check_test.XXXXXX";
	_cleanup_error_ struct mt_error *err = NULL;
	int fd = mkstemp(path), r;

	if (fd < 0)
		FAIL("mkstemp: %m");
	(void)close(fd);
	r = runtime_check_validate(path, &err);
	(void)unlink(path);
	/* root passes access(X_OK) only if some x bit is set: none is. */
	if (r != -EACCES || !strstr(mt_error_message(err), "is not executable"))
		FAIL("got %d (%s), want -EACCES, 'is not executable'", r, mt_error_message(err));
	return 0;
}

static int case_verdict_words(void)
{
	static const struct {
		enum runtime_check_verdict v;
		const char *word;
	} rows[] = {
		{RUNTIME_CHECK_HONOURS, "honours"},
		{RUNTIME_CHECK_IGNORES, "ignores"},
		{RUNTIME_CHECK_REFUSES, "refuses"},
		{RUNTIME_CHECK_CANNOT_TELL, "cannot-tell"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strcmp(runtime_check_verdict_to_string(rows[i].v), rows[i].word) != 0)
			FAIL("verdict %d: '%s', want '%s'", (int)rows[i].v,
			     runtime_check_verdict_to_string(rows[i].v), rows[i].word);
	return 0;
}

/* An outcome as runtime_check_run() leaves it after "2" and "3" ran. */
static void honouring(struct runtime_check_outcome *o)
{
	*o = (struct runtime_check_outcome){.verdict = RUNTIME_CHECK_HONOURS, .level_here = 0};
	o->reason = strdup("a container annotated \"2\" saw 2");
	o->runs[0] = (struct runtime_check_container){
		.annotation = "2", .done = true, .ran = true, .level = 2, .mfd_exec = "EACCES"};
	o->runs[1] = (struct runtime_check_container){.annotation = "3", .done = true, .level = -1};
	o->runs[1].rep.status = 1 << 8; /* exit status 1 */
	o->runs[1].message = strdup("invalid memfd_noexec \"3\"");
}

/* Renders o with fn into a string. */
static char *render(int (*fn)(FILE *, const char *, const struct runtime_check_outcome *),
		    const char *runtime, const struct runtime_check_outcome *o, int *ret)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f) {
		*ret = -errno;
		return NULL;
	}
	*ret = fn(f, runtime, o);
	if (fclose(f) != 0 && *ret == 0)
		*ret = -errno;
	return buf;
}

static int case_print_text(void)
{
	static const char *const want[] = {
		"runtime: /usr/sbin/runc\n",
		"level here: 0\n",
		"annotation \"2\": ran at level 2 (MFD_EXEC: EACCES)\n",
		"annotation \"3\": failed (exit status 1): invalid memfd_noexec \"3\"\n",
		"verdict: honours\n",
		"reason: a container annotated \"2\" saw 2\n",
	};
	struct runtime_check_outcome o;
	char *text;
	int r;

	honouring(&o);
	text = render(runtime_check_print_text, "/usr/sbin/runc", &o, &r);
	runtime_check_outcome_done(&o);
	if (r < 0 || !text)
		FAIL("print_text: %s", strerror(-r));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i])) {
			fprintf(stderr, "%s", text);
			free(text);
			FAIL("no line '%.*s'", (int)strlen(want[i]) - 1, want[i]);
		}
	if (strstr(text, "no annotation")) {
		free(text);
		FAIL("a control that did not run is printed");
	}
	free(text);
	return 0;
}

static int case_print_json(void)
{
	static const char *const want[] = {
		"\"runtime\":\"/opt/o\\\"dd\\\\runc\"",
		"\"level_here\":0",
		"\"verdict\":\"honours\"",
		"\"annotation_2\":{\"ran\":true,\"level\":2,\"mfd_exec\":\"EACCES\"",
		"\"annotation_3\":{\"ran\":false,\"level\":null,\"mfd_exec\":null,\"runtime_exit\":\"exit status 1\"",
	};
	struct runtime_check_outcome o;
	char *text;
	int r;

	honouring(&o);
	text = render(runtime_check_print_json, "/opt/o\"dd\\runc", &o, &r);
	runtime_check_outcome_done(&o);
	if (r < 0 || !text)
		FAIL("print_json: %s", strerror(-r));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i])) {
			fprintf(stderr, "%s\n", text);
			free(text);
			FAIL("no '%s' in the JSON", want[i]);
		}
	if (strstr(text, "\"control\"")) {
		free(text);
		FAIL("a control that did not run is in the JSON");
	}
	free(text);
	return 0;
}

/* The container's line: the level it reads, and MFD_EXEC's answer. */
static int case_inside_line(void)
{
	int level = -1, r;
	char *text = NULL, mfd[32] = "";
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		FAIL("open_memstream: %m");
	r = runtime_check_inside(f);
	(void)fclose(f);
	if (r == -ENOENT) {
		free(text);
		return getenv("CI") && strcmp(getenv("CI"), "true") == 0 ? 1 : UNIT_SKIP;
	}
	if (r < 0 || sscanf(text, "memfd-noexec-check: level=%d mfd_exec=%31s", &level, mfd) != 2)
		FAIL("runtime_check_inside: %d, '%s'", r, text ? text : "");
	free(text);
	if (level < 0 || level > 2)
		FAIL("level %d", level);
	if (strcmp(mfd, level == 2 ? "EACCES" : "ok") != 0)
		FAIL("at level %d MFD_EXEC gave %s", level, mfd);
	return 0;
}

static const struct unit_case cases[] = {
	{"validate_table", case_validate_table},
	{"validate_not_executable", case_validate_not_executable},
	{"verdict_words", case_verdict_words},
	{"print_text", case_print_text},
	{"print_json", case_print_json},
	{"inside_line", case_inside_line},
};

int main(int argc, char *argv[])
{
	return unit_main("runtime_check_test", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
