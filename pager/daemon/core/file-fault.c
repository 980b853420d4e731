/* SPDX-License-Identifier: MIT */
/*
 * file-fault.c - faults on file pages, and the reads that serve them
 * (the page cache itself is file.c's):
 *
 *   MISSING  the page is not in the cache: read it from the file with
 *            io_uring (O_DIRECT when the file system allows, so the
 *            kernel's cache does not hide the I/O) straight into the
 *            daemon's mapping of the memfd, with read-around; when the
 *            read completes, UFFDIO_CONTINUE maps it in the faulting
 *            process, and every other waiter is woken to fault again
 *   MINOR    in the cache, not mapped here: UFFDIO_CONTINUE, with
 *            fault-around over neighbours that are cached too; after an
 *            arming this is the young bit coming back (file.c)
 *   WP       private mapping: pages are mapped write-protected, so the
 *            first write is seen: the page becomes the region's anon page
 *            (copy-on-write, as in the kernel), managed as anon from then
 *            on (its slot holds it like an anon region's). Shared mapping:
 *            a clean page is mapped write-protected; its first write
 *            dirties it (the dirty bit for write-back)
 *
 * Owns: the file reads in flight (struct file_read), and which faults wait
 * for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../cache/cache.h"
#include "../pgr.h"
#include "../uffd.h"
#include "core.h"

#define MMAP_LOTSAMISS	100	/* mm/filemap.c: read-around off above */

/* A read in flight: a run of pages of one inode, and the fault it serves. */
struct file_read {
	uint32_t ino;
	uint64_t first;		/* file page */
	uint32_t n;
	uint32_t client;	/* the fault to serve, PGR_NONE: readahead */
	uint64_t addr;
	bool write;
	bool stalled;		/* its fault counts as a stall (psi.c) */
} __attribute__((aligned(8)));

/* ---- faults ------------------------------------------------------------- */

/* May page @i of a shared mapping be mapped writable? Only once dirty:
 * a clean one is write-protected so its first write is seen. */
static bool map_wp(const struct pgr *p, const struct region *r, uint32_t i,
		   bool write)
{
	if (!(r->rflags & R_SHARED))
		return true;		/* private: a write is a COW */
	return !write && !(p->pages[i].pol.flags & POL_PG_DIRTY);
}

/* Can slot @off of @r be mapped by fault-around (same protection)? */
static bool around_ok(struct pgr *p, struct region *r, struct finode *fi,
		      uint32_t off, bool wp)
{
	uint64_t pg = r->pgoff + off, v = r->slot[off];
	uint32_t i;

	if (pg >= fi->map_pages || pg * PGR_PAGE >= fi->size ||
	    v != SL_EMPTY)
		return false;
	i = fi->page[pg];
	if (i == PGR_NONE || (p->pages[i].flags & (DP_READING | DP_RA_MARK)))
		return false;
	return map_wp(p, r, i, false) == wp;
}

static void read_ahead(struct pgr *p, struct client *c, uint32_t rid,
		       uint64_t from, uint64_t to);
static enum pgr_served file_miss(struct pgr *p, struct client *c,
				 uint32_t rid, uint32_t off, bool write);

