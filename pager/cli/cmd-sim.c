/* SPDX-License-Identifier: MIT */
/*
 * cmd-sim.c - `pager sim`: replay a page-reference trace through the
 * kernel policy (or a reference policy) and print the counters.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../sim/ref.h"
#include "../sim/sim.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: pager sim [--policy linux|lru|clock|opt] (--mem SIZE | --pages N)\n"
	"                 [--swap SIZE | --no-swap] [--set KEY=VALUE]...\n"
	"                 [--format auto|text|binary|pages|lackey]\n"
	"                 [--check] [--per-group] TRACE\n"
	"Replays TRACE ('-': standard input) and prints 'name value' lines.\n"
	"SIZE takes K, M, G suffixes (bytes). Swap is unlimited unless given.\n";

struct sim_args {
	const char *policy;
	uint64_t budget;	/* pages */
	uint64_t swap;		/* pages */
	const char **sets;
	size_t nr_sets;
	enum trace_format fmt;
	bool check, per_group;
	const char *path;
};

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "mem", required_argument, NULL, 'm' },
		{ "pages", required_argument, NULL, 'P' },
		{ "swap", required_argument, NULL, 's' },
		{ "no-swap", no_argument, NULL, 'n' },
		{ "set", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "check", no_argument, NULL, 'c' },
		{ "per-group", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	a->policy = "linux";
	a->swap = UINT64_MAX / 4;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			a->policy = optarg;
			break;
		case 'm':
			if (pgr_parse_size(optarg, &v) || v < 4096)
				return pgr_usage_error(usage, "bad size '%s'",
						       optarg);
			a->budget = v / 4096;
			break;
		case 'P':
			if (pgr_parse_u64(optarg, &v) || !v)
				return pgr_usage_error(usage, "bad page count "
						       "'%s'", optarg);
			a->budget = v;
			break;
		case 's':
			if (pgr_parse_size(optarg, &v))
				return pgr_usage_error(usage, "bad size '%s'",
						       optarg);
			a->swap = v / 4096;
			break;
		case 'n':
			a->swap = 0;
			break;
		case 'S':
			if (!strchr(optarg, '='))
				return pgr_usage_error(usage, "--set needs "
						       "KEY=VALUE");
			a->sets = pgr_xrealloc(a->sets, a->nr_sets + 1,
					       sizeof(*a->sets));
			a->sets[a->nr_sets++] = optarg;
			break;
		case 'f':
			if (trace_format_parse(optarg, &a->fmt))
				return pgr_usage_error(usage, "unknown format "
						       "'%s'", optarg);
			break;
		case 'c':
			a->check = true;
			break;
		case 'g':
			a->per_group = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			return pgr_usage_error(usage, NULL);
		}
	}
	if (optind != argc - 1)
		return pgr_usage_error(usage, "expected one TRACE");
	if (!a->budget)
		return pgr_usage_error(usage, "--mem or --pages is required");
	a->path = argv[optind];
	return 0;
}

static int run_reference(const struct trace *t, const struct sim_args *a,
			 enum ref_policy p)
{
	struct ref_result r;

	if (a->nr_sets)
		pgr_warn("--set is ignored by the reference policies");
	if (ref_run(t, p, a->budget, &r)) {
		pgr_warn("%s: too many distinct pages", a->path);
		return 1;
	}
	printf("refs %llu\nmisses %llu\nevictions %llu\n",
	       (unsigned long long)r.refs, (unsigned long long)r.misses,
	       (unsigned long long)r.evictions);
	return 0;
}

static int run_linux(const struct trace *t, const struct sim_args *a)
{
	struct sim_opts o = { .budget = a->budget, .swap = a->swap,
			      .check = a->check, .per_group = a->per_group };
	char err[256];
	struct sim *s = sim_create(t, &o, err, sizeof(err));
	int rc = 0;

	if (!s) {
		pgr_warn("%s", err);
		return 1;
	}
	for (size_t i = 0; i < a->nr_sets; i++) {
		const char *why;

		if (sim_set(s, a->sets[i], &why)) {
			pgr_warn("--set %s: %s", a->sets[i], why);
			sim_destroy(s);
			return 2;
		}
	}
	if (sim_run(s)) {
		pgr_warn("%s: %s", a->path, s->err);
		rc = 1;
	}
	sim_print(s, stdout);
	if (s->expect_failures) {
		pgr_warn("%s: %u expectation%s failed", a->path,
			 s->expect_failures, s->expect_failures == 1 ? "" : "s");
		rc = 1;
	}
	sim_destroy(s);
	return rc;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_args a = { 0 };
	struct trace t;
	enum ref_policy ref;
	FILE *f;
	int rc;

	if (parse_args(argc, argv, &a)) {
		free(a.sets);
		return 2;
	}
	if (strcmp(a.policy, "linux") && ref_policy_parse(a.policy, &ref)) {
		free(a.sets);
		return pgr_usage_error(usage, "unknown policy '%s'", a.policy);
	}
	f = strcmp(a.path, "-") ? fopen(a.path, "r") : stdin;
	if (!f) {
		pgr_warn("cannot open '%s': %s", a.path, strerror(errno));
		free(a.sets);
		return 1;
	}
	rc = trace_read(&t, f, a.path, a.fmt);
	if (f != stdin)
		fclose(f);
	if (rc) {
		pgr_warn("%s", t.err);
		trace_release(&t);
		free(a.sets);
		return 1;
	}
	rc = strcmp(a.policy, "linux") ? run_reference(&t, &a, ref) :
					 run_linux(&t, &a);
	trace_release(&t);
	free(a.sets);
	return rc;
}
