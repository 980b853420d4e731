/* SPDX-License-Identifier: MIT */
/*
 * reclaim.c - the reclaimers and their priority loops (reclaim-policy.md
 * §3.3, §4.5, §4.6, §6.2-6.4, §7.2-7.3):
 *
 *   pol_kswapd()          balance_pgdat(): priority 12..1 to the high mark
 *   pol_direct_reclaim()  try_to_free_pages(): priority 12..0, 32 pages,
 *                         then the force-deactivate and memory.low retries
 *   pol_group_reclaim()   try_to_free_mem_cgroup_pages(): same, rooted at
 *                         a group
 *
 * all of which run node passes:
 *
 *   pol__shrink_node()         refault snapshot tests, cache_trim_mode,
 *                         file_is_tiny, seed 002's retry
 *     shrink_node_memcgs()  pre-order walk with min/low protection
 *       shrink_lruvec()       pol__get_scan_count() targets, 32-page batches,
 *                             proportional stop, anon aging
 *         shrink_list()         active scan if deactivation is wanted,
 *                               inactive scan, seed 004's floor
 *       pol__shrink_slab()         the inode shrinker (inode.c)
 */
#include "internal.h"

static bool legacy(const struct pol *pol)
{
	return pol->t.balance_mode != BAL_ROOT55;
}

static uint64_t shrink_list(struct pol *pol, int group, enum pol_lru lru,
			    uint64_t nr, struct scan_control *sc)
{
	int type = lru_type(lru);

	/* Seed 004 (as posted): no file scanning below the floor. */
	if (type == TYPE_FILE && pol->t.min_filelist_mode ==
	    MINFILE_SHRINK_LIST2010 && pol__file_is_low(pol, sc))
		return 0;
	if (lru_is_active(lru)) {
		bool deactivate = legacy(pol) ?
			pol__legacy_inactive_list_is_low(pol, group, type, true) :
			sc->may_deactivate[type];

		if (deactivate)
			pol__shrink_active_list(pol, group, lru, nr, sc);
		else
			sc->skipped_deactivate = true;
		return 0;
	}
	return pol__shrink_inactive_list(pol, group, lru, nr, sc);
}

/* The 32-page anon aging pass at the end of each lruvec shrink (§3.3). */
static void age_anon(struct pol *pol, int group, struct scan_control *sc)
{
	bool low;

	if (!pol__anon_aging_possible(pol))
		return;
	low = legacy(pol) ? pol__legacy_inactive_list_is_low(pol, group, TYPE_ANON, true)
			  : pol__inactive_is_low(pol, group, TYPE_ANON, false);
	if (low)
		pol__shrink_active_list(pol, group, POL_LRU_ACTIVE_ANON,
				   SWAP_CLUSTER_MAX, sc);
}

/* Once the goal is met, scan the larger type only as far as the smaller
 * got, then stop (§4.5). Return false to leave the loop. */
static bool adjust_targets(uint64_t nr[POL_NR_LRU],
			   const uint64_t target[POL_NR_LRU])
{
	uint64_t nr_file = nr[POL_LRU_INACTIVE_FILE] + nr[POL_LRU_ACTIVE_FILE];
	uint64_t nr_anon = nr[POL_LRU_INACTIVE_ANON] + nr[POL_LRU_ACTIVE_ANON];
	uint64_t pct;
	int small, big;

	if (!nr_file || !nr_anon)
		return false;
	if (nr_file > nr_anon) {
		small = TYPE_ANON;
		pct = nr_anon * 100 / (target[POL_LRU_INACTIVE_ANON] +
				       target[POL_LRU_ACTIVE_ANON] + 1);
	} else {
		small = TYPE_FILE;
		pct = nr_file * 100 / (target[POL_LRU_INACTIVE_FILE] +
				       target[POL_LRU_ACTIVE_FILE] + 1);
	}
	big = !small;
	nr[lru_of(small, false)] = 0;
	nr[lru_of(small, true)] = 0;
	for (int a = 0; a < 2; a++) {
		enum pol_lru l = lru_of(big, a);
		uint64_t done = target[l] - nr[l];

		nr[l] = target[l] * (100 - pct) / 100;
		nr[l] -= nr[l] < done ? nr[l] : done;
	}
	return true;
}

