/* SPDX-License-Identifier: MIT */
/*
 * tracing.c - `pager trace`: the policy's events as the kernel's
 * mm_vmscan_* tracepoints, one line each in ftrace's text format, to every
 * connection that asked ("trace [EVENT,...]").
 *
 * Lines are gathered per subscriber and sent once per loop iteration
 * (pgr_trace_flush() before the loop waits), so tracing costs no system
 * call per event. A subscriber that falls more than TRACE_MAX behind
 * loses events, and is told how many in a "# lost N events" line, as
 * ftrace's ring buffer overwrites. Phase marks (`phase NAME`) go to every
 * subscriber as tracing_mark_write lines.
 *
 * Owns: the trace subscribers and the lines gathered for them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "../pgr.h"
#include "control.h"

#define TRACE_MAX (4u << 20)

struct tracer {
	struct conn *conn;
	uint32_t mask;		/* 1 << enum pol_event_type */
	char *buf;
	size_t len, cap;
	uint64_t lost;
};

/* The tracepoints' names, by event type. */
static const char *const names[] = {
	[POL_EV_KSWAPD_WAKE] = "mm_vmscan_kswapd_wake",
	[POL_EV_KSWAPD_SLEEP] = "mm_vmscan_kswapd_sleep",
	[POL_EV_DIRECT_BEGIN] = "mm_vmscan_direct_reclaim_begin",
	[POL_EV_DIRECT_END] = "mm_vmscan_direct_reclaim_end",
	[POL_EV_LRU_ISOLATE] = "mm_vmscan_lru_isolate",
	[POL_EV_SHRINK_INACTIVE] = "mm_vmscan_lru_shrink_inactive",
	[POL_EV_SHRINK_ACTIVE] = "mm_vmscan_lru_shrink_active",
	[POL_EV_WRITEPAGE] = "mm_vmscan_writepage",
	[POL_EV_REFAULT] = "mm_vmscan_workingset_refault",
	[POL_EV_ACTIVATE] = "mm_vmscan_workingset_activate",
};

#define NR_EVENTS (sizeof(names) / sizeof(names[0]))

static const char *const lrus[] = {
	"inactive_anon", "active_anon", "inactive_file", "active_file",
	"unevictable",
};

int pgr_trace_mask(const char *list, uint32_t *mask, const char **why)
{
	char buf[512], *save = NULL;

	*mask = 0;
	if (!list || !*list || !strcmp(list, "all")) {
		*mask = (1u << NR_EVENTS) - 1;
		return 0;
	}
	if (strlen(list) >= sizeof(buf)) {
		*why = "event list too long";
		return -EINVAL;
	}
	strcpy(buf, list);
	for (char *e = strtok_r(buf, ",", &save); e;
	     e = strtok_r(NULL, ",", &save)) {
		unsigned int k;

		for (k = 0; k < NR_EVENTS; k++)
			if (!strcmp(e, names[k]) ||
			    !strcmp(e, names[k] + strlen("mm_vmscan_")))
				break;
		if (k == NR_EVENTS) {
			*why = "unknown event (kswapd_wake, kswapd_sleep, "
			       "direct_reclaim_begin, direct_reclaim_end, "
			       "lru_isolate, lru_shrink_inactive, "
			       "lru_shrink_active, writepage, "
			       "workingset_refault, workingset_activate)";
			return -EINVAL;
		}
		*mask |= 1u << k;
	}
	return 0;
}

void pgr_trace_start(struct pgr *p, struct conn *c, uint32_t mask)
{
	struct tracer *t;

	pgr_grow(&p->tracers, &p->cap_tracers, p->nr_tracers + 1,
		 sizeof(struct tracer));
	t = &((struct tracer *)p->tracers)[p->nr_tracers++];
	memset(t, 0, sizeof(*t));
	t->conn = c;
	t->mask = mask;
}

void pgr_trace_drop(struct pgr *p, struct conn *c)
{
	struct tracer *ts = p->tracers;

	for (size_t k = 0; k < p->nr_tracers; k++) {
		if (ts[k].conn != c)
			continue;
		free(ts[k].buf);
		ts[k] = ts[--p->nr_tracers];
		return;
	}
}

/* The kernel's reclaim_flags for a file or an anon LRU. */
static const char *wb_flags(bool file)
{
	return file ? "RECLAIM_WB_FILE|RECLAIM_WB_ASYNC" :
		      "RECLAIM_WB_ANON|RECLAIM_WB_ASYNC";
}

/* The fields after "name: ", as the kernel's TP_printk() has them (node
 * 0, order 0), with the group the event concerns. */
