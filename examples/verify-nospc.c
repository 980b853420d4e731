/* SPDX-License-Identifier: MIT */
/*
 * verify-nospc.c - verify's test of a full file system under a shared
 * file mapping: the file (--file, on a small file system) is made --mb
 * MiB long, sparse, and every page is written through a shared mapping,
 * more than the file system holds. Natively the kernel cannot reserve
 * the blocks at some write fault and raises SIGBUS (ext4's
 * page_mkwrite). Otherwise msync(MS_SYNC) or fsync must say ENOSPC or
 * EIO. The one wrong outcome: both succeed and a page written is not in
 * the file. Under the pager the daemon's write-back failed with ENOSPC,
 * logged it, and the program was told nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verify.h"

void t_fnospc(void)
{
	size_t pages = mb << 20 >> 12, missing = 0;
	int fd = open_file(pages * PAGE, true);
	char *m = map_file(fd, pages * PAGE, MAP_SHARED);
	static uint64_t page[WORDS];
	int ms, fs;

	for (size_t pg = 0; pg < pages; pg++)
		fill_page((uint64_t *)(m + pg * PAGE), 61, pg, 1);
	ms = msync(m, pages * PAGE, MS_SYNC) ? errno : 0;
	fs = fsync(fd) ? errno : 0;
	printf("verify: fnospc: msync %s, fsync %s\n",
	       ms ? strerror(ms) : "ok", fs ? strerror(fs) : "ok");
	for (size_t pg = 0; pg < pages; pg++) {
		uint64_t want[WORDS];

		fill_page(want, 61, pg, 1);
		if (pread(fd, page, PAGE, (off_t)(pg * PAGE)) != (ssize_t)PAGE ||
		    memcmp(page, want, PAGE))
			missing++;
	}
	munmap(m, pages * PAGE);
	close(fd);
	unlink(file_path);
	if (missing)
		printf("verify: fnospc: %zu pages not in the file\n", missing);
	/* Lost pages are wrong only when nobody was told. */
	result("fnospc", missing && !ms && !fs ? (unsigned long)missing : 0);
}