static void shrink_lruvec(struct pol *pol, int group, struct scan_control *sc)
{
	uint64_t nr[POL_NR_LRU], target[POL_NR_LRU];
	uint64_t reclaimed = 0;
	/* Global direct reclaim at DEF_PRIORITY does its whole batch. */
	bool proportional = !sc->limit && !sc->kswapd &&
			    sc->priority == DEF_PRIORITY;
	bool adjusted = false;

	pol__get_scan_count(pol, group, sc, nr);
	for (int l = 0; l < POL_NR_LRU; l++)
		target[l] = nr[l];

	while (nr[POL_LRU_INACTIVE_ANON] || nr[POL_LRU_ACTIVE_FILE] ||
	       nr[POL_LRU_INACTIVE_FILE]) {
		for (int l = 0; l < POL_LRU_UNEVICTABLE; l++) {
			uint64_t k = nr[l] < SWAP_CLUSTER_MAX ? nr[l] :
				     SWAP_CLUSTER_MAX;

			if (!k)
				continue;
			nr[l] -= k;
			reclaimed += shrink_list(pol, group, (enum pol_lru)l,
						 k, sc);
		}
		if (reclaimed < sc->nr_to_reclaim || proportional || adjusted)
			continue;
		if (!adjust_targets(nr, target))
			break;
		/* ≤5.10 adjusted once and scanned the rest; 6.1+ stops at
		 * the next check because the smaller type is now zero. */
		adjusted = pol->t.proportional_latch;
	}
	sc->nr_reclaimed += reclaimed;
	age_anon(pol, group, sc);
}

/* mem_cgroup_below_min/low, the reclaim root and the root unprotected. */
bool pol__below(const struct pol *pol, int root, int group, bool low)
{
	const struct group *g = pol__grp(pol, group);

	if (group == root || group == POL_ROOT)
		return false;
	return (low ? g->elow : g->emin) >= g->usage;
}

static void shrink_node_memcgs(struct pol *pol, struct scan_control *sc,
			       bool skip_slab)
{
	for (int g = sc->root; g >= 0; g = pol__group_next(pol, g, sc->root)) {
		pol__calculate_protection(pol, sc->root, g);
		if (pol__below(pol, sc->root, g, false))
			continue;	/* hard protection */
		if (pol__below(pol, sc->root, g, true) && !sc->memcg_low_reclaim) {
			sc->memcg_low_skipped = true;
			continue;
		}
		shrink_lruvec(pol, g, sc);
		if (!skip_slab)
			pol__shrink_slab(pol, g, sc);
	}
}

/*
 * The inactive-file size cache_trim_mode reads. The kernel reads it from
 * per-CPU counters whose undrained deltas can make an empty list look
 * like 33 or 50 pages (seed 002); vm.debug.lru_size_skew adds that error,
 * per group, to the exact size the pager has.
 */
static uint64_t trim_inactive_file(const struct pol *pol, int root)
{
	uint64_t groups = 0;

	if (pol->t.lru_size_skew)
		for (int g = root; g >= 0; g = pol__group_next(pol, g, root))
			groups++;
	return pol__lru_size(pol, root, POL_LRU_INACTIVE_FILE, true) +
	       groups * (uint64_t)pol->t.lru_size_skew;
}

/* prepare_scan_control() (5.5+): decisions taken once per node pass. */
static void prepare_scan_control(struct pol *pol, struct scan_control *sc)
{
	struct group *root = pol__grp(pol, sc->root);
	uint64_t file, anon;

	sc->anon_cost = root->lv.anon_cost;
	sc->file_cost = root->lv.file_cost;
	for (int t = 0; t < 2; t++) {
		enum pol_item act = t == TYPE_FILE ? POL_WORKINGSET_ACTIVATE_FILE :
						POL_WORKINGSET_ACTIVATE_ANON;

		sc->may_deactivate[t] = sc->force_deactivate ||
			pol__item_hier(pol, sc->root, act) != root->lv.refaults[t] ||
			pol__inactive_is_low(pol, sc->root, t, true);
	}
	file = trim_inactive_file(pol, sc->root);
	sc->cache_trim_mode = pol->t.cache_trim_mode && !sc->no_cache_trim_mode &&
			      (file >> sc->priority) && !sc->may_deactivate[TYPE_FILE];
	sc->file_is_tiny = false;
	if (!sc->limit) {
		file = pol__lru_size(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, true) +
		       pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, true);
		anon = pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, true);
		sc->file_is_tiny = file + pol_free_pages(pol) <= pol->wmark_high &&
				   !sc->may_deactivate[TYPE_ANON] &&
				   (anon >> sc->priority);
	}
}

