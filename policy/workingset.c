/* SPDX-License-Identifier: MIT */
/*
 * workingset.c - refault detection (reclaim-policy.md §5, mm/workingset.c).
 *
 * Each group's lruvec has a logical clock, nonresident_age, that ticks on
 * every eviction and every activation. An evicted page leaves a shadow
 * entry in its slot that remembers the clock. When the page faults back
 * in, the clock has moved on by the refault distance R - E: the number of
 * pages that were evicted or activated while it was out. Had the inactive
 * list been longer by that much, the page would have stayed resident; so
 * if the distance fits in the workingset that could have been given up
 * for it, the page is activated on arrival:
 *
 *      evicted here           refaults here
 *           |<---- distance ---->|
 *   age: ---E--------------------R---->
 *
 *     distance <= active_file (+ inactive_file for anon)
 *                 (+ anon lists when swap is free)  => activate
 *
 * A shadow entry packs, in 62 bits so the caller may tag it:
 *
 *   bit 0        always 1, so a shadow is never 0
 *   bit 1        PG_workingset of the evicted page
 *   bits 2-17    group id of the lruvec whose clock was read
 *   bits 18-61   the clock, truncated to 44 bits
 *
 * The pager has no node id or xarray tag to store, so the clock keeps full
 * resolution (bucket_order 0) up to 2^44 evictions.
 */
#include "internal.h"

#define SHADOW_GROUP_SHIFT	2
#define SHADOW_TS_SHIFT		18
#define SHADOW_TS_BITS		44
#define SHADOW_TS_MASK		POL__SHADOW_MASK

_Static_assert(SHADOW_TS_SHIFT + SHADOW_TS_BITS <= 62, "shadow too wide");
_Static_assert(POL_MAX_GROUPS <= (1 << 16), "group id does not fit");

static bool legacy_lruvec(const struct pol *pol)
{
	/* ≤5.4: ages and shadows are per lruvec, not propagated upward. */
	return pol->t.balance_mode != BAL_ROOT55;
}

uint64_t pol__pack_shadow(uint64_t ts, int group, bool workingset)
{
	return ((ts & SHADOW_TS_MASK) << SHADOW_TS_SHIFT) |
	       ((uint64_t)group << SHADOW_GROUP_SHIFT) |
	       ((uint64_t)workingset << 1) | 1;
}

void pol__unpack_shadow(uint64_t shadow, uint64_t *ts, int *group,
			bool *workingset)
{
	*ts = (shadow >> SHADOW_TS_SHIFT) & SHADOW_TS_MASK;
	*group = (int)((shadow >> SHADOW_GROUP_SHIFT) & 0xffff);
	*workingset = (shadow >> 1) & 1;
}

/* Advance @group's clock, and with 5.5+ hierarchy its ancestors' too. */
void pol__workingset_age(struct pol *pol, int group, uint64_t nr)
{
	for (int g = group; g >= 0; g = pol__grp(pol, g)->parent) {
		pol__grp(pol, g)->lv.nonresident_age += nr;
		if (legacy_lruvec(pol))
			break;
	}
}

/*
 * pol__workingset_eviction(): the shadow for page @i, evicted by reclaim rooted
 * at @root. 6.1+ reads the clock and then advances it; ≤6.0 advances
 * first (vm.workingset.legacy_age). The distance differs by one eviction.
 */
uint64_t pol__workingset_eviction(struct pol *pol, uint32_t i, int root)
{
	const struct pol_page *p = pg(pol, i);
	int g = legacy_lruvec(pol) ? p->group : root;
	uint64_t nr = 1, ts;

	if (pol__lru_gen_enabled(pol))
		return pol__lru_gen_eviction(pol, i);
	if (pol->t.ws_size_rule == WS_FILE_ACTIVE47 && !page_is_file(p))
		return 0;	/* ≤5.8: no anon shadows */
	if (pol->t.ws_legacy_age) {
		pol__workingset_age(pol, g, nr);
		ts = pol__grp(pol, g)->lv.nonresident_age;
	} else {
		ts = pol__grp(pol, g)->lv.nonresident_age;
		pol__workingset_age(pol, g, nr);
	}
	return pol__pack_shadow(ts, g, p->flags & POL_PG_WORKINGSET);
}

/* How much of the workingset a refaulting page of @type may displace. */
static uint64_t workingset_size(const struct pol *pol, int g, int type)
{
	bool hier = !legacy_lruvec(pol);
	uint64_t size, total, free;

	size = pol__lru_size(pol, g, POL_LRU_ACTIVE_FILE, hier);
	if (pol->t.ws_size_rule == WS_FILE_ACTIVE47)
		return size;
	if (type == TYPE_ANON)
		size += pol__lru_size(pol, g, POL_LRU_INACTIVE_FILE, hier);
	pol->be->swap_space(pol->ctx, &total, &free);
	if (free) {
		size += pol__lru_size(pol, g, POL_LRU_ACTIVE_ANON, hier);
		if (type == TYPE_FILE)
			size += pol__lru_size(pol, g, POL_LRU_INACTIVE_ANON, hier);
	}
	return size;
}

