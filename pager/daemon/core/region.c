/* SPDX-License-Identifier: MIT */
/*
 * region.c - the anonymous mappings a client's pages live in, and the
 * events that change them: discard (munmap, the program's own
 * MADV_DONTNEED), mremap, fork (the child's regions: its pages shared
 * with the parent are FOREIGN). Taking a mapping over is adopt.c's.
 *
 * A client's regions are kept sorted by address. Regions need not be
 * maximal: a heap that grows gets a new region for the part that grew.
 *
 * Owns: the region table and each client's sorted list of its regions,
 * with their slot tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../cache/cache.h"
#include "../pgr.h"
#include "../swap/swap.h"
#include "../uffd.h"
#include "core.h"

/*
 * c->regions is sorted by start, and its regions do not overlap, so
 * their ends are sorted too. The index of the first region ending past
 * @addr: the one holding it, or else the next one.
 */
size_t pgr_region_after(const struct pgr *p, const struct client *c,
			uint64_t addr)
{
	size_t lo = 0, hi = c->nr_regions;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->regions[c->regions[mid]].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

struct region *pgr_region_find(struct pgr *p, struct client *c,
			       uint64_t addr, uint32_t *id)
{
	size_t k = pgr_region_after(p, c, addr);

	if (k == c->nr_regions || p->regions[c->regions[k]].start > addr)
		return NULL;
	*id = c->regions[k];
	return &p->regions[*id];
}

uint32_t pgr_region_new(struct pgr *p, struct client *c, uint64_t start,
			uint64_t end)
{
	uint32_t id;
	struct region *r;
	size_t at = 0;

	if (p->nr_free_regions) {
		id = p->free_regions[--p->nr_free_regions];
	} else {
		size_t cap = p->cap_regions;

		pgr_grow(&p->regions, &cap, p->nr_regions + 1,
			 sizeof(*p->regions));
		p->cap_regions = (uint32_t)cap;
		id = p->nr_regions++;
	}
	r = &p->regions[id];
	r->start = start;
	r->end = end;
	r->slot = pgr_xcalloc(region_pages(r), sizeof(*r->slot));
	r->client = pgr_client_id(p, c);
	r->ra_prev = UINT32_MAX - 1;	/* no fault yet: nothing follows it */
	r->ra_win = 0;
	r->live = true;
	r->filled = false;
	r->parked = false;
	r->inode = PGR_NONE;
	r->pgoff = 0;
	r->rflags = 0;
	r->mmap_miss = 0;
	/* After those starting below @start: split() makes the upper
	 * part while the lower one still ends where it will end. */
	for (size_t hi = c->nr_regions; at < hi;) {
		size_t mid = (at + hi) / 2;

		if (p->regions[c->regions[mid]].start < start)
			at = mid + 1;
		else
			hi = mid;
	}
	pgr_grow(&c->regions, &c->cap_regions, c->nr_regions + 1,
		 sizeof(*c->regions));
	memmove(&c->regions[at + 1], &c->regions[at],
		(c->nr_regions - at) * sizeof(*c->regions));
	c->regions[at] = id;
	c->nr_regions++;
	return id;
}

static void region_free(struct pgr *p, struct client *c, uint32_t id)
{
	struct region *r = &p->regions[id];
	size_t k;

	if (region_is_file(r))
		pgr_file_unmap_region(p, id);
	if (r->parked) {
		for (k = 0; k < c->nr_parked && c->parked[k] != id; k++)
			;
		if (k < c->nr_parked)
			c->parked[k] = c->parked[--c->nr_parked];
		r->parked = false;
	}
	for (k = 0; k < c->nr_regions && c->regions[k] != id; k++)
		;
	if (k < c->nr_regions) {
		memmove(&c->regions[k], &c->regions[k + 1],
			(c->nr_regions - k - 1) * sizeof(*c->regions));
		c->nr_regions--;
	}
	free(r->slot);
	r->slot = NULL;
	r->live = false;
	p->free_regions = pgr_xrealloc(p->free_regions, p->nr_free_regions + 1,
				       sizeof(*p->free_regions));
	p->free_regions[p->nr_free_regions++] = id;
}

/* ---- dropping pages ------------------------------------------------------ */

/* Drop whatever slot @off of @r holds; the slot becomes EMPTY. */
static void drop_slot(struct pgr *p, struct client *c, struct region *r,
		      uint32_t off)
{
	uint64_t s = r->slot[off];

	if (s == SL_EMPTY)
		return;		/* not written: a zero page of the slots */
	r->slot[off] = SL_EMPTY;
	if (sl_tag(s) == SL_SWAP) {
		pgr_swap_put(p, sl_swap(s));
		c->swapped--;
	} else if (sl_tag(s) == SL_PAGE) {
		c->resident--;
		pgr_page_free(p, sl_page(s));
	} else if (sl_tag(s) == SL_FOREIGN) {
		c->foreign--;
	}
}

/* Split region @id at @addr (inside it); return the id of the upper
 * part. Descriptors of pages that move are updated. */
static uint32_t split(struct pgr *p, struct client *c, uint32_t id,
		      uint64_t addr)
{
	uint32_t hi = pgr_region_new(p, c, addr, p->regions[id].end);
	struct region *lo_r = &p->regions[id], *hi_r = &p->regions[hi];
	uint32_t cut = (uint32_t)((addr - lo_r->start) / PGR_PAGE);

	hi_r->filled = lo_r->filled;
	if (hi_r->filled)
		memcpy(hi_r->slot, lo_r->slot + cut,
		       region_pages(hi_r) * sizeof(uint64_t));
	hi_r->rflags = lo_r->rflags;
	if (region_is_file(lo_r)) {
		hi_r->inode = lo_r->inode;
		hi_r->pgoff = lo_r->pgoff + cut;
		pgr_file_add_mapper(p, hi);
	}
	for (uint32_t o = 0; o < region_pages(hi_r); o++) {
		if (sl_tag(hi_r->slot[o]) == SL_PAGE) {
			p->pages[sl_page(hi_r->slot[o])].region = hi;
			p->pages[sl_page(hi_r->slot[o])].off = o;
		}
	}
	lo_r->end = addr;
	return hi;
}

/*
 * madvise(MADV_NORMAL, _RANDOM, _SEQUENTIAL) of [start, end), heard
 * through the seccomp listener as the call starts: the regions there are
 * cut at its ends, as the kernel splits the VMAs, and take its advice.
 * Mappings not adopted yet keep none (they are seen on a later rescan).
 */
void pgr_advise(struct pgr *p, struct client *c, uint64_t start,
		uint64_t end, int advice)
{
	uint8_t set = advice == MADV_SEQUENTIAL ? R_SEQ_READ :
		      advice == MADV_RANDOM ? R_RAND_READ : 0;

	for (size_t k = 0; k < c->nr_regions; k++) {
		uint32_t id = c->regions[k];
		struct region *r = &p->regions[id];

		if (r->start >= end)
			break;
		if (r->end <= start)
			continue;
		if (r->start < start) {
			split(p, c, id, start);
			continue;	/* the part above is next */
		}
		if (r->end > end)
			split(p, c, id, end);
		r = &p->regions[id];
		r->rflags = (uint8_t)((r->rflags & ~(R_SEQ_READ | R_RAND_READ)) | set);
		pgr_rec_madvise(p, c, r->start, r->end - r->start, set);
	}
}

/*
 * The mlocked pages of @c in [start, end), anon or file: whether there is
 * one; with @unlock each gets munlock_folio(). The pages became mlocked
 * when the agent found their mapping VM_LOCKED (its madvise refused,
 * arm.c's settle()), as the kernel's reclaim finds it in its rmap walk;
 * so a program's mlock needs no notice, its munlock does. A file page
 * another mapping still locks is culled again by the next reclaim that
 * meets it.
 */
static bool mlocked_in(struct pgr *p, struct client *c, uint64_t start,
		       uint64_t end, bool unlock)
{
	bool found = false;

	for (size_t k = pgr_region_after(p, c, start); k < c->nr_regions;
	     k++) {
		const struct region *r = &p->regions[c->regions[k]];
		uint64_t lo = r->start > start ? r->start : start;
		uint64_t hi = r->end < end ? r->end : end;

		if (r->start >= end)
			break;
		for (uint64_t a = lo; a < hi && region_walked(r);
		     a += PGR_PAGE) {
			uint32_t off = (uint32_t)((a - r->start) / PGR_PAGE);
			uint64_t s = r->slot[off];
			uint32_t i = sl_tag(s) == SL_PAGE ? sl_page(s) :
				     pgr_region_file_page(p, r, off);

			if (i == PGR_NONE ||
			    !(pol_page(p->pol, i)->flags & POL_PG_MLOCKED))
				continue;
			if (!unlock)
				return true;
			pol_page_mlock(p->pol, i, false);
			found = true;
		}
	}
	return found;
}

void pgr_guard_install(struct pgr *p, struct client *c, uint64_t start,
		       uint64_t end)
{
	for (size_t k = pgr_region_after(p, c, start); k < c->nr_regions &&
	     p->regions[c->regions[k]].start < end; k++)
		if (region_is_file(&p->regions[c->regions[k]]))
			return;		/* the kernel's EINVAL */
	if (mlocked_in(p, c, start, end, false))
		return;			/* VM_LOCKED: EINVAL */
	pgr_dbg("guard install 0x%llx-0x%llx of %d: its pages discarded",
		(unsigned long long)start, (unsigned long long)end, c->pid);
	pgr_discard(p, c, start, end, false);
}

uint32_t pgr_region_file_page(struct pgr *p, const struct region *r,
			      uint32_t off)
{
	uint64_t pg = r->pgoff + off;

	if (!region_is_file(r) || sl_tag(r->slot[off]) != SL_EMPTY ||
	    !(r->slot[off] & SL_FMAPPED) || pg >= F(p, r->inode)->map_pages)
		return PGR_NONE;
	return F(p, r->inode)->page[pg];
}

void pgr_munlock(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end)
{
	mlocked_in(p, c, start, end, true);
	if (c->unlock_ticks) {
		start = start < c->unlocked.start ? start : c->unlocked.start;
		end = end > c->unlocked.end ? end : c->unlocked.end;
	}
	c->unlocked = (struct range){ .start = start, .end = end };
	c->unlock_ticks = 2;
}

void pgr_munlock_tick(struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (!c->used || !c->unlock_ticks)
			continue;
		c->unlock_ticks--;
		mlocked_in(p, c, c->unlocked.start, c->unlocked.end, true);
	}
}

