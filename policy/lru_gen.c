/* SPDX-License-Identifier: MIT */
/*
 * lru_gen.c - the multi-generational LRU (MGLRU, CONFIG_LRU_GEN), the
 * second policy: its data model, where pages enter and move, aging,
 * refault tokens, the live switch and the debugfs view. Eviction, with
 * the PID controller, is lru_gen_evict.c. ../shared/docs/mglru.md is the
 * specification (6.14+ logic); section numbers below are its.
 *
 * Each lruvec keeps four generations per type (anon, file), a ring of
 * lists indexed by seq % 4, from min_seq[type] (oldest) to max_seq
 * (youngest, shared by both types). A page on one of them has lru ==
 * POL_LRU_GEN, its generation in spare[0] and its refs bits in spare[1]:
 *
 *   add (§1.4)            fault-in at max_seq-1 (max_seq if workingset),
 *                         anon without swap copy at max_seq-1, read()
 *                         and readahead at the oldest
 *   aging (§2.3)          max_seq++: every page one generation older; a
 *                         type with four generations first moves its
 *                         oldest into the next (inc_min_seq)
 *   eviction (§3)         from min_seq: sort (promoted, protected by
 *                         tier, writeback) or isolate and reclaim
 *
 * The pager has no hardware accessed bit, so no page-table walk and no
 * Bloom filters (§2.7): aging is inc_max_seq alone, the caps read 0x0001.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define LRU_REFS_MAX	((1u << LRU_REFS_WIDTH) - 1)	/* refs bits full */

/* ---- small helpers ------------------------------------------------------ */

uint64_t pol__lru_gen_now(const struct pol *pol)
{
	return pol->be->now_ms ? pol->be->now_ms(pol->ctx) : 0;
}

unsigned int pol__gen_from_seq(uint64_t seq)
{
	return (unsigned int)(seq % MAX_NR_GENS);
}

static int ptype(const struct pol_page *p)
{
	return page_is_file(p) ? TYPE_FILE : TYPE_ANON;
}

/* folio_lru_refs(): 0 unless PG_referenced, else refs bits + 1 (1..4). */
unsigned int pol__page_refs(const struct pol_page *p)
{
	return (p->flags & POL_PG_REFERENCED) ? p->spare[1] + 1u : 0;
}

/* lru_tier_from_refs(): refs 0-1 tier 0, 2 tier 1, 3-4 tier 2,
 * workingset tier 3. */
unsigned int pol__tier_from_refs(unsigned int refs, bool workingset)
{
	if (workingset)
		return MAX_NR_TIERS - 1;
	return refs <= 1 ? 0 : refs == 2 ? 1 : 2;
}

static void clear_refs(struct pol_page *p)
{
	p->flags &= ~POL_PG_REFERENCED;
	p->spare[1] = 0;
}

bool pol__lru_gen_enabled(const struct pol *pol)
{
	return pol->t.lru_gen_enabled & LRU_GEN_CORE;
}

void pol__lru_gen_init(struct pol *pol, struct lruvec *lv)
{
	struct lru_gen *g = &lv->lrugen;
	uint64_t t = pol__lru_gen_now(pol);

	memset(g, 0, sizeof(*g));
	g->max_seq = MIN_NR_GENS + 1;
	for (int gen = 0; gen < MAX_NR_GENS; gen++) {
		g->timestamps[gen] = t;
		for (int type = 0; type < 2; type++)
			pol__list_init(&g->lists[gen][type]);
	}
}

/* ---- where a page goes (§1.4) ------------------------------------------- */

/*
 * lru_gen_folio_seq(): the generation page @p enters. @active is
 * PG_active at add (a fault-in, or an activation), @reclaiming a rotation
 * after write-back.
 */
uint64_t pol__page_seq(const struct pol *pol, const struct pol_page *p,
		       bool active, bool reclaiming)
{
	const struct lru_gen *g = &pol__grp(pol, p->group)->lv.lrugen;
	int type = ptype(p);
	bool ws = p->flags & POL_PG_WORKINGSET;
	uint64_t d, seq;

	(void)pol;
	if (active)
		d = MIN_NR_GENS - ws;
	else if (reclaiming)
		d = MAX_NR_GENS;
	else if ((type == TYPE_ANON && !(p->flags & POL_PG_SWAPCACHE)) ||
		 ((p->flags & POL_PG_RECLAIM) &&
		  (p->flags & (POL_PG_DIRTY | POL_PG_WRITEBACK))))
		d = MIN_NR_GENS;
	else
		d = MAX_NR_GENS - ws;
	seq = g->max_seq - d + 1;
	return seq > g->min_seq[type] ? seq : g->min_seq[type];
}

