/* SPDX-License-Identifier: MIT */
/*
 * fault.c - page faults on anonymous regions (events.c reads them from
 * the client's userfaultfd), the allocation a fault needs, and faults
 * served later.
 *
 * Owns: the deferred faults and their retry timer; the fault counters.
 *
 * The life of a fault, by what the page's slot holds:
 *
 *   EMPTY           first touch: a zero page, and its neighbours with it
 *                   (fault-around): UFFDIO_ZEROPAGE for a read,
 *                   UFFDIO_COPY of zeros for a write
 *   ARMED           its data is in our buffer: UFFDIO_COPY it back; this
 *                   fault is the page's young bit (pgfault_young)
 *   SWAP            allocate, read the slot (io_uring, O_DIRECT), and
 *                   UFFDIO_COPY when the read completes; meanwhile READING.
 *                   The slot stays as swap cache unless the fault is a
 *                   write or swap is half full, as in do_swap_page()
 *   ARMING/READING  not answered now: the agent's "done" or the read's
 *                   completion wakes it
 *   present         another thread got there first: wake
 *
 * Dirty bits: a page that is clean with a copy in swap is mapped
 * write-protected (UFFDIO_COPY_MODE_WP); its first write faults, which
 * dirties it and lifts the protection. Otherwise a write-protect fault
 * comes while a page is being armed, and waits like a missing one; a stale
 * protection (inherited at fork) is lifted. A fault on an empty page
 * inside a range the agent is about to drop also waits, so that the agent
 * never drops a page the program just got.
 *
 * Faults that cannot be served at once go on the daemon's deferred list:
 * EAGAIN from an ioctl means events are pending on the userfaultfd (read
 * them, then retry); NOMEM means the OOM killer was called (retry once
 * memory is freed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../cache/cache.h"
#include "../pgr.h"
#include "../swap/swap.h"
#include "../uffd.h"
#include "core.h"
#include "maps.h"

#define SWAP_CLUSTER 32

#define AGENT_WAIT_S 2.0	/* a new client's agent is awaited this long */

/*
 * Is reclaim work under way whose end will free pages? Write-outs are
 * awaited as the kernel's reclaim awaits writeback: pages under writeback
 * are reclaimable, and no OOM kill comes while they are
 * (should_reclaim_retry()). A swap file's or device's writes always land,
 * and are awaited however long the disk takes (a busy one took over two
 * ticks: verify advise was OOM-killed with all 1958 of its resident pages
 * being written). A file's write-back waits for the inode's lock, which a
 * client's write(2) may hold while its own fault on the source buffer
 * waits for memory: past a tick or two without a write landing, reclaim
 * goes on without those; a remote store's, until redis.timeout_ms says
 * it is gone.
 */
#define WRITES_AWAITED_TICKS 2

bool pgr_in_flight(const struct pgr *p)
{
	if (p->ring_swap_writes)
		return true;
	if (p->writes && p->ticks - p->writes_tick < WRITES_AWAITED_TICKS)
		return true;
	/* A swap store's writes, until redis.timeout_ms says it is gone. */
	if (p->writes && pgr_swap_awaited(p))
		return true;
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		const struct client *c = &p->clients[k];

		if (c->used && (c->nr_pending || c->nr_asked || c->nr_fasked))
			return true;
	}
	return false;
}

/* A new client's pages cannot be armed until its agent runs (on a loaded
 * machine that takes a while): reclaim that found nothing is no OOM yet. */
static bool agents_awaited(const struct pgr *p)
{
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		const struct client *c = &p->clients[k];

		if (c->used && !c->agent_ready && c->resident &&
		    pgr_now() - c->joined < AGENT_WAIT_S)
			return true;
	}
	return false;
}

static bool in_agent_range(const struct client *c, uint64_t addr)
{
	for (size_t k = 0; k < c->nr_pending; k++)
		if (c->pending[k].start <= addr && addr < c->pending[k].end)
			return true;
	for (size_t k = 0; k < c->nr_asked; k++)
		if (c->asked[k].start <= addr && addr < c->asked[k].end)
			return true;
	for (size_t k = 0; k < c->nr_fasked; k++)
		if (c->fasked[k].start <= addr && addr < c->fasked[k].end)
			return true;
	return false;
}

