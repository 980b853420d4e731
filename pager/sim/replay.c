/* SPDX-License-Identifier: MIT */
/*
 * replay.c - replaying a trace's events through the policy.
 *
 * An access to a page that a PTE maps sets its young bit, as hardware
 * would, and costs nothing more: that is the common case and the fast
 * path. Everything else is a fault:
 *
 *   anon slot empty            first touch: a new page (a miss)
 *   anon slot in swap          swap-in: refault test, major fault (a miss)
 *                              - unless another process already brought
 *                              the slot back (swap cache: minor)
 *   page resident, unmapped    minor fault: map it again (young)
 *   file page not cached       read it in: refault test, major (a miss)
 *   write to a private file    copy-on-write: a new anon page
 *   page or shared anon page
 *
 * Allocations go through pol_page_alloc(), which reclaims; kswapd runs
 * between events when it was woken. When the policy declares OOM, the
 * process with the highest badness (resident pages + swap entries) is
 * killed and its later events are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/util.h"

static int proc_group(const struct sim *s, uint32_t r)
{
	return s->procs[s->t->regions[r].proc].group;
}

static void fault(struct sim *s, int group, bool major)
{
	pol_count(s->pol, group, POL_PGFAULT, 1);
	if (major)
		pol_count(s->pol, group, POL_PGMAJFAULT, 1);
}

/* ---- OOM ---------------------------------------------------------------- */

static uint64_t badness(const struct sim *s, uint32_t proc)
{
	uint64_t pts = 0;

	for (uint32_t r = 0; r < s->t->nr_regions; r++) {
		const struct sim_region *R = &s->regions[r];

		if (!R->live || R->proc != proc)
			continue;
		for (uint32_t o = 0; R->slot && o < R->npages; o++)
			pts += slot_tag(R->slot[o]) == SLOT_PAGE ||
			       slot_tag(R->slot[o]) == SLOT_SWAP;
		for (uint32_t o = 0; R->fmap && o < R->npages; o++)
			pts += !!(R->fmap[o] & FMAP_MAPPED);
	}
	return pts;
}

static bool in_group(const struct sim *s, int g, int root)
{
	for (; g >= 0; g = pol_group_parent(s->pol, g))
		if (g == root)
			return true;
	return false;
}

static void unmap_region(struct sim *s, uint32_t r, uint32_t off,
			 uint32_t len, bool final);

static uint32_t pick_victim(const struct sim *s, int root)
{
	uint64_t best = 0;
	uint32_t victim = T_NONE;

	for (uint32_t p = 0; p < s->t->nr_procs; p++) {
		uint64_t b;

		if (!s->procs[p].live || !in_group(s, s->procs[p].group, root))
			continue;
		b = badness(s, p);
		if (b > best) {
			best = b;
			victim = p;
		}
	}
	return victim;
}

static void kill_proc(struct sim *s, uint32_t proc)
{
	for (uint32_t r = 0; r < s->t->nr_regions; r++)
		if (s->regions[r].live && s->regions[r].proc == proc)
			unmap_region(s, r, 0, s->regions[r].npages, true);
	s->procs[proc].live = false;
	s->procs[proc].killed = true;
	s->oom_kills++;
	pol_count(s->pol, s->procs[proc].group, POL_OOM_KILL, 1);
}

/*
 * sim.direct_reclaimers=N: a crude model of N threads allocating at
 * once. The replay is one thread, so an allocation that finds memory at
 * the min watermark reclaims alone (32 pages, then takes one); on a
 * many-core machine the other threads find the same and enter direct
 * reclaim with it, each with its own 32-page goal and, at DEF_PRIORITY,
 * its own full batch. Here the N-1 others reclaim before this one.
 */
static void crowd_reclaim(struct sim *s)
{
	uint64_t min, low, high;

	if (s->direct_reclaimers < 2)
		return;
	pol_watermarks(s->pol, &min, &low, &high);
	if (pol_free_pages(s->pol) > min)
		return;
	for (unsigned int k = 1; k < s->direct_reclaimers; k++)
		pol_direct_reclaim(s->pol);
}