/* Page @i onto generation @gen of its lruvec: at the head (the newest
 * end), or at the tail. */
static void gen_link(struct pol *pol, uint32_t i, unsigned int gen, bool tail)
{
	struct pol_page *p = pg(pol, i);
	struct pol_list *l =
		&pol__grp(pol, p->group)->lv.lrugen.lists[gen][ptype(p)];

	p->lru = POL_LRU_GEN;
	p->spare[0] = (uint8_t)gen;
	if (tail)
		pol__list_add_tail(pol, l, i);
	else
		pol__list_add_head(pol, l, i);
}

/* lru_gen_add_folio(): onto the generation of pol__page_seq(), at the
 * head, or at the tail when @reclaiming. */
void pol__gen_add(struct pol *pol, uint32_t i, bool active, bool reclaiming)
{
	gen_link(pol, i, pol__gen_from_seq(pol__page_seq(pol, pg(pol, i), active,
							  reclaiming)),
		 reclaiming);
}

void pol__gen_del(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);
	struct lru_gen *g = &pol__grp(pol, p->group)->lv.lrugen;

	pol__list_del(pol, &g->lists[p->spare[0]][ptype(p)], i);
	p->lru = POL_LRU_ISOLATED;
}

/* Move page @i, on a generation list, to generation @gen: at the head,
 * or at the tail (@tail). */
void pol__gen_move(struct pol *pol, uint32_t i, unsigned int gen, bool tail)
{
	pol__gen_del(pol, i);
	gen_link(pol, i, gen, tail);
}

/* ---- references --------------------------------------------------------- */

/* lru_gen_inc_refs(), from folio_mark_accessed(): a read() of the page.
 * Five accesses give: referenced, refs 1, 2, 3, workingset. */
void pol__lru_gen_inc_refs(struct pol_page *p)
{
	if (p->lru == POL_LRU_UNEVICTABLE)
		return;
	if (!(p->flags & POL_PG_REFERENCED)) {
		p->flags |= POL_PG_REFERENCED;
		p->spare[1] = 0;
	} else if (p->spare[1] == LRU_REFS_MAX) {
		p->flags |= POL_PG_WORKINGSET;
	} else {
		p->spare[1]++;
	}
}

/* lru_gen_set_refs(), from the rmap walk: a young mapping. The first
 * sighting sets PG_referenced (keep); the next one, or the first of a
 * workingset page, promotes (activate). */
bool pol__lru_gen_set_refs(struct pol_page *p)
{
	if (!(p->flags & (POL_PG_REFERENCED | POL_PG_WORKINGSET))) {
		p->flags |= POL_PG_REFERENCED;
		p->spare[1] = 0;
		return false;
	}
	clear_refs(p);
	p->flags |= POL_PG_WORKINGSET;
	return true;
}

/*
 * lru_gen_look_around() (§2.6): page @i was found young at eviction; the
 * pages around it in its mapping have their young bits tested and cleared
 * at the same time, as the rmap walk's page table is at hand. Only pages
 * on a generation list count (get_pfn_folio(): an isolated one, of the
 * batch being reclaimed, is left for its own check). A young one is
 * updated as by kswapd's walker (folio_update_gen(): PG_referenced at its
 * first sighting, then PG_workingset and max_seq), or without a walker
 * (direct reclaim) as lru_gen_set_refs() and folio_activate() do. The
 * kernel only marks the generation in the page's flags and lets the sort
 * move it; here it moves to max_seq at once (a list holds one
 * generation), where the sort would have put it.
 */
