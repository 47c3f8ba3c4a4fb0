/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Table-driven tests for policy/: each row is an input, the expected
 * return value (and level or fields), and substrings the message must
 * contain, in the manner of libseccomp's .tests files.
 *
 *   policy_test CASE     run one case (CTest runs each in its own process,
 *                        with a timeout)
 *   policy_test --list   print the case names
 *   policy_test          run every case, each in a forked child
 *
 * Exit 0 pass, 1 fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakekernel.h"
#include "fd-util.h"
#include "json-writer.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "policy.h"

static const char *current;

_noreturn_ _printf_(1, 2) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: ", current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- generated inputs --------------------------------------------------- */

/* {"annotations":{"memfd_noexec":"aaaa...a"}} with a 1 MiB value. */
static char *gen_huge_value(size_t *ret_len)
{
	const char *head = "{\"annotations\":{\"memfd_noexec\":\"";
	const char *tail = "\"}}";
	size_t n = 1024 * 1024, hl = strlen(head), tl = strlen(tail);
	char *s = malloc(hl + n + tl + 1);

	if (!s)
		die("out of memory");
	memcpy(s, head, hl);
	memset(s + hl, 'a', n);
	memcpy(s + hl + n, tail, tl + 1);
	*ret_len = hl + n + tl;
	return s;
}

/* {"annotations":{"memfd_noexec":11111...1}} with a 1 MiB number. */
static char *gen_huge_number(size_t *ret_len)
{
	const char *head = "{\"annotations\":{\"memfd_noexec\":";
	const char *tail = "}}";
	size_t n = 1024 * 1024, hl = strlen(head), tl = strlen(tail);
	char *s = malloc(hl + n + tl + 1);

	if (!s)
		die("out of memory");
	memcpy(s, head, hl);
	memset(s + hl, '1', n);
	memcpy(s + hl + n, tail, tl + 1);
	*ret_len = hl + n + tl;
	return s;
}

/* A 1 MiB value under a key that is not ours is fine. */
static char *gen_huge_other(size_t *ret_len)
{
	const char *head = "{\"annotations\":{\"memfd_noexec\":\"1\",\"other\":\"";
	const char *tail = "\"}}";
	size_t n = 1024 * 1024, hl = strlen(head), tl = strlen(tail);
	char *s = malloc(hl + n + tl + 1);

	if (!s)
		die("out of memory");
	memcpy(s, head, hl);
	memset(s + hl, 'b', n);
	memcpy(s + hl + n, tail, tl + 1);
	*ret_len = hl + n + tl;
	return s;
}

/* More than 4 MiB of valid JSON. */
static char *gen_too_big(size_t *ret_len)
{
	const char *head = "{\"x\":\"";
	const char *tail = "\"}";
	size_t n = POLICY_MAX_DOCUMENT_SIZE, hl = strlen(head), tl = strlen(tail);
	char *s = malloc(hl + n + tl + 1);

	if (!s)
		die("out of memory");
	memcpy(s, head, hl);
	memset(s + hl, 'c', n);
	memcpy(s + hl + n, tail, tl + 1);
	*ret_len = hl + n + tl;
	return s;
}

/* {"a":[[[...]]]} with depth containers in all (the root counts). */
static char *gen_nested(size_t depth, size_t *ret_len)
{
	size_t inner = depth - 1, len = 5 + 2 * inner + 1;
	char *s = malloc(len + 1), *p = s;

	if (!s)
		die("out of memory");
	p = stpcpy(p, "{\"a\":");
	for (size_t i = 0; i < inner; i++)
		*p++ = '[';
	for (size_t i = 0; i < inner; i++)
		*p++ = ']';
	*p++ = '}';
	*p = '\0';
	*ret_len = (size_t)(p - s);
	return s;
}

static char *gen_depth_64(size_t *ret_len)
{
	return gen_nested(POLICY_MAX_DEPTH, ret_len);
}

static char *gen_depth_65(size_t *ret_len)
{
	return gen_nested(POLICY_MAX_DEPTH + 1, ret_len);
}

static char *gen_depth_100k(size_t *ret_len)
{
	return gen_nested(100000, ret_len);
}

/* ---- config.json cases -------------------------------------------------- */

#define A(v) "{\"annotations\":{\"memfd_noexec\":" v "}}"
#define S(v) "{\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":" v "}}}"
#define ALLOWED "\"0\", \"1\" or \"2\""
#define ANNOTATION "annotations[\"memfd_noexec\"]"
#define SYSCTL "linux.sysctl[\"vm.memfd_noexec\"]"

/* policy_request.keeps_sys_admin, checked only where a row says. */
enum { KEEPS_ANY = 0, KEEPS_NO, KEEPS_YES };

struct config_case {
	const char *name;
	const char *json;
	char *(*gen)(size_t *ret_len);
	int r;
	int level;
	const char *want[4]; /* substrings of the message */
	int keeps;	     /* KEEPS_* */
};

