/* SPDX-License-Identifier: MIT */
/*
 * zram.h - swap compressed in the daemon's memory (zram.c).
 */
#ifndef PGR_DAEMON_ZRAM_H
#define PGR_DAEMON_ZRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "compress.h"

struct pgr;


/* zram's mm_stat, in bytes and pages as /sys/block/zram0/mm_stat has
 * them; and its io_stat's failures. */
struct pgr_zram_stat {
	uint64_t orig_data_size;	/* bytes of the pages stored */
	uint64_t compr_data_size;	/* bytes they take compressed */
	uint64_t mem_used_total;	/* bytes the allocator gave for them */
	uint64_t mem_used_max;
	uint64_t same_pages;		/* stored as one word */
	uint64_t huge_pages;		/* stored whole */
	uint64_t huge_pages_since;	/* ever */
	uint64_t failed_writes;		/* refused: zram.mem_limit */
	uint64_t failed_reads;
};

/* A store of @slots slots, empty, compressed by @comp. */
int pgr_zram_open(struct pgr *p, enum pgr_comp comp, uint64_t slots);
void pgr_zram_close(struct pgr *p);
/* Store @page in @slot (what it held is dropped): 0, or -ENOMEM
 * (zram.mem_limit, or no memory). */
int pgr_zram_write(struct pgr *p, uint32_t slot, const char *page);
/* @slot's page into @page: 0, or -EIO (never written, or corrupt). */
int pgr_zram_read(struct pgr *p, uint32_t slot, char *page);
/* @slot is free: its bytes go. */
void pgr_zram_free(struct pgr *p, uint32_t slot);
/* NULL without zram. */
const struct pgr_zram_stat *pgr_zram_stat(const struct pgr *p);
enum pgr_comp pgr_zram_comp(const struct pgr *p);

#endif /* PGR_DAEMON_ZRAM_H */
