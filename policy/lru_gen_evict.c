/* SPDX-License-Identifier: MIT */
/*
 * lru_gen_evict.c - MGLRU eviction (../shared/docs/mglru.md §2.1, §3, §6):
 * how much a reclaimer takes from each lruvec, when it ages instead, which
 * type and which tiers the PID controller protects, the sort of the
 * oldest generation, and the put-back of what reclaim did not free.
 *
 *   lru_gen_shrink_node()        root reclaim: the memcg LRU's order
 *                                (memcg_lru.c); limit reclaim: pre-order
 *     try_to_shrink_lruvec()     get_nr_to_scan(): age at priority < 12
 *       evict_folios()           isolate_folios() -> scan_folios()
 *                                  sort_folio(): promoted, protected by
 *                                  tier, writeback -> to a younger gen
 *                                shrink_folio_list() (scan.c's steps,
 *                                  references by lru_gen_set_refs)
 *                                put back: rejected pages not to the
 *                                  oldest generation
 */
#include "internal.h"

/* ---- the PID controller (§3.2) ------------------------------------------ */

struct ctrl_pos {
	uint64_t refaulted;
	uint64_t total;
	int gain;
};

/* read_ctrl_pos(): tier 0-3 one tier, MAX_NR_TIERS all of them. */
static void read_ctrl_pos(const struct lru_gen *g, int type, int tier,
			  int gain, struct ctrl_pos *pos)
{
	int hi = tier < MAX_NR_TIERS - 1 ? tier : MAX_NR_TIERS - 1;

	pos->gain = gain;
	pos->refaulted = pos->total = 0;
	for (int i = tier % MAX_NR_TIERS; i <= hi; i++) {
		pos->refaulted += g->avg_refaulted[type][i] +
				  g->refaulted[type][i];
		pos->total += g->avg_total[type][i] + g->protected[type][i] +
			      g->evicted[type][i];
	}
}

/* positive_ctrl_err(): true if @pv refaults no more than @sp. */
static bool positive_ctrl_err(const struct ctrl_pos *sp,
			      const struct ctrl_pos *pv)
{
	return pv->refaulted < MIN_LRU_BATCH ||
	       pv->refaulted * (sp->total + MIN_LRU_BATCH) * (uint64_t)sp->gain <=
	       (sp->refaulted + 1) * pv->total * (uint64_t)pv->gain;
}

/* get_type_to_scan(): file unless anon refaults relatively less, weighed
 * by swappiness. */
static int type_to_scan(const struct lru_gen *g, int swappiness)
{
	struct ctrl_pos sp, pv;

	if (swappiness <= MIN_SWAPPINESS + 1)
		return TYPE_FILE;
	if (swappiness >= MAX_SWAPPINESS)
		return TYPE_ANON;
	read_ctrl_pos(g, TYPE_ANON, MAX_NR_TIERS, swappiness, &sp);
	read_ctrl_pos(g, TYPE_FILE, MAX_NR_TIERS, MAX_SWAPPINESS - swappiness,
		      &pv);
	return positive_ctrl_err(&sp, &pv) ? TYPE_FILE : TYPE_ANON;
}

/* get_tier_idx(): tiers above the result are protected; the first tier
 * that refaults 1.5 times as much as tier 0 (with 64 refaults) is. */
