/* SPDX-License-Identifier: MIT */
/*
 * pol.h - the kernel's page-reclaim policy as a pure library.
 *
 * The whole public API of policy/. A caller (the pager daemon, or the
 * simulator of `pager sim`) owns the page and inode descriptors and the
 * memory they stand for; the library keeps them on LRU lists, decides what
 * to scan, keep, activate and evict, detects refaults from shadow entries,
 * and counts everything under /proc/vmstat names. It touches memory only
 * through the small backend of struct pol_backend.
 *
 * Nothing here makes a syscall, reads a clock, allocates per page, prints,
 * or keeps global state: the same calls give the same decisions anywhere.
 * The library is not thread-safe; callers serialise calls on one instance.
 *
 * Kernel names are kept where they apply (shrink_inactive_list,
 * get_scan_count, workingset_refault, ...); docs/policy.md maps every
 * function to its section of the reclaim-policy reference.
 */
#ifndef POL_H
#define POL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POL_NONE	UINT32_MAX	/* "no page", "no inode", end of list */
#define POL_ROOT	0		/* group id of the root group */
#define POL_MAX_GROUPS	256
#define POL_GROUP_NAME	32		/* bytes, with the terminating NUL */

/* ---- page descriptors ------------------------------------------------- */

enum pol_lru {
	POL_LRU_INACTIVE_ANON,
	POL_LRU_ACTIVE_ANON,
	POL_LRU_INACTIVE_FILE,
	POL_LRU_ACTIVE_FILE,
	POL_LRU_UNEVICTABLE,
	POL_NR_LRU,
	POL_LRU_ISOLATED = POL_NR_LRU,	/* taken off for scanning */
	POL_LRU_FREE,			/* on the free list: not a page */
	POL_LRU_ALLOCATED,		/* allocated, not yet added */
	POL_LRU_GEN,			/* on an MGLRU generation (lru_gen.enabled) */
};

/* Page flags, struct pol_page.flags; kernel PG_ names in the comments. */
enum {
	POL_PG_REFERENCED = 1 << 0,	/* PG_referenced */
	POL_PG_WORKINGSET = 1 << 1,	/* PG_workingset */
	POL_PG_SWAPBACKED = 1 << 2,	/* PG_swapbacked: on the anon lists */
	POL_PG_DIRTY	  = 1 << 3,	/* PG_dirty: needs write-out */
	POL_PG_WRITEBACK  = 1 << 4,	/* PG_writeback: write-out in flight */
	POL_PG_RECLAIM	  = 1 << 5,	/* PG_reclaim: free when written */
	POL_PG_SWAPCACHE  = 1 << 6,	/* anon page with a copy in swap */
	POL_PG_LAZYFREE	  = 1 << 7,	/* MADV_FREE'd clean anon page */
	POL_PG_MLOCKED	  = 1 << 8,	/* VM_LOCKED: kept unevictable */
};

/*
 * One page of memory as the policy sees it: 20 bytes, lists linked by
 * 32-bit indices into the caller's descriptor array. The caller may embed
 * it in a larger descriptor (see pol_setup.page_stride).
 * Callers read these fields; only the library writes them.
 */
struct pol_page {
	uint32_t next;			/* list link: next toward the tail */
	uint32_t prev;			/* list link: previous toward the head */
	uint32_t inode;			/* file page: its inode; POL_NONE: anon */
	uint16_t group;			/* group the page is charged to */
	uint16_t flags;			/* POL_PG_* */
	uint8_t lru;			/* enum pol_lru: where the page is */
	uint8_t spare[3];		/* POL_LRU_GEN: generation, refs bits */
};
_Static_assert(sizeof(struct pol_page) <= 32, "page descriptor too big");

/*
 * The pager's inode: one cached file. Caller-owned like the pages.
 * Callers read these fields; only the library writes them.
 */
struct pol_inode {
	uint32_t next;			/* inode LRU link (unused inodes only) */
	uint32_t prev;
	uint32_t nrpages;		/* resident pages in its page cache */
	uint32_t users;			/* open files and mappings */
	uint16_t group;			/* group charged for the inode */
	uint8_t flags;			/* POL_INODE_* */
	uint8_t spare;
};

enum {
	POL_INODE_LIVE	     = 1 << 0,	/* initialised, not yet released */
	POL_INODE_ON_LRU     = 1 << 1,	/* on its group's unused-inode LRU */
	POL_INODE_REFERENCED = 1 << 2,	/* I_REFERENCED: used since last scan */
};

