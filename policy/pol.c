/* SPDX-License-Identifier: MIT */
/*
 * pol.c - creating and destroying an instance, and pol_check(), which
 * recomputes every count and link from scratch and compares.
 *
 * The only allocations of the library are made here, sized at creation:
 * the instance and its group table. Page and inode descriptors belong to
 * the caller.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct pol *pol_create(const struct pol_setup *s)
{
	struct pol *pol;
	struct group *root;

	if (!s || !s->pages || s->page_stride < sizeof(struct pol_page) ||
	    !s->nr_pages || s->nr_pages == POL_NONE || s->budget < 64 ||
	    s->budget > s->nr_pages || !s->backend || !s->backend->young ||
	    !s->backend->unmap || !s->backend->writeout ||
	    !s->backend->evict || !s->backend->swap_space ||
	    (s->nr_inodes && !s->inodes))
		return NULL;
	pol = calloc(1, sizeof(*pol));
	if (!pol)
		return NULL;
	pol->groups = calloc(POL_MAX_GROUPS, sizeof(*pol->groups));
	if (!pol->groups) {
		free(pol);
		return NULL;
	}
	pol->pages = s->pages;
	pol->stride = s->page_stride;
	pol->nr_pages = s->nr_pages;
	pol->inodes = s->inodes;
	pol->nr_inodes = s->nr_inodes;
	pol->be = s->backend;
	pol->ctx = s->ctx;
	pol->budget = s->budget;
	pol__tunables_init(&pol->t);
	pol__setup_watermarks(pol);

	pol__list_init(&pol->free_list);
	pol->nr_allocated = s->nr_pages;
	for (uint32_t i = s->nr_pages; i-- > 0;)
		pol__put_free(pol, i);
	for (uint32_t i = 0; i < s->nr_inodes; i++)
		memset(&s->inodes[i], 0, sizeof(s->inodes[i]));

	root = &pol->groups[POL_ROOT];
	strcpy(root->name, "root");
	root->live = true;
	root->parent = -1;
	root->first_child = -1;
	root->next_sibling = -1;
	root->max = UINT64_MAX;
	for (int l = 0; l < POL_NR_LRU; l++)
		pol__list_init(&root->lv.lists[l]);
	pol__lru_gen_init(pol, &root->lv);
	pol__list_init(&root->inode_lru);
	pol->nr_groups = 1;
	pol__memcg_lru_init(pol);
	pol__memcg_lru_online(pol, POL_ROOT);
	return pol;
}

void pol_destroy(struct pol *pol)
{
	if (!pol)
		return;
	free(pol->groups);
	free(pol);
}

/* ---- pol_check ---------------------------------------------------------- */

#define FAIL(msg) do { *what = (msg); return -1; } while (0)

static int check_list_gen(const struct pol *pol, const struct pol_list *l,
			  uint8_t lru, int group, unsigned int gen,
			  const char **what);

static int check_list(const struct pol *pol, const struct pol_list *l,
		      uint8_t lru, int group, const char **what)
{
	return check_list_gen(pol, l, lru, group, 0, what);
}

/* MGLRU: each generation list holds pages of its type; the type's
 * generations run from min_seq to max_seq, two to four of them. */
static int check_gens(const struct pol *pol, int group, const char **what)
{
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;

	for (int type = 0; type < 2; type++) {
		uint64_t nr = g->max_seq - g->min_seq[type] + 1;

		if (g->min_seq[type] > g->max_seq || nr < MIN_NR_GENS ||
		    nr > MAX_NR_GENS)
			FAIL("generations out of range");
	}
	for (unsigned int gen = 0; gen < MAX_NR_GENS; gen++) {
		for (int type = 0; type < 2; type++) {
			const struct pol_list *l = &g->lists[gen][type];

			if (check_list_gen(pol, l, POL_LRU_GEN, group, gen, what))
				return -1;
			for (uint32_t i = l->head; i != POL_NONE;
			     i = pg(pol, i)->next)
				if (page_is_file(pg(pol, i)) != (type == TYPE_FILE))
					FAIL("page on a generation of the wrong type");
		}
	}
	return 0;
}

static int check_list_gen(const struct pol *pol, const struct pol_list *l,
			  uint8_t lru, int group, unsigned int gen,
			  const char **what)
{
	uint32_t prev = POL_NONE;
	uint64_t n = 0;

	for (uint32_t i = l->head; i != POL_NONE; i = pg(pol, i)->next) {
		const struct pol_page *p = pg(pol, i);

		if (i >= pol->nr_pages)
			FAIL("list link out of range");
		if (p->prev != prev)
			FAIL("list prev link does not match");
		if (p->lru != lru)
			FAIL("page on a list other than its lru field says");
		if (group >= 0 && p->group != group)
			FAIL("page on another group's list");
		if (lru < POL_LRU_UNEVICTABLE &&
		    (lru_type((enum pol_lru)lru) == TYPE_FILE) != page_is_file(p))
			FAIL("page on a list of the wrong type");
		if (lru == POL_LRU_GEN && p->spare[0] != gen)
			FAIL("page on a generation other than its own");
		if (lru == POL_LRU_UNEVICTABLE && !(p->flags & POL_PG_MLOCKED))
			FAIL("unevictable page without mlock");
		if (++n > pol->nr_pages)
			FAIL("list has a cycle");
		prev = i;
	}
	if (prev != l->tail)
		FAIL("list tail does not match");
	if (n != l->nr)
		FAIL("list length does not match");
	return 0;
}

