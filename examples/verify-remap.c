/* SPDX-License-Identifier: MIT */
/*
 * verify-remap.c - verify's test of remap_file_pages(2): a window of a
 * shared file mapping rearranged page by page, each page reading and
 * writing the file page it was given, under reclaim.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "verify.h"

#define MAX_WINDOW	256	/* pages rearranged, at most a quarter */

static size_t window;

/* Window page @i shows file page perm(i): from the end of the file
 * backwards, spread over it, past the window's own pages; most of them
 * never read before (pages the pager has not cached). */
static size_t perm(size_t i, size_t pages)
{
	return pages - 1 - i * ((pages - window) / (window + 1));
}

/* Half through libc's wrapper, half through syscall(2). */
static int rfp(char *p, size_t pgoff, bool raw)
{
	if (raw)
		return (int)syscall(SYS_remap_file_pages, p, PAGE, 0, pgoff, 0);
	return remap_file_pages(p, PAGE, 0, pgoff, 0);
}

static unsigned long refused(const char *what, int r, int want)
{
	if (r == -1 && errno == want)
		return 0;
	printf("verify: fpages: %s: %d (%s), want %s\n", what, r,
	       r ? strerror(errno) : "done", strerror(want));
	return 1;
}

void t_fpages(void)
{
	size_t pages = mb << 20 >> 12;
	int fd = open_file(pages * PAGE, true), ro;
	uint64_t *gens = calloc(pages, sizeof(*gens));
	unsigned long n = 0;
	char *win, *all;

	window = pages / 4 < MAX_WINDOW ? pages / 4 : MAX_WINDOW;
	if (!gens) {
		perror("verify: fpages");
		exit(1);
	}
	write_file(fd, 5, pages);
	for (size_t pg = 0; pg < pages; pg++)
		gens[pg] = 1;
	win = map_file(fd, window * PAGE, MAP_SHARED);
	for (size_t i = 0; i < window; i++)
		if (rfp(win + i * PAGE, perm(i, pages), i % 2)) {
			printf("verify: fpages: remap_file_pages of page %zu: "
			       "%s\n", i, strerror(errno));
			exit(1);
		}
	for (size_t i = 0; i < window; i++)
		n += check_page("fpages (read)", (uint64_t *)(win + i * PAGE),
				5, perm(i, pages), 1);
	for (size_t i = 0; i < window; i++) {
		fill_page((uint64_t *)(win + i * PAGE), 5, perm(i, pages), 2);
		gens[perm(i, pages)] = 2;
	}
	/* The whole file through a mapping of its own, twice: the window's
	 * pages are evicted meanwhile, written back first. */
	all = map_file(fd, pages * PAGE, MAP_SHARED);
	for (int round = 0; round < 2; round++)
		n += check_mapped("fpages (whole file)", all, 5, 0, pages,
				  gens, 0);
	munmap(all, pages * PAGE);
	for (size_t i = 0; i < window; i++)
		n += check_page("fpages (written)", (uint64_t *)(win + i * PAGE),
				5, perm(i, pages), 2);
	/* The first page back where it was. */
	if (rfp(win, 0, false))
		n += refused("remap back", -1, 0);
	n += check_page("fpages (back)", (uint64_t *)win, 5, 0, 1);
	/* The kernel's refusals: a protection given, a private mapping. */
	n += refused("prot given", remap_file_pages(win, PAGE, PROT_READ, 3, 0),
		     EINVAL);
	msync(win, window * PAGE, MS_SYNC);
	munmap(win, window * PAGE);
	win = map_file(fd, window * PAGE, MAP_PRIVATE);
	n += refused("private mapping", rfp(win, 3, false), EINVAL);
	munmap(win, window * PAGE);
	n += check_file("fpages (file)", fd, 5, 0, pages, 1, gens, 0);
	/* A shared mapping of a file open read-only is not VM_SHARED: the
	 * kernel refuses it too, and the window still reads the file. */
	ro = open(file_path, O_RDONLY);
	win = mmap(NULL, window * PAGE, PROT_READ, MAP_SHARED, ro, 0);
	if (win == MAP_FAILED) {
		perror("verify: mmap read-only");
		exit(1);
	}
	n += refused("read-only file", rfp(win, 9, true), EINVAL);
	n += check_mapped("fpages (read-only)", win, 5, 0, window, gens, 0);
	munmap(win, window * PAGE);
	close(ro);
	close(fd);
	unlink(file_path);
	free(gens);
	result("fpages", n);
}