/* ---- the backend: the library's only way to touch memory ---------------- */

enum {
	POL_VM_EXEC	  = 1 << 0,	/* mapping is PROT_EXEC */
	POL_VM_LOCKED	  = 1 << 1,	/* mapping is mlocked */
	POL_VM_SEQUENTIAL = 1 << 2,	/* MADV_SEQUENTIAL: no recency */
};

/* What an rmap walk found (page_referenced). */
struct pol_refs {
	uint32_t young;		/* mappings whose young bit was set (now clear) */
	uint32_t vmflags;	/* POL_VM_* of those mappings (and of VM_LOCKED ones) */
	bool contended;		/* walk could not be done now: keep the page */
	bool mapped;		/* mapped by some page table at all */
	bool kept;		/* young reported but not cleared: the library
				 * calls young_clear() when the clearing
				 * matters (a backend whose clearing costs a
				 * fault, as the pager's arming does) */
	bool file_mapped;	/* its file is mmapped by anyone (legacy in_use) */
};

enum pol_writeout {
	POL_WRITEOUT_DONE,	/* written synchronously: the page is clean */
	POL_WRITEOUT_STARTED,	/* in flight: pol_writeback_done() follows */
	POL_WRITEOUT_FAILED,	/* no swap slot, or I/O refused: activate */
	POL_WRITEOUT_KEEP,	/* cannot write now: keep on the inactive list */
	POL_WRITEOUT_STORED,	/* kept compressed in memory (zswap_store()):
				 * as DONE, but no device I/O is counted (no
				 * pswpout, no pgpgout) */
};

/* Events for tracing, named after the kernel's mm_vmscan_* tracepoints. */
enum pol_event_type {
	POL_EV_KSWAPD_WAKE,
	POL_EV_KSWAPD_SLEEP,
	POL_EV_DIRECT_BEGIN,
	POL_EV_DIRECT_END,
	POL_EV_LRU_ISOLATE,
	POL_EV_SHRINK_INACTIVE,
	POL_EV_SHRINK_ACTIVE,
	POL_EV_WRITEPAGE,
	POL_EV_REFAULT,
	POL_EV_ACTIVATE,
};

struct pol_event {
	enum pol_event_type type;
	uint16_t group;
	uint8_t lru;		/* enum pol_lru, where relevant */
	int8_t priority;
	uint64_t nr[4];		/* per type: see docs/trace.md */
	uint32_t page;		/* page events */
};

/*
 * All callbacks receive the ctx of struct pol_setup. Required: young,
 * unmap, writeout, evict, swap_space. The rest may be NULL.
 */
struct pol_backend {
	/* Test and clear the young bit of every mapping of @page (arming
	 * them, so the next access is seen), and describe the mappings. */
	void (*young)(void *ctx, uint32_t page, struct pol_refs *refs);
	/* Clear the young bit young() reported as kept (refs->kept). The
	 * library calls it unless the page goes to the active list, where
	 * the next test's answer is not used (anon and non-exec file pages,
	 * with the 5.8+ cost model) and the active scan clears it anyway. */
	void (*young_clear)(void *ctx, uint32_t page);
	/* Unmap @page from every page table, keeping its data (try_to_unmap).
	 * Return 0, or -EAGAIN if it cannot be unmapped now (activate). */
	int (*unmap)(void *ctx, uint32_t page);
	/* Start writing @page to its backing store: swap for anon pages
	 * (allocating a slot if the page has none), the file for file pages. */
	enum pol_writeout (*writeout)(void *ctx, uint32_t page);
	/* @page is reclaimed: drop its data and leave @shadow (0: none) in the
	 * slot it occupied. Return 0, or -EBUSY if someone holds it (keep).
	 * On 0 the library takes the descriptor back. */
	int (*evict)(void *ctx, uint32_t page, uint64_t shadow);
	/* Optional. The end of a reclaim batch (try_to_unmap_flush()): what
	 * evict() deferred to do for many pages at once (the pager punches
	 * a run of file pages with one call) must be done now, before the
	 * descriptors it freed are handed out again. */
	void (*unmap_flush)(void *ctx);
	/* Swap slots in pages: configured in total, and free now. */
	void (*swap_space)(void *ctx, uint64_t *total, uint64_t *free);
	/* Drop @page's copy in swap (swap more than half full, §2.3 step 8)
	 * unless page tables still refer to it; return true if dropped. */
	bool (*swap_drop)(void *ctx, uint32_t page);
	/* Inode shrinker: drop @inode's clean, unmapped, idle pages (no
	 * shadows) with pol_page_free(); return how many were dropped. */
	uint32_t (*invalidate_inode)(void *ctx, uint32_t inode);
	/* Inode shrinker: @inode has no pages and no users; free it. The
	 * library has already forgotten it. */
	void (*free_inode)(void *ctx, uint32_t inode);
	/* Shadow-only slot-table nodes: how many now; drop up to @nr of them
	 * (oldest first) and return how many were dropped. */
	uint64_t (*shadow_nodes)(void *ctx);
	uint64_t (*shadow_shrink)(void *ctx, uint64_t nr);
	/* Trace event (see docs/trace.md). */
	void (*event)(void *ctx, const struct pol_event *ev);
	/* A hint: young() will soon be asked about @page. A scan hands over
	 * its whole batch first, so the backend can start the memory loads
	 * that would otherwise stall one after another. */
	void (*prefetch)(void *ctx, uint32_t page);
	/* Optional. A clock in milliseconds (MGLRU's generation ages and
	 * min_ttl_ms): the simulator's is its trace's, the daemon's the
	 * monotonic clock. Without it every age reads 0. */
	uint64_t (*now_ms)(void *ctx);
	/* Optional (MGLRU's look-around, lru_gen.look_around): the pages
	 * mapped around @page in the same mapping, within its 2 MiB (one
	 * page table) and at most 64 pages wide, @page itself left out:
	 * their indices into @out (room for 64), and how many. */
	uint32_t (*neighbours)(void *ctx, uint32_t page, uint32_t *out);
};

