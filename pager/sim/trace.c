/* SPDX-License-Identifier: MIT */
/*
 * trace.c - reading a trace in any format into struct trace.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/linesrc.h"
#include "trace-build.h"
#include "../lib/util.h"

int trace_format_parse(const char *s, enum trace_format *fmt)
{
	static const char *const names[] = { "auto", "text", "binary",
					     "pages", "lackey" };

	for (int i = 0; i < 5; i++) {
		if (!strcmp(s, names[i])) {
			*fmt = (enum trace_format)i;
			return 0;
		}
	}
	return -1;
}

/* Tell the format from the first bytes: the binary magic; lackey's
 * "==PID==" banner or access lines; a bare number (pages); else text. */
static enum trace_format detect(struct linesrc *ls)
{
	char head[4097], *line, *next;
	const char *p;
	size_t n = ls_peek(ls, &p, 4096);

	if (n >= 8 && !memcmp(p, TRACE_BIN_MAGIC, 8))
		return TF_BINARY;
	memcpy(head, p, n);
	head[n] = 0;
	for (line = head; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strncmp(line, "==", 2) || !strncmp(line, "I  ", 3) ||
		    !strncmp(line, " L ", 3) || !strncmp(line, " S ", 3) ||
		    !strncmp(line, " M ", 3))
			return TF_LACKEY;
		line += strspn(line, " \t\r");
		if (*line == '\n' || *line == '#' || !*line)
			continue;
		return *line >= '0' && *line <= '9' ? TF_PAGES : TF_TEXT;
	}
	return TF_TEXT;
}

static int read_text(struct tb *b, struct linesrc *ls)
{
	unsigned int line = 0;
	char *s;

	while ((s = ls_line(ls)))
		if (tb_text_line(b, s, ++line))
			return -1;
	return 0;
}

int trace_read(struct trace *t, FILE *f, const char *name,
	       enum trace_format fmt)
{
	struct tb *b = tb_create(t, name);
	struct linesrc ls;
	int err;

	ls_init(&ls, f);
	if (fmt == TF_AUTO)
		fmt = detect(&ls);
	switch (fmt) {
	case TF_BINARY:
		err = trace_read_binary(b, &ls);
		break;
	case TF_PAGES:
		err = trace_read_pages(b, &ls);
		break;
	case TF_LACKEY:
		err = trace_read_lackey(b, &ls);
		break;
	default:
		err = read_text(b, &ls);
		break;
	}
	if (!err && ls.error)
		err = tb_error(b, 0, "read error");
	if (!err)
		err = tb_finish(b);
	tb_destroy(b);
	ls_release(&ls);
	return err ? -1 : 0;
}

void trace_release(struct trace *t)
{
	for (uint32_t i = 0; i < t->nr_procs; i++)
		free(t->procs[i].ext);
	for (uint32_t i = 0; i < t->nr_strings; i++)
		free(t->strings[i]);
	free(t->ev);
	free(t->regions);
	free(t->inodes);
	free(t->groups);
	free(t->procs);
	free(t->strings);
	free(t->expects);
	memset(t, 0, sizeof(*t));
}
