/* SPDX-License-Identifier: MIT */
/*
 * test-reference.c - the reference policies of `pager sim --policy
 * lru|clock|opt` (pager/sim/ref.c) against naive implementations written
 * here from scratch over the plain sequence of page numbers:
 *
 *   - random `pages` traces (uniform, looping, skewed, shifting working
 *     set), misses and evictions compared exactly for all three;
 *   - known properties: OPT never misses more than LRU or clock, a cache
 *     as large as the footprint only takes cold misses, LRU's loop
 *     pathology, the textbook reference string;
 *   - keys that leave: munmap, MADV_DONTNEED and truncate drop cached
 *     pages, so touching them again misses and their room is free.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pager/sim/ref.h"
#include "../pager/sim/trace.h"
#include "t-sim.h"
#include "tap.h"

#define NR_CASES	1000
#define MAX_DISTINCT	300
#define MAX_LEN		3000

static const char *const pnames[] = { "lru", "clock", "opt" };

/* ---- a deterministic generator (xorshift64*) ----------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n). */
static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng() % n);
}

/* ---- naive policies over a sequence of page ids -------------------------- */

/* An entry of a sequence is a page id, or a page id | DROP: the page
 * leaves the cache (munmap, MADV_DONTNEED), if it is there. */
#define DROP	(UINT32_C(1) << 31)

struct naive {
	uint64_t misses, evictions;
};

/* LRU: cached pages with the time of their last use; evict the oldest. */
static struct naive naive_lru(const uint32_t *seq, size_t n, uint32_t cap)
{
	uint32_t *page = calloc(cap, sizeof(*page));
	size_t *stamp = calloc(cap, sizeof(*stamp));
	struct naive r = { 0, 0 };
	uint32_t used = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t f, victim = 0, id = seq[i] & ~DROP;

		for (f = 0; f < used; f++)
			if (page[f] == id)
				break;
		if (seq[i] & DROP) {
			if (f < used) {
				page[f] = page[--used];
				stamp[f] = stamp[used];
			}
			continue;
		}
		if (f < used) {
			stamp[f] = i;
			continue;
		}
		r.misses++;
		if (used < cap) {
			page[used] = id;
			stamp[used++] = i;
			continue;
		}
		for (f = 1; f < cap; f++)
			if (stamp[f] < stamp[victim])
				victim = f;
		page[victim] = id;
		stamp[victim] = i;
		r.evictions++;
	}
	free(page);
	free(stamp);
	return r;
}

/*
 * One-bit clock as sim-ref.c runs it: free frames are taken from a stack,
 * lowest first at the start, a frame freed by a drop next; with none free
 * the hand clears reference bits until it finds a clear one, the new page
 * takes that frame with its bit set, and the hand moves past it. A hit
 * only sets the bit.
 */
static struct naive naive_clock(const uint32_t *seq, size_t n, uint32_t cap)
{
	uint32_t *page = calloc(cap, sizeof(*page));
	uint32_t *fstack = calloc(cap, sizeof(*fstack));
	uint8_t *ref = calloc(cap, 1), *busy = calloc(cap, 1);
	struct naive r = { 0, 0 };
	uint32_t nfree = 0, hand = 0;

	for (uint32_t f = cap; f-- > 0;)
		fstack[nfree++] = f;
	for (size_t i = 0; i < n; i++) {
		uint32_t f, id = seq[i] & ~DROP;

		for (f = 0; f < cap; f++)
			if (busy[f] && page[f] == id)
				break;
		if (seq[i] & DROP) {
			if (f < cap) {
				busy[f] = 0;
				ref[f] = 0;
				fstack[nfree++] = f;
			}
			continue;
		}
		if (f < cap) {
			ref[f] = 1;
			continue;
		}
		r.misses++;
		if (nfree) {
			f = fstack[--nfree];
		} else {
			while (ref[hand]) {
				ref[hand] = 0;
				hand = (hand + 1) % cap;
			}
			f = hand;
			hand = (hand + 1) % cap;
			r.evictions++;
		}
		page[f] = id;
		busy[f] = 1;
		ref[f] = 1;
	}
	free(page);
	free(fstack);
	free(ref);
	free(busy);
	return r;
}

