/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy: what an OCI bundle asks for, read from its JSON.
 *
 * The request handled here is vm.memfd_noexec for the container's PID
 * namespace, given either as the annotation
 *     "annotations": { "memfd_noexec": "2" }
 * or (the same request, for runtimes that grow support for it) as
 *     "linux": { "sysctl": { "vm.memfd_noexec": "2" } }
 * Values are JSON strings, exactly "0", "1" or "2".
 *
 * All JSON handling of the project sits behind this header (and
 * json-writer.h), so that the JSON library can be swapped.
 *
 * Conventions: functions return 0 (or a count) on success and -errno on
 * failure, with an error in *err (common/errors.h).  ret_* parameters are
 * written only on success.  Nothing here prints or exits.
 */
#ifndef POLICY_H
#define POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "errors.h"
#include "runtime.h"

/* Limits.  Anything above them is refused with -E2BIG. */
#define POLICY_MAX_DOCUMENT_SIZE (4U * 1024 * 1024) /* config.json, state */
#define POLICY_MAX_DEPTH 64			    /* nested objects/arrays */
#define POLICY_MAX_VALUE_SIZE (64U * 1024)	    /* our keys' values */

/* *ret_level when the document does not ask for anything. */
#define POLICY_LEVEL_NONE (-1)

/*
 * The spellings of the request, written once in nsexec/runtime.h, which
 * the runtimes call with the values their own parsers read; this parser
 * (the hook's, memfd-noexec's) checks those values with the same
 * nsexec_runtime_level().
 */
#define POLICY_ANNOTATION NSEXEC_RUNTIME_ANNOTATION
#define POLICY_SYSCTL NSEXEC_RUNTIME_SYSCTL
#define POLICY_SYSCTL_SLASH NSEXEC_RUNTIME_SYSCTL_SLASH

/* What a config.json asks for. */
struct policy_request {
	int level; /* 0, 1, 2, or POLICY_LEVEL_NONE */
	/*
	 * The container keeps CAP_SYS_ADMIN: an entry of
	 * process.capabilities.bounding reads as CAP_SYS_ADMIN (by number,
	 * see policy_capability_value()), or process.capabilities (or its
	 * bounding set) is absent or null, in which case crun leaves the
	 * capabilities alone.  Without a user namespace such a container
	 * could remount /proc/sys and lower its level again.
	 */
	bool keeps_sys_admin;
};

/*
 * One capability name as the runtimes read it: libcap's cap_from_name(),
 * which crun uses, and which accepts the most.  It reads a prefix of the
 * NUL-terminated name: a capability name in any case ("CAP_SYS_ADMIN",
 * "cap_sys_admin") up to the first character that cannot continue one,
 * or a number in C notation ("21", "0x15", "025"), and ignores what
 * follows ("CAP_SYS_ADMIN ", "cap_sys_admin+ep" are CAP_SYS_ADMIN too).
 * runc 1.1 accepts only the exact upper-case "CAP_" names and ignores
 * (with a warning) everything else, a subset.
 *
 * Returns the capability number (0..63), or -EINVAL for a name that
 * libcap refuses (and so no runtime accepts).
 */
int policy_capability_value(const char *name);

/*
 * Parses a config.json held in memory (len bytes, need not be
 * NUL-terminated) into *ret.
 *
 * Errors:
 *  -EINVAL  invalid JSON; the top level is not an object; a duplicate key
 *           anywhere in the document; "annotations", "linux" or
 *           "linux.sysctl" is not an object (null counts as absent, as it
 *           does for Go); a value that is not the JSON string "0", "1" or
 *           "2"; the annotation and the sysctl ask for different levels;
 *           a key that Go would match case-insensitively to one of ours;
 *           malformed UTF-8; and, only when a level is asked for, a
 *           process.capabilities that is not an object, a bounding set
 *           that is not an array, or an entry of it that is not a string
 *           policy_capability_value() accepts (whether the container
 *           keeps CAP_SYS_ADMIN could not be told);
 *  -E2BIG   the document is above POLICY_MAX_DOCUMENT_SIZE, nested deeper
 *           than POLICY_MAX_DEPTH, or one of our values is above
 *           POLICY_MAX_VALUE_SIZE;
 *  -ENOMEM
 * The message quotes the offending value (escaped, shortened), names the
 * input (annotations["memfd_noexec"] or linux.sysctl["vm.memfd_noexec"]),
 * lists the allowed values and says what to change.
 */
int policy_parse_config(const char *json, size_t len, struct policy_request *ret,
			struct mt_error **err);

/*
 * Reads bundle_dir/config.json (a regular file of at most
 * POLICY_MAX_DOCUMENT_SIZE bytes) and parses it as above.
 *
 * Errors: those of policy_parse_config(), plus
 *  -EINVAL  bundle_dir is NULL or empty, or config.json is not a regular
 *           file;
 *  -E2BIG   config.json is larger than POLICY_MAX_DOCUMENT_SIZE;
 *  any -errno from open(2), fstat(2) or read(2) (e.g. -ENOENT, -EACCES).
 */
int policy_load_bundle(const char *bundle_dir, struct policy_request *ret, struct mt_error **err);

/* The OCI runtime state, as a runtime passes it to a hook on stdin. */
struct policy_state {
	char *oci_version; /* NULL if absent */
	char *id;	   /* NULL if absent */
	char *status;	   /* NULL if absent: "creating", "created", ... */
	pid_t pid;	   /* > 0 */
	char *bundle;	   /* absolute path */
	/* annotations["memfd_noexec"], checked like config.json's: 0..2,
	 * or POLICY_LEVEL_NONE when absent or invalid */
	int level;
	/* Why an annotation that is there is invalid, else NULL.  It does
	 * not fail the parse, so that a hook can report config.json's own
	 * refusal first, which names the file the user wrote. */
	struct mt_error *level_error;
};

/*
 * Parses the OCI state JSON.  "pid" (a positive integer) and "bundle" (an
 * absolute path, no NUL bytes, shorter than PATH_MAX) are required;
 * "ociVersion", "id" and "status" are optional strings, and
 * annotations["memfd_noexec"] is read like config.json's (into level, or
 * level_error).  Other keys are
 * ignored, but the document is checked like a config.json (duplicates,
 * depth, size, UTF-8).
 *
 * Errors: -EINVAL, -E2BIG, -ENOMEM as for policy_parse_config().
 * On success *ret must later be released with policy_state_done().
 */
int policy_parse_state(const char *json, size_t len, struct policy_state *ret,
		       struct mt_error **err);

/* Frees the strings of *s and clears it; NULL is fine. */
void policy_state_done(struct policy_state *s);

#endif
