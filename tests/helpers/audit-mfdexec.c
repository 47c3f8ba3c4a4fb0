/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit-mfdexec [--no-exec-seal] [--once]
 *
 * Runs itself from a memfd made with MFD_EXEC, the way a 6.3-aware
 * runtime (our loader's memfd-exec method, runc >= 1.2) does: copy, mode
 * 0555, seals SEAL|SHRINK|GROW|WRITE|EXEC (0x3f), execveat().  With
 * --no-exec-seal it seals only SEAL|SHRINK|GROW|WRITE (0xf) and keeps mode
 * 0777, which makes the memfd look exactly like a flagless one made at
 * level 0 (runc 1.1's clone): the kernel records no creation flag.
 *
 * At vm.memfd_noexec=2 memfd_create(MFD_EXEC) fails with EACCES (exit 3);
 * at 0 and 1 it works.  See audit-helper.h for the output protocol.
 */
#define _GNU_SOURCE
#include "audit-helper.h"

static const char name[] = "audit-mfdexec";

int main(int argc, char *argv[])
{
	char *held_argv[] = {(char *)name, (char *)"--held", NULL, NULL};
	bool exec_seal = true, once = false, held = false;
	int fd, seals;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-exec-seal") == 0)
			exec_seal = false;
		else if (strcmp(argv[i], "--once") == 0)
			once = true;
		else if (strcmp(argv[i], "--held") == 0)
			held = true;
		else {
			fprintf(stderr,
				"%s: unknown argument '%s': allowed are --no-exec-seal, --once\n",
				name, argv[i]);
			return 2;
		}
	}
	if (held) /* the copy, running from the memfd */
		helper_hold(name, once);

	fd = missing_memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0)
		helper_refused(name, "memfd_create", errno, EXIT_REFUSED_CREATE);
	helper_copy_self(name, fd);
	seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
	if (exec_seal) {
		/* F_SEAL_EXEC would add the write seals itself (6.3+). */
		if (fchmod(fd, 0555) < 0)
			helper_die(name, "Failed to chmod the memfd: %m");
		seals |= F_SEAL_EXEC;
	}
	if (fcntl(fd, F_ADD_SEALS, seals) < 0)
		helper_die(name, "Failed to seal the memfd: %m");
	if (once)
		held_argv[2] = (char *)"--once";
	helper_exec_memfd(name, fd, held_argv);
}
