/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evil-payload: the program that evilfs serves in place of the bytes the
 * loader wrote, once the loader has made its copy read-only.  It prints
 * "PWNED uid=<uid>" and, when EVILFS_MARKER names a path, creates that
 * file with the same line, so that a test can tell whether it ever ran.
 * It exits 0, as a quiet attacker would.
 *
 * Built static without libc (raw syscalls, our own _start) so that it is a
 * few KiB: the loader checks the copy's size, so the payload must fit
 * inside the program it replaces; evilfs pads it with zeros.
 */
#define _GNU_SOURCE
#include <asm/unistd.h>

#include "nolibc-syscall.h"
#include <fcntl.h>

#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n	xor %rbp, %rbp\n	mov %rsp, %rdi\n	and $-16, %rsp\n	call payload_main\n	hlt\n");
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n_start:\n	mov x0, sp\n	bl payload_main\n	brk #0\n");
#else
#error "evil-payload: add _start and a syscall stub for this architecture"
#endif

static const char marker_var[] = "EVILFS_MARKER=";

/* "PWNED uid=<uid>\n" into buf; returns its length. */
static long format_line(char *buf, unsigned long uid)
{
	static const char prefix[] = "PWNED uid=";
	char digits[24];
	long n = 0, d = 0;

	for (unsigned long i = 0; i < sizeof(prefix) - 1; i++)
		buf[n++] = prefix[i];
	do {
		digits[d++] = (char)('0' + uid % 10);
		uid /= 10;
	} while (uid);
	while (d)
		buf[n++] = digits[--d];
	buf[n++] = '\n';
	return n;
}

static const char *find_marker(char **envp)
{
	for (; *envp; envp++) {
		unsigned long i = 0;

		while (marker_var[i] && (*envp)[i] == marker_var[i])
			i++;
		if (!marker_var[i])
			return *envp + i;
	}
	return 0;
}

__attribute__((used, noreturn)) void payload_main(long *sp);

__attribute__((used, noreturn)) void payload_main(long *sp)
{
	long argc = sp[0];
	char **envp = (char **)(sp + argc + 2);
	const char *marker = find_marker(envp);
	char line[48];
	long uid = sys4(__NR_getuid, 0, 0, 0, 0);
	long n = format_line(line, (unsigned long)uid);

	(void)sys4(__NR_write, 1, (long)line, n, 0);
	if (marker && *marker) {
		long fd = sys4(__NR_openat, AT_FDCWD, (long)marker,
			       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd >= 0)
			(void)sys4(__NR_write, fd, (long)line, n, 0);
	}
	for (;;)
		(void)sys4(__NR_exit_group, 0, 0, 0, 0);
}
