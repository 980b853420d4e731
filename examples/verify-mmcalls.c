/* SPDX-License-Identifier: MIT */
/*
 * verify-mmcalls.c - verify's tour of the memory system's interface
 * (docs/mm-interface.md): each mmap flag, madvise advice and mm system
 * call a program can use, on a buffer larger than the budget, each
 * printing one line of what it saw. Run natively and under the pager,
 * the lines must be the same (tests/files.sh); a line holds nothing
 * that differs between runs (addresses, timings). A word read wrong is
 * counted as everywhere in verify.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif
#ifndef MADV_COLD
#define MADV_COLD		20
#define MADV_PAGEOUT		21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise	440
#endif
#ifndef SYS_memfd_secret
#define SYS_memfd_secret	447
#endif

static unsigned long wrong;

static const char *err_name(int r)
{
	return r ? strerror(errno) : "ok";
}

/* Pages not resident of [p, p + pages * PAGE). */
static size_t absent(const char *p, size_t pages)
{
	unsigned char v[1024];
	size_t n = 0;

	for (size_t from = 0; from < pages; from += sizeof(v)) {
		size_t k = pages - from < sizeof(v) ? pages - from : sizeof(v);

		if (mincore((void *)(p + from * PAGE), k * PAGE, v))
			return (size_t)-1;
		for (size_t j = 0; j < k; j++)
			n += !(v[j] & 1);
	}
	return n;
}

/* Pages of [p, +pages) that are not all zero. */
static size_t nonzero(const char *p, size_t pages)
{
	size_t n = 0;

	for (size_t pg = 0; pg < pages; pg++) {
		const uint64_t *w = (const uint64_t *)(p + pg * PAGE);

		for (size_t k = 0; k < WORDS; k++)
			if (w[k]) {
				n++;
				break;
			}
	}
	return n;
}

/* The signal a child touching @p got (0: none). */
static int child_touch(volatile char *p, bool write)
{
	pid_t c = fork();
	int st;

	if (!c) {
		if (write)
			*p = 1;
		_exit(*p == 0 ? 0 : 3);
	}
	if (c < 0 || waitpid(c, &st, 0) != c)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) ? 100 : 0;
}

/* Evict: write a buffer larger than the budget, twice. */
static void churn(char *big, size_t pages)
{
	fill(big, 50, 0, pages, 1);
	wrong += check("mmcalls (churn)", big, 50, 0, pages, 1);
}

