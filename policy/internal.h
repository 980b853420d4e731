/* SPDX-License-Identifier: MIT */
/*
 * internal.h - declarations shared by the files of policy/, not by callers.
 *
 * One struct pol holds everything: the caller's descriptors, the groups
 * with their lruvecs, the tunables and the global counters. Groups are
 * kept in an array indexed by id; the tree is first_child/next_sibling
 * links, walked in pre-order as the kernel's mem_cgroup_iter() does.
 */
#ifndef POL_INTERNAL_H
#define POL_INTERNAL_H

#include "pol.h"

#define DEF_PRIORITY		12
#define SWAP_CLUSTER_MAX	32
#define MAX_RECLAIM_RETRIES	16

enum { TYPE_ANON = 0, TYPE_FILE = 1 };

/* A list of page (or inode) indices: head is the most recent end. */
struct pol_list {
	uint32_t head;
	uint32_t tail;
	uint64_t nr;
};

/* MGLRU (lru_gen.c): ../shared/docs/mglru.md §1.1, §1.2. */
#define MAX_NR_GENS	4
#define MIN_NR_GENS	2
#define MAX_NR_TIERS	4
#define LRU_REFS_WIDTH	2
#define MIN_LRU_BATCH	64
#define MAX_LRU_BATCH	4096
#define MIN_SWAPPINESS	0
#define MAX_SWAPPINESS	200
#define LRU_GEN_CORE	1

/* struct lru_gen_folio, one history generation (NR_HIST_GENS 1). */
struct lru_gen {
	uint64_t max_seq;		/* youngest, both types */
	uint64_t min_seq[2];		/* oldest, per type */
	uint64_t timestamps[MAX_NR_GENS];	/* birth (backend now_ms) */
	struct pol_list lists[MAX_NR_GENS][2];	/* by seq % 4, type */
	uint64_t avg_refaulted[2][MAX_NR_TIERS];
	uint64_t avg_total[2][MAX_NR_TIERS];
	uint64_t protected[2][MAX_NR_TIERS];
	uint64_t evicted[2][MAX_NR_TIERS];
	uint64_t refaulted[2][MAX_NR_TIERS];
};

/* MGLRU's memcg LRU (memcg_lru.c): lists of group ids. */
#define MEMCG_NR_GENS	3
#define MEMCG_NR_BINS	8

struct memcg_bin {
	int head, tail;			/* -1: empty */
};

struct memcg_lru {
	uint64_t seq;			/* the old generation is seq % 3 */
	unsigned int nr_memcgs[MEMCG_NR_GENS];
	struct memcg_bin fifo[MEMCG_NR_GENS][MEMCG_NR_BINS];
	uint32_t random;		/* xorshift32 state: the bins */
};

struct lruvec {
	struct pol_list lists[POL_NR_LRU];
	struct lru_gen lrugen;
	uint64_t nonresident_age;	/* §5.1: evictions + activations */
	uint64_t refaults[2];		/* WORKINGSET_ACTIVATE at last snapshot */
	uint64_t anon_cost;		/* §4.3, decayed */
	uint64_t file_cost;
	uint64_t recent_scanned[2];	/* §4.2 rotation model, decayed */
	uint64_t recent_rotated[2];
};

struct group {
	char name[POL_GROUP_NAME];
	bool live;
	int parent;			/* -1 for the root */
	int first_child;		/* -1: none */
	int next_sibling;		/* -1: none */
	struct lruvec lv;
	uint64_t usage;			/* pages charged, hierarchical */
	uint64_t peak;			/* the most usage was (memory.peak) */
	uint64_t min, low, max;		/* memory.min/low/max, pages */
	uint64_t emin, elow;		/* effective protection, last computed */
	struct pol_list inode_lru;	/* unused inodes, for the shrinker */
	uint64_t nr_inodes;		/* live inodes charged here */
	uint64_t shrink_deferred;	/* inode shrinker work carried over */
	uint64_t stats[POL_NR_EVENTS];	/* own events, as memory.stat */
	int mlru_next, mlru_prev;	/* its memcg LRU bin's list */
	uint8_t mlru_gen, mlru_bin;	/* where it is on the memcg LRU */
	uint8_t mlru_seg;		/* MEMCG_LRU_HEAD, _TAIL or 0 */
};

/* vm.balance.mode: where the refault rule of §3 lives. */
enum balance_mode { BAL_LEGACY419, BAL_SEED000, BAL_ROOT55 };
/* vm.balance.cost_model, §4.2/§4.3. */
enum cost_model { COST_ROTATION57, COST_IO58, COST_IO_ROT62 };
/* vm.workingset.size_rule, §5.3. */
enum ws_rule { WS_FILE_ACTIVE47, WS_ANON58, WS_FULL59 };
/* vm.min_filelist_mode, §8. */
enum minfile_mode { MINFILE_SHRINK_LIST2010, MINFILE_SCAN_ANON_CROS };

