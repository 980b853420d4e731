/* SPDX-License-Identifier: MIT */
/*
 * lru.c - where pages enter, move and leave the LRU lists (reclaim-policy.md
 * §1): insertion (§1.3), mark_page_accessed (§1.4b), hints (§1.4c), dirty
 * and writeback state (§2.3), freeing.
 *
 * Each group has one lruvec of five lists. A page is on exactly one of
 * them, or isolated by a scan in progress, or allocated but not yet added,
 * or free:
 *
 *   alloc --> ALLOCATED --add--> inactive/active anon|file, unevictable
 *                                   |  ^ (scan isolates and puts back)
 *                                   v  |
 *                                ISOLATED --evict--> FREE (shadow left)
 *   any list --pol_page_free--> FREE (no shadow)
 */
#include <assert.h>

#include "internal.h"

struct pol_page *pol_page(const struct pol *pol, uint32_t i)
{
	return pg(pol, i);
}

void pol__lru_add(struct pol *pol, uint32_t i, enum pol_lru lru, bool tail)
{
	struct pol_page *p = pg(pol, i);
	struct pol_list *l = &pol__grp(pol, p->group)->lv.lists[lru];

	p->lru = (uint8_t)lru;
	if (tail)
		pol__list_add_tail(pol, l, i);
	else
		pol__list_add_head(pol, l, i);
}

void pol__lru_del(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	assert(p->lru < POL_NR_LRU);
	pol__list_del(pol, &pol__grp(pol, p->group)->lv.lists[p->lru], i);
	p->lru = POL_LRU_ISOLATED;
}

void pol__lru_move(struct pol *pol, uint32_t i, enum pol_lru lru, bool tail)
{
	pol__lru_del(pol, i);
	pol__lru_add(pol, i, lru, tail);
}

void pol__put_free(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	p->flags = 0;
	p->inode = POL_NONE;
	p->lru = POL_LRU_FREE;
	pol__list_add_head(pol, &pol->free_list, i);
	pol->nr_allocated--;
}

/* The age advance of an activation (workingset_activation, §5.1). */
static void activation_age(struct pol *pol, const struct pol_page *p)
{
	if (pol->t.ws_size_rule == WS_FILE_ACTIVE47) {
		/* ≤5.7: by one, file pages only */
		if (page_is_file(p))
			pol__workingset_age(pol, p->group, 1);
		return;
	}
	pol__workingset_age(pol, p->group, 1);
}

/* Move an inactive page to the head of its active list (folio_activate). */
void pol__activate_page(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	pol__lru_move(pol, i, lru_of(lru_type(p->lru), true), false);
	pol__count(pol, p->group, POL_PGACTIVATE, 1);
}

static void inode_add_page(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	n->nrpages++;
	/* 5.16+: an inode with page cache is kept off the inode LRU. */
	if (pol->t.keep_cached_off_lru && (n->flags & POL_INODE_ON_LRU)) {
		pol__ilist_del(pol, &pol__grp(pol, n->group)->inode_lru, ino);
		n->flags &= ~POL_INODE_ON_LRU;
	}
}

static void inode_del_page(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	assert(n->nrpages > 0);
	n->nrpages--;
	if (!n->nrpages && !n->users && !(n->flags & POL_INODE_ON_LRU)) {
		pol__ilist_add_head(pol, &pol__grp(pol, n->group)->inode_lru, ino);
		n->flags |= POL_INODE_ON_LRU;
	}
}

/* mlock_new_folio(): a page of a VM_LOCKED mapping goes straight to the
 * unevictable list, mlocked. */
void pol__add_mlocked(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	p->flags |= POL_PG_MLOCKED;
	pol__lru_add(pol, i, POL_LRU_UNEVICTABLE, false);
	pol__count(pol, p->group, POL_UNEVICTABLE_PGMLOCKED, 1);
	pol__count(pol, p->group, POL_UNEVICTABLE_PGCULLED, 1);
}