/*
 * Belady: on a miss with a full cache, look ahead in the sequence; the
 * victim is a cached page not used again before it is dropped or the
 * sequence ends, or else the cached page whose next use comes last.
 * @ids bounds the page ids.
 */
static struct naive naive_opt(const uint32_t *seq, size_t n, uint32_t cap,
			      uint32_t ids)
{
	uint32_t *page = calloc(cap, sizeof(*page));
	uint32_t *slot = calloc(ids, sizeof(*slot));	/* 1 + index in page */
	uint8_t *seen = calloc(ids, 1);
	struct naive r = { 0, 0 };
	uint32_t used = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t nseen = 0, victim = 0, id = seq[i] & ~DROP;
		bool found = false;

		if (seq[i] & DROP) {
			if (slot[id]) {
				page[slot[id] - 1] = page[--used];
				slot[page[used]] = slot[id];
				slot[id] = 0;
			}
			continue;
		}
		if (slot[id])
			continue;
		r.misses++;
		if (used < cap) {
			page[used++] = id;
			slot[id] = used;
			continue;
		}
		for (size_t j = i + 1; j < n && nseen < cap; j++) {
			uint32_t q = seq[j] & ~DROP;

			if (!slot[q] || seen[q])
				continue;
			if (seq[j] & DROP) {
				/* dropped before any use: never */
				victim = q;
				found = true;
				break;
			}
			seen[q] = 1;
			nseen++;
			victim = q;
		}
		if (!found && nseen < cap) {
			/* someone cached is never used again */
			for (uint32_t f = 0; f < used; f++) {
				if (!seen[page[f]]) {
					victim = page[f];
					break;
				}
			}
		}
		for (uint32_t f = 0; f < used; f++)
			seen[page[f]] = 0;
		page[slot[victim] - 1] = id;
		slot[id] = slot[victim];
		slot[victim] = 0;
		r.evictions++;
	}
	free(page);
	free(slot);
	free(seen);
	return r;
}

static struct naive naive_run(enum ref_policy p, const uint32_t *seq,
			      size_t n, uint32_t cap, uint32_t ids)
{
	switch (p) {
	case REF_LRU:
		return naive_lru(seq, n, cap);
	case REF_CLOCK:
		return naive_clock(seq, n, cap);
	case REF_OPT:
		break;
	}
	return naive_opt(seq, n, cap, ids);
}

/* ---- the implementation under test, through a `pages` trace -------------- */

/* A page number for id @id: scattered, distinct (an odd multiplier is a
 * bijection mod 2^36), so the reader's dense renaming is exercised. */
static uint64_t page_number(uint32_t id)
{
	return ((uint64_t)id * 0x9e3779b1ULL + 0x5a5a5ULL) &
	       ((UINT64_C(1) << 36) - 1);
}

/* Read @seq as a `pages` trace; NULL (and a failed check) on an error. */
static struct trace *pages_trace(const uint32_t *seq, size_t n)
{
	size_t cap = 64 + n * 16, len = 0;
	char *text = malloc(cap);
	struct trace *t = calloc(1, sizeof(*t));
	FILE *f;

	len += (size_t)snprintf(text + len, cap - len, "# test-reference\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%" PRIu64 "\n",
					page_number(seq[i]));
	f = fmemopen(text, len, "r");
	if (!f || !t) {
		t_ok(0, "cannot set up a pages trace");
		exit(1);
	}
	if (trace_read(t, f, "random.pages", TF_PAGES)) {
		t_ok(0, "pages trace parses: %s", t->err);
		trace_release(t);
		free(t);
		t = NULL;
	}
	fclose(f);
	free(text);
	return t;
}

static void trace_free(struct trace *t)
{
	trace_release(t);
	free(t);
}

/* Run @p over @t; on an error the result is all ones. */
static struct ref_result run(const struct trace *t, enum ref_policy p,
			     uint64_t cap)
{
	struct ref_result r;

	if (ref_run(t, p, cap, &r)) {
		t_ok(0, "ref_run %s capacity %llu", pnames[p],
		     (unsigned long long)cap);
		memset(&r, 0xff, sizeof(r));
	}
	return r;
}

/* ---- random traces ------------------------------------------------------- */

enum dist { D_UNIFORM, D_LOOP, D_SKEWED, D_SHIFT, NR_DIST };

