/* SPDX-License-Identifier: MIT */
/*
 * mmaphash - seed 001's experiment ("mm: use-once mapped file pages"):
 * hash a file larger than memory through mmap while a probe times
 * pipe()+fork()+write()+read(), as the kernel anchors' program does.
 *
 *   mmaphash FILE [ANON_MB=200] [INTERVAL_MS=2000] [PASSES=1] [CHUNK_MB=32]
 *            [HOT_NAP_MS=50]
 *
 * FILE (made of random bytes if missing) is hashed in CHUNK_MB
 * mmap(PROT_READ, MAP_SHARED) chunks, every byte read as 64-bit words
 * with an FNV-1a-style mix, each chunk unmapped after, PASSES times. A
 * probe thread times pipe() + fork() + the child's write() + the
 * parent's read() + waitpid() every INTERVAL_MS. A hot thread keeps
 * ANON_MB of anonymous memory in use: a store a page, a HOT_NAP_MS nap,
 * again. The anchors' 50 ms keeps it hot; a nap of seconds makes it a
 * desktop's warm set, the memory seed 001's mail saw swapped out.
 *
 * Prints `name value` lines: probes, lat_max_ms, lat_mean_ms,
 * lat_stddev_ms, lat_p50_ms, hash_s, hash_mb_s, hot_pass_mean_ms,
 * hot_pass_max_ms, and the hash. Self-check: every pass must give the
 * same hash, and it must be the hash of the file read with read(2); the
 * hot set must hold its pattern. Exit 1 on a mismatch.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAX_PROBES 100000

static atomic_bool done;
static double lat[MAX_PROBES];
static size_t nr_lat;
static long interval_ms = 2000;
static long hot_nap_ms = 50;
static char *hot;
static size_t hot_len;
static double hot_sum_ms, hot_max_ms;
static unsigned long hot_passes, hot_bad;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ULL;
}

static void *probe(void *arg)
{
	(void)arg;
	while (!done) {
		int fd[2];
		char c = 0;
		double t = now();
		pid_t pid;

		if (pipe(fd))
			break;
		pid = fork();
		if (pid == 0) {
			if (write(fd[1], "x", 1) != 1)
				_exit(1);
			_exit(0);
		}
		if (pid < 0 || read(fd[0], &c, 1) != 1)
			break;
		waitpid(pid, NULL, 0);
		close(fd[0]);
		close(fd[1]);
		if (nr_lat < MAX_PROBES)
			lat[nr_lat++] = (now() - t) * 1e3;
		for (long slept = 0; slept < interval_ms && !done; slept += 10)
			usleep(10000);
	}
	return NULL;
}

static void *keep_hot(void *arg)
{
	unsigned char prev = 1, gen = 2;	/* the fill wrote 1 */

	(void)arg;
	while (!done) {
		double t = now();

		for (size_t o = 0; o < hot_len; o += PAGE) {
			if (hot[o] != (char)prev)
				hot_bad++;
			hot[o] = (char)gen;
		}
		prev = gen;
		t = (now() - t) * 1e3;
		hot_sum_ms += t;
		hot_max_ms = t > hot_max_ms ? t : hot_max_ms;
		hot_passes++;
		gen = gen == 255 ? 2 : gen + 1;
		for (long left = hot_nap_ms; left > 0 && !done; left -= 10)
			usleep((useconds_t)(left < 10 ? left : 10) * 1000);
	}
	return NULL;
}

static void make_file(const char *path)
{
	struct stat st;
	char buf[1 << 16];
	int fd, rnd;
	off_t size = 1536L << 20;

	if (!stat(path, &st))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	rnd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || rnd < 0) {
		perror("mmaphash: create the file");
		exit(2);
	}
	for (off_t done_b = 0; done_b < size; done_b += (off_t)sizeof(buf))
		if (read(rnd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
		    write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("mmaphash: write the file");
			exit(2);
		}
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(rnd);
	close(fd);
}

/* The hash through read(2), for the check; the file dropped from the
 * kernel's cache after, so the hashing starts cold. */