/* The region's anon copy of a file page: a private mapping's write. */
static enum pgr_served cow(struct pgr *p, struct client *c, uint32_t rid,
			   uint32_t off)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	uint64_t pg = r->pgoff + off, addr = region_addr(r, off);
	struct pol_add how = { .anon = true, .dirty = true,
			       .fault = region_has_recency(r),
			       .inode = POL_NONE };
	enum pgr_served s;
	uint32_t a;
	int err;

	/*
	 * The allocation may reclaim, and reclaim must leave this page be,
	 * as the kernel's fault holds its folio: a young bit cleared now
	 * (a "dropf" on its way to the agent) would drop the copy made
	 * below with the program's write in it, and an eviction would
	 * leave the copy a hole to read.
	 */
	p->pages[fi->page[pg]].flags |= DP_COWING;
	s = pgr_alloc(p, c, &a);
	r = &p->regions[rid];
	fi = F(p, r->inode);
	p->pages[fi->page[pg]].flags &= (uint16_t)~DP_COWING;
	if (s != PGR_SERVED)
		return s;
	if (r->slot[off] & SL_FMAPPED) {
		/* Mapped write-protected: lift it, the kernel copies. */
		struct uffdio_writeprotect u = { .range = { addr, PGR_PAGE } };

		err = ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u) ? -errno : 0;
	} else {
		struct uffdio_copy cp = {
			.dst = addr, .len = PGR_PAGE,
			.src = (uintptr_t)(fi->map + pg * PGR_PAGE),
		};

		err = ioctl(c->uffd, UFFDIO_COPY, &cp) ? -errno : 0;
	}
	if (err == -EAGAIN) {
		pol_page_free(p->pol, a);
		return PGR_RETRY;
	}
	if (err && err != -EEXIST) {
		pol_page_free(p->pol, a);
		pgr_dbg("copy-on-write of 0x%llx in %d: %s",
			(unsigned long long)addr, c->pid, strerror(-err));
		pgr_wake(p, c, addr, addr + PGR_PAGE);
		return PGR_SERVED;
	}
	p->pages[a].region = rid;
	p->pages[a].off = off;
	p->pages[a].buf = PGR_NONE;
	p->pages[a].swap = PGR_NONE;
	p->pages[a].flags = 0;
	r->slot[off] = sl_of_page(a);
	r->filled = true;
	pol_page_add(p->pol, a, &how);
	c->resident++;
	pgr_count_fault(p, c, false);
	return PGR_SERVED;
}

/* Map cached page(s) with UFFDIO_CONTINUE: the faulting one and the run of
 * cached, unmapped neighbours in the fault-around window. */
