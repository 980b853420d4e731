/* SPDX-License-Identifier: MIT */
/*
 * group.c - groups (the pager's memcgs): the tree, charges, and effective
 * memory.min/memory.low protection (reclaim-policy.md §7.1).
 *
 * Groups form a tree under the root group (id 0). Reclaim walks the
 * subtree of its reclaim root in pre-order, like mem_cgroup_iter().
 * Usage is hierarchical, as the kernel's page_counter: a page charged to
 * a group counts in every ancestor too.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* Next group after @id in a pre-order walk of the subtree of @root, or -1. */
int pol__group_next(const struct pol *pol, int id, int root)
{
	const struct group *g = pol__grp(pol, id);

	if (g->first_child >= 0)
		return g->first_child;
	while (id != root) {
		g = pol__grp(pol, id);
		if (g->next_sibling >= 0)
			return g->next_sibling;
		id = g->parent;
	}
	return -1;
}

bool pol__group_is_descendant(const struct pol *pol, int id, int root)
{
	while (id >= 0) {
		if (id == root)
			return true;
		id = pol__grp(pol, id)->parent;
	}
	return false;
}

uint64_t pol__lru_size(const struct pol *pol, int group, enum pol_lru lru,
		  bool hier)
{
	uint64_t nr = 0;

	for (int g = group; g >= 0; g = hier ? pol__group_next(pol, g, group) : -1) {
		nr += pol__grp(pol, g)->lv.lists[lru].nr;
		/* MGLRU's pages, split as the kernel's counters split them
		 * (a switch leaves none on the other side). */
		if (lru < POL_LRU_UNEVICTABLE)
			nr += pol__lru_gen_size(pol, g, lru);
	}
	return nr;
}

/* An event counter summed over the subtree of @group. */
uint64_t pol__item_hier(const struct pol *pol, int group, enum pol_item item)
{
	uint64_t nr = 0;

	for (int g = group; g >= 0; g = pol__group_next(pol, g, group)) {
		if (item == POL_NR_INODES)
			nr += pol__grp(pol, g)->nr_inodes;
		else if (item < POL_NR_EVENTS)
			nr += pol__grp(pol, g)->stats[item];
	}
	return nr;
}

/* Charge (nr > 0) or uncharge (nr < 0) @group and its ancestors. */
void pol__charge(struct pol *pol, int group, int64_t nr)
{
	for (int g = group; g >= 0; g = pol__grp(pol, g)->parent) {
		struct group *gr = pol__grp(pol, g);

		gr->usage += (uint64_t)nr;
		if (gr->usage > gr->peak)
			gr->peak = gr->usage;
	}
}

/* Sum over @parent's children of min(usage, setting): the kernel's
 * children_{min,low}_usage, computed when needed instead of kept up to
 * date at every charge (same values at the time they are read). */
static uint64_t children_protected(const struct pol *pol, int parent,
				   bool low)
{
	uint64_t sum = 0;

	for (int c = pol__grp(pol, parent)->first_child; c >= 0;
	     c = pol__grp(pol, c)->next_sibling) {
		const struct group *g = pol__grp(pol, c);
		uint64_t setting = low ? g->low : g->min;

		sum += g->usage < setting ? g->usage : setting;
	}
	return sum;
}

static uint64_t effective_protection(const struct pol *pol, uint64_t usage,
				     uint64_t parent_usage, uint64_t setting,
				     uint64_t parent_effective,
				     uint64_t siblings_protected)
{
	uint64_t protected = usage < setting ? usage : setting;
	uint64_t ep;

	if (siblings_protected > parent_effective)
		return protected * parent_effective / siblings_protected;
	ep = protected;
	if (!pol->t.memory_recursiveprot)
		return ep;
	/* Unclaimed protection of the parent, shared out by the part of
	 * each child's usage that its own setting does not protect. */
	if (parent_effective > siblings_protected && usage > protected &&
	    parent_usage > siblings_protected)
		ep += (parent_effective - siblings_protected) *
		      (usage - protected) / (parent_usage - siblings_protected);
	return ep;
}

/*
 * mem_cgroup_calculate_protection(): recompute @group's emin/elow as seen
 * from reclaim rooted at @root. Called top-down, so the parent's values
 * are current. The reclaim root and groups without usage keep their old
 * (possibly stale) values, as in the kernel.
 */
void pol__calculate_protection(struct pol *pol, int root, int group)
{
	struct group *g = pol__grp(pol, group);
	struct group *parent;

	if (group == root || group == POL_ROOT || !g->usage)
		return;
	parent = pol__grp(pol, g->parent);
	if (g->parent == root) {
		g->emin = g->min;
		g->elow = g->low;
		return;
	}
	g->emin = effective_protection(pol, g->usage, parent->usage, g->min,
				       parent->emin,
				       children_protected(pol, g->parent, false));
	g->elow = effective_protection(pol, g->usage, parent->usage, g->low,
				       parent->elow,
				       children_protected(pol, g->parent, true));
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= POL_GROUP_NAME)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.'))
			return false;
	}
	return true;
}

int pol_group_create(struct pol *pol, const char *name, int parent)
{
	struct group *g, *p;
	int id;

	if (!name_ok(name))
		return -EINVAL;
	if (parent < 0 || (unsigned int)parent >= pol->nr_groups ||
	    !pol__grp(pol, parent)->live)
		return -EINVAL;
	if (pol_group_find(pol, name) >= 0)
		return -EEXIST;
	if (pol->nr_groups >= POL_MAX_GROUPS)
		return -ENOSPC;
	id = (int)pol->nr_groups++;
	g = pol__grp(pol, id);
	memset(g, 0, sizeof(*g));
	strcpy(g->name, name);
	g->live = true;
	g->parent = parent;
	g->first_child = -1;
	g->max = UINT64_MAX;
	for (int l = 0; l < POL_NR_LRU; l++)
		pol__list_init(&g->lv.lists[l]);
	pol__lru_gen_init(pol, &g->lv);
	pol__list_init(&g->inode_lru);
	/* Append as the last child, so pre-order follows creation order. */
	p = pol__grp(pol, parent);
	g->next_sibling = -1;
	if (p->first_child < 0) {
		p->first_child = id;
	} else {
		int c = p->first_child;

		while (pol__grp(pol, c)->next_sibling >= 0)
			c = pol__grp(pol, c)->next_sibling;
		pol__grp(pol, c)->next_sibling = id;
	}
	pol__memcg_lru_online(pol, id);
	return id;
}

int pol_group_find(const struct pol *pol, const char *name)
{
	for (unsigned int i = 0; i < pol->nr_groups; i++)
		if (pol->groups[i].live && !strcmp(pol->groups[i].name, name))
			return (int)i;
	return -ENOENT;
}

const char *pol_group_name(const struct pol *pol, int group)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups)
		return NULL;
	return pol__grp(pol, group)->name;
}

int pol_group_parent(const struct pol *pol, int group)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups)
		return -1;
	return pol__grp(pol, group)->parent;
}

unsigned int pol_nr_groups(const struct pol *pol)
{
	return pol->nr_groups;
}

uint64_t pol_group_usage(const struct pol *pol, int group)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups)
		return 0;
	return pol__grp(pol, group)->usage;
}

uint64_t pol_group_peak(const struct pol *pol, int group)
{
	if (group < 0 || (unsigned int)group >= pol->nr_groups)
		return 0;
	return pol__grp(pol, group)->peak;
}
