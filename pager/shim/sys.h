/* SPDX-License-Identifier: MIT */
/*
 * sys.h - system calls without libc, for the agent process (agent.c).
 *
 * The agent is a process that shares the program's memory (CLONE_VM) but
 * not its threads: it has no thread of libc's making, so no TLS of its
 * own that libc knows of. It must not touch errno, locales or stdio,
 * which live there. These return -errno on failure, as the kernel does,
 * and touch nothing but registers.
 */
#ifndef PGR_SHIM_SYS_H
#define PGR_SHIM_SYS_H

#include <sys/syscall.h>

#if defined(__x86_64__)
static inline long sys6(long n, long a, long b, long c, long d, long e,
			long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long sys6(long n, long a, long b, long c, long d, long e,
			long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#else
#error "the agent's raw system calls are written for x86_64 and aarch64"
#endif

#define sys0(n)			sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a)		sys6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b)		sys6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c)	sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) \
	sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(n, a, b, c, d, e) \
	sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

/* Did a raw call fail? (-4095..-1 are errors.) */
static inline int sys_err(long r)
{
	return r < 0 && r > -4096 ? (int)-r : 0;
}

#endif /* PGR_SHIM_SYS_H */
