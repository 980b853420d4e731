/* SPDX-License-Identifier: MIT */
/*
 * linesrc.c - see linesrc.h. The buffer holds whole lines: when a line
 * does not fit, the unread rest moves to the front and the buffer grows.
 */
#include <stdlib.h>
#include <string.h>

#include "linesrc.h"
#include "util.h"

#define CHUNK (1 << 20)

void ls_init(struct linesrc *ls, FILE *f)
{
	memset(ls, 0, sizeof(*ls));
	ls->f = f;
	ls->cap = CHUNK;
	ls->buf = pgr_xcalloc(ls->cap + 1, 1);
}

void ls_release(struct linesrc *ls)
{
	free(ls->buf);
	ls->buf = NULL;
}

/* Read more, keeping the unread bytes; false if nothing more came. */
static bool more(struct linesrc *ls)
{
	size_t n;

	if (ls->eof)
		return false;
	if (ls->pos) {
		memmove(ls->buf, ls->buf + ls->pos, ls->len - ls->pos);
		ls->len -= ls->pos;
		ls->pos = 0;
	}
	if (ls->len == ls->cap) {
		ls->cap *= 2;
		ls->buf = pgr_xrealloc(ls->buf, ls->cap + 1, 1);
	}
	n = fread(ls->buf + ls->len, 1, ls->cap - ls->len, ls->f);
	if (n == 0) {
		ls->eof = true;
		ls->error = ferror(ls->f);
		return false;
	}
	ls->len += n;
	return true;
}

size_t ls_peek(struct linesrc *ls, const char **p, size_t n)
{
	while (ls->len - ls->pos < n && more(ls))
		;
	*p = ls->buf + ls->pos;
	return ls->len - ls->pos < n ? ls->len - ls->pos : n;
}

char *ls_line(struct linesrc *ls)
{
	char *nl, *line;

	for (;;) {
		nl = memchr(ls->buf + ls->pos, '\n', ls->len - ls->pos);
		if (nl || !more(ls))
			break;
	}
	if (ls->pos == ls->len)
		return NULL;
	line = ls->buf + ls->pos;
	if (nl) {
		*nl = 0;
		ls->pos = (size_t)(nl - ls->buf) + 1;
	} else {
		ls->buf[ls->len] = 0;	/* the last line, no newline */
		ls->pos = ls->len;
	}
	return line;
}

int ls_byte(struct linesrc *ls)
{
	if (ls->pos == ls->len && !more(ls))
		return -1;
	return (unsigned char)ls->buf[ls->pos++];
}
