/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit-flagless exec|map [--once]
 *
 * memfd_create() without MFD_EXEC or MFD_NOEXEC_SEAL, as programs written
 * before Linux 6.3 do.  At level 0 such a memfd comes out 0777; at 1 and
 * 2 it comes out 0666 with F_SEAL_EXEC.
 *
 *   exec  runc 1.1's clone: MFD_CLOEXEC|MFD_ALLOW_SEALING, copy itself
 *         in, seal SEAL|SHRINK|GROW|WRITE, execveat().  At 1 and 2
 *         execveat() fails with EACCES (exit 4).
 *   map   a JIT's double mapping: MFD_CLOEXEC, one page mapped shared
 *         read-write and shared read-exec; writes "mov $42,%eax; ret"
 *         through the first and calls it through the second (x86-64
 *         only; elsewhere the call is left out).  mmap(PROT_EXEC) of a
 *         memfd does not look at its x bits or F_SEAL_EXEC, so this works
 *         at every level (measured on 6.18); the fd stays open.
 *
 * See audit-helper.h for the output protocol.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "audit-helper.h"

static const char name[] = "audit-flagless";

_noreturn_ static void do_exec(bool once)
{
	char *held_argv[] = {(char *)name, (char *)"--held", NULL, NULL};
	int fd;

	fd = missing_memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		helper_refused(name, "memfd_create", errno, EXIT_REFUSED_CREATE);
	helper_copy_self(name, fd);
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0)
		helper_die(name, "Failed to seal the memfd: %m");
	if (once)
		held_argv[2] = (char *)"--once";
	helper_exec_memfd(name, fd, held_argv);
}

_noreturn_ static void do_map(bool once)
{
	static const unsigned char code[] = {0xb8, 0x2a, 0x00,
					     0x00, 0x00, 0xc3}; /* mov $42,%eax; ret */
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *rw;
	void *rx;
	int fd;

	fd = missing_memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		helper_refused(name, "memfd_create", errno, EXIT_REFUSED_CREATE);
	if (ftruncate(fd, page) < 0)
		helper_die(name, "Failed to size the memfd: %m");
	rw = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (rw == MAP_FAILED)
		helper_die(name, "Failed to map the memfd read-write: %m");
	rx = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (rx == MAP_FAILED)
		helper_refused(name, "mmap", errno, EXIT_REFUSED_EXEC);
	memcpy(rw, code, sizeof(code));
#if defined(__x86_64__)
	if (((int (*)(void))rx)() != 42)
		helper_die(name, "The generated code did not return 42");
#endif
	helper_hold(name, once); /* fd stays open, as a JIT's does */
}

int main(int argc, char *argv[])
{
	bool once = false, held = false;
	const char *mode = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--once") == 0)
			once = true;
		else if (strcmp(argv[i], "--held") == 0)
			held = true;
		else if (!mode && (strcmp(argv[i], "exec") == 0 || strcmp(argv[i], "map") == 0))
			mode = argv[i];
		else
			mode = "";
	}
	if (held) /* the copy, running from the memfd */
		helper_hold(name, once);
	if (!mode || !*mode) {
		fprintf(stderr, "usage: %s exec|map [--once]\n", name);
		return 2;
	}
	if (strcmp(mode, "exec") == 0)
		do_exec(once);
	do_map(once);
}
