/* SPDX-License-Identifier: MIT */
/*
 * scan.c - the two list scans: pol__shrink_inactive_list() with the per-page
 * steps of shrink_folio_list() (reclaim-policy.md §2.3), and
 * pol__shrink_active_list() (§2.5).
 *
 * Life of a page through the inactive scan:
 *
 *   isolate from the tail
 *     -> mlocked?                         unevictable list
 *     -> under writeback?                 PG_reclaim, activate
 *     -> check_references (refs.c)        ACTIVATE / KEEP / RECLAIM[_CLEAN]
 *     -> anon without swap copy?          swap full: activate
 *     -> unmap (backend)                  failed: activate
 *     -> dirty file page?                 flusher write-back, PG_reclaim,
 *                                         activate (rotated when written)
 *     -> dirty anon (or reclaim writes)?  write-out (backend); in flight:
 *                                         back to the inactive head
 *     -> clean                            evict (backend), shadow left
 */
#include <assert.h>

#include "internal.h"

static bool swap_half_full(const struct pol *pol)
{
	uint64_t total, free;

	pol->be->swap_space(pol->ctx, &total, &free);
	return total && free * 2 < total;
}

static bool swap_free(const struct pol *pol)
{
	uint64_t total, free;

	pol->be->swap_space(pol->ctx, &total, &free);
	return free > 0;
}

/* Start writing page @i; count the I/O. */
enum pol_writeout pol__writeout(struct pol *pol, uint32_t i, bool reclaim)
{
	struct pol_page *p = pg(pol, i);
	enum pol_writeout w = pol->be->writeout(pol->ctx, i);
	bool io = w != POL_WRITEOUT_STORED;	/* zswap: no device I/O */

	if (!io)
		w = POL_WRITEOUT_DONE;
	if (w != POL_WRITEOUT_DONE && w != POL_WRITEOUT_STARTED)
		return w;
	if (p->flags & POL_PG_SWAPBACKED) {
		p->flags |= POL_PG_SWAPCACHE;
		if (io)
			pol__count(pol, p->group, POL_PSWPOUT, 1);
	} else if (reclaim) {
		pol__count(pol, p->group, POL_NR_VMSCAN_WRITE, 1);
	}
	if (io)
		pol__count(pol, p->group, POL_PGPGOUT, 4);
	pol_page_dirty(pol, i, false);
	if (w == POL_WRITEOUT_STARTED) {
		p->flags |= POL_PG_WRITEBACK;
		pol->nr_writeback++;
	}
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_WRITEPAGE,
		.group = p->group, .page = i,
		.nr = { page_is_file(p) ? TYPE_FILE : TYPE_ANON } });
	return w;
}

/* Drop an isolated page that reclaim freed, leaving @shadow. */
static bool free_page(struct pol *pol, uint32_t i, uint64_t shadow)
{
	if (pol->be->evict(pol->ctx, i, shadow))
		return false;
	if (shadow)
		pol->nr_shadows++;
	pol__page_release(pol, i);
	return true;
}

/* The dirty step (§2.3 step 6). */
static enum outcome dirty_page(struct pol *pol, uint32_t i, enum verdict v,
			       struct scan_control *sc, struct scan_stat *st)
{
	struct pol_page *p = pg(pol, i);
	bool reclaim_writes = pol->t.writeback_from_reclaim && sc->kswapd &&
			      (p->flags & POL_PG_RECLAIM);

	if (page_is_file(p) && !reclaim_writes) {
		/* The flushers write it; reclaim frees it once written. The
		 * pager has no flusher, so the write-back is queued now. */
		pol__count(pol, p->group, POL_NR_VMSCAN_IMMEDIATE_RECLAIM, 1);
		st->nr_immediate++;
		if (p->flags & POL_PG_WRITEBACK)
			return O_ACTIVATE;
		p->flags |= POL_PG_RECLAIM;
		switch (pol__writeout(pol, i, false)) {
		case POL_WRITEOUT_DONE:
			/* Written at once: activated and rotated to the tail
			 * at completion, as the flusher's page would be. */
			p->flags &= ~POL_PG_RECLAIM;
			pol__count(pol, p->group, POL_PGACTIVATE, 1);
			pol__count(pol, p->group, POL_PGROTATED, 1);
			return O_KEEP_TAIL;
		case POL_WRITEOUT_STARTED:
			return O_ACTIVATE;
		default:
			p->flags &= ~POL_PG_RECLAIM;
			return O_ACTIVATE;
		}
	}
	if (v == V_RECLAIM_CLEAN || !sc->may_writepage)
		return O_KEEP;
	p->flags |= POL_PG_RECLAIM;
	switch (pol__writeout(pol, i, true)) {
	case POL_WRITEOUT_STARTED:
		st->nr_pageout++;
		return O_KEEP;
	case POL_WRITEOUT_DONE:
		/* A synchronous write (zram, ramdisk): free it right away. */
		st->nr_pageout++;
		p->flags &= ~POL_PG_RECLAIM;
		return O_FREED;
	case POL_WRITEOUT_KEEP:
		p->flags &= ~POL_PG_RECLAIM;
		return O_KEEP;
	default:
		p->flags &= ~POL_PG_RECLAIM;
		return O_ACTIVATE;
	}
}

