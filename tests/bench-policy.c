/* SPDX-License-Identifier: MIT */
/*
 * bench-policy.c - how fast is the policy, and how much memory does it
 * keep per page? Through the replayer only; no kernel involved.
 *
 * A Zipf trace of 12 M accesses (half of them writes) over 1.2 M
 * distinct anon pages (4.6 GB) replays with swap through the linux policy
 * and through a minimal exact-LRU loop over the same decoded events, each
 * timed in the same run (best of three), at budgets from heavy reclaim
 * to none: the policy's cost is in reclaim (each miss scans about two
 * pages and touches about seven random cache lines, as the kernel's
 * structures do), the LRU loop's in nothing but its list. Then the bytes
 * of metadata per page, and the shadow entries a long stream leaves, with
 * and without the shadow-node shrinker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "../pager/sim/sim.h"
#include "../pager/sim/trace.h"
#include "../pager/lib/zipf.h"

#define PAGES	(1200 * 1024)
#define REFS	(12 * 1000 * 1000)
/* Budgets in pages: 2, 3, 3.5, 4 and 5 GB (the last holds it all). */
static const uint32_t budgets[] = { 524288, 786432, 917504, 1048576,
				    1310720 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The trace in the binary form, written to memory and read back. */
static int make_zipf(struct trace *t)
{
	char *buf = NULL, line[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct trace_writer *w = trace_writer_open(f, true);
	struct zipf z;
	int err;

	zipf_init(&z, PAGES, 0.9, 42);
	snprintf(line, sizeof(line), "mmap 1 0x100000000 %llu anon",
		 PAGES * 4096ULL);
	trace_writer_line(w, line);
	for (uint32_t r = 0; r < REFS; r++)
		trace_writer_access(w, 1, 0x100000000ULL +
				    zipf_next(&z) * 4096, r & 1);
	zipf_release(&z);
	trace_writer_close(w);
	fclose(f);
	printf("trace: %u accesses over %u pages, %.1f bytes each in the "
	       "binary form\n", REFS, PAGES, (double)len / REFS);
	f = fmemopen(buf, len, "r");
	err = trace_read(t, f, "zipf", TF_BINARY);
	fclose(f);
	free(buf);
	return err;
}

/* The policy library under @set (NULL: the defaults, the classic LRU). */
static double run_linux(const struct trace *t, uint32_t budget,
			uint64_t *misses, const char *set)
{
	struct sim_opts o = { .budget = budget, .swap = PAGES };
	char err[256];
	struct sim *s = sim_create(t, &o, err, sizeof(err));
	const char *why = NULL;
	double t0, t1;

	if (!s) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	if (set && sim_set(s, set, &why)) {
		fprintf(stderr, "bench: %s: %s\n", set, why);
		exit(1);
	}
	t0 = now();
	if (sim_run(s)) {
		fprintf(stderr, "bench: %s\n", s->err);
		exit(1);
	}
	t1 = now();
	*misses = s->c.misses;
	sim_destroy(s);
	return t1 - t0;
}

/* The minimal exact LRU: an intrusive list over dense keys, moved to
 * the head on every hit; the tail evicted on a miss when full. */
static double run_lru(const struct trace *t, uint32_t budget,
		      uint64_t *misses)
{
	uint32_t n = t->regions[0].npages, head = UINT32_MAX,
		 tail = UINT32_MAX;
	uint32_t *prev = malloc(n * sizeof(*prev));
	uint32_t *next = malloc(n * sizeof(*next));
	uint8_t *in = calloc(n, 1);
	uint64_t nr = 0, miss = 0;
	double t0, t1;

	t0 = now();
	for (size_t i = 0; i < t->nr_ev; i++) {
		const struct ev *e = &t->ev[i];
		uint32_t k = e->off;

		if (e->op != EV_ACCESS)
			continue;
		if (in[k]) {
			if (k == head)
				continue;
			next[prev[k]] = next[k];
			if (next[k] != UINT32_MAX)
				prev[next[k]] = prev[k];
			else
				tail = prev[k];
		} else {
			miss++;
			if (nr == budget) {
				uint32_t v = tail;

				tail = prev[v];
				next[tail] = UINT32_MAX;
				in[v] = 0;
			} else {
				nr++;
			}
			in[k] = 1;
		}
		prev[k] = UINT32_MAX;
		next[k] = head;
		if (head != UINT32_MAX)
			prev[head] = k;
		head = k;
		if (tail == UINT32_MAX)
			tail = k;
	}
	t1 = now();
	*misses = miss;
	free(prev);
	free(next);
	free(in);
	return t1 - t0;
}

/* Shadows left by a 64 GB file read twice through a 256 MB budget. */
static void shadows(const char *max_shadows)
{
	static const char text[] = "file 1 64G\nread 1 0 64G\nread 1 0 64G\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct sim_opts o = { .budget = 65536, .swap = 0 };
	struct trace t;
	char err[256], kv[64];
	const char *why;
	struct sim *s;
	uint64_t nodes, entries, reclaimed;

	trace_read(&t, f, "stream", TF_TEXT);
	fclose(f);
	s = sim_create(&t, &o, err, sizeof(err));
	snprintf(kv, sizeof(kv), "vm.workingset.max_shadows=%s", max_shadows);
	sim_set(s, kv, &why);
	sim_run(s);
	sim_stat(s, "workingset_nodes", -1, &nodes);
	sim_stat(s, "nr_shadow_entries", -1, &entries);
	sim_stat(s, "workingset_nodereclaim", -1, &reclaimed);
	printf("shadows after a 64 GB stream, 256 MB budget, max_shadows=%s: "
	       "%llu entries in %llu shadow-only nodes, %.1f MB "
	       "(%llu nodes reclaimed)\n", max_shadows,
	       (unsigned long long)entries, (unsigned long long)nodes,
	       (double)entries * 8 / 1048576, (unsigned long long)reclaimed);
	sim_destroy(s);
	trace_release(&t);
}

int main(void)
{
	struct utsname u;
	struct trace t;

	uname(&u);
	printf("# bench-policy: kernel %s, one core\n", u.release);
	if (make_zipf(&t)) {
		fprintf(stderr, "bench: %s\n", t.err);
		return 1;
	}
	printf("%-8s %12s %8s %12s %8s %14s %12s %8s %11s\n", "budget",
	       "linux M ev/s", "misses", "LRU M ev/s", "misses",
	       "linux/LRU speed", "MGLRU M ev/s", "misses", "MGLRU/linux");
	for (size_t b = 0; b < sizeof(budgets) / sizeof(*budgets); b++) {
		double best_linux = 1e9, best_lru = 1e9, best_gen = 1e9;
		uint64_t m_linux = 0, m_lru = 0, m_gen = 0;

		for (int k = 0; k < 3; k++) {
			double a = run_linux(&t, budgets[b], &m_linux, NULL);
			double c = run_lru(&t, budgets[b], &m_lru);
			double g = run_linux(&t, budgets[b], &m_gen,
					     "lru_gen.enabled=y");

			best_linux = a < best_linux ? a : best_linux;
			best_lru = c < best_lru ? c : best_lru;
			best_gen = g < best_gen ? g : best_gen;
		}
		printf("%6.1f G %12.1f %7.1f%% %12.1f %7.1f%% %14.2f %12.1f "
		       "%7.1f%% %11.2f\n",
		       budgets[b] / 262144.0, (double)t.nr_ev / best_linux / 1e6,
		       100.0 * (double)m_linux / REFS,
		       (double)t.nr_ev / best_lru / 1e6,
		       100.0 * (double)m_lru / REFS, best_lru / best_linux,
		       (double)t.nr_ev / best_gen / 1e6,
		       100.0 * (double)m_gen / REFS, best_linux / best_gen);
	}
	printf("goals: >= 20 M events/s, >= 0.5 of the LRU loop's speed "
	       "(compulsory misses alone are %.1f%%)\n",
	       100.0 * t.regions[0].npages / REFS);
	printf("policy metadata per page: %zu bytes (goal <= 32); "
	       "simulator descriptor %zu bytes, plus 8 bytes per mapped "
	       "page of slot table\n", sizeof(struct pol_page),
	       sizeof(struct sim_page));
	trace_release(&t);
	shadows("-1");
	shadows("100000000000");
	return 0;
}
