/* SPDX-License-Identifier: MIT */
/*
 * test-fuzz.c - the trace readers and the simulator under random input
 * (pager/sim/, pager/lib/linesrc.c).
 *
 * A fuzzer (a seeded xorshift64*, so every run is the same): mutated
 * traces, random bytes and mutated binary traces must each be read or
 * refused with a "fuzz.trace:LINE: reason", never crash, and what is read
 * must be a consistent trace. A sample of those read is replayed through
 * the simulator with pol_check() after every event, in a child process so
 * that a crash or a sanitizer report is a failed check, not a dead test;
 * each kind of failed replay is reported with its input, shrunk.
 * PGR_FUZZ_ITERS and PGR_FUZZ_SEED override the number of iterations
 * (20000) and the seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../pager/sim/trace.h"
#include "t-mutate.h"
#include "t-trace.h"
#include "tap.h"

/* ---- fuzzing ------------------------------------------------------------- */

/* Print @n bytes of an input as C-escaped diagnostic lines. */
static void diag_input(const char *what, const char *p, size_t n)
{
	char line[100];
	size_t k = 0, o = 0;

	t_diag("%s (%zu bytes):", what, n);
	for (; k < n && k < 2048; k++) {
		unsigned char c = (unsigned char)p[k];

		if (o > sizeof(line) - 8) {
			line[o] = 0;
			t_diag("  %s", line);
			o = 0;
		}
		if (c == '\n') {
			o += (size_t)sprintf(line + o, "\\n");
			line[o] = 0;
			t_diag("  %s", line);
			o = 0;
		} else if (c == '\\') {
			o += (size_t)sprintf(line + o, "\\\\");
		} else if (c >= 32 && c < 127) {
			line[o++] = (char)c;
		} else {
			o += (size_t)sprintf(line + o, "\\x%02x", c);
		}
	}
	line[o] = 0;
	if (o)
		t_diag("  %s", line);
	if (k < n)
		t_diag("  ...");
}

static bool trace_sane(const struct trace *t, char *why, size_t len)
{
	uint64_t accesses = 0;

#define INSANE(...) do { snprintf(why, len, __VA_ARGS__); return false; } \
	while (0)
	for (uint32_t i = 0; i < t->nr_regions; i++) {
		const struct t_region *r = &t->regions[i];

		if (r->proc >= t->nr_procs)
			INSANE("region %u: process %u", i, r->proc);
		if ((r->flags & R_FILE) ? r->inode >= t->nr_inodes :
		    r->inode != T_NONE)
			INSANE("region %u: inode %u", i, r->inode);
		if (r->clone_of != T_NONE && r->clone_of >= i)
			INSANE("region %u: clone of %u", i, r->clone_of);
		if (r->mapped > r->npages)
			INSANE("region %u: %u pages mapped of %u", i,
			       r->mapped, r->npages);
	}
	for (uint32_t i = 0; i < t->nr_inodes; i++)
		if (t->inodes[i].size > t->inodes[i].npages ||
		    (t->inodes[i].group != T_NONE &&
		     t->inodes[i].group >= t->nr_groups))
			INSANE("inode %u", i);
	for (uint32_t i = 0; i < t->nr_groups; i++)
		if (t->groups[i].parent != T_NONE && t->groups[i].parent >= i)
			INSANE("group %u: parent %u", i, t->groups[i].parent);
	for (size_t k = 0; k < t->nr_ev; k++) {
		const struct ev *e = &t->ev[k];
		const struct t_region *r = e->obj < t->nr_regions ?
					   &t->regions[e->obj] : NULL;
		const struct t_inode *n = e->obj < t->nr_inodes ?
					  &t->inodes[e->obj] : NULL;
		bool ok = true;

		switch (e->op) {
		case EV_ACCESS:
			ok = r && e->off < r->npages && e->len == 1 &&
			     (!(r->flags & R_FILE) ||
			      r->foff + e->off < t->inodes[r->inode].npages);
			accesses++;
			break;
		case EV_FD:
			ok = n && (uint64_t)e->off + e->len <= n->npages &&
			     e->len && (e->aux == 0xffff ||
					e->aux < t->nr_groups);
			accesses += e->len;
			break;
		case EV_MAP:
		case EV_RESIZE:
			ok = r && e->len <= r->npages;
			break;
		case EV_UNMAP:
		case EV_MADVISE:
			ok = r && (uint64_t)e->off + e->len <= r->npages &&
			     e->len && (e->op == EV_UNMAP ||
					e->aux <= ADV_RANDOM);
			break;
		case EV_CLONE:
			ok = r && r->clone_of == e->off;
			break;
		case EV_EXIT:
			ok = e->obj < t->nr_procs;
			break;
		case EV_PROCGROUP:
			ok = e->obj < t->nr_procs && (e->off == T_NONE ||
						      e->off < t->nr_groups);
			break;
		case EV_TRUNCATE:
			ok = n && e->len <= n->npages;
			break;
		case EV_PHASE:
		case EV_SET:
			ok = e->off < t->nr_strings;
			break;
		case EV_EXPECT:
			ok = e->off < t->nr_expects;
			if (ok) {
				const struct t_expect *x = &t->expects[e->off];

				if (x->page && x->file)
					ok = x->obj < t->nr_inodes;
				else if (x->page)
					ok = x->obj < t->nr_regions &&
					     x->off < t->regions[x->obj].npages;
				else
					ok = x->group == T_NONE ||
					     x->group < t->nr_groups;
			}
			break;
		case EV_RECLAIM:
			ok = e->aux <= RC_LRUVEC && (e->obj == T_NONE ||
						     e->obj < t->nr_groups) &&
			     (e->aux != RC_LIST || e->off < 4);
			break;
		default:
			ok = false;
		}
		if (!ok)
			INSANE("event %zu: op %u obj %u off %u len %u", k,
			       e->op, e->obj, e->off, e->len);
	}
	if (accesses != t->nr_accesses)
		INSANE("nr_accesses %llu, events say %llu",
		       (unsigned long long)t->nr_accesses,
		       (unsigned long long)accesses);
#undef INSANE
	return true;
}