/*
 * A young bit the backend reported without clearing (refs->kept) must be
 * cleared unless the page is being activated and the active scan's test,
 * which clears it again, decides nothing for it: anon and non-exec file
 * pages are deactivated whatever it says, except under the ≤5.7 cost
 * model, which counts young active pages as rotations.
 */
static void clear_kept(struct pol *pol, uint32_t i, const struct pol_refs *r,
		       bool activating)
{
	const struct pol_page *p = pg(pol, i);

	if (!r->kept || !pol->be->young_clear)
		return;
	/* MGLRU tests again only at eviction: always. */
	if (activating && !pol__lru_gen_enabled(pol) && pol->t.cost_model != COST_ROTATION57 &&
	    pol->t.use_once_mapped &&
	    !((r->vmflags & POL_VM_EXEC) && page_is_file(p)))
		return;
	pol->be->young_clear(pol->ctx, i);
}

/* Decide one isolated page (§2.3 steps 1-7). */
enum outcome pol__reclaim_one(struct pol *pol, uint32_t i,
			      struct scan_control *sc, struct scan_stat *st)
{
	struct pol_page *p = pg(pol, i);
	struct pol_refs refs = { 0 };
	enum verdict v = V_RECLAIM;
	enum outcome o;
	int group;

	if (p->flags & POL_PG_MLOCKED)
		return O_UNEVICTABLE;
	if (p->flags & POL_PG_WRITEBACK) {
		if (sc->kswapd && (p->flags & POL_PG_RECLAIM))
			st->nr_immediate++;
		p->flags |= POL_PG_RECLAIM;
		return O_ACTIVATE;
	}
	pol->be->young(pol->ctx, i, &refs);
	if (refs.vmflags & POL_VM_LOCKED) {
		/* The rmap walk met a VM_LOCKED mapping: mlock_vma_folio(). */
		p->flags |= POL_PG_MLOCKED;
		pol__count(pol, p->group, POL_UNEVICTABLE_PGMLOCKED, 1);
		return O_UNEVICTABLE;
	}
	if (refs.young && pol__lru_gen_enabled(pol))
		pol__lru_gen_look_around(pol, i, sc);
	if (!sc->ignore_references)
		v = pol__check_references(pol, p, &refs);
	clear_kept(pol, i, &refs, v == V_ACTIVATE);
	if (v == V_ACTIVATE)
		return O_ACTIVATE;
	if (v == V_KEEP)
		return O_KEEP;

	if ((p->flags & POL_PG_SWAPBACKED) && !(p->flags & POL_PG_SWAPCACHE)) {
		if (!sc->may_swap || !swap_free(pol))
			return O_ACTIVATE;	/* add_to_swap() failed */
		pol_page_dirty(pol, i, true);
	}
	if (pol->be->unmap(pol->ctx, i))
		return O_ACTIVATE;
	if (p->flags & POL_PG_LAZYFREE) {
		if (p->flags & POL_PG_DIRTY) {
			/* Written since MADV_FREE: anon again. */
			p->flags &= ~POL_PG_LAZYFREE;
			p->flags |= POL_PG_SWAPBACKED;
			return O_ACTIVATE;
		}
		group = p->group;	/* the descriptor is free after this */
		if (!free_page(pol, i, 0))
			return O_KEEP;
		pol__count(pol, group, POL_PGLAZYFREED, 1);
		return O_FREED;
	}
	if (p->flags & POL_PG_DIRTY) {
		o = dirty_page(pol, i, v, sc, st);
		if (o != O_FREED)
			return o;
	}
	if (!free_page(pol, i, pol__workingset_eviction(pol, i, sc->root)))
		return O_KEEP;
	return O_FREED;
}

/* §2.3 step 8: give up the swap copy of a page that stays. */
void pol__activate_prepare(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	if ((p->flags & POL_PG_SWAPCACHE) && !(p->flags & POL_PG_WRITEBACK) &&
	    (swap_half_full(pol) || (p->flags & POL_PG_MLOCKED)) &&
	    pol->be->swap_drop && pol->be->swap_drop(pol->ctx, i)) {
		p->flags &= ~POL_PG_SWAPCACHE;
		pol_page_dirty(pol, i, true);
	}
}

