/* SPDX-License-Identifier: MIT */
/*
 * test-groups.c - groups and their protection (reclaim-policy.md §6.4,
 * §7): effective memory.low/min down a tree, with and without
 * memory_recursiveprot, the skip and the low-reclaim retry, hard
 * memory.min, memory.max limit reclaim with the "global only" counter
 * rule, and a group's own OOM.
 */
#include "../policy/internal.h"
#include "t-sim.h"
#include "tap.h"

static void fill(struct pol *pol, int group, int n, bool anon)
{
	for (int k = 0; k < n; k++) {
		struct pol_add how = { .anon = anon, .inode = POL_NONE };
		uint32_t i;

		if (pol_page_alloc(pol, group, &i) != POL_ALLOC_OK) {
			t_ok(0, "allocation in group %d", group);
			return;
		}
		pol_page_add(pol, i, &how);
	}
}

static void set_pages(struct pol *pol, const char *key, const char *group,
		      unsigned int pages)
{
	char k[64], v[32];

	snprintf(k, sizeof(k), "%s@%s", key, group);
	snprintf(v, sizeof(v), "%uK", pages * 4);
	if (pol_set(pol, k, v, NULL))
		t_ok(0, "set %s", k);
}

static void protect_tree(struct pol *pol)
{
	for (int g = 0; g >= 0; g = pol__group_next(pol, g, POL_ROOT))
		pol__calculate_protection(pol, POL_ROOT, g);
}

/* §7.1 on a tree: root -> a (low 100) -> a1 (low 60, 80 used),
 * a2 (low 60, 50 used): the children claim 110 of a's 100, so each gets
 * its share of 100. */
static void test_effective(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 1024, 1024);
	int a = pol_group_create(pol, "a", POL_ROOT);
	int a1 = pol_group_create(pol, "a1", a);
	int a2 = pol_group_create(pol, "a2", a);

	fill(pol, a1, 80, false);
	fill(pol, a2, 50, false);
	set_pages(pol, "memory.low", "a", 100);
	set_pages(pol, "memory.low", "a1", 60);
	set_pages(pol, "memory.low", "a2", 60);
	protect_tree(pol);
	t_eq(pol__grp(pol, a)->elow, 100, "a child of the root gets its low");
	t_eq(pol__grp(pol, a1)->elow, 60 * 100 / 110,
	     "overcommitted: a1 gets 60/110 of 100");
	t_eq(pol__grp(pol, a2)->elow, 50 * 100 / 110,
	     "a2 gets its protected usage, 50/110 of 100");

	/* Unclaimed protection goes to unprotected usage only with
	 * memory_recursiveprot. */
	set_pages(pol, "memory.low", "a", 200);
	set_pages(pol, "memory.low", "a2", 0);
	protect_tree(pol);
	t_eq(pol__grp(pol, a1)->elow, 60, "a1: its own 60");
	t_eq(pol__grp(pol, a2)->elow, 0, "a2: nothing of its own");
	pol_set(pol, "memory_recursiveprot", "on", NULL);
	protect_tree(pol);
	/* unclaimed 200 - 60 = 140, shared by unprotected usage: a1 has 20,
	 * a2 50, out of a's 130 - 60 = 70. */
	t_eq(pol__grp(pol, a1)->elow, 60 + 140 * 20 / 70,
	     "recursiveprot: a1 also gets 140 * 20/70");
	t_eq(pol__grp(pol, a2)->elow, 140 * 50 / 70,
	     "recursiveprot: a2 gets 140 * 50/70");
	t_check(pol, "effective");
	t_pol_free(pol);
}

/* §7.2, §7.3: a group within memory.low is skipped while others have
 * reclaimable memory; alone, it is reclaimed by the retry. */
