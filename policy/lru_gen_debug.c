/* SPDX-License-Identifier: MIT */
/*
 * lru_gen_debug.c - MGLRU's debugfs files (../shared/docs/mglru.md §7.2,
 * §7.3): /sys/kernel/debug/lru_gen and lru_gen_full as text, and the
 * aging and eviction commands written to lru_gen, with the kernel's
 * errors.
 *
 * A group is a memcg: its id is its index + 1 (the root memcg is 1), its
 * path "/" for the root and "/parent/child" below. There is one node, 0.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* The text goes into buf (NUL-terminated, cut at len), n counts all of
 * it. The library formats by hand: it calls no stdio (policy-purity). */
struct out {
	char *buf;
	size_t len, n;
};

static void put_c(struct out *o, char c)
{
	if (o->n + 1 < o->len) {
		o->buf[o->n] = c;
		o->buf[o->n + 1] = 0;
	}
	o->n++;
}

static void put_s(struct out *o, const char *s)
{
	while (*s)
		put_c(o, *s++);
}

/* printf's "%*llu": @v right-aligned in @width. */
static void put_u(struct out *o, uint64_t v, int width)
{
	char t[24];

	pol__fmt_u64(t, sizeof(t), v);
	for (int pad = width - (int)strlen(t); pad > 0; pad--)
		put_c(o, ' ');
	put_s(o, t);
}

/* cgroup_path(): "/" for the root, "/a/b" below. */
static void put_path(struct out *o, const struct pol *pol, int group)
{
	int chain[POL_MAX_GROUPS], n = 0;

	for (int g = group; g > POL_ROOT && n < POL_MAX_GROUPS;
	     g = pol__grp(pol, g)->parent)
		chain[n++] = g;
	if (!n)
		put_c(o, '/');
	while (n-- > 0) {
		put_c(o, '/');
		put_s(o, pol__grp(pol, chain[n])->name);
	}
}

/* lru_gen_seq_show_full()'s tier lines after the line of @seq. */
static void show_tiers(struct out *o, const struct lru_gen *g, uint64_t seq)
{
	for (int tier = 0; tier < MAX_NR_TIERS; tier++) {
		put_s(o, "            ");
		put_u(o, (uint64_t)tier, 10);
		for (int type = 0; type < 2; type++) {
			const char *s = "xxx";
			uint64_t n[3] = { 0, 0, 0 };

			if (seq == g->max_seq) {
				s = "RTx";
				n[0] = g->avg_refaulted[type][tier];
				n[1] = g->avg_total[type][tier];
			} else if (seq == g->min_seq[type]) {
				s = "rep";
				n[0] = g->refaulted[type][tier];
				n[1] = g->evicted[type][tier];
				n[2] = g->protected[type][tier];
			}
			for (int i = 0; i < 3; i++) {
				put_c(o, ' ');
				put_u(o, n[i], 10);
				put_c(o, s[i]);
			}
		}
		put_c(o, '\n');
	}
}

int pol_lru_gen_seq(const struct pol *pol, int group, const char *name,
		    uint64_t *value)
{
	const struct lru_gen *g;

	if (group < 0)
		group = POL_ROOT;
	if ((unsigned int)group >= pol->nr_groups)
		return -ENOENT;
	g = &pol__grp(pol, group)->lv.lrugen;
	if (!strcmp(name, "lru_gen.max_seq"))
		*value = g->max_seq;
	else if (!strcmp(name, "lru_gen.min_seq_anon"))
		*value = g->min_seq[0];
	else if (!strcmp(name, "lru_gen.min_seq_file"))
		*value = g->min_seq[1];
	else if (!strcmp(name, "lru_gen.memcg_young"))
		*value = pol__memcg_lru_is_young(pol, group);
	else
		return -ENOENT;
	return 0;
}

size_t pol_lru_gen_show(const struct pol *pol, bool full, char *buf,
			size_t len)
{
	struct out o = { buf, len, 0 };
	uint64_t now = pol__lru_gen_now(pol);

	if (len)
		buf[0] = 0;
	for (int gr = POL_ROOT; gr >= 0; gr = pol__group_next(pol, gr, POL_ROOT)) {
		const struct lru_gen *g = &pol__grp(pol, gr)->lv.lrugen;
		uint64_t seq;

		put_s(&o, "memcg ");
		put_u(&o, (uint16_t)(gr + 1), 5);
		put_c(&o, ' ');
		put_path(&o, pol, gr);
		put_s(&o, "\n node ");
		put_u(&o, 0, 5);
		put_c(&o, '\n');
		if (!full)
			seq = pol__evictable_min_seq(g, MAX_SWAPPINESS / 2);
		else
			seq = g->max_seq >= MAX_NR_GENS ?
			      g->max_seq - MAX_NR_GENS + 1 : 0;
		for (; seq <= g->max_seq; seq++) {
			unsigned int gen = pol__gen_from_seq(seq);
			uint64_t birth = g->timestamps[gen];

			put_c(&o, ' ');
			put_u(&o, seq, 10);
			put_c(&o, ' ');
			put_u(&o, (uint32_t)(now >= birth ? now - birth : 0), 10);
			for (int type = 0; type < 2; type++) {
				put_c(&o, ' ');
				put_u(&o, g->lists[gen][type].nr, 10);
				put_c(&o, full && seq < g->min_seq[type] ?
					  'x' : ' ');
			}
			put_c(&o, '\n');
			if (full)
				show_tiers(&o, g, seq);
		}
	}
	return o.n;
}