static const char *const dnames[] = { "uniform", "loop", "skewed", "shift",
				       "drops" };

/* Fill @seq with @n page ids below @ids, drawn by @d. */
static void gen(uint32_t *seq, size_t n, uint32_t ids, enum dist d)
{
	uint32_t span = 1 + rng_below(ids), start = rng_below(ids);
	uint32_t hot = ids / 5 ? ids / 5 : 1, base = 0;
	uint32_t stride = 1 + rng_below(3);

	for (size_t i = 0; i < n; i++) {
		switch (d) {
		case D_UNIFORM:
			seq[i] = rng_below(ids);
			break;
		case D_LOOP:
			/* a loop of @span pages from @start, stepping by
			 * @stride, now and then a stray access */
			if (rng_below(50) == 0)
				seq[i] = rng_below(ids);
			else
				seq[i] = (uint32_t)((start + (i * stride) %
						     span) % ids);
			break;
		case D_SKEWED:
			/* 80% of accesses to the first fifth, or a cubic
			 * bias toward low ids */
			if (span & 1) {
				seq[i] = rng_below(5) ? rng_below(hot) :
					 rng_below(ids);
			} else {
				double u = (double)(rng() >> 11) /
					   (double)(UINT64_C(1) << 53);

				seq[i] = (uint32_t)(u * u * u * ids);
			}
			break;
		default:
			/* a window of @span pages that moves along */
			if (rng_below(64) == 0)
				base = (base + 1 + rng_below(span)) % ids;
			seq[i] = (base + rng_below(span)) % ids;
			break;
		}
	}
}

static uint32_t distinct(const uint32_t *seq, size_t n, uint32_t ids)
{
	uint8_t *seen = calloc(ids, 1);
	uint32_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		if (!seen[seq[i]]) {
			seen[seq[i]] = 1;
			nr++;
		}
	}
	free(seen);
	return nr;
}

struct failure {
	unsigned int nr;
	size_t n;		/* length of the smallest failing case */
	char what[200];
};

static void fail_note(struct failure *fl, enum ref_policy p, unsigned int c,
		      enum dist d, uint32_t ids, size_t n, uint32_t cap,
		      const struct ref_result *got, const struct naive *want)
{
	char what[200];

	snprintf(what, sizeof(what), "%s case %u: %s ids=%u len=%zu "
		 "capacity=%u: misses %llu evictions %llu, naive %llu %llu",
		 pnames[p], c, dnames[d], ids, n, cap,
		 (unsigned long long)got->misses,
		 (unsigned long long)got->evictions,
		 (unsigned long long)want->misses,
		 (unsigned long long)want->evictions);
	if (!fl->nr++)
		t_diag("first mismatch: %s", what);
	if (fl->nr == 1 || n < fl->n) {
		fl->n = n;
		memcpy(fl->what, what, sizeof(what));
	}
}

static void test_random(void)
{
	uint32_t *seq = malloc(MAX_LEN * sizeof(*seq));
	struct failure fl[3] = { { 0 } };
	unsigned int refs_bad = 0, opt_lru = 0, opt_clock = 0;
	unsigned int big = 0, big_bad = 0, cold_bad = 0;

	for (unsigned int c = 0; c < NR_CASES; c++) {
		enum dist d = (enum dist)(c % NR_DIST);
		uint32_t ids, cap, nd;
		struct ref_result got[3];
		struct trace *t;
		size_t n;

		/* small cases often: they are where the edges are */
		ids = 1 + rng_below(rng_below(4) ? MAX_DISTINCT : 8);
		n = 1 + rng_below(rng_below(4) ? MAX_LEN : 40);
		cap = 1 + rng_below(ids + 5);
		gen(seq, n, ids, d);
		nd = distinct(seq, n, ids);
		t = pages_trace(seq, n);
		if (!t)
			break;
		for (int p = REF_LRU; p <= REF_OPT; p++) {
			struct naive want = naive_run((enum ref_policy)p, seq,
						      n, cap, ids);

			got[p] = run(t, (enum ref_policy)p, cap);
			if (got[p].refs != n)
				refs_bad++;
			if (got[p].misses != want.misses ||
			    got[p].evictions != want.evictions)
				fail_note(&fl[p], (enum ref_policy)p, c, d, ids,
					  n, cap, &got[p], &want);
			/* every page costs one cold miss at least */
			if (got[p].misses < nd)
				cold_bad++;
		}
		if (got[REF_OPT].misses > got[REF_LRU].misses)
			opt_lru++;
		if (got[REF_OPT].misses > got[REF_CLOCK].misses)
			opt_clock++;
		if (cap >= nd) {
			big++;
			for (int p = REF_LRU; p <= REF_OPT; p++)
				if (got[p].misses != nd || got[p].evictions)
					big_bad++;
		}
		trace_free(t);
	}
	for (int p = REF_LRU; p <= REF_OPT; p++) {
		if (fl[p].nr)
			t_diag("smallest mismatch: %s", fl[p].what);
		t_eq(fl[p].nr, 0, "%s: misses and evictions of %d random "
		     "traces as the naive %s", pnames[p], NR_CASES, pnames[p]);
	}
	t_eq(refs_bad, 0, "refs count every access");
	t_eq(cold_bad, 0, "no policy misses less than the footprint");
	t_eq(opt_lru, 0, "opt never misses more than lru");
	t_eq(opt_clock, 0, "opt never misses more than clock");
	t_ok(big >= 50, "%u cases with the footprint fitting", big);
	t_eq(big_bad, 0, "footprint fits: only cold misses, no evictions");
	free(seq);
}

