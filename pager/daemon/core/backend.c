/* SPDX-License-Identifier: MIT */
/*
 * backend.c - what the policy's decisions become in the daemon: the
 * operations of struct pol_backend, for anon pages here and for file
 * pages in file.c.
 *
 * Owns: nothing of its own; it acts on the pages' slots, buffers and
 * swap slots, which the model (pgr.h) holds.
 *
 * young: the pager cannot read PTE young bits, so it emulates them the way
 *        ARM does: a page still mapped since it was last tested is young;
 *        testing it arms it again (arm.c: write-protect, copy into one of
 *        the pager's page buffers, the client's agent drops it). Faults on
 *        a page being armed (a write on the write-protection, or a read
 *        once it is gone) wait until then; the next access after that
 *        faults on our copy, and that fault is the young bit.
 * unmap: the page is already unmapped (armed) when reclaim gets this far.
 * writeout: the buffer goes to a swap slot (O_DIRECT, io_uring); the
 *        completion calls pol_writeback_done().
 * evict: the region slot points at the swap slot, which keeps the shadow;
 *        the buffer is freed.
 *
 * Nothing here may process userfaultfd events: the policy is in the middle
 * of a scan. An operation the kernel refuses for now (EAGAIN: events
 * pending) makes the page "contended", which keeps it for the next scan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../cache/cache.h"
#include "../control/control.h"
#include "../pgr.h"
#include "../swap/swap.h"
#include "core.h"


static struct pgr *P(void *ctx)
{
	return ctx;
}

/* ---- page buffers ---------------------------------------------------------- */

/* ---- where a page is --------------------------------------------------------- */

/*
 * An orphan: its owner dropped it (munmap, exit) while I/O on its buffer
 * was in flight; it stays on the LRU until the completion frees it, and
 * reclaim finds nothing mapped and nothing to do.
 */
static bool orphan(const struct pgr *p, uint32_t i)
{
	return p->pages[i].region == PGR_NONE;
}

static bool is_file(const struct pgr *p, uint32_t i)
{
	return p->pages[i].flags & DP_FILE;
}

/* An anon page whose region is parked (region.c): its address is
 * someone else's now, so nothing may be armed or dropped there until the
 * region's event comes. (A file page's region field is its inode.) */
static bool parked(const struct pgr *p, uint32_t i)
{
	return !orphan(p, i) && !is_file(p, i) &&
	       p->regions[p->pages[i].region].parked;
}

static void be_young(void *ctx, uint32_t i, struct pol_refs *refs)
{
	struct pgr *p = P(ctx);
	uint64_t s;

	if (orphan(p, i) || parked(p, i)) {
		refs->contended = true;		/* leave it be */
		return;
	}
	if (is_file(p, i)) {
		pgr_file_young(p, i, refs);
		return;
	}
	s = *pgr_page_slot(p, i);
	if (s & SL_READING) {
		refs->contended = true;
		return;
	}
	if (s & (SL_ARMING | SL_ARMED)) {
		/* Armed since: not young, unless idle marking armed it
		 * while it was (page_idle's PG_young). */
		if (p->pages[i].flags & DP_YOUNG) {
			p->pages[i].flags &= (uint16_t)~DP_YOUNG;
			refs->young = 1;
		}
		return;
	}
	refs->mapped = true;
	/* 6.3+: a mapping advised sequential or random is left out of the
	 * walk: its young bit does not count. Reclaim goes on to unmap the
	 * page, which here is arming it: started now, so that the unmap
	 * finds it armed (if it cannot be, the page is kept for now). */
	if (!region_has_recency(&p->regions[p->pages[i].region])) {
		if (pgr_arm(p, i))
			refs->contended = true;
		return;
	}
	/* Mapped since the last test: young. Arming (the clearing) costs
	 * the program a fault at its next access, so it is left to the
	 * library to ask for when it matters (be_young_clear()). */
	refs->young = 1;
	refs->kept = true;
}

static void be_young_clear(void *ctx, uint32_t i)
{
	if (orphan(P(ctx), i) || parked(P(ctx), i))
		return;
	if (is_file(P(ctx), i))
		pgr_file_arm(P(ctx), i);
	else
		pgr_arm(P(ctx), i);	/* if it cannot be armed: young again */
}

