/* SPDX-License-Identifier: MIT */
/*
 * balance.c - how much of each list to scan (reclaim-policy.md §3, §4):
 * the inactive:active target ratio, the refault rule of seed 000 in its
 * 4.19 shape, pol__get_scan_count() with both cost models, and the per-list
 * scan targets under memory.min/low protection.
 *
 * All integer arithmetic is the kernel's: at small sizes the rounding
 * decides (32 pages >> 12 is 0), so nothing here is "simplified".
 */
#include "internal.h"

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = UINT64_C(1) << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static uint64_t inactive_ratio(const struct pol *pol, uint64_t inactive,
			       uint64_t active)
{
	uint64_t gb = (inactive + active) >> (30 - 12);

	if (pol->t.inactive_ratio > 0)
		return (uint64_t)pol->t.inactive_ratio;
	return gb ? isqrt(10 * gb) : 1;
}

/* §3.1: is the inactive list of @type too small against the active one?
 * @hier: sizes of the whole subtree (5.5+ at the reclaim root). */
bool pol__inactive_is_low(const struct pol *pol, int group, int type, bool hier)
{
	uint64_t inactive = pol__lru_size(pol, group, lru_of(type, false), hier);
	uint64_t active = pol__lru_size(pol, group, lru_of(type, true), hier);

	return inactive * inactive_ratio(pol, inactive, active) < active;
}

static uint64_t swap_total(const struct pol *pol, uint64_t *free)
{
	uint64_t total;

	pol->be->swap_space(pol->ctx, &total, free);
	return total;
}

/*
 * §3.2: the 4.19 inactive_list_is_low() with its refault rule, per
 * lruvec. Before seed 000 the rule applied only where lists are actually
 * shrunk (@actual_reclaim); seed 000 applies it in pol__get_scan_count() too.
 */
bool pol__legacy_inactive_list_is_low(const struct pol *pol, int group, int type,
				 bool actual_reclaim)
{
	const struct group *g = pol__grp(pol, group);
	uint64_t inactive, active, ratio, free;

	if (type == TYPE_ANON && !swap_total(pol, &free))
		return false;
	inactive = pol__lru_size(pol, group, lru_of(type, false), false);
	active = pol__lru_size(pol, group, lru_of(type, true), false);
	if (type == TYPE_FILE &&
	    g->stats[POL_WORKINGSET_ACTIVATE_FILE] != g->lv.refaults[TYPE_FILE] &&
	    (actual_reclaim || pol->t.balance_mode == BAL_SEED000))
		ratio = 0;
	else
		ratio = inactive_ratio(pol, inactive, active);
	return inactive * ratio < active;
}

/* can_reclaim_anon_pages(): swap allowed and a free slot somewhere. */
bool pol__can_reclaim_anon(const struct pol *pol, const struct scan_control *sc)
{
	uint64_t free;

	swap_total(pol, &free);
	return sc->may_swap && free > 0;
}

/* can_age_anon_pages(): swap is configured, full or not. */
bool pol__anon_aging_possible(const struct pol *pol)
{
	uint64_t free;

	return swap_total(pol, &free) > 0;
}

/* Seed 004: global reclaim and the file LRU below vm.min_filelist_kbytes. */
bool pol__file_is_low(const struct pol *pol, const struct scan_control *sc)
{
	uint64_t floor = (uint64_t)pol->t.min_filelist_kbytes >> 2;
	uint64_t file;

	if (!floor || sc->limit)
		return false;
	file = pol__lru_size(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, true) +
	       pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, true);
	return file < floor;
}

static enum scan_balance legacy_balance(const struct pol *pol, int group,
					const struct scan_control *sc)
{
	/* 4': file + free at or below the high watermark: scan anon. */
	if (!sc->limit) {
		uint64_t file = pol__lru_size(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, true) +
			pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, true);

		if (file + pol_free_pages(pol) <= pol->wmark_high &&
		    !pol__legacy_inactive_list_is_low(pol, group, TYPE_ANON, false) &&
		    pol__lru_size(pol, group, POL_LRU_INACTIVE_ANON, false) >>
			    sc->priority)
			return SCAN_ANON;
	}
	/* 5': the test seed 000 changes. */
	if (!pol__legacy_inactive_list_is_low(pol, group, TYPE_FILE, false) &&
	    pol__lru_size(pol, group, POL_LRU_INACTIVE_FILE, false) >> sc->priority)
		return SCAN_FILE;
	return SCAN_FRACT;
}

