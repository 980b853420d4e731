/* SPDX-License-Identifier: MIT */
/*
 * test-trace.c - the text trace format and the builder (pager/sim/trace.c,
 * trace-build.c, trace-text.c, linesrc.c).
 *
 * The text format with every command, resolved to events, regions and
 * page offsets through mmap, munmap, mremap and fork; a table of malformed
 * lines, each with its "NAME:LINE: reason"; and the traces that once
 * broke the simulator, replayed in a child process so that a crash or a
 * sanitizer report is a failed check, not a dead test.
 *
 * The binary, pages and lackey formats are tested in test-formats.c, the
 * readers and the simulator under random input in test-fuzz.c.
 */
#include <string.h>

#include "../pager/sim/trace.h"
#include "t-trace.h"
#include "tap.h"

/* ---- 1. a good text trace ------------------------------------------------ */

/* The events of t_good_text (t-trace.c), line by line. */
static const struct ev good_events[] = {
	T_EV(EV_PROCGROUP, 0, 0, 0, 1, 0),	/* proc 1 group=g2 */
	T_EV(EV_MAP, 0, 0, 0, 0, 4),		/* r0: anon, 4 pages */
	T_EV(EV_MAP, 0, 0, 1, 0, 4),		/* r1: file 7 from page 2 */
	T_EV(EV_ACCESS, EVF_WRITE, 0, 0, 0, 1),
	T_EV(EV_ACCESS, 0, 0, 0, 1, 1),		/* r 1 0x11000 8K */
	T_EV(EV_ACCESS, 0, 0, 0, 2, 1),
	T_EV(EV_ACCESS, 0, 0, 1, 1, 1),		/* r 1 0x21000 */
	T_EV(EV_UNMAP, 0, 0, 0, 1, 1),		/* a hole: not final */
	T_EV(EV_ACCESS, 0, 0, 0, 3, 1),		/* [8] r 1 0x13000 */
	T_EV(EV_RESIZE, 0, 0, 0, 0, 6),		/* moved and grown */
	T_EV(EV_ACCESS, EVF_WRITE, 0, 0, 3, 1),	/* [10] w 1 0x41000 */
	T_EV(EV_ACCESS, EVF_WRITE, 0, 0, 5, 1),	/* the grown part */
	T_EV(EV_MADVISE, 0, ADV_COLD, 0, 2, 2),
	T_EV(EV_ACCESS, 0, 0, 1, 1, 1),		/* r 1 0x61000: moved */
	T_EV(EV_FD, 0, 1, 0, 0, 2),		/* read, charged to g2 */
	T_EV(EV_FD, EVF_WRITE | EVF_FULLPAGE, 0xffff, 1, 1, 1),
	T_EV(EV_FD, EVF_WRITE, 0xffff, 1, 4, 1), /* extends file 8 */
	T_EV(EV_TRUNCATE, 0, 0, 1, 0, 1),
	T_EV(EV_CLONE, 0, 0, 2, 0, 0),		/* fork: r2 <- r0 */
	T_EV(EV_CLONE, 0, 0, 3, 1, 0),		/*       r3 <- r1 */
	T_EV(EV_ACCESS, EVF_WRITE, 0, 2, 5, 1),	/* [20] w 2 0x43000 */
	T_EV(EV_PROCGROUP, 0, 0, 1, 0, 0),
	T_EV(EV_PHASE, 0, 0, 0, 0, 0),
	T_EV(EV_SET, 0, 0, 0, 1, 0),
	T_EV(EV_RECLAIM, 0, RC_KSWAPD, T_NONE, 0, 0),
	T_EV(EV_RECLAIM, 0, RC_DIRECT, T_NONE, 0, 0),
	T_EV(EV_RECLAIM, 0, RC_GROUP, 0, 0, 16),
	T_EV(EV_RECLAIM, 0, RC_LIST, T_NONE, 0, 8),
	T_EV(EV_RECLAIM, 0, RC_INODES, 1, 0, 3),
	T_EV(EV_EXPECT, 0, 0, 0, 0, 0),
	T_EV(EV_EXPECT, 0, 0, 0, 1, 0),
	T_EV(EV_EXPECT, 0, 0, 0, 2, 0),
	T_EV(EV_UNMAP, 0, 0, 2, 0, 1),		/* exit 2 */
	T_EV(EV_UNMAP, EVF_FINAL, 0, 2, 2, 4),
	T_EV(EV_UNMAP, EVF_FINAL, 0, 3, 0, 4),
	T_EV(EV_EXIT, 0, 0, 1, 0, 0),
	T_EV(EV_UNMAP, 0, 0, 0, 0, 1),		/* r0 keeps pages 2-5 */
	T_EV(EV_UNMAP, EVF_FINAL, 0, 0, 2, 4),	/* its last pages */
};