struct tunables {
	int swappiness;			/* vm.swappiness, 0..200 */
	int watermark_scale_factor;	/* 1..3000 */
	int64_t min_free_kbytes;	/* -1: derived from the budget */
	int laptop_mode;
	int vfs_cache_pressure;
	int64_t min_filelist_kbytes;	/* seed 004 */
	int min_filelist_mode;		/* enum minfile_mode */
	int min_filelist_counts_reclaimable;
	int oom_max_no_progress;
	int anon_starts_active;		/* vm.lru.anon_starts_active, ≤5.8 */
	int swapin_activate;		/* vm.lru.swapin_activate, ≤5.8 */
	int use_once_mapped;		/* seed 001 */
	int exec_first_use;
	int shared_multi_ref;
	int anon_use_once;
	int balance_mode;		/* enum balance_mode; seed 000 */
	int inactive_ratio;		/* 0: the kernel formula */
	int cost_model;			/* enum cost_model */
	int cache_trim_mode;
	int cache_trim_retry;		/* seed 002 */
	int kswapd_cache_trim_retry;
	int64_t lru_size_skew;		/* vm.debug.lru_size_skew, pages */
	int writeback_from_reclaim;
	int proportional_latch;		/* ≤5.10 shrink_lruvec adjustment */
	int ws_size_rule;		/* enum ws_rule */
	int ws_legacy_age;
	int64_t ws_max_shadows;		/* -1: the budget */
	int ws_ignore_write_refaults;
	int protect_inode_cache;	/* seed 003 */
	int keep_cached_off_lru;	/* 5.16 inode rule */
	int memory_recursiveprot;
	int lru_gen_enabled;		/* LRU_GEN_CORE: MGLRU is the policy */
	int lru_gen_min_ttl_ms;		/* 0: off */
	int lru_gen_look_around;
};

struct pol {
	char *pages;			/* caller's descriptors */
	size_t stride;
	uint32_t nr_pages;
	struct pol_inode *inodes;
	uint32_t nr_inodes;
	const struct pol_backend *be;
	void *ctx;

	uint64_t budget;		/* pages */
	uint64_t nr_allocated;		/* descriptors in use */
	struct pol_list free_list;
	uint64_t wmark_min, wmark_low, wmark_high;

	struct tunables t;
	struct group *groups;		/* POL_MAX_GROUPS of them */
	unsigned int nr_groups;
	uint64_t total[POL_NR_EVENTS];	/* /proc/vmstat view */

	uint64_t nr_shadows;		/* live shadow entries */
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_live_inodes;
	struct memcg_lru memcg_lru;	/* MGLRU's root reclaim order */

	bool kswapd_woken;
	bool kswapd_oom;		/* MGLRU's min_ttl_ms asked for a kill */
	unsigned int kswapd_failures;
	unsigned int no_progress_loops;	/* allocator retries, §6.6 */
};

/* The reclaimer's state for one invocation (struct scan_control). */
struct scan_control {
	uint64_t nr_to_reclaim;
	int priority;
	int root;			/* reclaim root group */
	bool kswapd;			/* reclaimer is kswapd */
	bool limit;			/* group limit reclaim (cgroup_reclaim) */
	bool may_writepage;
	bool may_unmap;
	bool may_swap;
	bool ignore_references;		/* MADV_PAGEOUT */
	bool memcg_low_reclaim;		/* ignore memory.low this pass */
	bool memcg_low_skipped;		/* a group was skipped for its low */
	bool force_deactivate;
	bool skipped_deactivate;
	bool cache_trim_mode;
	bool cache_trim_mode_failed;	/* a trim pass reclaimed nothing */
	bool no_cache_trim_mode;	/* kswapd's retry turned it off */
	bool file_is_tiny;
	bool may_deactivate[2];
	uint64_t anon_cost, file_cost;	/* root's costs at pass start */
	uint64_t nr_scanned;		/* inactive pages scanned */
	uint64_t nr_reclaimed;
	uint64_t nr_pageout;		/* pages written by this reclaimer */
	int swappiness;			/* 1 + an override (lru_gen
					 * commands); 0: vm.swappiness */
};

/* Descriptor access. */
static inline struct pol_page *pg(const struct pol *pol, uint32_t i)
{
	return (struct pol_page *)(pol->pages + (size_t)i * pol->stride);
}