/*
 * shrink_folio_list(): decide every page of @isolated and put each where
 * it belongs. Return pages reclaimed.
 */
static uint64_t shrink_page_list(struct pol *pol, struct pol_list *isolated,
				 struct scan_control *sc, struct scan_stat *st)
{
	uint64_t reclaimed = 0;

	while (isolated->head != POL_NONE) {
		uint32_t i = isolated->head;
		struct pol_page *p = pg(pol, i);
		int type;

		pol__list_del(pol, isolated, i);
		switch (pol__reclaim_one(pol, i, sc, st)) {
		case O_FREED:
			reclaimed++;
			break;
		case O_UNEVICTABLE:
			pol__lru_add(pol, i, POL_LRU_UNEVICTABLE, false);
			pol__count(pol, p->group, POL_UNEVICTABLE_PGCULLED, 1);
			break;
		case O_ACTIVATE:
			pol__activate_prepare(pol, i);
			type = page_is_file(p) ? TYPE_FILE : TYPE_ANON;
			pol__lru_add(pol, i, lru_of(type, true), false);
			st->nr_activate[type]++;
			pol__count(pol, p->group, POL_PGACTIVATE, 1);
			/* 5.8+: pages put back active age the lruvec. */
			if (pol->t.ws_size_rule != WS_FILE_ACTIVE47)
				pol__workingset_age(pol, p->group, 1);
			break;
		case O_KEEP_TAIL:
			pol__lru_add(pol, i, lru_of(page_is_file(p) ? TYPE_FILE : TYPE_ANON,
					       false), true);
			break;
		case O_KEEP:
			pol__lru_add(pol, i, lru_of(page_is_file(p) ? TYPE_FILE : TYPE_ANON,
					       false), false);
			break;
		}
	}
	if (reclaimed && pol->be->unmap_flush)
		pol->be->unmap_flush(pol->ctx);
	return reclaimed;
}

static void isolate(struct pol *pol, struct pol_list *from,
		    struct pol_list *to, uint64_t nr)
{
	for (uint64_t k = 0; k < nr && from->tail != POL_NONE; k++) {
		uint32_t i = from->tail;

		pol__list_del(pol, from, i);
		pg(pol, i)->lru = POL_LRU_ISOLATED;
		pol__list_add_tail(pol, to, i);
		if (pol->be->prefetch)
			pol->be->prefetch(pol->ctx, i);
	}
}

uint64_t pol__shrink_inactive_list(struct pol *pol, int group, enum pol_lru lru,
			      uint64_t nr, struct scan_control *sc)
{
	struct lruvec *lv = &pol__grp(pol, group)->lv;
	struct pol_list isolated;
	struct scan_stat st = { .nr_pageout = 0 };
	int type = lru_type(lru);
	uint64_t taken, reclaimed;

	pol__list_init(&isolated);
	isolate(pol, &lv->lists[lru], &isolated, nr);
	taken = isolated.nr;
	if (!taken)
		return 0;
	sc->nr_scanned += taken;
	pol__count_global(pol, sc, group, sc->kswapd ? POL_PGSCAN_KSWAPD :
		     POL_PGSCAN_DIRECT, taken);
	pol__count(pol, group, type == TYPE_FILE ? POL_PGSCAN_FILE : POL_PGSCAN_ANON,
	      taken);
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_LRU_ISOLATE,
		.group = (uint16_t)group, .lru = (uint8_t)lru,
		.priority = (int8_t)sc->priority, .nr = { nr, taken } });

	reclaimed = shrink_page_list(pol, &isolated, sc, &st);

	sc->nr_pageout += st.nr_pageout;
	pol__count_global(pol, sc, group, sc->kswapd ? POL_PGSTEAL_KSWAPD :
		     POL_PGSTEAL_DIRECT, reclaimed);
	pol__count(pol, group, type == TYPE_FILE ? POL_PGSTEAL_FILE : POL_PGSTEAL_ANON,
	      reclaimed);
	if (pol->t.cost_model == COST_ROTATION57) {
		lv->recent_scanned[type] += taken;
		lv->recent_rotated[type] += st.nr_activate[type];
	} else {
		pol__note_cost(pol, group, type, st.nr_pageout, taken - reclaimed);
	}
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_SHRINK_INACTIVE,
		.group = (uint16_t)group, .lru = (uint8_t)lru,
		.priority = (int8_t)sc->priority,
		.nr = { taken, reclaimed, st.nr_activate[TYPE_ANON] +
			st.nr_activate[TYPE_FILE], st.nr_immediate } });
	return reclaimed;
}

