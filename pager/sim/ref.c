/* SPDX-License-Identifier: MIT */
/*
 * ref.c - reference policies for `pager sim --policy lru|clock|opt`:
 * the bounds a reader puts the kernel's policy between.
 *
 *   lru    exact least-recently-used
 *   clock  the classic one-bit clock (second chance)
 *   opt    Belady's optimum: evict the page used furthest in the future
 *
 * They see a page cache of exactly the budget, with no distinction of
 * anon and file, no swap limits, no watermarks. A page is a key: an anon
 * page of a region (each process's own after fork), or a page of a file
 * (whether read or mapped). munmap and MADV_DONTNEED drop anon keys,
 * truncate drops file keys; the next access to them is a miss again.
 */
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "../lib/util.h"

#define NONE UINT32_MAX

struct keys {
	uint64_t *rbase;	/* first key of each region */
	uint64_t *ibase;	/* first key of each inode */
	uint64_t nr;
};

static void keys_init(struct keys *k, const struct trace *t)
{
	k->rbase = pgr_xcalloc(t->nr_regions + 1, sizeof(*k->rbase));
	k->ibase = pgr_xcalloc(t->nr_inodes + 1, sizeof(*k->ibase));
	k->nr = 0;
	for (uint32_t i = 0; i < t->nr_inodes; i++) {
		k->ibase[i] = k->nr;
		k->nr += t->inodes[i].npages;
	}
	for (uint32_t r = 0; r < t->nr_regions; r++) {
		k->rbase[r] = k->nr;
		if (!(t->regions[r].flags & R_FILE))
			k->nr += t->regions[r].npages;
	}
}

static void keys_release(struct keys *k)
{
	free(k->rbase);
	free(k->ibase);
}

/* The key of an access event. */
static uint64_t access_key(const struct trace *t, const struct keys *k,
			   const struct ev *e)
{
	const struct t_region *r = &t->regions[e->obj];

	if (r->flags & R_FILE)
		return k->ibase[r->inode] + r->foff + e->off;
	return k->rbase[e->obj] + e->off;
}

/*
 * Walk the trace, calling @touch for every page access and @drop for
 * every key that leaves (unmapped anon, truncated file). @pos counts
 * accesses from 0.
 */
struct walker {
	void (*touch)(void *ctx, uint64_t key, uint64_t pos);
	void (*drop)(void *ctx, uint64_t key);
	void *ctx;
};

static void walk(const struct trace *t, const struct keys *k,
		 const struct walker *w)
{
	uint64_t pos = 0;

	for (size_t i = 0; i < t->nr_ev; i++) {
		const struct ev *e = &t->ev[i];
		const struct t_region *r;

		switch (e->op) {
		case EV_ACCESS:
			w->touch(w->ctx, access_key(t, k, e), pos++);
			break;
		case EV_FD:
			for (uint32_t p = 0; p < e->len; p++)
				w->touch(w->ctx, k->ibase[e->obj] + e->off + p,
					 pos++);
			break;
		case EV_UNMAP:
		case EV_MADVISE:
			r = &t->regions[e->obj];
			if ((r->flags & R_FILE) || (e->op == EV_MADVISE &&
			    e->aux != ADV_DONTNEED && e->aux != ADV_REMOVE))
				break;
			for (uint32_t p = 0; p < e->len &&
			     e->off + p < r->npages; p++)
				w->drop(w->ctx, k->rbase[e->obj] + e->off + p);
			break;
		case EV_TRUNCATE:
			for (uint32_t p = e->len; p < t->inodes[e->obj].npages;
			     p++)
				w->drop(w->ctx, k->ibase[e->obj] + p);
			break;
		}
	}
}

/* ---- lru ------------------------------------------------------------------ */

struct lru {
	uint32_t *prev, *next;	/* per key; NONE-terminated list */
	uint8_t *in;		/* cached? */
	uint32_t head, tail;
	uint64_t nr, cap;
	struct ref_result *r;
};

static void lru_unlink(struct lru *l, uint32_t k)
{
	if (l->prev[k] != NONE)
		l->next[l->prev[k]] = l->next[k];
	else
		l->head = l->next[k];
	if (l->next[k] != NONE)
		l->prev[l->next[k]] = l->prev[k];
	else
		l->tail = l->prev[k];
}

static void lru_push(struct lru *l, uint32_t k)
{
	l->prev[k] = NONE;
	l->next[k] = l->head;
	if (l->head != NONE)
		l->prev[l->head] = k;
	else
		l->tail = k;
	l->head = k;
}

