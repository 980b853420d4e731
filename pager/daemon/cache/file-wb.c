/* SPDX-License-Identifier: MIT */
/*
 * file-wb.c - write-back of the pager's page cache: a dirty page of a
 * shared mapping goes to the file, through the ring, when reclaim takes
 * it (pgr_file_writeout()), when a program reads the range, syncs or
 * writes it (file-write.c), on msync, munmap and exit, and at shutdown.
 *
 * Every shared mapping of the page is write-protected before its copy is
 * taken, so the page is clean from then on and a store meanwhile faults
 * and dirties it again. A flush that finds the page dirty again while
 * its write is still in flight has it written once more when that one
 * lands, before the flush's drain is answered (the kernel's WB_SYNC_ALL
 * waits on writeback and writes the page again): the bytes in flight
 * are older than the store.
 *
 * Owns: each inode's write-backs in flight and the drains waiting on
 * them (struct finode's wb_inflight, drains).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../lib/compat.h"
#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/base.h"
#include "../pgr.h"
#include "../uffd.h"
#include "cache.h"

/* Write-protect page @pg of @ino in every shared mapping that has it
 * mapped, but @except; false if one could not be done now. */
static bool protect_all(struct pgr *p, uint32_t ino, uint64_t pg,
			uint32_t except)
{
	struct finode *fi = F(p, ino);
	bool ok = true;

	for (size_t k = 0; k < fi->nr_mappers; k++) {
		struct region *r = &p->regions[fi->mappers[k]];
		uint32_t off;

		if (fi->mappers[k] == except || !(r->rflags & R_SHARED) ||
		    !covers(r, pg, &off) || sl_tag(r->slot[off]) != SL_EMPTY ||
		    !(r->slot[off] & SL_FMAPPED))
			continue;
		{
			struct uffdio_writeprotect u = {
				.range = { region_addr(r, off), PGR_PAGE },
				.mode = UFFDIO_WRITEPROTECT_MODE_WP,
			};

			if (ioctl(p->clients[r->client].uffd,
				  UFFDIO_WRITEPROTECT, &u))
				ok = false;
		}
	}
	return ok;
}

/* pwrite page @pg from the cache to the file, and wait: only at shutdown
 * (pgr_files_release()), when no fault is served any more. */
static int write_page(struct finode *fi, uint64_t pg)
{
	uint64_t off = pg * PGR_PAGE, len = PGR_PAGE;
	ssize_t n;

	if (fi->wfd < 0)
		return -EBADF;
	if (off >= fi->size)
		return 0;
	if (off + len > fi->size)
		len = fi->size - off;
	n = pwrite(fi->wfd, fi->map + off, len, (off_t)off);
	if (n < 0)
		return -errno;
	return (uint64_t)n == len ? 0 : -EIO;
}

/*
 * Write-back goes through the ring, never a pwrite on the loop: a
 * client's write(2) to the file holds the inode's lock while its source
 * buffer faults, and that fault waits for the daemon; a pwrite of the
 * daemon's would wait for the lock. The page is clean from the start
 * (a store meanwhile re-dirties it: it is write-protected), and is
 * neither evicted nor invalidated nor written again until its write
 * lands (DP_WB). @reclaim: the policy started it (POL_WRITEOUT_STARTED),
 * and hears of its end. 0, or -EBUSY (in flight already, or the ring is
 * full: it stays dirty).
 */
static int start_write(struct pgr *p, uint32_t ino, uint64_t pg,
		       bool clean, bool reclaim)
{
	struct finode *fi = F(p, ino);
	uint32_t i = fi->page[pg];
	struct dpage *d = &p->pages[i];
	uint64_t off = pg * PGR_PAGE, len = PGR_PAGE;

	if (d->flags & DP_WB)
		return -EBUSY;
	if (fi->wfd < 0)
		return -EBADF;
	if (off >= fi->size) {
		if (!reclaim)
			pol_page_dirty(p->pol, i, false); /* past the end */
		return 0;
	}
	if (off + len > fi->size)
		len = fi->size - off;
	if (pgr_ring_queue(p, fi->wfd, fi->map + off, len, (off_t)off, true,
			   PGR_IO_FILE_WRITE, (uint64_t)ino << 40 | pg))
		return -EBUSY;
	d->flags |= DP_WB | (reclaim ? DP_WB_POL : 0);
	if (!reclaim && clean)
		pol_page_dirty(p->pol, i, false);
	fi->wb_inflight++;
	return 0;
}

/*
 * Write-back errors, as the kernel's errseq: a failed write-back is
 * recorded in the inode (wb_err, wb_err_seq), and told once to each
 * client that asks after it, by msync(MS_SYNC) or fsync of the file
 * (pgr_file_wb_check()); a client's mapping samples the count when it is
 * made, as an open file does (pgr_file_wb_sample()). A failed write
 * leaves the page dirty, so it is written again; the error is not lost
 * meanwhile.
 */
static void wb_failed(struct finode *fi, uint64_t pg, int res)
{
	/* Logged when it starts or changes: a full disk fails every page. */
	if (fi->wb_err != -res)
		pgr_err("write-back of inode %lu page %llu failed: %s (the "
			"program is told at its msync or fsync; further "
			"failures of the inode are not logged)",
			(unsigned long)fi->ino, (unsigned long long)pg,
			strerror(-res));
	fi->wb_err = -res;
	fi->wb_err_seq++;
}