static enum pgr_served map_cached(struct pgr *p, struct client *c,
				  uint32_t rid, uint32_t off, bool write)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	uint64_t pg = r->pgoff + off;
	uint32_t i = fi->page[pg], lo = off, hi = off + 1, win;
	bool wp = map_wp(p, r, i, write);
	struct uffdio_continue cont;
	struct dpage *d = &p->pages[i];

	if (write && (r->rflags & R_SHARED) &&
	    !(d->pol.flags & POL_PG_DIRTY))
		pgr_file_dirty(p, r->inode, i);
	win = p->fault_around ? p->fault_around : 1;
	if (!write && win > 1) {
		/* do_fault_around(): the aligned window holding the fault. */
		uint32_t wlo = off - (off % win), whi = wlo + win;

		if (whi > region_pages(r))
			whi = region_pages(r);
		while (lo > wlo && around_ok(p, r, fi, lo - 1, wp))
			lo--;
		while (hi < whi && around_ok(p, r, fi, hi, wp))
			hi++;
	}
	cont = (struct uffdio_continue){
		.range = { region_addr(r, lo), (uint64_t)(hi - lo) * PGR_PAGE },
		.mode = wp ? UFFDIO_CONTINUE_MODE_WP : 0,
	};
	if (ioctl(c->uffd, UFFDIO_CONTINUE, &cont)) {
		int err = errno;

		if (err == EAGAIN && cont.mapped <= 0)
			return PGR_RETRY;
		if (hi - lo > 1 || cont.mapped > 0) {
			/* Part of the window was mapped already, or it
			 * crosses a VMA boundary (ENOENT: a mprotect split
			 * the mapping): the faulting page alone. */
			cont.range = (struct uffdio_range){ region_addr(r, off),
							     PGR_PAGE };
			lo = off;
			hi = off + 1;
			err = ioctl(c->uffd, UFFDIO_CONTINUE, &cont) ? errno : 0;
			if (err == EAGAIN)
				return PGR_RETRY;
		}
		if (err == EFAULT) {
			/* Not in the memfd after all (the program punched it
			 * with MADV_REMOVE): read it again. */
			pgr_dbg("continue at 0x%llx in %d: %s",
				(unsigned long long)region_addr(r, off), c->pid,
				strerror(err));
			pgr_file_drop_page(p, fi, pg);
			return file_miss(p, c, rid, off, write);
		}
		if (err && err != EEXIST) {
			/* ENOENT: the page is no longer this userfaultfd's
			 * (unmapped, moved, exec'd): its event is on the way.
			 * Let the thread fault again on what is there now. */
			pgr_dbg("continue at 0x%llx in %d: %s",
				(unsigned long long)region_addr(r, off), c->pid,
				strerror(err));
			pgr_wake(p, c, region_addr(r, off),
				 region_addr(r, off) + PGR_PAGE);
			return PGR_SERVED;
		}
	}
	r = &p->regions[rid];
	for (uint32_t o = lo; o < hi; o++)
		r->slot[o] |= SL_FMAPPED;
	if (off > lo)	/* mapped around the fault: young, as touched */
		pgr_rec_access(p, c, region_addr(r, lo), off - lo, false);
	if (hi > off + 1)
		pgr_rec_access(p, c, region_addr(r, off + 1), hi - off - 1, false);
	if (d->flags & DP_FRESH) {
		/* Read ahead, touched for the first time: a hit, not a
		 * reference seen by the scanner's emulation. */
		d->flags &= (uint16_t)~DP_FRESH;
		pol_count(p->pol, c->group, POL_FILE_RA_HIT, 1);
	} else {
		pol_count(p->pol, c->group, POL_PGFAULT_YOUNG, 1);
		c->st.young++;
	}
	/* filemap_map_pages(): every page found cached is a hit. */
	r->mmap_miss = r->mmap_miss > hi - lo ? r->mmap_miss - (hi - lo) : 0;
	if (d->flags & DP_RA_MARK) {
		/* PG_readahead: the stream goes on, read the next window,
		 * from the end of what is cached, before it is needed
		 * (do_async_mmap_readahead(); the kernel ramps the window
		 * up to read_ahead_kb, we start there). Not for a mapping
		 * advised MADV_RANDOM. */
		uint64_t ra = pgr_file_ra_pages(p, fi), from = pg + 1;

		d->flags &= (uint16_t)~DP_RA_MARK;
		if (r->rflags & R_RAND_READ)
			ra = 0;
		while (from < fi->map_pages && from < pg + 1 + 2 * ra &&
		       fi->page[from] != PGR_NONE)
			from++;
		read_ahead(p, c, rid, from, from + ra);
	}
	pgr_count_fault(p, c, false);
	return PGR_SERVED;
}

/*
 * Read file pages [first, first + n) of @ino (not cached, descriptors
 * @pages) in one I/O, for a fault in region @rid. @c/@addr: the fault it
 * serves, or NULL. The pages join the LRU now (with their shadows: the
 * refault test), READING; in MGLRU's "fault" unless the region has no
 * recency (lru_gen_in_fault()).
 */
