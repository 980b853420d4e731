/* SPDX-License-Identifier: MIT */
/*
 * ref.h - reference policies (exact LRU, clock, Belady's optimum)
 * over the same traces as the kernel policy.
 */
#ifndef PGR_SIM_REF_H
#define PGR_SIM_REF_H

#include <stdint.h>

#include "trace.h"

enum ref_policy { REF_LRU, REF_CLOCK, REF_OPT };

struct ref_result {
	uint64_t refs;		/* page accesses */
	uint64_t misses;	/* accesses to pages not cached */
	uint64_t evictions;
};

int ref_policy_parse(const char *s, enum ref_policy *p);
/* Replay @t through policy @p with a cache of @capacity pages. Return 0,
 * or -1 if the trace has too many distinct pages. */
int ref_run(const struct trace *t, enum ref_policy p, uint64_t capacity,
	    struct ref_result *r);

#endif /* PGR_SIM_REF_H */
