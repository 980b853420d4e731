/* SPDX-License-Identifier: MIT */
/*
 * test-refs.c - page_check_references() verdicts (reclaim-policy.md §2.1,
 * §2.2) as a table: switches, page state and rmap result in, verdict and
 * PG_referenced out. Then the active scan's decisions (§2.5).
 */
#include <string.h>

#include "../policy/internal.h"
#include "t-sim.h"
#include "tap.h"

enum { A = 1, F = 0 };		/* anon or file page */

struct row {
	const char *sets;	/* "key=value,key=value" */
	int anon;
	bool had_ref, dirty;
	uint32_t young, vmflags;
	bool mapped, file_mapped, contended;
	enum verdict want;
	bool want_ref;
	const char *what;
};

static const char *const vnames[] = { "ACTIVATE", "KEEP", "RECLAIM",
				      "RECLAIM_CLEAN" };

static const struct row rows[] = {
	/* 5.9+ */
	{ "", F, 0, 0, 1, 0, 1, 1, 0, V_KEEP, 1,
	  "mapped file page young once: keep and mark (use-once)" },
	{ "", F, 1, 0, 1, 0, 1, 1, 0, V_ACTIVATE, 1,
	  "young again while marked: activate" },
	{ "", F, 0, 0, 2, 0, 1, 1, 0, V_ACTIVATE, 1,
	  "young through two mappings: activate" },
	{ "", F, 0, 0, 1, POL_VM_EXEC, 1, 1, 0, V_ACTIVATE, 1,
	  "executable file page young once: activate" },
	{ "", A, 0, 0, 1, POL_VM_EXEC, 1, 0, 0, V_KEEP, 1,
	  "executable anon page: the VM_EXEC rule is for file pages" },
	{ "", A, 0, 0, 1, 0, 1, 0, 0, V_KEEP, 1,
	  "anon page young once: keep and mark (5.9+)" },
	{ "", A, 1, 0, 0, 0, 1, 0, 0, V_RECLAIM, 0,
	  "anon page marked but not young: reclaim" },
	{ "", F, 1, 0, 0, 0, 0, 0, 0, V_RECLAIM_CLEAN, 0,
	  "file page marked (read) but not young: reclaim if clean" },
	{ "", F, 0, 0, 0, 0, 1, 1, 0, V_RECLAIM, 0,
	  "not young, not marked: reclaim" },
	{ "", F, 1, 0, 0, 0, 1, 1, 1, V_KEEP, 0,
	  "rmap walk contended: keep" },
	/* later additions switched off */
	{ "vm.refs.shared_multi_ref=off", F, 0, 0, 2, 0, 1, 1, 0, V_KEEP, 1,
	  "shared_multi_ref off: two young mappings count as one" },
	{ "vm.refs.exec_first_use=off", F, 0, 0, 1, POL_VM_EXEC, 1, 1, 0,
	  V_KEEP, 1, "exec_first_use off: executable pages look twice too" },
	{ "vm.refs.anon_use_once=off", A, 0, 0, 1, 0, 1, 0, 0, V_ACTIVATE, 1,
	  "anon_use_once off (3.5-5.8): anon activated on first young scan" },
	{ "vm.refs.anon_use_once=off", A, 0, 0, 1, POL_VM_EXEC, 1, 0, 0,
	  V_ACTIVATE, 1, "anon_use_once off: executable anon activated" },
	/* seed 001 off: 2.6.33 */
	{ "use_once_mapped=off", F, 0, 0, 1, 0, 1, 1, 0, V_ACTIVATE, 0,
	  "2.6.33: any young mapped page is activated" },
	{ "use_once_mapped=off", F, 1, 0, 0, 0, 0, 1, 0, V_ACTIVATE, 0,
	  "2.6.33: a marked page of a mapped file is activated" },
	{ "use_once_mapped=off", F, 1, 0, 0, 0, 0, 0, 0, V_RECLAIM, 0,
	  "2.6.33: a marked page of an unmapped file is reclaimed" },
	{ "use_once_mapped=off", F, 1, 1, 0, 0, 0, 0, 0, V_KEEP, 0,
	  "2.6.33: ... unless dirty: kept" },
	{ "use_once_mapped=off", A, 0, 0, 1, 0, 1, 0, 0, V_ACTIVATE, 0,
	  "2.6.33: a young anon page is activated" },
	{ "use_once_mapped=off", F, 0, 0, 0, 0, 1, 1, 0, V_RECLAIM, 0,
	  "2.6.33: unreferenced: reclaim" },
	{ "use_once_mapped=off", A, 1, 0, 0, 0, 1, 0, 1, V_KEEP, 1,
	  "2.6.33: page locked (swap read under way): kept as it is" },
};

static void apply(struct pol *pol, const char *sets)
{
	char buf[256], *save, *kv;

	snprintf(buf, sizeof(buf), "%s", sets);
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		*eq = 0;
		if (pol_set(pol, kv, eq + 1, NULL))
			t_ok(0, "set %s", kv);
	}
}