static int start_read(struct pgr *p, struct client *c, uint32_t rid,
		      uint64_t first, uint32_t n, const uint32_t *pages,
		      uint64_t addr, bool write, uint64_t fault_pg,
		      uint64_t mark)
{
	uint32_t ino = p->regions[rid].inode;
	bool in_fault = region_has_recency(&p->regions[rid]);
	struct finode *fi = F(p, ino);
	struct file_read *rec = pgr_xcalloc(1, sizeof(*rec));
	uint64_t len = (uint64_t)n * PGR_PAGE;

	*rec = (struct file_read){ .ino = ino, .first = first, .n = n,
		.client = c && addr ? pgr_client_id(p, c) : PGR_NONE,
		.addr = addr, .write = write};
	pgr_dbg("read inode %lu pages %llu+%u%s", (unsigned long)fi->ino,
		(unsigned long long)first, n, fi->direct ? " O_DIRECT" : "");
	/* The memfd's pages for the read, made in one call: the O_DIRECT
	 * read's pinning would make them a fault each (5 % of a stream's
	 * time). If it fails, the pinning tries again and reports. */
	fallocate(fi->memfd, FALLOC_FL_KEEP_SIZE, (off_t)(first * PGR_PAGE),
		  (off_t)len);
	if (pgr_ring_queue(p, fi->fd, fi->map + first * PGR_PAGE, len,
			   (off_t)(first * PGR_PAGE), false, PGR_IO_FILE_READ,
			   (uintptr_t)rec)) {
		free(rec);
		return -EBUSY;
	}
	/* Now, not when the loop next waits: a readahead window of many
	 * reads keeps the disk busy with this one while the next one's
	 * pages are made (5 % on a streamed file). */
	pgr_ring_submit(p);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = pages[k];
		uint64_t pg = first + k;
		struct pol_add how = { .inode = ino, .fault = in_fault,
				       .shadow = fi->shadow[pg] };
		struct dpage *d = &p->pages[i];

		d->region = ino;
		d->off = (uint32_t)pg;
		d->buf = PGR_NONE;
		d->swap = PGR_NONE;
		d->flags = DP_FILE | DP_READING |
			   (pg != fault_pg ? DP_FRESH : 0) |
			   (pg == mark ? DP_RA_MARK : 0);
		fi->shadow[pg] = 0;
		fi->page[pg] = i;
		pol_page_add(p->pol, i, &how);
		if (pg != fault_pg)
			pol_count(p->pol, p->pol_inodes[ino].group,
				  POL_FILE_RA, 1);
		else if (rec->client != PGR_NONE &&
			 (d->pol.flags & POL_PG_WORKINGSET))
			rec->stalled = true;	/* a workingset refault */
	}
	if (rec->stalled)
		pgr_psi_stall(p, c, 1);		/* the fault waits for it */
	pol_count(p->pol, c ? c->group : POL_ROOT, POL_PGPGIN, 4 * n);
	return 0;
}

/* Read the uncached pages of [from, to) (clamped to the file), in runs,
 * with free pages only: readahead never reclaims. The first page read
 * gets PG_readahead, so the stream asks for the next window as it enters
 * this one: a window is always in flight ahead of the reader. */
static void read_ahead(struct pgr *p, struct client *c, uint32_t rid,
		       uint64_t from, uint64_t to)
{
	uint32_t ino = p->regions[rid].inode, pages[PGR_MAX_AROUND];
	struct finode *fi = F(p, ino);
	uint64_t end = (fi->size + PGR_PAGE - 1) / PGR_PAGE;
	uint64_t mark = UINT64_MAX;

	if (to > end)
		to = end;
	while (from < to) {
		uint64_t first;
		uint32_t n = 0;

		while (from < to && fi->page[from] != PGR_NONE)
			from++;
		first = from;
		if (mark == UINT64_MAX)
			mark = first;
		while (from < to && fi->page[from] == PGR_NONE &&
		       n < PGR_MAX_AROUND) {
			int over = POL_ROOT;

			if (pol_page_alloc_nowait(p->pol, c->group, &pages[n],
						  &over) != POL_ALLOC_OK) {
				to = from;	/* no free page: stop */
				break;
			}
			n++;
			from++;
		}
		if (n && start_read(p, c, rid, first, n, pages, 0, false,
				    UINT64_MAX, mark)) {
			for (uint32_t k = 0; k < n; k++)
				pol_page_free(p->pol, pages[k]);
			return;
		}
	}
}

/*
 * A page not in the cache: read it, and around it (do_sync_mmap_readahead:
 * read_ahead_kb centred on the fault, a quarter of it marked for the next
 * async window; nothing around once the mapping missed MMAP_LOTSAMISS
 * times more than it hit). A mapping advised MADV_SEQUENTIAL reads
 * read_ahead_kb from the fault on, misses or not; one advised MADV_RANDOM
 * reads the page alone.
 */
