/* SPDX-License-Identifier: MIT */
/*
 * report.c - what a simulation says: counters as `name value` lines,
 * per-phase deltas, and the checks of `expect` lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "../lib/util.h"

void sim_phase_end(struct sim *s)
{
	if (!s->nr_phases)
		return;
	s->phase_counts[s->nr_phases - 1].end = s->c;
	pgr_phase_snapshot(s->pol, s->phases[s->nr_phases - 1].end);
}

void sim_phase_start(struct sim *s, const char *name)
{
	uint64_t now[POL_NR_ITEMS];

	/* The open phase's policy counters end at the mark, below. */
	if (s->nr_phases)
		s->phase_counts[s->nr_phases - 1].end = s->c;
	pgr_grow(&s->phase_counts, &s->cap_phase_counts, s->nr_phases + 1,
		 sizeof(*s->phase_counts));
	s->phase_counts[s->nr_phases].start = s->c;
	s->phase_counts[s->nr_phases].end = s->c;
	pgr_phase_snapshot(s->pol, now);
	pgr_phase_mark(&s->phases, &s->nr_phases, &s->cap_phases, name, now);
}

int sim_stat(const struct sim *s, const char *name, int group,
	     uint64_t *value)
{
	if (!strcmp(name, "refs") && group < 0) {
		*value = s->c.refs;
		return 0;
	}
	if (!strcmp(name, "misses") && group < 0) {
		*value = s->c.misses;
		return 0;
	}
	if (!strcmp(name, "swap_used") && group < 0) {
		*value = s->swap_used;
		return 0;
	}
	if (!pol_lru_gen_seq(s->pol, group, name, value))
		return 0;
	for (int i = 0; i < POL_NR_ITEMS; i++) {
		if (!strcmp(pol_item_name((enum pol_item)i), name)) {
			*value = pol_read(s->pol, group, (enum pol_item)i);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- expect ------------------------------------------------------------- */

static const char *const cmp_names[] = { "=", "!=", "<", "<=", ">", ">=" };

static bool compare(uint64_t a, enum t_cmp cmp, uint64_t b)
{
	switch (cmp) {
	case CMP_EQ: return a == b;
	case CMP_NE: return a != b;
	case CMP_LT: return a < b;
	case CMP_LE: return a <= b;
	case CMP_GT: return a > b;
	case CMP_GE: return a >= b;
	}
	return false;
}

/* The states a page slot is in now, as a mask of enum t_state. */
static uint32_t page_states(const struct sim *s, const struct t_expect *x)
{
	uint64_t v = 0, fv = 0;
	uint32_t st = 0, i = T_NONE;
	bool mapped = false, oldest;
	unsigned int age;

	if (x->file) {
		const struct sim_inode *n = &s->inodes[x->obj];

		v = n->slot && x->off < n->npages ? n->slot[x->off] : 0;
	} else {
		const struct sim_region *R = &s->regions[x->obj];

		if (!R->live)
			return ST_ABSENT | ST_UNMAPPED;
		v = R->slot ? R->slot[x->off] : 0;
		if (!v && R->inode != T_NONE) {
			/* A file page through this mapping (none past EOF). */
			const struct sim_inode *n = &s->inodes[R->inode];
			uint64_t fp = R->foff + x->off;

			fv = n->slot && fp < n->npages ? n->slot[fp] : 0;
			mapped = R->fmap[x->off] & FMAP_MAPPED;
			v = fv;
		} else {
			mapped = v & SLOT_MAPPED;
		}
	}
	switch (slot_tag(v)) {
	case SLOT_EMPTY:
		st |= ST_ABSENT;
		break;
	case SLOT_SHADOW:
		st |= ST_ABSENT | ST_SHADOW;
		break;
	case SLOT_SWAP:
		st |= ST_ABSENT | ST_SWAPPED;
		if (s->swap[v >> 2].shadow)
			st |= ST_SHADOW;
		break;
	case SLOT_PAGE:
		i = slot_page(v);
		st |= ST_RESIDENT;
		break;
	}
	if (i != T_NONE) {
		const struct pol_page *p = &s->pages[i].pol;

		if (x->file)
			mapped = sim_page_mapped(s, i);
		if (pol_page_active(s->pol, i))
			st |= ST_ACTIVE;
		else if (p->lru == POL_LRU_UNEVICTABLE)
			st |= ST_UNEVICTABLE;
		else
			st |= ST_INACTIVE;
		st |= p->flags & POL_PG_REFERENCED ? ST_REFERENCED :
						     ST_UNREFERENCED;
		if (p->flags & POL_PG_WORKINGSET)
			st |= ST_WORKINGSET;
		if (p->flags & POL_PG_DIRTY)
			st |= ST_DIRTY;
		if (pol_page_gen(s->pol, i, &age, &oldest)) {
			st |= age == 0 ? ST_MAX_SEQ : age == 1 ? ST_MAX_SEQ_1 : 0;
			st |= oldest ? ST_MIN_SEQ : 0;
		}
	}
	st |= mapped ? ST_MAPPED : ST_UNMAPPED;
	return st;
}

static void fmt_states(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int k = 0; k < T_NR_STATES; k++)
		if (mask & (1u << k))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
					      "%s%s", n ? " " : "",
					      t_state_names[k]);
}

void sim_expect(struct sim *s, const struct t_expect *x)
{
	char want[160], got[160];
	uint64_t v;

	if (x->page) {
		uint32_t st = page_states(s, x);

		if ((st & x->states) == x->states)
			return;
		fmt_states(x->states, want, sizeof(want));
		fmt_states(st, got, sizeof(got));
		fprintf(stderr, "%s:%u: expected page %s, it is %s\n",
			s->t->name, x->line, want, got);
		s->expect_failures++;
		return;
	}
	if (sim_stat(s, x->counter, x->group == T_NONE ? -1 :
		     s->groups[x->group], &v)) {
		fprintf(stderr, "%s:%u: unknown counter '%s'\n", s->t->name,
			x->line, x->counter);
		s->expect_failures++;
		return;
	}
	if (compare(v, x->cmp, x->value))
		return;
	fprintf(stderr, "%s:%u: expected %s %s %llu, got %llu\n", s->t->name,
		x->line, x->counter, cmp_names[x->cmp],
		(unsigned long long)x->value, (unsigned long long)v);
	s->expect_failures++;
}

/* ---- output --------------------------------------------------------------- */

static void print_line(void *arg, const char *text)
{
	fprintf(arg, "%s\n", text);
}

static void print_phase(const struct sim *s, size_t k, FILE *out)
{
	const struct pgr_phase *p = &s->phases[k];
	const struct sim_phase_counts *c = &s->phase_counts[k];

	fprintf(out, "phase.%s.refs %llu\n", p->name,
		(unsigned long long)(c->end.refs - c->start.refs));
	fprintf(out, "phase.%s.misses %llu\n", p->name,
		(unsigned long long)(c->end.misses - c->start.misses));
	pgr_phase_lines(p, print_line, out);
}

void sim_print(const struct sim *s, FILE *out)
{
	fprintf(out, "refs %llu\n", (unsigned long long)s->c.refs);
	fprintf(out, "misses %llu\n", (unsigned long long)s->c.misses);
	for (int i = 0; i < POL_NR_ITEMS; i++)
		fprintf(out, "%s %llu\n", pol_item_name((enum pol_item)i),
			(unsigned long long)pol_read(s->pol, -1,
						     (enum pol_item)i));
	fprintf(out, "swap_used %llu\n", (unsigned long long)s->swap_used);
	fprintf(out, "swap_peak %llu\n", (unsigned long long)s->swap_peak);
	for (size_t p = 0; p < s->nr_phases; p++)
		print_phase(s, p, out);
	if (!s->o.per_group)
		return;
	for (unsigned int g = 1; g < pol_nr_groups(s->pol); g++)
		for (int i = 0; i < POL_NR_ITEMS; i++)
			fprintf(out, "group.%s.%s %llu\n",
				pol_group_name(s->pol, (int)g),
				pol_item_name((enum pol_item)i),
				(unsigned long long)pol_read(s->pol, (int)g,
							     (enum pol_item)i));
}
