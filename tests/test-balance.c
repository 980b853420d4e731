/* SPDX-License-Identifier: MIT */
/*
 * test-balance.c - how much of each list reclaim scans (reclaim-policy.md
 * §3, §4): the inactive:active target ratio at its boundaries, the steps
 * of get_scan_count() in order, the cost model's fractions computed here
 * independently, the kernel's rounding at small sizes, protection
 * scaling, and seed 000's 4.19 refault rule.
 */
#include <string.h>

#include "../policy/internal.h"
#include "t-sim.h"
#include "tap.h"

static struct pol *lists(struct t_be *be, uint32_t nr, uint64_t ia,
			 uint64_t aa, uint64_t in_f, uint64_t af)
{
	/* Room above the watermarks, so that no reclaim runs. */
	struct pol *pol = t_pol(be, nr + 8192, nr + 8192);

	for (uint64_t k = 0; k < ia + aa; k++) {
		uint32_t i = t_add(pol, true);

		if (k >= ia)
			pol__lru_move(pol, i, POL_LRU_ACTIVE_ANON, false);
	}
	for (uint64_t k = 0; k < in_f + af; k++) {
		uint32_t i = t_add(pol, false);

		if (k >= in_f)
			pol__lru_move(pol, i, POL_LRU_ACTIVE_FILE, false);
	}
	return pol;
}

static void free_lists(struct pol *pol)
{
	t_pol_free(pol);
}

/* §3.1: ratio 1 below 1 GiB, isqrt(10 * GiB) above. */
static void test_ratio(void)
{
	struct t_be be = { 0 };
	struct pol *pol;

	pol = lists(&be, 1000, 0, 0, 300, 299);
	t_ok(!pol__inactive_is_low(pol, POL_ROOT, TYPE_FILE, false),
	     "under 1 GiB: 300 inactive, 299 active is not low");
	free_lists(pol);
	pol = lists(&be, 1000, 0, 0, 300, 301);
	t_ok(pol__inactive_is_low(pol, POL_ROOT, TYPE_FILE, false),
	     "under 1 GiB: 300 inactive, 301 active is low");
	free_lists(pol);
	/* 1 GiB = 262144 pages: ratio isqrt(10) = 3. */
	pol = lists(&be, 262144, 0, 0, 65536, 196608);
	t_ok(!pol__inactive_is_low(pol, POL_ROOT, TYPE_FILE, false),
	     "1 GiB: inactive * 3 == active is not low");
	free_lists(pol);
	pol = lists(&be, 262145, 0, 0, 65535, 196610);
	t_ok(pol__inactive_is_low(pol, POL_ROOT, TYPE_FILE, false),
	     "1 GiB: inactive * 3 < active is low");
	pol_set(pol, "vm.balance.inactive_ratio", "4", NULL);
	t_ok(!pol__inactive_is_low(pol, POL_ROOT, TYPE_FILE, false),
	     "vm.balance.inactive_ratio=4 overrides the formula");
	free_lists(pol);
}

static void scan(struct pol *pol, struct scan_control *sc,
		 uint64_t nr[POL_NR_LRU])
{
	pol__get_scan_count(pol, POL_ROOT, sc, nr);
}

static struct scan_control base_sc(int priority)
{
	return (struct scan_control){ .priority = priority, .root = POL_ROOT,
				      .may_swap = true, .may_writepage = true,
				      .may_unmap = true };
}