/* A level-2 request with process.capabilities = v (JSON text). */
#define C2(v) "{\"annotations\":{\"memfd_noexec\":\"2\"},\"process\":{\"capabilities\":" v "}}"
/* ... with bounding = [v]. */
#define B2(v) C2("{\"bounding\":[\"CAP_CHOWN\"," v "]}")
/* The same at level 1, which asks about CAP_SYS_ADMIN just as 2 does. */
#define C1(v) "{\"annotations\":{\"memfd_noexec\":\"1\"},\"process\":{\"capabilities\":" v "}}"
#define B1(v) C1("{\"bounding\":[\"CAP_CHOWN\"," v "]}")
#define BOUNDING "process.capabilities.bounding"

/* Most rows leave keeps out: KEEPS_ANY. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct config_case config_cases[] = {
	{"level_0", A("\"0\""), NULL, 0, 0, {}},
	{"level_1", A("\"1\""), NULL, 0, 1, {}},
	{"level_2", A("\"2\""), NULL, 0, 2, {}},
	{"absent",
	 "{\"ociVersion\":\"1.0.2\",\"annotations\":{\"x\":\"y\"}}",
	 NULL,
	 0,
	 POLICY_LEVEL_NONE,
	 {}},
	{"empty_object", "{}", NULL, 0, POLICY_LEVEL_NONE, {}},
	{"value_3", A("\"3\""), NULL, -EINVAL, 0, {"\"3\"", ANNOTATION, ALLOWED, "remove it"}},
	{"value_minus_1", A("\"-1\""), NULL, -EINVAL, 0, {"\"-1\"", ANNOTATION, ALLOWED}},
	{"value_empty", A("\"\""), NULL, -EINVAL, 0, {"= \"\" in", ANNOTATION, ALLOWED}},
	{"value_leading_space", A("\" 2\""), NULL, -EINVAL, 0, {"\" 2\"", ANNOTATION, ALLOWED}},
	{"value_newline", A("\"2\\n\""), NULL, -EINVAL, 0, {"\"2\\n\"", ANNOTATION, ALLOWED}},
	{"value_two", A("\"two\""), NULL, -EINVAL, 0, {"\"two\"", ANNOTATION, ALLOWED}},
	{"value_nul", A("\"2\\u0000\""), NULL, -EINVAL, 0, {"\"2\\u0000\"", ANNOTATION}},
	{"value_unicode", A("\"\\u0662\""), NULL, -EINVAL, 0, {"\"\\u0662\"", ANNOTATION}},
	{"value_number",
	 A("2"),
	 NULL,
	 -EINVAL,
	 0,
	 {"JSON number 2", ANNOTATION, ALLOWED, "must be a JSON string"}},
	{"value_float", A("2.0"), NULL, -EINVAL, 0, {"JSON number 2.0", ANNOTATION}},
	{"value_null", A("null"), NULL, -EINVAL, 0, {"JSON null", ANNOTATION, ALLOWED}},
	{"value_true", A("true"), NULL, -EINVAL, 0, {"JSON true", ANNOTATION, ALLOWED}},
	{"value_object", A("{\"2\":\"2\"}"), NULL, -EINVAL, 0, {"a JSON object", ANNOTATION}},
	{"value_array", A("[\"2\"]"), NULL, -EINVAL, 0, {"a JSON array", ANNOTATION}},
	{"value_huge",
	 NULL,
	 gen_huge_value,
	 -E2BIG,
	 0,
	 {"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"... (1048576 bytes)", ANNOTATION, ALLOWED,
	  "longer than 65536 bytes"}},
	{"value_huge_number",
	 NULL,
	 gen_huge_number,
	 -E2BIG,
	 0,
	 {"1111111111111111111111111111111111111111...", ANNOTATION}},
	{"huge_other_value", NULL, gen_huge_other, 0, 1, {}},
	{"duplicate_annotation",
	 "{\"annotations\":{\"memfd_noexec\":\"2\",\"memfd_noexec\":\"0\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"memfd_noexec\"", "the object at annotations", "Remove the duplicate"}},
	{"duplicate_annotation_same",
	 "{\"annotations\":{\"memfd_noexec\":\"2\",\"memfd_noexec\":\"2\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"memfd_noexec\""}},
	{"duplicate_escaped_key",
	 "{\"annotations\":{\"memfd_noexec\":\"2\",\"memfd_noex\\u0065c\":\"0\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"memfd_noexec\""}},
	{"duplicate_in_process",
	 "{\"process\":{\"cwd\":\"/\",\"args\":[\"sh\"],\"cwd\":\"/tmp\"},\"annotations\":{\"memfd_noexec\":\"2\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"cwd\"", "the object at process"}},
	{"duplicate_in_array",
	 "{\"mounts\":[{\"type\":\"a\"},{\"type\":\"b\",\"type\":\"c\"}]}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"type\"", "the object at mounts[1]"}},
	{"duplicate_annotations_object",
	 "{\"annotations\":{},\"annotations\":{\"memfd_noexec\":\"0\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"annotations\"", "the top-level object"}},
	{"duplicate_top_level",
	 "{\"a\":1,\"b\":2,\"a\":3}",
	 NULL,
	 -EINVAL,
	 0,
	 {"duplicate key \"a\"", "the top-level object"}},
	{"sysctl_only", S("\"1\""), NULL, 0, 1, {}},
	{"sysctl_slash", "{\"linux\":{\"sysctl\":{\"vm/memfd_noexec\":\"2\"}}}", NULL, 0, 2, {}},
	{"sysctl_bad", S("\"on\""), NULL, -EINVAL, 0, {"\"on\"", SYSCTL, ALLOWED}},
	{"sysctl_number", S("1"), NULL, -EINVAL, 0, {"JSON number 1", SYSCTL}},
	{"both_equal",
	 "{\"annotations\":{\"memfd_noexec\":\"2\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"2\"}}}",
	 NULL,
	 0,
	 2,
	 {}},
	{"both_different",
	 "{\"annotations\":{\"memfd_noexec\":\"2\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {ANNOTATION " = \"2\"", SYSCTL " = \"1\"", "different", ALLOWED}},
	{"sysctl_spellings_different",
	 "{\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\",\"vm/memfd_noexec\":\"0\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"vm/memfd_noexec", "different"}},
	/* Disagreeing is refused in either order, and whichever is higher. */
	{"both_different_lower_first",
	 "{\"annotations\":{\"memfd_noexec\":\"1\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"2\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {ANNOTATION " = \"1\"", SYSCTL " = \"2\"", "different", ALLOWED}},
	{"both_different_zero_first",
	 "{\"annotations\":{\"memfd_noexec\":\"0\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"2\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {ANNOTATION " = \"0\"", SYSCTL " = \"2\""}},
	{"both_different_sysctl_first_in_document",
	 "{\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"0\"}},\"annotations\":{\"memfd_noexec\":\"1\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {ANNOTATION " = \"1\"", SYSCTL " = \"0\""}},
	{"sysctl_spellings_lower_first",
	 "{\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"0\",\"vm/memfd_noexec\":\"2\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {SYSCTL " = \"0\"", "linux.sysctl[\"vm/memfd_noexec\"] = \"2\"", "different"}},
	{"annotation_and_slash_lower_first",
	 "{\"annotations\":{\"memfd_noexec\":\"1\"},\"linux\":{\"sysctl\":{\"vm/memfd_noexec\":\"2\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {ANNOTATION " = \"1\"", "linux.sysctl[\"vm/memfd_noexec\"] = \"2\""}},
	{"three_spellings_last_lower",
	 "{\"annotations\":{\"memfd_noexec\":\"2\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"2\",\"vm/memfd_noexec\":\"1\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {SYSCTL " = \"2\"", "linux.sysctl[\"vm/memfd_noexec\"] = \"1\""}},
	{"three_spellings_last_higher",
	 "{\"annotations\":{\"memfd_noexec\":\"1\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\",\"vm/memfd_noexec\":\"2\"}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {SYSCTL " = \"1\"", "linux.sysctl[\"vm/memfd_noexec\"] = \"2\""}},
	{"three_spellings_equal",
	 "{\"annotations\":{\"memfd_noexec\":\"1\"},\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\",\"vm/memfd_noexec\":\"1\"}}}",
	 NULL,
	 0,
	 1,
	 {}},
	{"annotations_array",
	 "{\"annotations\":[\"memfd_noexec\"]}",
	 NULL,
	 -EINVAL,
	 0,
	 {"\"annotations\" is a JSON array", "object"}},
	{"annotations_string",
	 "{\"annotations\":\"memfd_noexec=2\"}",
	 NULL,
	 -EINVAL,
	 0,
	 {"\"annotations\" is a JSON string"}},
	{"annotations_null", "{\"annotations\":null}", NULL, 0, POLICY_LEVEL_NONE, {}},
	{"linux_array", "{\"linux\":[]}", NULL, -EINVAL, 0, {"\"linux\" is a JSON array"}},
	{"sysctl_array",
	 "{\"linux\":{\"sysctl\":[]}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"linux.sysctl is a JSON array"}},
	{"nested_annotation_ignored",
	 "{\"process\":{\"annotations\":{\"memfd_noexec\":\"x\"}}}",
	 NULL,
	 0,
	 POLICY_LEVEL_NONE,
	 {}},
	{"go_fold_case",
	 "{\"Annotations\":{\"memfd_noexec\":\"0\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"\"Annotations\"", "case-insensitively"}},
	{"go_fold_long_s",
	 "{\"annotation\xc5\xbf\":{\"memfd_noexec\":\"0\"}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"\"annotation\\u017f\"", "\"annotations\""}},
	{"go_fold_sysctl",
	 "{\"linux\":{\"SYSCTL\":{}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {"\"SYSCTL\"", "the object at linux"}},
	{"map_key_case_kept",
	 "{\"annotations\":{\"MEMFD_NOEXEC\":\"x\"}}",
	 NULL,
	 0,
	 POLICY_LEVEL_NONE,
	 {}},
	{"depth_64", NULL, gen_depth_64, 0, POLICY_LEVEL_NONE, {}},
	{"depth_65", NULL, gen_depth_65, -E2BIG, 0, {"deeper than 64 levels", "a[0][0]"}},
	{"depth_100k", NULL, gen_depth_100k, -E2BIG, 0, {"deeper than 64 levels"}},
	{"too_big", NULL, gen_too_big, -E2BIG, 0, {"larger than the limit of 4194304 bytes"}},
	{"invalid_json",
	 "{\"annotations\":{\"memfd_noexec\":\"2\"}",
	 NULL,
	 -EINVAL,
	 0,
	 {"Failed to parse config.json", "premature EOF"}},
	{"invalid_trailing_comma",
	 "{\"a\":1,}",
	 NULL,
	 -EINVAL,
	 0,
	 {"invalid JSON near byte", "invalid object key"}},
	{"invalid_trailing_garbage", "{} {}", NULL, -EINVAL, 0, {"trailing garbage"}},
	{"invalid_comment", "{/* c */}", NULL, -EINVAL, 0, {"Failed to parse config.json"}},
	{"invalid_utf8_raw",
	 A("\"\xff\""),
	 NULL,
	 -EINVAL,
	 0,
	 {"Failed to parse config.json", "UTF8"}},
	{"invalid_utf8_overlong",
	 "{\"x\":\"\xc0\xb2\"}",
	 NULL,
	 -EINVAL,
	 0,
	 {"not valid UTF-8", "at x"}},
	{"invalid_utf8_key",
	 "{\"\xed\xa0\x80\":1}",
	 NULL,
	 -EINVAL,
	 0,
	 {"key in the top-level object is not valid UTF-8"}},
	{"empty_input", "", NULL, -EINVAL, 0, {"premature EOF"}},
	{"whitespace_input", " \n\t", NULL, -EINVAL, 0, {"premature EOF"}},
	{"top_level_array",
	 "[{\"annotations\":{\"memfd_noexec\":\"2\"}}]",
	 NULL,
	 -EINVAL,
	 0,
	 {"top level is a JSON array", "JSON object"}},
	{"top_level_string", "\"2\"", NULL, -EINVAL, 0, {"top level is a JSON string"}},
	{"top_level_number", "2", NULL, -EINVAL, 0, {"top level is a JSON number"}},
	/*
	 * CAP_SYS_ADMIN, by number, as libcap's cap_from_name() (crun) reads
	 * each bounding entry; no capabilities or no bounding set keeps it.
	 */
	{"caps_absent", A("\"2\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_null", C2("null"), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_no_bounding", C2("{\"effective\":[\"CAP_CHOWN\"]}"), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_bounding_null", C2("{\"bounding\":null}"), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_bounding_empty", C2("{\"bounding\":[]}"), NULL, 0, 2, {}, KEEPS_NO},
	{"caps_others", B2("\"CAP_KILL\",\"cap_net_bind_service\""), NULL, 0, 2, {}, KEEPS_NO},
	{"caps_exact", B2("\"CAP_SYS_ADMIN\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_lower_case", B2("\"cap_sys_admin\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_mixed_case", B2("\"Cap_Sys_Admin\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_number", B2("\"21\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_hex", B2("\"0x15\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_octal", B2("\"025\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_octal_other", B2("\"021\""), NULL, 0, 2, {}, KEEPS_NO},
	{"caps_number_other", B2("\"20\""), NULL, 0, 2, {}, KEEPS_NO},
	{"caps_trailing_space", B2("\"CAP_SYS_ADMIN \""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_trailing_newline", B2("\"CAP_SYS_ADMIN\\n\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_suffix", B2("\"cap_sys_admin+ep\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_list", B2("\"CAP_SYS_ADMIN,CAP_KILL\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_nul", B2("\"CAP_SYS_ADMIN\\u0000x\""), NULL, 0, 2, {}, KEEPS_YES},
	{"caps_unknown",
	 B2("\"CAP_FOO\""),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[1] = \"CAP_FOO\"", "cap_from_name()", "vm.memfd_noexec=2", "\"CAP_CHOWN\""}},
	{"caps_leading_space",
	 B2("\" CAP_SYS_ADMIN\""),
	 NULL,
	 -EINVAL,
	 0,
	 {"[1] = \" CAP_SYS_ADMIN\""}},
	{"caps_no_prefix", B2("\"SYS_ADMIN\""), NULL, -EINVAL, 0, {"[1] = \"SYS_ADMIN\""}},
	{"caps_empty_name", B2("\"\""), NULL, -EINVAL, 0, {"[1] = \"\""}},
	{"caps_number_64", B2("\"64\""), NULL, -EINVAL, 0, {"[1] = \"64\""}},
	{"caps_unknown_before_sys_admin",
	 C2("{\"bounding\":[\"CAP_FOO\",\"CAP_SYS_ADMIN\"]}"),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[0] = \"CAP_FOO\""}},
	{"caps_json_number", B2("21"), NULL, -EINVAL, 0, {BOUNDING "[1] is a JSON number"}},
	{"caps_nested_array",
	 B2("[\"CAP_SYS_ADMIN\"]"),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[1] is a JSON array"}},
	{"caps_bounding_string",
	 C2("{\"bounding\":\"CAP_SYS_ADMIN\"}"),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING " is a JSON string", "array of capability names"}},
	{"caps_not_object", C2("[]"), NULL, -EINVAL, 0, {"process.capabilities is a JSON array"}},
	{"caps_go_fold",
	 C2("{\"Bounding\":[]}"),
	 NULL,
	 -EINVAL,
	 0,
	 {"\"Bounding\"", "case-insensitively"}},
	/*
	 * Level 1 asks the same question as 2 (a container that keeps
	 * CAP_SYS_ADMIN could lower 1 to 0 just as 2 to 0): every entry is
	 * read, and one that no runtime accepts is refused.
	 */
	{"caps_level_1_keeps", B1("\"CAP_SYS_ADMIN\""), NULL, 0, 1, {}, KEEPS_YES},
	{"caps_level_1_number", B1("\"21\""), NULL, 0, 1, {}, KEEPS_YES},
	{"caps_level_1_drops", B1("\"CAP_KILL\""), NULL, 0, 1, {}, KEEPS_NO},
	{"caps_level_1_empty", C1("{\"bounding\":[]}"), NULL, 0, 1, {}, KEEPS_NO},
	{"caps_level_1_no_bounding", C1("{}"), NULL, 0, 1, {}, KEEPS_YES},
	{"caps_level_1_unknown",
	 B1("\"CAP_FOO\""),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[1] = \"CAP_FOO\"", "cap_from_name()", "vm.memfd_noexec=1", "\"CAP_CHOWN\""}},
	{"caps_level_1_unknown_before_sys_admin",
	 C1("{\"bounding\":[\"CAP_FOO\",\"CAP_SYS_ADMIN\"]}"),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[0] = \"CAP_FOO\"", "vm.memfd_noexec=1"}},
	{"caps_level_1_json_number",
	 B1("21"),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[1] is a JSON number", "vm.memfd_noexec=1"}},
	{"caps_level_1_bounding_string",
	 C1("{\"bounding\":\"CAP_SYS_ADMIN\"}"),
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING " is a JSON string", "vm.memfd_noexec=1"}},
	{"caps_level_1_not_object",
	 C1("[]"),
	 NULL,
	 -EINVAL,
	 0,
	 {"process.capabilities is a JSON array", "vm.memfd_noexec=1"}},
	{"caps_level_1_sysctl_unknown",
	 "{\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\"}},\"process\":{\"capabilities\":{\"bounding\":[\"CAP_FOO\"]}}}",
	 NULL,
	 -EINVAL,
	 0,
	 {BOUNDING "[0] = \"CAP_FOO\"", "vm.memfd_noexec=1"}},
	/* Only a level above 0 asks: otherwise the runtime has the say. */
	{"caps_unknown_no_request",
	 "{\"process\":{\"capabilities\":{\"bounding\":[\"CAP_FOO\",7]}}}",
	 NULL,
	 0,
	 POLICY_LEVEL_NONE,
	 {}},
	{"caps_unknown_level_0",
	 "{\"annotations\":{\"memfd_noexec\":\"0\"},\"process\":{\"capabilities\":{\"bounding\":[\"CAP_FOO\"]}}}",
	 NULL,
	 0,
	 0,
	 {}},
	{"caps_sysctl_request",
	 "{\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\"}},\"process\":{\"capabilities\":{\"bounding\":[\"cap_sys_admin\"]}}}",
	 NULL,
	 0,
	 1,
	 {},
	 KEEPS_YES},
	{"caps_process_not_object",
	 "{\"annotations\":{\"memfd_noexec\":\"2\"},\"process\":[]}",
	 NULL,
	 0,
	 2,
	 {},
	 KEEPS_YES},
};
#pragma GCC diagnostic pop

static void check_message(const char *error, const char *const want[4])
{
	for (size_t i = 0; i < 4 && want[i]; i++)
		if (!strstr(error, want[i]))
			die("message lacks '%s': %s", want[i], error);
}

static void run_config_case(const struct config_case *c)
{
	_cleanup_free_ char *generated = NULL;
	_cleanup_error_ struct mt_error *e = NULL;
	struct policy_request req = {.level = -42};
	const char *json = c->json, *error;
	size_t len;
	int r;

	if (c->gen) {
		generated = c->gen(&len);
		json = generated;
	} else {
		len = strlen(json);
	}

	r = policy_parse_config(json, len, &req, &e);
	error = e ? e->msg : NULL;
	if (r != c->r)
		die("returned %d (%s), expected %d; message: %s", r, strerror(r < 0 ? -r : 0), c->r,
		    error ? error : "(none)");
	if (r == 0) {
		if (error)
			die("success with a message: %s", error);
		if (req.level != c->level)
			die("level %d, expected %d", req.level, c->level);
		if (c->keeps != KEEPS_ANY && req.keeps_sys_admin != (c->keeps == KEEPS_YES))
			die("keeps_sys_admin %d, expected %d", req.keeps_sys_admin,
			    c->keeps == KEEPS_YES);
		return;
	}
	if (req.level != -42)
		die("ret written on failure");
	if (!error || e->err != -r)
		die("failure without a matching error");
	check_message(error, c->want);
	if (strlen(error) > 1024)
		die("message is %zu bytes long", strlen(error));
}

/* ---- OCI state cases ---------------------------------------------------- */

struct state_case {
	const char *name;
	const char *json;
	int r;
	pid_t pid;
	const char *bundle;
	const char *status;
	const char *want[4];
};

static const struct state_case state_cases[] = {
	{"state_ok",
	 "{\"ociVersion\":\"1.0.2\",\"id\":\"c1\",\"status\":\"creating\",\"pid\":4242,\"bundle\":\"/run/b\",\"annotations\":{\"memfd_noexec\":\"2\"}}",
	 0,
	 4242,
	 "/run/b",
	 "creating",
	 {}},
	{"state_minimal", "{\"pid\":1,\"bundle\":\"/\"}", 0, 1, "/", NULL, {}},
	{"state_no_pid",
	 "{\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"no \"pid\"", "createRuntime"}},
	{"state_pid_zero",
	 "{\"pid\":0,\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"pid\" is a JSON number \"0\"", "positive integer"}},
	{"state_pid_negative",
	 "{\"pid\":-5,\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"-5\""}},
	{"state_pid_float",
	 "{\"pid\":12.5,\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"12.5\""}},
	{"state_pid_exponent",
	 "{\"pid\":1e3,\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"1e3\""}},
	{"state_pid_huge",
	 "{\"pid\":99999999999,\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"positive integer"}},
	{"state_pid_string",
	 "{\"pid\":\"42\",\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"pid\" is a JSON string \"42\""}},
	{"state_pid_duplicate",
	 "{\"pid\":1,\"bundle\":\"/b\",\"pid\":2}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"duplicate key \"pid\""}},
	{"state_pid_fold",
	 "{\"PID\":1,\"bundle\":\"/b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"PID\"", "case-insensitively"}},
	{"state_no_bundle",
	 "{\"pid\":1}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"bundle\" must be the absolute path"}},
	{"state_bundle_relative",
	 "{\"pid\":1,\"bundle\":\"b\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"absolute path"}},
	{"state_bundle_nul",
	 "{\"pid\":1,\"bundle\":\"/b\\u0000/x\"}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"NUL byte"}},
	{"state_bundle_number",
	 "{\"pid\":1,\"bundle\":7}",
	 -EINVAL,
	 0,
	 NULL,
	 NULL,
	 {"\"bundle\" is a JSON number"}},
	{"state_invalid", "{\"pid\":1", -EINVAL, 0, NULL, NULL, {"Failed to parse the OCI state"}},
	{"state_array", "[]", -EINVAL, 0, NULL, NULL, {"top level is a JSON array"}},
};

static void run_state_case(const struct state_case *c)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct policy_state st = {.pid = -42};
	const char *error;
	int r;

	r = policy_parse_state(c->json, strlen(c->json), &st, &e);
	error = e ? e->msg : NULL;
	if (r != c->r)
		die("returned %d, expected %d; message: %s", r, c->r, error ? error : "(none)");
	if (r < 0) {
		if (st.pid != -42 || st.bundle)
			die("ret written on failure");
		if (!error)
			die("failure without a message");
		check_message(error, c->want);
		return;
	}
	if (error)
		die("success with a message: %s", error);
	if (st.pid != c->pid)
		die("pid %d, expected %d", (int)st.pid, (int)c->pid);
	if (strcmp(st.bundle, c->bundle) != 0)
		die("bundle '%s', expected '%s'", st.bundle, c->bundle);
	if (!!st.status != !!c->status || (c->status && strcmp(st.status, c->status) != 0))
		die("status '%s', expected '%s'", st.status ? st.status : "",
		    c->status ? c->status : "");
	policy_state_done(&st);
	if (st.bundle || st.pid)
		die("policy_state_done did not clear");
	policy_state_done(NULL);
}