void t_mmcalls(void)
{
	size_t pages = mb << 20 >> 12, small = 256;
	char *big = map(pages * PAGE), *p, *q;
	int r;

	/* mmap flags */
	p = mmap(NULL, small * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	printf("mmap MAP_POPULATE: absent %zu, nonzero %zu\n",
	       absent(p, small), nonzero(p, small));
	q = mmap(p, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED_NOREPLACE, -1, 0);
	printf("mmap MAP_FIXED_NOREPLACE over a mapping: %s\n",
	       q == MAP_FAILED ? strerror(errno) : "mapped");
	munmap(p, small * PAGE);
	p = mmap(NULL, small * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	printf("mmap MAP_LOCKED: absent %zu\n", absent(p, small));
	fill(p, 51, 0, small, 1);
	churn(big, pages);
	printf("mmap MAP_LOCKED after pressure: absent %zu\n",
	       absent(p, small));
	wrong += check("mmcalls (locked)", p, 51, 0, small, 1);
	munmap(p, small * PAGE);
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	fill(p, 52, 0, pages, 1);
	churn(big, pages);
	wrong += check("mmcalls (noreserve)", p, 52, 0, pages, 1);
	printf("mmap MAP_NORESERVE: read back\n");
	munmap(p, pages * PAGE);
	p = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	printf("mmap MAP_HUGETLB: %s\n", p == MAP_FAILED ? strerror(errno) :
	       "mapped");
	if (p != MAP_FAILED)
		munmap(p, 2 << 20);

	/* madvise */
	p = map(small * PAGE);
	fill(p, 53, 0, small, 1);
	r = madvise(p, small * PAGE, MADV_FREE);
	churn(big, pages);
	{
		size_t kept = 0, bad = 0;

		for (size_t pg = 0; pg < small; pg++) {
			const uint64_t *w = (const uint64_t *)(p + pg * PAGE);

			if (!nonzero(p + pg * PAGE, 1))
				continue;
			kept++;
			bad += check_page("mmcalls (free)", w, 53, pg, 1) != 0;
		}
		/* Kept or zeros, each page whole: how many were dropped
		 * is the reclaim's (not printed). */
		printf("madvise MADV_FREE: %s, pages torn %zu\n", err_name(r),
		       bad);
		(void)kept;
	}
	fill(p, 53, 0, small, 2);
	r = madvise(p, small * PAGE, MADV_COLD);
	printf("madvise MADV_COLD: %s\n", err_name(r));
	r = madvise(p, small * PAGE, MADV_PAGEOUT);
	printf("madvise MADV_PAGEOUT: %s\n", err_name(r));
	wrong += check("mmcalls (cold, pageout)", p, 53, 0, small, 2);
	r = madvise(p, small * PAGE, MADV_DONTFORK);
	printf("madvise MADV_DONTFORK: %s, child's touch: signal %d\n",
	       err_name(r), child_touch(p, false));
	madvise(p, small * PAGE, MADV_DOFORK);
	churn(big, pages);
	r = madvise(p, small * PAGE, MADV_WIPEONFORK);
	{
		pid_t c = fork();
		int st = 0;

		if (!c)
			_exit(nonzero(p, small) ? 1 : 0);
		waitpid(c, &st, 0);
		printf("madvise MADV_WIPEONFORK: %s, child reads %s\n",
		       err_name(r), WIFEXITED(st) && !WEXITSTATUS(st) ?
		       "zeros" : "old bytes");
	}
	madvise(p, small * PAGE, MADV_KEEPONFORK);
	wrong += check("mmcalls (wipeonfork)", p, 53, 0, small, 2);
	r = madvise(p, small * PAGE, MADV_HUGEPAGE);
	printf("madvise MADV_HUGEPAGE: %s\n", err_name(r));
	(void)madvise(p, small * PAGE, MADV_COLLAPSE);
	wrong += check("mmcalls (collapse)", p, 53, 0, small, 2);
	printf("madvise MADV_COLLAPSE: bytes kept\n");
	madvise(p, small * PAGE, MADV_NOHUGEPAGE);
	munmap(p, small * PAGE);
	p = map(small * PAGE);
	r = madvise(p, small * PAGE, MADV_POPULATE_WRITE);
	printf("madvise MADV_POPULATE_WRITE: %s, absent %zu, nonzero %zu\n",
	       err_name(r), absent(p, small), nonzero(p, small));
	fill(p, 54, 0, small, 1);
	churn(big, pages);
	r = madvise(p, small * PAGE, MADV_POPULATE_READ);
	printf("madvise MADV_POPULATE_READ: %s\n", err_name(r));
	wrong += check("mmcalls (populate)", p, 54, 0, small, 1);

	/* other mm calls on evicted pages */
	churn(big, pages);
	{
		int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		struct iovec v = { p, small * PAGE };

		r = (int)syscall(SYS_process_madvise, pidfd, &v, 1,
				 MADV_PAGEOUT, 0);
		printf("process_madvise MADV_PAGEOUT: %s\n",
		       r < 0 ? strerror(errno) : "ok");
		close(pidfd);
		wrong += check("mmcalls (process_madvise)", p, 54, 0, small,
			       1);
	}
	churn(big, pages);
	{
		char *out = malloc(small * PAGE);
		struct iovec l = { out, small * PAGE }, rv = { p, small * PAGE };
		ssize_t got = process_vm_readv(getpid(), &l, 1, &rv, 1, 0);

		printf("process_vm_readv of evicted pages: %zd bytes\n", got);
		wrong += check("mmcalls (process_vm_readv)", out, 54, 0,
			       small, 1);
		churn(big, pages);
		int fd = open("/proc/self/mem", O_RDONLY);

		got = pread(fd, out, small * PAGE, (off_t)(uintptr_t)p);
		printf("/proc/self/mem of evicted pages: %zd bytes\n", got);
		wrong += check("mmcalls (/proc/self/mem)", out, 54, 0, small,
			       1);
		close(fd);
		free(out);
	}
	r = mprotect(p, small * PAGE, PROT_READ);
	churn(big, pages);
	wrong += check("mmcalls (mprotect)", p, 54, 0, small, 1);
	printf("mprotect PROT_READ: %s, child's write: signal %d\n",
	       err_name(r), child_touch(p, true));
	mprotect(p, small * PAGE, PROT_READ | PROT_WRITE);
	{
		int key = (int)syscall(SYS_pkey_alloc, 0, 0);

		printf("pkey_alloc: %s\n", key < 0 ? strerror(errno) : "ok");
		if (key >= 0) {
			r = (int)syscall(SYS_pkey_mprotect, p, small * PAGE,
					 PROT_READ | PROT_WRITE, key);
			printf("pkey_mprotect: %s\n", err_name(r));
			churn(big, pages);
			wrong += check("mmcalls (pkey)", p, 54, 0, small, 1);
			syscall(SYS_pkey_free, key);
		}
	}
	r = (int)syscall(SYS_memfd_secret, 0);
	printf("memfd_secret: %s\n", r < 0 ? strerror(errno) : "ok");
	if (r >= 0)
		close(r);
	{
		pid_t c = vfork();
		int st;

		if (!c)
			_exit(p[0] == 0 ? 1 : 0);
		waitpid(c, &st, 0);
		printf("vfork: child exit %d\n", WEXITSTATUS(st));
	}
	munmap(p, small * PAGE);
	munmap(big, pages * PAGE);
	result("mmcalls", wrong);
}