static int tier_idx(const struct lru_gen *g, int type)
{
	struct ctrl_pos sp, pv;
	int tier;

	read_ctrl_pos(g, type, 0, 2, &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(g, type, tier, 3, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return tier - 1;
}

/* ---- which types, which generation -------------------------------------- */

static bool swap_pages_low(const struct pol *pol)
{
	uint64_t total, free;

	pol->be->swap_space(pol->ctx, &total, &free);
	return free < MIN_LRU_BATCH;
}

/* get_swappiness(): 0 when anon cannot be reclaimed. */
int pol__lru_gen_swappiness(const struct pol *pol, const struct scan_control *sc)
{
	if (!sc->may_swap || swap_pages_low(pol))
		return 0;
	return sc->swappiness ? sc->swappiness - 1 : pol->t.swappiness;
}

/* for_each_evictable_type(): swappiness 0 file only, 201 anon only. */
static int first_type(int s) { return !s; }
static int last_type(int s) { return s <= MAX_SWAPPINESS; }

uint64_t pol__evictable_min_seq(const struct lru_gen *g, int s)
{
	uint64_t a = g->min_seq[!s], b = g->min_seq[s <= MAX_SWAPPINESS];

	return a < b ? a : b;
}

/* should_run_aging() (6.14+): true when aging is needed; *nr the
 * evictable pages. */
static bool should_run_aging(const struct lru_gen *g, int s, uint64_t *nr)
{
	uint64_t min_seq = pol__evictable_min_seq(g, s);

	*nr = 0;
	if (min_seq + MIN_NR_GENS > g->max_seq)
		return true;
	for (int type = first_type(s); type <= last_type(s); type++)
		for (uint64_t seq = g->min_seq[type]; seq <= g->max_seq; seq++)
			*nr += g->lists[pol__gen_from_seq(seq)][type].nr;
	return min_seq + MIN_NR_GENS == g->max_seq;
}

/* get_nr_to_scan(): -1 to stop (below min, or aged just now). */
static int64_t nr_to_scan(struct pol *pol, int group, struct scan_control *sc,
			  int s)
{
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	uint64_t nr;
	bool age;

	if (pol__below(pol, sc->root, group, false))
		return -1;
	age = should_run_aging(g, s, &nr);
	/* Try to get away without aging at the default priority. */
	if (!age || sc->priority == DEF_PRIORITY)
		return (int64_t)(nr >> sc->priority);
	return pol__inc_max_seq(pol, group, g->max_seq, s) ? -1 : 0;
}

/* try_to_inc_min_seq() (6.14+): past empty oldest generations. */
static bool try_to_inc_min_seq(struct pol *pol, int group, int s)
{
	struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	uint64_t min_seq[2] = { 0, 0 };
	bool success = false;

	for (int type = first_type(s); type <= last_type(s); type++) {
		min_seq[type] = g->min_seq[type];
		while (min_seq[type] + MIN_NR_GENS <= g->max_seq &&
		       !g->lists[pol__gen_from_seq(min_seq[type])][type].nr)
			min_seq[type]++;
	}
	if (s && s <= MAX_SWAPPINESS) {
		uint64_t seq = g->max_seq - MIN_NR_GENS;

		if (min_seq[TYPE_ANON] > seq && min_seq[TYPE_FILE] < seq)
			min_seq[TYPE_ANON] = seq;
		else if (min_seq[TYPE_FILE] > seq && min_seq[TYPE_ANON] < seq)
			min_seq[TYPE_FILE] = seq;
	}
	for (int type = first_type(s); type <= last_type(s); type++) {
		if (min_seq[type] <= g->min_seq[type])
			continue;
		pol__reset_ctrl_pos(g, type, true);
		g->min_seq[type] = min_seq[type];
		success = true;
	}
	return success;
}

/* ---- the oldest generation (§3.3, §3.4) --------------------------------- */

/* sort_folio(): true if page @i goes to a younger generation instead of
 * being isolated. */
static bool sort_page(struct pol *pol, uint32_t i, struct scan_control *sc,
		      int tier_limit)
{
	struct pol_page *p = pg(pol, i);
	struct lru_gen *g = &pol__grp(pol, p->group)->lv.lrugen;
	int type = page_is_file(p) ? TYPE_FILE : TYPE_ANON;
	unsigned int refs = pol__page_refs(p);
	bool ws = p->flags & POL_PG_WORKINGSET;
	unsigned int tier = pol__tier_from_refs(refs, ws);
	unsigned int gen;

	/* promoted */
	if (p->spare[0] != pol__gen_from_seq(g->min_seq[type])) {
		pol__gen_move(pol, i, p->spare[0], false);
		return true;
	}
	/* protected */
	if ((int)tier > tier_limit || refs + ws == (1u << LRU_REFS_WIDTH) + 1) {
		gen = pol__page_inc_gen(pol, i, false);
		pol__gen_move(pol, i, gen, false);
		if (refs + ws != (1u << LRU_REFS_WIDTH) + 1)
			g->protected[type][tier]++;
		return true;
	}
	/* waiting for write-back: a dirty file page is written now, as the
	 * flusher would be woken to (the pager has no flusher) */
	if (type == TYPE_FILE && (p->flags & POL_PG_DIRTY) &&
	    !(p->flags & POL_PG_WRITEBACK))
		pol__writeout(pol, i, false);
	if ((p->flags & POL_PG_WRITEBACK) ||
	    (type == TYPE_FILE && (p->flags & POL_PG_DIRTY))) {
		gen = pol__page_inc_gen(pol, i, true);
		pol__gen_move(pol, i, gen, false);
		return true;
	}
	return false;
}

/* isolate_folio(): refs are valid only with PG_referenced. */
static void isolate_page(struct pol *pol, uint32_t i, struct pol_list *to)
{
	struct pol_page *p = pg(pol, i);

	if (!(p->flags & POL_PG_REFERENCED))
		p->spare[1] = 0;
	p->flags &= ~POL_PG_RECLAIM;
	pol__gen_del(pol, i);
	pol__list_add_tail(pol, to, i);
	if (pol->be->prefetch)
		pol->be->prefetch(pol->ctx, i);
}

/* scan_folios(): from the tail of the oldest generation of @type. */
static uint64_t scan_pages(struct pol *pol, int group, struct scan_control *sc,
			   int type, int tier_limit, struct pol_list *list)
{
	struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	uint64_t scanned = 0, sorted = 0, isolated = 0;
	unsigned int remaining = MAX_LRU_BATCH;
	struct pol_list *l;

	if (g->max_seq - g->min_seq[type] + 1 == MIN_NR_GENS)
		return 0;
	l = &g->lists[pol__gen_from_seq(g->min_seq[type])][type];
	while (l->tail != POL_NONE) {
		uint32_t i = l->tail;

		scanned++;
		if (sort_page(pol, i, sc, tier_limit))
			sorted++;
		else {
			isolate_page(pol, i, list);
			isolated++;
		}
		if (!--remaining || isolated >= MIN_LRU_BATCH)
			break;
	}
	pol__count_global(pol, sc, group, sc->kswapd ? POL_PGSCAN_KSWAPD :
			  POL_PGSCAN_DIRECT, isolated);
	pol__count_global(pol, sc, group, POL_PGREFILL, sorted);
	pol__count(pol, group, type == TYPE_FILE ? POL_PGSCAN_FILE :
		   POL_PGSCAN_ANON, isolated);
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_LRU_ISOLATE,
		.group = (uint16_t)group, .lru = (uint8_t)lru_of(type, false),
		.priority = (int8_t)sc->priority,
		.nr = { MAX_LRU_BATCH, isolated } });
	return isolated || !remaining ? scanned : 0;
}

