/* SPDX-License-Identifier: MIT */
/*
 * cmd-gen.c - `pager gen`: synthetic traces, so that large traces are
 * generated rather than committed (docs/trace.md lists the kinds).
 *
 *   seq     one pass over N anon pages
 *   loop    L passes over N anon pages
 *   zipf    M random accesses to N anon pages, Zipf-distributed
 *   thrash  seed 000: anon fill, then rounds over a file mapped half
 *           PROT_EXEC, half not
 *   stream  seed 001: a file read once in mmap'd chunks while a hot anon
 *           set is touched
 *   pmbench seed 002: examples/pmbench's accesses (normal, half writes)
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../sim/trace.h"
#include "../lib/util.h"
#include "../lib/zipf.h"

static const char usage[] =
	"usage: pager gen KIND [OPTIONS] [-o FILE] [--binary]\n"
	"  seq    --pages N [--write]\n"
	"  loop   --pages N --loops L [--write]\n"
	"  zipf   --pages N --refs M [--alpha A] [--seed S] [--write]\n"
	"  thrash --anon SIZE --file SIZE --rounds R        (seed 000)\n"
	"  stream --file SIZE --hot SIZE [--chunk SIZE] [--passes P]\n"
	"         [--fork-every PAGES] [--hot-every CHUNKS] (seed 001)\n"
	"  pmbench --pages N --refs M [--seed S]            (seed 002)\n"
	"Writes the text format (or --binary) to FILE or standard output.\n";

#define ANON_BASE	UINT64_C(0x100000000)
#define FILE_BASE	UINT64_C(0x400000000)
#define PG		4096

struct gen {
	const char *kind;
	uint64_t pages, loops, refs, seed, passes;
	double alpha;
	uint64_t anon, file, hot, chunk, fork_every;	/* bytes / pages */
	uint64_t hot_every;				/* chunks */
	uint64_t rounds;
	bool write, binary;
	const char *out;
	struct trace_writer *w;
};

