/* SPDX-License-Identifier: MIT */
/*
 * sim.h - the simulator of `pager sim`: a trace replayed through the
 * policy library over an in-memory backend.
 *
 * The backend keeps what the kernel keeps in page tables, the page cache
 * and the swap cache, in plain arrays:
 *
 *   region (a VMA)     slot[]: its anon pages: resident (with the PTE's
 *                      mapped and young bits), or a swap slot
 *                      fmap[]: file regions: is the file page mapped here,
 *                      young
 *   inode (a file)     slot[]: page cache: resident page or shadow entry
 *   swap               per slot: references to it, the resident page
 *                      holding it (swap cache), the shadow of a slot
 *                      whose page was evicted
 *
 * Young and dirty bits are set by accesses, as hardware does; the policy
 * tests and clears young bits through the backend, as an rmap walk does,
 * and a PTE's dirty bit passes to the page when reclaim unmaps it, as in
 * try_to_unmap_one().
 */
#ifndef PGR_SIM_H
#define PGR_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../policy/pol.h"
#include "../lib/phase.h"
#include "trace.h"

/* A slot word (uint64_t): low two bits say what it holds. */
#define SLOT_EMPTY	0
#define SLOT_PAGE	1		/* page index << 32 */
#define SLOT_SHADOW	2		/* shadow << 2 (page cache only) */
#define SLOT_SWAP	3		/* swap slot << 2 (anon only) */
#define SLOT_YOUNG	4		/* anon: the PTE was accessed */
#define SLOT_MAPPED	8		/* anon: a PTE maps the page */
#define SLOT_DIRTY	16		/* anon: the PTE was written to */
#define FMAP_MAPPED	1		/* fmap: the file page is mapped here */
#define FMAP_YOUNG	2

static inline unsigned int slot_tag(uint64_t s) { return s & 3; }
static inline uint32_t slot_page(uint64_t s) { return (uint32_t)(s >> 32); }
static inline uint64_t slot_of_page(uint32_t i) { return (uint64_t)i << 32 | SLOT_PAGE; }

/* The simulator's page descriptor: the policy's, and where the page is. */
struct sim_page {
	struct pol_page pol;
	uint32_t obj;		/* anon: a region mapping it; file: its inode */
	uint32_t off;		/* page offset in that region or file */
	uint32_t swap;		/* swap slot it holds as swap cache, or T_NONE */
};
_Static_assert(sizeof(struct sim_page) == 32, "32 bytes of metadata a page");

/* A swap slot: everything a swap-in or eviction touches, in one line. */
struct sim_swap {
	uint32_t map;		/* references: page tables + swap cache */
	uint32_t cache;		/* resident page holding the slot, T_NONE */
	uint64_t shadow;	/* shadow of the evicted page, 0: none */
};

struct sim_region {
	uint64_t *slot;		/* anon pages, allocated on first use */
	uint8_t *fmap;		/* file regions */
	uint32_t npages;
	uint32_t family;	/* next region in the ring sharing anon pages */
	uint32_t proc;
	uint32_t inode;		/* T_NONE: anon */
	uint64_t foff;		/* file page offset */
	uint8_t flags;		/* R_* */
	bool live;
};

struct sim_inode {
	uint64_t *slot;		/* page cache */
	uint16_t *chunk;	/* per 64 slots: resident << 8 | shadows */
	uint32_t npages;	/* slots */
	uint32_t *mappers;	/* live regions mapping the file */
	uint32_t nr_mappers, cap_mappers;
	int group;		/* policy group charged */
	bool cached;		/* has a live policy inode */
};

struct sim_proc {
	int group;		/* policy group */
	bool live;
	bool killed;		/* by the OOM killer */
};

/* Counters the simulator keeps besides the policy's. */
struct sim_counts {
	uint64_t refs;		/* accesses through mappings and read/write */
	uint64_t misses;	/* accesses that had to bring a page in */
};

/* The replay's own counts over a phase (its policy counters are in the
 * struct pgr_phase of the same index). */
struct sim_phase_counts {
	struct sim_counts start, end;
};

struct sim_opts {
	uint64_t budget;	/* pages */
	uint64_t swap;		/* pages; 0: no swap */
	bool check;		/* pol_check() after every event */
	bool per_group;		/* also print each group's counters */
};

struct sim {
	const struct trace *t;
	struct sim_opts o;
	struct pol *pol;
	struct sim_page *pages;
	uint32_t nr_pages;
	struct pol_inode *pinodes;
	struct sim_region *regions;
	struct sim_inode *inodes;
	struct sim_proc *procs;
	int *groups;		/* trace group index -> policy group */

	/* swap */
	struct sim_swap *swap;	/* per slot */
	uint16_t *swap_chunk;	/* node counters per 64 slots */
	uint32_t *swap_free;	/* stack of free slots */
	uint32_t nr_swap_free;
	uint64_t swap_used, swap_peak;
	uint32_t swap_cap;	/* slots the arrays hold */

	/* shadow-only nodes (§5.5): a FIFO of candidates, checked lazily */
	uint64_t *node_fifo;
	size_t node_head, node_tail, node_cap;
	uint64_t nr_shadow_nodes;

	/* replay */
	bool async_writeback;	/* sim.writeback=async */
	uint32_t *wb_queue;	/* writes in flight */
	size_t nr_wb, cap_wb;
	unsigned int kswapd_delay;	/* allocations before kswapd runs */
	unsigned int kswapd_pending;
	unsigned int direct_reclaimers;	/* reclaimers at the min mark */
	struct sim_counts c;
	struct pgr_phase *phases;		/* phase.h */
	struct sim_phase_counts *phase_counts;
	size_t nr_phases, cap_phases, cap_phase_counts;
	uint64_t oom_kills;
	unsigned int expect_failures;
	char err[256];
};

/* sim.c: life cycle */
struct sim *sim_create(const struct trace *t, const struct sim_opts *o,
		       char *err, size_t len);
/* Apply one KEY=VALUE: a policy tunable or a sim.* knob. Return 0, or
 * -errno with *why set. */
int sim_set(struct sim *s, const char *kv, const char **why);
void sim_destroy(struct sim *s);

/* replay.c: run the whole trace; 0, or -1 with s->err set. */
int sim_run(struct sim *s);

/* backend.c: the backend and the memory it keeps */
extern const struct pol_backend sim_backend;
void sim_slot_set(struct sim *s, uint32_t inode, uint32_t off, uint64_t v);
void sim_swap_put(struct sim *s, uint32_t slot);
uint64_t sim_swap_claim(struct sim *s, uint32_t slot, uint32_t page);
void sim_region_free_page(struct sim *s, uint32_t r, uint32_t off);
void sim_writeback_flush(struct sim *s);
bool sim_page_mapped(const struct sim *s, uint32_t i);

/* report.c: phases, expectations, output */
void sim_phase_start(struct sim *s, const char *name);
void sim_phase_end(struct sim *s);
void sim_expect(struct sim *s, const struct t_expect *x);
/* Value of a counter by name ("refs", "misses", or a policy item),
 * for the instance or a policy group (< 0: total). Return 0 or -ENOENT. */
int sim_stat(const struct sim *s, const char *name, int group,
	     uint64_t *value);
void sim_print(const struct sim *s, FILE *out);

#endif /* PGR_SIM_H */
