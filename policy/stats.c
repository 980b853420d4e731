/* SPDX-License-Identifier: MIT */
/*
 * stats.c - counters under their /proc/vmstat names.
 *
 * Every event is counted twice: in the group that owns the page (its
 * memory.stat) and in the instance total (/proc/vmstat). The kernel leaves
 * group limit reclaim out of a few global counters ("global only" in
 * reclaim-policy.md §10); pol__count_global() applies that rule. Gauges (list
 * sizes, free pages) are not stored but computed when read.
 */
#include "internal.h"

static const char *const item_names[POL_NR_ITEMS] = {
	[POL_PGFAULT] = "pgfault",
	[POL_PGMAJFAULT] = "pgmajfault",
	[POL_PGFAULT_YOUNG] = "pgfault_young",
	[POL_PSWPIN] = "pswpin",
	[POL_PSWPOUT] = "pswpout",
	[POL_PGPGIN] = "pgpgin",
	[POL_PGPGOUT] = "pgpgout",
	[POL_PGSCAN_KSWAPD] = "pgscan_kswapd",
	[POL_PGSCAN_DIRECT] = "pgscan_direct",
	[POL_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[POL_PGSTEAL_DIRECT] = "pgsteal_direct",
	[POL_PGSCAN_ANON] = "pgscan_anon",
	[POL_PGSCAN_FILE] = "pgscan_file",
	[POL_PGSTEAL_ANON] = "pgsteal_anon",
	[POL_PGSTEAL_FILE] = "pgsteal_file",
	[POL_PGREFILL] = "pgrefill",
	[POL_PGACTIVATE] = "pgactivate",
	[POL_PGDEACTIVATE] = "pgdeactivate",
	[POL_PGROTATED] = "pgrotated",
	[POL_PGLAZYFREE] = "pglazyfree",
	[POL_PGLAZYFREED] = "pglazyfreed",
	[POL_WORKINGSET_REFAULT_ANON] = "workingset_refault_anon",
	[POL_WORKINGSET_REFAULT_FILE] = "workingset_refault_file",
	[POL_WORKINGSET_ACTIVATE_ANON] = "workingset_activate_anon",
	[POL_WORKINGSET_ACTIVATE_FILE] = "workingset_activate_file",
	[POL_WORKINGSET_RESTORE_ANON] = "workingset_restore_anon",
	[POL_WORKINGSET_RESTORE_FILE] = "workingset_restore_file",
	[POL_WORKINGSET_NODERECLAIM] = "workingset_nodereclaim",
	[POL_ALLOCSTALL] = "allocstall_normal",
	[POL_PAGEOUTRUN] = "pageoutrun",
	[POL_PGSCAN_DIRECT_THROTTLE] = "pgscan_direct_throttle",
	[POL_KSWAPD_LOW_WMARK_HIT_QUICKLY] = "kswapd_low_wmark_hit_quickly",
	[POL_KSWAPD_HIGH_WMARK_HIT_QUICKLY] = "kswapd_high_wmark_hit_quickly",
	[POL_SLABS_SCANNED] = "slabs_scanned",
	[POL_PGINODESTEAL] = "pginodesteal",
	[POL_KSWAPD_INODESTEAL] = "kswapd_inodesteal",
	[POL_NR_VMSCAN_IMMEDIATE_RECLAIM] = "nr_vmscan_immediate_reclaim",
	[POL_NR_VMSCAN_WRITE] = "nr_vmscan_write",
	[POL_OOM_KILL] = "oom_kill",
	[POL_PGALLOC] = "pgalloc_normal",
	[POL_PGFREE] = "pgfree",
	[POL_SWAP_RA] = "swap_ra",
	[POL_SWAP_RA_HIT] = "swap_ra_hit",
	[POL_FILE_RA] = "file_ra",
	[POL_FILE_RA_HIT] = "file_ra_hit",
	[POL_ZSWPIN] = "zswpin",
	[POL_ZSWPOUT] = "zswpout",
	[POL_ZSWPWB] = "zswpwb",
	[POL_UNEVICTABLE_PGMLOCKED] = "unevictable_pgs_mlocked",
	[POL_UNEVICTABLE_PGMUNLOCKED] = "unevictable_pgs_munlocked",
	[POL_UNEVICTABLE_PGCULLED] = "unevictable_pgs_culled",
	[POL_UNEVICTABLE_PGRESCUED] = "unevictable_pgs_rescued",
	[POL_NR_FREE_PAGES] = "nr_free_pages",
	[POL_NR_INACTIVE_ANON] = "nr_inactive_anon",
	[POL_NR_ACTIVE_ANON] = "nr_active_anon",
	[POL_NR_INACTIVE_FILE] = "nr_inactive_file",
	[POL_NR_ACTIVE_FILE] = "nr_active_file",
	[POL_NR_UNEVICTABLE] = "nr_unevictable",
	[POL_NR_DIRTY] = "nr_dirty",
	[POL_NR_WRITEBACK] = "nr_writeback",
	[POL_NR_SHADOWS] = "nr_shadow_entries",
	[POL_WORKINGSET_NODES] = "workingset_nodes",
	[POL_NR_INODES] = "nr_inodes",
};

const char *pol_item_name(enum pol_item item)
{
	if ((unsigned int)item >= POL_NR_ITEMS)
		return NULL;
	return item_names[item];
}

/* pgscan_{kswapd,direct}, pgsteal_{kswapd,direct} and pgrefill are not
 * counted in /proc/vmstat for memcg limit reclaim (5.10+). */
void pol__count_global(struct pol *pol, const struct scan_control *sc, int group,
		  enum pol_item item, uint64_t nr)
{
	pol->groups[group].stats[item] += nr;
	if (!sc->limit)
		pol->total[item] += nr;
}

void pol_count(struct pol *pol, int group, enum pol_item item, uint64_t nr)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    !pol->groups[group].live || item >= POL_NR_EVENTS)
		return;
	pol__count(pol, group, item, nr);
}