/* A page for @group on behalf of process @proc, or T_NONE if @proc was
 * killed to make room (or nothing could be killed: s->err is set). */
static uint32_t alloc_page(struct sim *s, int group, uint32_t proc)
{
	for (;;) {
		enum pol_alloc_result r;
		uint32_t i, victim;

		crowd_reclaim(s);
		r = pol_page_alloc(s->pol, group, &i);
		if (r == POL_ALLOC_OK) {
			s->pages[i].swap = T_NONE;
			return i;
		}
		victim = pick_victim(s, r == POL_ALLOC_OOM_GROUP ? group :
				     POL_ROOT);
		if (victim == T_NONE) {
			snprintf(s->err, sizeof(s->err), "out of memory with "
				 "no process left to kill (budget too small "
				 "for the page cache and pinned pages)");
			return T_NONE;
		}
		kill_proc(s, victim);
		if (victim == proc)
			return T_NONE;
	}
}

/* ---- anon pages ---------------------------------------------------------- */

static uint64_t *anon_slots(struct sim *s, uint32_t r)
{
	struct sim_region *R = &s->regions[r];

	if (!R->slot)
		R->slot = pgr_xcalloc(R->npages, sizeof(*R->slot));
	return R->slot;
}

/* Is page @i mapped by some region of @r's family other than @r? */
static bool shared_anon(const struct sim *s, uint32_t r, uint32_t off,
			uint32_t i)
{
	for (uint32_t m = s->regions[r].family; m != r;
	     m = s->regions[m].family) {
		const struct sim_region *M = &s->regions[m];

		if (M->live && M->slot && off < M->npages &&
		    slot_tag(M->slot[off]) == SLOT_PAGE &&
		    slot_page(M->slot[off]) == i)
			return true;
	}
	return false;
}

/* A new anon page at @off of @r: zero-filled, or read back from
 * @swap_slot (T_NONE: none). */
static int new_anon(struct sim *s, uint32_t r, uint32_t off, bool write,
		    uint32_t swap_slot)
{
	int group = proc_group(s, r);
	struct pol_add how = { .anon = true, .fault = true, .inode = POL_NONE };
	uint32_t i = alloc_page(s, group, s->regions[r].proc);

	if (i == T_NONE)
		return s->err[0] ? -1 : 0;
	s->pages[i].obj = r;
	s->pages[i].off = off;
	if (swap_slot != T_NONE) {
		/* Read after the allocation: reclaim may drop shadows. */
		how.shadow = sim_swap_claim(s, swap_slot, i);
		how.swapin = true;
		how.swapcache = true;
	}
	s->regions[r].slot[off] = slot_of_page(i) | SLOT_MAPPED | SLOT_YOUNG;
	pol_page_add(s->pol, i, &how);
	if (write && swap_slot != T_NONE)
		pol_page_dirty(s->pol, i, true);
	if (s->regions[r].flags & R_LOCKED)
		pol_page_mlock(s->pol, i, true);
	return 0;
}

/* Swap-in of slot @slot into region @r at @off. */
static int swap_in(struct sim *s, uint32_t r, uint32_t off, uint32_t slot,
		   bool write)
{
	int group = proc_group(s, r);
	uint32_t i = s->swap[slot].cache;

	if (i != T_NONE) {
		/* Another process brought it back: a swap-cache hit. */
		s->regions[r].slot[off] = slot_of_page(i) | SLOT_MAPPED |
					  SLOT_YOUNG;
		sim_swap_put(s, slot);
		fault(s, group, false);
		if (write)
			pol_page_dirty(s->pol, i, true);
		return 0;
	}
	/* The slot's reference moves from the page table to the cache. */
	s->c.misses++;
	fault(s, group, true);
	pol_count(s->pol, group, POL_PSWPIN, 1);
	pol_count(s->pol, group, POL_PGPGIN, 4);
	return new_anon(s, r, off, write, slot);
}

