/* SPDX-License-Identifier: MIT */
/*
 * test-seeds.c - each seed switch on and off, on small traces, showing
 * the difference its patch mail documents (../shared/seeds):
 *
 *   000 refault_scan_anon       thrash: off refaults the file every
 *                               round; on caches it after a few
 *   001 use_once_mapped         an mmap'd stream: off activates every
 *                               page; on none, and scans half as much;
 *                               off swaps a warm anon set, not a hot one
 *   002 cache_trim_retry        a stale inactive-file size: off, passes
 *                               at low priority scan nothing; on, they
 *                               retry and reclaim anon
 *   003 protect_inode_cache     a protected group's small files: off,
 *                               the inode shrinker drops them under its
 *                               memory.low; on, they stay
 *   004 vm.min_filelist_kbytes  tabs without swap: off thrashes on the
 *                               shared binary before the OOM; on, OOM
 *                               sooner with no refaults
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policy/internal.h"
#include "t-sim.h"
#include "tap.h"

/* A growing text buffer for generated traces. */
struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap ? b->cap * 2 : 1 << 16;
		b->s = realloc(b->s, b->cap);
	}
	b->len += (size_t)n;
}

/* ---- 000 ------------------------------------------------------------------ */

/* thrash ANON FILE ROUNDS at 1/1024 of the mail's scale, in 512 pages. */
static char *thrash(void)
{
	struct buf b = { 0 };

	put(&b, "file 1 480K\nmmap 1 0x100000000 1760K anon\n"
		"w 1 0x100000000 1760K\n"
		"mmap 1 0x400000000 240K file:1 exec shared\n"
		"mmap 1 0x500000000 240K file:1@240K shared\n");
	for (int r = 0; r < 10; r++) {
		put(&b, "phase round%d\n", r);
		for (int p = 0; p < 60; p++)
			put(&b, "r 1 0x%llx\nr 1 0x%llx\n",
			    0x400000000ULL + p * 4096ULL,
			    0x500000000ULL + p * 4096ULL);
	}
	return b.s;
}

static void test_000(void)
{
	char *trace = thrash();
	const char *off[] = { "refault_scan_anon=off", NULL };
	struct sim *s_off = t_run(trace, 512, 4096, off);
	struct sim *s_on = t_run(trace, 512, 4096, NULL);
	unsigned int every = 0, cached = 0;

	if (s_off && s_on) {
		for (int r = 0; r < 10; r++) {
			char ph[16];

			snprintf(ph, sizeof(ph), "round%d", r);
			every += t_phase(s_off, ph, "misses") >= 108;
			cached += r >= 4 && !t_phase(s_on, ph, "misses");
		}
		t_eq(every, 10, "000 off: every round refaults at least 90%% "
		     "of the file");
		t_eq(cached, 6, "000 on: rounds 4-9 are served from cache");
		t_ok(t_stat(s_on, "pswpout") > 0, "000 on: anon was swapped "
		     "out to make room");
	}
	t_sim_free(s_off);
	t_sim_free(s_on);
	free(trace);
}

/* ---- 001 ------------------------------------------------------------------ */

/* Hash an 8M file in 128K mmap chunks, twice, writing a 64-page anon set
 * after every HOT_EVERY chunks. */
static char *stream(int hot_every)
{
	struct buf b = { 0 };

	put(&b, "file 1 8M\nmmap 1 0x100000000 256K anon\n"
		"w 1 0x100000000 256K\n");
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < 64; c++) {
			put(&b, "mmap 1 0x400000000 128K file:1@%dK\n"
				"r 1 0x400000000 128K\n"
				"munmap 1 0x400000000 128K\n", c * 128);
			if ((c + 1) % hot_every == 0)
				put(&b, "w 1 0x100000000 256K\n");
		}
	}
	return b.s;
}

