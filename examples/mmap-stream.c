/* SPDX-License-Identifier: MIT */
/*
 * mmap-stream - a file streamed once through mmap next to a hot set: the
 * situation of seed 001 (use-once mapped file pages).
 *
 *   mmap-stream [--chunk-mb N] [--hot FILE] [--exec FILE] [--touches N]
 *               [--advice normal|sequential|random] STREAM
 *
 * STREAM is mapped and read in chunks (32 MiB by default), a word every
 * 64 bytes, each chunk unmapped after: every page is used once (each
 * chunk given madvise(--advice) first, if asked). After
 * each chunk, the hot file (--hot, PROT_READ) and the executable one
 * (--exec, PROT_READ|PROT_EXEC) are read whole, --touches times (2): a
 * working set used again and again. At the end it prints, as
 * `name value` lines:
 *
 *   stream_mb_s        streaming throughput
 *   hot_resident_pct   of the hot file, pages in the page cache (mincore)
 *   exec_resident_pct  of the executable file, likewise
 *   elapsed_s          seconds, all of it
 *   checksum           of the stream (the same under any pager)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

struct mapped {
	char *p;
	size_t len;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "mmap-stream: %s %s: %s\n", what, path,
		strerror(errno));
	return 1;
}

static int map_whole(const char *path, int prot, struct mapped *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return fail("cannot open", path);
	m->len = (size_t)st.st_size;
	m->p = m->len ? mmap(NULL, m->len, prot, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (m->p == MAP_FAILED)
		return fail("cannot map", path);
	return 0;
}

/* Read a word of every page of @m, @n times. */
static uint64_t touch(const struct mapped *m, unsigned int n)
{
	uint64_t sum = 0;

	for (unsigned int k = 0; k < n; k++)
		for (size_t o = 0; o + 8 <= m->len; o += PAGE)
			sum += *(volatile uint64_t *)(m->p + o);
	return sum;
}

static double resident_pct(const struct mapped *m)
{
	size_t pages = (m->len + PAGE - 1) / PAGE, in = 0;
	unsigned char *vec;

	if (!pages)
		return 100.0;
	vec = malloc(pages);
	if (!vec || mincore(m->p, m->len, vec)) {
		free(vec);
		return -1;
	}
	for (size_t k = 0; k < pages; k++)
		in += vec[k] & 1;
	free(vec);
	return 100.0 * (double)in / (double)pages;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "chunk-mb", required_argument, NULL, 'c' },
		{ "hot", required_argument, NULL, 'h' },
		{ "exec", required_argument, NULL, 'x' },
		{ "touches", required_argument, NULL, 't' },
		{ "advice", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int advice = -1;
	struct mapped hot = { 0 }, exe = { 0 };
	const char *hot_path = NULL, *exec_path = NULL;
	size_t chunk = 32UL << 20;
	unsigned int touches = 2;
	uint64_t sum = 0;
	double t0 = now(), stream_s = 0;
	struct stat st;
	int c, fd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			chunk = strtoul(optarg, NULL, 10) << 20;
			break;
		case 'h':
			hot_path = optarg;
			break;
		case 'x':
			exec_path = optarg;
			break;
		case 't':
			touches = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'a':
			advice = !strcmp(optarg, "normal") ? MADV_NORMAL :
				 !strcmp(optarg, "sequential") ? MADV_SEQUENTIAL :
				 !strcmp(optarg, "random") ? MADV_RANDOM : -2;
			if (advice == -2)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || !chunk)
		goto usage;
	if ((hot_path && map_whole(hot_path, PROT_READ, &hot)) ||
	    (exec_path && map_whole(exec_path, PROT_READ | PROT_EXEC, &exe)))
		return 1;
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return fail("cannot open", argv[optind]);
	for (off_t off = 0; off < st.st_size; off += (off_t)chunk) {
		size_t len = st.st_size - off < (off_t)chunk ?
			     (size_t)(st.st_size - off) : chunk;
		char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, off);
		double t = now();

		if (p == MAP_FAILED)
			return fail("cannot map", argv[optind]);
		if (advice >= 0 && madvise(p, len, advice))
			return fail("cannot madvise", argv[optind]);
		for (size_t o = 0; o + 8 <= len; o += 64)
			sum = sum * 31 + *(volatile uint64_t *)(p + o);
		munmap(p, len);
		stream_s += now() - t;
		touch(&hot, touches);
		touch(&exe, touches);
	}
	close(fd);
	printf("stream_mb_s %.1f\n", (double)st.st_size / 1048576.0 /
	       (stream_s > 0 ? stream_s : 1e-9));
	if (hot_path)
		printf("hot_resident_pct %.1f\n", resident_pct(&hot));
	if (exec_path)
		printf("exec_resident_pct %.1f\n", resident_pct(&exe));
	printf("elapsed_s %.3f\n", now() - t0);
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
usage:
	fprintf(stderr, "usage: mmap-stream [--chunk-mb N] [--hot FILE] "
		"[--exec FILE] [--touches N]\n"
		"                   [--advice normal|sequential|random] STREAM\n");
	return 2;
}
