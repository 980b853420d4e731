/* SPDX-License-Identifier: MIT */
/*
 * backend.c - the in-memory backend of the simulator: what the policy
 * calls to test young bits, unmap, write out and evict, over the slot
 * arrays of sim.h, and the swap device and shadow-node bookkeeping that
 * go with them.
 *
 * rmap: an anon page is found through the ring of regions that fork made
 * from one another (each maps it at the same offset, like an anon_vma);
 * a file page through its inode's list of mapping regions.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/util.h"

#define CHUNK_SHIFT	6		/* 64-slot nodes, as the xarray's */
#define NODE_SWAP	(UINT64_C(1) << 63)

static struct sim_page *spage(const struct sim *s, uint32_t i)
{
	return &s->pages[i];
}

static bool is_anon_page(const struct sim_page *p)
{
	return p->pol.inode == POL_NONE;
}

/* ---- shadow-only nodes -------------------------------------------------- */

static void node_push(struct sim *s, uint64_t id)
{
	if (s->node_tail == s->node_cap) {
		/* Compact the consumed head away before growing. */
		size_t live = s->node_tail - s->node_head;

		if (live)
			memmove(s->node_fifo, s->node_fifo + s->node_head,
				live * sizeof(*s->node_fifo));
		s->node_head = 0;
		s->node_tail = live;
		pgr_grow(&s->node_fifo, &s->node_cap, live + 1,
			 sizeof(*s->node_fifo));
	}
	s->node_fifo[s->node_tail++] = id;
}

/* A node counter: resident pages in bits 8-14, shadows in bits 0-7, and
 * bit 15 while the node waits in the FIFO (so it is queued once). */
#define NODE_QUEUED	0x8000

static bool shadow_only(uint16_t c)
{
	return ((c >> 8) & 0x7f) == 0 && (c & 0xff) != 0;
}

/* Apply a change of (resident, shadow) counts to one node counter. */
static void node_update(struct sim *s, uint16_t *c, int dres, int dsh,
			uint64_t id)
{
	bool was = shadow_only(*c);
	unsigned int res = ((*c >> 8) & 0x7f) + dres, sh = (*c & 0xff) + dsh;

	*c = (uint16_t)((*c & NODE_QUEUED) | res << 8 | sh);
	if (!was && shadow_only(*c)) {
		s->nr_shadow_nodes++;
		if (!(*c & NODE_QUEUED)) {
			*c |= NODE_QUEUED;
			node_push(s, id);
		}
	} else if (was && !shadow_only(*c)) {
		s->nr_shadow_nodes--;
	}
}

/* Store @v in page-cache slot @off of @inode, keeping node counts. */
void sim_slot_set(struct sim *s, uint32_t inode, uint32_t off, uint64_t v)
{
	struct sim_inode *n = &s->inodes[inode];
	uint64_t old = n->slot[off];
	int dres = (slot_tag(v) == SLOT_PAGE) - (slot_tag(old) == SLOT_PAGE);
	int dsh = (slot_tag(v) == SLOT_SHADOW) - (slot_tag(old) == SLOT_SHADOW);

	n->slot[off] = v;
	if (dres || dsh)
		node_update(s, &n->chunk[off >> CHUNK_SHIFT], dres, dsh,
			    (uint64_t)inode << 32 | (off >> CHUNK_SHIFT));
}

static void swap_shadow_set(struct sim *s, uint32_t slot, uint64_t shadow)
{
	int dsh = !!shadow - !!s->swap[slot].shadow;

	s->swap[slot].shadow = shadow;
	if (dsh)
		node_update(s, &s->swap_chunk[slot >> CHUNK_SHIFT], 0, dsh,
			    NODE_SWAP | (slot >> CHUNK_SHIFT));
}

static void swap_cache_set(struct sim *s, uint32_t slot, uint32_t page)
{
	int dres = (page != T_NONE) - (s->swap[slot].cache != T_NONE);

	s->swap[slot].cache = page;
	if (dres)
		node_update(s, &s->swap_chunk[slot >> CHUNK_SHIFT], dres, 0,
			    NODE_SWAP | (slot >> CHUNK_SHIFT));
}

