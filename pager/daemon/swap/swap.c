/* SPDX-License-Identifier: MIT */
/*
 * swap.c - the swap device's slots, and the stores that keep their bytes
 * (store.h): the file (swap-file.c), zram (zram.c) or Redis (redis.c),
 * as --swap names it, and zswap's pool in front of the file (zswap.c)
 * once zswap.enabled.
 *
 * Each slot has a record: how many references it has (region slots that
 * point at it, plus the swap cache: a resident page still holding a copy),
 * which resident page holds it, the shadow entry of the page evicted
 * to it, and the checksum of what was written, verified when it is read
 * back: a swap file changed under the pager (or a write the device lost)
 * ends the client instead of handing it someone else's data. A slot is
 * free when its references reach zero.
 *
 * A write goes to the front first; what it does not take goes to the
 * device. A read goes to the front if it holds the slot, else to the
 * device. The completions go through the ring to their owners:
 * swap-ins to the fault path, write-outs to the backend (the handlers
 * daemon.c gives the ring), a store's own I/O back to the store. zram's
 * and zswap's writes are done when pgr_swap_io() returns (reclaim frees
 * the page in the same pass, as the kernel's), and their reads complete
 * at once, handed on at the ring's next reap.
 *
 * Owns: the slot records (references, swap cache, shadow, checksum), and
 * which stores serve them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/log.h"
#include "../../lib/util.h"
#include "../pgr.h"
#include "store.h"
#include "swap.h"

#define DEVICE(name) &pgr_swap_##name,
static const struct pgr_swap_store *const devices[] = {
	PGR_SWAP_DEVICES(DEVICE)
};
#undef DEVICE
#define NR_DEVICES (sizeof(devices) / sizeof(devices[0]))

/* The device @spec names; NULL with the reason in @why and -errno in
 * @err if none takes it. */
static const struct pgr_swap_store *device_of(const char *spec, char *why,
					       size_t len, int *err)
{
	for (size_t k = 0; k < NR_DEVICES; k++) {
		int r = devices[k]->match(spec, why, len);

		if (r < 0) {
			*err = r;
			return NULL;
		}
		if (r > 0)
			return devices[k];
	}
	snprintf(why, len, "no swap device by that name");
	*err = -EINVAL;
	return NULL;
}

int pgr_swap_check(const char *spec, char *why, size_t len)
{
	int err = 0;

	return device_of(spec, why, len, &err) ? 0 : err;
}

bool pgr_swap_network(const char *spec)
{
	char why[256];
	int err;
	const struct pgr_swap_store *dev = spec ? device_of(spec, why,
							    sizeof(why),
							    &err) : NULL;

	return dev && dev->network;
}

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
	const struct pgr_swap_store *dev;
	char why[256];
	int err = 0;

	if (!p->o.swap)
		return 0;
	/* Checked even by --check, which sets up no slots; zswap.enabled
	 * asks which device it is. */
	dev = device_of(p->o.swap, why, sizeof(why), &err);
	if (!dev) {
		pgr_err("--swap %s: %s", p->o.swap, why);
		return err;
	}
	p->swap_dev = dev;
	if (!p->o.swap_pages)
		return 0;
	err = dev->open(p, p->o.swap, p->o.swap_pages);
	if (!err)
		slots_init(p);
	return err;
}

void pgr_swap_close(struct pgr *p)
{
	if (p->swap_dev)
		p->swap_dev->close(p);
	if (p->swap_front)
		p->swap_front->close(p);
	p->swap_dev = p->swap_front = NULL;
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
	bool busy;

	if (--r->map)
		return;
	if (r->shadow)
		pol_shadow_forget(p->pol, r->shadow);
	r->shadow = 0;
	busy = p->swap_front && p->swap_front->free(p, s);
	busy |= p->swap_dev->free(p, s);
	if (!busy)	/* else once its write-back lands */
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
	if (res < 0 && p->swap_dev->why)
		p->swap_dev->why(p, slot, res, buf, len);
	else
		snprintf(buf, len, "swap read failed (%s)",
			 res < 0 ? strerror(-res) : "short read");
}

/* Does @st answer @op for @slot (a store without the operation: no)? */
#define ASK(st, op, ...) ((st) && (st)->op && (st)->op(__VA_ARGS__))

bool pgr_swap_exclusive(const struct pgr *p, uint32_t slot)
{
	return ASK(p->swap_front, exclusive, p, slot) ||
	       ASK(p->swap_dev, exclusive, p, slot);
}

int pgr_swap_io(struct pgr *p, uint32_t page, uint32_t slot, bool write)
{
	const struct pgr_swap_store *front = p->swap_front, *dev = p->swap_dev;
	struct pgr_swap_io io = {
		.slot = slot, .tag = page, .buf = pgr_buf(p, p->pages[page].buf),
	};
	int err;

	if (write) {
		const struct client *c = pgr_page_client(p, page);

		io.owner = (uint64_t)c->pid;
		io.group = c->group;
		err = front ? front->write(p, &io) : -ENOSPC;
		if (err == -ENOSPC)	/* not taken: to the device */
			err = dev->write(p, &io);
		if (err >= 0)
			p->swap[slot].sum = page_sum(io.buf);
		return err;
	}
	err = front ? front->read(p, &io) : -ENOENT;
	return err == -ENOENT ? dev->read(p, &io) : err;
}

/* The store whose own I/O (PGR_SWAP_OWN_IO) completed: the front's if it
 * does any, else the device's. */
void pgr_swap_own_done(struct pgr *p, uint64_t tag, int res)
{
	const struct pgr_swap_store *st = p->swap_front &&
					  p->swap_front->own_done ?
					  p->swap_front : p->swap_dev;

	st->own_done(p, tag, res);
}

/* Run @op of the device, then of the front, where they have it. */
#define EACH(op, ...) do {						\
	if (p->swap_dev && p->swap_dev->op)				\
		p->swap_dev->op(__VA_ARGS__);				\
	if (p->swap_front && p->swap_front->op)				\
		p->swap_front->op(__VA_ARGS__);				\
} while (0)

void pgr_swap_flush(struct pgr *p)
{
	EACH(flush, p);
}

void pgr_swap_reap(struct pgr *p)
{
	EACH(reap, p);
}

void pgr_swap_background(struct pgr *p)
{
	EACH(background, p);
}

void pgr_swap_stat(const struct pgr *p, pgr_swap_line_fn *line, void *ctx)
{
	EACH(stat, p, line, ctx);
}

void pgr_swap_stat_group(const struct pgr *p, int group,
			 pgr_swap_line_fn *line, void *ctx)
{
	EACH(stat_group, p, group, line, ctx);
}

void pgr_swap_stat_pid(const struct pgr *p, uint64_t owner,
		       pgr_swap_line_fn *line, void *ctx)
{
	EACH(stat_pid, p, owner, line, ctx);
}

bool pgr_swap_awaited(const struct pgr *p)
{
	return ASK(p->swap_dev, awaited, p) || ASK(p->swap_front, awaited, p);
}

uint64_t pgr_swap_lost_count(const struct pgr *p)
{
	const struct pgr_swap_store *dev = p->swap_dev;

	return dev && dev->lost_count ? dev->lost_count(p) : 0;
}

bool pgr_swap_slot_lost(const struct pgr *p, uint32_t slot)
{
	return ASK(p->swap_dev, slot_lost, p, slot);
}