void pol__emit(struct pol *pol, const struct pol_event *ev)
{
	if (pol->be->event)
		pol->be->event(pol->ctx, ev);
}

static uint64_t gauge(const struct pol *pol, int group, enum pol_item item)
{
	bool all = group < 0;
	int g = all ? POL_ROOT : group;

	switch (item) {
	case POL_NR_FREE_PAGES:
		return pol_free_pages(pol);
	case POL_NR_INACTIVE_ANON:
		return pol__lru_size(pol, g, POL_LRU_INACTIVE_ANON, true);
	case POL_NR_ACTIVE_ANON:
		return pol__lru_size(pol, g, POL_LRU_ACTIVE_ANON, true);
	case POL_NR_INACTIVE_FILE:
		return pol__lru_size(pol, g, POL_LRU_INACTIVE_FILE, true);
	case POL_NR_ACTIVE_FILE:
		return pol__lru_size(pol, g, POL_LRU_ACTIVE_FILE, true);
	case POL_NR_UNEVICTABLE:
		return pol__lru_size(pol, g, POL_LRU_UNEVICTABLE, true);
	case POL_NR_DIRTY:
		return pol->nr_dirty;
	case POL_NR_WRITEBACK:
		return pol->nr_writeback;
	case POL_NR_SHADOWS:
		return pol->nr_shadows;
	case POL_WORKINGSET_NODES:
		return pol->be->shadow_nodes ?
			pol->be->shadow_nodes(pol->ctx) : 0;
	case POL_NR_INODES:
		if (all)
			return pol->nr_live_inodes;
		return pol__item_hier(pol, g, POL_NR_INODES);
	default:
		return 0;
	}
}

uint64_t pol_read(const struct pol *pol, int group, enum pol_item item)
{
	if ((unsigned int)item >= POL_NR_ITEMS)
		return 0;
	if (group >= 0 && ((unsigned int)group >= pol->nr_groups ||
			   !pol->groups[group].live))
		return 0;
	if (item >= POL_NR_EVENTS)
		return gauge(pol, group, item);
	if (group < 0)
		return pol->total[item];
	return pol__item_hier(pol, group, item);
}
