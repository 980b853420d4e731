/* SPDX-License-Identifier: MIT */
/*
 * adopt.c - taking a client's anonymous mappings over: registering them
 * with its userfaultfd, making regions of them (region.c), and taking the
 * pages already present from PAGEMAP_SCAN; the reservations (mappings
 * without access yet) are registered but get a region at their first
 * fault. What the pager cannot own (a mapping gone or changed, too many
 * regions) is left to the kernel.
 *
 * Owns: nothing of its own; it fills region.c's table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "../uffd.h"
#include "core.h"
#include "maps.h"

/*
 * Pages left to the kernel are outside the budget: every experiment's
 * figures are then measured against a larger memory than it says. Told
 * once, when they pass 1 % of the budget (they come from memory a
 * program touched before the pager could register it: its loader's,
 * before the shim's hello, or a mapping made past the seccomp filter).
 */
static void foreign_grew(struct pgr *p)
{
	uint64_t n = 0;

	if (p->foreign_warned)
		return;
	for (uint32_t k = 0; k < p->nr_clients; k++)
		if (p->clients[k].used)
			n += p->clients[k].foreign;
	if (n * 100 <= p->o.budget)
		return;
	p->foreign_warned = true;
	pgr_warn_("%llu pages (%llu KiB) the programs touched are the "
		 "kernel's, not charged to the budget (nr_foreign in pager "
		 "stat): over 1 %% of it, its figures are measured against a "
		 "larger memory", (unsigned long long)n,
		 (unsigned long long)n * (PGR_PAGE / 1024));
}

/* Take the pages present in [start, end) of @r: PAGEMAP_SCAN. */
static int adopt_present(struct pgr *p, struct client *c, uint32_t id)
{
	uint64_t foreign0 = p->pgforeign;
	struct region *r = &p->regions[id];
	struct page_region vec[256];
	struct pm_scan_arg arg = {
		.size = sizeof(arg), .start = r->start, .end = r->end,
		.vec = (uintptr_t)vec, .vec_len = 256,
		.category_mask = PAGE_IS_PRESENT,
		.return_mask = PAGE_IS_PRESENT,
	};
	int fd = pgr_pagemap_fd(c), n, over;

	if (fd < 0)
		return fd;
	do {
		n = ioctl(fd, PAGEMAP_SCAN, &arg);
		if (n < 0) {
			n = -errno;
			break;
		}
		for (int k = 0; k < n; k++) {
			for (uint64_t a = vec[k].start; a < vec[k].end;
			     a += PGR_PAGE) {
				struct region *rr = &p->regions[id];
				uint32_t off = (uint32_t)((a - rr->start) /
							  PGR_PAGE);
				struct pol_add how = { .anon = true,
						       .inode = POL_NONE };
				uint32_t i;

				if (rr->slot[off] != SL_EMPTY)
					continue;
				if (pol_page_alloc_nowait(p->pol, c->group, &i,
							  &over) !=
				    POL_ALLOC_OK) {
					/* No free page: not ours, for now. */
					rr->slot[off] = SL_FOREIGN;
					rr->filled = true;
					c->foreign++;
					p->pgforeign++;
					continue;
				}
				p->pages[i].region = id;
				p->pages[i].off = off;
				p->pages[i].buf = PGR_NONE;
				p->pages[i].swap = PGR_NONE;
				/* A reused descriptor keeps no flag of its
				 * past life (a file page's DP_FILE above all). */
				p->pages[i].flags = 0;
				p->regions[id].slot[off] = sl_of_page(i);
				p->regions[id].filled = true;
				pol_page_add(p->pol, i, &how);
				c->resident++;
			}
		}
		arg.start = arg.walk_end;
	} while (arg.walk_end < r->end && n >= 0 && arg.start < r->end);
	if (p->pgforeign != foreign0)
		foreign_grew(p);
	return n < 0 ? n : 0;
}

bool pgr_region_room(struct pgr *p, struct client *c, uint64_t pages)
{
	if (pages > PGR_MAX_REGION) {
		pgr_warn_("process %d: a mapping of %llu MiB stays the "
			  "kernel's (the pager takes %u MiB at most)", c->pid,
			  (unsigned long long)(pages >> 8),
			  PGR_MAX_REGION >> 8);
		return false;
	}
	if (c->nr_regions < p->max_map_count)
		return true;
	if (!c->map_limited)
		pgr_warn_("process %d has %zu mappings under the pager "
			  "(vm.max_map_count): its next ones stay the "
			  "kernel's", c->pid, c->nr_regions);
	c->map_limited = true;
	return false;
}

/*
 * Is [start, end), just registered, still made of anonymous private
 * mappings only? What we adopt was read a moment before (a rescan of the
 * maps, a fault's lookup, the shim's "map"), and the program runs on
 * meanwhile: it may have unmapped that mapping, unregistered so without an
 * UNMAP event, and mapped a file there, which the registration would then
 * take as anon (the shim's "mapf" of it refused, its pages read as
 * another mapping's). Once registered, any change is an event read after
 * this, so one look now is enough. A process whose mappings cannot be
 * read (a fork child not yet paired) is taken as it was.
 */
