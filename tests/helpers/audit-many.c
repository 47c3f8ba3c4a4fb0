/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit-many N [--exec-first] [--close-fds | --unmapped] [--once]
 *
 * Makes N memfds of one page each, of two kinds in turn, and maps each
 * one shared, read and exec:
 *   "audit-many-noexec-I"  MFD_NOEXEC_SEAL: mode 0666, seals 0x20
 *                          (works at every level; mapping it is fine);
 *   "audit-many-exec-I"    MFD_EXEC, chmod 0555, sealed
 *                          SEAL|SHRINK|GROW|WRITE|EXEC: mode 0555, seals
 *                          0x3f (refused at level 2: exit 3).
 * The first is a noexec one, or with --exec-first an exec one, so that a
 * pair (N = 2) comes in either order.  The fds stay open (RLIMIT_NOFILE is
 * raised to fit), unless --close-fds closes them once mapped; --unmapped
 * maps nothing and only holds the fds.  Then it holds, or (--once) exits.
 * A process with N executable memfd mappings, for `memfd-noexec audit`
 * (tests/bats/audit.bats and the timing in its header).  See
 * audit-helper.h for the output protocol.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/resource.h>

#include "audit-helper.h"
#include "parse.h"

static const char name[] = "audit-many";

static void make_one(unsigned i, bool exec, bool map, bool close_fd, long page)
{
	char memfd_name[64];
	int fd;

	snprintf(memfd_name, sizeof(memfd_name), "%s-%s-%u", name, exec ? "exec" : "noexec", i);
	fd = missing_memfd_create(
		memfd_name, MFD_CLOEXEC | (exec ? MFD_ALLOW_SEALING | MFD_EXEC : MFD_NOEXEC_SEAL));
	if (fd < 0)
		helper_refused(name, "memfd_create", errno, EXIT_REFUSED_CREATE);
	if (ftruncate(fd, page) < 0)
		helper_die(name, "Failed to size memfd %u: %m", i);
	if (exec && (fchmod(fd, 0555) < 0 || fcntl(fd, F_ADD_SEALS,
						   F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
							   F_SEAL_WRITE | F_SEAL_EXEC) < 0))
		helper_die(name, "Failed to seal memfd %u: %m", i);
	if (map && mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) == MAP_FAILED)
		helper_refused(name, "mmap", errno, EXIT_REFUSED_EXEC);
	if (close_fd)
		(void)close(fd);
}

int main(int argc, char *argv[])
{
	bool exec_first = false, close_fds = false, map = true, once = false;
	long page = sysconf(_SC_PAGESIZE);
	struct rlimit rl;
	uint64_t n = 0;
	bool have_n = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--exec-first") == 0)
			exec_first = true;
		else if (strcmp(argv[i], "--close-fds") == 0)
			close_fds = true;
		else if (strcmp(argv[i], "--unmapped") == 0)
			map = false;
		else if (strcmp(argv[i], "--once") == 0)
			once = true;
		else if (!have_n && mt_parse_uint(argv[i], 100000, &n, NULL) == 0 && n > 0)
			have_n = true;
		else {
			fprintf(stderr,
				"%s: unknown argument '%s': allowed are N (1 to 100000), --exec-first, --close-fds, --unmapped, --once\n",
				name, argv[i]);
			return 2;
		}
	}
	if (!have_n || (close_fds && !map)) {
		fprintf(stderr, "usage: %s N [--exec-first] [--close-fds | --unmapped] [--once]\n",
			name);
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		helper_die(name, "Failed to read RLIMIT_NOFILE: %m");
	if (!close_fds && rl.rlim_cur < n + 64) {
		rl.rlim_cur = n + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			helper_die(name, "Failed to raise RLIMIT_NOFILE to %ju: %m",
				   (uintmax_t)rl.rlim_cur);
	}
	for (unsigned i = 0; i < n; i++)
		make_one(i, (i % 2 == 0) == exec_first, map, close_fds, page);
	helper_hold(name, once);
}
