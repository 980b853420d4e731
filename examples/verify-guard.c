/* SPDX-License-Identifier: MIT */
/*
 * verify-guard.c - verify's test of guard regions (MADV_GUARD_INSTALL,
 * 6.13): a buffer larger than the budget, every eighth page guarded
 * whether it is resident or evicted; a child touching one dies of
 * SIGSEGV, the other pages keep their bytes, and once the guards are
 * removed the guarded pages read zeros, as natively, and take writes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify.h"

#define GUARD_INSTALL	102
#define GUARD_REMOVE	103
#define EVERY		8

/* madvise by the syscall instruction itself: neither libc nor the
 * shim sees it (pager run's seccomp filter does). */
static long raw_madvise(void *addr, size_t len, long advice)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_madvise), "D"(addr), "S"(len),
			   "d"(advice)
			 : "rcx", "r11", "memory");
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return 0;
#else
	return syscall(SYS_madvise, addr, len, advice);
#endif
}

/* The signal that ended a child touching @p (0: none). */
static int touch_in_child(volatile char *p, bool write)
{
	pid_t c = fork();
	int st;

	if (c < 0) {
		perror("verify: fork");
		exit(1);
	}
	if (!c) {
		if (write)
			*p = 1;
		else
			(void)*p;
		_exit(0);
	}
	if (waitpid(c, &st, 0) != c)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

void t_guard(void)
{
	size_t pages = mb << 20 >> 12;
	char *buf = map(pages * PAGE);
	unsigned long n = 0;
	int sig;

	fill(buf, 11, 0, pages, 1);
	if (madvise(buf, pages * PAGE, MADV_NORMAL)) {
		perror("verify: madvise");
		exit(1);
	}
	/* A third through libc, a third through syscall(2), a third by
	 * the instruction itself. */
	for (size_t pg = 0; pg < pages; pg += EVERY)
		if (pg / EVERY % 3 == 0 ?
		    madvise(buf + pg * PAGE, PAGE, GUARD_INSTALL) :
		    pg / EVERY % 3 == 1 ?
		    syscall(SYS_madvise, buf + pg * PAGE, PAGE, GUARD_INSTALL) :
		    raw_madvise(buf + pg * PAGE, PAGE, GUARD_INSTALL)) {
			printf("verify: guard: MADV_GUARD_INSTALL: %s\n",
			       strerror(errno));
			exit(1);
		}
	for (size_t pg = 0; pg < pages; pg += pages / 4) {
		sig = touch_in_child(buf + pg * PAGE, pg % 2);
		if (sig != SIGSEGV) {
			printf("verify: guard: a touch of guarded page %zu "
			       "ended with signal %d, want SIGSEGV\n", pg, sig);
			n++;
		}
	}
	for (size_t pg = 0; pg < pages; pg++)
		if (pg % EVERY)
			n += check_page("guard (unguarded)",
					(uint64_t *)(buf + pg * PAGE), 11, pg, 1);
	if (madvise(buf, pages * PAGE, GUARD_REMOVE)) {
		printf("verify: guard: MADV_GUARD_REMOVE: %s\n",
		       strerror(errno));
		exit(1);
	}
	for (size_t pg = 0; pg < pages; pg++)
		n += check_page("guard (removed)", (uint64_t *)(buf + pg * PAGE),
				11, pg, pg % EVERY ? 1 : 0);
	if (touch_in_child(buf, true))
		n++;
	for (size_t pg = 0; pg < pages; pg += EVERY)
		fill_page((uint64_t *)(buf + pg * PAGE), 11, pg, 2);
	for (size_t pg = 0; pg < pages; pg++)
		n += check_page("guard (written)", (uint64_t *)(buf + pg * PAGE),
				11, pg, pg % EVERY ? 1 : 2);
	munmap(buf, pages * PAGE);
	result("guard", n);
}
