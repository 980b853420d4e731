/* SPDX-License-Identifier: MIT */
/*
 * t-sim.c - see t-sim.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t-sim.h"
#include "tap.h"

struct trace *t_trace(const char *text)
{
	struct trace *t = calloc(1, sizeof(*t));
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!t || !f) {
		t_ok(0, "cannot set up a trace");
		exit(1);
	}
	if (trace_read(t, f, "test.trace", TF_TEXT)) {
		t_ok(0, "trace parses: %s", t->err);
		fclose(f);
		trace_release(t);
		free(t);
		return NULL;
	}
	fclose(f);
	return t;
}

void t_trace_free(struct trace *t)
{
	if (!t)
		return;
	trace_release(t);
	free(t);
}

struct sim *t_run(const char *text, uint64_t pages, uint64_t swap,
		  const char *const *sets)
{
	struct trace *t = t_trace(text);
	struct sim_opts o = { .budget = pages, .swap = swap, .check = true };
	char err[256];
	struct sim *s;

	if (!t)
		return NULL;
	s = sim_create(t, &o, err, sizeof(err));
	if (!s) {
		t_ok(0, "simulation set up: %s", err);
		t_trace_free(t);
		return NULL;
	}
	for (size_t i = 0; sets && sets[i]; i++) {
		const char *why;

		if (sim_set(s, sets[i], &why)) {
			t_ok(0, "set %s: %s", sets[i], why);
			t_sim_free(s);
			return NULL;
		}
	}
	if (sim_run(s)) {
		t_ok(0, "simulation runs: %s", s->err);
		t_sim_free(s);
		return NULL;
	}
	if (s->expect_failures) {
		t_ok(0, "%u expectations of the trace failed",
		     s->expect_failures);
		t_sim_free(s);
		return NULL;
	}
	return s;
}

void t_sim_free(struct sim *s)
{
	struct trace *t;

	if (!s)
		return;
	t = (struct trace *)s->t;
	sim_destroy(s);
	t_trace_free(t);
}

uint64_t t_stat(const struct sim *s, const char *name)
{
	uint64_t v;

	if (sim_stat(s, name, -1, &v)) {
		t_ok(0, "unknown counter %s", name);
		exit(1);
	}
	return v;
}

uint64_t t_phase(const struct sim *s, const char *phase, const char *name)
{
	for (size_t p = 0; p < s->nr_phases; p++) {
		const struct pgr_phase *ph = &s->phases[p];
		const struct sim_phase_counts *c = &s->phase_counts[p];

		if (strcmp(ph->name, phase))
			continue;
		if (!strcmp(name, "misses"))
			return c->end.misses - c->start.misses;
		if (!strcmp(name, "refs"))
			return c->end.refs - c->start.refs;
		for (int i = 0; i < POL_NR_ITEMS; i++)
			if (!strcmp(pol_item_name((enum pol_item)i), name))
				return ph->end[i] - ph->start[i];
	}
	t_ok(0, "no phase %s or counter %s", phase, name);
	exit(1);
}

/* ---- the scripted backend ------------------------------------------------ */

static void be_young(void *ctx, uint32_t i, struct pol_refs *r)
{
	struct t_be *b = ctx;

	if (i >= T_BE_PAGES)
		return;			/* beyond the script: idle, unmapped */
	r->young = b->young[i];
	r->vmflags = b->vmflags[i];
	r->mapped = b->mapped[i];
	if (b->keep_young && r->young)
		r->kept = true;		/* young_clear() clears */
	else
		b->young[i] = 0;	/* test-and-clear */
}

static void be_young_clear(void *ctx, uint32_t i)
{
	struct t_be *b = ctx;

	if (i < T_BE_PAGES) {
		b->young[i] = 0;
		b->cleared[i]++;
	}
}

static int be_unmap(void *ctx, uint32_t i)
{
	struct t_be *b = ctx;

	if (!b->unmap_err && i < T_BE_PAGES)
		b->mapped[i] = false;
	return b->unmap_err;
}

static enum pol_writeout be_writeout(void *ctx, uint32_t i)
{
	struct t_be *b = ctx;

	b->nr_writeouts++;
	if (b->writeout == POL_WRITEOUT_DONE || b->writeout ==
	    POL_WRITEOUT_STARTED) {
		if (b->swap_free)
			b->swap_free--;
	}
	return b->writeout;
}

static int be_evict(void *ctx, uint32_t i, uint64_t shadow)
{
	struct t_be *b = ctx;

	if (b->evict_err)
		return b->evict_err;
	if (b->nr_evicted < 4096) {
		b->evicted[b->nr_evicted] = i;
		b->shadows[b->nr_evicted++] = shadow;
	}
	return 0;
}

static void be_unmap_flush(void *ctx)
{
	struct t_be *b = ctx;

	b->nr_flushes++;
	b->evicted_at_flush = b->nr_evicted;
}

static void be_swap_space(void *ctx, uint64_t *total, uint64_t *free)
{
	struct t_be *b = ctx;

	*total = b->swap_total;
	*free = b->swap_free;
}

static bool be_swap_drop(void *ctx, uint32_t i)
{
	struct t_be *b = ctx;

	b->swap_dropped = true;
	b->swap_free++;
	return true;
}

static void be_event(void *ctx, const struct pol_event *ev)
{
	struct t_be *b = ctx;

	b->events[b->nr_events++ % 256] = *ev;
}

static const struct pol_backend t_backend = {
	.young = be_young, .young_clear = be_young_clear,
	.unmap = be_unmap, .writeout = be_writeout,
	.evict = be_evict, .unmap_flush = be_unmap_flush,
	.swap_space = be_swap_space,
	.swap_drop = be_swap_drop, .event = be_event,
};

struct pol *t_pol_at(struct t_be *be, struct pol_page *first, size_t stride,
		     uint32_t nr, uint64_t budget)
{
	struct pol_setup s = {
		.budget = budget, .pages = first, .page_stride = stride,
		.nr_pages = nr, .backend = &t_backend, .ctx = be,
	};

	return pol_create(&s);
}

struct pol *t_pol(struct t_be *be, uint32_t nr, uint64_t budget)
{
	return t_pol_at(be, calloc(nr, sizeof(struct pol_page)),
			sizeof(struct pol_page), nr, budget);
}

void t_pol_free(struct pol *pol)
{
	struct pol_page *pages = pol_page(pol, 0);

	pol_destroy(pol);
	free(pages);
}

uint32_t t_add(struct pol *pol, bool anon)
{
	struct pol_add how = { .anon = anon, .inode = POL_NONE };
	uint32_t i;

	if (pol_page_alloc(pol, POL_ROOT, &i) != POL_ALLOC_OK) {
		t_ok(0, "allocation");
		exit(1);
	}
	pol_page_add(pol, i, &how);
	return i;
}

void t_check(const struct pol *pol, const char *when)
{
	const char *what;

	if (pol_check(pol, &what))
		t_ok(0, "invariants after %s: %s", when, what);
}
