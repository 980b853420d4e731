/* SPDX-License-Identifier: MIT */
/*
 * swap.h - what the swap part offers the rest of the daemon: the swap
 * device and its slots (swap.c), whichever store keeps the bytes
 * (store.h, part-private), and the stores' knobs and lines.
 */
#ifndef PGR_DAEMON_SWAP_H
#define PGR_DAEMON_SWAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compress.h"

struct pgr;

/* One line of `pager stat`, printf-like. */
typedef void pgr_swap_line_fn(void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- the device ------------------------------------------------------- */

/* Is @spec (`--swap`'s argument) a device's, and well formed? 0, or
 * -EINVAL with the reason in @why. */
int pgr_swap_check(const char *spec, char *why, size_t len);
/* Does the device @spec names talk to other hosts (sockets)? */
bool pgr_swap_network(const char *spec);
/* Open the device p->o.swap names, with p->o.swap_pages slots: 0 or
 * -errno, said in the log. No slots (`--check`): checked, not opened. */
int pgr_swap_open(struct pgr *p);
void pgr_swap_close(struct pgr *p);

/* ---- slots -------------------------------------------------------------- */

uint32_t pgr_swap_alloc(struct pgr *p);
void pgr_swap_put(struct pgr *p, uint32_t slot);
/* A slot whose last reference went is free again (pgr_swap_put(), or a
 * store once its write-back to it landed). */
void pgr_swap_release(struct pgr *p, uint32_t slot);
/* vm_swap_full(): more than half the slots used. */
bool pgr_swap_half_full(const struct pgr *p);
/* Does @buf, read from @slot, hold what was written there? */
bool pgr_swap_verify(const struct pgr *p, uint32_t slot, const char *buf);
/* Why a read of @slot ended with @res, for the process it stops. */
void pgr_swap_why(const struct pgr *p, uint32_t slot, int res, char *buf,
		  size_t len);
/* Is a read of @slot exclusive (from zswap): the page comes back dirty,
 * with no swap cache? Asked before the read. */
bool pgr_swap_exclusive(const struct pgr *p, uint32_t slot);

/* ---- I/O ------------------------------------------------------------------ */

/* Queue an O_DIRECT read or write of @page's buffer from/to @slot; it is
 * submitted before the loop next waits (a read from zram or zswap: done
 * at once, its completion handed on at the next reap). 0; PGR_SWAP_DONE:
 * a write zram took, done already (no completion follows);
 * PGR_SWAP_STORED: the same, into zswap (no device I/O); -EBUSY: the
 * ring is full, or zswap is writing the slot back; -ENOMEM: zram refused
 * the write (zram.mem_limit), or no Redis server answers. */
#define PGR_SWAP_DONE	1
#define PGR_SWAP_STORED	2
int pgr_swap_io(struct pgr *p, uint32_t page, uint32_t slot, bool write);
/* The tag of a store's own I/O (PGR_IO_SWAP_WRITE's arg, zswap's
 * write-backs): page indices stay below it. */
#define PGR_SWAP_OWN_IO	(1ULL << 40)
void pgr_swap_own_done(struct pgr *p, uint64_t tag, int res);
/* The ring's submit and its check for completions: what the store has
 * queued goes now; the answers that came are handed on. */
void pgr_swap_flush(struct pgr *p);
void pgr_swap_reap(struct pgr *p);
/* The stores' background work (zswap's shrink worker). */
void pgr_swap_background(struct pgr *p);
/* Are writes out that the store may still answer (redis.timeout_ms)? */
bool pgr_swap_awaited(const struct pgr *p);
/* Counts the store's losses (a Redis server gone; 0 without): when it
 * moves, the processes with a pgr_swap_slot_lost() slot are stopped. */
uint64_t pgr_swap_lost_count(const struct pgr *p);
bool pgr_swap_slot_lost(const struct pgr *p, uint32_t slot);

/* ---- knobs and lines ------------------------------------------------------ */

/* zswap.enabled: the pool is set up at the first Y (once the swap file
 * is open); -ENODEV without a swap file (zram and Redis take pages
 * without it). */
int pgr_zswap_enable(struct pgr *p, bool on);
/* `pager stat`'s lines of the stores: theirs, one memory cgroup's, one
 * process's. */
void pgr_swap_stat(const struct pgr *p, pgr_swap_line_fn *line, void *ctx);
void pgr_swap_stat_group(const struct pgr *p, int group,
			 pgr_swap_line_fn *line, void *ctx);
void pgr_swap_stat_pid(const struct pgr *p, uint64_t owner,
		       pgr_swap_line_fn *line, void *ctx);

#endif /* PGR_DAEMON_SWAP_H */