/* Small enough to replay in a moment with 256 pages. */
static bool small(const struct trace *t)
{
	uint64_t pages = 0;

	for (uint32_t i = 0; i < t->nr_regions; i++)
		pages += t->regions[i].npages;
	for (uint32_t i = 0; i < t->nr_inodes; i++)
		pages += t->inodes[i].npages;
	return pages <= 1 << 16 && t->nr_ev <= 1 << 15 &&
	       t->nr_accesses <= 1 << 16;
}

/* Did the reader keep its contract on @p? Reads into @t. */
static bool fuzz_read(struct trace *t, const char *p, size_t n, int *ret,
		      char *why, size_t len)
{
	unsigned int line;
	int at = 0;

	*ret = t_read_mem(t, p, n, "fuzz.trace", TF_AUTO);
	if (*ret == 0) {
		if (t->err[0]) {
			snprintf(why, len, "success with error '%.200s'",
				 t->err);
			return false;
		}
		return trace_sane(t, why, len);
	}
	if (*ret != -1) {
		snprintf(why, len, "returned %d", *ret);
		return false;
	}
	if (sscanf(t->err, "fuzz.trace:%u: %n", &line, &at) < 1 || !at ||
	    !t->err[at]) {
		snprintf(why, len, "error '%.200s'", t->err);
		return false;
	}
	return true;
}

/*
 * The lines of text input @in before the line its error @err names, in
 * @pre; false for binary input or an error on line 1.
 */
static bool prefix(const struct input *in, const char *err,
		   struct input *pre)
{
	unsigned int line;
	size_t k = 0;

	if ((in->len >= 8 && !memcmp(in->p, TRACE_BIN_MAGIC, 8)) ||
	    sscanf(err, "fuzz.trace:%u:", &line) != 1 || line < 2)
		return false;
	for (unsigned int n = 1; k < in->len && n < line; k++)
		n += in->p[k] == '\n';
	memcpy(pre->p, in->p, k);
	pre->len = k;
	return true;
}

/* A failure found by the fuzzer, kept for the report. */
struct finding {
	unsigned int count;
	char why[256];
	char key[256];		/* replays: the kind of failure */
	struct input in;
};

static void found(struct finding *f, const struct input *in, const char *why)
{
	if (f->count++)
		return;
	f->in = *in;
	snprintf(f->why, sizeof(f->why), "%s", why);
}

/*
 * Failures of replays, one per kind: where a sanitizer caught it, or what
 * the broken invariant or the error was, without the event number.
 */
#define NR_KINDS 6