static enum pgr_served file_miss(struct pgr *p, struct client *c,
				 uint32_t rid, uint32_t off, bool write)
{
	struct region *r = &p->regions[rid];
	uint32_t ino = r->inode, pages[PGR_MAX_AROUND], n = 1;
	struct finode *fi = F(p, ino);
	uint64_t pg = r->pgoff + off, first = pg, last, end, ra;
	enum pgr_served s;
	uint64_t mark = UINT64_MAX;

	s = pgr_alloc(p, c, &pages[0]);
	if (s != PGR_SERVED)
		return s;
	r = &p->regions[rid];
	ra = pgr_file_ra_pages(p, fi);
	if (ra > PGR_MAX_AROUND)
		ra = PGR_MAX_AROUND;	/* the rest comes asynchronously */
	end = (fi->size + PGR_PAGE - 1) / PGR_PAGE;
	if (r->rflags & R_RAND_READ)
		ra = 1;
	else if (!(r->rflags & R_SEQ_READ) && r->mmap_miss < MMAP_LOTSAMISS * 10)
		r->mmap_miss++;
	if (ra > 1 && ((r->rflags & R_SEQ_READ) ||
		       r->mmap_miss <= MMAP_LOTSAMISS)) {
		/* The run of uncached pages around pg in [pg - ra/2, +ra),
		 * or from pg on for a sequential mapping. */
		uint64_t lo = (r->rflags & R_SEQ_READ) ? pg :
			      pg > ra / 2 ? pg - ra / 2 : 0, hi = lo + ra;

		if (hi > end)
			hi = end;
		while (first > lo && fi->page[first - 1] == PGR_NONE)
			first--;
		last = pg + 1;
		while (last < hi && fi->page[last] == PGR_NONE)
			last++;
		n = 0;
		pages[n++] = pages[0];	/* the faulting page's, placed below */
		for (uint64_t q = first; q < last && n < ra; q++) {
			int over = POL_ROOT;

			if (q == pg)
				continue;
			if (pol_page_alloc_nowait(p->pol, c->group, &pages[n],
						  &over) != POL_ALLOC_OK) {
				/* Short of pages: just the fault. */
				for (uint32_t k = 1; k < n; k++)
					pol_page_free(p->pol, pages[k]);
				n = 1;
				first = pg;
				last = pg + 1;
				break;
			}
			n++;
		}
		if (n > 1) {
			/* pages[0] is the fault's: move it to its place. */
			uint32_t f = pages[0], at = (uint32_t)(pg - first);

			memmove(&pages[0], &pages[1], at * sizeof(pages[0]));
			pages[at] = f;
			last = first + n;
			mark = last - ra / 4 > pg ? last - ra / 4 : UINT64_MAX;
		}
	}
	if (start_read(p, c, rid, first, n, pages, region_addr(r, off), write,
		       pg, mark)) {
		for (uint32_t k = 0; k < n; k++)
			pol_page_free(p->pol, pages[k]);
		return PGR_RETRY;
	}
	c->st.swapins++;
	pgr_count_fault(p, c, true);
	return PGR_PARKED;
}

enum pgr_served pgr_file_fault(struct pgr *p, struct client *c, uint32_t rid,
			       uint32_t off, bool write, bool wp)
{
	struct region *r = &p->regions[rid];
	struct finode *fi = F(p, r->inode);
	uint64_t pg = r->pgoff + off, v = r->slot[off];
	uint64_t addr = region_addr(r, off);
	uint32_t i;

	if (v & SL_ARMING)
		return PGR_PARKED;	/* the agent's answer wakes it */
	if ((write || wp) && pgr_file_held(p, r->inode, pg))
		return PGR_PARKED;	/* the write's wpost wakes it */
	if (pg >= fi->map_pages || pg * PGR_PAGE >= fi->size) {
		/* Past the end of the file: the kernel's SIGBUS, on the
		 * retry (the memfd's size is the file's). */
		pgr_wake(p, c, addr, addr + PGR_PAGE);
		return PGR_SERVED;
	}
	i = fi->page[pg];
	if (wp) {
		struct uffdio_writeprotect u = { .range = { addr, PGR_PAGE } };

		if (!(r->rflags & R_SHARED)) {
			if (i != PGR_NONE)
				return cow(p, c, rid, off);
			/* Evicted meanwhile: it faults again as missing. */
			pgr_wake(p, c, addr, addr + PGR_PAGE);
			return PGR_SERVED;
		}
		/* The first write to a clean shared page: its dirty bit. */
		if (i != PGR_NONE &&
		    !(p->pages[i].pol.flags & POL_PG_DIRTY))
			pgr_file_dirty(p, r->inode, i);
		if (ioctl(c->uffd, UFFDIO_WRITEPROTECT, &u) && errno == EAGAIN)
			return PGR_RETRY;
		return PGR_SERVED;
	}
	if (i == PGR_NONE)
		return file_miss(p, c, rid, off, write);
	if (p->pages[i].flags & DP_READING)
		return PGR_PARKED;	/* its completion wakes it */
	if (write && !(r->rflags & R_SHARED))
		return cow(p, c, rid, off);
	return map_cached(p, c, rid, off, write);
}