/* ---- bundles, files, the writer ----------------------------------------- */

static char tmpdir[] = "/tmp/policy_test.XXXXXX";

/* The directory holds at most config.json (a file, FIFO or directory). */
static void cleanup_tmpdir(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/config.json", tmpdir);
	if (unlink(path) < 0 && errno == EISDIR)
		(void)rmdir(path);
	(void)rmdir(path);
	if (rmdir(tmpdir) < 0)
		fprintf(stderr, "Failed to remove %s: %m, ignoring\n", tmpdir);
}

static const char *make_bundle(const char *config)
{
	char path[128];
	int fd;

	if (!mkdtemp(tmpdir))
		die("Failed to create %s: %m", tmpdir);
	atexit(cleanup_tmpdir);
	if (!config)
		return tmpdir;
	snprintf(path, sizeof(path), "%s/config.json", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die("Failed to create %s: %m", path);
	if (write(fd, config, strlen(config)) != (ssize_t)strlen(config))
		die("Failed to write %s: %m", path);
	close(fd);
	return tmpdir;
}

static void expect_bundle(const char *dir, int want_r, int want_level, const char *want_msg)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct policy_request req = {.level = -42};
	int r;

	r = policy_load_bundle(dir, &req, &e);
	if (r != want_r)
		die("policy_load_bundle returned %d, expected %d: %s", r, want_r,
		    mt_error_message(e));
	if (r == 0 && req.level != want_level)
		die("level %d, expected %d", req.level, want_level);
	if (r < 0 && (req.level != -42 || !e))
		die("bad failure contract");
	if (r < 0 && want_msg && !strstr(e->msg, want_msg))
		die("message lacks '%s': %s", want_msg, e->msg);
}