/* isolate_folios(): the PID controller's type first, the other as the
 * fallback. */
static uint64_t isolate_pages(struct pol *pol, int group,
			      struct scan_control *sc, int s, int *type,
			      struct pol_list *list)
{
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	int t = type_to_scan(g, s);

	for (int k = first_type(s); k <= last_type(s); k++) {
		uint64_t n;

		*type = t;
		n = scan_pages(pol, group, sc, t, tier_idx(g, t), list);
		if (n)
			return n;
		t = !t;
	}
	return 0;
}

/* ---- reclaim and put-back (§3.1) ---------------------------------------- */

/* shrink_folio_list() and the put-back of evict_folios(): every page of
 * @list (isolated from generations) decided; return pages reclaimed. */
uint64_t pol__lru_gen_reclaim_list(struct pol *pol, struct pol_list *list,
				   struct scan_control *sc)
{
	struct scan_stat st = { .nr_pageout = 0 };
	uint64_t reclaimed = 0;

	while (list->head != POL_NONE) {
		uint32_t i = list->head;
		struct pol_page *p = pg(pol, i);
		const struct lru_gen *g = &pol__grp(pol, p->group)->lv.lrugen;
		int type;

		pol__list_del(pol, list, i);
		switch (pol__reclaim_one(pol, i, sc, &st)) {
		case O_FREED:
			reclaimed++;
			break;
		case O_UNEVICTABLE:
			pol__lru_add(pol, i, POL_LRU_UNEVICTABLE, false);
			pol__count(pol, p->group, POL_UNEVICTABLE_PGCULLED, 1);
			break;
		case O_ACTIVATE:
			pol__activate_prepare(pol, i);
			pol__gen_add(pol, i, true, false);
			pol__count(pol, p->group, POL_PGACTIVATE, 1);
			break;
		case O_KEEP_TAIL:
			pol__gen_add(pol, i, false, true);
			break;
		case O_KEEP:
			/* Rejected pages do not go back to the oldest
			 * generation: PG_active, refs cleared. */
			type = page_is_file(p) ? TYPE_FILE : TYPE_ANON;
			if (pol__page_seq(pol, p, false, false) ==
			    g->min_seq[type]) {
				p->flags &= ~POL_PG_REFERENCED;
				p->spare[1] = 0;
				pol__gen_add(pol, i, true, false);
			} else {
				pol__gen_add(pol, i, false, false);
			}
			break;
		}
	}
	if (reclaimed && pol->be->unmap_flush)
		pol->be->unmap_flush(pol->ctx);
	sc->nr_pageout += st.nr_pageout;
	return reclaimed;
}

