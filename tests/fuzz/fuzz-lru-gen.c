/* SPDX-License-Identifier: MIT */
/*
 * fuzz-lru-gen.c - libFuzzer harness for MGLRU's commands (debugfs
 * lru_gen's "+ MEMCG NODE MAX_GEN [SWAPPINESS [FORCE_SCAN]]" and
 * "- MEMCG NODE MIN_GEN [SWAPPINESS [NR_TO_RECLAIM]]", as `lru_gen` trace
 * lines) among the events that fill and drain the generations. The input
 * is a text trace, replayed with lru_gen.enabled=y in 64 pages with 256
 * of swap and the policy's invariants checked after every event; its
 * first byte picks vm.swappiness, look-around and asynchronous
 * write-back (the trace's own `set` lines switch lru_gen.enabled live).
 * A command the kernel would refuse ends the replay with its reason, as
 * it should; a broken invariant aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pager/sim/sim.h"
#include "../../pager/sim/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const swappiness[] = {
		"vm.swappiness=0", "vm.swappiness=1", "vm.swappiness=60",
		"vm.swappiness=200",
	};
	struct sim_opts o = { .budget = 64, .swap = 256, .check = true };
	unsigned int pick = size ? data[0] : 0;
	struct trace t = { 0 };
	const char *why;
	struct sim *s;
	char err[256];
	FILE *f;

	if (size) {
		data++;
		size--;
	}
	f = fmemopen(size ? (void *)data : "", size ? size : 1, "r");
	if (!f)
		return 0;
	if (trace_read(&t, f, "fuzz.trace", TF_TEXT))
		goto out;
	s = sim_create(&t, &o, err, sizeof(err));
	if (!s)
		goto out;
	sim_set(s, "lru_gen.enabled=y", &why);
	sim_set(s, swappiness[pick & 3], &why);
	if (pick & 4)
		sim_set(s, "lru_gen.look_around=0", &why);
	if (pick & 8)
		sim_set(s, "sim.writeback=async", &why);
	if (sim_run(s) && !strncmp(s->err, "policy invariant", 16)) {
		fprintf(stderr, "fuzz-lru-gen: %s\n", s->err);
		abort();
	}
	sim_destroy(s);
out:
	trace_release(&t);
	fclose(f);
	return 0;
}