static void line(struct gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line(struct gen *g, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	trace_writer_line(g->w, buf);
}

static void touch(struct gen *g, uint64_t addr, bool write)
{
	trace_writer_access(g->w, 1, addr, write);
}

static void gen_seq(struct gen *g, uint64_t loops)
{
	line(g, "mmap 1 0x%llx %llu anon", (unsigned long long)ANON_BASE,
	     (unsigned long long)(g->pages * PG));
	for (uint64_t l = 0; l < loops; l++) {
		if (loops > 1)
			line(g, "phase loop%llu", (unsigned long long)l);
		for (uint64_t p = 0; p < g->pages; p++)
			touch(g, ANON_BASE + p * PG, g->write);
	}
}

static void gen_zipf(struct gen *g)
{
	struct zipf z;

	zipf_init(&z, g->pages, g->alpha, g->seed);
	line(g, "mmap 1 0x%llx %llu anon", (unsigned long long)ANON_BASE,
	     (unsigned long long)(g->pages * PG));
	for (uint64_t r = 0; r < g->refs; r++)
		touch(g, ANON_BASE + zipf_next(&z) * PG, g->write);
	zipf_release(&z);
}

/* A uniform draw in (0, 1), never 0: log() takes it. */
static double unit(uint64_t *state)
{
	return ((double)(pgr_rand(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* Seed 002's pmbench (examples/pmbench.c): every page written once,
 * then M accesses normally distributed around the middle of the set,
 * sigma a sixth of it (draws outside the set are drawn again), half of
 * them writes. */
static void gen_pmbench(struct gen *g)
{
	uint64_t state = g->seed ? g->seed : 1;
	double n = (double)g->pages;

	line(g, "mmap 1 0x%llx %llu anon", (unsigned long long)ANON_BASE,
	     (unsigned long long)(g->pages * PG));
	for (uint64_t p = 0; p < g->pages; p++)
		touch(g, ANON_BASE + p * PG, true);
	for (uint64_t r = 0; r < g->refs; r++) {
		double x;

		do {	/* Box-Muller, as the workload draws */
			double u = unit(&state), v = unit(&state);

			x = n / 2 + n / 6 * sqrt(-2 * log(u)) *
			    cos(2 * M_PI * v);
		} while (x < 0 || x >= n);
		touch(g, ANON_BASE + (uint64_t)x * PG, pgr_rand(&state) & 1);
	}
}

/* Seed 000's thrash: allocate and memset ANON, map FILE half PROT_EXEC
 * half not, then read one byte a page of both halves, ROUNDS times. */
static void gen_thrash(struct gen *g)
{
	uint64_t anon = g->anon / PG, half = g->file / PG / 2;

	line(g, "file 1 %llu", (unsigned long long)(half * 2 * PG));
	line(g, "phase alloc");
	line(g, "mmap 1 0x%llx %llu anon", (unsigned long long)ANON_BASE,
	     (unsigned long long)(anon * PG));
	for (uint64_t p = 0; p < anon; p++)
		touch(g, ANON_BASE + p * PG, true);
	line(g, "mmap 1 0x%llx %llu file:1 exec shared",
	     (unsigned long long)FILE_BASE, (unsigned long long)(half * PG));
	line(g, "mmap 1 0x%llx %llu file:1@%llu shared",
	     (unsigned long long)(FILE_BASE + half * PG * 2),
	     (unsigned long long)(half * PG), (unsigned long long)(half * PG));
	for (uint64_t r = 0; r < g->rounds; r++) {
		line(g, "phase round%llu", (unsigned long long)r);
		for (uint64_t p = 0; p < half; p++) {
			touch(g, FILE_BASE + p * PG, false);
			touch(g, FILE_BASE + (half * 2 + p) * PG, false);
		}
	}
}

/* Seed 001: hash FILE in CHUNK-sized mmap windows, touching the HOT anon
 * set after every HOT_EVERY chunks (1: a hot set, as the anchors' thread
 * keeps it; more: a desktop's warm set); optionally fork a short-lived
 * child every FORK_EVERY file pages (the latency probe). */
static void gen_stream(struct gen *g)
{
	uint64_t file = g->file / PG, chunk = g->chunk / PG, hot = g->hot / PG;
	uint64_t done = 0, chunks = 0;
	int64_t child = 2;

	if (!chunk)
		chunk = (32 << 20) / PG;
	line(g, "file 1 %llu", (unsigned long long)(file * PG));
	if (hot) {
		line(g, "mmap 1 0x%llx %llu anon", (unsigned long long)ANON_BASE,
		     (unsigned long long)(hot * PG));
		for (uint64_t p = 0; p < hot; p++)
			touch(g, ANON_BASE + p * PG, true);
	}
	for (uint64_t pass = 0; pass < g->passes; pass++) {
		line(g, "phase pass%llu", (unsigned long long)pass);
		for (uint64_t c = 0; c < file; c += chunk) {
			uint64_t n = file - c < chunk ? file - c : chunk;

			line(g, "mmap 1 0x%llx %llu file:1@%llu",
			     (unsigned long long)FILE_BASE,
			     (unsigned long long)(n * PG),
			     (unsigned long long)(c * PG));
			for (uint64_t p = 0; p < n; p++) {
				touch(g, FILE_BASE + p * PG, false);
				if (g->fork_every &&
				    ++done % g->fork_every == 0) {
					line(g, "fork 1 %lld", (long long)child);
					line(g, "exit %lld", (long long)child++);
				}
			}
			line(g, "munmap 1 0x%llx %llu",
			     (unsigned long long)FILE_BASE,
			     (unsigned long long)(n * PG));
			if (++chunks % g->hot_every)
				continue;
			for (uint64_t p = 0; p < hot; p++)
				touch(g, ANON_BASE + p * PG, true);
		}
	}
}

static int parse(int argc, char **argv, struct gen *g)
{
	static const struct option opts[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "loops", required_argument, NULL, 'l' },
		{ "refs", required_argument, NULL, 'r' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "seed", required_argument, NULL, 's' },
		{ "anon", required_argument, NULL, 'A' },
		{ "file", required_argument, NULL, 'F' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "hot", required_argument, NULL, 'H' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "passes", required_argument, NULL, 'P' },
		{ "fork-every", required_argument, NULL, 'k' },
		{ "hot-every", required_argument, NULL, 'e' },
		{ "write", no_argument, NULL, 'w' },
		{ "binary", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	g->alpha = 1.0;
	g->passes = 1;
	g->hot_every = 1;
	optind = 2;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		uint64_t *num = NULL;
		bool size = false;
		char *end;

		switch (c) {
		case 'p': num = &g->pages; break;
		case 'l': num = &g->loops; break;
		case 'r': num = &g->refs; break;
		case 's': num = &g->seed; break;
		case 'R': num = &g->rounds; break;
		case 'P': num = &g->passes; break;
		case 'k': num = &g->fork_every; break;
		case 'e': num = &g->hot_every; break;
		case 'A': num = &g->anon; size = true; break;
		case 'F': num = &g->file; size = true; break;
		case 'H': num = &g->hot; size = true; break;
		case 'C': num = &g->chunk; size = true; break;
		case 'a':
			g->alpha = strtod(optarg, &end);
			if (*end || g->alpha <= 0 || g->alpha > 10)
				return pgr_usage_error(usage, "bad alpha '%s'",
						       optarg);
			continue;
		case 'w': g->write = true; continue;
		case 'b': g->binary = true; continue;
		case 'o': g->out = optarg; continue;
		case 'h': fputs(usage, stdout); exit(0);
		default: return pgr_usage_error(usage, NULL);
		}
		if ((size ? pgr_parse_size(optarg, num) :
			    pgr_parse_u64(optarg, num)))
			return pgr_usage_error(usage, "bad number '%s'", optarg);
	}
	if (optind != argc)
		return pgr_usage_error(usage, "unexpected '%s'", argv[optind]);
	if (!g->hot_every)
		return pgr_usage_error(usage, "--hot-every must be at least 1");
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct gen g = { 0 };
	FILE *f = stdout;
	int rc = 0;

	if (argc < 2)
		return pgr_usage_error(usage, "missing KIND");
	if (!strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	g.kind = argv[1];
	if (parse(argc, argv, &g))
		return 2;
	if ((!strcmp(g.kind, "seq") || !strcmp(g.kind, "loop") ||
	     !strcmp(g.kind, "zipf") || !strcmp(g.kind, "pmbench")) &&
	    (!g.pages || g.pages > (1u << 30)))
		return pgr_usage_error(usage, "%s needs --pages N (1..2^30)",
				       g.kind);
	if (!strcmp(g.kind, "loop") && !g.loops)
		return pgr_usage_error(usage, "loop needs --loops L");
	if ((!strcmp(g.kind, "zipf") || !strcmp(g.kind, "pmbench")) &&
	    !g.refs)
		return pgr_usage_error(usage, "%s needs --refs M", g.kind);
	if (!strcmp(g.kind, "thrash") && (g.anon < PG || g.file < 2 * PG ||
					  !g.rounds))
		return pgr_usage_error(usage, "thrash needs --anon, --file "
				       "(at least 8K) and --rounds");
	if (!strcmp(g.kind, "stream") && g.file < PG)
		return pgr_usage_error(usage, "stream needs --file");
	if (g.out && !(f = fopen(g.out, "w"))) {
		pgr_warn("cannot create '%s': %s", g.out, strerror(errno));
		return 1;
	}
	g.w = trace_writer_open(f, g.binary);
	if (!strcmp(g.kind, "seq"))
		gen_seq(&g, 1);
	else if (!strcmp(g.kind, "loop"))
		gen_seq(&g, g.loops);
	else if (!strcmp(g.kind, "zipf"))
		gen_zipf(&g);
	else if (!strcmp(g.kind, "thrash"))
		gen_thrash(&g);
	else if (!strcmp(g.kind, "stream"))
		gen_stream(&g);
	else if (!strcmp(g.kind, "pmbench"))
		gen_pmbench(&g);
	else
		rc = pgr_usage_error(usage, "unknown kind '%s'", g.kind);
	if (trace_writer_close(g.w)) {
		pgr_warn("cannot write the trace: %s", strerror(EIO));
		rc = 1;
	}
	if (f != stdout)
		fclose(f);
	return rc;
}