/* ---- parked regions ----------------------------------------------------- */

/*
 * The events of a client's threads are read in the order they were
 * queued, which is not always the order of what they report: each is
 * queued after its system call let go of the mm, so thread A's move of a
 * mapping out of X (REMAP) can be read after thread B's move of another
 * into X (verify fmoves does it every time: A's move onto a registered
 * range waits for its early UNMAP to be read first). A REMAP's
 * destination is unmapped in the kernel, or its UNMAP was read before
 * (the same thread's), so a region found there is dead already: it is
 * parked, out of the client's list (lookups, faults,
 * reclaim and the inode's mappers no longer see it), its slots kept, until
 * its own event comes: a REMAP takes its slots along, an UNMAP frees
 * them. Freeing it at once would lose what A's pages hold (their swap
 * slots), and taking it for B's would serve A's pages to B.
 */
static void park(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end)
{
	size_t k = 0;

	while (k < c->nr_regions) {
		uint32_t id = c->regions[k];
		struct region *r = &p->regions[id];

		if (r->start >= end)
			break;
		if (r->end <= start) {
			k++;
			continue;
		}
		if (r->start < start) {		/* [r->start, start) lives */
			split(p, c, id, start);
			k++;
			continue;
		}
		if (r->end > end)
			split(p, c, id, end);	/* [end, r->end) lives */
		r = &p->regions[id];
		pgr_dbg("0x%llx-0x%llx of %d parked: a newer mapping came "
			"before its event", (unsigned long long)r->start,
			(unsigned long long)r->end, c->pid);
		if (region_is_file(r))
			pgr_file_hide_mapper(p, id);
		r->parked = true;
		memmove(&c->regions[k], &c->regions[k + 1],
			(c->nr_regions - k - 1) * sizeof(*c->regions));
		c->nr_regions--;
		pgr_grow(&c->parked, &c->cap_parked, c->nr_parked + 1,
			 sizeof(*c->parked));
		c->parked[c->nr_parked++] = id;
	}
}

