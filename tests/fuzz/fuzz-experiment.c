/* SPDX-License-Identifier: MIT */
/*
 * fuzz-experiment.c - libFuzzer harness for `pager experiment`'s file
 * parser and its matching of a workload's output against the figures:
 * the input is parsed as an experiment file, and if it parses, every
 * line of it is matched as if the workload had printed it, and the
 * ratios are taken of what matched.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pager/experiment/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment e;
	struct exp_run run;
	char err[256], line[4096];
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (exp_parse_stream(f, "fuzz.exp", &e, err, sizeof(err))) {
		fclose(f);
		return 0;
	}
	rewind(f);
	memset(&run, 0, sizeof(run));
	while (fgets(line, sizeof(line), f))
		exp_match_line(&e, line, &run);
	exp_add_ratios(&e, &run);
	free(run.vals);
	exp_release(&e);
	fclose(f);
	return 0;
}
