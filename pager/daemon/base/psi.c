/* SPDX-License-Identifier: MIT */
/*
 * psi.c - memory pressure, as the kernel's pressure stall information
 * (Documentation/accounting/psi.rst) reports it in a cgroup's
 * memory.pressure.
 *
 * Owns: struct pgr_psi (p->psi), and each client's count of stalls.
 *
 * The kernel counts a task stalled on memory while it reclaims directly,
 * or waits for a workingset page to be read back (a refault of a page
 * that was active before its eviction: workingset_restore). The pager's
 * processes wait in their faults; a client is stalled while at least one
 * of its faults waits for memory (deferred NOMEM: reclaim must free a
 * page first) or for such a page read from swap or its file. "some" is
 * the time at least one client is stalled, "full" the time all of them
 * are. A process is one task here: a program with several threads, one
 * of them in a fault and another running, is counted as stalled (the
 * kernel would count "some" but not "full" for it). Young-bit faults are
 * not stalls: the kernel has no such wait. The averages are the kernel's:
 * every 2 s, avg = avg * e + pct * (1 - e), e = exp(-2 s / window).
 */
#include <math.h>
#include <stdio.h>

#include "../../lib/util.h"
#include "../pgr.h"
#include "base.h"

#define PSI_SOME	1
#define PSI_FULL	2
#define PSI_PERIOD	2.0	/* seconds between averages, PSI_FREQ */

static const double windows[3] = { 10, 60, 300 };

void pgr_psi_update(struct pgr *p)
{
	struct pgr_psi *s = &p->psi;
	double t = pgr_now();
	int state = 0;

	if (s->since) {
		if (s->state & PSI_SOME)
			s->total[0] += t - s->since;
		if (s->state & PSI_FULL)
			s->total[1] += t - s->since;
	}
	s->since = t;
	if (s->nr_stalled)
		state |= PSI_SOME;
	if (s->nr_stalled && s->nr_stalled >= s->nr_clients)
		state |= PSI_FULL;
	s->state = state;
}

void pgr_psi_stall(struct pgr *p, struct client *c, int delta)
{
	bool was = c->stalls > 0;

	if (delta < 0 && c->stalls < (uint32_t)-delta)
		c->stalls = 0;
	else
		c->stalls = (uint32_t)((int64_t)c->stalls + delta);
	if (was == (c->stalls > 0))
		return;
	if (was)
		p->psi.nr_stalled--;
	else
		p->psi.nr_stalled++;
	pgr_psi_update(p);
}

void pgr_psi_read_start(struct pgr *p, struct client *c, uint32_t i)
{
	struct pgr_psi *s = &p->psi;

	pgr_grow(&s->reads, &s->cap_reads, s->nr_reads + 1, sizeof(*s->reads));
	s->reads[s->nr_reads++] = (struct psi_read){ i, pgr_client_id(p, c) };
	pgr_psi_stall(p, c, 1);
}

void pgr_psi_read_done(struct pgr *p, uint32_t i)
{
	struct pgr_psi *s = &p->psi;

	for (size_t k = 0; k < s->nr_reads; k++) {
		struct client *c;

		if (s->reads[k].page != i)
			continue;
		c = &p->clients[s->reads[k].client];
		s->reads[k] = s->reads[--s->nr_reads];
		if (c->used)
			pgr_psi_stall(p, c, -1);
		return;
	}
}

void pgr_psi_join(struct pgr *p)
{
	p->psi.nr_clients++;
	pgr_psi_update(p);
}

void pgr_psi_forget(struct pgr *p, struct client *c)
{
	struct pgr_psi *s = &p->psi;
	uint32_t id = pgr_client_id(p, c);

	for (size_t k = 0; k < s->nr_reads;)
		if (s->reads[k].client == id)
			s->reads[k] = s->reads[--s->nr_reads];
		else
			k++;
	if (c->stalls)
		pgr_psi_stall(p, c, -(int)c->stalls);
	if (s->nr_clients)
		s->nr_clients--;
	pgr_psi_update(p);
}

void pgr_psi_tick(struct pgr *p)
{
	struct pgr_psi *s = &p->psi;
	double t = pgr_now(), dt;

	if (!s->avg_at) {
		s->avg_at = t;
		return;
	}
	dt = t - s->avg_at;
	if (dt < PSI_PERIOD)
		return;
	pgr_psi_update(p);
	for (int k = 0; k < 2; k++) {
		double pct = (s->total[k] - s->avg_total[k]) / dt * 100;

		if (pct > 100)
			pct = 100;
		for (int w = 0; w < 3; w++) {
			double e = exp(-dt / windows[w]);

			s->avg[k][w] = s->avg[k][w] * e + pct * (1 - e);
		}
		s->avg_total[k] = s->total[k];
	}
	s->avg_at = t;
}

/* Either form of the figures: a line each, or memory.pressure's two. */
static void report(struct pgr *p, bool file,
		   void (*line)(void *, const char *), void *arg)
{
	static const char *const kinds[2] = { "some", "full" };
	struct pgr_psi *s = &p->psi;
	char buf[128];

	pgr_psi_update(p);
	for (int k = 0; k < 2; k++) {
		unsigned long long total = (unsigned long long)(s->total[k] * 1e6);

		if (file) {
			snprintf(buf, sizeof(buf), "%s avg10=%.2f avg60=%.2f "
				 "avg300=%.2f total=%llu", kinds[k],
				 s->avg[k][0], s->avg[k][1], s->avg[k][2],
				 total);
			line(arg, buf);
			continue;
		}
		for (int w = 0; w < 3; w++) {
			snprintf(buf, sizeof(buf),
				 "memory.pressure.%s.avg%d %.2f", kinds[k],
				 (int)windows[w], s->avg[k][w]);
			line(arg, buf);
		}
		snprintf(buf, sizeof(buf), "memory.pressure.%s.total %llu",
			 kinds[k], total);
		line(arg, buf);
	}
}

void pgr_psi_lines(struct pgr *p, void (*line)(void *, const char *),
		   void *arg)
{
	report(p, false, line, arg);
}

void pgr_psi_file(struct pgr *p, void (*line)(void *, const char *),
		  void *arg)
{
	report(p, true, line, arg);
}
