/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "json-writer.h"
#include "macro.h"

struct policy_json_writer {
	yajl_gen g;
	unsigned depth;
	uint64_t arrays; /* bit d-1 set: the container at depth d is an array */
	bool done;	 /* a complete top-level value was written */
	int r;
};

static int gen_status_to_errno(yajl_gen_status st)
{
	switch (st) {
	case yajl_gen_status_ok:
		return 0;
	case yajl_gen_invalid_string:
		return -EILSEQ;
	default: /* keys_must_be_strings, max_depth_exceeded,
		  * in_error_state, generation_complete, invalid_number,
		  * no_buf */
		return -EINVAL;
	}
}

static int check(struct policy_json_writer *w, yajl_gen_status st)
{
	if (w->r >= 0)
		w->r = gen_status_to_errno(st);
	return w->r;
}

int policy_json_writer_new(struct policy_json_writer **ret)
{
	struct policy_json_writer *w;

	if (!ret)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->g = yajl_gen_alloc(NULL);
	if (!w->g) {
		free(w);
		return -ENOMEM;
	}
	(void)yajl_gen_config(w->g, yajl_gen_validate_utf8, 1);
	*ret = w;
	return 0;
}

int policy_json_writer_new_object(struct policy_json_writer **ret)
{
	struct policy_json_writer *w;
	int r;

	if (!ret)
		return -EINVAL;
	r = policy_json_writer_new(&w);
	if (r < 0)
		return r;
	r = policy_json_writer_open_object(w, NULL);
	if (r < 0) {
		policy_json_writer_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

void policy_json_writer_free(struct policy_json_writer *w)
{
	if (!w)
		return;
	if (w->g)
		yajl_gen_free(w->g);
	free(w);
}

void policy_json_writer_freep(struct policy_json_writer **w)
{
	policy_json_writer_free(*w);
}

#define MAX_DEPTH 64 /* bits in .arrays */

static bool in_array(const struct policy_json_writer *w)
{
	return w->depth > 0 && (w->arrays >> (w->depth - 1)) & 1;
}

/* Writes the key (inside an object) or checks that there is none (at the
 * top level and inside an array). */
static int put_key(struct policy_json_writer *w, const char *key)
{
	if (!w)
		return -EINVAL;
	if (w->r < 0)
		return w->r;
	if (w->done || (w->depth > 0 && !in_array(w)) != (key != NULL)) {
		w->r = -EINVAL;
		return w->r;
	}
	if (!key)
		return 0;
	return check(w, yajl_gen_string(w->g, (const unsigned char *)key, strlen(key)));
}

static int value_written(struct policy_json_writer *w, int r)
{
	if (r >= 0 && w->depth == 0)
		w->done = true;
	return r;
}

static int open_container(struct policy_json_writer *w, const char *key, bool array)
{
	int r = put_key(w, key);

	if (r < 0)
		return r;
	if (w->depth >= MAX_DEPTH) {
		w->r = -EINVAL;
		return w->r;
	}
	r = check(w, array ? yajl_gen_array_open(w->g) : yajl_gen_map_open(w->g));
	if (r < 0)
		return r;
	if (array)
		w->arrays |= UINT64_C(1) << w->depth;
	else
		w->arrays &= ~(UINT64_C(1) << w->depth);
	w->depth++;
	return r;
}

static int close_container(struct policy_json_writer *w, bool array)
{
	int r;

	if (!w)
		return -EINVAL;
	if (w->r < 0)
		return w->r;
	if (w->depth == 0 || in_array(w) != array) {
		w->r = -EINVAL;
		return w->r;
	}
	r = check(w, array ? yajl_gen_array_close(w->g) : yajl_gen_map_close(w->g));
	if (r >= 0)
		w->depth--;
	return value_written(w, r);
}

int policy_json_writer_open_object(struct policy_json_writer *w, const char *key)
{
	return open_container(w, key, false);
}

int policy_json_writer_close_object(struct policy_json_writer *w)
{
	return close_container(w, false);
}

int policy_json_writer_open_array(struct policy_json_writer *w, const char *key)
{
	return open_container(w, key, true);
}

int policy_json_writer_close_array(struct policy_json_writer *w)
{
	return close_container(w, true);
}

int policy_json_writer_add_string(struct policy_json_writer *w, const char *key, const char *value)
{
	int r = put_key(w, key);

	if (r < 0)
		return r;
	if (!value)
		return value_written(w, check(w, yajl_gen_null(w->g)));
	return value_written(
		w, check(w, yajl_gen_string(w->g, (const unsigned char *)value, strlen(value))));
}

int policy_json_writer_add_int(struct policy_json_writer *w, const char *key, long long value)
{
	int r = put_key(w, key);

	if (r < 0)
		return r;
	return value_written(w, check(w, yajl_gen_integer(w->g, value)));
}

int policy_json_writer_add_bool(struct policy_json_writer *w, const char *key, bool value)
{
	int r = put_key(w, key);

	if (r < 0)
		return r;
	return value_written(w, check(w, yajl_gen_bool(w->g, value)));
}

int policy_json_writer_add_null(struct policy_json_writer *w, const char *key)
{
	int r = put_key(w, key);

	if (r < 0)
		return r;
	return value_written(w, check(w, yajl_gen_null(w->g)));
}

int policy_json_writer_finish(struct policy_json_writer *w, char **ret_text)
{
	const unsigned char *buf;
	size_t len;
	char *text;
	int r;

	if (!w || !ret_text)
		return -EINVAL;
	if (w->r < 0)
		return w->r;
	if (!w->done || w->depth > 0) {
		w->r = -EINVAL;
		return w->r;
	}
	r = check(w, yajl_gen_get_buf(w->g, &buf, &len));
	if (r < 0)
		return r;
	text = strndup((const char *)buf, len);
	if (!text)
		return -ENOMEM;
	*ret_text = text;
	return 0;
}

int policy_json_writer_print(struct policy_json_writer *w, FILE *f)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = policy_json_writer_finish(w, &text);
	if (r < 0)
		return r;
	if (fprintf(f, "%s\n", text) < 0 || fflush(f) != 0)
		return -EIO;
	return 0;
}