/*
 * lru_gen_look_around()'s window for neighbours(): page @at of a mapping
 * whose page table covers pages [*lo, *hi) of it, clipped to 64 pages
 * around @at (32 on each side, or the 64 at an end).
 */
static inline void pol_look_around_window(uint64_t at, uint64_t *lo,
					  uint64_t *hi)
{
	if (*hi - *lo <= 64)
		return;
	if (at - *lo < 32)
		*hi = *lo + 64;
	else if (*hi - at < 32)
		*lo = *hi - 64;
	else {
		*lo = at - 32;
		*hi = at + 32;
	}
}

/* ---- setup -------------------------------------------------------------- */

struct pol_setup {
	uint64_t budget;		/* pages: the RAM the policy manages */
	void *pages;			/* caller's page descriptors */
	size_t page_stride;		/* bytes between descriptors (>= 20) */
	uint32_t nr_pages;		/* descriptors, >= budget */
	struct pol_inode *inodes;	/* caller's inode descriptors */
	uint32_t nr_inodes;
	const struct pol_backend *backend;
	void *ctx;			/* passed to every backend call */
};

struct pol;

/* Create an instance; every descriptor starts free. NULL on bad setup or
 * when out of memory (the only allocations of the library are here). */
struct pol *pol_create(const struct pol_setup *setup);
void pol_destroy(struct pol *pol);

/* Change a tunable: "vm.swappiness", "use_once_mapped", "memory.low@NAME",
 * ... (docs/tunables.md). Return 0, -ENOENT for an unknown key, -EINVAL or
 * -ERANGE for a bad value; *why (if not NULL) then says what is wrong. */
int pol_set(struct pol *pol, const char *key, const char *value,
	    const char **why);
/* Current value of a tunable as text, in @buf. Return 0 or -ENOENT. */
int pol_get(const struct pol *pol, const char *key, char *buf, size_t len);
/* Tunables, for listing: name and one-line help of the i-th, or NULL. */
const char *pol_tunable_name(unsigned int i, const char **help);

/* ---- groups (memcgs) ---------------------------------------------------- */

/* Create group @name under @parent; return its id, or -EEXIST, -ENOSPC,
 * -EINVAL (bad name). The root group, POL_ROOT, is named "root". */
int pol_group_create(struct pol *pol, const char *name, int parent);
/* Id of group @name, or -ENOENT. */
int pol_group_find(const struct pol *pol, const char *name);
const char *pol_group_name(const struct pol *pol, int group);
int pol_group_parent(const struct pol *pol, int group);
unsigned int pol_nr_groups(const struct pol *pol);
/* Pages charged to @group and its descendants. */
uint64_t pol_group_usage(const struct pol *pol, int group);
/* The most pages @group and its descendants were charged at once, since
 * it was made: the kernel's memory.peak (v1: max_usage_in_bytes). */
uint64_t pol_group_peak(const struct pol *pol, int group);

