/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The vm.memfd_noexec request in a bundle's config.json.
 *
 * Accepted spellings, all JSON strings "0", "1" or "2":
 *   annotations["memfd_noexec"]
 *   linux.sysctl["vm.memfd_noexec"]   (what OCI sysctls look like)
 *   linux.sysctl["vm/memfd_noexec"]   (runc maps '.' to '/' when it writes
 *                                      sysctls, so this names the same file)
 * (POLICY_ANNOTATION, POLICY_SYSCTL, POLICY_SYSCTL_SLASH.)  Several present
 * must agree.  Go's encoding/json (runc) lets null stand for an absent
 * object, so null "annotations", "linux" or "linux.sysctl" count as
 * absent; any other non-object is refused.
 *
 * With a level above 0, whether the container keeps CAP_SYS_ADMIN matters
 * (nsexec/apply.c): each entry of process.capabilities.bounding is read
 * as the runtimes read it (policy_capability_value(), by number), and an
 * entry that none of them accepts is refused rather than guessed at.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "policy-internal.h"
#include "json-reader.h"
#include "macro.h"
#include "message.h"
#include "memfd-sysctl.h"
#include "policy.h"
#include "runtime.h"

/* A value is kept up to this size, which the runtimes' rule reads. */
_Static_assert(POLICY_MAX_VALUE_SIZE == NSEXEC_RUNTIME_MAX_VALUE,
	       "policy keeps the bytes that nsexec_runtime_parse_level() reads");

enum {
	CAP_ANNOTATIONS,
	CAP_ANNOTATION,
	CAP_LINUX,
	CAP_SYSCTLS,
	CAP_SYSCTL_DOT,
	CAP_SYSCTL_SLASH,
	CAP_CAPABILITIES,
	CAP_BOUNDING,
	_CAP_MAX,
};

/* Names for messages, by capture. */
static const char *const cap_names[_CAP_MAX] = {
	[CAP_ANNOTATIONS] = "\"annotations\"",
	[CAP_ANNOTATION] = "annotations[\"" POLICY_ANNOTATION "\"]",
	[CAP_LINUX] = "\"linux\"",
	[CAP_SYSCTLS] = "linux.sysctl",
	[CAP_SYSCTL_DOT] = "linux.sysctl[\"" POLICY_SYSCTL "\"]",
	[CAP_SYSCTL_SLASH] = "linux.sysctl[\"" POLICY_SYSCTL_SLASH "\"]",
	[CAP_CAPABILITIES] = "process.capabilities",
	[CAP_BOUNDING] = "process.capabilities.bounding",
};

/*
 * What the entries of process.capabilities.bounding say, collected during
 * the scan (the request may come later in the document).
 */
struct bounding {
	bool sys_admin;	  /* an entry reads as CAP_SYS_ADMIN */
	bool bad;	  /* an entry that no runtime accepts: */
	size_t bad_index; /* the first one */
	enum policy_json_type bad_type;
	char *bad_quoted; /* a string's text, quoted */
};

static int on_bounding_entry(void *userdata, size_t index, enum policy_json_type type,
			     const char *text, size_t len, struct mt_error **err)
{
	struct bounding *b = userdata;
	_cleanup_free_ char *name = NULL;
	int v = -EINVAL;

	if (type == POLICY_JSON_STRING) {
		/* As a C runtime sees it: up to a NUL byte, if it holds one. */
		name = strndup(text, len);
		if (!name)
			return mt_error_set(err, -ENOMEM, "Failed to read %s: %s",
					    "process.capabilities.bounding", strerror(ENOMEM));
		v = policy_capability_value(name);
		if (v == CAP_SYS_ADMIN)
			b->sys_admin = true;
	}
	if (v >= 0 || b->bad)
		return 0;
	b->bad = true;
	b->bad_index = index;
	b->bad_type = type;
	if (type == POLICY_JSON_STRING) {
		b->bad_quoted = policy_message_quote(text, len, len);
		if (!b->bad_quoted)
			return mt_error_set(err, -ENOMEM, "Failed to quote %s: %s",
					    "process.capabilities.bounding", strerror(ENOMEM));
	}
	return 0;
}

/* Go struct fields (bits): top-level "annotations"/"linux", "sysctl";
 * "process", "capabilities", "bounding". */
