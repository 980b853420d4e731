/* SPDX-License-Identifier: MIT */
/*
 * file-map.h - what file-map.c offers the rest of the daemon: a file's
 * memfd mapped into a client.
 */
#ifndef PGR_DAEMON_FILE_MAP_H
#define PGR_DAEMON_FILE_MAP_H

#include "../pgr.h"

/* Inode @ino was answered to @c's "file": keep it until its "mapf" (or
 * the next "file", or the client's end) calls pgr_file_unhand(). */
void pgr_file_hand(struct pgr *p, struct client *c, uint32_t ino);
void pgr_file_unhand(struct pgr *p, struct client *c);
/* @c mapped the memfd of @ino at [start, start + len): own it. */
int pgr_file_map(struct pgr *p, struct client *c, uint64_t start,
		 uint64_t len, uint32_t ino, uint32_t gen, uint64_t pgoff,
		 uint8_t rflags, const char **why);
/* msync of [start, end) of @c: its dirty pages to the file; @d waits
 * for their writes to land. */
void pgr_file_msync(struct pgr *p, struct client *c, uint64_t start,
		    uint64_t end, struct pgr_drain *d);

#endif /* PGR_DAEMON_FILE_MAP_H */
