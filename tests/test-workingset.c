/* SPDX-License-Identifier: MIT */
/*
 * test-workingset.c - refault detection (reclaim-policy.md §5): the
 * refault distance against the workingset size at its exact boundary,
 * the eviction order of 6.1+ and of <=6.0 (one eviction apart), restores
 * of former workingset pages, write refaults, anon shadows, and the
 * shadow-node shrinker keeping shadows bounded on a stream.
 */
#include <string.h>

#include "t-sim.h"
#include "tap.h"

/*
 * Evict page X, then @others more file pages, then refault X with
 * @active pages on the active file list (the workingset it may displace).
 * Return whether X came back active.
 */
static bool refault_after(uint32_t others, uint32_t active, bool legacy_age,
			  bool workingset, struct pol **keep)
{
	static struct t_be be;
	struct pol *pol;
	struct pol_add how = { .inode = POL_NONE };
	uint32_t x, i;
	uint64_t shadow;
	bool activated;

	memset(&be, 0, sizeof(be));
	pol = t_pol(&be, 512, 512);
	if (legacy_age)
		pol_set(pol, "vm.workingset.legacy_age", "on", NULL);
	for (uint32_t k = 0; k < active; k++) {
		i = t_add(pol, false);
		pol_mark_accessed(pol, i);
		pol_mark_accessed(pol, i);
	}
	x = t_add(pol, false);
	if (workingset) {
		pol_mark_accessed(pol, x);
		pol_mark_accessed(pol, x);
		pol_shrink_list(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, 1);
	}
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	shadow = be.shadows[be.nr_evicted - 1];
	for (uint32_t k = 0; k < others; k++) {
		t_add(pol, false);
		pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	}
	/* The activations above also aged the clock; start counting now. */
	pol_page_alloc(pol, POL_ROOT, &i);
	how.shadow = shadow;
	activated = pol_page_add(pol, i, &how);
	t_check(pol, "refault");
	if (keep)
		*keep = pol;
	else
		t_pol_free(pol);
	return activated;
}

static void test_distance(void)
{
	struct pol *pol;

	/* X is evicted (1), then 3 more: distance 4. The 4 activations of
	 * the active pages came before X's eviction and do not count. */
	t_ok(refault_after(3, 4, false, false, NULL),
	     "distance 4, workingset 4: activated");
	t_ok(!refault_after(3, 3, false, false, NULL),
	     "distance 4, workingset 3: stays inactive");
	t_ok(refault_after(3, 3, true, false, NULL),
	     "<=6.0 order (advance, then read): distance 3 fits");
	t_ok(refault_after(0, 1, false, false, &pol), "distance 1 fits 1");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_REFAULT_FILE), 1,
	     "workingset_refault_file");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_ACTIVATE_FILE), 1,
	     "workingset_activate_file");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_RESTORE_FILE), 0,
	     "not a former workingset page: no restore");
	t_pol_free(pol);
	t_ok(refault_after(0, 1, false, true, &pol), "a workingset page");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_RESTORE_FILE), 1,
	     "its refault is a restore");
	t_pol_free(pol);
	t_ok(!refault_after(5, 0, false, false, &pol), "too far");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_REFAULT_FILE), 1,
	     "a refault is counted even when not activated");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_ACTIVATE_FILE), 0,
	     "but not activated");
	t_pol_free(pol);
}

static void test_write_refault(void)
{
	struct t_be be = { 0 };
	struct pol *pol = t_pol(&be, 64, 64);
	struct pol_add how = { .inode = POL_NONE, .write = true };
	uint32_t i;

	t_add(pol, false);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	how.shadow = be.shadows[0];
	pol_page_alloc(pol, POL_ROOT, &i);
	t_ok(!pol_page_add(pol, i, &how),
	     "a page brought in for a pure write ignores its shadow");
	t_eq(pol_read(pol, -1, POL_WORKINGSET_REFAULT_FILE), 0,
	     "and is no refault");
	t_eq(pol_read(pol, -1, POL_NR_SHADOWS), 0, "the shadow is gone");
	t_check(pol, "write refault");
	t_pol_free(pol);
}

/* Anon shadows exist since 5.9; file_active47 (<=5.7) leaves none. */
static void test_anon_shadows(void)
{
	struct t_be be = { .swap_total = 64, .swap_free = 64 };
	struct pol *pol = t_pol(&be, 64, 64);

	t_add(pol, true);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_ok(be.nr_evicted == 1 && be.shadows[0], "5.9+: anon pages leave "
	     "shadows");
	pol_set(pol, "vm.workingset.size_rule", "file_active47", NULL);
	t_add(pol, true);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_ok(be.nr_evicted == 2 && !be.shadows[1], "<=5.8: none");
	t_pol_free(pol);
}

/* §5.5: a file streamed through a small memory leaves a shadow per page
 * evicted; the shadow-node shrinker keeps shadow-only nodes at
 * max_shadows / 8. */
static void test_bounded(void)
{
	static const char trace[] =
		"file 1 64M\n"
		"read 1 0 64M\n"
		"read 1 0 64M\n";
	const char *sets[] = { "vm.workingset.max_shadows=1024", NULL };
	const char *unbounded[] = { "vm.workingset.max_shadows=100000000",
				    NULL };
	struct sim *s = t_run(trace, 512, 0, sets);
	struct sim *u = t_run(trace, 512, 0, unbounded);

	if (!s || !u)
		return;
	t_ok(t_stat(s, "workingset_nodes") <= 1024 / 8 + 1,
	     "shadow-only nodes stay at max_shadows / 8 (%llu)",
	     (unsigned long long)t_stat(s, "workingset_nodes"));
	t_ok(t_stat(s, "workingset_nodereclaim") > 0,
	     "workingset_nodereclaim counts the nodes dropped (%llu)",
	     (unsigned long long)t_stat(s, "workingset_nodereclaim"));
	t_ok(t_stat(s, "nr_shadow_entries") <= (1024 / 8 + 1) * 64,
	     "so the shadows are bounded (%llu)",
	     (unsigned long long)t_stat(s, "nr_shadow_entries"));
	t_ok(t_stat(u, "workingset_nodes") > 1024 / 8 + 1,
	     "without the bound they grow with the stream (%llu nodes)",
	     (unsigned long long)t_stat(u, "workingset_nodes"));
	t_ok(t_stat(u, "workingset_refault_file") >
	     t_stat(s, "workingset_refault_file"),
	     "and more of the second pass is seen as refaults");
	t_sim_free(s);
	t_sim_free(u);
}

int main(void)
{
	test_distance();
	test_write_refault();
	test_anon_shadows();
	test_bounded();
	return t_done();
}