/* evict_folios(): pages scanned (0 makes the caller age). */
uint64_t pol__lru_gen_evict(struct pol *pol, int group,
			    struct scan_control *sc, int s)
{
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	struct pol_list list;
	uint64_t scanned, reclaimed, taken;
	int type = TYPE_FILE;

	pol__list_init(&list);
	scanned = isolate_pages(pol, group, sc, s, &type, &list);
	scanned += try_to_inc_min_seq(pol, group, s);
	if (pol__evictable_min_seq(g, s) + MIN_NR_GENS > g->max_seq)
		scanned = 0;
	taken = list.nr;
	if (!taken)
		return scanned;
	sc->nr_scanned += taken;
	reclaimed = pol__lru_gen_reclaim_list(pol, &list, sc);
	sc->nr_reclaimed += reclaimed;
	pol__count_global(pol, sc, group, sc->kswapd ? POL_PGSTEAL_KSWAPD :
			  POL_PGSTEAL_DIRECT, reclaimed);
	pol__count(pol, group, type == TYPE_FILE ? POL_PGSTEAL_FILE :
		   POL_PGSTEAL_ANON, reclaimed);
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_SHRINK_INACTIVE,
		.group = (uint16_t)group, .lru = (uint8_t)lru_of(type, false),
		.priority = (int8_t)sc->priority,
		.nr = { taken, reclaimed, 0, 0 } });
	return scanned;
}

/* should_abort_scan(): root reclaim stops at its goal; kswapd also once
 * the high mark (+ 64) is met. */
bool pol__lru_gen_should_abort(const struct pol *pol,
			       const struct scan_control *sc)
{
	if (sc->limit)
		return false;
	if (sc->nr_reclaimed >= sc->nr_to_reclaim)
		return true;
	if (!sc->kswapd)
		return false;
	return pol_free_pages(pol) > pol->wmark_high + MIN_LRU_BATCH;
}

/* lruvec_is_sizable(): evictable pages, >> priority. */
static bool is_sizable(const struct pol *pol, int group,
		       const struct scan_control *sc, int s)
{
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	uint64_t total = 0;

	for (int type = first_type(s); type <= last_type(s); type++)
		for (uint64_t seq = g->min_seq[type]; seq <= g->max_seq; seq++)
			total += g->lists[pol__gen_from_seq(seq)][type].nr;
	return total >> sc->priority;
}

/*
 * lru_gen_age_node() (§5.1), kswapd's at each priority: with min_ttl_ms,
 * unless some group above its memory.min, big enough to help, has an
 * oldest evictable generation born min_ttl_ms ago or earlier, it asks for
 * the OOM killer (pol_kswapd_oom()). Eviction itself never waits for the
 * age. Without the caller's clock there is no age: nothing is asked.
 */
void pol__lru_gen_age_node(struct pol *pol, struct scan_control *sc)
{
	uint64_t min_ttl = (uint64_t)pol->t.lru_gen_min_ttl_ms;
	uint64_t now = pol__lru_gen_now(pol);
	int s = pol__lru_gen_swappiness(pol, sc);

	if (!min_ttl || !pol->be->now_ms)
		return;
	for (int gr = POL_ROOT; gr >= 0; gr = pol__group_next(pol, gr, POL_ROOT)) {
		const struct lru_gen *g = &pol__grp(pol, gr)->lv.lrugen;
		uint64_t birth;

		pol__calculate_protection(pol, POL_ROOT, gr);
		if (pol__below(pol, POL_ROOT, gr, false) || !is_sizable(pol, gr, sc, s))
			continue;
		birth = g->timestamps[pol__gen_from_seq(pol__evictable_min_seq(g, s))];
		if (birth + min_ttl < now)
			return;		/* reclaimable */
	}
	pol->kswapd_oom = true;
}

