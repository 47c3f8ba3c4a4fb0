/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SAX scan behind policy_json_scan(); see json-reader.h.
 *
 * Keys of each open object are copied into a per-depth buffer and checked
 * for duplicates when the object closes (sorted, so a crafted document
 * cannot make it quadratic).  A duplicate of a captured key is caught as
 * soon as its value starts.  Buffers are kept per depth and reused, so a
 * document costs at most its own size in key copies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "json-reader.h"
#include "macro.h"
#include "escape.h"
#include "message.h"
#include "policy.h"

struct key_ref {
	size_t off, len;
};

struct frame {
	bool is_map;
	size_t index;	    /* arrays: index of the current element */
	unsigned alive;	    /* captures whose path runs through this container */
	unsigned key_match; /* maps: captures whose next step is the current key
			     */
	unsigned owner;	    /* captures whose value is this container */
	char *kbuf;	    /* copies of this object's keys, back to back */
	size_t kbuf_len, kbuf_cap;
	struct key_ref *keys;
	size_t n_keys, keys_cap;
};

struct scan {
	const char *what;
	struct policy_json_capture *caps;
	size_t n_caps;
	struct frame frames[POLICY_MAX_DEPTH];
	size_t depth;
	bool root_seen;
	int r;
	struct mt_error **err;
};

const char *policy_json_type_name(enum policy_json_type t)
{
	switch (t) {
	case POLICY_JSON_NULL:
		return "JSON null";
	case POLICY_JSON_FALSE:
		return "JSON false";
	case POLICY_JSON_TRUE:
		return "JSON true";
	case POLICY_JSON_NUMBER:
		return "a JSON number";
	case POLICY_JSON_STRING:
		return "a JSON string";
	case POLICY_JSON_OBJECT:
		return "a JSON object";
	case POLICY_JSON_ARRAY:
		return "a JSON array";
	case POLICY_JSON_ABSENT:
	default:
		return "absent";
	}
}

/* ---- paths, for messages ------------------------------------------------ */

/* Paths in messages are shortened to about this many characters. */
#define PATH_SHOWN_MAX 160

static bool is_identifier(const char *s, size_t len)
{
	if (len == 0 || len > MESSAGE_QUOTE_CHARS)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			continue;
		if (i > 0 && c >= '0' && c <= '9')
			continue;
		return false;
	}
	return true;
}

static const char *frame_key(const struct frame *f, size_t *ret_len)
{
	const struct key_ref *k = &f->keys[f->n_keys - 1];

	*ret_len = k->len;
	return f->kbuf + k->off;
}

/*
 * Renders the path selected by frames[0..n-1] ("process.env[3]",
 * "annotations", "linux.sysctl[\"vm.memfd_noexec\"]").  Returns NULL only
 * when out of memory; "" for the top level.
 */
static char *render_path(const struct scan *s, size_t n)
{
	char *p = strdup(""), *q;

	for (size_t i = 0; p && i < n; i++) {
		const struct frame *f = &s->frames[i];
		int k;

		if (!f->is_map) {
			k = asprintf(&q, "%s[%zu]", p, f->index);
		} else if (f->n_keys == 0) {
			break;
		} else {
			size_t len;
			const char *key = frame_key(f, &len);

			if (is_identifier(key, len)) {
				k = asprintf(&q, "%s%s%.*s", p, i > 0 ? "." : "", (int)len, key);
			} else {
				_cleanup_free_ char *quoted = policy_message_quote(key, len, len);

				if (!quoted) {
					free(p);
					return NULL;
				}
				k = asprintf(&q, "%s[%s]", p, quoted);
			}
		}
		free(p);
		p = k < 0 ? NULL : q;
	}
	if (p && strlen(p) > PATH_SHOWN_MAX) {
		/* Keep the start and the end of a very deep path. */
		size_t len = strlen(p), tail = PATH_SHOWN_MAX / 2;

		memmove(p + PATH_SHOWN_MAX / 2 - 3, "...", 3);
		memmove(p + PATH_SHOWN_MAX / 2, p + len - tail, tail + 1);
	}
	return p;
}

/* "the top-level object" or "the object at process.env[3]" */
static char *describe_container(const struct scan *s, size_t n)
{
	_cleanup_free_ char *path = render_path(s, n);
	char *d;

	if (!path)
		return NULL;
	if (!*path)
		return strdup("the top-level object");
	if (asprintf(&d, "the %s at %s", s->frames[n].is_map ? "object" : "array", path) < 0)
		return NULL;
	return d;
}

_printf_(3, 4) static int fail(struct scan *s, int r, const char *fmt, ...)
{
	va_list ap;

	if (s->r < 0)
		return 0;
	va_start(ap, fmt);
	s->r = mt_error_setv(s->err, r, fmt, ap);
	va_end(ap);
	return 0; /* cancels the parse */
}