/* Parked region @id's event covered [start, end): its slots there are
 * dropped (@drop: an UNMAP) or were taken (a REMAP); once it is covered
 * whole, it is freed. */
static void unpark(struct pgr *p, struct client *c, uint32_t id,
		   uint64_t start, uint64_t end, bool drop)
{
	struct region *r = &p->regions[id];
	uint64_t s = start > r->start ? start : r->start;
	uint64_t e = end < r->end ? end : r->end;

	if (drop && region_is_file(r) && (r->rflags & R_SHARED))
		pgr_file_flush(p, r->inode, r->pgoff + (s - r->start) / PGR_PAGE,
			       r->pgoff + (e - r->start) / PGR_PAGE, id);
	for (uint64_t a = s; drop && a < e; a += PGR_PAGE)
		drop_slot(p, c, r, (uint32_t)((a - r->start) / PGR_PAGE));
	if (s == r->start && e == r->end)
		region_free(p, c, id);
}

/* The parked region holding @addr, or NULL. */
static struct region *parked_find(struct pgr *p, struct client *c,
				  uint64_t addr, uint32_t *id)
{
	for (size_t k = 0; k < c->nr_parked; k++) {
		struct region *r = &p->regions[c->parked[k]];

		if (addr >= r->start && addr < r->end) {
			*id = c->parked[k];
			return r;
		}
	}
	return NULL;
}