void pol__lru_gen_look_around(struct pol *pol, uint32_t i,
			      const struct scan_control *sc)
{
	uint32_t nb[64], n;

	if (!pol->t.lru_gen_look_around || !pol->be->neighbours)
		return;
	n = pol->be->neighbours(pol->ctx, i, nb);
	for (uint32_t k = 0; k < n && k < 64; k++) {
		struct pol_page *q = pg(pol, nb[k]);
		struct pol_refs r = { 0 };
		unsigned int young_gen;

		if (q->lru != POL_LRU_GEN)
			continue;
		pol->be->young(pol->ctx, nb[k], &r);
		if (!r.young || r.contended)
			continue;
		if (r.kept && pol->be->young_clear)
			pol->be->young_clear(pol->ctx, nb[k]);
		young_gen = pol__gen_from_seq(
			pol__grp(pol, q->group)->lv.lrugen.max_seq);
		if (sc->kswapd) {
			/* folio_update_gen() */
			if (!(q->flags & (POL_PG_REFERENCED | POL_PG_WORKINGSET))) {
				q->flags |= POL_PG_REFERENCED;
				q->spare[1] = 0;
				continue;
			}
			clear_refs(q);
			q->flags |= POL_PG_WORKINGSET;
			if (q->spare[0] != young_gen)
				pol__gen_move(pol, nb[k], young_gen, false);
		} else if (pol__lru_gen_set_refs(q) && q->spare[0] != young_gen) {
			pol__gen_move(pol, nb[k], young_gen, false);
			pol__count(pol, q->group, POL_PGACTIVATE, 1);
		}
	}
}

/* lru_gen_clear_refs(): MADV_COLD, deactivation, lazyfree. */
void pol__lru_gen_clear_refs(struct pol_page *p)
{
	clear_refs(p);
	p->flags &= ~POL_PG_WORKINGSET;
}

/* ---- the PID controller's history (§1.5) -------------------------------- */

/* reset_ctrl_pos(): with one history generation, a carry-over (min_seq
 * advancing) folds the counts into the averages and clears them. */
void pol__reset_ctrl_pos(struct lru_gen *g, int type, bool carryover)
{
	if (!carryover)
		return;		/* NR_HIST_GENS == 1: nothing to clear */
	for (int tier = 0; tier < MAX_NR_TIERS; tier++) {
		g->avg_refaulted[type][tier] = (g->avg_refaulted[type][tier] +
						g->refaulted[type][tier]) / 2;
		g->avg_total[type][tier] = (g->avg_total[type][tier] +
					    g->protected[type][tier] +
					    g->evicted[type][tier]) / 2;
		g->refaulted[type][tier] = 0;
		g->evicted[type][tier] = 0;
		g->protected[type][tier] = 0;
	}
}

/* ---- aging (§2.3) ------------------------------------------------------- */

/* folio_inc_gen(): page @i of the oldest generation one younger, refs
 * cleared (PG_workingset kept); PG_reclaim if @reclaiming. */
unsigned int pol__page_inc_gen(struct pol *pol, uint32_t i, bool reclaiming)
{
	struct pol_page *p = pg(pol, i);
	const struct lru_gen *g = &pol__grp(pol, p->group)->lv.lrugen;
	unsigned int old = pol__gen_from_seq(g->min_seq[ptype(p)]);

	if (p->spare[0] != old)
		return p->spare[0];	/* promoted meanwhile */
	clear_refs(p);
	if (reclaiming)
		p->flags |= POL_PG_RECLAIM;
	return (old + 1) % MAX_NR_GENS;
}

static bool type_evictable(int type, int swappiness)
{
	return type == TYPE_FILE ? swappiness <= MAX_SWAPPINESS : swappiness > 0;
}

/* inc_min_seq(): the oldest generation of @type into the next one. */
static void inc_min_seq(struct pol *pol, int group, int type, int swappiness)
{
	struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	unsigned int old = pol__gen_from_seq(g->min_seq[type]);
	struct pol_list *l = &g->lists[old][type];

	if (!type_evictable(type, swappiness)) {
		/* Its pages alias into max_seq + 1: the accepted inversion. */
		g->min_seq[type]++;
		return;
	}
	while (l->tail != POL_NONE) {
		uint32_t i = l->tail;
		struct pol_page *p = pg(pol, i);
		unsigned int refs = pol__page_refs(p);
		bool ws = p->flags & POL_PG_WORKINGSET;
		unsigned int gen = pol__page_inc_gen(pol, i, false);

		pol__gen_move(pol, i, gen, true);
		/* The workingset being lazily promoted is not counted. */
		if (refs + ws != (1u << LRU_REFS_WIDTH) + 1)
			g->protected[type][pol__tier_from_refs(refs, ws)]++;
	}
	pol__reset_ctrl_pos(g, type, true);
	g->min_seq[type]++;
}

