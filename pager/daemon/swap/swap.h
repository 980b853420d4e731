/* SPDX-License-Identifier: MIT */
/*
 * swap.h - what swap.c offers the rest of the daemon: the swap device and
 * its slots.
 */
#ifndef PGR_DAEMON_SWAP_H
#define PGR_DAEMON_SWAP_H

#include "../pgr.h"

int pgr_swap_open(struct pgr *p);
void pgr_swap_close(struct pgr *p);
uint32_t pgr_swap_alloc(struct pgr *p);
void pgr_swap_put(struct pgr *p, uint32_t slot);
/* A slot whose last reference went is free again (pgr_swap_put(), or
 * zswap once a write-back to it landed). */
void pgr_swap_release(struct pgr *p, uint32_t slot);
/* vm_swap_full(): more than half the slots used. */
bool pgr_swap_half_full(const struct pgr *p);
/* Does @buf, read from @slot, hold what was written there? */
bool pgr_swap_verify(const struct pgr *p, uint32_t slot, const char *buf);
/* Why a read of @slot ended with @res, for the process it stops. */
void pgr_swap_why(const struct pgr *p, uint32_t slot, int res, char *buf,
		  size_t len);
/* Queue an O_DIRECT read or write of @page's buffer from/to @slot; it is
 * submitted before the loop next waits (a read from zram or zswap: done
 * at once, its completion handed on at the next reap). 0; PGR_SWAP_DONE:
 * a write zram took, done already (no completion follows);
 * PGR_SWAP_STORED: the same, into zswap (no device I/O); -EBUSY: the ring is full, or zswap
 * is writing the slot back; -ENOMEM: zram refused the write
 * (zram.mem_limit), or no Redis server answers. */
#define PGR_SWAP_DONE	1
#define PGR_SWAP_STORED	2
int pgr_swap_io(struct pgr *p, uint32_t page, uint32_t slot, bool write);

#endif /* PGR_DAEMON_SWAP_H */