bool pol__lru_gen_is_sizable(const struct pol *pol, int group,
			     const struct scan_control *sc)
{
	return is_sizable(pol, group, sc, pol__lru_gen_swappiness(pol, sc));
}

/* try_to_shrink_lruvec(): true if it aged (the group goes young). */
bool pol__lru_gen_shrink_lruvec(struct pol *pol, int group,
				struct scan_control *sc)
{
	int s = pol__lru_gen_swappiness(pol, sc);
	uint64_t scanned = 0;
	int64_t nr = 0;

	for (;;) {
		uint64_t d;

		nr = nr_to_scan(pol, group, sc, s);
		if (nr <= 0)
			break;
		d = pol__lru_gen_evict(pol, group, sc, s);
		if (!d)
			break;
		scanned += d;
		if (scanned >= (uint64_t)nr)
			break;
		if (pol__lru_gen_should_abort(pol, sc))
			break;
	}
	return nr < 0;
}

/* fls64(): the highest bit set, counted from 1; 0 for 0. */
static int fls64(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/*
 * set_initial_priority(): a root reclaim of 64 pages or more starts where
 * (reclaimable >> priority) meets its goal, between 6 and 12.
 */
static void set_initial_priority(struct pol *pol, struct scan_control *sc)
{
	uint64_t reclaimable;
	int priority;

	if (sc->priority != DEF_PRIORITY || sc->nr_to_reclaim < MIN_LRU_BATCH)
		return;
	reclaimable = pol__lru_size(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, true);
	if (pol__can_reclaim_anon(pol, sc))
		reclaimable += pol__lru_size(pol, POL_ROOT,
					     POL_LRU_INACTIVE_ANON, true);
	/* fls_long(reclaimable) - 1 - fls_long(nr_to_reclaim - 1) */
	priority = fls64(reclaimable) - 1 - fls64(sc->nr_to_reclaim - 1);
	if (priority < DEF_PRIORITY / 2)
		priority = DEF_PRIORITY / 2;
	if (priority > DEF_PRIORITY)
		priority = DEF_PRIORITY;
	sc->priority = priority;
}

/*
 * lru_gen_shrink_node(): root reclaim goes through the memcg LRU
 * (memcg_lru.c), with protection calculated for every group first, as
 * kswapd's lru_gen_age_node() does; kswapd's goal counts from zero at
 * each call. Limit reclaim walks its subtree in pre-order
 * (shrink_node_memcgs() -> lru_gen_shrink_lruvec()), below memory.low
 * skipped until the retry, and a group that aged goes young.
 */
void pol__lru_gen_shrink_node(struct pol *pol, struct scan_control *sc)
{
	uint64_t reclaimed = sc->nr_reclaimed;

	if (!sc->may_writepage || !sc->may_unmap)
		return;		/* laptop_mode, boosted kswapd (§6) */
	if (!sc->limit) {
		for (int gr = POL_ROOT; gr >= 0; gr = pol__group_next(pol, gr, POL_ROOT))
			pol__calculate_protection(pol, POL_ROOT, gr);
		set_initial_priority(pol, sc);
		if (sc->kswapd)
			sc->nr_reclaimed = 0;
		pol__memcg_lru_shrink_many(pol, sc);
		if (sc->kswapd)
			sc->nr_reclaimed += reclaimed;
		pol__shadow_shrink(pol);
		return;
	}
	for (int gr = sc->root; gr >= 0; gr = pol__group_next(pol, gr, sc->root)) {
		pol__calculate_protection(pol, sc->root, gr);
		if (pol__below(pol, sc->root, gr, false))
			continue;
		if (pol__below(pol, sc->root, gr, true) && !sc->memcg_low_reclaim) {
			sc->memcg_low_skipped = true;
			continue;
		}
		if (pol__lru_gen_shrink_lruvec(pol, gr, sc))
			pol__memcg_lru_young(pol, gr);
		pol__shrink_slab(pol, gr, sc);
	}
}
