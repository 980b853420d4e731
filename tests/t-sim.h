/* SPDX-License-Identifier: MIT */
/*
 * t-sim.h - test helpers: read a trace from a string, replay it, read
 * its counters; and a scripted backend for driving the policy directly.
 */
#ifndef PGR_T_SIM_H
#define PGR_T_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "../pager/sim/sim.h"
#include "../policy/pol.h"

/* Parse @text; on error the test fails with the message and NULL is
 * returned. */
struct trace *t_trace(const char *text);
void t_trace_free(struct trace *t);
/* Replay @text with @pages of memory and @swap pages of swap (0: none),
 * applying the NULL-terminated KEY=VALUE list @sets first, with
 * pol_check() after every event. NULL (and a failed check) if the run
 * fails. */
struct sim *t_run(const char *text, uint64_t pages, uint64_t swap,
		  const char *const *sets);
void t_sim_free(struct sim *s);
/* A counter of a finished run (aborts the test on an unknown name). */
uint64_t t_stat(const struct sim *s, const char *name);
uint64_t t_phase(const struct sim *s, const char *phase, const char *name);

/* A policy over @nr descriptors driven by hand: the backend reports
 * what the test scripts in struct t_be and records what it was asked. */
#define T_BE_PAGES 4096		/* pages the script covers */

struct t_be {
	uint32_t young[T_BE_PAGES];	/* young mappings per page, consumed */
	uint32_t vmflags[T_BE_PAGES];
	bool mapped[T_BE_PAGES];
	bool keep_young;		/* report young as kept (the
					 * pager's way): young_clear()
					 * consumes it */
	unsigned int cleared[T_BE_PAGES];	/* young_clear() calls */
	int unmap_err;			/* what unmap returns */
	enum pol_writeout writeout;	/* what writeout returns */
	int evict_err;
	uint64_t swap_total, swap_free;
	uint32_t evicted[4096];		/* pages evicted, in order */
	uint64_t shadows[4096];		/* their shadows */
	unsigned int nr_evicted;
	unsigned int nr_flushes;	/* unmap_flush() calls */
	unsigned int evicted_at_flush;	/* nr_evicted at the last one */
	unsigned int nr_writeouts;
	bool swap_dropped;
	struct pol_event events[256];	/* the last events seen */
	unsigned int nr_events;
};

struct pol *t_pol(struct t_be *be, uint32_t nr, uint64_t budget);
/* The same over caller-provided descriptors @stride bytes apart. */
struct pol *t_pol_at(struct t_be *be, struct pol_page *first, size_t stride,
		     uint32_t nr, uint64_t budget);
void t_pol_free(struct pol *pol);
/* Allocate a page and add it: anon, or a file page of no inode. */
uint32_t t_add(struct pol *pol, bool anon);
/* pol_check(), as a test result. */
void t_check(const struct pol *pol, const char *when);

#endif /* PGR_T_SIM_H */