static void test_001(void)
{
	char *trace = stream(1);
	const char *off[] = { "use_once_mapped=off", NULL };
	struct sim *s_off = t_run(trace, 512, 4096, off);
	struct sim *s_on = t_run(trace, 512, 4096, NULL);

	if (s_off && s_on) {
		t_eq(t_stat(s_on, "nr_active_file"), 0,
		     "001 on: no streamed page is ever kept active");
		t_ok(t_stat(s_on, "pgactivate") < 100,
		     "001 on: activations only of the hot set (%llu)",
		     (unsigned long long)t_stat(s_on, "pgactivate"));
		t_ok(t_stat(s_off, "pgactivate") > 2048,
		     "001 off: streamed pages are activated (%llu)",
		     (unsigned long long)t_stat(s_off, "pgactivate"));
		t_eq(t_stat(s_on, "pgscan_file"), t_stat(s_on, "pgsteal_file"),
		     "001 on: every file page scanned is reclaimed");
		t_ok(t_stat(s_off, "pgscan_file") >
		     3 * t_stat(s_off, "pgsteal_file") / 2,
		     "001 off: reclaim scans far more than it frees");
	}
	t_sim_free(s_off);
	t_sim_free(s_on);
	free(trace);
}

/* The mail's "before" swapped the desktop's anon out. The 2.6.33 policy
 * does that to a set touched less often than reclaim cycles anon (a warm
 * set, here written every 32 chunks: 4M streamed through 2M), not to a hot
 * one: anon's active scan leaves a page enough time to be referenced
 * again before it reaches the inactive tail. The patch swaps neither. */
static void test_001_warm(void)
{
	const char *off[] = { "use_once_mapped=off", NULL };
	char *hot = stream(1), *warm = stream(32);
	struct sim *hot_off = t_run(hot, 512, 4096, off);
	struct sim *warm_off = t_run(warm, 512, 4096, off);
	struct sim *warm_on = t_run(warm, 512, 4096, NULL);

	if (hot_off && warm_off && warm_on) {
		t_ok(t_stat(hot_off, "pgscan_anon") > 0 &&
		     t_stat(hot_off, "pswpout") == 0,
		     "001 off: a hot set is scanned (%llu) and never swapped",
		     (unsigned long long)t_stat(hot_off, "pgscan_anon"));
		t_ok(t_stat(warm_off, "pswpout") > 0 &&
		     t_stat(warm_off, "pswpin") > 0,
		     "001 off: a warm set is swapped out and in (%llu, %llu)",
		     (unsigned long long)t_stat(warm_off, "pswpout"),
		     (unsigned long long)t_stat(warm_off, "pswpin"));
		t_eq(t_stat(warm_on, "pswpout"), 0,
		     "001 on: a warm set is not swapped");
	}
	t_sim_free(hot_off);
	t_sim_free(warm_off);
	t_sim_free(warm_on);
	free(hot);
	free(warm);
}

/* ---- 002 ------------------------------------------------------------------ */

/* 200 unreferenced anon pages, an empty file LRU whose size reads 40
 * (vm.debug.lru_size_skew): one node pass at priority 3. */
static void pass_002(bool retry, uint64_t skew, struct scan_control *sc)
{
	struct t_be be = { .swap_total = 1024, .swap_free = 1024 };
	struct pol *pol = t_pol(&be, 1024, 1024);
	char v[16];

	for (int k = 0; k < 200; k++)
		t_add(pol, true);
	pol_set(pol, "cache_trim_retry", retry ? "on" : "off", NULL);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)skew);
	pol_set(pol, "vm.debug.lru_size_skew", v, NULL);
	*sc = (struct scan_control){ .priority = 3, .root = POL_ROOT,
				     .kswapd = true, .may_swap = true,
				     .may_unmap = true, .may_writepage = true,
				     .nr_to_reclaim = 32 };
	pol__shrink_node(pol, sc);
	t_check(pol, "002 pass");
	t_pol_free(pol);
}

/* The same through kswapd: it stops at priority 1, so without a retry
 * it never gets to scan anon once cache_trim_mode turns on. As on the
 * 0-Day boxes, swap is in use: anon refaults since the last run make
 * anon deactivation wanted, which keeps file_is_tiny off. */