/* A write to a page other processes map too: copy it (COW). */
static int cow_anon(struct sim *s, uint32_t r, uint32_t off)
{
	sim_region_free_page(s, r, off);	/* the others keep it */
	fault(s, proc_group(s, r), false);
	return new_anon(s, r, off, true, T_NONE);
}

static int anon_access(struct sim *s, uint32_t r, uint32_t off, bool write)
{
	uint64_t *slot = &anon_slots(s, r)[off];
	uint64_t v = *slot;
	uint32_t i;

	switch (slot_tag(v)) {
	case SLOT_EMPTY:
		s->c.misses++;
		fault(s, proc_group(s, r), false);
		return new_anon(s, r, off, write, T_NONE);
	case SLOT_SWAP:
		return swap_in(s, r, off, (uint32_t)(v >> 2), write);
	}
	i = slot_page(v);
	if (!(v & SLOT_MAPPED))
		fault(s, proc_group(s, r), false);	/* unmapped, resident */
	if (write && !(s->regions[r].flags & R_SHARED) &&
	    shared_anon(s, r, off, i))
		return cow_anon(s, r, off);
	*slot = v | SLOT_MAPPED | SLOT_YOUNG | (write ? SLOT_DIRTY : 0);
	return 0;
}

/* ---- file pages ---------------------------------------------------------- */

/* A user of file @ino comes, from @group. A file without a group of its
 * own is charged to the group of its first user, as the kernel charges
 * an inode to the memcg of the task that allocates it. */
static void inode_use(struct sim *s, uint32_t ino, int group)
{
	struct sim_inode *n = &s->inodes[ino];

	if (!n->slot) {
		n->slot = pgr_xcalloc(n->npages, sizeof(*n->slot));
		n->chunk = pgr_xcalloc((n->npages >> 6) + 1, sizeof(*n->chunk));
	}
	if (!n->cached) {
		if (s->t->inodes[ino].group == T_NONE)
			n->group = group;
		pol_inode_init(s->pol, ino, n->group);
		n->cached = true;
	} else {
		pol_inode_get(s->pol, ino);
	}
}

/* Read file page @off of @ino into the page cache; its index, or T_NONE.
 * @in_fault: a mapped access faults it in, in a mapping with recency (not
 * MADV_SEQUENTIAL: vma_has_recency(), lru_gen_in_fault()); read() does
 * not. */
static uint32_t cache_page(struct sim *s, uint32_t ino, uint32_t off,
			   int group, uint32_t proc, bool pure_write,
			   bool in_fault)
{
	struct sim_inode *n = &s->inodes[ino];
	uint64_t v = n->slot[off];
	struct pol_add how = { .inode = ino, .write = pure_write,
			       .fault = in_fault };
	uint32_t i;

	if (slot_tag(v) == SLOT_PAGE)
		return slot_page(v);
	s->c.misses++;
	i = alloc_page(s, group, proc);
	if (i == T_NONE)
		return T_NONE;
	v = n->slot[off];		/* reclaim may have moved things */
	if (slot_tag(v) == SLOT_SHADOW)
		how.shadow = v >> 2;
	s->pages[i].obj = ino;
	s->pages[i].off = off;
	sim_slot_set(s, ino, off, slot_of_page(i));
	pol_page_add(s->pol, i, &how);
	if (!pure_write)
		pol_count(s->pol, group, POL_PGPGIN, 4);
	return i;
}

