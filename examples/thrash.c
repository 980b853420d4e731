/* SPDX-License-Identifier: MIT */
/*
 * thrash - seed 000's test program ("mm: vmscan: scan anonymous pages on
 * file refaults"), as posted, with a self-check.
 *
 *   thrash ANON_MB FILE_MB FILE_ROUNDS
 *
 * Fills ANON_MB of anonymous memory, then reads a FILE_MB file ("large",
 * in the working directory; made of random bytes if missing or short, so
 * every read comes from the disk) through two mappings, the first half
 * PROT_EXEC like a large executable, a byte a page, FILE_ROUNDS times,
 * printing each round's time as the original does. The check: the bytes
 * seen through the mappings in every round add up to what read(2) of the
 * file gives, and the anonymous memory still holds its fill; on a
 * mismatch it says so and exits 1. Under the pager it marks its phases
 * (alloc, round0, round1..., check: the anonymous memory read back) in
 * the daemon's record and trace, as `pager gen thrash` does in a
 * synthetic trace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* The pager's preload shim marks phases (pager_phase()); without it,
 * nothing happens. */
static void phase(const char *name)
{
	static int (*mark)(const char *);
	static int looked;

	if (!looked++)
		mark = (int (*)(const char *))dlsym(RTLD_DEFAULT, "pager_phase");
	if (mark && mark(name))
		perror("pager_phase");
}

static void make_file(const char *filename, off_t size)
{
	struct stat st;
	char buf[1 << 16];
	int fd, rnd;

	if (!stat(filename, &st) && st.st_size >= size)
		return;
	fd = open(filename, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rnd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || rnd < 0) {
		perror("create file");
		exit(1);
	}
	for (off_t done = 0; done < size; done += (off_t)sizeof(buf)) {
		if (read(rnd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write file");
			exit(1);
		}
	}
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(rnd);
	close(fd);
}

static long *alloc_anon(long size)
{
	long *start = malloc(size);

	memset(start, 1, size);
	return start;
}

/* What the rounds must see: a byte a page, summed, through read(2). */
static long expected_sum(const char *filename, long size)
{
	const long page = getpagesize();
	int fd = open(filename, O_RDONLY);
	long sum = 0;
	char c;

	for (long off = 0; off < size / 2; off += page) {
		if (pread(fd, &c, 1, off) != 1 ||
		    (sum += c, pread(fd, &c, 1, size / 2 + off) != 1)) {
			perror("pread");
			exit(1);
		}
		sum += c;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);	/* stay cold */
	close(fd);
	return sum;
}

static long access_file(const char *filename, long size, long rounds)
{
	const int page_size = getpagesize();
	volatile char *start1, *end1, *start2;
	long want = expected_sum(filename, size), bad = 0;
	int fd, i;

	fd = open(filename, O_RDONLY);
	if (fd == -1) {
		perror("open");
		exit(1);
	}
	/* Some applications, e.g. chrome, use a lot of executable file
	 * pages: map some of them with PROT_EXEC to simulate it. */
	start1 = mmap(NULL, size / 2, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	start2 = mmap(NULL, size / 2, PROT_READ, MAP_SHARED, fd, size / 2);
	if (start1 == MAP_FAILED || start2 == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	end1 = start1 + size / 2;
	for (i = 0; i < rounds; ++i) {
		struct timeval before, after;
		volatile char *ptr1 = start1, *ptr2 = start2;
		long sum = 0;
		char name[32];

		snprintf(name, sizeof(name), "round%d", i);
		phase(name);
		gettimeofday(&before, NULL);
		for (; ptr1 < end1; ptr1 += page_size, ptr2 += page_size)
			sum += *ptr1 + *ptr2;
		gettimeofday(&after, NULL);
		printf("File access time, round %d: %f (sec)\n", i,
		       (after.tv_sec - before.tv_sec) +
		       (after.tv_usec - before.tv_usec) / 1000000.0);
		fflush(stdout);
		if (sum != want) {
			printf("thrash: round %d read %ld, the file holds %ld\n",
			       i, sum, want);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char *argv[])
{
	const long MB = 1024 * 1024;
	long anon_mb, file_mb, file_rounds, bad;
	const char filename[] = "large";
	long *ret1;

	if (argc != 4) {
		printf("usage: thrash ANON_MB FILE_MB FILE_ROUNDS\n");
		exit(0);
	}
	anon_mb = atoi(argv[1]);
	file_mb = atoi(argv[2]);
	file_rounds = atoi(argv[3]);

	make_file(filename, file_mb * MB);
	printf("Allocate %ld MB anonymous pages\n", anon_mb);
	phase("alloc");
	ret1 = alloc_anon(anon_mb * MB);
	printf("Access %ld MB file pages\n", file_mb);
	bad = access_file(filename, file_mb * MB, file_rounds);
	phase("check");
	for (long k = 0; k < anon_mb * MB / (long)sizeof(long); k += 512)
		if (ret1[k] != 0x0101010101010101L)
			bad++;
	printf("Print result to prevent optimization: %ld\n", *ret1 + bad);
	if (bad)
		printf("thrash: FAILED: %ld mismatches\n", bad);
	return bad ? 1 : 0;
}