static int be_unmap(void *ctx, uint32_t i)
{
	struct pgr *p = P(ctx);

	if (orphan(p, i) || parked(p, i))
		return -EAGAIN;
	if (is_file(p, i))
		return pgr_file_unmap(p, i);
	/* Not while a swap read fills its buffer. */
	if (*pgr_page_slot(p, i) & SL_READING)
		return -EAGAIN;
	return (*pgr_page_slot(p, i) & (SL_ARMING | SL_ARMED)) ? 0 : -EAGAIN;
}

/* (A page still being armed may be written out: its copy is final. It
 * is not evicted before the agent's answer settles what it is.) */

static enum pol_writeout be_writeout(void *ctx, uint32_t i)
{
	struct pgr *p = P(ctx);
	struct dpage *d = &p->pages[i];
	uint32_t slot = d->swap;

	if (orphan(p, i))
		return POL_WRITEOUT_KEEP;
	if (is_file(p, i))
		return pgr_file_writeout(p, i);
	if (d->buf == PGR_NONE || !pgr_has_swap(p))
		return POL_WRITEOUT_FAILED;
	if (d->flags & DP_COPYING)
		return POL_WRITEOUT_KEEP;	/* its copy is not taken yet */
	if (slot != PGR_NONE && p->swap[slot].map > 1) {
		/* Shared with a fork child's page table: write elsewhere. */
		p->swap[slot].cache = PGR_NONE;
		pgr_swap_put(p, slot);
		slot = PGR_NONE;
	}
	if (slot == PGR_NONE) {
		slot = pgr_swap_alloc(p);
		if (slot == PGR_NONE)
			return POL_WRITEOUT_FAILED;
		p->swap[slot].map = 1;
		p->swap[slot].cache = i;
		d->swap = slot;
	}
	switch (pgr_swap_io(p, i, slot, true)) {
	case 0:
		break;
	case PGR_SWAP_STORED:
		return POL_WRITEOUT_STORED;	/* in zswap: clean already */
	case PGR_SWAP_DONE:			/* in zram: clean already */
		pgr_page_client(p, i)->st.swapouts++;
		return POL_WRITEOUT_DONE;
	case -ENOMEM:
		/* zram is full: as no slot. The slot goes back unless a
		 * copy written before still holds it. */
		if (p->swap[slot].map == 1 && p->swap[slot].cache == i) {
			p->swap[slot].cache = PGR_NONE;
			pgr_swap_put(p, slot);
			d->swap = PGR_NONE;
		}
		return POL_WRITEOUT_FAILED;
	default:
		return POL_WRITEOUT_KEEP;
	}
	pgr_page_client(p, i)->st.swapouts++;
	return POL_WRITEOUT_STARTED;
}

void pgr_writeout_done(struct pgr *p, uint32_t i, int res)
{
	struct dpage *d = &p->pages[i];

	if (res != PGR_PAGE && res != -EHOSTDOWN)	/* gone: said once */
		pgr_err("swap write of slot %u failed: %s", d->swap,
			res < 0 ? strerror(-res) : "short write");
	pol_writeback_done(p->pol, i, res == PGR_PAGE);
	if (d->region == PGR_NONE) {
		pgr_page_free(p, i);	/* its owner went during the I/O */
		return;
	}
	/* Mapped again while it was written: the buffer kept for the
	 * write goes back now. */
	if (d->buf != PGR_NONE &&
	    !(*pgr_page_slot(p, i) & (SL_ARMING | SL_ARMED))) {
		pgr_buf_put(p, d->buf);
		d->buf = PGR_NONE;
	}
}

static int be_evict(void *ctx, uint32_t i, uint64_t shadow)
{
	struct pgr *p = P(ctx);
	struct dpage *d = &p->pages[i];
	struct client *c;
	uint64_t *slot;

	if (orphan(p, i))
		return -EBUSY;		/* freed when its I/O completes */
	if (is_file(p, i))
		return pgr_file_evict(p, i, shadow);
	c = pgr_page_client(p, i);
	slot = pgr_page_slot(p, i);

	if (!(*slot & SL_ARMED) || (*slot & SL_READING) ||
	    (d->flags & DP_READING) || d->swap == PGR_NONE)
		return -EBUSY;
	/* The swap cache's reference becomes the region slot's. */
	p->swap[d->swap].cache = PGR_NONE;
	p->swap[d->swap].shadow = shadow;
	*slot = sl_of_swap(d->swap);
	c->resident--;
	c->swapped++;
	d->swap = PGR_NONE;
	pgr_buf_put(p, d->buf);
	d->buf = PGR_NONE;
	return 0;
}