static int file_access(struct sim *s, uint32_t r, uint32_t off, bool write)
{
	struct sim_region *R = &s->regions[r];
	uint32_t ino = R->inode, fp = (uint32_t)(R->foff + off), i;
	uint64_t v = s->inodes[ino].slot[fp];
	int group = proc_group(s, r);

	if (R->slot && slot_tag(R->slot[off]) != SLOT_EMPTY)
		return anon_access(s, r, off, write);	/* a COW copy */
	if (slot_tag(v) == SLOT_PAGE) {
		i = slot_page(v);
		if (!(R->fmap[off] & FMAP_MAPPED))
			fault(s, group, false);
	} else {
		i = cache_page(s, ino, fp, group, R->proc, false,
			       !(R->flags & R_SEQ));
		if (i == T_NONE)
			return s->err[0] ? -1 : 0;
		if (!R->live)
			return 0;
		fault(s, group, true);
		if (R->flags & R_LOCKED)
			pol_page_mlock(s->pol, i, true);
	}
	R->fmap[off] = FMAP_MAPPED | FMAP_YOUNG;
	if (!write)
		return 0;
	if (R->flags & R_SHARED) {
		pol_page_dirty(s->pol, i, true);
		return 0;
	}
	/* Private mapping: the written page becomes this region's anon. */
	R->fmap[off] = 0;
	anon_slots(s, r);
	fault(s, group, false);
	return new_anon(s, r, off, true, T_NONE);
}

static int do_access(struct sim *s, const struct ev *e)
{
	struct sim_region *R = &s->regions[e->obj];
	bool write = e->flags & EVF_WRITE;

	if (!R->live)
		return 0;
	s->c.refs++;
	/* The fast path: a mapped anon page, its young (and dirty) bit set
	 * by "hardware"; a write to a page shared since fork is a COW. */
	if (R->slot && (!write || R->family == e->obj)) {
		uint64_t v = R->slot[e->off];

		if ((v & (3 | SLOT_MAPPED)) == (SLOT_PAGE | SLOT_MAPPED)) {
			R->slot[e->off] = v | SLOT_YOUNG |
					  (write ? SLOT_DIRTY : 0);
			return 0;
		}
	}
	if (R->inode == T_NONE)
		return anon_access(s, e->obj, e->off, write);
	return file_access(s, e->obj, e->off, write);
}

/* read(2)/write(2) of pages of a file. */
static int do_fd(struct sim *s, const struct ev *e)
{
	int group = e->aux == 0xffff ? POL_ROOT : s->groups[e->aux];
	bool write = e->flags & EVF_WRITE;

	inode_use(s, e->obj, group);
	for (uint32_t k = 0; k < e->len; k++) {
		uint32_t i = cache_page(s, e->obj, e->off + k, group, T_NONE,
					write && (e->flags & EVF_FULLPAGE),
					false);

		s->c.refs++;
		if (i == T_NONE) {
			if (s->err[0])
				return -1;
			continue;
		}
		if (write)
			pol_page_dirty(s->pol, i, true);
		else
			pol_mark_accessed(s->pol, i);
	}
	pol_inode_put(s->pol, e->obj);
	return 0;
}

/* ---- mappings ------------------------------------------------------------- */

static void family_leave(struct sim *s, uint32_t r)
{
	uint32_t m = r;

	while (s->regions[m].family != r)
		m = s->regions[m].family;
	s->regions[m].family = s->regions[r].family;
	s->regions[r].family = r;
}

static void mapper_add(struct sim *s, uint32_t ino, uint32_t r)
{
	struct sim_inode *n = &s->inodes[ino];
	size_t cap = n->cap_mappers;

	pgr_grow(&n->mappers, &cap, n->nr_mappers + 1, sizeof(*n->mappers));
	n->cap_mappers = (uint32_t)cap;
	n->mappers[n->nr_mappers++] = r;
}

static void mapper_del(struct sim *s, uint32_t ino, uint32_t r)
{
	struct sim_inode *n = &s->inodes[ino];

	for (uint32_t k = 0; k < n->nr_mappers; k++) {
		if (n->mappers[k] == r) {
			n->mappers[k] = n->mappers[--n->nr_mappers];
			return;
		}
	}
}

static void region_start(struct sim *s, uint32_t r)
{
	const struct t_region *tr = &s->t->regions[r];
	struct sim_region *R = &s->regions[r];

	R->npages = tr->npages;
	R->proc = tr->proc;
	R->inode = tr->inode;
	R->foff = tr->foff;
	R->flags = tr->flags;
	R->family = r;
	R->live = true;
	if (R->inode != T_NONE) {
		R->fmap = pgr_xcalloc(R->npages, 1);
		inode_use(s, R->inode, s->procs[R->proc].group);
		mapper_add(s, R->inode, r);
	}
}