static bool kswapd_balances_002(bool retry)
{
	struct t_be be = { .swap_total = 1024, .swap_free = 1024 };
	struct pol *pol = t_pol(&be, 512, 512);
	uint64_t min, low, high;
	bool ok;

	pol_watermarks(pol, &min, &low, &high);
	pol_set(pol, "cache_trim_retry", retry ? "on" : "off", NULL);
	pol_set(pol, "vm.kswapd_cache_trim_retry", "off", NULL);
	pol_set(pol, "vm.debug.lru_size_skew", "40", NULL);
	while (pol_free_pages(pol) > low)
		t_add(pol, true);
	pol__count(pol, POL_ROOT, POL_WORKINGSET_ACTIVATE_ANON, 1);
	pol_kswapd(pol);
	ok = pol_free_pages(pol) > high;
	t_check(pol, "002 kswapd");
	t_pol_free(pol);
	return ok;
}

/* sim.direct_reclaimers: 250 pages written into 256 with kswapd kept
 * away; the allocation that meets the min watermark brings N-1 more
 * reclaimers, each with its own 32-page goal. */
static void crowd_002(unsigned int n, uint64_t *stalls, uint64_t *free_pages)
{
	char v[48];
	const char *sets[] = { "sim.kswapd_delay=1000000", v, NULL };
	struct sim *s;

	snprintf(v, sizeof(v), "sim.direct_reclaimers=%u", n);
	s = t_run("mmap 1 0x100000000 4M anon\nw 1 0x100000000 1000K\n",
		  256, 1024, sets);
	*stalls = s ? t_stat(s, "allocstall_normal") : 0;
	*free_pages = s ? t_stat(s, "nr_free_pages") : 0;
	t_sim_free(s);
}

static void test_002(void)
{
	struct scan_control sc;
	uint64_t stalls1, free1, stalls4, free4;

	pass_002(false, 40, &sc);
	t_ok(sc.cache_trim_mode, "002: the stale size turns cache_trim_mode on");
	t_eq(sc.nr_scanned, 0, "002 off: the pass scans nothing");
	pass_002(true, 40, &sc);
	t_ok(sc.nr_scanned > 0 && sc.nr_reclaimed > 0,
	     "002 on: the retry without cache_trim_mode reclaims anon "
	     "(%llu scanned)", (unsigned long long)sc.nr_scanned);
	pass_002(false, 0, &sc);
	t_ok(!sc.cache_trim_mode && sc.nr_reclaimed > 0,
	     "002: with an exact size there is nothing to retry");
	t_ok(!kswapd_balances_002(false),
	     "002 off: kswapd ends below the high watermark");
	t_ok(kswapd_balances_002(true), "002 on: kswapd balances");
	crowd_002(1, &stalls1, &free1);
	crowd_002(4, &stalls4, &free4);
	t_ok(stalls1 == 1 && stalls4 == 3 && free4 >= free1 + 64,
	     "002 sim.direct_reclaimers=4: the crowd reclaims three batches "
	     "where one would do (%llu and %llu stalls, %llu and %llu pages "
	     "free)", (unsigned long long)stalls1,
	     (unsigned long long)stalls4, (unsigned long long)free1,
	     (unsigned long long)free4);
}

/* ---- 003 ------------------------------------------------------------------ */

/* A group with memory.low 1M holds 8 small files (2M); a filler outside
 * it takes the rest of memory; no swap. Inodes with page cache stay on
 * the inode LRU (pre-5.16). */
static char *inodes(void)
{
	struct buf b = { 0 };

	put(&b, "group g memory.low=1M\nproc 2 group=g\n"
		"set vm.inode.keep_cached_off_lru=off\n");
	for (int f = 1; f <= 8; f++)
		put(&b, "file %d 256K\nread %d 0 256K pid=2\n", f, f);
	put(&b, "mmap 1 0x100000000 2800K anon\nw 1 0x100000000 2800K\n");
	return b.s;
}