void pgr_count_fault(struct pgr *p, struct client *c, bool major)
{
	pol_count(p->pol, c->group, POL_PGFAULT, 1);
	if (major)
		pol_count(p->pol, c->group, POL_PGMAJFAULT, 1);
	c->st.faults++;
}

static void page_init(struct pgr *p, uint32_t i, uint32_t rid, uint32_t off)
{
	p->pages[i].region = rid;
	p->pages[i].off = off;
	p->pages[i].buf = PGR_NONE;
	p->pages[i].swap = PGR_NONE;
	p->pages[i].flags = 0;
}

/*
 * Allocate a page for @c. The pager's reclaim completes later (the agent's
 * "done", write-out completions), and only the next pass frees what it
 * started; so when free pages are at the min watermark a fault waits
 * (NOMEM) while reclaim work is in flight, and is retried as it completes;
 * with nothing in flight it reclaims. The OOM killer is called only when
 * a reclaim frees nothing and starts nothing, as often as the kernel's
 * allocator would retry; a reclaim whose pages could not be armed because
 * an event was unread (a thread's own MADV_DONTNEED, say) is retried.
 */
enum pgr_served pgr_alloc(struct pgr *p, struct client *c, uint32_t *i)
{
	for (;;) {
		int over = POL_ROOT;
		enum pol_alloc_result r = pol_page_alloc_nowait(p->pol,
								c->group, i,
								&over);
		uint64_t progress;

		if (r == POL_ALLOC_OK)
			return PGR_SERVED;
		if (pgr_in_flight(p))
			return PGR_NOMEM;
		p->arm_refused = false;
		progress = r == POL_ALLOC_WAIT_GROUP ?
			   pol_group_reclaim(p->pol, over, SWAP_CLUSTER) :
			   pol_direct_reclaim(p->pol);
		pgr_flush_asks(p);
		if (progress) {
			p->group_no_progress = 0;
			continue;
		}
		if (pgr_in_flight(p) || agents_awaited(p))
			return PGR_NOMEM;
		/* What it chose could not be armed while an event of its
		 * process was unread: no failure, a wait for the event. */
		if (p->arm_refused)
			return PGR_RETRY;
		if (r == POL_ALLOC_WAIT_GROUP) {
			if (++p->group_no_progress <= 16)
				continue;
			p->group_no_progress = 0;
			pgr_oom(p, over, c);
			return PGR_NOMEM;
		}
		if (pol_reclaim_failed(p->pol, 0)) {
			pgr_oom(p, POL_ROOT, c);
			return PGR_NOMEM;
		}
	}
}

/* Zero-fill @n pages at @addr; return pages done, or -errno. */
static long zero_fill(struct pgr *p, struct client *c, uint64_t addr,
		      uint32_t n, bool write)
{
	if (write) {
		struct uffdio_copy cp = { .dst = addr,
					  .src = (uintptr_t)p->zeros,
					  .len = (uint64_t)n * PGR_PAGE };

		if (!ioctl(c->uffd, UFFDIO_COPY, &cp))
			return n;
		return cp.copy > 0 ? (long)(cp.copy / PGR_PAGE) : -errno;
	} else {
		struct uffdio_zeropage z = {
			.range = { addr, (uint64_t)n * PGR_PAGE },
		};

		if (!ioctl(c->uffd, UFFDIO_ZEROPAGE, &z))
			return n;
		return z.zeropage > 0 ? (long)(z.zeropage / PGR_PAGE) : -errno;
	}
}