static void lru_touch(void *ctx, uint64_t key, uint64_t pos)
{
	struct lru *l = ctx;
	uint32_t k = (uint32_t)key;

	l->r->refs++;
	if (l->in[k]) {
		lru_unlink(l, k);
		lru_push(l, k);
		return;
	}
	l->r->misses++;
	if (l->nr == l->cap) {
		uint32_t victim = l->tail;

		lru_unlink(l, victim);
		l->in[victim] = 0;
		l->nr--;
		l->r->evictions++;
	}
	l->in[k] = 1;
	l->nr++;
	lru_push(l, k);
}

static void lru_drop(void *ctx, uint64_t key)
{
	struct lru *l = ctx;
	uint32_t k = (uint32_t)key;

	if (!l->in[k])
		return;
	lru_unlink(l, k);
	l->in[k] = 0;
	l->nr--;
}

static void run_lru(const struct trace *t, const struct keys *k,
		    uint64_t cap, struct ref_result *r)
{
	struct lru l = { .head = NONE, .tail = NONE, .cap = cap, .r = r };
	struct walker w = { lru_touch, lru_drop, &l };

	l.prev = pgr_xcalloc(k->nr, sizeof(*l.prev));
	l.next = pgr_xcalloc(k->nr, sizeof(*l.next));
	l.in = pgr_xcalloc(k->nr, 1);
	walk(t, k, &w);
	free(l.prev);
	free(l.next);
	free(l.in);
}

/* ---- clock ---------------------------------------------------------------- */

struct clock {
	uint32_t *frame_key;	/* per frame; NONE: free */
	uint8_t *ref;		/* per frame */
	uint32_t *key_frame;	/* per key; NONE: not cached */
	uint32_t *free;		/* free frames */
	uint64_t nr_free, cap, hand;
	struct ref_result *r;
};

static void clock_touch(void *ctx, uint64_t key, uint64_t pos)
{
	struct clock *c = ctx;
	uint32_t k = (uint32_t)key, f;

	c->r->refs++;
	if (c->key_frame[k] != NONE) {
		c->ref[c->key_frame[k]] = 1;
		return;
	}
	c->r->misses++;
	if (c->nr_free) {
		f = c->free[--c->nr_free];
	} else {
		while (c->ref[c->hand]) {
			c->ref[c->hand] = 0;
			c->hand = (c->hand + 1) % c->cap;
		}
		f = (uint32_t)c->hand;
		c->key_frame[c->frame_key[f]] = NONE;
		c->r->evictions++;
		c->hand = (c->hand + 1) % c->cap;
	}
	c->frame_key[f] = k;
	c->key_frame[k] = f;
	c->ref[f] = 1;
}

static void clock_drop(void *ctx, uint64_t key)
{
	struct clock *c = ctx;
	uint32_t f = c->key_frame[key];

	if (f == NONE)
		return;
	c->key_frame[key] = NONE;
	c->frame_key[f] = NONE;
	c->ref[f] = 0;
	c->free[c->nr_free++] = f;
}

static void run_clock(const struct trace *t, const struct keys *k,
		      uint64_t cap, struct ref_result *r)
{
	struct clock c = { .cap = cap, .r = r };
	struct walker w = { clock_touch, clock_drop, &c };

	c.frame_key = pgr_xcalloc(cap, sizeof(*c.frame_key));
	c.ref = pgr_xcalloc(cap, 1);
	c.free = pgr_xcalloc(cap, sizeof(*c.free));
	c.key_frame = pgr_xcalloc(k->nr, sizeof(*c.key_frame));
	memset(c.key_frame, 0xff, k->nr * sizeof(*c.key_frame));
	for (uint64_t f = cap; f-- > 0;)
		c.free[c.nr_free++] = (uint32_t)f;
	walk(t, k, &w);
	free(c.frame_key);
	free(c.ref);
	free(c.free);
	free(c.key_frame);
}

/* ---- opt ------------------------------------------------------------------ */

/*
 * Two walks: the first, run backwards over a recorded list of the
 * accesses and drops, gives every access the position of the next access
 * to the same key (a drop in between means "never"); the second keeps the
 * cache in a max-heap of next uses. Heap entries go stale when their key
 * is used again or dropped, and are skipped when they surface.
 */
#define NEVER UINT64_MAX

struct opt_rec {
	uint64_t key;		/* top bit: a drop */
};

struct opt {
	struct opt_rec *rec;	/* in trace order */
	size_t nr_rec, cap_rec;
	uint64_t *next;		/* per access: position of the key's next use */
	uint64_t *cur;		/* per key: its next use while cached, else 0 */
	uint64_t (*heap)[2];	/* (next use, key) */
	size_t nr_heap, cap_heap;
	uint64_t nr, cap;
	struct ref_result *r;
};

#define DROP_BIT (UINT64_C(1) << 63)

static void opt_record_touch(void *ctx, uint64_t key, uint64_t pos)
{
	struct opt *o = ctx;

	pgr_grow(&o->rec, &o->cap_rec, o->nr_rec + 1, sizeof(*o->rec));
	o->rec[o->nr_rec++].key = key;
}