static void test_003(void)
{
	char *trace = inodes();
	const char *on[] = { "protect_inode_cache=on", NULL };
	struct sim *s_off = t_run(trace, 1024, 0, NULL);
	struct sim *s_on = t_run(trace, 1024, 0, on);
	uint64_t off_cache, on_cache;

	if (s_off && s_on) {
		sim_stat(s_off, "nr_inactive_file", s_off->groups[0],
			 &off_cache);
		sim_stat(s_on, "nr_inactive_file", s_on->groups[0], &on_cache);
		t_ok(t_stat(s_off, "kswapd_inodesteal") +
		     t_stat(s_off, "pginodesteal") > 0,
		     "003 off: the inode shrinker drops page cache");
		t_ok(off_cache < 256, "003 off: the group ends below its "
		     "memory.low (%llu pages)", (unsigned long long)off_cache);
		t_eq(t_stat(s_on, "kswapd_inodesteal") +
		     t_stat(s_on, "pginodesteal"), 0,
		     "003 on: no page cache dropped with inodes");
		t_ok(on_cache >= 250, "003 on: the group keeps about its "
		     "memory.low (%llu pages)", (unsigned long long)on_cache);
	}
	t_sim_free(s_off);
	t_sim_free(s_on);
	free(trace);
}

/* ---- 004 ------------------------------------------------------------------ */

/* Tabs, no swap: each maps a 512K "browser binary" and has a 160K heap;
 * after each new tab, three sweeps touch every tab's heap and binary. */
static char *tabs(void)
{
	struct buf b = { 0 };

	put(&b, "file 1 512K\n");
	for (int t = 1; t <= 15; t++) {
		put(&b, "phase tab%d\nmmap %d 0x400000000 512K file:1 exec "
			"private\nmmap %d 0x100000000 160K anon\n"
			"w %d 0x100000000 160K\n", t, 100 + t, 100 + t, 100 + t);
		for (int sweep = 0; sweep < 3; sweep++)
			for (int p = 1; p <= t; p++)
				put(&b, "r %d 0x100000000 160K\n"
					"r %d 0x400000000 512K\n", 100 + p,
				    100 + p);
	}
	return b.s;
}

/* Misses before the phase in which the first OOM kill happened. */
static uint64_t misses_to_oom(const struct sim *s, int *tab)
{
	uint64_t misses = 0;

	for (size_t p = 0; p < s->nr_phases; p++) {
		const struct pgr_phase *ph = &s->phases[p];
		const struct sim_phase_counts *c = &s->phase_counts[p];

		if (ph->end[POL_OOM_KILL] > ph->start[POL_OOM_KILL]) {
			*tab = (int)p + 1;
			return misses;
		}
		misses += c->end.misses - c->start.misses;
	}
	*tab = 0;
	return misses;
}

static void test_004(void)
{
	char *trace = tabs();
	const char *on[] = { "vm.min_filelist_kbytes=600", NULL };
	struct sim *s_off = t_run(trace, 512, 0, NULL);
	struct sim *s_on = t_run(trace, 512, 0, on);
	uint64_t m_off, m_on;
	int tab_off, tab_on;

	if (s_off && s_on) {
		m_off = misses_to_oom(s_off, &tab_off);
		m_on = misses_to_oom(s_on, &tab_on);
		t_ok(tab_off && tab_on, "004: both end in an OOM kill (tab %d, "
		     "tab %d)", tab_off, tab_on);
		t_ok(tab_on < tab_off, "004 on: the OOM comes sooner");
		t_ok(m_on * 5 < m_off, "004 on: far less I/O before it "
		     "(%llu vs %llu page reads)", (unsigned long long)m_on,
		     (unsigned long long)m_off);
		t_eq(t_stat(s_on, "workingset_refault_file"), 0,
		     "004 on: the binary never refaults");
		t_ok(t_stat(s_off, "workingset_refault_file") > 10000,
		     "004 off: it thrashes (%llu refaults)",
		     (unsigned long long)t_stat(s_off,
						"workingset_refault_file"));
	}
	t_sim_free(s_off);
	t_sim_free(s_on);
	free(trace);
}

int main(void)
{
	test_000();
	test_001();
	test_001_warm();
	test_002();
	test_003();
	test_004();
	return t_done();
}
