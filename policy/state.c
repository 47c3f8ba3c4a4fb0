/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI state that a runtime writes to a hook's stdin:
 *   {"ociVersion": "1.0.2", "id": "c1", "status": "creating",
 *    "pid": 4242, "bundle": "/run/c1/bundle", "annotations": {...}}
 * All of them are fields of Go's specs.State, hence go_fields.  The
 * state's own annotations are what the runtime reports to everyone; the
 * hook honours a request found there even if config.json lacks it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"
#include "json-reader.h"
#include "macro.h"
#include "message.h"
#include "parse.h"
#include "policy.h"

#define WHAT "the OCI state"

enum {
	CAP_VERSION,
	CAP_ID,
	CAP_STATUS,
	CAP_PID,
	CAP_BUNDLE,
	CAP_ANNOTATIONS,
	CAP_ANNOTATION,
	_CAP_MAX,
};

struct captures {
	struct policy_json_capture c[_CAP_MAX];
};

static void captures_done(struct captures *c)
{
	policy_json_captures_done(c->c, _CAP_MAX);
}

void policy_state_done(struct policy_state *s)
{
	if (!s)
		return;
	free(s->oci_version);
	free(s->id);
	free(s->status);
	free(s->bundle);
	mt_error_free(&s->level_error);
	*s = (struct policy_state){};
}

static void policy_state_donep(struct policy_state *s)
{
	policy_state_done(s);
}

/* Optional string: NULL when absent (or null). */
static int take_string(struct policy_json_capture *c, char **ret, struct mt_error **err)
{
	_cleanup_free_ char *quoted = NULL;

	if (c->type == POLICY_JSON_ABSENT || c->type == POLICY_JSON_NULL) {
		*ret = NULL;
		return 0;
	}
	if (c->type != POLICY_JSON_STRING)
		return mt_error_set(err, -EINVAL,
				    "Refusing %s: \"%s\" is %s, but it must be a JSON string.",
				    WHAT, c->path[0], policy_json_type_name(c->type));
	if (c->len > c->max_len || memchr(c->text, '\0', c->len)) {
		quoted = policy_message_quote(c->text, c->len < c->max_len ? c->len : c->max_len,
					      c->len);
		if (!quoted)
			return mt_error_set(err, -ENOMEM, "Failed to quote: %s", strerror(ENOMEM));
		return mt_error_set(
			err, c->len > c->max_len ? -E2BIG : -EINVAL,
			"Refusing %s: \"%s\" = %s is longer than %zu bytes or holds a NUL byte.",
			WHAT, c->path[0], quoted, c->max_len);
	}
	*ret = TAKE_PTR(c->text);
	return 0;
}

static int parse_pid(const struct policy_json_capture *c, pid_t *ret, struct mt_error **err)
{
	char digits[16];
	int v;

	/* A JSON number of plain digits only: "1e3", "-1" and "1.0" are no pids. */
	if (c->type == POLICY_JSON_NUMBER && c->len > 0 && c->len < sizeof(digits) &&
	    c->len <= c->max_len) {
		memcpy(digits, c->text, c->len);
		digits[c->len] = '\0';
		if (mt_parse_int(digits, INT_MAX, &v, NULL) == 0 && v > 0) {
			*ret = (pid_t)v;
			return 0;
		}
	}

	if (c->type == POLICY_JSON_ABSENT)
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s: it has no \"pid\"; run the hook at the prestart or createRuntime stage, when the container has a process.",
			WHAT);
	if (c->type == POLICY_JSON_NUMBER || c->type == POLICY_JSON_STRING) {
		_cleanup_free_ char *quoted = policy_message_quote(
			c->text, c->len < c->max_len ? c->len : c->max_len, c->len);

		if (!quoted)
			return mt_error_set(err, -ENOMEM, "Failed to quote: %s", strerror(ENOMEM));
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s: \"pid\" is %s %s, but it must be a positive integer (the container's process ID).",
			WHAT, policy_json_type_name(c->type), quoted);
	}
	return mt_error_set(
		err, -EINVAL,
		"Refusing %s: \"pid\" is %s, but it must be a positive integer (the container's process ID).",
		WHAT, policy_json_type_name(c->type));
}

static void init_captures(struct policy_json_capture *c)
{
	c[CAP_VERSION] = (struct policy_json_capture){
		.path = {"ociVersion"}, .n_path = 1, .go_fields = 1, .max_len = 256};
	c[CAP_ID] = (struct policy_json_capture){
		.path = {"id"}, .n_path = 1, .go_fields = 1, .max_len = 1024};
	c[CAP_STATUS] = (struct policy_json_capture){
		.path = {"status"}, .n_path = 1, .go_fields = 1, .max_len = 64};
	c[CAP_PID] = (struct policy_json_capture){
		.path = {"pid"}, .n_path = 1, .go_fields = 1, .max_len = 32};
	c[CAP_BUNDLE] = (struct policy_json_capture){
		.path = {"bundle"}, .n_path = 1, .go_fields = 1, .max_len = PATH_MAX - 1};
	c[CAP_ANNOTATIONS] =
		(struct policy_json_capture){.path = {"annotations"}, .n_path = 1, .go_fields = 1};
	c[CAP_ANNOTATION] = (struct policy_json_capture){.path = {"annotations", "memfd_noexec"},
							 .n_path = 2,
							 .go_fields = 1,
							 .max_len = POLICY_MAX_VALUE_SIZE};
}

static int take_fields(struct policy_json_capture *c, struct policy_state *st,
		       struct mt_error **err)
{
	int r;

	r = take_string(&c[CAP_VERSION], &st->oci_version, err);
	if (r < 0)
		return r;
	r = take_string(&c[CAP_ID], &st->id, err);
	if (r < 0)
		return r;
	r = take_string(&c[CAP_STATUS], &st->status, err);
	if (r < 0)
		return r;
	r = parse_pid(&c[CAP_PID], &st->pid, err);
	if (r < 0)
		return r;
	r = take_string(&c[CAP_BUNDLE], &st->bundle, err);
	if (r < 0)
		return r;
	if (!st->bundle || st->bundle[0] != '/')
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s: \"bundle\" must be the absolute path of the bundle directory.",
			WHAT);
	r = policy_check_object(&c[CAP_ANNOTATIONS], "\"annotations\"",
				"\"annotations\": {\"memfd_noexec\": \"2\"}", WHAT, err);
	if (r < 0)
		return r;
	if (policy_check_level(&c[CAP_ANNOTATION], "annotations[\"memfd_noexec\"]", WHAT,
			       &st->level, &st->level_error) < 0)
		st->level = POLICY_LEVEL_NONE;
	return 0;
}

int policy_parse_state(const char *json, size_t len, struct policy_state *ret,
		       struct mt_error **err)
{
	_cleanup_(captures_done) struct captures caps = {};
	_cleanup_(policy_state_donep) struct policy_state st = {};
	int r;

	if (!ret)
		return -EINVAL;
	init_captures(caps.c);
	r = policy_json_scan(json, len, WHAT, caps.c, _CAP_MAX, err);
	if (r < 0)
		return r;
	r = take_fields(caps.c, &st, err);
	if (r < 0)
		return r;
	*ret = st;
	st = (struct policy_state){};
	return 0;
}