static void do_map(struct sim *s, const struct ev *e)
{
	if (s->procs[s->t->regions[e->obj].proc].live)
		region_start(s, e->obj);
}

/* fork: the child's region shares the parent's anon pages and swap
 * slots; its PTEs are copied old (copy_present_pte clears young), and
 * file pages are not copied at all: they fault in again. */
static void do_clone(struct sim *s, const struct ev *e)
{
	struct sim_region *src = &s->regions[e->off], *R;

	if (!src->live || !s->procs[s->t->regions[e->obj].proc].live)
		return;
	region_start(s, e->obj);
	R = &s->regions[e->obj];
	R->flags = src->flags;
	if (src->slot) {
		anon_slots(s, e->obj);
		for (uint32_t o = 0; o < src->npages && o < R->npages; o++) {
			uint64_t v = src->slot[o];

			if (slot_tag(v) == SLOT_SWAP)
				s->swap[v >> 2].map++;
			if (slot_tag(v) == SLOT_PAGE)
				v &= ~(uint64_t)SLOT_YOUNG;
			R->slot[o] = v;
		}
	}
	R->family = src->family;
	src->family = e->obj;
}

static void do_resize(struct sim *s, const struct ev *e)
{
	struct sim_region *R = &s->regions[e->obj];
	uint32_t old = R->npages;

	if (!R->live || e->len <= old)
		return;
	if (R->slot) {
		R->slot = pgr_xrealloc(R->slot, e->len, sizeof(*R->slot));
		memset(R->slot + old, 0, (e->len - old) * sizeof(*R->slot));
	}
	if (R->fmap) {
		R->fmap = pgr_xrealloc(R->fmap, e->len, 1);
		memset(R->fmap + old, 0, e->len - old);
	}
	R->npages = e->len;
}

/* Tear down [off, off + len) of region @r: anon pages and swap slots are
 * released, file pages unmapped (a young PTE passes its reference on with
 * mark_page_accessed, as zap_pte_range() does). */
static void unmap_region(struct sim *s, uint32_t r, uint32_t off,
			 uint32_t len, bool final)
{
	struct sim_region *R = &s->regions[r];
	uint32_t end = off + len < R->npages ? off + len : R->npages;

	for (uint32_t o = off; o < end; o++) {
		if (R->slot && R->slot[o])
			sim_region_free_page(s, r, o);
		if (R->fmap && (R->fmap[o] & FMAP_MAPPED)) {
			uint64_t v = s->inodes[R->inode].slot[R->foff + o];

			if ((R->fmap[o] & FMAP_YOUNG) && !(R->flags & R_SEQ) &&
			    slot_tag(v) == SLOT_PAGE)
				pol_mark_accessed(s->pol, slot_page(v));
			R->fmap[o] = 0;
		}
	}
	if (!final)
		return;
	family_leave(s, r);
	if (R->inode != T_NONE) {
		mapper_del(s, R->inode, r);
		pol_inode_put(s->pol, R->inode);
	}
	free(R->slot);
	free(R->fmap);
	R->slot = NULL;
	R->fmap = NULL;
	R->live = false;
}

static void do_unmap(struct sim *s, const struct ev *e)
{
	if (s->regions[e->obj].live)
		unmap_region(s, e->obj, e->off, e->len,
			     e->flags & EVF_FINAL);
}

/* The resident page at @off of @r, as this region sees it, or T_NONE. */
static uint32_t region_page(const struct sim *s, uint32_t r, uint32_t off)
{
	const struct sim_region *R = &s->regions[r];

	if (R->slot && slot_tag(R->slot[off]) == SLOT_PAGE)
		return slot_page(R->slot[off]);
	if (R->fmap && (R->fmap[off] & FMAP_MAPPED)) {
		uint64_t v = s->inodes[R->inode].slot[R->foff + off];

		if (slot_tag(v) == SLOT_PAGE)
			return slot_page(v);
	}
	return T_NONE;
}

