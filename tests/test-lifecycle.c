/* SPDX-License-Identifier: MIT */
/*
 * test-lifecycle.c - applying verdicts (reclaim-policy.md §2.3) against a
 * backend whose answers the test scripts: write-out in flight and its
 * completion, pages found under writeback, swap full, unmap or eviction
 * refused, the swap copy dropped on activation, mlocked pages, and the
 * allocator's OOM when nothing can be reclaimed. (The §2.4 lifecycles
 * themselves are the golden traces in tests/traces.)
 */
#include "../policy/pol.h"
#include "t-sim.h"
#include "tap.h"

static const struct pol_page *P(const struct pol *pol, uint32_t i)
{
	return pol_page(pol, i);
}

static void test_async_writeout(void)
{
	struct t_be be = { .swap_total = 64, .swap_free = 64,
			   .writeout = POL_WRITEOUT_STARTED };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t a = t_add(pol, true), b = t_add(pol, true);

	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 2);
	t_eq(be.nr_writeouts, 2, "unreferenced anon pages are written out");
	t_ok((P(pol, a)->flags & (POL_PG_WRITEBACK | POL_PG_RECLAIM)) ==
	     (POL_PG_WRITEBACK | POL_PG_RECLAIM),
	     "in flight: PG_writeback and PG_reclaim");
	t_eq(P(pol, a)->lru, POL_LRU_INACTIVE_ANON, "kept on the inactive list");
	t_eq(pol_read(pol, -1, POL_PSWPOUT), 2, "pswpout counted at submission");
	t_eq(pol_read(pol, -1, POL_NR_WRITEBACK), 2, "nr_writeback");
	t_eq(be.nr_evicted, 0, "nothing freed yet");
	t_check(pol, "writeout started");

	/* A scan meeting a page under writeback activates it. */
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_eq(P(pol, a)->lru, POL_LRU_ACTIVE_ANON,
	     "a page met under writeback is activated");
	/* Completion rotates PG_reclaim pages to the inactive tail. */
	pol_writeback_done(pol, a, true);
	pol_writeback_done(pol, b, true);
	t_eq(P(pol, a)->lru, POL_LRU_INACTIVE_ANON,
	     "completion moves it back to the inactive list");
	t_eq(pol_read(pol, -1, POL_PGROTATED), 2, "pgrotated");
	t_eq(pol_read(pol, -1, POL_NR_WRITEBACK), 0, "writeback done");
	t_check(pol, "writeback done");
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 2);
	t_eq(be.nr_evicted, 2, "the next scan frees both, clean now");
	t_eq(be.nr_writeouts, 2, "without writing them again");
	t_ok(be.shadows[0] && be.shadows[1], "both leave shadows (5.9+)");
	t_check(pol, "evicted");
	t_pol_free(pol);
}

static void test_refusals(void)
{
	struct t_be be = { .swap_total = 64, .swap_free = 0 };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t a = t_add(pol, true), f = t_add(pol, false);

	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_eq(P(pol, a)->lru, POL_LRU_ACTIVE_ANON,
	     "swap full: the anon page is activated");
	be.unmap_err = -11;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	t_eq(P(pol, f)->lru, POL_LRU_ACTIVE_FILE,
	     "unmap refused: activated");
	be.unmap_err = 0;
	pol_page_cold(pol, f);
	be.evict_err = -16;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	t_eq(P(pol, f)->lru, POL_LRU_INACTIVE_FILE,
	     "eviction refused (someone holds it): kept inactive");
	t_eq(pol_read(pol, -1, POL_NR_SHADOWS), 0, "and no shadow counted");
	t_check(pol, "refusals");

	be.evict_err = 0;
	be.vmflags[f] = POL_VM_LOCKED;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	t_eq(P(pol, f)->lru, POL_LRU_UNEVICTABLE,
	     "a VM_LOCKED mapping makes the page unevictable");
	pol_page_mlock(pol, f, false);
	t_eq(P(pol, f)->lru, POL_LRU_INACTIVE_FILE, "munlock puts it back");
	t_check(pol, "mlock");
	t_pol_free(pol);
}

