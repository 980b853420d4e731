/* SPDX-License-Identifier: MIT */
/*
 * linesrc.h - a buffered reader of lines and bytes from a stream, with a
 * look at the first bytes so the trace format can be told before reading
 * (stdin cannot be rewound).
 */
#ifndef PGR_LINESRC_H
#define PGR_LINESRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct linesrc {
	FILE *f;
	char *buf;
	size_t cap;		/* bytes allocated */
	size_t len;		/* bytes held */
	size_t pos;		/* next byte to hand out */
	bool eof;
	bool error;		/* a read error, as opposed to the end */
};

void ls_init(struct linesrc *ls, FILE *f);
void ls_release(struct linesrc *ls);
/* Up to @n bytes from the current position, without consuming them;
 * returns how many are available (fewer at the end). */
size_t ls_peek(struct linesrc *ls, const char **p, size_t n);
/* The next line without its newline, NUL-terminated, valid until the
 * next call; NULL at the end. A NUL byte in a line ends it early. */
char *ls_line(struct linesrc *ls);
/* The next byte, or -1 at the end. */
int ls_byte(struct linesrc *ls);

#endif /* PGR_LINESRC_H */
