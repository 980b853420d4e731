/* SPDX-License-Identifier: MIT */
/*
 * fault.h - what fault.c offers the rest of the daemon: page faults on
 * anonymous regions, and those served later.
 */
#ifndef PGR_DAEMON_FAULT_H
#define PGR_DAEMON_FAULT_H

#include "../pgr.h"

/* Count a fault @c took (pgfault, and pgmajfault if it waited for I/O). */
void pgr_count_fault(struct pgr *p, struct client *c, bool major);
/* Take a free page for @c, reclaiming as the kernel's allocator would. */
enum pgr_served pgr_alloc(struct pgr *p, struct client *c, uint32_t *page);
enum pgr_served pgr_fault(struct pgr *p, struct client *c, uint64_t addr,
			  bool write, bool wp);
/* Serve a fault later: @s is PGR_RETRY (events were pending: again in a
 * millisecond, once the thread that caused them has run) or PGR_NOMEM
 * (when memory is freed). */
void pgr_defer(struct pgr *p, struct client *c, uint64_t addr, bool write,
	       bool wp, enum pgr_served s);
/* Retry the deferred faults of @c (NULL: of everyone). */
void pgr_retry_deferred(struct pgr *p, struct client *c);
/* Is reclaim work under way: write-outs, or the agents' DONTNEEDs? Its
 * completion lets the next reclaim pass free pages. */
bool pgr_in_flight(const struct pgr *p);
/* The swap read into @page's buffer completed with @res. */
void pgr_swapin_done(struct pgr *p, uint32_t page, int res);

#endif /* PGR_DAEMON_FAULT_H */