static void test_good_text(void)
{
	struct trace t, a;
	const struct t_region *r;

	if (!t_ok(t_read_str(&t, t_good_text, TF_TEXT) == 0,
		  "a trace with every command parses")) {
		t_diag("%s", t.err);
		trace_release(&t);
		return;
	}
	t_ok(!t.err[0], "no error message after success");
	t_check_events(&t, good_events, ARRAY_SIZE(good_events),
		       "every command");
	t_eq(t.nr_accesses, 13,
	     "nr_accesses: 9 accesses, 4 pages by read/write");

	/* mremap and fork, resolved */
	if (t.nr_ev == ARRAY_SIZE(good_events)) {
		t_ok(t.ev[8].obj == t.ev[10].obj && t.ev[8].off == t.ev[10].off,
		     "after mremap the new address is the same region page");
		t_ok(t.ev[20].obj == 2 && t.regions[2].clone_of == t.ev[10].obj,
		     "the child's access resolves to the clone of the "
		     "parent's region");
	}

	t_eq(t.nr_regions, 4, "4 regions");
	if (t.nr_regions == 4) {
		r = t.regions;
		t_ok(r[0].flags == 0 && r[0].inode == T_NONE &&
		     r[0].clone_of == T_NONE && r[0].proc == 0,
		     "r0: anon, of process 1, no clone");
		t_eq(r[0].npages, 6, "r0 grew to 6 pages");
		t_eq(r[1].flags, R_FILE | R_EXEC | R_SHARED | R_SEQ | R_LOCKED,
		     "r1: file exec shared seq locked");
		t_ok(r[1].inode == 0 && r[1].foff == 2,
		     "r1: file 7 from page 2 (file:7@8K)");
		t_ok(r[2].proc == 1 && r[2].clone_of == 0 &&
		     r[2].npages == 6, "r2: process 2's clone of r0");
		t_ok(r[3].proc == 1 && r[3].clone_of == 1 &&
		     r[3].flags == r[1].flags && r[3].foff == 2,
		     "r3: process 2's clone of r1, same file and flags");
	}
	t_eq(t.nr_inodes, 2, "2 files");
	if (t.nr_inodes == 2) {
		t_ok(t.inodes[0].ino == 7 && t.inodes[0].npages == 16 &&
		     t.inodes[0].group == 0, "file 7: 16 pages, group g1");
		t_ok(t.inodes[1].ino == 8 && t.inodes[1].npages == 5 &&
		     t.inodes[1].size == 1 && t.inodes[1].group == T_NONE,
		     "file 8: grew to 5 pages by write, truncated to 1");
	}
	t_eq(t.nr_groups, 2, "2 groups");
	if (t.nr_groups == 2) {
		t_ok(!strcmp(t.groups[0].name, "g1") &&
		     t.groups[0].parent == T_NONE &&
		     !strcmp(t.groups[0].limits[1], "1M") &&
		     !t.groups[0].limits[0][0] && !t.groups[0].limits[2][0],
		     "g1: top level, memory.low=1M");
		t_ok(!strcmp(t.groups[1].name, "g2") &&
		     t.groups[1].parent == 0 &&
		     !strcmp(t.groups[1].limits[1], "64K") &&
		     !strcmp(t.groups[1].limits[2], "max"),
		     "g2: under g1, memory.low=64K memory.max=max");
	}
	t_eq(t.nr_procs, 2, "2 processes");
	if (t.nr_procs == 2)
		t_ok(t.procs[0].pid == 1 && t.procs[0].live &&
		     t.procs[0].group == 1 && t.procs[1].pid == 2 &&
		     !t.procs[1].live && t.procs[1].group == 0,
		     "process 1 live in g2, process 2 exited in g1");
	t_ok(t.nr_strings == 2 && !strcmp(t.strings[0], "warm") &&
	     !strcmp(t.strings[1], "vm.swappiness=100"),
	     "phase and set strings");
	t_eq(t.nr_expects, 3, "3 expectations");
	if (t.nr_expects == 3) {
		const struct t_expect *x = t.expects;

		t_ok(!x[0].page && !strcmp(x[0].counter, "pgfault") &&
		     x[0].cmp == CMP_GT && x[0].value == 0 &&
		     x[0].group == T_NONE && x[0].line == 35,
		     "expect pgfault > 0 (line 35)");
		t_ok(x[1].page && !x[1].file && x[1].obj == 0 &&
		     x[1].off == 3 && x[1].states == ST_RESIDENT,
		     "expect page: resolved to r0 page 3");
		t_ok(x[2].page && x[2].file && x[2].obj == 0 && x[2].off == 0,
		     "expect file: file 7 page 0");
	}

	t_ok(t_read_str(&a, t_good_text, TF_AUTO) == 0 &&
	     t_same_events(a.ev, a.nr_ev, t.ev, t.nr_ev, true),
	     "TF_AUTO reads it as text, the same events");
	trace_release(&a);
	trace_release(&t);
}

