/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to policy/: the only code that parses JSON.  It runs yajl's
 * callback (SAX) parser over a whole document and
 *  - rejects duplicate keys in any object (Go's encoding/json keeps the
 *    last copy, yajl's tree API the first: runc and we would disagree),
 *  - rejects keys that Go would match, case-insensitively, to one of the
 *    struct fields we look at ("Annotations", "annotationſ"),
 *  - rejects malformed UTF-8 (yajl only checks its shape), nesting deeper
 *    than POLICY_MAX_DEPTH and documents above POLICY_MAX_DOCUMENT_SIZE,
 *  - and records the type and text of the values at a few fixed paths.
 * Swapping the JSON library means rewriting json-reader.c and
 * json-writer.c, nothing else.
 */
#ifndef POLICY_JSON_READER_H
#define POLICY_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "errors.h"

enum policy_json_type {
	POLICY_JSON_ABSENT = 0,
	POLICY_JSON_NULL,
	POLICY_JSON_FALSE,
	POLICY_JSON_TRUE,
	POLICY_JSON_NUMBER,
	POLICY_JSON_STRING,
	POLICY_JSON_OBJECT,
	POLICY_JSON_ARRAY,
};

#define POLICY_JSON_PATH_MAX 4
#define POLICY_JSON_CAPTURES_MAX 16

struct policy_json_capture {
	/* Set by the caller: the object keys leading to the value. */
	const char *path[POLICY_JSON_PATH_MAX];
	size_t n_path;
	/* Bit i set: path[i] is a Go struct field, which Go's encoding/json
	 * also matches case-insensitively (with Unicode folding). */
	unsigned go_fields;
	/* How many bytes of a string or number to keep in text. */
	size_t max_len;
	/*
	 * For an array: called with each element in turn, its index, its
	 * type and, for a string or a number, its text (len bytes, not
	 * NUL-terminated; a string may hold NUL bytes).  A negative return
	 * (-errno, with *err set) stops the scan with it.
	 */
	int (*on_element)(void *userdata, size_t index, enum policy_json_type type,
			  const char *text, size_t len, struct mt_error **err);
	void *userdata;

	/* Filled in by the scan. */
	enum policy_json_type type;
	char *text; /* strings, numbers: the first min(len, max_len) bytes,
		     * NUL-terminated (a string may hold NUL bytes itself) */
	size_t len; /* the full length in bytes */
};

/*
 * Scans json (len bytes; no NUL terminator needed).  what names the input
 * in messages ("config.json").  On success fills in the captures and
 * returns 0.
 *
 * Errors (with a message in *err):
 *  -EINVAL  invalid JSON (yajl's message and the byte offset), a top level
 *           that is not an object, a duplicate key, a key that Go would
 *           confuse with a captured field, malformed UTF-8;
 *  -E2BIG   the document or the nesting is above the limits;
 *  -ENOMEM
 */
int policy_json_scan(const char *json, size_t len, const char *what,
		     struct policy_json_capture *caps, size_t n_caps, struct mt_error **err);

/* Frees the text of every capture and resets its type; NULL is fine. */
void policy_json_captures_done(struct policy_json_capture *caps, size_t n);

/* "a JSON string", "a JSON number", ..., "absent". */
const char *policy_json_type_name(enum policy_json_type t);

#endif