static void test_steps(void)
{
	struct t_be be = { .swap_total = 4096, .swap_free = 4096 };
	struct pol *pol = lists(&be, 4096, 1000, 1000, 1000, 500);
	struct scan_control sc;
	uint64_t nr[POL_NR_LRU];

	sc = base_sc(0);
	scan(pol, &sc, nr);
	t_ok(nr[0] == 1000 && nr[1] == 1000 && nr[2] == 1000 && nr[3] == 500,
	     "priority 0: SCAN_EQUAL scans every list whole");
	sc = base_sc(2);
	sc.cache_trim_mode = true;
	scan(pol, &sc, nr);
	t_ok(!nr[0] && !nr[1] && nr[2] == 250 && nr[3] == 125,
	     "cache_trim_mode: SCAN_FILE, size >> priority");
	sc = base_sc(2);
	sc.file_is_tiny = true;
	sc.cache_trim_mode = true;
	scan(pol, &sc, nr);
	t_ok(nr[0] == 250 && !nr[2], "file_is_tiny wins over cache_trim_mode: "
	     "SCAN_ANON");
	be.swap_free = 0;
	sc = base_sc(2);
	scan(pol, &sc, nr);
	t_ok(!nr[0] && !nr[1] && nr[2] == 250,
	     "no free swap: SCAN_FILE, even before anything else");
	be.swap_free = 4096;
	sc = base_sc(2);
	sc.limit = true;
	pol_set(pol, "vm.swappiness", "0", NULL);
	scan(pol, &sc, nr);
	t_ok(!nr[0] && nr[2] == 250, "limit reclaim, swappiness 0: SCAN_FILE");
	sc = base_sc(0);
	scan(pol, &sc, nr);
	t_ok(nr[0] == 0 && nr[2] == 1000,
	     "global, swappiness 0, priority 0: no SCAN_EQUAL, anon fraction 0");
	pol_set(pol, "vm.swappiness", "60", NULL);
	/* Rounding: 1000 >> 12 is 0. */
	sc = base_sc(12);
	scan(pol, &sc, nr);
	t_ok(!nr[0] && !nr[1] && !nr[2] && !nr[3],
	     "priority 12: lists under 4096 pages are not scanned at all");
	t_check(pol, "steps");
	free_lists(pol);
}

/* §4.3 recomputed here from the text, not from the library. */
static void expect_fraction(uint64_t swappiness, uint64_t a, uint64_t f,
			    uint64_t size_shifted, uint64_t *anon,
			    uint64_t *file)
{
	uint64_t A = (a + f) + a, F = (a + f) + f, T = A + F;
	uint64_t ap = swappiness * (T + 1) / (A + 1);
	uint64_t fp = (200 - swappiness) * (T + 1) / (F + 1);

	*anon = size_shifted * ap / (ap + fp);
	*file = size_shifted * fp / (ap + fp);
}

static void test_cost_model(void)
{
	static const struct { uint64_t swp, a, f; } cases[] = {
		{ 60, 0, 0 }, { 60, 1000, 10 }, { 60, 10, 1000 },
		{ 100, 500, 500 }, { 200, 7, 3 }, { 1, 0, 90000 },
	};
	struct t_be be = { .swap_total = 8192, .swap_free = 8192 };
	struct pol *pol = lists(&be, 8192, 4000, 0, 4000, 0);

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct scan_control sc = base_sc(1);
		uint64_t nr[POL_NR_LRU], wa, wf;
		char v[8];

		snprintf(v, sizeof(v), "%llu", (unsigned long long)cases[k].swp);
		pol_set(pol, "vm.swappiness", v, NULL);
		sc.anon_cost = cases[k].a;
		sc.file_cost = cases[k].f;
		scan(pol, &sc, nr);
		expect_fraction(cases[k].swp, cases[k].a, cases[k].f, 2000,
				&wa, &wf);
		t_ok(nr[POL_LRU_INACTIVE_ANON] == wa &&
		     nr[POL_LRU_INACTIVE_FILE] == wf,
		     "SCAN_FRACT swappiness %llu, costs %llu/%llu: %llu/%llu",
		     (unsigned long long)cases[k].swp,
		     (unsigned long long)cases[k].a,
		     (unsigned long long)cases[k].f, (unsigned long long)wa,
		     (unsigned long long)wf);
	}
	free_lists(pol);
}

/* §4.4: a group above its memory.low is scanned in proportion to the
 * unprotected part of its usage, at least 32 pages before the shift. */