/* munmap cuts mappings; a region dies with its last page only. */
static void test_munmap(void)
{
	static const struct ev split[] = {
		T_EV(EV_MAP, 0, 0, 0, 0, 4),
		T_EV(EV_UNMAP, 0, 0, 0, 1, 2),	/* the middle */
		T_EV(EV_ACCESS, 0, 0, 0, 0, 1),	/* left piece */
		T_EV(EV_ACCESS, 0, 0, 0, 3, 1),	/* right piece */
		T_EV(EV_UNMAP, 0, 0, 0, 3, 1),
		T_EV(EV_UNMAP, EVF_FINAL, 0, 0, 0, 1),	/* the last page */
		T_EV(EV_MAP, 0, 0, 1, 0, 1),
		T_EV(EV_ACCESS, 0, 0, 1, 0, 1),	/* a new region */
		T_EV(EV_MAP, 0, 0, 2, 0, 2),
		T_EV(EV_UNMAP, EVF_FINAL, 0, 1, 0, 1),	/* r1 dies, not r2 */
	};
	static const struct ev fixed[] = {
		T_EV(EV_MAP, 0, 0, 0, 0, 4),
		T_EV(EV_UNMAP, 0, 0, 0, 1, 1),	/* MAP_FIXED over page 1 */
		T_EV(EV_MAP, 0, 0, 1, 0, 1),
		T_EV(EV_ACCESS, 0, 0, 1, 0, 1),
		T_EV(EV_ACCESS, 0, 0, 0, 2, 1),
	};
	struct trace t;

	t_ok(t_read_str(&t, "mmap 1 0x10000 16K anon\n"
			    "munmap 1 0x11000 8K\n"
			    "r 1 0x10000\n"
			    "r 1 0x13000\n"
			    "munmap 1 0x13000 4K\n"
			    "munmap 1 0x0 1M\n"
			    "mmap 1 0x10000 4K anon\n"
			    "r 1 0x10000\n"
			    "mmap 1 0x30000 8K anon\n"
			    "munmap 1 0x0 0x30000\n", TF_TEXT) == 0,
	     "munmap: a split mapping parses");
	t_check_events(&t, split, ARRAY_SIZE(split), "munmap splits");
	t_ok(t.nr_regions == 3 && t.regions[0].mapped == 0 &&
	     t.regions[1].mapped == 0 && t.regions[2].mapped == 2,
	     "pages still mapped: 0, 0, 2");
	trace_release(&t);

	t_ok(t_read_str(&t, "mmap 1 0x10000 16K anon\n"
			    "mmap 1 0x11000 4K anon\n"
			    "r 1 0x11000\n"
			    "r 1 0x12000\n", TF_TEXT) == 0,
	     "mmap over a mapping parses");
	t_check_events(&t, fixed, ARRAY_SIZE(fixed), "mmap over a mapping");
	trace_release(&t);

	t_ok(t_read_str(&t, "mmap 1 0x10000 16K anon\n"
			    "munmap 1 0x11000 8K\n"
			    "r 1 0x12000\n", TF_TEXT) == -1 &&
	     !strcmp(t.err, "test.trace:3: access to 0x12000 of process 1, "
		     "which is not mapped"),
	     "an access to the hole munmap made is an error");
	trace_release(&t);
}