static bool still_anon(struct client *c, uint64_t start, uint64_t end)
{
	struct pgr_vma v;

	for (uint64_t a = start; a < end; a = v.end) {
		int err = pgr_vma_find(c, a, true, &v);

		if (err)
			return err != -ENOENT;
		if (v.start > a || v.ino || v.perms[3] != 'p')
			return false;
	}
	return true;
}

/* Undo a registration still_anon() refused: the mappings there are
 * someone else's to take (the shim's "mapf", the next rescan). */
static void unregister(struct client *c, uint64_t start, uint64_t end)
{
	struct uffdio_range r = { start, end - start };

	pgr_dbg("0x%llx-0x%llx of %d changed before it was registered: not "
		"adopted", (unsigned long long)start, (unsigned long long)end,
		c->pid);
	ioctl(c->uffd, UFFDIO_UNREGISTER, &r);
}

/*
 * Not now: an event of the mm is unread (pgr_mm_changing()), so what the
 * look at the maps showed may be a move's destination whose REMAP is
 * still to come, with pages the move brings; a region made of them here
 * would hold those pages twice. The next rescan looks again.
 */
static int later(struct client *c, uint64_t start, uint64_t end)
{
	pgr_dbg("0x%llx-0x%llx of %d: not adopted while an event is unread",
		(unsigned long long)start, (unsigned long long)end, c->pid);
	c->rescan = true;
	return -EBUSY;
}

static int adopt_gap(struct pgr *p, struct client *c, uint64_t start,
		     uint64_t end)
{
	struct uffdio_register reg = {
		.range = { start, end - start },
		.mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP,
	};
	uint32_t id;

	if (!pgr_region_room(p, c, (end - start) / PGR_PAGE))
		return -ENOSPC;
	if (pgr_mm_changing(c))
		return later(c, start, end);
	if (ioctl(c->uffd, UFFDIO_REGISTER, &reg)) {
		int err = -errno;

		pgr_dbg("cannot register 0x%llx-0x%llx of %d: %s",
			(unsigned long long)start, (unsigned long long)end,
			c->pid, strerror(-err));
		return err;
	}
	/* Changed since the look before registering: a move's destination
	 * is registered already, and must stay so. Registered, no region:
	 * a fault there adopts it once the event is read (grown()). */
	if (pgr_mm_changing(c))
		return later(c, start, end);
	if (!still_anon(c, start, end)) {
		unregister(c, start, end);
		return -EAGAIN;
	}
	id = pgr_region_new(p, c, start, end);
	pgr_rec_mmap(p, c, &p->regions[id]);
	pgr_dbg("adopted 0x%llx-0x%llx of %d", (unsigned long long)start,
		(unsigned long long)end, c->pid);
	return adopt_present(p, c, id);
}

/*
 * Call @fn on each gap of [start, end) between the regions @c has; return
 * -EBUSY if a call did (an adoption put off: ctl.c holds its "map"), else
 * what the last call returned (0 if there was no gap).
 */
static int each_gap(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end, int (*fn)(struct pgr *, struct client *,
					    uint64_t, uint64_t))
{
	uint64_t a = start;
	int err = 0;

	while (a < end) {
		/* One search a gap, and a step a region: a VMA opened piece
		 * by piece (V8's cage) holds hundreds of regions, and a fault
		 * in a new piece walks it (fault.c, grown()); a search a
		 * region was a third of the daemon's time under node. */
		size_t k = pgr_region_after(p, c, a);
		uint64_t next = end;
		int e;

		while (k < c->nr_regions && p->regions[c->regions[k]].start <= a)
			a = p->regions[c->regions[k++]].end;
		if (a >= end)
			break;
		if (k < c->nr_regions && p->regions[c->regions[k]].start < end)
			next = p->regions[c->regions[k]].start;
		e = fn(p, c, a, next);	/* may add a region: search again */
		if (err != -EBUSY)
			err = e;
		a = next;
	}
	return err;
}

/* Adopt the gaps between regions already owned. */
int pgr_adopt(struct pgr *p, struct client *c, uint64_t start, uint64_t end)
{
	return each_gap(p, c, start, end, adopt_gap);
}

/*
 * An adoption put off (an event of the mm is unread: later()) while the
 * program waits in the call that made the mapping (the shim's "map", a
 * notified mmap or brk: watch/call.c). Answered now, the program would
 * fill the mapping in the kernel's memory before a rescan adopts it, past
 * the budget (the rescan has no free page for those: SL_FOREIGN). The
 * event is read on the loop's next turn, but it counts as unread until
 * the thread that caused it has run on, so the adoption is tried again
 * every millisecond, HOLD_TRIES times at most; then the answer goes
 * anyway, and the rescan takes what it can.
 */
#define HOLD_TRIES 1000

