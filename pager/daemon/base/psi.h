/* SPDX-License-Identifier: MIT */
/*
 * psi.h - memory pressure as the kernel's PSI reports it in
 * memory.pressure: the share of wall time in which some, or all,
 * processes under the pager waited on memory.
 */
#ifndef PGR_PSI_H
#define PGR_PSI_H

#include <stddef.h>
#include <stdint.h>

struct pgr;
struct client;

/* What memory.pressure keeps: the state since the last change, the
 * stalled time in total and its running averages (percent). */
struct pgr_psi {
	uint32_t nr_clients;	/* clients joined and not gone */
	uint32_t nr_stalled;	/* clients with a stall */
	int state;		/* PSI_SOME | PSI_FULL since @since */
	double since;		/* seconds (pgr_now()) */
	double total[2];	/* seconds stalled: some, full */
	double avg[2][3];	/* percent over 10, 60, 300 s */
	double avg_at, avg_total[2];	/* the averages' last update */
	struct psi_read { uint32_t page, client; } *reads;
	size_t nr_reads, cap_reads;	/* fault reads in flight */
};

/* A stall of @c begins (@delta 1) or ends (-1): a fault of it waits for
 * memory to be freed or for its page to be read back. */
void pgr_psi_stall(struct pgr *p, struct client *c, int delta);
/* A swap read of page @i that a fault of @c waits for starts; ends. */
void pgr_psi_read_start(struct pgr *p, struct client *c, uint32_t i);
void pgr_psi_read_done(struct pgr *p, uint32_t i);
/* A client joins ("full" counts them all); @c ends, its stalls with it. */
void pgr_psi_join(struct pgr *p);
void pgr_psi_forget(struct pgr *p, struct client *c);
/* The state brought up to now. */
void pgr_psi_update(struct pgr *p);
/* From the tick: the averages every 2 s, as the kernel's. */
void pgr_psi_tick(struct pgr *p);
/* memory.pressure.{some,full}.{avg10,avg60,avg300,total} lines, total
 * in microseconds. */
void pgr_psi_lines(struct pgr *p, void (*line)(void *, const char *),
		   void *arg);
/* The two lines of memory.pressure, in the kernel's format. */
void pgr_psi_file(struct pgr *p, void (*line)(void *, const char *),
		  void *arg);

#endif
