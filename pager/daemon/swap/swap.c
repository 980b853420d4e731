/* SPDX-License-Identifier: MIT */
/*
 * swap.c - the swap device: a file read and written with O_DIRECT (so the
 * kernel's page cache does not hide the I/O) through the ring (ring.c),
 * and its slots.
 *
 * Each slot has a record: how many references it has (region slots that
 * point at it, plus the swap cache: a resident page still holding a copy),
 * which resident page holds it, the shadow entry of the page evicted
 * to it, and the checksum of what was written, verified when it is read
 * back: a swap file changed under the pager (or a write the device lost)
 * ends the client instead of handing it someone else's data. A slot is
 * free when its references reach zero.
 *
 * The completions go to their owners: swap-ins to the fault path,
 * write-outs to the backend (the handlers daemon.c gives the ring).
 *
 * With --swap zram there is no file: the slots' pages are compressed in
 * the daemon's memory (zram.c), and their I/O completes at once (a
 * write before pgr_swap_io() returns). With
 * --swap redis://... they are values in Redis servers (redis.c). With
 * zswap.enabled, a pool in front of the file takes what it can
 * (zswap.c): such a write is done when pgr_swap_io() returns (reclaim
 * frees the page in the same pass, as the kernel's), and a read from it
 * completes at once like zram's.
 *
 * Owns: the swap file and its slot records (references, swap cache,
 * shadow, checksum).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../base/ring.h"
#include "../pgr.h"
#include "redis.h"
#include "swap.h"
#include "zram.h"
#include "zswap.h"

#define RING_ENTRIES	256
#define CQ_ENTRIES	8192

/* The slot records, every slot free. */
static void slots_init(struct pgr *p)
{
	p->swap = pgr_xcalloc(p->o.swap_pages, sizeof(*p->swap));
	p->swap_free = pgr_xcalloc(p->o.swap_pages, sizeof(*p->swap_free));
	for (uint64_t s = p->o.swap_pages; s-- > 0;) {
		p->swap[s].cache = PGR_NONE;
		p->swap_free[p->nr_swap_free++] = (uint32_t)s;
	}
}

int pgr_swap_open(struct pgr *p)
{
	int fd, err;

	p->swap_fd = -1;
	if (p->o.redis) {
		char why[256];

		/* Checked even by --check, which sets up no swap. */
		err = pgr_redis_check(p->o.redis, why, sizeof(why));
		if (err) {
			pgr_err("--swap %s: %s", p->o.redis, why);
			return err;
		}
		if (!p->o.swap_pages)
			return 0;
		err = pgr_redis_open(p, p->o.redis, p->o.swap_pages);
		if (!err)
			slots_init(p);
		return err;
	}
	if (p->o.zram && p->o.swap_pages) {
		err = pgr_zram_open(p, (enum pgr_comp)p->o.zram,
				    p->o.swap_pages);
		if (!err)
			slots_init(p);
		return err;
	}
	if (!p->o.swap_path || !p->o.swap_pages)
		return 0;
	fd = open(p->o.swap_path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		int err = errno;

		pgr_err("cannot open swap file '%s': %s%s", p->o.swap_path,
			strerror(err), err == EINVAL ?
			" (the file system does not support O_DIRECT; give "
			"--swap a file on a disk, not tmpfs)" : "");
		return -err;
	}
	if (p->o.swap_temp)
		unlink(p->o.swap_path);	/* gone with the last descriptor */
	if (ftruncate(fd, (off_t)(p->o.swap_pages * PGR_PAGE))) {
		int err = errno;

		pgr_err("cannot size swap file '%s': %s", p->o.swap_path,
			strerror(err));
		close(fd);
		return -err;
	}
	slots_init(p);
	p->swap_fd = fd;
	return 0;
}

void pgr_swap_close(struct pgr *p)
{
	if (p->swap_fd >= 0)
		close(p->swap_fd);
	p->swap_fd = -1;
	pgr_zram_close(p);
	pgr_zswap_close(p);
	pgr_redis_close(p);
	free(p->swap);
	free(p->swap_free);
	p->swap = NULL;
	p->swap_free = NULL;
}

uint32_t pgr_swap_alloc(struct pgr *p)
{
	uint32_t s;

	if (!p->nr_swap_free)
		return PGR_NONE;
	s = p->swap_free[--p->nr_swap_free];
	p->swap[s] = (struct swap_rec){ 0, PGR_NONE, 0, 0 };
	p->swap_used++;
	return s;
}