struct adopt_hold {
	struct adopt_hold *next;
	uint32_t client;	/* index in p->clients */
	pid_t pid;		/* its pid then: the same process still? */
	uint64_t start, end;
	unsigned int tries;
	void (*then)(struct pgr *, void *);
	void *arg;
};

static void on_hold(uv_timer_t *t)
{
	struct pgr *p = t->data;
	struct adopt_hold *h = p->held, *next;

	p->held = NULL;
	for (; h; h = next) {
		struct client *c = &p->clients[h->client];

		next = h->next;
		if (c->used && c->pid == h->pid &&
		    pgr_adopt(p, c, h->start, h->end) == -EBUSY &&
		    ++h->tries < HOLD_TRIES) {
			h->next = p->held;
			p->held = h;
			continue;
		}
		if (h->tries >= HOLD_TRIES)
			pgr_dbg("0x%llx-0x%llx of %d: answered, not adopted",
				(unsigned long long)h->start,
				(unsigned long long)h->end, h->pid);
		h->then(p, h->arg);
		free(h);
	}
	if (p->held)
		uv_timer_start(&p->hold, on_hold, 1, 0);
}

void pgr_adopt_then(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end, void (*then)(struct pgr *, void *), void *arg)
{
	struct adopt_hold *h;

	if (pgr_adopt(p, c, start, end) != -EBUSY) {
		then(p, arg);
		return;
	}
	h = pgr_xcalloc(1, sizeof(*h));
	*h = (struct adopt_hold){ p->held, (uint32_t)(c - p->clients), c->pid,
				  start, end, 0, then, arg };
	p->held = h;
	if (!uv_is_active((uv_handle_t *)&p->hold))
		uv_timer_start(&p->hold, on_hold, 1, 0);
}

void pgr_adopt_release_held(struct pgr *p)
{
	for (struct adopt_hold *h = p->held, *next; h; h = next) {
		next = h->next;
		h->then(p, h->arg);
		free(h);
	}
	p->held = NULL;
}

/*
 * A reservation: an anonymous mapping without access, which allocators
 * (V8's cage, PartitionAlloc's pools, glibc's arenas) make and then open
 * piece by piece with mprotect. It is registered with the userfaultfd but
 * is no region (no slot per page: a terabyte would cost gigabytes); a
 * piece made accessible inherits the registration, and its first fault
 * makes it a region (fault.c, grown()). Parts already regions are left
 * alone.
 */
static int register_reserved(struct pgr *p, struct client *c,
			     uint64_t start, uint64_t end)
{
	struct uffdio_register reg = {
		.range = { start, end - start },
		.mode = UFFDIO_REGISTER_MODE_MISSING | UFFDIO_REGISTER_MODE_WP,
	};
	int err;

	(void)p;
	if (!ioctl(c->uffd, UFFDIO_REGISTER, &reg)) {
		if (still_anon(c, start, end))
			return 0;
		unregister(c, start, end);
		return -EAGAIN;
	}
	err = -errno;
	pgr_dbg("cannot register the reservation 0x%llx-0x%llx of %d: %s",
		(unsigned long long)start, (unsigned long long)end, c->pid,
		strerror(-err));
	return err;
}

int pgr_reserve(struct pgr *p, struct client *c, uint64_t start, uint64_t end)
{
	return each_gap(p, c, start, end, register_reserved);
}

/* Adopt [start, end) less the ranges the shim keeps for itself. The
 * kernel merges an adjacent mapping of the program with those (same
 * flags), so a mapping may hold both. */
static int adopt_unexcluded(struct pgr *p, struct client *c, uint64_t start,
			    uint64_t end)
{
	uint64_t a = start;

	while (a < end) {
		uint64_t next = end, skip_to = a;

		for (size_t k = 0; k < c->nr_excluded; k++) {
			const struct range *x = &c->excluded[k];

			if (x->start <= a && a < x->end && x->end > skip_to)
				skip_to = x->end;
			else if (x->start > a && x->start < next)
				next = x->start;
		}
		if (skip_to > a) {
			a = skip_to;
			continue;
		}
		pgr_adopt(p, c, a, next);
		a = next;
	}
	return 0;
}

/*
 * Every private anonymous writable mapping of the client, except the
 * stack (it grows down), vDSO areas, and what the shim asked to leave
 * alone (its agent's stack and its own data); and every reservation (no
 * access yet), registered for the pieces opened later.
 */
int pgr_adopt_maps(struct pgr *p, struct client *c)
{
	struct pgr_vma v;
	uint64_t a = 0;
	int err;

	c->rescan = false;	/* adopt_gap() may ask for another */
	while (!(err = pgr_vma_find(c, a, true, &v))) {
		a = v.end;
		if (v.ino || (v.name[0] && strcmp(v.name, "[heap]")))
			continue;
		if (!strcmp(v.perms, "---p"))
			pgr_reserve(p, c, v.start, v.end);
		else if (!strcmp(v.perms, "rw-p"))
			adopt_unexcluded(p, c, v.start, v.end);
	}
	return err == -ENOENT ? 0 : err;
}

