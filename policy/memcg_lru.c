/* SPDX-License-Identifier: MIT */
/*
 * memcg_lru.c - MGLRU's memcg LRU: the order in which root reclaim
 * visits the groups (../shared/docs/mglru.md §5.3; vmscan.c's
 * lru_gen_rotate_memcg(), shrink_one(), shrink_many()).
 *
 * Every group is on one of the lists fifo[gen][bin]: two generations of
 * groups (old = seq % 3, young = (seq + 1) % 3; the third slot keeps a
 * stale reader from taking young for old) of 8 bins each, the bin drawn
 * at random at every move. Root reclaim starts at a random bin of the old
 * generation and walks every bin; each group visited is moved by what
 * shrink_one() says of it:
 *
 *   below memory.min                     YOUNG: skipped until the old
 *                                        generation is used up
 *   below memory.low, not yet at a tail  TAIL: met again later, then
 *                                        reclaimed
 *   aged while reclaimed                 YOUNG
 *   not aged, still sizable              stays
 *   not aged, too small                  TAIL once, then YOUNG
 *
 * When the old generation has no group left, seq goes up: young becomes
 * old. The random numbers come from a generator inside struct pol, so the
 * same calls still give the same decisions.
 */
#include "internal.h"

enum {
	MEMCG_LRU_NOP,
	MEMCG_LRU_HEAD,
	MEMCG_LRU_TAIL,
	MEMCG_LRU_OLD,
	MEMCG_LRU_YOUNG,
};

static unsigned int memcg_gen(uint64_t seq)
{
	return (unsigned int)(seq % MEMCG_NR_GENS);
}

/* get_random_u32_below(MEMCG_NR_BINS), from the instance's xorshift32. */
static unsigned int random_bin(struct pol *pol)
{
	uint32_t x = pol->memcg_lru.random;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	pol->memcg_lru.random = x;
	return x % MEMCG_NR_BINS;
}

static void bin_del(struct pol *pol, int id)
{
	struct group *g = pol__grp(pol, id);
	struct memcg_bin *b = &pol->memcg_lru.fifo[g->mlru_gen][g->mlru_bin];

	if (g->mlru_prev >= 0)
		pol__grp(pol, g->mlru_prev)->mlru_next = g->mlru_next;
	else
		b->head = g->mlru_next;
	if (g->mlru_next >= 0)
		pol__grp(pol, g->mlru_next)->mlru_prev = g->mlru_prev;
	else
		b->tail = g->mlru_prev;
	g->mlru_next = g->mlru_prev = -1;
}

static void bin_add(struct pol *pol, int id, unsigned int gen,
		    unsigned int bin, bool head)
{
	struct group *g = pol__grp(pol, id);
	struct memcg_bin *b = &pol->memcg_lru.fifo[gen][bin];

	g->mlru_gen = (uint8_t)gen;
	g->mlru_bin = (uint8_t)bin;
	if (head) {
		g->mlru_prev = -1;
		g->mlru_next = b->head;
		if (b->head >= 0)
			pol__grp(pol, b->head)->mlru_prev = id;
		else
			b->tail = id;
		b->head = id;
	} else {
		g->mlru_next = -1;
		g->mlru_prev = b->tail;
		if (b->tail >= 0)
			pol__grp(pol, b->tail)->mlru_next = id;
		else
			b->head = id;
		b->tail = id;
	}
}

void pol__memcg_lru_init(struct pol *pol)
{
	struct memcg_lru *m = &pol->memcg_lru;

	for (int gen = 0; gen < MEMCG_NR_GENS; gen++)
		for (int bin = 0; bin < MEMCG_NR_BINS; bin++)
			m->fifo[gen][bin].head = m->fifo[gen][bin].tail = -1;
	m->random = 0x9e3779b9u;	/* any nonzero seed */
}

/* lru_gen_online_memcg(): at the tail of a bin of the old generation. */
void pol__memcg_lru_online(struct pol *pol, int id)
{
	unsigned int gen = memcg_gen(pol->memcg_lru.seq);

	bin_add(pol, id, gen, random_bin(pol), false);
	pol__grp(pol, id)->mlru_seg = 0;
	pol->memcg_lru.nr_memcgs[gen]++;
}

