/* SPDX-License-Identifier: MIT */
/*
 * test-trace.c - the trace readers (pager/trace.c, trace-build.c,
 * trace-text.c, trace-bin.c, trace-flat.c, linesrc.c).
 *
 * The text format with every command, resolved to events, regions and
 * page offsets through mmap, munmap, mremap and fork; a table of malformed
 * lines, each with its "NAME:LINE: reason"; the binary form against the
 * text it encodes, its size and its errors; the pages and lackey formats
 * and the detection of all four.
 *
 * Then a fuzzer (a seeded xorshift64*, so every run is the same): mutated
 * traces, random bytes and mutated binary traces must each be read or
 * refused with a "fuzz.trace:LINE: reason", never crash, and what is read
 * must be a consistent trace. A sample of those read is replayed through
 * the simulator with pol_check() after every event, in a child process so
 * that a crash or a sanitizer report is a failed check, not a dead test.
 * PGR_FUZZ_ITERS and PGR_FUZZ_SEED override the number of iterations
 * (20000) and the seed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../pager/linesrc.h"
#include "../pager/trace.h"
#include "t-sim.h"
#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ------------------------------------------------------------ */

static int read_mem(struct trace *t, const void *p, size_t n,
		    const char *name, enum trace_format fmt)
{
	FILE *f = n ? fmemopen((void *)p, n, "r") : fopen("/dev/null", "r");
	int ret;

	if (!f) {
		t_ok(0, "open a memory stream: %s", strerror(errno));
		exit(1);
	}
	ret = trace_read(t, f, name, fmt);
	fclose(f);
	return ret;
}

static int read_str(struct trace *t, const char *text, enum trace_format fmt)
{
	return read_mem(t, text, strlen(text), "test.trace", fmt);
}

#define EV(op, fl, aux, obj, off, len)					\
	{ (uint8_t)(op), (uint8_t)(fl), (uint16_t)(aux), (uint32_t)(obj), \
	  (uint32_t)(off), (uint32_t)(len) }

static const char *const op_names[] = {
	"ACCESS", "FD", "MAP", "UNMAP", "CLONE", "RESIZE", "MADVISE", "EXIT",
	"PROCGROUP", "TRUNCATE", "PHASE", "SET", "EXPECT", "RECLAIM",
};

static void ev_diag(const char *who, size_t k, const struct ev *e)
{
	t_diag("%s event %zu: %s flags %u aux %u obj %u off %u len %u", who,
	       k, e->op < ARRAY_SIZE(op_names) ? op_names[e->op] : "?",
	       e->flags, e->aux, e->obj, e->off, e->len);
}

static bool ev_equal(const struct ev *a, const struct ev *b)
{
	return a->op == b->op && a->flags == b->flags && a->aux == b->aux &&
	       a->obj == b->obj && a->off == b->off && a->len == b->len;
}

/* Are the events the same? Diagnoses the first difference if @loud. */
static bool same_events(const struct ev *got, size_t ngot,
			const struct ev *want, size_t nwant, bool loud)
{
	size_t n = ngot < nwant ? ngot : nwant;

	for (size_t k = 0; k < n; k++) {
		if (ev_equal(&got[k], &want[k]))
			continue;
		if (loud) {
			ev_diag("got ", k, &got[k]);
			ev_diag("want", k, &want[k]);
		}
		return false;
	}
	if (ngot != nwant && loud)
		t_diag("got %zu events, want %zu", ngot, nwant);
	return ngot == nwant;
}

static void check_events(const struct trace *t, const struct ev *want,
			 size_t n, const char *what)
{
	t_ok(same_events(t->ev, t->nr_ev, want, n, true),
	     "%s: the %zu events expected", what, n);
}

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

/* ---- replay in a child process ------------------------------------------ */

enum run {
	RUN_OK = 10,		/* sim_run() returned 0 */
	RUN_ERROR,		/* -1 with an acceptable s->err */
	RUN_REFUSED,		/* sim_create() said no */
	RUN_INVARIANT,		/* -1: policy invariant broken */
	RUN_NOERR,		/* -1 without s->err */
	RUN_CRASH,		/* signal, sanitizer report, timeout */
};

static const char *run_name(enum run r)
{
	static const char *const names[] = { "ok", "error", "refused",
					     "invariant broken", "-1 without "
					     "an error", "crash" };

	return r >= RUN_OK && r <= RUN_CRASH ? names[r - RUN_OK] : "?";
}

/*
 * Replay @t with 256 pages of memory and 64 of swap in a child process.
 * @why gets s->err, or when the child died, the sanitizer's verdict and
 * where ("heap-buffer-overflow in page_states .../sim-report.c:135").
 */
static enum run replay(const struct trace *t, char *why, size_t len)
{
	FILE *log = tmpfile();
	enum run res;
	int status;
	pid_t pid;

	why[0] = 0;
	if (!log) {
		snprintf(why, len, "tmpfile: %s", strerror(errno));
		return RUN_CRASH;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		fclose(log);
		return RUN_CRASH;
	}
	if (pid == 0) {
		struct sim_opts o = { .budget = 256, .swap = 64,
				      .check = true };
		char err[256];
		struct sim *s;
		int code;

		dup2(fileno(log), STDERR_FILENO);
		alarm(20);
		s = sim_create(t, &o, err, sizeof(err));
		if (!s) {
			fprintf(stderr, "%s\n", err);
			_exit(RUN_REFUSED);
		}
		if (!sim_run(s))
			code = RUN_OK;
		else if (!s->err[0])
			code = RUN_NOERR;
		else if (!strncmp(s->err, "policy invariant broken", 23))
			code = RUN_INVARIANT;
		else
			code = RUN_ERROR;
		if (code != RUN_OK)
			fprintf(stderr, "%s\n", s->err);
		fflush(stderr);
		sim_destroy(s);
		_exit(code);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) >= RUN_OK &&
	    WEXITSTATUS(status) < RUN_CRASH)
		res = (enum run)WEXITSTATUS(status);
	else
		res = RUN_CRASH;
	if (res != RUN_OK) {
		char buf[512], err[128] = "", frame[200] = "", last[256] = "";
		const char *p, *q;

		/* s->err is the last line; a sanitizer's verdict the first,
		 * with the frame it happened in below. */
		rewind(log);
		while (fgets(buf, sizeof(buf), log)) {
			buf[strcspn(buf, "\n")] = 0;
			if (!err[0] && (p = strstr(buf, "Sanitizer: ")))
				snprintf(err, sizeof(err), "%.*s",
					 (int)strcspn(p + 11, " "), p + 11);
			else if (!err[0] && strstr(buf, "runtime error:"))
				snprintf(err, sizeof(err), "%.127s", buf);
			else if (err[0] && !frame[0] &&
				 (p = strstr(buf, "#0 ")) &&
				 (q = strstr(p, " in ")))
				snprintf(frame, sizeof(frame), "%.199s", q + 4);
			else if (buf[0] && buf[0] != ' ')
				snprintf(last, sizeof(last), "%.250s", buf);
		}
		if (res == RUN_CRASH && err[0])
			snprintf(why, len, "%s%s%s", err,
				 frame[0] ? " in " : "", frame);
		else if (res == RUN_CRASH && WIFSIGNALED(status))
			snprintf(why, len, "killed by signal %d",
				 WTERMSIG(status));
		else if (res == RUN_CRASH)
			snprintf(why, len, "exit status %d", WIFEXITED(status) ?
				 WEXITSTATUS(status) : -1);
		else
			snprintf(why, len, "%s", last);
	}
	fclose(log);
	return res;
}