/* mremap moves pages with their region offsets, shrinks, grows. */
static void test_mremap(void)
{
	static const struct ev want[] = {
		T_EV(EV_MAP, 0, 0, 0, 0, 4),
		T_EV(EV_ACCESS, EVF_WRITE, 0, 0, 2, 1),
		T_EV(EV_ACCESS, 0, 0, 0, 2, 1),	/* after the move */
		T_EV(EV_UNMAP, 0, 0, 0, 2, 2),	/* shrunk in place */
		T_EV(EV_MAP, 0, 0, 1, 0, 2),
		T_EV(EV_UNMAP, EVF_FINAL, 0, 0, 0, 2),	/* r1 moved on r0 */
		T_EV(EV_ACCESS, 0, 0, 1, 1, 1),
		T_EV(EV_RESIZE, 0, 0, 1, 0, 4),	/* grown in place */
		T_EV(EV_ACCESS, EVF_WRITE, 0, 1, 3, 1),
	};
	struct trace t;

	t_ok(t_read_str(&t, "mmap 1 0x10000 16K anon\n"
			    "w 1 0x12000\n"
			    "mremap 1 0x10000 16K 0x80000 16K\n"
			    "r 1 0x82000\n"
			    "mremap 1 0x80000 16K 0x80000 8K\n"
			    "mmap 1 0x90000 8K anon\n"
			    "mremap 1 0x90000 8K 0x80000 8K\n"
			    "r 1 0x81000\n"
			    "mremap 1 0x80000 8K 0x80000 16K\n"
			    "w 1 0x83000\n", TF_TEXT) == 0,
	     "mremap: move, shrink, move over, grow parse");
	t_check_events(&t, want, ARRAY_SIZE(want), "mremap");
	trace_release(&t);

	t_ok(t_read_str(&t, "mmap 1 0x10000 16K anon\n"
			    "mremap 1 0x10000 16K 0x80000 16K\n"
			    "r 1 0x10000\n", TF_TEXT) == -1 &&
	     !strcmp(t.err, "test.trace:3: access to 0x10000 of process 1, "
		     "which is not mapped"),
	     "the old address of a moved mapping is unmapped");
	trace_release(&t);
}

/* ---- 2. malformed lines -------------------------------------------------- */

#define PRE "mmap 1 0x10000 16K anon\nfile 7 8K\n"