static uint64_t be_shadow_nodes(void *ctx)
{
	return ((struct sim *)ctx)->nr_shadow_nodes;
}

/* Take node @id off the FIFO: drop its shadows if it is still
 * shadow-only (return true), else leave it (it is queued again when it
 * becomes shadow-only again). */
static bool drop_node(struct sim *s, uint64_t id)
{
	uint32_t c = (uint32_t)id, first = c << CHUNK_SHIFT;

	if (id & NODE_SWAP) {
		s->swap_chunk[c] &= (uint16_t)~NODE_QUEUED;
		if (!shadow_only(s->swap_chunk[c]))
			return false;
		for (uint32_t i = first; i < first + 64; i++) {
			if (s->swap[i].shadow) {
				pol_shadow_forget(s->pol, s->swap[i].shadow);
				swap_shadow_set(s, i, 0);
			}
		}
		return true;
	} else {
		uint32_t ino = (uint32_t)(id >> 32) & 0x7fffffff;
		struct sim_inode *n = &s->inodes[ino];

		if (!n->chunk)
			return false;
		n->chunk[c] &= (uint16_t)~NODE_QUEUED;
		if (!shadow_only(n->chunk[c]))
			return false;
		for (uint32_t i = first; i < first + 64 && i < n->npages; i++) {
			if (slot_tag(n->slot[i]) == SLOT_SHADOW) {
				pol_shadow_forget(s->pol, n->slot[i] >> 2);
				sim_slot_set(s, ino, i, SLOT_EMPTY);
			}
		}
		return true;
	}
}

static uint64_t be_shadow_shrink(void *ctx, uint64_t nr)
{
	struct sim *s = ctx;
	uint64_t freed = 0;

	while (freed < nr && s->node_head < s->node_tail)
		freed += drop_node(s, s->node_fifo[s->node_head++]);
	return freed;
}

/* ---- swap ----------------------------------------------------------------- */

static void swap_grow(struct sim *s)
{
	uint32_t old = s->swap_cap, cap = old ? old * 2 : 1024;

	s->swap = pgr_xrealloc(s->swap, cap, sizeof(*s->swap));
	s->swap_chunk = pgr_xrealloc(s->swap_chunk, cap >> CHUNK_SHIFT,
				     sizeof(*s->swap_chunk));
	s->swap_free = pgr_xrealloc(s->swap_free, cap, sizeof(*s->swap_free));
	for (uint32_t i = old; i < cap; i++)
		s->swap[i] = (struct sim_swap){ 0, T_NONE, 0 };
	memset(s->swap_chunk + (old >> CHUNK_SHIFT), 0,
	       ((cap - old) >> CHUNK_SHIFT) * sizeof(*s->swap_chunk));
	/* Lowest slots on top of the stack, so they are used first. */
	for (uint32_t i = cap; i-- > old;)
		s->swap_free[s->nr_swap_free++] = i;
	s->swap_cap = cap;
}

static uint32_t swap_alloc(struct sim *s)
{
	uint32_t slot;

	if (s->swap_used >= s->o.swap)
		return T_NONE;
	if (!s->nr_swap_free)
		swap_grow(s);
	slot = s->swap_free[--s->nr_swap_free];
	s->swap[slot].map = 0;
	s->swap_used++;
	if (s->swap_used > s->swap_peak)
		s->swap_peak = s->swap_used;
	return slot;
}

/* Drop one reference to @slot; free it when none is left. */
void sim_swap_put(struct sim *s, uint32_t slot)
{
	if (--s->swap[slot].map)
		return;
	if (s->swap[slot].shadow) {
		pol_shadow_forget(s->pol, s->swap[slot].shadow);
		swap_shadow_set(s, slot, 0);
	}
	s->swap_free[s->nr_swap_free++] = slot;
	s->swap_used--;
}

/* Swap-in: @page now holds @slot as swap cache; return the slot's shadow
 * (consumed: the refault test is the shadow's last use). */