/* ---- inodes ------------------------------------------------------------- */

/* Start using inode descriptor @ino, charged to @group, with one user. */
void pol_inode_init(struct pol *pol, uint32_t ino, int group);
/* A user (open file, mapping) comes or goes; an inode with no users and,
 * unless vm.inode.keep_cached_off_lru allows it, any pages, waits on its
 * group's inode LRU for the shrinker. */
void pol_inode_get(struct pol *pol, uint32_t ino);
void pol_inode_put(struct pol *pol, uint32_t ino);
/* The caller drops the inode itself (truncate-and-forget): it must have no
 * pages left. */
void pol_inode_release(struct pol *pol, uint32_t ino);
/* Run the inode shrinker of @group now as reclaim would (testing). */
uint64_t pol_inode_shrink(struct pol *pol, int group, int priority);

/* ---- page events ------------------------------------------------------- */

enum pol_alloc_result {
	POL_ALLOC_OK,
	POL_ALLOC_OOM,		/* nothing reclaimable: kill someone, retry */
	POL_ALLOC_OOM_GROUP,	/* @group is at memory.max: kill in it */
	POL_ALLOC_WAIT,		/* nowait: free pages are at min: reclaim */
	POL_ALLOC_WAIT_GROUP,	/* nowait: a group is at memory.max */
};

/*
 * Take a free page for @group, reclaiming first as the kernel allocator
 * would: group limit reclaim at memory.max, waking kswapd below the low
 * watermark, direct reclaim below min, and the OOM decision. On OK, *page
 * is the descriptor, charged to @group, to be handed to pol_page_add()
 * or pol_page_free().
 */
enum pol_alloc_result pol_page_alloc(struct pol *pol, int group,
				     uint32_t *page);

/*
 * The same for a caller whose reclaim completes asynchronously (the
 * pager: write-outs and unmaps finish after its event loop returns).
 * Never reclaims: returns POL_ALLOC_WAIT when direct reclaim is due, or
 * POL_ALLOC_WAIT_GROUP with *over set to the group at its memory.max. The
 * caller reclaims (pol_direct_reclaim(), pol_group_reclaim()), retries
 * while that frees pages, waits while its own work is in flight, and
 * otherwise asks pol_reclaim_failed() whether it is time for the OOM
 * killer. Wakes kswapd like pol_page_alloc().
 */
enum pol_alloc_result pol_page_alloc_nowait(struct pol *pol, int group,
					    uint32_t *page, int *over);
/*
 * An allocation made by reclaim itself (PF_MEMALLOC: zswap's pool, while
 * a page is written out): any free page, past the watermarks, charged to
 * @group even over its memory.max (as zswap's charge is forced). False
 * if no page is free; never reclaims, never wakes kswapd.
 */
bool pol_page_alloc_reserve(struct pol *pol, int group, uint32_t *page);
/* After a direct reclaim that freed @progress pages with nothing left in
 * flight: true when the allocator would give up and declare OOM (more
 * than vm.oom.max_no_progress rounds without progress, or the min mark
 * out of reach even if all reclaimable pages were freed). */
bool pol_reclaim_failed(struct pol *pol, uint64_t progress);

/* How a page enters the LRU (§1.3). */
struct pol_add {
	bool anon;		/* swap-backed: anon, COW copy, shmem */
	bool swapin;		/* read back from swap */
	bool swapcache;		/* keeps its copy in swap (clean until written) */
	bool write;		/* brought in for a pure write: ignore shadow */
	bool unevictable;	/* VM_LOCKED mapping */
	bool dirty;		/* needs write-out before it can be dropped */
	bool fault;		/* brought in by a page fault (MGLRU places
				 * it young, lru_gen_in_fault()); false for
				 * read() and readahead */
	uint32_t inode;		/* file page: its inode; else POL_NONE */
	uint64_t shadow;	/* the slot's shadow entry, 0 if none */
};

/* Put an allocated page on its LRU. Return true if the refault test
 * activated it (a shadow was given and its distance is in range). */
bool pol_page_add(struct pol *pol, uint32_t page, const struct pol_add *how);
/* The caller frees a page (munmap, exit, truncate): no shadow is left. */
void pol_page_free(struct pol *pol, uint32_t page);
/* The caller dropped a shadow entry without a refault (truncate, munmap,
 * exit); keeps the count of live shadows true. */
