/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the control socket's framing: lines of text, with file
 * descriptors riding along (SCM_RIGHTS). Used by the daemon (non-blocking,
 * under libuv), the CLI and the preload shim (blocking). No allocation:
 * the shim uses it inside programs whose heap the pager manages.
 */
#ifndef PGR_WIRE_H
#define PGR_WIRE_H

#include <stddef.h>

#define WIRE_BUF	65536	/* longest line, and then some */
#define WIRE_MAX_FDS	8	/* received and not yet taken */

struct wire {
	int fd;
	size_t len;		/* bytes in buf */
	size_t used;		/* bytes of buf handed out as lines */
	int nfds;
	int fds[WIRE_MAX_FDS];
	int skipping;		/* dropping an overlong line to its end */
	char buf[WIRE_BUF + 1];
};

void wire_init(struct wire *w, int fd);
/* Close the fds received and not taken (not w->fd). */
void wire_release(struct wire *w);
/* Read what is there (or wait for something, on a blocking socket).
 * Return bytes read, 0 at EOF, -EAGAIN, or -errno; -EMSGSIZE once for a
 * line longer than WIRE_BUF, which is then dropped up to its newline
 * while reading goes on. */
int wire_fill(struct wire *w);
/* The next complete line, newline stripped, NUL-terminated, valid until
 * the next wire_fill(); NULL if none is complete. */
char *wire_line(struct wire *w);
/* The oldest received fd not yet taken, or -1. */
int wire_take_fd(struct wire *w);
/* Send all of @buf (blocking until done), with @nfds fds on the first
 * byte. Return 0 or -errno. */
int wire_send(int fd, const char *buf, size_t len, const int *fds, int nfds);
/* Send one formatted line (a newline is appended). */
int wire_printf(int fd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Read lines from a blocking socket until "ok" or "error ...": each data
 * line goes to @line (if not NULL). Return 0 on ok, -1 on error (its text
 * in @err), -errno on a broken connection. */
int wire_call(struct wire *w, void (*line)(const char *s, void *arg),
	      void *arg, char *err, size_t errlen);

#endif /* PGR_WIRE_H */