/* Does a parked region overlap [start, end)? */
static bool parked_in(struct client *c, struct pgr *p, uint64_t start,
		      uint64_t end)
{
	for (size_t k = 0; k < c->nr_parked; k++) {
		const struct region *r = &p->regions[c->parked[k]];

		if (r->start < end && r->end > start)
			return true;
	}
	return false;
}

/* End what of the parked regions [start, end) covers (@drop: their
 * slots freed). */
static void unpark_range(struct pgr *p, struct client *c, uint64_t start,
			 uint64_t end, bool drop)
{
	size_t k = 0;

	while (k < c->nr_parked) {
		uint32_t id = c->parked[k];
		const struct region *r = &p->regions[id];
		size_t before = c->nr_parked;

		if (r->start < end && r->end > start)
			unpark(p, c, id, start, end, drop);
		if (c->nr_parked == before)
			k++;
	}
}

bool pgr_unmap_parked(struct pgr *p, struct client *c, uint64_t start,
		      uint64_t end)
{
	if (!parked_in(c, p, start, end))
		return false;
	unpark_range(p, c, start, end, true);
	return true;
}

void pgr_discard(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end, bool unmapped)
{
	size_t k = 0;

	while (k < c->nr_regions) {
		uint32_t id = c->regions[k];
		struct region *r = &p->regions[id];
		uint64_t s = start > r->start ? start : r->start;
		uint64_t e = end < r->end ? end : r->end;

		if (r->start >= end)
			break;
		if (s >= e) {
			k++;
			continue;
		}
		for (uint64_t a = s; a < e && region_walked(r); a += PGR_PAGE) {
			uint32_t off = (uint32_t)((a - r->start) / PGR_PAGE);
			uint64_t v = r->slot[off];

			if (!unmapped && sl_tag(v) != SL_SWAP &&
			    sl_tag(v) != SL_FOREIGN && (v & SL_ARMING)) {
				/* Ours or the program's: the agent's answer
				 * will tell (backend.c). */
				r->slot[off] |= (v & SL_RM1) ? SL_RM2 : SL_RM1;
				continue;
			}
			if (region_is_file(r))
				pgr_file_zap(p, id, off);
			drop_slot(p, c, r, off);
		}
		if (!unmapped) {
			k++;
			continue;
		}
		/* The mapping is gone: cut [s, e) out of the region, after
		 * writing back what it dirtied in a shared file. */
		if (region_is_file(r) && (r->rflags & R_SHARED))
			pgr_file_flush(p, r->inode,
				       r->pgoff + (s - r->start) / PGR_PAGE,
				       r->pgoff + (e - r->start) / PGR_PAGE, id);
		if (e < r->end)
			split(p, c, id, e);	/* [e, end) lives on */
		r = &p->regions[id];		/* split() may move it */
		if (s == r->start) {
			region_free(p, c, id);	/* the array shifted left */
			continue;
		}
		r->end = s;
		k++;
	}
}

