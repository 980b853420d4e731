/* SPDX-License-Identifier: MIT */
/*
 * refs.c - page_check_references(): what the inactive scan does with a
 * page, from its young mappings and PG_referenced (reclaim-policy.md §2.1,
 * §2.2). A pure function of the rmap walk's result, the page flags and the
 * switches; it only clears and sets PG_referenced.
 *
 * Modern kernels (5.9+), each later addition behind its own switch:
 *
 *   young mappings?  had PG_referenced?        verdict
 *   ---------------  ------------------------  --------------------------
 *   yes              yes                       ACTIVATE
 *   yes (>1)         -                         ACTIVATE   shared_multi_ref
 *   yes, VM_EXEC     - (file pages)            ACTIVATE   exec_first_use
 *   yes, swapbacked  -                         ACTIVATE   anon_use_once=off
 *   yes              no                        KEEP, and set PG_referenced
 *   no               yes (file pages)          RECLAIM_CLEAN
 *   no               -                         RECLAIM
 *
 * With use_once_mapped=off (seed 001 reverted: 2.6.33) PG_referenced is
 * folded into the young count and any reference to a page "in use"
 * (mapped, in swap, or of a file that someone maps) activates it.
 */
#include "internal.h"

/* The legacy page_mapping_inuse() of 2.6.33. */
bool pol__in_use(const struct pol_page *p, const struct pol_refs *r)
{
	return r->mapped || (p->flags & POL_PG_SWAPCACHE) || r->file_mapped;
}

static enum verdict legacy_verdict(struct pol_page *p,
				   const struct pol_refs *r)
{
	bool had_ref = p->flags & POL_PG_REFERENCED;
	uint32_t ref = r->young + had_ref;

	/* A page the rmap walk could not take (locked, I/O under way) is
	 * kept, as trylock_page() failing kept it then. */
	if (r->contended)
		return V_KEEP;
	p->flags &= ~POL_PG_REFERENCED;
	if (ref && pol__in_use(p, r))
		return V_ACTIVATE;
	if (ref && (p->flags & POL_PG_DIRTY))
		return V_KEEP;
	return V_RECLAIM;
}

enum verdict pol__check_references(const struct pol *pol, struct pol_page *p,
			      const struct pol_refs *r)
{
	const struct tunables *t = &pol->t;
	bool had_ref;

	if (pol__lru_gen_enabled(pol)) {
		/* MGLRU (mglru.md §2.6): no exec rule, no look-twice mark
		 * of its own, no RECLAIM_CLEAN. */
		if (r->contended)
			return V_KEEP;
		if (!r->young)
			return V_RECLAIM;
		return pol__lru_gen_set_refs(p) ? V_ACTIVATE : V_KEEP;
	}
	if (!t->use_once_mapped)
		return legacy_verdict(p, r);
	had_ref = p->flags & POL_PG_REFERENCED;
	p->flags &= ~POL_PG_REFERENCED;
	if (r->contended)
		return V_KEEP;
	if (r->young > 0) {
		/* The "look twice" mark: a second trip decides. */
		p->flags |= POL_PG_REFERENCED;
		if (had_ref)
			return V_ACTIVATE;
		if (t->shared_multi_ref && r->young > 1)
			return V_ACTIVATE;
		if (!t->anon_use_once && !page_is_file(p))
			return V_ACTIVATE;
		/* 3.3-5.8 activated any VM_EXEC page; 5.9+ file pages only. */
		if (t->exec_first_use && (r->vmflags & POL_VM_EXEC) &&
		    (page_is_file(p) || !t->anon_use_once))
			return V_ACTIVATE;
		return V_KEEP;
	}
	if (had_ref && page_is_file(p))
		return V_RECLAIM_CLEAN;
	return V_RECLAIM;
}
