/* SPDX-License-Identifier: MIT */
/*
 * phase.h - counters per phase: between two `phase NAME` marks (a trace's
 * line, a program's pager_phase(), `pager phase`), the deltas of the
 * policy's event counters and its list sizes at the end, as `pager sim`
 * prints them and the daemon's `stat phases` answers:
 * `phase.NAME.ITEM VALUE`. A name used again becomes NAME#2, NAME#3...
 */
#ifndef PGR_PHASE_H
#define PGR_PHASE_H

#include <stddef.h>
#include <stdint.h>

#include "../../policy/pol.h"

struct pgr_phase {
	char name[48];
	uint64_t start[POL_NR_ITEMS];	/* the policy's counters at the mark */
	uint64_t end[POL_NR_ITEMS];	/* at the next mark, or the run's end */
};

/* The policy's counters now (all groups). */
void pgr_phase_snapshot(const struct pol *pol, uint64_t v[POL_NR_ITEMS]);
/* A mark at @now: the open phase, the last of the *@nr in *@v (*@cap
 * allocated), ends there and a phase named @name opens. */
void pgr_phase_mark(struct pgr_phase **v, size_t *nr, size_t *cap,
		    const char *name, const uint64_t now[POL_NR_ITEMS]);
/* Call @line with each `phase.NAME.ITEM VALUE` of @ph. */
void pgr_phase_lines(const struct pgr_phase *ph,
		     void (*line)(void *arg, const char *text), void *arg);

#endif /* PGR_PHASE_H */
