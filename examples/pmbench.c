/* SPDX-License-Identifier: MIT */
/*
 * pmbench - a pmbench-like paging benchmark, for seed 002 ("vmscan:
 * retry without cache trim mode if nothing scanned"), which reports
 * pmbench throughput and swap traffic with a normal access distribution.
 *
 *   pmbench SET_MB SECONDS [normal|pareto|uniform] [READ_PCT] [THREADS]
 *
 * Touches SET_MB of anonymous memory once, then for SECONDS makes random
 * page accesses with the given distribution (normal: centred, sigma a
 * sixth of the set; pareto: shape 1.16, the 80/20 rule, hot pages
 * scattered; uniform), READ_PCT % of them reads (50 by default), the
 * rest writes, from THREADS threads (1 by default; pmbench's -j). Prints
 * `name value` lines: throughput_aps (accesses a second, all threads),
 * accesses, lat_mean_ns and a latency histogram by powers of two
 * (lat_lt_N_ns: accesses that took from N/2 to under N ns).
 *
 * Self-check: every page holds its index and its write count, which a
 * read verifies; exit 1 on a mismatch. So that the count needs no lock,
 * thread t owns the pages whose index is t modulo THREADS: it draws an
 * index from the distribution and moves it to the nearest of its own,
 * which keeps the distribution's shape at any scale above THREADS pages.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096UL
#define BUCKETS 32

static uint64_t ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double uniform01(uint64_t *s)
{
	return ((double)(rnd(s) >> 11) + 0.5) / 9007199254740992.0;
}

static size_t pick(int dist, size_t pages, uint64_t *s)
{
	double x;

	switch (dist) {
	case 0:	/* normal, Box-Muller */
		x = (double)pages / 2 + (double)pages / 6 *
		    sqrt(-2 * log(uniform01(s))) * cos(2 * M_PI * uniform01(s));
		if (x < 0 || x >= (double)pages)
			return pick(dist, pages, s);
		return (size_t)x;
	case 1:	/* pareto, shape 1.16: rank, then scattered */
		x = 1.0 / pow(uniform01(s), 1.0 / 1.16) - 1.0;
		return ((size_t)(x * (double)pages / 50) * 2654435761U) % pages;
	default:
		return rnd(s) % pages;
	}
}

#define MAX_THREADS 64

struct job {
	/* in */
	uint64_t *mem;
	uint32_t *writes;
	size_t pages;
	int dist, read_pct, tid, nr_threads;
	uint64_t t0, t_end;
	/* out */
	uint64_t n, total_ns, bad, hist[BUCKETS];
};

/* One thread's accesses until t_end, to the pages it owns. */
static void *run_job(void *arg)
{
	struct job *j = arg;
	uint64_t s = 42 + 0x9e3779b97f4a7c15ULL * (uint64_t)j->tid;

	for (uint64_t now = j->t0; now < j->t_end; j->n++) {
		size_t p = pick(j->dist, j->pages, &s);
		uint64_t *w, t1;
		int b = 0;

		p = p - p % (size_t)j->nr_threads + (size_t)j->tid;
		if (p >= j->pages)
			p -= (size_t)j->nr_threads;
		w = &j->mem[p * 512];
		if ((int)(rnd(&s) % 100) < j->read_pct) {
			if (*w != ((uint64_t)p << 32 | j->writes[p]))
				j->bad++;
		} else {
			*w = (uint64_t)p << 32 | ++j->writes[p];
		}
		t1 = ns();
		j->total_ns += t1 - now;
		for (uint64_t d = t1 - now; d > 1 && b < BUCKETS - 1; d >>= 1)
			b++;
		j->hist[b]++;
		now = t1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, pages;
	double seconds = argc > 2 ? atof(argv[2]) : 0;
	int dist = 0, read_pct = argc > 4 ? atoi(argv[4]) : 50;
	int nr_threads = argc > 5 ? atoi(argv[5]) : 1;
	uint64_t hist[BUCKETS] = { 0 }, n = 0, total_ns = 0, bad = 0;
	static struct job jobs[MAX_THREADS];
	pthread_t threads[MAX_THREADS];
	uint64_t *mem, t0;
	uint32_t *writes;

	if (argc > 3)
		dist = !strcmp(argv[3], "normal") ? 0 :
		       !strcmp(argv[3], "pareto") ? 1 :
		       !strcmp(argv[3], "uniform") ? 2 : -1;
	if (!mb || seconds <= 0 || dist < 0 || read_pct < 0 || read_pct > 100 ||
	    nr_threads < 1 || nr_threads > MAX_THREADS ||
	    mb * 256 < 2 * (size_t)nr_threads) {
		fprintf(stderr, "usage: pmbench SET_MB SECONDS "
			"[normal|pareto|uniform] [READ_PCT] [THREADS (1-%d)]\n",
			MAX_THREADS);
		return 2;
	}
	pages = mb * 256;
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	writes = calloc(pages, sizeof(*writes));
	if (mem == MAP_FAILED || !writes)
		return 2;
	for (size_t p = 0; p < pages; p++)
		mem[p * 512] = (uint64_t)p << 32;
	t0 = ns();
	for (int t = 0; t < nr_threads; t++) {
		jobs[t] = (struct job){
			.mem = mem, .writes = writes, .pages = pages,
			.dist = dist, .read_pct = read_pct, .tid = t,
			.nr_threads = nr_threads, .t0 = t0,
			.t_end = t0 + (uint64_t)(seconds * 1e9),
		};
		if (pthread_create(&threads[t], NULL, run_job, &jobs[t])) {
			fprintf(stderr, "pmbench: cannot start thread %d\n", t);
			return 2;
		}
	}
	for (int t = 0; t < nr_threads; t++) {
		pthread_join(threads[t], NULL);
		n += jobs[t].n;
		total_ns += jobs[t].total_ns;
		bad += jobs[t].bad;
		for (int b = 0; b < BUCKETS; b++)
			hist[b] += jobs[t].hist[b];
	}
	printf("throughput_aps %.0f\n", (double)n / ((double)(ns() - t0) / 1e9));
	printf("accesses %llu\n", (unsigned long long)n);
	printf("lat_mean_ns %.1f\n", n ? (double)total_ns / (double)n : 0.0);
	for (int b = 0; b < BUCKETS; b++)
		if (hist[b])
			printf("lat_lt_%llu_ns %llu\n", 1ULL << (b + 1),
			       (unsigned long long)hist[b]);
	if (bad)
		printf("pmbench: %llu reads found wrong data\n",
		       (unsigned long long)bad);
	return bad ? 1 : 0;
}