void pgr_region_drop_all(struct pgr *p, struct client *c)
{
	while (c->nr_parked)
		unpark(p, c, c->parked[c->nr_parked - 1], 0, UINT64_MAX, true);
	while (c->nr_regions) {
		uint32_t id = c->regions[c->nr_regions - 1];
		struct region *r = &p->regions[id];

		if (region_is_file(r) && (r->rflags & R_SHARED))
			pgr_file_flush(p, r->inode, r->pgoff,
				       r->pgoff + region_pages(r), id);
		for (uint32_t o = 0; o < region_pages(r) && region_walked(r);
		     o++) {
			if (region_is_file(r))
				pgr_file_zap(p, id, o);
			drop_slot(p, c, r, o);
		}
		region_free(p, c, id);
	}
}

/* ---- mremap and fork ---------------------------------------------------- */

/*
 * The kernel moved [from, from + len) to @to. The event is read after the
 * move; meanwhile nothing is adopted from the maps (pgr_mm_changing(),
 * which a rescan and a fault's grown() ask first: /proc/PID/maps shows
 * the mapping at @to already, with the pages the move brings). So a
 * region still at @to is an older mapping's whose own event is still to
 * come: it is parked (above), for the region made here must not overlap
 * it (a page's slot in one region, its fault served from the other:
 * faults never answered, wrong pages).
 */
void pgr_remap(struct pgr *p, struct client *c, uint64_t from, uint64_t to,
	       uint64_t len)
{
	/* A parked region at @from is older than what is live there: this
	 * event is its own (region.c, "Parked regions"). */
	bool from_parked = parked_in(c, p, from, from + len);
	uint32_t nid, oid;
	struct region *old;

	park(p, c, to, to + len);
	nid = pgr_region_new(p, c, to, to + len);
	old = from_parked ? parked_find(p, c, from, &oid) :
			    pgr_region_find(p, c, from, &oid);

	if (old) {
		struct region *n = &p->regions[nid];

		old = &p->regions[oid];
		n->rflags = old->rflags;	/* the VMA's flags move with it */
		if (region_is_file(old)) {
			n->inode = old->inode;
			n->pgoff = old->pgoff + (from - old->start) / PGR_PAGE;
			pgr_file_add_mapper(p, nid);
		}
	}
	for (uint64_t a = 0; a < len; a += PGR_PAGE) {
		uint32_t id;
		struct region *r = from_parked ?
			parked_find(p, c, from + a, &id) :
			pgr_region_find(p, c, from + a, &id);
		uint32_t off;
		uint64_t v;

		if (!r || id == nid)
			continue;
		off = (uint32_t)((from + a - r->start) / PGR_PAGE);
		v = r->slot[off];
		r->slot[off] = SL_EMPTY;
		p->regions[nid].slot[a / PGR_PAGE] = v;
		if (v != SL_EMPTY)
			p->regions[nid].filled = true;
		if (sl_tag(v) == SL_PAGE) {
			p->pages[sl_page(v)].region = nid;
			p->pages[sl_page(v)].off = (uint32_t)(a / PGR_PAGE);
		}
	}
	/* Pages being armed moved with their page tables: their requests
	 * follow them. */
	pgr_arm_moved(c, from, to, len);
	/* The old range is unmapped; its slots were moved, so nothing is
	 * freed by cutting it. */
	if (from_parked)
		unpark_range(p, c, from, from + len, false);
	else
		pgr_discard(p, c, from, from + len, true);
}

