/* SPDX-License-Identifier: MIT */
/*
 * file-fault.h - what file-fault.c offers the rest of the daemon: faults on
 * file pages, and the reads that serve them.
 */
#ifndef PGR_DAEMON_FILE_FAULT_H
#define PGR_DAEMON_FILE_FAULT_H

#include "../pgr.h"

enum pgr_served pgr_file_fault(struct pgr *p, struct client *c, uint32_t rid,
			       uint32_t off, bool write, bool wp);
/* The read of record @rec (pgr_ring_queue's arg) completed with @res. */
void pgr_file_read_done(struct pgr *p, void *rec, int res);

#endif /* PGR_DAEMON_FILE_FAULT_H */