static void opt_record_drop(void *ctx, uint64_t key)
{
	struct opt *o = ctx;

	pgr_grow(&o->rec, &o->cap_rec, o->nr_rec + 1, sizeof(*o->rec));
	o->rec[o->nr_rec++].key = key | DROP_BIT;
}

static void heap_push(struct opt *o, uint64_t next, uint64_t key)
{
	size_t i;

	pgr_grow(&o->heap, &o->cap_heap, o->nr_heap + 1, sizeof(*o->heap));
	i = o->nr_heap++;
	while (i && o->heap[(i - 1) / 2][0] < next) {
		o->heap[i][0] = o->heap[(i - 1) / 2][0];
		o->heap[i][1] = o->heap[(i - 1) / 2][1];
		i = (i - 1) / 2;
	}
	o->heap[i][0] = next;
	o->heap[i][1] = key;
}

static void heap_pop(struct opt *o, uint64_t *next, uint64_t *key)
{
	uint64_t last0 = o->heap[o->nr_heap - 1][0];
	uint64_t last1 = o->heap[o->nr_heap - 1][1];
	size_t i = 0, n = --o->nr_heap;

	*next = o->heap[0][0];
	*key = o->heap[0][1];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && o->heap[c + 1][0] > o->heap[c][0])
			c++;
		if (o->heap[c][0] <= last0)
			break;
		o->heap[i][0] = o->heap[c][0];
		o->heap[i][1] = o->heap[c][1];
		i = c;
	}
	o->heap[i][0] = last0;
	o->heap[i][1] = last1;
}

/* cur[key] holds next use + 1 while cached (0: not cached), so that a
 * next use of NEVER still fits. */
static void opt_access(struct opt *o, uint64_t key, uint64_t next)
{
	o->r->refs++;
	if (o->cur[key]) {
		o->cur[key] = next == NEVER ? NEVER : next + 1;
		heap_push(o, next, key);
		return;
	}
	o->r->misses++;
	while (o->nr == o->cap) {
		uint64_t n, k;

		heap_pop(o, &n, &k);
		if (!o->cur[k] || o->cur[k] != (n == NEVER ? NEVER : n + 1))
			continue;	/* stale */
		o->cur[k] = 0;
		o->nr--;
		o->r->evictions++;
	}
	o->cur[key] = next == NEVER ? NEVER : next + 1;
	o->nr++;
	heap_push(o, next, key);
}

static void run_opt(const struct trace *t, const struct keys *k,
		    uint64_t cap, struct ref_result *r)
{
	struct opt o = { .cap = cap, .r = r };
	struct walker w = { opt_record_touch, opt_record_drop, &o };
	uint64_t *later = pgr_xcalloc(k->nr, sizeof(*later));

	walk(t, k, &w);
	o.next = pgr_xcalloc(o.nr_rec, sizeof(*o.next));
	o.cur = pgr_xcalloc(k->nr, sizeof(*o.cur));
	for (uint64_t i = 0; i < k->nr; i++)
		later[i] = NEVER;
	for (size_t i = o.nr_rec; i-- > 0;) {
		uint64_t key = o.rec[i].key & ~DROP_BIT;

		if (o.rec[i].key & DROP_BIT) {
			later[key] = NEVER;
		} else {
			o.next[i] = later[key];
			later[key] = i;
		}
	}
	for (size_t i = 0; i < o.nr_rec; i++) {
		uint64_t key = o.rec[i].key & ~DROP_BIT;

		if (o.rec[i].key & DROP_BIT) {
			if (o.cur[key]) {
				o.cur[key] = 0;
				o.nr--;
			}
			continue;
		}
		opt_access(&o, key, o.next[i]);
	}
	free(later);
	free(o.rec);
	free(o.next);
	free(o.cur);
	free(o.heap);
}

int ref_policy_parse(const char *s, enum ref_policy *p)
{
	if (!strcmp(s, "lru"))
		*p = REF_LRU;
	else if (!strcmp(s, "clock"))
		*p = REF_CLOCK;
	else if (!strcmp(s, "opt"))
		*p = REF_OPT;
	else
		return -1;
	return 0;
}

int ref_run(const struct trace *t, enum ref_policy p, uint64_t capacity,
	    struct ref_result *r)
{
	struct keys k;

	memset(r, 0, sizeof(*r));
	if (!capacity)
		return -1;
	keys_init(&k, t);
	if (k.nr >= NONE) {
		keys_release(&k);
		return -1;
	}
	switch (p) {
	case REF_LRU:
		run_lru(t, &k, capacity, r);
		break;
	case REF_CLOCK:
		run_clock(t, &k, capacity, r);
		break;
	case REF_OPT:
		run_opt(t, &k, capacity, r);
		break;
	}
	keys_release(&k);
	return 0;
}
