/* SPDX-License-Identifier: MIT */
/*
 * region.h - what region.c offers the rest of the daemon: the ranges of a
 * client's address space the pager owns.
 */
#ifndef PGR_DAEMON_REGION_H
#define PGR_DAEMON_REGION_H

#include "../pgr.h"

/* May @c have one more region of @pages (vm.max_map_count, and
 * PGR_MAX_REGION)? Warns once if not. */
bool pgr_region_room(struct pgr *p, struct client *c, uint64_t pages);
uint32_t pgr_region_new(struct pgr *p, struct client *c, uint64_t start,
			uint64_t end);
struct region *pgr_region_find(struct pgr *p, struct client *c,
			       uint64_t addr, uint32_t *id);
/* Take over [start, end) of @c: register it, adopt present pages.
 * -EBUSY: not now (an event of the mm is unread); a rescan will. */
int pgr_adopt(struct pgr *p, struct client *c, uint64_t start, uint64_t end);
/* Register [start, end), an anonymous mapping without access, but make
 * no region of it: a piece opened by mprotect faults in, and becomes one
 * at its first fault. */
int pgr_reserve(struct pgr *p, struct client *c, uint64_t start, uint64_t end);
/* Adopt every private anonymous mapping of @c not yet owned, and register
 * its reservations. */
int pgr_adopt_maps(struct pgr *p, struct client *c);
/* Forget [start, end) of @c's regions: pages freed, slots dropped. */
/* madvise(@advice) of [start, end): MADV_NORMAL, _RANDOM, _SEQUENTIAL
 * (others are ignored here). */
void pgr_advise(struct pgr *p, struct client *c, uint64_t start,
		uint64_t end, int advice);
void pgr_discard(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t end, bool unmapped);
/* An UNMAP of [start, end): if parked regions are there, it is theirs
 * (they are freed, true), else false. */
bool pgr_unmap_parked(struct pgr *p, struct client *c, uint64_t start,
		      uint64_t end);
/* The mapping moved (mremap). */
void pgr_remap(struct pgr *p, struct client *c, uint64_t from, uint64_t to,
	       uint64_t len);
/* Copy @parent's regions into @child (fork). */
int pgr_fork_regions(struct pgr *p, struct client *parent,
		     struct client *child);
void pgr_region_drop_all(struct pgr *p, struct client *c);

#endif /* PGR_DAEMON_REGION_H */