static void failure_key(enum t_outcome r, const char *why, char *key,
			size_t len)
{
	const char *p = strstr(why, " in ");

	if (r == T_RUN_CRASH && p)
		snprintf(key, len, "%s", p + 4);
	else if (r == T_RUN_CRASH && (p = strstr(why, ": runtime error")))
		snprintf(key, len, "%.*s", (int)(p - why), why);
	else if (r == T_RUN_INVARIANT && (p = strchr(why, ':')))
		snprintf(key, len, "invariant%s", p);
	else
		snprintf(key, len, "%s: %s", t_run_name(r), why);
}

static void found_run(struct finding *kinds, enum t_outcome r, const char *why,
		      const struct input *in)
{
	char key[256];
	unsigned int k;

	failure_key(r, why, key, sizeof(key));
	for (k = 0; k < NR_KINDS - 1; k++)
		if (!kinds[k].count || !strcmp(kinds[k].key, key))
			break;
	if (!kinds[k].count)
		snprintf(kinds[k].key, sizeof(kinds[k].key), "%s", key);
	found(&kinds[k], in, why);
}

/* Does @in still parse and replay to a failure of the kind @key? */
static bool replays_to(const struct input *in, const char *key)
{
	char why[256], k[256];
	struct trace t;
	int ret;
	bool same = false;

	if (fuzz_read(&t, in->p, in->len, &ret, why, sizeof(why)) &&
	    ret == 0) {
		enum t_outcome r = t_replay(&t, why, sizeof(why));

		failure_key(r, why, k, sizeof(k));
		same = t_run_bad(r) && !strcmp(k, key);
	}
	trace_release(&t);
	return same;
}

/* Drop lines while it still fails the same way. */
static void shrink(struct input *in, const char *key)
{
	unsigned int tries = 0;
	bool progress = true;

	while (progress && tries < 400) {
		progress = false;
		for (size_t s = 0; s < in->len && tries < 400;) {
			struct input *c = malloc(sizeof(*c));
			size_t ls, le;

			t_line_at(in, s, &ls, &le);
			*c = *in;
			t_in_delete(c, ls, le - ls);
			tries++;
			if (replays_to(c, key)) {
				*in = *c;
				progress = true;
			} else {
				s = le;
			}
			free(c);
		}
	}
}

static void report_parse(struct finding *f)
{
	if (!t_ok(!f->count, "fuzz: every input is read, or refused with "
		  "'fuzz.trace:LINE: reason'; what is read is consistent")) {
		t_diag("%u failures; the first: %s", f->count, f->why);
		diag_input("input", f->in.p, f->in.len);
	}
}

static void report_runs(struct finding *kinds)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < NR_KINDS; k++)
		n += kinds[k].count;
	if (t_ok(!n, "fuzz: replays return 0 or an error, no crash, no "
		 "broken invariant"))
		return;
	for (unsigned int k = 0; k < NR_KINDS && kinds[k].count; k++) {
		t_diag("%u replays failed with %s", kinds[k].count,
		       kinds[k].key);
		shrink(&kinds[k].in, kinds[k].key);
		diag_input("shrunk input", kinds[k].in.p, kinds[k].in.len);
	}
}

/* PGR_FUZZ_ITERS, PGR_FUZZ_SEED: more, or other, fuzzing by hand. */
static unsigned long fuzz_iters(void)
{
	const char *s = getenv("PGR_FUZZ_ITERS");
	unsigned long n = s ? strtoul(s, NULL, 10) : 0;

	s = getenv("PGR_FUZZ_SEED");
	if (s && strtoull(s, NULL, 0))
		t_rnd_seed(strtoull(s, NULL, 0));
	return n ? n : 20000;
}