static void test_protection(void)
{
	struct t_be be = { .swap_total = 8192, .swap_free = 8192 };
	struct pol *pol = t_pol(&be, 8192, 8192);
	int g = pol_group_create(pol, "g", POL_ROOT);
	struct scan_control sc = base_sc(0);
	uint64_t nr[POL_NR_LRU];

	for (int k = 0; k < 1000; k++) {
		struct pol_add how = { .inode = POL_NONE };
		uint32_t i;

		pol_page_alloc(pol, g, &i);
		pol_page_add(pol, i, &how);
	}
	pol_set(pol, "memory.low@g", "2000K", NULL);	/* 500 pages */
	pol__calculate_protection(pol, POL_ROOT, g);
	pol__get_scan_count(pol, g, &sc, nr);
	/* scan = 1000 - 1000 * 500 / 1001 = 501 */
	t_eq(nr[POL_LRU_INACTIVE_FILE], 501, "half protected: half scanned");
	t_ok(sc.memcg_low_skipped, "and memcg_low_skipped is recorded");
	sc = base_sc(0);
	sc.memcg_low_reclaim = true;
	pol__get_scan_count(pol, g, &sc, nr);
	t_eq(nr[POL_LRU_INACTIVE_FILE], 1000,
	     "memcg_low_reclaim: memory.low ignored");
	pol_set(pol, "memory.low@g", "3996K", NULL);	/* 999 pages */
	pol__calculate_protection(pol, POL_ROOT, g);
	sc = base_sc(0);
	pol__get_scan_count(pol, g, &sc, nr);
	t_eq(nr[POL_LRU_INACTIVE_FILE], 32,
	     "nearly all protected: at least SWAP_CLUSTER_MAX");
	sc = base_sc(0);
	sc.root = g;
	pol__get_scan_count(pol, g, &sc, nr);
	t_eq(nr[POL_LRU_INACTIVE_FILE], 1000,
	     "the reclaim root's own protection does not count");
	t_check(pol, "protection");
	t_pol_free(pol);
}

/* §3.2: 4.19's refault rule. Refaults make the file list "low" where
 * active lists are shrunk; seed 000 makes get_scan_count see it too. */
static void test_refault_rule(void)
{
	struct t_be be = { .swap_total = 4096, .swap_free = 4096 };
	struct pol *pol = lists(&be, 4096, 1000, 0, 1000, 500);
	struct scan_control sc;
	uint64_t nr[POL_NR_LRU];

	pol_set(pol, "vm.balance.mode", "legacy419", NULL);
	sc = base_sc(2);
	scan(pol, &sc, nr);
	t_ok(!nr[0] && nr[2] == 250, "4.19, no refaults, enough inactive "
	     "file: SCAN_FILE");
	pol__count(pol, POL_ROOT, POL_WORKINGSET_ACTIVATE_FILE, 1);
	t_ok(pol__legacy_inactive_list_is_low(pol, POL_ROOT, TYPE_FILE, true),
	     "refaults: the active file list may be shrunk (ratio 0)");
	sc = base_sc(2);
	scan(pol, &sc, nr);
	t_ok(!nr[0] && nr[2] == 250,
	     "before seed 000: get_scan_count still picks SCAN_FILE");
	pol_set(pol, "vm.balance.mode", "seed000", NULL);
	sc = base_sc(2);
	scan(pol, &sc, nr);
	t_ok(nr[0] > 0, "seed 000: refaults make it scan anon too");
	pol__snapshot_refaults(pol, POL_ROOT);
	sc = base_sc(2);
	scan(pol, &sc, nr);
	t_ok(!nr[0], "after the snapshot: no new refaults, SCAN_FILE again");
	t_check(pol, "refault rule");
	free_lists(pol);
}

int main(void)
{
	test_ratio();
	test_steps();
	test_cost_model();
	test_protection();
	test_refault_rule();
	return t_done();
}