static inline bool page_is_file(const struct pol_page *p)
{
	return !(p->flags & POL_PG_SWAPBACKED);
}

static inline int lru_type(enum pol_lru lru)
{
	return lru >= POL_LRU_INACTIVE_FILE;
}

static inline bool lru_is_active(enum pol_lru lru)
{
	return lru == POL_LRU_ACTIVE_ANON || lru == POL_LRU_ACTIVE_FILE;
}

static inline enum pol_lru lru_of(int type, bool active)
{
	return (enum pol_lru)(type * 2 + active);
}

/* list.c */
void pol__list_init(struct pol_list *l);
void pol__list_add_head(struct pol *pol, struct pol_list *l, uint32_t i);
void pol__list_add_tail(struct pol *pol, struct pol_list *l, uint32_t i);
void pol__list_del(struct pol *pol, struct pol_list *l, uint32_t i);
void pol__ilist_add_head(struct pol *pol, struct pol_list *l, uint32_t i);
void pol__ilist_add_tail(struct pol *pol, struct pol_list *l, uint32_t i);
void pol__ilist_del(struct pol *pol, struct pol_list *l, uint32_t i);

/* stats.c */
static inline void pol__count(struct pol *pol, int group, enum pol_item item,
			      uint64_t nr)
{
	pol->groups[group].stats[item] += nr;
	pol->total[item] += nr;
}
void pol__count_global(struct pol *pol, const struct scan_control *sc, int group,
		  enum pol_item item, uint64_t nr);
void pol__emit(struct pol *pol, const struct pol_event *ev);

/* group.c */
static inline struct group *pol__grp(const struct pol *pol, int id)
{
	return &pol->groups[id];
}
int pol__group_next(const struct pol *pol, int id, int root);
bool pol__group_is_descendant(const struct pol *pol, int id, int root);
uint64_t pol__lru_size(const struct pol *pol, int group, enum pol_lru lru,
		  bool hier);
uint64_t pol__item_hier(const struct pol *pol, int group, enum pol_item item);
void pol__charge(struct pol *pol, int group, int64_t nr);
void pol__calculate_protection(struct pol *pol, int root, int group);

/* lru.c */
void pol__lru_add(struct pol *pol, uint32_t i, enum pol_lru lru, bool tail);
void pol__lru_del(struct pol *pol, uint32_t i);
void pol__lru_move(struct pol *pol, uint32_t i, enum pol_lru lru, bool tail);
/* Add page @i, mlocked, to the unevictable list (counted). */
void pol__add_mlocked(struct pol *pol, uint32_t i);
void pol__put_free(struct pol *pol, uint32_t i);
void pol__page_release(struct pol *pol, uint32_t i);
void pol__activate_page(struct pol *pol, uint32_t i);

/* workingset.c */
#define POL__SHADOW_MASK	((UINT64_C(1) << 44) - 1)	/* clock bits */
uint64_t pol__pack_shadow(uint64_t ts, int group, bool workingset);
void pol__unpack_shadow(uint64_t shadow, uint64_t *ts, int *group,
			bool *workingset);
uint64_t pol__workingset_eviction(struct pol *pol, uint32_t i, int root);
void pol__workingset_age(struct pol *pol, int group, uint64_t nr);
bool pol__workingset_refault(struct pol *pol, uint32_t i, uint64_t shadow);
void pol__note_cost(struct pol *pol, int group, int type, uint64_t io,
	       uint64_t rotated);
void pol__shadow_shrink(struct pol *pol);

/* scan.c's steps, shared with lru_gen_evict.c */
struct scan_stat {
	uint64_t nr_activate[2];
	uint64_t nr_pageout;
	uint64_t nr_immediate;
};
enum outcome { O_ACTIVATE, O_KEEP, O_FREED, O_UNEVICTABLE, O_KEEP_TAIL };

/* refs.c */
enum verdict { V_ACTIVATE, V_KEEP, V_RECLAIM, V_RECLAIM_CLEAN };
enum verdict pol__check_references(const struct pol *pol, struct pol_page *p,
			      const struct pol_refs *r);
bool pol__in_use(const struct pol_page *p, const struct pol_refs *r);

/* scan.c */
uint64_t pol__shrink_inactive_list(struct pol *pol, int group, enum pol_lru lru,
			      uint64_t nr, struct scan_control *sc);
void pol__shrink_active_list(struct pol *pol, int group, enum pol_lru lru,
			uint64_t nr, struct scan_control *sc);

enum outcome pol__reclaim_one(struct pol *pol, uint32_t i,
			      struct scan_control *sc, struct scan_stat *st);
void pol__activate_prepare(struct pol *pol, uint32_t i);
enum pol_writeout pol__writeout(struct pol *pol, uint32_t i, bool reclaim);

