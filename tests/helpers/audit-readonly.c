/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit-readonly [--once]
 *
 * A memfd used as data only: made without an exec flag, one page written
 * and mapped shared read-only, the fd kept open.  Nothing executable, so
 * every level leaves it working.  See audit-helper.h for the protocol.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "audit-helper.h"

static const char name[] = "audit-readonly";

int main(int argc, char *argv[])
{
	long page = sysconf(_SC_PAGESIZE);
	bool once = false;
	void *p;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--once") == 0) {
			once = true;
		} else {
			fprintf(stderr, "%s: unknown argument '%s': allowed is --once\n", name,
				argv[i]);
			return 2;
		}
	}
	fd = missing_memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		helper_refused(name, "memfd_create", errno, EXIT_REFUSED_CREATE);
	if (write(fd, "data", 4) != 4 || ftruncate(fd, page) < 0)
		helper_die(name, "Failed to fill the memfd: %m");
	p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		helper_die(name, "Failed to map the memfd: %m");
	helper_hold(name, once);
}