bool pol_page_add(struct pol *pol, uint32_t i, const struct pol_add *how)
{
	struct pol_page *p = pg(pol, i);
	bool active = false;

	assert(p->lru == POL_LRU_ALLOCATED);
	p->flags = 0;
	p->inode = POL_NONE;
	if (how->anon)
		p->flags |= POL_PG_SWAPBACKED;
	if (how->anon && how->swapcache)
		p->flags |= POL_PG_SWAPCACHE;
	if (how->dirty) {
		p->flags |= POL_PG_DIRTY;
		pol->nr_dirty++;
	}
	if (!how->anon && how->inode != POL_NONE &&
	    how->inode < pol->nr_inodes) {
		p->inode = how->inode;
		inode_add_page(pol, how->inode);
	}

	if (pol__lru_gen_enabled(pol)) {
		/* MGLRU: a fault-in is placed young (folio_add_lru());
		 * its refault feeds the PID controller. */
		if (how->shadow) {
			pol->nr_shadows--;
			pol__lru_gen_refault(pol, i, how->shadow, how->fault);
		}
		if (how->unevictable) {
			pol__add_mlocked(pol, i);
			return false;
		}
		pol__gen_add(pol, i, how->fault, false);
		return how->fault;
	}
	if (how->shadow) {
		pol->nr_shadows--;
		if (!(how->write && pol->t.ws_ignore_write_refaults))
			active = pol__workingset_refault(pol, i, how->shadow);
	}

	if (how->unevictable) {
		pol__add_mlocked(pol, i);
		return active;
	}
	if (how->anon && !how->swapin && pol->t.anon_starts_active)
		active = true;	/* ≤5.8: new anon pages start active */
	pol__lru_add(pol, i, lru_of(page_is_file(p) ? TYPE_FILE : TYPE_ANON, active), false);
	if (how->swapin && !active && pol->t.swapin_activate) {
		/* ≤5.8: do_swap_page() activated every swap-in. */
		pol__activate_page(pol, i);
		activation_age(pol, p);
		active = true;
	}
	return active;
}

/* Return page @i, off every list, to the free list: drop its counts,
 * its inode's, its charge. */
void pol__page_release(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	if (p->flags & POL_PG_DIRTY)
		pol->nr_dirty--;
	if (p->flags & POL_PG_WRITEBACK)
		pol->nr_writeback--;
	if (p->inode != POL_NONE)
		inode_del_page(pol, p->inode);
	pol__charge(pol, p->group, -1);
	pol__count(pol, p->group, POL_PGFREE, 1);
	pol__put_free(pol, i);
}

void pol_page_free(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	assert(p->lru < POL_NR_LRU || p->lru == POL_LRU_ALLOCATED ||
	       p->lru == POL_LRU_GEN);
	if (p->lru == POL_LRU_GEN)
		pol__gen_del(pol, i);
	else if (p->lru < POL_NR_LRU)
		pol__lru_del(pol, i);
	pol__page_release(pol, i);
}

void pol_shadow_forget(struct pol *pol, uint64_t shadow)
{
	if (shadow && pol->nr_shadows)
		pol->nr_shadows--;
}

void pol_mark_accessed(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	if (p->lru == POL_LRU_GEN) {
		pol__lru_gen_inc_refs(p);
		return;
	}
	if (!(p->flags & POL_PG_REFERENCED)) {
		p->flags |= POL_PG_REFERENCED;
	} else if (p->lru == POL_LRU_INACTIVE_ANON ||
		   p->lru == POL_LRU_INACTIVE_FILE) {
		pol__activate_page(pol, i);
		p->flags &= ~POL_PG_REFERENCED;
		activation_age(pol, p);
	}
	/* Active, unevictable or isolated and already referenced: nothing. */
}

void pol_page_dirty(struct pol *pol, uint32_t i, bool dirty)
{
	struct pol_page *p = pg(pol, i);

	if (dirty && !(p->flags & POL_PG_DIRTY)) {
		p->flags |= POL_PG_DIRTY;
		pol->nr_dirty++;
	} else if (!dirty && (p->flags & POL_PG_DIRTY)) {
		p->flags &= ~POL_PG_DIRTY;
		pol->nr_dirty--;
	}
}

/* folio_end_writeback(): a PG_reclaim page moves to the inactive tail so
 * the next scan frees it (folio_rotate_reclaimable). */
void pol_writeback_done(struct pol *pol, uint32_t i, bool ok)
{
	struct pol_page *p = pg(pol, i);

	if (!(p->flags & POL_PG_WRITEBACK))
		return;
	p->flags &= ~POL_PG_WRITEBACK;
	pol->nr_writeback--;
	if (!ok) {
		pol_page_dirty(pol, i, true);
		p->flags &= ~POL_PG_RECLAIM;
		return;
	}
	if (!(p->flags & POL_PG_RECLAIM))
		return;
	p->flags &= ~POL_PG_RECLAIM;
	if (p->lru == POL_LRU_GEN && !(p->flags & POL_PG_DIRTY)) {
		/* lru_gen_add_folio(reclaiming): the oldest tail */
		pol__gen_del(pol, i);
		pol__gen_add(pol, i, false, true);
		pol__count(pol, p->group, POL_PGROTATED, 1);
		return;
	}
	if (p->lru >= POL_LRU_UNEVICTABLE || (p->flags & POL_PG_DIRTY))
		return;
	pol__lru_move(pol, i, lru_of(lru_type(p->lru), false), true);
	pol__count(pol, p->group, POL_PGROTATED, 1);
}

