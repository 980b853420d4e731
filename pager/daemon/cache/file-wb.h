/* SPDX-License-Identifier: MIT */
/*
 * file-wb.h - what file-wb.c offers: write-back of the page cache's
 * dirty pages to their files.
 */
#ifndef PGR_DAEMON_FILE_WB_H
#define PGR_DAEMON_FILE_WB_H

#include "../pgr.h"

/* Start writing dirty pages [from, to) of @ino back (msync, munmap, exit,
 * a read or write of them). Each is write-protected in every mapping but
 * region @except (going away) first; where that worked it is clean from
 * now on. A page whose write is in flight already is written once more
 * when it lands. pgr_file_drain() waits for the writes to land. */
void pgr_file_flush(struct pgr *p, uint32_t ino, uint64_t from, uint64_t to,
		    uint32_t except);
/* @d waits until @ino has no write-back in flight (nothing if it has
 * none): a reference of @d's, dropped with pgr_drain_put() then. */
void pgr_file_drain(struct pgr *p, uint32_t ino, struct pgr_drain *d);
void pgr_drain_put(struct pgr *p, struct pgr_drain *d);
/* The write-back of (arg: inode << 40 | page) landed with @res. */
void pgr_file_write_done(struct pgr *p, uint64_t arg, int res);
/* The backend's writeout of file page @i (reclaim). */
enum pol_writeout pgr_file_writeout(struct pgr *p, uint32_t i);
/* The dirty pages of @ino to the file, each waited for: at shutdown,
 * when no client is served any more. */
void pgr_file_flush_now(struct pgr *p, uint32_t ino);

#endif /* PGR_DAEMON_FILE_WB_H */
