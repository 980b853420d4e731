/* SPDX-License-Identifier: MIT */
/*
 * trace-bin.c - the compact binary form of traces, for traces of millions
 * of accesses (docs/trace.md):
 *
 *   "PGRTRC1\n"                           magic
 *   0b000000SW [pid] delta                an access: W write, S same pid
 *                                         as the last access (else a
 *                                         varint pid follows); delta is
 *                                         the zigzag varint of the page
 *                                         number minus the last one's
 *   0x80 len bytes                        any other event: one line of
 *                                         the text format
 *
 * Varints are LEB128 (7 bits a byte, low first). A sequential access is
 * two bytes. Errors are reported by record number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/linesrc.h"
#include "trace-build.h"
#include "../lib/util.h"

#define REC_TEXT	0x80
#define MAX_TEXT	(1 << 16)

static int varint(struct linesrc *ls, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		int c = ls_byte(ls);

		if (c < 0)
			return -EIO;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EINVAL;
}

/* One decoded record; the decoder's state carries pid and page. */
struct rec {
	enum { R_END, R_ACCESS, R_TEXT, R_BAD } kind;
	const char *why;	/* R_BAD */
	int64_t pid;		/* R_ACCESS */
	uint64_t page;
	bool write;
	char text[MAX_TEXT + 1];	/* R_TEXT */
};

static int bad_rec(struct rec *r, const char *why)
{
	r->kind = R_BAD;
	r->why = why;
	return -1;
}

static int magic(struct linesrc *ls)
{
	for (size_t k = 0; k < 8; k++)
		if (ls_byte(ls) != TRACE_BIN_MAGIC[k])
			return -1;
	return 0;
}

static int next_record(struct linesrc *ls, struct rec *r)
{
	uint64_t v;
	int c = ls_byte(ls);

	if (c < 0) {
		r->kind = R_END;
		return 0;
	}
	if (c == REC_TEXT) {
		if (varint(ls, &v) || v > MAX_TEXT)
			return bad_rec(r, "bad text record");
		for (uint64_t k = 0; k < v; k++) {
			int d = ls_byte(ls);

			if (d <= 0)
				return bad_rec(r, "truncated or NUL in text "
					       "record");
			r->text[k] = (char)d;
		}
		r->text[v] = 0;
		r->kind = R_TEXT;
		return 0;
	}
	if (c & ~3)
		return bad_rec(r, "unknown record type");
	if (!(c & 2)) {
		if (varint(ls, &v) || v > INT32_MAX)
			return bad_rec(r, "bad pid");
		r->pid = (int64_t)v;
	}
	if (r->pid < 0 || varint(ls, &v))
		return bad_rec(r, "truncated access record");
	r->page += (v >> 1) ^ -(v & 1);		/* zigzag */
	if (r->page >= (UINT64_C(1) << 36))
		return bad_rec(r, "address beyond 48 bits");
	r->write = c & 1;
	r->kind = R_ACCESS;
	return 0;
}

int trace_read_binary(struct tb *b, struct linesrc *ls)
{
	struct rec *r = pgr_xcalloc(1, sizeof(*r));
	unsigned int n = 0;
	int err = 0;

	r->pid = -1;
	if (magic(ls))
		err = tb_error(b, 0, "not a binary trace");
	while (!err) {
		n++;
		if (next_record(ls, r))
			err = tb_error(b, n, "%s", r->why);
		else if (r->kind == R_END)
			break;
		else if (r->kind == R_TEXT)
			err = tb_text_line(b, r->text, n);
		else
			err = tb_access(b, r->pid, r->page, r->write, n);
	}
	free(r);
	return err;
}

int trace_binary_to_text(struct linesrc *ls, struct trace_writer *w)
{
	struct rec *r = pgr_xcalloc(1, sizeof(*r));
	int err = magic(ls) ? -EINVAL : 0;

	r->pid = -1;
	while (!err) {
		if (next_record(ls, r))
			err = -EINVAL;
		else if (r->kind == R_END)
			break;
		else if (r->kind == R_TEXT)
			err = trace_writer_line(w, r->text);
		else
			err = trace_writer_access(w, r->pid,
						  r->page << PAGE_SHIFT,
						  r->write);
	}
	free(r);
	return err;
}

struct trace_writer {
	FILE *f;
	bool binary;
	int64_t pid;		/* of the last access, -1: none */
	uint64_t page;		/* of the last access */
};

static void put_varint(FILE *f, uint64_t v)
{
	while (v >= 0x80) {
		fputc((int)(v & 0x7f) | 0x80, f);
		v >>= 7;
	}
	fputc((int)v, f);
}

struct trace_writer *trace_writer_open(FILE *f, bool binary)
{
	struct trace_writer *w = pgr_xcalloc(1, sizeof(*w));

	w->f = f;
	w->binary = binary;
	w->pid = -1;
	if (binary)
		fputs(TRACE_BIN_MAGIC, f);
	else
		fputs("pager-trace 1\n", f);
	return w;
}

int trace_writer_line(struct trace_writer *w, const char *line)
{
	size_t n = strlen(line);

	if (!w->binary) {
		fputs(line, w->f);
		fputc('\n', w->f);
		return 0;
	}
	if (n > MAX_TEXT)
		return -EINVAL;
	fputc(REC_TEXT, w->f);
	put_varint(w->f, n);
	fwrite(line, 1, n, w->f);
	return 0;
}

int trace_writer_access(struct trace_writer *w, int64_t pid, uint64_t addr,
			bool write)
{
	uint64_t page = addr >> PAGE_SHIFT;
	int64_t delta = (int64_t)(page - w->page);

	if (!w->binary) {
		fprintf(w->f, "%c %lld 0x%llx\n", write ? 'w' : 'r',
			(long long)pid, (unsigned long long)addr);
		return 0;
	}
	fputc((write ? 1 : 0) | (pid == w->pid ? 2 : 0), w->f);
	if (pid != w->pid)
		put_varint(w->f, (uint64_t)pid);
	put_varint(w->f, ((uint64_t)delta << 1) ^ (uint64_t)(delta >> 63));
	w->pid = pid;
	w->page = page;
	return 0;
}

int trace_writer_close(struct trace_writer *w)
{
	int err = fflush(w->f) || ferror(w->f) ? -EIO : 0;

	free(w);
	return err;
}