static enum pgr_served first_touch(struct pgr *p, struct client *c,
				   uint32_t rid, uint32_t off, bool write)
{
	uint32_t pages[PGR_MAX_AROUND], n = 0, max, npg;
	struct region *r = &p->regions[rid];
	uint64_t addr = r->start + (uint64_t)off * PGR_PAGE;
	long done;

	if (in_agent_range(c, addr))
		return PGR_PARKED;
	npg = (uint32_t)((r->end - r->start) / PGR_PAGE);
	max = p->fault_around ? p->fault_around : 1;
	/* The faulting page and the empty ones after it, up to the window,
	 * and never into a range the agent has yet to drop. */
	while (n < max && off + n < npg &&
	       p->regions[rid].slot[off + n] == SL_EMPTY &&
	       (!n || !in_agent_range(c, addr + (uint64_t)n * PGR_PAGE))) {
		enum pgr_served s = pgr_alloc(p, c, &pages[n]);

		if (s != PGR_SERVED) {
			if (!n)
				return s;
			break;
		}
		n++;
	}
	done = zero_fill(p, c, addr, n, write);
	if (done < 0 && done != -EAGAIN && n > 1)
		/* Part of the window is mapped already (EEXIST), or it
		 * crosses a VMA boundary (ENOENT: a mprotect split the
		 * region, as allocators do inside a PROT_NONE reservation):
		 * the faulting page alone. */
		done = zero_fill(p, c, addr, 1, write);
	if (done < 0) {
		for (uint32_t k = 0; k < n; k++)
			pol_page_free(p->pol, pages[k]);
		if (done == -EAGAIN)
			return PGR_RETRY;
		if (done != -EEXIST)
			pgr_dbg("zero-fill of 0x%llx in %d: %s",
				(unsigned long long)addr, c->pid,
				strerror((int)-done));
		/* Nothing woke the thread: let it fault again on what is
		 * there now. */
		pgr_wake(p, c, addr, addr + PGR_PAGE);
		return PGR_SERVED;
	}
	r = &p->regions[rid];
	for (uint32_t k = 0; k < n; k++) {
		struct pol_add how = { .anon = true,
				       .fault = region_has_recency(r),
				       .inode = POL_NONE };

		if (k >= (uint32_t)done) {
			pol_page_free(p->pol, pages[k]);
			continue;
		}
		page_init(p, pages[k], rid, off + k);
		r->slot[off + k] = sl_of_page(pages[k]);
		r->filled = true;
		pol_page_add(p->pol, pages[k], &how);
	}
	c->resident += (uint64_t)done;
	c->st.first_touch += (uint64_t)done;
	if (done > 1)	/* mapped around the fault: young, as touched */
		pgr_rec_access(p, c, addr + PGR_PAGE, (uint64_t)done - 1,
			       write);
	pgr_count_fault(p, c, false);
	return PGR_SERVED;
}

/* Copy @buf to @addr of @c: write-protected if page @i is clean with a
 * copy in swap and this is no write (see pgr_page_clean_cached()); a
 * write dirties it. Return 0 or -errno (EEXIST: it is there already). */
static int copy_in(struct pgr *p, struct client *c, uint32_t i,
		   uint64_t addr, const char *buf, bool write)
{
	struct uffdio_copy cp = { .dst = addr, .src = (uintptr_t)buf,
				  .len = PGR_PAGE };

	if (pgr_page_clean_cached(p, i)) {
		if (write)
			pol_page_dirty(p->pol, i, true);
		else
			cp.mode = UFFDIO_COPY_MODE_WP;
	}
	return ioctl(c->uffd, UFFDIO_COPY, &cp) ? -errno : 0;
}

/* An armed page is touched: back from our buffer. */
static enum pgr_served armed_refault(struct pgr *p, struct client *c,
				     uint32_t rid, uint32_t off, bool write)
{
	struct region *r = &p->regions[rid];
	uint32_t i = sl_page(r->slot[off]);
	int err = copy_in(p, c, i, r->start + (uint64_t)off * PGR_PAGE,
			  pgr_buf(p, p->pages[i].buf), write);

	if (err && err != -EEXIST)
		return err == -EAGAIN ? PGR_RETRY : PGR_SERVED;
	r = &p->regions[rid];
	r->slot[off] &= ~(uint64_t)SL_ARMED;
	pgr_page_buf_release(p, i);
	if (p->pages[i].flags & DP_RA) {
		/* A readahead hit: a minor fault, and a wider window. */
		pol_count(p->pol, c->group, POL_SWAP_RA_HIT, 1);
		p->ra_hits++;
		pgr_count_fault(p, c, false);
	}
	if (p->pages[i].flags & DP_FRESH) {
		/* Its swap-in, finished: not a reference. */
		p->pages[i].flags &= (uint16_t)~(DP_FRESH | DP_RA);
		return PGR_SERVED;
	}
	pol_count(p->pol, c->group, POL_PGFAULT_YOUNG, 1);
	c->st.young++;
	pgr_count_fault(p, c, false);
	return PGR_SERVED;
}

