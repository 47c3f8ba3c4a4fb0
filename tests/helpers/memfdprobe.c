/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfdprobe: makes one memfd and reports what the kernel gave, so that
 * the bats suites can check vm.memfd_noexec from inside a namespace.
 *
 *   memfdprobe none         memfd_create(MFD_CLOEXEC | MFD_ALLOW_SEALING)
 *   memfdprobe exec         ... | MFD_EXEC
 *   memfdprobe noexec-seal  ... | MFD_NOEXEC_SEAL
 *   memfdprobe hugetlb      ... | MFD_HUGETLB (on hugetlbfs, which ignores F_SEAL_EXEC)
 *   memfdprobe exec-run     MFD_EXEC, copy /bin/true in, seal it, execute it
 *   memfdprobe hugetlb-run  MFD_HUGETLB without an exec flag: a #!/bin/sh script
 *                           written in through mmap (hugetlbfs has no write()),
 *                           chmod 0755, executed (needs a reserved huge page)
 *   memfdprobe level        print vm.memfd_noexec as this task sees it
 *
 * exec-run copies with the memfd writable, then reopens it read-only,
 * since a file open for writing cannot be executed.
 *
 * Prints one line and exits 0 whenever the probe itself worked, whatever
 * the kernel answered:
 *   memfdprobe: flags=exec result=ok mode=0777 seals=0x0 exec_seal=no
 *   memfdprobe: flags=exec result=EACCES
 *   memfdprobe: flags=exec-run result=ok exec=ok
 *   memfdprobe: flags=hugetlb-run result=ok mmap=ENOMEM
 *   memfdprobe: level=2
 * Exits 1 if the probe could not run, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "missing-syscall.h"

extern char **environ;

static const char *errno_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "EUNKNOWN";
}

static int report_fd(const char *mode, int fd)
{
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0) {
		fprintf(stderr, "memfdprobe: Failed to stat the memfd: %m\n");
		return 1;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0) {
		fprintf(stderr, "memfdprobe: Failed to get seals: %m\n");
		return 1;
	}
	printf("memfdprobe: flags=%s result=ok mode=%04o seals=0x%x exec_seal=%s\n", mode,
	       (unsigned)(st.st_mode & 07777), (unsigned)seals,
	       (seals & F_SEAL_EXEC) ? "yes" : "no");
	return 0;
}

/* Executes fd in a child and prints "flags=MODE result=ok exec=..." with
 * what became of it: 0, or 1 if the probe itself failed. */
static int exec_report(const char *mode, int fd, char *const argv[])
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "memfdprobe: Failed to fork: %m\n");
		return 1;
	}
	if (pid == 0) {
		missing_execveat(fd, "", argv, environ, AT_EMPTY_PATH);
		_exit(100 + (errno & 0x7f) % 100);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "memfdprobe: Failed to wait: %m\n");
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		printf("memfdprobe: flags=%s result=ok exec=ok\n", mode);
	else if (WIFEXITED(status) && WEXITSTATUS(status) >= 100)
		printf("memfdprobe: flags=%s result=ok exec=%s\n", mode,
		       errno_name(WEXITSTATUS(status) - 100));
	else
		printf("memfdprobe: flags=%s result=ok exec=status:%d\n", mode, status);
	return 0;
}

/* The hugetlbfs hole of level 2: hugetlbfs ignores F_SEAL_EXEC. */
static int hugetlb_run(void)
{
	static const char script[] = "#!/bin/sh\necho memfdprobe: the hugetlb script ran\nexit 0\n";
	const size_t size = 2 << 20; /* one huge page of the default size here */
	_cleanup_close_ int fd = -EBADF;
	char *const argv[] = {(char *)"memfdprobe-hugetlb", NULL};
	void *p;

	/* No MFD_CLOEXEC: the interpreter opens the script as /dev/fd/N. */
	fd = missing_memfd_create("memfdprobe", MFD_HUGETLB);
	if (fd < 0) {
		printf("memfdprobe: flags=hugetlb-run result=%s\n", errno_name(errno));
		return 0;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		printf("memfdprobe: flags=hugetlb-run result=ok ftruncate=%s\n", errno_name(errno));
		return 0;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("memfdprobe: flags=hugetlb-run result=ok mmap=%s\n", errno_name(errno));
		return 0;
	}
	memcpy(p, script, sizeof(script) - 1);
	(void)munmap(p, size);
	if (fchmod(fd, 0755) < 0) {
		printf("memfdprobe: flags=hugetlb-run result=ok chmod=%s\n", errno_name(errno));
		return 0;
	}
	return exec_report("hugetlb-run", fd, argv);
}

static int exec_run(void)
{
	_cleanup_close_ int fd = -EBADF, src = -EBADF, ro = -EBADF;
	char *const argv[] = {(char *)"true", NULL};
	char path[64];
	struct stat st;
	off_t off = 0;

	fd = missing_memfd_create("memfdprobe", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0) {
		printf("memfdprobe: flags=exec-run result=%s\n", errno_name(errno));
		return 0;
	}
	src = open("/bin/true", O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0) {
		fprintf(stderr, "memfdprobe: Failed to open /bin/true: %m\n");
		return 1;
	}
	while (off < st.st_size) {
		ssize_t n = sendfile(fd, src, &off, (size_t)(st.st_size - off));

		if (n <= 0) {
			fprintf(stderr, "memfdprobe: Failed to copy: %m\n");
			return 1;
		}
	}

	/* A file open for writing cannot be executed (ETXTBSY): keep only a
	 * read-only descriptor. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	if (ro < 0) {
		fprintf(stderr, "memfdprobe: Failed to reopen the memfd: %m\n");
		return 1;
	}
	fd = safe_close(fd);

	return exec_report("exec-run", ro, argv);
}

static int print_level(void)
{
	char buf[16] = {};
	_cleanup_close_ int fd = open("/proc/sys/vm/memfd_noexec", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		printf("memfdprobe: level=%s\n", errno_name(errno));
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0) {
		fprintf(stderr, "memfdprobe: Failed to read the level: %m\n");
		return 1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	printf("memfdprobe: level=%s\n", buf);
	return 0;
}

int main(int argc, char *argv[])
{
	_cleanup_close_ int fd = -EBADF;
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	const char *mode;

	if (argc != 2) {
		fprintf(stderr, "usage: memfdprobe none|exec|noexec-seal|exec-run|level\n");
		return 2;
	}
	mode = argv[1];
	if (strcmp(mode, "exec-run") == 0)
		return exec_run();
	if (strcmp(mode, "hugetlb-run") == 0)
		return hugetlb_run();
	if (strcmp(mode, "level") == 0)
		return print_level();
	if (strcmp(mode, "exec") == 0)
		flags |= MFD_EXEC;
	else if (strcmp(mode, "noexec-seal") == 0)
		flags |= MFD_NOEXEC_SEAL;
	else if (strcmp(mode, "hugetlb") == 0)
		flags |= MFD_HUGETLB;
	else if (strcmp(mode, "none") != 0) {
		fprintf(stderr,
			"memfdprobe: unknown mode '%s': allowed are none, exec, noexec-seal, hugetlb, exec-run, hugetlb-run, level\n",
			mode);
		return 2;
	}

	fd = missing_memfd_create("memfdprobe", flags);
	if (fd < 0) {
		printf("memfdprobe: flags=%s result=%s\n", mode, errno_name(errno));
		return 0;
	}
	return report_fd(mode, fd);
}