static int fields(struct pgr *p, const struct pol_event *ev, char *s,
		  size_t len)
{
	const char *lru = ev->lru < POL_NR_LRU ? lrus[ev->lru] : "unknown";
	const char *memcg = pol_group_name(p->pol, ev->group);

	switch (ev->type) {
	case POL_EV_KSWAPD_WAKE:
		return snprintf(s, len, "nid=0 zid=1 order=0");
	case POL_EV_KSWAPD_SLEEP:
		return snprintf(s, len, "nid=0");
	case POL_EV_DIRECT_BEGIN:
		return snprintf(s, len, "order=0 gfp_flags=GFP_HIGHUSER_MOVABLE");
	case POL_EV_DIRECT_END:
		return snprintf(s, len, "nr_reclaimed=%llu",
				(unsigned long long)ev->nr[0]);
	case POL_EV_LRU_ISOLATE:
		return snprintf(s, len, "classzone=1 order=0 nr_requested=%llu "
				"nr_scanned=%llu nr_skipped=0 nr_taken=%llu "
				"lru=%s memcg=%s", (unsigned long long)ev->nr[0],
				(unsigned long long)ev->nr[1],
				(unsigned long long)ev->nr[1], lru, memcg);
	case POL_EV_SHRINK_INACTIVE:
		return snprintf(s, len, "nid=0 nr_scanned=%llu nr_reclaimed=%llu "
				"nr_dirty=0 nr_writeback=0 nr_congested=0 "
				"nr_immediate=%llu nr_activate=%llu nr_ref_keep=0 "
				"nr_unmap_fail=0 priority=%d flags=%s memcg=%s",
				(unsigned long long)ev->nr[0],
				(unsigned long long)ev->nr[1],
				(unsigned long long)ev->nr[3],
				(unsigned long long)ev->nr[2], ev->priority,
				wb_flags(ev->lru >= POL_LRU_INACTIVE_FILE),
				memcg);
	case POL_EV_SHRINK_ACTIVE:
		return snprintf(s, len, "nid=0 nr_taken=%llu nr_active=%llu "
				"nr_deactivated=%llu nr_referenced=%llu "
				"priority=%d flags=%s memcg=%s",
				(unsigned long long)ev->nr[0],
				(unsigned long long)(ev->nr[0] - ev->nr[2]),
				(unsigned long long)ev->nr[2],
				(unsigned long long)ev->nr[1], ev->priority,
				wb_flags(ev->lru >= POL_LRU_INACTIVE_FILE),
				memcg);
	case POL_EV_WRITEPAGE:
		return snprintf(s, len, "page=%u flags=%s memcg=%s", ev->page,
				wb_flags(ev->nr[0]), memcg);
	case POL_EV_REFAULT:
	case POL_EV_ACTIVATE:
		return snprintf(s, len, "page=%u distance=%llu memcg=%s",
				ev->page, (unsigned long long)ev->nr[0], memcg);
	}
	return snprintf(s, len, "?");
}

/* ftrace's line head: task-pid, cpu, flags, timestamp, the event name. */
static int line_head(char *line, size_t len, const char *name)
{
	double t = pgr_now();

	return snprintf(line, len, "           pager-%-7d [000] ..... "
			"%6llu.%06llu: %s: ", (int)getpid(),
			(unsigned long long)t,
			(unsigned long long)((t - (double)(uint64_t)t) * 1e6),
			name);
}

/* Queue @line (@n bytes, newline included) to the tracers in @mask. */
static void deliver(struct pgr *p, uint32_t mask, const char *line, size_t n)
{
	struct tracer *ts = p->tracers;

	for (size_t k = 0; k < p->nr_tracers; k++) {
		struct tracer *tr = &ts[k];

		if (!(tr->mask & mask))
			continue;
		if (tr->len + n > TRACE_MAX) {
			tr->lost++;
			continue;
		}
		pgr_grow(&tr->buf, &tr->cap, tr->len + n, 1);
		memcpy(tr->buf + tr->len, line, n);
		tr->len += n;
	}
}

void pgr_trace_event(struct pgr *p, const struct pol_event *ev)
{
	char line[512];
	int n;

	if (!p->nr_tracers || (unsigned int)ev->type >= NR_EVENTS)
		return;
	n = line_head(line, sizeof(line), names[ev->type]);
	n += fields(p, ev, line + n, sizeof(line) - (size_t)n - 1);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	deliver(p, 1u << ev->type, line, (size_t)n);
}

bool pgr_phase_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > PGR_PHASE_NAME_MAX)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.:+-", *c))
			return false;
	return true;
}

/* A mark goes to every stream, whatever events it asked for, as writes
 * to trace_marker do. */
void pgr_trace_mark(struct pgr *p, const char *name)
{
	char line[128];
	int n;

	if (!p->nr_tracers)
		return;
	n = line_head(line, sizeof(line), "tracing_mark_write");
	n += snprintf(line + n, sizeof(line) - (size_t)n, "%s\n", name);
	if (n > (int)sizeof(line) - 1)
		return;		/* cannot be: names are short */
	deliver(p, ~0u, line, (size_t)n);
}

void pgr_trace_flush(struct pgr *p)
{
	for (size_t k = 0; k < p->nr_tracers;) {
		struct tracer *tr = &((struct tracer *)p->tracers)[k];
		char lost[64];
		size_t nr = p->nr_tracers;

		if (tr->lost) {
			snprintf(lost, sizeof(lost), "# lost %llu events",
				 (unsigned long long)tr->lost);
			tr->lost = 0;
			pgr_conn_send(tr->conn, lost);
		}
		if (p->nr_tracers == nr && tr->len) {
			size_t len = tr->len;

			tr->len = 0;
			pgr_conn_send_bytes(tr->conn, tr->buf, len);
		}
		/* A send may close the connection, which drops its tracer
		 * (the array changes under us): look at slot k again. */
		if (p->nr_tracers == nr)
			k++;
	}
}