static void case_bundle_ok(void)
{
	expect_bundle(make_bundle(A("\"2\"")), 0, 2, NULL);
}

static void case_bundle_bad_value(void)
{
	const char *dir = make_bundle(A("\"9\""));
	char want[160];

	/* The message names the file. */
	snprintf(want, sizeof(want), "in %s/config.json", dir);
	expect_bundle(dir, -EINVAL, 0, want);
}

static void case_bundle_missing(void)
{
	expect_bundle(make_bundle(NULL), -ENOENT, 0, "Failed to open /tmp/policy_test.");
}

static void case_bundle_no_dir(void)
{
	expect_bundle("/nonexistent/bundle", -ENOENT, 0,
		      "Failed to open bundle directory /nonexistent/bundle");
	expect_bundle("", -EINVAL, 0, "empty bundle path");
	expect_bundle(NULL, -EINVAL, 0, "empty bundle path");
}

static void case_bundle_fifo(void)
{
	const char *dir = make_bundle(NULL);
	char path[128];

	snprintf(path, sizeof(path), "%s/config.json", dir);
	if (mkfifo(path, 0600) < 0)
		die("Failed to create FIFO %s: %m", path);
	/* Must neither block nor read it. */
	expect_bundle(dir, -EINVAL, 0, "not a regular file");
}

