/* SPDX-License-Identifier: MIT */
/*
 * record.h - what record.c offers the rest of the daemon: `pager run
 * --record`, the run in `pager sim`'s format.
 */
#ifndef PGR_DAEMON_RECORD_H
#define PGR_DAEMON_RECORD_H

#include "../pgr.h"

int pgr_record_open(struct pgr *p, const char *path);
void pgr_record_close(struct pgr *p);
/* A line (a newline is added), if recording. */
void pgr_rec(struct pgr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pgr_rec_set(struct pgr *p, const char *key, const char *val);
void pgr_rec_access(struct pgr *p, const struct client *c, uint64_t addr,
		    uint64_t pages, bool write);
void pgr_rec_madvise(struct pgr *p, const struct client *c, uint64_t addr,
		     uint64_t len, uint8_t advice);
void pgr_rec_mmap(struct pgr *p, const struct client *c,
		  const struct region *r);

#endif /* PGR_DAEMON_RECORD_H */
