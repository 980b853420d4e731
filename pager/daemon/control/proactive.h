/* SPDX-License-Identifier: MIT */
/*
 * proactive.h - what proactive.c offers the rest of the daemon:
 * memory.reclaim and idle page marking.
 */
#ifndef PGR_DAEMON_PROACTIVE_H
#define PGR_DAEMON_PROACTIVE_H

#include "../pgr.h"

/* Reclaim @bytes from @group, answering on @conn when done or failed. */
void pgr_reclaim_start(struct pgr *p, struct conn *conn, int group,
		       uint64_t bytes);
/* Go on with reclaims under way (after completions). */
void pgr_reclaim_step(struct pgr *p);
void pgr_reclaim_cancel(struct pgr *p, struct conn *conn);
/* Arm every present page of @c; return how many. */
uint64_t pgr_idle_client(struct pgr *p, struct client *c);

#endif /* PGR_DAEMON_PROACTIVE_H */
