/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer entry point for the policy parsers.  Checks the contract, not
 * only the absence of crashes:
 *  - success: no message, level in {-1, 0, 1, 2} (state: pid > 0 and an
 *    absolute bundle path);
 *  - failure: a -errno from the documented set, a message unless -ENOMEM,
 *    and the out-parameters untouched.
 *
 *   ./fuzz_policy -max_len=65536 corpus/
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_failure(int r, const char *error)
{
	if (r != -EINVAL && r != -E2BIG && r != -ENOMEM)
		abort();
	if (r != -ENOMEM && (!error || !*error))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json = (const char *)data;
	struct policy_state st = {.pid = -7};
	char *error = NULL;
	int level = -7, r;

	r = policy_parse_memfd_noexec(json, size, &level, &error);
	if (r == 0) {
		if (error || level < -1 || level > 2)
			abort();
	} else {
		check_failure(r, error);
		if (level != -7)
			abort();
	}
	free(error);
	error = NULL;

	r = policy_parse_state(json, size, &st, &error);
	if (r == 0) {
		if (error || st.pid <= 0 || !st.bundle || st.bundle[0] != '/' ||
		    strlen(st.bundle) >= 4096)
			abort();
		policy_state_done(&st);
	} else {
		check_failure(r, error);
		if (st.pid != -7 || st.bundle)
			abort();
	}
	free(error);
	return 0;
}