bool pgr_swap_half_full(const struct pgr *p)
{
	return pgr_has_swap(p) && (uint64_t)p->nr_swap_free * 2 <
				  p->o.swap_pages;
}

void pgr_swap_put(struct pgr *p, uint32_t s)
{
	struct swap_rec *r = &p->swap[s];

	if (--r->map)
		return;
	if (r->shadow)
		pol_shadow_forget(p->pol, r->shadow);
	r->shadow = 0;
	pgr_zram_free(p, s);
	pgr_redis_free(p, s);
	if (!pgr_zswap_free(p, s))	/* else once its write-back lands */
		pgr_swap_release(p, s);
}

void pgr_swap_release(struct pgr *p, uint32_t s)
{
	p->swap_free[p->nr_swap_free++] = s;
	p->swap_used--;
}

/* A 64-bit checksum of a page: four multiply-xorshift lanes, so the
 * loop runs at memory speed (~0.2 us a page), next to a ~40 us read. */
static uint64_t page_sum(const char *page)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h[4] = { 1, 2, 3, 4 }, w[4];

	for (size_t o = 0; o < PGR_PAGE; o += sizeof(w)) {
		memcpy(w, page + o, sizeof(w));
		for (int l = 0; l < 4; l++) {
			h[l] = (h[l] ^ w[l]) * k;
			h[l] ^= h[l] >> 29;
		}
	}
	return (h[0] ^ (h[1] * 3) ^ (h[2] * 5) ^ (h[3] * 7)) * k;
}

bool pgr_swap_verify(const struct pgr *p, uint32_t slot, const char *buf)
{
	return page_sum(buf) == p->swap[slot].sum;
}

void pgr_swap_why(const struct pgr *p, uint32_t slot, int res, char *buf,
		  size_t len)
{
	if (p->redis && res < 0)
		pgr_redis_why(p, slot, res, buf, len);
	else
		snprintf(buf, len, "swap read failed (%s)",
			 res < 0 ? strerror(-res) : "short read");
}

int pgr_swap_io(struct pgr *p, uint32_t page, uint32_t slot, bool write)
{
	char *buf = pgr_buf(p, p->pages[page].buf);
	int err;

	if (p->redis) {
		if (!write)
			return pgr_redis_read(p, slot, page);
		err = pgr_redis_write(p, slot, page,
				      (uint64_t)pgr_page_client(p, page)->pid,
				      buf);
		if (!err)
			p->swap[slot].sum = page_sum(buf);
		return err;
	}
	if (p->zram) {
		/* A write is done when this returns, as zram's bio completes
		 * inside its submission (reclaim frees the page in the same
		 * pass); one zram refuses (zram.mem_limit) is refused here,
		 * as a full swap device refuses a slot. A read completes on
		 * the loop's next turn, like the ring's; one that fails
		 * stops the client. */
		if (write) {
			err = pgr_zram_write(p, slot, buf);
			if (err)
				return err;
			p->swap[slot].sum = page_sum(buf);
			return PGR_SWAP_DONE;
		}
		err = pgr_zram_read(p, slot, buf);
		pgr_ring_done(p, false, PGR_IO_SWAP_READ, page,
			      err ? err : PGR_PAGE);
		return 0;
	}
	if (!write && pgr_zswap_holds(p, slot)) {
		err = pgr_zswap_load(p, slot, buf);
		pgr_ring_done(p, false, PGR_IO_SWAP_READ, page,
			      err ? err : PGR_PAGE);
		return 0;
	}
	if (write && p->zswap) {
		err = pgr_zswap_store(p, slot, buf, pgr_page_client(p, page)->group);
		if (err == -EBUSY)
			return err;
		if (!err) {	/* synchronous, as zswap_store() */
			p->swap[slot].sum = page_sum(buf);
			return PGR_SWAP_STORED;
		}
		/* -ENOSPC: not taken, to the file */
	}
	err = pgr_ring_queue(p, p->swap_fd, buf, PGR_PAGE,
			     (off_t)slot * PGR_PAGE, write,
			     write ? PGR_IO_SWAP_WRITE : PGR_IO_SWAP_READ,
			     page);
	if (!err && write)
		p->swap[slot].sum = page_sum(buf);
	return err;
}
