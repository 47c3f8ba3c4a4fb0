/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to policy/: the checks that config.json and the OCI state share,
 * so that a value means the same wherever it is read.
 */
#ifndef POLICY_POLICY_INTERNAL_H
#define POLICY_POLICY_INTERNAL_H

#include "errors.h"
#include "json-reader.h"

/* A level value: "0", "1" or "2" as a JSON string; absent gives
 * POLICY_LEVEL_NONE.  name and what name it in messages. */
int policy_check_level(const struct policy_json_capture *c, const char *name, const char *what,
		       int *ret_level, struct mt_error **err);

/* A container must be an object, or absent/null (as Go reads it). */
int policy_check_object(const struct policy_json_capture *c, const char *name, const char *example,
			const char *what, struct mt_error **err);

#endif