static void case_bundle_directory(void)
{
	const char *dir = make_bundle(NULL);
	char path[128];

	snprintf(path, sizeof(path), "%s/config.json", dir);
	if (mkdir(path, 0700) < 0)
		die("Failed to create %s: %m", path);
	expect_bundle(dir, -EINVAL, 0, "not a regular file");
}

static void case_bundle_too_big(void)
{
	const char *dir = make_bundle(NULL);
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, POLICY_MAX_DOCUMENT_SIZE + 1) < 0)
		die("Failed to create %s: %m", path);
	close(fd);
	expect_bundle(dir, -E2BIG, 0, "above the limit");
}

static void case_read_fd_limit(void)
{
	_cleanup_free_ char *data = NULL;
	char buf[100];
	size_t len = 7;
	int p[2], r;

	memset(buf, 'x', sizeof(buf));
	if (pipe2(p, O_CLOEXEC) < 0)
		die("Failed to create a pipe: %m");
	if (write(p[1], buf, sizeof(buf)) != sizeof(buf))
		die("Failed to write: %m");
	close(p[1]);
	r = read_full_fd(p[0], 99, &data, &len);
	if (r != -E2BIG || data || len != 7)
		die("read_full_fd over the limit returned %d", r);
	close(p[0]);

	if (pipe2(p, O_CLOEXEC) < 0)
		die("Failed to create a pipe: %m");
	if (write(p[1], buf, sizeof(buf)) != sizeof(buf))
		die("Failed to write: %m");
	close(p[1]);
	r = read_full_fd(p[0], 100, &data, &len);
	if (r != 0 || len != 100 || data[100] != '\0')
		die("read_full_fd at the limit returned %d, len %zu", r, len);
	close(p[0]);
}