static void init_captures(struct policy_json_capture *c, struct bounding *b)
{
	c[CAP_ANNOTATIONS] = (struct policy_json_capture){
		.path = {"annotations"}, .n_path = 1, .go_fields = 0x1};
	c[CAP_ANNOTATION] = (struct policy_json_capture){.path = {"annotations", POLICY_ANNOTATION},
							 .n_path = 2,
							 .go_fields = 0x1,
							 .max_len = POLICY_MAX_VALUE_SIZE};
	c[CAP_LINUX] =
		(struct policy_json_capture){.path = {"linux"}, .n_path = 1, .go_fields = 0x1};
	c[CAP_SYSCTLS] = (struct policy_json_capture){
		.path = {"linux", "sysctl"}, .n_path = 2, .go_fields = 0x3};
	c[CAP_SYSCTL_DOT] = (struct policy_json_capture){.path = {"linux", "sysctl", POLICY_SYSCTL},
							 .n_path = 3,
							 .go_fields = 0x3,
							 .max_len = POLICY_MAX_VALUE_SIZE};
	c[CAP_SYSCTL_SLASH] =
		(struct policy_json_capture){.path = {"linux", "sysctl", POLICY_SYSCTL_SLASH},
					     .n_path = 3,
					     .go_fields = 0x3,
					     .max_len = POLICY_MAX_VALUE_SIZE};
	c[CAP_CAPABILITIES] = (struct policy_json_capture){
		.path = {"process", "capabilities"}, .n_path = 2, .go_fields = 0x3};
	c[CAP_BOUNDING] =
		(struct policy_json_capture){.path = {"process", "capabilities", "bounding"},
					     .n_path = 3,
					     .go_fields = 0x7,
					     .on_element = on_bounding_entry,
					     .userdata = b};
}

struct captures {
	struct policy_json_capture c[_CAP_MAX];
	struct bounding bounding;
};

static void captures_done(struct captures *c)
{
	policy_json_captures_done(c->c, _CAP_MAX);
	free(c->bounding.bad_quoted);
	c->bounding.bad_quoted = NULL;
}

int policy_check_object(const struct policy_json_capture *c, const char *name, const char *example,
			const char *what, struct mt_error **err)
{
	if (c->type == POLICY_JSON_ABSENT || c->type == POLICY_JSON_NULL ||
	    c->type == POLICY_JSON_OBJECT)
		return 0;
	return mt_error_set(err, -EINVAL,
			    "Refusing %s: %s is %s, but it must be an object of strings, e.g. %s.",
			    what, name, policy_json_type_name(c->type), example);
}

int policy_check_level(const struct policy_json_capture *c, const char *name, const char *what,
		       int *ret_level, struct mt_error **err)
{
	switch (c->type) {
	case POLICY_JSON_ABSENT:
		*ret_level = POLICY_LEVEL_NONE;
		return 0;

	case POLICY_JSON_STRING: {
		/* The rule every runtime applies to the value it read. */
		const struct nsexec_runtime_value v = {c->text, c->len};
		int level = nsexec_runtime_parse_level(name, what, &v, err);

		if (level < 0)
			return level;
		*ret_level = level;
		return 0;
	}

	case POLICY_JSON_NUMBER:
		/* yajl's number text is ASCII: show it as it is, shortened. */
		return mt_error_set(
			err, c->len > c->max_len ? -E2BIG : -EINVAL,
			"Refusing %s in %s: it is the JSON number %.*s%s, but it must be a JSON string: \"0\", \"1\" or \"2\". Quote it (\"%s\": \"2\"), or remove it to keep the inherited vm.memfd_noexec.",
			name, what,
			(int)(c->len > MESSAGE_QUOTE_CHARS ? MESSAGE_QUOTE_CHARS : c->len), c->text,
			c->len > MESSAGE_QUOTE_CHARS ? "..." : "", c->path[c->n_path - 1]);

	default:
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s in %s: it is %s, but it must be a JSON string: \"0\", \"1\" or \"2\". Set one of them (\"%s\": \"2\"), or remove it to keep the inherited vm.memfd_noexec.",
			name, what, policy_json_type_name(c->type), c->path[c->n_path - 1]);
	}
}

