/* SPDX-License-Identifier: Apache-2.0 */
/*
 * selfcheck: run through sealexec (or a patched runtime), inspect our own
 * /proc/self/exe and fail unless it is a sealed clone that nothing can
 * write to.  Deliberately independent of the cloned_binary library: it
 * checks the kernel's view, not the library's opinion.
 *
 *   selfcheck [--expect-method=overlay|memfd-exec|memfd|tmpfile]
 *             [--expect-seals=HEX] [--expect-same=FILE] [--allow-fd=N]...
 *             [--strict-fds] [--hold]
 *
 * --expect-same: our running image must be byte for byte FILE (the program
 * the copy was made from): a short or torn copy fails.
 *
 * Prints "selfcheck: seals=0x.. mode=0... nlink=N method=M" and one
 * "selfcheck: FAIL <reason>" line per failed check; exit 0 or 1.
 * --hold prints "selfcheck: ready pid=N" and waits until stdin closes, so
 * that another process can attack /proc/<pid>/exe meanwhile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "macro.h"
#include "missing-syscall.h"

static int failures;

#define FAIL(...)                                       \
	do {                                            \
		printf("selfcheck: FAIL " __VA_ARGS__); \
		putchar('\n');                          \
		failures++;                             \
	} while (0)

/*
 * The loader's copy must not reach us as an fd: any fd that refers to the
 * same inode as /proc/self/exe, or to a file named like the loader's
 * copies, is a leak.  With strict, every fd above 2 that was not allowed
 * counts (for callers that close everything else first).
 */
static void check_no_leaked_fds(const struct stat *exe, bool strict, const int *allowed,
				size_t n_allowed)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d) {
		FAIL("opendir /proc/self/fd: %m");
		return;
	}
	while ((de = readdir(d))) {
		char path[64], target[256] = "?";
		struct stat st;
		bool ok = false;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd <= 2 || fd == dirfd(d))
			continue;
		for (size_t i = 0; i < n_allowed; i++)
			ok |= allowed[i] == fd;
		if (ok)
			continue;
		(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		(void)!readlink(path, target, sizeof(target) - 1);
		if (fstat(fd, &st) == 0 && st.st_dev == exe->st_dev && st.st_ino == exe->st_ino)
			FAIL("leaked fd %d -> %s is our own image", fd, target);
		else if (strstr(target, "cloned_binary"))
			FAIL("leaked fd %d -> %s is a loader copy", fd, target);
		else if (strict)
			FAIL("leaked fd %d -> %s", fd, target);
	}
	closedir(d);
}

/* A read-only overlayfs that no mount of ours shows: the overlay method. */
static bool on_detached_overlay(int fd)
{
	char path[64], buf[512], line[4096];
	struct statfs sfs;
	const char *p;
	FILE *f;
	int info, id, first, w;
	ssize_t n;
	bool attached = false;

	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != 0x794c7630 || !(sfs.f_flags & ST_RDONLY))
		return false;
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	w = open(path, O_WRONLY | O_CLOEXEC);
	if (w >= 0 || errno != EROFS) {
		if (w >= 0)
			close(w);
		return false;
	}
	(void)snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	n = info < 0 ? -1 : read(info, buf, sizeof(buf) - 1);
	if (info >= 0)
		close(info);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strstr(buf, "mnt_id:");
	if (!p)
		return false;
	id = atoi(p + 7);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d", &first) == 1 && first == id)
			attached = true;
	fclose(f);
	return !attached;
}

/* expect_same: our image is byte for byte the file at path. */
static void expect_same(int fd, const char *path)
{
	char a[65536], b[65536];
	int orig = open(path, O_RDONLY | O_CLOEXEC);
	off_t off = 0;

	if (orig < 0) {
		FAIL("open %s: %m", path);
		return;
	}
	for (;;) {
		ssize_t n = pread(fd, a, sizeof(a), off);
		ssize_t m = pread(orig, b, sizeof(b), off);

		if (n < 0 || m < 0 || n != m || memcmp(a, b, (size_t)n) != 0) {
			FAIL("our image differs from %s at offset %lld", path, (long long)off);
			break;
		}
		if (n == 0)
			break;
		off += n;
	}
	close(orig);
}