static void case_writer(void)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	_cleanup_free_ char *text = NULL;
	const char *want =
		"{\"s\":\"a\\\"b\\n\",\"i\":-3,\"b\":true,\"n\":null,\"o\":{\"x\":false}}";

	if (policy_json_writer_new(&w) < 0 || policy_json_writer_open_object(w, NULL) < 0 ||
	    policy_json_writer_add_string(w, "s", "a\"b\n") < 0 ||
	    policy_json_writer_add_int(w, "i", -3) < 0 ||
	    policy_json_writer_add_bool(w, "b", true) < 0 ||
	    policy_json_writer_add_null(w, "n") < 0 || policy_json_writer_open_object(w, "o") < 0 ||
	    policy_json_writer_add_bool(w, "x", false) < 0 ||
	    policy_json_writer_close_object(w) < 0 || policy_json_writer_close_object(w) < 0 ||
	    policy_json_writer_finish(w, &text) < 0)
		die("writer failed");
	if (strcmp(text, want) != 0)
		die("wrote %s, expected %s", text, want);

	/* The output is valid JSON for our own parser. */
	{
		struct policy_request req = {.level = -42};
		_cleanup_error_ struct mt_error *e = NULL;

		if (policy_parse_config(text, strlen(text), &req, &e) != 0 ||
		    req.level != POLICY_LEVEL_NONE)
			die("our parser rejects our writer: %s", mt_error_message(e));
	}
}

