/* SPDX-License-Identifier: MIT */
/*
 * sim.c - setting up and tearing down a simulation: descriptors sized
 * from the trace, groups created with their limits, the policy instance
 * over the in-memory backend, and the knobs the simulator adds to the
 * policy's tunables (sim.*).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../lib/util.h"

static int create_groups(struct sim *s, char *err, size_t len)
{
	const struct trace *t = s->t;
	static const char *const keys[3] = { "memory.min", "memory.low",
					     "memory.max" };

	s->groups = pgr_xcalloc(t->nr_groups + 1, sizeof(*s->groups));
	for (uint32_t g = 0; g < t->nr_groups; g++) {
		const struct t_group *tg = &t->groups[g];
		int parent = tg->parent == T_NONE ? POL_ROOT :
			     s->groups[tg->parent];
		int id = pol_group_create(s->pol, tg->name, parent);

		if (id < 0) {
			snprintf(err, len, "cannot create group '%s': %s",
				 tg->name, strerror(-id));
			return -1;
		}
		s->groups[g] = id;
		for (int k = 0; k < 3; k++) {
			char key[64];
			const char *why;

			if (!tg->limits[k][0])
				continue;
			snprintf(key, sizeof(key), "%s@%s", keys[k], tg->name);
			if (pol_set(s->pol, key, tg->limits[k], &why)) {
				snprintf(err, len, "group %s: %s=%s: %s",
					 tg->name, keys[k], tg->limits[k], why);
				return -1;
			}
		}
	}
	return 0;
}

static int group_of(const struct sim *s, uint32_t tgroup)
{
	return tgroup == T_NONE ? POL_ROOT : s->groups[tgroup];
}

struct sim *sim_create(const struct trace *t, const struct sim_opts *o,
		       char *err, size_t len)
{
	struct sim *s = pgr_xcalloc(1, sizeof(*s));
	struct pol_setup setup;

	s->t = t;
	s->o = *o;
	if (o->budget < 64 || o->budget > UINT32_MAX / 2) {
		snprintf(err, len, "memory budget must be 64 pages (256K) to "
			 "2^31 pages");
		free(s);
		return NULL;
	}
	s->nr_pages = (uint32_t)o->budget;
	s->pages = pgr_xcalloc(s->nr_pages, sizeof(*s->pages));
	s->pinodes = pgr_xcalloc(t->nr_inodes, sizeof(*s->pinodes));
	s->regions = pgr_xcalloc(t->nr_regions, sizeof(*s->regions));
	s->inodes = pgr_xcalloc(t->nr_inodes, sizeof(*s->inodes));
	s->procs = pgr_xcalloc(t->nr_procs, sizeof(*s->procs));
	for (uint32_t i = 0; i < s->nr_pages; i++)
		s->pages[i].swap = T_NONE;
	setup = (struct pol_setup){
		.budget = o->budget, .pages = s->pages,
		.page_stride = sizeof(struct sim_page),
		.nr_pages = s->nr_pages, .inodes = s->pinodes,
		.nr_inodes = t->nr_inodes, .backend = &sim_backend, .ctx = s,
	};
	s->pol = pol_create(&setup);
	if (!s->pol) {
		snprintf(err, len, "cannot create the policy instance");
		sim_destroy(s);
		return NULL;
	}
	if (create_groups(s, err, len)) {
		sim_destroy(s);
		return NULL;
	}
	for (uint32_t i = 0; i < t->nr_inodes; i++) {
		s->inodes[i].npages = t->inodes[i].npages;
		s->inodes[i].group = group_of(s, t->inodes[i].group);
	}
	for (uint32_t i = 0; i < t->nr_procs; i++) {
		s->procs[i].group = group_of(s, t->procs[i].group);
		s->procs[i].live = true;
	}
	return s;
}

int sim_set(struct sim *s, const char *kv, const char **why)
{
	char key[96];
	const char *eq = strchr(kv, '='), *val;
	uint64_t v;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
		*why = "expected KEY=VALUE";
		return -EINVAL;
	}
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = 0;
	val = eq + 1;
	if (!strcmp(key, "sim.writeback")) {
		if (strcmp(val, "sync") && strcmp(val, "async")) {
			*why = "expected sync or async";
			return -EINVAL;
		}
		s->async_writeback = val[0] == 'a';
		return 0;
	}
	if (!strcmp(key, "sim.kswapd_delay")) {
		if (pgr_parse_u64(val, &v) || v > 1000000) {
			*why = "expected allocations, 0..1000000";
			return -EINVAL;
		}
		s->kswapd_delay = (unsigned int)v;
		return 0;
	}
	if (!strcmp(key, "sim.direct_reclaimers")) {
		if (pgr_parse_u64(val, &v) || v < 1 || v > 1024) {
			*why = "expected reclaimers, 1..1024";
			return -EINVAL;
		}
		s->direct_reclaimers = (unsigned int)v;
		return 0;
	}
	return pol_set(s->pol, key, val, why);
}

void sim_destroy(struct sim *s)
{
	if (!s)
		return;
	for (uint32_t r = 0; s->regions && r < s->t->nr_regions; r++) {
		free(s->regions[r].slot);
		free(s->regions[r].fmap);
	}
	for (uint32_t i = 0; s->inodes && i < s->t->nr_inodes; i++) {
		free(s->inodes[i].slot);
		free(s->inodes[i].chunk);
		free(s->inodes[i].mappers);
	}
	pol_destroy(s->pol);
	free(s->pages);
	free(s->pinodes);
	free(s->regions);
	free(s->inodes);
	free(s->procs);
	free(s->groups);
	free(s->swap);
	free(s->swap_chunk);
	free(s->swap_free);
	free(s->node_fifo);
	free(s->wb_queue);
	free(s->phases);
	free(s->phase_counts);
	free(s);
}
