/* SPDX-License-Identifier: MIT */
/*
 * knobs.h - what knobs.c offers the rest of the daemon: the daemon's
 * tunables (the policy has its own).
 */
#ifndef PGR_DAEMON_KNOBS_H
#define PGR_DAEMON_KNOBS_H

#include "../pgr.h"

void pgr_knobs_init(struct pgr *p);
/* Set @key to @val: 0, -ENOENT (not a knob of ours), -EINVAL (*why). */
int pgr_knob_set(struct pgr *p, const char *key, const char *val,
		 const char **why);
int pgr_knob_get(const struct pgr *p, const char *key, char *buf,
		 size_t len);
const char *pgr_knob_name(unsigned int i);
/* Either kind of tunable, as `pager set` and --set take them. */
int pgr_tunable_set(struct pgr *p, const char *key, const char *val,
		    const char **why);

#endif /* PGR_DAEMON_KNOBS_H */