void pgr_file_read_done(struct pgr *p, void *arg, int res)
{
	struct file_read *rec = arg;
	struct finode *fi = F(p, rec->ino);
	uint64_t good = res > 0 ? ((uint64_t)res + PGR_PAGE - 1) / PGR_PAGE : 0;
	bool shrank = false;

	pgr_dbg("read of inode %lu pages %llu+%u: %d", (unsigned long)fi->ino,
		(unsigned long long)rec->first, rec->n, res);

	for (uint32_t k = 0; k < rec->n; k++) {
		uint64_t pg = rec->first + k;
		uint32_t i = pg < fi->map_pages ? fi->page[pg] : PGR_NONE;

		if (i == PGR_NONE || !(p->pages[i].flags & DP_READING))
			continue;
		p->pages[i].flags &= (uint16_t)~DP_READING;
		if (k < good) {
			if (p->pages[i].flags & DP_STALE) {
				/* A write came while it was read. */
				p->pages[i].flags &= (uint16_t)~DP_STALE;
				pgr_file_patch_landed(p, rec->ino, pg);
			}
			continue;
		}
		/* Not read: an error, or the file is shorter than we knew
		 * (truncated under the mapping). Never map what we have. */
		pgr_file_punch(fi, pg, 1);
		pgr_file_drop_page(p, fi, pg);
		shrank = shrank || res >= 0;
	}
	if (res < 0)
		pgr_err("read of inode %lu at page %llu failed: %s",
			(unsigned long)fi->ino, (unsigned long long)rec->first,
			strerror(-res));
	if (shrank) {
		struct stat st;

		if (!fstat(fi->fd, &st) && (uint64_t)st.st_size < fi->size) {
			pgr_info("inode %lu shrank to %lld bytes under a "
				 "mapping: accesses past its end get SIGBUS",
				 (unsigned long)fi->ino,
				 (long long)st.st_size);
			pgr_file_resize(p, fi, (uint64_t)st.st_size);
		}
	}
	if (rec->client != PGR_NONE && p->clients[rec->client].used) {
		struct client *c = &p->clients[rec->client];
		uint32_t rid;
		struct region *r = pgr_region_find(p, c, rec->addr, &rid);

		if (rec->stalled)
			pgr_psi_stall(p, c, -1);
		if (res < 0 && r && region_is_file(r)) {
			pgr_kill(p, c, "a read of a mapped file failed "
				 "(the kernel would send SIGBUS)");
		} else if (r && region_is_file(r)) {
			enum pgr_served s = pgr_file_fault(p, c, rid,
				(uint32_t)((rec->addr - r->start) / PGR_PAGE),
				rec->write, false);

			if (s == PGR_RETRY || s == PGR_NOMEM)
				pgr_defer(p, c, rec->addr, rec->write, false,
					  s);
		}
	}
	pgr_file_wake(p, rec->ino, rec->first, rec->n);
	if (fi->gone)
		pgr_file_drop(p, rec->ino);	/* the last read it waited for */
	free(rec);
}
