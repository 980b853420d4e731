/* SPDX-License-Identifier: MIT */
/*
 * verify-mlock.c - verify's test of mlock: a walk of /proc/self/maps
 * that mlocks and munlocks every mapping, round after round (it once
 * hung under the pager: the agent's scratch was locked too, and its
 * faults had no one to answer them); then an eighth of a buffer larger
 * than the budget locked by mlock, a small range by mlock2(ONFAULT),
 * another by mlockall(MCL_FUTURE), each resident (mincore) and intact
 * while the rest is written over and over, a shared file mapping
 * locked the same way, and everything intact once unlocked and written
 * again.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "verify.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT	1
#endif
#define SMALL	256		/* pages of the ONFAULT and FUTURE ranges */

/* mlock then munlock every mapping of /proc/self/maps, @rounds times;
 * a refusal (the vsyscall page, a PROT_NONE guard) is as natively. */
static void lock_every_mapping(int rounds)
{
	for (int k = 0; k < rounds; k++) {
		FILE *f = fopen("/proc/self/maps", "r");
		char line[512];

		if (!f) {
			perror("verify: /proc/self/maps");
			exit(1);
		}
		while (fgets(line, sizeof(line), f)) {
			unsigned long a, b;

			if (sscanf(line, "%lx-%lx", &a, &b) != 2)
				continue;
			(void)mlock((void *)a, b - a);
			(void)munlock((void *)a, b - a);
		}
		fclose(f);
	}
}

/* Pages of [p, p + pages * PAGE) not resident. */
static size_t not_resident(const char *p, size_t pages)
{
	unsigned char vec[SMALL * 8];
	size_t out = 0;

	for (size_t from = 0; from < pages; from += sizeof(vec)) {
		size_t n = pages - from < sizeof(vec) ? pages - from :
							 sizeof(vec);

		if (mincore((void *)(p + from * PAGE), n * PAGE, vec)) {
			perror("verify: mincore");
			exit(1);
		}
		for (size_t k = 0; k < n; k++)
			out += !(vec[k] & 1);
	}
	return out;
}

static void must(int r, const char *what)
{
	if (r) {
		printf("verify: mlock: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

/* Write generation @gen over buf's pages outside [lo, hi), twice, and
 * check them; the pages in [lo, hi) must stay resident meanwhile. */
static unsigned long churn(char *buf, size_t pages, size_t lo, size_t hi,
			   uint64_t gen, const char *locked, size_t nlocked)
{
	unsigned long n = 0;

	for (int k = 0; k < 2; k++) {
		fill(buf, 21, 0, lo, gen);
		fill(buf, 21, hi, pages, gen);
		n += check("mlock (unlocked)", buf, 21, 0, lo, gen);
		n += check("mlock (unlocked)", buf, 21, hi, pages, gen);
		if (locked && not_resident(locked, nlocked)) {
			printf("verify: mlock: %zu locked pages not "
			       "resident\n", not_resident(locked, nlocked));
			n++;
		}
	}
	return n;
}

void t_mlock(void)
{
	size_t pages = mb << 20 >> 12, lo = pages / 4, hi = lo + pages / 8;
	unsigned long n = 0;
	char *buf, *small;

	/* Before the buffer: locked, it would not fit in a budget below
	 * it, natively either. */
	lock_every_mapping(20);
	buf = map(pages * PAGE);
	fill(buf, 21, 0, pages, 1);

	/* mlock: an eighth, resident while the rest is churned. */
	must(mlock(buf + lo * PAGE, (hi - lo) * PAGE), "mlock");
	if (not_resident(buf + lo * PAGE, hi - lo))
		n++;
	n += churn(buf, pages, lo, hi, 2, buf + lo * PAGE, hi - lo);
	n += check("mlock (locked)", buf, 21, lo, hi, 1);
	must(munlock(buf + lo * PAGE, (hi - lo) * PAGE), "munlock");
	n += churn(buf, pages, 0, 0, 3, NULL, 0);

	/* mlock2(MLOCK_ONFAULT): only the pages touched come in, and stay. */
	small = map(SMALL * PAGE);
	must((int)syscall(SYS_mlock2, small, SMALL * PAGE, MLOCK_ONFAULT),
	     "mlock2");
	fill(small, 22, 0, SMALL / 2, 1);
	if (not_resident(small, SMALL) != SMALL - SMALL / 2) {
		printf("verify: mlock: ONFAULT: %zu pages not resident, "
		       "want %d\n", not_resident(small, SMALL), SMALL / 2);
		n++;
	}
	n += churn(buf, pages, 0, 0, 4, small, SMALL / 2);
	n += check("mlock (onfault)", small, 22, 0, SMALL / 2, 1);
	n += check("mlock (onfault)", small, 22, SMALL / 2, SMALL, 0);
	must(munlock(small, SMALL * PAGE), "munlock");
	munmap(small, SMALL * PAGE);

	/* mlockall(MCL_FUTURE): a mapping made after it is locked. */
	must(mlockall(MCL_FUTURE), "mlockall");
	small = map(SMALL * PAGE);
	fill(small, 23, 0, SMALL, 1);
	n += churn(buf, pages, 0, 0, 5, small, SMALL);
	n += check("mlock (future)", small, 23, 0, SMALL, 1);
	must(munlockall(), "munlockall");
	n += churn(buf, pages, 0, 0, 6, NULL, 0);
	n += check("mlock (future)", small, 23, 0, SMALL, 1);
	munmap(small, SMALL * PAGE);

	/* A shared file mapping, locked: its pages stay, unwritten ones
	 * and one written through the mapping. */
	int fd = open_file(4 * SMALL * PAGE, true);
	char *f;

	write_file(fd, 24, 4 * SMALL);
	f = map_file(fd, 4 * SMALL * PAGE, MAP_SHARED);
	must(mlock(f, 4 * SMALL * PAGE), "mlock of a file mapping");
	fill_page((uint64_t *)f, 24, 0, 2);
	n += churn(buf, pages, 0, 0, 7, NULL, 0);
	n += check_mapped("mlock (file)", f, 24, 0, 1, NULL, 2);
	n += check_mapped("mlock (file)", f, 24, 1, 4 * SMALL, NULL, 1);
	must(munlock(f, 4 * SMALL * PAGE), "munlock of a file mapping");
	n += churn(buf, pages, 0, 0, 8, NULL, 0);
	n += check_mapped("mlock (file)", f, 24, 1, 4 * SMALL, NULL, 1);
	munmap(f, 4 * SMALL * PAGE);
	close(fd);
	unlink(file_path);
	n += check("mlock (after)", buf, 21, 0, pages, 8);
	munmap(buf, pages * PAGE);
	result("mlock", n);
}