static void test_fuzz(void)
{
	struct input *in = malloc(sizeof(*in)), *pre = malloc(sizeof(*pre));
	struct finding *parse = calloc(1, sizeof(*parse));
	struct finding *run = calloc(NR_KINDS, sizeof(*run));
	unsigned long iters = fuzz_iters(), accepted = 0, rejected = 0;
	unsigned long raccepted = 0, rrejected = 0, replays = 0, prefixes = 0;
	unsigned long nrun[T_RUN_CRASH + 1] = { 0 };
	struct timespec t0, t1;
	struct t_mem bin;
	char why[256];

	if (!in || !pre || !parse || !run) {
		t_ok(0, "fuzz: memory");
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t_scenario_binary(&bin);

	/* The seeds themselves read and replay. */
	for (size_t k = 0; k < t_nr_seeds; k++) {
		enum t_outcome r = T_RUN_CRASH;
		struct trace t;
		int ret;

		why[0] = 0;
		if (fuzz_read(&t, t_seeds[k], strlen(t_seeds[k]), &ret, why,
			      sizeof(why)) && ret == 0)
			r = t_replay(&t, why, sizeof(why));
		if (!t_ok(r == T_RUN_OK, "fuzz seed %zu reads and replays", k))
			t_diag("%s: %s %s", t_run_name(r), why, t.err);
		trace_release(&t);
	}

	for (unsigned long it = 0; it < iters; it++) {
		const char *seed = t_seed_trace();
		struct trace t;
		int ret;

		/* (a) a mutated seed */
		in->len = strlen(seed);
		memcpy(in->p, seed, in->len);
		for (size_t m = 1 + t_below(3); m--;)
			t_mutate(in);
		if (!fuzz_read(&t, in->p, in->len, &ret, why, sizeof(why)))
			found(parse, in, why);
		if (ret == 0) {
			accepted++;
		} else {
			rejected++;
			/* The lines before the one refused are a trace. */
			if (!prefix(in, t.err, pre)) {
				trace_release(&t);
				goto bytes;
			}
			trace_release(&t);
			if (!fuzz_read(&t, pre->p, pre->len, &ret, why,
				       sizeof(why)) || ret) {
				if (!ret)
					found(parse, pre, why);
				else
					found(parse, pre, "the lines before "
					      "the error line are refused");
				trace_release(&t);
				goto bytes;
			}
			prefixes++;
			memcpy(in, pre, sizeof(*in));
		}
		if (replays < iters * 3 / 100 && !t_below(30) && small(&t)) {
			enum t_outcome r = t_replay(&t, why, sizeof(why));

			replays++;
			nrun[r]++;
			if (t_run_bad(r))
				found_run(run, r, why, in);
		}
		trace_release(&t);
bytes:

		/* (b) random bytes, bare or after the binary magic, or
		 * (c) a binary trace with bytes changed */
		switch (it % 3) {
		case 0:
			in->len = t_below(600);
			for (size_t k = 0; k < in->len; k++)
				in->p[k] = (char)t_rnd();
			break;
		case 1:
			memcpy(in->p, TRACE_BIN_MAGIC, 8);
			in->len = 8 + t_below(600);
			for (size_t k = 8; k < in->len; k++)
				in->p[k] = (char)(t_below(4) ? t_below(8) : t_rnd());
			break;
		default:
			in->len = bin.len < FUZZ_MAX ? bin.len : FUZZ_MAX;
			memcpy(in->p, bin.p, in->len);
			for (size_t m = 1 + t_below(4); m--;) {
				size_t at = 8 + t_below(in->len - 8);

				if (t_below(2))
					in->p[at] = (char)t_rnd();
				else
					t_in_delete(in, at, 1 + t_below(4));
			}
			break;
		}
		if (!fuzz_read(&t, in->p, in->len, &ret, why, sizeof(why)))
			found(parse, in, why);
		if (ret == 0)
			raccepted++;
		else
			rrejected++;
		trace_release(&t);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	t_diag("fuzz: %lu iterations in %.1f s", iters,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	t_diag("fuzz: mutated text: %lu accepted, %lu rejected (of which the "
	       "lines before the error: %lu)", accepted, rejected, prefixes);
	t_diag("fuzz: random/binary bytes: %lu accepted, %lu rejected",
	       raccepted, rrejected);
	t_diag("fuzz: %lu replays: %lu ok, %lu sim errors, %lu refused, "
	       "%lu bad", replays, nrun[T_RUN_OK], nrun[T_RUN_ERROR],
	       nrun[T_RUN_REFUSED], nrun[T_RUN_INVARIANT] + nrun[T_RUN_NOERR] +
	       nrun[T_RUN_CRASH]);
	report_parse(parse);
	report_runs(run);
	t_ok(accepted > iters / 10 && rejected > iters / 10,
	     "fuzz: mutated seeds are both accepted and rejected");
	t_ok(raccepted + rrejected == iters && rrejected > iters / 4,
	     "fuzz: random bytes are mostly rejected");
	t_ok(replays >= iters / 100 && nrun[T_RUN_OK] >= iters / 200,
	     "fuzz: %lu replays, %lu ran to the end", replays, nrun[T_RUN_OK]);
	free(bin.p);
	free(in);
	free(pre);
	free(parse);
	free(run);
}

int main(void)
{
	test_fuzz();
	return t_done();
}