/*
 * Start reading slot @off of region @rid (it is SWAP) into page @i. As
 * do_swap_page() does, the slot stays as the page's swap cache (it is
 * clean until written) unless the page is read for a write, swap is
 * more than half full, or it comes from zswap (exclusive loads); then the
 * slot is freed once read and the page is dirty. A readahead page (@ra) is left unmapped, like an armed page, to
 * be mapped by its first fault. Return 0 or -errno.
 */
static int start_read(struct pgr *p, struct client *c, uint32_t rid,
		      uint32_t off, uint32_t i, bool write, bool ra)
{
	uint32_t slot = sl_swap(p->regions[rid].slot[off]);
	bool zswap = pgr_swap_exclusive(p, slot);	/* an exclusive load */
	bool keep = !write && !pgr_swap_half_full(p) && !zswap;
	struct pol_add how = { .anon = true, .swapin = true,
			       .fault = region_has_recency(&p->regions[rid]),
			       .swapcache = keep,
			       .dirty = !keep, .inode = POL_NONE };
	uint32_t buf = pgr_buf_get(p);

	if (buf == PGR_NONE)
		return -ENOMEM;
	page_init(p, i, rid, off);
	p->pages[i].buf = buf;
	p->pages[i].swap = slot;
	p->pages[i].flags = DP_READING | (ra ? DP_FRESH | DP_RA : 0);
	if (pgr_swap_io(p, i, slot, false)) {
		pgr_buf_put(p, buf);
		p->pages[i].buf = PGR_NONE;
		return -EBUSY;
	}
	/* The region's reference to the slot becomes the swap cache's. */
	how.shadow = p->swap[slot].shadow;
	p->swap[slot].shadow = 0;
	p->swap[slot].cache = i;
	p->regions[rid].slot[off] = sl_of_page(i) | SL_READING |
				    (ra ? SL_ARMED : 0);
	pol_page_add(p->pol, i, &how);
	c->resident++;
	c->swapped--;
	if (!zswap) {		/* a device read (zswap counted zswpin) */
		pol_count(p->pol, c->group, POL_PSWPIN, 1);
		pol_count(p->pol, c->group, POL_PGPGIN, 4);
		c->st.pswpin++;
	}
	/* The fault waits for it; a stall if a workingset page refaults
	 * (swap_read_folio()'s psi_memstall_enter()). */
	if (!ra && (p->pages[i].pol.flags & POL_PG_WORKINGSET))
		pgr_psi_read_start(p, c, i);
	return 0;
}

/*
 * The readahead window (swap_vma_readahead(), __swapin_nr_pages()): one
 * page more than the readahead hits since the last fault, rounded up to a
 * power of two, at most 2^vm.page-cluster, shrinking at most by half; a
 * lone page if the fault does not follow the last one and nothing hit.
 */
static unsigned int ra_window(struct pgr *p, struct region *r, uint32_t off)
{
	unsigned int max = 1u << p->page_cluster, hits = p->ra_hits, pages;
	uint32_t prev = r->ra_prev;

	p->ra_hits = 0;
	if (max <= 1)
		return 1;
	pages = hits + 2;
	if (pages == 2 && off != prev + 1 && off + 1 != prev)
		pages = 1;
	else {
		unsigned int roundup = 4;

		while (roundup < pages)
			roundup *= 2;
		pages = roundup;
	}
	if (pages > max)
		pages = max;
	if (pages < r->ra_win / 2)
		pages = r->ra_win / 2;
	return pages;
}

/* Read the neighbours of @off that are in swap too, in the window: ahead
 * of a forward scan, behind a backward one, around it otherwise. Only
 * free pages are used: readahead never reclaims. */