/* The containers on the way to our values must be objects (or null). */
static int check_objects(const struct captures *caps, const char *what, struct mt_error **err)
{
	static const struct {
		int cap;
		const char *example;
	} objects[] = {
		{CAP_ANNOTATIONS, "\"annotations\": {\"memfd_noexec\": \"2\"}"},
		{CAP_LINUX, "\"linux\": {\"sysctl\": {\"vm.memfd_noexec\": \"2\"}}"},
		{CAP_SYSCTLS, "\"sysctl\": {\"vm.memfd_noexec\": \"2\"}"},
	};
	int r;

	for (size_t i = 0; i < ELEMENTSOF(objects); i++) {
		int k = objects[i].cap;

		r = policy_check_object(&caps->c[k], cap_names[k], objects[i].example, what, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every spelling present must be a JSON string; then the values go through
 * the runtimes' own rule (nsexec_runtime_level(): valid, and agreeing). */
static int check_levels(const struct captures *caps, const char *what, int *ret_level,
			struct mt_error **err)
{
	static const int values[] = {CAP_ANNOTATION, CAP_SYSCTL_DOT, CAP_SYSCTL_SLASH};
	struct nsexec_runtime_values v = {};
	struct nsexec_runtime_value *slots[] = {&v.annotation, &v.sysctl, &v.sysctl_slash};
	int level, r;

	for (size_t i = 0; i < ELEMENTSOF(values); i++) {
		const struct policy_json_capture *c = &caps->c[values[i]];
		int unused;

		if (c->type == POLICY_JSON_ABSENT)
			continue;
		if (c->type != POLICY_JSON_STRING) {
			r = policy_check_level(c, cap_names[values[i]], what, &unused, err);
			return r < 0 ? r : -EINVAL;
		}
		*slots[i] = (struct nsexec_runtime_value){c->text, c->len};
	}
	level = nsexec_runtime_level(&v, what, err);
	if (level < 0 && level != NSEXEC_RUNTIME_LEVEL_NONE)
		return level;
	*ret_level = level == NSEXEC_RUNTIME_LEVEL_NONE ? POLICY_LEVEL_NONE : level;
	return 0;
}

/*
 * crun leaves the capabilities alone without process.capabilities, and
 * runtimes read a missing bounding set differently, so the container
 * keeps CAP_SYS_ADMIN then too, as far as this rule knows.  Anything but
 * an array of names counts as keeping it (check_capabilities() refuses it
 * when it matters).
 */
static bool keeps_sys_admin(const struct captures *caps)
{
	const struct policy_json_capture *b = &caps->c[CAP_BOUNDING];

	if (caps->c[CAP_CAPABILITIES].type != POLICY_JSON_OBJECT)
		return true;
	if (b->type != POLICY_JSON_ARRAY)
		return true;
	return caps->bounding.sys_admin;
}

/*
 * With a level above 0 the answer of keeps_sys_admin() decides, so it must
 * not be a guess: the containers must be what runtimes read, and every
 * bounding entry a name that some runtime accepts.
 */
static int check_capabilities(const struct captures *caps, int level, const char *what,
			      struct mt_error **err)
{
	const struct policy_json_capture *c = &caps->c[CAP_CAPABILITIES];
	const struct policy_json_capture *b = &caps->c[CAP_BOUNDING];
	const struct bounding *e = &caps->bounding;

	if (level <= 0)
		return 0;
	if (c->type != POLICY_JSON_ABSENT && c->type != POLICY_JSON_NULL &&
	    c->type != POLICY_JSON_OBJECT)
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s: process.capabilities is %s, but it must be an object (\"capabilities\": {\"bounding\": [\"CAP_CHOWN\", ...]}). The vm.memfd_noexec=%d request needs to know whether the container keeps CAP_SYS_ADMIN.",
			what, policy_json_type_name(c->type), level);
	if (b->type != POLICY_JSON_ABSENT && b->type != POLICY_JSON_NULL &&
	    b->type != POLICY_JSON_ARRAY)
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s: process.capabilities.bounding is %s, but it must be an array of capability names (\"bounding\": [\"CAP_CHOWN\", ...]). The vm.memfd_noexec=%d request needs to know whether the container keeps CAP_SYS_ADMIN.",
			what, policy_json_type_name(b->type), level);
	if (!e->bad)
		return 0;
	if (e->bad_type != POLICY_JSON_STRING)
		return mt_error_set(
			err, -EINVAL,
			"Refusing %s: process.capabilities.bounding[%zu] is %s, but it must be a capability name (a JSON string such as \"CAP_CHOWN\"). The vm.memfd_noexec=%d request needs to know whether the container keeps CAP_SYS_ADMIN.",
			what, e->bad_index, policy_json_type_name(e->bad_type), level);
	return mt_error_set(
		err, -EINVAL,
		"Refusing %s: process.capabilities.bounding[%zu] = %s is not a capability that any runtime accepts (libcap's cap_from_name(), which crun uses, refuses it; runc ignores it), so whether the container keeps CAP_SYS_ADMIN cannot be told for its vm.memfd_noexec=%d request. Allowed are capability names as in capabilities(7), e.g. \"CAP_CHOWN\" (runc accepts only that spelling), or their numbers. Correct or remove the entry.",
		what, e->bad_index, e->bad_quoted, level);
}

static int parse_config(const char *json, size_t len, const char *what, struct policy_request *ret,
			struct mt_error **err)
{
	_cleanup_(captures_done) struct captures caps = {};
	int level = POLICY_LEVEL_NONE, r;

	init_captures(caps.c, &caps.bounding);
	r = policy_json_scan(json, len, what, caps.c, _CAP_MAX, err);
	if (r < 0)
		return r;
	r = check_objects(&caps, what, err);
	if (r < 0)
		return r;
	r = check_levels(&caps, what, &level, err);
	if (r < 0)
		return r;
	r = check_capabilities(&caps, level, what, err);
	if (r < 0)
		return r;
	*ret = (struct policy_request){
		.level = level,
		.keeps_sys_admin = keeps_sys_admin(&caps),
	};
	return 0;
}

int policy_parse_config(const char *json, size_t len, struct policy_request *ret,
			struct mt_error **err)
{
	if (!ret)
		return -EINVAL;
	return parse_config(json, len, "config.json", ret, err);
}

/* Opens bundle_dir/config.json as a regular file of a sane size. */
static int open_config(const char *bundle_dir, const char *what, struct mt_error **err)
{
	_cleanup_close_ int dfd = -EBADF, fd = -EBADF;
	struct stat st;
	int r;

	dfd = open(bundle_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = negative_errno();
		return mt_error_set(err, r, "Failed to open bundle directory %s: %s", bundle_dir,
				    strerror(-r));
	}
	/* O_NONBLOCK: never hang on a FIFO planted as config.json. */
	fd = openat(dfd, "config.json", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = negative_errno();
		return mt_error_set(err, r, "Failed to open %s: %s", what, strerror(-r));
	}
	if (fstat(fd, &st) < 0) {
		r = negative_errno();
		return mt_error_set(err, r, "Failed to stat %s: %s", what, strerror(-r));
	}
	if (!S_ISREG(st.st_mode))
		return mt_error_set(err, -EINVAL, "Refusing %s: it is not a regular file.", what);
	if ((unsigned long long)st.st_size > POLICY_MAX_DOCUMENT_SIZE)
		return mt_error_set(err, -E2BIG,
				    "Refusing %s: it is %lld bytes, above the limit of %u bytes.",
				    what, (long long)st.st_size, POLICY_MAX_DOCUMENT_SIZE);
	return TAKE_FD(fd);
}

int policy_load_bundle(const char *bundle_dir, struct policy_request *ret, struct mt_error **err)
{
	_cleanup_free_ char *data = NULL, *what = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t len;
	int r;

	if (!bundle_dir || !*bundle_dir || !ret)
		return mt_error_set(err, -EINVAL, "Refusing an empty bundle path.");
	if (asprintf(&what, "%s/config.json", bundle_dir) < 0)
		return mt_error_set(err, -ENOMEM, "Failed to read %s/config.json: %s", bundle_dir,
				    strerror(ENOMEM));
	fd = open_config(bundle_dir, what, err);
	if (fd < 0)
		return fd;

	r = read_full_fd(fd, POLICY_MAX_DOCUMENT_SIZE, &data, &len);
	if (r == -E2BIG)
		return mt_error_set(
			err, r,
			"Refusing %s: it grew above the limit of %u bytes while being read.", what,
			POLICY_MAX_DOCUMENT_SIZE);
	if (r < 0)
		return mt_error_set(err, r, "Failed to read %s: %s", what, strerror(-r));
	return parse_config(data, len, what, ret, err);
}