void pol__shrink_node(struct pol *pol, struct scan_control *sc)
{
	uint64_t reclaimed = sc->nr_reclaimed, scanned = sc->nr_scanned;

	if (pol__lru_gen_enabled(pol)) {
		pol__lru_gen_shrink_node(pol, sc);
		if (sc->nr_reclaimed > reclaimed)
			pol->kswapd_failures = 0;
		return;
	}
	if (!legacy(pol))
		prepare_scan_control(pol, sc);
	shrink_node_memcgs(pol, sc, false);
	/* Seed 002: cache_trim_mode scanned nothing; retry once without it
	 * (the slabs were already shrunk). */
	if (pol->t.cache_trim_retry && sc->cache_trim_mode &&
	    sc->nr_scanned == scanned) {
		sc->cache_trim_mode = false;
		shrink_node_memcgs(pol, sc, true);
	}
	if (sc->root == POL_ROOT && !sc->limit)
		pol__shadow_shrink(pol);
	if (sc->nr_reclaimed > reclaimed)
		pol->kswapd_failures = 0;
	else if (sc->cache_trim_mode)
		sc->cache_trim_mode_failed = true;
}

/* Remember the activation counters, to see new refaults next time. */
void pol__snapshot_refaults(struct pol *pol, int root)
{
	if (!legacy(pol)) {
		struct lruvec *lv = &pol__grp(pol, root)->lv;

		lv->refaults[TYPE_ANON] = pol__item_hier(pol, root,
					       POL_WORKINGSET_ACTIVATE_ANON);
		lv->refaults[TYPE_FILE] = pol__item_hier(pol, root,
					       POL_WORKINGSET_ACTIVATE_FILE);
		return;
	}
	for (int g = root; g >= 0; g = pol__group_next(pol, g, root)) {
		struct group *gr = pol__grp(pol, g);

		gr->lv.refaults[TYPE_ANON] = gr->stats[POL_WORKINGSET_ACTIVATE_ANON];
		gr->lv.refaults[TYPE_FILE] = gr->stats[POL_WORKINGSET_ACTIVATE_FILE];
	}
}

/* pol__do_try_to_free_pages(): direct and group limit reclaim (§6.2). */
uint64_t pol__do_try_to_free_pages(struct pol *pol, struct scan_control *sc)
{
	if (!sc->limit)
		pol__count(pol, POL_ROOT, POL_ALLOCSTALL, 1);
retry:
	for (sc->priority = DEF_PRIORITY; sc->priority >= 0; sc->priority--) {
		pol__shrink_node(pol, sc);
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
		if (sc->priority < DEF_PRIORITY - 2)
			sc->may_writepage = true;
	}
	pol__snapshot_refaults(pol, sc->root);
	if (sc->nr_reclaimed)
		return sc->nr_reclaimed;
	if (!legacy(pol) && sc->skipped_deactivate && !sc->force_deactivate) {
		sc->force_deactivate = true;
		sc->skipped_deactivate = false;
		goto retry;
	}
	if (sc->memcg_low_skipped && !sc->memcg_low_reclaim) {
		sc->memcg_low_reclaim = true;
		sc->memcg_low_skipped = false;
		sc->force_deactivate = false;
		goto retry;
	}
	return 0;
}

uint64_t pol_direct_reclaim(struct pol *pol)
{
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX, .root = POL_ROOT,
		.may_writepage = !pol->t.laptop_mode, .may_unmap = true,
		.may_swap = true,
	};
	uint64_t nr;

	pol__emit(pol, &(struct pol_event){ .type = POL_EV_DIRECT_BEGIN });
	nr = pol__do_try_to_free_pages(pol, &sc);
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_DIRECT_END,
				       .nr = { nr } });
	return nr;
}

