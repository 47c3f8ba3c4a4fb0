/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Capability names, read as the runtimes read them.  crun parses each
 * entry with libcap's cap_from_name(); runc 1.1 keeps a table of the exact
 * "CAP_" + upper-case names and ignores the others with a warning.  So
 * what cap_from_name() accepts is everything any of them accepts, and a
 * rule on a capability compares the number it gives.
 */
#include <errno.h>
#include <sys/capability.h>

#include "policy.h"

int policy_capability_value(const char *name)
{
	cap_value_t v;

	if (!name || cap_from_name(name, &v) < 0 || v < 0 || v > 63)
		return -EINVAL;
	return v;
}