/*
 * Random text traces with keys leaving: one anon mapping of @ids pages,
 * accesses, and now and then MADV_DONTNEED of a few pages (their keys
 * drop, the next access misses) or a fresh mapping over a few pages
 * (munmap, or mmap over them: new keys). The naive policies see the
 * drops as DROP entries and the fresh pages as new ids.
 */
#define BASE	UINT64_C(0x10000000)

static void test_random_drops(void)
{
	size_t tcap = 64 * MAX_LEN * 2;
	char *text = malloc(tcap);
	uint32_t *seq = malloc(MAX_LEN * 10 * sizeof(*seq));
	uint32_t *cur = malloc(MAX_DISTINCT * sizeof(*cur));
	struct failure fl[3] = { { 0 } };
	unsigned int opt_lru = 0, opt_clock = 0, nr_drops = 0;

	for (unsigned int c = 0; c < NR_CASES / 2; c++) {
		uint32_t ids = 1 + rng_below(rng_below(4) ? 200 : 8);
		uint32_t nacc = 1 + rng_below(rng_below(4) ? 2000 : 40);
		uint32_t cap = 1 + rng_below(ids + 5), next_id = ids;
		struct ref_result got[3];
		struct trace *t;
		size_t n = 0, len = 0;

		for (uint32_t p = 0; p < ids; p++)
			cur[p] = p;
		len += (size_t)snprintf(text + len, tcap - len,
					"mmap 1 0x%llx %uK anon\n",
					(unsigned long long)BASE, ids * 4);
		for (uint32_t a = 0; a < nacc;) {
			uint32_t r = rng_below(100), pg, span;

			if (r >= 5) {
				/* mostly a hot half, some of everything */
				pg = rng_below(2) ? rng_below(ids / 2 + 1) :
				     rng_below(ids);
				if (pg >= ids)
					pg = ids - 1;
				len += (size_t)snprintf(text + len, tcap - len,
					"r 1 0x%llx\n", (unsigned long long)
					(BASE + (uint64_t)pg * 4096));
				seq[n++] = cur[pg];
				a++;
				continue;
			}
			pg = rng_below(ids);
			span = 1 + rng_below(8);
			if (pg + span > ids)
				span = ids - pg;
			for (uint32_t p = pg; p < pg + span; p++) {
				seq[n++] = cur[p] | DROP;
				if (r >= 3)
					cur[p] = next_id++;
			}
			nr_drops++;
			if (r < 3)
				len += (size_t)snprintf(text + len, tcap - len,
					"madvise 1 0x%llx %uK dontneed\n",
					(unsigned long long)(BASE +
					(uint64_t)pg * 4096), span * 4);
			if (r == 3)
				len += (size_t)snprintf(text + len, tcap - len,
					"munmap 1 0x%llx %uK\n",
					(unsigned long long)(BASE +
					(uint64_t)pg * 4096), span * 4);
			if (r >= 3)	/* over a mapping: an implicit munmap */
				len += (size_t)snprintf(text + len, tcap - len,
					"mmap 1 0x%llx %uK anon\n",
					(unsigned long long)(BASE +
					(uint64_t)pg * 4096), span * 4);
		}
		t = t_trace(text);
		if (!t)
			break;
		for (int p = REF_LRU; p <= REF_OPT; p++) {
			struct naive want = naive_run((enum ref_policy)p, seq,
						      n, cap, next_id);

			got[p] = run(t, (enum ref_policy)p, cap);
			/* opt: only misses. Which of several pages never
			 * used again is evicted is free, and a page later
			 * dropped leaves room where another would not. */
			if (got[p].misses != want.misses ||
			    (p != REF_OPT && got[p].evictions !=
			     want.evictions) || got[p].refs != nacc)
				fail_note(&fl[p], (enum ref_policy)p, c,
					  NR_DIST, ids, nacc, cap, &got[p],
					  &want);
		}
		if (got[REF_OPT].misses > got[REF_LRU].misses)
			opt_lru++;
		if (got[REF_OPT].misses > got[REF_CLOCK].misses)
			opt_clock++;
		t_trace_free(t);
	}
	for (int p = REF_LRU; p <= REF_OPT; p++) {
		if (fl[p].nr)
			t_diag("smallest mismatch: %s", fl[p].what);
		t_eq(fl[p].nr, 0, "%s: %d random traces with drops as the "
		     "naive %s", pnames[p], NR_CASES / 2, pnames[p]);
	}
	t_ok(nr_drops > 1000, "%u munmaps and madvises", nr_drops);
	t_eq(opt_lru, 0, "with drops, opt never misses more than lru");
	t_eq(opt_clock, 0, "with drops, opt never misses more than clock");
	free(text);
	free(seq);
	free(cur);
}