static int check_pages(const struct pol *pol, const char **what)
{
	uint64_t allocated = 0, dirty = 0, writeback = 0;

	for (uint32_t i = 0; i < pol->nr_pages; i++) {
		const struct pol_page *p = pg(pol, i);

		if (p->lru == POL_LRU_FREE)
			continue;
		if (p->lru == POL_LRU_ISOLATED)
			FAIL("page left isolated");
		allocated++;
		dirty += !!(p->flags & POL_PG_DIRTY);
		writeback += !!(p->flags & POL_PG_WRITEBACK);
		if (p->group >= pol->nr_groups || !pol__grp(pol, p->group)->live)
			FAIL("page charged to no live group");
		if (p->inode != POL_NONE &&
		    (p->inode >= pol->nr_inodes ||
		     !(pol->inodes[p->inode].flags & POL_INODE_LIVE)))
			FAIL("page of a dead inode");
		if ((p->flags & POL_PG_SWAPBACKED) && p->inode != POL_NONE)
			FAIL("anon page with an inode");
	}
	if (allocated != pol->nr_allocated)
		FAIL("allocated pages do not match");
	if (dirty != pol->nr_dirty)
		FAIL("dirty count does not match");
	if (writeback != pol->nr_writeback)
		FAIL("writeback count does not match");
	return 0;
}

static int check_groups(const struct pol *pol, const char **what)
{
	for (unsigned int g = 0; g < pol->nr_groups; g++) {
		const struct group *gr = pol__grp(pol, (int)g);
		uint64_t usage = 0;

		if (!gr->live)
			continue;
		for (int l = 0; l < POL_NR_LRU; l++)
			if (check_list(pol, &gr->lv.lists[l], (uint8_t)l,
				       (int)g, what))
				return -1;
		if (check_gens(pol, (int)g, what))
			return -1;
		for (uint32_t i = 0; i < pol->nr_pages; i++) {
			const struct pol_page *p = pg(pol, i);

			if (p->lru != POL_LRU_FREE &&
			    pol__group_is_descendant(pol, p->group, (int)g))
				usage++;
		}
		if (usage != gr->usage)
			FAIL("group usage does not match its pages");
	}
	return 0;
}

/* The memcg LRU: every group once, on the old or the young generation,
 * the counts per generation true, the links both ways. */
static int check_memcg_lru(const struct pol *pol, const char **what)
{
	const struct memcg_lru *m = &pol->memcg_lru;
	unsigned int seen = 0;

	for (unsigned int gen = 0; gen < MEMCG_NR_GENS; gen++) {
		unsigned int nr = 0;

		for (unsigned int bin = 0; bin < MEMCG_NR_BINS; bin++) {
			int prev = -1;

			for (int id = m->fifo[gen][bin].head; id >= 0;
			     id = pol__grp(pol, id)->mlru_next) {
				const struct group *g = pol__grp(pol, id);

				if (g->mlru_prev != prev || g->mlru_gen != gen ||
				    g->mlru_bin != bin || ++nr > pol->nr_groups)
					FAIL("memcg LRU links are broken");
				prev = id;
			}
			if (m->fifo[gen][bin].tail != prev)
				FAIL("memcg LRU tail is wrong");
		}
		if (nr != m->nr_memcgs[gen])
			FAIL("memcg LRU count does not match");
		if (nr && gen != m->seq % MEMCG_NR_GENS &&
		    gen != (m->seq + 1) % MEMCG_NR_GENS)
			FAIL("a group is on a stale memcg generation");
		seen += nr;
	}
	if (seen != pol->nr_groups)
		FAIL("memcg LRU does not hold every group once");
	return 0;
}

static int check_inodes(const struct pol *pol, const char **what)
{
	uint64_t live = 0;

	/* Quadratic, so only for test-sized instances. */
	if ((uint64_t)pol->nr_inodes * pol->nr_pages > 50000000)
		return 0;
	for (uint32_t n = 0; n < pol->nr_inodes; n++) {
		const struct pol_inode *in = &pol->inodes[n];
		uint32_t pages = 0;
		bool found = false;

		if (!(in->flags & POL_INODE_LIVE))
			continue;
		live++;
		for (uint32_t i = 0; i < pol->nr_pages; i++)
			pages += pg(pol, i)->lru != POL_LRU_FREE &&
				 pg(pol, i)->inode == n;
		if (pages != in->nrpages)
			FAIL("inode page count does not match");
		for (uint32_t j = pol__grp(pol, in->group)->inode_lru.head;
		     j != POL_NONE; j = pol->inodes[j].next)
			found |= j == n;
		if (found != !!(in->flags & POL_INODE_ON_LRU))
			FAIL("inode LRU membership does not match its flag");
	}
	if (live != pol->nr_live_inodes)
		FAIL("live inode count does not match");
	return 0;
}

int pol_check(const struct pol *pol, const char **what)
{
	const char *dummy;

	if (!what)
		what = &dummy;
	*what = NULL;
	if (check_list(pol, &pol->free_list, POL_LRU_FREE, -1, what))
		return -1;
	if (pol->free_list.nr + pol->nr_allocated != pol->nr_pages)
		FAIL("free and allocated pages do not add up");
	if (check_pages(pol, what) || check_groups(pol, what) ||
	    check_memcg_lru(pol, what) || check_inodes(pol, what))
		return -1;
	return 0;
}
