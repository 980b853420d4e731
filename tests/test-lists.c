/* SPDX-License-Identifier: MIT */
/*
 * test-lists.c - descriptors and lists: where pages enter (§1.3), how
 * they move and leave, with the invariants checked after every step, and
 * descriptors embedded in a caller's larger struct.
 */
#include <stdlib.h>
#include <string.h>

#include "../policy/pol.h"
#include "t-sim.h"
#include "tap.h"

static uint64_t nr(const struct pol *pol, enum pol_item item)
{
	return pol_read(pol, -1, item);
}

static void test_entry(void)
{
	struct t_be be = { .swap_total = 100, .swap_free = 100 };
	struct pol *pol = t_pol(&be, 128, 128);
	uint32_t a, f, i;
	struct pol_add swapin = { .anon = true, .swapin = true,
				  .swapcache = true, .inode = POL_NONE };

	a = t_add(pol, true);
	t_eq(pol_page(pol, a)->lru, POL_LRU_INACTIVE_ANON,
	     "5.9+: a new anon page starts inactive");
	f = t_add(pol, false);
	t_eq(pol_page(pol, f)->lru, POL_LRU_INACTIVE_FILE,
	     "a new file page starts inactive");
	t_check(pol, "two adds");

	pol_set(pol, "vm.lru.anon_starts_active", "on", NULL);
	i = t_add(pol, true);
	t_eq(pol_page(pol, i)->lru, POL_LRU_ACTIVE_ANON,
	     "<=5.8: a new anon page starts active");
	pol_set(pol, "vm.lru.swapin_activate", "on", NULL);
	pol_page_alloc(pol, POL_ROOT, &i);
	pol_page_add(pol, i, &swapin);
	t_eq(pol_page(pol, i)->lru, POL_LRU_ACTIVE_ANON,
	     "<=5.8: a swap-in is activated unconditionally");
	t_ok(pol_page(pol, i)->flags & POL_PG_SWAPCACHE,
	     "a swap-in keeps its swap copy");
	t_check(pol, "swap-in");

	t_eq(nr(pol, POL_NR_INACTIVE_ANON), 1, "nr_inactive_anon");
	t_eq(nr(pol, POL_NR_ACTIVE_ANON), 2, "nr_active_anon");
	t_eq(nr(pol, POL_NR_INACTIVE_FILE), 1, "nr_inactive_file");
	t_eq(nr(pol, POL_NR_FREE_PAGES), 124, "nr_free_pages");
	pol_page_free(pol, a);
	t_eq(nr(pol, POL_NR_INACTIVE_ANON), 0, "a freed page leaves its list");
	t_eq(pol_page(pol, a)->lru, POL_LRU_FREE, "and is free");
	t_eq(nr(pol, POL_PGFREE), 1, "pgfree counts it");
	t_eq(pol_group_usage(pol, POL_ROOT), 3, "root usage follows");
	t_check(pol, "free");
	t_pol_free(pol);
}

static void test_order(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t p[4];

	for (int k = 0; k < 4; k++)
		p[k] = t_add(pol, false);
	/* Newest at the head: p3 p2 p1 p0 (tail). */
	t_eq(pol_page(pol, p[3])->prev, POL_NONE, "the newest is the head");
	t_eq(pol_page(pol, p[0])->next, POL_NONE, "the oldest is the tail");
	t_eq(pol_page(pol, p[2])->next, p[1], "links in order");
	/* The scan takes the tail: p0 is found not young, and goes. */
	t_eq(pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1), 1,
	     "one page reclaimed from the tail");
	t_eq(be.evicted[0], p[0], "the tail page is the victim");
	t_ok(be.shadows[0] != 0, "an evicted file page leaves a shadow");
	t_check(pol, "scan");
	/* mark_page_accessed twice promotes; the page moves to the head of
	 * the active list. */
	pol_mark_accessed(pol, p[1]);
	t_eq(pol_page(pol, p[1])->lru, POL_LRU_INACTIVE_FILE,
	     "first access: referenced only");
	pol_mark_accessed(pol, p[1]);
	t_eq(pol_page(pol, p[1])->lru, POL_LRU_ACTIVE_FILE,
	     "second access: activated");
	t_ok(!(pol_page(pol, p[1])->flags & POL_PG_REFERENCED),
	     "activation clears PG_referenced");
	t_eq(pol_read(pol, -1, POL_PGACTIVATE), 1, "pgactivate counts it");
	pol_page_cold(pol, p[1]);
	t_eq(pol_page(pol, p[1])->lru, POL_LRU_INACTIVE_FILE,
	     "MADV_COLD deactivates");
	t_eq(pol_read(pol, -1, POL_PGDEACTIVATE), 1, "pgdeactivate counts it");
	t_check(pol, "hints");
	t_pol_free(pol);
}

/* The caller embeds struct pol_page in a bigger descriptor. */
struct big_page {
	uint64_t before;
	struct pol_page pol;
	uint64_t after;
};

#define MAGIC 0xfeedfacecafebeefULL

static void test_embedded(void)
{
	struct t_be be = { .swap_total = 64, .swap_free = 64 };
	struct big_page *pages = calloc(64, sizeof(*pages));
	struct pol_setup bad;
	struct pol *pol;
	bool intact = true;

	for (int k = 0; k < 64; k++)
		pages[k].before = pages[k].after = MAGIC;
	pol = t_pol_at(&be, &pages[0].pol, sizeof(*pages), 64, 64);
	t_ok(pol != NULL, "descriptors inside a larger struct");
	for (int k = 0; k < 40; k++)
		t_add(pol, k & 1);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 8);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 8);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 8);
	t_check(pol, "embedded scans");
	for (int k = 0; k < 64; k++)
		intact &= pages[k].before == MAGIC && pages[k].after == MAGIC;
	t_ok(intact, "the caller's own fields are untouched");
	t_ok(pol_page(pol, 5) == &pages[5].pol, "pol_page() applies the stride");
	t_ok(be.nr_evicted > 0, "and reclaim works through it");
	pol_destroy(pol);

	bad = (struct pol_setup){ .budget = 64, .pages = &pages[0].pol,
				  .page_stride = 8, .nr_pages = 64 };
	t_ok(pol_create(&bad) == NULL, "no backend, tiny stride: refused");
	free(pages);
}

int main(void)
{
	t_ok(sizeof(struct pol_page) <= 32, "a page descriptor is %zu bytes",
	     sizeof(struct pol_page));
	test_entry();
	test_order();
	test_embedded();
	return t_done();
}