static bool run_bad(enum run r)
{
	return r == RUN_INVARIANT || r == RUN_NOERR || r == RUN_CRASH;
}

/* ---- 1. a good text trace ------------------------------------------------ */

static const char good_text[] =
	"pager-trace 1\n"
	"# every command once\n"
	"group g1 memory.low=1M\n"
	"group g2 parent=g1 memory.low=64K memory.max=max\n"
	"file 7 64K group=g1\n"
	"file 8 8K\n"
	"proc 1 group=g2\n"
	"mmap 1 0x10000 16K anon private\n"
	"mmap 1 0x20000 16K file:7@8K exec shared seq locked\n"
	"w 1 0x10000\n"
	"r 1 0x11000 8K\n"
	"r 1 0x21000\n"
	"munmap 1 0x11000 4K\n"
	"r 1 0x13000\n"
	"mremap 1 0x12000 8K 0x40000 16K\n"
	"w 1 0x41000\n"
	"w 1 0x43fff 1\n"
	"madvise 1 0x40000 8K cold\n"
	"mremap 1 0x20000 16K 0x60000 16K\n"
	"r 1 0x61000\n"
	"read 7 0 8K pid=1\n"
	"write 8 4K 4K\n"
	"write 8 16K 100\n"
	"truncate 8 4K\n"
	"fork 1 2\n"
	"w 2 0x43000\n"
	"proc 2 group=g1\n"
	"phase warm\n"
	"set vm.swappiness=100\n"
	"reclaim kswapd\n"
	"reclaim direct\n"
	"reclaim group g1 16\n"
	"reclaim list root inactive_anon 8\n"
	"reclaim inodes g2 3\n"
	"expect pgfault > 0\n"
	"expect page 1 0x41000 resident\n"
	"expect file 7 0 resident\n"
	"exit 2\n"
	"munmap 1 0x10000 4K\n"
	"munmap 1 0x40000 16K\n";

static const struct ev good_events[] = {
	EV(EV_PROCGROUP, 0, 0, 0, 1, 0),	/* proc 1 group=g2 */
	EV(EV_MAP, 0, 0, 0, 0, 4),		/* r0: anon, 4 pages */
	EV(EV_MAP, 0, 0, 1, 0, 4),		/* r1: file 7 from page 2 */
	EV(EV_ACCESS, EVF_WRITE, 0, 0, 0, 1),
	EV(EV_ACCESS, 0, 0, 0, 1, 1),		/* r 1 0x11000 8K */
	EV(EV_ACCESS, 0, 0, 0, 2, 1),
	EV(EV_ACCESS, 0, 0, 1, 1, 1),		/* r 1 0x21000 */
	EV(EV_UNMAP, 0, 0, 0, 1, 1),		/* a hole: not final */
	EV(EV_ACCESS, 0, 0, 0, 3, 1),		/* [8] r 1 0x13000 */
	EV(EV_RESIZE, 0, 0, 0, 0, 6),		/* moved and grown */
	EV(EV_ACCESS, EVF_WRITE, 0, 0, 3, 1),	/* [10] w 1 0x41000 */
	EV(EV_ACCESS, EVF_WRITE, 0, 0, 5, 1),	/* the grown part */
	EV(EV_MADVISE, 0, ADV_COLD, 0, 2, 2),
	EV(EV_ACCESS, 0, 0, 1, 1, 1),		/* r 1 0x61000: moved */
	EV(EV_FD, 0, 1, 0, 0, 2),		/* read, charged to g2 */
	EV(EV_FD, EVF_WRITE | EVF_FULLPAGE, 0xffff, 1, 1, 1),
	EV(EV_FD, EVF_WRITE, 0xffff, 1, 4, 1),	/* extends file 8 */
	EV(EV_TRUNCATE, 0, 0, 1, 0, 1),
	EV(EV_CLONE, 0, 0, 2, 0, 0),		/* fork: r2 <- r0 */
	EV(EV_CLONE, 0, 0, 3, 1, 0),		/*       r3 <- r1 */
	EV(EV_ACCESS, EVF_WRITE, 0, 2, 5, 1),	/* [20] w 2 0x43000 */
	EV(EV_PROCGROUP, 0, 0, 1, 0, 0),
	EV(EV_PHASE, 0, 0, 0, 0, 0),
	EV(EV_SET, 0, 0, 0, 1, 0),
	EV(EV_RECLAIM, 0, RC_KSWAPD, T_NONE, 0, 0),
	EV(EV_RECLAIM, 0, RC_DIRECT, T_NONE, 0, 0),
	EV(EV_RECLAIM, 0, RC_GROUP, 0, 0, 16),
	EV(EV_RECLAIM, 0, RC_LIST, T_NONE, 0, 8),
	EV(EV_RECLAIM, 0, RC_INODES, 1, 0, 3),
	EV(EV_EXPECT, 0, 0, 0, 0, 0),
	EV(EV_EXPECT, 0, 0, 0, 1, 0),
	EV(EV_EXPECT, 0, 0, 0, 2, 0),
	EV(EV_UNMAP, 0, 0, 2, 0, 1),		/* exit 2 */
	EV(EV_UNMAP, EVF_FINAL, 0, 2, 2, 4),
	EV(EV_UNMAP, EVF_FINAL, 0, 3, 0, 4),
	EV(EV_EXIT, 0, 0, 1, 0, 0),
	EV(EV_UNMAP, 0, 0, 0, 0, 1),		/* r0 keeps pages 2-5 */
	EV(EV_UNMAP, EVF_FINAL, 0, 0, 2, 4),	/* its last pages */
};

static void test_good_text(void)
{
	struct trace t, a;
	const struct t_region *r;

	if (!t_ok(read_str(&t, good_text, TF_TEXT) == 0,
		  "a trace with every command parses")) {
		t_diag("%s", t.err);
		trace_release(&t);
		return;
	}
	t_ok(!t.err[0], "no error message after success");
	check_events(&t, good_events, ARRAY_SIZE(good_events), "every command");
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

	t_ok(read_str(&a, good_text, TF_AUTO) == 0 &&
	     same_events(a.ev, a.nr_ev, t.ev, t.nr_ev, true),
	     "TF_AUTO reads it as text, the same events");
	trace_release(&a);
	trace_release(&t);
}