static void do_madvise(struct sim *s, const struct ev *e)
{
	struct sim_region *R = &s->regions[e->obj];
	uint32_t end;

	if (!R->live)
		return;
	end = e->off + e->len < R->npages ? e->off + e->len : R->npages;
	switch (e->aux) {
	case ADV_DONTNEED:
	case ADV_REMOVE:
		unmap_region(s, e->obj, e->off, e->len, false);
		return;
	case ADV_SEQUENTIAL:
	case ADV_RANDOM:	/* both: no recency (vma_has_recency()) */
		R->flags |= R_SEQ;
		return;
	case ADV_NORMAL:
		R->flags &= (uint8_t)~R_SEQ;
		return;
	case ADV_MLOCK:
		R->flags |= R_LOCKED;
		break;
	case ADV_MUNLOCK:
		R->flags &= (uint8_t)~R_LOCKED;
		break;
	}
	for (uint32_t o = e->off; o < end; o++) {
		uint32_t i = region_page(s, e->obj, o);

		if (i == T_NONE || s->pages[i].pol.lru == POL_LRU_ISOLATED)
			continue;
		switch (e->aux) {
		case ADV_COLD:
			pol_page_cold(s->pol, i);
			break;
		case ADV_PAGEOUT:
			pol_page_pageout(s->pol, i);
			break;
		case ADV_FREE:
			/* madvise_free_pte_range(): PTEs old and clean, so a
			 * later write shows at reclaim. */
			if (R->slot && slot_tag(R->slot[o]) == SLOT_PAGE) {
				R->slot[o] &= ~(uint64_t)(SLOT_YOUNG |
							  SLOT_DIRTY);
				pol_page_lazyfree(s->pol, i);
			}
			break;
		case ADV_MLOCK:
		case ADV_MUNLOCK:
			pol_page_mlock(s->pol, i, e->aux == ADV_MLOCK);
			break;
		}
	}
}

/* Truncate: pages past the new end leave the page cache, unmapped from
 * every mapping first, and their shadows with them. */
static void do_truncate(struct sim *s, const struct ev *e)
{
	struct sim_inode *n = &s->inodes[e->obj];

	for (uint32_t off = e->len; n->slot && off < n->npages; off++) {
		uint64_t v = n->slot[off];

		if (slot_tag(v) == SLOT_SHADOW) {
			pol_shadow_forget(s->pol, v >> 2);
			sim_slot_set(s, e->obj, off, SLOT_EMPTY);
		} else if (slot_tag(v) == SLOT_PAGE) {
			uint32_t i = slot_page(v);

			if (s->pages[i].pol.flags & POL_PG_WRITEBACK)
				sim_writeback_flush(s);
			for (uint32_t k = 0; k < n->nr_mappers; k++) {
				struct sim_region *m = &s->regions[n->mappers[k]];
				uint64_t o = off - m->foff;

				if (off >= m->foff && o < m->npages)
					m->fmap[o] = 0;
			}
			pol_page_free(s->pol, i);
			sim_slot_set(s, e->obj, off, SLOT_EMPTY);
		}
	}
}

static int do_reclaim(struct sim *s, const struct ev *e)
{
	int group = e->obj == T_NONE ? POL_ROOT : s->groups[e->obj];

	switch (e->aux) {
	case RC_KSWAPD:
		pol_kswapd(s->pol);
		break;
	case RC_DIRECT:
		pol_direct_reclaim(s->pol);
		break;
	case RC_GROUP:
		pol_group_reclaim(s->pol, group, e->len);
		break;
	case RC_LIST:
		pol_shrink_list(s->pol, group, (enum pol_lru)e->off, e->len);
		break;
	case RC_INODES:
		pol_inode_shrink(s->pol, group, (int)e->len);
		break;
	case RC_LRUVEC:
		pol_lru_gen_shrink_one(s->pol, group, (int)e->len);
		break;
	}
	return 0;
}

