/* SPDX-License-Identifier: MIT */
/*
 * inode.c - the inode cache and its shrinker (reclaim-policy.md §6.5,
 * §7.4, §7.5): the path by which reclaim can drop a whole file's page
 * cache regardless of where its pages sit on the LRU.
 *
 * An inode no one uses waits on its group's inode LRU. Each node pass
 * runs the shrinker of every group it visits, scanning
 * (freeable >> priority) * 4 / seeks inodes (seeks = 2) plus deferred
 * work. Per inode, from the tail:
 *
 *   seed 003 on and the group protected?   rotate (skip it)
 *   in use?                                 take it off the LRU
 *   I_REFERENCED?                           clear, rotate (second pass)
 *   has pages?                              drop its clean idle pages
 *                                           (no shadows), retry it
 *   empty                                   free it
 *
 * With vm.inode.keep_cached_off_lru (5.16+) an inode with pages is never
 * on the LRU, so the page-dropping branch is never reached.
 */
#include <assert.h>

#include "internal.h"

#define SHRINK_BATCH	128
#define INODE_SEEKS	2

static void lru_add_inode(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	pol__ilist_add_head(pol, &pol__grp(pol, n->group)->inode_lru, ino);
	n->flags |= POL_INODE_ON_LRU;
}

static void lru_del_inode(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	pol__ilist_del(pol, &pol__grp(pol, n->group)->inode_lru, ino);
	n->flags &= ~POL_INODE_ON_LRU;
}

void pol_inode_init(struct pol *pol, uint32_t ino, int group)
{
	struct pol_inode *n = &pol->inodes[ino];

	assert(ino < pol->nr_inodes && !(n->flags & POL_INODE_LIVE));
	n->next = n->prev = POL_NONE;
	n->nrpages = 0;
	n->users = 1;
	n->group = (uint16_t)group;
	n->flags = POL_INODE_LIVE;
	pol->nr_live_inodes++;
	pol__grp(pol, group)->nr_inodes++;
}

/* A new user. Like __iget(), the inode stays on the LRU if it is there:
 * the shrinker removes in-use inodes lazily. */
void pol_inode_get(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	n->users++;
	if (n->flags & POL_INODE_ON_LRU)
		n->flags |= POL_INODE_REFERENCED;
}

/* iput_final(): the last user gone, the inode waits on the LRU (5.16+:
 * only once it has no pages). */
void pol_inode_put(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	assert(n->users > 0);
	if (--n->users)
		return;
	if (n->flags & POL_INODE_ON_LRU) {
		n->flags |= POL_INODE_REFERENCED;
		return;
	}
	if (pol->t.keep_cached_off_lru && n->nrpages)
		return;
	lru_add_inode(pol, ino);
}

static void forget_inode(struct pol *pol, uint32_t ino)
{
	struct pol_inode *n = &pol->inodes[ino];

	if (n->flags & POL_INODE_ON_LRU)
		lru_del_inode(pol, ino);
	pol__grp(pol, n->group)->nr_inodes--;
	pol->nr_live_inodes--;
	n->flags = 0;
}

void pol_inode_release(struct pol *pol, uint32_t ino)
{
	assert(pol->inodes[ino].nrpages == 0);
	forget_inode(pol, ino);
}

/* Seed 003: may the shrinker of @group drop @ino and its page cache? */
static bool can_reclaim_inode(const struct pol *pol, const struct pol_inode *n,
			      int group, const struct scan_control *sc)
{
	const struct group *g = pol__grp(pol, group);
	uint64_t prot;

	if (!n->nrpages || group == POL_ROOT)
		return true;
	prot = g->emin;
	if (!sc->memcg_low_reclaim && g->elow > prot)
		prot = g->elow;
	return prot == 0;
}

enum isolate { ISO_REMOVED, ISO_ROTATE, ISO_RETRY };

static enum isolate inode_isolate(struct pol *pol, uint32_t ino, int group,
				  struct scan_control *sc)
{
	struct pol_inode *n = &pol->inodes[ino];
	uint32_t reap;

	if (pol->t.protect_inode_cache &&
	    !can_reclaim_inode(pol, n, group, sc))
		return ISO_ROTATE;
	if (n->users || (pol->t.keep_cached_off_lru && n->nrpages)) {
		lru_del_inode(pol, ino);
		return ISO_REMOVED;
	}
	if (n->flags & POL_INODE_REFERENCED) {
		n->flags &= ~POL_INODE_REFERENCED;
		return ISO_ROTATE;
	}
	if (n->nrpages) {
		reap = pol->be->invalidate_inode ?
		       pol->be->invalidate_inode(pol->ctx, ino) : 0;
		pol__count(pol, group, sc->kswapd ? POL_KSWAPD_INODESTEAL :
		      POL_PGINODESTEAL, reap);
		if (!sc->limit)
			sc->nr_reclaimed += reap;
		/* Pages that could not be dropped (mapped, dirty) keep it. */
		return n->nrpages ? ISO_ROTATE : ISO_RETRY;
	}
	forget_inode(pol, ino);
	if (pol->be->free_inode)
		pol->be->free_inode(pol->ctx, ino);
	return ISO_REMOVED;
}

/* prune_icache_sb(): walk up to @nr inodes from the tail. */
static uint64_t prune_icache(struct pol *pol, int group, uint64_t nr,
			     struct scan_control *sc)
{
	struct pol_list *lru = &pol__grp(pol, group)->inode_lru;
	uint64_t scanned = 0;

	while (scanned < nr && lru->tail != POL_NONE) {
		uint32_t ino = lru->tail;

		scanned++;
		switch (inode_isolate(pol, ino, group, sc)) {
		case ISO_ROTATE:
			pol__ilist_del(pol, lru, ino);
			pol__ilist_add_head(pol, lru, ino);
			break;
		case ISO_RETRY:	/* the same inode comes first again */
		case ISO_REMOVED:
			break;
		}
	}
	return scanned;
}

/* do_shrink_slab() for the inode cache of @group. */
void pol__shrink_slab(struct pol *pol, int group, struct scan_control *sc)
{
	struct group *g = pol__grp(pol, group);
	uint64_t freeable = g->inode_lru.nr * (uint64_t)pol->t.vfs_cache_pressure
			    / 100;
	uint64_t deferred = g->shrink_deferred, delta, total, scanned = 0;

	g->shrink_deferred = 0;
	if (!freeable)
		return;
	delta = (freeable >> sc->priority) * 4 / INODE_SEEKS;
	total = (deferred >> sc->priority) + delta;
	if (total > 2 * freeable)
		total = 2 * freeable;
	while (total >= SHRINK_BATCH || total >= freeable) {
		uint64_t batch = total < SHRINK_BATCH ? total : SHRINK_BATCH;
		uint64_t n = prune_icache(pol, group, batch, sc);

		pol__count(pol, group, POL_SLABS_SCANNED, n);
		total -= batch;
		scanned += batch;
		if (!n || !g->inode_lru.nr)
			break;
	}
	/* Work asked for but not done is carried to the next call. */
	deferred += delta;
	deferred = deferred > scanned ? deferred - scanned : 0;
	g->shrink_deferred = deferred < 2 * freeable ? deferred : 2 * freeable;
}

uint64_t pol_inode_shrink(struct pol *pol, int group, int priority)
{
	struct scan_control sc = {
		.priority = priority, .root = group, .kswapd = true,
	};

	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    priority < 0 || priority > DEF_PRIORITY)
		return 0;
	pol__calculate_protection(pol, POL_ROOT, group);
	pol__shrink_slab(pol, group, &sc);
	return sc.nr_reclaimed;
}
