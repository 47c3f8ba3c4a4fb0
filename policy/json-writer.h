/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy_json_writer: builds a small JSON document (objects and arrays of
 * scalars, nested up to 64 deep), so that tools can print JSON without
 * using the JSON library themselves.
 *
 *   struct policy_json_writer *w;
 *   policy_json_writer_new(&w);
 *   policy_json_writer_open_object(w, NULL);
 *   policy_json_writer_add_int(w, "level", 2);
 *   policy_json_writer_close_object(w);
 *   policy_json_writer_finish(w, &text);
 *
 * Errors are sticky: once a call fails, every later call (and finish)
 * returns the same -errno.  Errors: -ENOMEM; -EINVAL for a call out of
 * place (a value without a key inside an object, a key at the top level or
 * inside an array, unbalanced or mismatched objects and arrays, nesting
 * deeper than 64, a second top-level value); -EILSEQ for a string that is
 * not valid UTF-8.
 */
#ifndef POLICY_JSON_WRITER_H
#define POLICY_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

struct policy_json_writer;

int policy_json_writer_new(struct policy_json_writer **ret);
/* policy_json_writer_new() with the top-level object already open, as
 * every document of the tools begins. */
int policy_json_writer_new_object(struct policy_json_writer **ret);
/* NULL is fine. */
void policy_json_writer_free(struct policy_json_writer *w);
void policy_json_writer_freep(struct policy_json_writer **w);

/* key is NULL for the top-level object and inside an array; the add_*
 * functions below take a NULL key inside an array too. */
int policy_json_writer_open_object(struct policy_json_writer *w, const char *key);
int policy_json_writer_close_object(struct policy_json_writer *w);
/* key is NULL at the top level and inside an array. */
int policy_json_writer_open_array(struct policy_json_writer *w, const char *key);
int policy_json_writer_close_array(struct policy_json_writer *w);
int policy_json_writer_add_string(struct policy_json_writer *w, const char *key, const char *value);
int policy_json_writer_add_int(struct policy_json_writer *w, const char *key, long long value);
int policy_json_writer_add_bool(struct policy_json_writer *w, const char *key, bool value);
int policy_json_writer_add_null(struct policy_json_writer *w, const char *key);

/*
 * Stores the document, a malloc'd NUL-terminated string without a
 * trailing newline, in *ret_text.  The writer stays usable only for free.
 */
int policy_json_writer_finish(struct policy_json_writer *w, char **ret_text);

/* Finishes the document and writes it to f with a newline, flushed. */
int policy_json_writer_print(struct policy_json_writer *w, FILE *f);

#endif
