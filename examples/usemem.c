/* SPDX-License-Identifier: MIT */
/*
 * usemem - an anonymous filler, after the usemem of the vm-scalability
 * tests that seed 003's mail ran outside its protected groups.
 *
 *   usemem MB [PASSES]
 *
 * Allocates MB of anonymous memory and writes every page, PASSES times
 * (2 by default), checking on each pass that every page still holds what
 * the previous one wrote. Prints `usemem_s` (all passes) and exits 1 on
 * a mismatch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	long mb = argc > 1 ? atol(argv[1]) : 0, passes = argc > 2 ?
		  atol(argv[2]) : 2, bad = 0;
	size_t pages = (size_t)mb * 256;
	struct timespec t0, t1;
	uint64_t *p;

	if (mb < 1 || passes < 1) {
		fprintf(stderr, "usage: usemem MB [PASSES]\n");
		return 2;
	}
	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long g = 1; g <= passes; g++) {
		for (size_t k = 0; k < pages; k++) {
			uint64_t *w = p + k * 512;

			if (g > 1 && *w != (k << 8 | (uint64_t)(g - 1)))
				bad++;
			*w = k << 8 | (uint64_t)g;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("usemem_s %.3f\n", (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	if (bad)
		printf("usemem: %ld pages lost their data\n", bad);
	return bad ? 1 : 0;
}