static void swap_readahead(struct pgr *p, struct client *c, uint32_t rid,
			   uint32_t off)
{
	struct region *r = &p->regions[rid];
	unsigned int win = ra_window(p, r, off);
	uint32_t npg = (uint32_t)((r->end - r->start) / PGR_PAGE);
	int64_t lo, hi;

	if (off == r->ra_prev + 1) {
		lo = off;
		hi = (int64_t)off + win;
	} else if (off + 1 == r->ra_prev) {
		lo = (int64_t)off - win + 1;
		hi = (int64_t)off + 1;
	} else {
		lo = (int64_t)off - (win - 1) / 2;
		hi = lo + win;
	}
	r->ra_prev = off;
	r->ra_win = win;
	if (lo < 0)
		lo = 0;
	if (hi > npg)
		hi = npg;
	for (int64_t o = lo; o < hi; o++) {
		int over = POL_ROOT;
		uint32_t i;

		if (o == off || sl_tag(p->regions[rid].slot[o]) != SL_SWAP)
			continue;
		if (pol_page_alloc_nowait(p->pol, c->group, &i, &over) !=
		    POL_ALLOC_OK)
			break;
		if (start_read(p, c, rid, (uint32_t)o, i, false, true)) {
			pol_page_free(p->pol, i);
			break;
		}
		pol_count(p->pol, c->group, POL_SWAP_RA, 1);
	}
}

/* A page in swap is touched: read it, and its neighbours. */
static enum pgr_served swap_in(struct pgr *p, struct client *c, uint32_t rid,
			       uint32_t off, bool write)
{
	enum pgr_served s;
	uint32_t i;
	int err;

	if (in_agent_range(c, p->regions[rid].start + (uint64_t)off * PGR_PAGE))
		return PGR_PARKED;
	s = pgr_alloc(p, c, &i);
	if (s != PGR_SERVED)
		return s;
	err = start_read(p, c, rid, off, i, write, false);
	if (err) {
		pol_page_free(p->pol, i);
		return err == -ENOMEM ? PGR_NOMEM : PGR_RETRY;
	}
	c->st.swapins++;
	pgr_count_fault(p, c, true);
	swap_readahead(p, c, rid, off);
	return PGR_SERVED;
}

void pgr_swapin_done(struct pgr *p, uint32_t i, int res)
{
	struct dpage *d = &p->pages[i];
	struct region *r;
	struct client *c;
	uint64_t addr;
	int err;

	d->flags &= (uint16_t)~DP_READING;
	pgr_psi_read_done(p, i);
	if (d->region == PGR_NONE) {
		pgr_page_free(p, i);	/* discarded while it was read */
		return;
	}
	r = &p->regions[d->region];
	c = &p->clients[r->client];
	addr = r->start + (uint64_t)d->off * PGR_PAGE;
	if (res != PGR_PAGE) {
		char why[300];

		/* The data is gone: never hand out anything else. */
		pgr_swap_why(p, d->swap, res, why, sizeof(why));
		if (!c->killed)
			pgr_err("swap read of slot %u for process %d: %s: "
				"killing it", d->swap, c->pid, why);
		pgr_kill(p, c, why);
		return;
	}
	if (d->swap == PGR_NONE ||
	    !pgr_swap_verify(p, d->swap, pgr_buf(p, d->buf))) {
		pgr_err("swap slot %u of process %d does not hold what was "
			"written to it (checksum mismatch: the swap device "
			"was changed under the pager?): killing it", d->swap,
			c->pid);
		pgr_kill(p, c, "swap checksum mismatch");
		return;
	}
	if (!(d->pol.flags & POL_PG_SWAPCACHE)) {
		/* Read for a write, or swap is filling up: free the slot. */
		p->swap[d->swap].cache = PGR_NONE;
		pgr_swap_put(p, d->swap);
		d->swap = PGR_NONE;
	}
	if (d->flags & DP_RA) {
		/* Read ahead: it waits in its buffer for its first fault
		 * (one may have come meanwhile and be waiting). */
		r->slot[d->off] &= ~(uint64_t)SL_READING;
		pgr_wake(p, c, addr, addr + PGR_PAGE);
		return;
	}
	err = copy_in(p, c, i, addr, pgr_buf(p, d->buf), false);
	if (err == -EAGAIN) {
		/* Events are pending: the page waits in its buffer like an
		 * armed one, and the fault is served again shortly. */
		r->slot[d->off] = (r->slot[d->off] & ~(uint64_t)SL_READING) |
				  SL_ARMED;
		d->flags |= DP_FRESH;
		pgr_defer(p, c, addr, false, false, PGR_RETRY);
		return;
	}
	if (err && err != -EEXIST)
		pgr_dbg("copy-in of 0x%llx in %d: %s", (unsigned long long)addr,
			c->pid, strerror(-err));
	r->slot[d->off] &= ~(uint64_t)SL_READING;
	pgr_buf_put(p, d->buf);
	d->buf = PGR_NONE;
}

