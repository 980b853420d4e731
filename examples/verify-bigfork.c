/* SPDX-License-Identifier: MIT */
/*
 * verify-bigfork.c - verify's test of a reservation larger than 16 TB,
 * forked as it grows: private writable anonymous memory mapped 1 GB at
 * a time, a fork after each piece (a regression test of the kernel's
 * once, 7edc8b0ac16c: a 32-bit VMA length let fork succeed). The kernel
 * refuses the forks once the commit is too large and goes on mapping;
 * it takes half a second. Under the pager each piece is a region of
 * 262144 slots, and a walk of them all at each fork and exit took the
 * daemon minutes, writing 32 GB of zeros, so that the program seemed
 * hung and its daemon outlived it. One word of every 1024th piece is
 * written; a child that is forked checks them and exits.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verify.h"

#define GB	(1UL << 30)
#define PIECES	(16 * 1024 + 10)
#define EVERY	1024

void t_bigfork(void)
{
	static char *piece[PIECES];
	long forked = 0, refused = 0, wrong = 0;
	size_t k;

	for (k = 0; k < PIECES; k++) {
		pid_t c;
		int st;

		piece[k] = mmap(NULL, GB, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (piece[k] == MAP_FAILED)
			break;
		if (k % EVERY == 0)
			*(uint64_t *)piece[k] = pattern(31, k, 0, 1);
		c = fork();
		if (c < 0) {
			refused++;
			continue;
		}
		if (!c) {
			for (size_t j = 0; j <= k; j += EVERY)
				if (*(uint64_t *)piece[j] !=
				    pattern(31, j, 0, 1))
					_exit(1);
			_exit(0);
		}
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			wrong++;
		forked++;
	}
	for (size_t j = 0; j < k; j += EVERY)
		if (*(uint64_t *)piece[j] != pattern(31, j, 0, 1))
			wrong++;
	printf("verify: bigfork: %zu GB mapped, %ld forks, %ld refused\n",
	       k, forked, refused);
	if (k < 16 * 1024 + 1) {
		printf("verify: bigfork: could not map more than 16 TB\n");
		wrong++;
	}
	for (size_t j = 0; j < k; j++)
		munmap(piece[j], GB);
	result("bigfork", (unsigned long)wrong);
}
