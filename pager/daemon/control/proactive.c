/* SPDX-License-Identifier: MIT */
/*
 * proactive.c - reclaim and aging on request, as cgroup v2's
 * memory.reclaim and /sys/kernel/mm/page_idle do for the kernel.
 *
 * memory.reclaim: reclaim passes for a group (the root: all) until the
 * bytes asked for are freed, answered "ok", or until the kernel's
 * allocator would give up (MAX_RECLAIM_RETRIES passes that free nothing
 * and start nothing), answered with an error. The pager's passes complete
 * later (the agents' answers, write-outs), so a request waits between
 * passes while work is in flight; everything else goes on meanwhile.
 *
 * idle: every present page of a process is armed now, the way writing
 * page_idle clears young bits; a page that was young stays referenced for
 * the next scan (PG_young), so marking pages idle does not change what
 * reclaim decides.
 *
 * Owns: the memory.reclaim requests under way.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../lib/util.h"
#include "../core/core.h"
#include "../pgr.h"
#include "control.h"

#define MAX_RECLAIM_RETRIES 16

struct reclaim_req {
	struct conn *conn;
	int group;
	uint64_t target, done;		/* pages */
	unsigned int fruitless;
	struct reclaim_req *next;
};

static void answer(struct reclaim_req *q, bool ok)
{
	char line[160];

	if (ok)
		snprintf(line, sizeof(line), "reclaimed %llu\nok",
			 (unsigned long long)q->done * PGR_PAGE);
	else
		snprintf(line, sizeof(line), "error memory.reclaim: reclaimed "
			 "%llu of %llu bytes", (unsigned long long)q->done *
			 PGR_PAGE, (unsigned long long)q->target * PGR_PAGE);
	pgr_conn_send(q->conn, line);
}

/* One request's passes, while nothing is in flight. Return true when it
 * is answered. */
static bool step(struct pgr *p, struct reclaim_req *q)
{
	while (!pgr_in_flight(p)) {
		uint64_t nr;

		if (q->done >= q->target) {
			answer(q, true);
			return true;
		}
		nr = pol_group_reclaim(p->pol, q->group, q->target - q->done);
		pgr_flush_asks(p);
		q->done += nr;
		if (nr)
			q->fruitless = 0;
		else if (!pgr_in_flight(p) &&
			 ++q->fruitless > MAX_RECLAIM_RETRIES) {
			answer(q, false);
			return true;
		}
	}
	return false;
}

void pgr_reclaim_step(struct pgr *p)
{
	struct reclaim_req **qq = &p->reclaims;

	while (*qq) {
		struct reclaim_req *q = *qq;

		if (step(p, q)) {
			*qq = q->next;
			free(q);
			/* Pages were freed: faults waiting for them go on. */
			pgr_retry_deferred(p, NULL);
		} else {
			qq = &q->next;
		}
	}
}

void pgr_reclaim_start(struct pgr *p, struct conn *conn, int group,
		       uint64_t bytes)
{
	struct reclaim_req *q = pgr_xcalloc(1, sizeof(*q));

	q->conn = conn;
	q->group = group;
	q->target = (bytes + PGR_PAGE - 1) / PGR_PAGE;
	q->next = p->reclaims;
	p->reclaims = q;
	pgr_reclaim_step(p);
}

void pgr_reclaim_cancel(struct pgr *p, struct conn *conn)
{
	struct reclaim_req **qq = &p->reclaims;

	while (*qq) {
		struct reclaim_req *q = *qq;

		if (q->conn == conn) {
			*qq = q->next;
			free(q);
		} else {
			qq = &q->next;
		}
	}
}

uint64_t pgr_idle_client(struct pgr *p, struct client *c)
{
	uint64_t n = 0;

	for (size_t k = 0; k < c->nr_regions; k++) {
		struct region *r = &p->regions[c->regions[k]];
		uint32_t npg = (uint32_t)((r->end - r->start) / PGR_PAGE);

		for (uint32_t o = 0; o < npg; o++) {
			uint64_t v = r->slot[o];
			uint32_t i = sl_page(v);

			if (sl_tag(v) != SL_PAGE ||
			    (v & (SL_ARMING | SL_ARMED | SL_READING)))
				continue;
			if (pgr_arm(p, i))
				break;		/* no agent, or no buffer */
			p->pages[i].flags |= DP_YOUNG;
			n++;
		}
	}
	pgr_flush_asks(p);
	return n;
}
