/* SPDX-License-Identifier: MIT */
/*
 * cmd-convert.c - `pager convert`: a trace from the text format to the
 * compact binary one or back. Accesses (`r`/`w` of one page) become
 * compact records; every other line is carried as text. The content is
 * not checked here: `pager sim` does that.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../lib/linesrc.h"
#include "../sim/trace.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: pager convert (--binary | --text) IN OUT\n"
	"Converts a trace between the text and the binary form ('-': stdin\n"
	"or stdout).\n";

/* "r PID ADDR" or "w PID ADDR", nothing more: an access record. */
static bool as_access(const char *s, int64_t *pid, uint64_t *addr,
		      bool *write)
{
	char op[4], p[24], a[24], rest[2];
	uint64_t v;

	if (sscanf(s, " %3s %23s %23s %1s", op, p, a, rest) != 3)
		return false;
	if ((strcmp(op, "r") && strcmp(op, "w")) || pgr_parse_u64(p, &v) ||
	    v > INT32_MAX || pgr_parse_u64(a, addr) ||
	    *addr >= (UINT64_C(1) << 48))
		return false;
	*pid = (int64_t)v;
	*write = op[0] == 'w';
	return true;
}

static int to_binary(struct linesrc *ls, struct trace_writer *w)
{
	char *s;

	while ((s = ls_line(ls))) {
		int64_t pid;
		uint64_t addr;
		bool write;

		if (!strncmp(s, "pager-trace ", 12))
			continue;
		if (as_access(s, &pid, &addr, &write))
			trace_writer_access(w, pid, addr, write);
		else if (trace_writer_line(w, s))
			return -EINVAL;
	}
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	FILE *in, *out;
	struct linesrc ls;
	struct trace_writer *w;
	bool binary;
	int err;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 4 || (strcmp(argv[1], "--binary") &&
			  strcmp(argv[1], "--text")))
		return pgr_usage_error(usage, NULL);
	binary = !strcmp(argv[1], "--binary");
	in = strcmp(argv[2], "-") ? fopen(argv[2], "r") : stdin;
	if (!in) {
		pgr_warn("cannot open '%s': %s", argv[2], strerror(errno));
		return 1;
	}
	out = strcmp(argv[3], "-") ? fopen(argv[3], "w") : stdout;
	if (!out) {
		pgr_warn("cannot create '%s': %s", argv[3], strerror(errno));
		return 1;
	}
	ls_init(&ls, in);
	w = trace_writer_open(out, binary);
	err = binary ? to_binary(&ls, w) : trace_binary_to_text(&ls, w);
	if (trace_writer_close(w) && !err)
		err = -EIO;
	ls_release(&ls);
	if (in != stdin)
		fclose(in);
	if (out != stdout)
		fclose(out);
	if (err) {
		pgr_warn("%s: %s", argv[2], err == -EIO ? "cannot write" :
			 "not a valid trace of the expected form");
		return 1;
	}
	return 0;
}