/* The first write to a FOREIGN page (a fork child's, shared with its
 * parent): it becomes the client's own, charged, once the kernel has
 * copied it. */
static enum pgr_served take_foreign(struct pgr *p, struct client *c,
				    uint32_t rid, uint32_t off)
{
	struct region *r = &p->regions[rid];
	struct uffdio_writeprotect u = {
		.range = { r->start + (uint64_t)off * PGR_PAGE, PGR_PAGE },
	};
	struct pol_add how = { .anon = true, .dirty = true,
			       .fault = region_has_recency(r),
			       .inode = POL_NONE };
	enum pgr_served s;
	uint32_t i;

	s = pgr_alloc(p, c, &i);
	if (s != PGR_SERVED)
		return s;
	if (ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u) && errno == EAGAIN) {
		pol_page_free(p->pol, i);
		return PGR_RETRY;
	}
	r = &p->regions[rid];
	page_init(p, i, rid, off);
	r->slot[off] = sl_of_page(i);
	pol_page_add(p->pol, i, &how);
	c->foreign--;
	c->resident++;
	pgr_count_fault(p, c, false);
	return PGR_SERVED;
}

/*
 * The VMA [s, e) of our memfd (inode @mino of the memfd file system) at
 * file page @pgoff grew: mremap grows a mapping in place, or moves it to a
 * larger range (the REMAP event names the old length only), as SQLite
 * grows its mapping of a database. The new part is registered already
 * (it inherits the VMA's flags); it becomes file regions of the inode of
 * the region it grew from, with its flags. NULL if no region of @c maps
 * that memfd inside [s, e).
 */
static struct region *grown_file(struct pgr *p, struct client *c,
				 uint64_t addr, uint32_t *rid, uint64_t s,
				 uint64_t e, uint64_t pgoff, unsigned long mino)
{
	const struct region *from = NULL;

	for (size_t k = 0; k < c->nr_regions && !from; k++) {
		const struct region *r = &p->regions[c->regions[k]];
		struct stat st;

		if (region_is_file(r) && r->start >= s && r->end <= e &&
		    r->pgoff == pgoff + (r->start - s) / PGR_PAGE &&
		    !fstat(p->files[r->inode].memfd, &st) &&
		    (unsigned long)st.st_ino == mino)
			from = r;
	}
	if (!from)
		return NULL;
	/* Each part of [s, e) no region holds. */
	for (uint64_t a = s; a < e;) {
		uint32_t id, nid;
		uint64_t b = a;
		struct region *n;

		if (pgr_region_find(p, c, a, &id)) {
			a = p->regions[id].end;
			continue;
		}
		while (b < e && !pgr_region_find(p, c, b, &id))
			b += PGR_PAGE;
		if (!pgr_region_room(p, c, (b - a) / PGR_PAGE))
			return NULL;
		nid = pgr_region_new(p, c, a, b);
		from = NULL;	/* the table may have moved: look again */
		for (size_t k = 0; k < c->nr_regions && !from; k++) {
			const struct region *r = &p->regions[c->regions[k]];

			if (c->regions[k] != nid && region_is_file(r) &&
			    r->start >= s && r->end <= e)
				from = r;
		}
		n = &p->regions[nid];
		n->inode = from->inode;
		n->pgoff = pgoff + (a - s) / PGR_PAGE;
		n->rflags = from->rflags;
		pgr_file_add_mapper(p, nid);
		pgr_rec_mmap(p, c, n);
		a = b;
	}
	return pgr_region_find(p, c, addr, rid);
}

