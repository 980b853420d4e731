/* SPDX-License-Identifier: MIT */
/*
 * ctl-req.h - a control request as the command files parse it (ctl.c,
 * ctl-file.c): its words, and the replies every command makes (data
 * lines, then "ok" or "error REASON").
 */
#ifndef PGR_DAEMON_CTL_REQ_H
#define PGR_DAEMON_CTL_REQ_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/util.h"
#include "../pgr.h"
#include "control.h"

#define MAX_ARGS 64

struct req {
	struct pgr *p;
	struct conn *conn;
	int argc;
	char *argv[MAX_ARGS];
};

static inline void vreply(struct req *r, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static inline void vreply(struct req *r, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	pgr_conn_send(r->conn, line);
}

static inline void reply(struct req *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void reply(struct req *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreply(r, fmt, ap);
	va_end(ap);
}

/* reply() for callbacks that hand over finished lines. */
static inline void reply_line(void *arg, const char *text)
{
	struct req *r = arg;

	pgr_conn_send(r->conn, text);
}

static inline int fail(struct req *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int fail(struct req *r, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), "error ");

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	pgr_conn_send(r->conn, line);
	return -1;
}

static inline const char *opt(struct req *r, int i, const char *key)
{
	size_t n = strlen(key);

	if (i < r->argc && !strncmp(r->argv[i], key, n) &&
	    r->argv[i][n] == '=')
		return r->argv[i] + n + 1;
	return NULL;
}

static inline int arg_hex(struct req *r, int i, uint64_t *v)
{
	char buf[32];

	if (i >= r->argc)
		return -1;
	snprintf(buf, sizeof(buf), "0x%.20s", r->argv[i]);
	return pgr_parse_u64(buf, v);
}

/* The client this connection speaks for, or an error. */
static inline struct client *own(struct req *r)
{
	struct client *c = pgr_conn_client(r->conn);

	if (!c)
		fail(r, "no hello on this connection");
	return c;
}

/* ctl-file.c: the commands about files; false if @r is none of them. */
bool pgr_ctl_file(struct req *r);
/* ctl-lru-gen.c: MGLRU's debugfs commands; false if @r is none. */
bool pgr_ctl_lru_gen(struct req *r);
/* ctl-stat.c: stat, clients, debug; false if @r is none of them. */
bool pgr_ctl_report(struct req *r);

#endif /* PGR_DAEMON_CTL_REQ_H */
