/* SPDX-License-Identifier: MIT */
/*
 * fuzz-trace.c - libFuzzer harness for the trace readers (`pager sim`,
 * `pager convert`): the first byte of the input picks the format (auto,
 * as `--format auto` finds it from the first bytes, or text, binary,
 * pages or lackey by force), the rest is the trace file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../pager/sim/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum trace_format fmts[] = {
		TF_AUTO, TF_TEXT, TF_BINARY, TF_PAGES, TF_LACKEY,
	};
	enum trace_format fmt = size ? fmts[data[0] % 5] : TF_AUTO;
	struct trace t = { 0 };
	FILE *f;

	if (size) {
		data++;
		size--;
	}
	f = fmemopen(size ? (void *)data : "", size ? size : 1, "r");
	if (!f)
		return 0;
	trace_read(&t, f, "fuzz.trace", fmt);
	trace_release(&t);
	fclose(f);
	return 0;
}