static const struct bad_row {
	const char *text;
	const char *prefix;	/* exact */
	const char *why;	/* a substring of the rest */
} bad_rows[] = {
	{ PRE "frobnicate 1\n", "test.trace:3: ",
	  "unknown command 'frobnicate'" },
	{ "# c\n\nbogus\n", "test.trace:3: ", "unknown command 'bogus'" },
	{ "file 7 8K\nexit 1\n", "test.trace:2: ", "no process 1" },
	{ "mmap 1 0x10000 4K anon\nmumnap 1 0x10000 4K\n", "test.trace:2: ",
	  "unknown command 'mumnap'" },
	{ PRE "pager-trace 2\n", "test.trace:3: ",
	  "unsupported trace version" },
	{ PRE "r 1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 "
	  "23 24\n", "test.trace:3: ", "too many words" },
	/* words */
	{ PRE "mmap\n", "test.trace:3: ", "mmap: missing pid" },
	{ PRE "r\n", "test.trace:3: ", "r: missing pid" },
	{ PRE "w 1\n", "test.trace:3: ", "w: missing address" },
	{ PRE "r x1 0x10000\n", "test.trace:3: ", "r: bad pid 'x1'" },
	{ PRE "r 2147483648 0x10000\n", "test.trace:3: ",
	  "r: pid 2147483648 out of range" },
	{ PRE "fork 1 99999999999\n", "test.trace:3: ",
	  "fork: pid 99999999999 out of range" },
	{ PRE "r 1 0x10000 4K extra\n", "test.trace:3: ", "r: too many words" },
	{ PRE "w 1 0x10000 0\n", "test.trace:3: ", "w: bad range" },
	{ PRE "mmap 1 0x20000 12Q anon\n", "test.trace:3: ",
	  "mmap: bad length '12Q'" },
	{ PRE "mmap 1 0x20000 0 anon\n", "test.trace:3: ",
	  "mmap: zero length" },
	{ PRE "mmap 1 0xffffffffffff 8K anon\n", "test.trace:3: ",
	  "range beyond the 48-bit address space" },
	{ PRE "mmap 1 0x0 9T anon\n", "test.trace:3: ", "mapping too large" },
	{ PRE "mmap 1 0x20000 4K heap\n", "test.trace:3: ",
	  "expected type anon or file:INO[@OFFSET]" },
	{ PRE "mmap 1 0x20000 4K file:7@100\n", "test.trace:3: ",
	  "bad file offset '100'" },
	{ PRE "mmap 1 0x20000 4K anon huge\n", "test.trace:3: ",
	  "mmap: unknown flag 'huge'" },
	{ PRE "mmap 1 0x20000 4K file:9\n", "test.trace:3: ",
	  "mmap: unknown file 9" },
	{ PRE "file 9 lots\n", "test.trace:3: ", "file: bad size 'lots'" },
	{ PRE "file 9 9T\n", "test.trace:3: ", "file: file too large" },
	{ PRE "file 7 4K\n", "test.trace:3: ", "file 7 declared twice" },
	{ PRE "file 9 4K group=nope\n", "test.trace:3: ",
	  "file: unknown group 'nope'" },
	{ PRE "truncate 7 9T\n", "test.trace:3: ", "truncate: file too large" },
	{ PRE "truncate 9 4K\n", "test.trace:3: ", "truncate: unknown file 9" },
	{ PRE "group\n", "test.trace:3: ", "missing or too long group name" },
	{ PRE "group a1234567890123456789012345678901234567890\n",
	  "test.trace:3: ",
	  "missing or too long group name" },
	{ PRE "group root\n", "test.trace:3: ", "group 'root' declared twice" },
	{ PRE "group a parent=nope\n", "test.trace:3: ",
	  "group: unknown parent 'nope'" },
	{ PRE "group a memory.low=lots\n", "test.trace:3: ",
	  "group: bad size 'lots'" },
	{ PRE "group a color=red\n", "test.trace:3: ",
	  "group: unexpected 'color=red'" },
	{ PRE "proc 1 group=nope\n", "test.trace:3: ",
	  "proc: unknown group 'nope'" },
	{ PRE "proc 1 grp=x\n", "test.trace:3: ",
	  "proc: unexpected 'grp=x' (group=NAME)" },
	{ PRE "phase a b\n", "test.trace:3: ", "phase: expected one name" },
	{ PRE "set swappiness\n", "test.trace:3: ", "set: expected KEY=VALUE" },
	/* read/write */
	{ PRE "read 9 0\n", "test.trace:3: ",
	  "read: unknown file 9 (declare it with 'file INO SIZE')" },
	{ PRE "read 7 8K\n", "test.trace:3: ",
	  "read beyond the end of file 7" },
	{ PRE "read 7 0 4K who=3\n", "test.trace:3: ",
	  "read: unexpected 'who=3' (pid=PID)" },
	{ PRE "read 7 0 4K pid=5\n", "test.trace:3: ", "no process 5" },
	{ PRE "write 7 0 9T\n", "test.trace:3: ", "write: bad range" },
	/* the builder: addresses and processes */
	{ PRE "r 1 0x30000\n", "test.trace:3: ",
	  "access to 0x30000 of process 1, which is not mapped" },
	{ PRE "r 1 0x10000 64K\n", "test.trace:3: ",
	  "access to 0x14000 of process 1, which is not mapped" },
	{ PRE "mmap 1 0x20000 16K file:7\nr 1 0x22000\n", "test.trace:4: ",
	  "access to 0x22000 is beyond the end of file 7 (SIGBUS)" },
	{ PRE "mmap 1 0x20000 8K file:7\ntruncate 7 4K\nr 1 0x21000\n",
	  "test.trace:5: ", "beyond the end of file 7" },
	{ PRE "munmap 5 0x10000 4K\n", "test.trace:3: ", "no process 5" },
	{ PRE "fork 2 3\n", "test.trace:3: ", "no process 2" },
	{ PRE "fork 1 1\n", "test.trace:3: ", "process 1 already exists" },
	{ PRE "exit 1\nr 1 0x10000\n", "test.trace:4: ", "no process 1" },
	{ PRE "madvise 1 0x10000 4K forget\n", "test.trace:3: ",
	  "madvise: expected dontneed, remove" },
	{ PRE "madvise 1 0x10000 4K\n", "test.trace:3: ",
	  "madvise: expected dontneed" },
	{ PRE "madvise 1 0x90000 4K cold\n", "test.trace:3: ",
	  "address 0x90000 is not mapped" },
	{ PRE "mremap 1 0x10000 32K 0x80000 32K\n", "test.trace:3: ",
	  "old range is not one mapping" },
	{ PRE "munmap 1 0x11000 4K\nmremap 1 0x10000 8K 0x80000 8K\n",
	  "test.trace:4: ", "old range is not one mapping" },
	{ PRE "mremap 1 0x10000 8K 0x11000 8K\n", "test.trace:3: ",
	  "old and new ranges overlap" },
	{ PRE "mremap 1 0x10000 8K 0x80000 16K\n", "test.trace:3: ",
	  "cannot grow into pages of the mapping that are mapped elsewhere" },
	{ PRE "mremap 9 0x10000 8K 0x80000 8K\n", "test.trace:3: ",
	  "no process 9" },
	/* reclaim */
	{ PRE "reclaim sometimes\n", "test.trace:3: ",
	  "reclaim: expected kswapd, direct, group G, list G LRU N" },
	{ PRE "reclaim list root inactive_anon\n", "test.trace:3: ",
	  "reclaim: expected kswapd" },
	{ PRE "reclaim list root hot_anon 4\n", "test.trace:3: ",
	  "reclaim: unknown list 'hot_anon'" },
	{ PRE "reclaim inodes root 13\n", "test.trace:3: ",
	  "priority is 0..12" },
	{ PRE "reclaim group nope\n", "test.trace:3: ",
	  "reclaim: unknown group 'nope'" },
	{ PRE "reclaim group root 99999999999\n", "test.trace:3: ",
	  "reclaim: too many pages" },
	/* expect */
	{ PRE "expect\n", "test.trace:3: ", "expect: missing what to expect" },
	{ PRE "expect pgfault ~ 3\n", "test.trace:3: ",
	  "expect: bad comparison '~' (=, !=, <, <=, >, >=)" },
	{ PRE "expect pgfault =< 3\n", "test.trace:3: ",
	  "bad comparison '=<'" },
	{ PRE "expect pgfault = many\n", "test.trace:3: ",
	  "expect: bad value 'many'" },
	{ PRE "expect pgfault =\n", "test.trace:3: ",
	  "expected: expect COUNTER[@GROUP] OP VALUE" },
	{ PRE "expect pgfault@nope = 1\n", "test.trace:3: ",
	  "expect: unknown group 'nope'" },
	{ PRE "expect page 1 0x10000 happy\n", "test.trace:3: ",
	  "expect: unknown page state 'happy'" },
	{ PRE "expect page 1 0x10000\n", "test.trace:3: ",
	  "missing page state" },
	{ PRE "expect page 1 0x90000 resident\n", "test.trace:3: ",
	  "address not mapped" },
	{ PRE "expect page 4 0x10000 resident\n", "test.trace:3: ",
	  "no process 4" },
	{ PRE "expect file 9 0 resident\n", "test.trace:3: ",
	  "expect: unknown file 9" },
};

