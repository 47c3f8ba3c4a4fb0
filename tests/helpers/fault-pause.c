/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fault-pause: the program that tests/bats/faults.bats runs through
 * sealexec and memfd-noexec while one syscall is made to fail.  It makes
 * no syscall but ppoll(NULL, 0, NULL, NULL), which blocks until a signal
 * kills it: the seccomp filter it inherits cannot break it, and the test
 * inspects it from outside (its /proc/PID/exe, fds and PID namespace),
 * where no filter applies.  A test knows it runs once /proc/PID/syscall
 * shows it blocked in ppoll.
 *
 * Built static without libc (raw syscalls, our own _start), so that no
 * dynamic loader or libc start-up runs under the filter.
 */
#include <asm/errno.h>
#include <asm/unistd.h>

#include "nolibc-syscall.h"

#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n	xor %rbp, %rbp\n	and $-16, %rsp\n	call pause_main\n	hlt\n");
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n_start:\n	bl pause_main\n	brk #0\n");
#else
#error "fault-pause: add _start and a syscall stub for this architecture"
#endif

__attribute__((used, noreturn)) void pause_main(void);

__attribute__((used, noreturn)) void pause_main(void)
{
	/* A failing ppoll (the filter) must not turn into a busy loop
	 * that the test mistakes for a running program: exit instead. */
	for (;;)
		if (sys4(__NR_ppoll, 0, 0, 0, 0) != -EINTR)
			(void)sys4(__NR_exit_group, 125, 0, 0, 0);
}
