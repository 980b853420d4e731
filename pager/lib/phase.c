/* SPDX-License-Identifier: MIT */
/*
 * phase.c - counters per phase, for `pager sim` and the daemon alike
 * (phase.h).
 */
#include <stdio.h>
#include <string.h>

#include "phase.h"
#include "util.h"

/* The counters a reader of a seed experiment compares phase by phase. */
static const enum pol_item deltas[] = {
	POL_PGFAULT, POL_PGMAJFAULT, POL_PSWPIN, POL_PSWPOUT,
	POL_PGSCAN_ANON, POL_PGSCAN_FILE, POL_PGSTEAL_ANON, POL_PGSTEAL_FILE,
	POL_PGACTIVATE, POL_PGDEACTIVATE,
	POL_WORKINGSET_REFAULT_ANON, POL_WORKINGSET_REFAULT_FILE,
	POL_WORKINGSET_ACTIVATE_ANON, POL_WORKINGSET_ACTIVATE_FILE,
	POL_WORKINGSET_RESTORE_ANON, POL_WORKINGSET_RESTORE_FILE,
	POL_OOM_KILL,
};

/* Gauges, as they are at the phase's end. */
static const enum pol_item gauges[] = {
	POL_NR_INACTIVE_ANON, POL_NR_ACTIVE_ANON, POL_NR_INACTIVE_FILE,
	POL_NR_ACTIVE_FILE,
};

void pgr_phase_snapshot(const struct pol *pol, uint64_t v[POL_NR_ITEMS])
{
	for (int i = 0; i < POL_NR_ITEMS; i++)
		v[i] = pol_read(pol, -1, (enum pol_item)i);
}

void pgr_phase_mark(struct pgr_phase **v, size_t *nr, size_t *cap,
		    const char *name, const uint64_t now[POL_NR_ITEMS])
{
	size_t len = strlen(name);
	unsigned int dup = 0;
	struct pgr_phase *ph;

	if (*nr)
		memcpy((*v)[*nr - 1].end, now, sizeof((*v)[0].end));
	pgr_grow(v, cap, *nr + 1, sizeof(**v));
	for (size_t i = 0; i < *nr; i++)
		dup += !strncmp((*v)[i].name, name, len) &&
		       ((*v)[i].name[len] == 0 || (*v)[i].name[len] == '#');
	ph = &(*v)[(*nr)++];
	if (dup)
		snprintf(ph->name, sizeof(ph->name), "%.40s#%u", name, dup + 1);
	else
		snprintf(ph->name, sizeof(ph->name), "%s", name);
	memcpy(ph->start, now, sizeof(ph->start));
	memcpy(ph->end, now, sizeof(ph->end));
}

void pgr_phase_lines(const struct pgr_phase *ph,
		     void (*line)(void *arg, const char *text), void *arg)
{
	char buf[128];

	for (size_t k = 0; k < sizeof(deltas) / sizeof(*deltas); k++) {
		snprintf(buf, sizeof(buf), "phase.%s.%s %llu", ph->name,
			 pol_item_name(deltas[k]), (unsigned long long)
			 (ph->end[deltas[k]] - ph->start[deltas[k]]));
		line(arg, buf);
	}
	for (size_t k = 0; k < sizeof(gauges) / sizeof(*gauges); k++) {
		snprintf(buf, sizeof(buf), "phase.%s.%s %llu", ph->name,
			 pol_item_name(gauges[k]),
			 (unsigned long long)ph->end[gauges[k]]);
		line(arg, buf);
	}
}