/* inc_max_seq() (try_to_inc_max_seq() without an mm walk): false if
 * @seq is no longer max_seq. */
bool pol__inc_max_seq(struct pol *pol, int group, uint64_t seq,
		      int swappiness)
{
	struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;

	if (seq != g->max_seq)
		return false;
	for (int type = 0; type < 2; type++)
		if (g->max_seq - g->min_seq[type] + 1 == MAX_NR_GENS)
			inc_min_seq(pol, group, type, swappiness);
	g->timestamps[pol__gen_from_seq(g->max_seq + 1)] = pol__lru_gen_now(pol);
	g->max_seq++;
	return true;
}

/* ---- refaults (§4) ------------------------------------------------------ */

/*
 * lru_gen_eviction(): the shadow of page @i, as the classic one (bit 0
 * set, bit 1 PG_workingset, bits 2-17 the group) with the token in bits
 * 18-61: the type's min_seq then, and refs - 1.
 */
uint64_t pol__lru_gen_eviction(struct pol *pol, uint32_t i)
{
	const struct pol_page *p = pg(pol, i);
	struct lru_gen *g = &pol__grp(pol, p->group)->lv.lrugen;
	int type = ptype(p);
	unsigned int refs = pol__page_refs(p);
	bool ws = p->flags & POL_PG_WORKINGSET;
	uint64_t token = (g->min_seq[type] << LRU_REFS_WIDTH) |
			 (refs ? refs - 1 : 0);

	g->evicted[type][pol__tier_from_refs(refs, ws)]++;
	return pol__pack_shadow(token, p->group, ws);
}

/*
 * lru_gen_refault(): page @i comes back where @shadow was. Counted only in
 * the lruvec that evicted it; a recent one (fewer than four agings since)
 * feeds the PID controller and brings back its refs or PG_workingset.
 * @fault: brought in by a fault (it is added PG_active).
 */
void pol__lru_gen_refault(struct pol *pol, uint32_t i, uint64_t shadow,
			  bool fault)
{
	struct pol_page *p = pg(pol, i);
	int type = ptype(p), group;
	uint64_t token, max_seq, seq;
	unsigned int refs;
	bool ws;
	struct lru_gen *g;

	pol__unpack_shadow(shadow, &token, &group, &ws);
	if (group != p->group)
		return;		/* another lruvec: nothing counted */
	g = &pol__grp(pol, group)->lv.lrugen;
	pol__count(pol, group, type == TYPE_FILE ? POL_WORKINGSET_REFAULT_FILE :
		   POL_WORKINGSET_REFAULT_ANON, 1);
	max_seq = g->max_seq & (POL__SHADOW_MASK >> LRU_REFS_WIDTH);
	seq = token >> LRU_REFS_WIDTH;
	if ((max_seq > seq ? max_seq - seq : seq - max_seq) >= MAX_NR_GENS)
		return;
	refs = (unsigned int)(token & LRU_REFS_MAX) + 1;
	g->refaulted[type][pol__tier_from_refs(refs, ws)]++;
	if (fault)
		pol__count(pol, group, type == TYPE_FILE ?
			   POL_WORKINGSET_ACTIVATE_FILE :
			   POL_WORKINGSET_ACTIVATE_ANON, 1);
	if (ws) {
		p->flags |= POL_PG_WORKINGSET;
		pol__count(pol, group, type == TYPE_FILE ?
			   POL_WORKINGSET_RESTORE_FILE :
			   POL_WORKINGSET_RESTORE_ANON, 1);
	} else {
		/* The refs come back without PG_referenced (§4.3). */
		p->spare[1] = (uint8_t)(refs - 1);
	}
}

/* ---- sizes -------------------------------------------------------------- */

/* lru_gen_is_active(): the two youngest generations count as active. */
static bool gen_is_active(const struct lru_gen *g, unsigned int gen)
{
	return gen == pol__gen_from_seq(g->max_seq) ||
	       gen == pol__gen_from_seq(g->max_seq - 1);
}

/* The classic list sizes under MGLRU (lru_gen_update_size's split). */
uint64_t pol__lru_gen_size(const struct pol *pol, int group, enum pol_lru lru)
{
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;
	uint64_t nr = 0;

	for (unsigned int gen = 0; gen < MAX_NR_GENS; gen++)
		if (gen_is_active(g, gen) == lru_is_active(lru))
			nr += g->lists[gen][lru_type(lru)].nr;
	return nr;
}

