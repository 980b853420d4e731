/* SPDX-License-Identifier: MIT */
/*
 * page.h - what page.c offers the rest of the daemon: page buffers, and
 * freeing a page descriptor.
 */
#ifndef PGR_DAEMON_PAGE_H
#define PGR_DAEMON_PAGE_H

#include "../pgr.h"

uint32_t pgr_buf_get(struct pgr *p);
void pgr_buf_put(struct pgr *p, uint32_t buf);
/* Give back the memory of buffers idle since the last call. */
void pgr_bufs_trim(struct pgr *p);
/* Is page @i clean with a copy in swap? Then it is mapped write-protected,
 * so that its first write (a write-protect fault) dirties it. */
bool pgr_page_clean_cached(const struct pgr *p, uint32_t page);
/* Free a page descriptor (and its buffer, swap cache) with the policy. */
void pgr_page_free(struct pgr *p, uint32_t page);
/* Give back @page's buffer, unless a write-out still reads it: then
 * pgr_writeout_done() gives it back. */
void pgr_page_buf_release(struct pgr *p, uint32_t page);

#endif /* PGR_DAEMON_PAGE_H */