static void be_unmap_flush(void *ctx)
{
	pgr_file_punch_flush(P(ctx));
}

static void be_swap_space(void *ctx, uint64_t *total, uint64_t *free)
{
	struct pgr *p = P(ctx);

	*total = pgr_has_swap(p) ? p->o.swap_pages : 0;
	*free = pgr_has_swap(p) ? p->nr_swap_free : 0;
}

static bool be_swap_drop(void *ctx, uint32_t i)
{
	struct pgr *p = P(ctx);
	struct dpage *d = &p->pages[i];

	/* Not while it is being read from that slot. */
	if (is_file(p, i) || d->swap == PGR_NONE || (d->flags & DP_READING) ||
	    p->swap[d->swap].map > 1)
		return false;
	p->swap[d->swap].cache = PGR_NONE;
	pgr_swap_put(p, d->swap);
	d->swap = PGR_NONE;
	return true;
}

static void be_prefetch(void *ctx, uint32_t i)
{
	if (!orphan(P(ctx), i) && !is_file(P(ctx), i))
		__builtin_prefetch(pgr_page_slot(P(ctx), i));
}

static void be_event(void *ctx, const struct pol_event *ev)
{
	pgr_trace_event(P(ctx), ev);
}

static uint32_t be_invalidate_inode(void *ctx, uint32_t ino)
{
	return pgr_file_invalidate(P(ctx), ino);
}

static void be_free_inode(void *ctx, uint32_t ino)
{
	pgr_file_free_inode(P(ctx), ino);
}

/*
 * MGLRU's look-around window (lru_gen_look_around()): the page table of
 * @i's address, clipped to its mapping and to 64 pages around it. Anon
 * pages only: a file page's mappings are its inode's, not a region's.
 */
static uint32_t be_neighbours(void *ctx, uint32_t i, uint32_t *out)
{
	struct pgr *p = P(ctx);
	const struct dpage *d = &p->pages[i];
	const struct region *r;
	uint64_t pmd = 512, lo, hi, n = 0;

	if (orphan(p, i) || is_file(p, i))
		return 0;
	r = &p->regions[d->region];
	lo = (r->start / PGR_PAGE + d->off) & ~(pmd - 1);
	hi = lo + pmd;
	lo = lo > r->start / PGR_PAGE ? lo : r->start / PGR_PAGE;
	hi = hi < r->end / PGR_PAGE ? hi : r->end / PGR_PAGE;
	pol_look_around_window(r->start / PGR_PAGE + d->off, &lo, &hi);
	for (uint64_t pg = lo; pg < hi; pg++) {
		uint64_t v = r->slot[pg - r->start / PGR_PAGE];

		if (sl_tag(v) == SL_PAGE && sl_page(v) != i)
			out[n++] = sl_page(v);
	}
	return (uint32_t)n;
}

/* MGLRU's clock: the monotonic one, in ms. */
static uint64_t be_now_ms(void *ctx)
{
	(void)ctx;
	return (uint64_t)(pgr_now() * 1e3);
}

const struct pol_backend pgr_backend = {
	.young = be_young,
	.young_clear = be_young_clear,
	.unmap = be_unmap,
	.writeout = be_writeout,
	.evict = be_evict,
	.unmap_flush = be_unmap_flush,
	.swap_space = be_swap_space,
	.swap_drop = be_swap_drop,
	.prefetch = be_prefetch,
	.invalidate_inode = be_invalidate_inode,
	.free_inode = be_free_inode,
	.event = be_event,
	.now_ms = be_now_ms,
	.neighbours = be_neighbours,
};

/* ---- after a reclaim: tell the agents ---------------------------------- */

/* ---- freeing ------------------------------------------------------------------ */