static uint64_t hash_read(const char *path)
{
	static uint64_t buf[1 << 13];
	int fd = open(path, O_RDONLY);
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t k = 0; k < n / 8; k++)
			h = mix(h, buf[k]);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return h;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long anon_mb = argc > 2 ? atol(argv[2]) : 200;
	long passes = argc > 4 ? atol(argv[4]) : 1;
	size_t chunk = (size_t)(argc > 5 ? atol(argv[5]) : 32) << 20;
	uint64_t want, first = 0;
	double t0, hash_s, sum = 0, sq = 0;
	pthread_t tp, th;
	struct stat st;
	int fd, bad = 0;

	if (argc > 6)
		hot_nap_ms = atol(argv[6]);
	if (argc < 2 || argc > 7 || passes < 1 || !chunk || hot_nap_ms < 0) {
		fprintf(stderr, "usage: mmaphash FILE [ANON_MB=200] "
			"[INTERVAL_MS=2000] [PASSES=1] [CHUNK_MB=32] "
			"[HOT_NAP_MS=50]\n");
		return 2;
	}
	if (argc > 3)
		interval_ms = atol(argv[3]);
	make_file(argv[1]);
	want = hash_read(argv[1]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror("mmaphash: open");
		return 2;
	}
	hot_len = (size_t)anon_mb << 20;
	if (hot_len) {
		hot = mmap(NULL, hot_len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memset(hot, 1, hot_len);
		pthread_create(&th, NULL, keep_hot, NULL);
	}
	pthread_create(&tp, NULL, probe, NULL);
	t0 = now();
	for (long p = 0; p < passes; p++) {
		uint64_t h = 0xcbf29ce484222325ULL;

		for (off_t off = 0; off < st.st_size; off += (off_t)chunk) {
			size_t len = st.st_size - off < (off_t)chunk ?
				     (size_t)(st.st_size - off) : chunk;
			uint64_t *w = mmap(NULL, len, PROT_READ, MAP_SHARED,
					   fd, off);

			if (w == MAP_FAILED) {
				perror("mmaphash: mmap");
				return 2;
			}
			for (size_t k = 0; k < len / 8; k++)
				h = mix(h, w[k]);
			munmap(w, len);
		}
		if (h != want) {
			printf("mmaphash: pass %ld hashed %016llx, read(2) "
			       "gives %016llx\n", p, (unsigned long long)h,
			       (unsigned long long)want);
			bad = 1;
		}
		first = p ? first : h;
	}
	hash_s = now() - t0;
	done = true;
	pthread_join(tp, NULL);
	if (hot_len)
		pthread_join(th, NULL);
	for (size_t k = 0; k < nr_lat; k++) {
		sum += lat[k];
		sq += lat[k] * lat[k];
	}
	qsort(lat, nr_lat, sizeof(*lat), cmp);
	printf("probes %zu\n", nr_lat);
	if (nr_lat) {
		double mean = sum / (double)nr_lat;

		printf("lat_max_ms %.3f\nlat_mean_ms %.3f\n", lat[nr_lat - 1],
		       mean);
		printf("lat_stddev_ms %.3f\nlat_p50_ms %.3f\n",
		       nr_lat > 1 ? sqrt(fmax(0, (sq - sum * mean) /
					      (double)(nr_lat - 1))) : 0.0,
		       lat[nr_lat / 2]);
	}
	printf("hash_s %.3f\nhash_mb_s %.1f\n", hash_s,
	       (double)st.st_size * (double)passes / 1048576.0 / hash_s);
	if (hot_passes)
		printf("hot_pass_mean_ms %.3f\nhot_pass_max_ms %.3f\n",
		       hot_sum_ms / (double)hot_passes, hot_max_ms);
	printf("hash %016llx\n", (unsigned long long)first);
	if (hot_bad) {
		printf("mmaphash: the hot set lost its pattern %lu times\n",
		       hot_bad);
		bad = 1;
	}
	return bad;
}
