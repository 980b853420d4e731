/* SPDX-License-Identifier: MIT */
/*
 * test-formats.c - the trace formats other than text and their detection
 * (pager/sim/trace-bin.c, trace-flat.c, trace.c).
 *
 * The binary form against the text it encodes, its size, every truncation
 * and its errors; the pages and lackey formats; and TF_AUTO, which must
 * read each format as the explicit one does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pager/lib/linesrc.h"
#include "../pager/sim/trace.h"
#include "t-trace.h"
#include "tap.h"

/* ---- 1. the binary form -------------------------------------------------- */

static void test_binary(void)
{
	struct t_mem bin, txt, conv;
	struct trace tb, tt, tc;
	struct trace_writer *w;
	struct linesrc ls;
	FILE *f;

	t_scenario_binary(&bin);
	t_mem_open(&txt);
	w = trace_writer_open(txt.f, false);
	t_scenario(w);
	t_ok(trace_writer_close(w) == 0, "text writer closes");
	t_mem_close(&txt);

	t_ok(bin.len > 8 && !memcmp(bin.p, TRACE_BIN_MAGIC, 8),
	     "the binary form starts with the magic");
	t_ok(!strncmp(txt.p, "pager-trace 1\n", 14),
	     "the text form starts with pager-trace 1");
	t_ok(t_read_mem(&tt, txt.p, txt.len, "txt.trace", TF_AUTO) == 0,
	     "the text form parses: %s", tt.err);
	t_ok(t_read_mem(&tb, bin.p, bin.len, "bin.trace", TF_AUTO) == 0,
	     "the binary form parses (TF_AUTO): %s", tb.err);
	t_ok(tt.nr_ev > 100, "the scenario has %zu events", tt.nr_ev);
	t_ok(t_same_events(tb.ev, tb.nr_ev, tt.ev, tt.nr_ev, true),
	     "binary and text give the same %zu events", tt.nr_ev);
	t_ok(tb.nr_accesses == tt.nr_accesses && tb.nr_regions ==
	     tt.nr_regions && tb.nr_procs == tt.nr_procs &&
	     tb.nr_inodes == tt.nr_inodes && tb.nr_strings == tt.nr_strings &&
	     tb.nr_expects == tt.nr_expects,
	     "binary and text give the same regions, files, processes");
	t_ok(bin.len * 2 < txt.len, "binary is compact: %zu bytes vs %zu",
	     bin.len, txt.len);
	trace_release(&tb);

	t_ok(t_read_mem(&tb, bin.p, bin.len, "bin.trace", TF_BINARY) == 0 &&
	     t_same_events(tb.ev, tb.nr_ev, tt.ev, tt.nr_ev, true),
	     "TF_BINARY reads the same");
	trace_release(&tb);

	/* binary -> text by trace_binary_to_text, and back */
	f = fmemopen(bin.p, bin.len, "r");
	t_mem_open(&conv);
	ls_init(&ls, f);
	w = trace_writer_open(conv.f, false);
	t_ok(trace_binary_to_text(&ls, w) == 0, "binary converts to text");
	trace_writer_close(w);
	ls_release(&ls);
	fclose(f);
	t_mem_close(&conv);
	t_ok(t_read_mem(&tc, conv.p, conv.len, "conv.trace", TF_AUTO) == 0 &&
	     t_same_events(tc.ev, tc.nr_ev, tt.ev, tt.nr_ev, true),
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
			int ret = t_read_mem(&tb, bin.p, n, "bin.trace",
					     TF_BINARY);
			unsigned int rec;
			char c;

			if (ret == 0 && tb.nr_ev <= tt.nr_ev &&
			    t_same_events(tb.ev, tb.nr_ev, tt.ev, tb.nr_ev,
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
	struct t_mem m;
	size_t before;
	struct trace t;

	t_mem_open(&m);
	w = trace_writer_open(m.f, true);
	trace_writer_line(w, "mmap 1 0x10000 64M anon");
	trace_writer_access(w, 1, 0x10000, false);
	fflush(m.f);
	before = m.len;
	for (unsigned int i = 1; i < 10000; i++)
		trace_writer_access(w, 1, 0x10000 + (uint64_t)i * 4096,
				    i & 1);
	trace_writer_close(w);
	t_mem_close(&m);
	t_ok(m.len - before <= 3 * 9999,
	     "9999 sequential accesses take %zu bytes (<= 3 each)",
	     m.len - before);
	t_ok(t_read_mem(&t, m.p, m.len, "bin.trace", TF_AUTO) == 0 &&
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
		int ret = t_read_mem(&t, rows[k].p, rows[k].len, "bin.trace",
				     TF_AUTO);

		if (!t_ok(ret == -1 && !strcmp(t.err, rows[k].err),
			  "binary: %s", rows[k].err))
			t_diag("returned %d, err '%s'", ret, t.err);
		trace_release(&t);
	}
	t_ok(t_read_mem(&t, "PGRTRC2\nxx", 10, "bin.trace", TF_BINARY) == -1 &&
	     strstr(t.err, "not a binary trace"),
	     "TF_BINARY without the magic: %s", t.err);
	trace_release(&t);
	t_ok(t_read_mem(&t, MAGIC, 8, "bin.trace", TF_AUTO) == 0 &&
	     t.nr_ev == 0, "the magic alone is an empty trace");
	trace_release(&t);
#undef MAGIC
#undef MMAP_REC
}

/* ---- 2. pages; 3. lackey; detection -------------------------------------- */

static void test_pages(void)
{
	static const struct ev want[] = {
		T_EV(EV_MAP, 0, 0, 0, 0, 0),
		T_EV(EV_ACCESS, 0, 0, 0, 0, 1),
		T_EV(EV_ACCESS, 0, 0, 0, 1, 1),
		T_EV(EV_ACCESS, 0, 0, 0, 0, 1),
	};
	struct trace t;

	t_ok(t_read_str(&t, "5\n9\n5\n", TF_PAGES) == 0, "pages: parses");
	t_check_events(&t, want, ARRAY_SIZE(want), "pages 5 9 5");
	t_ok(t.nr_regions == 1 && t.regions[0].flags == 0 &&
	     t.regions[0].inode == T_NONE && t.regions[0].npages == 2 &&
	     t.nr_accesses == 3,
	     "pages: one anon region of the 2 pages seen, 3 accesses");
	trace_release(&t);

	t_ok(t_read_str(&t, "# a comment\n\n 12 \n7\n\t12\r\n", TF_AUTO) == 0 &&
	     t.nr_ev == 4 && t.ev[3].off == 0 && t.ev[2].off == 1,
	     "pages: comments, blanks and CRs are skipped");
	trace_release(&t);

	t_ok(t_read_str(&t, "5\n9\nfive\n", TF_AUTO) == -1 &&
	     !strcmp(t.err, "test.trace:3: expected a page number, got "
		     "'five'"), "pages: a word is an error naming the line");
	trace_release(&t);
	t_ok(t_read_str(&t, "5\n9 10\n", TF_PAGES) == -1 &&
	     !strncmp(t.err, "test.trace:2: expected a page number", 36),
	     "pages: two numbers on a line: %s", t.err);
	trace_release(&t);
	t_ok(t_read_str(&t, "1\n68719476736\n", TF_PAGES) == -1 &&
	     !strcmp(t.err, "test.trace:2: page number out of range"),
	     "pages: a page beyond 48 bits: %s", t.err);
	trace_release(&t);
}


static void test_lackey(void)
{
	static const struct ev want[] = {
		T_EV(EV_MAP, 0, 0, 0, 0, 0),		/* data */
		T_EV(EV_MAP, 0, 0, 1, 0, 0),		/* text */
		T_EV(EV_ACCESS, 0, 0, 1, 0, 1),		/* I 0x401 */
		T_EV(EV_ACCESS, 0, 0, 0, 0, 1),		/* L 0x7ff000 */
		T_EV(EV_ACCESS, EVF_WRITE, 0, 0, 0, 1),	/* S */
		T_EV(EV_ACCESS, EVF_WRITE, 0, 0, 1, 1),	/* M 0x601 */
		T_EV(EV_ACCESS, 0, 0, 1, 0, 1),		/* I, same page */
		T_EV(EV_ACCESS, 0, 0, 1, 0, 1),		/* L: text page */
	};
	struct trace t;

	t_ok(t_read_str(&t, t_lackey_text, TF_LACKEY) == 0, "lackey: parses");
	t_check_events(&t, want, ARRAY_SIZE(want), "lackey");
	t_ok(t.nr_regions == 2 && t.regions[0].flags == 0 &&
	     t.regions[0].npages == 2 &&
	     t.regions[1].flags == (R_FILE | R_EXEC) &&
	     t.regions[1].npages == 1 && t.nr_inodes == 1 &&
	     t.regions[1].inode == 0 && t.inodes[0].size == 1,
	     "lackey: data is anon, text an executable file");
	t_eq(t.nr_accesses, 6, "lackey: 6 accesses");
	trace_release(&t);

	t_ok(t_read_str(&t, "I  04016a3,3\nhello world\n", TF_AUTO) == -1 &&
	     !strcmp(t.err, "test.trace:2: not a lackey line: 'hello world'"),
	     "lackey: a garbage line is an error naming the line");
	trace_release(&t);
	t_ok(t_read_str(&t, "==1== x\n L zzz,8\n", TF_AUTO) == -1 &&
	     !strncmp(t.err, "test.trace:2: bad address", 25),
	     "lackey: a bad address: %s", t.err);
	trace_release(&t);
	t_ok(t_read_str(&t, "==1== x\n\n\n X 0401000,4\n", TF_AUTO) == -1 &&
	     !strncmp(t.err, "test.trace:4: not a lackey line", 31),
	     "lackey: an unknown kind: %s", t.err);
	trace_release(&t);
	t_ok(t_read_str(&t, "==1== x\nIX 0401000,4\n", TF_AUTO) == -1 &&
	     !strncmp(t.err, "test.trace:2: not a lackey line", 31),
	     "lackey: a word that only starts with I: %s", t.err);
	trace_release(&t);
}

/* TF_AUTO picks the format the explicit one reads the same; another
 * format refuses the input. */
static void test_detect(void)
{
	struct t_mem bin;
	const struct {
		const char *p;		/* NULL: the binary scenario */
		enum trace_format fmt, other;
		const char *what;
	} rows[] = {
		{ NULL, TF_BINARY, TF_TEXT, "binary magic" },
		{ t_lackey_text, TF_LACKEY, TF_TEXT, "lackey banner" },
		{ " L 7ff000398,8\n", TF_LACKEY, TF_TEXT,
		  "lackey access first" },
		{ "5\n9\n5\n", TF_PAGES, TF_TEXT, "pages" },
		{ "# x\n\n  42\n", TF_PAGES, TF_LACKEY,
		  "pages after a comment" },
		{ t_good_text, TF_TEXT, TF_PAGES, "text" },
		{ "\n# c\n  mmap 1 0x1000 4K anon\n", TF_TEXT, TF_PAGES,
		  "text after blanks" },
	};

	t_scenario_binary(&bin);
	for (size_t k = 0; k < ARRAY_SIZE(rows); k++) {
		const char *p = rows[k].p ? rows[k].p : bin.p;
		size_t n = rows[k].p ? strlen(rows[k].p) : bin.len;
		struct trace a, e, o;
		int ra = t_read_mem(&a, p, n, "d.trace", TF_AUTO);
		int re = t_read_mem(&e, p, n, "d.trace", rows[k].fmt);
		int ro = t_read_mem(&o, p, n, "d.trace", rows[k].other);

		t_ok(ra == 0 && re == 0 && a.nr_ev > 0 &&
		     t_same_events(a.ev, a.nr_ev, e.ev, e.nr_ev, true) &&
		     a.nr_regions == e.nr_regions &&
		     (ro == -1 || !t_same_events(o.ev, o.nr_ev, e.ev, e.nr_ev,
						 false)),
		     "detect: %s", rows[k].what);
		trace_release(&a);
		trace_release(&e);
		trace_release(&o);
	}
	free(bin.p);
}

int main(void)
{
	test_binary();
	test_binary_size();
	test_binary_errors();
	test_pages();
	test_lackey();
	test_detect();
	return t_done();
}