/* Did the active scan see the page as young; consumes the legacy mark. */
static bool active_young(struct pol *pol, struct pol_page *p,
			 const struct pol_refs *r)
{
	if (pol->t.use_once_mapped)
		return r->young || r->contended;
	/* 2.6.31-33: only pages in use were tested, and the test folded in
	 * (and cleared) PG_referenced. */
	if (!pol__in_use(p, r))
		return false;
	if (r->young)
		return true;
	if (p->flags & POL_PG_REFERENCED) {
		p->flags &= ~POL_PG_REFERENCED;
		return true;
	}
	return false;
}

void pol__shrink_active_list(struct pol *pol, int group, enum pol_lru lru,
			uint64_t nr, struct scan_control *sc)
{
	struct lruvec *lv = &pol__grp(pol, group)->lv;
	struct pol_list taken;
	int type = lru_type(lru);
	uint64_t nr_taken, young = 0, rotated = 0, deactivated = 0;

	pol__list_init(&taken);
	isolate(pol, &lv->lists[lru], &taken, nr);
	nr_taken = taken.nr;
	if (!nr_taken)
		return;
	pol__count_global(pol, sc, group, POL_PGREFILL, nr_taken);

	while (taken.head != POL_NONE) {
		uint32_t i = taken.head;
		struct pol_page *p = pg(pol, i);
		struct pol_refs refs = { 0 };

		pol__list_del(pol, &taken, i);
		if (p->flags & POL_PG_MLOCKED) {
			pol__lru_add(pol, i, POL_LRU_UNEVICTABLE, false);
			pol__count(pol, p->group, POL_UNEVICTABLE_PGCULLED, 1);
			continue;
		}
		pol->be->young(pol->ctx, i, &refs);
		clear_kept(pol, i, &refs, false);
		if (refs.vmflags & POL_VM_LOCKED) {
			pol__add_mlocked(pol, i);
			continue;
		}
		if (active_young(pol, p, &refs)) {
			young++;
			if ((refs.vmflags & POL_VM_EXEC) && page_is_file(p)) {
				rotated++;
				pol__lru_add(pol, i, lru, false);
				continue;
			}
		}
		p->flags |= POL_PG_WORKINGSET;
		pol__lru_add(pol, i, lru_of(type, false), false);
		deactivated++;
	}
	pol__count(pol, group, POL_PGDEACTIVATE, deactivated);
	if (pol->t.ws_size_rule != WS_FILE_ACTIVE47 && rotated)
		pol__workingset_age(pol, group, rotated);
	if (pol->t.cost_model == COST_ROTATION57) {
		lv->recent_scanned[type] += nr_taken;
		lv->recent_rotated[type] += young;
	} else if (pol->t.cost_model == COST_IO_ROT62) {
		pol__note_cost(pol, group, type, 0, rotated);
	}
	pol__emit(pol, &(struct pol_event){ .type = POL_EV_SHRINK_ACTIVE,
		.group = (uint16_t)group, .lru = (uint8_t)lru,
		.priority = (int8_t)sc->priority,
		.nr = { nr_taken, rotated, deactivated } });
}

uint64_t pol_shrink_list(struct pol *pol, int group, enum pol_lru lru,
			 uint64_t nr)
{
	struct scan_control sc = {
		.priority = DEF_PRIORITY, .root = group, .may_writepage = true,
		.may_unmap = true, .may_swap = true, .nr_to_reclaim = nr,
	};

	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    lru >= POL_LRU_UNEVICTABLE)
		return 0;
	if (lru_is_active(lru)) {
		pol__shrink_active_list(pol, group, lru, nr, &sc);
		return 0;
	}
	return pol__shrink_inactive_list(pol, group, lru, nr, &sc);
}

bool pol_page_pageout(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);
	struct scan_control sc = {
		.priority = DEF_PRIORITY, .root = POL_ROOT,
		.may_writepage = true, .may_unmap = true, .may_swap = true,
		.ignore_references = true, .nr_to_reclaim = 1,
	};
	struct scan_stat st = { .nr_pageout = 0 };
	struct pol_list one;

	if (p->lru >= POL_LRU_UNEVICTABLE && p->lru != POL_LRU_GEN)
		return false;
	pol__list_init(&one);
	if (p->lru == POL_LRU_GEN) {
		pol__gen_del(pol, i);
		pol__list_add_tail(pol, &one, i);
		return pol__lru_gen_reclaim_list(pol, &one, &sc) == 1;
	}
	pol__lru_del(pol, i);
	pol__list_add_tail(pol, &one, i);
	return shrink_page_list(pol, &one, &sc, &st) == 1;
}