static int fail_oom(struct scan *s)
{
	if (s->r >= 0)
		s->r = -ENOMEM;
	return 0;
}

static int fail_duplicate(struct scan *s, size_t map_depth, const char *key, size_t len)
{
	_cleanup_free_ char *where = describe_container(s, map_depth);
	_cleanup_free_ char *quoted = policy_message_quote(key, len, len);

	if (!where || !quoted)
		return fail_oom(s);
	return fail(
		s, -EINVAL,
		"Refusing %s: duplicate key %s in %s. JSON parsers disagree about which copy counts (Go's encoding/json, used by runc and podman, keeps the last one; yajl's tree parser keeps the first), so the document is ambiguous. Remove the duplicate.",
		s->what, quoted, where);
}

/* ---- matching ----------------------------------------------------------- */

/*
 * Go's encoding/json matches an object key to a struct field exactly or,
 * failing that, with Unicode simple case folding.  The only non-ASCII
 * characters that fold to ASCII letters are U+017F (long s, to 's') and
 * U+212A (Kelvin sign, to 'k').  name is ASCII.
 */
static bool go_fold_equal(const char *key, size_t len, const char *name)
{
	const unsigned char *k = (const unsigned char *)key;
	size_t i = 0;

	for (; *name; name++) {
		char want = *name, got;

		if (want >= 'A' && want <= 'Z')
			want += 'a' - 'A';
		if (i >= len)
			return false;
		if (i + 1 < len && k[i] == 0xc5 && k[i + 1] == 0xbf) {
			got = 's';
			i += 2;
		} else if (i + 2 < len && k[i] == 0xe2 && k[i + 1] == 0x84 && k[i + 2] == 0xaa) {
			got = 'k';
			i += 3;
		} else {
			got = (char)k[i];
			if (got >= 'A' && got <= 'Z')
				got += 'a' - 'A';
			i++;
		}
		if (got != want)
			return false;
	}
	return i == len;
}

static bool exact_equal(const char *key, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(key, name, len) == 0;
}

static int record(struct scan *s, struct policy_json_capture *c, enum policy_json_type type,
		  const char *text, size_t len)
{
	if (c->type != POLICY_JSON_ABSENT) {
		size_t klen;
		const char *key = frame_key(&s->frames[s->depth - 1], &klen);

		return fail_duplicate(s, s->depth - 1, key, klen);
	}
	c->type = type;
	if (text) {
		size_t keep = len < c->max_len ? len : c->max_len;

		c->text = malloc(keep + 1);
		if (!c->text)
			return fail_oom(s);
		memcpy(c->text, text, keep);
		c->text[keep] = '\0';
		c->len = len;
	}
	return 1;
}

/* Called for every value, scalars and containers alike, before a push. */
static int value_begin(struct scan *s, enum policy_json_type type, const char *text, size_t len)
{
	struct frame *f;

	if (s->depth == 0) {
		s->root_seen = true;
		if (type != POLICY_JSON_OBJECT)
			return fail(
				s, -EINVAL,
				"Refusing %s: the top level is %s, but it must be a JSON object.",
				s->what, policy_json_type_name(type));
		return 1;
	}

	f = &s->frames[s->depth - 1];
	if (!f->is_map) {
		f->index++;
		for (size_t i = 0; i < s->n_caps; i++) {
			const struct policy_json_capture *c = &s->caps[i];
			int r;

			if (!(f->owner & (1U << i)) || !c->on_element)
				continue;
			r = c->on_element(c->userdata, f->index, type, text, len, s->err);
			if (r < 0) {
				if (s->r >= 0)
					s->r = r;
				return 0;
			}
		}
		return 1;
	}
	for (size_t i = 0; i < s->n_caps; i++) {
		if (!(f->key_match & (1U << i)))
			continue;
		if (s->caps[i].n_path != s->depth)
			continue;
		if (!record(s, &s->caps[i], type, text, len))
			return 0;
	}
	return 1;
}

static int push(struct scan *s, bool is_map)
{
	struct frame *f;
	unsigned alive = 0, owner = 0;

	if (s->depth >= POLICY_MAX_DEPTH) {
		_cleanup_free_ char *path = render_path(s, s->depth);

		if (!path)
			return fail_oom(s);
		return fail(
			s, -E2BIG,
			"Refusing %s: it nests objects and arrays deeper than %d levels (at %s).",
			s->what, POLICY_MAX_DEPTH, path);
	}

	if (s->depth == 0) {
		for (size_t i = 0; i < s->n_caps; i++)
			if (s->caps[i].n_path > 0)
				alive |= 1U << i;
	} else if (s->frames[s->depth - 1].is_map) {
		unsigned m = s->frames[s->depth - 1].key_match;

		for (size_t i = 0; i < s->n_caps; i++) {
			if ((m & (1U << i)) && s->caps[i].n_path > s->depth)
				alive |= 1U << i;
			if ((m & (1U << i)) && s->caps[i].n_path == s->depth)
				owner |= 1U << i;
		}
	}

	f = &s->frames[s->depth++];
	f->is_map = is_map;
	f->index = SIZE_MAX;
	f->alive = alive;
	f->owner = owner;
	f->key_match = 0;
	f->kbuf_len = 0;
	f->n_keys = 0;
	return 1;
}