static struct wb_seen *seen_of(struct pgr *p, struct client *c, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	for (size_t k = 0; k < c->nr_wb_seen; k++)
		if (c->wb_seen[k].ino == ino) {
			if (c->wb_seen[k].gen != fi->gen)
				c->wb_seen[k] = (struct wb_seen){ ino,
							fi->gen, 0 };
			return &c->wb_seen[k];
		}
	pgr_grow(&c->wb_seen, &c->cap_wb_seen, c->nr_wb_seen + 1,
		 sizeof(*c->wb_seen));
	c->wb_seen[c->nr_wb_seen] = (struct wb_seen){ ino, fi->gen, 0 };
	return &c->wb_seen[c->nr_wb_seen++];
}

void pgr_file_wb_sample(struct pgr *p, struct client *c, uint32_t ino)
{
	struct wb_seen *s = seen_of(p, c, ino);

	if (!s->seq)
		s->seq = F(p, ino)->wb_err_seq;
}

int pgr_file_wb_check(struct pgr *p, struct client *c, uint32_t ino)
{
	struct wb_seen *s = seen_of(p, c, ino);
	struct finode *fi = F(p, ino);

	if (s->seq == fi->wb_err_seq)
		return 0;
	s->seq = fi->wb_err_seq;
	return fi->wb_err;
}

void pgr_file_write_done(struct pgr *p, uint64_t arg, int res)
{
	uint32_t ino = (uint32_t)(arg >> 40);
	uint64_t pg = arg & ((1ull << 40) - 1);
	struct finode *fi = F(p, ino);
	uint32_t i = pg < fi->map_pages ? fi->page[pg] : PGR_NONE;
	bool ok = res >= 0, again;

	if (!ok)
		wb_failed(fi, pg, res);
	if (i != PGR_NONE && (p->pages[i].flags & DP_WB)) {
		struct dpage *d = &p->pages[i];

		if (d->flags & DP_WB_POL)
			pol_writeback_done(p->pol, i, ok);
		else if (!ok)
			pol_page_dirty(p->pol, i, true);
		else
			pol_count(p->pol, d->pol.group, POL_PGPGOUT, 4);
		again = d->flags & DP_WB_AGAIN;
		d->flags &= (uint16_t)~(DP_WB | DP_WB_POL | DP_WB_AGAIN);
		if (pg * PGR_PAGE >= fi->size)	/* truncated meanwhile */
			pgr_file_drop_page(p, fi, pg);
		else if (again && (d->pol.flags & POL_PG_DIRTY))
			/* Before wb_inflight drops: the drains that wait
			 * for the flush wait for this write too. */
			start_write(p, ino, pg, protect_all(p, ino, pg,
							     PGR_NONE), false);
	}
	if (--fi->wb_inflight)
		return;
	/* Every write-back of the inode has landed: what waited goes on. */
	while (fi->nr_drains)
		pgr_drain_put(p, fi->drains[--fi->nr_drains]);
	if (fi->gone)
		pgr_file_drop(p, ino);
}

void pgr_drain_put(struct pgr *p, struct pgr_drain *d)
{
	if (!--d->refs)
		d->done(p, d);
}

void pgr_file_drain(struct pgr *p, uint32_t ino, struct pgr_drain *d)
{
	struct finode *fi = F(p, ino);

	if (!fi->wb_inflight)
		return;
	pgr_grow(&fi->drains, &fi->cap_drains, fi->nr_drains + 1,
		 sizeof(*fi->drains));
	fi->drains[fi->nr_drains++] = d;
	d->refs++;
}

void pgr_file_flush(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to,
		    uint32_t except)
{
	struct finode *fi = F(p, ino);

	if (to > fi->map_pages)
		to = fi->map_pages;
	for (uint64_t pg = from; pg < to; pg++) {
		uint32_t i = fi->page[pg];

		if (i == PGR_NONE || !(p->pages[i].pol.flags & POL_PG_DIRTY))
			continue;
		if (p->pages[i].flags & DP_WB) {
			/* A store came after the copy in flight was taken:
			 * as the kernel's WB_SYNC_ALL waits on writeback and
			 * writes the page again. */
			p->pages[i].flags |= DP_WB_AGAIN;
			continue;
		}
		/* Where a mapping could not be write-protected now, the
		 * page stays dirty: a store may land after the copy. */
		start_write(p, ino, pg, protect_all(p, ino, pg, except),
			    false);
	}
}

/* ---- the backend: reclaim's write-out ---------------------------------- */

enum pol_writeout pgr_file_writeout(struct pgr *p, uint32_t i)
{
	struct dpage *d = &p->pages[i];
	struct finode *fi = F(p, d->region);
	int err;

	if (fi->wfd < 0)
		return POL_WRITEOUT_FAILED;
	if ((d->flags & DP_WB) || !protect_all(p, d->region, d->off, PGR_NONE))
		return POL_WRITEOUT_KEEP;
	err = start_write(p, d->region, d->off, true, true);
	if (err == -EBUSY)
		return POL_WRITEOUT_KEEP;
	return err ? POL_WRITEOUT_FAILED : POL_WRITEOUT_STARTED;
}

/* ---- shutdown ------------------------------------------------------------ */

/* The dirty pages of @ino to the file, waiting for each: no client is
 * served any more. */
void pgr_file_flush_now(struct pgr *p, uint32_t ino)
{
	struct finode *fi = F(p, ino);

	for (uint64_t pg = 0; pg < fi->map_pages; pg++) {
		uint32_t i = fi->page[pg];
		int err;

		if (i == PGR_NONE || !(p->pages[i].pol.flags & POL_PG_DIRTY))
			continue;
		err = write_page(fi, pg);
		if (err)
			wb_failed(fi, pg, err);
	}
}