/* lru_gen_rotate_memcg() */
static void rotate(struct pol *pol, int id, int op)
{
	struct memcg_lru *m = &pol->memcg_lru;
	struct group *g = pol__grp(pol, id);
	unsigned int bin = random_bin(pol);
	unsigned int old = g->mlru_gen, new = old;
	int seg = 0;

	if (op == MEMCG_LRU_HEAD)
		seg = MEMCG_LRU_HEAD;
	else if (op == MEMCG_LRU_TAIL)
		seg = MEMCG_LRU_TAIL;
	else if (op == MEMCG_LRU_OLD)
		new = memcg_gen(m->seq);
	else
		new = memcg_gen(m->seq + 1);	/* MEMCG_LRU_YOUNG */
	g->mlru_seg = (uint8_t)seg;
	bin_del(pol, id);
	bin_add(pol, id, new, bin, op == MEMCG_LRU_HEAD || op == MEMCG_LRU_OLD);
	m->nr_memcgs[old]--;
	m->nr_memcgs[new]++;
	if (!m->nr_memcgs[old] && old == memcg_gen(m->seq))
		m->seq++;
}

/* After a limit reclaim of @id (lru_gen_shrink_lruvec()): it aged. */
void pol__memcg_lru_young(struct pol *pol, int id)
{
	rotate(pol, id, MEMCG_LRU_YOUNG);
}

bool pol__memcg_lru_is_young(const struct pol *pol, int id)
{
	return pol__grp(pol, id)->mlru_gen ==
	       memcg_gen(pol->memcg_lru.seq + 1);
}

/* shrink_one(): reclaim group @id; how to move it. Protection was
 * calculated for every group by the caller. */
static int shrink_one(struct pol *pol, int id, struct scan_control *sc)
{
	struct group *g = pol__grp(pol, id);
	bool success;

	if (pol__below(pol, POL_ROOT, id, false))
		return MEMCG_LRU_YOUNG;
	if (pol__below(pol, POL_ROOT, id, true) && g->mlru_seg != MEMCG_LRU_TAIL)
		return MEMCG_LRU_TAIL;	/* met again at the tail: reclaimed */
	success = pol__lru_gen_shrink_lruvec(pol, id, sc);
	pol__shrink_slab(pol, id, sc);
	if (success)
		return MEMCG_LRU_YOUNG;	/* groups are never offline here */
	if (pol__lru_gen_is_sizable(pol, id, sc))
		return MEMCG_LRU_NOP;
	/* one retry if too small */
	return g->mlru_seg != MEMCG_LRU_TAIL ? MEMCG_LRU_TAIL : MEMCG_LRU_YOUNG;
}

uint64_t pol_lru_gen_shrink_one(struct pol *pol, int group, int priority)
{
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX, .root = POL_ROOT,
		.priority = priority, .may_writepage = !pol->t.laptop_mode,
		.may_unmap = true, .may_swap = true,
	};
	int op;

	if (!pol__lru_gen_enabled(pol) || group < 0 ||
	    (unsigned int)group >= pol->nr_groups || priority < 0 ||
	    priority > DEF_PRIORITY)
		return 0;
	for (int gr = POL_ROOT; gr >= 0; gr = pol__group_next(pol, gr, POL_ROOT))
		pol__calculate_protection(pol, POL_ROOT, gr);
	op = shrink_one(pol, group, &sc);
	if (op)
		rotate(pol, group, op);
	return sc.nr_reclaimed;
}

/*
 * shrink_many(): from a random bin of the old generation through every
 * bin, each group of that generation once (a group sent to a tail of the
 * same generation is met again), until should_abort_scan(). A group's
 * move is made when the walk has gone past it, as the kernel's is.
 */
void pol__memcg_lru_shrink_many(struct pol *pol, struct scan_control *sc)
{
	unsigned int gen = memcg_gen(pol->memcg_lru.seq);
	unsigned int first_bin = random_bin(pol), bin = first_bin;

	do {
		int pos = pol->memcg_lru.fifo[gen][bin].head;
		int last = -1, op = MEMCG_LRU_NOP;

		while (pos >= 0) {
			int next;

			if (op)
				rotate(pol, last, op);
			op = shrink_one(pol, pos, sc);
			last = pos;
			next = pol__grp(pol, pos)->mlru_next;
			if (pol__lru_gen_should_abort(pol, sc)) {
				if (op)
					rotate(pol, last, op);
				return;
			}
			pos = next;
		}
		if (op)
			rotate(pol, last, op);
		bin = (bin + 1) % MEMCG_NR_BINS;
	} while (bin != first_bin);
}