bool pol_page_active(const struct pol *pol, uint32_t i)
{
	const struct pol_page *p = pg(pol, i);
	const struct lru_gen *g;

	if (p->lru != POL_LRU_GEN)
		return p->lru == POL_LRU_ACTIVE_ANON ||
		       p->lru == POL_LRU_ACTIVE_FILE;
	g = &pol__grp(pol, p->group)->lv.lrugen;
	return gen_is_active(g, p->spare[0]);
}

bool pol_page_gen(const struct pol *pol, uint32_t i, unsigned int *age,
		  bool *oldest)
{
	const struct pol_page *p = pg(pol, i);
	const struct lru_gen *g;
	uint64_t seq;

	if (p->lru != POL_LRU_GEN)
		return false;
	g = &pol__grp(pol, p->group)->lv.lrugen;
	*age = (pol__gen_from_seq(g->max_seq) + MAX_NR_GENS - p->spare[0]) %
	       MAX_NR_GENS;
	seq = g->max_seq - *age;
	*oldest = seq == g->min_seq[page_is_file(p)];
	return true;
}

/* ---- the live switch (§5.2) --------------------------------------------- */

/* fill_evictable(): the classic lists, oldest first, onto generations;
 * active pages to max_seq-1 (max_seq if workingset), order kept. */
static void fill(struct pol *pol, int group)
{
	struct lruvec *lv = &pol__grp(pol, group)->lv;

	for (int l = 0; l < POL_LRU_UNEVICTABLE; l++) {
		struct pol_list *list = &lv->lists[l];

		while (list->tail != POL_NONE) {
			uint32_t i = list->tail;

			pol__lru_del(pol, i);
			pol__gen_add(pol, i, lru_is_active((enum pol_lru)l),
				     false);
		}
	}
}

/* drain_evictable(): every generation back to the classic lists, the two
 * youngest to the active ones. */
static void drain(struct pol *pol, int group)
{
	struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;

	for (unsigned int gen = 0; gen < MAX_NR_GENS; gen++) {
		bool active = gen_is_active(g, gen);

		for (int type = 0; type < 2; type++) {
			struct pol_list *l = &g->lists[gen][type];

			while (l->tail != POL_NONE) {
				uint32_t i = l->tail;

				pol__gen_del(pol, i);
				pol__lru_add(pol, i, lru_of(type, active),
					     false);
			}
		}
	}
}

/*
 * /sys/kernel/mm/lru_gen/enabled: y (all bits), n, or a mask. Only
 * LRU_GEN_CORE switches anything; MM_WALK and NONLEAF_YOUNG need a
 * hardware accessed bit the pager does not have, so they are accepted
 * and not shown, as the kernel does on such hardware.
 */
int pol__lru_gen_set_enabled(struct pol *pol, const char *value,
			     const char **why)
{
	uint64_t mask = 0;
	bool was = pol__lru_gen_enabled(pol), on;
	const char *s = value;
	int base = 10;

	if (!strcmp(value, "y") || !strcmp(value, "Y")) {
		mask = LRU_GEN_CORE;
	} else if (!strcmp(value, "n") || !strcmp(value, "N")) {
		mask = 0;
	} else {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
		} else if (s[0] == '0' && s[1]) {
			base = 8;
			s++;
		}
		if (!*s) {
			*why = "expected y, n or a mask (0x0000-0x0007)";
			return -EINVAL;
		}
		for (; *s; s++) {
			int d = *s >= '0' && *s <= '9' ? *s - '0' :
				*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
				*s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : 99;

			if (d >= base || mask > 0xffffffffu) {
				*why = "expected y, n or a mask (0x0000-0x0007)";
				return -EINVAL;
			}
			mask = mask * (uint64_t)base + (uint64_t)d;
		}
		if (mask > 0xffffffffu) {
			*why = "out of range";
			return -ERANGE;
		}
	}
	on = mask & LRU_GEN_CORE;
	pol->t.lru_gen_enabled = (int)(mask & LRU_GEN_CORE);
	if (on == was)
		return 0;
	for (unsigned int gr = 0; gr < pol->nr_groups; gr++) {
		if (!pol__grp(pol, (int)gr)->live)
			continue;
		if (on)
			fill(pol, (int)gr);
		else
			drain(pol, (int)gr);
	}
	return 0;
}