/* policy_json_writer_new_object(): the top-level object is open, so a key
 * goes straight in and one close ends the document. */
static void case_writer_new_object(void)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	_cleanup_free_ char *text = NULL;

	if (policy_json_writer_new_object(NULL) != -EINVAL)
		die("new_object(NULL) did not refuse with -EINVAL");
	if (policy_json_writer_new_object(&w) < 0 || policy_json_writer_add_int(w, "a", 1) < 0 ||
	    policy_json_writer_close_object(w) < 0 || policy_json_writer_finish(w, &text) < 0)
		die("writer failed");
	if (strcmp(text, "{\"a\":1}") != 0)
		die("wrote %s, expected {\"a\":1}", text);
}

static void case_writer_misuse(void)
{
	struct policy_json_writer *w = NULL;
	char *text = NULL;

	if (policy_json_writer_new(&w) < 0)
		die("writer_new failed");
	/* A key at the top level. */
	if (policy_json_writer_add_int(w, "x", 1) != -EINVAL)
		die("key at top level accepted");
	/* Sticky. */
	if (policy_json_writer_open_object(w, NULL) != -EINVAL ||
	    policy_json_writer_finish(w, &text) != -EINVAL || text)
		die("error not sticky");
	policy_json_writer_free(w);

	if (policy_json_writer_new(&w) < 0 || policy_json_writer_open_object(w, NULL) < 0)
		die("writer failed");
	if (policy_json_writer_add_string(w, "s", "\xff") != -EILSEQ)
		die("invalid UTF-8 accepted");
	policy_json_writer_free(w);

	if (policy_json_writer_new(&w) < 0 || policy_json_writer_open_object(w, NULL) < 0)
		die("writer failed");
	if (policy_json_writer_finish(w, &text) != -EINVAL || text)
		die("unbalanced object accepted");
	policy_json_writer_free(w);
	policy_json_writer_free(NULL);
}