/* ---- yajl callbacks ----------------------------------------------------- */

static int on_null(void *ctx)
{
	return value_begin(ctx, POLICY_JSON_NULL, NULL, 0);
}

static int on_boolean(void *ctx, int b)
{
	return value_begin(ctx, b ? POLICY_JSON_TRUE : POLICY_JSON_FALSE, NULL, 0);
}

static int on_number(void *ctx, const char *n, size_t len)
{
	return value_begin(ctx, POLICY_JSON_NUMBER, n, len);
}

static int on_string(void *ctx, const unsigned char *str, size_t len)
{
	struct scan *s = ctx;

	if (!mt_utf8_valid((const char *)str, len)) {
		_cleanup_free_ char *path = render_path(s, s->depth);

		if (!path)
			return fail_oom(s);
		return fail(s, -EINVAL, "Refusing %s: the string at %s is not valid UTF-8.",
			    s->what, *path ? path : "the top level");
	}
	return value_begin(s, POLICY_JSON_STRING, (const char *)str, len);
}

static int on_start_map(void *ctx)
{
	struct scan *s = ctx;

	if (!value_begin(s, POLICY_JSON_OBJECT, NULL, 0))
		return 0;
	return push(s, true);
}

static int on_start_array(void *ctx)
{
	struct scan *s = ctx;

	if (!value_begin(s, POLICY_JSON_ARRAY, NULL, 0))
		return 0;
	return push(s, false);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct scan *s = ctx;
	struct frame *f = &s->frames[s->depth - 1];
	const char *k = (const char *)key;

	if (!mt_utf8_valid(k, len)) {
		_cleanup_free_ char *where = describe_container(s, s->depth - 1);

		if (!where)
			return fail_oom(s);
		return fail(s, -EINVAL, "Refusing %s: a key in %s is not valid UTF-8.", s->what,
			    where);
	}

	if (grow((void **)&f->kbuf, &f->kbuf_cap, f->kbuf_len + len + 1, 1) < 0 ||
	    grow((void **)&f->keys, &f->keys_cap, f->n_keys + 1, sizeof(struct key_ref)) < 0)
		return fail_oom(s);
	memcpy(f->kbuf + f->kbuf_len, k, len);
	f->keys[f->n_keys++] = (struct key_ref){.off = f->kbuf_len, .len = len};
	f->kbuf_len += len;

	f->key_match = 0;
	for (size_t i = 0; i < s->n_caps; i++) {
		const struct policy_json_capture *c = &s->caps[i];
		const char *name;

		if (!(f->alive & (1U << i)))
			continue;
		name = c->path[s->depth - 1];
		if (exact_equal(k, len, name)) {
			f->key_match |= 1U << i;
		} else if ((c->go_fields & (1U << (s->depth - 1))) && go_fold_equal(k, len, name)) {
			_cleanup_free_ char *quoted = policy_message_quote(k, len, len);
			_cleanup_free_ char *where = describe_container(s, s->depth - 1);

			if (!quoted || !where)
				return fail_oom(s);
			return fail(
				s, -EINVAL,
				"Refusing %s: key %s in %s is not \"%s\", but Go's encoding/json (runc, podman) would read it as \"%s\", since it matches field names case-insensitively. Spell it \"%s\".",
				s->what, quoted, where, name, name, name);
		}
	}
	return 1;
}