static int do_set(struct sim *s, const struct ev *e)
{
	const char *kv = s->t->strings[e->off], *why = NULL;

	if (sim_set(s, kv, &why)) {
		snprintf(s->err, sizeof(s->err), "set %s: %s", kv, why);
		return -1;
	}
	return 0;
}

static int do_lru_gen(struct sim *s, const struct ev *e)
{
	const char *cmd = s->t->strings[e->off], *why = NULL;
	int err = pol_lru_gen_cmd(s->pol, cmd, &why);

	if (err) {
		snprintf(s->err, sizeof(s->err), "lru_gen %s: %s (%s)", cmd,
			 why ? why : "failed", strerror(-err));
		return -1;
	}
	return 0;
}

static int step(struct sim *s, const struct ev *e)
{
	switch (e->op) {
	case EV_ACCESS:
		return do_access(s, e);
	case EV_FD:
		return do_fd(s, e);
	case EV_MAP:
		do_map(s, e);
		return 0;
	case EV_UNMAP:
		do_unmap(s, e);
		return 0;
	case EV_CLONE:
		do_clone(s, e);
		return 0;
	case EV_RESIZE:
		do_resize(s, e);
		return 0;
	case EV_MADVISE:
		do_madvise(s, e);
		return 0;
	case EV_EXIT:
		s->procs[e->obj].live = false;
		return 0;
	case EV_PROCGROUP:
		s->procs[e->obj].group = e->off == T_NONE ? POL_ROOT :
					 s->groups[e->off];
		return 0;
	case EV_TRUNCATE:
		do_truncate(s, e);
		return 0;
	case EV_PHASE:
		sim_phase_start(s, s->t->strings[e->off]);
		return 0;
	case EV_SET:
		return do_set(s, e);
	case EV_EXPECT:
		sim_expect(s, &s->t->expects[e->off]);
		return 0;
	case EV_RECLAIM:
		return do_reclaim(s, e);
	case EV_LRU_GEN:
		return do_lru_gen(s, e);
	}
	snprintf(s->err, sizeof(s->err), "corrupt event %u", e->op);
	return -1;
}

/* kswapd is woken by allocations and runs between events. */
static void background(struct sim *s)
{
	if (pol_kswapd_wanted(s->pol) && s->kswapd_pending++ >= s->kswapd_delay) {
		s->kswapd_pending = 0;
		pol_kswapd(s->pol);
		sim_writeback_flush(s);
		pol_kswapd_sleep(s->pol, false);
	}
	sim_writeback_flush(s);
}

/* How many events ahead the replay loop starts loading the slot an
 * access will touch: enough to cover a memory miss at a few ns an event. */
#define LOOKAHEAD 16

static void prefetch_event(const struct sim *s, const struct ev *e)
{
	const struct sim_region *R;

	if (e->op != EV_ACCESS)
		return;
	R = &s->regions[e->obj];
	if (R->slot)
		__builtin_prefetch(&R->slot[e->off]);
}

int sim_run(struct sim *s)
{
	const struct trace *t = s->t;

	for (size_t k = 0; k < t->nr_ev; k++) {
		const struct ev *e = &t->ev[k];
		const char *what;

		if (k + LOOKAHEAD < t->nr_ev)
			prefetch_event(s, &t->ev[k + LOOKAHEAD]);

		if (e->op == EV_ACCESS) {
			if (do_access(s, e))
				return -1;
			/* Hits allocate nothing: the background step is
			 * needed only if an allocation woke kswapd. */
			if (pol_kswapd_wanted(s->pol) || s->nr_wb)
				background(s);
		} else {
			if (step(s, e))
				return -1;
			background(s);
		}
		if (s->o.check && pol_check(s->pol, &what)) {
			snprintf(s->err, sizeof(s->err), "policy invariant "
				 "broken after event %zu: %s", k, what);
			return -1;
		}
	}
	sim_phase_end(s);
	return 0;
}