static void test_swap_half_full(void)
{
	struct t_be be = { .swap_total = 4, .swap_free = 4 };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t a = t_add(pol, true);
	struct pol_add swapin = { .anon = true, .swapin = true,
				  .swapcache = true, .inode = POL_NONE };
	uint32_t s;

	pol_page_alloc(pol, POL_ROOT, &s);
	pol_page_add(pol, s, &swapin);
	be.swap_free = 1;		/* 3 of 4 slots used */
	be.young[s] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 2);
	be.young[s] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 2);
	t_eq(P(pol, s)->lru, POL_LRU_ACTIVE_ANON, "young twice: activated");
	t_ok(be.swap_dropped, "swap more than half full: its copy is dropped");
	t_ok(!(P(pol, s)->flags & POL_PG_SWAPCACHE) &&
	     (P(pol, s)->flags & POL_PG_DIRTY),
	     "and the page must be written again");
	(void)a;
	t_check(pol, "swap drop");
	t_pol_free(pol);
}

static void test_dirty_file(void)
{
	struct t_be be = { .writeout = POL_WRITEOUT_STARTED };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t f = t_add(pol, false);

	pol_page_dirty(pol, f, true);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	t_eq(P(pol, f)->lru, POL_LRU_ACTIVE_FILE,
	     "a dirty file page is handed to write-back and activated");
	t_eq(pol_read(pol, -1, POL_NR_VMSCAN_IMMEDIATE_RECLAIM), 1,
	     "nr_vmscan_immediate_reclaim");
	t_eq(pol_read(pol, -1, POL_PSWPOUT), 0, "not a swap-out");
	t_eq(pol_read(pol, -1, POL_NR_VMSCAN_WRITE), 0,
	     "nor a write by reclaim");
	pol_writeback_done(pol, f, false);
	t_ok(P(pol, f)->flags & POL_PG_DIRTY, "a failed write leaves it dirty");
	t_check(pol, "dirty file");
	t_pol_free(pol);
}

static void test_oom_without_swap(void)
{
	struct t_be be = { 0 };		/* no swap configured */
	struct pol *pol = t_pol(&be, 64, 64);
	enum pol_alloc_result r = POL_ALLOC_OK;
	uint64_t min, low, high;
	uint32_t i;
	int n = 0;

	while (n < 100 && (r = pol_page_alloc(pol, POL_ROOT, &i)) ==
	       POL_ALLOC_OK) {
		struct pol_add how = { .anon = true, .inode = POL_NONE };

		pol_page_add(pol, i, &how);
		n++;
	}
	t_eq(r, POL_ALLOC_OOM, "no swap, all anon: OOM");
	pol_watermarks(pol, &min, &low, &high);
	t_eq(n, 64 - min, "after the pages above the min watermark");
	t_eq(pol_read(pol, -1, POL_PGSCAN_ANON), 0,
	     "anon was never scanned without swap");
	t_ok(pol_read(pol, -1, POL_ALLOCSTALL) > 0, "direct reclaim ran");
	t_check(pol, "oom");
	t_pol_free(pol);
}

/* Evictions are flushed once a batch, after its last one (the pager
 * punches runs of file pages then); a batch that frees nothing does not
 * flush. */
static void test_unmap_flush(void)
{
	struct t_be be = { .swap_total = 0 };
	struct pol *pol = t_pol(&be, 64, 64);

	for (int k = 0; k < 8; k++)
		t_add(pol, false);
	be.evict_err = -16;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 8);
	t_eq(be.nr_flushes, 0, "nothing freed: no flush");
	be.evict_err = 0;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 8);
	t_eq(be.nr_evicted, 8, "eight clean file pages freed");
	t_eq(be.nr_flushes, 1, "one flush for the batch");
	t_eq(be.evicted_at_flush, 8, "after the batch's last eviction");
	t_check(pol, "flushed");
	t_pol_free(pol);
}

int main(void)
{
	test_async_writeout();
	test_refusals();
	test_swap_half_full();
	test_dirty_file();
	test_oom_without_swap();
	test_unmap_flush();
	return t_done();
}