void pol_shadow_forget(struct pol *pol, uint64_t shadow);
/* mark_page_accessed: a read() of the page, or an unmap of a young mapping. */
void pol_mark_accessed(struct pol *pol, uint32_t page);
/* A write made the page dirty (true), or it was cleaned (false). */
void pol_page_dirty(struct pol *pol, uint32_t page, bool dirty);
/* A write-out of @page finished; @ok false: it failed, the page stays dirty. */
void pol_writeback_done(struct pol *pol, uint32_t page, bool ok);
/* MADV_COLD: deactivate, clear referenced. */
void pol_page_cold(struct pol *pol, uint32_t page);
/* MADV_PAGEOUT: reclaim now ignoring references; true if it was freed. */
bool pol_page_pageout(struct pol *pol, uint32_t page);
/* MADV_FREE on a clean anon page: lazily freed from the inactive file list. */
void pol_page_lazyfree(struct pol *pol, uint32_t page);
/* Mapping became mlocked / munlocked (mlock_folio(), munlock_folio()):
 * the page goes to the unevictable list or back to its evictable one,
 * counted as unevictable_pgs_*. */
void pol_page_mlock(struct pol *pol, uint32_t page, bool locked);


/* ---- reclaim ----------------------------------------------------------- */

/* Was kswapd woken (an allocation went below the low watermark) and not
 * yet run? The caller runs pol_kswapd() from its background context. */
bool pol_kswapd_wanted(const struct pol *pol);
/* One kswapd run (balance_pgdat): reclaim until free pages reach the high
 * watermark or priority 1 is exhausted. Return pages reclaimed. */
uint64_t pol_kswapd(struct pol *pol);
/* Did the last pol_kswapd() call the OOM killer (MGLRU's min_ttl_ms: no
 * group has an old enough generation)? Reading clears it; the caller
 * kills as out_of_memory() would, not while a victim is still exiting. */
bool pol_kswapd_oom(struct pol *pol);
/* After a run kswapd naps; @woken_early says whether an allocation woke it
 * during the nap. Counts kswapd_{low,high}_wmark_hit_quickly; return true
 * if kswapd may sleep until woken. */
bool pol_kswapd_sleep(struct pol *pol, bool woken_early);
/* Direct reclaim (try_to_free_pages): return pages reclaimed. */
uint64_t pol_direct_reclaim(struct pol *pol);
/* Reclaim @nr pages from @group as its memory.max would (also
 * memory.reclaim). Return pages reclaimed. */
uint64_t pol_group_reclaim(struct pol *pol, int group, uint64_t nr);
/* Scan @nr pages of one list of @group with the usual verdicts, outside
 * the priority loop: for tests and hand-written traces. */
uint64_t pol_shrink_list(struct pol *pol, int group, enum pol_lru lru,
			 uint64_t nr);
/* MGLRU: one shrink_one() of @group at @priority (0-12), as a root direct
 * reclaim meets it on the memcg LRU, and the group's move there made.
 * Return pages reclaimed (0 under the classic policy). For tests and
 * hand-written traces. */
uint64_t pol_lru_gen_shrink_one(struct pol *pol, int group, int priority);

/* ---- introspection ----------------------------------------------------- */

