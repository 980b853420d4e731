/* SPDX-License-Identifier: MIT */
/*
 * verify-private.c - verify's tests of private file mappings: the pages a
 * process writes become its own (copy-on-write), whatever reclaim does to
 * the file's pages meanwhile, and the file never sees them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verify.h"

void t_fprivate(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true);
	unsigned long n = 0;
	char *buf;

	write_file(fd, 3, pages);
	buf = map_file(fd, pages * PAGE, MAP_PRIVATE);
	n += check("fprivate", buf, 3, 0, pages, 1);
	for (size_t pg = 0; pg < pages; pg += 2)
		fill_page((uint64_t *)(buf + pg * PAGE), 3, pg, 2);
	for (int round = 0; round < 2; round++)
		for (size_t pg = 0; pg < pages; pg++)
			n += check_page("fprivate", (uint64_t *)(buf + pg * PAGE),
					3, pg, pg % 2 ? 1 : 2);
	munmap(buf, pages * PAGE);
	n += check_file("fprivate (file unchanged)", fd, 3, 0, pages, 1, NULL,
			1);
	close(fd);
	unlink(file_path);
	result("fprivate", n);
}

/*
 * Copy-on-write of the page reclaim takes next: a private mapping read
 * through, then its pages still mapped (the newest, as pagemap shows
 * them; natively all) written oldest first, with HEAP_PER_COW pages of
 * a heap touched for each, so that reclaim runs through the cached
 * pages into the mapped ones while they are copied: the memory for a
 * copy is made by clearing the young bit of the page being copied. Every
 * page must then read what was written to it, the rest the file. The
 * moment is a race: before the fix in file-fault.c's cow(), one run in
 * six of these four rounds (--mb 16 in 8M) lost a written page.
 */
#define HEAP_PER_COW	8
#define COW_ROUNDS	4

static void mapped_pages(const char *buf, size_t pages, unsigned char *out)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);

	for (size_t pg = 0; pg < pages; pg++) {
		uint64_t e = 1ULL << 63;	/* unknown: all of them */
		off_t at = (off_t)(((uintptr_t)buf / PAGE + pg) * sizeof(e));

		if (pm >= 0 && pread(pm, &e, sizeof(e), at) != sizeof(e))
			e = 1ULL << 63;
		out[pg] = (unsigned char)(e >> 63);
	}
	if (pm >= 0)
		close(pm);
}

void t_fcow(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true);
	unsigned char *mapped = malloc(pages);
	uint64_t *gens = malloc(pages * sizeof(*gens));
	unsigned long n = 0;

	if (!mapped || !gens) {
		perror("verify: fcow");
		exit(1);
	}
	write_file(fd, 12, pages);
	for (uint64_t round = 1; round <= COW_ROUNDS; round++) {
		char *heap = map(pages * HEAP_PER_COW * PAGE);
		char *buf = map_file(fd, pages * PAGE, MAP_PRIVATE);
		size_t h = 0;

		n += check("fcow", buf, 12, 0, pages, 1);
		mapped_pages(buf, pages, mapped);
		for (size_t pg = 0; pg < pages; pg++) {
			gens[pg] = 1;
			if (!mapped[pg])
				continue;
			fill_page((uint64_t *)(buf + pg * PAGE), 12, pg,
				  round + 1);
			gens[pg] = round + 1;
			for (size_t k = 0; k < HEAP_PER_COW; k++, h++)
				fill_page((uint64_t *)(heap + h * PAGE), 13, h,
					  round);
		}
		for (int pass = 0; pass < 2; pass++)
			for (size_t pg = 0; pg < pages; pg++)
				n += check_page("fcow",
						(uint64_t *)(buf + pg * PAGE),
						12, pg, gens[pg]);
		n += check("fcow (heap)", heap, 13, 0, h, round);
		munmap(buf, pages * PAGE);
		munmap(heap, pages * HEAP_PER_COW * PAGE);
	}
	n += check_file("fcow (file unchanged)", fd, 12, 0, pages, 1, NULL, 1);
	close(fd);
	unlink(file_path);
	free(mapped);
	free(gens);
	result("fcow", n);
}