void pol_page_cold(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);
	bool was_active = lru_is_active(p->lru);

	if (p->lru == POL_LRU_GEN) {
		/* lru_deactivate(): refs cleared, added back as new. */
		was_active = pol_page_active(pol, i);
		pol__gen_del(pol, i);
		p->flags &= ~POL_PG_REFERENCED;
		pol__lru_gen_clear_refs(p);
		pol__gen_add(pol, i, false, false);
		if (was_active)
			pol__count(pol, p->group, POL_PGDEACTIVATE, 1);
		return;
	}
	if (p->lru >= POL_LRU_UNEVICTABLE)
		return;
	if (!was_active && !(p->flags & POL_PG_REFERENCED))
		return;
	p->flags &= ~POL_PG_REFERENCED;
	pol__lru_move(pol, i, lru_of(lru_type(p->lru), false), false);
	if (was_active)
		pol__count(pol, p->group, POL_PGDEACTIVATE, 1);
}

void pol_page_lazyfree(struct pol *pol, uint32_t i)
{
	struct pol_page *p = pg(pol, i);

	if ((p->lru >= POL_LRU_UNEVICTABLE && p->lru != POL_LRU_GEN) ||
	    !(p->flags & POL_PG_SWAPBACKED) || (p->flags & POL_PG_SWAPCACHE))
		return;
	if (p->lru == POL_LRU_GEN) {
		pol__gen_del(pol, i);
		pol__lru_gen_clear_refs(p);
		p->flags &= ~POL_PG_SWAPBACKED;
		p->flags |= POL_PG_LAZYFREE;
		pol_page_dirty(pol, i, false);
		pol__gen_add(pol, i, false, false);
		pol__count(pol, p->group, POL_PGLAZYFREE, 1);
		return;
	}
	p->flags &= ~(POL_PG_REFERENCED | POL_PG_SWAPBACKED);
	p->flags |= POL_PG_LAZYFREE;
	pol_page_dirty(pol, i, false);
	pol__lru_move(pol, i, POL_LRU_INACTIVE_FILE, false);
	pol__count(pol, p->group, POL_PGLAZYFREE, 1);
}

void pol_page_mlock(struct pol *pol, uint32_t i, bool locked)
{
	struct pol_page *p = pg(pol, i);
	bool listed = p->lru < POL_LRU_UNEVICTABLE || p->lru == POL_LRU_GEN;

	if (p->lru == POL_LRU_FREE || p->lru == POL_LRU_ALLOCATED ||
	    !(p->flags & POL_PG_MLOCKED) == !locked)
		return;
	/* An isolated page keeps the flag: its putback sees it. */
	if (locked) {
		p->flags |= POL_PG_MLOCKED;
		pol__count(pol, p->group, POL_UNEVICTABLE_PGMLOCKED, 1);
		if (!listed)
			return;
		if (p->lru == POL_LRU_GEN) {
			pol__gen_del(pol, i);
			pol__lru_add(pol, i, POL_LRU_UNEVICTABLE, false);
		} else {
			pol__lru_move(pol, i, POL_LRU_UNEVICTABLE, false);
		}
		pol__count(pol, p->group, POL_UNEVICTABLE_PGCULLED, 1);
		return;
	}
	p->flags &= ~POL_PG_MLOCKED;
	pol__count(pol, p->group, POL_UNEVICTABLE_PGMUNLOCKED, 1);
	if (p->lru != POL_LRU_UNEVICTABLE)
		return;
	pol__count(pol, p->group, POL_UNEVICTABLE_PGRESCUED, 1);
	if (pol__lru_gen_enabled(pol)) {
		pol__lru_del(pol, i);
		pol__gen_add(pol, i, false, false);
		return;
	}
	pol__lru_move(pol, i, page_is_file(p) ? POL_LRU_INACTIVE_FILE :
		      POL_LRU_INACTIVE_ANON, false);
}