#define GROWN_WAITS 200

/* No region holds @addr, but the fault came: the VMA grew (mremap in
 * place) or was not seen yet. Take it over and look again. */
static struct region *grown(struct pgr *p, struct client *c, uint64_t addr,
			    uint32_t *rid, char *file, size_t len)
{
	struct pgr_vma v;
	struct region *r;

	*file = 0;
	if (pgr_vma_find(c, addr, false, &v))
		return NULL;
	if (!v.ino) {
		pgr_adopt(p, c, v.start, v.end);
		return pgr_region_find(p, c, addr, rid);
	}
	r = grown_file(p, c, addr, rid, v.start, v.end, v.offset / PGR_PAGE,
		       v.ino);
	if (!r)		/* not ours: zeros there would be wrong data */
		pgr_vma_format(&v, file, len);
	return r;
}

enum pgr_served pgr_fault(struct pgr *p, struct client *c, uint64_t addr,
			  bool write, bool wp)
{
	uint32_t rid, off;
	struct region *r = pgr_region_find(p, c, addr, &rid);
	uint64_t v;
	char file[512], why[640];	/* grown() sets file when it runs */

	/* No region: what the maps show is adopted, but not while an event
	 * is unread (uffd.h): they may show a move's pages before its REMAP
	 * brings their slots. */
	if (!r && pgr_mm_changing(c))
		return PGR_RETRY;
	if (!r)
		r = grown(p, c, addr, &rid, file, sizeof(file));
	/*
	 * Registered but put off (adopt.c, later()): an event came while
	 * grown() registered. A zero page now would be wrong data if it is
	 * a move's REMAP that brings this page's slot, and a write to it
	 * would be the kernel's page, outside the budget. So the fault
	 * waits, but a while only (GROWN_WAITS retries, a millisecond
	 * apart): threads that unmap without pause keep an event unread
	 * all the time, and a wait for a quiet moment would never end.
	 */
	if (!r && !file[0] && pgr_mm_changing(c) &&
	    ++c->grown_waits < GROWN_WAITS)
		return PGR_RETRY;
	c->grown_waits = 0;
	if (!r && file[0]) {
		snprintf(why, sizeof(why), "it touched 0x%llx, in a part of a "
			 "file mapping the pager does not know: %s",
			 (unsigned long long)addr, file);
		pgr_kill(p, c, why);
		return PGR_SERVED;
	}
	if (!r) {
		/* Registered, but not ours to know: nothing of ours is
		 * missing there, so it is a first touch. Or a message of a
		 * fault already served, read late: a thread's fault that a
		 * signal cut short is raised again, and both messages come;
		 * by the second the page may be present (EEXIST) or its
		 * mapping gone (ENOENT), and nothing is to be done. */
		struct uffdio_zeropage z = { .range = { addr, PGR_PAGE } };

		if (ioctl(c->uffd, UFFDIO_ZEROPAGE, &z))
			return errno == EAGAIN ? PGR_RETRY : PGR_SERVED;
		p->zero_outside++;
		if (!c->warned_outside)
			pgr_warn_("fault at 0x%llx of %d outside any region: a "
				  "zero page (pager_zero_outside counts them)",
				  (unsigned long long)addr, c->pid);
		c->warned_outside = true;
		return PGR_SERVED;
	}
	off = (uint32_t)((addr - r->start) / PGR_PAGE);
	v = r->slot[off];
	if (region_is_file(r) && (write || wp) &&
	    pgr_file_held(p, r->inode, r->pgoff + off))
		return PGR_PARKED;	/* a write to the file under way, or a
					 * hand-back: its end wakes it */
	if (region_is_file(r) && sl_tag(v) == SL_EMPTY)
		return pgr_file_fault(p, c, rid, off, write, wp);
	if (sl_tag(v) == SL_FOREIGN) {
		if (!wp) {
			/* Gone behind our back: nothing of ours was there. */
			r->slot[off] = SL_EMPTY;
			c->foreign--;
			return first_touch(p, c, rid, off, write);
		}
		return take_foreign(p, c, rid, off);
	}
	if (wp) {
		struct uffdio_writeprotect u = { .range = { addr, PGR_PAGE } };

		if (sl_tag(v) == SL_PAGE && (v & SL_ARMING))
			return PGR_PARKED;
		/* The first write to a clean page (its dirty bit), or a stale
		 * protection (inherited at fork): lift it. */
		if (sl_tag(v) == SL_PAGE && pgr_page_clean_cached(p, sl_page(v)))
			pol_page_dirty(p->pol, sl_page(v), true);

		if (ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u) && errno == EAGAIN)
			return PGR_RETRY;
		return PGR_SERVED;
	}
	switch (sl_tag(v)) {
	case SL_EMPTY:
		return first_touch(p, c, rid, off, write);
	case SL_SWAP:
		return swap_in(p, c, rid, off, write);
	}
	if (v & (SL_ARMING | SL_READING))
		return PGR_PARKED;
	if (v & SL_ARMED)
		return armed_refault(p, c, rid, off, write);
	if (region_is_file(r) && !pgr_page_present(c, addr, true)) {
		/*
		 * A private mapping's copy that never happened: cow() lifted
		 * the protection of the file page for the kernel to copy it
		 * at the write's retry, and the page left the cache first,
		 * its mapping here with it. What the process sees there is
		 * still the file: the write is taken again as the first.
		 */
		pgr_discard(p, c, addr, addr + PGR_PAGE, false);
		return pgr_file_fault(p, c, rid, off, write, false);
	}
	if (!region_is_file(r) && pgr_page_gone(c, addr)) {
		/*
		 * A page the kernel dropped with no event for us:
		 * MADV_GUARD_INSTALL zaps what it guards, and after
		 * MADV_GUARD_REMOVE the next touch finds nothing there,
		 * natively a new zero page. Held as mapped, it would be
		 * woken for ever.
		 */
		pgr_discard(p, c, addr, addr + PGR_PAGE, false);
		p->pages_vanished++;
		return first_touch(p, c, rid, off, write);
	}
	pgr_wake(p, c, addr, addr + PGR_PAGE);	/* raced: it is there */
	return PGR_SERVED;
}

