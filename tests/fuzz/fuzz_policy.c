/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer entry point for the policy parsers.  Checks the contract, not
 * only the absence of crashes:
 *  - success: no error, level in {-1, 0, 1, 2} (state: pid > 0 and an
 *    absolute bundle path);
 *  - failure: a -errno from the documented set, an error carrying the same
 *    errno and a message, and the out-parameters untouched.
 *
 *   ./fuzz_policy -max_len=65536 corpus/
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_failure(int r, const struct mt_error *error)
{
	if (r != -EINVAL && r != -E2BIG && r != -ENOMEM)
		abort();
	if (!error || error->err != -r || !*error->msg)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json = (const char *)data;
	struct policy_request req = {.level = -7};
	struct policy_state st = {.pid = -7};
	struct mt_error *error = NULL;
	int r;

	r = policy_parse_config(json, size, &req, &error);
	if (r == 0) {
		if (error || req.level < -1 || req.level > 2)
			abort();
	} else {
		check_failure(r, error);
		if (req.level != -7)
			abort();
	}
	mt_error_free(&error);

	r = policy_parse_state(json, size, &st, &error);
	if (r == 0) {
		if (error || st.pid <= 0 || !st.bundle || st.bundle[0] != '/' ||
		    strlen(st.bundle) >= 4096 || st.level < -1 || st.level > 2 ||
		    (st.level_error && st.level != -1))
			abort();
		policy_state_done(&st);
	} else {
		check_failure(r, error);
		if (st.pid != -7 || st.bundle)
			abort();
	}
	mt_error_free(&error);
	return 0;
}