static void test_low_retry(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 1024, 1024);
	int p = pol_group_create(pol, "p", POL_ROOT);
	int u = pol_group_create(pol, "u", POL_ROOT);

	fill(pol, p, 100, false);
	fill(pol, u, 100, false);
	set_pages(pol, "memory.low", "p", 100);
	pol_direct_reclaim(pol);
	pol_direct_reclaim(pol);
	t_eq(pol_group_usage(pol, p), 100,
	     "protected group untouched while another has memory");
	t_ok(pol_group_usage(pol, u) < 100, "the other one was reclaimed "
	     "(%llu left)", (unsigned long long)pol_group_usage(pol, u));
	while (pol_group_usage(pol, u) && pol_group_usage(pol, p) == 100)
		pol_direct_reclaim(pol);
	t_eq(pol_group_usage(pol, p), 100, "still untouched when the other "
	     "is empty");
	t_ok(pol_direct_reclaim(pol) > 0,
	     "then the memory.low retry reclaims the protected group");
	t_ok(pol_group_usage(pol, p) < 100, "which shrinks");
	t_check(pol, "low retry");
	t_pol_free(pol);
}

/* memory.min holds even then: with everything protected, OOM. */
static void test_min(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 256, 256);
	int p = pol_group_create(pol, "p", POL_ROOT);
	enum pol_alloc_result r = POL_ALLOC_OK;
	uint32_t i;
	int n = 0;

	set_pages(pol, "memory.min", "p", 256);
	while (n < 300 && (r = pol_page_alloc(pol, p, &i)) == POL_ALLOC_OK) {
		struct pol_add how = { .inode = POL_NONE };

		pol_page_add(pol, i, &how);
		n++;
	}
	t_eq(r, POL_ALLOC_OOM, "file pages under memory.min: OOM, not "
	     "reclaim");
	t_eq(pol_read(pol, -1, POL_PGSCAN_DIRECT), 0, "nothing was scanned");
	t_check(pol, "min");
	t_pol_free(pol);
}

/* §6.4: memory.max is enforced by reclaiming the group; that reclaim is
 * left out of /proc/vmstat's pgscan/pgsteal_{kswapd,direct}. */
static void test_max(void)
{
	struct t_be be = { .swap_total = 1024, .swap_free = 1024 };
	struct pol *pol = t_pol(&be, 1024, 1024);
	int g = pol_group_create(pol, "g", POL_ROOT);
	enum pol_alloc_result r = POL_ALLOC_OK;
	uint32_t i;

	set_pages(pol, "memory.max", "g", 100);
	fill(pol, g, 300, false);
	t_ok(pol_group_usage(pol, g) <= 100, "usage stays within memory.max "
	     "(%llu)", (unsigned long long)pol_group_usage(pol, g));
	t_ok(pol_read(pol, g, POL_PGSCAN_DIRECT) >= 200,
	     "the group's memory.stat counts its limit reclaim");
	t_eq(pol_read(pol, -1, POL_PGSCAN_DIRECT), 0,
	     "/proc/vmstat's pgscan_direct does not (global only)");
	t_ok(pol_read(pol, -1, POL_PGSCAN_FILE) >= 200,
	     "pgscan_file counts every reclaimer");
	t_eq(pol_read(pol, -1, POL_ALLOCSTALL), 0, "no global direct reclaim");
	t_check(pol, "max");

	/* Anon without swap space cannot be reclaimed: the group's OOM. */
	be.swap_free = 0;
	for (int k = 0; k < 200 && r == POL_ALLOC_OK; k++) {
		struct pol_add how = { .anon = true, .inode = POL_NONE };

		r = pol_page_alloc(pol, g, &i);
		if (r == POL_ALLOC_OK)
			pol_page_add(pol, i, &how);
	}
	t_eq(r, POL_ALLOC_OOM_GROUP, "unreclaimable at memory.max: group OOM");
	t_ok(pol_page_alloc(pol, POL_ROOT, &i) == POL_ALLOC_OK,
	     "while the rest of memory is fine");
	t_check(pol, "group oom");
	t_pol_free(pol);
}

int main(void)
{
	test_effective();
	test_low_retry();
	test_min();
	test_max();
	return t_done();
}