uint64_t pol_group_reclaim(struct pol *pol, int group, uint64_t nr)
{
	struct scan_control sc = {
		.nr_to_reclaim = nr > SWAP_CLUSTER_MAX ? nr : SWAP_CLUSTER_MAX,
		.root = group, .limit = group != POL_ROOT,
		.may_writepage = !pol->t.laptop_mode, .may_unmap = true,
		.may_swap = true,
	};

	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    !pol__grp(pol, group)->live)
		return 0;
	return pol__do_try_to_free_pages(pol, &sc);
}

static bool balanced(const struct pol *pol)
{
	return pol_free_pages(pol) > pol->wmark_high;
}

/* kswapd_age_node(): background anon aging before each pass. */
static void kswapd_age_node(struct pol *pol, struct scan_control *sc)
{
	/* MGLRU ages as it evicts; kswapd checks min_ttl_ms only (§5.1). */
	if (pol__lru_gen_enabled(pol)) {
		pol__lru_gen_age_node(pol, sc);
		return;
	}
	if (!pol__anon_aging_possible(pol))
		return;
	if (!legacy(pol) && !pol__inactive_is_low(pol, POL_ROOT, TYPE_ANON, true))
		return;
	for (int g = POL_ROOT; g >= 0; g = pol__group_next(pol, g, POL_ROOT)) {
		/* ≤5.4 tested each memcg's own lruvec. */
		if (legacy(pol) &&
		    !pol__legacy_inactive_list_is_low(pol, g, TYPE_ANON, true))
			continue;
		pol__shrink_active_list(pol, g, POL_LRU_ACTIVE_ANON,
				   SWAP_CLUSTER_MAX, sc);
	}
}

uint64_t pol_kswapd(struct pol *pol)
{
	struct scan_control sc = {
		.root = POL_ROOT, .kswapd = true,
		.may_writepage = !pol->t.laptop_mode, .may_unmap = true,
		.may_swap = true,
	};

	pol->kswapd_woken = false;
	pol__count(pol, POL_ROOT, POL_PAGEOUTRUN, 1);
restart:
	for (sc.priority = DEF_PRIORITY; sc.priority >= 1;) {
		uint64_t before = sc.nr_reclaimed;
		bool raise_priority = true;

		if (balanced(pol))
			goto out;
		kswapd_age_node(pol, &sc);
		if (sc.priority < DEF_PRIORITY - 2)
			sc.may_writepage = true;
		sc.nr_scanned = 0;
		sc.nr_to_reclaim = pol->wmark_high > SWAP_CLUSTER_MAX ?
				   pol->wmark_high : SWAP_CLUSTER_MAX;
		pol__shrink_node(pol, &sc);
		/* Enough was scanned to meet the mark at full efficiency. */
		if (sc.nr_scanned >= sc.nr_to_reclaim)
			raise_priority = false;
		if (raise_priority || sc.nr_reclaimed == before)
			sc.priority--;
	}
	/* 6.10+: the whole loop failed while cache_trim_mode was on: once
	 * more without it, before counting a failure. */
	if (!sc.nr_reclaimed && pol->t.kswapd_cache_trim_retry &&
	    !sc.no_cache_trim_mode && sc.cache_trim_mode_failed) {
		sc.no_cache_trim_mode = true;
		goto restart;
	}
	if (!sc.nr_reclaimed)
		pol->kswapd_failures++;
out:
	pol__snapshot_refaults(pol, POL_ROOT);
	return sc.nr_reclaimed;
}

bool pol_kswapd_oom(struct pol *pol)
{
	bool oom = pol->kswapd_oom;

	pol->kswapd_oom = false;
	return oom;
}

bool pol_kswapd_wanted(const struct pol *pol)
{
	return pol->kswapd_woken;
}

bool pol_kswapd_sleep(struct pol *pol, bool woken_early)
{
	if (woken_early) {
		pol__count(pol, POL_ROOT, POL_KSWAPD_LOW_WMARK_HIT_QUICKLY, 1);
		return false;
	}
	if (!balanced(pol)) {
		pol__count(pol, POL_ROOT, POL_KSWAPD_HIGH_WMARK_HIT_QUICKLY, 1);
		return false;
	}
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_KSWAPD_SLEEP });
	return true;
}