/* munmap cuts mappings; a region dies with its last page only. */
static void test_munmap(void)
{
	static const struct ev split[] = {
		EV(EV_MAP, 0, 0, 0, 0, 4),
		EV(EV_UNMAP, 0, 0, 0, 1, 2),	/* the middle */
		EV(EV_ACCESS, 0, 0, 0, 0, 1),	/* left piece */
		EV(EV_ACCESS, 0, 0, 0, 3, 1),	/* right piece */
		EV(EV_UNMAP, 0, 0, 0, 3, 1),
		EV(EV_UNMAP, EVF_FINAL, 0, 0, 0, 1),	/* the last page */
		EV(EV_MAP, 0, 0, 1, 0, 1),
		EV(EV_ACCESS, 0, 0, 1, 0, 1),	/* a new region */
		EV(EV_MAP, 0, 0, 2, 0, 2),
		EV(EV_UNMAP, EVF_FINAL, 0, 1, 0, 1),	/* r1 dies, not r2 */
	};
	static const struct ev fixed[] = {
		EV(EV_MAP, 0, 0, 0, 0, 4),
		EV(EV_UNMAP, 0, 0, 0, 1, 1),	/* MAP_FIXED over page 1 */
		EV(EV_MAP, 0, 0, 1, 0, 1),
		EV(EV_ACCESS, 0, 0, 1, 0, 1),
		EV(EV_ACCESS, 0, 0, 0, 2, 1),
	};
	struct trace t;

	t_ok(read_str(&t, "mmap 1 0x10000 16K anon\n"
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
	check_events(&t, split, ARRAY_SIZE(split), "munmap splits");
	t_ok(t.nr_regions == 3 && t.regions[0].mapped == 0 &&
	     t.regions[1].mapped == 0 && t.regions[2].mapped == 2,
	     "pages still mapped: 0, 0, 2");
	trace_release(&t);

	t_ok(read_str(&t, "mmap 1 0x10000 16K anon\n"
			  "mmap 1 0x11000 4K anon\n"
			  "r 1 0x11000\n"
			  "r 1 0x12000\n", TF_TEXT) == 0,
	     "mmap over a mapping parses");
	check_events(&t, fixed, ARRAY_SIZE(fixed), "mmap over a mapping");
	trace_release(&t);

	t_ok(read_str(&t, "mmap 1 0x10000 16K anon\n"
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
		EV(EV_MAP, 0, 0, 0, 0, 4),
		EV(EV_ACCESS, EVF_WRITE, 0, 0, 2, 1),
		EV(EV_ACCESS, 0, 0, 0, 2, 1),	/* after the move */
		EV(EV_UNMAP, 0, 0, 0, 2, 2),	/* shrunk in place */
		EV(EV_MAP, 0, 0, 1, 0, 2),
		EV(EV_UNMAP, EVF_FINAL, 0, 0, 0, 2),	/* r1 moved on r0 */
		EV(EV_ACCESS, 0, 0, 1, 1, 1),
		EV(EV_RESIZE, 0, 0, 1, 0, 4),	/* grown in place */
		EV(EV_ACCESS, EVF_WRITE, 0, 1, 3, 1),
	};
	struct trace t;

	t_ok(read_str(&t, "mmap 1 0x10000 16K anon\n"
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
	check_events(&t, want, ARRAY_SIZE(want), "mremap");
	trace_release(&t);

	t_ok(read_str(&t, "mmap 1 0x10000 16K anon\n"
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
		ret = read_str(&t, r->text, TF_TEXT);
		if (!t_ok(ret == -1 && !strncmp(t.err, r->prefix, n) &&
			  strstr(t.err + n, r->why),
			  "bad line '%.*s': %s%s", (int)strcspn(line, "\n"),
			  line, r->prefix, r->why))
			t_diag("returned %d, err '%s'", ret, t.err);
		trace_release(&t);
	}
}

/* ---- 3. the binary form ------------------------------------------------ */

/* A trace of lines and accesses, written to @w. */
static void scenario(struct trace_writer *w)
{
	const uint64_t text = UINT64_C(0x7f0000000000);

	trace_writer_line(w, "file 7 64K");
	trace_writer_line(w, "mmap 1 0x10000 256K anon");
	trace_writer_line(w, "mmap 1 0x7f0000000000 64K file:7 exec");
	for (unsigned int i = 0; i < 64; i++)
		trace_writer_access(w, 1, 0x10000 + i * 4096, i % 3 == 0);
	trace_writer_access(w, 1, text + 0x3000, false);
	trace_writer_access(w, 1, 0x10020, true);	/* far back */
	trace_writer_line(w, "fork 1 2");
	for (unsigned int i = 0; i < 16; i++) {
		trace_writer_access(w, 2, 0x10000 + (15 - i) * 4096, true);
		trace_writer_access(w, 1, text + i * 4096, false);
	}
	trace_writer_line(w, "phase two");
	trace_writer_line(w, "munmap 2 0x10000 128K");
	trace_writer_access(w, 2, 0x30fff, false);
	trace_writer_line(w, "exit 2");
	trace_writer_access(w, 1, 0x4f000, true);
	trace_writer_line(w, "expect pgfault > 0");
}

struct mem {
	char *p;
	size_t len;
	FILE *f;
};

static void mem_open(struct mem *m)
{
	m->p = NULL;
	m->len = 0;
	m->f = open_memstream(&m->p, &m->len);
	if (!m->f) {
		t_ok(0, "open_memstream: %s", strerror(errno));
		exit(1);
	}
}

static void mem_close(struct mem *m)
{
	fclose(m->f);
	m->f = NULL;
}

/* The binary form of scenario(), in @bin (free bin->p). */
static void scenario_binary(struct mem *bin)
{
	struct trace_writer *w;

	mem_open(bin);
	w = trace_writer_open(bin->f, true);
	scenario(w);
	t_ok(trace_writer_close(w) == 0, "binary writer closes");
	mem_close(bin);
}

static void test_binary(void)
{
	struct mem bin, txt, conv;
	struct trace tb, tt, tc;
	struct trace_writer *w;
	struct linesrc ls;
	FILE *f;

	scenario_binary(&bin);
	mem_open(&txt);
	w = trace_writer_open(txt.f, false);
	scenario(w);
	t_ok(trace_writer_close(w) == 0, "text writer closes");
	mem_close(&txt);

	t_ok(bin.len > 8 && !memcmp(bin.p, TRACE_BIN_MAGIC, 8),
	     "the binary form starts with the magic");
	t_ok(!strncmp(txt.p, "pager-trace 1\n", 14),
	     "the text form starts with pager-trace 1");
	t_ok(read_mem(&tt, txt.p, txt.len, "txt.trace", TF_AUTO) == 0,
	     "the text form parses: %s", tt.err);
	t_ok(read_mem(&tb, bin.p, bin.len, "bin.trace", TF_AUTO) == 0,
	     "the binary form parses (TF_AUTO): %s", tb.err);
	t_ok(tt.nr_ev > 100, "the scenario has %zu events", tt.nr_ev);
	t_ok(same_events(tb.ev, tb.nr_ev, tt.ev, tt.nr_ev, true),
	     "binary and text give the same %zu events", tt.nr_ev);
	t_ok(tb.nr_accesses == tt.nr_accesses && tb.nr_regions ==
	     tt.nr_regions && tb.nr_procs == tt.nr_procs &&
	     tb.nr_inodes == tt.nr_inodes && tb.nr_strings == tt.nr_strings &&
	     tb.nr_expects == tt.nr_expects,
	     "binary and text give the same regions, files, processes");
	t_ok(bin.len * 2 < txt.len, "binary is compact: %zu bytes vs %zu",
	     bin.len, txt.len);
	trace_release(&tb);

	t_ok(read_mem(&tb, bin.p, bin.len, "bin.trace", TF_BINARY) == 0 &&
	     same_events(tb.ev, tb.nr_ev, tt.ev, tt.nr_ev, true),
	     "TF_BINARY reads the same");
	trace_release(&tb);

	/* binary -> text by trace_binary_to_text, and back */
	f = fmemopen(bin.p, bin.len, "r");
	mem_open(&conv);
	ls_init(&ls, f);
	w = trace_writer_open(conv.f, false);
	t_ok(trace_binary_to_text(&ls, w) == 0, "binary converts to text");
	trace_writer_close(w);
	ls_release(&ls);
	fclose(f);
	mem_close(&conv);
	t_ok(read_mem(&tc, conv.p, conv.len, "conv.trace", TF_AUTO) == 0 &&
	     same_events(tc.ev, tc.nr_ev, tt.ev, tt.nr_ev, true),
	     "the converted text gives the same events");
	trace_release(&tc);
	free(conv.p);

	/*
	 * Every truncation: an error naming a record, or (cut between
	 * records) a prefix of the events.
	 */
	{
		unsigned int errs = 0, oks = 0, broken = 0;

		for (size_t n = 0; n < bin.len; n++) {
			int ret = read_mem(&tb, bin.p, n, "bin.trace",
					   TF_BINARY);
			unsigned int rec;
			char c;

			if (ret == 0 && tb.nr_ev <= tt.nr_ev &&
			    same_events(tb.ev, tb.nr_ev, tt.ev, tb.nr_ev,
					false)) {
				oks++;
			} else if (ret == -1 &&
				   sscanf(tb.err, "bin.trace:%u: %c", &rec,
					  &c) == 2) {
				errs++;
			} else if (!broken++) {
				t_diag("cut at %zu: returned %d, err '%s'", n,
				       ret, tb.err);
			}
			trace_release(&tb);
		}
		t_ok(!broken && errs > 100 && oks > 20,
		     "every truncation of the binary form: %u errors with a "
		     "record number, %u prefixes", errs, oks);
	}
	trace_release(&tt);
	free(bin.p);
	free(txt.p);
}

/* Sequential single-page accesses take at most 3 bytes each. */
static void test_binary_size(void)
{
	struct trace_writer *w;
	struct mem m;
	size_t before;
	struct trace t;

	mem_open(&m);
	w = trace_writer_open(m.f, true);
	trace_writer_line(w, "mmap 1 0x10000 64M anon");
	trace_writer_access(w, 1, 0x10000, false);
	fflush(m.f);
	before = m.len;
	for (unsigned int i = 1; i < 10000; i++)
		trace_writer_access(w, 1, 0x10000 + (uint64_t)i * 4096,
				    i & 1);
	trace_writer_close(w);
	mem_close(&m);
	t_ok(m.len - before <= 3 * 9999,
	     "9999 sequential accesses take %zu bytes (<= 3 each)",
	     m.len - before);
	t_ok(read_mem(&t, m.p, m.len, "bin.trace", TF_AUTO) == 0 &&
	     t.nr_ev == 10001 && t.ev[10000].off == 9999 &&
	     t.ev[10000].flags == EVF_WRITE && t.ev[9999].flags == 0,
	     "and read back as pages 0..9999 of one region");
	trace_release(&t);
	free(m.p);
}

/* Errors of the binary form: the record number and the reason. */
static void test_binary_errors(void)
{
#define MAGIC "PGRTRC1\n"
#define MMAP_REC "\x80\x16mmap 1 0x10000 4K anon"
	static const struct {
		const char *p;
		size_t len;
		const char *err;
	} rows[] = {
#define ROW(s, e) { s, sizeof(s) - 1, e }
		ROW(MAGIC "\x00", "bin.trace:1: bad pid"),
		ROW(MAGIC "\x00\x80\x80", "bin.trace:1: bad pid"),
		ROW(MAGIC "\x02\x20", "bin.trace:1: truncated access record"),
		ROW(MAGIC MMAP_REC "\x01\x01",
		    "bin.trace:2: truncated access record"),
		ROW(MAGIC MMAP_REC "\x00\x01\x80",
		    "bin.trace:2: truncated access record"),
		ROW(MAGIC MMAP_REC "\x00\x01\x20\x42",
		    "bin.trace:3: unknown record type"),
		ROW(MAGIC MMAP_REC "\x00\x01\x20\xff",
		    "bin.trace:3: unknown record type"),
		ROW(MAGIC "\x04", "bin.trace:1: unknown record type"),
		ROW(MAGIC "\x80\x05mm", "bin.trace:1: truncated or NUL in "
		    "text record"),
		ROW(MAGIC "\x80\x03" "a\0b", "bin.trace:1: truncated or NUL "
		    "in text record"),
		ROW(MAGIC "\x80\xff\xff\x7f", "bin.trace:1: bad text record"),
		ROW(MAGIC "\x80", "bin.trace:1: bad text record"),
		ROW(MAGIC "\x00\x80\x80\x80\x80\x10\x20",
		    "bin.trace:1: bad pid"),
		ROW(MAGIC "\x00\x01\x80\x80\x80\x80\x80\x04",
		    "bin.trace:1: address beyond 48 bits"),
		ROW(MAGIC "\x00\x01\x20", "bin.trace:1: no process 1"),
		ROW(MAGIC "\x80\x05" "bogus", "bin.trace:1: unknown command "
		    "'bogus'"),
		ROW(MAGIC MMAP_REC "\x00\x01\x20\x02\x02",
		    "bin.trace:3: access to 0x11000 of process 1, which is "
		    "not mapped"),
#undef ROW
	};
	struct trace t;

	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		int ret = read_mem(&t, rows[k].p, rows[k].len, "bin.trace",
				   TF_AUTO);

		if (!t_ok(ret == -1 && !strcmp(t.err, rows[k].err),
			  "binary: %s", rows[k].err))
			t_diag("returned %d, err '%s'", ret, t.err);
		trace_release(&t);
	}
	t_ok(read_mem(&t, "PGRTRC2\nxx", 10, "bin.trace", TF_BINARY) == -1 &&
	     strstr(t.err, "not a binary trace"),
	     "TF_BINARY without the magic: %s", t.err);
	trace_release(&t);
	t_ok(read_mem(&t, MAGIC, 8, "bin.trace", TF_AUTO) == 0 &&
	     t.nr_ev == 0, "the magic alone is an empty trace");
	trace_release(&t);
#undef MAGIC
#undef MMAP_REC
}

/* ---- 4. pages; 5. lackey; detection ------------------------------------ */

static void test_pages(void)
{
	static const struct ev want[] = {
		EV(EV_MAP, 0, 0, 0, 0, 0),
		EV(EV_ACCESS, 0, 0, 0, 0, 1),
		EV(EV_ACCESS, 0, 0, 0, 1, 1),
		EV(EV_ACCESS, 0, 0, 0, 0, 1),
	};
	struct trace t;

	t_ok(read_str(&t, "5\n9\n5\n", TF_PAGES) == 0, "pages: parses");
	check_events(&t, want, ARRAY_SIZE(want), "pages 5 9 5");
	t_ok(t.nr_regions == 1 && t.regions[0].flags == 0 &&
	     t.regions[0].inode == T_NONE && t.regions[0].npages == 2 &&
	     t.nr_accesses == 3,
	     "pages: one anon region of the 2 pages seen, 3 accesses");
	trace_release(&t);

	t_ok(read_str(&t, "# a comment\n\n 12 \n7\n\t12\r\n", TF_AUTO) == 0 &&
	     t.nr_ev == 4 && t.ev[3].off == 0 && t.ev[2].off == 1,
	     "pages: comments, blanks and CRs are skipped");
	trace_release(&t);

	t_ok(read_str(&t, "5\n9\nfive\n", TF_AUTO) == -1 &&
	     !strcmp(t.err, "test.trace:3: expected a page number, got "
		     "'five'"), "pages: a word is an error naming the line");
	trace_release(&t);
	t_ok(read_str(&t, "5\n9 10\n", TF_PAGES) == -1 &&
	     !strncmp(t.err, "test.trace:2: expected a page number", 36),
	     "pages: two numbers on a line: %s", t.err);
	trace_release(&t);
	t_ok(read_str(&t, "1\n68719476736\n", TF_PAGES) == -1 &&
	     !strcmp(t.err, "test.trace:2: page number out of range"),
	     "pages: a page beyond 48 bits: %s", t.err);
	trace_release(&t);
}

static const char lackey_text[] =
	"==1234== Lackey, an example Valgrind tool\n"
	"==1234== Command: ./a.out\n"
	"==1234== \n"
	"I  04016a3,3\n"
	" L 7ff000398,8\n"
	" S 7ff000398,8\n"
	" M 0601040,4\n"
	"I  04016a8,5\n"
	" L 0401000,4\n"
	"\n"
	"==1234== \n";

static void test_lackey(void)
{
	static const struct ev want[] = {
		EV(EV_MAP, 0, 0, 0, 0, 0),		/* data */
		EV(EV_MAP, 0, 0, 1, 0, 0),		/* text */
		EV(EV_ACCESS, 0, 0, 1, 0, 1),		/* I 0x401 */
		EV(EV_ACCESS, 0, 0, 0, 0, 1),		/* L 0x7ff000 */
		EV(EV_ACCESS, EVF_WRITE, 0, 0, 0, 1),	/* S */
		EV(EV_ACCESS, EVF_WRITE, 0, 0, 1, 1),	/* M 0x601 */
		EV(EV_ACCESS, 0, 0, 1, 0, 1),		/* I, same page */
		EV(EV_ACCESS, 0, 0, 1, 0, 1),		/* L: text page */
	};
	struct trace t;

	t_ok(read_str(&t, lackey_text, TF_LACKEY) == 0, "lackey: parses");
	check_events(&t, want, ARRAY_SIZE(want), "lackey");
	t_ok(t.nr_regions == 2 && t.regions[0].flags == 0 &&
	     t.regions[0].npages == 2 &&
	     t.regions[1].flags == (R_FILE | R_EXEC) &&
	     t.regions[1].npages == 1 && t.nr_inodes == 1 &&
	     t.regions[1].inode == 0 && t.inodes[0].size == 1,
	     "lackey: data is anon, text an executable file");
	t_eq(t.nr_accesses, 6, "lackey: 6 accesses");
	trace_release(&t);

	t_ok(read_str(&t, "I  04016a3,3\nhello world\n", TF_AUTO) == -1 &&
	     !strcmp(t.err, "test.trace:2: not a lackey line: 'hello world'"),
	     "lackey: a garbage line is an error naming the line");
	trace_release(&t);
	t_ok(read_str(&t, "==1== x\n L zzz,8\n", TF_AUTO) == -1 &&
	     !strncmp(t.err, "test.trace:2: bad address", 25),
	     "lackey: a bad address: %s", t.err);
	trace_release(&t);
	t_ok(read_str(&t, "==1== x\n\n\n X 0401000,4\n", TF_AUTO) == -1 &&
	     !strncmp(t.err, "test.trace:4: not a lackey line", 31),
	     "lackey: an unknown kind: %s", t.err);
	trace_release(&t);
	t_ok(read_str(&t, "==1== x\nIX 0401000,4\n", TF_AUTO) == -1 &&
	     !strncmp(t.err, "test.trace:2: not a lackey line", 31),
	     "lackey: a word that only starts with I: %s", t.err);
	trace_release(&t);
}

/* TF_AUTO picks the format the explicit one reads the same; another
 * format refuses the input. */
static void test_detect(void)
{
	struct mem bin;
	const struct {
		const char *p;		/* NULL: the binary scenario */
		enum trace_format fmt, other;
		const char *what;
	} rows[] = {
		{ NULL, TF_BINARY, TF_TEXT, "binary magic" },
		{ lackey_text, TF_LACKEY, TF_TEXT, "lackey banner" },
		{ " L 7ff000398,8\n", TF_LACKEY, TF_TEXT,
		  "lackey access first" },
		{ "5\n9\n5\n", TF_PAGES, TF_TEXT, "pages" },
		{ "# x\n\n  42\n", TF_PAGES, TF_LACKEY,
		  "pages after a comment" },
		{ good_text, TF_TEXT, TF_PAGES, "text" },
		{ "\n# c\n  mmap 1 0x1000 4K anon\n", TF_TEXT, TF_PAGES,
		  "text after blanks" },
	};

	scenario_binary(&bin);
	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		const char *p = rows[k].p ? rows[k].p : bin.p;
		size_t n = rows[k].p ? strlen(rows[k].p) : bin.len;
		struct trace a, e, o;
		int ra = read_mem(&a, p, n, "d.trace", TF_AUTO);
		int re = read_mem(&e, p, n, "d.trace", rows[k].fmt);
		int ro = read_mem(&o, p, n, "d.trace", rows[k].other);

		t_ok(ra == 0 && re == 0 && a.nr_ev > 0 &&
		     same_events(a.ev, a.nr_ev, e.ev, e.nr_ev, true) &&
		     a.nr_regions == e.nr_regions &&
		     (ro == -1 || !same_events(o.ev, o.nr_ev, e.ev, e.nr_ev,
					       false)),
		     "detect: %s", rows[k].what);
		trace_release(&a);
		trace_release(&e);
		trace_release(&o);
	}
	free(bin.p);
}

/* ---- 6. fuzzing --------------------------------------------------------- */

static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

/* xorshift64* */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(0x2545f4914f6cdd1d);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

#define PICK(a) ((a)[below(ARRAY_SIZE(a))])

static const char *const seeds[] = {
	good_text,
	/* fork, COW, swap */
	"mmap 1 0x10000 32K anon\n"
	"w 1 0x10000 32K\n"
	"fork 1 2\n"
	"w 2 0x12000 8K\n"
	"reclaim list root inactive_anon 4\n"
	"r 1 0x10000 16K\n"
	"munmap 2 0x14000 8K\n"
	"r 2 0x10000 8K\n"
	"exit 2\n"
	"expect swap_used <= 64\n",
	/* files, groups, read/write, truncate */
	"group g1 memory.low=256K\n"
	"group g2 parent=g1 memory.max=512K\n"
	"file 7 128K group=g1\n"
	"file 8 16K group=g2\n"
	"proc 1 group=g2\n"
	"mmap 1 0x20000 64K file:7@16K exec\n"
	"mmap 1 0x40000 16K file:8 shared\n"
	"r 1 0x20000 64K\n"
	"w 1 0x40000 16K\n"
	"read 7 0 128K pid=1\n"
	"write 8 12K 8K\n"
	"truncate 7 64K\n"
	"reclaim group g1 32\n"
	"reclaim inodes root 12\n"
	"expect file 7 0 resident\n"
	"expect page 1 0x40000 dirty\n"
	"madvise 1 0x20000 16K pageout\n"
	"mremap 1 0x40000 16K 0x90000 32K\n"
	"w 1 0x91000\n"
	"fork 1 2\n"
	"w 2 0x90000 8K\n"
	"exit 1\n",
	/* munmap and mremap puzzles */
	"mmap 1 0x10000 64K anon\n"
	"w 1 0x10000 64K\n"
	"munmap 1 0x14000 8K\n"
	"mremap 1 0x10000 16K 0x80000 16K\n"
	"mremap 1 0x16000 40K 0x100000 64K\n"
	"madvise 1 0x100000 8K dontneed\n"
	"madvise 1 0x80000 8K free\n"
	"mmap 1 0x81000 4K anon\n"
	"r 1 0x80000 16K\n"
	"madvise 1 0x102000 8K mlock\n"
	"phase two\n"
	"set sim.writeback=async\n"
	"w 1 0x100000 64K\n"
	"reclaim direct\n"
	"madvise 1 0x102000 8K munlock\n"
	"expect nr_unevictable = 0\n",
	/* seq, locked, kswapd */
	"set vm.swappiness=200\n"
	"file 8 64K\n"
	"mmap 3 0x200000 32K anon locked\n"
	"mmap 3 0x300000 32K anon seq\n"
	"mmap 3 0x400000 64K file:8 seq\n"
	"w 3 0x200000 32K\n"
	"r 3 0x300000 32K\n"
	"r 3 0x400000 64K\n"
	"fork 3 4\n"
	"exit 3\n"
	"w 4 0x300000 32K\n"
	"madvise 4 0x400000 64K normal\n"
	"r 4 0x400000 64K\n"
	"reclaim kswapd\n"
	"expect pgfault@root > 0\n",
	/* pages */
	"1\n2\n3\n1\n7\n2\n100\n1\n3\n",
	lackey_text,
};

static const char *const numbers[] = {
	"0", "1", "-1", "-4096", "4095", "4096", "4097", "0x", "0x0", "0xg",
	"1K", "4k", "8K", "64K", "1M", "1G", "2147483647", "2147483648",
	"4294967295", "4294967296", "0x7fffffff", "0xffffffff",
	"281474976710655", "281474976710656", "0xffffffffffff",
	"0x1000000000000", "17592186044416", "8796093022208",
	"18446744073709551615", "18446744073709551616", "0xffffffffffffffff",
	"99999999999999999999999", "9T", "16T", "0x10000", "0x20000",
	"0x11000", "007", "1e3", "+1",
};

static const char *const vocab[] = {
	"mmap", "munmap", "mremap", "madvise", "r", "w", "read", "write",
	"file", "truncate", "group", "proc", "fork", "exit", "phase", "set",
	"reclaim", "expect", "pager-trace", "anon", "file:7", "file:7@4K",
	"file:8@8K", "file:9", "file:", "file:7@", "exec", "shared",
	"private", "seq", "locked", "dontneed", "remove", "cold", "pageout",
	"free", "mlock", "munlock", "sequential", "normal", "pid=1", "pid=2",
	"pid=99", "pid=", "group=g1", "group=g2", "group=root", "group=nope",
	"parent=g1", "parent=root", "memory.min=1M", "memory.low=64K",
	"memory.max=max", "memory.max=12Q", "kswapd", "direct", "list",
	"inodes", "inactive_anon", "active_anon", "inactive_file",
	"active_file", "root", "g1", "g2", "page", "=", "!=", "<", "<=", ">",
	">=", "~", "absent", "resident", "active", "inactive", "referenced",
	"unreferenced", "swapped", "shadow", "workingset", "dirty",
	"unevictable", "mapped", "unmapped", "pgfault", "pgmajfault", "refs",
	"misses", "nr_inactive_anon", "swap_used", "pgfault@g1",
	"pgfault@nope", "vm.swappiness=200", "vm.swappiness=-3",
	"vm.balance.mode=root55", "sim.writeback=async",
	"sim.kswapd_delay=3", "sim.kswapd_delay=x", "nonsense=1", "#",
	"0x10000", "0x11000", "0x20000", "4K", "8K", "16K", "1", "2", "3",
	"0", "==1==", "I", "L", "S", "M", "04016a3,3", "7ff000398,8",
	"PGRTRC1", "\t", "\r",
};

static const char *const addrs[] = {
	"0x10000", "0x11000", "0x12000", "0x13000", "0x14000", "0x18000",
	"0x1f000", "0x20000", "0x21000", "0x23000", "0x2f000", "0x40000",
	"0x41000", "0x43000", "0x60000", "0x80000", "0x81000", "0x90000",
	"0x91000", "0x96000", "0x100000", "0x104000", "0x200000",
	"0x300000", "0x400000", "0x40f000",
};

static const char *const sizes[] = {
	"1", "4K", "8K", "12K", "16K", "32K", "64K", "4095", "4097", "100",
};

static const char *const pids[] = { "1", "2", "3", "4" };

static const char *const types[] = {
	"anon", "anon", "file:7", "file:7@4K", "file:7@64K", "file:8",
	"file:8@8K",
};

static const char *const mflags[] = {
	"", "", " exec", " shared", " seq", " locked", " private",
	" shared locked",
};

static const char *const advice[] = {
	"dontneed", "remove", "cold", "pageout", "free", "mlock", "munlock",
	"sequential", "normal",
};

static const char *const states[] = {
	"absent", "resident", "active", "inactive", "referenced",
	"unreferenced", "swapped", "shadow", "workingset", "dirty",
	"unevictable", "mapped", "unmapped",
};

/* A new line: mostly a well-formed command on the seeds' addresses. */
static int random_line(char *buf, size_t len)
{
	static const char *const rw[] = { "r", "w" };
	static const char *const fds[] = { "read", "write" };
	static const char *const inos[] = { "7", "8", "9" };
	static const char *const cmps[] = { "=", "!=", "<", "<=", ">", ">=" };
	static const char *const lrus[] = { "inactive_anon", "active_anon",
					    "inactive_file", "active_file" };
	static const char *const groups[] = { "root", "g1", "g2" };

	switch (below(15)) {
	case 0:
		return snprintf(buf, len, "mmap %s %s %s %s%s\n", PICK(pids),
				PICK(addrs), PICK(sizes), PICK(types),
				PICK(mflags));
	case 1:
		return snprintf(buf, len, "munmap %s %s %s\n", PICK(pids),
				PICK(addrs), PICK(sizes));
	case 2:
		return snprintf(buf, len, "mremap %s %s %s %s %s\n",
				PICK(pids), PICK(addrs), PICK(sizes),
				PICK(addrs), PICK(sizes));
	case 3:
		return snprintf(buf, len, "madvise %s %s %s %s\n", PICK(pids),
				PICK(addrs), PICK(sizes), PICK(advice));
	case 4:
	case 5:
		return snprintf(buf, len, "%s %s %s%s%s\n", PICK(rw),
				PICK(pids), PICK(addrs), below(2) ? " " : "",
				below(2) ? PICK(sizes) : "");
	case 6:
		return snprintf(buf, len, "%s %s %s %s%s%s\n", PICK(fds),
				PICK(inos), PICK(sizes), PICK(sizes),
				below(2) ? " pid=" : "",
				below(2) ? PICK(pids) : "");
	case 7:
		return snprintf(buf, len, "truncate %s %s\n", PICK(inos),
				PICK(sizes));
	case 8:
		return snprintf(buf, len, "fork %s %s\n", PICK(pids),
				PICK(pids));
	case 9:
		return snprintf(buf, len, "exit %s\n", PICK(pids));
	case 10:
		return snprintf(buf, len, "proc %s group=%s\n", PICK(pids),
				PICK(groups));
	case 11:
		switch (below(4)) {
		case 0:
			return snprintf(buf, len, "reclaim %s\n",
					below(2) ? "kswapd" : "direct");
		case 1:
			return snprintf(buf, len, "reclaim group %s %zu\n",
					PICK(groups), below(64));
		case 2:
			return snprintf(buf, len, "reclaim inodes %s %zu\n",
					PICK(groups), below(14));
		default:
			return snprintf(buf, len, "reclaim list %s %s %zu\n",
					PICK(groups), PICK(lrus), below(64));
		}
	case 12:
		switch (below(3)) {
		case 0:
			return snprintf(buf, len, "expect page %s %s %s %s\n",
					PICK(pids), PICK(addrs), PICK(states),
					PICK(states));
		case 1:
			return snprintf(buf, len, "expect file %s %s %s\n",
					PICK(inos), PICK(sizes), PICK(states));
		default:
			return snprintf(buf, len, "expect %s %s %zu\n",
					below(2) ? "pgfault" : "swap_used",
					PICK(cmps), below(100));
		}
	case 13:
		return snprintf(buf, len, "%s\n", below(2) ? "phase p" :
				"set vm.swappiness=60");
	default: {
		int n = 0;

		for (size_t k = 1 + below(6); k-- && (size_t)n < len;)
			n += snprintf(buf + n, len - (size_t)n, "%s%s",
				      PICK(vocab), k ? " " : "\n");
		return n;
	}
	}
}

#define FUZZ_MAX 8192

struct input {
	char p[FUZZ_MAX + 1];
	size_t len;
};

static void in_insert(struct input *in, size_t at, const char *s, size_t n)
{
	if (in->len + n > FUZZ_MAX)
		return;
	memmove(in->p + at + n, in->p + at, in->len - at);
	memcpy(in->p + at, s, n);
	in->len += n;
}

static void in_delete(struct input *in, size_t at, size_t n)
{
	if (at + n > in->len)
		n = in->len - at;
	memmove(in->p + at, in->p + at + n, in->len - at - n);
	in->len -= n;
}

/* The line around @pos: [*s, *e), its newline included. */
static void line_at(const struct input *in, size_t pos, size_t *s, size_t *e)
{
	*s = pos;
	while (*s > 0 && in->p[*s - 1] != '\n')
		(*s)--;
	*e = pos;
	while (*e < in->len && in->p[(*e)++] != '\n')
		;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The word around or after @pos: [*s, *e); false if none. */
static bool word_at(const struct input *in, size_t pos, size_t *s, size_t *e)
{
	while (pos < in->len && blank(in->p[pos]))
		pos++;
	if (pos >= in->len)
		return false;
	*s = pos;
	while (*s > 0 && !blank(in->p[*s - 1]))
		(*s)--;
	*e = pos;
	while (*e < in->len && !blank(in->p[*e]))
		(*e)++;
	return true;
}

/* Replace a number (after a blank, '=', ':' or '@') with a strange one. */
static void mutate_number(struct input *in)
{
	size_t at[64], n = 0, s, e;
	const char *v = PICK(numbers);

	for (size_t k = 0; k < in->len && n < ARRAY_SIZE(at); k++) {
		char c = in->p[k], p = k ? in->p[k - 1] : ' ';

		if (c >= '0' && c <= '9' && (blank(p) || p == '=' ||
					     p == ':' || p == '@'))
			at[n++] = k;
	}
	if (!n)
		return;
	s = e = at[below(n)];
	while (e < in->len && !blank(in->p[e]) && in->p[e] != '@' &&
	       in->p[e] != ',')
		e++;
	in_delete(in, s, e - s);
	in_insert(in, s, v, strlen(v));
}

static void mutate(struct input *in)
{
	static const char bytes[] = "0123456789 \n\t#=@:xKMG-rw,\r";
	size_t s, e, s2, e2;
	char buf[256], c;
	int n;

	switch (below(11)) {
	case 0:		/* flip a bit */
		if (in->len)
			in->p[below(in->len)] ^= (char)(1 << below(8));
		break;
	case 1:		/* insert a byte */
		c = below(4) ? bytes[below(sizeof(bytes) - 1)] :
			       (char)below(256);
		in_insert(in, below(in->len + 1), &c, 1);
		break;
	case 2:		/* delete bytes */
		if (in->len)
			in_delete(in, below(in->len), 1 + below(8));
		break;
	case 3:		/* duplicate a line */
		line_at(in, below(in->len + 1), &s, &e);
		line_at(in, below(in->len + 1), &s2, &e2);
		if (e - s < sizeof(buf)) {
			memcpy(buf, in->p + s, e - s);
			in_insert(in, s2, buf, e - s);
		}
		break;
	case 4:		/* drop a line */
		line_at(in, below(in->len + 1), &s, &e);
		in_delete(in, s, e - s);
		break;
	case 5:
	case 6:		/* a strange number */
		mutate_number(in);
		break;
	case 7:		/* replace a word */
		if (word_at(in, below(in->len + 1), &s, &e)) {
			const char *w = PICK(vocab);

			in_delete(in, s, e - s);
			in_insert(in, s, w, strlen(w));
		}
		break;
	case 8:		/* add a word */
		if (word_at(in, below(in->len + 1), &s, &e)) {
			n = snprintf(buf, sizeof(buf), " %s", PICK(vocab));
			in_insert(in, e, buf, (size_t)n);
		}
		break;
	default:	/* add a line */
		n = random_line(buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf))
			n = 0;
		line_at(in, below(in->len + 1), &s, &e);
		in_insert(in, s, buf, (size_t)n);
		break;
	}
}

/* What a read trace must satisfy, so that a replay can trust it. */
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
					e->aux <= ADV_NORMAL);
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
			ok = e->aux <= RC_INODES && (e->obj == T_NONE ||
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

	*ret = read_mem(t, p, n, "fuzz.trace", TF_AUTO);
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

static void failure_key(enum run r, const char *why, char *key, size_t len)
{
	const char *p = strstr(why, " in ");

	if (r == RUN_CRASH && p)
		snprintf(key, len, "%s", p + 4);
	else if (r == RUN_CRASH && (p = strstr(why, ": runtime error")))
		snprintf(key, len, "%.*s", (int)(p - why), why);
	else if (r == RUN_INVARIANT && (p = strchr(why, ':')))
		snprintf(key, len, "invariant%s", p);
	else
		snprintf(key, len, "%s: %s", run_name(r), why);
}

static void found_run(struct finding *kinds, enum run r, const char *why,
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
		enum run r = replay(&t, why, sizeof(why));

		failure_key(r, why, k, sizeof(k));
		same = run_bad(r) && !strcmp(k, key);
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

			line_at(in, s, &ls, &le);
			*c = *in;
			in_delete(c, ls, le - ls);
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
		rng = strtoull(s, NULL, 0);
	return n ? n : 20000;
}

static void test_fuzz(void)
{
	struct input *in = malloc(sizeof(*in)), *pre = malloc(sizeof(*pre));
	struct finding *parse = calloc(1, sizeof(*parse));
	struct finding *run = calloc(NR_KINDS, sizeof(*run));
	unsigned long iters = fuzz_iters(), accepted = 0, rejected = 0;
	unsigned long raccepted = 0, rrejected = 0, replays = 0, prefixes = 0;
	unsigned long nrun[RUN_CRASH + 1] = { 0 };
	struct timespec t0, t1;
	struct mem bin;
	char why[256];

	if (!in || !pre || !parse || !run) {
		t_ok(0, "fuzz: memory");
		exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	scenario_binary(&bin);

	/* The seeds themselves read and replay. */
	for (size_t k = 0; k < ARRAY_SIZE(seeds); k++) {
		enum run r = RUN_CRASH;
		struct trace t;
		int ret;

		why[0] = 0;
		if (fuzz_read(&t, seeds[k], strlen(seeds[k]), &ret, why,
			      sizeof(why)) && ret == 0)
			r = replay(&t, why, sizeof(why));
		if (!t_ok(r == RUN_OK, "fuzz seed %zu reads and replays", k))
			t_diag("%s: %s %s", run_name(r), why, t.err);
		trace_release(&t);
	}

	for (unsigned long it = 0; it < iters; it++) {
		const char *seed = PICK(seeds);
		struct trace t;
		int ret;

		/* (a) a mutated seed */
		in->len = strlen(seed);
		memcpy(in->p, seed, in->len);
		for (size_t m = 1 + below(3); m--;)
			mutate(in);
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
		if (replays < iters * 3 / 100 && !below(30) && small(&t)) {
			enum run r = replay(&t, why, sizeof(why));

			replays++;
			nrun[r]++;
			if (run_bad(r))
				found_run(run, r, why, in);
		}
		trace_release(&t);
bytes:

		/* (b) random bytes, bare or after the binary magic, or
		 * (c) a binary trace with bytes changed */
		switch (it % 3) {
		case 0:
			in->len = below(600);
			for (size_t k = 0; k < in->len; k++)
				in->p[k] = (char)rnd();
			break;
		case 1:
			memcpy(in->p, TRACE_BIN_MAGIC, 8);
			in->len = 8 + below(600);
			for (size_t k = 8; k < in->len; k++)
				in->p[k] = (char)(below(4) ? below(8) : rnd());
			break;
		default:
			in->len = bin.len < FUZZ_MAX ? bin.len : FUZZ_MAX;
			memcpy(in->p, bin.p, in->len);
			for (size_t m = 1 + below(4); m--;) {
				size_t at = 8 + below(in->len - 8);

				if (below(2))
					in->p[at] = (char)rnd();
				else
					in_delete(in, at, 1 + below(4));
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
	       "%lu bad", replays, nrun[RUN_OK], nrun[RUN_ERROR],
	       nrun[RUN_REFUSED], nrun[RUN_INVARIANT] + nrun[RUN_NOERR] +
	       nrun[RUN_CRASH]);
	report_parse(parse);
	report_runs(run);
	t_ok(accepted > iters / 10 && rejected > iters / 10,
	     "fuzz: mutated seeds are both accepted and rejected");
	t_ok(raccepted + rrejected == iters && rrejected > iters / 4,
	     "fuzz: random bytes are mostly rejected");
	t_ok(replays >= iters / 100 && nrun[RUN_OK] >= iters / 200,
	     "fuzz: %lu replays, %lu ran to the end", replays, nrun[RUN_OK]);
	free(bin.p);
	free(in);
	free(pre);
	free(parse);
	free(run);
}

/* ---- regressions ------------------------------------------------------- */

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
		enum run r;

		if (!t_ok(read_str(&t, rows[k].text, TF_TEXT) == 0,
			  "regression trace %zu parses", k)) {
			t_diag("%s", t.err);
			trace_release(&t);
			continue;
		}
		r = replay(&t, why, sizeof(why));
		if (!t_ok(!run_bad(r), "regression: %s replays", rows[k].what))
			t_diag("%s: %s", run_name(r), why);
		trace_release(&t);
	}
}

int main(void)
{
	test_good_text();
	test_munmap();
	test_mremap();
	test_bad_lines();
	test_binary();
	test_binary_size();
	test_binary_errors();
	test_pages();
	test_lackey();
	test_detect();
	test_regressions();
	test_fuzz();
	return t_done();
}
