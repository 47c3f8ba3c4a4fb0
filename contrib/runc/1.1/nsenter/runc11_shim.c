/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runc11_shim: what runc 1.1 needs of memfd-toolkit beyond the shared
 * runc_loader_shim.c.  runc 1.1's runc init reads its PID namespace's
 * level itself, in the container's process (procfs checked by
 * policy_memfd_noexec_effective()).
 */
#include "runc_memfd_toolkit.h"

int runc_memfd_noexec_effective(void)
{
	return policy_memfd_noexec_effective();
}