static int key_ref_compare(const void *a, const void *b, void *arg)
{
	const struct key_ref *x = a, *y = b;
	const char *buf = arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(buf + x->off, buf + y->off, n);

	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

static int on_end_map(void *ctx)
{
	struct scan *s = ctx;
	struct frame *f = &s->frames[s->depth - 1];

	if (f->n_keys > 1) {
		qsort_r(f->keys, f->n_keys, sizeof(struct key_ref), key_ref_compare, f->kbuf);
		for (size_t i = 1; i < f->n_keys; i++) {
			if (key_ref_compare(&f->keys[i - 1], &f->keys[i], f->kbuf) != 0)
				continue;
			return fail_duplicate(s, s->depth - 1, f->kbuf + f->keys[i].off,
					      f->keys[i].len);
		}
	}
	s->depth--;
	return 1;
}

static int on_end_array(void *ctx)
{
	struct scan *s = ctx;

	s->depth--;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

/* ---- driver ------------------------------------------------------------- */

static void yajl_freep(yajl_handle *h)
{
	if (*h)
		yajl_free(*h);
}

static void scan_freep(struct scan **sp)
{
	struct scan *s = *sp;

	if (!s)
		return;
	for (size_t i = 0; i < POLICY_MAX_DEPTH; i++) {
		free(s->frames[i].kbuf);
		free(s->frames[i].keys);
	}
	free(s);
}

void policy_json_captures_done(struct policy_json_capture *caps, size_t n)
{
	if (!caps)
		return;
	for (size_t i = 0; i < n; i++) {
		free(caps[i].text);
		caps[i].text = NULL;
		caps[i].len = 0;
		caps[i].type = POLICY_JSON_ABSENT;
	}
}

static int yajl_failure(yajl_handle h, const char *what, size_t offset, struct mt_error **err)
{
	unsigned char *m = yajl_get_error(h, 0, NULL, 0);
	size_t n;
	int r;

	if (!m)
		return mt_error_set(err, -EINVAL, "Failed to parse %s: invalid JSON near byte %zu.",
				    what, offset);
	n = strlen((char *)m);
	while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' ' || m[n - 1] == '.'))
		n--;
	r = mt_error_set(err, -EINVAL, "Failed to parse %s: invalid JSON near byte %zu: %.*s.",
			 what, offset, (int)n, (char *)m);
	yajl_free_error(h, m);
	return r;
}

/* Checks the capture table and marks every capture absent. */
static int captures_reset(struct policy_json_capture *caps, size_t n_caps)
{
	if (n_caps > POLICY_JSON_CAPTURES_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n_caps; i++) {
		if (caps[i].n_path == 0 || caps[i].n_path > POLICY_JSON_PATH_MAX)
			return -EINVAL;
		caps[i].type = POLICY_JSON_ABSENT;
		caps[i].text = NULL;
		caps[i].len = 0;
	}
	return 0;
}

/* Feeds the whole document to yajl; *offset: where it stopped. */
static yajl_status parse_all(yajl_handle h, const char *json, size_t len, size_t *offset)
{
	yajl_status st;

	/* Defaults, spelled out: no comments, validate UTF-8, one value,
	 * no trailing garbage, no partial values. */
	(void)yajl_config(h, yajl_allow_comments, 0);
	(void)yajl_config(h, yajl_dont_validate_strings, 0);
	st = yajl_parse(h, (const unsigned char *)(json ? json : ""), len);
	*offset = yajl_get_bytes_consumed(h);
	if (st == yajl_status_ok) {
		st = yajl_complete_parse(h);
		*offset = len;
	}
	return st;
}

/* The outcome of a finished parse: 0, or the error for what. */
static int scan_result(const struct scan *s, yajl_handle h, yajl_status st, size_t offset)
{
	if (s->r < 0 || st == yajl_status_client_canceled) {
		int r = s->r < 0 ? s->r : -EINVAL;

		if (r == -ENOMEM)
			return mt_error_set(s->err, r, "Failed to parse %s: %s", s->what,
					    strerror(ENOMEM));
		return r;
	}
	if (st != yajl_status_ok)
		return yajl_failure(h, s->what, offset, s->err);
	if (!s->root_seen)
		return mt_error_set(s->err, -EINVAL, "Failed to parse %s: it is empty.", s->what);
	return 0;
}

int policy_json_scan(const char *json, size_t len, const char *what,
		     struct policy_json_capture *caps, size_t n_caps, struct mt_error **err)
{
	_cleanup_(scan_freep) struct scan *s = NULL;
	_cleanup_(yajl_freep) yajl_handle h = NULL;
	yajl_status st;
	size_t offset;
	int r;

	if ((!json && len > 0) || captures_reset(caps, n_caps) < 0)
		return -EINVAL;
	/* The caller may hold only the first limit + 1 bytes of a longer
	 * input, so the message does not claim a size. */
	if (len > POLICY_MAX_DOCUMENT_SIZE)
		return mt_error_set(err, -E2BIG,
				    "Refusing %s: it is larger than the limit of %u bytes.", what,
				    POLICY_MAX_DOCUMENT_SIZE);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->what = what;
	s->err = err;
	s->caps = caps;
	s->n_caps = n_caps;
	h = yajl_alloc(&callbacks, NULL, s);
	if (!h)
		return -ENOMEM;
	st = parse_all(h, json, len, &offset);
	r = scan_result(s, h, st, offset);
	if (r < 0)
		policy_json_captures_done(caps, n_caps);
	return r;
}
