/* SPDX-License-Identifier: MIT */
/*
 * zswap.h - a compressed pool in front of the swap file (zswap.c).
 */
#ifndef PGR_DAEMON_ZSWAP_H
#define PGR_DAEMON_ZSWAP_H

#include <stdbool.h>
#include <stdint.h>

struct pgr;

/* The tag of a write-back's completion (PGR_IO_SWAP_WRITE's arg): page
 * indices stay below it. */
#define PGR_ZSWAP_WB	(1ULL << 40)

/* /sys/kernel/debug/zswap/, under its names. */
struct pgr_zswap_stat {
	uint64_t stored_pages;		/* entries in the pool */
	uint64_t pool_pages;		/* pages the pool takes (charged) */
	uint64_t compressed_bytes;	/* what its entries take */
	uint64_t pool_limit_hit;	/* stores that found the pool full */
	uint64_t reject_alloc_fail;	/* no free page for the pool */
	uint64_t reject_compress_poor;	/* did not compress below a page */
	uint64_t decompress_fail;
	uint64_t written_back_pages;	/* moved to the swap file */
	uint64_t wb_skipped;		/* write-backs skipped: swap cache */
};

/* zswap.enabled=Y: the pool is set up at the first one (once the swap
 * file is open); -ENODEV without a swap file (zram and Redis take pages
 * without it). */
int pgr_zswap_enable(struct pgr *p, bool on);
void pgr_zswap_close(struct pgr *p);
/*
 * zswap_store(): keep @page, written to @slot, compressed in the pool,
 * charged to @group. What @slot held in the pool before goes first,
 * stored or not. 0: stored (no I/O); -ENOSPC: not stored (disabled, the
 * pool full, no page for it, or the page does not compress): write it
 * to the file; -EBUSY: @slot's old entry is being written back: try
 * later.
 */
int pgr_zswap_store(struct pgr *p, uint32_t slot, const char *page,
		    int group);
/* Is @slot's page in the pool (or on its way to the file)? */
bool pgr_zswap_holds(const struct pgr *p, uint32_t slot);
/* zswap_load(): @slot's page into @page, counted as zswpin: 0, or -EIO.
 * The entry stays until the slot is freed (the fault path frees it:
 * exclusive loads). */
int pgr_zswap_load(struct pgr *p, uint32_t slot, char *page);
/* @slot is freed: its entry goes. True if its write-back is in flight:
 * the slot may be used again only once pgr_zswap_wb_done() frees it. */
bool pgr_zswap_free(struct pgr *p, uint32_t slot);
/* The shrink worker: while the pool is over its accept threshold after
 * filling up, write its oldest entries back to the file. */
void pgr_zswap_shrink(struct pgr *p);
/* A write-back's completion (@arg carries PGR_ZSWAP_WB). */
void pgr_zswap_wb_done(struct pgr *p, uint64_t arg, int res);
/* NULL before zswap was first enabled. */
const struct pgr_zswap_stat *pgr_zswap_stat(const struct pgr *p);
/* The pool's bytes charged to @group (memory.stat's zswap), and the
 * bytes of the pages it holds for it (zswapped). */
void pgr_zswap_group(const struct pgr *p, int group, uint64_t *zswap,
		     uint64_t *zswapped);

#endif /* PGR_DAEMON_ZSWAP_H */
