/* SPDX-License-Identifier: MIT */
/*
 * cmd-experiment.c - `pager experiment FILE`: its options; the runs and
 * the report are pager/experiment/'s.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../experiment/experiment.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: pager experiment [-o DIR] [--repeat N] [--check] FILE\n"
	"       pager experiment --report DIR FILE\n"
	"Runs FILE's workload under the pager once per configuration and\n"
	"prints a comparison with the first; DIR (default results/NAME)\n"
	"gets table.txt, results.csv, each run's output and logs, and\n"
	"plot.png/plot.svg. docs/experiments.md describes FILE.\n"
	"--check: check FILE, each configuration's settings and its disk\n"
	"line, print the plan, run nothing. --report: the table and plot\n"
	"again from DIR/results.csv of an earlier run, as FILE now says\n"
	"(its figures, counters, plot), into DIR; nothing runs.\n";

int cmd_experiment(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "check", no_argument, NULL, 'c' },
		{ "report", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *report = NULL;
	struct experiment e;
	struct exp_runner x;
	char err[512];
	const char *out = NULL;
	int repeat = 0, c, rc;
	bool check_only = false;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (pgr_parse_u64(optarg, &v) || !v ||
			    v > EXP_MAX_REPEAT)
				return pgr_usage_error(usage, "--repeat: 1 to %d",
						       EXP_MAX_REPEAT);
			repeat = (int)v;
			break;
		case 'c':
			check_only = true;
			break;
		case 'R':
			report = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return pgr_usage_error(usage, NULL);
		}
	}
	if (optind != argc - 1)
		return pgr_usage_error(usage, "expected one experiment file");
	if (exp_parse(argv[optind], &e, err, sizeof(err))) {
		fprintf(stderr, "pager: %s\n", err);
		return 2;
	}
	if (report) {
		rc = exp_report_again(&e, report);
		exp_release(&e);
		return rc;
	}
	if (repeat)
		e.repeat = repeat;
	if (exp_runner_init(&x, &e, argv[optind], out)) {
		exp_release(&e);
		return 1;
	}
	rc = exp_runner_check(&x, argv[optind]);
	if (!rc)
		rc = check_only ? exp_print_plan(&x, argv[optind]) :
		     exp_run_all(&x, argv[optind]) ? 1 : 0;
	if (exp_interrupted())
		rc = 130;
	exp_runner_release(&x);
	exp_release(&e);
	return rc;
}
