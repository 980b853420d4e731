/* SPDX-License-Identifier: MIT */
/*
 * t-trace.h - test helpers for the trace readers, shared by test-trace,
 * test-formats and test-fuzz: read a trace from memory, compare its
 * events with a table, the traces and the writer scenario more than one
 * of them reads, and a replay in a child process.
 */
#ifndef PGR_T_TRACE_H
#define PGR_T_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../pager/sim/trace.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A struct ev initializer, for the tables of the events expected. */
#define T_EV(op, fl, aux, obj, off, len)				\
	{ (uint8_t)(op), (uint8_t)(fl), (uint16_t)(aux), (uint32_t)(obj), \
	  (uint32_t)(off), (uint32_t)(len) }

/* trace_read() of the @n bytes at @p, named @name; exits if no stream. */
int t_read_mem(struct trace *t, const void *p, size_t n, const char *name,
	       enum trace_format fmt);
/* t_read_mem() of the string @text, named "test.trace". */
int t_read_str(struct trace *t, const char *text, enum trace_format fmt);
/* Are the events the same? Diagnoses the first difference if @loud. */
bool t_same_events(const struct ev *got, size_t ngot, const struct ev *want,
		   size_t nwant, bool loud);
/* A check that the events of @t are the @n of @want. */
void t_check_events(const struct trace *t, const struct ev *want, size_t n,
		    const char *what);

/* A text trace with every command once (its events: test-trace.c). */
extern const char t_good_text[];
/* The output of valgrind --tool=lackey: a banner and six accesses. */
extern const char t_lackey_text[];

/* A memory stream: p and len are valid after t_mem_close(); free p. */
struct t_mem {
	char *p;
	size_t len;
	FILE *f;
};

/* open_memstream() into @m; exits if it cannot. */
void t_mem_open(struct t_mem *m);
/* Close the stream of @m, leaving its bytes in m->p, m->len. */
void t_mem_close(struct t_mem *m);
/* A trace of lines and accesses, written to @w. */
void t_scenario(struct trace_writer *w);
/* The binary form of t_scenario(), in @bin (free bin->p); one check. */
void t_scenario_binary(struct t_mem *bin);

/* How a t_replay() ended. */
enum t_outcome {
	T_RUN_OK = 10,		/* sim_run() returned 0 */
	T_RUN_ERROR,		/* -1 with an acceptable s->err */
	T_RUN_REFUSED,		/* sim_create() said no */
	T_RUN_INVARIANT,	/* -1: policy invariant broken */
	T_RUN_NOERR,		/* -1 without s->err */
	T_RUN_CRASH,		/* signal, sanitizer report, timeout */
};

/* The name of @r, for diagnostics ("ok", "crash", ...). */
const char *t_run_name(enum t_outcome r);
/* Replay @t in a child process; @why gets the error or the crash site. */
enum t_outcome t_replay(const struct trace *t, char *why, size_t len);
/* Is @r a bug: a broken invariant, -1 without an error, or a crash? */
bool t_run_bad(enum t_outcome r);

#endif /* PGR_T_TRACE_H */