static void test_bad_lines(void)
{
	for (size_t k = 0; k < ARRAY_SIZE(bad_rows); k++) {
		const struct bad_row *r = &bad_rows[k];
		const char *last = r->text + strlen(r->text) - 1, *line;
		size_t n = strlen(r->prefix);
		struct trace t;
		int ret;

		while (last > r->text && last[-1] != '\n')
			last--;
		line = last;
		ret = t_read_str(&t, r->text, TF_TEXT);
		if (!t_ok(ret == -1 && !strncmp(t.err, r->prefix, n) &&
			  strstr(t.err + n, r->why),
			  "bad line '%.*s': %s%s", (int)strcspn(line, "\n"),
			  line, r->prefix, r->why))
			t_diag("returned %d, err '%s'", ret, t.err);
		trace_release(&t);
	}
}

/* ---- 3. regressions ------------------------------------------------------ */

/*
 * Traces that broke the simulator: each must replay without a crash or
 * a sanitizer report.
 *
 * `expect page` on a file mapping, at a page past the end of the file:
 * the builder resolves it (the page is mapped; only an access would be
 * SIGBUS) and page_states() in sim-report.c indexes the file's page cache
 * slot[] with foff + off without checking it against the file's size.
 *
 * The first shadow-only node: node_push() in sim-backend.c compacts its
 * FIFO with memmove() while the FIFO is still NULL (UBSan: null pointer
 * passed as argument 1).
 */