static void case_writer_arrays(void)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	struct policy_json_writer *bad = NULL;
	_cleanup_free_ char *text = NULL;
	const char *want = "{\"a\":[1,\"x\",{\"k\":[]},null]}";

	if (policy_json_writer_new(&w) < 0 || policy_json_writer_open_object(w, NULL) < 0 ||
	    policy_json_writer_open_array(w, "a") < 0 ||
	    policy_json_writer_add_int(w, NULL, 1) < 0 ||
	    policy_json_writer_add_string(w, NULL, "x") < 0 ||
	    policy_json_writer_open_object(w, NULL) < 0 ||
	    policy_json_writer_open_array(w, "k") < 0 || policy_json_writer_close_array(w) < 0 ||
	    policy_json_writer_close_object(w) < 0 || policy_json_writer_add_null(w, NULL) < 0 ||
	    policy_json_writer_close_array(w) < 0 || policy_json_writer_close_object(w) < 0 ||
	    policy_json_writer_finish(w, &text) < 0)
		die("writer with arrays failed");
	if (strcmp(text, want) != 0)
		die("wrote %s, expected %s", text, want);

	/* A key inside an array, and a mismatched close, are refused. */
	if (policy_json_writer_new(&bad) < 0 || policy_json_writer_open_array(bad, NULL) < 0)
		die("writer failed");
	if (policy_json_writer_add_int(bad, "k", 1) != -EINVAL)
		die("key inside an array accepted");
	policy_json_writer_free(bad);
	if (policy_json_writer_new(&bad) < 0 || policy_json_writer_open_array(bad, NULL) < 0)
		die("writer failed");
	if (policy_json_writer_close_object(bad) != -EINVAL)
		die("array closed as an object");
	policy_json_writer_free(bad);
}

struct func_case {
	const char *name;
	void (*fn)(void);
};

static const struct func_case func_cases[] = {
	{"bundle_ok", case_bundle_ok},
	{"bundle_bad_value", case_bundle_bad_value},
	{"bundle_missing", case_bundle_missing},
	{"bundle_no_dir", case_bundle_no_dir},
	{"bundle_fifo", case_bundle_fifo},
	{"bundle_directory", case_bundle_directory},
	{"bundle_too_big", case_bundle_too_big},
	{"read_fd_limit", case_read_fd_limit},
	{"writer", case_writer},
	{"writer_new_object", case_writer_new_object},
	{"writer_misuse", case_writer_misuse},
	{"writer_arrays", case_writer_arrays},
};

/* ---- driver ------------------------------------------------------------- */

/* Returns true if name was found (and run: failures exit). */
static bool run_case(const char *name)
{
	current = name;
	for (size_t i = 0; i < ELEMENTSOF(config_cases); i++)
		if (strcmp(config_cases[i].name, name) == 0) {
			run_config_case(&config_cases[i]);
			return true;
		}
	for (size_t i = 0; i < ELEMENTSOF(state_cases); i++)
		if (strcmp(state_cases[i].name, name) == 0) {
			run_state_case(&state_cases[i]);
			return true;
		}
	for (size_t i = 0; i < ELEMENTSOF(func_cases); i++)
		if (strcmp(func_cases[i].name, name) == 0) {
			func_cases[i].fn();
			return true;
		}
	return false;
}

static void for_each_name(void (*fn)(const char *name, void *arg), void *arg)
{
	for (size_t i = 0; i < ELEMENTSOF(config_cases); i++)
		fn(config_cases[i].name, arg);
	for (size_t i = 0; i < ELEMENTSOF(state_cases); i++)
		fn(state_cases[i].name, arg);
	for (size_t i = 0; i < ELEMENTSOF(func_cases); i++)
		fn(func_cases[i].name, arg);
}

static void print_name(const char *name, void *arg)
{
	puts(name);
}

static void fork_and_run(const char *name, void *arg)
{
	int *failures = arg, status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		run_case(name);
		exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		(*failures)++;
		return;
	}
	printf("ok %s\n", name);
}

int main(int argc, char *argv[])
{
	int failures = 0;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for_each_name(print_name, NULL);
		return 0;
	}
	if (argc == 2) {
		if (!run_case(argv[1])) {
			fprintf(stderr, "policy_test: unknown case '%s'\n", argv[1]);
			return 2;
		}
		printf("ok %s\n", argv[1]);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "usage: policy_test [--list | CASE]\n");
		return 2;
	}
	for_each_name(fork_and_run, &failures);
	if (failures)
		fprintf(stderr, "%d case(s) failed\n", failures);
	return failures ? 1 : 0;
}