/*
 * What the fork child has where its parent has page @v. Present pages
 * (also those being armed: write-protected, still mapped) are shared
 * copy-on-write by the kernel: FOREIGN in the child. An armed page is in
 * neither process but in our buffer: the child gets a copy, FOREIGN too.
 * A page being read from swap: the child refers to the slot.
 */
static uint64_t fork_page(struct pgr *p, struct client *child, uint64_t addr,
			  uint64_t v)
{
	struct dpage *d = &p->pages[sl_page(v)];

	if ((v & SL_READING) && d->swap != PGR_NONE) {
		p->swap[d->swap].map++;
		child->swapped++;
		return sl_of_swap(d->swap);
	}
	/* Being armed: the agent's DONTNEED (a REMOVE seen) or its move
	 * (no event) may have taken it before the fork copied the page
	 * tables, so the child gets the copy (EEXIST if the kernel gave it
	 * the page after all). Were that REMOVE the program's own, the
	 * child would have read zeros: the one case the REMOVE count cannot
	 * tell at fork time. Two REMOVEs: dropped by both; the child faults
	 * in a zero page. */
	if ((v & SL_ARMED) ||
	    ((v & SL_ARMING) && !(v & SL_RM2) &&
	     ((v & SL_RM1) || !(d->flags & DP_COPYING)))) {
		struct uffdio_copy cp = {
			.dst = addr, .src = (uintptr_t)pgr_buf(p, d->buf),
			.len = PGR_PAGE, .mode = UFFDIO_COPY_MODE_WP,
		};

		if (ioctl(child->uffd, UFFDIO_COPY, &cp) && errno != EEXIST)
			return SL_EMPTY;	/* the caller ends the child */
	}
	child->foreign++;
	return SL_FOREIGN;
}

int pgr_fork_regions(struct pgr *p, struct client *parent,
		     struct client *child)
{
	int err = 0;

	for (size_t k = 0; k < parent->nr_regions; k++) {
		uint32_t pr = parent->regions[k];
		uint32_t nid = pgr_region_new(p, child, p->regions[pr].start,
					  p->regions[pr].end);
		struct region *r = &p->regions[pr], *n = &p->regions[nid];
		struct uffdio_writeprotect wp = {
			.range = { n->start, n->end - n->start },
			.mode = UFFDIO_WRITEPROTECT_MODE_WP,
		};

		for (uint32_t o = 0; o < region_pages(r) && r->filled; o++) {
			uint64_t v = r->slot[o];

			if (sl_tag(v) == SL_SWAP) {
				p->swap[sl_swap(v)].map++;
				child->swapped++;
			} else if (sl_tag(v) == SL_PAGE) {
				v = fork_page(p, child, r->start +
					      (uint64_t)o * PGR_PAGE, v);
				if (v == SL_EMPTY) {
					err = -EIO;
					pgr_warn_("fork: copying 0x%llx to the "
						  "child: %s", (unsigned long long)
						(r->start + (uint64_t)o *
						 PGR_PAGE), strerror(errno));
				}
			} else if (sl_tag(v) == SL_FOREIGN) {
				child->foreign++;
			} else {
				/* A file page: the kernel copies the PTE old
				 * (copy_present_pte()), so the child's mapping
				 * is not young: its exit must not count as a
				 * reference (mark_page_accessed at zap). */
				v = SL_EMPTY;
			}
			if (v != SL_EMPTY) {	/* the rest: zero pages */
				n->slot[o] = v;
				n->filled = true;
			}
		}
		n->rflags = r->rflags;
		if (region_is_file(r)) {
			n->inode = r->inode;
			n->pgoff = r->pgoff;
			pgr_file_add_mapper(p, nid);
		}
		/* The child's first write to a shared page should fault, to
		 * make the page its own. If it cannot (the child exec'd or
		 * unmapped it meanwhile), the kernel still copies on write:
		 * the page stays FOREIGN, uncharged, and its data right. */
		if (ioctl(child->uffd, UFFDIO_WRITEPROTECT, &wp))
			pgr_dbg("fork: write-protecting 0x%llx-0x%llx of the "
				"child: %s", (unsigned long long)n->start,
				(unsigned long long)n->end, strerror(errno));
	}
	return err;
}
