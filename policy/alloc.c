/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - watermarks, the allocator's reclaim decisions and the OOM
 * decision (reclaim-policy.md §6.1, §6.4, §6.6).
 *
 * The budget is the RAM of a one-zone machine. An allocation
 *
 *   free > low            takes a page
 *   min < free <= low     wakes kswapd, takes a page
 *   free <= min           direct reclaim, retried while it makes progress
 *                         and the min mark is reachable, else OOM
 *
 * and before that a charge over a group's memory.max reclaims that group
 * (limit reclaim) up to 16 times without progress, else a group OOM.
 */
#include <assert.h>

#include "internal.h"

static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* __setup_per_zone_wmarks() for the budget as the single zone. */
void pol__setup_watermarks(struct pol *pol)
{
	uint64_t kbytes = pol->budget * 4;
	uint64_t min_kb, min, gap, scaled;

	if (pol->t.min_free_kbytes >= 0) {
		min_kb = (uint64_t)pol->t.min_free_kbytes;
	} else {
		min_kb = isqrt(kbytes * 16);
		if (min_kb < 128)
			min_kb = 128;
		if (min_kb > 262144)
			min_kb = 262144;
	}
	min = min_kb / 4;
	gap = min / 4;
	scaled = pol->budget * (uint64_t)pol->t.watermark_scale_factor / 10000;
	if (scaled > gap)
		gap = scaled;
	pol->wmark_min = min;
	pol->wmark_low = min + gap;
	pol->wmark_high = min + 2 * gap;
}

uint64_t pol_free_pages(const struct pol *pol)
{
	return pol->budget > pol->nr_allocated ?
	       pol->budget - pol->nr_allocated : 0;
}

void pol_watermarks(const struct pol *pol, uint64_t *min, uint64_t *low,
		    uint64_t *high)
{
	*min = pol->wmark_min;
	*low = pol->wmark_low;
	*high = pol->wmark_high;
}

static void wakeup_kswapd(struct pol *pol)
{
	/* kswapd gives up after 16 fruitless runs until some reclaim
	 * succeeds again (§6.3). */
	if (pol->kswapd_woken || pol->kswapd_failures >= MAX_RECLAIM_RETRIES)
		return;
	pol->kswapd_woken = true;
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_KSWAPD_WAKE });
}

/* zone_reclaimable_pages(), less what seed 004 protects. */
static uint64_t reclaimable(const struct pol *pol)
{
	uint64_t file = pol__lru_size(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, true) +
			pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, true);
	uint64_t floor = (uint64_t)pol->t.min_filelist_kbytes >> 2;
	uint64_t total, free;

	if (floor && !pol->t.min_filelist_counts_reclaimable)
		file = file > floor ? file - floor : 0;
	pol->be->swap_space(pol->ctx, &total, &free);
	if (free)
		file += pol__lru_size(pol, POL_ROOT, POL_LRU_ACTIVE_ANON, true) +
			pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, true);
	return file;
}

/* should_reclaim_retry(): go on with direct reclaim, or declare OOM. */
static bool should_retry(struct pol *pol, uint64_t progress)
{
	if (progress)
		pol->no_progress_loops = 0;
	else
		pol->no_progress_loops++;
	if (pol->no_progress_loops > (unsigned int)pol->t.oom_max_no_progress)
		return false;
	return reclaimable(pol) + pol_free_pages(pol) > pol->wmark_min;
}

/* The nearest group at or above @group whose memory.max a new page
 * would pass, or -1. */
static int over_limit(const struct pol *pol, int group)
{
	for (int g = group; g >= 0; g = pol__grp(pol, g)->parent)
		if (pol__grp(pol, g)->usage + 1 > pol__grp(pol, g)->max)
			return g;
	return -1;
}

/* try_charge_memcg(): limit reclaim until the page fits. */
static bool charge_fits(struct pol *pol, int group)
{
	int retries = MAX_RECLAIM_RETRIES;
	int over;

	while ((over = over_limit(pol, group)) >= 0) {
		uint64_t nr = pol_group_reclaim(pol, over, 1);

		if (over_limit(pol, group) < 0)
			return true;
		/* Progress retries without using up a try (small charges). */
		if (nr)
			continue;
		if (--retries < 0)
			return false;
	}
	return true;
}

static uint32_t take_free(struct pol *pol, int group)
{
	uint32_t i = pol->free_list.head;
	struct pol_page *p = pg(pol, i);

	pol__list_del(pol, &pol->free_list, i);
	p->lru = POL_LRU_ALLOCATED;
	p->group = (uint16_t)group;
	p->flags = 0;
	p->inode = POL_NONE;
	pol->nr_allocated++;
	pol__charge(pol, group, 1);
	pol__count(pol, group, POL_PGALLOC, 1);
	return i;
}

bool pol_page_alloc_reserve(struct pol *pol, int group, uint32_t *page)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    !pol__grp(pol, group)->live)
		group = POL_ROOT;
	if (pol->free_list.head == POL_NONE)
		return false;
	*page = take_free(pol, group);
	return true;
}

bool pol_reclaim_failed(struct pol *pol, uint64_t progress)
{
	return !should_retry(pol, progress);
}

enum pol_alloc_result pol_page_alloc_nowait(struct pol *pol, int group,
					    uint32_t *page, int *over)
{
	int g;

	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    !pol__grp(pol, group)->live)
		group = POL_ROOT;
	g = over_limit(pol, group);
	if (g >= 0) {
		*over = g;
		return POL_ALLOC_WAIT_GROUP;
	}
	if (pol_free_pages(pol) <= pol->wmark_low)
		wakeup_kswapd(pol);
	if (pol_free_pages(pol) <= pol->wmark_min ||
	    pol->free_list.head == POL_NONE)
		return POL_ALLOC_WAIT;
	pol->no_progress_loops = 0;
	*page = take_free(pol, group);
	return POL_ALLOC_OK;
}

enum pol_alloc_result pol_page_alloc(struct pol *pol, int group,
				     uint32_t *page)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    !pol__grp(pol, group)->live)
		group = POL_ROOT;
	if (!charge_fits(pol, group))
		return POL_ALLOC_OOM_GROUP;

	if (pol_free_pages(pol) <= pol->wmark_low)
		wakeup_kswapd(pol);
	if (pol_free_pages(pol) <= pol->wmark_min ||
	    pol->free_list.head == POL_NONE) {
		pol->no_progress_loops = 0;
		for (;;) {
			uint64_t progress = pol_direct_reclaim(pol);

			if (pol_free_pages(pol) > pol->wmark_min &&
			    pol->free_list.head != POL_NONE)
				break;
			if (!should_retry(pol, progress))
				return POL_ALLOC_OOM;
		}
	}
	assert(pol->free_list.head != POL_NONE);
	*page = take_free(pol, group);
	return POL_ALLOC_OK;
}
