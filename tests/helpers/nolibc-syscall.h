/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nolibc-syscall.h: sys4(), a raw system call with up to four arguments,
 * for the test helpers built without libc (evil-payload, fault-pause).
 * Each keeps its own _start.  Returns the kernel's value (-errno on
 * failure).
 */
#ifndef NOLIBC_SYSCALL_H
#define NOLIBC_SYSCALL_H

#if defined(__x86_64__)
static long sys4(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static long sys4(long nr, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
#else
#error "nolibc-syscall.h: add a syscall stub for this architecture"
#endif

#endif