static void test_regressions(void)
{
	static const struct {
		const char *text;
		const char *what;
	} rows[] = {
		{ "file 1 4K\n"
		  "read 1 0\n"
		  "reclaim list root inactive_file 1\n",
		  "the first shadow-only node (node_push on a NULL FIFO)" },
		{ "file 7 4K\n"
		  "mmap 1 0x10000 8K file:7\n"
		  "expect page 1 0x11000 absent\n",
		  "expect page one page past the end of a mapped file" },
		{ "file 7 4K\n"
		  "mmap 1 0x10000 4K file:7@0x100000000000\n"
		  "expect page 1 0x10000 absent\n",
		  "expect page of a mapping far past the end of its file" },
	};

	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		struct trace t;
		char why[256];
		enum t_outcome r;

		if (!t_ok(t_read_str(&t, rows[k].text, TF_TEXT) == 0,
			  "regression trace %zu parses", k)) {
			t_diag("%s", t.err);
			trace_release(&t);
			continue;
		}
		r = t_replay(&t, why, sizeof(why));
		if (!t_ok(!t_run_bad(r), "regression: %s replays",
			  rows[k].what))
			t_diag("%s: %s", t_run_name(r), why);
		trace_release(&t);
	}
}

int main(void)
{
	test_good_text();
	test_munmap();
	test_mremap();
	test_bad_lines();
	test_regressions();
	return t_done();
}