/* ---- fixed sequences ----------------------------------------------------- */

static void run_seq(const uint32_t *seq, size_t n, uint32_t cap,
		    struct ref_result r[3])
{
	struct trace *t = pages_trace(seq, n);

	if (!t) {
		memset(r, 0xff, 3 * sizeof(*r));
		return;
	}
	for (int p = REF_LRU; p <= REF_OPT; p++)
		r[p] = run(t, (enum ref_policy)p, cap);
	trace_free(t);
}

/* The reference string of the operating-systems textbooks, 3 frames. */
static void test_textbook(void)
{
	static const uint32_t seq[] = { 7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3,
					2, 1, 2, 0, 1, 7, 0, 1 };
	size_t n = sizeof(seq) / sizeof(seq[0]);
	struct ref_result r[3];
	struct naive c = naive_clock(seq, n, 3);

	run_seq(seq, n, 3, r);
	t_eq(r[REF_OPT].misses, 9, "textbook string, 3 frames: opt 9 misses");
	t_eq(r[REF_OPT].evictions, 6, "... 6 evictions");
	t_eq(r[REF_LRU].misses, 12, "textbook string, 3 frames: lru 12 misses");
	t_eq(r[REF_LRU].evictions, 9, "... 9 evictions");
	t_eq(r[REF_CLOCK].misses, c.misses, "textbook string: clock as naive");
	t_eq(r[REF_OPT].refs, n, "refs 20");
}

/* A loop over N pages with room for N - 1: LRU evicts each page just
 * before it is needed. OPT keeps N - 2 of them for good. */
static void test_loop(void)
{
	uint32_t seq[1000];
	struct ref_result r[3];

	/*
	 * 0 1 2 3 | 0 1 2 3 | 0 1 2 3, capacity 3, opt by hand:
	 * 0 1 2 miss; 3 misses, evicts 2 (next at 6, furthest);
	 * 0 1 hit; 2 misses, evicts 1 (next at 9); 3 0 hit;
	 * 1 misses, evicts 0 (never again); 2 3 hit: 6 misses.
	 */
	for (uint32_t i = 0; i < 12; i++)
		seq[i] = i % 4;
	run_seq(seq, 12, 3, r);
	t_eq(r[REF_LRU].misses, 12, "loop of 4 in 3: lru misses every access");
	t_eq(r[REF_CLOCK].misses, 12, "loop of 4 in 3: so does clock");
	t_eq(r[REF_OPT].misses, 6, "loop of 4 in 3: opt misses 6");
	t_eq(r[REF_OPT].evictions, 3, "... evicting 3");

	for (uint32_t i = 0; i < 1000; i++)
		seq[i] = i % 100;
	run_seq(seq, 1000, 99, r);
	t_eq(r[REF_LRU].misses, 1000, "loop of 100 in 99: lru misses all 1000");
	t_ok(r[REF_OPT].misses * 5 < r[REF_LRU].misses,
	     "loop of 100 in 99: opt misses far less (%llu)",
	     (unsigned long long)r[REF_OPT].misses);
	t_eq(r[REF_OPT].misses, naive_opt(seq, 1000, 99, 100).misses,
	     "... as many as the naive opt");
}