uint64_t sim_swap_claim(struct sim *s, uint32_t slot, uint32_t page)
{
	uint64_t shadow = s->swap[slot].shadow;

	swap_shadow_set(s, slot, 0);
	swap_cache_set(s, slot, page);
	s->pages[page].swap = slot;
	return shadow;
}

static void be_swap_space(void *ctx, uint64_t *total, uint64_t *free)
{
	struct sim *s = ctx;

	*total = s->o.swap;
	*free = s->o.swap - s->swap_used;
}

static bool be_swap_drop(void *ctx, uint32_t i)
{
	struct sim *s = ctx;
	struct sim_page *p = spage(s, i);

	/* Page tables of other processes still point at the slot. */
	if (p->swap == T_NONE || s->swap[p->swap].map > 1)
		return false;
	swap_cache_set(s, p->swap, T_NONE);
	sim_swap_put(s, p->swap);
	p->swap = T_NONE;
	return true;
}

/* ---- rmap ----------------------------------------------------------------- */

/* Visit every live region of @p's anon family that maps page @i. */
#define for_each_anon_mapping(s, r, p, i)				\
	for (uint32_t r##_first = (p)->obj, r = r##_first, r##_n = 0;	\
	     r != T_NONE && (r != r##_first || !r##_n++);		\
	     r = (s)->regions[r].family)				\
		if ((s)->regions[r].live && (s)->regions[r].slot &&	\
		    (p)->off < (s)->regions[r].npages &&		\
		    slot_tag((s)->regions[r].slot[(p)->off]) == SLOT_PAGE && \
		    slot_page((s)->regions[r].slot[(p)->off]) == (i))

bool sim_page_mapped(const struct sim *s, uint32_t i)
{
	const struct sim_page *p = spage(s, i);

	if (is_anon_page(p)) {
		for_each_anon_mapping(s, r, p, i)
			if (s->regions[r].slot[p->off] & SLOT_MAPPED)
				return true;
		return false;
	}
	for (uint32_t k = 0; k < s->inodes[p->obj].nr_mappers; k++) {
		const struct sim_region *m =
			&s->regions[s->inodes[p->obj].mappers[k]];
		uint64_t o = p->off - m->foff;

		if (p->off >= m->foff && o < m->npages &&
		    (m->fmap[o] & FMAP_MAPPED))
			return true;
	}
	return false;
}

static void note_mapping(struct pol_refs *refs, uint8_t rflags, bool young)
{
	refs->mapped = true;
	if (rflags & R_LOCKED)
		refs->vmflags |= POL_VM_LOCKED;
	/* 6.3+: mappings without recency are skipped entirely. */
	if (young && !(rflags & R_SEQ)) {
		refs->young++;
		if (rflags & R_EXEC)
			refs->vmflags |= POL_VM_EXEC;
	}
}

static void be_young(void *ctx, uint32_t i, struct pol_refs *refs)
{
	struct sim *s = ctx;
	struct sim_page *p = spage(s, i);

	if (is_anon_page(p)) {
		for_each_anon_mapping(s, r, p, i) {
			uint64_t *slot = &s->regions[r].slot[p->off];
			bool young = *slot & SLOT_YOUNG;

			if (!(*slot & SLOT_MAPPED))
				continue;
			if (!(s->regions[r].flags & R_SEQ))
				*slot &= ~(uint64_t)SLOT_YOUNG;
			note_mapping(refs, s->regions[r].flags, young);
		}
		return;
	}
	refs->file_mapped = s->inodes[p->obj].nr_mappers > 0;
	for (uint32_t k = 0; k < s->inodes[p->obj].nr_mappers; k++) {
		struct sim_region *m = &s->regions[s->inodes[p->obj].mappers[k]];
		uint64_t o = p->off - m->foff;
		bool young;

		if (p->off < m->foff || o >= m->npages ||
		    !(m->fmap[o] & FMAP_MAPPED))
			continue;
		young = m->fmap[o] & FMAP_YOUNG;
		if (!(m->flags & R_SEQ))
			m->fmap[o] &= (uint8_t)~FMAP_YOUNG;
		note_mapping(refs, m->flags, young);
	}
}

static int be_unmap(void *ctx, uint32_t i)
{
	struct sim *s = ctx;
	struct sim_page *p = spage(s, i);

	if (is_anon_page(p)) {
		bool dirty = false;

		for_each_anon_mapping(s, r, p, i) {
			uint64_t *slot = &s->regions[r].slot[p->off];

			dirty |= *slot & SLOT_DIRTY;
			*slot &= ~(uint64_t)(SLOT_MAPPED | SLOT_YOUNG |
					     SLOT_DIRTY);
		}
		/* The PTE's dirty bit passes to the page. */
		if (dirty)
			pol_page_dirty(s->pol, i, true);
		return 0;
	}
	for (uint32_t k = 0; k < s->inodes[p->obj].nr_mappers; k++) {
		struct sim_region *m = &s->regions[s->inodes[p->obj].mappers[k]];
		uint64_t o = p->off - m->foff;

		if (p->off >= m->foff && o < m->npages)
			m->fmap[o] = 0;
	}
	return 0;
}

/* ---- write-out and eviction ---------------------------------------------- */

static enum pol_writeout be_writeout(void *ctx, uint32_t i)
{
	struct sim *s = ctx;
	struct sim_page *p = spage(s, i);

	if (is_anon_page(p) && p->swap == T_NONE) {
		uint32_t slot = swap_alloc(s);

		if (slot == T_NONE)
			return POL_WRITEOUT_FAILED;
		s->swap[slot].map = 1;		/* the swap cache's */
		swap_cache_set(s, slot, i);
		p->swap = slot;
	}
	if (!s->async_writeback)
		return POL_WRITEOUT_DONE;
	pgr_grow(&s->wb_queue, &s->cap_wb, s->nr_wb + 1, sizeof(*s->wb_queue));
	s->wb_queue[s->nr_wb++] = i;
	return POL_WRITEOUT_STARTED;
}

/* Complete the writes in flight (sim.writeback=async). */
void sim_writeback_flush(struct sim *s)
{
	for (size_t k = 0; k < s->nr_wb; k++)
		pol_writeback_done(s->pol, s->wb_queue[k], true);
	s->nr_wb = 0;
}

static int be_evict(void *ctx, uint32_t i, uint64_t shadow)
{
	struct sim *s = ctx;
	struct sim_page *p = spage(s, i);

	if (!is_anon_page(p)) {
		sim_slot_set(s, p->obj, p->off,
			     shadow ? shadow << 2 | SLOT_SHADOW : SLOT_EMPTY);
		return 0;
	}
	if (p->swap == T_NONE) {
		/* A lazily freed page: its data is simply gone. */
		for_each_anon_mapping(s, r, p, i)
			s->regions[r].slot[p->off] = SLOT_EMPTY;
		return 0;
	}
	for_each_anon_mapping(s, r, p, i) {
		s->regions[r].slot[p->off] = (uint64_t)p->swap << 2 | SLOT_SWAP;
		s->swap[p->swap].map++;
	}
	swap_cache_set(s, p->swap, T_NONE);
	swap_shadow_set(s, p->swap, shadow);
	sim_swap_put(s, p->swap);		/* the swap cache's reference */
	p->swap = T_NONE;
	return 0;
}

/* Drop page @off of region @r from that region's view: the page goes
 * when no other region of its family maps it. */
void sim_region_free_page(struct sim *s, uint32_t r, uint32_t off)
{
	struct sim_region *R = &s->regions[r];
	uint64_t v = R->slot[off];
	uint32_t i;

	R->slot[off] = SLOT_EMPTY;
	if (slot_tag(v) == SLOT_SWAP) {
		sim_swap_put(s, (uint32_t)(v >> 2));
		return;
	}
	if (slot_tag(v) != SLOT_PAGE)
		return;
	i = slot_page(v);
	{
		struct sim_page *p = spage(s, i);

		for_each_anon_mapping(s, m, p, i) {
			p->obj = m;	/* someone else still maps it */
			return;
		}
		if (p->swap != T_NONE) {
			swap_cache_set(s, p->swap, T_NONE);
			sim_swap_put(s, p->swap);
			p->swap = T_NONE;
		}
		pol_page_free(s->pol, i);
	}
}

/* ---- the inode shrinker's callbacks -------------------------------------- */

static uint32_t be_invalidate_inode(void *ctx, uint32_t ino)
{
	struct sim *s = ctx;
	struct sim_inode *n = &s->inodes[ino];
	uint32_t dropped = 0;

	for (uint32_t off = 0; off < n->npages; off++) {
		uint32_t i;

		if (slot_tag(n->slot[off]) != SLOT_PAGE)
			continue;
		i = slot_page(n->slot[off]);
		if ((spage(s, i)->pol.flags & (POL_PG_DIRTY | POL_PG_WRITEBACK)) ||
		    (spage(s, i)->pol.lru >= POL_LRU_UNEVICTABLE &&
		     spage(s, i)->pol.lru != POL_LRU_GEN) ||
		    sim_page_mapped(s, i))
			continue;
		pol_page_free(s->pol, i);
		sim_slot_set(s, ino, off, SLOT_EMPTY);	/* no shadow */
		dropped++;
	}
	return dropped;
}

static void be_free_inode(void *ctx, uint32_t ino)
{
	struct sim *s = ctx;
	struct sim_inode *n = &s->inodes[ino];

	/* Evicting an inode drops its shadow entries too. */
	for (uint32_t off = 0; off < n->npages; off++) {
		if (slot_tag(n->slot[off]) == SLOT_SHADOW) {
			pol_shadow_forget(s->pol, n->slot[off] >> 2);
			sim_slot_set(s, ino, off, SLOT_EMPTY);
		}
	}
	n->cached = false;
}

/* Start loading what be_young() will read for page @i. */
static void be_prefetch(void *ctx, uint32_t i)
{
	struct sim *s = ctx;
	const struct sim_page *p = spage(s, i);
	const struct sim_region *r;

	if (is_anon_page(p)) {
		r = &s->regions[p->obj];
		if (r->slot)
			__builtin_prefetch(&r->slot[p->off]);
	} else if (s->inodes[p->obj].nr_mappers) {
		r = &s->regions[s->inodes[p->obj].mappers[0]];
		if (p->off >= r->foff && p->off - r->foff < r->npages)
			__builtin_prefetch(&r->fmap[p->off - r->foff]);
	}
}

/*
 * MGLRU's look-around window: 64 pages around @i in its region, within
 * its 512-page block (a page table, as if the region began on one: the
 * trace keeps no addresses). Anon pages only.
 */
static uint32_t be_neighbours(void *ctx, uint32_t i, uint32_t *out)
{
	struct sim *s = ctx;
	const struct sim_page *p = spage(s, i);
	const struct sim_region *r;
	uint64_t lo, hi;
	uint32_t n = 0;

	if (!is_anon_page(p))
		return 0;
	r = &s->regions[p->obj];
	if (!r->slot)
		return 0;
	lo = p->off & ~511u;
	hi = lo + 512 < r->npages ? lo + 512 : r->npages;
	pol_look_around_window(p->off, &lo, &hi);
	for (uint64_t o = lo; o < hi; o++) {
		uint64_t v = r->slot[o];

		if (slot_tag(v) == SLOT_PAGE && slot_page(v) != i)
			out[n++] = slot_page(v);
	}
	return n;
}

const struct pol_backend sim_backend = {
	.prefetch = be_prefetch,
	.young = be_young,
	.unmap = be_unmap,
	.writeout = be_writeout,
	.evict = be_evict,
	.swap_space = be_swap_space,
	.swap_drop = be_swap_drop,
	.invalidate_inode = be_invalidate_inode,
	.free_inode = be_free_inode,
	.shadow_nodes = be_shadow_nodes,
	.shadow_shrink = be_shadow_shrink,
	.neighbours = be_neighbours,
};