static void fraction_rotation(struct pol *pol, int group, uint64_t fraction[2],
			      uint64_t *denominator)
{
	struct lruvec *lv = &pol__grp(pol, group)->lv;
	uint64_t swappiness = (uint64_t)pol->t.swappiness;
	uint64_t size[2], ap, fp;

	size[TYPE_ANON] = pol__lru_size(pol, group, POL_LRU_ACTIVE_ANON, false) +
		     pol__lru_size(pol, group, POL_LRU_INACTIVE_ANON, false);
	size[TYPE_FILE] = pol__lru_size(pol, group, POL_LRU_ACTIVE_FILE, false) +
		     pol__lru_size(pol, group, POL_LRU_INACTIVE_FILE, false);
	for (int t = 0; t < 2; t++) {
		if (lv->recent_scanned[t] > size[t] / 4) {
			lv->recent_scanned[t] /= 2;
			lv->recent_rotated[t] /= 2;
		}
	}
	ap = swappiness * (lv->recent_scanned[TYPE_ANON] + 1) /
	     (lv->recent_rotated[TYPE_ANON] + 1);
	fp = (200 - swappiness) * (lv->recent_scanned[TYPE_FILE] + 1) /
	     (lv->recent_rotated[TYPE_FILE] + 1);
	fraction[TYPE_ANON] = ap;
	fraction[TYPE_FILE] = fp;
	*denominator = ap + fp + 1;
}

static void fraction_cost(const struct pol *pol, const struct scan_control *sc,
			  uint64_t fraction[2], uint64_t *denominator)
{
	uint64_t swappiness = (uint64_t)pol->t.swappiness;
	uint64_t total = sc->anon_cost + sc->file_cost;
	uint64_t anon = total + sc->anon_cost;
	uint64_t file = total + sc->file_cost;

	total = anon + file;
	fraction[TYPE_ANON] = swappiness * (total + 1) / (anon + 1);
	fraction[TYPE_FILE] = (200 - swappiness) * (total + 1) / (file + 1);
	*denominator = fraction[TYPE_ANON] + fraction[TYPE_FILE];
}

static enum scan_balance pick_balance(struct pol *pol, int group,
				      const struct scan_control *sc)
{
	if (!pol__can_reclaim_anon(pol, sc))
		return SCAN_FILE;
	if (pol->t.min_filelist_mode == MINFILE_SCAN_ANON_CROS &&
	    pol__file_is_low(pol, sc))
		return SCAN_ANON;
	if (sc->limit && !pol->t.swappiness)
		return SCAN_FILE;
	if (!sc->priority && pol->t.swappiness)
		return SCAN_EQUAL;
	if (pol->t.balance_mode != BAL_ROOT55)
		return legacy_balance(pol, group, sc);
	if (sc->file_is_tiny)
		return SCAN_ANON;
	if (sc->cache_trim_mode)
		return SCAN_FILE;
	return SCAN_FRACT;
}

/*
 * pol__get_scan_count(): how many pages of each evictable list of @group to
 * scan at this priority (§4.1-4.4), into @nr.
 */
void pol__get_scan_count(struct pol *pol, int group, struct scan_control *sc,
		    uint64_t nr[POL_NR_LRU])
{
	const struct group *g = pol__grp(pol, group);
	enum scan_balance balance = pick_balance(pol, group, sc);
	uint64_t fraction[2] = { 1, 1 }, denominator = 1;
	uint64_t min = 0, low = 0;

	if (balance == SCAN_FRACT) {
		if (pol->t.cost_model == COST_ROTATION57)
			fraction_rotation(pol, group, fraction, &denominator);
		else
			fraction_cost(pol, sc, fraction, &denominator);
	}
	if (group != sc->root && group != POL_ROOT) {
		min = g->emin;
		low = g->elow;
	}
	for (int l = 0; l < POL_LRU_UNEVICTABLE; l++) {
		int type = lru_type((enum pol_lru)l);
		uint64_t size = g->lv.lists[l].nr;
		uint64_t scan;

		if (min || low) {
			uint64_t prot, usage = g->usage;

			if (!sc->memcg_low_reclaim && low > min) {
				prot = low;
				sc->memcg_low_skipped = true;
			} else {
				prot = min;
			}
			if (usage < prot)
				usage = prot;
			scan = size - size * prot / (usage + 1);
			if (scan < SWAP_CLUSTER_MAX)
				scan = SWAP_CLUSTER_MAX;
		} else {
			scan = size;
		}
		scan >>= sc->priority;
		switch (balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			scan = scan * fraction[type] / denominator;
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((balance == SCAN_FILE) != (type == TYPE_FILE))
				scan = 0;
			break;
		}
		nr[l] = scan;
	}
	nr[POL_LRU_UNEVICTABLE] = 0;
}
