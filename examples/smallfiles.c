/* SPDX-License-Identifier: MIT */
/*
 * smallfiles - page cache spread over many files, as in seed 003
 * ("protect page cache from freeing inode"): 500k+ inodes per cgroup of
 * 4 KiB to 4 MiB each in the mail, fewer here.
 *
 *   smallfiles DIR N KB
 *
 * Makes N files of KB KiB of random bytes in DIR (those missing), then
 * maps each one, reads every word, unmaps and closes it: the pager's page
 * cache now holds N inodes nobody uses, with their pages, charged to this
 * process's group. Prints `files N` and `cached_mb`. Self-check: the words
 * read through each mapping add up to what pread(2) reads; exit 1 if not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read @len random bytes: /dev/urandom may return fewer at a time. */
static int fill(int rnd, void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = read(rnd, (char *)buf + done, len - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint64_t buf[1 << 19];		/* 4 MiB, the largest file */
	long n, kb, bad = 0;
	int rnd;

	if (argc != 4 || (n = atol(argv[2])) < 1 || (kb = atol(argv[3])) < 4 ||
	    kb > 4096) {
		fprintf(stderr, "usage: smallfiles DIR N KB (KB 4 to 4096)\n");
		return 2;
	}
	mkdir(argv[1], 0700);
	rnd = open("/dev/urandom", O_RDONLY);
	for (long i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		uint64_t a = 0, b = 0, *m;
		size_t len = (size_t)kb * 1024;
		int fd;

		snprintf(path, sizeof(path), "%s/f%06ld", argv[1], i);
		if (stat(path, &st) || st.st_size != (off_t)len) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || fill(rnd, buf, len) ||
			    write(fd, buf, len) != (ssize_t)len) {
				perror("smallfiles: write");
				return 2;
			}
			close(fd);
		}
		fd = open(path, O_RDONLY);
		m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (fd < 0 || m == MAP_FAILED ||
		    pread(fd, buf, len, 0) != (ssize_t)len) {
			perror("smallfiles: read");
			return 2;
		}
		for (size_t w = 0; w < len / 8; w++) {
			a += m[w];
			b += buf[w];
		}
		bad += a != b;
		munmap(m, len);
		close(fd);
	}
	printf("files %ld\ncached_mb %.1f\n", n, (double)n * kb / 1024);
	if (bad)
		printf("smallfiles: %ld files read wrong through mmap\n", bad);
	return bad ? 1 : 0;
}
