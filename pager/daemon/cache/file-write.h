/* SPDX-License-Identifier: MIT */
/*
 * file-write.h - what file-write.c offers the rest of the daemon: a
 * client's write(2)s and read(2)s of a cached file, written through.
 */
#ifndef PGR_DAEMON_FILE_WRITE_H
#define PGR_DAEMON_FILE_WRITE_H

#include "../pgr.h"

/* @c will write bytes [from, to) of @ino: dirty pages there go to the
 * file (@d waits for them), and stores there wait until
 * pgr_fwrite_post(). */
void pgr_fwrite_pre(struct pgr *p, struct client *c, uint32_t ino,
		    uint64_t from, uint64_t to, struct pgr_drain *d);
/* @c wrote [from, to) of @ino (from == to: the size alone changed): the
 * cache takes the file's size and bytes; @c's holds there go. */
void pgr_fwrite_post(struct pgr *p, struct client *c, uint32_t ino,
		     uint64_t from, uint64_t to);
/* @c will read (or sync) [from, to) of @ino: dirty pages there go to the
 * file first (@d waits for them); every inode's, if @ino is PGR_NONE. */
void pgr_fwrite_sync(struct pgr *p, uint32_t ino, uint64_t from,
		     uint64_t to, struct pgr_drain *d);
/* @c ends: the writes it had under way are let go. */
void pgr_fwrite_forget(struct pgr *p, struct client *c);

#endif /* PGR_DAEMON_FILE_WRITE_H */