/* ---- commands (lru_gen_seq_write(), run_cmd()) -------------------------- */

#define SWAPPINESS_ANON_ONLY	(MAX_SWAPPINESS + 1)

/* run_eviction(): evict until @seq is gone, @nr pages are freed, or
 * nothing more can be. */
static int run_eviction(struct pol *pol, int group, uint64_t seq, int s,
			uint64_t nr)
{
	struct scan_control sc = {
		.nr_to_reclaim = nr, .root = group, .may_writepage = true,
		.may_unmap = true, .may_swap = true, .priority = 0,
		.swappiness = s + 1,
	};
	const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;

	if (seq + MIN_NR_GENS > g->max_seq)
		return -EINVAL;
	for (;;) {
		if (seq < pol__evictable_min_seq(g, s))
			return 0;
		if (sc.nr_reclaimed >= nr)
			return 0;
		if (!pol__lru_gen_evict(pol, group, &sc, s))
			return 0;
	}
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* A decimal number at *s (spaces first skipped, as scanf's %u): false if
 * none, or one over @max. */
static bool number(const char **s, uint64_t max, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	while (is_space(*p))
		p++;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (max - (uint64_t)(*p - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	*s = p;
	return true;
}

/* One command: "+ memcg node seq [swappiness [force_scan]]" or
 * "- memcg node seq [swappiness [nr_to_reclaim]]", as the kernel's
 * sscanf("%c %u %u %lu %n %u %n %lu %n") reads it: three numbers, two
 * optional ones, nothing after. */
static int run_cmd(struct pol *pol, const char *cur, const char **why)
{
	char cmd = *cur++;
	uint64_t memcg, nid, seq, swap = 0, opt = 0;
	int n = 1, group, s;
	bool has_s, has_opt;
	struct scan_control probe = { .may_swap = true };

	if (number(&cur, UINT32_MAX, &memcg) && number(&cur, UINT32_MAX, &nid) &&
	    number(&cur, UINT64_MAX, &seq)) {
		n = 4;
		if (number(&cur, UINT32_MAX, &swap)) {
			n = 5;
			if (number(&cur, UINT64_MAX, &opt))
				n = 6;
		}
	}
	while (is_space(*cur))
		cur++;
	if (n < 4 || *cur) {
		*why = "expected '+ memcg_id node_id max_gen_nr [swappiness "
		       "[force_scan]]' or '- memcg_id node_id min_gen_nr "
		       "[swappiness [nr_to_reclaim]]'";
		return -EINVAL;
	}
	has_s = n >= 5;
	has_opt = n >= 6;
	if (nid != 0) {
		*why = "no such node (the pager has node 0)";
		return -EINVAL;
	}
	group = (int)memcg - 1;
	if (group < 0 || (unsigned int)group >= pol->nr_groups ||
	    !pol__grp(pol, group)->live) {
		*why = "no such memcg id";
		return -EINVAL;
	}
	if (!has_s)
		s = pol__lru_gen_swappiness(pol, &probe);
	else if (swap > SWAPPINESS_ANON_ONLY) {
		*why = "swappiness above 201";
		return -EINVAL;
	} else
		s = (int)swap;
	if (cmd == '+') {
		const struct lru_gen *g = &pol__grp(pol, group)->lv.lrugen;

		if (seq > g->max_seq) {
			*why = "max_gen_nr beyond max_seq";
			return -EINVAL;
		}
		return pol__inc_max_seq(pol, group, g->max_seq, s) ? 0 : -EEXIST;
	}
	if (cmd == '-') {
		int err = run_eviction(pol, group, seq, s,
				       has_opt ? opt : UINT64_MAX);

		if (err)
			*why = "min_gen_nr + 2 beyond max_seq";
		return err;
	}
	*why = "unknown command (+ ages, - evicts)";
	return -EINVAL;
}

int pol_lru_gen_cmd(struct pol *pol, const char *text, const char **why)
{
	const char *dummy;
	char part[256];

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!pol__lru_gen_enabled(pol)) {
		*why = "lru_gen is not enabled";
		return -EINVAL;
	}
	while (*text) {
		size_t k = 0;
		const char *p = text;
		int err;

		while (text[k] && text[k] != ',' && text[k] != ';' &&
		       text[k] != '\n')
			k++;
		text += k + (text[k] != 0);
		while (k && is_space(*p)) {
			p++;
			k--;
		}
		if (!k)
			continue;
		if (k >= sizeof(part)) {
			*why = "command too long";
			return -EINVAL;
		}
		memcpy(part, p, k);
		part[k] = 0;
		err = run_cmd(pol, part, why);
		if (err)
			return err;	/* the first error stops the rest */
	}
	return 0;
}