static void test_table(void)
{
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const struct row *r = &rows[k];
		struct t_be be = { 0 };
		struct pol *pol = t_pol(&be, 64, 64);
		struct pol_page p = { .inode = POL_NONE };
		struct pol_refs refs = {
			.young = r->young, .vmflags = r->vmflags,
			.mapped = r->mapped, .file_mapped = r->file_mapped,
			.contended = r->contended,
		};
		enum verdict v;

		apply(pol, r->sets);
		p.flags = (r->anon ? POL_PG_SWAPBACKED : 0) |
			  (r->had_ref ? POL_PG_REFERENCED : 0) |
			  (r->dirty ? POL_PG_DIRTY : 0);
		v = pol__check_references(pol, &p, &refs);
		if (!t_ok(v == r->want && !!(p.flags & POL_PG_REFERENCED) ==
			  r->want_ref, "%s", r->what))
			t_diag("got %s ref=%d, want %s ref=%d", vnames[v],
			       !!(p.flags & POL_PG_REFERENCED), vnames[r->want],
			       r->want_ref);
		t_pol_free(pol);
	}
}

/* §2.5: the active scan keeps only young executable file pages; the
 * rest go to the inactive list with PG_workingset, PG_referenced left as
 * it was (modern) or consumed (2.6.33, for pages in use). */
static void test_active_scan(void)
{
	struct t_be be = { .swap_total = 64, .swap_free = 64 };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t exe = t_add(pol, false), data = t_add(pol, false);
	uint32_t anon = t_add(pol, true);

	pol_mark_accessed(pol, exe);
	pol_mark_accessed(pol, exe);
	pol_mark_accessed(pol, data);
	pol_mark_accessed(pol, data);
	pol_mark_accessed(pol, data);	/* active and referenced */
	be.young[anon] = 1;
	be.young[anon] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	be.young[anon] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_eq(pol_page(pol, anon)->lru, POL_LRU_ACTIVE_ANON,
	     "anon page activated by two young scans");

	be.young[exe] = 1;
	be.vmflags[exe] = POL_VM_EXEC;
	be.young[data] = 1;
	be.young[anon] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, 2);
	pol_shrink_list(pol, POL_ROOT, POL_LRU_ACTIVE_ANON, 1);
	t_eq(pol_page(pol, exe)->lru, POL_LRU_ACTIVE_FILE,
	     "young executable file page stays active");
	t_eq(pol_page(pol, data)->lru, POL_LRU_INACTIVE_FILE,
	     "young data page is deactivated all the same");
	t_ok(pol_page(pol, data)->flags & POL_PG_WORKINGSET,
	     "deactivation marks PG_workingset");
	t_ok(pol_page(pol, data)->flags & POL_PG_REFERENCED,
	     "the modern active scan leaves PG_referenced alone");
	t_eq(pol_page(pol, anon)->lru, POL_LRU_INACTIVE_ANON,
	     "young anon page is deactivated");
	t_eq(pol_read(pol, -1, POL_PGREFILL), 3, "pgrefill counts the scan");
	t_eq(pol_read(pol, -1, POL_PGDEACTIVATE), 2, "pgdeactivate 2");
	t_check(pol, "active scans");

	/* 2.6.33: a page in use that was marked has the mark consumed. */
	pol_set(pol, "use_once_mapped", "off", NULL);
	pol_mark_accessed(pol, data);	/* inactive + referenced */
	pol_mark_accessed(pol, data);	/* -> active, mark cleared */
	pol_mark_accessed(pol, data);	/* active, marked */
	be.mapped[data] = true;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_ACTIVE_FILE, 2);
	t_ok(!(pol_page(pol, data)->flags & POL_PG_REFERENCED),
	     "2.6.33: the active scan folds PG_referenced in and clears it");
	t_check(pol, "legacy active scan");
	t_pol_free(pol);
}

/* A backend whose clearing costs (the pager's arming) is asked to clear
 * only where the next test's answer is used. */
static void test_kept_young(void)
{
	struct t_be be = { .swap_total = 64, .swap_free = 64,
			   .keep_young = true };
	struct pol *pol = t_pol(&be, 64, 64);
	uint32_t anon = t_add(pol, true), exe = t_add(pol, false);

	be.young[anon] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_eq(be.cleared[anon], 1, "kept young, verdict keep: cleared");
	be.young[anon] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_eq(pol_page(pol, anon)->lru, POL_LRU_ACTIVE_ANON,
	     "young again: activated");
	t_eq(be.cleared[anon], 1, "activated anon page: not cleared");
	t_eq(be.young[anon], 1, "its young bit stays set");
	pol_shrink_list(pol, POL_ROOT, POL_LRU_ACTIVE_ANON, 1);
	t_eq(be.cleared[anon], 2, "the active scan clears it");
	t_eq(pol_page(pol, anon)->lru, POL_LRU_INACTIVE_ANON,
	     "and deactivates the anon page all the same");

	pol_mark_accessed(pol, exe);	/* referenced: one young scan does */
	be.young[exe] = 1;
	be.mapped[exe] = true;
	be.vmflags[exe] = POL_VM_EXEC;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_FILE, 1);
	t_eq(pol_page(pol, exe)->lru, POL_LRU_ACTIVE_FILE,
	     "executable file page activated");
	t_eq(be.cleared[exe], 1,
	     "and cleared: the active scan's answer keeps it active");

	/* Deactivated with PG_referenced kept: one young scan activates. */
	pol_set(pol, "vm.balance.cost_model", "rotation57", NULL);
	be.young[anon] = 1;
	pol_shrink_list(pol, POL_ROOT, POL_LRU_INACTIVE_ANON, 1);
	t_eq(pol_page(pol, anon)->lru, POL_LRU_ACTIVE_ANON,
	     "<= 5.7 cost model: activated");
	t_eq(be.cleared[anon], 3,
	     "and cleared: young active pages count as rotations");
	t_check(pol, "kept young bits");
	t_pol_free(pol);
}

int main(void)
{
	test_table();
	test_kept_young();
	test_active_scan();
	return t_done();
}