/* ---- keys that leave ----------------------------------------------------- */

static void check_all(const char *text, uint64_t cap, uint64_t refs,
		      uint64_t misses, uint64_t evictions, const char *what)
{
	struct trace *t = t_trace(text);

	if (!t)
		return;
	for (int p = REF_LRU; p <= REF_OPT; p++) {
		struct ref_result r = run(t, (enum ref_policy)p, cap);

		t_eq(r.refs, refs, "%s %s: refs", pnames[p], what);
		t_eq(r.misses, misses, "%s %s: misses", pnames[p], what);
		t_eq(r.evictions, evictions, "%s %s: evictions", pnames[p],
		     what);
	}
	t_trace_free(t);
}

/*
 * Capacity 4. Were the dropped keys kept, b0 and b1 would evict a0 and a1
 * (lru), the re-read of a0 after MADV_DONTNEED would hit, and the counts
 * would differ.
 */
static const char unmap_text[] =
	"mmap 1 0x10000 16K anon\n"
	"w 1 0x10000 16K\n"		/* a0..a3: 4 misses, full */
	"munmap 1 0x12000 8K\n"		/* drops a2 a3 */
	"mmap 1 0x12000 8K anon\n"
	"w 1 0x12000 8K\n"		/* b0 b1: 2 misses into free room */
	"r 1 0x10000 8K\n"		/* a0 a1: hits */
	"madvise 1 0x10000 4K dontneed\n" /* drops a0 */
	"r 1 0x10000\n"			/* a0: miss, free room */
	"r 1 0x11000\n"			/* a1: hit */
	"mmap 1 0x20000 4K anon\n"
	"r 1 0x20000\n";		/* c0: miss, the one eviction */

/*
 * Capacity 4, file pages f0..f3, the same keys read or mapped. Were the
 * truncated keys kept, the write would hit f2 f3: 4 misses in all.
 */
static const char truncate_text[] =
	"file 5 16K\n"
	"read 5 0 16K\n"		/* f0..f3: 4 misses, full */
	"mmap 1 0x40000 16K file:5 shared\n"
	"r 1 0x40000 16K\n"		/* the same pages: 4 hits */
	"munmap 1 0x40000 16K\n"	/* file pages stay cached */
	"read 5 0 8K\n"			/* f0 f1: hits */
	"truncate 5 8K\n"		/* drops f2 f3 */
	"write 5 8K 8K\n"		/* f2 f3 again: 2 misses */
	"read 5 0 16K\n";		/* 4 hits */

/* Capacity 2: truncating to 0 frees both frames; the re-read misses
 * without evicting. */
static const char truncate0_text[] =
	"file 9 8K\n"
	"read 9 0 8K\n"			/* 2 misses */
	"truncate 9 0\n"
	"truncate 9 8K\n"
	"read 9 0 8K\n"			/* 2 misses, no eviction */
	"read 9 4K\n";			/* hit */

static void test_drops(void)
{
	check_all(unmap_text, 4, 4 + 2 + 2 + 1 + 1 + 1, 4 + 2 + 1 + 1, 1,
		  "munmap/remap and MADV_DONTNEED");
	check_all(truncate_text, 4, 4 + 4 + 2 + 2 + 4, 4 + 2, 0,
		  "truncate, then the pages again");
	check_all(truncate0_text, 2, 5, 4, 0, "truncate to 0 and read again");
}

int main(void)
{
	test_random();
	test_random_drops();
	test_textbook();
	test_loop();
	test_drops();
	return t_done();
}