/* lru_gen.c, lru_gen_evict.c */
bool pol__lru_gen_enabled(const struct pol *pol);
void pol__lru_gen_init(struct pol *pol, struct lruvec *lv);
unsigned int pol__gen_from_seq(uint64_t seq);
unsigned int pol__page_refs(const struct pol_page *p);
unsigned int pol__tier_from_refs(unsigned int refs, bool workingset);
uint64_t pol__page_seq(const struct pol *pol, const struct pol_page *p,
		       bool active, bool reclaiming);
void pol__gen_add(struct pol *pol, uint32_t i, bool active, bool reclaiming);
void pol__gen_del(struct pol *pol, uint32_t i);
void pol__gen_move(struct pol *pol, uint32_t i, unsigned int gen, bool tail);
void pol__lru_gen_inc_refs(struct pol_page *p);
bool pol__lru_gen_set_refs(struct pol_page *p);
void pol__lru_gen_clear_refs(struct pol_page *p);
void pol__reset_ctrl_pos(struct lru_gen *g, int type, bool carryover);
unsigned int pol__page_inc_gen(struct pol *pol, uint32_t i, bool reclaiming);
bool pol__inc_max_seq(struct pol *pol, int group, uint64_t seq,
		      int swappiness);
uint64_t pol__lru_gen_eviction(struct pol *pol, uint32_t i);
void pol__lru_gen_refault(struct pol *pol, uint32_t i, uint64_t shadow,
			  bool fault);
uint64_t pol__lru_gen_size(const struct pol *pol, int group, enum pol_lru lru);
int pol__lru_gen_set_enabled(struct pol *pol, const char *value,
			     const char **why);
bool pol__lru_gen_shrink_lruvec(struct pol *pol, int group,
				struct scan_control *sc);
void pol__lru_gen_shrink_node(struct pol *pol, struct scan_control *sc);
void pol__lru_gen_age_node(struct pol *pol, struct scan_control *sc);
void pol__lru_gen_look_around(struct pol *pol, uint32_t i,
			      const struct scan_control *sc);
uint64_t pol__lru_gen_reclaim_list(struct pol *pol, struct pol_list *list,
				   struct scan_control *sc);
int pol__lru_gen_swappiness(const struct pol *pol, const struct scan_control *sc);
uint64_t pol__evictable_min_seq(const struct lru_gen *g, int s);
uint64_t pol__lru_gen_evict(struct pol *pol, int group,
			    struct scan_control *sc, int s);
uint64_t pol__lru_gen_now(const struct pol *pol);
bool pol__lru_gen_should_abort(const struct pol *pol,
			       const struct scan_control *sc);
bool pol__lru_gen_is_sizable(const struct pol *pol, int group,
			     const struct scan_control *sc);

/* memcg_lru.c */
void pol__memcg_lru_init(struct pol *pol);
void pol__memcg_lru_online(struct pol *pol, int id);
void pol__memcg_lru_young(struct pol *pol, int id);
bool pol__memcg_lru_is_young(const struct pol *pol, int id);
void pol__memcg_lru_shrink_many(struct pol *pol, struct scan_control *sc);

/* balance.c */
bool pol__inactive_is_low(const struct pol *pol, int group, int type, bool hier);
bool pol__legacy_inactive_list_is_low(const struct pol *pol, int group, int type,
				 bool actual_reclaim);
bool pol__can_reclaim_anon(const struct pol *pol, const struct scan_control *sc);
bool pol__anon_aging_possible(const struct pol *pol);
bool pol__file_is_low(const struct pol *pol, const struct scan_control *sc);
void pol__get_scan_count(struct pol *pol, int group, struct scan_control *sc,
		    uint64_t nr[POL_NR_LRU]);

/* reclaim.c */
void pol__shrink_node(struct pol *pol, struct scan_control *sc);
/* @group below its effective memory.min (@low: memory.low) in reclaim
 * rooted at @root; the root and the reclaim root never are. */
bool pol__below(const struct pol *pol, int root, int group, bool low);
uint64_t pol__do_try_to_free_pages(struct pol *pol, struct scan_control *sc);
void pol__snapshot_refaults(struct pol *pol, int root);

/* inode.c */
void pol__shrink_slab(struct pol *pol, int group, struct scan_control *sc);

/* watermark.c */
void pol__setup_watermarks(struct pol *pol);

/* tunables.c */
void pol__tunables_init(struct tunables *t);
/* @v in decimal into @buf (cut to fit, NUL-terminated). */
void pol__fmt_u64(char *buf, size_t len, uint64_t v);

#endif /* POL_INTERNAL_H */