/* fail_open_write: opening our own image for writing must be refused. */
static void fail_open_write(const char *path, int flags, const char *what)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0) {
		FAIL("%s of %s succeeded", what, path);
		close(fd);
	}
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {{"expect-method", required_argument, NULL, 'm'},
						{"expect-seals", required_argument, NULL, 's'},
						{"expect-same", required_argument, NULL, 'c'},
						{"allow-fd", required_argument, NULL, 'a'},
						{"hold", no_argument, NULL, 'H'},
						{"strict-fds", no_argument, NULL, 'S'},
						{}};
	const char *expect_method = NULL, *expect_file = NULL, *method;
	unsigned long expect_seals = 0;
	int allowed[16];
	size_t n_allowed = 0;
	bool hold = false, strict = false;
	struct stat exe_st;
	char link[256] = "";
	struct stat st;
	int c, fd, seals;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'm':
			expect_method = optarg;
			break;
		case 's':
			expect_seals = strtoul(optarg, NULL, 16);
			break;
		case 'c':
			expect_file = optarg;
			break;
		case 'a':
			if (n_allowed < ELEMENTSOF(allowed))
				allowed[n_allowed++] = atoi(optarg);
			break;
		case 'H':
			hold = true;
			break;
		case 'S':
			strict = true;
			break;
		default:
			fprintf(stderr, "selfcheck: bad usage\n");
			return 2;
		}
	}

	/* First, before we open anything ourselves. */
	if (stat("/proc/self/exe", &exe_st) < 0) {
		FAIL("stat /proc/self/exe: %m");
		return 1;
	}
	check_no_leaked_fds(&exe_st, strict, allowed, n_allowed);

	(void)!readlink("/proc/self/exe", link, sizeof(link) - 1);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		FAIL("open /proc/self/exe: %m");
		return 1;
	}
	seals = fcntl(fd, F_GET_SEALS);

	if (seals >= 0 && (seals & 0xf) == 0xf)
		method = (seals & F_SEAL_EXEC) ? "memfd-exec" : "memfd";
	else if (on_detached_overlay(fd))
		method = "overlay";
	else if (st.st_nlink == 0 && (st.st_mode & 0222) == 0)
		method = "tmpfile";
	else
		method = "none";

	printf("selfcheck: exe=%s seals=0x%x mode=0%o nlink=%lu method=%s\n", link,
	       seals < 0 ? 0 : seals, (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink,
	       method);

	if (strcmp(method, "none") == 0)
		FAIL("not a sealed clone (seals=%d nlink=%lu mode=0%o)", seals,
		     (unsigned long)st.st_nlink, (unsigned)(st.st_mode & 07777));
	if (expect_method) {
		const char *want =
			strcmp(expect_method, "mkostemp") == 0 ? "tmpfile" : expect_method;
		if (strcmp(want, method) != 0)
			FAIL("method is %s, expected %s", method, expect_method);
	}
	if (expect_seals && (seals < 0 || ((unsigned long)seals & expect_seals) != expect_seals))
		FAIL("seals 0x%x lack 0x%lx", seals < 0 ? 0 : seals, expect_seals);
	if ((st.st_mode & 0111) == 0)
		FAIL("mode 0%o has no x bits", (unsigned)(st.st_mode & 07777));
	/* The overlay is mounted read-only, nosuid and nodev: a set-uid or
	 * device file in the binary's directory is inert through it. */
	if (strcmp(method, "overlay") == 0) {
		struct statvfs v;
		const unsigned long need = ST_RDONLY | ST_NOSUID | ST_NODEV;

		if (fstatvfs(fd, &v) < 0)
			FAIL("fstatvfs: %m");
		else if ((v.f_flag & need) != need)
			FAIL("the overlay's mount flags 0x%lx lack ro, nosuid or nodev (0x%lx)",
			     v.f_flag, need);
		else
			printf("selfcheck: overlay mount ro,nosuid,nodev\n");
	}
	if (expect_file)
		expect_same(fd, expect_file);

	/* Writes through every path we have. */
	fail_open_write("/proc/self/exe", O_WRONLY, "open(O_WRONLY)");
	fail_open_write("/proc/self/exe", O_RDWR, "open(O_RDWR)");
	fail_open_write("/proc/self/exe", O_WRONLY | O_APPEND, "open(O_APPEND)");
	if (truncate("/proc/self/exe", 0) == 0)
		FAIL("truncate of /proc/self/exe succeeded");
	if (write(fd, "x", 1) >= 0)
		FAIL("write to /proc/self/exe succeeded");
	if (ftruncate(fd, 0) == 0)
		FAIL("ftruncate of /proc/self/exe succeeded");
	{
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			FAIL("shared writable mmap of /proc/self/exe succeeded");
			munmap(p, 4096);
		}
	}

	/* x bits: sealed with F_SEAL_EXEC they cannot change at all.
	 * Otherwise a change must still not make the image writable. */
	if (seals >= 0 && (seals & F_SEAL_EXEC)) {
		mode_t mode = st.st_mode & 07777;

		if (chmod("/proc/self/exe", mode & ~0111) == 0)
			FAIL("chmod clearing x bits succeeded despite F_SEAL_EXEC");
		if (chmod("/proc/self/exe", mode ^ 0001) == 0)
			FAIL("chmod flipping o+x succeeded despite F_SEAL_EXEC");
	} else if (chmod("/proc/self/exe", 0777) == 0) {
		printf("selfcheck: note: chmod allowed (no F_SEAL_EXEC with %s)\n", method);
		fail_open_write("/proc/self/exe", O_RDWR, "open(O_RDWR) after chmod 0777");
		(void)chmod("/proc/self/exe", st.st_mode & 07777);
	}

	close(fd);

	if (hold) {
		char buf[64];

		printf("selfcheck: ready pid=%d\n", (int)getpid());
		fflush(stdout);
		while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
			;
	}

	printf("selfcheck: %s (%d failures)\n", failures ? "FAILED" : "ok", failures);
	return failures ? 1 : 0;
}