/* Counters and gauges, named as in /proc/vmstat (docs/counters.md). */
enum pol_item {
	/* events */
	POL_PGFAULT, POL_PGMAJFAULT, POL_PGFAULT_YOUNG,
	POL_PSWPIN, POL_PSWPOUT, POL_PGPGIN, POL_PGPGOUT,
	POL_PGSCAN_KSWAPD, POL_PGSCAN_DIRECT,
	POL_PGSTEAL_KSWAPD, POL_PGSTEAL_DIRECT,
	POL_PGSCAN_ANON, POL_PGSCAN_FILE, POL_PGSTEAL_ANON, POL_PGSTEAL_FILE,
	POL_PGREFILL, POL_PGACTIVATE, POL_PGDEACTIVATE, POL_PGROTATED,
	POL_PGLAZYFREE, POL_PGLAZYFREED,
	POL_WORKINGSET_REFAULT_ANON, POL_WORKINGSET_REFAULT_FILE,
	POL_WORKINGSET_ACTIVATE_ANON, POL_WORKINGSET_ACTIVATE_FILE,
	POL_WORKINGSET_RESTORE_ANON, POL_WORKINGSET_RESTORE_FILE,
	POL_WORKINGSET_NODERECLAIM,
	POL_ALLOCSTALL, POL_PAGEOUTRUN, POL_PGSCAN_DIRECT_THROTTLE,
	POL_KSWAPD_LOW_WMARK_HIT_QUICKLY, POL_KSWAPD_HIGH_WMARK_HIT_QUICKLY,
	POL_SLABS_SCANNED, POL_PGINODESTEAL, POL_KSWAPD_INODESTEAL,
	POL_NR_VMSCAN_IMMEDIATE_RECLAIM, POL_NR_VMSCAN_WRITE,
	POL_OOM_KILL, POL_PGALLOC, POL_PGFREE,
	POL_SWAP_RA, POL_SWAP_RA_HIT, POL_FILE_RA, POL_FILE_RA_HIT,
	POL_ZSWPIN, POL_ZSWPOUT, POL_ZSWPWB,
	/* mm/mlock.c: a page made mlocked, unlocked, put on the
	 * unevictable list, taken off it */
	POL_UNEVICTABLE_PGMLOCKED, POL_UNEVICTABLE_PGMUNLOCKED,
	POL_UNEVICTABLE_PGCULLED, POL_UNEVICTABLE_PGRESCUED,
	POL_NR_EVENTS,
	/* gauges, computed when read */
	POL_NR_FREE_PAGES = POL_NR_EVENTS,
	POL_NR_INACTIVE_ANON, POL_NR_ACTIVE_ANON,
	POL_NR_INACTIVE_FILE, POL_NR_ACTIVE_FILE, POL_NR_UNEVICTABLE,
	POL_NR_DIRTY, POL_NR_WRITEBACK, POL_NR_SHADOWS,
	POL_WORKINGSET_NODES, POL_NR_INODES,
	POL_NR_ITEMS,
};

/* Count a caller-side event (faults, swap I/O) for @group and the total. */
void pol_count(struct pol *pol, int group, enum pol_item item, uint64_t nr);
/* Name of an item as in /proc/vmstat, e.g. "pgscan_kswapd". */
const char *pol_item_name(enum pol_item item);
/* Value of @item for @group (its own pages and events, as in memory.stat;
 * hierarchical for gauges), or for the whole instance when @group < 0
 * (as in /proc/vmstat: limit reclaim is left out of the "global only"
 * counters). */
uint64_t pol_read(const struct pol *pol, int group, enum pol_item item);

/* Free pages, and the watermarks, in pages. */
uint64_t pol_free_pages(const struct pol *pol);
void pol_watermarks(const struct pol *pol, uint64_t *min, uint64_t *low,
		    uint64_t *high);
/* Descriptor @i (its stride applied). */
struct pol_page *pol_page(const struct pol *pol, uint32_t i);
/* Is page @i on an active list (MGLRU: in one of the two youngest
 * generations)? */
bool pol_page_active(const struct pol *pol, uint32_t i);

/* MGLRU: page @i's generation as its distance from max_seq (@age 0 is
 * max_seq), and whether it is its type's oldest (min_seq). False if the
 * page is on no generation. */
bool pol_page_gen(const struct pol *pol, uint32_t i, unsigned int *age,
		  bool *oldest);
/* MGLRU's /sys/kernel/debug/lru_gen (@full: lru_gen_full) into @buf;
 * return the length the whole text needs (snprintf's convention). */
size_t pol_lru_gen_show(const struct pol *pol, bool full, char *buf,
			size_t len);
/* A group's (< 0: the root's) generation numbers, as lru_gen shows them:
 * @name "lru_gen.max_seq", "lru_gen.min_seq_anon" or "lru_gen.min_seq_file";
 * or "lru_gen.memcg_young": 1 if the group is on the young generation of
 * the memcg LRU (root reclaim meets it after the old one), else 0.
 * 0, or -ENOENT for another name or group. */
int pol_lru_gen_seq(const struct pol *pol, int group, const char *name,
		    uint64_t *value);
/* Commands written to /sys/kernel/debug/lru_gen, separated by ',', ';'
 * or newlines: "+ memcg_id node_id max_gen_nr [swappiness [force_scan]]"
 * ages, "- memcg_id node_id min_gen_nr [swappiness [nr_to_reclaim]]"
 * evicts. Return 0, or the kernel's -EINVAL/-EEXIST with *why; the
 * first error stops the rest. */
int pol_lru_gen_cmd(struct pol *pol, const char *text, const char **why);

/* Verify every invariant: list links and counts, flags against lists,
 * charges, inode page counts. Return 0, or -1 with *what describing the
 * first broken one. */
int pol_check(const struct pol *pol, const char **what);

#endif /* POL_H */
