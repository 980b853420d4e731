/* SPDX-License-Identifier: MIT */
/*
 * tracing.h - what tracing.c offers the rest of the daemon: `pager trace`,
 * the policy's events as mm_vmscan_* lines.
 */
#ifndef PGR_DAEMON_TRACING_H
#define PGR_DAEMON_TRACING_H

#include "../pgr.h"

/* Parse a comma-separated event list ("" or "all": every one). */
int pgr_trace_mask(const char *list, uint32_t *mask, const char **why);
void pgr_trace_start(struct pgr *p, struct conn *c, uint32_t mask);
void pgr_trace_drop(struct pgr *p, struct conn *c);
void pgr_trace_event(struct pgr *p, const struct pol_event *ev);
/* Send what the subscribers gathered (before the loop waits). */
void pgr_trace_flush(struct pgr *p);
/* Phase marks (`phase NAME`): a name the record's and the simulator's
 * formats take as one word. */
#define PGR_PHASE_NAME_MAX 63
bool pgr_phase_name_ok(const char *name);
void pgr_trace_mark(struct pgr *p, const char *name);

#endif /* PGR_DAEMON_TRACING_H */
