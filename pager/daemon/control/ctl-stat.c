/* SPDX-License-Identifier: MIT */
/*
 * ctl-stat.c - what the daemon reports on the control socket: `pager
 * stat` (the policy's counters, whole or of a group or a process, with
 * the swap stores' own lines, which each store says: swap.h),
 * `pager clients`, and `debug`, the inner state for people chasing a
 * hang.
 *
 * Owns: nothing; it reads.
 */
#include <stdio.h>
#include <string.h>

#include "../core/core.h"
#include "../pgr.h"
#include "../swap/swap.h"
#include "ctl-req.h"

/* reply() for the swap stores' lines (swap.h). */
static void stat_line(void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void stat_line(void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreply(ctx, fmt, ap);
	va_end(ap);
}

static void stat_items(struct req *r, int group)
{
	for (int i = 0; i < POL_NR_ITEMS; i++)
		reply(r, "%s %llu", pol_item_name((enum pol_item)i),
		      (unsigned long long)pol_read(r->p->pol, group,
						   (enum pol_item)i));
}

/* Pages of every client left to the kernel, now (adopt.c). */
static uint64_t foreign(const struct pgr *p)
{
	uint64_t n = 0;

	for (uint32_t k = 0; k < p->nr_clients; k++)
		if (p->clients[k].used)
			n += p->clients[k].foreign;
	return n;
}

/* stat [group NAME | pid PID] */
static void cmd_stat(struct req *r)
{
	struct pgr *p = r->p;
	uint64_t v;

	if (r->argc == 1) {
		uint64_t min, low, high;

		stat_items(r, -1);
		pol_watermarks(p->pol, &min, &low, &high);
		reply(r, "budget_pages %llu", (unsigned long long)p->o.budget);
		reply(r, "wmark_min %llu", (unsigned long long)min);
		reply(r, "wmark_low %llu", (unsigned long long)low);
		reply(r, "wmark_high %llu", (unsigned long long)high);
		reply(r, "swap_total %llu", (unsigned long long)
		      (pgr_has_swap(p) ? p->o.swap_pages : 0));
		reply(r, "swap_used %llu", (unsigned long long)p->swap_used);
		pgr_swap_stat(r->p, stat_line, r);
		reply(r, "memory.current %llu", (unsigned long long)
		      pol_group_usage(p->pol, POL_ROOT) * PGR_PAGE);
		reply(r, "memory.peak %llu", (unsigned long long)
		      pol_group_peak(p->pol, POL_ROOT) * PGR_PAGE);
		reply(r, "nr_foreign %llu", (unsigned long long)foreign(p));
		reply(r, "pgforeign %llu", (unsigned long long)p->pgforeign);
		reply(r, "pager_calls_made %llu",
		      (unsigned long long)p->calls_made);
		reply(r, "pager_zero_outside %llu",
		      (unsigned long long)p->zero_outside);
		reply(r, "pager_pages_vanished %llu",
		      (unsigned long long)p->pages_vanished);
		reply(r, "pager_stuck_threads %u", p->stuck_threads);
		reply(r, "pager_stuck_reports %llu",
		      (unsigned long long)p->stuck_reports);
		reply(r, "pager_handback_pages %llu",
		      (unsigned long long)p->handback_pages);
		reply(r, "pager_handback_ranges %llu",
		      (unsigned long long)p->handback_ranges);
		reply(r, "clients %u", pgr_nr_clients(p));
		reply(r, "clients_joined %llu",
		      (unsigned long long)p->clients_joined);
		reply(r, "pager_cpu_us %llu", (unsigned long long)
		      (pgr_cpu_time() * 1e6));
		reply(r, "pager_notify_epollerr %llu",
		      (unsigned long long)p->notify_epollerr);
		reply(r, "pager_arm_moved %llu",
		      (unsigned long long)p->arm_moved);
		reply(r, "pager_arm_fell %llu", (unsigned long long)p->arm_fell);
		reply(r, "pager_cpu_latency_ms %llu",
		      (unsigned long long)p->cpu_latency.held_ms);
		pgr_psi_lines(p, reply_line, r);
		reply(r, "ok");
	} else if (r->argc == 2 && !strcmp(r->argv[1], "pressure")) {
		pgr_psi_file(p, reply_line, r);
		reply(r, "ok");
	} else if (r->argc == 2 && !strcmp(r->argv[1], "phases")) {
		/* The open phase is measured up to now. */
		if (p->nr_phases)
			pgr_phase_snapshot(p->pol,
					   p->phases[p->nr_phases - 1].end);
		for (size_t k = 0; k < p->nr_phases; k++)
			pgr_phase_lines(&p->phases[k], reply_line, r);
		reply(r, "ok");
	} else if (r->argc == 3 && !strcmp(r->argv[1], "group")) {
		int g = pol_group_find(p->pol, r->argv[2]);

		if (g < 0) {
			fail(r, "stat: no group '%s'", r->argv[2]);
			return;
		}
		stat_items(r, g);
		pgr_swap_stat_group(r->p, g, stat_line, r);
		reply(r, "memory.current %llu", (unsigned long long)
		      pol_group_usage(p->pol, g) * PGR_PAGE);
		reply(r, "memory.peak %llu", (unsigned long long)
		      pol_group_peak(p->pol, g) * PGR_PAGE);
		reply(r, "ok");
	} else if (r->argc == 3 && !strcmp(r->argv[1], "pid") &&
		   !pgr_parse_u64(r->argv[2], &v)) {
		struct client *c = pgr_client_find(p, (pid_t)v);

		if (!c) {
			fail(r, "stat: process %llu is not under the pager",
			     (unsigned long long)v);
			return;
		}
		reply(r, "group %s", pol_group_name(p->pol, c->group));
		reply(r, "nr_resident %llu", (unsigned long long)c->resident);
		reply(r, "nr_swap_entries %llu",
		      (unsigned long long)c->swapped);
		reply(r, "nr_foreign %llu", (unsigned long long)c->foreign);
		reply(r, "pgfault %llu", (unsigned long long)c->st.faults);
		reply(r, "pgmajfault %llu", (unsigned long long)c->st.swapins);
		reply(r, "pgfault_young %llu",
		      (unsigned long long)c->st.young);
		reply(r, "pgfault_first_touch %llu",
		      (unsigned long long)c->st.first_touch);
		reply(r, "pswpin %llu", (unsigned long long)c->st.pswpin);
		reply(r, "pswpout %llu", (unsigned long long)c->st.swapouts);
		reply(r, "pgarmed %llu", (unsigned long long)c->st.armed);
		reply(r, "nr_regions %zu", c->nr_regions);
		pgr_swap_stat_pid(r->p, (uint64_t)c->pid, stat_line, r);
		reply(r, "ok");
	} else {
		fail(r, "stat: expected nothing, phases, pressure, group NAME "
		     "or pid PID");
	}
}

/* debug: the daemon's inner state, for people chasing a hang */
static void cmd_debug(struct req *r)
{
	struct pgr *p = r->p;

	reply(r, "inflight %u writes %u free_pages %llu free_bufs %u "
	      "deferred %zu", p->inflight, p->writes,
	      (unsigned long long)pol_free_pages(p->pol), p->nr_free_bufs,
	      p->nr_deferred);
	for (size_t k = 0; k < p->nr_deferred && k < 32; k++)
		reply(r, "deferred pid %d addr %llx write %d wp %d %s",
		      p->clients[p->deferred[k].client].pid,
		      (unsigned long long)p->deferred[k].addr,
		      p->deferred[k].write, p->deferred[k].wp,
		      p->deferred[k].retry ? "retry" : "nomem");
	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];
		uint64_t n[8] = { 0 };

		if (!c->used)
			continue;
		for (size_t j = 0; j < c->nr_regions; j++) {
			struct region *g = &p->regions[c->regions[j]];

			for (uint64_t o = 0; o < (g->end - g->start) / PGR_PAGE;
			     o++) {
				uint64_t v = g->slot[o];

				if (sl_tag(v) != SL_PAGE)
					n[sl_tag(v) == SL_SWAP ? 6 :
					  sl_tag(v) == SL_FOREIGN ? 7 : 0]++;
				else if (v & SL_READING)
					n[4]++;
				else if (v & SL_ARMING)
					n[2]++;
				else if (v & SL_ARMED)
					n[3]++;
				else
					n[1]++;
			}
		}
		reply(r, "client %u pid %d conn %d asked %zu pending %zu "
		      "empty %llu present %llu arming %llu armed %llu "
		      "reading %llu swap %llu foreign %llu", k, c->pid,
		      c->conn != NULL, c->nr_asked, c->nr_pending,
		      (unsigned long long)n[0], (unsigned long long)n[1],
		      (unsigned long long)n[2], (unsigned long long)n[3],
		      (unsigned long long)n[4], (unsigned long long)n[6],
		      (unsigned long long)n[7]);
		for (size_t j = 0; j < c->nr_regions; j++) {
			struct region *g = &p->regions[c->regions[j]];
			uint64_t first = UINT64_MAX, nr = 0;

			for (uint64_t o = 0; o < (g->end - g->start) / PGR_PAGE;
			     o++)
				if (sl_tag(g->slot[o]) == SL_PAGE &&
				    (g->slot[o] & SL_ARMING) && !nr++)
					first = o;
			if (nr || r->argc > 1)
				reply(r, "  region %u %llx-%llx arming %llu from "
				      "page %llu", c->regions[j],
				      (unsigned long long)g->start,
				      (unsigned long long)g->end,
				      (unsigned long long)nr,
				      (unsigned long long)first);
		}
		for (size_t j = 0; j < c->nr_pending && j < 16; j++)
			reply(r, "  pending %llx-%llx id %llu",
			      (unsigned long long)c->pending[j].start,
			      (unsigned long long)c->pending[j].end,
			      (unsigned long long)c->pending[j].id);
	}
	reply(r, "ok");
}

static void cmd_clients(struct req *r)
{
	struct pgr *p = r->p;

	for (uint32_t k = 0; k < p->nr_clients; k++) {
		struct client *c = &p->clients[k];

		if (c->used)
			reply(r, "%d group=%s resident=%llu swapped=%llu "
			      "foreign=%llu agent=%d%s", c->pid,
			      pol_group_name(p->pol, c->group),
			      (unsigned long long)c->resident,
			      (unsigned long long)c->swapped,
			      (unsigned long long)c->foreign, (int)c->agent,
			      c->cut_off ? " cut-off" : "");
	}
	reply(r, "ok");
}

bool pgr_ctl_report(struct req *r)
{
	const char *cmd = r->argv[0];

	if (!strcmp(cmd, "stat"))
		cmd_stat(r);
	else if (!strcmp(cmd, "clients"))
		cmd_clients(r);
	else if (!strcmp(cmd, "debug"))
		cmd_debug(r);
	else
		return false;
	return true;
}