/* ---- events ------------------------------------------------------------------ */

/* ---- faults served later ---------------------------------------------- */

static void on_retry(uv_timer_t *t)
{
	pgr_retry_deferred(t->data, NULL);
}

void pgr_defer(struct pgr *p, struct client *c, uint64_t addr, bool write,
	       bool wp, enum pgr_served s)
{
	pgr_grow(&p->deferred, &p->cap_deferred, p->nr_deferred + 1,
		 sizeof(*p->deferred));
	p->deferred[p->nr_deferred++] = (struct deferred){
		pgr_client_id(p, c), addr, write, wp, s == PGR_RETRY };
	if (s == PGR_NOMEM)
		pgr_psi_stall(p, c, 1);	/* waits for reclaim */
	/* EAGAIN lasts until the thread whose event we read has run on;
	 * spinning here would keep it from the CPU. */
	if (s == PGR_RETRY && !uv_is_active((uv_handle_t *)&p->retry))
		uv_timer_start(&p->retry, on_retry, 1, 0);
}

void pgr_retry_deferred(struct pgr *p, struct client *c)
{
	size_t n = p->nr_deferred;
	struct deferred *list;

	if (!n)
		return;
	/* Take the list: faults that fail again are deferred anew. */
	list = p->deferred;
	p->deferred = NULL;
	p->nr_deferred = 0;
	p->cap_deferred = 0;
	for (size_t k = 0; k < n; k++) {
		struct client *o = &p->clients[list[k].client];
		enum pgr_served s;

		if (!o->used)
			continue;
		if (!list[k].retry)
			pgr_psi_stall(p, o, -1);
		if (c && o != c) {
			pgr_defer(p, o, list[k].addr, list[k].write,
				  list[k].wp, list[k].retry ? PGR_RETRY :
				  PGR_NOMEM);
			continue;
		}
		s = pgr_fault(p, o, list[k].addr, list[k].write, list[k].wp);
		if (s == PGR_RETRY || s == PGR_NOMEM)
			pgr_defer(p, o, list[k].addr, list[k].write,
				  list[k].wp, s);
	}
	free(list);
}