/*
 * pol__workingset_refault(): page @i, charged to its group, is coming back
 * into a slot that held @shadow. Count the refault; return true if it is
 * to be activated on arrival (the caller adds it to the active list).
 */
bool pol__workingset_refault(struct pol *pol, uint32_t i, uint64_t shadow)
{
	struct pol_page *p = pg(pol, i);
	int type = page_is_file(p) ? TYPE_FILE : TYPE_ANON;
	uint64_t ts, distance;
	bool workingset;
	int g;

	pol__unpack_shadow(shadow, &ts, &g, &workingset);
	/* 6.6+: counted whether or not the shadow's group still exists. */
	pol__count(pol, p->group, type == TYPE_FILE ? POL_WORKINGSET_REFAULT_FILE :
	      POL_WORKINGSET_REFAULT_ANON, 1);
	if ((unsigned int)g >= pol->nr_groups || !pol__grp(pol, g)->live)
		return false;

	distance = (pol__grp(pol, g)->lv.nonresident_age - ts) & SHADOW_TS_MASK;
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_REFAULT,
		.group = p->group, .page = i, .nr = { distance } });
	if (distance > workingset_size(pol, g, type))
		return false;

	pol__workingset_age(pol, p->group, 1);
	pol__count(pol, p->group, type == TYPE_FILE ? POL_WORKINGSET_ACTIVATE_FILE :
	      POL_WORKINGSET_ACTIVATE_ANON, 1);
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_ACTIVATE,
		.group = p->group, .page = i, .nr = { distance } });
	if (workingset) {
		p->flags |= POL_PG_WORKINGSET;
		pol__note_cost(pol, p->group, type, 1, 0);
		pol__count(pol, p->group, type == TYPE_FILE ? POL_WORKINGSET_RESTORE_FILE :
		      POL_WORKINGSET_RESTORE_ANON, 1);
	}
	return true;
}

/*
 * lru_note_cost(): charge reclaim cost to @type of @group and every
 * ancestor, decaying both sides once they exceed a quarter of the lists.
 * 5.8-6.1 count I/O only; 6.2+ weigh I/O 32 times a rotation.
 */
void pol__note_cost(struct pol *pol, int group, int type, uint64_t io,
	       uint64_t rotated)
{
	uint64_t cost;

	switch (pol->t.cost_model) {
	case COST_IO58:
		cost = io;
		break;
	case COST_IO_ROT62:
		cost = io * SWAP_CLUSTER_MAX + rotated;
		break;
	default:
		return;		/* ≤5.7 keeps recent_scanned/rotated instead */
	}
	if (!cost)
		return;
	for (int g = group; g >= 0; g = pol__grp(pol, g)->parent) {
		struct lruvec *lv = &pol__grp(pol, g)->lv;
		uint64_t lrusize = 0;

		if (type == TYPE_FILE)
			lv->file_cost += cost;
		else
			lv->anon_cost += cost;
		for (int l = 0; l < POL_LRU_UNEVICTABLE; l++)
			lrusize += pol__lru_size(pol, g, (enum pol_lru)l, true);
		if (lv->file_cost + lv->anon_cost > lrusize / 4) {
			lv->file_cost /= 2;
			lv->anon_cost /= 2;
		}
	}
}

/*
 * The shadow-node shrinker (§5.5): shadow-only slot-table nodes beyond
 * max_shadows / 8 (the kernel's pages >> 3 nodes of 64 slots, i.e. one
 * shadow per page of memory at the worst-case density of 1/8) are
 * reclaimable; each call frees half of the excess.
 */
void pol__shadow_shrink(struct pol *pol)
{
	uint64_t nodes, max_nodes, excess, freed;
	uint64_t max_shadows = pol->t.ws_max_shadows < 0 ? pol->budget :
			       (uint64_t)pol->t.ws_max_shadows;

	if (!pol->be->shadow_nodes || !pol->be->shadow_shrink)
		return;
	nodes = pol->be->shadow_nodes(pol->ctx);
	max_nodes = max_shadows >> 3;
	if (nodes <= max_nodes)
		return;
	excess = nodes - max_nodes;
	freed = pol->be->shadow_shrink(pol->ctx, excess / 2 ? excess / 2 : 1);
	pol__count(pol, POL_ROOT, POL_WORKINGSET_NODERECLAIM, freed);
}
